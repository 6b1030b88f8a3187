//! `animkit asc export`: MAN → ASC as GothicSourcer writes it (one ASC per animation, a whole
//! model from an archive or folder, or the skeleton of an MDH).

use super::gltf_files::{
    check_pair, decode_mdh, each_model_man, mans_and_mdh, mdh_checksum, model_mdh, no_model_man,
    Source,
};
use super::Status;
use crate::exact::Error;
use crate::registry::{self, Codec};
use crate::zengin::asc::from_man::{self, ani_line, Coverage, Part, Rig};
use crate::zengin::asc::{print_gs, Eol};
use crate::zengin::man::Man;
use crate::zengin::mdh::Mdh;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// An ASC made: where it goes, its text, which animations it holds (none: the skeleton).
type Written = (PathBuf, String, Vec<Coverage>);

/// Write ASC files (3ds Max ASCII, GothicSourcer's layout) that KrxImpExp, 3ds Max and the
/// engine read: world-space samples per frame, `%g` numbers.
///
/// * `asc export A.MAN B.MAN --mdh MODEL.MDH -o DIR` (or `-o FILE.ASC` for one MAN): one ASC
///   per animation, named after the MAN (`MODEL-ANI.ASC`), with the frame range of the MDS
///   line in its source chunk (`F 26 49` → frames 26..49), so that line compiles it again;
/// * `asc export Anims.vdf --model HUMANS -o DIR` (an archive, or a folder from `animkit
///   unpack`): every MAN of the model (checksum = the MDH's), each in the ASC its MDS line
///   names; animations that share one ASC are written into it together, each at its frames
///   (listed); and the skeleton as the MDH's mesh-and-tree ASC;
/// * `asc export MODEL.MDH -o MODEL.ASC`: the skeleton (mesh-and-tree form, no mesh).
///
/// A number gets a 7th (8th) digit where GothicSourcer's 6 could not compile back to the
/// MAN's code, so `asc import`/`compile` with round-to-nearest gives the MAN's samples again.
#[derive(clap::Args)]
pub struct Args {
    /// .MAN files; or one .MDH (skeleton); or one archive or folder (with --model or --mdh).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The model hierarchy (.MDH) the animations were made for.
    #[arg(long)]
    mdh: Option<PathBuf>,
    /// In an archive or folder: the model's name (its MDH is NAME.MDH).
    #[arg(long)]
    model: Option<String>,
    /// Output folder, or FILE.ASC for one animation or a skeleton.
    #[arg(short, long)]
    output: PathBuf,
    /// Write CRLF line ends (GothicSourcer's own; the default LF is what the decompiled
    /// repositories hold). Readers take both.
    #[arg(long)]
    crlf: bool,
    /// Export animations whose checksum differs from the MDH's, and overwrite outputs.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<Status, Error> {
    let eol = if a.crlf { Eol::CrLf } else { Eol::Lf };
    let first = &a.inputs[0];
    let container_or_dir = a.inputs.len() == 1
        && (first.is_dir()
            || crate::fsio::map_file(first)
                .is_ok_and(|d| registry::detect(&d).is_some_and(|f| f.container().is_some())));
    if container_or_dir {
        return whole_model(&a, first, eol);
    }
    if a.inputs.len() == 1 && a.mdh.is_none() {
        let data = crate::fsio::read_file(first)?;
        if Mdh::detect(&data) && !Man::detect(&data) {
            let mdh = decode_mdh(first, &data)?;
            return skeleton_only(&a, first, &mdh, eol);
        }
    }
    animations(&a, eol)
}

fn rig(label: &Path, mdh: &Mdh) -> Result<Rig, Error> {
    Rig::from_mdh(mdh).map_err(|e| Error::other(label, e))
}

fn is_asc_file(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("asc"))
}

/// A file name from text the input chose (an MDS line's ASC name, a MAN's name): the last
/// path part, with characters no file system takes replaced.
fn safe_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let s: String = base
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || " _-.()@#+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches(['.', ' ']).to_string();
    if s.is_empty() {
        "ANIMATION.ASC".into()
    } else {
        s
    }
}

fn with_asc_ext(name: &str) -> String {
    if name.to_ascii_lowercase().ends_with(".asc") {
        name.to_string()
    } else {
        format!("{name}.ASC")
    }
}

/// The skeleton ASC's name: the mesh ASC the MDH's source chunk names, else `MODEL.ASC`.
fn skeleton_name(mdh: &Mdh, model_label: &Path) -> String {
    let from_source = mdh
        .source()
        .map(|s| crate::zengin::asc::model::latin1(s.path.as_bytes()))
        .filter(|p| p.to_ascii_lowercase().ends_with(".asc"));
    match from_source {
        Some(p) => safe_name(&p),
        None => with_asc_ext(&safe_name(
            &model_label
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "MODEL".into()),
        )),
    }
}

fn skeleton_only(a: &Args, label: &Path, mdh: &Mdh, eol: Eol) -> Result<Status, Error> {
    let rig = rig(label, mdh)?;
    let out = if is_asc_file(&a.output) {
        a.output.clone()
    } else {
        a.output.join(skeleton_name(mdh, label))
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = print_gs(&from_man::skeleton(&rig, &name), eol);
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    crate::fsio::write_file(&out, text.as_bytes(), a.force)?;
    println!(
        "wrote {} (skeleton: {} nodes, {} bytes)",
        out.display(),
        rig.len(),
        text.len()
    );
    Ok(Status::Ok)
}

/// The MDS line's ASC name and frame range of a MAN (`None` without a readable line).
fn line_of(man: &Man) -> Option<from_man::AniLine> {
    ani_line(man.source()?.script.as_bytes())
}

fn part<'a>(label: &Path, man: &'a Man) -> Part<'a> {
    let line = line_of(man);
    Part {
        label: label.display().to_string(),
        man,
        // Without a line: frame 1 (GothicSourcer's and 3ds Max's usual first frame).
        start: line.as_ref().map_or(1, |l| l.first_frame),
        end: line.map(|l| l.last_frame),
    }
}

/// `MANs --mdh`: one ASC per animation, named after the MAN.
#[allow(clippy::type_complexity)] // (ascx: a type alias would do)
fn animations(a: &Args, eol: Eol) -> Result<Status, Error> {
    let (mdh_label, mdh, mans) = mans_and_mdh(&a.inputs, a.mdh.as_deref())?;
    for (label, man) in &mans {
        check_pair(label, man, &mdh, a.force)?;
    }
    let rig = rig(&mdh_label, &mdh)?;
    let one_file = is_asc_file(&a.output);
    if one_file && mans.len() > 1 {
        return Err(Error::other(
            &a.output,
            format!(
                "{} animations need an output folder (one ASC each), not one .ASC file",
                mans.len()
            ),
        ));
    }
    let results: Vec<Result<Written, Error>> = mans
        .par_iter()
        .map(|(label, man)| {
            let out = if one_file {
                a.output.clone()
            } else {
                let stem = label
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "ANIMATION".into());
                a.output.join(with_asc_ext(&safe_name(&stem)))
            };
            let name = out
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (text, cov) = from_man::animation_text(&rig, &name, &[part(label, man)], eol)
                .map_err(|e| Error::other(label, e))?;
            Ok((out, text, cov))
        })
        .collect();
    write_all(a, results)
}

/// Write every file that could be made (as one: all or none), then report each; an
/// animation that could not be written is reported and makes the status failed.
fn write_all(a: &Args, results: Vec<Result<Written, Error>>) -> Result<Status, Error> {
    let mut files = Vec::with_capacity(results.len());
    let mut said = Vec::with_capacity(results.len());
    let mut failed = Vec::new();
    for r in results {
        match r {
            Ok((out, text, cov)) => {
                said.push(describe(&out, text.len(), &cov));
                files.push((out, text.into_bytes()));
            }
            Err(e) => failed.push(e),
        }
    }
    if files.is_empty() {
        if let Some(e) = failed.pop() {
            for other in &failed {
                super::report(other);
            }
            return Err(e);
        }
    }
    for (out, _) in &files {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
    }
    crate::fsio::write_files(&files, a.force)?;
    for s in said {
        println!("{s}");
    }
    for e in &failed {
        super::report(e);
    }
    Ok(if failed.is_empty() {
        Status::Ok
    } else {
        Status::Failed
    })
}

fn describe(out: &Path, bytes: usize, cov: &[Coverage]) -> String {
    let mut s = format!("wrote {} ({bytes} bytes)", out.display());
    if cov.is_empty() {
        s.push_str(": the skeleton");
    } else if let [c] = cov {
        s.push_str(&format!(": {} frames {}..{}", c.name, c.first, c.last));
    } else {
        s.push_str(&format!(
            ": {} animations share it: {}",
            cov.len(),
            cov.iter()
                .map(|c| format!("{} frames {}..{}", c.name, c.first, c.last))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for c in cov.iter().filter(|c| c.overlapped > 0) {
        s.push_str(&format!(
            "; {} node samples of {} fall on frames an earlier animation already wrote with other values (the earlier kept)",
            c.overlapped, c.name
        ));
    }
    s
}

/// The ASC a MAN of a whole model goes into: its MDS line's, else one named after it.
fn asc_name(label: &Path, man: &Man) -> String {
    match line_of(man) {
        Some(l) => with_asc_ext(&safe_name(&l.asc)),
        None => with_asc_ext(&safe_name(
            &label
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "ANIMATION".into()),
        )),
    }
}

/// `ARCHIVE|DIR --model NAME`: every MAN of the model, grouped by the ASC its MDS line names,
/// and the skeleton.
#[allow(clippy::type_complexity)]
fn whole_model(a: &Args, source: &Path, eol: Eol) -> Result<Status, Error> {
    if is_asc_file(&a.output) {
        return Err(Error::other(
            &a.output,
            "a whole model is written into a folder (-o DIR), one ASC per ASC its MDS lines name",
        ));
    }
    // Two walks of the model's MANs, one MAN decoded at a time: the first finds the ASC each
    // goes into (its MDS line's), the second keeps a group's MANs only until its last one is
    // read and then writes the group's text (a whole game's model is not held in memory).
    // (the archive opened once for the three walks)
    let map = std::sync::OnceLock::new();
    let src = Source::new(source, &map);
    let (mdh_label, mdh) = model_mdh(a.mdh.as_deref(), a.model.as_deref(), &src)?;
    let want = mdh_checksum(&mdh);
    // Group by ASC name, case-insensitively (the engine's file names are), in MAN order.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut group_of: Vec<usize> = Vec::new();
    let n = each_model_man(&src, want, true, |label, man| {
        let name = asc_name(&label, &man);
        let g = match groups
            .iter()
            .position(|(g, _)| g.eq_ignore_ascii_case(&name))
        {
            Some(g) => g,
            None => {
                groups.push((name, Vec::new()));
                groups.len() - 1
            }
        };
        groups[g].1.push(group_of.len());
        group_of.push(g);
        Ok(())
    })?;
    if n == 0 {
        return Err(no_model_man(source, &mdh_label, &mdh));
    }
    let rig = rig(&mdh_label, &mdh)?;
    let skeleton = skeleton_name(&mdh, &mdh_label);
    let texts: std::sync::Mutex<Vec<Option<Result<Written, Error>>>> =
        std::sync::Mutex::new((0..groups.len()).map(|_| None).collect());
    let mut pending: Vec<Vec<(PathBuf, Man)>> = (0..groups.len()).map(|_| Vec::new()).collect();
    let mut at = 0;
    // (each group's text made on all cores as soon as its MANs are in)
    let (rig, groups_ref, texts_ref) = (&rig, &groups, &texts);
    rayon::scope(|scope| -> Result<(), Error> {
        each_model_man(&src, want, false, |label, man| {
            let Some(&g) = group_of.get(at) else {
                return Err(Error::other(
                    &label,
                    "not among the MANs found before (did the files change during the export?)",
                ));
            };
            let (name, members) = &groups_ref[g];
            if !asc_name(&label, &man).eq_ignore_ascii_case(name) {
                return Err(Error::other(&label, "not the MAN found before at its place (did the files change during the export?)"));
            }
            at += 1;
            pending[g].push((label, man));
            if pending[g].len() == members.len() {
                let mans = std::mem::take(&mut pending[g]);
                scope.spawn(move |_| {
                    let parts: Vec<Part<'_>> =
                        mans.iter().map(|(label, man)| part(label, man)).collect();
                    let made = from_man::animation_text(rig, name, &parts, eol)
                        .map_err(|e| Error::other(a.output.join(name), e))
                        .map(|(text, cov)| (a.output.join(name), text, cov));
                    texts_ref.lock().unwrap_or_else(|e| e.into_inner())[g] = Some(made);
                });
            }
            Ok(())
        })?;
        if at != group_of.len() {
            return Err(Error::other(source, format!("{at} of the model's {} MANs found again (did the files change during the export?)", group_of.len())));
        }
        Ok(())
    })?;
    let mut results: Vec<Result<Written, Error>> = texts
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .zip(&groups)
        .map(|(t, (name, _))| {
            t.unwrap_or_else(|| {
                Err(Error::other(
                    a.output.join(name),
                    "its animations were not all found again (did the files change during the export?)",
                ))
            })
        })
        .collect();
    if groups
        .iter()
        .any(|(g, _)| g.eq_ignore_ascii_case(&skeleton))
    {
        crate::convert::warn_plain(format_args!(
            "an animation ASC is named {skeleton} like the skeleton: the skeleton is not written"
        ));
    } else {
        let text = print_gs(&from_man::skeleton(rig, &skeleton), eol);
        results.push(Ok((a.output.join(&skeleton), text, Vec::new())));
    }
    let status = write_all(a, results)?;
    println!(
        "{n} animation{} of {} in {} ASC file{}",
        if n == 1 { "" } else { "s" },
        mdh_label.display(),
        groups.len(),
        if groups.len() == 1 { "" } else { "s" }
    );
    Ok(status)
}
