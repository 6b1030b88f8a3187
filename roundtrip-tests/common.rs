//! Shared helpers for the round-trip tests.

use std::path::{Path, PathBuf};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus`, or `None` with a notice when it is missing outside CI. In CI
/// (`CI=true`) a missing corpus fails the test.
pub fn corpus() -> Option<PathBuf> {
    let dir = root().join("../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "the corpus is missing at {} (required in CI)",
            dir.display()
        );
    }
    eprintln!(
        "NOTICE: corpus not found at {}; corpus checks skipped",
        dir.display()
    );
    None
}

/// A corpus file's bytes (see [`corpus`]).
pub fn corpus_file(rel: &str) -> Option<Vec<u8>> {
    let path = corpus()?.join(rel);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The animkit binary built for this test run.
pub fn animkit() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_animkit"))
}

/// Run animkit with `args` in `dir`; returns (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = animkit()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("animkit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
