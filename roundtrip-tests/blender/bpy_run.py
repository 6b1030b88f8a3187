"""Run a Blender test script in Blender 4.x as the `bpy` Python module (PyPI's `bpy`, the same
Blender as a module; .ci/run installs it into roundtrip-tests/bpy/venv):

    roundtrip-tests/bpy/venv/bin/python bpy_run.py SCRIPT -- ARGS...

does what `blender -b --factory-startup --python SCRIPT -- ARGS...` does with Debian's
Blender 3.4, so the add-on test runs on both the oldest and the current Blender API.
"""

import runpy
import sys

import bpy

bpy.ops.wm.read_factory_settings(use_empty=False)
print(f"bpy_run: Blender {bpy.app.version_string}")
script = sys.argv[1]
sys.argv = [script] + sys.argv[2:]
runpy.run_path(script, run_name="__main__")
