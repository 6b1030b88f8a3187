//! What `animkit check` reports: findings, their severity, and what a file is checked against.

use super::Asset;

/// How serious a [`Finding`] of `check` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Information about the file (e.g. which reading of an ambiguous layout its bytes fit).
    Info,
    /// Observed in every known file, but an edited file may legitimately differ.
    Warning,
    /// Breaks the format's structure: the game (or a strict reader) cannot use the file.
    Error,
}

/// One result of `animkit check`: a rule a file breaks, where, and how seriously.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    /// Field path, e.g. `anim_defs[2].sequences[1].events[7]`.
    pub path: String,
    pub message: String,
}

impl Finding {
    pub fn new(severity: Severity, path: impl Into<String>, message: impl Into<String>) -> Self {
        Finding {
            severity,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{sev}: {}: {}", self.path, self.message)
    }
}

/// What `animkit check` compares a file against (all optional).
#[derive(Default, Clone, Copy)]
pub struct CheckContext<'a> {
    /// The file's companion (see [`super::Companion`]), e.g. the skeleton an animation must
    /// belong to (`--with`).
    pub companion: Option<&'a dyn Asset>,
}
