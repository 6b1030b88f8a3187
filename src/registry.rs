//! The format registry: every format is one type implementing [`Codec`] (in its own module,
//! on the floor [`crate::codec`]) plus one line in [`FORMATS`]; detection and every command
//! (`info`, `export`, `import`, `verify`, `diff`, ...) then work for it through the object-safe
//! [`Format`] and [`Asset`] traits.

pub use crate::codec::{
    check_document_header, Asset, CheckContext, Codec, ExportOptions, Finding, Format,
    ImportOptions, InfoLine, Registered, Severity,
};

/// Every format animkit knows. Order matters only when two detectors accept the same bytes.
pub static FORMATS: &[&dyn Format] = &[
    &Registered::<crate::zengin::man::Man>::NEW,
    &Registered::<crate::mw3::Anim>::NEW,
    &Registered::<crate::ue3::Package>::NEW,
    &Registered::<crate::zengin::mdh::Mdh>::NEW,
    &Registered::<crate::zengin::msb::Msb>::NEW,
    &Registered::<crate::zengin::mds::Mds>::NEW,
    &Registered::<crate::zengin::vdf::Vdf<'static>>::NEW,
];

/// The format of `data`, detected from its content.
pub fn detect(data: &[u8]) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.detect(data))
}

/// The format with YAML tag `tag`.
pub fn by_tag(tag: &str) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.tag() == tag)
}
