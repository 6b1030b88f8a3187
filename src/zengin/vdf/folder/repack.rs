//! `repack`: an unpacked folder back into an archive (edited YAML re-encoded, edited files taken
//! as they are, added and removed files reflected in the catalog).

use super::{
    decode_err, encode_err, path_text, rebuild_catalog, rel_to_names, ManifestDocument, MANIFEST,
    MANIFEST_TAG, MANIFEST_VERSION, STREAMS,
};
use crate::codec::Formats;
use crate::exact::{EncodeError, Error, ImportError};
use crate::zengin::vdf::yaml::{EntryDoc, PieceKindDoc};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{
    safe_relative_path, write_archive, Entry, Header, PieceKind, Produced, Tree, Vdf,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where a repacked piece's contents come from.
pub(super) enum Origin {
    Catalog,
    Gap(Vec<u8>),
    /// A member the manifest knows.
    Member {
        /// The binary file, when the folder has it.
        bin: Option<PathBuf>,
        /// The asset's YAML file: (path, folder key, CRC-32 as unpacked). Re-encoded from
        /// when its CRC changed, or when there is no binary. A YAML the manifest does not
        /// know (exported after an unpack without YAML) has no CRC: it is an edit when it
        /// encodes to other bytes than the binary's.
        yaml: Option<(PathBuf, String, Option<u32>)>,
        /// CRC-32 of the contents as unpacked.
        crc32: Option<u32>,
        stream: Option<PathBuf>,
    },
    /// A file the manifest does not know.
    New {
        path: PathBuf,
        from_yaml: bool,
    },
}

#[derive(Debug, Default)]
pub struct RepackReport {
    pub files: usize,
    pub from_yaml: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub warnings: Vec<String>,
}

/// A member taken as it is from its file: opened here, copied by the archive writer.
pub(super) fn file_piece(p: &Path) -> Result<Produced<'static>, EncodeError> {
    let err = |e: std::io::Error| EncodeError::new(format!("{}: {e}", p.display()));
    let f = std::fs::File::open(p).map_err(err)?;
    let len = f.metadata().map_err(err)?.len();
    let size = u32::try_from(len)
        .map_err(|_| EncodeError::new(format!("{}: file larger than 4 GiB", p.display())))?;
    Ok(Produced {
        bytes: Cow::Borrowed(&[]),
        size: Some(size),
        file: Some((f, len)),
    })
}

pub(super) fn read_file_enc(p: &Path) -> Result<Vec<u8>, EncodeError> {
    std::fs::read(p).map_err(|e| EncodeError::new(format!("{}: {e}", p.display())))
}

/// Encode an animkit YAML document to its binary.
pub(super) fn encode_yaml(formats: Formats, p: &Path) -> Result<Vec<u8>, EncodeError> {
    encode_yaml_text(formats, p, read_file_enc(p)?)
}

/// Encode the animkit YAML document `bytes` (read from `p`) to its binary.
pub(super) fn encode_yaml_text(
    formats: Formats,
    p: &Path,
    bytes: Vec<u8>,
) -> Result<Vec<u8>, EncodeError> {
    let text = crate::yaml::decode_text(&bytes)
        .map_err(|e| EncodeError::new(format!("{}: {e}", p.display())))?;
    let tag = crate::yaml::document_tag(&text)
        .ok_or_else(|| EncodeError::new(format!("{}: no `format:` line", p.display())))?;
    let f = formats
        .by_tag_or_message(tag)
        .map_err(|m| EncodeError::new(format!("{}: {m}", p.display())))?;
    let asset = f
        .read_yaml(&text, &Default::default())
        .map_err(|e| match e {
            ImportError::Yaml(y) => EncodeError::new(y.in_file(p)),
            e => EncodeError::new(format!("{}: {e}", p.display())),
        })?;
    asset
        .encode()
        .map_err(|e| EncodeError::new(format!("{}: cannot encode: {e}", p.display())))
}

pub(super) fn is_animkit_yaml(formats: Formats, p: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(p) else {
        return false;
    };
    crate::yaml::document_tag(&text).is_some_and(|t| formats.by_tag(t).is_some())
}

/// Repack an unpacked folder into `output`; YAML documents of a format in `formats` are
/// encoded.
pub fn repack(
    dir: &Path,
    output: &Path,
    force: bool,
    formats: Formats,
    on_piece: &(dyn Fn() + Sync),
) -> Result<RepackReport, Error> {
    let mut report = RepackReport::default();
    let mut plan = read_manifest(dir)?;
    let folder = Folder::scan(dir, output, &mut report)?;
    let known = plan.layout(dir, &folder, formats, &mut report)?;
    let keep_empty = plan.empty_directories(&folder, &mut report);
    let added = new_files(&folder, &known, formats, &mut report)?;
    if !added.is_empty() || !plan.removed.is_empty() {
        plan.rebuild(added, &keep_empty, &mut report)?;
    }
    report.files = plan
        .kinds
        .iter()
        .filter(|k| matches!(k, PieceKind::File { .. }))
        .count();
    let edited_yaml: Mutex<Vec<(usize, String)>> = Default::default();
    let produce = |i| produce(&plan.kinds[i], &plan.origins[i], i, formats, &edited_yaml);
    let before: Vec<u32> = plan.entries.iter().map(|e| e.offset).collect();
    crate::fsio::write_streaming(output, force, |w| {
        write_archive(
            w,
            &mut plan.header,
            &mut plan.entries,
            &plan.kinds,
            plan.sum_was_data_size,
            &produce,
            on_piece,
        )
        .map_err(encode_err(output))
    })?;
    let mut edited = edited_yaml.into_inner().unwrap_or_default();
    edited.sort();
    report.from_yaml.extend(edited.into_iter().map(|(_, k)| k));
    plan.warn_unplaced(&before, &mut report);
    Ok(report)
}

/// The archive being rebuilt: header, catalog and layout (each piece with where its contents
/// come from).
struct Plan {
    mpath: PathBuf,
    doc: ManifestDocument,
    header: Header,
    entries: Vec<Entry>,
    kinds: Vec<PieceKind>,
    origins: Vec<Origin>,
    /// Catalog entries whose file or folder is gone.
    removed: HashSet<usize>,
    sum_was_data_size: bool,
    counts_were_consistent: bool,
}

/// The manifest of the folder, checked.
fn read_manifest(dir: &Path) -> Result<Plan, Error> {
    let mpath = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&mpath).map_err(|e| Error::io(&mpath, e))?;
    let doc: ManifestDocument = crate::yaml::from_str(&text).map_err(|e| Error::Yaml {
        file: mpath.clone(),
        source: e,
    })?;
    crate::codec::check_document_header(&doc.format, doc.version, MANIFEST_TAG, MANIFEST_VERSION)
        .map_err(|m| Error::other(&mpath, m))?;
    let header = doc.header.to_header().map_err(encode_err(&mpath))?;
    let entries: Vec<Entry> = doc
        .catalog
        .iter()
        .map(EntryDoc::to_entry)
        .collect::<Result<_, _>>()
        .map_err(encode_err(&mpath))?;
    if header.entry_count as usize != entries.len() {
        return Err(Error::other(
            &mpath,
            "header.entry_count does not match the catalog",
        ));
    }
    Ok(Plan {
        sum_was_data_size: u64::from(header.data_size) == Vdf::sum_of_sizes(&entries),
        counts_were_consistent: header.file_count as usize
            == entries.iter().filter(|e| !e.is_dir()).count(),
        kinds: Vec::with_capacity(doc.layout.len()),
        origins: Vec::with_capacity(doc.layout.len()),
        removed: HashSet::new(),
        mpath,
        doc,
        header,
        entries,
    })
}

/// What is in the folder (without the manifest and the streams), by `/`-separated key.
struct Folder {
    files: BTreeMap<String, PathBuf>,
    dirs: BTreeMap<String, PathBuf>,
}

impl Folder {
    /// Every file and folder below `dir`, without `output` (the archive being written is
    /// never one of its own members) and animkit's own temporary files and staging folders
    /// (left by an interrupted run: a warning each). A symbolic link or junction is an error:
    /// repack reads only what lies in the folder.
    fn scan(dir: &Path, output: &Path, report: &mut RepackReport) -> Result<Folder, Error> {
        let mut folder = Folder {
            files: BTreeMap::new(),
            dirs: BTreeMap::new(),
        };
        let mut walk = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter();
        while let Some(e) = walk.next() {
            let e = e.map_err(|err| Error::other(dir, err.to_string()))?;
            if e.depth() > 0 && crate::fsio::is_own_temp(e.file_name()) {
                report
                    .warnings
                    .push(crate::fsio::own_temp_warning(e.path()));
                if e.file_type().is_dir() {
                    walk.skip_current_dir();
                }
                continue;
            }
            if e.depth() > 0 && e.path_is_symlink() {
                return Err(Error::other(
                    e.path(),
                    "is a symbolic link or junction inside the folder; repack does not follow links (put the file or folder itself there)",
                ));
            }
            if e.file_type().is_file() && crate::fsio::same_file(e.path(), output) {
                continue;
            }
            let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
            let key = path_text(rel);
            if e.file_type().is_dir() && e.depth() > 0 && key != STREAMS {
                folder.dirs.insert(key, e.path().to_path_buf());
                continue;
            }
            if !e.file_type().is_file() {
                continue;
            }
            if key == MANIFEST || key.starts_with(&format!("{STREAMS}/")) {
                continue;
            }
            folder.files.insert(key, e.path().to_path_buf());
        }
        Ok(folder)
    }
}

impl Plan {
    /// The manifest's layout against the folder: where each piece comes from, which members
    /// are gone. Returns the folder keys the manifest accounts for.
    fn layout(
        &mut self,
        dir: &Path,
        folder: &Folder,
        formats: Formats,
        report: &mut RepackReport,
    ) -> Result<HashSet<String>, Error> {
        let mut known: HashSet<String> = HashSet::new();
        for (k, p) in self.doc.layout.iter().enumerate() {
            match p.kind {
                PieceKindDoc::Catalog => {
                    self.kinds.push(PieceKind::Catalog);
                    self.origins.push(Origin::Catalog);
                }
                PieceKindDoc::Gap => {
                    self.kinds.push(PieceKind::Gap);
                    self.origins
                        .push(Origin::Gap(p.data.clone().map(|b| b.0).unwrap_or_default()));
                }
                PieceKindDoc::File => {
                    let bad = |m: &str| Error::other(&self.mpath, format!("layout[{k}]: {m}"));
                    let entry = p.entry.ok_or_else(|| bad("no entry"))?;
                    if self.entries.get(entry).is_none_or(Entry::is_dir) {
                        return Err(bad("entry is not a file of the catalog"));
                    }
                    let file = p.file.clone().ok_or_else(|| bad("no file"))?;
                    // The manifest may have been edited: its paths must stay inside the folder.
                    let inside = |path: &str, what: &str| {
                        let bytes = crate::exact::text::encode_cp1252(path)
                            .map_err(|c| bad(&format!("{c:?} in the {what} path")))?;
                        safe_relative_path(&bytes).map_err(|e| bad(&e))
                    };
                    inside(&file, "file")?;
                    let ykey = format!("{file}.yaml");
                    known.insert(file.clone());
                    // A YAML the manifest does not know, beside a member it does: exported
                    // later (after `unpack --no-yaml`) to edit that member.
                    let late_yaml = p.yaml.is_none()
                        && folder
                            .files
                            .get(&ykey)
                            .is_some_and(|y| is_animkit_yaml(formats, y));
                    if late_yaml || p.yaml.is_some() {
                        known.insert(ykey.clone());
                    }
                    let yaml_here =
                        (p.yaml.is_some() && folder.files.contains_key(&ykey)) || late_yaml;
                    let bin_here = if file.starts_with(&format!("{STREAMS}/")) {
                        dir.join(&file).is_file()
                    } else {
                        folder.files.contains_key(&file)
                    };
                    if !bin_here && !yaml_here {
                        report.removed.push(file.clone());
                        self.removed.insert(entry);
                        continue;
                    }
                    // Whether the YAML was edited is decided by its content hash when the
                    // piece is produced (on all cores); without a binary the YAML is the only
                    // source.
                    if !bin_here {
                        report.from_yaml.push(ykey.clone());
                    }
                    let stream = match &p.stream {
                        Some(s) => {
                            inside(s, "stream")?;
                            Some(dir.join(s))
                        }
                        None => None,
                    };
                    self.kinds.push(PieceKind::File {
                        entry,
                        zipped: p.stream.is_some(),
                    });
                    self.origins.push(Origin::Member {
                        bin: bin_here.then(|| dir.join(&file)),
                        yaml: yaml_here
                            .then(|| (dir.join(&ykey), ykey.clone(), p.yaml.map(|c| c.0))),
                        crc32: p.crc32.map(|c| c.0),
                        stream,
                    });
                }
            }
        }
        Ok(known)
    }

    /// Empty directories (a directory entry whose first child lies outside the catalog: the
    /// only way the catalog can hold one) stay while their folder does; a new empty folder
    /// cannot be added (see `vdf pack`). Returns the entries to keep.
    fn empty_directories(&mut self, folder: &Folder, report: &mut RepackReport) -> HashSet<usize> {
        let mut keep_empty = HashSet::new();
        let mut catalog_dirs = HashSet::new();
        if let Ok(tree) = Tree::build(&self.entries, self.header.catalog_start()) {
            for (i, e) in self.entries.iter().enumerate() {
                let (true, Some(p)) = (e.is_dir(), tree.path_string(i)) else {
                    continue;
                };
                if e.offset as usize >= self.entries.len() {
                    if folder.dirs.contains_key(&p) {
                        keep_empty.insert(i);
                    } else {
                        report.removed.push(format!("{p}/"));
                        self.removed.insert(i);
                    }
                }
                catalog_dirs.insert(p);
            }
        }
        for key in folder.dirs.keys() {
            let prefix = format!("{key}/");
            if !catalog_dirs.contains(key) && !folder.files.keys().any(|k| k.starts_with(&prefix)) {
                report.warnings.push(format!(
                    "{key}/: an empty folder is not added (an archive directory that is not in the manifest needs a file)"
                ));
            }
        }
        keep_empty
    }

    /// A new catalog without the removed entries and with the added files, and the layout
    /// following it (new files after the last file's data).
    fn rebuild(
        &mut self,
        added: Vec<Added>,
        keep_empty: &HashSet<usize>,
        report: &mut RepackReport,
    ) -> Result<(), Error> {
        let tree = Tree::build(&self.entries, self.header.catalog_start())
            .map_err(decode_err(&self.mpath))?;
        let names: Vec<&[Vec<u8>]> = added.iter().map(|a| &a.names[..]).collect();
        let (new_entries, remap, new_indices) =
            rebuild_catalog(&self.entries, &tree, &self.removed, keep_empty, &names)
                .map_err(|m| Error::other(&self.mpath, m))?;
        let mut k = 0;
        while k < self.kinds.len() {
            if let PieceKind::File { entry, .. } = &mut self.kinds[k] {
                match remap[*entry] {
                    Some(n) => *entry = n,
                    None => {
                        report.warnings.push(format!(
                            "catalog[{entry}]: no directory reaches it; dropped with the rebuilt catalog"
                        ));
                        self.kinds.remove(k);
                        self.origins.remove(k);
                        continue;
                    }
                }
            }
            k += 1;
        }
        let at = self
            .kinds
            .iter()
            .rposition(|k| matches!(k, PieceKind::File { .. } | PieceKind::Catalog))
            .map_or(self.kinds.len(), |p| p + 1);
        for (j, (a, ei)) in added.into_iter().zip(new_indices).enumerate() {
            let name = a.names.last().cloned().unwrap_or_default();
            let zipped = self.header.zipped() && !zipped::stored_raw(&name);
            self.kinds
                .insert(at + j, PieceKind::File { entry: ei, zipped });
            self.origins.insert(
                at + j,
                Origin::New {
                    path: a.path,
                    from_yaml: a.from_yaml,
                },
            );
        }
        if self.counts_were_consistent {
            self.header.file_count = new_entries.iter().filter(|e| !e.is_dir()).count() as u32;
        }
        self.header.entry_count = new_entries.len() as u32;
        self.entries = new_entries;
        Ok(())
    }

    /// After writing: a file entry that owns no data keeps its stored offset, which is wrong
    /// once the data around it moved; say so.
    fn warn_unplaced(&self, before: &[u32], report: &mut RepackReport) {
        let moved = self
            .entries
            .iter()
            .zip(before)
            .any(|(e, b)| !e.is_dir() && e.offset != *b);
        if !moved {
            return;
        }
        let mut placed = vec![false; self.entries.len()];
        for k in &self.kinds {
            if let PieceKind::File { entry, .. } = k {
                placed[*entry] = true;
            }
        }
        for (i, e) in self.entries.iter().enumerate() {
            if !e.is_dir() && !placed[i] {
                report.warnings.push(format!(
                    "catalog[{i}] {}: owns no data and keeps its stored offset {}, but the data around it moved",
                    e.display_name(),
                    e.offset
                ));
            }
        }
    }
}

/// A file the manifest does not know: its archive names, its path, whether it is a YAML
/// document standing for the asset `NAME` (of `NAME.yaml`).
struct Added {
    names: Vec<Vec<u8>>,
    path: PathBuf,
    from_yaml: bool,
}

/// The files of the folder the manifest does not account for.
fn new_files(
    folder: &Folder,
    known: &HashSet<String>,
    formats: Formats,
    report: &mut RepackReport,
) -> Result<Vec<Added>, Error> {
    let mut added = Vec::new();
    for (key, path) in &folder.files {
        if known.contains(key) {
            continue;
        }
        let mut name_key = key.clone();
        let mut from_yaml = false;
        if let Some(stem) = key.strip_suffix(".yaml") {
            if is_animkit_yaml(formats, path) {
                if folder.files.contains_key(stem) || known.contains(stem) {
                    report.warnings.push(format!(
                        "{key}: ignored, the folder also holds {stem} (pack one of them)"
                    ));
                    continue;
                }
                name_key = stem.to_string();
                from_yaml = true;
            }
        }
        let names = rel_to_names(Path::new(&name_key)).map_err(|e| Error::other(path, e))?;
        report.added.push(name_key);
        added.push(Added {
            names,
            path: path.clone(),
            from_yaml,
        });
    }
    Ok(added)
}

/// The contents of layout piece `i` (of kind `kind`, from `origin`), on a worker thread: an
/// unchanged member as it is (a compressed one with its original stream), an edited YAML
/// re-encoded (and noted in `edited_yaml`), a new file read or encoded; compressed again when
/// the archive is and the contents changed.
fn produce(
    kind: &PieceKind,
    origin: &Origin,
    i: usize,
    formats: Formats,
    edited_yaml: &Mutex<Vec<(usize, String)>>,
) -> Result<Produced<'static>, EncodeError> {
    let zipped = matches!(kind, PieceKind::File { zipped: true, .. });
    let (contents, crc, stream) = match origin {
        Origin::Catalog => unreachable!("the writer produces no catalog"),
        Origin::Gap(b) => return Ok(Produced::bytes(Cow::Owned(b.clone()), None)),
        Origin::Member {
            bin,
            yaml,
            crc32,
            stream,
        } => {
            let c = match (edited_yaml_text(yaml, bin.is_some())?, bin) {
                (Some((text, ypath, ykey, late)), bin) => {
                    let encoded = encode_yaml_text(formats, ypath, text)?;
                    let binary = bin.as_deref().map(read_file_enc).transpose()?;
                    // A YAML exported after unpacking and not edited stands for the binary.
                    let unedited = late && binary.as_deref() == Some(&encoded[..]);
                    if !unedited {
                        if let (Some(b), Some(bytes), Some(c)) = (bin, &binary, crc32) {
                            if crc32fast::hash(bytes) != *c {
                                return Err(EncodeError::new(format!(
                                    "{}: both this file and {ykey} were edited; keep only one of the edits",
                                    b.display()
                                )));
                            }
                        }
                        if bin.is_some() {
                            edited_yaml
                                .lock()
                                .map_err(|_| EncodeError::new("internal: lock"))?
                                .push((i, ykey.clone()));
                        }
                    }
                    encoded
                }
                (None, Some(b)) if !zipped => return file_piece(b),
                (None, Some(b)) => read_file_enc(b)?,
                (None, None) => {
                    return Err(EncodeError::new("internal: a member without a source"))
                }
            };
            (c, *crc32, stream.as_ref())
        }
        Origin::New { path, from_yaml } => {
            if !*from_yaml && !zipped {
                return file_piece(path);
            }
            let c = if *from_yaml {
                encode_yaml(formats, path)?
            } else {
                read_file_enc(path)?
            };
            (c, None, None)
        }
    };
    let size = Some(
        u32::try_from(contents.len()).map_err(|_| EncodeError::new("file larger than 4 GiB"))?,
    );
    if !zipped {
        return Ok(Produced::bytes(Cow::Owned(contents), size));
    }
    let unchanged = crc.is_some_and(|c| c == crc32fast::hash(&contents));
    let old = match stream {
        Some(s) => Some(read_file_enc(s)?),
        None => None,
    };
    if unchanged {
        if let Some(old) = old {
            return Ok(Produced::bytes(Cow::Owned(old), None));
        }
    }
    if contents.is_empty() {
        return Ok(Produced::bytes(Cow::Owned(contents), size));
    }
    let bs = old
        .as_deref()
        .and_then(zipped::probe)
        .map_or(zipped::DEFAULT_BLOCK_SIZE, |s| s.block_size);
    let z = zipped::compress(&contents, bs, 6).map_err(EncodeError::new)?;
    Ok(Produced::bytes(Cow::Owned(z), size))
}

/// A member's YAML when it is the edit to take: (text, path, key, known to the manifest?).
/// An unchanged YAML keeps the binary's bytes verbatim; an edited one (any change of content,
/// whatever its size and time), or one without a binary beside it, is re-encoded.
#[allow(clippy::type_complexity)]
fn edited_yaml_text(
    yaml: &Option<(PathBuf, String, Option<u32>)>,
    has_binary: bool,
) -> Result<Option<(Vec<u8>, &PathBuf, &String, bool)>, EncodeError> {
    let Some((ypath, ykey, recorded)) = yaml else {
        return Ok(None);
    };
    let text = read_file_enc(ypath)?;
    Ok(
        (!has_binary || recorded.is_none_or(|r| crc32fast::hash(&text) != r)).then_some((
            text,
            ypath,
            ykey,
            recorded.is_none(),
        )),
    )
}
