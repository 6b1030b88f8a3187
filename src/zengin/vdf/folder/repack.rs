//! `repack`: an unpacked folder back into an archive (edited YAML re-encoded, edited files taken
//! as they are, added and removed files reflected in the catalog).

use super::{
    decode_err, encode_err, path_text, rebuild_catalog, rel_to_names, ManifestDocument, MANIFEST,
    MANIFEST_TAG, MANIFEST_VERSION, STREAMS,
};
use crate::codec::Formats;
use crate::exact::{EncodeError, Error};
use crate::zengin::vdf::yaml::{EntryDoc, PieceKindDoc};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{
    safe_relative_path, write_archive, Entry, PieceKind, Produced, Tree, Vdf,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

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
    let text = String::from_utf8(bytes)
        .map_err(|e| EncodeError::new(format!("{}: not UTF-8 text: {e}", p.display())))?;
    let tag = crate::yaml::document_tag(&text)
        .ok_or_else(|| EncodeError::new(format!("{}: no `format:` line", p.display())))?;
    let f = formats.by_tag(tag).ok_or_else(|| {
        EncodeError::new(format!("{}: unknown document format `{tag}`", p.display()))
    })?;
    let asset = f
        .read_yaml(&text, &Default::default())
        .map_err(|e| EncodeError::new(format!("{}: {e}", p.display())))?;
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
    let mpath = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&mpath).map_err(|e| Error::io(&mpath, e))?;
    let doc: ManifestDocument = crate::yaml::from_str(&text).map_err(|e| Error::Yaml {
        file: mpath.clone(),
        source: e,
    })?;
    crate::codec::check_document_header(&doc.format, doc.version, MANIFEST_TAG, MANIFEST_VERSION)
        .map_err(|m| Error::other(&mpath, m))?;
    let enc = encode_err(&mpath);
    let mut header = doc.header.to_header().map_err(&enc)?;
    let mut entries: Vec<Entry> = doc
        .catalog
        .iter()
        .map(EntryDoc::to_entry)
        .collect::<Result<_, _>>()
        .map_err(&enc)?;
    if header.entry_count as usize != entries.len() {
        return Err(Error::other(
            &mpath,
            "header.entry_count does not match the catalog",
        ));
    }
    let mut report = RepackReport::default();
    let sum_was_data_size = u64::from(header.data_size) == Vdf::sum_of_sizes(&entries);
    let counts_were_consistent =
        header.file_count as usize == entries.iter().filter(|e| !e.is_dir()).count();

    // What is in the folder.
    let mut on_disk: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut disk_dirs: BTreeMap<String, PathBuf> = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.map_err(|err| Error::other(dir, err.to_string()))?;
        let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
        let key = path_text(rel);
        if e.file_type().is_dir() && e.depth() > 0 && key != STREAMS {
            disk_dirs.insert(key, e.path().to_path_buf());
            continue;
        }
        if !e.file_type().is_file() {
            continue;
        }
        if key == MANIFEST || key.starts_with(&format!("{STREAMS}/")) {
            continue;
        }
        on_disk.insert(key, e.path().to_path_buf());
    }
    let mut known: HashSet<String> = HashSet::new();
    let mut kinds = Vec::with_capacity(doc.layout.len());
    let mut origins = Vec::with_capacity(doc.layout.len());
    let mut removed_entries = HashSet::new();
    for (k, p) in doc.layout.iter().enumerate() {
        match p.kind {
            PieceKindDoc::Catalog => {
                kinds.push(PieceKind::Catalog);
                origins.push(Origin::Catalog);
            }
            PieceKindDoc::Gap => {
                kinds.push(PieceKind::Gap);
                origins.push(Origin::Gap(p.data.clone().map(|b| b.0).unwrap_or_default()));
            }
            PieceKindDoc::File => {
                let bad = |m: &str| Error::other(&mpath, format!("layout[{k}]: {m}"));
                let entry = p.entry.ok_or_else(|| bad("no entry"))?;
                if entries.get(entry).is_none_or(Entry::is_dir) {
                    return Err(bad("entry is not a file of the catalog"));
                }
                let file = p.file.clone().ok_or_else(|| bad("no file"))?;
                // The manifest may have been edited: its paths must stay inside the folder.
                let file_bytes = crate::exact::text::encode_cp1252(&file)
                    .map_err(|c| bad(&format!("{c:?} in the file path")))?;
                safe_relative_path(&file_bytes).map_err(|e| bad(&e))?;
                let ykey = format!("{file}.yaml");
                known.insert(file.clone());
                // A YAML the manifest does not know, beside a member it does: exported later
                // (after `unpack --no-yaml`) to edit that member.
                let late_yaml = p.yaml.is_none()
                    && on_disk
                        .get(&ykey)
                        .is_some_and(|y| is_animkit_yaml(formats, y));
                if late_yaml {
                    known.insert(ykey.clone());
                }
                let yaml_here = (p.yaml.is_some() && on_disk.contains_key(&ykey)) || late_yaml;
                if p.yaml.is_some() {
                    known.insert(ykey.clone());
                }
                let bin_here = if file.starts_with(&format!("{STREAMS}/")) {
                    dir.join(&file).is_file()
                } else {
                    on_disk.contains_key(&file)
                };
                if !bin_here && !yaml_here {
                    report.removed.push(file.clone());
                    removed_entries.insert(entry);
                    continue;
                }
                // Whether the YAML was edited is decided by its content hash when the piece
                // is produced (on all cores); without a binary the YAML is the only source.
                if !bin_here {
                    report.from_yaml.push(ykey.clone());
                }
                let zipped = p.stream.is_some();
                let stream = match &p.stream {
                    Some(s) => {
                        let sb = crate::exact::text::encode_cp1252(s)
                            .map_err(|c| bad(&format!("{c:?} in the stream path")))?;
                        safe_relative_path(&sb).map_err(|e| bad(&e))?;
                        Some(dir.join(s))
                    }
                    None => None,
                };
                kinds.push(PieceKind::File { entry, zipped });
                origins.push(Origin::Member {
                    bin: bin_here.then(|| dir.join(&file)),
                    yaml: yaml_here.then(|| (dir.join(&ykey), ykey.clone(), p.yaml.map(|c| c.0))),
                    crc32: p.crc32.map(|c| c.0),
                    stream,
                });
            }
        }
    }
    // Empty directories (a directory entry whose first child lies outside the catalog: the
    // only way the catalog can hold one) stay while their folder does; a new empty folder
    // cannot be added (see `vdf pack`).
    let mut keep_empty = HashSet::new();
    let mut catalog_dirs = HashSet::new();
    if let Ok(tree) = Tree::build(&entries, header.catalog_start()) {
        for (i, e) in entries.iter().enumerate() {
            let (true, Some(p)) = (e.is_dir(), tree.path_string(i)) else {
                continue;
            };
            if e.offset as usize >= entries.len() {
                if disk_dirs.contains_key(&p) {
                    keep_empty.insert(i);
                } else {
                    report.removed.push(format!("{p}/"));
                    removed_entries.insert(i);
                }
            }
            catalog_dirs.insert(p);
        }
    }
    for key in disk_dirs.keys() {
        let prefix = format!("{key}/");
        if !catalog_dirs.contains(key) && !on_disk.keys().any(|k| k.starts_with(&prefix)) {
            report.warnings.push(format!(
                "{key}/: an empty folder is not added (an archive directory that is not in the manifest needs a file)"
            ));
        }
    }
    // New files.
    let mut added: Vec<(Vec<Vec<u8>>, PathBuf, bool)> = Vec::new();
    for (key, path) in &on_disk {
        if known.contains(key) {
            continue;
        }
        let mut name_key = key.clone();
        let mut from_yaml = false;
        if let Some(stem) = key.strip_suffix(".yaml") {
            if is_animkit_yaml(formats, path) {
                if on_disk.contains_key(stem) || known.contains(stem) {
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
        added.push((names, path.clone(), from_yaml));
    }

    if !added.is_empty() || !removed_entries.is_empty() {
        let tree = Tree::build(&entries, header.catalog_start()).map_err(decode_err(&mpath))?;
        let (new_entries, remap, new_indices) =
            rebuild_catalog(&entries, &tree, &removed_entries, &keep_empty, &added)
                .map_err(|m| Error::other(&mpath, m))?;
        let mut k = 0;
        while k < kinds.len() {
            if let PieceKind::File { entry, .. } = &mut kinds[k] {
                match remap[*entry] {
                    Some(n) => *entry = n,
                    None => {
                        report.warnings.push(format!(
                            "catalog[{entry}]: no directory reaches it; dropped with the rebuilt catalog"
                        ));
                        kinds.remove(k);
                        origins.remove(k);
                        continue;
                    }
                }
            }
            k += 1;
        }
        // New files go after the last file's data.
        let at = kinds
            .iter()
            .rposition(|k| matches!(k, PieceKind::File { .. } | PieceKind::Catalog))
            .map_or(kinds.len(), |p| p + 1);
        for (j, ((names, path, from_yaml), ei)) in added.into_iter().zip(new_indices).enumerate() {
            let name = names.last().cloned().unwrap_or_default();
            let zipped = header.zipped() && !zipped::stored_raw(&name);
            kinds.insert(at + j, PieceKind::File { entry: ei, zipped });
            origins.insert(at + j, Origin::New { path, from_yaml });
        }
        if counts_were_consistent {
            header.file_count = new_entries.iter().filter(|e| !e.is_dir()).count() as u32;
        }
        header.entry_count = new_entries.len() as u32;
        entries = new_entries;
    }

    let edited_yaml: std::sync::Mutex<Vec<(usize, String)>> = Default::default();
    let produce = |i: usize| -> Result<Produced<'static>, EncodeError> {
        let zipped = matches!(kinds[i], PieceKind::File { zipped: true, .. });
        let (contents, crc, stream) = match &origins[i] {
            Origin::Catalog => unreachable!("the writer produces no catalog"),
            Origin::Gap(b) => return Ok(Produced::bytes(Cow::Owned(b.clone()), None)),
            Origin::Member {
                bin,
                yaml,
                crc32,
                stream,
            } => {
                // An unchanged YAML keeps the binary's bytes verbatim; an edited one (any
                // change of content, whatever its size and time) is re-encoded.
                let edited = match yaml {
                    Some((ypath, ykey, recorded)) => {
                        let text = read_file_enc(ypath)?;
                        if bin.is_none() || recorded.is_none_or(|r| crc32fast::hash(&text) != r) {
                            Some((text, ypath, ykey, recorded.is_none()))
                        } else {
                            None
                        }
                    }
                    None => None,
                };
                let c = match (edited, bin) {
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
            u32::try_from(contents.len())
                .map_err(|_| EncodeError::new("file larger than 4 GiB"))?,
        );
        match kinds[i] {
            PieceKind::File { zipped: true, .. } => {
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
            _ => Ok(Produced::bytes(Cow::Owned(contents), size)),
        }
    };
    report.files = kinds
        .iter()
        .filter(|k| matches!(k, PieceKind::File { .. }))
        .count();
    let before: Vec<u32> = entries.iter().map(|e| e.offset).collect();
    crate::fsio::write_streaming(output, force, |w| {
        write_archive(
            w,
            &mut header,
            &mut entries,
            &kinds,
            sum_was_data_size,
            &produce,
            on_piece,
        )
        .map_err(encode_err(output))
    })?;
    let mut edited = edited_yaml.into_inner().unwrap_or_default();
    edited.sort();
    report.from_yaml.extend(edited.into_iter().map(|(_, k)| k));
    let moved = entries
        .iter()
        .zip(&before)
        .any(|(e, b)| !e.is_dir() && e.offset != *b);
    let mut placed = vec![false; entries.len()];
    for k in &kinds {
        if let PieceKind::File { entry, .. } = k {
            placed[*entry] = true;
        }
    }
    if moved {
        for (i, e) in entries.iter().enumerate() {
            if !e.is_dir() && !placed[i] {
                report.warnings.push(format!(
                    "catalog[{i}] {}: owns no data and keeps its stored offset {}, but the data around it moved",
                    e.display_name(),
                    e.offset
                ));
            }
        }
    }
    Ok(report)
}
