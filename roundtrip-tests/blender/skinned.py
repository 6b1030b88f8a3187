"""Blender's side of animkit's character test (roundtrip-tests/gltf_mesh.rs), run headless:

    blender -b --factory-startup --python skinned.py -- IN.glb REPORT.json ACTION FRAME...

Imports IN with the glTF add-on's default options and writes REPORT: the meshes (name, parent,
parent bone, vertex count, materials with whether they have an image) and, for every skinned
mesh, each vertex's world position in the rest pose and, with ACTION playing, at each FRAME
(the evaluated, deformed mesh), with its vertex groups.
"""

import json
import sys

import bpy
import numpy

# Blender 3.4's glTF importer calls `numpy.bool` for meshes (set_poly_smoothing), which NumPy
# 1.24 removed: Debian's blender with its python3-numpy fails on every file with normals.
# The alias it meant is the builtin.
if not hasattr(numpy, "bool") or numpy.__version__ >= "1.24":
    numpy.bool = bool

argv = sys.argv[sys.argv.index("--") + 1:]
src, report_path, action_name = argv[0], argv[1], argv[2]
frames = [int(x) for x in argv[3:]]

for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene = bpy.context.scene
scene.render.fps = 25
scene.render.fps_base = 1
bpy.ops.import_scene.gltf(filepath=src)

arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
assert len(arms) == 1, [o.name for o in bpy.data.objects]
arm = arms[0]
ad = arm.animation_data
ad.use_nla = False
ad.action = next(a for a in bpy.data.actions if a.name.startswith(action_name))


def world_positions(obj):
    deps = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(deps)
    mesh = ev.to_mesh()
    out = [list(ev.matrix_world @ v.co) for v in mesh.vertices]
    ev.to_mesh_clear()
    return out


report = {"meshes": [], "skinned": {}}
for o in bpy.data.objects:
    if o.type != "MESH":
        continue
    mats = []
    for m in o.data.materials:
        has_image = bool(m and m.use_nodes and any(n.type == "TEX_IMAGE" and n.image for n in m.node_tree.nodes))
        mats.append({"name": m.name if m else None, "image": has_image})
    report["meshes"].append({
        "name": o.name,
        "parent": o.parent.name if o.parent else None,
        "parent_type": o.parent_type,
        "parent_bone": o.parent_bone or None,
        "vertices": len(o.data.vertices),
        "materials": mats,
        "skinned": any(md.type == "ARMATURE" for md in o.modifiers),
    })

skinned = [o for o in bpy.data.objects if o.type == "MESH" and any(md.type == "ARMATURE" for md in o.modifiers)]
for o in skinned:
    names = [g.name for g in o.vertex_groups]
    groups = [[[names[g.group], g.weight] for g in v.groups if g.weight > 0] for v in o.data.vertices]
    arm.data.pose_position = "REST"
    scene.frame_set(frames[0])
    rest = world_positions(o)
    arm.data.pose_position = "POSE"
    posed = {}
    for f in frames:
        scene.frame_set(f)
        posed[str(f)] = world_positions(o)
    report["skinned"][o.name] = {"groups": groups, "rest": rest, "posed": posed}

with open(report_path, "w") as f:
    json.dump(report, f)
print("animkit-blender: ok")
