//! `--json` reports of `info`, `check`, `verify` and `diff`: one JSON document on stdout per
//! run, with a stable shape (each has a JSON Schema in `schemas/`, `animkit.<command>`; fields
//! are only ever added).

use schemars::JsonSchema;
use serde::Serialize;

/// `animkit info --json`.
#[derive(Serialize, JsonSchema)]
pub struct InfoReport {
    /// Always `animkit.info`.
    pub report: &'static str,
    pub files: Vec<InfoFile>,
}

/// One file of `info --json`.
#[derive(Serialize, JsonSchema)]
pub struct InfoFile {
    /// As given on the command line.
    pub path: String,
    /// The document tag of its format, e.g. `zengin.man`; absent when it could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// e.g. `ZenGin model animation (.MAN)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// An animkit YAML document (not a binary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub yaml_document: Option<bool>,
    /// The file's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The summary lines, in order (a label may repeat).
    pub summary: Vec<Line>,
    /// Why the file could not be read (the same message as on stderr without --json).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A label and its value.
#[derive(Serialize, JsonSchema)]
pub struct Line {
    pub label: String,
    pub value: String,
    /// The value as a number, when it is one (frames, nodes, bytes, a rate); the value's
    /// leading number when units follow (`25.0 (source 25.0)` → 25.0). Added in issue 27.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<serde_json::Number>,
}

impl Line {
    pub fn new(label: String, value: String) -> Line {
        let first = value.split_whitespace().next().unwrap_or("");
        let number = match first.parse::<i64>() {
            Ok(i) => Some(serde_json::Number::from(i)),
            Err(_) => first
                .parse::<f64>()
                .ok()
                .filter(|_| first.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
                .and_then(serde_json::Number::from_f64),
        };
        Line {
            label,
            value,
            number,
        }
    }
}

/// `animkit check --json`.
#[derive(Serialize, JsonSchema)]
pub struct CheckReport {
    /// Always `animkit.check`.
    pub report: &'static str,
    pub files: Vec<CheckFile>,
}

/// One file of `check --json`.
#[derive(Serialize, JsonSchema)]
pub struct CheckFile {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// No errors (and, with --strict, no warnings); false when the file could not be read.
    pub ok: bool,
    pub errors: u64,
    pub warnings: u64,
    pub findings: Vec<CheckFinding>,
    /// Why the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One finding of `check`.
#[derive(Serialize, JsonSchema)]
pub struct CheckFinding {
    pub severity: Severity,
    /// Field path, e.g. `anim_defs[2].sequences[1].events[7]`.
    pub path: String,
    pub message: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl From<&crate::codec::Finding> for CheckFinding {
    fn from(f: &crate::codec::Finding) -> Self {
        use crate::codec::Severity as S;
        CheckFinding {
            severity: match f.severity {
                S::Info => Severity::Info,
                S::Warning => Severity::Warning,
                S::Error => Severity::Error,
            },
            path: f.path.clone(),
            message: f.message.clone(),
        }
    }
}

/// `animkit verify --json`.
#[derive(Serialize, JsonSchema)]
pub struct VerifyReport {
    /// Always `animkit.verify`.
    pub report: &'static str,
    /// Every file found (members of archives as `ARCHIVE:MEMBER`), unrecognised ones too.
    pub files: Vec<VerifyFile>,
    pub totals: VerifyTotals,
}

/// One file of `verify --json`.
#[derive(Serialize, JsonSchema)]
pub struct VerifyFile {
    pub path: String,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// A mismatch: the round trip that differed (e.g. `binary → YAML → binary`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// A mismatch: the first differing byte.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// A mismatch: the field that byte belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_bytes: Option<u64>,
    /// An error: its message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A glTF file (format `gltf`): each animation imported (in memory) into the MAN it came
    /// from (recorded by the export, or found by its name). Added in issue 26.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animations: Option<Vec<GltfAnimationCheck>>,
}

/// One animation of a glTF file in `verify --json`, against the MAN it goes back into.
#[derive(Serialize, JsonSchema, Clone)]
pub struct GltfAnimationCheck {
    /// The glTF animation's name.
    pub name: String,
    /// The MAN it goes back into; absent when none was found (`text` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub man: Option<String>,
    /// Importing it gives the MAN's bytes.
    pub unchanged: bool,
    /// The samples the import changes.
    pub changed_samples: u64,
    /// The frames after the import, and the MAN's before.
    pub frames: u64,
    pub frames_before: u64,
    /// As `verify` prints it.
    pub text: String,
}

#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Ok,
    Mismatch,
    Error,
    Unrecognised,
}

/// The counts `verify` prints last.
#[derive(Serialize, JsonSchema)]
pub struct VerifyTotals {
    pub files: u64,
    pub ok: u64,
    pub mismatched: u64,
    pub errors: u64,
    pub not_recognised: u64,
}

/// `animkit diff --json`.
#[derive(Serialize, JsonSchema)]
pub struct DiffReport {
    /// Always `animkit.diff`.
    pub report: &'static str,
    pub old: String,
    pub new: String,
    pub format: String,
    pub equal: bool,
    /// One line per change, as `diff` prints them (a field path, then old → new).
    pub changes: Vec<String>,
    /// Every change as data, in the order of `changes` (a line may sum up several: the frames
    /// of one node of an animation are one line, one item each): where (`path`, `node`,
    /// `frame`), the `old` and `new` value, and its `text`. A format that reports a change as
    /// text only gives `path` and `text`. Added in issue 27.
    pub items: Vec<crate::registry::Change>,
}

/// The reports' schemas: (tag, description, schema), for `schemas/`.
pub fn schemas() -> Vec<(&'static str, &'static str, schemars::schema::RootSchema)> {
    vec![
        (
            "animkit.info",
            "report of `animkit info --json`",
            schemars::schema_for!(InfoReport),
        ),
        (
            "animkit.check",
            "report of `animkit check --json`",
            schemars::schema_for!(CheckReport),
        ),
        (
            "animkit.verify",
            "report of `animkit verify --json`",
            schemars::schema_for!(VerifyReport),
        ),
        (
            "animkit.diff",
            "report of `animkit diff --json`",
            schemars::schema_for!(DiffReport),
        ),
    ]
}

/// Print `report` as one JSON document (and a newline) on stdout.
pub fn print<T: Serialize>(report: &T) {
    match serde_json::to_string_pretty(report) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("animkit: error: <stdout>: {e}"),
    }
}
