"""animkit for Blender: Gothic (ZenGin) models and animations in and out of Blender.

File > Import > Gothic model/animation (animkit) and File > Export > Gothic animation (animkit).
Both run the `animkit` executable (its path is set in the add-on's preferences; by default
the one on PATH) and Blender's own glTF importer/exporter: animkit does every format, this
add-on only sets the scene the way the round trip needs (frame rate before the import, frame
range before the export) and writes the edited motion back where it came from.
"""

bl_info = {
    "name": "animkit: Gothic models and animations",
    "author": "animkit contributors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import/Export > Gothic ... (animkit); 3D View > Sidebar > animkit",
    "description": "Import Gothic MAN/MDH/MDS/MSB/VDF and write edited animations back, "
                   "byte-exactly, with the animkit executable",
    "doc_url": "",
    "category": "Import-Export",
}

import json
import os
import tempfile

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       IntProperty, StringProperty)
from bpy_extras.io_utils import ImportHelper

from . import core

# The custom property on the armature: where its motion came from (JSON, see core.Plan).
ORIGIN = "animkit_origin"
# The scene frame rate the import set (an export at another rate would not be exact).
FPS = "animkit_fps"


def _prefs(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon else None


def _message(e):
    """animkit's message for a Blender report, without its own `animkit: error:` prefix."""
    text = str(e).strip()
    for prefix in ("animkit: error: ", "animkit: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return "animkit: " + text


def _exe(context):
    prefs = _prefs(context)
    return core.find_animkit(prefs.animkit_path if prefs else "")


class AnimkitPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    animkit_path: StringProperty(
        name="animkit executable",
        description="Path of animkit (animkit.exe on Windows); empty: the one on PATH",
        subtype="FILE_PATH",
        default="",
    )

    def draw(self, context):
        self.layout.prop(self, "animkit_path")
        try:
            self.layout.label(text=f"Using: {core.find_animkit(self.animkit_path)}")
        except core.AnimkitError as e:
            self.layout.label(text=str(e), icon="ERROR")


# The model list of the chosen archive or folder, kept alive while Blender shows it (Blender
# needs the strings of dynamic enum items to outlive the callback).
AUTO = "-"
_model_items = {"key": None, "items": [(AUTO, "(automatic)", "The only model, or the file's")]}


def _models(self, context):
    path = bpy.path.abspath(self.filepath) if self.filepath else ""
    if _model_items["key"] == path:
        return _model_items["items"]
    items = [(AUTO, "(automatic)", "The only model, or the one named like the file")]
    try:
        if os.path.isdir(path) or not os.path.basename(path):
            names = core.models_in_folder(os.path.dirname(path) if not os.path.isdir(path) else path)
        elif core.ext(path) in (".vdf", ".mod"):
            names = core.models_in_archive(_exe(context), path)
        elif core.ext(path) in (".mdh", ".mds", ".msb", ".man"):
            names = core.models_in_folder(os.path.dirname(path))
        else:
            names = []
        items += [(n, n, f"{n}.MDH and the animations with its checksum") for n in names]
    except (core.AnimkitError, OSError):
        pass
    _model_items.update(key=path, items=items)
    return items


# The body and head lists of the chosen file's folder or archive (kept alive the same way).
_mesh_items = {"key": None, "bodies": [], "heads": []}


def _source_path(op):
    return bpy.path.abspath(op.filepath) if op.filepath else ""


def _mesh_lists(self, context):
    path = _source_path(self)
    if _mesh_items["key"] != path:
        bodies, heads = {}, {}
        try:
            if path and (os.path.isdir(path) or os.path.basename(path)):
                bodies, heads = core.meshes_for(_exe(context), path)
            elif path:
                bodies, heads = core.meshes_in_folder(os.path.dirname(path))
        except (core.AnimkitError, OSError):
            pass
        _mesh_items.update(
            key=path,
            bodies=[(AUTO, "(automatic)", "The model's body: named like the model, compiled "
                     "from the same ASC as its MDH, or the only mesh with its checksum")] +
                   [(n, n, f"{n}: skinned to the armature") for n in sorted(bodies)],
            heads=[(AUTO, "(none)", "No head")] +
                  [(n, n, f"{n}: on the head bone") for n in sorted(heads)],
        )
    return _mesh_items


def _bodies(self, context):
    return _mesh_lists(self, context)["bodies"]


def _heads(self, context):
    return _mesh_lists(self, context)["heads"]


class IMPORT_SCENE_OT_animkit(bpy.types.Operator, ImportHelper):
    """Import a Gothic model and its animations with animkit (MAN, MDH, MDS/MSB, VDF, ASC, or a
    folder made by `animkit unpack`)"""

    bl_idname = "import_scene.animkit"
    bl_label = "Import Gothic (animkit)"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ""
    filter_glob: StringProperty(default=core.FILTER_GLOB, options={"HIDDEN"})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement,
                              options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    mdh: StringProperty(
        name="MDH",
        description="For MANs: their model hierarchy (empty: the .MDH beside them with their "
                    "checksum)",
        subtype="FILE_PATH",
    )
    model_choice: EnumProperty(name="Model", description="The model in the archive or folder",
                               items=_models)
    model: StringProperty(
        name="Model name",
        description="The model (its MDH's name) in an archive or folder; overrides the list",
    )
    body_choice: EnumProperty(name="Body", description="The body mesh (.MDM/.MDL) skinned to "
                              "the armature, from the file's folder or archive", items=_bodies)
    head_choice: EnumProperty(name="Head", description="A head (.MMB) on the head bone, from "
                              "the file's folder or archive", items=_heads)
    body: StringProperty(
        name="Body file",
        description="A body mesh (.MDM/.MDL) file or name; overrides the list",
        subtype="FILE_PATH",
    )
    head: StringProperty(
        name="Head file",
        description="A head (.MMB) file or name; overrides the list",
        subtype="FILE_PATH",
    )
    textures: StringProperty(
        name="Textures",
        description="The compiled textures for the meshes' materials: a folder (such as "
                    "_work/Data/Textures/_compiled) or an archive (Textures.vdf); empty: "
                    "materials without images",
        subtype="FILE_PATH",
    )

    def draw(self, context):
        layout = self.layout
        layout.label(text="MAN, ASC: the MDH (empty: found beside it)")
        layout.prop(self, "mdh", text="")
        layout.label(text="Archive, folder, MDS: the model")
        layout.prop(self, "model_choice", text="")
        layout.prop(self, "model", text="Name")
        layout.label(text="The character's meshes")
        layout.prop(self, "body_choice")
        layout.prop(self, "head_choice")
        layout.prop(self, "body", text="")
        layout.prop(self, "head", text="")
        layout.label(text="Textures (folder or Textures.vdf)")
        layout.prop(self, "textures", text="")

    def _paths(self):
        folder = bpy.path.abspath(self.directory) if self.directory else ""
        names = [f.name for f in self.files if f.name]
        if folder and names:
            return [os.path.join(folder, n) for n in names]
        path = bpy.path.abspath(self.filepath)
        if os.path.isdir(path) or (folder and not os.path.basename(path)):
            return [path if os.path.isdir(path) else folder]
        return [path]

    def execute(self, context):
        try:
            exe = _exe(context)
            model = self.model or (self.model_choice if self.model_choice != AUTO else "")
            paths = self._paths()
            plan = core.plan_for(exe, paths, bpy.path.abspath(self.mdh) if self.mdh
                                 else "", model)
            try:
                body = _choice(self.body, self.body_choice)
                head = _choice(self.head, self.head_choice)
                textures = bpy.path.abspath(self.textures) if self.textures else ""
                notes = core.add_meshes(exe, plan, paths[0], body, head, textures)
            except (core.AnimkitError, OSError):
                if plan.staging is not None:
                    plan.staging.cleanup()
                raise
            arm, lines = import_plan(context, exe, plan)
            lines = plan.notes + notes + lines
        except core.AnimkitError as e:
            self.report({"ERROR"}, _message(e))
            return {"CANCELLED"}
        for line in lines:
            self.report({"INFO"}, line)
        return {"FINISHED"}


def _choice(text, listed):
    """A file or name typed in (a path made absolute), else the list's choice, else ""."""
    if text:
        path = bpy.path.abspath(text)
        return path if os.path.isfile(path) else text
    return listed if listed and listed != AUTO else ""


def import_plan(context, exe, plan):
    """animkit's glTF of the plan, through Blender's glTF importer at the right frame rate."""
    scene = context.scene
    with tempfile.TemporaryDirectory(prefix="animkit-blender-") as tmp:
        glb = os.path.join(tmp, "animkit.glb")
        summary = core.export_gltf(exe, plan, glb)
        rates = core.animation_rates(core.glb_json(glb))
        fps = core.scene_rate(rates)
        # Blender's importer places a key at time t on frame t x scene rate: set it first.
        scene.render.fps = fps
        scene.render.fps_base = 1.0
        before = set(bpy.data.objects)
        _numpy_bool_alias()
        bpy.ops.import_scene.gltf(filepath=glb)
    arms = [o for o in bpy.data.objects if o not in before and o.type == "ARMATURE"]
    if len(arms) != 1:
        raise core.AnimkitError(f"the glTF import gave {len(arms)} armatures, not one")
    arm = arms[0]
    arm[ORIGIN] = json.dumps(plan.origin)
    arm[FPS] = fps
    # The exporter samples the scene's range: from frame 0 to the longest action's last frame.
    scene.frame_start = 0
    scene.frame_end = max(0, last_frame(arm))
    rate_text = ", ".join(sorted({f"{r:g}" for r, _ in rates.values() if r}))
    rate_text = f"animations at {rate_text} fps" if rate_text else "no animations"
    return arm, [summary, f"animkit: scene at {fps} fps ({rate_text}), "
                          f"frames 0-{scene.frame_end}"]


def _numpy_bool_alias():
    """Blender 3.4's glTF importer calls `numpy.bool` for meshes (set_poly_smoothing), which
    NumPy 1.24 to 1.26 do not have (Debian's Blender 3.4 with its python3-numpy fails on every
    mesh): the alias it meant is the builtin. NumPy 2 has `numpy.bool` again; left alone."""
    try:
        import numpy
    except ImportError:
        return
    if not hasattr(numpy, "bool"):
        numpy.bool = bool


def armature_actions(arm):
    ad = arm.animation_data
    actions = []
    if ad:
        if ad.action:
            actions.append(ad.action)
        for track in ad.nla_tracks:
            for strip in track.strips:
                if strip.action and strip.action not in actions:
                    actions.append(strip.action)
    return actions


def last_frame(arm):
    return max((int(round(a.frame_range[1])) for a in armature_actions(arm)), default=0)


def _origin_armature(context):
    active = context.active_object
    if active is not None and active.type == "ARMATURE" and ORIGIN in active:
        return active
    arms = [o for o in context.scene.objects if o.type == "ARMATURE" and ORIGIN in o]
    if len(arms) == 1:
        return arms[0]
    if not arms:
        raise core.AnimkitError("no armature imported with animkit in this scene")
    raise core.AnimkitError("several armatures came from animkit: select the one to export")


class EXPORT_SCENE_OT_animkit(bpy.types.Operator):
    """Write the edited animations back into the Gothic files they were imported from (with
    animkit; the originals are kept once as .bak) and report what changed; or, as a new
    animation, add the armature's active action to the model"""

    bl_idname = "export_scene.animkit"
    bl_label = "Export Gothic animation (animkit)"
    bl_options = {"REGISTER"}

    as_new: BoolProperty(
        name="New animation",
        description="Add the armature's active action to the model as a new animation (a new "
                    "MAN and its ani line in the model's script) instead of writing the "
                    "edited animations back",
        default=False,
    )
    new_name: StringProperty(
        name="Name",
        description="The new animation's name (e.g. S_MYWALK): the MAN is MODEL-NAME.MAN",
    )
    layer: IntProperty(name="Layer", description="The ani's layer", default=1, min=1)
    next_ani: StringProperty(
        name="Next",
        description="The animation that follows (empty: it plays once)",
    )
    blend_in: FloatProperty(name="Blend in", description="Blend-in time in seconds",
                            default=0.1, min=0.0)
    blend_out: FloatProperty(name="Blend out", description="Blend-out time in seconds",
                             default=0.1, min=0.0)
    flags: StringProperty(
        name="Flags",
        description="The ani's flags (empty: M. when the root bone moves, so the motion moves "
                    "the model, else .)",
    )
    fps: FloatProperty(
        name="Frame rate",
        description="The MAN's frame rate (0: the scene's rate, at which the keys are written)",
        default=0.0, min=0.0,
    )

    def invoke(self, context, event):
        if not self.new_name:
            arm = context.active_object
            action = arm.animation_data.action if arm is not None and arm.animation_data \
                else None
            if action is not None:
                self.new_name = action.name.upper()
        return context.window_manager.invoke_props_dialog(self, width=420)

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "as_new")
        col = layout.column()
        col.enabled = self.as_new
        col.label(text="The armature's active action as:")
        for prop in ("new_name", "layer", "next_ani", "blend_in", "blend_out"):
            col.prop(self, prop)
        col.prop(self, "flags", text="Flags (empty: auto)")
        col.prop(self, "fps", text="Frame rate (0: the scene's)")

    def execute(self, context):
        try:
            exe = _exe(context)
            arm = _origin_armature(context)
            if self.as_new:
                new = core.NewAnimation(
                    name=self.new_name.strip(), layer=self.layer, next=self.next_ani.strip(),
                    blend_in=self.blend_in, blend_out=self.blend_out,
                    flags=self.flags.strip(), fps=self.fps)
                lines = export_new(context, exe, arm, new)
            else:
                lines = export_armature(context, exe, arm)
        except core.AnimkitError as e:
            self.report({"ERROR"}, _message(e))
            return {"CANCELLED"}
        for line in lines:
            self.report({"INFO"}, line)
        return {"FINISHED"}


def _check_rate(scene, arm):
    fps = int(arm.get(FPS, 0))
    if scene.render.fps != fps or scene.render.fps_base != 1.0:
        raise core.AnimkitError(
            f"the scene's frame rate is {scene.render.fps / scene.render.fps_base:g} fps, the "
            f"import set {fps}: set it back (Output Properties > Frame Rate) to export exactly"
        )


def export_armature(context, exe, arm):
    scene = context.scene
    _check_rate(scene, arm)
    origin = json.loads(arm[ORIGIN])
    # The exporter samples the scene's range: from 0 to the last frame of the longest action
    # (keys added after the end lengthen it; a longer range would lengthen the others).
    scene.frame_start = 0
    scene.frame_end = last_frame(arm)
    with tempfile.TemporaryDirectory(prefix="animkit-blender-") as tmp:
        glb = os.path.join(tmp, "blender.glb")
        bpy.ops.export_scene.gltf(filepath=glb, **_every_frame_options())
        return core.write_back(exe, origin, glb)


def export_new(context, exe, arm, new):
    """The armature's active action as a new animation of its model: Blender's glTF export of
    that action alone (the imported animations' NLA strips muted meanwhile, the bones it does
    not key at their rest pose), then animkit's `gltf import --new` into where the model came
    from."""
    scene = context.scene
    _check_rate(scene, arm)
    ad = arm.animation_data
    action = ad.action if ad else None
    if action is None:
        raise core.AnimkitError(
            "a new animation is the armature's active action: make one (Dope Sheet > Action "
            "Editor > New), key it, and export again"
        )
    origin = json.loads(arm[ORIGIN])
    strips = [s for t in ad.nla_tracks for s in t.strips]
    muted = [s.mute for s in strips]
    saved_range = (scene.frame_start, scene.frame_end, scene.frame_current)
    try:
        for s in strips:
            s.mute = True  # the glTF exporter leaves muted strips out
        # Bones the action does not key hold their rest pose (not a pose left by another
        # action): pose transforms are relative to the rest pose.
        for pb in arm.pose.bones:
            pb.location = (0.0, 0.0, 0.0)
            pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
            pb.rotation_euler = (0.0, 0.0, 0.0)
            pb.scale = (1.0, 1.0, 1.0)
        scene.frame_start = 0
        scene.frame_end = max(0, int(round(action.frame_range[1])))
        with tempfile.TemporaryDirectory(prefix="animkit-blender-") as tmp:
            glb = os.path.join(tmp, "blender.glb")
            bpy.ops.export_scene.gltf(filepath=glb, **_every_frame_options())
            names = [a.get("name", "") for a in core.glb_json(glb).get("animations", [])]
            if len(names) != 1:
                new.animation = action.name if action.name in names else ""
            lines = core.write_new(exe, origin, glb, new)
    finally:
        for s, m in zip(strips, muted):
            s.mute = m
        scene.frame_start, scene.frame_end = saved_range[0], saved_range[1]
        scene.frame_set(saved_range[2])
    return [f"animkit: new animation {new.name.upper()} from the action {action.name}", *lines]


def _every_frame_options():
    """glTF exporter options that keep one key per scene frame, for the Blender versions that
    have them: Blender 4.x drops keys equal to their neighbours by default (animkit would then
    interpolate between the remaining keys and warn; the values come back the same, but the
    file no longer says so)."""
    props = bpy.ops.export_scene.gltf.get_rna_type().properties.keys()
    wanted = {"export_force_sampling": True, "export_optimize_animation_size": False}
    return {k: v for k, v in wanted.items() if k in props}


class VIEW3D_PT_animkit(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "animkit"
    bl_label = "animkit"

    def draw(self, context):
        layout = self.layout
        try:
            arm = _origin_armature(context)
        except core.AnimkitError as e:
            layout.label(text=str(e))
            layout.operator(IMPORT_SCENE_OT_animkit.bl_idname, text="Import Gothic...",
                            icon="IMPORT")
            return
        origin = json.loads(arm[ORIGIN])
        box = layout.box()
        box.label(text=f"Armature: {arm.name}", icon="ARMATURE_DATA")
        if origin["kind"] == "mans":
            for m in origin["mans"]:
                box.label(text=os.path.basename(m), icon="ACTION")
            box.label(text=f"Skeleton: {os.path.basename(origin['mdh'])}", icon="BONE_DATA")
        else:
            box.label(text=f"Model {origin['model']} in", icon="ACTION")
            box.label(text=os.path.basename(origin["path"].rstrip("/\\")), icon="FILE_FOLDER")
        box.label(text=f"{arm.get(FPS, 0)} fps, {len(armature_actions(arm))} actions",
                  icon="TIME")
        # Write back at once; a new animation asks for its name and settings first.
        layout.operator_context = "EXEC_DEFAULT"
        op = layout.operator(EXPORT_SCENE_OT_animkit.bl_idname,
                             text="Write back to Gothic files", icon="EXPORT")
        op.as_new = False
        layout.operator_context = "INVOKE_DEFAULT"
        op = layout.operator(EXPORT_SCENE_OT_animkit.bl_idname,
                             text="Add as new animation...", icon="ADD")
        op.as_new = True


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_animkit.bl_idname,
                         text="Gothic model/animation (animkit)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_animkit.bl_idname,
                         text="Gothic animation (animkit)")


CLASSES = (AnimkitPreferences, IMPORT_SCENE_OT_animkit, EXPORT_SCENE_OT_animkit,
           VIEW3D_PT_animkit)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
