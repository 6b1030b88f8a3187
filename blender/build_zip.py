#!/usr/bin/env python3
"""Zip the Blender add-on for Edit > Preferences > Add-ons > Install:

    python3 blender/build_zip.py OUTDIR     ->  OUTDIR/animkit_blender-VERSION.zip

VERSION is animkit's (Cargo.toml), which the add-on's bl_info must carry too. The zip is
repeatable: sorted entries, fixed timestamps, no compiled Python files.
"""

import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ADDON = "animkit_blender"


def crate_version():
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        return re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)


def addon_version():
    with open(os.path.join(HERE, ADDON, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'"version": \((\d+), (\d+), (\d+)\)', f.read())
    return ".".join(m.groups())


def build(outdir):
    version = crate_version()
    if addon_version() != version:
        sys.exit(f"build_zip: bl_info version {addon_version()} is not animkit's {version}")
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, f"{ADDON}-{version}.zip")
    files = []
    for root, dirs, names in os.walk(os.path.join(HERE, ADDON)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(root, n) for n in names if n.endswith(".py")]
    with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(files):
            info = zipfile.ZipInfo(os.path.relpath(path, HERE).replace(os.sep, "/"),
                                   date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with open(path, "rb") as f:
                z.writestr(info, f.read())
    os.replace(out + ".tmp", out)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(build(sys.argv[1]))
