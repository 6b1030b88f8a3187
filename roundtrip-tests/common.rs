//! Shared helpers for the round-trip tests.

use std::path::{Path, PathBuf};

// The corpus-or-fail-in-CI rule, shared with the library's unit tests (one copy).
#[path = "../src/testing.rs"]
mod testing;
pub use testing::{corpus, corpus_file, corpus_path, missing_tool};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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
