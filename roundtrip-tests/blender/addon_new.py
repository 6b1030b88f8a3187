"""Blender's side of `blender_addon::addon_exports_a_new_animation_into_the_model_script`, run
headless:

    blender -b --factory-startup --python addon_new.py -- ZIP ANIMKIT REPORT.json SOURCE NAME \
        [MODEL]

Installs the add-on from its zip, imports SOURCE (a model script .MDS/.MSB, or a VDF archive
and its model MODEL) with File > Import > Gothic model/animation (animkit), makes a new action as a user does (Action Editor >
New: an empty action made the armature's active one, the imported animations still on their
NLA tracks), keys two bones over frames 0-8 (BIP01 HEAD turned 30 degrees about its x axis at
frame 4, BIP01 L UPPERARM 20 degrees about its z axis at frame 8, both at rest at frame 0),
and runs File > Export > Gothic animation (animkit) with "New animation" named NAME. Then the
same export again, which animkit must refuse (the model has that animation now). REPORT holds
the scene, the objects, the reports and the refusal, and the SHA-256 of every file in
SOURCE's folder tree after each export.
"""

import hashlib
import json
import math
import os
import sys

import bpy
import mathutils

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, animkit, report_path, source, name = argv[:5]
model = argv[5] if len(argv) > 5 else ""
report = {"blender": bpy.app.version_string}

bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="animkit_blender")
bpy.context.preferences.addons["animkit_blender"].preferences.animkit_path = animkit
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene = bpy.context.scene

bpy.ops.import_scene.animkit(filepath=source, model=model)
arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
report["fps"] = scene.render.fps
report["origin"] = json.loads(arm["animkit_origin"])
# The meshes skinned to the armature (Blender 4.x's importer also makes bone-shape meshes).
report["skinned"] = sorted(
    len(o.data.vertices) for o in bpy.data.objects if o.type == "MESH"
    and any(m.type == "ARMATURE" and m.object == arm for m in o.modifiers))
# (a model without animations has no animation data yet: the Action Editor makes it)
ad = arm.animation_data or arm.animation_data_create()
report["nla"] = sorted(t.name for t in ad.nla_tracks)

# Action Editor > New: a new empty action, the armature's active one.
action = bpy.data.actions.new("MyWave")
ad.action = action
bpy.context.view_layer.objects.active = arm


def key(bone, frame, axis=None, degrees=0.0):
    scene.frame_set(frame)
    pb = arm.pose.bones[bone]
    pb.rotation_mode = "QUATERNION"
    pb.location = (0.0, 0.0, 0.0)
    pb.rotation_quaternion = (mathutils.Quaternion(axis, math.radians(degrees)) if axis
                              else mathutils.Quaternion())
    pb.keyframe_insert("rotation_quaternion", frame=frame)


for frame in (0, 8):
    key("BIP01 HEAD", frame)
key("BIP01 HEAD", 4, (1.0, 0.0, 0.0), 30.0)
key("BIP01 L UPPERARM", 0)
key("BIP01 L UPPERARM", 8, (0.0, 0.0, 1.0), 20.0)
report["action_range"] = list(action.frame_range)


def files():
    root = os.path.dirname(source)
    out = {}
    for folder, _dirs, names in os.walk(root):
        for n in names:
            p = os.path.join(folder, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


bpy.ops.export_scene.animkit(as_new=True, new_name=name)
report["after_export"] = files()
# The export left the user's scene as it was: the imported animations' strips unmuted, the
# new action still the active one.
report["strips_muted"] = sorted(s.mute for t in ad.nla_tracks for s in t.strips)
report["active_action"] = ad.action.name if ad.action else None

try:
    bpy.ops.export_scene.animkit(as_new=True, new_name=name)
    report["refused"] = None
except RuntimeError as e:
    report["refused"] = str(e)
report["after_refusal"] = files()

with open(report_path, "w") as f:
    json.dump(report, f)
print("animkit-addon-new: ok")
