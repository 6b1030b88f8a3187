"""Draw the README picture: an exported skeleton in several poses of its animation, rendered
by Blender (headless, Cycles on the CPU) from the glTF that animkit wrote.

    animkit gltf export samples/HUMAN-S_WALKL.MAN --mdh samples/HUMAN.MDH -o walk.glb --no-origin
    blender -b --factory-startup --python roundtrip-tests/blender/render_poses.py -- \
        walk.glb roundtrip-tests/blender/poses.png

Imports the file with the add-on's defaults (scene rate 25 fps first), puts a copy of the
skeleton for each of five frames side by side (a cone per bone, from head to tail in the pose
of that frame, a ball per joint), and renders it. Beside the picture it writes
`poses.png.sha256`: the SHA-256 of the glTF it was drawn from, which a test compares with a
fresh export (roundtrip-tests/gltf.rs), so the picture is redrawn whenever the export changes.
"""

import hashlib
import math
import sys

import bmesh
import bpy
from mathutils import Matrix, Vector

argv = sys.argv[sys.argv.index("--") + 1:]
src, out = argv[0], argv[1]
frames_wanted = 5

for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene = bpy.context.scene
scene.render.fps = 25
scene.render.fps_base = 1
bpy.ops.import_scene.gltf(filepath=src)
arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
start, end = (int(round(x)) for x in arm.animation_data.action.frame_range)
frames = [start + round(k * (end - start + 1) / frames_wanted) for k in range(frames_wanted)]

bm = bmesh.new()
spacing = 0.8
for k, f in enumerate(frames):
    scene.frame_set(f)
    # Each pose a step further forward (-y in Blender), like a sequence of photographs.
    shift = Matrix.Translation((0.0, -(k - (len(frames) - 1) / 2) * spacing, 0.0))
    for pb in arm.pose.bones:
        if pb.parent is None:
            continue  # the root's bone only shows where the model stands
        head = arm.matrix_world @ pb.head
        tail = arm.matrix_world @ pb.tail
        axis = tail - head
        length = axis.length
        if length < 1e-6:
            continue
        # A cone along z, turned onto the bone.
        rot = axis.normalized().to_track_quat("Z", "Y").to_matrix().to_4x4()
        m = shift @ Matrix.Translation(head) @ rot @ Matrix.Translation((0, 0, length / 2))
        r = min(0.035, length * 0.18)
        bmesh.ops.create_cone(bm, cap_ends=True, segments=12, radius1=r, radius2=r * 0.25,
                              depth=length, matrix=m)
        bmesh.ops.create_uvsphere(bm, u_segments=12, v_segments=8, radius=r * 0.9,
                                  matrix=shift @ Matrix.Translation(head))
mesh = bpy.data.meshes.new("poses")
bm.to_mesh(mesh)
bm.free()
for p in mesh.polygons:
    p.use_smooth = True
body = bpy.data.objects.new("poses", mesh)
scene.collection.objects.link(body)
mat = bpy.data.materials.new("bone")
mat.use_nodes = True
mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.85, 0.55, 0.2, 1)
mesh.materials.append(mat)
arm.hide_render = True

bpy.ops.mesh.primitive_plane_add(size=8, location=(0, 0, 0))
floor = bpy.context.active_object
fmat = bpy.data.materials.new("floor")
fmat.use_nodes = True
fmat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.9, 0.9, 0.88, 1)
floor.data.materials.append(fmat)

sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
sun.data.energy = 3.0
sun.rotation_euler = (math.radians(35), math.radians(-15), math.radians(60))
scene.collection.objects.link(sun)
world = bpy.data.worlds.new("world")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = (1, 1, 1, 1)
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6
scene.world = world

cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
cam.data.type = "ORTHO"
cam.data.ortho_scale = 4.4
# The models face -y in Blender (glTF's +z): look at them from their right, a little from the
# front and above.
cam.location = (6.0, -2.2, 2.2)
cam.rotation_euler = (Vector((0, 0.0, 0.9)) - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.collection.objects.link(cam)
scene.camera = cam

scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 32
scene.cycles.use_denoising = False
scene.render.resolution_x = 1200
scene.render.resolution_y = 480
scene.render.film_transparent = False
scene.render.image_settings.file_format = "PNG"
scene.render.filepath = out
bpy.ops.render.render(write_still=True)

with open(src, "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
with open(out + ".sha256", "w") as f:
    f.write(digest + "\n")
print("animkit-render: ok", frames)
