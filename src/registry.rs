//! The format registry: every format is one type implementing [`Codec`] plus one line in
//! [`FORMATS`]; detection and every command (`info`, `export`, `import`, `verify`, `diff`, ...)
//! then work for it through the object-safe [`Format`] and [`Asset`] traits.

use crate::exact::{DecodeError, EncodeError, ImportError};
use schemars::schema::RootSchema;
use std::any::Any;
use std::marker::PhantomData;

/// Options for binary → YAML.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Node names of the skeleton (MAN: from `--mdh`), shown beside the samples; import
    /// ignores them.
    pub node_names: Option<Vec<crate::exact::Text>>,
}

/// Options for YAML → binary.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Recompute quantisation ranges from the edited values where the format has them
    /// (MAN: `position_min`/`position_scale`) instead of failing on out-of-range values.
    pub requantize: bool,
}

/// One line of `info`: a label and a value.
pub type InfoLine = (&'static str, String);

/// How serious a [`Finding`] of `check` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Information about the file (e.g. which reading of an ambiguous layout its bytes fit).
    Info,
    /// Observed in every known file, but an edited file may legitimately differ.
    Warning,
    /// Breaks the format's structure: the game (or a strict reader) cannot use the file.
    Error,
}

/// One result of `animkit check`: a rule a file breaks, where, and how seriously.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    /// Field path, e.g. `anim_defs[2].sequences[1].events[7]`.
    pub path: String,
    pub message: String,
}

impl Finding {
    pub fn new(severity: Severity, path: impl Into<String>, message: impl Into<String>) -> Self {
        Finding {
            severity,
            path: path.into(),
            message: message.into(),
        }
    }
}

/// What `animkit check` compares a file against (all optional).
#[derive(Default)]
pub struct CheckContext<'a> {
    /// A related file, e.g. the `.MDH` skeleton a `.MAN` must belong to (`--mdh`).
    pub reference: Option<&'a dyn Asset>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{sev}: {}: {}", self.path, self.message)
    }
}

/// What a format implements. The model type itself is the decoded file.
pub trait Codec: Sized + Send + Sync + 'static {
    /// The YAML document tag, e.g. `zengin.man`.
    const TAG: &'static str;
    /// A human name, e.g. `ZenGin model animation (.MAN)`.
    const DESCRIPTION: &'static str;
    /// Usual file extensions (lower case, without dot); detection is by content.
    const EXTENSIONS: &'static [&'static str];
    /// The YAML document version this code writes and reads.
    const YAML_VERSION: u32 = 1;

    /// Whether `data` looks like this format (cheap, content-based).
    fn detect(data: &[u8]) -> bool;
    fn decode(data: &[u8]) -> Result<Self, DecodeError>;
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
    fn to_yaml(&self, opts: &ExportOptions) -> Result<String, EncodeError>;
    fn from_yaml(text: &str, opts: &ImportOptions) -> Result<Self, ImportError>;
    /// JSON Schema of the YAML document.
    fn schema() -> RootSchema;
    /// A short summary for `info`.
    fn info(&self) -> Vec<InfoLine>;
    /// The field path of the byte at `offset` of the encoded file (for mismatch reports).
    fn field_at(&self, offset: u64) -> String;
    /// What changed from `self` (old) to `other` (new), one line per change; empty when equal.
    fn diff(&self, other: &Self) -> Vec<String>;
    /// The format's validation rules and consistency findings (`animkit check`), alone or
    /// against a related file in `ctx`; formats without rules find nothing.
    fn check(&self, _ctx: &CheckContext<'_>) -> Vec<Finding> {
        Vec::new()
    }
    /// What `export` warns about: parts of the file the document keeps as raw bytes because
    /// they are damaged (each with its field path and offset).
    fn export_warnings(&self) -> Vec<Finding> {
        Vec::new()
    }
}

/// A format, as the commands see it.
pub trait Format: Send + Sync {
    fn tag(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn extensions(&self) -> &'static [&'static str];
    fn yaml_version(&self) -> u32;
    fn detect(&self, data: &[u8]) -> bool;
    fn decode(&self, data: &[u8]) -> Result<Box<dyn Asset>, DecodeError>;
    fn read_yaml(&self, text: &str, opts: &ImportOptions) -> Result<Box<dyn Asset>, ImportError>;
    fn schema(&self) -> RootSchema;
}

/// A decoded file, as the commands see it.
pub trait Asset: Send + Sync {
    fn tag(&self) -> &'static str;
    fn encode(&self) -> Result<Vec<u8>, EncodeError>;
    fn to_yaml(&self, opts: &ExportOptions) -> Result<String, EncodeError>;
    fn info(&self) -> Vec<InfoLine>;
    fn field_at(&self, offset: u64) -> String;
    /// `None` when `other` is a different format.
    fn diff(&self, other: &dyn Asset) -> Option<Vec<String>>;
    /// See [`Codec::check`].
    fn check(&self, ctx: &CheckContext<'_>) -> Vec<Finding>;
    /// See [`Codec::export_warnings`].
    fn export_warnings(&self) -> Vec<Finding>;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Codec> Asset for T {
    fn tag(&self) -> &'static str {
        T::TAG
    }
    fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        Codec::encode(self, &mut out)?;
        Ok(out)
    }
    fn to_yaml(&self, opts: &ExportOptions) -> Result<String, EncodeError> {
        Codec::to_yaml(self, opts)
    }
    fn info(&self) -> Vec<InfoLine> {
        Codec::info(self)
    }
    fn field_at(&self, offset: u64) -> String {
        Codec::field_at(self, offset)
    }
    fn diff(&self, other: &dyn Asset) -> Option<Vec<String>> {
        other
            .as_any()
            .downcast_ref::<T>()
            .map(|o| Codec::diff(self, o))
    }
    fn check(&self, ctx: &CheckContext<'_>) -> Vec<Finding> {
        Codec::check(self, ctx)
    }
    fn export_warnings(&self) -> Vec<Finding> {
        Codec::export_warnings(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The [`Format`] of a [`Codec`] type.
pub struct Registered<T>(PhantomData<fn() -> T>);

impl<T> Registered<T> {
    pub const NEW: Self = Registered(PhantomData);
}

impl<T: Codec> Format for Registered<T> {
    fn tag(&self) -> &'static str {
        T::TAG
    }
    fn description(&self) -> &'static str {
        T::DESCRIPTION
    }
    fn extensions(&self) -> &'static [&'static str] {
        T::EXTENSIONS
    }
    fn yaml_version(&self) -> u32 {
        T::YAML_VERSION
    }
    fn detect(&self, data: &[u8]) -> bool {
        T::detect(data)
    }
    fn decode(&self, data: &[u8]) -> Result<Box<dyn Asset>, DecodeError> {
        Ok(Box::new(T::decode(data)?))
    }
    fn read_yaml(&self, text: &str, opts: &ImportOptions) -> Result<Box<dyn Asset>, ImportError> {
        Ok(Box::new(T::from_yaml(text, opts)?))
    }
    fn schema(&self) -> RootSchema {
        T::schema()
    }
}

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

/// Check a document's `format` and `version` fields against the format reading it.
pub fn check_document_header(
    format: &str,
    version: u32,
    expected_tag: &str,
    expected_version: u32,
) -> Result<(), String> {
    if format != expected_tag {
        return Err(format!(
            "document is `format: {format}`, expected `{expected_tag}`"
        ));
    }
    if version != expected_version {
        return Err(format!(
            "document version {version} is not supported (this animkit reads version {expected_version} of {expected_tag})"
        ));
    }
    Ok(())
}
