//! `animkit check FILE... [--with COMPANION]`: the format's validation rules, as a list of
//! findings, alone or against a companion file (each format decides what it checks, see
//! `Codec::check`).

use super::{each_file, Input, Status};
use crate::exact::Error;
use crate::registry::{CheckContext, ImportOptions, Severity};
use std::path::PathBuf;

/// Check files against their format's validation rules and consistency checks (each format's
/// rules: see the README). Errors break the format's structure or its duplicated values;
/// warnings are rules every shipped file follows but an edited file may break; info lines
/// describe the file. With a companion (`--with`, e.g. the skeleton an animation is made for),
/// also whether the file belongs to it. Exit 1 when any file has an error (or, with --strict, a
/// warning).
#[derive(clap::Args)]
pub struct Args {
    /// Binary assets or animkit YAML documents.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Treat warnings as failures.
    #[arg(long)]
    strict: bool,
    /// Print only the summary line per file.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    with: super::WithArgs,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let companions = args.with.load()?;
    each_file(&args.files, |path| {
        let input = Input::read(path)?;
        let opened = input.open(&ImportOptions::default())?;
        let companion = companions.for_file(path, input.format, &opened)?;
        let findings = opened.check(&CheckContext {
            companion: companion.as_ref().map(|c| c.get()),
        });
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
        if !args.quiet {
            for f in &findings {
                println!("{}: {f}", path.display());
            }
        }
        let ok = errors == 0 && (warnings == 0 || !args.strict);
        println!(
            "{}: {} ({}): {errors} errors, {warnings} warnings",
            path.display(),
            if ok { "ok" } else { "FAILED" },
            input.format.tag()
        );
        Ok(if ok { Status::Ok } else { Status::Failed })
    })
}
