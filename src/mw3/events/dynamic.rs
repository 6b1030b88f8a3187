//! Event payloads whose layout depends on their data: LOOP, IF/ELSEIF, the SI script.

use super::{Condition, FrameFlags, LoopFlags};
use crate::exact::{Cursor, DecodeError, EncodeError, Within, F32};
use crate::mw3::prim::{is_default, record, Bytes, Ctx, Field, Vec3};
use crate::mw3::ref_fields::Node32;
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// 30 LOOP: a count (flags = count) or a run time (any other flags; the 4 bytes as f32).
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

impl Loop {
    pub(super) fn is_count(flags: LoopFlags) -> bool {
        flags.0 == 0x1
    }
}

impl Field for Loop {
    const SIZE: usize = 8;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let flags = LoopFlags::read(c).within("flags")?;
        if Self::is_count(flags) {
            Ok(Loop {
                flags,
                count: Some(c.i16().within("count")?),
                pad: c.u16().within("pad")?,
                run_time: None,
            })
        } else {
            Ok(Loop {
                flags,
                count: None,
                pad: 0,
                run_time: Some(F32::read(c).within("run_time")?),
            })
        }
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.flags.write(out, ctx)?;
        match (self.count, self.run_time) {
            (Some(n), None) => {
                n.write(out, ctx)?;
                self.pad.write(out, ctx)
            }
            (None, Some(t)) => t.write(out, ctx),
            _ => Err(EncodeError::new(
                "a loop has either `count` or `run_time`, exactly one",
            )),
        }
    }
}

/// 31 IF / 33 ELSEIF. `value` is a float for random_weight / player_range, an integer
/// otherwise.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct If {
    pub condition: Condition,
    pub node_index: u32,
    /// The raw 4 value bytes as a u32.
    pub value: u32,
}

impl If {
    pub(super) fn value_is_float(c: Condition) -> bool {
        c.0 == 1 || c.0 == 2
    }
}

impl Field for If {
    const SIZE: usize = 12;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        Ok(If {
            condition: Condition::read(c).within("condition")?,
            node_index: c.u32().within("node_index")?,
            value: c.u32().within("value")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.condition.write(out, ctx)?;
        self.node_index.write(out, ctx)?;
        self.value.write(out, ctx)
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

record! {
    /// A translate or scale block of an SI script frame.
    pub struct SiVec (76) {
        pub base: Vec3,
        /// Leftover memory, kept.
        pub garbage: crate::exact::Hex32,
        pub delta: Vec3,
        pub spline_x: Bytes<16>,
        pub spline_y: Bytes<16>,
        pub spline_z: Bytes<16>,
    }
}

record! {
    /// The rotate block of an SI script frame.
    pub struct SiRotate (76) {
        pub base: [F32; 4],
        pub delta: Vec3,
        pub spline_x: Bytes<16>,
        pub spline_y: Bytes<16>,
        pub spline_z: Bytes<16>,
    }
}

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

impl SiScript {
    pub(super) fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let node = Node32::read(c).within("node")?;
        let count_at = c.offset();
        let frame_count = c.u32().within("frame_count")?;
        let unk08 = F32::read(c).within("unk08")?;
        let script_time = F32::read(c).within("script_time")?;
        let script_pos = c.u32().within("script_pos")?;
        let frame_index = c.u32().within("frame_index")?;
        let n = c
            .check_count(frame_count as u64, 12)
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
            node,
            unk08,
            script_time,
            script_pos,
            frame_index,
            frames,
        })
    }
    pub(super) fn read_frame(c: &mut Cursor) -> Result<SiFrame, DecodeError> {
        let flags = FrameFlags::read(c).within("flags")?;
        let start_time = F32::read(c).within("start_time")?;
        let end_time = F32::read(c).within("end_time")?;
        let translate = if flags.has(1) {
            Some(SiVec::read(c).within("translate")?)
        } else {
            None
        };
        let rotate = if flags.has(2) {
            Some(SiRotate::read(c).within("rotate")?)
        } else {
            None
        };
        let scale = if flags.has(4) {
            Some(SiVec::read(c).within("scale")?)
        } else {
            None
        };
        Ok(SiFrame {
            start_time,
            end_time,
            translate,
            rotate,
            scale,
            other_flags: FrameFlags(flags.0 & !7),
        })
    }
    pub(super) fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.node.write(out, ctx).within("node")?;
        let n = u32::try_from(self.frames.len())
            .map_err(|_| EncodeError::new("too many frames"))
            .within("frames")?;
        n.write(out, ctx)?;
        self.unk08.write(out, ctx)?;
        self.script_time.write(out, ctx)?;
        self.script_pos.write(out, ctx)?;
        self.frame_index.write(out, ctx)?;
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
                flags.write(out, ctx)?;
                f.start_time.write(out, ctx)?;
                f.end_time.write(out, ctx)?;
                if let Some(t) = &f.translate {
                    t.write(out, ctx)?;
                }
                if let Some(r) = &f.rotate {
                    r.write(out, ctx)?;
                }
                if let Some(s) = &f.scale {
                    s.write(out, ctx)?;
                }
                Ok(())
            })();
            r.within_index(i).within("frames")?;
        }
        Ok(())
    }
}
