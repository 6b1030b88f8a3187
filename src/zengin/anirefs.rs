//! References between a model script's animations (MDS and its compiled MSB): `next`,
//! `aniAlias`'s `alias_of`, `aniComb`'s `prefix1` … `prefixN`. `check` reports a reference to
//! a name that no animation of the script defines (e.g. left behind by a rename). Names compare
//! without case, as the engine does.

use crate::codec::{Finding, Severity};

/// One animation statement, as the reference check sees it.
pub struct AniStatement<'a> {
    /// Its field path, e.g. `entries[7].aniAlias`.
    pub path: String,
    /// The name it defines (none for statements that define no animation).
    pub name: Option<&'a [u8]>,
    /// Its `next` (empty: none).
    pub next: Option<&'a [u8]>,
    /// An alias's `alias_of`.
    pub alias_of: Option<&'a [u8]>,
    /// A combination's `prefix` and `count`.
    pub comb: Option<(&'a [u8], i32)>,
}

impl<'a> AniStatement<'a> {
    /// A statement at `path` defining `name`, with no references yet.
    pub fn named(path: String, name: &'a [u8]) -> Self {
        AniStatement {
            path,
            name: Some(name),
            next: None,
            alias_of: None,
            comb: None,
        }
    }
}

fn key(name: &[u8]) -> Vec<u8> {
    name.to_ascii_uppercase()
}

fn shown(name: &[u8]) -> String {
    crate::exact::text::decode_cp1252(name).into_owned()
}

/// Every reference to a name no statement defines, as a warning (an overlay script may use an
/// animation of its base script).
pub fn dangling(statements: &[AniStatement<'_>]) -> Vec<Finding> {
    let defined: std::collections::HashSet<Vec<u8>> =
        statements.iter().filter_map(|s| s.name.map(key)).collect();
    let known = |n: &[u8]| defined.contains(&key(n));
    let mut out = Vec::new();
    let note = "names no animation of this script (renamed? rename every reference too; an \
                overlay may take it from its base script)";
    for s in statements {
        if let Some(n) = s.next.filter(|n| !n.is_empty() && !known(n)) {
            out.push(Finding::new(
                Severity::Warning,
                format!("{}.next", s.path),
                format!("{:?} {note}", shown(n)),
            ));
        }
        if let Some(n) = s.alias_of.filter(|n| !known(n)) {
            out.push(Finding::new(
                Severity::Warning,
                format!("{}.alias_of", s.path),
                format!("{:?} {note}", shown(n)),
            ));
        }
        if let Some((prefix, count)) = s.comb {
            // Bounded: a count beyond any real script is not expanded name by name.
            let missing: Vec<String> = (1..=count.clamp(0, 1000))
                .map(|i| [prefix, i.to_string().as_bytes()].concat())
                .filter(|n| !known(n))
                .map(|n| shown(&n))
                .collect();
            if !missing.is_empty() {
                let mut listed = missing
                    .iter()
                    .take(4)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                if missing.len() > 4 {
                    listed.push_str(", …");
                }
                out.push(Finding::new(
                    Severity::Warning,
                    format!("{}.prefix", s.path),
                    format!(
                        "combines {}1 … {}{count}, of which {} ({listed}) {note}",
                        shown(prefix),
                        shown(prefix),
                        missing.len(),
                    ),
                ));
            }
        }
    }
    out
}
