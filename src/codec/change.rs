//! What `animkit diff` reports: each change as data (`diff --json`'s `items`) and the lines it
//! prints, and what two files are compared with (a companion that names what changed).

use super::Asset;
use schemars::JsonSchema;
use serde::Serialize;

/// What `diff` compares two files with (all optional).
#[derive(Default, Clone, Copy)]
pub struct DiffContext<'a> {
    /// The old file's companion (see [`super::Companion`]), e.g. the skeleton whose node names
    /// say which node of an animation changed.
    pub companion: Option<&'a dyn Asset>,
}

/// One change, as data: where (a field path, and the node or statement and frame it is in),
/// the old and the new value as JSON, and the text a person reads.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Change {
    /// The field path in the document, e.g. `header.fps`, `samples`, `events[2]`,
    /// `entries[7].fps`.
    pub path: String,
    /// What the path is in, by name: a skeleton node (`BIP01 L FOREARM`) or a script statement
    /// (`ani "S_RUN"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The node's index in its skeleton (MAN samples), with or without a name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_index: Option<u64>,
    /// The frame the change is at (MAN samples).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    /// The old value (absent: the value was added, or the format reports this change as text
    /// only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub old: Option<serde_json::Value>,
    /// The new value (absent: the value was removed, or the format reports this change as text
    /// only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub new: Option<serde_json::Value>,
    /// The change as a person reads it.
    pub text: String,
}

impl Change {
    /// A change at `path` from `old` to `new` (values as JSON), read as `text`.
    pub fn new(
        path: impl Into<String>,
        old: Option<serde_json::Value>,
        new: Option<serde_json::Value>,
        text: impl Into<String>,
    ) -> Change {
        Change {
            path: path.into(),
            node: None,
            node_index: None,
            frame: None,
            old,
            new,
            text: text.into(),
        }
    }

    /// A change a format reports as a line of text only (its path is the line up to the
    /// first `: `, or the whole line).
    pub fn text_only(line: impl Into<String>) -> Change {
        let text = line.into();
        let path = text.split_once(": ").map_or(text.as_str(), |(p, _)| p);
        Change::new(path.to_string(), None, None, text.clone())
    }

    /// A value as JSON (a value that has none, e.g. a map with non-text keys, is `null`).
    /// Floats are the shortest decimals that give their bits back (an f32 `0.0014496071`, not
    /// the f64 `0.0014496070705354214` a direct conversion shows), as the YAML writes them.
    pub fn value<T: Serialize + ?Sized>(v: &T) -> serde_json::Value {
        serde_json::to_string(v)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(serde_json::Value::Null)
    }
}

/// What `diff` found: the lines it prints (a line may sum up many changes, e.g. the frames of
/// one node) and every change as data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diff {
    pub lines: Vec<String>,
    pub changes: Vec<Change>,
}

impl Diff {
    /// Lines that are each one change, reported as text only (formats without data changes).
    pub fn from_lines(lines: Vec<String>) -> Diff {
        let changes = lines.iter().cloned().map(Change::text_only).collect();
        Diff { lines, changes }
    }

    /// A change that is also one printed line.
    pub fn push(&mut self, change: Change) {
        self.lines.push(change.text.clone());
        self.changes.push(change);
    }

    /// A line with no data beside it.
    pub fn push_line(&mut self, line: impl Into<String>) {
        self.push(Change::text_only(line));
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.changes.is_empty()
    }
}
