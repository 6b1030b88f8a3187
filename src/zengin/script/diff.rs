//! What changed between two versions of a model script, named by statement (`ani "S_RUN": fps
//! 25.0 → 12.5`), for both encodings: the text (`.MDS`) and the compiled file (`.MSB`) list
//! their statements as [`Statement`]s and [`statements`] compares the lists.

use crate::codec::{Change, Diff};
use serde::Serialize;
use serde_json::Value;

/// One statement (or other entry) of a script, as `diff` compares it.
pub struct Statement {
    /// Its place in the document, e.g. `entries[7]` or `script.items[1].aniEnum[3]`.
    pub path: String,
    /// Its keyword, e.g. `ani`.
    pub keyword: &'static str,
    /// Its fields as the document writes them (`{name: S_RUN, fps: 25.0, ...}`).
    pub fields: Value,
}

impl Statement {
    /// A statement whose document form is `{keyword: fields}` (the one-key form of every
    /// script statement).
    pub fn new(path: String, keyword: &'static str, one_key: &impl Serialize) -> Statement {
        let value = Change::value(one_key);
        let fields = match value {
            Value::Object(mut m) if m.len() == 1 && m.contains_key(keyword) => {
                m.remove(keyword).unwrap_or(Value::Null)
            }
            other => other,
        };
        Statement {
            path,
            keyword,
            fields,
        }
    }

    /// `ani "S_RUN"`: the keyword and, when the statement has one, its name (a model tag's
    /// tag, a mesh's file).
    pub fn label(&self) -> String {
        match ["name", "tag", "mesh", "asc"]
            .iter()
            .find_map(|k| self.fields.get(*k).and_then(|v| v.as_str()))
        {
            Some(name) => format!("{} {name:?}", self.keyword),
            None => self.keyword.to_string(),
        }
    }
}

/// The changes from statements `old` to `new`: statements matched by keyword and name (in
/// order; a statement renamed in place is matched with its old self), each changed field named
/// (`ani "S_RUN": fps 25.0 → 12.5`, `events[2].frame 10 → 12`), statements added and removed.
/// With `show_path`, each line starts with the statement's place (`entries[7] ani ...`).
pub fn statements(old: &[Statement], new: &[Statement], show_path: bool) -> Diff {
    let (ka, kb): (Vec<String>, Vec<String>) = (
        old.iter().map(Statement::label).collect(),
        new.iter().map(Statement::label).collect(),
    );
    let mut out = Diff::default();
    let head = |s: &Statement| {
        if show_path {
            format!("{} {}", s.path, s.label())
        } else {
            s.label()
        }
    };
    let changed = |out: &mut Diff, a: &Statement, b: &Statement| {
        let mut leaves = Vec::new();
        leaf_changes("", &a.fields, &b.fields, &mut leaves);
        for (field, x, y) in leaves {
            let at = if field.is_empty() {
                b.path.clone()
            } else {
                format!("{}.{field}", b.path)
            };
            let text = format!("{}: {field} {} → {}", head(a), shown(&x), shown(&y));
            out.push(Change {
                node: Some(a.label()),
                ..Change::new(at, Some(x), Some(y), text)
            });
        }
    };
    let gone = |out: &mut Diff, a: &Statement| {
        out.push(Change {
            node: Some(a.label()),
            ..Change::new(
                a.path.clone(),
                Some(a.fields.clone()),
                None,
                format!("{}: removed", head(a)),
            )
        })
    };
    let added = |out: &mut Diff, b: &Statement| {
        out.push(Change {
            node: Some(b.label()),
            ..Change::new(
                b.path.clone(),
                None,
                Some(b.fields.clone()),
                format!("{}: added {}", head(b), b.fields),
            )
        })
    };
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        use similar::DiffOp;
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    let (a, b) = (&old[old_index + k], &new[new_index + k]);
                    if a.fields != b.fields {
                        changed(&mut out, a, b);
                    }
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => old[old_index..old_index + old_len]
                .iter()
                .for_each(|a| gone(&mut out, a)),
            DiffOp::Insert {
                new_index, new_len, ..
            } => new[new_index..new_index + new_len]
                .iter()
                .for_each(|b| added(&mut out, b)),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let (xs, ys) = (
                    &old[old_index..old_index + old_len],
                    &new[new_index..new_index + new_len],
                );
                // Renamed in place: the same statements, one for one.
                if old_len == new_len && xs.iter().zip(ys).all(|(a, b)| a.keyword == b.keyword) {
                    for (a, b) in xs.iter().zip(ys) {
                        changed(&mut out, a, b);
                    }
                } else {
                    xs.iter().for_each(|a| gone(&mut out, a));
                    ys.iter().for_each(|b| added(&mut out, b));
                }
            }
        }
    }
    out
}

/// A value as a change shows it: JSON, a field not given as `(not given)`.
fn shown(v: &Value) -> String {
    match v {
        Value::Null => "(not given)".into(),
        v => v.to_string(),
    }
}

/// `(field path, old, new)` for every leaf that differs (`events[2].frame`, 10, 12); a field
/// only one side has is `null` on the other.
fn leaf_changes(at: &str, a: &Value, b: &Value, out: &mut Vec<(String, Value, Value)>) {
    if a == b {
        return;
    }
    let join = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().collect();
            keys.extend(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                let none = Value::Null;
                leaf_changes(
                    &join(k),
                    x.get(k).unwrap_or(&none),
                    y.get(k).unwrap_or(&none),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                leaf_changes(&format!("{at}[{i}]"), p, q, out);
            }
        }
        _ => out.push((at.to_string(), a.clone(), b.clone())),
    }
}
