//! `animkit gltf export|import`: ZenGin animations as glTF 2.0 for Blender and other tools.

use super::gltf_files::*;
use super::Status;
use crate::exact::Error;
use crate::registry;
use crate::zengin::gltf::{self, import, Document};
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
///
/// `gltf import FILE.glb` alone goes back into the MANs the file came from (recorded by the
/// export, or named like its animations in its folder or one below), keeping each replaced
/// MAN once as `.bak`. `--new NAME` makes a new animation instead.
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
    let source = single_source.then(|| a.inputs[0].as_path());
    // (an archive given is opened once for every walk below)
    let map = std::sync::OnceLock::new();
    let src = source.map(|s| Source::new(s, &map));
    // The MANs named on the command line are held; a model's in an archive or folder are
    // read twice, one at a time: planned (and checked) first, then each written into the
    // file as it is read again (a whole game's model is not held in memory).
    let (mdh_label, mdh, listed) = match &src {
        Some(s) => {
            let (label, mdh) = model_mdh(a.mdh.as_deref(), a.model.as_deref(), s)?;
            (label, mdh, None)
        }
        None => {
            let (label, mdh, mans) = mans_and_mdh(&a.inputs, a.mdh.as_deref())?;
            (label, mdh, Some(mans))
        }
    };
    let sk = skeleton(&mdh_label, &mdh);
    let mut layout = gltf::Layout::default();
    let mut plan_error = None;
    let mut origin = OriginOf::new(&a.output, source, &mdh_label);
    let mut plan = |label: &Path, man: &Man| -> Result<(), Error> {
        check_pair(label, man, &mdh, a.force)?;
        if !a.no_origin {
            origin.add(label, man);
        }
        if let (Ok(sk), None) = (&sk, &plan_error) {
            if let Err(e) = layout.add(sk, &label.display().to_string(), man) {
                plan_error = Some(e);
            }
        }
        Ok(())
    };
    match (&listed, &src) {
        (Some(mans), _) => {
            for (label, man) in mans {
                plan(label, man)?;
            }
        }
        (None, Some(s)) => {
            let n = each_model_man(s, mdh_checksum(&mdh), true, |label, man| plan(&label, &man))?;
            if n == 0 {
                return Err(no_model_man(s.path, &mdh_label, &mdh));
            }
        }
        (None, None) => unreachable!("either MANs named or one source"),
    }
    let sk = sk?;
    let loaded = super::gltf_mesh::load(&a.character, src.as_ref(), a.model.as_deref())?;
    let character = loaded.as_ref().map(|l| l.character(&sk)).transpose()?;
    if let Some(e) = plan_error {
        return Err(Error::other(&mdh_label, e.to_string()));
    }
    let mut origin = (!a.no_origin).then(|| origin.done()).flatten();
    let want = mdh_checksum(&mdh);
    // The MANs again, in the same order, each written into the file as it comes.
    let mut feed =
        |each: &mut dyn FnMut(&str, &Man) -> Result<(), gltf::GltfError>| match (&listed, &src) {
            (Some(mans), _) => {
                for (label, man) in mans {
                    each(&label.display().to_string(), man)?;
                }
                Ok(())
            }
            (None, Some(s)) => {
                let mut failed = None;
                let walked = each_model_man(s, want, false, |label, man| {
                    each(&label.display().to_string(), &man).map_err(|e| {
                        let m = e.to_string();
                        failed = Some(e);
                        Error::other(&label, m)
                    })
                });
                match (failed, walked) {
                    (Some(e), _) => Err(e),
                    (None, Err(e)) => Err(gltf::GltfError::new(e.to_string())),
                    (None, Ok(_)) => Ok(()),
                }
            }
            (None, None) => Ok(()),
        };
    // (written as it is made: the JSON and the binary buffer are not held in memory; the
    // output is renamed into place only when the whole file is written)
    let (len, report) = crate::fsio::write_streaming(&a.output, a.force, |w| {
        let mut w = KeepIoError { w, error: None };
        gltf::export_streamed(
            &sk,
            &layout,
            character.as_ref(),
            container,
            origin.take(),
            &mut w,
            &mut feed,
        )
        .map_err(|e| match w.error.take() {
            Some(io) => Error::io(&a.output, io),
            None => Error::other(&mdh_label, e.to_string()),
        })
    })?;
    drop(listed);
    for w in &report.warnings {
        crate::convert::warn_plain(w);
    }
    eprintln!(
        "wrote {} ({} bytes): {} nodes, {}{} animation{}{}",
        a.output.display(),
        len,
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
            format!(" ({})", listed_names(&report.animations))
        }
    );
    Ok(Status::Ok)
}

/// At most the first [`NAMES_LISTED`] names, then how many more (a whole game's model has
/// thousands of animations: the status line stays a line).
fn listed_names(names: &[String]) -> String {
    match names.len() {
        n if n <= NAMES_LISTED => names.join(", "),
        n => format!(
            "{}, … and {} more",
            names[..NAMES_LISTED].join(", "),
            n - NAMES_LISTED
        ),
    }
}

const NAMES_LISTED: usize = 12;

/// A writer that keeps its first error (to tell the output's errors from the export's).
struct KeepIoError<W> {
    w: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> std::io::Write for KeepIoError<W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.w.write(b).inspect_err(|e| {
            self.error
                .get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        })
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Where an export's model came from, for the way back (paths relative to the output's
/// folder when inside it; members of an archive or folder relative to it), gathered MAN by
/// MAN.
struct OriginOf<'a> {
    base: PathBuf,
    source: Option<&'a Path>,
    /// The record, as its text (about 100 bytes an animation).
    origin: gltf::origin::OriginText,
}

fn slashed(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

impl<'a> OriginOf<'a> {
    fn new(output: &Path, source: Option<&'a Path>, mdh: &Path) -> Self {
        let base = output
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let base = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
        let mut o = OriginOf {
            base,
            source,
            origin: gltf::origin::OriginText::new("", None),
        };
        o.origin =
            gltf::origin::OriginText::new(&o.inside(mdh), source.map(|s| o.rel(s)).as_deref());
        o
    }

    fn rel(&self, p: &Path) -> String {
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        match abs.strip_prefix(&self.base) {
            Ok(r) => slashed(r),
            Err(_) => abs.to_string_lossy().into_owned(),
        }
    }

    fn inside(&self, p: &Path) -> String {
        match self.source.and_then(|s| p.strip_prefix(s).ok()) {
            Some(r) => slashed(r),
            None => self.rel(p),
        }
    }

    /// The MAN at `path` (none without a header).
    fn add(&mut self, path: &Path, m: &Man) {
        let Some(h) = m.header() else {
            return;
        };
        // (the MAN's bytes: written from the model, which reads and writes them
        // byte-exactly)
        let mut bytes = Vec::new();
        let crc32 = m.write(&mut bytes).ok().map(|_| crc32fast::hash(&bytes));
        self.origin.push(&gltf::origin::OriginAnimation {
            name: h.name.to_unicode().into_owned(),
            man: self.inside(path),
            fps: h.fps.get(),
            crc32,
        });
    }

    fn done(self) -> Option<Box<serde_json::value::RawValue>> {
        self.origin.finish()
    }
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
    let (man, out, report, _) = import_one(
        &a.input,
        &doc,
        &into,
        a.mdh.as_deref(),
        a.animation.as_deref(),
        &opts,
    )?;
    for w in &report.warnings {
        crate::convert::warn_plain(w);
    }
    let mut bytes = Vec::new();
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_list_of_names_is_cut() {
        let names: Vec<String> = (0..20).map(|i| format!("A{i}")).collect();
        assert_eq!(super::listed_names(&names[..2]), "A0, A1");
        assert_eq!(
            super::listed_names(&names),
            "A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, … and 8 more"
        );
    }
}
