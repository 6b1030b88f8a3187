//! What the glTF commands share below them: reading the files (MDH, MAN, glTF document, a
//! folder or archive's members) and writing an imported glTF's animations into MAN files
//! (`gltf import --into`, the way back in one step, `info`/`diff` of glTF files). The commands
//! (`gltf.rs`, `gltf_back.rs`, `gltf_new.rs`, `gltf_info.rs`) stand on it.

use crate::exact::Error;
use crate::registry::{self, Codec};
use crate::zengin::gltf::{self, import, Document, Skeleton};
use crate::zengin::man::Man;
use crate::zengin::mdh::Mdh;
use std::path::{Path, PathBuf};

/// A MAN or MDH found in an archive or folder.
pub(super) use crate::zengin::gltf::model::{ext_is, Member as Found};

/// Every .MAN and .MDH member of an archive, or file of a folder (recursively).
pub(super) fn collect(source: &Path) -> Result<Vec<Found>, Error> {
    let mut out = Vec::new();
    each_member(
        source,
        |_| true,
        |name, bytes| {
            out.push(Found {
                name: name.to_string(),
                bytes: bytes.to_vec(),
            });
            Ok(())
        },
    )?;
    Ok(out)
}

/// Each .MAN and .MDH member of an archive, or file of a folder (recursively), whose name
/// `wanted` takes, handed to `visit` one at a time (see [`Source::each`]), for a command that
/// walks `source` once.
pub(super) fn each_member(
    source: &Path,
    wanted: impl Fn(&str) -> bool,
    visit: impl FnMut(&str, &[u8]) -> Result<(), Error>,
) -> Result<(), Error> {
    let map = std::sync::OnceLock::new();
    let walked = Source::new(source, &map).each(wanted, visit);
    walked
}

/// A folder, or an archive opened once for every walk of a command (`gltf export --model`
/// walks a model's archive three or four times: its MDH, its MANs twice, its mesh): the
/// archive is mapped, parsed and its members listed and sorted at the first walk, not at
/// each. The map lives in the caller's cell (`map`), which the opened archive borrows.
pub(super) struct Source<'d> {
    pub path: &'d Path,
    map: &'d std::sync::OnceLock<crate::fsio::Mapped>,
    opened: std::sync::OnceLock<Opened<'d>>,
}

/// An archive's container view and its members in the order of a folder walk.
struct Opened<'d> {
    data: &'d crate::fsio::Mapped,
    archive: Box<dyn crate::codec::Archive + 'd>,
    members: crate::codec::Members,
}

impl<'d> Source<'d> {
    /// `path` (nothing is read until the first walk).
    pub(super) fn new(path: &'d Path, map: &'d std::sync::OnceLock<crate::fsio::Mapped>) -> Self {
        Source {
            path,
            map,
            opened: std::sync::OnceLock::new(),
        }
    }

    /// The archive, opened at the first call (errors are not kept: a later call tries again).
    fn archive(&self) -> Result<&Opened<'d>, Error> {
        if let Some(o) = self.opened.get() {
            return Ok(o);
        }
        let source = self.path;
        if self.map.get().is_none() {
            let _ = self.map.set(crate::fsio::map_file(source)?);
        }
        let Some(data) = self.map.get() else {
            return Err(Error::other(source, "the archive could not be mapped"));
        };
        // An archive of any container format, through its registered container.
        let Some(container) = registry::detect(data).and_then(|f| f.container()) else {
            return Err(Error::other(
                source,
                "--model needs an archive (such as a .VDF) or a folder made by `animkit unpack`",
            ));
        };
        let archive = container.open(data).map_err(Error::decoding(source))?;
        let mut members = archive.members().map_err(Error::decoding(source))?;
        members.sort_by_path(&*archive);
        Ok(self.opened.get_or_init(|| Opened {
            data,
            archive,
            members,
        }))
    }

    /// Each .MAN and .MDH member of the archive, or file of the folder (recursively), whose
    /// name `wanted` takes, handed to `visit` one at a time (borrowed from the mapped archive,
    /// or read for the call), in the order of a folder walk (so an archive and its unpacked
    /// folder agree): nothing is held but what `visit` keeps.
    pub(super) fn each(
        &self,
        wanted: impl Fn(&str) -> bool,
        mut visit: impl FnMut(&str, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let source = self.path;
        let ours = |name: &str| (ext_is(name, "man") || ext_is(name, "mdh")) && wanted(name);
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
                if ours(&name) {
                    visit(&name, &crate::fsio::read_file(e.path())?)?;
                }
            }
            return Ok(());
        }
        self.each_archive_member(ours, |name, bytes| visit(name, bytes))
    }

    /// Each member of the archive (any name `wanted` takes), as [`Source::each`] hands them.
    pub(super) fn each_archive_member(
        &self,
        wanted: impl Fn(&str) -> bool,
        mut visit: impl FnMut(&str, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let source = self.path;
        let Opened {
            data,
            archive,
            members,
        } = self.archive()?;
        // This process's pages of the archive are given back as it goes, so the resident set
        // stays the size of what is kept, not of the archive: each member's own pages after
        // it, and every page of the map after each RELEASE_ALL bytes of members read.
        // (Released member by member only, the pages two small members share and the
        // neighbours the kernel maps around each fault stayed: 105 MB of a 258 MB archive,
        // 221 MB of 518 MB.)
        const RELEASE_ALL: usize = 8 << 20;
        let mut since = 0;
        for id in members.iter() {
            let name = &archive.name(id)[..];
            if wanted(name) {
                let bytes = archive
                    .read(id)
                    .map_err(|why| Error::other(source, format!("{name}: {why}")))?;
                visit(name, &bytes)?;
                drop(bytes);
                let stored = archive.stored(id);
                since += stored.len();
                if since >= RELEASE_ALL {
                    data.release(data);
                    since = 0;
                } else {
                    data.release(stored);
                }
            }
        }
        Ok(())
    }
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

pub(super) fn man_checksum(man: &Man) -> Option<u32> {
    man.samples().map(|s| s.checksum.0)
}

/// The .MDH files in `dir` (not recursive) whose checksum is `checksum`.
pub(super) fn mdh_files_with(dir: &Path, checksum: u32) -> Vec<PathBuf> {
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

pub(super) fn skeleton(path: &Path, mdh: &Mdh) -> Result<Skeleton, Error> {
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

pub(super) fn read_document(path: &Path) -> Result<Document, Error> {
    let data = crate::fsio::map_file(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    Document::read(&data, Some(dir.unwrap_or(Path::new("."))))
        .map_err(|e| Error::other(path, e.to_string()))
}

pub(super) fn summary(r: &import::ImportReport) -> String {
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

/// Animation `animation` (or the one named like the MAN) of `doc` imported into the MAN
/// `into` (its MDH: `mdh`, or the one beside it with its checksum): the original, the result,
/// the report and the MDH.
pub(super) fn import_one(
    input: &Path,
    doc: &Document,
    into: &Path,
    mdh: Option<&Path>,
    animation: Option<&str>,
    opts: &import::ImportOptions,
) -> Result<(Man, Man, import::ImportReport, Mdh), Error> {
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
    Ok((man, out, report, mdh))
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
    let writes = plan_mans(input, doc, opts, animation, into, mans, mdhs, mdh_given)?;
    write_mans(writes, backup)
}

/// A MAN to replace: its path, new bytes, a stale YAML beside it to remove, and the summary.
pub(super) struct ManWrite {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub stale: Option<PathBuf>,
    pub what: String,
}

/// What [`update_mans`] would write (only the MANs whose bytes change), nothing written.
#[allow(clippy::too_many_arguments)]
pub(super) fn plan_mans(
    input: &Path,
    doc: &Document,
    opts: &import::ImportOptions,
    animation: Option<&str>,
    into: &Path,
    mans: &[ManFile],
    mdhs: &[(PathBuf, Mdh)],
    mdh_given: bool,
) -> Result<Vec<ManWrite>, Error> {
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
    let mut writes: Vec<ManWrite> = Vec::new();
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
                crate::convert::warn(
                    path,
                    format_args!(
                        "named {aname:?}, but no MDH {} has its checksum 0x{sum:08x}; skipped",
                        if mdh_given { "given" } else { "in the folder" }
                    ),
                );
                continue;
            };
            let sk = skeleton(mdh_path, mdh)?;
            let (out, report) = gltf::import_animation(doc, *ai, &sk, man, opts)
                .map_err(|e| Error::other(input, e.to_string()))?;
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
                            input.display(),
                            path.display()
                        ),
                    ));
                }
                Some(yaml)
            } else {
                None
            };
            writes.push(ManWrite {
                path: path.clone(),
                bytes: new,
                stale,
                what: summary(&report),
            });
        }
        if !any {
            crate::convert::warn_plain(format_args!(
                "animation {aname:?}: no MAN of that name (with its MDH) in {}; skipped",
                into.display()
            ));
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
    Ok(writes)
}

/// Write what [`plan_mans`] planned (with `backup` each replaced MAN kept once as `.bak`).
pub(super) fn write_mans(writes: Vec<ManWrite>, backup: bool) -> Result<Vec<String>, Error> {
    let mut done = Vec::new();
    for ManWrite {
        path,
        bytes,
        stale,
        what,
    } in writes
    {
        let bak = if backup { keep_once(&path)? } else { None };
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

/// Keep `path` once as `path.bak` (an earlier `.bak` is never replaced).
pub(super) fn keep_once(path: &Path) -> Result<Option<PathBuf>, Error> {
    let mut os = path.as_os_str().to_owned();
    os.push(".bak");
    let bak = PathBuf::from(os);
    if bak.exists() {
        return Ok(None);
    }
    let data = crate::fsio::read_file(path)?;
    crate::fsio::write_new(&bak, &data)?;
    Ok(Some(bak))
}

/// A model's MDH and MANs (with their labels).
pub(super) type Model = (PathBuf, Mdh, Vec<(PathBuf, Man)>);

/// The error of a model without MANs in `source`.
pub(super) fn no_model_man(source: &Path, label: &Path, mdh: &Mdh) -> Error {
    Error::other(
        source,
        gltf::model::no_man_message(&label.display().to_string(), mdh_checksum(mdh)),
    )
}

/// `--model` (or `--mdh`) in an archive or folder: the MDH's label and the MDH (the MDH
/// members are read in a walk of their own; they are small).
pub(super) fn model_mdh(
    mdh: Option<&Path>,
    model: Option<&str>,
    src: &Source<'_>,
) -> Result<(PathBuf, Mdh), Error> {
    let source = src.path;
    Ok(match mdh {
        Some(p) => (p.to_path_buf(), read_mdh(p)?),
        None => {
            let mut mdhs = Vec::new();
            src.each(
                |n| ext_is(n, "mdh"),
                |name, bytes| {
                    mdhs.push(Found {
                        name: name.to_string(),
                        bytes: bytes.to_vec(),
                    });
                    Ok(())
                },
            )?;
            let hit = gltf::model::find_mdh(&mdhs, model).map_err(|m| Error::other(source, m))?;
            let label = source.join(&hit.name);
            let mdh = decode_mdh(&label, &hit.bytes)?;
            (label, mdh)
        }
    })
}

/// Each MAN of an archive or folder whose checksum is `want` (a model's), decoded and handed
/// to `visit` with its label (`source/member`) one at a time, in member order: only the MAN
/// in hand is held (a whole game's archive is not). A member that does not read is skipped,
/// with a warning when `warn`. Returns how many were handed over.
pub(super) fn each_model_man(
    src: &Source<'_>,
    want: Option<u32>,
    warn: bool,
    mut visit: impl FnMut(PathBuf, Man) -> Result<(), Error>,
) -> Result<usize, Error> {
    let source = src.path;
    let mut n = 0;
    src.each(
        |n| ext_is(n, "man"),
        |name, bytes| match gltf::model::man_of(bytes, want) {
            Err(()) => {
                if warn {
                    crate::convert::warn(Path::new(name), "not a readable MAN; skipped");
                }
                Ok(())
            }
            Ok(Some(man)) => {
                n += 1;
                visit(source.join(name), man)
            }
            Ok(None) => Ok(()),
        },
    )?;
    Ok(n)
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
