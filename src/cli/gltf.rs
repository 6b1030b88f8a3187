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
    /// animation of the file names is updated in place; then `repack`).
    #[arg(long)]
    into: PathBuf,
    /// Output MAN (with --into FILE).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The animation to take (default: the only one, or the one named like the MAN).
    #[arg(long)]
    animation: Option<String>,
    /// The model hierarchy (default: the .MDH beside the MAN, or in the folder, whose
    /// checksum is the MAN's).
    #[arg(long)]
    mdh: Option<PathBuf>,
    /// Sample at this rate and store it as the MAN's fps (default: the MAN's fps).
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
pub(super) struct Found {
    /// Path inside the archive or folder, `/`-separated.
    pub(super) name: String,
    pub(super) bytes: Vec<u8>,
}

pub(super) fn ext_is(name: &str, ext: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case(ext))
}

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

fn mdh_checksum(mdh: &Mdh) -> Option<u32> {
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
    let problems = crate::zengin::mdh::check_man(man, mdh);
    let (index, other): (Vec<String>, Vec<String>) = problems
        .into_iter()
        .partition(|p| p.starts_with("samples.node_indices"));
    if !index.is_empty() {
        return Err(Error::other(label, index.join("; ")));
    }
    if !other.is_empty() && !force {
        return Err(Error::other(
            label,
            format!(
                "{}; pass --force to export it with this MDH anyway",
                other.join("; ")
            ),
        ));
    }
    Ok(())
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
    let (bytes, report) = gltf::export_with(&sk, &anims, character.as_ref(), container)
        .map_err(|e| Error::other(&mdh_label, e.to_string()))?;
    drop(mans);
    for w in &report.warnings {
        crate::convert::warn_plain(w);
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
    let mdhs: Vec<&Found> = found.iter().filter(|f| ext_is(&f.name, "mdh")).collect();
    let (label, mdh) = match (mdh, model) {
        (Some(p), _) => (p.to_path_buf(), read_mdh(p)?),
        (None, Some(model)) => {
            let want = format!("{model}.MDH");
            // NAME, NAME.MDH, or the member's path (`ANIMS/_COMPILED/WARAN.MDH`, any case,
            // either slash)
            let path = model.replace('\\', "/").to_ascii_uppercase();
            let hit = mdhs.iter().find(|f| {
                let base = f.name.rsplit('/').next().unwrap_or(&f.name);
                let name = f.name.replace('\\', "/").to_ascii_uppercase();
                base.eq_ignore_ascii_case(&want)
                    || base.eq_ignore_ascii_case(model)
                    || (path.contains('/')
                        && (name == path
                            || name.ends_with(&format!("/{path}"))
                            || name == format!("{path}.MDH")))
            });
            let Some(hit) = hit else {
                return Err(Error::other(
                    source,
                    format!(
                        "no {want} in it (model hierarchies: {})",
                        list_or_none(mdhs.iter().map(|f| f.name.clone()))
                    ),
                ));
            };
            let label = source.join(&hit.name);
            let mdh = decode_mdh(&label, &hit.bytes)?;
            (label, mdh)
        }
        (None, None) => {
            let listed: Vec<String> = mdhs
                .iter()
                .map(|f| {
                    let sum = Mdh::read(&f.bytes)
                        .ok()
                        .and_then(|m| mdh_checksum(&m))
                        .map_or("?".into(), |c| format!("0x{c:08x}"));
                    format!("{} ({sum})", f.name)
                })
                .collect();
            return Err(Error::other(
                source,
                format!(
                    "which model? pass --model NAME (model hierarchies here: {})",
                    list_or_none(listed.into_iter())
                ),
            ));
        }
    };
    let want = mdh_checksum(&mdh);
    let mut mans = Vec::new();
    for f in found.iter().filter(|f| ext_is(&f.name, "man")) {
        let label = source.join(&f.name);
        let Ok(man) = decode_man(&label, &f.bytes) else {
            crate::convert::warn(Path::new(&f.name), "not a readable MAN; skipped");
            continue;
        };
        if man_checksum(&man) == want && want.is_some() {
            mans.push((label, man));
        }
    }
    if mans.is_empty() {
        return Err(Error::other(
            source,
            format!(
                "no MAN in it has the checksum of {} ({})",
                label.display(),
                want.map_or("none".into(), |c| format!("0x{c:08x}"))
            ),
        ));
    }
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

fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn read_document(path: &Path) -> Result<Document, Error> {
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
    if a.into.is_dir() {
        return import_into_folder(&a, &doc, &opts);
    }
    let output = a.output.clone().ok_or_else(|| {
        Error::other(
            &a.into,
            "--into a MAN needs -o OUT.MAN (use the same path with --force to replace it)",
        )
    })?;
    let data = crate::fsio::read_file(&a.into)?;
    let man = decode_man(&a.into, &data)?;
    let (mdh_path, mdh) = match &a.mdh {
        Some(p) => (p.clone(), read_mdh(p)?),
        None => {
            let sum = man_checksum(&man)
                .ok_or_else(|| Error::other(&a.into, "the MAN has no samples chunk (0xA090)"))?;
            let dir = a.into.parent().filter(|d| !d.as_os_str().is_empty());
            let found = mdh_files_with(dir.unwrap_or(Path::new(".")), sum);
            let Some(p) = found.first() else {
                return Err(Error::other(
                    &a.into,
                    format!(
                        "needs the model hierarchy it was made for: pass --mdh MODEL.MDH (none beside it has the MAN's checksum 0x{sum:08x})"
                    ),
                ));
            };
            (p.clone(), read_mdh(p)?)
        }
    };
    check_pair(&a.into, &man, &mdh, true)?;
    let sk = skeleton(&mdh_path, &mdh)?;
    let man_name = man
        .header()
        .map(|h| h.name.to_unicode().into_owned())
        .unwrap_or_default();
    let anim = import::pick_animation(&doc, a.animation.as_deref(), &man_name)
        .map_err(|e| Error::other(&a.input, e.to_string()))?;
    let (out, report) = gltf::import_animation(&doc, anim, &sk, &man, &opts)
        .map_err(|e| Error::other(&a.input, e.to_string()))?;
    for w in &report.warnings {
        crate::convert::warn_plain(w);
    }
    let mut bytes = Vec::with_capacity(data.len());
    out.write(&mut bytes).map_err(|e| Error::Encode {
        file: output.clone(),
        source: e,
    })?;
    crate::convert::print_edit_warnings(&output, &man, &out);
    crate::fsio::write_file(&output, &bytes, a.force)?;
    eprintln!(
        "wrote {} ({} bytes): {}",
        output.display(),
        bytes.len(),
        summary(&report)
    );
    Ok(Status::Ok)
}

fn import_into_folder(
    a: &ImportArgs,
    doc: &Document,
    opts: &import::ImportOptions,
) -> Result<Status, Error> {
    if a.output.is_some() {
        return Err(Error::other(
            &a.into,
            "-o is for --into FILE; --into a folder updates its MAN files in place",
        ));
    }
    let found = collect(&a.into)?;
    let mut mdhs: Vec<(PathBuf, Mdh)> = Vec::new();
    if let Some(p) = &a.mdh {
        mdhs.push((p.clone(), read_mdh(p)?));
    } else {
        for f in found.iter().filter(|f| ext_is(&f.name, "mdh")) {
            let p = a.into.join(&f.name);
            if let Ok(m) = decode_mdh(&p, &f.bytes) {
                mdhs.push((p, m));
            }
        }
    }
    let mut mans: Vec<(PathBuf, Vec<u8>, Man, String)> = Vec::new();
    for f in found.iter().filter(|f| ext_is(&f.name, "man")) {
        let p = a.into.join(&f.name);
        if let Ok(m) = decode_man(&p, &f.bytes) {
            let name = m
                .header()
                .map(|h| h.name.to_unicode().into_owned())
                .unwrap_or_default();
            mans.push((p, f.bytes.clone(), m, name));
        }
    }
    let names: Vec<(usize, String)> = doc
        .root
        .animations
        .iter()
        .enumerate()
        .map(|(i, an)| (i, an.name.clone().unwrap_or_default()))
        .filter(|(_, n)| a.animation.as_deref().is_none_or(|w| w == n))
        .collect();
    if names.is_empty() {
        return Err(Error::other(
            &a.input,
            match &a.animation {
                Some(w) => format!("animations: none is named {w:?}"),
                None => "animations: the file has no animation".into(),
            },
        ));
    }
    // Everything is computed before anything is written.
    let mut writes: Vec<(PathBuf, Vec<u8>, Option<PathBuf>, String)> = Vec::new();
    for (ai, aname) in &names {
        let mut any = false;
        for (path, bytes, man, name) in &mans {
            if name != aname {
                continue;
            }
            let Some(sum) = man_checksum(man) else {
                continue;
            };
            let Some((mdh_path, mdh)) = mdhs.iter().find(|(_, m)| mdh_checksum(m) == Some(sum))
            else {
                crate::convert::warn(
                    path,
                    format_args!(
                        "named {aname:?}, but no MDH {} has its checksum 0x{sum:08x}; skipped",
                        if a.mdh.is_some() {
                            "given"
                        } else {
                            "in the folder"
                        }
                    ),
                );
                continue;
            };
            let sk = skeleton(mdh_path, mdh)?;
            let (out, report) = gltf::import_animation(doc, *ai, &sk, man, opts)
                .map_err(|e| Error::other(&a.input, e.to_string()))?;
            for w in &report.warnings {
                crate::convert::warn_plain(w);
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
            crate::convert::print_edit_warnings(path, man, &out);
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
                            a.input.display(),
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
            crate::convert::warn_plain(format_args!(
                "animation {aname:?}: no MAN of that name (with its MDH) in {}; skipped",
                a.into.display()
            ));
        }
    }
    if writes.is_empty() && !names.iter().any(|(_, n)| mans.iter().any(|m| &m.3 == n)) {
        return Err(Error::other(
            &a.input,
            format!(
                "none of its animations ({}) names a MAN in {}",
                names
                    .iter()
                    .map(|n| n.1.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
                a.into.display()
            ),
        ));
    }
    for (path, bytes, stale, what) in writes {
        crate::fsio::write_file(&path, &bytes, true)?;
        eprintln!("updated {}: {what}", path.display());
        if let Some(y) = stale {
            std::fs::remove_file(&y).map_err(|e| Error::io(&y, e))?;
            eprintln!("removed {} (it showed the old motion)", y.display());
        }
    }
    Ok(Status::Ok)
}

/// `gltf import GLB --into TARGET -o TARGET --force` (the one-step mode's glTF drop).
pub(super) fn import_into_itself(glb: &Path, target: &Path) -> Result<Status, Error> {
    import(ImportArgs {
        input: glb.to_path_buf(),
        into: target.to_path_buf(),
        output: Some(target.to_path_buf()),
        animation: None,
        mdh: None,
        fps: None,
        requantize: false,
        force: true,
    })
}
