//! The one corpus-or-tool-or-fail-in-CI rule of the test suite. The library's unit tests use
//! it as `crate::testing`; the round-trip tests include this same file
//! (`roundtrip-tests/common.rs`), so there is a single copy of the rule:
//!
//! - the corpus (`../shared/corpus`) or an external program is missing: outside CI the test
//!   is reported as `ignored` with its reason (build.rs finds what is missing and sets
//!   `cfg(missing = "...")`, which the test's `#[cfg_attr(missing = "...", ignore = "...")]`
//!   reads); with `CI=true` nothing is ignored and the test fails;
//! - a requirement that disappears after the build (or a test not yet marked): the test prints
//!   a notice and returns, outside CI only;
//! - the corpus is there but a file the test names is not: the test fails (a broken corpus
//!   is not a reason to skip).
#![allow(dead_code)] // each user takes the part it needs

use std::path::PathBuf;

/// Whether the tests run in CI (`CI=true`), where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skip with a notice, or fail in CI. Always `None`, for `let Some(..) = .. else { return }`.
pub fn skip<T>(what: &str) -> Option<T> {
    if in_ci() {
        panic!("{what} (required in CI)");
    }
    eprintln!("NOTICE: {what}; this test is skipped");
    None
}

/// `../shared/corpus`, or `None` with a notice when it is missing outside CI.
pub fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    skip(&format!("the corpus is missing at {}", dir.display()))
}

/// The path of a corpus file or folder (`rel` inside `../shared/corpus`). It must exist when
/// the corpus does.
pub fn corpus_path(rel: &str) -> Option<PathBuf> {
    let p = corpus()?.join(rel);
    assert!(p.exists(), "corpus entry {} is missing", p.display());
    Some(p)
}

/// A corpus file's bytes (see [`corpus_path`]).
pub fn corpus_file(rel: &str) -> Option<Vec<u8>> {
    let p = corpus_path(rel)?;
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// A missing external program: fail in CI, skip with a notice elsewhere.
pub fn missing_tool<T>(what: &str, how: &str) -> Option<T> {
    skip(&format!("{what} is missing ({how})"))
}
