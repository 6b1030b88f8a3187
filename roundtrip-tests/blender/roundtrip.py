"""Blender's side of animkit's glTF tests (roundtrip-tests/gltf_blender.rs), run headless:

    blender -b --factory-startup --python roundtrip.py -- IN.glb OUT.glb REPORT.json FPS \
        [--edit ACTION BONE FRAME DEGREES]

Imports IN with the glTF add-on's default options, sets the scene's frame rate to FPS and its
frame range to the imported actions' (as the README tells users to), optionally turns one
bone at one frame (about its own x axis) and keys it, exports OUT with the default options,
and writes REPORT: the armature (bones, parents), the actions (frame ranges, NLA tracks) and,
for a few frames of every action, each pose bone's armature-space matrix and rest matrix.
"""

import json
import math
import sys

import bpy
import mathutils

argv = sys.argv[sys.argv.index("--") + 1:]
src, out, report_path, fps = argv[0], argv[1], argv[2], int(argv[3])
edit = None
if "--edit" in argv:
    k = argv.index("--edit")
    edit = (argv[k + 1], argv[k + 2], int(argv[k + 3]), float(argv[k + 4]))

for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene = bpy.context.scene
# Blender's importer places key t at frame t * fps and its exporter samples frame f at
# f / fps: the scene's rate must be the animation's before importing.
scene.render.fps = fps
scene.render.fps_base = 1
bpy.ops.import_scene.gltf(filepath=src)

arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
assert len(arms) == 1, [o.name for o in bpy.data.objects]
arm = arms[0]
ad = arm.animation_data
active = ad.action if ad else None


def rows(m):
    return [m[r][c] for r in range(4) for c in range(4)]


report = {
    "armature": arm.name,
    "bones": [{"name": b.name, "parent": b.parent.name if b.parent else None} for b in arm.data.bones],
    "actions": {a.name: list(a.frame_range) for a in bpy.data.actions},
    "nla": [t.name for t in ad.nla_tracks] if ad else [],
    "samples": {},
}

# Sample every action alone (NLA off), at its first, middle and last frame.
ad.use_nla = False
for track in ad.nla_tracks:
    for strip in track.strips:
        action = strip.action
        ad.action = action
        start, end = (int(round(x)) for x in action.frame_range)
        frames = sorted({start, (start + end) // 2, end})
        per = {}
        for f in frames:
            scene.frame_set(f)
            per[str(f)] = {
                pb.name: {"matrix": rows(pb.matrix), "rest": rows(pb.bone.matrix_local)}
                for pb in arm.pose.bones
            }
        report["samples"][track.name] = per

if edit:
    track_name, bone, frame, degrees = edit
    action = next(s.action for t in ad.nla_tracks if t.name == track_name for s in t.strips)
    ad.action = action
    scene.frame_set(frame)
    pb = arm.pose.bones[bone]
    turn = mathutils.Quaternion((1.0, 0.0, 0.0), math.radians(degrees))
    pb.rotation_quaternion = pb.rotation_quaternion @ turn
    pb.keyframe_insert("rotation_quaternion", frame=frame)
    report["edited"] = {"action": action.name, "bone": bone, "frame": frame}

ad.action = active
ad.use_nla = True

# The exporter clips to the scene's playback range: make it the actions' range.
scene.frame_start = min(int(a.frame_range[0]) for a in bpy.data.actions)
scene.frame_end = max(int(a.frame_range[1]) for a in bpy.data.actions)
report["frame_range"] = [scene.frame_start, scene.frame_end]
bpy.ops.export_scene.gltf(filepath=out)

with open(report_path, "w") as f:
    json.dump(report, f)
print("animkit-blender: ok")
