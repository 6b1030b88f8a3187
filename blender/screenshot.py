"""The README's picture of the add-on: Blender's window (under a virtual X server) after
File > Import > Gothic model/animation (animkit) of samples/HUMAN-S_WALKL.MAN and
HUMAN-S_RUNL.MAN, posed at a frame of the walk, with the add-on's sidebar tab open; and
(phase `dialog`, blender/addon-export.png) the same with the export's dialog open, "New
animation" ticked.

    blender/screenshot [OUT.png] [ANIMKIT]

runs Blender twice with a scratch user folder (the user's own settings are not touched):
first in the background to install and enable the add-on from ZIP and save those
preferences (no splash screen), then with a window under Xvfb to import and take the picture.
"""

import os
import shutil
import sys
import tempfile
import math

import mathutils

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
phase, zip_path, animkit, out_png, samples = argv[:5]

if phase == "prefs":
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="animkit_blender")
    prefs = bpy.context.preferences
    prefs.addons["animkit_blender"].preferences.animkit_path = animkit
    prefs.view.show_splash = False
    bpy.ops.wm.save_userpref()
    sys.exit(0)

work = tempfile.mkdtemp(prefix="animkit-shot-")
names = ["HUMAN-S_WALKL.MAN", "HUMAN-S_RUNL.MAN"]
for n in [*names, "HUMAN.MDH"]:
    shutil.copy(os.path.join(samples, n), work)


def setup():
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o, do_unlink=True)
    bpy.ops.import_scene.animkit(filepath=os.path.join(work, names[0]), directory=work + os.sep,
                                 files=[{"name": n} for n in names])
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    ad = arm.animation_data
    ad.use_nla = False
    ad.action = next(s.action for t in ad.nla_tracks if t.name == "S_WALKL" for s in t.strips)
    bpy.context.scene.frame_set(8)
    print("animkit-screenshot: frames", bpy.context.scene.frame_start, bpy.context.scene.frame_end)
    window = bpy.context.window_manager.windows[0]
    for area in window.screen.areas:
        if area.type == "VIEW_3D":
            space = area.spaces[0]
            space.show_region_ui = True
            space.shading.type = "SOLID"
            space.overlay.show_floor = True
            r3d = space.region_3d
            r3d.view_perspective = "PERSP"
            r3d.view_rotation = mathutils.Euler((math.radians(80), 0, math.radians(25))).to_quaternion()
            r3d.view_location = (0.0, 0.0, 0.9)
            r3d.view_distance = 3.2
    return None


def sidebar_tab():
    """Click the sidebar's animkit tab, as a user does (Blender runs with
    --enable-event-simulate): the tabs are the rightmost column of the sidebar, the add-on's
    the fourth."""
    window = bpy.context.window_manager.windows[0]
    for area in window.screen.areas:
        if area.type != "VIEW_3D":
            continue
        for region in area.regions:
            if region.type == "UI":
                x = region.x + region.width - 8
                y = region.y + region.height - 245 + 95
                window.event_simulate(type="MOUSEMOVE", value="NOTHING", x=x, y=y)
                window.event_simulate(type="LEFTMOUSE", value="PRESS", x=x, y=y)
                window.event_simulate(type="LEFTMOUSE", value="RELEASE", x=x, y=y)
    return None


def export_dialog():
    """Phase `dialog`: open File > Export > Gothic animation (animkit) as the menu does (its
    dialog, "New animation" ticked and named) at the middle of the 3D view."""
    window = bpy.context.window_manager.windows[0]
    area = next(a for a in window.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    x, y = region.x + region.width // 2, region.y + region.height // 2
    window.event_simulate(type="MOUSEMOVE", value="NOTHING", x=x, y=y)
    with bpy.context.temp_override(window=window, area=area, region=region):
        bpy.ops.export_scene.animkit("INVOKE_DEFAULT", as_new=True, new_name="S_MYWAVE",
                                     next_ani="S_RUNL")
    return None


def shoot():
    window = bpy.context.window_manager.windows[0]
    with bpy.context.temp_override(window=window):
        bpy.ops.screen.screenshot(filepath=out_png)
    print("animkit-screenshot: wrote", out_png)
    bpy.ops.wm.quit_blender()
    return None


bpy.app.timers.register(setup, first_interval=1.0)
bpy.app.timers.register(sidebar_tab, first_interval=3.0)
if phase == "dialog":
    bpy.app.timers.register(export_dialog, first_interval=4.5)
bpy.app.timers.register(shoot, first_interval=6.0)
