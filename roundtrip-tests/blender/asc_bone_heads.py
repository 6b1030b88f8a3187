# blender -b --factory-startup --python asc_bone_heads.py -- ADDON_PARENT SKELETON.ASC ANIM.ASC OUT.json
# Imports the skeleton and the animation ASC with KrxImpExp (quiet mode, as the community's
# importer runs without its Windows options dialog) and writes, for every frame of the scene,
# the world position of every bone head and every slot object (metres) as JSON:
# {"fps": 25, "frames": {"26": {"Bip01 Spine": [x, y, z], ...}, ...}}
import sys, json, bpy

args = sys.argv[sys.argv.index('--') + 1:]
addon, skeleton, anim, out = args[0], args[1], args[2], args[3]
sys.path.insert(0, addon)
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
from KrxImpExp import KrxAscImp

for f in (skeleton, anim):
    if KrxAscImp.KrxAscImp(f, True) != 1:
        print('animkit-asc: import failed:', f)
        sys.exit(1)
scene = bpy.context.scene
arm = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
frames = {}
for fr in range(scene.frame_start, scene.frame_end + 1):
    scene.frame_set(fr)
    heads = {}
    for pb in arm.pose.bones:
        heads[pb.name] = list(arm.matrix_world @ pb.head)
    for o in bpy.data.objects:
        if o.type != 'ARMATURE':
            heads[o.name] = list(o.matrix_world.translation)
    frames[str(fr)] = heads
with open(out, 'w') as fh:
    json.dump({'fps': scene.render.fps, 'frames': frames}, fh)
print('animkit-asc: ok', len(frames), 'frames')
