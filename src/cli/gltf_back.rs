//! `gltf import IN.glb` with nothing else (and a `.glb`/`.gltf` dropped on animkit): back into
//! the MANs it came from, each replaced MAN kept once as `.bak`; from an archive, the edited
//! MANs replaced inside it (every other member and the layout as stored), the archive kept
//! once as `.bak`.
//!
//! Where it came from: the origin animkit's export recorded in the file
//! ([`crate::zengin::gltf::origin`]; an archive's members must still have the bytes recorded
//! then); else (a file from Blender, which drops that record by default) the MANs named like
//! the file's animations, with an MDH of their checksum beside them, in the file's folder or
//! one folder below it (a folder made by `animkit unpack`, a model's folder) or in a `.VDF`
//! archive in its folder; several such places, or none, are refused with what to pass.

use super::gltf_files::{
    decode_man, decode_mdh, each_member, ext_is, mdh_checksum, plan_mans, update_mans, ManFile,
    ManWrite,
};
use super::Status;
use crate::exact::Error;
use crate::zengin::gltf::origin::Origin;
use crate::zengin::gltf::{import, Document};
use crate::zengin::mdh::Mdh;
use crate::zengin::vdf::Vdf;
use std::collections::HashMap;
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
    let found = match Origin::of(doc).and_then(|o| recorded(&base, &o).transpose()) {
        Some(found) => found?,
        None => by_names(input, &base, &names)?,
    };
    let mut opts = opts.clone();
    for (_, _, m, name) in &found.mans {
        if names.contains(name) {
            if let Some(h) = m.header() {
                if !opts.rates.contains(&h.fps.get()) {
                    opts.rates.push(h.fps.get());
                }
            }
        }
    }
    eprintln!("back into {}", found.label.display());
    match &found.archive {
        None => update_mans(
            input,
            doc,
            &opts,
            animation,
            &found.label,
            &found.mans,
            &found.mdhs,
            false,
            true,
        ),
        Some(archive) => {
            let writes = plan_mans(
                input,
                doc,
                &opts,
                animation,
                &found.label,
                &found.mans,
                &found.mdhs,
                false,
            )?;
            drop(found.mans);
            write_archive(archive, writes)
        }
    }
}

/// The planned MANs replaced inside `archive` (a VDF): the archive kept once as `.bak`, then
/// written anew beside itself and renamed into place.
fn write_archive(archive: &Path, writes: Vec<ManWrite>) -> Result<Vec<String>, Error> {
    if writes.is_empty() {
        return Ok(Vec::new());
    }
    let member = |p: &Path| {
        p.strip_prefix(archive)
            .unwrap_or(p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    // Everything checked before the `.bak` is made and the archive written.
    let check = crate::fsio::map_file(archive)?;
    let v = Vdf::parse(&check).map_err(|e| {
        Error::other(
            archive,
            format!(
                "the way back writes VDF archives only, and this one does not read as one: {e}"
            ),
        )
    })?;
    for w in &writes {
        if v.member_piece(&member(&w.path)).is_none() {
            return Err(Error::other(
                archive,
                format!(
                    "no longer holds {}: export the model again",
                    member(&w.path)
                ),
            ));
        }
    }
    drop(v);
    drop(check);
    let bak = crate::convert::keep_original(archive)?;
    // (the archive is mapped only while its replacement is written: the rename into place
    // then replaces a file nobody holds, as Windows requires)
    crate::fsio::write_streaming(archive, true, |w| {
        let data = crate::fsio::map_file(archive)?;
        let v = Vdf::parse(&data).map_err(Error::decoding(archive))?;
        let mut replace = HashMap::new();
        for m in &writes {
            if let Some(i) = v.member_piece(&member(&m.path)) {
                replace.insert(i, m.bytes.clone());
            }
        }
        v.write_replaced(&replace, w)
            .map_err(Error::encoding(archive))
    })?;
    let kept = bak.map_or(String::new(), |b| {
        format!(" (the original archive kept as {})", b.display())
    });
    let mut done = Vec::new();
    for w in &writes {
        let line = format!(
            "updated {} in {}: {}{kept}",
            member(&w.path),
            archive.display(),
            w.what
        );
        eprintln!("{line}");
        done.push(line);
    }
    Ok(done)
}

/// Where the way back goes: the folder or archive (`label`), the MANs and MDHs found there,
/// and the archive when they are its members (their paths: the archive's path joined with
/// the member's).
struct Found {
    label: PathBuf,
    mans: Vec<ManFile>,
    mdhs: Vec<(PathBuf, Mdh)>,
    archive: Option<PathBuf>,
}

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
    man_file(p, bytes)
}

fn man_file(p: &Path, bytes: Vec<u8>) -> Option<ManFile> {
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

/// The files of a recorded origin, when they are still there (`None`: look by names). An
/// archive must still hold the recorded members with the bytes they had at the export.
fn recorded(base: &Path, o: &Origin) -> Result<Option<Found>, Error> {
    match &o.source {
        Some(src) => {
            let src = resolve(base, src);
            if src.is_file() {
                return from_archive(&src, o).map(Some);
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
            Ok((!mans.is_empty() && !mdhs.is_empty()).then_some(Found {
                label: src,
                mans,
                mdhs,
                archive: None,
            }))
        }
        None => {
            let mans: Vec<ManFile> = o
                .animations
                .iter()
                .filter_map(|a| read_man(&resolve(base, &a.man)))
                .collect();
            let mdhs: Vec<(PathBuf, Mdh)> = read_mdh(&resolve(base, &o.mdh)).into_iter().collect();
            Ok((!mans.is_empty() && !mdhs.is_empty()).then(|| Found {
                label: base.to_path_buf(),
                mans,
                mdhs,
                archive: None,
            }))
        }
    }
}

/// The recorded members of archive `src`: each MAN as the export recorded it (its CRC-32),
/// and the MDH; a member gone or changed is refused (the glTF's motion would undo the change).
fn from_archive(src: &Path, o: &Origin) -> Result<Found, Error> {
    let key = |n: &str| n.to_ascii_uppercase();
    let mdh_key = key(&o.mdh);
    let wanted: Vec<String> = o.animations.iter().map(|a| key(&a.man)).collect();
    let mut mans: Vec<ManFile> = Vec::new();
    let mut mdhs: Vec<(PathBuf, Mdh)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    each_member(
        src,
        |n| key(n) == mdh_key || wanted.contains(&key(n)),
        |name, bytes| {
            let p = src.join(name);
            if key(name) == mdh_key {
                mdhs.push((p.clone(), decode_mdh(&p, bytes)?));
                return Ok(());
            }
            let Some(a) = o.animations.iter().find(|a| key(&a.man) == key(name)) else {
                return Ok(());
            };
            seen.push(key(name));
            let now = crc32fast::hash(bytes);
            match a.crc32 {
                Some(c) if c == now => {}
                Some(c) => {
                    return Err(Error::other(
                        src,
                        format!(
                            "{name} changed since the glTF was exported from this archive (CRC-32 0x{now:08x}, exported 0x{c:08x}): nothing was written. Export the model again (`animkit gltf export {} --model NAME`) and redo the edit there, or import into the changed MAN with `gltf import FILE --into` an unpacked folder",
                            src.display()
                        ),
                    ))
                }
                None => {
                    return Err(Error::other(
                        src,
                        format!(
                            "{name}: the glTF does not record the bytes it was exported from (an older animkit), so a change of the archive since cannot be ruled out: nothing was written. Export the model again from {}",
                            src.display()
                        ),
                    ))
                }
            }
            if let Some(m) = man_file(&p, bytes.to_vec()) {
                mans.push(m);
            }
            Ok(())
        },
    )?;
    if let Some(gone) = o.animations.iter().find(|a| !seen.contains(&key(&a.man))) {
        return Err(Error::other(
            src,
            format!(
                "no longer holds {} ({}), which the glTF was exported from: nothing was written; export the model again",
                gone.man, gone.name
            ),
        ));
    }
    if mdhs.is_empty() {
        return Err(Error::other(
            src,
            format!(
                "no longer holds {}, which the glTF was exported from: nothing was written; export the model again",
                o.mdh
            ),
        ));
    }
    Ok(Found {
        label: src.to_path_buf(),
        mans,
        mdhs,
        archive: Some(src.to_path_buf()),
    })
}

/// The MAN members of a `.VDF` archive named like one of `names` (the game's rule:
/// `MODEL-NAME.MAN`), with an MDH member of their checksum.
fn scan_archive(src: &Path, names: &[String]) -> (Vec<ManFile>, Vec<(PathBuf, Mdh)>) {
    let suffixes: Vec<String> = names
        .iter()
        .map(|n| format!("-{}.MAN", n.to_ascii_uppercase()))
        .collect();
    let mut mans = Vec::new();
    let mut mdhs = Vec::new();
    let r = each_member(
        src,
        |n| {
            let u = n.to_ascii_uppercase();
            u.ends_with(".MDH") || suffixes.iter().any(|s| u.ends_with(s.as_str()))
        },
        |name, bytes| {
            let p = src.join(name);
            if ext_is(name, "mdh") {
                mdhs.extend(decode_mdh(&p, bytes).ok().map(|m| (p, m)));
            } else if let Some(m) = man_file(&p, bytes.to_vec()).filter(|m| names.contains(&m.3)) {
                mans.push(m);
            }
            Ok(())
        },
    );
    if r.is_err() {
        return (Vec::new(), Vec::new());
    }
    mans.retain(|m| {
        let sum = m.2.samples().map(|s| s.checksum.0);
        sum.is_some() && mdhs.iter().any(|(_, h)| mdh_checksum(h) == sum)
    });
    (mans, mdhs)
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

/// The MANs named like the file's animations in its folder or one folder below, or in a
/// `.VDF` archive in its folder.
fn by_names(input: &Path, base: &Path, names: &[String]) -> Result<Found, Error> {
    let mut dirs = vec![base.to_path_buf()];
    let mut archives = Vec::new();
    if let Ok(rd) = std::fs::read_dir(base) {
        let mut subs: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        subs.sort();
        for p in subs {
            if p.is_dir() {
                dirs.push(p);
            } else if p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| e.eq_ignore_ascii_case("vdf"))
            {
                archives.push(p);
            }
        }
    }
    let mut hits: Vec<Found> = Vec::new();
    for d in dirs {
        let (mans, mdhs) = scan(&d, names);
        if !mans.is_empty() {
            hits.push(Found {
                label: d,
                mans,
                mdhs,
                archive: None,
            });
        }
    }
    for a in archives {
        let (mans, mdhs) = scan_archive(&a, names);
        if !mans.is_empty() {
            hits.push(Found {
                label: a.clone(),
                mans,
                mdhs,
                archive: Some(a),
            });
        }
    }
    let listed = names.join(", ");
    match hits.len() {
        1 => Ok(hits.remove(0)),
        0 => Err(Error::other(
            input,
            format!(
                "found nothing it came from: no MAN named like its animations ({listed}) with its MDH in {}, a folder in it or a .VDF archive there. Pass --into THE.MAN -o OUT.MAN or --into FOLDER (or, for a new animation, --new NAME --mdh MODEL.MDH -o OUT.MAN)",
                base.display()
            ),
        )),
        _ => Err(Error::other(
            input,
            format!(
                "its animations ({listed}) name MANs in several folders or archives ({}): pass --into FOLDER",
                hits.iter()
                    .map(|h| h.label.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// For `verify`: each animation of the file imported (in memory) into the MAN it came from:
/// unchanged or the samples it changes. No MAN found is an error.
pub(super) fn compare(
    input: &Path,
    doc: &Document,
) -> Result<Vec<super::json::GltfAnimationCheck>, Error> {
    use super::json::GltfAnimationCheck;
    let names: Vec<String> = doc
        .root
        .animations
        .iter()
        .filter_map(|a| a.name.clone())
        .collect();
    let base = folder_of(input);
    let Found { mans, mdhs, .. } =
        match Origin::of(doc).and_then(|o| recorded(&base, &o).transpose()) {
            Some(found) => found?,
            None => by_names(input, &base, &names)?,
        };
    let mut out = Vec::new();
    for (i, name) in doc.root.animations.iter().enumerate() {
        let name = name.name.clone().unwrap_or_default();
        let missing = |man: Option<String>, text: String| GltfAnimationCheck {
            name: name.clone(),
            man,
            unchanged: false,
            changed_samples: 0,
            frames: 0,
            frames_before: 0,
            text,
        };
        let Some((path, bytes, man, _)) = mans.iter().find(|m| m.3 == name) else {
            out.push(missing(None, format!("{name}: no MAN of that name found")));
            continue;
        };
        let sum = man.samples().map(|s| s.checksum.0);
        let Some((mdh_path, mdh)) = mdhs.iter().find(|(_, h)| mdh_checksum(h) == sum) else {
            out.push(missing(
                Some(path.display().to_string()),
                format!("{name}: {}: no MDH with its checksum", path.display()),
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
        let unchanged = &b == bytes;
        let text = if unchanged {
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
        };
        out.push(GltfAnimationCheck {
            name: name.clone(),
            man: Some(path.display().to_string()),
            unchanged,
            changed_samples: report.changed_samples as u64,
            frames: report.frames as u64,
            frames_before: report.frames_before as u64,
            text,
        });
    }
    Ok(out)
}
