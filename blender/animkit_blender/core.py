"""The add-on's work outside Blender's API: finding and running the `animkit` executable, the
source kinds the import offers, and the write-back after an export. animkit does every format;
this module only builds its command lines and reads its JSON and glTF output.

Nothing here imports bpy, so it can be read (and tried) with a plain Python.
"""

import json
import math
import os
import shutil
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field


class AnimkitError(Exception):
    """animkit refused or failed: the message is animkit's own (its stderr)."""


# --- the executable ---------------------------------------------------------------------------


def find_animkit(configured):
    """The animkit executable: the path set in the add-on's preferences, else `animkit` on PATH."""
    if configured:
        path = os.path.abspath(os.path.expanduser(configured))
        if os.path.isfile(path):
            return path
        raise AnimkitError(
            f"animkit executable not found at {path!r} (Edit > Preferences > Add-ons > animkit)"
        )
    found = shutil.which("animkit")
    if not found:
        raise AnimkitError(
            "animkit executable not found on PATH: download it (or `cargo install`) and set its "
            "path in Edit > Preferences > Add-ons > animkit"
        )
    return found


def run(exe, args, ok_codes=(0,)):
    """Run animkit; returns (exit code, stdout, stderr). A code outside ok_codes raises
    AnimkitError with animkit's message."""
    flags = 0
    if os.name == "nt":  # no console window flashing up for each call
        flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    proc = subprocess.run(
        [exe, *[str(a) for a in args]],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        creationflags=flags,
    )
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode not in ok_codes:
        # animkit's error lines (its progress lines before them are not the message)
        errors = [line for line in err.splitlines() if ": error: " in line or
                  line.startswith("animkit: error")]
        message = "\n".join(errors) or err.strip() or out.strip() or \
            f"exit code {proc.returncode}"
        raise AnimkitError(message)
    return proc.returncode, out, err


def info(exe, paths):
    """`animkit info --json`: {path: {label: value}} for each file."""
    _, out, _ = run(exe, ["info", "--json", *paths])
    files = json.loads(out)["files"]
    return {
        f["path"]: {s["label"]: s["value"] for s in f.get("summary", [])} | {"format": f["format"]}
        for f in files
    }


def checksum_of(summary):
    """The checksum of an `info` summary ("0x5eaf502f (matches ...)" -> "0x5eaf502f")."""
    value = summary.get("checksum", "")
    return value.split()[0].lower() if value else None


# --- what a file is and how animkit exports it -----------------------------------------------


def ext(path):
    return os.path.splitext(path)[1].lower()


def find_ci(folder, name):
    """`name` in `folder`, ignoring case (as the game does), or None."""
    try:
        for entry in os.listdir(folder):
            if entry.lower() == name.lower():
                return os.path.join(folder, entry)
    except OSError:
        pass
    return None


def models_in_folder(folder):
    """Model names (MDH stems) in a folder, sorted."""
    try:
        names = [os.path.splitext(e)[0] for e in os.listdir(folder) if ext(e) == ".mdh"]
    except OSError:
        return []
    return sorted(names, key=str.upper)


def models_in_archive(exe, archive):
    """Model names (MDH members) in a VDF archive, from `animkit vdf list --json`."""
    _, out, _ = run(exe, ["vdf", "list", "--json", archive])
    names = []
    for entry in json.loads(out):
        if not entry.get("directory") and entry["path"].lower().endswith(".mdh"):
            names.append(os.path.splitext(entry["path"].replace("\\", "/").split("/")[-1])[0])
    return sorted(set(names), key=str.upper)


@dataclass
class Plan:
    """How to get a glTF from a source, and where an export goes back to.

    export_args: animkit's arguments after `gltf export` (without `-o`).
    origin: stored on the armature; what `write_back` needs (JSON-able).
    """

    export_args: list
    origin: dict
    label: str = ""
    notes: list = field(default_factory=list)
    # a temporary folder holding files export_args name (removed after the export)
    staging: object = None


def plan_mans(exe, mans, mdh=None):
    """One or more MANs: the MDH chosen, or the one beside the first MAN whose checksum is the
    MAN's (animkit's own link between them)."""
    mans = [os.path.abspath(m) for m in mans]
    if not mdh:
        folder = os.path.dirname(mans[0])
        candidates = [os.path.join(folder, e) for e in os.listdir(folder) if ext(e) == ".mdh"]
        summaries = info(exe, [mans[0], *candidates])
        want = checksum_of(summaries[mans[0]])
        matching = [c for c in candidates if checksum_of(summaries[c]) == want]
        if not matching:
            raise AnimkitError(
                f"{mans[0]}: no model hierarchy (.MDH) beside it has its checksum {want}: "
                "choose the MDH in the import options"
            )
        mdh = matching[0]
    mdh = os.path.abspath(mdh)
    return Plan(
        export_args=[*mans, "--mdh", mdh],
        origin={"kind": "mans", "mans": mans, "mdh": mdh},
        label=", ".join(os.path.basename(m) for m in mans),
    )


def plan_folder(exe, folder, model):
    """A folder (made by `animkit unpack`, or the game's _COMPILED folder) and a model in it:
    the MDH NAME.MDH and every MAN with its checksum."""
    folder = os.path.abspath(folder)
    if not model:
        models = models_in_folder(folder)
        if len(models) != 1:
            raise AnimkitError(
                f"{folder}: which model? choose one in the import options (models here: "
                f"{', '.join(models) or 'none'})"
            )
        model = models[0]
    if not model_has_mans(folder, model):
        # A model without animations yet (the engine names a model's MANs MODEL-NAME.MAN): its
        # skeleton (and meshes) alone, to make new animations for it.
        mdh = find_ci(folder, model + ".MDH")
        if mdh is None:
            raise AnimkitError(f"{folder}: no {model}.MDH in it")
        return Plan(
            export_args=["--mdh", mdh],
            origin={"kind": "folder", "path": folder, "model": model},
            label=f"{model} in {folder} (no animations)",
            notes=[f"animkit: {model} has no animations in {folder}: its skeleton alone (make "
                   "a new animation and export it with 'New animation')"],
        )
    return Plan(
        export_args=[folder, "--model", model],
        origin={"kind": "folder", "path": folder, "model": model},
        label=f"{model} in {folder}",
    )


def model_has_mans(folder, model):
    """Whether the folder (or a folder in it) has a MAN named MODEL-*.MAN."""
    prefix = model.upper() + "-"
    for _root, _dirs, files in os.walk(folder):
        if any(ext(f) == ".man" and f.upper().startswith(prefix) for f in files):
            return True
    return False


def plan_archive(exe, archive, model):
    """A VDF archive and a model in it."""
    archive = os.path.abspath(archive)
    if not model:
        models = models_in_archive(exe, archive)
        if len(models) != 1:
            raise AnimkitError(
                f"{archive}: which model? choose one in the import options (models here: "
                f"{', '.join(models) or 'none'})"
            )
        model = models[0]
    return Plan(
        export_args=[archive, "--model", model],
        origin={"kind": "archive", "path": archive, "model": model},
        label=f"{model} in {os.path.basename(archive)}",
    )


def plan_mdh(exe, path, model):
    """An MDH: the model of that name in its folder (the MDH and every MAN with its checksum)."""
    return plan_folder(exe, os.path.dirname(os.path.abspath(path)), model or stem(path))


def plan_script(exe, path, model):
    """A model script (.MDS, or .MSB compiled): its model's MDH and MANs, beside it or in the
    `_COMPILED` folder beside it (the game's layout: ANIMS/HUMANS.MDS, ANIMS/_COMPILED/).
    The script is kept in the origin: a new animation's `ani` line goes into it."""
    folder = os.path.dirname(os.path.abspath(path))
    name = model or stem(path)
    for candidate in (folder, find_ci(folder, "_COMPILED")):
        if candidate and find_ci(candidate, name + ".MDH"):
            plan = plan_folder(exe, candidate, name)
            if stem(path).upper() == name.upper():
                plan.origin["script"] = os.path.abspath(path)
            return plan
    raise AnimkitError(
        f"{path}: no {name}.MDH beside it or in _COMPILED beside it: import the MDH or the "
        "MANs instead"
    )


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def _mdh_beside(path):
    """The one .MDH beside `path` (or in _COMPILED beside it), or an error asking for it."""
    folder = os.path.dirname(os.path.abspath(path))
    found = []
    for candidate in (folder, find_ci(folder, "_COMPILED")):
        if candidate:
            found += [os.path.join(candidate, e) for e in sorted(os.listdir(candidate))
                      if ext(e) == ".mdh"]
    if len(found) != 1:
        raise AnimkitError(
            f"{path}: which model hierarchy (.MDH)? choose it in the import options (found "
            f"{len(found)} beside it{': ' + ', '.join(map(os.path.basename, found)) if found else ''})"
        )
    return found[0]


def asc_ani(path):
    """The MDS `ani` line the add-on compiles an animation ASC with: the whole ASC (`F 0 -1`),
    named after the file (HUM_RUN.ASC -> HUM_RUN), as `animkit compile` would with that line."""
    name = stem(path).upper().replace('"', "")
    return f'ani ("{name}" 1 "" 0.0 0.0 M. "{os.path.basename(path)}" F 0 -1)'


def asc_man(path, mdh):
    """Where the add-on writes the animation made from an ASC: MODEL-NAME.MAN beside it."""
    return os.path.join(os.path.dirname(path), f"{stem(mdh).upper()}-{stem(path).upper()}.MAN")


def compile_asc(exe, origin, out_man):
    """`animkit asc import` of the origin's ASC with its MDH and `ani` line into `out_man`."""
    run(exe, ["asc", "import", origin["asc"], "--mdh", origin["mdh"], "--ani", origin["ani"],
              "-o", out_man, "--force"])


def plan_asc(exe, path, mdh):
    """An animation ASC (GothicSourcer's, KrxImpExp's, the engine's format): compiled with the
    model's MDH into a MAN (animkit's `asc import`), shown as that MAN. The export writes the
    edited animation as MODEL-NAME.MAN beside the ASC (the ASC itself is not rewritten)."""
    path = os.path.abspath(path)
    mdh = os.path.abspath(mdh) if mdh else _mdh_beside(path)
    origin = {"kind": "asc", "asc": path, "mdh": mdh, "ani": asc_ani(path),
              "man": asc_man(path, mdh)}
    staging = tempfile.TemporaryDirectory(prefix="animkit-blender-")
    staged = os.path.join(staging.name, os.path.basename(origin["man"]))
    try:
        compile_asc(exe, origin, staged)
    except AnimkitError:
        staging.cleanup()
        raise
    return Plan(
        export_args=[staged, "--mdh", mdh],
        origin=origin,
        label=os.path.basename(path),
        staging=staging,
    )


# --- the character's meshes -------------------------------------------------------------------

BODY_EXTENSIONS = (".mdm", ".mdl")
HEAD_EXTENSIONS = (".mmb",)


def meshes_in_folder(folder):
    """The meshes a model in `folder` can wear: ({NAME: path} of the bodies (.MDM, .MDL), the
    same of the heads (.MMB)), from the folder and its `_COMPILED` folder (the game's layout),
    names in upper case as the game compares them."""
    bodies, heads = {}, {}
    for place in (folder, find_ci(folder, "_COMPILED")):
        if not place:
            continue
        try:
            entries = sorted(os.listdir(place))
        except OSError:
            continue
        for e in entries:
            path = os.path.join(place, e)
            if ext(e) in BODY_EXTENSIONS and os.path.isfile(path):
                bodies.setdefault(stem(e).upper(), path)
            elif ext(e) in HEAD_EXTENSIONS and os.path.isfile(path):
                heads.setdefault(stem(e).upper(), path)
    return bodies, heads


def meshes_in_archive(exe, archive):
    """The same for a VDF archive, from `animkit vdf list --json`: {NAME: NAME} (animkit finds
    a member by its name)."""
    _, out, _ = run(exe, ["vdf", "list", "--json", archive])
    bodies, heads = {}, {}
    for entry in json.loads(out):
        if entry.get("directory"):
            continue
        name = entry["path"].replace("\\", "/").split("/")[-1]
        if ext(name) in BODY_EXTENSIONS:
            bodies.setdefault(stem(name).upper(), stem(name))
        elif ext(name) in HEAD_EXTENSIONS:
            heads.setdefault(stem(name).upper(), stem(name))
    return bodies, heads


def meshes_for(exe, path):
    """The meshes beside what the import was given (a file, a folder or an archive)."""
    if os.path.isdir(path):
        return meshes_in_folder(path)
    if ext(path) in (".vdf", ".mod"):
        return meshes_in_archive(exe, path)
    return meshes_in_folder(os.path.dirname(os.path.abspath(path)))


def source_asc(summary):
    """The name of the ASC an MDH was compiled from (its source chunk: the model script's
    meshAndTree), without folder and extension, in upper case, or None."""
    value = summary.get("source", "")
    name = value.replace("\\", "/").split("/")[-1]
    return stem(name).upper() if name else None


def automatic_body(exe, mdh, model, bodies):
    """The model's body when none is chosen: (NAME, why) or None. In order: the mesh named like
    the model (what `gltf export --model` takes), the mesh compiled from the same ASC as the
    MDH (its source chunk names the meshAndTree ASC: SWAMPRAT.MDH from SWAMPRAT_BODY.ASC), the
    only mesh beside it whose checksum is the MDH's (meshes of files, not archive members)."""
    if model.upper() in bodies:
        return model.upper(), "named like the model"
    if not mdh or not os.path.isfile(mdh):
        return None
    files = [p for p in bodies.values() if os.path.isfile(p)]
    summaries = info(exe, [mdh, *files])
    asc = source_asc(summaries[mdh])
    if asc and asc in bodies:
        return asc, f"compiled from {asc}.ASC like {os.path.basename(mdh)}"
    want = checksum_of(summaries[mdh])
    fitting = [n for n, p in bodies.items() if p in summaries and
               checksum_of(summaries[p]) == want]
    if want and len(fitting) == 1:
        return fitting[0], f"the only mesh with {os.path.basename(mdh)}'s checksum {want}"
    return None


def plan_mdh_path(plan):
    """The MDH file of a plan (None for an archive's model)."""
    origin = plan.origin
    if origin["kind"] in ("mans", "asc"):
        return origin["mdh"]
    if origin["kind"] == "folder":
        return find_ci(origin["path"], origin["model"] + ".MDH")
    return None


def archive_mdh(exe, archive, model, folder):
    """The model's MDH extracted from the archive into `folder`, or None."""
    try:
        run(exe, ["vdf", "extract", archive, model + ".MDH", "-o", folder, "--force"])
    except AnimkitError:
        return None
    for root, _dirs, files in os.walk(folder):
        for f in files:
            if f.upper() == model.upper() + ".MDH":
                return os.path.join(root, f)
    return None


def add_meshes(exe, plan, source_path, body="", head="", textures=""):
    """The character's meshes for the plan's glTF: `body`/`head` chosen (a name from the lists,
    or a file), else the automatic body (see automatic_body), with the compiled textures of
    `textures` (a folder or an archive such as Textures.vdf; empty: none). Adds animkit's
    `--mesh`/`--head`/`--textures` to the plan and returns report lines."""
    bodies, heads = meshes_for(exe, source_path)
    model = plan.origin.get("model") or stem(plan.origin.get("mdh", ""))
    lines = []
    if not body:
        with tempfile.TemporaryDirectory(prefix="animkit-blender-") as tmp:
            mdh = plan_mdh_path(plan)
            if mdh is None and plan.origin["kind"] == "archive":
                mdh = archive_mdh(exe, plan.origin["path"], model, tmp)
            found = automatic_body(exe, mdh, model, bodies)
        if found is None:
            if bodies:
                lines.append(f"animkit: no body chosen and none found for {model} (meshes "
                             f"here: {', '.join(sorted(bodies))}): choose one in the import "
                             "options")
        else:
            body = found[0]
            lines.append(f"animkit: body {body} ({found[1]})")
    for flag, choice, table in (("--mesh", body, bodies), ("--head", head, heads)):
        if not choice:
            continue
        value = table.get(choice.upper())
        if value is None:
            if not os.path.isfile(choice):
                raise AnimkitError(f"{choice}: not a mesh beside the model (here: "
                                   f"{', '.join(sorted(table)) or 'none'})")
            value = os.path.abspath(choice)
        plan.export_args += [flag, value]
    if textures:
        if not os.path.exists(textures):
            raise AnimkitError(f"{textures}: no such folder or archive of textures")
        if "--mesh" in plan.export_args or "--head" in plan.export_args:
            plan.export_args += ["--textures", os.path.abspath(textures)]
            lines.append(f"animkit: textures from {textures}")
        else:
            lines.append(f"animkit: textures {textures} not used: no mesh to put them on")
    return lines


@dataclass
class Source:
    """A kind of file the import takes: extensions, a description, and its plan."""

    extensions: tuple
    description: str
    plan: object  # (exe, paths, mdh, model) -> Plan


# The import's file kinds. A new kind is one more entry whose plan turns the file into what
# `gltf export` takes.
SOURCES = [
    Source((".man",), "Gothic model animations (with their MDH)",
           lambda exe, paths, mdh, model: plan_mans(exe, paths, mdh)),
    Source((".mdh",), "Gothic model hierarchy (every animation beside it)",
           lambda exe, paths, mdh, model: plan_mdh(exe, paths[0], model)),
    Source((".mds", ".msb"), "Gothic model script (its model's MDH and MANs)",
           lambda exe, paths, mdh, model: plan_script(exe, paths[0], model)),
    Source((".vdf", ".mod"), "Gothic archive (a model chosen from it)",
           lambda exe, paths, mdh, model: plan_archive(exe, paths[0], model)),
    Source((".asc",), "3ds Max ASCII animation (with the model's MDH)",
           lambda exe, paths, mdh, model: plan_asc(exe, paths[0], mdh)),
]

FILTER_GLOB = ";".join(f"*{e};*{e.upper()}" for s in SOURCES for e in s.extensions)


def plan_for(exe, paths, mdh="", model=""):
    """The plan for the chosen files (or one folder)."""
    if len(paths) == 1 and os.path.isdir(paths[0]):
        return plan_folder(exe, paths[0], model)
    kinds = {ext(p) for p in paths}
    for source in SOURCES:
        if kinds <= set(source.extensions):
            if len(paths) > 1 and source.extensions != (".man",):
                raise AnimkitError("choose several files only for MANs of one model")
            return source.plan(exe, [os.path.abspath(p) for p in paths], mdh, model)
    known = ", ".join(e.upper() for s in SOURCES for e in s.extensions)
    raise AnimkitError(f"cannot import {', '.join(paths)}: animkit's Blender import takes {known}")


def export_gltf(exe, plan, out_glb):
    """`animkit gltf export ... -o OUT.glb`; returns animkit's summary line."""
    try:
        _, _, err = run(exe, ["gltf", "export", *plan.export_args, "-o", out_glb, "--force"])
    finally:
        if plan.staging is not None:
            plan.staging.cleanup()
    return err.strip()


# --- frame rates -----------------------------------------------------------------------------


def glb_json(path):
    """The JSON chunk of a .glb."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _version, _length = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF":
        raise AnimkitError(f"{path}: not a binary glTF")
    length, kind = struct.unpack_from("<I4s", data, 12)
    if kind != b"JSON":
        raise AnimkitError(f"{path}: first chunk is not JSON")
    return json.loads(data[20:20 + length].decode("utf-8"))


def animation_rates(doc):
    """{animation name: (keys per second, key count)} of an animkit glTF: its keys are one per
    frame at the MAN's rate, from time 0."""
    rates = {}
    for anim in doc.get("animations", []):
        best = None
        for sampler in anim.get("samplers", []):
            acc = doc["accessors"][sampler["input"]]
            count, last = acc["count"], acc["max"][0]
            if count > 1 and last > 0:
                best = ((count - 1) / last, count)
                break
            best = best or (None, count)
        rates[anim.get("name", "")] = best
    return rates


def integer_rate(rate):
    """The smallest whole frame rate that is a multiple of `rate` (12.5 -> 25)."""
    for k in range(1, 1001):
        n = rate * k
        if abs(n - round(n)) < 1e-3 * k and round(n) > 0:
            return int(round(n))
    raise AnimkitError(f"frame rate {rate} has no whole multiple Blender can play")


def scene_rate(rates):
    """The scene frame rate at which every animation's frames fall on whole frames: the least
    common multiple of their whole rates (25 and 10 -> 50). Blender's glTF importer places a
    key at frame time x scene rate and its exporter samples every scene frame, so at this rate
    every stored frame comes back exactly (README: The Blender loop)."""
    whole = [integer_rate(r) for r, _ in rates.values() if r]
    if not whole:
        return 25
    fps = whole[0]
    for n in whole[1:]:
        fps = fps * n // math.gcd(fps, n)
    if fps > 1000:
        raise AnimkitError(
            f"the animations' rates ({', '.join(map(str, sorted(set(whole))))} fps) need a scene "
            f"rate of {fps} fps: import them one model rate at a time"
        )
    return fps


# --- write-back -------------------------------------------------------------------------------


def _keep_once(path):
    """Keep the original once as PATH.bak (as animkit's one-step use does): never overwritten."""
    bak = path + ".bak"
    if os.path.exists(bak):
        return None
    # copied to a temporary file and renamed: a .bak is never half-written
    tmp = os.path.join(os.path.dirname(path), f".animkit-{os.path.basename(path)}.bak.tmp")
    shutil.copy2(path, tmp)
    os.replace(tmp, bak)
    return bak


def _replace(new, target):
    """Move `new` over `target` (same folder: an atomic rename)."""
    os.replace(new, target)


def write_back(exe, origin, glb):
    """animkit's `gltf import` of Blender's export into the files the armature came from.
    Returns report lines (animkit's summary and `diff` of what changed). Raises AnimkitError
    with animkit's message when it refuses; then nothing is changed."""
    kind = origin["kind"]
    if kind == "mans":
        return _into_mans(exe, origin, glb)
    if kind == "folder":
        return _into_folder(exe, origin["path"], glb, True)
    if kind == "archive":
        return _into_archive(exe, origin["path"], glb)
    if kind == "asc":
        return _into_asc_man(exe, origin, glb)
    raise AnimkitError(f"unknown origin {kind!r} on the armature")


def _diff_lines(exe, old, new):
    code, out, _ = run(exe, ["diff", old, new], ok_codes=(0, 1))
    return code, [line for line in out.splitlines() if line.strip()]


def _into_mans(exe, origin, glb):
    lines, staged = [], []
    try:
        # All MANs first, into temporary files beside them: a refusal changes none.
        for man in origin["mans"]:
            tmp = os.path.join(os.path.dirname(man), f".animkit-{os.path.basename(man)}.new")
            staged.append((man, tmp))
            _, _, err = run(exe, ["gltf", "import", glb, "--into", man, "--mdh", origin["mdh"],
                                  "-o", tmp, "--force"])
            lines += [line for line in err.splitlines() if line.strip()]
        for man, tmp in staged:
            code, diff = _diff_lines(exe, man, tmp)
            name = os.path.basename(man)
            if code == 0:
                os.remove(tmp)
                lines.append(f"{name}: unchanged")
                continue
            bak = _keep_once(man)
            _replace(tmp, man)
            lines.append(f"{name}: changed" + (f" (the original kept as {os.path.basename(bak)})"
                                               if bak else ""))
            lines += [f"  {d}" for d in diff]
    finally:
        for _, tmp in staged:
            if os.path.exists(tmp):
                os.remove(tmp)
    return lines


def _into_asc_man(exe, origin, glb):
    """The animation compiled from the ASC again, Blender's edits imported into it, written as
    MODEL-NAME.MAN beside the ASC (a MAN already there is kept once as .bak). Reports what
    changed against the ASC's animation."""
    target = origin["man"]
    name = os.path.basename(target)
    with tempfile.TemporaryDirectory(prefix="animkit-blender-") as tmp:
        base = os.path.join(tmp, "base.MAN")
        compile_asc(exe, origin, base)
        new = os.path.join(tmp, name)
        _, _, err = run(exe, ["gltf", "import", glb, "--into", base, "--mdh", origin["mdh"],
                              "-o", new, "--force"])
        lines = [line for line in err.splitlines() if line.strip()]
        _, diff = _diff_lines(exe, base, new)
        existed = os.path.exists(target)
        if existed:
            code, _ = _diff_lines(exe, target, new)
            if code == 0:
                return lines + [f"{name}: unchanged"]
        bak = _keep_once(target) if existed else None
        # copied beside the target and renamed: never half-written
        staged = os.path.join(os.path.dirname(target), f".animkit-{name}.new")
        shutil.copy2(new, staged)
        _replace(staged, target)
        what = "changed" if existed else f"new, from {os.path.basename(origin['asc'])}"
        lines.append(f"{name}: {what}" + (f" (the original kept as {os.path.basename(bak)})"
                                          if bak else ""))
        lines += [f"  {d}" for d in diff] or ["  (the ASC's animation, unedited)"]
    return lines


def _mans_under(folder):
    found = {}
    for root, _dirs, files in os.walk(folder):
        for f in files:
            if ext(f) == ".man":
                path = os.path.join(root, f)
                found[os.path.relpath(path, folder)] = path
    return found


def _into_folder(exe, folder, glb, show_diff):
    with tempfile.TemporaryDirectory(prefix="animkit-blender-") as snap:
        before = {}
        for rel, path in _mans_under(folder).items():
            copy = os.path.join(snap, f"{len(before)}.MAN")
            shutil.copy2(path, copy)
            before[rel] = copy
        _, _, err = run(exe, ["gltf", "import", glb, "--into", folder])
        lines = [line for line in err.splitlines() if line.strip()]
        for rel, path in sorted(_mans_under(folder).items()):
            old = before.get(rel)
            if old is None:
                lines.append(f"{rel}: new")
                continue
            with open(old, "rb") as a, open(path, "rb") as b:
                if a.read() == b.read() or not show_diff:
                    continue
            _, diff = _diff_lines(exe, old, path)
            lines.append(f"{rel}: changed")
            lines += [f"  {d}" for d in diff]
    return lines


def _into_archive(exe, archive, glb):
    with tempfile.TemporaryDirectory(prefix="animkit-blender-") as work:
        unpacked = os.path.join(work, "unpacked")
        run(exe, ["unpack", archive, "-o", unpacked, "--no-yaml"])
        lines = _into_folder(exe, unpacked, glb, False)
        new = os.path.join(os.path.dirname(archive), f".animkit-{os.path.basename(archive)}.new")
        try:
            run(exe, ["repack", unpacked, "-o", new, "--force"])
            code, diff = _diff_lines(exe, archive, new)
            name = os.path.basename(archive)
            if code == 0:
                lines.append(f"{name}: unchanged")
                return lines
            bak = _keep_once(archive)
            _replace(new, archive)
            lines.append(f"{name}: changed" + (f" (the original kept as {os.path.basename(bak)})"
                                               if bak else ""))
            lines += [f"  {d}" for d in diff]
        finally:
            if os.path.exists(new):
                os.remove(new)
    return lines


# --- a new animation -------------------------------------------------------------------------


@dataclass
class NewAnimation:
    """The export's "New animation" settings: animkit's `gltf import --new NAME` options, with
    its defaults (layer 1, no next animation, blend times 0.1 s, flags from the motion, the
    keys' rate)."""

    name: str
    layer: int = 1
    next: str = ""
    blend_in: float = 0.1
    blend_out: float = 0.1
    flags: str = ""  # empty: animkit's default (M. when the root node moves, else .)
    fps: float = 0.0  # 0: the rate of the file's keys (the scene's rate)
    animation: str = ""  # the glTF animation to take (empty: the only one)

    def args(self):
        args = ["--new", self.name, "--layer", str(self.layer),
                "--blend-in", f"{self.blend_in:g}", "--blend-out", f"{self.blend_out:g}"]
        if self.next:
            args += ["--next", self.next]
        if self.flags:
            args += ["--flags", self.flags]
        if self.fps:
            args += ["--fps", f"{self.fps:g}"]
        if self.animation:
            args += ["--animation", self.animation]
        return args


def model_script(folder, model):
    """The model's script MODEL.MDS (else MODEL.MSB) in `folder`, in its `_COMPILED` folder, or,
    when `folder` is a `_COMPILED` folder, beside it (the game's layout), or None."""
    places = [folder, find_ci(folder, "_COMPILED")]
    if os.path.basename(os.path.normpath(folder)).upper() == "_COMPILED":
        places.append(os.path.dirname(os.path.normpath(folder)))
    for extension in (".MDS", ".MSB"):
        for place in places:
            found = place and find_ci(place, model + extension)
            if found:
                return found
    return None


def _model_files(folder, model):
    """MODEL.MDH and the model's script anywhere under `folder` (an unpacked archive)."""
    mdh, scripts = None, {}
    for root, _dirs, files in sorted(os.walk(folder)):
        for f in sorted(files):
            upper = f.upper()
            if upper == model.upper() + ".MDH" and mdh is None:
                mdh = os.path.join(root, f)
            for extension in (".MDS", ".MSB"):
                if upper == model.upper() + extension:
                    scripts.setdefault(extension, os.path.join(root, f))
    if mdh is None:
        raise AnimkitError(f"{folder}: no {model}.MDH in it")
    return mdh, scripts.get(".MDS") or scripts.get(".MSB")


def _new_into(exe, glb, new, mdh, script):
    """`gltf import --new` with the model's MDH: into the script (the MAN beside the MDH and
    the `ani` line in the script), or, for a model without a script, the MAN alone as
    MODEL-NAME.MAN beside the MDH. Returns animkit's report lines."""
    if script:
        _, _, err = run(exe, ["gltf", "import", glb, *new.args(), "--into", script,
                              "--mdh", mdh])
        return [line for line in err.splitlines() if line.strip()]
    out = os.path.join(os.path.dirname(mdh), f"{stem(mdh).upper()}-{new.name.upper()}.MAN")
    if find_ci(os.path.dirname(mdh), os.path.basename(out)):
        raise AnimkitError(f"{out}: exists already: the animation is not new (choose another "
                           "name, or edit that animation: import it and write it back)")
    _, _, err = run(exe, ["gltf", "import", glb, *new.args(), "--mdh", mdh, "-o", out])
    lines = [line for line in err.splitlines() if line.strip()]
    return lines + [f"no model script {stem(mdh).upper()}.MDS or .MSB beside "
                    f"{os.path.basename(mdh)}: add an ani line for {new.name.upper()} to the "
                    "model's script yourself"]


def write_new(exe, origin, glb, new):
    """animkit's `gltf import --new` of Blender's export: a new animation of the model the
    armature came from, added where it came from (the model script and the MAN beside the MDH;
    an archive unpacked, updated and repacked, the original kept once as .bak). Raises
    AnimkitError with animkit's message when it refuses; then nothing is changed."""
    if not new.name.strip():
        raise AnimkitError("the new animation needs a name (e.g. S_MYWALK)")
    kind = origin["kind"]
    if kind in ("mans", "asc"):
        mdh = origin["mdh"]
        return _new_into(exe, glb, new, mdh, model_script(os.path.dirname(mdh), stem(mdh)))
    if kind == "folder":
        folder, model = origin["path"], origin["model"]
        mdh = find_ci(folder, model + ".MDH") or os.path.join(folder, model + ".MDH")
        script = origin.get("script") or model_script(folder, model)
        return _new_into(exe, glb, new, mdh, script)
    if kind == "archive":
        archive = origin["path"]
        with tempfile.TemporaryDirectory(prefix="animkit-blender-") as work:
            unpacked = os.path.join(work, "unpacked")
            run(exe, ["unpack", archive, "-o", unpacked, "--no-yaml"])
            mdh, script = _model_files(unpacked, origin["model"])
            inside = os.path.basename(archive) + ": "
            try:
                lines = [line.replace(unpacked + os.sep, inside)
                         for line in _new_into(exe, glb, new, mdh, script)]
            except AnimkitError as e:  # named in the archive, not in a temporary folder
                raise AnimkitError(str(e).replace(unpacked + os.sep, inside)) from None
            for leftover in (script + ".bak",) if script else ():
                if os.path.exists(leftover):
                    os.remove(leftover)  # the archive is what is kept as .bak
            tmp = os.path.join(os.path.dirname(archive),
                               f".animkit-{os.path.basename(archive)}.new")
            try:
                run(exe, ["repack", unpacked, "-o", tmp, "--force"])
                bak = _keep_once(archive)
                _replace(tmp, archive)
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
            lines.append(f"{os.path.basename(archive)}: changed" +
                         (f" (the original kept as {os.path.basename(bak)})" if bak else ""))
            return lines
    raise AnimkitError(f"unknown origin {kind!r} on the armature")
