"""Blender's side of `blender_addon::addon_imports_a_models_mesh_skinned_to_its_armature`:
installs the add-on from its zip, imports the model folder SOURCE (model MODEL) with File >
Import > Gothic model/animation (animkit), and writes REPORT: every object's type, name, parent
and (meshes) vertex count and modifiers.

    blender -b --factory-startup --python addon_mesh.py -- ZIP ANIMKIT REPORT.json SOURCE MODEL \
        [BODY [HEAD]]

BODY and HEAD are chosen from the import's lists (its body and head choosers); without them
the import finds the body itself.
"""

import json
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, animkit, report_path, source, model = argv[:5]
choices = {}
if len(argv) > 5:
    choices["body_choice"] = argv[5]
if len(argv) > 6:
    choices["head_choice"] = argv[6]
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="animkit_blender")
bpy.context.preferences.addons["animkit_blender"].preferences.animkit_path = animkit
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
# filepath first: the choosers' lists are the meshes beside it
bpy.ops.import_scene.animkit(filepath=source, model=model, **choices)
objects = []
for o in bpy.data.objects:
    entry = {"type": o.type, "name": o.name, "parent": o.parent.name if o.parent else None,
             "parent_bone": o.parent_bone or None}
    if o.type == "MESH":
        entry["vertices"] = len(o.data.vertices)
        entry["modifiers"] = [
            {"type": m.type, "object": m.object.name if getattr(m, "object", None) else None}
            for m in o.modifiers
        ]
    objects.append(entry)
with open(report_path, "w") as f:
    json.dump({"blender": bpy.app.version_string, "objects": objects}, f)
print("animkit-addon-mesh: ok")
