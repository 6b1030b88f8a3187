//! The typed index fields events store (a node index as i16, a light index as i32, ...): each a
//! [`Ref`] read and written (deku) as its stored integer, and visited as a reference of its
//! kind ([`VisitRefs`]).

use super::refs::{Ref, RefKind, RefVisitor};
use crate::exact::{EncodeError, Within};
use deku::ctx::Endian;
use deku::no_std_io::{Read, Seek, Write};
use deku::reader::Reader;
use deku::writer::Writer;
use deku::{DekuError, DekuReader, DekuSize, DekuWriter};
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

        // The stored integer; an index that does not fit it is refused when writing (the
        // bridge names the field).
        impl<'a> DekuReader<'a, Endian> for $name {
            #[inline]
            fn from_reader_with_ctx<R: Read + Seek>(
                reader: &mut Reader<R>,
                endian: Endian,
            ) -> Result<Self, DekuError> {
                <$raw>::from_reader_with_ctx(reader, endian).map(|v| $name(Ref::new(v as i32)))
            }
        }

        impl DekuWriter<Endian> for $name {
            #[inline]
            fn to_writer<W: Write + Seek>(
                &self,
                writer: &mut Writer<W>,
                endian: Endian,
            ) -> Result<(), DekuError> {
                match <$raw>::try_from(self.0.index) {
                    Ok(v) => v.to_writer(writer, endian),
                    Err(_) => Err(DekuError::InvalidParam(
                        format!("index {} does not fit in {}", self.0.index, stringify!($raw))
                            .into(),
                    )),
                }
            }
        }

        impl DekuSize for $name {
            const SIZE_BITS: usize = 8 * std::mem::size_of::<$raw>();
        }

        impl $crate::exact::record::Shape for $name {}

        impl VisitRefs for $name {
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

/// Every reference a record holds, visited with its field path (to resolve names, attach
/// names, check indices).
pub trait VisitRefs {
    fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError>;
}

impl<T: VisitRefs, const N: usize> VisitRefs for [T; N] {
    fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        for (i, x) in self.iter_mut().enumerate() {
            x.visit_refs(v).within_index(i)?;
        }
        Ok(())
    }
}

impl<T: VisitRefs> VisitRefs for Box<T> {
    fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        (**self).visit_refs(v)
    }
}

/// The reference fields of a record: `visit_refs!(Sound: sound, node);` (none: `visit_refs!(Empty:);`).
macro_rules! visit_refs {
    ($($t:ty: $($f:ident),*;)*) => {$(
        impl $crate::mw3::anim::ref_fields::VisitRefs for $t {
            #[allow(unused_variables)]
            fn visit_refs(
                &mut self,
                v: &mut $crate::mw3::anim::refs::RefVisitor,
            ) -> Result<(), $crate::exact::EncodeError> {
                #[allow(unused_imports)]
                use $crate::exact::Within;
                $($crate::mw3::anim::ref_fields::VisitRefs::visit_refs(&mut self.$f, v).within(stringify!($f))?;)*
                Ok(())
            }
        }
    )*};
}
pub(crate) use visit_refs;
