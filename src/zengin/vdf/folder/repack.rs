//! `repack`: an unpacked folder back into an archive (edited YAML re-encoded, edited files taken
//! as they are, added and removed files reflected in the catalog).
//!
//! Memory: the manifest is mapped and its catalog and layout read a run at a time; each piece
//! keeps its file's folder key and CRCs (no paths: they are joined when the piece is written),
//! and the folder walk keeps only what the manifest does not know (new files) and its folders.
//! What grows with the member count is the catalog (an `Entry` a member, 80 bytes) and about
//! 120 bytes a piece: its kind, origin, folder key and (until the walk is done) key index.

use super::{
    decode_err, encode_err, key_hash, path_text, rebuild_catalog, rel_to_names, ManifestDocument,
    ManifestPiece, MANIFEST, MANIFEST_TAG, MANIFEST_VERSION, STREAMS,
};
use crate::codec::Formats;
use crate::exact::{EncodeError, Error, ImportError};
use crate::zengin::vdf::yaml::{EntryDoc, PieceKindDoc};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{
    safe_relative_path, write_archive, Entry, Header, PieceKind, Produced, Tree, Vdf,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where a repacked piece's contents come from.
pub(super) enum Origin {
    Catalog,
    Gap(Vec<u8>),
    /// A member the manifest knows.
    Member(Member),
    /// A file the manifest does not know.
    New {
        path: PathBuf,
        from_yaml: bool,
    },
}

/// A member the manifest knows: its folder key (the binary `DIR/<file>`, its YAML
/// `DIR/<file>.yaml`), what the walk of the folder found of them, and the CRCs as unpacked.
pub(super) struct Member {
    /// The file's key in the folder (`/`-separated, as the manifest names it), in
    /// [`Plan::names`].
    file: Span,
    /// CRC-32 of the contents as unpacked.
    crc32: Option<u32>,
    /// CRC-32 of the YAML file as unpacked, when the manifest names one. The YAML is
    /// re-encoded from when its CRC changed, or when there is no binary. A YAML the manifest
    /// does not know (exported after an unpack without YAML) has no CRC: it is an edit when
    /// it encodes to other bytes than the binary's.
    yaml_crc: Option<u32>,
    /// The original compressed stream's folder key, in [`Plan::names`].
    stream: Option<Span>,
    /// The binary is in the folder.
    bin: bool,
    /// The YAML is in the folder and stands for the member (the manifest names it, or it is
    /// an animkit document exported later).
    yaml: bool,
}

impl Member {
    fn bin_path(&self, dir: &Path, names: &Names) -> Option<PathBuf> {
        self.bin.then(|| dir.join(names.get(self.file)))
    }
    fn yaml_key(&self, names: &Names) -> String {
        format!("{}.yaml", names.get(self.file))
    }
}

/// The members' folder keys (and their streams') one after another in one string: one
/// growing allocation instead of one per member (with its pointer and length beside it).
#[derive(Default)]
pub(super) struct Names(String);

/// A key's place in [`Names`].
#[derive(Clone, Copy)]
pub(super) struct Span {
    at: u32,
    len: u32,
}

impl Names {
    /// `key` appended (`None`: the keys would pass 4 GiB).
    fn add(&mut self, key: &str) -> Option<Span> {
        let at = u32::try_from(self.0.len()).ok()?;
        let len = u32::try_from(key.len()).ok()?;
        at.checked_add(len)?;
        self.0.push_str(key);
        Some(Span { at, len })
    }
    fn get(&self, s: Span) -> &str {
        self.0
            .get(s.at as usize..(s.at + s.len) as usize)
            .unwrap_or_default()
    }
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
    let folder = Folder::scan(dir, output, &mut plan, formats, &mut report)?;
    plan.settle(dir, &mut report);
    let keep_empty = plan.empty_directories(&folder, &mut report);
    let added = new_files(&folder, &plan, formats, &mut report)?;
    drop(folder);
    plan.drop_removed();
    if !added.is_empty() || !plan.removed.is_empty() {
        plan.rebuild(added, &keep_empty, &mut report)?;
    }
    report.files = plan
        .kinds
        .iter()
        .filter(|k| matches!(k, PieceKind::File { .. }))
        .count();
    let edited_yaml: Mutex<Vec<(usize, String)>> = Default::default();
    let produce = |i| {
        let at = (dir, &plan.names);
        produce(
            &plan.kinds[i],
            &plan.origins[i],
            i,
            at,
            formats,
            &edited_yaml,
        )
    };
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
    header: Header,
    entries: Vec<Entry>,
    kinds: Vec<PieceKind>,
    origins: Vec<Origin>,
    /// The members' folder keys.
    names: Names,
    /// The members by their file's folder key (until the folder is matched to them).
    keys: KeyIndex,
    /// Catalog entries whose file or folder is gone.
    removed: HashSet<usize>,
    sum_was_data_size: bool,
    counts_were_consistent: bool,
}

/// The manifest of the folder, checked. A large manifest is read from its map a run at a
/// time ([`read_in_runs`]); a small one, or one that run reading does not take (its message is
/// then the whole read's), is read whole. Both give the same plan.
fn read_manifest(dir: &Path) -> Result<Plan, Error> {
    let mpath = dir.join(MANIFEST);
    let map = crate::fsio::map_file(&mpath)?;
    let release = |part: &[u8]| map.release(part);
    let text =
        crate::yaml::FileText::of_bytes(&map, &release).map_err(|m| Error::other(&mpath, m))?;
    if let Some(plan) = read_in_runs(&mpath, &map, &release) {
        return Ok(plan);
    }
    let text = text.str().map_err(|m| Error::other(&mpath, m))?;
    let doc: ManifestDocument = crate::yaml::from_str(text).map_err(|e| Error::Yaml {
        file: mpath.clone(),
        source: e,
    })?;
    let mut plan = Plan::new(&mpath, &doc.format, doc.version, &doc.header, || {
        doc.catalog.iter().map(EntryDoc::to_entry).collect()
    })?;
    for (k, p) in doc.layout.into_iter().enumerate() {
        plan.add(k, p)?;
    }
    Ok(plan)
}

/// The manifest before its layout (the fields of [`ManifestDocument`] up to its catalog).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestHead {
    format: String,
    version: u32,
    header: crate::zengin::vdf::yaml::HeaderDoc,
    catalog: Vec<EntryDoc>,
}

/// The manifest from its layout on (the last field of [`ManifestDocument`]).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestLayout {
    layout: Vec<ManifestPiece>,
}

/// A large manifest (`bytes`, its map) read in two parts cut where its `layout:` line starts
/// (both parts are mappings of the document's keys: the header and catalog, then the layout),
/// each a run of its sequence at a time on every core (`yaml::split`): the catalog's entries
/// become [`Entry`] records and the layout's pieces plan pieces as they are read, so neither
/// the text nor a document of a whole list is held. `None`: the manifest is small, the fast
/// reader is off, the manifest is not in that shape, or something in it is refused (the whole
/// read then gives the message, a YAML error later in the document first, as it always did).
/// Test `a_large_manifest_read_in_runs_repacks_as_the_whole_read_does`.
fn read_in_runs(mpath: &Path, bytes: &[u8], release: &dyn Fn(&[u8])) -> Option<Plan> {
    use crate::yaml::split::{key_line, read_pieces, SPLIT_MIN};
    if bytes.len() < SPLIT_MIN || !crate::yaml::read::fast_reader_on() {
        return None;
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let (at, _) = key_line(body, "layout")?;
    let (head, tail) = bytes.split_at(bytes.len() - body.len() + at);
    let head_text = crate::yaml::FileText::of_bytes(head, release).ok()?;
    let (doc, entries) = read_head(&head_text, release)?;
    let mut plan = Plan::new(mpath, &doc.format, doc.version, &doc.header, || Ok(entries)).ok()?;
    // (the catalog's text goes back: pages of the layout come back as they are touched)
    release(head);
    let tail_text = crate::yaml::FileText::of_bytes(tail, release).ok()?;
    let mut k = 0usize;
    let mut add = |pieces: Vec<ManifestPiece>| -> Option<()> {
        for p in pieces {
            plan.add(k, p).ok()?;
            k += 1;
        }
        Some(())
    };
    if tail.len() < SPLIT_MIN {
        let d: ManifestLayout = crate::yaml::from_str(tail_text.str().ok()?).ok()?;
        add(d.layout)?;
    } else {
        read_pieces(
            &tail_text,
            "layout",
            |d: &mut ManifestLayout| &mut d.layout,
            Some,
            release,
            |_, pieces, done| {
                add(pieces)?;
                release(done);
                Some(())
            },
        )?;
    }
    Some(plan)
}

/// The manifest's head ([`read_in_runs`]): the document without its catalog, and the catalog's
/// entries, read a run at a time when the head is large (whole when it is small).
fn read_head(
    text: &crate::yaml::FileText<'_>,
    release: &dyn Fn(&[u8]),
) -> Option<(ManifestHead, Vec<Entry>)> {
    let entries = |docs: &[EntryDoc]| -> Option<Vec<Entry>> {
        docs.iter()
            .map(EntryDoc::to_entry)
            .collect::<Result<_, _>>()
            .ok()
    };
    if text.bytes().len() < crate::yaml::split::SPLIT_MIN {
        let mut d: ManifestHead = crate::yaml::from_str(text.str().ok()?).ok()?;
        let all = entries(&std::mem::take(&mut d.catalog))?;
        return Some((d, all));
    }
    let mut all: Vec<Entry> = Vec::new();
    let d = crate::yaml::split::read_pieces(
        text,
        "catalog",
        |d: &mut ManifestHead| &mut d.catalog,
        |docs| entries(&docs),
        release,
        |d, run, done| {
            if all.capacity() == 0 {
                // (room for the header's count made once, as much as the text can hold: an
                // entry takes more than `MIN_ENTRY_TEXT` bytes of it)
                let most = text.bytes().len() / MIN_ENTRY_TEXT;
                all.reserve_exact((d.header.entry_count as usize).min(most));
            }
            all.extend(run);
            release(done);
            Some(())
        },
    )?;
    Some((d, all))
}

/// Fewer bytes than a catalog entry takes in a manifest (its four keys alone, `name`,
/// `offset`, `size` and `attributes`, are 26).
const MIN_ENTRY_TEXT: usize = 26;

/// The members' pieces by the hash of their file's folder key: the first piece of each hash
/// and, per piece, the next piece with the same hash (`NONE`: no other), so a lookup compares
/// the keys themselves and two keys with one hash (or a file named twice) are all found.
#[derive(Default)]
struct KeyIndex {
    first: HashMap<u64, u32>,
    next: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl KeyIndex {
    /// Piece `k` (the next one) is the member with folder key `key` (`None`: not a member).
    fn push(&mut self, key: Option<&str>) {
        let k = self.next.len() as u32;
        let next = match key {
            Some(key) => self.first.insert(key_hash(key), k).unwrap_or(NONE),
            None => NONE,
        };
        self.next.push(next);
    }

    /// The pieces whose member's key may be `key` (those with its hash).
    fn chain(&self, key: &str) -> impl Iterator<Item = usize> + '_ {
        let first = self.first.get(&key_hash(key)).copied().unwrap_or(NONE);
        std::iter::successors(Some(first), |&k| self.next.get(k as usize).copied())
            .take_while(|&k| k != NONE)
            .map(|k| k as usize)
    }

    /// `each` with every member whose file is `key`; whether there was one.
    fn each(
        &self,
        origins: &mut [Origin],
        names: &Names,
        key: &str,
        mut each: impl FnMut(&mut Member),
    ) -> bool {
        let mut found = false;
        for k in self.chain(key) {
            if let Some(Origin::Member(m)) = origins.get_mut(k) {
                if names.get(m.file) == key {
                    found = true;
                    each(m);
                }
            }
        }
        found
    }
}

impl Plan {
    /// A plan with the manifest's header and catalog (`entries`, asked for once the
    /// document's format and header are checked) and no pieces yet.
    fn new(
        mpath: &Path,
        format: &str,
        version: u32,
        header: &crate::zengin::vdf::yaml::HeaderDoc,
        entries: impl FnOnce() -> Result<Vec<Entry>, EncodeError>,
    ) -> Result<Plan, Error> {
        crate::codec::check_document_header(format, version, MANIFEST_TAG, MANIFEST_VERSION)
            .map_err(|m| Error::other(mpath, m))?;
        let header = header.to_header().map_err(encode_err(mpath))?;
        let entries: Vec<Entry> = entries().map_err(encode_err(mpath))?;
        if header.entry_count as usize != entries.len() {
            return Err(Error::other(
                mpath,
                "header.entry_count does not match the catalog",
            ));
        }
        // (a piece per file, the catalog and a few gaps: room made once, not grown by doubling)
        let room = entries.len() + 2;
        Ok(Plan {
            sum_was_data_size: u64::from(header.data_size) == Vdf::sum_of_sizes(&entries),
            counts_were_consistent: header.file_count as usize
                == entries.iter().filter(|e| !e.is_dir()).count(),
            kinds: Vec::with_capacity(room),
            origins: Vec::with_capacity(room),
            keys: KeyIndex {
                first: HashMap::with_capacity(room),
                next: Vec::with_capacity(room),
            },
            removed: HashSet::new(),
            names: Names::default(),
            mpath: mpath.to_path_buf(),
            header,
            entries,
        })
    }

    /// Layout piece `k` of the manifest, checked (a file's paths must stay inside the folder:
    /// the manifest may have been edited).
    fn add(&mut self, k: usize, p: ManifestPiece) -> Result<(), Error> {
        let bad = |m: &str| Error::other(&self.mpath, format!("layout[{k}]: {m}"));
        if k >= NONE as usize {
            return Err(bad("more layout pieces than repack takes (4,294,967,295)"));
        }
        let (kind, origin) = match p.kind {
            PieceKindDoc::Catalog => (PieceKind::Catalog, Origin::Catalog),
            PieceKindDoc::Gap => (
                PieceKind::Gap,
                Origin::Gap(p.data.map(|b| b.0).unwrap_or_default()),
            ),
            PieceKindDoc::File => {
                let entry = p.entry.ok_or_else(|| bad("no entry"))?;
                if self.entries.get(entry).is_none_or(Entry::is_dir) {
                    return Err(bad("entry is not a file of the catalog"));
                }
                let file = p.file.ok_or_else(|| bad("no file"))?;
                let inside = |path: &str, what: &str| {
                    let bytes = crate::exact::text::encode_cp1252(path)
                        .map_err(|c| bad(&format!("{c:?} in the {what} path")))?;
                    safe_relative_path(&bytes).map_err(|e| bad(&e))
                };
                inside(&file, "file")?;
                if let Some(s) = &p.stream {
                    inside(s, "stream")?;
                }
                let kind = PieceKind::File {
                    entry,
                    zipped: p.stream.is_some(),
                };
                let too_long = |span: Option<Span>| span.ok_or_else(|| bad("the paths pass 4 GiB"));
                let file = too_long(self.names.add(&file))?;
                let stream = match &p.stream {
                    Some(s) => Some(too_long(self.names.add(s))?),
                    None => None,
                };
                let member = Member {
                    file,
                    crc32: p.crc32.map(|c| c.0),
                    yaml_crc: p.yaml.map(|c| c.0),
                    stream,
                    bin: false,
                    yaml: false,
                };
                (kind, Origin::Member(member))
            }
        };
        self.keys.push(match &origin {
            Origin::Member(m) => Some(self.names.get(m.file)),
            _ => None,
        });
        self.kinds.push(kind);
        self.origins.push(origin);
        Ok(())
    }

    /// Whether the manifest has a member whose file is `key`.
    fn knows(&self, key: &str) -> bool {
        self.keys
            .chain(key)
            .any(|k| {
                matches!(self.origins.get(k), Some(Origin::Member(m)) if self.names.get(m.file) == key)
            })
    }

    /// After the walk: a member's binary among the streams (not walked) is looked for; a
    /// member with neither file nor YAML is removed; one with only its YAML is made from it.
    fn settle(&mut self, dir: &Path, report: &mut RepackReport) {
        for (kind, origin) in self.kinds.iter().zip(&mut self.origins) {
            let (PieceKind::File { entry, .. }, Origin::Member(m)) = (kind, origin) else {
                continue;
            };
            let file = self.names.get(m.file);
            if file.starts_with(&format!("{STREAMS}/")) {
                m.bin = dir.join(file).is_file();
            }
            if !m.bin && !m.yaml {
                report.removed.push(file.to_string());
                self.removed.insert(*entry);
            } else if !m.bin {
                // Whether a YAML beside its binary was edited is decided by its content hash
                // when the piece is produced (on all cores); without a binary the YAML is the
                // only source.
                report.from_yaml.push(m.yaml_key(&self.names));
            }
        }
    }

    /// The pieces of removed members dropped (after the folder was matched to the members:
    /// the key index goes with them).
    fn drop_removed(&mut self) {
        self.keys = KeyIndex::default();
        if !self
            .origins
            .iter()
            .any(|o| matches!(o, Origin::Member(m) if !m.bin && !m.yaml))
        {
            return;
        }
        let kinds = std::mem::take(&mut self.kinds);
        let origins = std::mem::take(&mut self.origins);
        for (kind, origin) in kinds.into_iter().zip(origins) {
            if !matches!(&origin, Origin::Member(m) if !m.bin && !m.yaml) {
                self.kinds.push(kind);
                self.origins.push(origin);
            }
        }
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
            if !catalog_dirs.contains(key) && !folder.with_files.contains(key) {
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

/// What the walk of the folder found besides the members the manifest knows (those are
/// marked in the plan): files the manifest does not know and folders, by `/`-separated key.
struct Folder {
    /// Files the manifest does not account for.
    unknown: BTreeMap<String, PathBuf>,
    dirs: BTreeMap<String, PathBuf>,
    /// Folders with a file somewhere below them.
    with_files: HashSet<String>,
}

impl Folder {
    /// Every file and folder below `dir`, without the manifest, the streams, `output` (the
    /// archive being written is never one of its own members) and animkit's own temporary
    /// files and staging folders (left by an interrupted run: a warning each). A symbolic link
    /// or junction is an error: repack reads only what lies in the folder. The binary and the
    /// YAML of each member the manifest knows are marked found in `plan`; a YAML the manifest
    /// does not name stands for its member when it is an animkit document.
    fn scan(
        dir: &Path,
        output: &Path,
        plan: &mut Plan,
        formats: Formats,
        report: &mut RepackReport,
    ) -> Result<Folder, Error> {
        let mut folder = Folder {
            unknown: BTreeMap::new(),
            dirs: BTreeMap::new(),
            with_files: HashSet::new(),
        };
        // (in the order the system lists the folders, not sorted: a sorted walk reads each
        // folder whole into entries with their full paths first, about 150 bytes a file of a
        // folder of 139,000 members; what comes out of the walk is sorted here instead)
        let mut walk = walkdir::WalkDir::new(dir).into_iter();
        let mut temps: Vec<PathBuf> = Vec::new();
        let mut link: Option<PathBuf> = None;
        while let Some(e) = walk.next() {
            let e = e.map_err(|err| Error::other(dir, err.to_string()))?;
            if e.depth() > 0 && crate::fsio::is_own_temp(e.file_name()) {
                temps.push(e.path().to_path_buf());
                if e.file_type().is_dir() {
                    walk.skip_current_dir();
                }
                continue;
            }
            if e.depth() > 0 && e.path_is_symlink() {
                // (the first by name is the one named)
                if link.as_deref().is_none_or(|l| e.path() < l) {
                    link = Some(e.path().to_path_buf());
                }
                continue;
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
            // (every folder above it holds a file; once one is marked, those above it are)
            let mut at = key.len();
            while let Some(slash) = key[..at].rfind('/') {
                let parent = &key[..slash];
                if folder.with_files.contains(parent) {
                    break;
                }
                folder.with_files.insert(parent.to_string());
                at = slash;
            }
            let (keys, names) = (&plan.keys, &plan.names);
            let mut known = keys.each(&mut plan.origins, names, &key, |m| m.bin = true);
            if let Some(stem) = key.strip_suffix(".yaml") {
                let mut animkit: Option<bool> = None;
                keys.each(&mut plan.origins, names, stem, |m| {
                    if m.yaml_crc.is_some()
                        || *animkit.get_or_insert_with(|| is_animkit_yaml(formats, e.path()))
                    {
                        m.yaml = true;
                        known = true;
                    }
                });
            }
            if !known {
                folder.unknown.insert(key, e.path().to_path_buf());
            }
        }
        if let Some(link) = link {
            return Err(Error::other(
                link,
                "is a symbolic link or junction inside the folder; repack does not follow links (put the file or folder itself there)",
            ));
        }
        temps.sort();
        report
            .warnings
            .extend(temps.iter().map(|t| crate::fsio::own_temp_warning(t)));
        Ok(folder)
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
    plan: &Plan,
    formats: Formats,
    report: &mut RepackReport,
) -> Result<Vec<Added>, Error> {
    let mut added = Vec::new();
    for (key, path) in &folder.unknown {
        let mut name_key = key.clone();
        let mut from_yaml = false;
        if let Some(stem) = key.strip_suffix(".yaml") {
            if is_animkit_yaml(formats, path) {
                if folder.unknown.contains_key(stem) || plan.knows(stem) {
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

/// The contents of layout piece `i` (of kind `kind`, from `origin`, below `dir`), on a worker
/// thread: an unchanged member as it is (a compressed one with its original stream), an
/// edited YAML re-encoded (and noted in `edited_yaml`), a new file read or encoded;
/// compressed again when the archive is and the contents changed.
fn produce(
    kind: &PieceKind,
    origin: &Origin,
    i: usize,
    (dir, names): (&Path, &Names),
    formats: Formats,
    edited_yaml: &Mutex<Vec<(usize, String)>>,
) -> Result<Produced<'static>, EncodeError> {
    let zipped = matches!(kind, PieceKind::File { zipped: true, .. });
    let (contents, crc, stream) = match origin {
        Origin::Catalog => unreachable!("the writer produces no catalog"),
        Origin::Gap(b) => return Ok(Produced::bytes(Cow::Owned(b.clone()), None)),
        Origin::Member(m) => {
            let bin = m.bin_path(dir, names);
            let c = match (edited_yaml_text(m, dir, names)?, &bin) {
                (Some((text, ypath, late)), bin) => {
                    let encoded = encode_yaml_text(formats, &ypath, text)?;
                    let binary = bin.as_deref().map(read_file_enc).transpose()?;
                    // A YAML exported after unpacking and not edited stands for the binary.
                    let unedited = late && binary.as_deref() == Some(&encoded[..]);
                    if !unedited {
                        let ykey = m.yaml_key(names);
                        if let (Some(b), Some(bytes), Some(c)) = (bin, &binary, m.crc32) {
                            if crc32fast::hash(bytes) != c {
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
                                .push((i, ykey));
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
            (c, m.crc32, m.stream.map(|s| dir.join(names.get(s))))
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
    let old = match &stream {
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

/// A member's YAML when it is the edit to take: (text, path, not known to the manifest?).
/// An unchanged YAML keeps the binary's bytes verbatim; an edited one (any change of content,
/// whatever its size and time), or one without a binary beside it, is re-encoded.
fn edited_yaml_text(
    m: &Member,
    dir: &Path,
    names: &Names,
) -> Result<Option<(Vec<u8>, PathBuf, bool)>, EncodeError> {
    if !m.yaml {
        return Ok(None);
    }
    let ypath = dir.join(m.yaml_key(names));
    let text = read_file_enc(&ypath)?;
    let edit = !m.bin || m.yaml_crc.is_none_or(|r| crc32fast::hash(&text) != r);
    Ok(edit.then_some((text, ypath, m.yaml_crc.is_none())))
}
