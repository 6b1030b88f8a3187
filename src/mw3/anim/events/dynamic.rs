//! Event payloads whose layout depends on their data: LOOP, IF/ELSEIF, the SI script.

use super::{Condition, FrameFlags, LoopFlags};
use crate::exact::record::Record;
use crate::exact::{Cursor, DecodeError, EncodeError, Within, F32};
use crate::mw3::anim::prim::{is_default, Bytes, Vec3};
use crate::mw3::anim::ref_fields::{visit_refs, Node32};
use deku::DekuSize;
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// 30 LOOP: a count (flags = count) or a run time (any other flags; the 4 bytes as f32).
/// Written as the model holds it: `count` + `pad` or `run_time`, exactly one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Loop {
    pub flags: LoopFlags,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i16>,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_time: Option<F32>,
}

crate::record! {
    /// LOOP as stored: its 4 value bytes are a count (i16) and a pad (u16), or a run time,
    /// by its flags.
    pub(super) struct LoopRecord: little plain {
        pub flags: LoopFlags,
        pub value: [u8; 4],
    }
}

const _: () = assert!(<LoopRecord as Record>::SIZE == 8);

impl Loop {
    pub(super) fn is_count(flags: LoopFlags) -> bool {
        flags.0 == 0x1
    }
    pub(super) fn from_record(r: LoopRecord) -> Self {
        let v = r.value;
        match Self::is_count(r.flags) {
            true => Loop {
                flags: r.flags,
                count: Some(i16::from_le_bytes([v[0], v[1]])),
                pad: u16::from_le_bytes([v[2], v[3]]),
                run_time: None,
            },
            false => Loop {
                flags: r.flags,
                count: None,
                pad: 0,
                run_time: Some(F32(u32::from_le_bytes(v))),
            },
        }
    }
    /// The record, once the model is known to hold one of `count` and `run_time`.
    pub(super) fn record(&self) -> Result<LoopRecord, EncodeError> {
        let mut value = [0u8; 4];
        match (self.count, self.run_time) {
            (Some(n), None) => {
                value[..2].copy_from_slice(&n.to_le_bytes());
                value[2..].copy_from_slice(&self.pad.to_le_bytes());
            }
            (None, Some(_)) if self.pad != 0 => {
                return Err(EncodeError::new(
                    "`pad` is part of a count loop; a run_time loop has none (remove it)",
                ))
            }
            (None, Some(t)) => value = t.0.to_le_bytes(),
            _ => {
                return Err(EncodeError::new(
                    "a loop has either `count` or `run_time`, exactly one",
                ))
            }
        }
        Ok(LoopRecord {
            flags: self.flags,
            value,
        })
    }
}

crate::record! {
    /// 31 IF / 33 ELSEIF. `value` is a float for random_weight / player_range, an integer
    /// otherwise.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct If: little plain {
        pub condition: Condition,
        pub node_index: u32,
        /// The raw 4 value bytes as a u32.
        pub value: u32,
    }
}

impl If {
    pub(super) fn value_is_float(c: Condition) -> bool {
        c.0 == 1 || c.0 == 2
    }
}

impl Serialize for If {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("If", 3)?;
        st.serialize_field("condition", &self.condition)?;
        if self.node_index != 0 {
            st.serialize_field("node_index", &self.node_index)?;
        }
        if Self::value_is_float(self.condition) {
            st.serialize_field("value", &F32(self.value))?;
        } else {
            st.serialize_field("value", &self.value)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for If {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            condition: Condition,
            #[serde(default)]
            node_index: u32,
            value: String,
        }
        let r = Raw::deserialize(d)?;
        let value = if Self::value_is_float(r.condition) {
            crate::exact::float::parse_f32(&r.value)
                .map(|f| f.0)
                .ok_or_else(|| de::Error::custom(format!("value {:?} is not a number", r.value)))?
        } else {
            crate::exact::blob::parse_u32(&r.value).ok_or_else(|| {
                de::Error::custom(format!("value {:?} is not a 32-bit integer", r.value))
            })?
        };
        Ok(If {
            condition: r.condition,
            node_index: r.node_index,
            value,
        })
    }
}

impl JsonSchema for If {
    fn schema_name() -> String {
        "If".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "type": "object", "required": ["condition", "value"], "additionalProperties": false,
            "properties": {
                "condition": {"anyOf": [{"enum": Condition::NAMES.iter().map(|(_, n)| *n).collect::<Vec<_>>()}, {"type": "integer"}]},
                "node_index": {"type": "integer"},
                "value": {"description": "a float for random_weight and player_range, an integer otherwise", "type": ["number", "string"]}
            }
        }))
    }
}

crate::record! {
    /// A translate or scale block of an SI script frame.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct SiVec: little {
        #[serde(skip_serializing_if = "is_default")]
        pub base: Vec3,
        /// Leftover memory, kept.
        #[serde(skip_serializing_if = "is_default")]
        pub garbage: crate::exact::Hex32,
        #[serde(skip_serializing_if = "is_default")]
        pub delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub spline_x: Bytes<16>,
        #[serde(skip_serializing_if = "is_default")]
        pub spline_y: Bytes<16>,
        #[serde(skip_serializing_if = "is_default")]
        pub spline_z: Bytes<16>,
    }
}

const _: () = assert!(<SiVec as Record>::SIZE == 76);

crate::record! {
    /// The rotate block of an SI script frame.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct SiRotate: little {
        #[serde(skip_serializing_if = "is_default")]
        pub base: [F32; 4],
        #[serde(skip_serializing_if = "is_default")]
        pub delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub spline_x: Bytes<16>,
        #[serde(skip_serializing_if = "is_default")]
        pub spline_y: Bytes<16>,
        #[serde(skip_serializing_if = "is_default")]
        pub spline_z: Bytes<16>,
    }
}

const _: () = assert!(<SiRotate as Record>::SIZE == 76);

/// One SI script frame; the flag bits for the three blocks follow from which are present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SiFrame {
    pub start_time: F32,
    pub end_time: F32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translate: Option<SiVec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotate: Option<SiRotate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<SiVec>,
    /// Flag bits other than the three blocks (kept).
    #[serde(skip_serializing_if = "is_default")]
    pub other_flags: FrameFlags,
}

/// 12 OBJECT_MOTION_SI_SCRIPT: the script is stored inline (24-byte header + frames).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SiScript {
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub unk08: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub script_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub script_pos: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub frame_index: u32,
    pub frames: Vec<SiFrame>,
}

crate::record! {
    /// The SI script's 24-byte header (spec §6.12); `frame_count` frames follow.
    struct SiScriptHeader: little {
        node: Node32,
        frame_count: u32,
        unk08: F32,
        script_time: F32,
        script_pos: u32,
        frame_index: u32,
    }
}

const _: () = assert!(<SiScriptHeader as Record>::SIZE == 24);

crate::record! {
    /// A frame's 12-byte header; its flag bits say which of translate, rotate, scale follow.
    struct SiFrameHeader: little {
        flags: FrameFlags,
        start_time: F32,
        end_time: F32,
    }
}

impl SiScript {
    pub(super) fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let count_at = c.offset() + 4;
        let h: SiScriptHeader = c.read()?;
        let n = c
            .check_count(
                h.frame_count as u64,
                SiFrameHeader::SIZE_BYTES.unwrap_or(12),
            )
            .map_err(|mut e| {
                e.offset = count_at;
                e
            })
            .within("frame_count")?;
        let mut frames = Vec::with_capacity(n);
        for i in 0..n {
            frames.push(Self::read_frame(c).within_index(i).within("frames")?);
        }
        Ok(SiScript {
            node: h.node,
            unk08: h.unk08,
            script_time: h.script_time,
            script_pos: h.script_pos,
            frame_index: h.frame_index,
            frames,
        })
    }
    pub(super) fn read_frame(c: &mut Cursor) -> Result<SiFrame, DecodeError> {
        // (a header cut short is reported at the field it ends in)
        let h: SiFrameHeader = c.read()?;
        let translate = if h.flags.has(1) {
            Some(c.read().within("translate")?)
        } else {
            None
        };
        let rotate = if h.flags.has(2) {
            Some(c.read().within("rotate")?)
        } else {
            None
        };
        let scale = if h.flags.has(4) {
            Some(c.read().within("scale")?)
        } else {
            None
        };
        Ok(SiFrame {
            start_time: h.start_time,
            end_time: h.end_time,
            translate,
            rotate,
            scale,
            other_flags: FrameFlags(h.flags.0 & !7),
        })
    }
    /// The bytes [`write`](Self::write) writes (sizes an output buffer: a guess of 64 bytes
    /// per script made each 256 KB piece of an 18 MB MW3 document's output grow once, 11 M
    /// instructions of copying).
    pub fn encoded_size(&self) -> usize {
        let block = |present: bool, size: usize| if present { size } else { 0 };
        let frames: usize = (self.frames.iter())
            .map(|f| {
                <SiFrameHeader as Record>::SIZE
                    + block(f.translate.is_some(), <SiVec as Record>::SIZE)
                    + block(f.rotate.is_some(), <SiRotate as Record>::SIZE)
                    + block(f.scale.is_some(), <SiVec as Record>::SIZE)
            })
            .sum();
        <SiScriptHeader as Record>::SIZE + frames
    }

    pub(super) fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let frame_count = u32::try_from(self.frames.len())
            .map_err(|_| EncodeError::new("too many frames"))
            .within("frames")?;
        let h = SiScriptHeader {
            node: self.node.clone(),
            frame_count,
            unk08: self.unk08,
            script_time: self.script_time,
            script_pos: self.script_pos,
            frame_index: self.frame_index,
        };
        crate::exact::Writer::put(out, &h)?;
        for (i, f) in self.frames.iter().enumerate() {
            let r: Result<(), EncodeError> = (|| {
                if f.other_flags.0 & 7 != 0 {
                    return Err(EncodeError::new(
                        "other_flags may not hold translate/rotate/scale; give the block instead",
                    ));
                }
                let flags = f.other_flags.0
                    | u32::from(f.translate.is_some())
                    | (u32::from(f.rotate.is_some()) << 1)
                    | (u32::from(f.scale.is_some()) << 2);
                let h = SiFrameHeader {
                    flags: FrameFlags(flags),
                    start_time: f.start_time,
                    end_time: f.end_time,
                };
                crate::exact::Writer::put(out, &h)?;
                if let Some(t) = &f.translate {
                    crate::exact::Writer::put(out, t)?;
                }
                if let Some(r) = &f.rotate {
                    crate::exact::Writer::put(out, r)?;
                }
                if let Some(s) = &f.scale {
                    crate::exact::Writer::put(out, s)?;
                }
                Ok(())
            })();
            r.within_index(i).within("frames")?;
        }
        Ok(())
    }
}

visit_refs! {
    Loop: ; If: ;
}
