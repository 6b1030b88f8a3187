"""Blender's side of the add-on test (roundtrip-tests/blender_addon.rs), run headless:

    blender -b --factory-startup --python addon_test.py -- ZIP ANIMKIT REPORT.json MODE SOURCE \
        [MODEL]

Installs the add-on from its zip as a user would (Preferences > Add-ons > Install, enable),
points it at ANIMKIT, imports SOURCE with File > Import > Gothic model/animation (animkit)
(MODE `mans`: SOURCE is a folder, every *.MAN in it is chosen, the MDH found beside them;
`archive`: SOURCE is a VDF and MODEL the model in it; `asc`: SOURCE is an animation ASC with
one MDH beside it), turns BIP01 L FOREARM of the S_WALKL action (or $KEY_BONE of $KEY_TRACK)
by 30 degrees at the MAN's frame 10 and keys it, runs File > Export > Gothic animation
(animkit), then keys BIP01 1 km away and exports again, which animkit must refuse. REPORT
holds the scene settings, the add-on's reports and the refusal.
"""

import hashlib
import json
import math
import os
import sys

import bpy
import mathutils

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, animkit, report_path, mode, source = argv[:5]
model = argv[5] if len(argv) > 5 else ""
report = {}

bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="animkit_blender")
bpy.context.preferences.addons["animkit_blender"].preferences.animkit_path = animkit

for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene = bpy.context.scene

if mode == "mans":
    names = sorted(n for n in os.listdir(source) if n.upper().endswith(".MAN")
                   and n.upper().startswith("HUMAN-"))
    bpy.ops.import_scene.animkit(filepath=os.path.join(source, names[0]),
                                 directory=source + os.sep,
                                 files=[{"name": n} for n in names])
elif mode == "asc":
    bpy.ops.import_scene.animkit(filepath=source)
else:
    bpy.ops.import_scene.animkit(filepath=source, model=model)

arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
ad = arm.animation_data
report["blender"] = bpy.app.version_string
report["fps"] = scene.render.fps
report["frame_range"] = [scene.frame_start, scene.frame_end]
report["origin"] = json.loads(arm["animkit_origin"])
report["nla"] = sorted(t.name for t in ad.nla_tracks)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def key(track_name, bone, man_frame, change):
    """Key `bone` of the track's action at the MAN's frame (scene frame = MAN frame x scene
    rate / MAN rate, which the add-on's rate makes whole)."""
    action = next(s.action for t in ad.nla_tracks if t.name == track_name for s in t.strips)
    active = ad.action
    ad.use_nla = False
    ad.action = action
    man_fps = report["man_fps"][track_name]
    frame = round(man_frame * scene.render.fps / man_fps)
    scene.frame_set(frame)
    pb = arm.pose.bones[bone]
    path = change(pb)
    pb.keyframe_insert(path, frame=frame)
    ad.action = active
    ad.use_nla = True
    return frame


# The MANs' own rates (from animkit, as a user reads them with `animkit info`).
report["man_fps"] = {"S_WALKL": 25.0, "S_RUNL": float(os.environ.get("RUN_FPS", "25"))}
# The action and bone to key (mode `asc`: the ASC's animation and one of its bones).
track = os.environ.get("KEY_TRACK", "S_WALKL")
bone = os.environ.get("KEY_BONE", "BIP01 L FOREARM")
report["man_fps"].setdefault(track, 25.0)


def turn(pb):
    pb.rotation_quaternion = pb.rotation_quaternion @ mathutils.Quaternion(
        (1.0, 0.0, 0.0), math.radians(30.0))
    return "rotation_quaternion"


report["edited_scene_frame"] = key(track, bone, 10, turn)
bpy.ops.export_scene.animkit()
written = {"mans": report["origin"].get("mans"), "asc": [report["origin"].get("man")]}
report["after_export"] = {p: sha(p) for p in written.get(mode) or [report["origin"]["path"]]}


def far(pb):
    pb.location = (1000.0, 0.0, 0.0)
    return "location"


key(track, "BIP01", 5, far)
try:
    bpy.ops.export_scene.animkit()
    report["refused"] = None
except RuntimeError as e:
    report["refused"] = str(e)

with open(report_path, "w") as f:
    json.dump(report, f)
print("animkit-addon-test: ok")
