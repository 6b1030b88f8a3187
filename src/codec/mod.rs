//! The floor every format stands on: the [`Codec`] trait a format implements, the object-safe
//! [`Format`] and [`Asset`] views the commands use, the options, and the findings of `check`.
//! It imports only [`crate::exact`]; the list of formats is one floor up, in
//! [`crate::registry`], which imports every format.

mod change;
mod companion;
mod container;
mod finding;

pub use change::{Change, Diff, DiffContext};
pub use companion::Companion;
pub use container::{Archive, Container, Member, Members, Mismatch, Stage, Which};

pub use finding::{CheckContext, Finding, Severity};

use crate::exact::{DecodeError, EncodeError, ImportError};
use schemars::schema::RootSchema;
use std::any::Any;
use std::marker::PhantomData;

/// Options for binary → YAML.
#[derive(Clone, Copy, Default)]
pub struct ExportOptions<'a> {
    /// The file's companion (see [`Companion`]), e.g. the skeleton of an animation (MAN: each
    /// sample is labelled with its node's name; import ignores the labels).
    pub companion: Option<&'a dyn Asset>,
}

impl std::fmt::Debug for ExportOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportOptions")
            .field("companion", &self.companion.map(|c| c.tag()))
            .finish()
    }
}

/// Options for YAML → binary.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Recompute quantisation ranges from the edited values where the format has them
    /// (MAN: `position_min`/`position_scale`) instead of failing on out-of-range values.
    pub requantize: bool,
}

/// Where a writer puts a file's bytes as a format makes them ([`Codec::import_to`]): the
/// output file being written (which reports its own write errors when it is finished), or a
/// `Vec<u8>`.
pub trait Sink {
    /// Append bytes after those appended so far.
    fn append(&mut self, bytes: &[u8]);
    /// Overwrite bytes appended before, from `offset` (a count known only at the end).
    fn patch(&mut self, offset: usize, bytes: &[u8]);
    /// The bytes appended so far may start on their way to the disk (called while the format
    /// waits for more of its work to finish; nothing by default).
    fn settle(&mut self) {}
    /// Forget everything appended (the format starts again another way).
    fn restart(&mut self);
    /// The format is done with `part` of the document it reads (a piece already packed): the
    /// memory behind it may be given back (nothing by default; a document read from a file
    /// map drops those pages).
    fn done_with(&mut self, _part: &[u8]) {}
}

impl Sink for Vec<u8> {
    fn append(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    fn patch(&mut self, offset: usize, bytes: &[u8]) {
        self[offset..offset + bytes.len()].copy_from_slice(bytes);
    }
    fn restart(&mut self) {
        self.clear();
    }
}

/// What [`Codec::import_to`] found besides the bytes (for the writers to print as warnings).
#[derive(Debug, Default)]
pub struct Imported {
    /// The document's [`Codec::value_findings`] (they name the document).
    pub value_findings: Vec<Finding>,
    /// The [`Codec::edit_warnings`] of the edit from the file the output replaces (they name
    /// the output).
    pub edit_warnings: Vec<Finding>,
}

/// Why [`Codec::to_yaml_into`] stopped: the document could not be made, or not written (or,
/// for [`Codec::yaml_from_bytes`], the file did not decode).
#[derive(Debug)]
pub enum ExportError {
    Encode(EncodeError),
    Write(std::io::Error),
    Decode(DecodeError),
}

impl From<EncodeError> for ExportError {
    fn from(e: EncodeError) -> Self {
        ExportError::Encode(e)
    }
}

impl From<std::io::Error> for ExportError {
    fn from(e: std::io::Error) -> Self {
        ExportError::Write(e)
    }
}

/// One line of `info`: a label and a value.
pub type InfoLine = (&'static str, String);

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
    /// How to open a file of this format as a container of other files (see [`Container`]);
    /// `None` for formats whose files hold no other files.
    const CONTAINER: Option<&'static dyn Container> = None;
    /// Formats whose files a file of this format can use (see [`Companion`]).
    const COMPANIONS: &'static [Companion] = &[];

    /// Whether `data` looks like this format (cheap, content-based).
    fn detect(data: &[u8]) -> bool;
    fn decode(data: &[u8]) -> Result<Self, DecodeError>;
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
    fn to_yaml(&self, opts: &ExportOptions<'_>) -> Result<String, EncodeError>;
    fn from_yaml(text: &str, opts: &ImportOptions) -> Result<Self, ImportError>;
    /// JSON Schema of the YAML document.
    fn schema() -> RootSchema;
    /// A short summary for `info`.
    fn info(&self) -> Vec<InfoLine>;
    /// The field path of the byte at `offset` of the encoded file (for mismatch reports).
    fn field_at(&self, offset: u64) -> String;
    /// What changed from `self` (old) to `other` (new), one line per change; empty when equal.
    fn diff(&self, other: &Self) -> Vec<String>;
    /// [`Codec::diff`] as data, with what the files are compared with (`ctx`: e.g. the
    /// skeleton that names an animation's nodes): the lines `diff` prints and every change as a
    /// [`Change`] (`diff --json`). By default the lines of [`Codec::diff`], each a change
    /// reported as text only.
    fn diff_report(&self, other: &Self, _ctx: &DiffContext<'_>) -> Diff {
        Diff::from_lines(Codec::diff(self, other))
    }
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
    /// Values that make no sense on their own (a frame rate of 0, a node index no skeleton
    /// has): `check` reports them and `import` warns. Nothing by default.
    fn value_findings(&self) -> Vec<Finding> {
        Vec::new()
    }
    /// The key that ties this file to its companions: a companion belongs to the file when
    /// their keys are equal (ZenGin: the CRC-32 of the skeleton's node names in MAN and MDH).
    fn companion_key(&self) -> Option<u32> {
        None
    }
    /// The names this document defines for documents that build on it, compared without case
    /// (a model script: its animations, which an overlay script given it as its base may use);
    /// `None` for a format that defines none.
    fn defined_names(&self) -> Option<std::collections::HashSet<Vec<u8>>> {
        None
    }
    /// What an edit from `self` (the original) to `edited` left stale that the format cannot
    /// recompute (e.g. a stored bounding box after positions moved): warnings `import`, `diff`
    /// and the other writers print. Nothing by default.
    fn edit_warnings(&self, _edited: &Self) -> Vec<Finding> {
        Vec::new()
    }
    /// A YAML document straight to the file's bytes in `sink`, with what the writers print
    /// besides: the document's [`Codec::value_findings`] and, when `previous` holds the file
    /// the output replaces, the [`Codec::edit_warnings`] of the edit from it (a `previous`
    /// that is not a readable file of this format gives none). The default reads the model,
    /// encodes it and compares; a format may instead encode a large document piece by piece
    /// as it reads it and hand each piece to the sink at once (less memory, every core, the
    /// output written while the rest is read), or skip decoding `previous` when it has no
    /// edit warnings, but the result, bytes, findings or error, must be the default's. On an
    /// error the sink holds anything; the caller discards it.
    fn import_to(
        text: &str,
        opts: &ImportOptions,
        previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<Imported, ImportError> {
        import_through_model::<Self>(text, opts, previous, sink)
    }
    /// [`Codec::import_to`] of a file's [`FileText`](crate::yaml::FileText), byte order mark and all.
    /// The default checks the whole file first ([`FileText::str`](crate::yaml::FileText::str)); a
    /// format that reads a large document in pieces may check each piece as it reads it
    /// instead (each page touched once), with the same result, bytes or error, as the default.
    fn import_text_to(
        text: &crate::yaml::FileText,
        opts: &ImportOptions,
        previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<Imported, ImportError> {
        let text = text.str().map_err(ImportError::Text)?;
        Self::import_to(crate::yaml::strip_bom(text), opts, previous, sink)
    }
    /// The YAML document of [`Codec::to_yaml`] written to `out` as it is made. The default
    /// makes the whole text and writes it; a format with large documents may write it piece
    /// by piece (memory: a small constant beside the model, not the document), but the bytes
    /// written must be the default's.
    fn to_yaml_into(
        &self,
        opts: &ExportOptions<'_>,
        out: &mut dyn std::io::Write,
    ) -> Result<(), ExportError> {
        let text = self.to_yaml(opts)?;
        out.write_all(text.as_bytes())?;
        Ok(())
    }
    /// Whether `export` writes this format's documents through [`Codec::yaml_from_bytes`]
    /// (for a format without companions and without export warnings whose decoded model is
    /// several times its file: the model need not be held whole). `false` by default.
    const EXPORTS_FROM_BYTES: bool = false;
    /// The YAML document of the file `data` (default options) written to `out`. The default
    /// decodes it and writes [`Codec::to_yaml_into`]; a format may instead write it as it reads
    /// the bytes, a part of the model at a time, but the bytes written and the error must be the
    /// default's, and nothing may be written when `data` does not decode.
    fn yaml_from_bytes(data: &[u8], out: &mut dyn std::io::Write) -> Result<(), ExportError> {
        Self::decode(data)
            .map_err(ExportError::Decode)?
            .to_yaml_into(&ExportOptions::default(), out)
    }
    /// `verify`'s binary → YAML → binary step done a cheaper way the format proves equal to
    /// `encode(from_yaml(to_yaml(self)))` (with default options): the bytes that gives, or
    /// `None` (the default, and whenever the cheaper way cannot decide) for the ordinary path.
    fn yaml_round_trip(&self) -> Option<Vec<u8>> {
        None
    }
    /// A damaged file made readable by changes the format can name (`animkit repair`), e.g.
    /// chunk lengths made to agree with their content after a name was lengthened by hand:
    /// the repaired bytes and one line per change. `None`: the format knows no repair for
    /// `data` (the default).
    fn repair(_data: &[u8]) -> Option<Repaired> {
        None
    }
}

/// The result of [`Codec::repair`].
#[derive(Debug, Clone, PartialEq)]
pub struct Repaired {
    pub bytes: Vec<u8>,
    /// What changed, one line each (field path, offset, old → new).
    pub changes: Vec<String>,
}

/// The default [`Codec::import_to`]: read the model, encode it, compare (for a format whose
/// own `import_to` takes this path when its cheaper one declines).
pub fn import_through_model<T: Codec>(
    text: &str,
    opts: &ImportOptions,
    previous: Option<&[u8]>,
    sink: &mut dyn Sink,
) -> Result<Imported, ImportError> {
    let new = T::from_yaml(text, opts)?;
    let mut out = Vec::new();
    new.encode(&mut out)?;
    let imported = Imported {
        value_findings: new.value_findings(),
        edit_warnings: edit_warnings_from::<T>(previous, &new),
    };
    // (the process may end soon after: the caller need not wait for the model to be
    // dropped piece by piece before its output is written)
    drop(new);
    sink.append(&out);
    Ok(imported)
}

/// The [`Codec::edit_warnings`] of the edit from `previous` (when it is a readable file of
/// format `T`) to `new`.
fn edit_warnings_from<T: Codec>(previous: Option<&[u8]>, new: &T) -> Vec<Finding> {
    previous
        .filter(|old| T::detect(old))
        .and_then(|old| T::decode(old).ok())
        .map(|old| old.edit_warnings(new))
        .unwrap_or_default()
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
    /// See [`Codec::import_text_to`].
    fn import_to(
        &self,
        text: &crate::yaml::FileText,
        opts: &ImportOptions,
        previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<Imported, ImportError>;
    fn schema(&self) -> RootSchema;
    /// See [`Codec::CONTAINER`].
    fn container(&self) -> Option<&'static dyn Container>;
    /// See [`Codec::COMPANIONS`].
    fn companions(&self) -> &'static [Companion];
    /// See [`Codec::repair`].
    fn repair(&self, data: &[u8]) -> Option<Repaired>;
    /// See [`Codec::EXPORTS_FROM_BYTES`].
    fn exports_from_bytes(&self) -> bool;
    /// See [`Codec::yaml_from_bytes`].
    fn yaml_from_bytes(&self, data: &[u8], out: &mut dyn std::io::Write)
        -> Result<(), ExportError>;
}

/// What the commands read from any opened file, a decoded [`Asset`] or an [`Archive`]
/// borrowed from its map: one set of methods for both (each with its [`Codec`] method's
/// meaning), so a command handles either through `&dyn Document`.
pub trait Document: Send + Sync {
    /// See [`Codec::info`].
    fn info(&self) -> Vec<InfoLine>;
    /// See [`Codec::to_yaml`].
    fn to_yaml(&self, opts: &ExportOptions<'_>) -> Result<String, EncodeError>;
    /// See [`Codec::to_yaml_into`] (by default made whole, then written).
    fn to_yaml_into(
        &self,
        opts: &ExportOptions<'_>,
        out: &mut dyn std::io::Write,
    ) -> Result<(), ExportError> {
        let text = self.to_yaml(opts)?;
        out.write_all(text.as_bytes())?;
        Ok(())
    }
    /// See [`Codec::field_at`].
    fn field_at(&self, offset: u64) -> String;
    /// See [`Codec::check`] (a container's own rules: its members are checked on their own).
    fn check(&self, _ctx: &CheckContext<'_>) -> Vec<Finding> {
        Vec::new()
    }
    /// See [`Codec::export_warnings`].
    fn export_warnings(&self) -> Vec<Finding> {
        Vec::new()
    }
    /// See [`Codec::companion_key`].
    fn companion_key(&self) -> Option<u32> {
        None
    }
    /// See [`Codec::defined_names`].
    fn defined_names(&self) -> Option<std::collections::HashSet<Vec<u8>>> {
        None
    }
}

/// The [`Document`] of a [`Codec`] type: its methods, forwarded.
impl<T: Codec> Document for T {
    fn info(&self) -> Vec<InfoLine> {
        Codec::info(self)
    }
    fn to_yaml(&self, opts: &ExportOptions<'_>) -> Result<String, EncodeError> {
        Codec::to_yaml(self, opts)
    }
    fn to_yaml_into(
        &self,
        opts: &ExportOptions<'_>,
        out: &mut dyn std::io::Write,
    ) -> Result<(), ExportError> {
        Codec::to_yaml_into(self, opts, out)
    }
    fn field_at(&self, offset: u64) -> String {
        Codec::field_at(self, offset)
    }
    fn check(&self, ctx: &CheckContext<'_>) -> Vec<Finding> {
        Codec::check(self, ctx)
    }
    fn export_warnings(&self) -> Vec<Finding> {
        Codec::export_warnings(self)
    }
    fn companion_key(&self) -> Option<u32> {
        Codec::companion_key(self)
    }
    fn defined_names(&self) -> Option<std::collections::HashSet<Vec<u8>>> {
        Codec::defined_names(self)
    }
}

/// A decoded file, as the commands see it: a [`Document`], and what needs the model's own
/// type (encoding, comparing two of them).
pub trait Asset: Document {
    fn tag(&self) -> &'static str;
    fn encode(&self) -> Result<Vec<u8>, EncodeError>;
    /// `None` when `other` is a different format.
    fn diff(&self, other: &dyn Asset) -> Option<Vec<String>>;
    /// See [`Codec::diff_report`]; `None` when `other` is a different format.
    fn diff_report(&self, other: &dyn Asset, ctx: &DiffContext<'_>) -> Option<Diff>;
    /// See [`Codec::value_findings`].
    fn value_findings(&self) -> Vec<Finding>;
    /// See [`Codec::edit_warnings`]; empty when `edited` is another format.
    fn edit_warnings(&self, edited: &dyn Asset) -> Vec<Finding>;
    /// See [`Codec::yaml_round_trip`].
    fn yaml_round_trip(&self) -> Option<Vec<u8>>;
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
    fn diff(&self, other: &dyn Asset) -> Option<Vec<String>> {
        other
            .as_any()
            .downcast_ref::<T>()
            .map(|o| Codec::diff(self, o))
    }
    fn diff_report(&self, other: &dyn Asset, ctx: &DiffContext<'_>) -> Option<Diff> {
        other
            .as_any()
            .downcast_ref::<T>()
            .map(|o| Codec::diff_report(self, o, ctx))
    }
    fn value_findings(&self) -> Vec<Finding> {
        Codec::value_findings(self)
    }
    fn edit_warnings(&self, edited: &dyn Asset) -> Vec<Finding> {
        edited
            .as_any()
            .downcast_ref::<T>()
            .map(|e| Codec::edit_warnings(self, e))
            .unwrap_or_default()
    }
    fn yaml_round_trip(&self) -> Option<Vec<u8>> {
        Codec::yaml_round_trip(self)
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
        // A BOM (Notepad, PowerShell) is not part of the document.
        Ok(Box::new(T::from_yaml(crate::yaml::strip_bom(text), opts)?))
    }
    fn import_to(
        &self,
        text: &crate::yaml::FileText,
        opts: &ImportOptions,
        previous: Option<&[u8]>,
        sink: &mut dyn Sink,
    ) -> Result<Imported, ImportError> {
        // (a BOM is stripped on the way: see `import_text_to`)
        T::import_text_to(text, opts, previous, sink)
    }
    fn schema(&self) -> RootSchema {
        crate::exact::with_integer_ranges(T::schema())
    }
    fn container(&self) -> Option<&'static dyn Container> {
        T::CONTAINER
    }
    fn companions(&self) -> &'static [Companion] {
        T::COMPANIONS
    }
    fn repair(&self, data: &[u8]) -> Option<Repaired> {
        T::repair(data)
    }
    fn exports_from_bytes(&self) -> bool {
        T::EXPORTS_FROM_BYTES
    }
    fn yaml_from_bytes(
        &self,
        data: &[u8],
        out: &mut dyn std::io::Write,
    ) -> Result<(), ExportError> {
        T::yaml_from_bytes(data, out)
    }
}

/// A list of formats, for code that handles files of any format without importing the
/// registry (a container's members): the registry hands its list down.
#[derive(Clone, Copy)]
pub struct Formats(pub &'static [&'static dyn Format]);

impl Formats {
    /// The format of `data`, detected from its content.
    pub fn detect(self, data: &[u8]) -> Option<&'static dyn Format> {
        self.0.iter().copied().find(|f| f.detect(data))
    }
    /// The format with YAML tag `tag`.
    pub fn by_tag(self, tag: &str) -> Option<&'static dyn Format> {
        self.0.iter().copied().find(|f| f.tag() == tag)
    }
    /// The format with YAML tag `tag`, or the message for an unknown tag (which lists the known
    /// ones).
    pub fn by_tag_or_message(self, tag: &str) -> Result<&'static dyn Format, String> {
        self.by_tag(tag).ok_or_else(|| {
            let mut known: Vec<&str> = self.0.iter().map(|f| f.tag()).collect();
            known.sort_unstable();
            // (a hostile file's `format:` line can be megabytes long: say its start)
            let shown: String = tag.chars().take(64).collect();
            let more = if shown.len() < tag.len() { "…" } else { "" };
            format!(
                "unknown document format `{shown}{more}` (known: {})",
                known.join(", ")
            )
        })
    }
    /// What changed inside two versions of a file when both decode as the same format (empty
    /// otherwise): the lines a container's `diff` shows under a changed member.
    pub fn diff_contents(self, old: &[u8], new: &[u8]) -> Vec<String> {
        let Some(format) = self.detect(old) else {
            return Vec::new();
        };
        if !format.detect(new) {
            return Vec::new();
        }
        match (format.decode(old), format.decode(new)) {
            (Ok(x), Ok(y)) => x.diff(y.as_ref()).unwrap_or_default(),
            _ => Vec::new(),
        }
    }
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
