//! Errors with a byte offset and a field path (`header.name`, `anim_defs[3].objects[2]`).
//!
//! Paths are built only on the error path: a reader returns a bare [`DecodeError`] at the point
//! of failure and every enclosing reader prefixes its own segment with [`Within::within`], so a
//! successful parse never pays for path bookkeeping.

use std::fmt;
use std::path::PathBuf;

/// The deepest nesting a YAML document may have (block and flow levels together); animkit's
/// documents nest less than 16 levels. Here, below the YAML layer that enforces it (and
/// re-exports it as `crate::yaml::MAX_DEPTH`), because the error text names it.
pub const MAX_DEPTH: usize = 128;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Field(&'static str),
    Index(usize),
    Key(String),
}

/// A path to a field inside a decoded document, e.g. `chunks[3].samples.frames[7]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(Vec<Segment>);

impl FieldPath {
    pub fn new() -> Self {
        Self(Vec::new())
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Prefix the path with an outer segment.
    pub fn prefix(&mut self, seg: Segment) {
        self.0.insert(0, seg);
    }
    pub fn push(mut self, seg: Segment) -> Self {
        self.0.push(seg);
        self
    }
    pub fn field(self, name: &'static str) -> Self {
        self.push(Segment::Field(name))
    }
    pub fn index(self, i: usize) -> Self {
        self.push(Segment::Index(i))
    }
    /// The steps, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("<file>");
        }
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Segment::Field(name) if i == 0 => f.write_str(name)?,
                Segment::Field(name) => write!(f, ".{name}")?,
                Segment::Key(name) if i == 0 => f.write_str(name)?,
                Segment::Key(name) => write!(f, ".{name}")?,
                Segment::Index(idx) => write!(f, "[{idx}]")?,
            }
        }
        Ok(())
    }
}

/// What went wrong while decoding binary data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeErrorKind {
    #[error("unexpected end of data: {need} bytes needed, {have} left")]
    Truncated { need: u64, have: u64 },
    #[error("count {count} needs {need} bytes but only {have} are left")]
    CountTooLarge { count: u64, need: u64, have: u64 },
    #[error("string has no terminator before the end of its field")]
    Unterminated,
    #[error("{0}")]
    Invalid(String),
    /// An error in a text format, where a line and column say more than an offset.
    #[error("{line}:{column}: {message}")]
    Text {
        line: usize,
        column: usize,
        message: String,
    },
}

/// A decoding failure at an absolute byte offset, inside a field path (in a text format: at a
/// line and column).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct DecodeError {
    pub offset: u64,
    pub path: FieldPath,
    pub kind: DecodeErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DecodeErrorKind::Text { .. } => write!(f, "{}", self.kind),
            kind => write!(
                f,
                "byte offset {} (0x{:x}), field {}: {kind}",
                self.offset, self.offset, self.path
            ),
        }
    }
}

impl DecodeError {
    pub fn new(offset: u64, kind: DecodeErrorKind) -> Self {
        Self {
            offset,
            path: FieldPath::new(),
            kind,
        }
    }
    pub fn invalid(offset: u64, msg: impl Into<String>) -> Self {
        Self::new(offset, DecodeErrorKind::Invalid(msg.into()))
    }
    /// An error of a text format at byte `offset`, line `line`, column `column` (1-based).
    pub fn text(offset: u64, line: usize, column: usize, msg: impl Into<String>) -> Self {
        Self::new(
            offset,
            DecodeErrorKind::Text {
                line,
                column,
                message: msg.into(),
            },
        )
    }
    /// The line and column of an error of a text format.
    pub fn line_column(&self) -> Option<(usize, usize)> {
        match self.kind {
            DecodeErrorKind::Text { line, column, .. } => Some((line, column)),
            _ => None,
        }
    }
}

/// A value that cannot be written back (an edit the encoding cannot hold, an inconsistent
/// document). Carries the document path of the offending value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct EncodeError {
    pub path: FieldPath,
    pub message: String,
}

impl EncodeError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            path: FieldPath::new(),
            message: message.into(),
        }
    }
}

/// Prefix the field path of an error on its way out of a reader or writer.
pub trait Within {
    fn within(self, seg: &'static str) -> Self;
    fn within_index(self, i: usize) -> Self;
}

macro_rules! impl_within {
    ($err:ty) => {
        impl<T> Within for Result<T, $err> {
            #[inline]
            fn within(self, seg: &'static str) -> Self {
                self.map_err(|mut e| {
                    e.path.prefix(Segment::Field(seg));
                    e
                })
            }
            #[inline]
            fn within_index(self, i: usize) -> Self {
                self.map_err(|mut e| {
                    e.path.prefix(Segment::Index(i));
                    e
                })
            }
        }
    };
}
impl_within!(DecodeError);
impl_within!(EncodeError);

/// A YAML document that does not deserialise, with its line and column.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{message}", location_prefix(*.line, *.column))]
pub struct YamlError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

/// `L:C: ` (or `L: `), as compilers write a position.
fn location_prefix(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{l}:{c}: "),
        (Some(l), None) => format!("{l}: "),
        _ => String::new(),
    }
}

impl YamlError {
    /// `FILE:LINE:COL: message` (as far as the position is known).
    pub fn in_file(&self, file: &std::path::Path) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}: {}", file.display(), self.message),
            (Some(l), None) => format!("{}:{l}: {}", file.display(), self.message),
            _ => format!("{}: {}", file.display(), self.message),
        }
    }
}

/// `message` with serde's Rust type names (`expected u16`) said as ranges (`expected a whole
/// number 0 … 65535`), as the schema's `minimum`/`maximum` say them.
pub fn in_ranges(message: &str) -> String {
    const TYPES: [(&str, &str); 10] = [
        ("u8", "0 … 255"),
        ("u16", "0 … 65535"),
        ("u32", "0 … 4294967295"),
        ("u64", "0 … 18446744073709551615"),
        ("usize", "0 … 18446744073709551615"),
        ("i8", "-128 … 127"),
        ("i16", "-32768 … 32767"),
        ("i32", "-2147483648 … 2147483647"),
        ("i64", "-9223372036854775808 … 9223372036854775807"),
        ("isize", "-9223372036854775808 … 9223372036854775807"),
    ];
    let Some(at) = message.rfind("expected ") else {
        return message.to_string();
    };
    let (head, tail) = message.split_at(at + "expected ".len());
    let word_end = tail
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(tail.len());
    let (word, rest) = tail.split_at(word_end);
    let plain = match word {
        "f32" | "f64" => "a number".to_string(),
        _ => match TYPES.iter().find(|(t, _)| *t == word) {
            Some((_, range)) => format!("a whole number {range}"),
            None => return message.to_string(),
        },
    };
    format!("{head}{plain}{rest}")
}

/// How many aliases (`*name`) a document may use. animkit never writes anchors or aliases;
/// a person may, to repeat a value, but not thousands of times.
pub const MAX_ALIASES: usize = 10_000;

/// The message for a document nested deeper than animkit reads.
pub fn nested_too_deep() -> String {
    format!(
        "nested too deep: the document nests deeper than {MAX_DEPTH} levels here (animkit's \
         documents nest less than 16)"
    )
}

/// A reading budget that a document crossed, in words (not the reader's type names).
fn budget_words(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    match breach {
        B::Documents { .. } => "the file holds more than one YAML document (a second `---`); \
            an animkit file is one document"
            .to_string(),
        B::Depth { .. } => nested_too_deep(),
        B::Aliases { .. } | B::Anchors { .. } | B::AliasAnchorRatio { .. } => format!(
            "too many aliases (`*name`) or anchors (`&name`): at most {} in a document",
            MAX_ALIASES
        ),
        _ => "the document holds more values, or aliases repeat more, than a document of its \
            length can (a hostile or damaged file?)"
            .to_string(),
    }
}

impl From<serde_saphyr::Error> for YamlError {
    fn from(e: serde_saphyr::Error) -> Self {
        use serde_saphyr::MessageFormatter;
        let loc = e.location();
        // The message alone (the location is kept separately), in the words a user reads; the
        // developer formatter would suggest reader options.
        if let serde_saphyr::Error::Budget { breach, .. } = e.without_snippet() {
            return Self {
                line: loc.as_ref().map(|l| l.line() as usize),
                column: loc.as_ref().map(|l| l.column() as usize),
                message: budget_words(breach),
            };
        }
        let message = serde_saphyr::UserMessageFormatter.format_message(&e);
        let message = message.trim_end();
        // serde-saphyr says `invalid u16` for a number out of range: say which numbers fit.
        let message = match message.strip_prefix("invalid ") {
            Some(ty) if !ty.contains(' ') => in_ranges(&format!("invalid value, expected {ty}")),
            _ if message.contains("recursion limit exceeded")
                || message.contains("Depth")
                || message.contains("nesting limit") =>
            {
                nested_too_deep()
            }
            _ => match message {
                "expected sequence start" => "expected a list".to_string(),
                "expected mapping start" => "expected a mapping".to_string(),
                m => in_ranges(m),
            },
        };
        Self {
            line: loc.as_ref().map(|l| l.line() as usize),
            column: loc.as_ref().map(|l| l.column() as usize),
            message,
        }
    }
}

/// The error every command reports: what happened, to which file. An error at a line and
/// column of a text file (a script, a YAML document) reads `FILE:LINE:COL: error: message`, as
/// compilers write it (see [`Error::is_located`]).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}", located(.file, .source.line_column(), .source))]
    Decode { file: PathBuf, source: DecodeError },
    #[error("{}", located_yaml(.file, .source))]
    Yaml { file: PathBuf, source: YamlError },
    #[error("{}: cannot encode: {source}", .file.display())]
    Encode { file: PathBuf, source: EncodeError },
    #[error("{}: {source}", .file.display())]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", .file.display())]
    Other { file: PathBuf, message: String },
}

fn located(file: &std::path::Path, at: Option<(usize, usize)>, e: &DecodeError) -> String {
    match (at, &e.kind) {
        (Some((line, column)), DecodeErrorKind::Text { message, .. }) => {
            format!("{}:{line}:{column}: error: {message}", file.display())
        }
        _ => format!("{}: {e}", file.display()),
    }
}

fn located_yaml(file: &std::path::Path, e: &YamlError) -> String {
    let f = file.display();
    match (e.line, e.column) {
        (Some(l), Some(c)) => format!("{f}:{l}:{c}: error: {}", e.message),
        (Some(l), None) => format!("{f}:{l}: error: {}", e.message),
        _ => format!("{f}: {}", e.message),
    }
}

impl Error {
    /// Whether the error names a line and column (`FILE:LINE:COL: error: message`), so it is
    /// reported as it is, without a program-name prefix.
    pub fn is_located(&self) -> bool {
        match self {
            Error::Decode { source, .. } => source.line_column().is_some(),
            Error::Yaml { source, .. } => source.line.is_some(),
            _ => false,
        }
    }
    pub fn io(file: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            file: file.into(),
            source,
        }
    }
    pub fn other(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Other {
            file: file.into(),
            message: message.into(),
        }
    }
    /// A decoding error of `file`, for `map_err(Error::decoding(path))`.
    pub fn decoding(file: &std::path::Path) -> impl Fn(DecodeError) -> Error + '_ {
        move |source| Error::Decode {
            file: file.into(),
            source,
        }
    }
    /// An encoding error of `file`, for `map_err(Error::encoding(path))`.
    pub fn encoding(file: &std::path::Path) -> impl Fn(EncodeError) -> Error + '_ {
        move |source| Error::Encode {
            file: file.into(),
            source,
        }
    }
    /// An encoding error of `file` where a message without a field path names its own file (a
    /// member, a YAML file) and is reported as it is.
    pub fn encode_in(file: impl Into<PathBuf>, e: EncodeError) -> Self {
        if e.path.is_empty() {
            Error::other(file, e.message)
        } else {
            Error::Encode {
                file: file.into(),
                source: e,
            }
        }
    }
    /// The file the error names.
    pub fn file_mut(&mut self) -> &mut PathBuf {
        match self {
            Error::Decode { file, .. }
            | Error::Yaml { file, .. }
            | Error::Encode { file, .. }
            | Error::Io { file, .. }
            | Error::Other { file, .. } => file,
        }
    }
}

/// Why a YAML document could not be turned into a binary file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Yaml(#[from] YamlError),
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The file is not UTF-8 text (the message says where and why).
    #[error("{0}")]
    Text(String),
}
