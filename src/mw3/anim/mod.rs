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

struct DocOut<'a>(&'a Anim);

impl Anim {
    /// The YAML document as a serde value (what [`Codec::to_yaml`] writes; for comparing
    /// serializers).
    pub fn document(&self) -> impl Serialize + '_ {
        DocOut(self)
    }
}

impl Serialize for DocOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let a = self.0;
        let mut st = s.serialize_struct("AnimDocument", 7)?;
        st.serialize_field("format", Anim::TAG)?;
        st.serialize_field("version", &Anim::YAML_VERSION)?;
        st.serialize_field("anim_list", &a.anim_list)?;
        st.serialize_field("info", &a.info)?;
        if let Some(z) = &a.zero_def {
            st.serialize_field("zero_def", z)?;
        }
        st.serialize_field("anim_defs", &DefsOut(&a.anim_defs))?;
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
        let mut anim_defs = Vec::with_capacity(n);
        for i in 0..n {
            anim_defs.push(AnimDef::read(&mut c).within_index(i).within("anim_defs")?);
        }
        let trailing = Blob(c.rest().to_vec());
        Ok(Anim {
            anim_list,
            info,
            zero_def,
            anim_defs,
            trailing,
        })
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
    fn stream_into(text: &str, sink: &mut dyn Sink) -> Option<()> {
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
        let consume = |before: &AnimDocument, (n, part): (usize, Vec<u8>), piece: &str| {
            if head_len.is_none() {
                // (the head as far as it is known: the count of defs is patched in at the end)
                let head = head_of(before, 0)?;
                sink.append(&head);
                head_len = Some(head.len());
            }
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
            consume,
        )?;
        let head = head_of(&doc, defs)?;
        if Some(head.len()) != head_len {
            return None;
        }
        sink.patch(0, &head);
        sink.append(doc.trailing.as_bytes());
        Some(())
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
        crate::yaml::to_string_with_capacity(&DocOut(self), capacity)
            .map_err(|e| EncodeError::new(e.to_string()))
    }
    // (MW3 has no value findings and no edit warnings: the default's are empty, so the file
    // the output replaces is not decoded, a 10 MB anim.zbd's 25 ms and memory saved)
    fn import_to(
        text: &str,
        opts: &ImportOptions,
        _previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<crate::codec::Imported, ImportError> {
        if Self::stream_into(text, sink).is_some() {
            return Ok(Default::default());
        }
        sink.restart();
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
