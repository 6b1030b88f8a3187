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

use super::anim::{self, TrackEdit};
use super::codec::{self, Quat, RotFormat, TrackOffsets, Vec3};
use super::compress::ChunkRecord;
use super::package::{Compressed, Export, Gap, Import, NameEntry, Object, Package, Summary};
use super::props::{FName, FStr, Names, Properties, Property, Value};
use crate::codec::{check_document_header, Codec};
use crate::exact::{Blob, EncodeError, FieldPath, Hex32, ImportError, Segment, Text, F32};
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

// ---------------------------------------------------------------------------------------------
// Package → document

fn fstr_y(s: &FStr) -> FStrY {
    match s {
        FStr::Empty => FStrY::default(),
        FStr::Ansi(t) => FStrY {
            text: Some(t.clone()),
            utf16: None,
        },
        FStr::Utf16(u) => FStrY {
            text: None,
            utf16: Some(Blob::new(
                u.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
            )),
        },
    }
}

fn v3(v: Vec3) -> [F32; 3] {
    v.map(F32::new)
}
fn v4(v: Quat) -> [F32; 4] {
    v.map(F32::new)
}

fn prop_y(names: &Names, p: &Property) -> PropY {
    let n = |f: FName| names.to_yaml(f);
    let mut y = PropY {
        prop: n(p.name),
        ty: n(p.ty),
        index: p.array_index,
        struct_name: p.struct_name.map(n),
        ..Default::default()
    };
    match &p.value {
        Value::Bool(v) => {
            y.bool = Some(*v);
            y.size = (p.size != 0).then_some(p.size);
        }
        Value::Int(v) => y.int = Some(*v),
        Value::Float(b) => y.float = Some(F32(*b)),
        Value::Name(f) => y.name = Some(n(*f)),
        Value::Byte(b) => y.byte = Some(*b),
        Value::Object(v) => y.object = Some(*v),
        Value::Names(v) => y.names = Some(v.iter().map(|f| n(*f)).collect()),
        Value::Ints(v) => y.ints = Some(v.clone()),
        Value::Raw(b) => y.raw = Some(Blob::new(b.clone())),
    }
    y
}

fn track_y(bone: String, t: &anim::Track) -> TrackY {
    let (nt, nr) = (t.translations.len(), t.rotations.len());
    let l = nt.max(nr);
    let fits = |n: usize| n == 0 || n == 1 || n == l;
    if fits(nt) && fits(nr) {
        let pick = |n: usize, i: usize| if n == 1 { 0 } else { i };
        let keys = (0..l)
            .map(|i| KeyY {
                translation: (nt > 0).then(|| v3(t.translations[pick(nt, i)])),
                rotation: (nr > 0).then(|| v4(t.rotations[pick(nr, i)])),
            })
            .collect();
        TrackY {
            bone,
            mins_ranges: None,
            keys: Some(keys),
            translations: None,
            rotations: None,
        }
    } else {
        TrackY {
            bone,
            mins_ranges: None,
            keys: None,
            translations: Some(t.translations.iter().map(|&v| v3(v)).collect()),
            rotations: Some(t.rotations.iter().map(|&q| v4(q)).collect()),
        }
    }
}

pub fn to_doc(pkg: &Package) -> Result<UpkDocument, EncodeError> {
    let names = pkg.names();
    let n = |f: FName| names.to_yaml(f);
    let s = &pkg.summary;
    let sets = anim::anim_sets(pkg);
    let none = names.parse("None");
    let mut objects = Vec::with_capacity(pkg.objects.len());
    for (i, o) in pkg.objects.iter().enumerate() {
        let mut y = ObjectY {
            export: pkg.export_name(i),
            class: pkg.class_of(i),
            raw: None,
            net_index: None,
            properties: None,
            properties_end: None,
            native: None,
            animation: None,
            not_decoded: None,
        };
        match o {
            Object::Empty => {}
            Object::Raw(b) => y.raw = Some(Blob::new(b.clone())),
            Object::Tagged {
                net_index,
                props,
                tail,
            } => {
                y.net_index = Some(*net_index);
                y.properties = Some(props.props.iter().map(|p| prop_y(names, p)).collect());
                if Some(props.terminator) != none {
                    y.properties_end = Some(n(props.terminator));
                }
                let set = anim::set_of(&sets, pkg, i);
                let decoded =
                    anim::sequence(pkg, i, set.map(|s| sets[s].bones.len())).and_then(|seq| {
                        match seq {
                            Some(seq) => {
                                let stream = anim::stream(pkg, i);
                                anim::decode(&seq, stream)
                                    .map(|(_, tracks)| Some((seq, stream, tracks)))
                            }
                            None => Ok(None),
                        }
                    });
                match decoded {
                    Ok(Some((seq, stream, tracks))) => {
                        let bones = set.map(|s| sets[s].bones.clone()).unwrap_or_default();
                        let headers = reproduce(&seq, stream, &tracks);
                        y.animation = Some(AnimY {
                            sequence: Some(seq.name.clone()),
                            frames: Some(seq.num_frames),
                            length: Some(F32::new(seq.length)),
                            rate: Some(F32::new(rate(&seq))),
                            translation_format: Some(seq.translation_format.clone()),
                            stream_format: seq.rotation_format.name().into(),
                            tracks: tracks
                                .iter()
                                .enumerate()
                                .map(|(k, t)| {
                                    let mut y = track_y(
                                        bones
                                            .get(k)
                                            .cloned()
                                            .unwrap_or_else(|| format!("track{k}")),
                                        t,
                                    );
                                    y.mins_ranges = headers
                                        .as_ref()
                                        .and_then(|h| h.get(k).copied().flatten())
                                        .map(|h| h.map(F32));
                                    y
                                })
                                .collect(),
                            stream: headers.is_none().then(|| Blob::new(stream.to_vec())),
                        });
                    }
                    other => {
                        if let Err(e) = other {
                            y.not_decoded = Some(e.to_string());
                        }
                        if !tail.is_empty() {
                            y.native = Some(Blob::new(tail.clone()));
                        }
                    }
                }
            }
        }
        objects.push(y);
    }
    Ok(UpkDocument {
        format: Package::TAG.into(),
        version: Package::YAML_VERSION,
        container: Container {
            whole_file_xor: pkg.whole_file_xor,
            compression: pkg.compressed.as_ref().map(|c| CompressionY {
                image_size: c.image_size,
                image_crc32: Hex32(c.image_crc32),
                stored: Blob::new(c.stored.clone()),
            }),
        },
        summary: SummaryY {
            file_version: s.file_version,
            licensee_version: s.licensee_version,
            headers_size: s.headers_size,
            folder_name: fstr_y(&s.folder_name),
            package_flags: Hex32(s.package_flags),
            name_offset: s.name_offset,
            import_offset: s.import_offset,
            export_offset: s.export_offset,
            depends_offset: s.depends_offset,
            guid: Blob::new(s.guid.to_vec()),
            generations: s.generations.clone(),
            engine_version: s.engine_version,
            cooker_version: s.cooker_version,
            compression_flags: s.compression_flags,
            chunks: s
                .chunks
                .iter()
                .map(|c| {
                    [
                        c.uncompressed_offset,
                        c.uncompressed_size,
                        c.compressed_offset,
                        c.compressed_size,
                    ]
                })
                .collect(),
            package_source: Hex32(s.package_source),
            additional_packages: s.additional_packages.iter().map(fstr_y).collect(),
        },
        names: pkg
            .names
            .iter()
            .map(|e| {
                let f = fstr_y(&e.name);
                NameY {
                    name: f.text,
                    utf16: f.utf16,
                    flags: Hex64(e.flags),
                }
            })
            .collect(),
        imports: pkg
            .imports
            .iter()
            .map(|im| ImportY {
                class_package: n(im.class_package),
                class_name: n(im.class_name),
                outer: im.outer,
                object_name: n(im.object_name),
            })
            .collect(),
        exports: pkg
            .exports
            .iter()
            .map(|e| ExportY {
                name: n(e.name),
                class: e.class,
                super_index: e.super_index,
                outer: e.outer,
                archetype: e.archetype,
                object_flags: Hex64(e.object_flags),
                serial_size: e.serial_size,
                serial_offset: e.serial_offset,
                export_flags: Hex32(e.export_flags),
                net_object_counts: e.net_object_counts.clone(),
                package_guid: Blob::new(e.package_guid.to_vec()),
                package_flags: Hex32(e.package_flags),
            })
            .collect(),
        depends: Blob::new(pkg.depends.clone()),
        gaps: pkg
            .gaps
            .iter()
            .map(|g| GapY {
                offset: g.offset,
                bytes: Blob::new(g.bytes.clone()),
            })
            .collect(),
        objects,
    })
}

// ---------------------------------------------------------------------------------------------
// Document → package

fn path(segs: &[Segment]) -> FieldPath {
    segs.iter()
        .cloned()
        .fold(FieldPath::new(), |p, s| p.push(s))
}

fn err_at(segs: &[Segment], msg: impl Into<String>) -> EncodeError {
    EncodeError {
        path: path(segs),
        message: msg.into(),
    }
}

fn fstr_from(y: &FStrY, segs: &[Segment]) -> Result<FStr, EncodeError> {
    match (&y.text, &y.utf16) {
        (None, None) => Ok(FStr::Empty),
        (Some(t), None) => Ok(FStr::Ansi(t.clone())),
        (None, Some(b)) if b.len() % 2 == 0 => Ok(FStr::Utf16(
            b.as_bytes()
                .chunks_exact(2)
                .map(|u| u16::from_le_bytes([u[0], u[1]]))
                .collect(),
        )),
        (None, Some(_)) => Err(err_at(segs, "utf16 needs an even number of bytes")),
        (Some(_), Some(_)) => Err(err_at(segs, "give either text or utf16, not both")),
    }
}

fn blob16(b: &Blob, segs: &[Segment]) -> Result<[u8; 16], EncodeError> {
    b.as_bytes()
        .try_into()
        .map_err(|_| err_at(segs, format!("needs 16 bytes, has {}", b.len())))
}

struct Ctx<'a> {
    names: &'a Names,
}

impl Ctx<'_> {
    fn name(&self, s: &str, segs: &[Segment]) -> Result<FName, EncodeError> {
        self.names.parse(s).ok_or_else(|| {
            err_at(
                segs,
                format!("`{s}` is not in the name table (names cannot be added)"),
            )
        })
    }
}

fn prop_from(cx: &Ctx, y: &PropY, segs: &[Segment]) -> Result<Property, EncodeError> {
    let f = |name: &'static str| {
        let mut v = segs.to_vec();
        v.push(Segment::Field(name));
        v
    };
    let mut values: Vec<Value> = Vec::new();
    if let Some(v) = y.bool {
        values.push(Value::Bool(v));
    }
    if let Some(v) = y.int {
        values.push(Value::Int(v));
    }
    if let Some(v) = y.float {
        values.push(Value::Float(v.0));
    }
    if let Some(v) = &y.name {
        values.push(Value::Name(cx.name(v, &f("name"))?));
    }
    if let Some(v) = y.byte {
        values.push(Value::Byte(v));
    }
    if let Some(v) = y.object {
        values.push(Value::Object(v));
    }
    if let Some(v) = &y.names {
        let mut out = Vec::with_capacity(v.len());
        for (i, s) in v.iter().enumerate() {
            let mut p = f("names");
            p.push(Segment::Index(i));
            out.push(cx.name(s, &p)?);
        }
        values.push(Value::Names(out));
    }
    if let Some(v) = &y.ints {
        values.push(Value::Ints(v.clone()));
    }
    if let Some(v) = &y.raw {
        values.push(Value::Raw(v.0.clone()));
    }
    if values.len() != 1 {
        return Err(err_at(
            segs,
            format!(
                "a property needs exactly one value field, found {}",
                values.len()
            ),
        ));
    }
    let value = values.remove(0);
    Ok(Property {
        name: cx.name(&y.prop, &f("prop"))?,
        ty: cx.name(&y.ty, &f("type"))?,
        size: y.size.unwrap_or(0),
        array_index: y.index,
        struct_name: y
            .struct_name
            .as_ref()
            .map(|s| cx.name(s, &f("struct")))
            .transpose()?,
        value,
    })
}

/// A track of the document as (translations, rotations) per frame.
fn track_parts(t: &TrackY, segs: &[Segment]) -> Result<(Vec<Vec3>, Vec<Quat>), EncodeError> {
    let get3 = |v: &[F32; 3]| v.map(|f| f.get());
    let get4 = |v: &[F32; 4]| v.map(|f| f.get());
    match (&t.keys, &t.translations, &t.rotations) {
        (Some(keys), None, None) => {
            let with_t = keys.iter().filter(|k| k.translation.is_some()).count();
            let with_r = keys.iter().filter(|k| k.rotation.is_some()).count();
            for (what, n) in [("translation", with_t), ("rotation", with_r)] {
                if n != 0 && n != keys.len() {
                    return Err(err_at(
                        segs,
                        format!(
                            "{n} of {} keys have a {what}: give it on every key or on none",
                            keys.len()
                        ),
                    ));
                }
            }
            Ok((
                keys.iter()
                    .filter_map(|k| k.translation.as_ref().map(get3))
                    .collect(),
                keys.iter()
                    .filter_map(|k| k.rotation.as_ref().map(get4))
                    .collect(),
            ))
        }
        (None, tr, ro) => Ok((
            tr.iter().flatten().map(get3).collect(),
            ro.iter().flatten().map(get4).collect(),
        )),
        _ => Err(err_at(
            segs,
            "give either `keys` or `translations`/`rotations`, not both",
        )),
    }
}

pub fn from_doc(doc: &UpkDocument) -> Result<Package, EncodeError> {
    check_document_header(
        &doc.format,
        doc.version,
        Package::TAG,
        Package::YAML_VERSION,
    )
    .map_err(EncodeError::new)?;
    let f = Segment::Field;
    let s = &doc.summary;
    let mut names = Vec::with_capacity(doc.names.len());
    for (i, n) in doc.names.iter().enumerate() {
        let name = fstr_from(
            &FStrY {
                text: n.name.clone(),
                utf16: n.utf16.clone(),
            },
            &[f("names"), Segment::Index(i)],
        )?;
        names.push(NameEntry {
            name,
            flags: n.flags.0,
        });
    }
    let texts = Names::new(names.iter().map(|n| n.name.text()).collect());
    let cx = Ctx { names: &texts };
    let summary = Summary {
        file_version: s.file_version,
        licensee_version: s.licensee_version,
        headers_size: s.headers_size,
        folder_name: fstr_from(&s.folder_name, &[f("summary"), f("folder_name")])?,
        package_flags: s.package_flags.0,
        name_count: doc.names.len() as i32,
        name_offset: s.name_offset,
        export_count: doc.exports.len() as i32,
        export_offset: s.export_offset,
        import_count: doc.imports.len() as i32,
        import_offset: s.import_offset,
        depends_offset: s.depends_offset,
        guid: blob16(&s.guid, &[f("summary"), f("guid")])?,
        generations: s.generations.clone(),
        engine_version: s.engine_version,
        cooker_version: s.cooker_version,
        compression_flags: s.compression_flags,
        chunks: s
            .chunks
            .iter()
            .map(|c| ChunkRecord {
                uncompressed_offset: c[0],
                uncompressed_size: c[1],
                compressed_offset: c[2],
                compressed_size: c[3],
            })
            .collect(),
        package_source: s.package_source.0,
        additional_packages: s
            .additional_packages
            .iter()
            .enumerate()
            .map(|(i, a)| {
                fstr_from(
                    a,
                    &[f("summary"), f("additional_packages"), Segment::Index(i)],
                )
            })
            .collect::<Result<_, _>>()?,
    };
    let mut imports = Vec::with_capacity(doc.imports.len());
    for (i, im) in doc.imports.iter().enumerate() {
        let p = |n: &'static str| [f("imports"), Segment::Index(i), f(n)];
        imports.push(Import {
            class_package: cx.name(&im.class_package, &p("class_package"))?,
            class_name: cx.name(&im.class_name, &p("class_name"))?,
            outer: im.outer,
            object_name: cx.name(&im.object_name, &p("object_name"))?,
        });
    }
    let mut exports = Vec::with_capacity(doc.exports.len());
    for (i, e) in doc.exports.iter().enumerate() {
        let p = |n: &'static str| [f("exports"), Segment::Index(i), f(n)];
        exports.push(Export {
            class: e.class,
            super_index: e.super_index,
            outer: e.outer,
            name: cx.name(&e.name, &p("name"))?,
            archetype: e.archetype,
            object_flags: e.object_flags.0,
            serial_size: e.serial_size,
            serial_offset: e.serial_offset,
            export_flags: e.export_flags.0,
            net_object_counts: e.net_object_counts.clone(),
            package_guid: blob16(&e.package_guid, &p("package_guid"))?,
            package_flags: e.package_flags.0,
        });
    }
    if doc.objects.len() != exports.len() {
        return Err(err_at(
            &[f("objects")],
            format!(
                "{} objects for {} exports",
                doc.objects.len(),
                exports.len()
            ),
        ));
    }
    let none = texts.parse("None").unwrap_or_default();
    let mut objects = Vec::with_capacity(doc.objects.len());
    for (i, o) in doc.objects.iter().enumerate() {
        let at = |n: &'static str| vec![f("objects"), Segment::Index(i), f(n)];
        let obj = match (&o.raw, &o.properties) {
            (Some(_), Some(_)) => return Err(err_at(&at("raw"), "give either raw or properties")),
            (Some(b), None) => Object::Raw(b.0.clone()),
            (None, None) => Object::Empty,
            (None, Some(props)) => {
                let mut list = Vec::with_capacity(props.len());
                for (k, p) in props.iter().enumerate() {
                    let mut segs = at("properties");
                    segs.push(Segment::Index(k));
                    list.push(prop_from(&cx, p, &segs)?);
                }
                let terminator = match &o.properties_end {
                    Some(s) => cx.name(s, &at("properties_end"))?,
                    None => none,
                };
                let tail = match (&o.animation, &o.native) {
                    (Some(a), None) => {
                        let st = a.stream.as_ref().map_or(&[][..], |b| b.as_bytes());
                        let mut t = Vec::with_capacity(st.len() + 4);
                        t.extend_from_slice(&(st.len() as i32).to_le_bytes());
                        t.extend_from_slice(st);
                        t
                    }
                    (None, Some(b)) => b.0.clone(),
                    (None, None) => Vec::new(),
                    (Some(_), Some(_)) => {
                        return Err(err_at(&at("native"), "give either native or animation"))
                    }
                };
                Object::Tagged {
                    net_index: o.net_index.unwrap_or(0),
                    props: Properties {
                        props: list,
                        terminator,
                    },
                    tail,
                }
            }
        };
        objects.push(obj);
    }
    let mut pkg = Package {
        whole_file_xor: doc.container.whole_file_xor,
        compressed: doc.container.compression.as_ref().map(|c| Compressed {
            stored: c.stored.0.clone(),
            image_size: c.image_size,
            image_crc32: c.image_crc32.0,
        }),
        summary,
        names,
        imports,
        exports,
        depends: doc.depends.0.clone(),
        objects,
        gaps: doc
            .gaps
            .iter()
            .map(|g| Gap {
                offset: g.offset,
                bytes: g.bytes.0.clone(),
            })
            .collect(),
        name_texts: texts,
    };
    // Animation edits.
    let sets = anim::anim_sets(&pkg);
    for (i, o) in doc.objects.iter().enumerate() {
        let Some(a) = &o.animation else { continue };
        let segs = vec![f("objects"), Segment::Index(i), f("animation")];
        let set = anim::set_of(&sets, &pkg, i);
        let nt = set.map(|s| sets[s].bones.len());
        let seq = anim::sequence(&pkg, i, nt)
            .map_err(|e| err_at(&segs, e.to_string()))?
            .ok_or_else(|| {
                err_at(
                    &segs,
                    "animation given for an export that is not an AnimSequence",
                )
            })?;
        check_derived(&seq, a, o, &segs)?;
        let stream_format = RotFormat::from_name(&a.stream_format).ok_or_else(|| {
            err_at(
                &segs,
                format!("unknown stream_format `{}`", a.stream_format),
            )
        })?;
        let mut orig = seq.clone();
        orig.rotation_format = stream_format;
        let stream = anim::stream(&pkg, i).to_vec();
        let n = seq.offsets.len();
        let kept = a.stream.is_some();
        let (layouts, tracks) = if kept {
            anim::decode(&orig, &stream).map_err(|e| err_at(&segs, e.to_string()))?
        } else {
            (vec![Default::default(); n], Vec::new())
        };
        if a.tracks.len() != n {
            return Err(err_at(
                &segs,
                format!("{} tracks given, the sequence has {n}", a.tracks.len()),
            ));
        }
        let same_format = stream_format == seq.rotation_format;
        let mut edits = Vec::with_capacity(n);
        let mut changed = !same_format || !kept;
        for (k, ty) in a.tracks.iter().enumerate() {
            let mut tsegs = segs.clone();
            tsegs.extend([f("tracks"), Segment::Index(k)]);
            let (tr, ro) = track_parts(ty, &tsegs)?;
            let mut e = TrackEdit::default();
            match tracks.get(k) {
                Some(t) if anim::same_keys(&t.translations, &tr) => {}
                _ => {
                    e.translations = Some(tr);
                    changed = true;
                }
            }
            match tracks.get(k) {
                Some(t) if same_format && anim::same_keys(&t.rotations, &ro) => {}
                _ => {
                    // Refused here, with the key's own path (the encoder's error would only
                    // know the track).
                    for (i, q) in ro.iter().enumerate() {
                        codec::check_rotation(q).map_err(|m| {
                            let mut p = tsegs.clone();
                            if ty.keys.is_some() {
                                p.extend([f("keys"), Segment::Index(i), f("rotation")]);
                            } else {
                                p.extend([f("rotations"), Segment::Index(i)]);
                            }
                            err_at(&p, m)
                        })?;
                    }
                    e.rotations = Some(ro);
                    changed = true;
                }
            }
            edits.push(e);
        }
        if changed {
            let (mut new_stream, offsets) = anim::rebuild(
                &stream,
                &layouts,
                &orig.offsets,
                &edits,
                seq.rotation_format,
            )
            .map_err(|mut e| {
                for s in segs.iter().rev() {
                    e.path.prefix(s.clone());
                }
                e
            })?;
            if !kept {
                apply_headers(&seq, &mut new_stream, &offsets, a, &segs)?;
            }
            anim::store(&mut pkg, i, new_stream, &offsets).map_err(|e| err_at(&segs, e.message))?;
        }
    }
    Ok(pkg)
}

/// Frames per second as UE3 and UE Viewer compute it.
fn rate(seq: &anim::Sequence) -> f32 {
    seq.num_frames as f32 / seq.length * seq.rate_scale
}

/// The animation block's derived fields must be what the (possibly edited) properties give:
/// an edit of one is refused, naming the property to edit instead.
fn check_derived(
    seq: &anim::Sequence,
    a: &AnimY,
    o: &ObjectY,
    segs: &[Segment],
) -> Result<(), EncodeError> {
    let prop_at = |name: &str| {
        o.properties
            .iter()
            .flatten()
            .position(|p| p.prop.eq_ignore_ascii_case(name))
            .map_or_else(
                || format!("the {name} property (absent: add it)"),
                |k| format!("{name} (objects[{}].properties[{k}])", segs_index(segs)),
            )
    };
    let refuse = |field: &'static str, given: String, derived: String, from: &str| {
        let mut p = segs.to_vec();
        p.push(Segment::Field(field));
        Err(err_at(
            &p,
            format!(
                "{given} disagrees with the value derived from the properties, {derived}: \
                 `{field}` is derived and only shown; to change it edit {from}, then give the \
                 new value here or delete this line"
            ),
        ))
    };
    if let Some(v) = &a.sequence {
        if *v != seq.name {
            return refuse(
                "sequence",
                v.clone(),
                seq.name.clone(),
                &prop_at("SequenceName"),
            );
        }
    }
    if let Some(v) = a.frames {
        if v != seq.num_frames {
            return refuse(
                "frames",
                v.to_string(),
                seq.num_frames.to_string(),
                &prop_at("NumFrames"),
            );
        }
    }
    if let Some(v) = a.length {
        if v.bits() != seq.length.to_bits() {
            return refuse(
                "length",
                v.to_string(),
                F32::new(seq.length).to_string(),
                &prop_at("SequenceLength"),
            );
        }
    }
    if let Some(v) = a.rate {
        let r = F32::new(rate(seq));
        if v.bits() != r.bits() {
            let from = format!(
                "{} (NumFrames / SequenceLength × RateScale; for {v} frames per second \
                 SequenceLength {})",
                prop_at("SequenceLength"),
                F32::new(seq.num_frames as f32 / v.get() * seq.rate_scale)
            );
            return refuse("rate", v.to_string(), r.to_string(), &from);
        }
    }
    if let Some(v) = &a.translation_format {
        if *v != seq.translation_format {
            return refuse(
                "translation_format",
                v.clone(),
                seq.translation_format.clone(),
                &prop_at("TranslationCompressionFormat"),
            );
        }
    }
    Ok(())
}

/// The object index in a path `objects[i]...`.
fn segs_index(segs: &[Segment]) -> usize {
    segs.iter()
        .find_map(|s| match s {
            Segment::Index(i) => Some(*i),
            _ => None,
        })
        .unwrap_or(0)
}

/// Write the documented Mins/Ranges of tracks whose rotation keys are exactly what the new
/// encoding decodes to (i.e. unchanged by the user, up to the codec's own rounding).
fn apply_headers(
    seq: &anim::Sequence,
    stream: &mut [u8],
    offsets: &[TrackOffsets],
    a: &AnimY,
    segs: &[Segment],
) -> Result<(), EncodeError> {
    let mut view = seq.clone();
    view.offsets = offsets.to_vec();
    let (_, decoded) = anim::decode(&view, stream).map_err(|e| err_at(segs, e.to_string()))?;
    for (k, (ty, off)) in a.tracks.iter().zip(offsets).enumerate() {
        let Some(h) = ty.mins_ranges else { continue };
        if off.rot_keys < 2 || seq.rotation_format == RotFormat::IntervalFixed32NoW {
            continue;
        }
        let mut tsegs = segs.to_vec();
        tsegs.extend([Segment::Field("tracks"), Segment::Index(k)]);
        let (_, ro) = track_parts(ty, &tsegs)?;
        if decoded
            .get(k)
            .is_some_and(|d| anim::same_keys(&d.rotations, &ro))
        {
            let at = off.rot_offset as usize;
            for (c, v) in h.iter().enumerate() {
                stream[at + 4 * c..at + 4 * c + 4].copy_from_slice(&v.0.to_le_bytes());
            }
        }
    }
    Ok(())
}

/// Whether encoding the decoded keys gives back exactly `stream` and the sequence's offsets,
/// allowing the rotation Mins/Ranges of some tracks to be given explicitly: `Some(headers)`
/// (per track, the 24 header bytes as f32 bits where they differ), or `None` when the stream
/// must be kept.
fn reproduce(
    seq: &anim::Sequence,
    stream: &[u8],
    tracks: &[anim::Track],
) -> Option<Vec<Option<[u32; 6]>>> {
    let edits: Vec<TrackEdit> = tracks
        .iter()
        .map(|t| TrackEdit {
            translations: Some(t.translations.clone()),
            rotations: Some(t.rotations.clone()),
        })
        .collect();
    let layouts = vec![Default::default(); tracks.len()];
    let (mut s, o) =
        anim::rebuild(&[], &layouts, &seq.offsets, &edits, seq.rotation_format).ok()?;
    if o != seq.offsets || s.len() != stream.len() {
        return None;
    }
    let mut headers = vec![None; tracks.len()];
    if seq.rotation_format != RotFormat::IntervalFixed32NoW {
        for (k, off) in o.iter().enumerate() {
            if off.rot_keys > 1 {
                let h = off.rot_offset as usize..off.rot_offset as usize + 24;
                if s.get(h.clone()) != stream.get(h.clone()) {
                    let orig = stream.get(h.clone())?;
                    let mut v = [0u32; 6];
                    for (c, b) in v.iter_mut().zip(orig.chunks_exact(4)) {
                        *c = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    }
                    headers[k] = Some(v);
                    s[h].copy_from_slice(orig);
                }
            }
        }
    }
    (s == stream).then_some(headers)
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
