//! The `zengin.man` YAML document: written by a streaming view over the binary model (samples
//! are decoded on the fly, one per line) and read with seeds that check frame and node counts
//! against the header while parsing, so count errors carry a line and column.

use crate::codec::{check_document_header, Codec, ImportOptions};
use crate::exact::{Blob, EncodeError, FieldPath, Hex32, ImportError, Within, YamlError, F32};
use crate::zengin::man::quant;
pub use crate::zengin::man::yaml_fast::{FramesIn, RotationError, SampleIn};
use crate::zengin::man::yaml_render::{render_frames, render_frames_streamed};
use crate::zengin::man::{Chunk, Dims, Events, Header, Man, Marker, Samples, Source, Unknown};
use schemars::JsonSchema;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Writing

/// The document; each samples chunk's `frames` is written as the
/// [`placeholder`](crate::zengin::man::yaml_fast::placeholder) of its block with
/// `placeholders` (for `verify`, see `zengin::man::verify`), else as [`FRAMES_MARK`] where
/// [`to_yaml_with`] puts the rendered block.
struct DocOut<'a> {
    man: &'a Man,
    placeholders: bool,
}

impl Serialize for DocOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ManDocument", 3)?;
        st.serialize_field("format", Man::TAG)?;
        st.serialize_field("version", &Man::YAML_VERSION)?;
        st.serialize_field("chunks", &ChunksOut(self))?;
        st.end()
    }
}

struct ChunksOut<'a>(&'a DocOut<'a>);

impl Serialize for ChunksOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let chunks = &self.0.man.chunks;
        let mut seq = s.serialize_seq(Some(chunks.len()))?;
        let mut blocks = 0;
        for c in chunks {
            match c {
                Chunk::Marker(m) => seq.serialize_element(&Variant("marker", m))?,
                Chunk::Header(h) => seq.serialize_element(&Variant("header", h))?,
                Chunk::Source(x) => seq.serialize_element(&Variant("source", x))?,
                Chunk::Events(e) => seq.serialize_element(&Variant("events", e))?,
                Chunk::Unknown(u) => seq.serialize_element(&Variant("unknown", u))?,
                Chunk::Samples(x) => {
                    seq.serialize_element(&Variant(
                        "samples",
                        &SamplesOut {
                            samples: x,
                            placeholder: self.0.placeholders.then_some(blocks),
                        },
                    ))?;
                    blocks += 1;
                }
            }
        }
        seq.end()
    }
}

/// `{name: value}`, the externally tagged enum form.
struct Variant<'a, T>(&'static str, &'a T);

impl<T: Serialize> Serialize for Variant<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_variant("Chunk", 0, self.0, self.1)
    }
}

struct SamplesOut<'a> {
    samples: &'a Samples,
    /// Write `frames` as the placeholder of block k.
    placeholder: Option<usize>,
}

impl Serialize for SamplesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.samples;
        let mut st = s.serialize_struct("Samples", 4)?;
        st.serialize_field("checksum", &x.checksum)?;
        st.serialize_field("node_indices", &x.node_indices)?;
        match self.placeholder {
            Some(k) => {
                st.serialize_field("frames", &crate::zengin::man::yaml_fast::placeholder(k))?
            }
            // A block line the emitter indents like the frames' lines (and never writes on
            // one line), replaced by them in `to_yaml_with`.
            None if has_frames(x) => {
                st.serialize_field("frames", &crate::yaml::RawBlock(FRAMES_MARK))?
            }
            None => st.serialize_field("frames", &Vec::<u32>::new())?,
        }
        if !x.trailing.is_empty() {
            st.serialize_field("trailing", &x.trailing)?;
        }
        st.end()
    }
}

/// Stands for a rendered `frames:` block in the document the emitter writes (U+0001 is
/// escaped in every string the emitter writes, so only this line holds one).
const FRAMES_MARK: &str = "\u{1}\n";

/// Whether `x` has a whole frame (else `frames` is written `[]`).
fn has_frames(x: &Samples) -> bool {
    let n = x.node_indices.len();
    n > 0 && x.codes.len() >= n
}

/// The `node: NAME, ` text of each node of `x` (`export --mdh`; import ignores `node`).
fn node_labels(x: &Samples, names: &[crate::exact::Text]) -> Vec<String> {
    x.node_indices
        .iter()
        .map(|&i| match names.get(i as usize) {
            Some(name) => {
                let mut s = String::from("node: ");
                crate::yaml::write_str(&mut s, &name.to_unicode());
                s.push_str(", ");
                s
            }
            None => String::new(),
        })
        .collect()
}

pub fn to_yaml(man: &Man) -> Result<String, EncodeError> {
    to_yaml_with(man, None)
}

/// [`to_yaml`] with the skeleton's node names (from the MDH companion): each sample is
/// labelled with its node.
pub fn to_yaml_with(
    man: &Man,
    node_names: Option<&[crate::exact::Text]>,
) -> Result<String, EncodeError> {
    let samples = |c: &Chunk| match c {
        Chunk::Samples(x) => x.codes.len(),
        _ => 0,
    };
    let mut out = String::with_capacity(4096 + man.chunks.iter().map(samples).sum::<usize>() * 128);
    match write_document(man, node_names, &mut out) {
        Ok(()) => Ok(out),
        Err(crate::codec::ExportError::Encode(e)) => Err(e),
        // (a String takes every write; the model is decoded already)
        Err(crate::codec::ExportError::Write(e)) => Err(EncodeError::new(e.to_string())),
        Err(crate::codec::ExportError::Decode(e)) => Err(EncodeError::new(e.to_string())),
    }
}

/// [`to_yaml_with`] written to `out` as it is made: the frames a batch at a time, so the
/// memory it takes is a few megabytes whatever the size of the document (the same bytes).
pub fn to_yaml_into(
    man: &Man,
    node_names: Option<&[crate::exact::Text]>,
    out: &mut dyn std::io::Write,
) -> Result<(), crate::codec::ExportError> {
    write_document(man, node_names, &mut Streamed(out))
}

/// Where [`write_document`] puts the document: a whole `String`, or a writer (a batch of
/// frames at a time).
trait TextOut {
    fn text(&mut self, s: &str) -> std::io::Result<()>;
    fn frames(&mut self, frames: Frames<'_>) -> std::io::Result<()>;
}

/// One `frames:` block to render (see [`render_frames`]).
struct Frames<'a> {
    codes: &'a [[u16; 6]],
    nodes: usize,
    range: (f32, f32),
    labels: Option<&'a [String]>,
    indent: usize,
}

impl TextOut for String {
    fn text(&mut self, s: &str) -> std::io::Result<()> {
        self.push_str(s);
        Ok(())
    }
    fn frames(&mut self, f: Frames<'_>) -> std::io::Result<()> {
        render_frames(self, f.codes, f.nodes, f.range, f.labels, f.indent);
        Ok(())
    }
}

struct Streamed<'a>(&'a mut dyn std::io::Write);

impl TextOut for Streamed<'_> {
    fn text(&mut self, s: &str) -> std::io::Result<()> {
        self.0.write_all(s.as_bytes())
    }
    fn frames(&mut self, f: Frames<'_>) -> std::io::Result<()> {
        let write = &mut |text: &str| self.0.write_all(text.as_bytes());
        render_frames_streamed(write, f.codes, f.nodes, f.range, f.labels, f.indent)
    }
}

/// The document: the emitter writes everything but the samples (a few hundred bytes); the
/// frames are rendered straight into the output where their marks are.
fn write_document(
    man: &Man,
    node_names: Option<&[crate::exact::Text]>,
    out: &mut dyn TextOut,
) -> Result<(), crate::codec::ExportError> {
    let doc = DocOut {
        man,
        placeholders: false,
    };
    let skeleton = crate::yaml::to_string_with_capacity(&doc, 4096)
        .map_err(|e| EncodeError::new(e.to_string()))?;
    let mut rest = skeleton.as_str();
    for (i, c) in man.chunks.iter().enumerate() {
        let Chunk::Samples(x) = c else { continue };
        if !has_frames(x) {
            continue;
        }
        let at = rest
            .find(FRAMES_MARK)
            .ok_or_else(|| EncodeError::new("internal: a frames block is not in the document"))?;
        let line = rest[..at].rfind('\n').map_or(0, |p| p + 1);
        out.text(&rest[..line])?;
        let header = crate::zengin::man::governing_header(&man.chunks, i, |c| match c {
            Chunk::Header(h) => Some(h),
            _ => None,
        });
        let range = header.map_or((0.0, 0.0), |h| {
            (h.position_min.get(), h.position_scale.get())
        });
        let labels = node_names.map(|names| node_labels(x, names));
        out.frames(Frames {
            codes: &x.codes,
            nodes: x.node_indices.len(),
            range,
            labels: labels.as_deref(),
            indent: at - line,
        })?;
        rest = &rest[at + FRAMES_MARK.len()..];
    }
    out.text(rest)?;
    Ok(())
}

/// The document of [`to_yaml`] with each samples chunk's `frames` written as the placeholder
/// of its block (numbered in document order), for `verify` (`zengin::man::verify`).
pub(crate) fn to_yaml_placeholders(man: &Man) -> Result<String, EncodeError> {
    let doc = DocOut {
        man,
        placeholders: true,
    };
    crate::yaml::to_string_with_capacity(&doc, 4096).map_err(|e| EncodeError::new(e.to_string()))
}

// ---------------------------------------------------------------------------------------------
// Reading: the document types (also the source of the JSON Schema)

/// A `zengin.man` YAML document.
#[derive(Debug, JsonSchema)]
#[schemars(title = "animkit zengin.man document", deny_unknown_fields)]
pub struct ManDocument {
    /// Always `zengin.man`.
    #[schemars(schema_with = "format_tag_schema")]
    pub format: String,
    /// Document version; this animkit reads 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// The file's chunks in file order.
    pub chunks: Vec<ChunkIn>,
}

fn format_tag_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    crate::exact::schema_from_json(serde_json::json!({"const": Man::TAG}))
}

#[derive(Debug, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChunkIn {
    Marker(Marker),
    Header(Header),
    Source(Source),
    Events(Events),
    Samples(SamplesIn),
    Unknown(Unknown),
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ChunkTag {
    Marker,
    Header,
    Source,
    Events,
    Samples,
    Unknown,
}

/// 0xA090 as written in YAML.
#[derive(Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SamplesIn {
    /// CRC-32 of the model hierarchy's node names.
    pub checksum: Hex32,
    /// Index of each animated node in the hierarchy (`header.node_count` entries).
    pub node_indices: Vec<u32>,
    /// `header.frame_count` frames, each a list of `header.node_count` samples.
    #[schemars(with = "Vec<Vec<SampleIn>>")]
    pub frames: FramesIn,
    #[serde(default)]
    pub trailing: Blob,
}

const DOC_FIELDS: &[&str] = &["format", "version", "chunks"];

/// Frames read by [`crate::zengin::man::yaml_fast`], taken by the placeholders that stand for them.
type FastFrames = std::cell::RefCell<Vec<Option<FramesIn>>>;

impl<'de> Deserialize<'de> for ManDocument {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        DocSeed {
            fast: None,
            lean: None,
        }
        .deserialize(d)
    }
}

/// Reads a document; `fast` holds pre-read frame blocks for placeholders; with `lean`, each
/// events chunk's list is encoded as it is read into the next entry of `lean` and left empty
/// in the document (see [`from_yaml_lean`]).
#[derive(Clone, Copy)]
struct DocSeed<'a> {
    fast: Option<&'a FastFrames>,
    lean: Option<&'a LeanEvents>,
}

/// The events of one events chunk as the file holds them (the count, then each event), read
/// straight from the document by [`from_yaml_lean`]: about a third of the memory of the
/// decoded list (an [`crate::zengin::man::Event`] holds five strings of their own).
#[derive(Debug, Default)]
pub struct EncodedEvents {
    pub count: u32,
    /// The events' bytes in pieces of about [`EVENT_PIECE`] bytes (a list that grows is never
    /// copied).
    pub pieces: Vec<Vec<u8>>,
}

impl EncodedEvents {
    /// The events' bytes after the count.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The size of [`EncodedEvents::pieces`].
const EVENT_PIECE: usize = 1 << 20;

type LeanEvents = std::cell::RefCell<Vec<EncodedEvents>>;

/// An events chunk read into [`EncodedEvents`] (pushed to the list); the value is the chunk
/// with an empty list. Any shape other than `{events: [...], trailing: ...}` is refused (the
/// caller then takes the ordinary path, which reads it or reports it).
struct LeanEventsSeed<'a>(&'a LeanEvents);

const EVENTS_FIELDS: &[&str] = &["events", "trailing"];

impl<'de> DeserializeSeed<'de> for LeanEventsSeed<'_> {
    type Value = Events;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Events, D::Error> {
        d.deserialize_struct("Events", EVENTS_FIELDS, self)
    }
}

impl<'de> Visitor<'de> for LeanEventsSeed<'_> {
    type Value = Events;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an events chunk")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Events, A::Error> {
        let (mut encoded, mut trailing) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "events" if encoded.is_none() => {
                    encoded = Some(map.next_value_seed(EventListSeed)?);
                }
                "trailing" if trailing.is_none() => trailing = Some(map.next_value::<Blob>()?),
                other => return Err(de::Error::unknown_field(other, EVENTS_FIELDS)),
            }
        }
        let encoded = encoded.ok_or_else(|| de::Error::missing_field("events"))?;
        self.0.borrow_mut().push(encoded);
        Ok(Events {
            events: Vec::new(),
            trailing: trailing.unwrap_or_default(),
        })
    }
}

struct EventListSeed;

impl<'de> DeserializeSeed<'de> for EventListSeed {
    type Value = EncodedEvents;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<EncodedEvents, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EventListSeed {
    type Value = EncodedEvents;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<EncodedEvents, A::Error> {
        let mut out = EncodedEvents::default();
        let mut piece = Vec::new();
        while let Some(e) = seq.next_element::<crate::zengin::man::Event>()? {
            if piece.capacity() == 0 {
                piece.reserve_exact(EVENT_PIECE);
            }
            // (exactly what the chunk's writer does with the decoded event)
            e.put(&mut piece).map_err(de::Error::custom)?;
            out.count = out
                .count
                .checked_add(1)
                .ok_or_else(|| de::Error::custom("too many events"))?;
            if piece.len() + 1024 > EVENT_PIECE {
                out.pieces.push(std::mem::take(&mut piece));
            }
        }
        if !piece.is_empty() {
            piece.shrink_to_fit();
            out.pieces.push(piece);
        }
        Ok(out)
    }
}

impl<'de> DeserializeSeed<'de> for DocSeed<'_> {
    type Value = ManDocument;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ManDocument, D::Error> {
        struct V<'a>(DocSeed<'a>);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = ManDocument;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a zengin.man document (format, version, chunks)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ManDocument, A::Error> {
                let (mut format, mut version, mut chunks) = (None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    refuse_again(
                        &key,
                        &[
                            ("format", format.is_some()),
                            ("version", version.is_some()),
                            ("chunks", chunks.is_some()),
                        ],
                    )?;
                    match key.as_str() {
                        "format" => {
                            let f: String = map.next_value()?;
                            if f != Man::TAG {
                                return Err(de::Error::custom(format!(
                                    "document is `format: {f}`, expected `{}`",
                                    Man::TAG
                                )));
                            }
                            format = Some(f);
                        }
                        "version" => {
                            let v: u32 = map.next_value()?;
                            check_document_header(Man::TAG, v, Man::TAG, Man::YAML_VERSION)
                                .map_err(de::Error::custom)?;
                            version = Some(v);
                        }
                        "chunks" => chunks = Some(map.next_value_seed(ChunksSeed(self.0))?),
                        other => return Err(de::Error::unknown_field(other, DOC_FIELDS)),
                    }
                }
                Ok(ManDocument {
                    format: format.ok_or_else(|| de::Error::missing_field("format"))?,
                    version: version.ok_or_else(|| de::Error::missing_field("version"))?,
                    chunks: chunks.ok_or_else(|| de::Error::missing_field("chunks"))?,
                })
            }
        }
        d.deserialize_struct("ManDocument", DOC_FIELDS, V(self))
    }
}

struct ChunksSeed<'a>(DocSeed<'a>);

impl<'de> DeserializeSeed<'de> for ChunksSeed<'_> {
    type Value = Vec<ChunkIn>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChunksSeed<'_> {
    type Value = Vec<ChunkIn>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of chunks")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        let mut dims = None;
        while let Some(c) = seq.next_element_seed(ChunkSeed { dims, doc: self.0 })? {
            if let ChunkIn::Header(h) = &c {
                dims = Some(Dims::of(h));
            }
            out.push(c);
        }
        Ok(out)
    }
}

/// One chunk; `dims` are the counts of the header before it, if any.
#[derive(Clone, Copy)]
struct ChunkSeed<'a> {
    dims: Option<Dims>,
    doc: DocSeed<'a>,
}

impl<'de> DeserializeSeed<'de> for ChunkSeed<'_> {
    type Value = ChunkIn;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        // `- header: {...}`: a one-key mapping naming the chunk kind.
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ChunkSeed<'_> {
    type Value = ChunkIn;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a chunk: one of marker, header, source, events, samples or unknown, as `kind: {...}`",
        )
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChunkIn, A::Error> {
        // (read as text first, so an error's field path names the chunk kind)
        let key: String = map
            .next_key()?
            .ok_or_else(|| de::Error::invalid_length(0, &"one chunk kind"))?;
        let tag = ChunkTag::deserialize(de::value::StrDeserializer::<A::Error>::new(&key))?;
        let chunk = match tag {
            ChunkTag::Marker => ChunkIn::Marker(map.next_value()?),
            ChunkTag::Header => ChunkIn::Header(map.next_value()?),
            ChunkTag::Source => ChunkIn::Source(map.next_value()?),
            ChunkTag::Events => match self.doc.lean {
                Some(lean) => ChunkIn::Events(map.next_value_seed(LeanEventsSeed(lean))?),
                None => ChunkIn::Events(map.next_value()?),
            },
            ChunkTag::Unknown => ChunkIn::Unknown(map.next_value()?),
            ChunkTag::Samples => ChunkIn::Samples(map.next_value_seed(SamplesSeed(self))?),
        };
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "a chunk entry names exactly one kind; start each chunk with its own `- `",
            ));
        }
        Ok(chunk)
    }
}

struct SamplesSeed<'a>(ChunkSeed<'a>);

const SAMPLES_FIELDS: &[&str] = &["checksum", "node_indices", "frames", "trailing"];

impl<'de> DeserializeSeed<'de> for SamplesSeed<'_> {
    type Value = SamplesIn;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct("Samples", SAMPLES_FIELDS, self)
    }
}

impl<'de> Visitor<'de> for SamplesSeed<'_> {
    type Value = SamplesIn;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a samples chunk (checksum, node_indices, frames)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SamplesIn, A::Error> {
        let dims = self.0.dims;
        let (mut checksum, mut nodes, mut frames, mut trailing) =
            (None, None::<Vec<u32>>, None, None);
        while let Some(key) = map.next_key::<String>()? {
            refuse_again(
                &key,
                &[
                    ("checksum", checksum.is_some()),
                    ("node_indices", nodes.is_some()),
                    ("frames", frames.is_some()),
                    ("trailing", trailing.is_some()),
                ],
            )?;
            match key.as_str() {
                "checksum" => checksum = Some(map.next_value()?),
                "node_indices" => {
                    let v: Vec<u32> = map.next_value()?;
                    if let Some(d) = dims {
                        if v.len() as u64 != u64::from(d.nodes) {
                            return Err(de::Error::custom(format!(
                                "node_indices has {} entries, but header.node_count is {}",
                                v.len(),
                                d.nodes
                            )));
                        }
                    }
                    nodes = Some(v);
                }
                "frames" => {
                    let node_count = nodes
                        .as_ref()
                        .map(|n| n.len())
                        .or(dims.map(|d| d.nodes as usize));
                    frames = Some(map.next_value_seed(FramesSeed {
                        frames: dims.map(|d| d.frames as usize),
                        nodes: node_count,
                        fast: self.0.doc.fast,
                    })?);
                }
                "trailing" => trailing = Some(map.next_value()?),
                other => return Err(de::Error::unknown_field(other, SAMPLES_FIELDS)),
            }
        }
        Ok(SamplesIn {
            checksum: checksum.ok_or_else(|| de::Error::missing_field("checksum"))?,
            node_indices: nodes.ok_or_else(|| de::Error::missing_field("node_indices"))?,
            frames: frames.ok_or_else(|| de::Error::missing_field("frames"))?,
            trailing: trailing.unwrap_or_default(),
        })
    }
}

struct FramesSeed<'a> {
    frames: Option<usize>,
    nodes: Option<usize>,
    fast: Option<&'a FastFrames>,
}

impl<'de> DeserializeSeed<'de> for FramesSeed<'_> {
    type Value = FramesIn;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        if self.fast.is_some() {
            // A list, or the placeholder of a pre-read block.
            d.deserialize_any(self)
        } else {
            d.deserialize_seq(self)
        }
    }
}

impl<'de> Visitor<'de> for FramesSeed<'_> {
    type Value = FramesIn;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of frames, each a list of samples")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<FramesIn, E> {
        let block = self
            .fast
            .zip(crate::zengin::man::yaml_fast::placeholder_index(v))
            .and_then(|(fast, k)| fast.borrow_mut().get_mut(k).and_then(Option::take))
            .ok_or_else(|| E::invalid_type(de::Unexpected::Str(v), &self))?;
        // The fast reader checked that every frame has the same size; the counts must agree
        // with the header and node_indices (any error sends the caller down the ordinary path,
        // which reports it with its line).
        let nodes = self.nodes.unwrap_or(0);
        let per_frame = block.len().checked_div(block.frames).unwrap_or(0);
        let frames_ok = nodes == 0 || self.frames.is_none_or(|n| n == block.frames);
        if per_frame != nodes || !frames_ok || self.nodes.is_none() {
            return Err(E::custom(
                "frame counts differ (re-read on the ordinary path)",
            ));
        }
        Ok(block)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FramesIn, A::Error> {
        let mut out = FramesIn::default();
        let mut nodes = self.nodes;
        loop {
            let before = out.len();
            let seed = FrameSeed {
                nodes,
                out: &mut out,
            };
            if seq.next_element_seed(seed)?.is_none() {
                break;
            }
            nodes.get_or_insert(out.len() - before);
            out.frames += 1;
            // With no nodes there are no samples and the list of frames is left empty.
            if self.nodes == Some(0) {
                continue;
            }
            if let Some(n) = self.frames {
                if out.frames > n {
                    return Err(de::Error::custom(format!(
                        "more than header.frame_count = {n} frames"
                    )));
                }
            }
        }
        if let (Some(n), false) = (self.frames, self.nodes == Some(0)) {
            if out.frames != n {
                return Err(de::Error::custom(format!(
                    "{} frames, but header.frame_count is {n}",
                    out.frames
                )));
            }
        }
        Ok(out)
    }
}

struct FrameSeed<'a> {
    nodes: Option<usize>,
    out: &'a mut FramesIn,
}

impl<'de> DeserializeSeed<'de> for FrameSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FrameSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a frame: a list of samples, one per node")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut count = 0usize;
        while let Some(s) = seq.next_element::<SampleIn>()? {
            self.out.push(s);
            count += 1;
        }
        if let Some(n) = self.nodes {
            if count != n {
                return Err(de::Error::custom(format!(
                    "frame has {count} samples, but there are {n} nodes (node_indices / header.node_count)"
                )));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Document → binary model

/// For each chunk, the header chunk that governs it: the last one before it, else the first
/// one from it on. One pass each way (linear in the chunk count; a search from every chunk was
/// quadratic: 300,000 marker chunks took minutes).
fn governing_headers(chunks: &[ChunkIn]) -> Vec<Option<usize>> {
    let is_header = |c: &ChunkIn| matches!(c, ChunkIn::Header(_));
    let mut out = vec![None; chunks.len()];
    let mut next = None;
    for i in (0..chunks.len()).rev() {
        if is_header(&chunks[i]) {
            next = Some(i);
        }
        out[i] = next;
    }
    let mut last = None;
    for (i, c) in chunks.iter().enumerate() {
        if last.is_some() {
            out[i] = last;
        }
        if is_header(c) {
            last = Some(i);
        }
    }
    out
}

fn encode_samples(
    s: SamplesIn,
    header: &Header,
    requantize: bool,
) -> Result<(Samples, Option<(F32, F32)>), EncodeError> {
    let nodes = s.node_indices.len();
    let at = |f: usize, n: usize, field: &'static str| {
        let mut p = FieldPath::new()
            .field("frames")
            .index(f)
            .index(n)
            .field(field);
        p.prefix(crate::exact::Segment::Field("samples"));
        p
    };
    if nodes as u64 != u64::from(header.node_count) {
        return Err(EncodeError {
            path: FieldPath::new().field("samples").field("node_indices"),
            message: format!(
                "{} node indices, but header.node_count is {}",
                nodes, header.node_count
            ),
        });
    }
    // Without nodes there are no samples; the frame list is written empty.
    if nodes > 0 && s.frames.frames as u64 != u64::from(header.frame_count) {
        return Err(EncodeError {
            path: FieldPath::new().field("samples").field("frames"),
            message: format!(
                "{} frames, but header.frame_count is {}",
                s.frames.frames, header.frame_count
            ),
        });
    }
    if nodes == 0 && !s.frames.is_empty() {
        return Err(EncodeError {
            path: FieldPath::new().field("samples").field("frames"),
            message: "samples given, but node_indices is empty".into(),
        });
    }
    let frame_node = |k: usize| (k / nodes.max(1), k % nodes.max(1));
    let mut frames = s.frames;
    // Refusals found while reading, in the order they are reported: rotations first.
    if let Some((k, e)) = frames.rotation_error.take() {
        let (f, n) = frame_node(k);
        let message = match e {
            RotationError::Encode(m) => format!("frame {f}, node {n}: {m}"),
            RotationError::NotExactlyOne => {
                format!("frame {f}, node {n}: give exactly one of rotation and rotation_code")
            }
        };
        return Err(EncodeError {
            path: at(f, n, "rotation"),
            message,
        });
    }
    if let Some(k) = frames.position_error {
        let (f, n) = frame_node(k);
        return Err(EncodeError {
            path: at(f, n, "position"),
            message: format!("frame {f}, node {n}: give exactly one of position and position_code"),
        });
    }
    let (old_min, old_scale) = (header.position_min.get(), header.position_scale.get());
    let (mut min, mut scale) = (old_min, old_scale);
    // With --requantize, positions given as codes count as the values they decode to (with
    // the header's range) and are packed again.
    let value_of = |frames: &FramesIn, k: usize, j: &mut usize| -> Option<[f32; 3]> {
        if frames.valued(k) {
            *j += 1;
            Some(frames.positions[*j - 1].map(F32::get))
        } else if requantize {
            let c = &frames.codes[k];
            Some([c[3], c[4], c[5]].map(|c| quant::unpack_position(c, old_min, old_scale)))
        } else {
            None
        }
    };
    let mut new_range = None;
    if requantize {
        let mut j = 0;
        let (m, sc) = quant::position_range(
            (0..frames.len())
                .filter_map(|k| value_of(&frames, k, &mut j))
                .map(glam::Vec3::from_array),
        );
        min = m;
        scale = sc;
        new_range = Some((F32::new(m), F32::new(sc)));
    }
    let mut j = 0;
    for k in 0..frames.len() {
        let Some(p) = value_of(&frames, k, &mut j) else {
            continue;
        };
        let (f, n) = frame_node(k);
        for axis in 0..3 {
            frames.codes[k][3 + axis] = match quant::pack_position(p[axis], min, scale) {
                Some(c) => c,
                None if requantize => {
                    return Err(EncodeError {
                        path: at(f, n, "position"),
                        message: format!(
                            "frame {f}, node {n}: position value {} is not a finite number",
                            p[axis]
                        ),
                    })
                }
                None => {
                    let max = quant::unpack_position(65535, min, scale);
                    return Err(EncodeError {
                        path: at(f, n, "position").index(axis),
                        message: format!(
                            "frame {f}, node {n} (node index {}): position {} = {} is outside what position_min {} and position_scale {} can hold ({} … {}); import with --requantize to recompute the range from all positions",
                            s.node_indices.get(n).copied().unwrap_or_default(),
                            ["x", "y", "z"][axis],
                            F32::new(p[axis]),
                            F32::new(min),
                            F32::new(scale),
                            F32::new(min),
                            F32::new(max)
                        ),
                    });
                }
            };
        }
    }
    let codes = std::mem::take(&mut frames.codes);
    drop(frames);
    Ok((
        Samples {
            checksum: s.checksum,
            node_indices: s.node_indices,
            codes,
            trailing: s.trailing,
        },
        new_range,
    ))
}

/// Turn a parsed document into the binary model.
pub fn document_to_man(doc: ManDocument, opts: &ImportOptions) -> Result<Man, EncodeError> {
    let headers: Vec<Option<Header>> = doc
        .chunks
        .iter()
        .map(|c| match c {
            ChunkIn::Header(h) => Some(h.clone()),
            _ => None,
        })
        .collect();
    let governing = governing_headers(&doc.chunks);
    let mut chunks = Vec::with_capacity(doc.chunks.len());
    let mut ranges = Vec::new();
    for (i, c) in doc.chunks.into_iter().enumerate() {
        let chunk = match c {
            ChunkIn::Marker(m) => Chunk::Marker(m),
            ChunkIn::Header(h) => Chunk::Header(h),
            ChunkIn::Source(s) => Chunk::Source(s),
            ChunkIn::Events(e) => Chunk::Events(e),
            ChunkIn::Unknown(u) => Chunk::Unknown(u),
            ChunkIn::Samples(s) => {
                let hi = governing[i]
                    .ok_or_else(|| EncodeError::new("a samples chunk needs a header chunk"))
                    .within_index(i)
                    .within("chunks")?;
                let header = headers[hi]
                    .as_ref()
                    .ok_or_else(|| EncodeError::new("internal: header index"))?;
                let (samples, range) = encode_samples(s, header, opts.requantize)
                    .within_index(i)
                    .within("chunks")?;
                if let Some(r) = range {
                    ranges.push((hi, r));
                }
                Chunk::Samples(samples)
            }
        };
        chunks.push(chunk);
    }
    for (hi, (min, scale)) in ranges {
        if let Some(Chunk::Header(h)) = chunks.get_mut(hi) {
            h.position_min = min;
            h.position_scale = scale;
        }
    }
    Ok(Man { chunks })
}

pub fn from_yaml(text: &str, opts: &ImportOptions) -> Result<Man, ImportError> {
    if let Some(man) = from_yaml_fast(text, opts) {
        return Ok(man);
    }
    let doc: ManDocument = crate::yaml::from_str(text)?;
    Ok(document_to_man(doc, opts)?)
}

/// The import with the frames read by [`crate::zengin::man::yaml_fast`]; `None` on any problem (the caller
/// then takes the ordinary path, which gives the same result or the proper error).
pub fn from_yaml_fast(text: &str, opts: &ImportOptions) -> Option<Man> {
    let (reduced, blocks) = crate::zengin::man::yaml_fast::split(text)?;
    if blocks.is_empty() {
        return None;
    }
    from_yaml_blocks(&reduced, blocks, opts)
}

/// The import of a document whose `frames` blocks were replaced by placeholders and read
/// already (`blocks`, in placeholder order); `None` on any problem.
pub(crate) fn from_yaml_blocks(
    reduced: &str,
    blocks: Vec<FramesIn>,
    opts: &ImportOptions,
) -> Option<Man> {
    let fast: FastFrames = std::cell::RefCell::new(blocks.into_iter().map(Some).collect());
    let seed = DocSeed {
        fast: Some(&fast),
        lean: None,
    };
    // (the fast reader first, as every import: the document around the frames is small, but
    // serde-saphyr's set-up and events were a third of `verify`'s time on archives of small
    // MANs; outside its subset this gives `None` and the caller takes the ordinary path,
    // which gives the same result or the proper error)
    let fast_doc = if crate::yaml::read::fast_reader_on() {
        crate::yaml::fast::from_str_seed(crate::yaml::strip_bom(reduced), seed)
    } else {
        None
    };
    let doc = match fast_doc {
        Some(doc) => doc,
        // Outside the general fast reader's subset (the frames placeholders stand on lines of
        // their own): serde-saphyr reads the small reduced document, the frames blocks still
        // taken from the placeholders, as long as none was taken by the failed attempt.
        None if fast.borrow().iter().all(Option::is_some) => {
            let seed = DocSeed {
                fast: Some(&fast),
                lean: None,
            };
            crate::yaml::from_str_seed(reduced, seed).ok()?
        }
        None => return None,
    };
    // Every block must have been taken by its placeholder.
    if fast.borrow().iter().any(Option::is_some) {
        return None;
    }
    document_to_man(doc, opts).ok()
}

/// The reduced document of the frames fast path is made when at most this large, or at most
/// an eighth of the text (see [`from_yaml_lean`]).
const REDUCED_SMALL: usize = 1 << 20;

/// The import of `import` (`Codec::import_to`), in less memory than [`from_yaml`]: the model
/// with each events chunk's list left empty, and the events of each events chunk in document
/// order as their bytes ([`EncodedEvents`], the count and the events the chunk's writer
/// writes). The frames go through the fast path's reduced document only when it is small
/// beside the text (for a document that is mostly events, it would be a second copy of the
/// text); otherwise the general fast reader reads the whole text. `None` on any problem or
/// outside the fast readers' subset: the caller then takes the ordinary path, which gives the
/// same bytes or the proper error.
pub fn from_yaml_lean(text: &str, opts: &ImportOptions) -> Option<(Man, Vec<EncodedEvents>)> {
    if !crate::yaml::read::fast_reader_on() {
        return None;
    }
    let text = crate::yaml::strip_bom(text);
    let lean: LeanEvents = std::cell::RefCell::new(Vec::new());
    let doc = match crate::zengin::man::yaml_fast::split_parts(text) {
        Some((reduced, blocks))
            if !blocks.is_empty() && reduced.len() <= REDUCED_SMALL.max(text.len() / 8) =>
        {
            let reduced = reduced.build(text);
            let fast: FastFrames = std::cell::RefCell::new(blocks.into_iter().map(Some).collect());
            let seed = DocSeed {
                fast: Some(&fast),
                lean: Some(&lean),
            };
            let doc = match crate::yaml::fast::from_str_seed(&reduced, seed) {
                Some(doc) => doc,
                // (as in `from_yaml_blocks`: serde-saphyr reads the small reduced document)
                None if fast.borrow().iter().all(Option::is_some) => {
                    lean.borrow_mut().clear();
                    crate::yaml::from_str_seed(&reduced, seed).ok()?
                }
                None => return None,
            };
            if fast.borrow().iter().any(Option::is_some) {
                return None;
            }
            doc
        }
        _ => {
            let seed = DocSeed {
                fast: None,
                lean: Some(&lean),
            };
            let doc = crate::yaml::fast::from_str_seed(text, seed)?;
            crate::yaml::read::count_fast_read();
            doc
        }
    };
    let man = document_to_man(doc, opts).ok()?;
    Some((man, lean.into_inner()))
}

pub fn schema() -> schemars::schema::RootSchema {
    schemars::schema_for!(ManDocument)
}

impl From<YamlError> for EncodeError {
    fn from(e: YamlError) -> Self {
        EncodeError::new(e.to_string())
    }
}

/// A key given a second time is refused, as `deserialize_struct` callers must (see
/// `yaml::fast`'s `struct_key`): `seen` names each key and whether it has its value already.
fn refuse_again<E: de::Error>(key: &str, seen: &[(&str, bool)]) -> Result<(), E> {
    if seen.iter().any(|&(k, set)| set && k == key) {
        Err(E::custom(format!("duplicate key `{key}`")))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::float::write_f32;

    /// Issue 28 item 6: the governing header of every chunk in one linear pass: the last
    /// header before a chunk governs it, else the first one from it on.
    #[test]
    fn governing_headers_in_linear_time() {
        let marker = || ChunkIn::Marker(Marker::default());
        let h = synthesize(&Synth::new("A", 2, 3));
        let header = h
            .chunks
            .iter()
            .find_map(|c| match c {
                crate::zengin::man::Chunk::Header(h) => Some(h.clone()),
                _ => None,
            })
            .unwrap();
        let mut chunks: Vec<ChunkIn> = (0..300_000).map(|_| marker()).collect();
        chunks[150_000] = ChunkIn::Header(header.clone());
        chunks[200_000] = ChunkIn::Header(header);
        let g = governing_headers(&chunks);
        assert_eq!(g[0], Some(150_000));
        assert_eq!(g[149_999], Some(150_000));
        assert_eq!(g[150_000], Some(150_000));
        assert_eq!(g[199_999], Some(150_000));
        assert_eq!(g[200_000], Some(150_000));
        assert_eq!(g[200_001], Some(200_000));
        assert_eq!(g[299_999], Some(200_000));
        assert_eq!(governing_headers(&[marker(), marker()]), [None, None]);
    }
    use crate::zengin::man::synth::{synthesize, Synth};
    use crate::zengin::man::yaml_render::{Memos, SampleRenderer, RAW_POSITION_NOTE};

    /// One sample as the plain formatter writes it: every value through `write_f32`.
    fn direct(out: &mut String, c: &[u16; 6], min: f32, scale: f32, node: &str) {
        let push = |out: &mut String, v: &[f32]| {
            for (i, &v) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_f32(out, F32::new(v));
            }
        };
        out.push('{');
        out.push_str(node);
        out.push_str("rotation: [");
        push(out, &quant::unpack_rotation([c[0], c[1], c[2]]));
        let p = [c[3], c[4], c[5]];
        let exact = p.iter().all(|&p| {
            let v = quant::unpack_position(p, min, scale);
            quant::exact_position_code(v, min, scale) == Some(p)
        });
        if exact {
            out.push_str("], position: [");
            push(out, &p.map(|p| quant::unpack_position(p, min, scale)));
            out.push_str("]}");
        } else {
            out.push_str(&format!(
                "], position_code: [{}, {}, {}]}}  # {RAW_POSITION_NOTE}",
                p[0], p[1], p[2]
            ));
        }
    }

    /// The document as the plain formatter writes it: the emitter's document with
    /// placeholders, each replaced by its frames formatted value by value.
    fn plain_document(man: &Man, names: Option<&[crate::exact::Text]>) -> String {
        let mut text = to_yaml_placeholders(man).unwrap();
        let mut block = 0;
        for (i, c) in man.chunks.iter().enumerate() {
            let Chunk::Samples(x) = c else { continue };
            let mark = format!(
                "    frames: {}\n",
                crate::zengin::man::yaml_fast::placeholder(block)
            );
            block += 1;
            let n = x.node_indices.len();
            let mut lines = String::from("    frames:");
            if n == 0 || x.codes.len() < n {
                lines.push_str(" []\n");
            } else {
                lines.push('\n');
                let h = crate::zengin::man::governing_header(&man.chunks, i, |c| match c {
                    Chunk::Header(h) => Some(h),
                    _ => None,
                });
                let (min, scale) = h.map_or((0.0, 0.0), |h| {
                    (h.position_min.get(), h.position_scale.get())
                });
                let labels = names.map(|names| node_labels(x, names));
                for frame in x.codes.chunks_exact(n) {
                    for (k, c) in frame.iter().enumerate() {
                        lines.push_str(if k == 0 { "    - - " } else { "      - " });
                        let node = labels.as_ref().map_or("", |l| l[k].as_str());
                        direct(&mut lines, c, min, scale, node);
                        lines.push('\n');
                    }
                }
            }
            assert_eq!(text.matches(&mark).count(), 1, "{mark}");
            text = text.replacen(&mark, &lines, 1);
        }
        text
    }

    /// Samples rendered through the memos, and from the per-code tables, read exactly as
    /// samples formatted directly, for every rotation code and for positions under ordinary and
    /// degenerate headers; a memo too small for the codes (collisions) changes nothing.
    #[test]
    fn memos_and_tables_render_exactly_what_direct_formatting_does() {
        let codes: Vec<[u16; 6]> = (0..=u16::MAX)
            .step_by(7)
            .map(|c| {
                [
                    c,
                    c.wrapping_mul(31),
                    65535 - c,
                    c,
                    c / 3,
                    c.wrapping_add(9),
                ]
            })
            .chain([
                [0, 0, 0, 0, 0, 0],
                [32767, 32767, 32767, 65535, 65535, 65535],
            ])
            .collect();
        for (min, scale) in [(-1.5f32, 0.001f32), (0.0, 0.0), (1e30, 1e30)] {
            let memoed = SampleRenderer::untabled(min, scale);
            let tabled = SampleRenderer::new(min, scale, &codes).with_rotation_table();
            assert!(tabled.has_position_table());
            let (mut small, mut large) = (Memos::for_samples(1), Memos::for_samples(codes.len()));
            // Twice: the second round reads the memos' texts.
            for c in codes.iter().chain(&codes) {
                let (mut want, mut a, mut b) = (String::new(), String::new(), String::new());
                direct(&mut want, c, min, scale, "node: X, ");
                memoed.render(&mut small, &mut a, c, "node: X, ");
                tabled.render(&mut large, &mut b, c, "node: X, ");
                assert_eq!(a, want, "codes {c:?}, min {min}, scale {scale}");
                assert_eq!(b, want, "codes {c:?}, min {min}, scale {scale}");
            }
        }
        // A known row: the rotation code 32767 is 0.0, and w follows from x, y, z; a position
        // is min + code × scale in f32 (0.001 is not exact: 1500 × it lands past 1.5).
        let mut s = String::new();
        let r = SampleRenderer::new(-1.5, 0.001, &codes[..1]);
        let mut memos = Memos::for_samples(1);
        r.render(
            &mut memos,
            &mut s,
            &[32767, 32767, 32767, 0, 1000, 1500],
            "",
        );
        assert_eq!(
            s,
            "{rotation: [0.0, 0.0, 0.0, 1.0], position: [-1.5, -0.5, 1.1920929e-7]}"
        );
    }

    /// Whole documents, small (rendered on this thread, through memos) and large (position
    /// table, all cores), with and without node names, with an empty samples chunk and a
    /// second block: byte for byte what the plain formatter writes.
    #[test]
    fn documents_are_byte_for_byte_the_plain_formatting() {
        let names: Vec<crate::exact::Text> = (0..70)
            .map(|i| crate::exact::Text::from(format!("BIP01 NODE {i}").as_str()))
            .collect();
        for (nodes, frames) in [(40, 12), (60, 150)] {
            let man = synthesize(&Synth {
                events: 3,
                ..Synth::new("S_DOC", nodes, frames)
            });
            let text = to_yaml(&man).unwrap();
            assert_eq!(text, plain_document(&man, None), "{nodes} x {frames}");
            let named = to_yaml_with(&man, Some(&names[..50])).unwrap();
            assert_eq!(named, plain_document(&man, Some(&names[..50])));
            assert!(named.contains("\n    - - {node: BIP01 NODE 0, rotation: ["));
            assert!(text.contains("\n    frames:\n    - - {rotation: ["));
            // A second samples chunk, and an empty one (written `[]`).
            let mut two = man.clone();
            let Some(Chunk::Samples(x)) =
                man.chunks.iter().find(|c| matches!(c, Chunk::Samples(_)))
            else {
                panic!("no samples chunk")
            };
            let mut empty = x.clone();
            empty.codes.clear();
            two.chunks.push(Chunk::Samples(x.clone()));
            two.chunks.push(Chunk::Samples(empty));
            let text = to_yaml(&two).unwrap();
            assert_eq!(text, plain_document(&two, None));
            assert!(
                text.ends_with("\n    frames: []\n"),
                "{}",
                &text[text.len() - 40..]
            );
        }
    }

    /// A string holding U+0001 (the frames block's stand-in) in every text field the document
    /// has before, between and after the samples is written escaped, so the frames land where
    /// they belong and the file reads back byte for byte.
    #[test]
    fn a_control_character_in_a_name_does_not_move_the_frames() {
        let mut man = synthesize(&Synth {
            events: 2,
            ..Synth::new("S_\u{1}CTL", 5, 4)
        });
        for c in &mut man.chunks {
            match c {
                Chunk::Header(h) => h.next = crate::exact::Text::from("\u{1}X\u{1}"),
                Chunk::Events(e) => {
                    for ev in &mut e.events {
                        ev.tag = crate::exact::Text::from("\u{1}");
                    }
                }
                _ => {}
            }
        }
        let text = to_yaml(&man).unwrap();
        assert!(!text.contains('\u{1}'), "a raw U+0001 in the document");
        assert!(text.contains("\n    name: \"S_\\x01CTL\"\n"), "{text}");
        assert!(text.contains("\n    frames:\n    - - {rotation: [0.0, 0.0, 0.0, 1.0], "));
        assert_eq!(text.matches("\n    - - {").count(), 4, "four frames");
        let back = from_yaml(&text, &ImportOptions::default()).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        back.write(&mut a).unwrap();
        man.write(&mut b).unwrap();
        assert_eq!(a, b);
        assert!(
            b.windows(3).any(|w| w == b"S_\x01"),
            "the name is in the file"
        );
    }
}
