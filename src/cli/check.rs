//! `animkit check FILE... [--with COMPANION]`: the format's validation rules, as a list of
//! findings, alone or against a companion file (each format decides what it checks, see
//! `Codec::check`).

use super::{each_file, json, Input, Status};
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
    /// Binary assets or animkit YAML documents; a folder stands for the recognised files in it
    /// (recursively, as `verify` walks folders).
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
    /// Print one JSON document instead (schema: schemas/animkit.check.schema.json); a file that
    /// cannot be read is an entry with `error` (exit 1).
    #[arg(long)]
    json: bool,
}

pub fn run(mut args: Args) -> Result<Status, Error> {
    args.files = super::expand_folders(&args.files)?;
    let companions = args.with.load()?;
    let check_one = |path: &std::path::Path| -> Result<_, Error> {
        let input = Input::read(path)?;
        let opened = input.open(&ImportOptions::default())?;
        let companion = companions.for_file(path, input.format, &*opened)?;
        let findings = opened.check(&CheckContext {
            companion: companion.as_ref().map(|c| c.get()),
        });
        Ok((input.format.tag(), findings))
    };
    let count =
        |findings: &[crate::codec::Finding], s| findings.iter().filter(|f| f.severity == s).count();
    if args.json {
        let mut status = Status::Ok;
        let files = args
            .files
            .iter()
            .map(|path| {
                let path_text = path.display().to_string();
                match check_one(path) {
                    Ok((tag, findings)) => {
                        let (errors, warnings) = (
                            count(&findings, Severity::Error),
                            count(&findings, Severity::Warning),
                        );
                        let ok = errors == 0 && (warnings == 0 || !args.strict);
                        if !ok {
                            status = Status::Failed;
                        }
                        json::CheckFile {
                            path: path_text,
                            format: Some(tag.into()),
                            ok,
                            errors: errors as u64,
                            warnings: warnings as u64,
                            findings: findings.iter().map(Into::into).collect(),
                            error: None,
                        }
                    }
                    Err(e) => {
                        status = Status::Failed;
                        json::CheckFile {
                            path: path_text,
                            format: None,
                            ok: false,
                            errors: 0,
                            warnings: 0,
                            findings: Vec::new(),
                            error: Some(e.to_string()),
                        }
                    }
                }
            })
            .collect();
        json::print(&json::CheckReport {
            report: "animkit.check",
            files,
        });
        return Ok(status);
    }
    each_file(&args.files, |path| {
        let (tag, findings) = check_one(path)?;
        let (errors, warnings) = (
            count(&findings, Severity::Error),
            count(&findings, Severity::Warning),
        );
        if !args.quiet {
            for f in &findings {
                println!("{}: {f}", path.display());
            }
        }
        let ok = errors == 0 && (warnings == 0 || !args.strict);
        println!(
            "{}: {} ({tag}): {errors} errors, {warnings} warnings",
            path.display(),
            if ok { "ok" } else { "FAILED" },
        );
        Ok(if ok { Status::Ok } else { Status::Failed })
    })
}
