//! `animkit gltf export|import`: ZenGin animations as glTF 2.0 for Blender and other tools.

use super::Status;
use crate::exact::Error;
use crate::registry::{self, Codec};
use crate::zengin::gltf::{self, export::Animation, import, Document, Skeleton};
use crate::zengin::man::Man;
use crate::zengin::mdh::Mdh;
use std::path::{Path, PathBuf};

/// glTF 2.0 export and import of ZenGin animations (see the README's Blender section).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Export(ExportArgs),
    Import(ImportArgs),
}

/// Write a model hierarchy and its animations as one glTF file: a node per MDH node, a skin
/// (Blender makes an armature of it) and one animation (Blender action) per MAN.
///
/// `gltf export A.MAN B.MAN --mdh MODEL.MDH -o OUT.glb`, or a whole model from an archive or
/// a folder made by `animkit unpack`: `gltf export Anims.vdf --model HUMANS -o humans.glb`
/// (the MDH named HUMANS.MDH and every MAN whose checksum equals its checksum).
#[derive(clap::Args)]
struct ExportArgs {
    /// .MAN files, or one .VDF archive or folder (with --model); none with --mdh exports the
    /// skeleton (and --mesh/--head) without animations.
    #[arg(required_unless_present = "mdh")]
    inputs: Vec<PathBuf>,
    /// The model hierarchy (.MDH) the animations were made for.
    #[arg(long)]
    mdh: Option<PathBuf>,
    /// In an archive or folder: the model's name (its MDH is NAME.MDH).
    #[arg(long)]
    model: Option<String>,
    /// Output: `.glb` (binary glTF) or `.gltf` (JSON with the buffer embedded).
    #[arg(short, long)]
    output: PathBuf,
    /// Export animations whose checksum differs from the MDH's, and overwrite OUTPUT.
    #[arg(long)]
    force: bool,
    /// Leave out the record of the files the model came from (`asset.extras.animkit`, which
    /// `gltf import FILE` alone and the one-step use follow back): the file then depends only
    /// on the model, not on where its files are.
    #[arg(long)]
    no_origin: bool,
    #[command(flatten)]
    character: super::gltf_mesh::MeshArgs,
}

/// Put the motion of a glTF animation back into a MAN. Channels are matched to the MDH's nodes
/// by name and sampled at the MAN's frame times; untouched motion gives the original bytes.
/// Everything glTF does not carry (events, source, next, layer, unknown chunks) comes from
/// the original MAN.
#[derive(clap::Args)]
struct ImportArgs {
    /// The glTF file (.glb or .gltf).
    input: PathBuf,
    /// The original MAN, or a folder made by `animkit unpack` (every MAN there that an
    /// animation of the file names is updated in place; then `repack`). With --new: the
    /// folder or the model script (.MDS/.MSB) that gets the new MAN and its `ani` line.
    #[arg(long)]
    into: Option<PathBuf>,
    /// Make a new animation NAME (a new MAN, `MODEL-NAME.MAN`) from the file's animation
    /// (--animation, else the only one or the one named NAME): with `--mdh MODEL.MDH -o
    /// OUT.MAN`, or `--into` a folder or model script, which also gets the `ani` line
    /// `ani ("NAME" LAYER "NEXT" IN OUT FLAGS "NAME.ASC" F 0 LAST)`. The MAN has the engine's
    /// header: the nodes that leave the rest pose, the position range of the motion, the
    /// MDH's checksum, no events.
    #[arg(long, value_name = "NAME")]
    new: Option<String>,
    /// With --new: the layer (default 1).
    #[arg(long, requires = "new")]
    layer: Option<u32>,
    /// With --new: the animation that follows (default none: it plays once).
    #[arg(long, requires = "new", value_name = "NAME")]
    next: Option<String>,
    /// With --new: blend-in time in seconds (default 0.1).
    #[arg(long, requires = "new", value_name = "SECONDS")]
    blend_in: Option<f32>,
    /// With --new: blend-out time in seconds (default 0.1).
    #[arg(long, requires = "new", value_name = "SECONDS")]
    blend_out: Option<f32>,
    /// With --new: the ani's flags (default `M.` when the root node moves, so the motion
    /// moves the model, else `.`).
    #[arg(long, requires = "new")]
    flags: Option<String>,
    /// With --new: rounding of the codes (default engine: the game's own compiler's).
    #[arg(long, value_enum, requires = "new", default_value_t = super::compile::RoundingArg::Engine)]
    rounding: super::compile::RoundingArg,
    /// Output MAN (with --into FILE, or --new with --mdh).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The animation to take (default: the only one, or the one named like the MAN).
    #[arg(long)]
    animation: Option<String>,
    /// The model hierarchy (default: the .MDH beside the MAN, or in the folder, whose
    /// checksum is the MAN's).
    #[arg(long)]
    mdh: Option<PathBuf>,
    /// Sample at this rate and store it as the MAN's fps (default: the MAN's fps; with --new
    /// the rate of the file's keys, else 25).
    #[arg(long)]
    fps: Option<f32>,
    /// Recompute the position range from all positions instead of failing on one outside it.
    #[arg(long)]
    requantize: bool,
    /// Overwrite OUTPUT.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    match args.command {
        Command::Export(a) => export(a),
        Command::Import(a) => import(a),
    }
}

/// A MAN or MDH found in an archive or folder.
pub(super) use crate::zengin::gltf::model::{ext_is, Member as Found};

/// Every .MAN and .MDH member of an archive, or file of a folder (recursively).
pub(super) fn collect(source: &Path) -> Result<Vec<Found>, Error> {
    let mut out = Vec::new();
    if source.is_dir() {
        for e in walkdir::WalkDir::new(source).sort_by_file_name() {
            let e = e.map_err(|err| Error::other(source, err.to_string()))?;
            if !e.file_type().is_file() {
                continue;
            }
            let rel = e.path().strip_prefix(source).unwrap_or(e.path());
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            if ext_is(&name, "man") || ext_is(&name, "mdh") {
                out.push(Found {
                    name,
                    bytes: crate::fsio::read_file(e.path())?,
                });
            }
        }
        return Ok(out);
    }
    // An archive of any container format, through its registered container (the members in
    // the order of the folder walk above, so an archive and its unpacked folder agree).
    let data = crate::fsio::map_file(source)?;
    let Some(container) = registry::detect(&data).and_then(|f| f.container()) else {
        return Err(Error::other(
            source,
            "--model needs an archive (such as a .VDF) or a folder made by `animkit unpack`",
        ));
    };
    let archive = container.open(&data).map_err(Error::decoding(source))?;
    let mut members = archive.members().map_err(Error::decoding(source))?;
    members.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
    for m in members {
        if ext_is(&m.name, "man") || ext_is(&m.name, "mdh") {
            let bytes = archive
                .read(m.id)
                .map_err(|why| Error::other(source, format!("{}: {why}", m.name)))?;
            out.push(Found {
                name: m.name,
                bytes: bytes.into_owned(),
            });
        }
    }
    Ok(out)
}

pub(super) fn read_mdh(path: &Path) -> Result<Mdh, Error> {
    let data = crate::fsio::read_file(path)?;
    decode_mdh(path, &data)
}

pub(super) fn decode_mdh(path: &Path, data: &[u8]) -> Result<Mdh, Error> {
    if !Mdh::detect(data) {
        return Err(Error::other(path, "not a ZenGin model hierarchy (.MDH)"));
    }
    Mdh::read(data).map_err(|e| Error::Decode {
        file: path.into(),
        source: e,
    })
}

pub(super) fn decode_man(path: &Path, data: &[u8]) -> Result<Man, Error> {
    if !Man::detect(data) {
        return Err(Error::other(path, "not a ZenGin model animation (.MAN)"));
    }
    Man::read(data).map_err(|e| Error::Decode {
        file: path.into(),
        source: e,
    })
}

pub(super) fn mdh_checksum(mdh: &Mdh) -> Option<u32> {
    mdh.hierarchy().map(|h| h.checksum.0)
}

fn man_checksum(man: &Man) -> Option<u32> {
    man.samples().map(|s| s.checksum.0)
}

/// The .MDH files in `dir` (not recursive) whose checksum is `checksum`.
fn mdh_files_with(dir: &Path, checksum: u32) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        let is_mdh = p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("mdh"));
        if is_mdh && p.is_file() {
            if let Ok(m) = read_mdh(&p) {
                if mdh_checksum(&m) == Some(checksum) {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn skeleton(path: &Path, mdh: &Mdh) -> Result<Skeleton, Error> {
    let mut sk = Skeleton::from_mdh(mdh).map_err(|e| Error::other(path, e.to_string()))?;
    if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
        sk.model = stem.to_string();
    }
    Ok(sk)
}

/// Refuse a MAN that does not belong to the MDH (as `check --mdh` reports it) unless forced;
/// node indices outside the MDH are refused always.
pub(super) fn check_pair(label: &Path, man: &Man, mdh: &Mdh, force: bool) -> Result<(), Error> {
    gltf::model::fits(man, mdh, force).map_err(|m| Error::other(label, m))
}

fn export(a: ExportArgs) -> Result<Status, Error> {
    let container = gltf::container_for(&a.output).ok_or_else(|| {
        Error::other(
            &a.output,
            "the output must end in .glb (binary glTF) or .gltf (JSON glTF)",
        )
    })?;
    let single_source = a.inputs.len() == 1
        && (a.inputs[0].is_dir()
            || crate::fsio::map_file(&a.inputs[0])
                .is_ok_and(|d| registry::detect(&d).is_some_and(|f| f.container().is_some())));
    let (mdh_label, mdh, mans) = if single_source {
        model_in(a.mdh.as_deref(), a.model.as_deref(), &a.inputs[0])?
    } else {
        mans_and_mdh(&a.inputs, a.mdh.as_deref())?
    };
    for (label, man) in &mans {
        check_pair(label, man, &mdh, a.force)?;
    }
    let sk = skeleton(&mdh_label, &mdh)?;
    let anims: Vec<Animation<'_>> = mans
        .iter()
        .map(|(label, man)| Animation {
            label: label.display().to_string(),
            man,
        })
        .collect();
    let source = single_source.then(|| a.inputs[0].as_path());
    let loaded = super::gltf_mesh::load(&a.character, source, a.model.as_deref())?;
    let character = loaded.as_ref().map(|l| l.character(&sk)).transpose()?;
    let origin = origin_of(&a.output, source, &mdh_label, &mans);
    let (bytes, report) = gltf::export_with_origin(
        &sk,
        &anims,
        character.as_ref(),
        container,
        (!a.no_origin).then_some(&origin),
    )
    .map_err(|e| Error::other(&mdh_label, e.to_string()))?;
    drop(mans);
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    crate::fsio::write_file(&a.output, &bytes, a.force)?;
    eprintln!(
        "wrote {} ({} bytes): {} nodes, {}{} animation{}{}",
        a.output.display(),
        bytes.len(),
        report.nodes,
        match report.meshes {
            0 => String::new(),
            1 => "1 mesh, ".into(),
            n => format!("{n} meshes, "),
        },
        report.animations.len(),
        if report.animations.len() == 1 {
            ""
        } else {
            "s"
        },
        if report.animations.is_empty() {
            String::new()
        } else {
            format!(" ({})", report.animations.join(", "))
        }
    );
    Ok(Status::Ok)
}

/// Where an export's model came from, for the way back (paths relative to the output's
/// folder when inside it; members of an archive or folder relative to it).
fn origin_of(
    output: &Path,
    source: Option<&Path>,
    mdh: &Path,
    mans: &[(PathBuf, Man)],
) -> gltf::origin::Origin {
    let base = output
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let base = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
    let slashed = |p: &Path| {
        p.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    let rel = |p: &Path| {
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        match abs.strip_prefix(&base) {
            Ok(r) => slashed(r),
            Err(_) => abs.to_string_lossy().into_owned(),
        }
    };
    let inside = |p: &Path| match source.and_then(|s| p.strip_prefix(s).ok()) {
        Some(r) => slashed(r),
        None => rel(p),
    };
    gltf::origin::Origin {
        mdh: inside(mdh),
        source: source.map(rel),
        animations: mans
            .iter()
            .filter_map(|(p, m)| {
                let h = m.header()?;
                Some(gltf::origin::OriginAnimation {
                    name: h.name.to_unicode().into_owned(),
                    man: inside(p),
                    fps: h.fps.get(),
                })
            })
            .collect(),
    }
}

/// A model's MDH and MANs (with their labels).
pub(super) type Model = (PathBuf, Mdh, Vec<(PathBuf, Man)>);

/// `--model` (or `--mdh`) in an archive or folder: the MDH, and every MAN there with its
/// checksum.
pub(super) fn model_in(
    mdh: Option<&Path>,
    model: Option<&str>,
    source: &Path,
) -> Result<Model, Error> {
    let found = collect(source)?;
    let (label, mdh) = match mdh {
        Some(p) => (p.to_path_buf(), read_mdh(p)?),
        None => {
            let hit = gltf::model::find_mdh(&found, model).map_err(|m| Error::other(source, m))?;
            let label = source.join(&hit.name);
            let mdh = decode_mdh(&label, &hit.bytes)?;
            (label, mdh)
        }
    };
    let (mans, skipped) = gltf::model::mans_of(&found, &mdh, &label.display().to_string())
        .map_err(|m| Error::other(source, m))?;
    for name in skipped {
        eprintln!("warning: {name}: not a readable MAN; skipped");
    }
    let mans = mans
        .into_iter()
        .map(|(name, man)| (source.join(name), man))
        .collect();
    Ok((label, mdh, mans))
}

/// MAN files named on the command line and the `--mdh` given (without one: an error naming
/// the MDH files beside the first MAN that fit).
pub(super) fn mans_and_mdh(inputs: &[PathBuf], mdh: Option<&Path>) -> Result<Model, Error> {
    let mut mans = Vec::new();
    for p in inputs {
        let data = crate::fsio::map_file(p)?;
        mans.push((p.clone(), decode_man(p, &data)?));
    }
    let Some(mdh_path) = mdh else {
        let (p, man) = &mans[0];
        let sum = man_checksum(man);
        let beside = sum
            .map(|c| {
                mdh_files_with(
                    p.parent()
                        .filter(|d| !d.as_os_str().is_empty())
                        .unwrap_or(Path::new(".")),
                    c,
                )
            })
            .unwrap_or_default();
        return Err(Error::other(
            p,
            format!(
                "needs the model hierarchy it was made for: pass --mdh MODEL.MDH (the MAN's checksum is {}{})",
                sum.map_or("missing: it has no samples chunk".into(), |c| format!("0x{c:08x}")),
                if beside.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; beside it: {} has it",
                        beside
                            .iter()
                            .map(|b| b.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ),
        ));
    };
    Ok((mdh_path.to_path_buf(), read_mdh(mdh_path)?, mans))
}

pub(super) fn read_document(path: &Path) -> Result<Document, Error> {
    let data = crate::fsio::map_file(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    Document::read(&data, Some(dir.unwrap_or(Path::new("."))))
        .map_err(|e| Error::other(path, e.to_string()))
}

fn import_options(a: &ImportArgs) -> Result<import::ImportOptions, Error> {
    if let Some(f) = a.fps {
        if !(f.is_finite() && f > 0.0) {
            return Err(Error::other(
                &a.input,
                format!("--fps {f}: needs a positive rate"),
            ));
        }
    }
    Ok(import::ImportOptions {
        fps: a.fps,
        requantize: a.requantize,
        rates: Vec::new(),
    })
}

fn summary(r: &import::ImportReport) -> String {
    format!(
        "{}: {} frames{}, {} nodes from the file{}, {} samples changed (round-trip noise {:.3} / {:.3} of a rotation / position step)",
        r.animation,
        r.frames,
        if r.frames != r.frames_before {
            format!(" (was {})", r.frames_before)
        } else {
            String::new()
        },
        r.nodes_from_file,
        if r.nodes_kept.is_empty() {
            String::new()
        } else {
            format!(", {} kept ({})", r.nodes_kept.len(), r.nodes_kept.join(", "))
        },
        r.changed_samples,
        r.noise_steps.0,
        r.noise_steps.1
    )
}

fn import(a: ImportArgs) -> Result<Status, Error> {
    let opts = import_options(&a)?;
    let doc = read_document(&a.input)?;
    if let Some(name) = &a.new {
        return import_new(&a, &doc, name);
    }
    let Some(into) = a.into.clone() else {
        return super::gltf_back::import_back(&a.input, &doc, &opts, a.animation.as_deref());
    };
    if into.is_dir() {
        return import_into_folder(&a, &into, &doc, &opts);
    }
    let output = a.output.clone().ok_or_else(|| {
        Error::other(
            &into,
            "--into a MAN needs -o OUT.MAN (use the same path with --force to replace it)",
        )
    })?;
    let (man, out, report) = import_one(
        &a.input,
        &doc,
        &into,
        a.mdh.as_deref(),
        a.animation.as_deref(),
        &opts,
    )?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let mut bytes = Vec::new();
    out.write(&mut bytes).map_err(|e| Error::Encode {
        file: output.clone(),
        source: e,
    })?;
    super::import::print_edit_warnings(&output, &man, &out);
    crate::fsio::write_file(&output, &bytes, a.force)?;
    eprintln!(
        "wrote {} ({} bytes): {}",
        output.display(),
        bytes.len(),
        summary(&report)
    );
    Ok(Status::Ok)
}

/// Animation `animation` (or the one named like the MAN) of `doc` imported into the MAN
/// `into` (its MDH: `mdh`, or the one beside it with its checksum): the original, the result
/// and the report.
pub(super) fn import_one(
    input: &Path,
    doc: &Document,
    into: &Path,
    mdh: Option<&Path>,
    animation: Option<&str>,
    opts: &import::ImportOptions,
) -> Result<(Man, Man, import::ImportReport), Error> {
    let data = crate::fsio::read_file(into)?;
    let man = decode_man(into, &data)?;
    let (mdh_path, mdh) = match mdh {
        Some(p) => (p.to_path_buf(), read_mdh(p)?),
        None => {
            let sum = man_checksum(&man)
                .ok_or_else(|| Error::other(into, "the MAN has no samples chunk (0xA090)"))?;
            let dir = into.parent().filter(|d| !d.as_os_str().is_empty());
            let found = mdh_files_with(dir.unwrap_or(Path::new(".")), sum);
            let Some(p) = found.first() else {
                return Err(Error::other(
                    into,
                    format!(
                        "needs the model hierarchy it was made for: pass --mdh MODEL.MDH (none beside it has the MAN's checksum 0x{sum:08x})"
                    ),
                ));
            };
            (p.clone(), read_mdh(p)?)
        }
    };
    check_pair(into, &man, &mdh, true)?;
    let sk = skeleton(&mdh_path, &mdh)?;
    let man_name = man
        .header()
        .map(|h| h.name.to_unicode().into_owned())
        .unwrap_or_default();
    let anim = import::pick_animation(doc, animation, &man_name)
        .map_err(|e| Error::other(input, e.to_string()))?;
    let (out, report) = gltf::import_animation(doc, anim, &sk, &man, opts)
        .map_err(|e| Error::other(input, e.to_string()))?;
    Ok((man, out, report))
}

fn import_new(a: &ImportArgs, doc: &Document, name: &str) -> Result<Status, Error> {
    use super::gltf_new::{AniValues, Target};
    let values = AniValues {
        layer: a.layer,
        next: a.next.clone(),
        blend_in: a.blend_in,
        blend_out: a.blend_out,
        flags: a.flags.clone(),
        fps: a.fps,
        rounding: super::compile::rounding(a.rounding),
    };
    let target = match (&a.into, &a.mdh, &a.output) {
        (Some(into), mdh, None) => Target::Model {
            into,
            mdh: mdh.as_deref(),
        },
        (None, Some(mdh), Some(output)) => Target::File { mdh, output },
        _ => {
            return Err(Error::other(
                &a.input,
                "--new NAME needs --mdh MODEL.MDH -o OUT.MAN, or --into a folder or a model script (.MDS/.MSB) without -o",
            ))
        }
    };
    super::gltf_new::run(
        &a.input,
        doc,
        a.animation.as_deref(),
        name,
        &values,
        target,
        a.force,
    )
}

fn import_into_folder(
    a: &ImportArgs,
    into: &Path,
    doc: &Document,
    opts: &import::ImportOptions,
) -> Result<Status, Error> {
    if a.output.is_some() {
        return Err(Error::other(
            into,
            "-o is for --into FILE; --into a folder updates its MAN files in place",
        ));
    }
    let found = collect(into)?;
    let mut mdhs: Vec<(PathBuf, Mdh)> = Vec::new();
    if let Some(p) = &a.mdh {
        mdhs.push((p.clone(), read_mdh(p)?));
    } else {
        for f in found.iter().filter(|f| ext_is(&f.name, "mdh")) {
            let p = into.join(&f.name);
            if let Ok(m) = decode_mdh(&p, &f.bytes) {
                mdhs.push((p, m));
            }
        }
    }
    let mut mans: Vec<(PathBuf, Vec<u8>, Man, String)> = Vec::new();
    for f in found.iter().filter(|f| ext_is(&f.name, "man")) {
        let p = into.join(&f.name);
        if let Ok(m) = decode_man(&p, &f.bytes) {
            let name = m
                .header()
                .map(|h| h.name.to_unicode().into_owned())
                .unwrap_or_default();
            mans.push((p, f.bytes.clone(), m, name));
        }
    }
    let mdh_given = a.mdh.is_some();
    update_mans(
        &a.input,
        doc,
        opts,
        a.animation.as_deref(),
        into,
        &mans,
        &mdhs,
        mdh_given,
        false,
    )
    .map(|_| Status::Ok)
}

/// A MAN read for an update: its path, bytes, model and header name.
pub(super) type ManFile = (PathBuf, Vec<u8>, Man, String);

/// Update every MAN of `mans` that an animation of `doc` names (with the MDH of `mdhs` that
/// has its checksum), everything computed before anything is written; with `backup` each
/// replaced MAN is kept once as `.bak`. Returns what was written.
#[allow(clippy::too_many_arguments)]
pub(super) fn update_mans(
    input: &Path,
    doc: &Document,
    opts: &import::ImportOptions,
    animation: Option<&str>,
    into: &Path,
    mans: &[ManFile],
    mdhs: &[(PathBuf, Mdh)],
    mdh_given: bool,
    backup: bool,
) -> Result<Vec<String>, Error> {
    let names: Vec<(usize, String)> = doc
        .root
        .animations
        .iter()
        .enumerate()
        .map(|(i, an)| (i, an.name.clone().unwrap_or_default()))
        .filter(|(_, n)| animation.is_none_or(|w| w == n))
        .collect();
    if names.is_empty() {
        return Err(Error::other(
            input,
            match &animation {
                Some(w) => format!("animations: none is named {w:?}"),
                None => "animations: the file has no animation".into(),
            },
        ));
    }
    // The rates of every MAN the file goes back into (the advice on Blender's scene rate
    // must fit all of them).
    let mut opts = opts.clone();
    for (_, aname) in &names {
        for (_, _, man, name) in mans {
            if name == aname {
                if let Some(h) = man.header() {
                    if !opts.rates.contains(&h.fps.get()) {
                        opts.rates.push(h.fps.get());
                    }
                }
            }
        }
    }
    let opts = &opts;
    // Everything is computed before anything is written.
    let mut writes: Vec<(PathBuf, Vec<u8>, Option<PathBuf>, String)> = Vec::new();
    for (ai, aname) in &names {
        let mut any = false;
        for (path, bytes, man, name) in mans {
            if name != aname {
                continue;
            }
            let Some(sum) = man_checksum(man) else {
                continue;
            };
            let Some((mdh_path, mdh)) = mdhs.iter().find(|(_, m)| mdh_checksum(m) == Some(sum))
            else {
                eprintln!(
                    "warning: {}: named {aname:?}, but no MDH {} has its checksum 0x{sum:08x}; skipped",
                    path.display(),
                    if mdh_given { "given" } else { "in the folder" }
                );
                continue;
            };
            let sk = skeleton(mdh_path, mdh)?;
            let (out, report) = gltf::import_animation(doc, *ai, &sk, man, opts)
                .map_err(|e| Error::other(input, e.to_string()))?;
            for w in &report.warnings {
                eprintln!("warning: {w}");
            }
            let mut new = Vec::with_capacity(bytes.len());
            out.write(&mut new).map_err(|e| Error::Encode {
                file: path.clone(),
                source: e,
            })?;
            any = true;
            if new == *bytes {
                eprintln!("unchanged {}: {}", path.display(), summary(&report));
                continue;
            }
            super::import::print_edit_warnings(path, man, &out);
            // A YAML beside the MAN (from `unpack`): unedited, it shows the old motion and
            // goes; edited, the two edits conflict.
            let mut yaml_os = path.as_os_str().to_owned();
            yaml_os.push(".yaml");
            let yaml = PathBuf::from(yaml_os);
            let stale = if yaml.is_file() {
                let text = crate::fsio::read_file(&yaml)?;
                let old = man
                    .to_yaml(&Default::default())
                    .map_err(|e| Error::Encode {
                        file: path.clone(),
                        source: e,
                    })?;
                if text != old.as_bytes() {
                    return Err(Error::other(
                        &yaml,
                        format!(
                            "was edited, and {aname} in {} changes {} too; keep only one of the edits (nothing was written)",
                            input.display(),
                            path.display()
                        ),
                    ));
                }
                Some(yaml)
            } else {
                None
            };
            writes.push((path.clone(), new, stale, summary(&report)));
        }
        if !any {
            eprintln!(
                "warning: animation {aname:?}: no MAN of that name (with its MDH) in {}; skipped",
                into.display()
            );
        }
    }
    if writes.is_empty() && !names.iter().any(|(_, n)| mans.iter().any(|m| &m.3 == n)) {
        return Err(Error::other(
            input,
            format!(
                "none of its animations ({}) names a MAN in {}",
                names
                    .iter()
                    .map(|n| n.1.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
                into.display()
            ),
        ));
    }
    let mut done = Vec::new();
    for (path, bytes, stale, what) in writes {
        let bak = if backup {
            super::gltf_new::keep_once(&path)?
        } else {
            None
        };
        crate::fsio::write_file(&path, &bytes, true)?;
        let line = format!(
            "updated {}: {what}{}",
            path.display(),
            bak.map_or(String::new(), |b| format!(
                " (the original kept as {})",
                b.display()
            ))
        );
        eprintln!("{line}");
        done.push(line);
        if let Some(y) = stale {
            std::fs::remove_file(&y).map_err(|e| Error::io(&y, e))?;
            eprintln!("removed {} (it showed the old motion)", y.display());
        }
    }
    Ok(done)
}
