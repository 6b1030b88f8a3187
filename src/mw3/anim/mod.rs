//! MechWarrior 3 (base game, v1.2) precompiled animation definitions, `anim.zbd`
//! (spec: `shared/specs/mw3-anim.md`).
//!
//! One module per record family: [`header`] (header, anim list, info), [`anim_def`] (the anim
//! def and its block), [`arrays`] (objects, nodes, lights, puffers, sounds, prerequisites, anim
//! refs), [`seq_def`] (reset state and sequences), [`events`] (every event type), [`refs`]
//! (references from events to the arrays), [`prim`] (fields, garbage-keeping strings, flags),
//! [`check`] (the spec §9 validation rules).
//!
//! Garbage stays data: string tails after the terminator, pointers, constants and float bits
//! are all kept; only values the file duplicates are derived (see [`anim_def`]).

pub mod anim_def;
pub mod arrays;
pub mod check;
pub mod diff;
pub mod events;
pub mod gen;
pub mod header;
pub mod prim;
pub mod ref_fields;
pub mod refs;
pub mod seq_def;

use crate::codec::{check_document_header, Codec, ExportOptions, Finding, ImportOptions, Sink};
use crate::exact::{Blob, Cursor, DecodeError, EncodeError, ImportError, Within, YamlError};
use anim_def::{AnimDef, ANIM_DEF_SIZE};
use deku::DekuSize;
use header::{FileHeader, Info, ListEntry, HEADER_SIZE, SIGNATURE, VERSION};
use prim::{is_default, Bytes};
use schemars::JsonSchema;
use seq_def::SEQ_DEF_SIZE;
use serde::{Deserialize, Serialize};

/// From this many anim defs on, references are resolved and defs encoded on every core.
const PARALLEL_DEFS: usize = 256;

/// A streamed import lets the output start on its way to the disk after each this many
/// bytes, while later pieces are still being read (so little is left to flush at the end).
const SETTLE_EVERY: usize = 2 << 20;

/// From this many anim defs on, the YAML export is written a run of defs at a time
/// ([`Anim::write_yaml_streamed`]; below it the sequence might fit on one line).
const STREAM_DEFS: usize = 64;

/// Anim defs per run of the streamed YAML export (about 500 KB of text for typical defs).
const STREAM_RUN: usize = 64;

/// The text buffer of the streamed YAML export is reserved for about this much.
const STREAM_TEXT: usize = 512 << 10;

/// Size of block 0, the "zero anim def".
pub const ZERO_DEF_SIZE: usize = ANIM_DEF_SIZE + SEQ_DEF_SIZE;

/// The exact bytes of block 0: all zero except the activation byte (on_call).
pub fn zero_def_bytes() -> [u8; ZERO_DEF_SIZE] {
    let mut b = [0u8; ZERO_DEF_SIZE];
    b[153] = 3;
    b
}

/// A decoded `anim.zbd`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Anim {
    pub anim_list: Vec<ListEntry>,
    pub info: Info,
    /// Block 0 when it is not the standard zero block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zero_def: Option<Bytes<ZERO_DEF_SIZE>>,
    /// The real anim defs (block 1 onwards).
    pub anim_defs: Vec<AnimDef>,
    /// Bytes after the last anim def (none in shipped files).
    #[serde(skip_serializing_if = "is_default")]
    pub trailing: Blob,
}

/// The YAML document: `format`, `version`, then the model.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(title = "animkit mw3.anim document", deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct AnimDocument {
    /// Always `mw3.anim`.
    pub format: String,
    /// Document version; this animkit reads 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    #[serde(default)]
    pub anim_list: Vec<ListEntry>,
    #[serde(default)]
    pub info: Info,
    #[serde(default)]
    pub zero_def: Option<Bytes<ZERO_DEF_SIZE>>,
    #[serde(default)]
    pub anim_defs: Vec<AnimDef>,
    #[serde(default)]
    pub trailing: Blob,
}

/// The document of an [`Anim`] with the anim defs `defs` (all of them, or none for the
/// skeleton the streamed export writes the defs into).
struct DocOut<'a> {
    anim: &'a Anim,
    defs: &'a [AnimDef],
}

impl Anim {
    /// The YAML document as a serde value (what [`Codec::to_yaml`] writes; for comparing
    /// serializers).
    pub fn document(&self) -> impl Serialize + '_ {
        DocOut {
            anim: self,
            defs: &self.anim_defs,
        }
    }
}

impl Serialize for DocOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let a = self.anim;
        let mut st = s.serialize_struct("AnimDocument", 7)?;
        st.serialize_field("format", Anim::TAG)?;
        st.serialize_field("version", &Anim::YAML_VERSION)?;
        st.serialize_field("anim_list", &a.anim_list)?;
        st.serialize_field("info", &a.info)?;
        if let Some(z) = &a.zero_def {
            st.serialize_field("zero_def", z)?;
        }
        st.serialize_field("anim_defs", &DefsOut(self.defs))?;
        if !a.trailing.is_empty() {
            st.serialize_field("trailing", &a.trailing)?;
        }
        st.end()
    }
}

struct DefsOut<'a>(&'a [AnimDef]);

impl Serialize for DefsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for d in self.0 {
            refs::with_names(d.clone_names(), || seq.serialize_element(d))?;
        }
        seq.end()
    }
}

impl Anim {
    /// Store in every reference the name its index resolves to (see
    /// [`AnimDef::attach_names`]).
    pub fn attach_names(&mut self) {
        for d in &mut self.anim_defs {
            d.attach_names();
        }
    }

    /// Decode a whole file.
    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        let mut anim_defs = Vec::new();
        let (mut a, _) = Self::read_with(data, |n, d| {
            anim_defs.reserve_exact(n - anim_defs.len());
            anim_defs.push(d);
        })?;
        a.anim_defs = anim_defs;
        Ok(a)
    }

    /// Decode a file handing each anim def to `each` (with the count of defs) as it is read:
    /// the file without its defs, and their count.
    fn read_with(
        data: &[u8],
        mut each: impl FnMut(usize, AnimDef),
    ) -> Result<(Self, usize), DecodeError> {
        let mut c = Cursor::new(data, 0);
        let FileHeader {
            signature: sig,
            version,
            count,
        } = c.read().within("header")?;
        if sig != SIGNATURE {
            return Err(DecodeError::invalid(
                0,
                format!("signature 0x{sig:08x} is not an anim.zbd (0x{SIGNATURE:08x})"),
            ))
            .within("header");
        }
        if version != VERSION {
            return Err(DecodeError::invalid(
                4,
                format!("version {version}: only MechWarrior 3 (39) is supported"),
            ))
            .within("header");
        }
        let count_at = 8;
        let n = c
            .check_count(count as u64, ListEntry::SIZE_BYTES.unwrap_or(1))
            .map_err(|mut e| {
                e.offset = count_at;
                e
            })
            .within("anim_list")?;
        let mut anim_list = Vec::with_capacity(n);
        for i in 0..n {
            anim_list.push(c.read::<ListEntry>().within_index(i).within("anim_list")?);
        }
        let info_at = c.offset();
        let (info, def_count) = Info::read(&mut c).within("info")?;
        if def_count == 0 {
            return Err(DecodeError::invalid(
                info_at + 10,
                "def_count is 0: the zero anim def is missing",
            ))
            .within("info");
        }
        let zero = c.array::<ZERO_DEF_SIZE>().within("zero_def")?;
        let zero_def = (zero != zero_def_bytes()).then_some(Bytes(zero));
        let real = def_count as usize - 1;
        let n = c
            .check_count(real as u64, ANIM_DEF_SIZE + SEQ_DEF_SIZE)
            .map_err(|mut e| {
                e.offset = info_at + 10;
                e
            })
            .within("def_count")
            .within("info")?;
        for i in 0..n {
            each(
                n,
                AnimDef::read(&mut c).within_index(i).within("anim_defs")?,
            );
        }
        let trailing = Blob(c.rest().to_vec());
        let a = Anim {
            anim_list,
            info,
            zero_def,
            anim_defs: Vec::new(),
            trailing,
        };
        Ok((a, n))
    }

    /// Encode; `marks` receives (offset, path) of each part when given.
    pub fn write(
        &self,
        out: &mut Vec<u8>,
        mut marks: Option<&mut Vec<(usize, String)>>,
    ) -> Result<(), EncodeError> {
        self.write_head(out, self.anim_defs.len(), marks.as_deref_mut())?;
        if marks.is_none() && self.anim_defs.len() >= PARALLEL_DEFS {
            self.write_defs_parallel(out)?;
        } else {
            self.write_defs(out, marks.as_deref_mut())?;
        }
        if !self.trailing.is_empty() {
            if let Some(m) = marks {
                m.push((out.len(), "trailing".to_string()));
            }
            out.extend_from_slice(self.trailing.as_bytes());
        }
        Ok(())
    }

    /// What comes before the anim defs (header, anim list, info, zero def), for `defs` of
    /// them.
    fn write_head(
        &self,
        out: &mut Vec<u8>,
        defs: usize,
        mut marks: Option<&mut Vec<(usize, String)>>,
    ) -> Result<(), EncodeError> {
        macro_rules! mark {
            ($what:expr) => {
                if let Some(m) = marks.as_deref_mut() {
                    m.push((out.len(), $what));
                }
            };
        }
        mark!("header".to_string());
        let count = u32::try_from(self.anim_list.len())
            .map_err(|_| EncodeError::new("too many entries"))
            .within("anim_list")?;
        let header = FileHeader {
            signature: SIGNATURE,
            version: VERSION,
            count,
        };
        crate::exact::Writer::put(out, &header)?;
        for (i, e) in self.anim_list.iter().enumerate() {
            mark!(format!("anim_list[{i}]"));
            crate::exact::Writer::put(out, e)
                .within_index(i)
                .within("anim_list")?;
        }
        mark!("info".to_string());
        let def_count = u16::try_from(defs + 1)
            .map_err(|_| EncodeError::new("at most 65534 anim defs"))
            .within("anim_defs")?;
        self.info.write(out, def_count).within("info")?;
        mark!("zero_def".to_string());
        out.extend_from_slice(&self.zero_def.map_or_else(zero_def_bytes, |b| b.0));
        Ok(())
    }

    /// The anim defs, one after the other.
    fn write_defs(
        &self,
        out: &mut Vec<u8>,
        mut marks: Option<&mut Vec<(usize, String)>>,
    ) -> Result<(), EncodeError> {
        for (i, d) in self.anim_defs.iter().enumerate() {
            let mut local = Vec::new();
            d.write(out, marks.is_some().then_some(&mut local))
                .within_index(i)
                .within("anim_defs")?;
            if let Some(m) = marks.as_deref_mut() {
                m.extend(
                    local
                        .into_iter()
                        .map(|(o, p)| (o, format!("anim_defs[{i}]{p}"))),
                );
            }
        }
        Ok(())
    }

    /// The anim defs encoded in runs on every core, then joined in order (an anim def's bytes
    /// do not depend on where it stands in the file).
    fn write_defs_parallel(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        use rayon::prelude::*;
        let run = self
            .anim_defs
            .len()
            .div_ceil(rayon::current_num_threads() * 4)
            .max(1);
        let parts: Vec<Result<Vec<u8>, EncodeError>> = self
            .anim_defs
            .par_chunks(run)
            .enumerate()
            .map(|(k, defs)| {
                let mut part = Vec::new();
                for (j, d) in defs.iter().enumerate() {
                    d.write(&mut part, None)
                        .within_index(k * run + j)
                        .within("anim_defs")?;
                }
                Ok(part)
            })
            .collect();
        for p in parts {
            out.extend_from_slice(&p?);
        }
        Ok(())
    }

    /// About the encoded size (exact for files without SI scripts or stored extras), to
    /// reserve the output once; only a hint.
    pub fn size_hint(&self) -> usize {
        let defs: usize = self.anim_defs.iter().map(AnimDef::size_hint).sum();
        HEADER_SIZE
            + ListEntry::SIZE_BYTES.unwrap_or(0) * self.anim_list.len()
            + 64
            + ZERO_DEF_SIZE
            + defs
            + self.trailing.as_bytes().len()
    }

    /// Resolve the references of a document read from YAML.
    pub fn resolve_refs(&mut self) -> Result<(), EncodeError> {
        let one = |(i, d): (usize, &mut AnimDef)| d.resolve_refs().within_index(i);
        if self.anim_defs.len() < PARALLEL_DEFS {
            self.anim_defs.iter_mut().enumerate().try_for_each(one)
        } else {
            use rayon::prelude::*;
            // (the first failing def by index, as the sequential loop reports)
            let errors: Vec<EncodeError> = self
                .anim_defs
                .par_iter_mut()
                .enumerate()
                .filter_map(|x| one(x).err())
                .collect();
            errors.into_iter().next().map_or(Ok(()), Err)
        }
        .within("anim_defs")
    }

    /// A large document straight into `sink`: the anim defs are read, resolved and encoded
    /// piece by piece on every core ([`crate::yaml::split::read_pieces`]), so only a few
    /// pieces' defs are held at a time, and each piece's bytes go to the sink as soon as
    /// those before it are there (the output is written while the rest is read). `None` when
    /// the document is small, outside the fast reader's subset, or anything fails: then
    /// [`Codec::import_to`]'s ordinary path reads it again and reports the error as it does.
    fn stream_into(text: &crate::yaml::FileText, sink: &mut dyn Sink) -> Option<()> {
        let encode = |mut defs: Vec<AnimDef>| {
            let mut part = Vec::with_capacity(defs.iter().map(AnimDef::size_hint).sum());
            for d in &mut defs {
                d.resolve_refs().ok()?;
                d.write(&mut part, None).ok()?;
            }
            Some((defs.len(), part))
        };
        let head_of = |doc: &AnimDocument, defs: usize| {
            check_document_header(&doc.format, doc.version, Self::TAG, Self::YAML_VERSION).ok()?;
            let a = Anim {
                anim_list: doc.anim_list.clone(),
                info: doc.info.clone(),
                zero_def: doc.zero_def,
                ..Anim::default()
            };
            let mut head = Vec::new();
            a.write_head(&mut head, defs, None).ok()?;
            Some(head)
        };
        let (mut head_len, mut defs, mut written) = (None, 0, 0);
        // (the sink is handed the text to give back from two places, one at a time)
        let sink = std::cell::RefCell::new(sink);
        let consume = |before: &AnimDocument, (n, part): (usize, Vec<u8>), piece: &[u8]| {
            if head_len.is_none() {
                // (the head as far as it is known: the count of defs is patched in at the end)
                let head = head_of(before, 0)?;
                sink.borrow_mut().append(&head);
                head_len = Some(head.len());
            }
            let mut sink = sink.borrow_mut();
            sink.append(&part);
            sink.done_with(piece);
            defs += n;
            written += part.len();
            if written >= SETTLE_EVERY {
                sink.settle();
                written = 0;
            }
            Some(())
        };
        let doc = crate::yaml::split::read_pieces(
            text,
            "anim_defs",
            |d: &mut AnimDocument| &mut d.anim_defs,
            encode,
            |part| sink.borrow_mut().done_with(part),
            consume,
        )?;
        let head = head_of(&doc, defs)?;
        if Some(head.len()) != head_len {
            return None;
        }
        let sink = sink.into_inner();
        sink.patch(0, &head);
        sink.append(doc.trailing.as_bytes());
        Some(())
    }

    /// [`Codec::to_yaml`]'s document written to `out` a run of anim defs at a time (memory: a
    /// run's text, not the document's; the same bytes, see the test
    /// `the_streamed_export_writes_the_whole_documents_bytes`). For [`STREAM_DEFS`] or more
    /// defs: then the sequence cannot fit on one line (each def takes at least `{}, `, past
    /// the emitter's 160-character budget), so the whole document writes it in block style,
    /// `anim_defs:` on its own line and each def from a `- ` at column 0, exactly as the
    /// emitter writes a sequence at the top of a document, and the runs can be rendered on
    /// their own. The rest comes from the document with no defs (`anim_defs: []`).
    fn write_yaml_streamed(
        &self,
        out: &mut dyn std::io::Write,
    ) -> Result<(), crate::codec::ExportError> {
        let (skeleton, at) = self.yaml_skeleton()?;
        out.write_all(&skeleton.as_bytes()[..at])?;
        out.write_all(b"anim_defs:\n")?;
        let mut text = String::with_capacity(STREAM_TEXT + (STREAM_TEXT >> 2));
        for run in self.anim_defs.chunks(STREAM_RUN) {
            write_defs_yaml(run, &mut text, out)?;
        }
        out.write_all(&skeleton.as_bytes()[at + EMPTY_DEFS.len()..])?;
        Ok(())
    }

    /// The document of `self` without its anim defs (`anim_defs: []`) and where that line is.
    fn yaml_skeleton(&self) -> Result<(String, usize), EncodeError> {
        let skeleton = crate::yaml::to_string_with_capacity(
            &DocOut {
                anim: self,
                defs: &[],
            },
            4096,
        )
        .map_err(|e| EncodeError::new(e.to_string()))?;
        let at = skeleton
            .match_indices(EMPTY_DEFS)
            .map(|(i, _)| i)
            .find(|&i| i == 0 || skeleton.as_bytes()[i - 1] == b'\n')
            .ok_or_else(|| EncodeError::new("internal: no anim_defs line in the document"))?;
        Ok((skeleton, at))
    }

    /// [`Codec::yaml_from_bytes`]: the file's defs are decoded once and dropped (so a file
    /// that does not decode fails as [`Anim::read`] does, before anything is written), then
    /// decoded again and written a run at a time as in [`Anim::write_yaml_streamed`]: the
    /// model of a run is held, not the file's (a 10 MB file's is about 30 MB).
    fn yaml_from_file_bytes(
        data: &[u8],
        out: &mut dyn std::io::Write,
    ) -> Result<(), crate::codec::ExportError> {
        use crate::codec::ExportError;
        let (head, defs) = Self::read_with(data, |_, _| {}).map_err(ExportError::Decode)?;
        if defs < STREAM_DEFS {
            let a = Self::read(data).map_err(ExportError::Decode)?;
            return a.to_yaml_into(&ExportOptions::default(), out);
        }
        let (skeleton, at) = head.yaml_skeleton()?;
        out.write_all(&skeleton.as_bytes()[..at])?;
        out.write_all(b"anim_defs:\n")?;
        let mut text = String::with_capacity(STREAM_TEXT + (STREAM_TEXT >> 2));
        let mut run = Vec::with_capacity(STREAM_RUN);
        let mut failed = None;
        Self::read_with(data, |_, d| {
            run.push(d);
            if run.len() == STREAM_RUN && failed.is_none() {
                failed = write_defs_yaml(&run, &mut text, out).err();
                run.clear();
            }
        })
        .map_err(ExportError::Decode)?;
        if let Some(e) = failed {
            return Err(e);
        }
        write_defs_yaml(&run, &mut text, out)?;
        out.write_all(&skeleton.as_bytes()[at + EMPTY_DEFS.len()..])?;
        Ok(())
    }

    pub fn from_document(text: &str) -> Result<Self, ImportError> {
        // (a large document's anim defs are read in parallel pieces)
        let doc: AnimDocument =
            crate::yaml::split::from_str_split(text, "anim_defs", |d: &mut AnimDocument| {
                &mut d.anim_defs
            })?;
        check_document_header(&doc.format, doc.version, Self::TAG, Self::YAML_VERSION).map_err(
            |m| YamlError {
                line: None,
                column: None,
                message: m,
            },
        )?;
        let mut a = Anim {
            anim_list: doc.anim_list,
            info: doc.info,
            zero_def: doc.zero_def,
            anim_defs: doc.anim_defs,
            trailing: doc.trailing,
        };
        a.resolve_refs()?;
        Ok(a)
    }
}

/// The line of a document without anim defs that the streamed export writes them into.
const EMPTY_DEFS: &str = "anim_defs: []\n";

/// The `- ` entries of `defs` as in the whole document (see [`Anim::write_yaml_streamed`]),
/// rendered in `text` and written to `out`.
fn write_defs_yaml(
    defs: &[AnimDef],
    text: &mut String,
    out: &mut dyn std::io::Write,
) -> Result<(), crate::codec::ExportError> {
    if defs.is_empty() {
        return Ok(());
    }
    text.clear();
    crate::yaml::append_to_string(text, &DefsOut(defs))
        .map_err(|e| EncodeError::new(e.to_string()))?;
    out.write_all(text.as_bytes())?;
    Ok(())
}

impl Codec for Anim {
    const TAG: &'static str = "mw3.anim";
    const DESCRIPTION: &'static str = "MechWarrior 3 animation definitions (anim.zbd)";
    const EXTENSIONS: &'static [&'static str] = &["zbd"];

    fn detect(data: &[u8]) -> bool {
        data.len() >= HEADER_SIZE
            && data[..4] == SIGNATURE.to_le_bytes()
            && data[4..8] == VERSION.to_le_bytes()
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Anim::read(data)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        // (one allocation of about the final size instead of doubling from empty: no copies,
        // and a lower peak next to the model)
        out.reserve(self.size_hint());
        self.write(out, None)
    }
    fn to_yaml(&self, _: &ExportOptions) -> Result<String, EncodeError> {
        // (the document is about 1.8× the binary: a buffer reserved for 3× is never moved
        // while it grows, where doubling from empty held the old and the new buffer at once
        // (16 + 32 MB for 18 MB of YAML); the pages never written are never touched)
        let capacity = self.size_hint().saturating_mul(3).saturating_add(4096);
        crate::yaml::to_string_with_capacity(&self.document(), capacity)
            .map_err(|e| EncodeError::new(e.to_string()))
    }
    fn to_yaml_into(
        &self,
        opts: &ExportOptions,
        out: &mut dyn std::io::Write,
    ) -> Result<(), crate::codec::ExportError> {
        if self.anim_defs.len() < STREAM_DEFS {
            out.write_all(self.to_yaml(opts)?.as_bytes())?;
            return Ok(());
        }
        self.write_yaml_streamed(out)
    }
    const EXPORTS_FROM_BYTES: bool = true;
    fn yaml_from_bytes(
        data: &[u8],
        out: &mut dyn std::io::Write,
    ) -> Result<(), crate::codec::ExportError> {
        Self::yaml_from_file_bytes(data, out)
    }
    // (MW3 has no value findings and no edit warnings: the default's are empty, so the file
    // the output replaces is not decoded, a 10 MB anim.zbd's 25 ms and memory saved)
    fn import_to(
        text: &str,
        opts: &ImportOptions,
        previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<crate::codec::Imported, ImportError> {
        Self::import_text_to(&crate::yaml::FileText::of_str(text), opts, previous, sink)
    }
    // (the pieces of a large document are checked as UTF-8 as they are read, on the threads
    // that read them, instead of the whole file first: see `read_pieces`)
    fn import_text_to(
        text: &crate::yaml::FileText,
        opts: &ImportOptions,
        _previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<crate::codec::Imported, ImportError> {
        if Self::stream_into(text, sink).is_some() {
            return Ok(Default::default());
        }
        sink.restart();
        let text = crate::yaml::strip_bom(text.str().map_err(ImportError::Text)?);
        let mut out = Vec::new();
        Self::from_yaml(text, opts)?.encode(&mut out)?;
        sink.append(&out);
        Ok(Default::default())
    }
    fn from_yaml(text: &str, _: &ImportOptions) -> Result<Self, ImportError> {
        Anim::from_document(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(AnimDocument)
    }
    fn info(&self) -> Vec<crate::codec::InfoLine> {
        let events: usize = self
            .anim_defs
            .iter()
            .flat_map(|d| std::iter::once(&d.reset_state).chain(&d.sequences))
            .map(|s| s.events.len())
            .sum();
        let sequences: usize = self.anim_defs.iter().map(|d| d.sequences.len()).sum();
        vec![
            ("anim list entries", self.anim_list.len().to_string()),
            ("anim defs", self.anim_defs.len().to_string()),
            ("sequences", sequences.to_string()),
            ("events", events.to_string()),
            ("defs_ptr", self.info.defs_ptr.to_string()),
            ("world_ptr", self.info.world_ptr.to_string()),
            ("gravity", self.info.gravity.to_string()),
        ]
    }
    fn field_at(&self, offset: u64) -> String {
        let mut marks = Vec::new();
        let mut out = Vec::new();
        if self.write(&mut out, Some(&mut marks)).is_err() {
            return "<unencodable>".into();
        }
        let mut best = "<file>".to_string();
        for (o, p) in marks {
            if o as u64 <= offset {
                best = p;
            } else {
                break;
            }
        }
        // Down to the event inside a stream.
        if let Some(path) = event_at(self, &best, offset) {
            return path;
        }
        best
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        let (Ok(a), Ok(b)) = (
            self.to_yaml(&ExportOptions::default()),
            other.to_yaml(&ExportOptions::default()),
        ) else {
            return vec!["(cannot render one of the documents)".into()];
        };
        diff::diff_documents(&a, &b)
    }
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<Finding> {
        check::check(self)
    }
}

/// The event an offset falls in, when it is inside a sequence or reset state stream.
fn event_at(a: &Anim, part: &str, offset: u64) -> Option<String> {
    let (def_s, rest) = part.strip_prefix("anim_defs[")?.split_once(']')?;
    let di: usize = def_s.parse().ok()?;
    let d = a.anim_defs.get(di)?;
    let seq = if rest == ".reset_state" {
        &d.reset_state
    } else {
        let si: usize = rest
            .strip_prefix(".sequences[")?
            .strip_suffix(']')?
            .parse()
            .ok()?;
        d.sequences.get(si)?
    };
    let mut marks = Vec::new();
    let mut out = Vec::new();
    a.write(&mut out, Some(&mut marks)).ok()?;
    let start = marks.iter().find(|(_, p)| p == part)?.0 + SEQ_DEF_SIZE;
    if (offset as usize) < start {
        return Some(part.to_string());
    }
    let names = d.names();
    let mut pos = start;
    for (i, e) in seq.events.iter().enumerate() {
        let mut buf = Vec::new();
        e.write(&mut buf, &names).ok()?;
        if (offset as usize) < pos + buf.len() {
            return Some(format!("{part}.events[{i}] ({})", e.data.name()));
        }
        pos += buf.len();
    }
    None
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_events;

/// The fuzz target's logic (also run by the property tests): decoding arbitrary bytes must not
/// panic, and whatever decodes must come back byte for byte through the model and through
/// YAML. `Err` describes a broken round trip.
pub fn fuzz_round_trip(data: &[u8]) -> Result<(), String> {
    let Ok(a) = Anim::read(data) else {
        return Ok(());
    };
    let mut out = Vec::new();
    a.write(&mut out, None)
        .map_err(|e| format!("decoded model does not encode: {e}"))?;
    if out != data {
        return Err(format!(
            "binary round trip differs at {:?}",
            crate::exact::first_difference(data, &out)
        ));
    }
    let text = Codec::to_yaml(&a, &ExportOptions::default()).map_err(|e| e.to_string())?;
    let b = Anim::from_yaml(&text, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let mut out2 = Vec::new();
    b.write(&mut out2, None).map_err(|e| e.to_string())?;
    if out2 != data {
        return Err(format!(
            "YAML round trip differs at {:?}",
            crate::exact::first_difference(data, &out2)
        ));
    }
    let _ = Codec::check(&a, &Default::default());
    Ok(())
}
#[cfg(test)]
mod tests_prop;
