//! `gltf import IN.glb` with nothing else (and a `.glb`/`.gltf` dropped on animkit): back into
//! the MANs it came from, each replaced MAN kept once as `.bak`.
//!
//! Where it came from: the origin animkit's export recorded in the file
//! ([`crate::zengin::gltf::origin`]); else (a file from Blender, which drops that record by
//! default) the MANs named like the file's animations, with an MDH of their checksum beside
//! them, in the file's folder or one folder below it (a folder made by `animkit unpack`, a
//! model's folder); several such folders, or none, are refused with what to pass.

use super::gltf_files::{decode_man, decode_mdh, mdh_checksum, update_mans, ManFile};
use super::Status;
use crate::exact::Error;
use crate::zengin::gltf::origin::Origin;
use crate::zengin::gltf::{import, Document};
use crate::zengin::mdh::Mdh;
use std::path::{Path, PathBuf};

pub(super) fn import_back(
    input: &Path,
    doc: &Document,
    opts: &import::ImportOptions,
    animation: Option<&str>,
) -> Result<Status, Error> {
    let done = back(input, doc, opts, animation)?;
    if done.is_empty() {
        eprintln!("nothing changed: every animation is as in its MAN");
    }
    Ok(Status::Ok)
}

/// The one-step use: `path` back into the files it came from; what was done.
pub(crate) fn one_step(path: &Path) -> Result<String, Error> {
    let doc = super::gltf_files::read_document(path)?;
    let done = back(path, &doc, &Default::default(), None)?;
    Ok(if done.is_empty() {
        "nothing changed: every animation is as in its MAN".into()
    } else {
        done.join("; ")
    })
}

fn folder_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

fn back(
    input: &Path,
    doc: &Document,
    opts: &import::ImportOptions,
    animation: Option<&str>,
) -> Result<Vec<String>, Error> {
    let names: Vec<String> = doc
        .root
        .animations
        .iter()
        .filter_map(|a| a.name.clone())
        .collect();
    if names.is_empty() {
        return Err(Error::other(
            input,
            "animations: the file has no named animation to put back; for a new animation pass --new NAME --mdh MODEL.MDH -o OUT.MAN",
        ));
    }
    let base = folder_of(input);
    let (label, mans, mdhs) = match Origin::of(doc).and_then(|o| recorded(&base, &o).transpose()) {
        Some(found) => found?,
        None => by_names(input, &base, &names)?,
    };
    let mut opts = opts.clone();
    for (_, _, m, name) in &mans {
        if names.contains(name) {
            if let Some(h) = m.header() {
                if !opts.rates.contains(&h.fps.get()) {
                    opts.rates.push(h.fps.get());
                }
            }
        }
    }
    eprintln!("back into {}", label.display());
    update_mans(
        input, doc, &opts, animation, &label, &mans, &mdhs, false, true,
    )
}

type Found = (PathBuf, Vec<ManFile>, Vec<(PathBuf, Mdh)>);

fn resolve(base: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

fn read_man(p: &Path) -> Option<ManFile> {
    let bytes = std::fs::read(p).ok()?;
    let m = decode_man(p, &bytes).ok()?;
    let name = m
        .header()
        .map(|h| h.name.to_unicode().into_owned())
        .unwrap_or_default();
    Some((p.to_path_buf(), bytes, m, name))
}

fn read_mdh(p: &Path) -> Option<(PathBuf, Mdh)> {
    let bytes = std::fs::read(p).ok()?;
    decode_mdh(p, &bytes).ok().map(|m| (p.to_path_buf(), m))
}

/// The files of a recorded origin, when they are still there (`None`: look by names).
fn recorded(base: &Path, o: &Origin) -> Result<Option<Found>, Error> {
    match &o.source {
        Some(src) => {
            let src = resolve(base, src);
            if src.is_file() {
                return Err(Error::other(
                    &src,
                    format!(
                        "the glTF was exported from this archive: unpack it (`animkit {0}` makes {0}-unpacked), then `animkit gltf import FILE --into {0}-unpacked` and `animkit {0}-unpacked` to repack (or use the Blender add-on, which does all three)",
                        src.display()
                    ),
                ));
            }
            if !src.is_dir() {
                return Ok(None);
            }
            let mans: Vec<ManFile> = o
                .animations
                .iter()
                .filter_map(|a| read_man(&src.join(&a.man)))
                .collect();
            let mdhs: Vec<(PathBuf, Mdh)> = read_mdh(&src.join(&o.mdh)).into_iter().collect();
            Ok((!mans.is_empty() && !mdhs.is_empty()).then_some((src, mans, mdhs)))
        }
        None => {
            let mans: Vec<ManFile> = o
                .animations
                .iter()
                .filter_map(|a| read_man(&resolve(base, &a.man)))
                .collect();
            let mdhs: Vec<(PathBuf, Mdh)> = read_mdh(&resolve(base, &o.mdh)).into_iter().collect();
            Ok((!mans.is_empty() && !mdhs.is_empty()).then(|| (base.to_path_buf(), mans, mdhs)))
        }
    }
}

/// The MAN files directly in `dir` named like one of `names`, and the MDH files there.
fn scan(dir: &Path, names: &[String]) -> (Vec<ManFile>, Vec<(PathBuf, Mdh)>) {
    let mut mans = Vec::new();
    let mut mdhs = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return (mans, mdhs);
    };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths.iter().filter(|p| p.is_file()) {
        let ext = p
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if ext == "man" {
            if let Some(m) = read_man(p).filter(|m| names.contains(&m.3)) {
                mans.push(m);
            }
        } else if ext == "mdh" {
            mdhs.extend(read_mdh(p));
        }
    }
    // Only MANs with an MDH of their checksum here count.
    mans.retain(|m| {
        let sum = m.2.samples().map(|s| s.checksum.0);
        mdhs.iter()
            .any(|(_, h)| mdh_checksum(h) == sum && sum.is_some())
    });
    (mans, mdhs)
}

/// The MANs named like the file's animations in its folder or one folder below.
fn by_names(input: &Path, base: &Path, names: &[String]) -> Result<Found, Error> {
    let mut dirs = vec![base.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(base) {
        let mut subs: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        subs.sort();
        dirs.extend(subs);
    }
    let mut hits: Vec<Found> = Vec::new();
    for d in dirs {
        let (mans, mdhs) = scan(&d, names);
        if !mans.is_empty() {
            hits.push((d, mans, mdhs));
        }
    }
    let listed = names.join(", ");
    match hits.len() {
        1 => Ok(hits.remove(0)),
        0 => Err(Error::other(
            input,
            format!(
                "found nothing it came from: no MAN named like its animations ({listed}) with its MDH in {} or a folder in it. Pass --into THE.MAN -o OUT.MAN or --into FOLDER (or, for a new animation, --new NAME --mdh MODEL.MDH -o OUT.MAN)",
                base.display()
            ),
        )),
        _ => Err(Error::other(
            input,
            format!(
                "its animations ({listed}) name MANs in several folders ({}): pass --into FOLDER",
                hits.iter()
                    .map(|h| h.0.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// For `verify`: each animation of the file imported (in memory) into the MAN it came from:
/// unchanged or the samples it changes. No MAN found is an error.
pub(super) fn compare(input: &Path, doc: &Document) -> Result<Vec<String>, Error> {
    let names: Vec<String> = doc
        .root
        .animations
        .iter()
        .filter_map(|a| a.name.clone())
        .collect();
    let base = folder_of(input);
    let (_, mans, mdhs) = match Origin::of(doc).and_then(|o| recorded(&base, &o).transpose()) {
        Some(found) => found?,
        None => by_names(input, &base, &names)?,
    };
    let mut out = Vec::new();
    for (i, name) in doc.root.animations.iter().enumerate() {
        let name = name.name.clone().unwrap_or_default();
        let Some((path, bytes, man, _)) = mans.iter().find(|m| m.3 == name) else {
            out.push(format!("{name}: no MAN of that name found"));
            continue;
        };
        let sum = man.samples().map(|s| s.checksum.0);
        let Some((mdh_path, mdh)) = mdhs.iter().find(|(_, h)| mdh_checksum(h) == sum) else {
            out.push(format!(
                "{name}: {}: no MDH with its checksum",
                path.display()
            ));
            continue;
        };
        let mut sk = crate::zengin::gltf::Skeleton::from_mdh(mdh)
            .map_err(|e| Error::other(mdh_path, e.to_string()))?;
        sk.model = mdh_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (new, report) =
            crate::zengin::gltf::import_animation(doc, i, &sk, man, &Default::default())
                .map_err(|e| Error::other(input, e.to_string()))?;
        let mut b = Vec::new();
        new.write(&mut b).map_err(|e| Error::Encode {
            file: path.clone(),
            source: e,
        })?;
        out.push(if &b == bytes {
            format!(
                "{name}: unchanged against {} (the same bytes)",
                path.display()
            )
        } else {
            format!(
                "{name}: changes {}: {} samples{}",
                path.display(),
                report.changed_samples,
                if report.frames != report.frames_before {
                    format!(", {} frames (was {})", report.frames, report.frames_before)
                } else {
                    String::new()
                }
            )
        });
    }
    Ok(out)
}
