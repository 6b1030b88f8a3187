"""Blender's side of the README picture of a real model (driven by blender/render_readme):

    blender -b --factory-startup --python blender/render_readme.py -- \
        MODEL.glb OUT.png ACTION FRAME WIDTH HEIGHT SAMPLES REPORT.json

Imports the glTF that `animkit gltf export` wrote (body mesh, head, textures, animations) with
the glTF add-on's defaults, poses the armature at FRAME of the animation ACTION (the NLA track
of that name), frames the posed model with the camera (its evaluated vertices' bounds, seen
from the front-right and a little above), lights it (a sun and a soft sky) and renders a
WIDTH×HEIGHT PNG with Cycles on the CPU (SAMPLES samples, which works headless). REPORT gets
the size, the action and frame, the meshes, which materials have an image, and the bounds.
ACTION `-` renders the rest pose.
"""

import json
import math
import sys

import bpy
import numpy
from mathutils import Vector

# Blender 3.4's glTF importer calls `numpy.bool` for meshes, which NumPy 1.24 removed.
if not hasattr(numpy, "bool") or numpy.__version__ >= "1.24":
    numpy.bool = bool

argv = sys.argv[sys.argv.index("--") + 1:]
src, out, action_name = argv[0], argv[1], argv[2]
frame, width, height, samples = int(argv[3]), int(argv[4]), int(argv[5]), int(argv[6])
report_path = argv[7]

for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene = bpy.context.scene
scene.render.fps = 25
scene.render.fps_base = 1
bpy.ops.import_scene.gltf(filepath=src)

arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
ad = arm.animation_data
ad.use_nla = False
if action_name == "-":
    # the rest pose
    ad.action = None
    for pb in arm.pose.bones:
        pb.matrix_basis.identity()
else:
    tracks = [t for t in ad.nla_tracks if t.name == action_name]
    assert tracks, [t.name for t in ad.nla_tracks]
    ad.action = tracks[0].strips[0].action
scene.frame_set(frame)
bpy.context.view_layer.update()

# The posed model's bounds (every mesh as deformed at this frame).
depsgraph = bpy.context.evaluated_depsgraph_get()
meshes = [o for o in bpy.data.objects if o.type == "MESH"]
lo = Vector((1e9, 1e9, 1e9))
hi = Vector((-1e9, -1e9, -1e9))
for o in meshes:
    ev = o.evaluated_get(depsgraph)
    m = ev.to_mesh()
    for v in m.vertices:
        w = ev.matrix_world @ v.co
        lo = Vector(map(min, lo, w))
        hi = Vector(map(max, hi, w))
    ev.to_mesh_clear()
centre = (lo + hi) / 2
size = hi - lo

world = bpy.data.worlds.new("world")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.78, 0.82, 0.88, 1)
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.9
scene.world = world
sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
sun.data.energy = 4.0
sun.rotation_euler = (math.radians(40), math.radians(-10), math.radians(35))
scene.collection.objects.link(sun)

# The models face -y in Blender (glTF's +z): look from the front-right, a little from above,
# an orthographic view that holds the whole model with a margin.
cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
cam.data.type = "ORTHO"
aspect = width / height
cam.data.ortho_scale = 1.15 * max(size.z * aspect, max(size.x, size.y) * 1.1)
direction = Vector((0.6, -1.0, 0.35)).normalized()
cam.location = centre + direction * (size.length * 2 + 1)
cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
cam.data.clip_end = size.length * 6 + 10
scene.collection.objects.link(cam)
scene.camera = cam

scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = samples
scene.cycles.use_denoising = False
scene.render.resolution_x = width
scene.render.resolution_y = height
scene.render.resolution_percentage = 100
scene.render.film_transparent = False
scene.render.image_settings.file_format = "PNG"
scene.render.image_settings.color_mode = "RGB"
scene.render.filepath = out
bpy.ops.render.render(write_still=True)


def has_image(mat):
    return bool(mat and mat.use_nodes and any(
        n.type == "TEX_IMAGE" and n.image is not None for n in mat.node_tree.nodes))


report = {
    "size": [width, height],
    "action": action_name,
    "frame": frame,
    "meshes": sorted(o.name for o in meshes),
    "materials": {m.name: has_image(m) for m in bpy.data.materials if m.users},
    "bounds": [list(lo), list(hi)],
}
with open(report_path, "w") as f:
    json.dump(report, f, indent=1)
print("animkit-render: ok")
