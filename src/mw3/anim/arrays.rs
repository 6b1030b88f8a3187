//! The per-def arrays (spec §5.2–5.9): objects, nodes, lights, puffers, dynamic and static
//! sounds (each with an all-zero item 0 on disk, which the model leaves out), activation
//! prerequisites and anim refs (no zero item).

use super::prim::{is_default, named, Bytes, NodeName, StrParts, Z};
use crate::exact::record::Record;
use crate::exact::{Cursor, DecodeError, DecodeErrorKind, EncodeError, Hex32, Within, Writer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An array item of fixed size: a declared record, or a record whose layout depends on a
/// type field (read as its declared records).
pub trait Item: Sized {
    /// Size in bytes.
    const SIZE: usize;
    fn read_item(c: &mut Cursor) -> Result<Self, DecodeError>;
    fn put_item(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
}

impl<T: Record> Item for T {
    const SIZE: usize = <T as Record>::SIZE;
    #[inline]
    fn read_item(c: &mut Cursor) -> Result<Self, DecodeError> {
        c.read()
    }
    #[inline]
    fn put_item(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put(self)
    }
}

crate::record! {
    /// ObjectRef (96 bytes).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: NodeName,
        #[serde(skip_serializing_if = "is_default")]
        pub zero32: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub node_ptr: Hex32,
        #[serde(skip_serializing_if = "is_default")]
        pub flags: Hex32,
        #[serde(skip_serializing_if = "is_default")]
        pub flags_merged: Hex32,
        /// 3×3 rotation + translation as raw bytes (the floats can be bogus).
        #[serde(skip_serializing_if = "is_default")]
        pub affine: Bytes<48>,
    }
}

const _: () = assert!(<ObjectRef as Record>::SIZE == 96);

crate::record! {
    /// NodeRef (40 bytes).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct NodeRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: NodeName,
        #[serde(skip_serializing_if = "is_default")]
        pub zero32: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub ptr: Hex32,
    }
}

const _: () = assert!(<NodeRef as Record>::SIZE == 40);

crate::record! {
    /// LightRef and DynamicSoundRef (44 bytes).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct LightRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: NodeName,
        #[serde(skip_serializing_if = "is_default")]
        pub flags: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub ptr: Hex32,
        #[serde(skip_serializing_if = "is_default")]
        pub in_world: u32,
    }
}

const _: () = assert!(<LightRef as Record>::SIZE == 44);

/// DynamicSoundRef has the LightRef layout.
pub type DynamicSoundRef = LightRef;

crate::record! {
    /// PufferRef (44 bytes). Only the high byte of `flags` is used.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct PufferRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub flags: Hex32,
        #[serde(skip_serializing_if = "is_default")]
        pub ptr: Hex32,
        #[serde(skip_serializing_if = "is_default")]
        pub in_world: u32,
    }
}

const _: () = assert!(<PufferRef as Record>::SIZE == 44);

crate::record! {
    /// StaticSoundRef (36 bytes); its name tail is usually garbage.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct StaticSoundRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub zero32: u32,
    }
}

const _: () = assert!(<StaticSoundRef as Record>::SIZE == 36);

named!(/// Activation prerequisite type.
    PrereqType: u32 { 1 => "animation", 2 => "object", 3 => "parent" });

/// ActivPrereq (48 bytes). Animation: name, then two zero words (`active`, `ptr` here).
/// Object / parent: `active`, name, ptr. Another type keeps its 40 body bytes raw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ActivPrereq {
    #[serde(rename = "type")]
    pub kind: PrereqType,
    /// 0 = required, 1 = optional.
    pub optional: u32,
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub active: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub ptr: Hex32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Bytes<40>>,
}

crate::record! {
    /// The first 8 bytes of an ActivPrereq; the 40-byte body's layout depends on `kind`.
    struct PrereqHead: little {
        optional: u32,
        kind: PrereqType,
    }
}

crate::record! {
    /// The body of an animation prerequisite.
    struct PrereqAnimation: little {
        name: Z<32>,
        active: u32,
        ptr: Hex32,
    }
}

crate::record! {
    /// The body of an object or parent prerequisite.
    struct PrereqObject: little {
        active: u32,
        name: Z<32>,
        ptr: Hex32,
    }
}

// The head, then the body record its type selects (another type: the raw 40 bytes).
impl Item for ActivPrereq {
    const SIZE: usize = 48;
    fn read_item(c: &mut Cursor) -> Result<Self, DecodeError> {
        let PrereqHead { optional, kind } = c.read()?;
        let mut p = ActivPrereq {
            kind,
            optional,
            ..Default::default()
        };
        match kind.0 {
            1 => {
                let b: PrereqAnimation = c.read()?;
                (p.name, p.active, p.ptr) = (b.name, b.active, b.ptr);
            }
            2 | 3 => {
                let b: PrereqObject = c.read()?;
                (p.name, p.active, p.ptr) = (b.name, b.active, b.ptr);
            }
            _ => p.body = Some(Bytes(c.array()?)),
        }
        Ok(p)
    }
    fn put_item(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let head = PrereqHead {
            optional: self.optional,
            kind: self.kind,
        };
        let (name, active, ptr) = (self.name.clone(), self.active, self.ptr);
        let body = match (self.kind.0, &self.body) {
            (1..=3, Some(_)) => "`body` is only for unknown prerequisite types",
            (_, None) if !(1..=3).contains(&self.kind.0) => {
                "an unknown prerequisite type needs its 40 `body` bytes"
            }
            _ => "",
        };
        if !body.is_empty() {
            return Err(EncodeError::new(body)).within("body");
        }
        out.put(&head)?;
        match (self.kind.0, &self.body) {
            (1, _) => out.put(&PrereqAnimation { name, active, ptr }),
            (2 | 3, _) => out.put(&PrereqObject { active, name, ptr }),
            (_, b) => {
                out.extend_from_slice(&b.unwrap_or_default().0);
                Ok(())
            }
        }
    }
}

named!(/// Anim ref type.
    AnimRefType: u32 { 0 => "call_animation", 1 => "call_object_connector" });

// (For call_object_connector, `name` holds its 32-byte buffer in the first half, the second
// half zero.)
/// AnimRef (72 bytes). Type call_animation: one 64-byte name. Type call_object_connector:
/// two 32-byte names. Another type keeps its 64 name bytes raw.
#[derive(Debug, Clone, Default, PartialEq, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AnimRef {
    #[serde(rename = "type")]
    pub kind: AnimRefType,
    pub name: Z<64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_name: Option<Z<32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<Bytes<64>>,
    #[serde(skip_serializing_if = "is_default")]
    pub ptr: Hex32,
}

impl AnimRef {
    fn is_pair(&self) -> bool {
        self.kind.0 == 1
    }
    /// The 32-byte name buffer of a call_object_connector ref.
    fn short_name(&self) -> Result<Z<32>, EncodeError> {
        let raw = self.name.encodable()?;
        match Z::<32>::from_raw(&raw[..32]) {
            Some(z) if raw[32..].iter().all(|&b| b == 0) => Ok(z),
            _ => Err(EncodeError::new(
                "a call_object_connector name holds at most 31 bytes (32-byte buffer)",
            )),
        }
    }
    /// Put a 32-byte name buffer in the first half of `name`.
    fn long_name(short: &Z<32>) -> Z<64> {
        let mut raw = [0u8; 64];
        raw[..32].copy_from_slice(short.as_raw());
        // the first half holds a terminator, so this always succeeds
        Z::from_raw(&raw).unwrap_or_default()
    }
}

crate::record! {
    /// An AnimRef as stored: the 64 name bytes are read by `kind`, which follows them (one
    /// 64-byte name, two 32-byte names, or raw bytes).
    struct AnimRefRecord: little {
        names: Bytes<64>,
        kind: AnimRefType,
        ptr: Hex32,
    }
}

const _: () = assert!(<AnimRefRecord as Record>::SIZE == 72);

impl Item for AnimRef {
    const SIZE: usize = <AnimRefRecord as Record>::SIZE;
    fn read_item(c: &mut Cursor) -> Result<Self, DecodeError> {
        let at = c.offset();
        let AnimRefRecord { names, kind, ptr } = c.read()?;
        let raw = &names.0;
        let mut r = AnimRef {
            kind,
            ptr,
            ..Default::default()
        };
        let unterminated = |rel: u64, field: &'static str| {
            Err(DecodeError::new(at + rel, DecodeErrorKind::Unterminated)).within(field)
        };
        match kind.0 {
            0 => match Z::from_raw(raw) {
                Some(n) => r.name = n,
                None => return unterminated(0, "name"),
            },
            1 => {
                let Some(n) = Z::<32>::from_raw(&raw[..32]) else {
                    return unterminated(0, "name");
                };
                r.name = Self::long_name(&n);
                match Z::from_raw(&raw[32..]) {
                    Some(l) => r.local_name = Some(l),
                    None => return unterminated(32, "local_name"),
                }
            }
            _ => r.raw = Some(names),
        }
        Ok(r)
    }
    fn put_item(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut names = [0u8; 64];
        match (self.kind.0, &self.local_name, &self.raw) {
            (0, None, None) => names = *self.name.encodable().within("name")?,
            (1, Some(local), None) => {
                names[..32].copy_from_slice(self.short_name().within("name")?.as_raw());
                names[32..].copy_from_slice(local.encodable().within("local_name")?);
            }
            (0 | 1, _, _) => return Err(EncodeError::new(
                "call_animation has `name` only; call_object_connector has `name` and `local_name`",
            )),
            (_, _, Some(raw)) => names = raw.0,
            (_, _, None) => {
                return Err(EncodeError::new(
                    "an unknown anim ref type needs its 64 `raw` bytes",
                ))
                .within("raw")
            }
        }
        out.put(&AnimRefRecord {
            names: Bytes(names),
            kind: self.kind,
            ptr: self.ptr,
        })
    }
}

impl Serialize for AnimRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("AnimRef", 5)?;
        st.serialize_field("type", &self.kind)?;
        // a call_object_connector name is a 32-byte buffer (its tail ends at byte 32)
        match self.short_name() {
            Ok(short) if self.is_pair() => st.serialize_field("name", &short)?,
            _ => st.serialize_field("name", &self.name)?,
        }
        if let Some(l) = &self.local_name {
            st.serialize_field("local_name", l)?;
        }
        if let Some(r) = &self.raw {
            st.serialize_field("raw", r)?;
        }
        if !is_default(&self.ptr) {
            st.serialize_field("ptr", &self.ptr)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for AnimRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The document form: the name's buffer size depends on the type.
        #[derive(Default, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        struct Doc {
            #[serde(rename = "type")]
            kind: AnimRefType,
            name: StrParts,
            local_name: Option<Z<32>>,
            raw: Option<Bytes<64>>,
            ptr: Hex32,
        }
        let doc = Doc::deserialize(d)?;
        // (a text too long for the buffer is reported by the writer, with the path)
        let name = match doc.name.build::<32, false>() {
            Ok(short) if doc.kind.0 == 1 => AnimRef::long_name(&short),
            _ => doc.name.build_lenient::<64, false>(),
        };
        Ok(AnimRef {
            kind: doc.kind,
            name,
            local_name: doc.local_name,
            raw: doc.raw,
            ptr: doc.ptr,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both_ways<T: Item + PartialEq + std::fmt::Debug>(value: &T, bytes: &[u8]) {
        let mut c = Cursor::new(bytes, 0);
        assert_eq!(&T::read_item(&mut c).unwrap(), value);
        assert!(c.is_empty());
        let mut out = Vec::new();
        value.put_item(&mut out).unwrap();
        assert_eq!(out, bytes);
    }

    fn node_fill(name: &[u8]) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[..17].copy_from_slice(super::super::prim::NODE_FILL);
        b[..name.len()].copy_from_slice(name);
        b[name.len()] = 0;
        b
    }

    #[test]
    fn array_records_table() {
        let mut node = Vec::from(node_fill(b"node_a"));
        node.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 5]);
        both_ways(
            &NodeRef {
                name: NodeName::new("node_a"),
                zero32: 0,
                ptr: Hex32(0x0500_0000),
            },
            &node,
        );

        let mut light = Vec::from(node_fill(b"light1"));
        light.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 6, 1, 0, 0, 0]);
        both_ways(
            &LightRef {
                name: NodeName::new("light1"),
                flags: 0,
                ptr: Hex32(0x0600_0000),
                in_world: 1,
            },
            &light,
        );

        let mut ssnd = [0u8; 36];
        ssnd[..6].copy_from_slice(b"ssnd1\0");
        ssnd[30] = 1;
        ssnd[31] = 2;
        let mut tail = vec![0u8; 26];
        tail[24] = 1;
        tail[25] = 2;
        both_ways(
            &StaticSoundRef {
                name: Z::from_parts(b"ssnd1", Some(&tail)).unwrap(),
                zero32: 0,
            },
            &ssnd,
        );

        let mut prereq = vec![0u8; 48];
        prereq[0] = 1;
        prereq[4] = 2;
        prereq[8] = 1;
        prereq[12..22].copy_from_slice(b"prereq_obj");
        prereq[47] = 9;
        both_ways(
            &ActivPrereq {
                kind: PrereqType(2),
                optional: 1,
                name: Z::new("prereq_obj"),
                active: 1,
                ptr: Hex32(0x0900_0000),
                body: None,
            },
            &prereq,
        );

        let mut aref = vec![0u8; 72];
        aref[..5].copy_from_slice(b"conn\0");
        aref[32..38].copy_from_slice(b"local\0");
        aref[64] = 1;
        both_ways(
            &AnimRef {
                kind: AnimRefType(1),
                name: AnimRef::long_name(&Z::new("conn")),
                local_name: Some(Z::new("local")),
                raw: None,
                ptr: Hex32(0),
            },
            &aref,
        );
    }
}
