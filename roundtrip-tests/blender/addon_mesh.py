"""Blender's side of `blender_addon::addon_imports_a_models_mesh_skinned_to_its_armature`:
installs the add-on from its zip, imports the model folder SOURCE (model MODEL) with File >
Import > Gothic model/animation (animkit), and writes REPORT: every object's type, name, parent
and (meshes) vertex count and modifiers.

    blender -b --factory-startup --python addon_mesh.py -- ZIP ANIMKIT REPORT.json SOURCE MODEL \
        [BODY [HEAD]] [textures=FOLDER_OR_VDF]

BODY and HEAD are chosen from the import's lists (its body and head choosers); without them
the import finds the body itself. `textures=` fills the import's texture chooser. Each mesh's
entry lists the images its materials use.
"""

import json
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, animkit, report_path, source, model = argv[:5]
choices = {}
rest = []
for a in argv[5:]:
    if a.startswith("textures="):
        choices["textures"] = a[len("textures="):]
    else:
        rest.append(a)
if len(rest) > 0:
    choices["body_choice"] = rest[0]
if len(rest) > 1:
    choices["head_choice"] = rest[1]
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
        entry["images"] = sorted({
            n.image.name for slot in o.material_slots if slot.material and slot.material.use_nodes
            for n in slot.material.node_tree.nodes if n.type == "TEX_IMAGE" and n.image})
    objects.append(entry)
with open(report_path, "w") as f:
    json.dump({"blender": bpy.app.version_string, "objects": objects}, f)
print("animkit-addon-mesh: ok")
