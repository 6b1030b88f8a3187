//! The `ue3.upk` YAML document.
//!
//! Design:
//! * Everything needed to rebuild the package byte for byte is in the document: container
//!   layers, summary, name / import / export tables, depends map, uncovered bytes (`gaps`), and
//!   per object its NetIndex, its tagged properties (typed where the tag tells the encoding,
//!   hex otherwise) and its native bytes. Names (FNames) are written as text (`AnimSequence_2`),
//!   or `#index:number` when the text would not read back to the same table entry.
//! * A compressed package also carries its stored compressed bytes (`container.compression`)
//!   with the size and CRC-32 of the uncompressed image: while the image is unchanged they are
//!   written back verbatim; once anything changed the package is written uncompressed
//!   (spec §1.11 Option U: CompressionFlags 0, no chunk table, PackageFlags 0x02000000 cleared).
//! * An AnimSequence shows its tracks decoded, per bone and per frame:
//!   `{translation: [x, y, z], rotation: [x, y, z, w]}` (a part with a single key is repeated on
//!   every line; a part with no keys is left out).
//! * When re-encoding the decoded keys reproduces the sequence's compressed stream byte for byte
//!   (always so for Float96NoW data written by a UE3-rule encoder), the stream is not in the
//!   document: import encodes the keys. If only some tracks' rotation Mins/Ranges differ (an
//!   encoder that took them from the unquantised keys), those tracks carry `mins_ranges`, which
//!   import writes back while the track's rotation keys are unchanged. Otherwise (lossy codecs whose Mins/Ranges came from
//!   unquantised keys, ZOnlyRLE tables from another run rule, odd padding or holes) the original
//!   stream is kept as `animation.stream` (hex, with `stream_format`, the rotation format it is
//!   in). On import each track part is then compared with what that stream decodes to: equal
//!   parts are copied from the original bytes (so untouched tracks stay byte-identical whatever
//!   their codec), changed parts are re-encoded in the sequence's `RotationCompressionFormat`,
//!   and `CompressedTrackOffsets` and the stream length are recomputed. Editing only values is
//!   enough; do not edit `stream`. If no part changed the original stream is written as is.
//! * When a track's translation and rotation key counts are both above 1 and differ, the track
//!   is written as two lists, `translations:` and `rotations:`, instead of `keys:`.

mod export;
mod import;

pub use export::to_doc;
pub use import::from_doc;

use super::anim;
use super::package::Package;
use crate::exact::{Blob, EncodeError, Hex32, ImportError, Text, F32};
use crate::yaml::RAW_SCALAR;
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A `u64` shown as `0x0123456789abcdef`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hex64(pub u64);

impl Serialize for Hex64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(RAW_SCALAR, &format!("0x{:016x}", self.0))
    }
}
impl<'de> Deserialize<'de> for Hex64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Hex64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a 64-bit value, 0x-prefixed hex or decimal")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Hex64, E> {
                let t = v.trim();
                let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => u64::from_str_radix(h, 16).ok(),
                    None => t.parse().ok(),
                };
                r.map(Hex64)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Hex64, E> {
                Ok(Hex64(v))
            }
        }
        d.deserialize_str(V)
    }
}
impl JsonSchema for Hex64 {
    fn schema_name() -> String {
        "Hex64".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "64-bit value: 0x-prefixed hex (as written by animkit) or decimal",
            "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^0[xX][0-9a-fA-F]{1,16}$"}]
        }))
    }
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// The whole document.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpkDocument {
    pub format: String,
    pub version: u32,
    pub container: Container,
    pub summary: SummaryY,
    pub names: Vec<NameY>,
    pub imports: Vec<ImportY>,
    pub exports: Vec<ExportY>,
    /// The depends map (DependsOffset..HeadersSize), raw.
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub depends: Blob,
    /// Bytes of the uncompressed image that no table or object covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<GapY>,
    /// One per export, in export order.
    pub objects: Vec<ObjectY>,
}

/// Layers around the uncompressed package.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Container {
    /// Whole-file XOR with the BnS key (file starts `B0 EA 4C F8`).
    pub whole_file_xor: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<CompressionY>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompressionY {
    pub image_size: u64,
    pub image_crc32: Hex32,
    /// The stored bytes after the summary (chunk headers, block tables, LZO data).
    pub stored: Blob,
}

/// An FString: 8-bit `text`, or UTF-16 code units as hex (`utf16`), or neither (length 0).
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FStrY {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utf16: Option<Blob>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummaryY {
    pub file_version: u16,
    pub licensee_version: u16,
    pub headers_size: i32,
    pub folder_name: FStrY,
    pub package_flags: Hex32,
    pub name_offset: i32,
    pub import_offset: i32,
    pub export_offset: i32,
    pub depends_offset: i32,
    pub guid: Blob,
    /// `[ExportCount, NameCount, NetObjectCount]` per generation.
    pub generations: Vec<[i32; 3]>,
    pub engine_version: i32,
    pub cooker_version: i32,
    pub compression_flags: u32,
    /// `[UncompressedOffset, UncompressedSize, CompressedOffset, CompressedSize]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks: Vec<[i32; 4]>,
    pub package_source: Hex32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_packages: Vec<FStrY>,
}

/// A name-table entry: `name` (8-bit text) or `utf16` (hex code units), and its flags.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NameY {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utf16: Option<Blob>,
    pub flags: Hex64,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportY {
    pub class_package: String,
    pub class_name: String,
    pub outer: i32,
    pub object_name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportY {
    pub name: String,
    pub class: i32,
    #[serde(rename = "super")]
    pub super_index: i32,
    pub outer: i32,
    pub archetype: i32,
    pub object_flags: Hex64,
    /// Size and offset in the uncompressed image (de-obfuscated). They describe the original
    /// layout; animkit recomputes them when an object's size changes.
    pub serial_size: i32,
    pub serial_offset: i32,
    pub export_flags: Hex32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub net_object_counts: Vec<i32>,
    pub package_guid: Blob,
    pub package_flags: Hex32,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GapY {
    pub offset: u64,
    pub bytes: Blob,
}

/// One export's record.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectY {
    /// The export's name and class (for the reader; not used on import).
    pub export: String,
    pub class: String,
    /// The whole record, for records that are not tagged-property streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Blob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_index: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<PropY>>,
    /// The name ending the property list, when it is not the first `None` of the name table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties_end: Option<String>,
    /// Native bytes after the properties (not for AnimSequences with `animation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<Blob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animation: Option<AnimY>,
    /// Why an AnimSequence's tracks are not decoded (its native bytes are then in `native`);
    /// informational, ignored on import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_decoded: Option<String>,
}

/// A tagged property: `prop` name, `type`, and exactly one value field.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PropY {
    pub prop: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub index: i32,
    #[serde(default, rename = "struct", skip_serializing_if = "Option::is_none")]
    pub struct_name: Option<String>,
    /// Stored DataSize of a BoolProperty, when not 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bool: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub float: Option<F32>,
    /// NameProperty, or ByteProperty enum value (e.g. `ACF_Fixed48NoW`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ints: Option<Vec<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Blob>,
}

/// The decoded animation of an AnimSequence.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnimY {
    /// Derived from the SequenceName property, shown for the reader: edit the property to
    /// rename (an edit here is refused; this line may be deleted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "read_only::<String>")]
    pub sequence: Option<String>,
    /// Derived from NumFrames (edit the property; an edit here is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "read_only::<i32>")]
    pub frames: Option<i32>,
    /// Derived from SequenceLength (edit the property; an edit here is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "read_only::<F32>")]
    pub length: Option<F32>,
    /// Frames per second, derived: NumFrames / SequenceLength × RateScale (edit SequenceLength
    /// or RateScale; an edit here is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "read_only::<F32>")]
    pub rate: Option<F32>,
    /// Derived from TranslationCompressionFormat (edit the property; an edit here is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "read_only::<String>")]
    pub translation_format: Option<String>,
    /// The rotation format `stream` is in.
    pub stream_format: String,
    pub tracks: Vec<TrackY>,
    /// The original compressed stream, when re-encoding the keys would not reproduce it (do not
    /// edit; untouched tracks are copied from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<Blob>,
}

/// The schema of `T` marked `readOnly` (a value animkit derives and shows; editors flag edits).
fn read_only<T: JsonSchema>(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    use schemars::schema::{Schema, SchemaObject};
    let inner = gen.subschema_for::<T>();
    let mut obj = match inner {
        Schema::Object(o) if o.reference.is_none() => o,
        other => SchemaObject {
            subschemas: Some(Box::new(schemars::schema::SubschemaValidation {
                all_of: Some(vec![other]),
                ..Default::default()
            })),
            ..Default::default()
        },
    };
    obj.metadata().read_only = true;
    Schema::Object(obj)
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackY {
    pub bone: String,
    /// The stored rotation `Mins[3]` + `Ranges[3]`, when they differ from what animkit computes from
    /// the decoded keys (e.g. the encoder used the unquantised keys). Written back while the
    /// rotation keys are unchanged; ignored by every format but IntervalFixed32NoW (for which
    /// the whole stream is kept instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mins_ranges: Option<[F32; 6]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<KeyY>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translations: Option<Vec<[F32; 3]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotations: Option<Vec<[F32; 4]>>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyY {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[F32; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[F32; 4]>,
}

/// Frames per second as UE3 and UE Viewer compute it.
fn rate(seq: &anim::Sequence) -> f32 {
    seq.num_frames as f32 / seq.length * seq.rate_scale
}

/// The summary, name, import and export tables as their document values (for `diff`).
pub fn tables(
    pkg: &Package,
) -> (
    serde_json::Value,
    serde_json::Value,
    serde_json::Value,
    serde_json::Value,
) {
    let j = |v: Result<serde_json::Value, serde_json::Error>| v.unwrap_or(serde_json::Value::Null);
    match to_doc(pkg) {
        Ok(d) => (
            j(serde_json::to_value(&d.summary)),
            j(serde_json::to_value(&d.names)),
            j(serde_json::to_value(&d.imports)),
            j(serde_json::to_value(&d.exports)),
        ),
        Err(_) => Default::default(),
    }
}

pub fn to_yaml(pkg: &Package) -> Result<String, EncodeError> {
    let doc = to_doc(pkg)?;
    crate::yaml::to_string(&doc).map_err(|e| EncodeError::new(e.to_string()))
}

pub fn from_yaml(text: &str) -> Result<Package, ImportError> {
    let doc: UpkDocument = crate::yaml::from_str(text)?;
    Ok(from_doc(&doc)?)
}

pub fn schema() -> schemars::schema::RootSchema {
    schemars::schema_for!(UpkDocument)
}
