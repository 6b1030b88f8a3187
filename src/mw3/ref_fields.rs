//! The typed index fields events store (a node index as i16, a light index as i32, ...): each a
//! [`Ref`] read and written as its stored integer, and visited as a reference of its kind.

use super::prim::{Ctx, Field};
use super::refs::{Ref, RefKind, RefVisitor};
use crate::exact::{Cursor, DecodeError, EncodeError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

macro_rules! ref_field {
    ($(#[$m:meta])* $name:ident, $raw:ty, $kind:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
        #[serde(transparent)]
        pub struct $name(pub Ref);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize_as($kind, s)
            }
        }

        impl $name {
            pub fn new(index: i32) -> Self {
                Self(Ref::new(index))
            }
            pub fn index(&self) -> i32 {
                self.0.index
            }
        }

        impl Field for $name {
            const SIZE: usize = std::mem::size_of::<$raw>();
            fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
                <$raw as Field>::read(c).map(|v| $name(Ref::new(v as i32)))
            }
            fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
                let v = <$raw>::try_from(self.0.index).map_err(|_| {
                    EncodeError::new(format!(
                        "index {} does not fit in {}",
                        self.0.index,
                        stringify!($raw)
                    ))
                })?;
                v.write(out, ctx)
            }
            fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
                v($kind, &mut self.0)
            }
        }
    };
}

ref_field!(/// A node index stored as i16.
    Node16, i16, RefKind::Node);
ref_field!(/// A node index stored as i32.
    Node32, i32, RefKind::Node);
ref_field!(/// A light index stored as i32.
    Light32, i32, RefKind::Light);
ref_field!(/// A puffer index stored as i32.
    Puffer32, i32, RefKind::Puffer);
ref_field!(/// A dynamic sound index stored as i32.
    DynSound32, i32, RefKind::DynamicSound);
ref_field!(/// A static sound index stored as i16.
    StaticSound16, i16, RefKind::StaticSound);
ref_field!(/// An anim ref index stored as i16.
    AnimRef16, i16, RefKind::AnimRef);
