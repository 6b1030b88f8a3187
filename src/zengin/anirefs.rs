//! References between a model script's animations (MDS and its compiled MSB): `next`,
//! `aniAlias`'s `alias_of`, `aniComb`'s `prefix1` … `prefixN`. `check` reports a reference to
//! a name that no animation of the script defines (e.g. left behind by a rename). Names compare
//! without case, as the engine does.

use crate::codec::{Finding, Severity};
use std::collections::HashSet;

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

/// A script's companions: its base script, text or compiled (`check --with BASE.MDS|MSB`:
/// the names an overlay takes from its base).
pub const BASE_SCRIPTS: &[crate::codec::Companion] = &[
    crate::codec::Companion {
        tag: "zengin.mds",
        flag: "base",
        role: "the base script of an overlay: `check` resolves the names the overlay takes \
               from it",
        beside: None,
    },
    crate::codec::Companion {
        tag: "zengin.msb",
        flag: "base",
        role: "the base script of an overlay, compiled: `check` resolves the names the \
               overlay takes from it",
        beside: None,
    },
];

/// What the reference check knows besides the script's own statements.
#[derive(Default)]
pub struct Scope {
    /// The script is an overlay ([`is_overlay`]): a name it does not define may be its base
    /// script's.
    pub overlay: bool,
    /// The names the base script defines (`check --with BASE.MDS|MSB`), as [`names`] gives
    /// them.
    pub base: Option<HashSet<Vec<u8>>>,
    /// Statements the parser skipped, by the name they would have defined: (name, the
    /// parser's warning `LINE:COL: message`).
    pub skipped: Vec<(Vec<u8>, String)>,
}

/// An overlay script: its `meshAndTree` has `DONT_USE_MESH` and it registers no mesh, so it
/// brings no model of its own and is applied onto a base model (the human overlays
/// `HUMANS_1HST1.MDS` …), whose animations its `next`s and aliases may name. (Base scripts
/// with `DONT_USE_MESH`, such as `SCAVENGER.MDS`, register their meshes.)
pub fn is_overlay(dont_use_mesh: Option<bool>, registers_meshes: bool) -> bool {
    dont_use_mesh == Some(true) && !registers_meshes
}

/// The names `statements` define (compared without case).
pub fn names(statements: &[AniStatement<'_>]) -> HashSet<Vec<u8>> {
    statements.iter().filter_map(|s| s.name.map(key)).collect()
}

/// The names a base script (a `.MDS` or `.MSB` given as the companion) defines.
pub fn base_names(base: &dyn crate::codec::Asset) -> Option<HashSet<Vec<u8>>> {
    base.defined_names()
}

/// Every reference to a name no statement defines: a warning, except where `scope` says
/// more: a name of the base script is no finding; in an overlay without its base given, an
/// info (the base may define it); a name with whitespace inside its quotes that is defined
/// without it, or one whose statement the parser skipped, a warning that says so.
pub fn dangling(statements: &[AniStatement<'_>], scope: &Scope) -> Vec<Finding> {
    let defined = names(statements);
    let in_base = |k: &[u8]| scope.base.as_ref().is_some_and(|b| b.contains(k));
    let known = |n: &[u8]| defined.contains(&key(n)) || in_base(&key(n));
    let mut out = Vec::new();
    let note = |n: &[u8]| -> (Severity, String) {
        let trimmed = n.trim_ascii();
        if trimmed.len() != n.len() && known(trimmed) {
            let what = if n.contains(&b'\t') {
                "a tab"
            } else {
                "whitespace"
            };
            return (
                Severity::Warning,
                format!(
                    "{:?} names no animation: {what} inside the quotes ({:?} is defined)",
                    shown(n),
                    shown(trimmed)
                ),
            );
        }
        if let Some((_, why)) = scope.skipped.iter().find(|(k, _)| *k == key(n)) {
            let stray = if why.contains(" in Model") {
                ": aniEnum ended before it (a stray `}`?)"
            } else {
                ""
            };
            return (
                Severity::Warning,
                format!(
                    "{:?} names no animation of this script: the statement that defines it \
                     was skipped by the parser ({why}){stray}",
                    shown(n)
                ),
            );
        }
        if scope.base.is_some() {
            return (
                Severity::Warning,
                format!(
                    "{:?} names no animation of this script or of its base script (renamed? \
                     rename every reference too)",
                    shown(n)
                ),
            );
        }
        if scope.overlay {
            return (
                Severity::Info,
                format!(
                    "{:?} names no animation of this overlay script: its base script may \
                     define it (check --with BASE.MDS or BASE.MSB resolves it)",
                    shown(n)
                ),
            );
        }
        (
            Severity::Warning,
            format!(
                "{:?} names no animation of this script (renamed? rename every reference \
                 too; an overlay may take it from its base script)",
                shown(n)
            ),
        )
    };
    for s in statements {
        if let Some(n) = s.next.filter(|n| !n.is_empty() && !known(n)) {
            let (severity, message) = note(n);
            out.push(Finding::new(severity, format!("{}.next", s.path), message));
        }
        if let Some(n) = s.alias_of.filter(|n| !known(n)) {
            let (severity, message) = note(n);
            out.push(Finding::new(
                severity,
                format!("{}.alias_of", s.path),
                message,
            ));
        }
        if let Some((prefix, count)) = s.comb {
            // Bounded: a count beyond any real script is not expanded name by name.
            let missing: Vec<Vec<u8>> = (1..=count.clamp(0, 1000))
                .map(|i| [prefix, i.to_string().as_bytes()].concat())
                .filter(|n| !known(n))
                .collect();
            if !missing.is_empty() {
                let mut listed = missing
                    .iter()
                    .take(4)
                    .map(|n| shown(n))
                    .collect::<Vec<_>>()
                    .join(", ");
                if missing.len() > 4 {
                    listed.push_str(", …");
                }
                let (severity, why) = note(&missing[0]);
                // (the reason said for the first missing name, without its quoted name)
                let why = why.split_once(" names ").map_or(why.as_str(), |(_, w)| w);
                out.push(Finding::new(
                    severity,
                    format!("{}.prefix", s.path),
                    format!(
                        "combines {}1 … {}{count}, of which {} ({listed}) names {why}",
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
