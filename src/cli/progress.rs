//! The progress bar of the commands that work through many files or pieces (`tree`, `vdf`,
//! `unpack`, `repack`).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar on a terminal, hidden otherwise.
pub(super) fn bar(len: usize, unit: &str) -> ProgressBar {
    let b = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed_precise}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b
}
