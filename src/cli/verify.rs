//! `animkit verify PATH...`: byte-exact round trips of every recognised file.

use super::Status;
use crate::exact::Error;
use crate::verify::{collect_files, verify_files, Outcome, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Check that every recognised file (directories recursively) survives binary → model →
/// binary and binary → YAML → binary byte for byte. Uses all cores.
#[derive(clap::Args)]
pub struct Args {
    /// Files and directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Also list files that are not a recognised format.
    #[arg(long)]
    show_skipped: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let files = collect_files(&args.paths)?;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(files.len() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files and members {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = Progress {
        found: &|n| bar.inc_length(n),
        done: &|| bar.inc(1),
    };
    let reports = verify_files(&files, progress);
    bar.finish_and_clear();

    let (mut ok, mut bad, mut errors, mut skipped) = (0, 0, 0, 0);
    for r in &reports {
        let path = r.path.display();
        match &r.outcome {
            Outcome::Ok { tag } => {
                ok += 1;
                println!("ok       {tag:<12} {path}");
            }
            Outcome::Mismatch {
                tag,
                stage,
                offset,
                field,
                original_len,
                written_len,
            } => {
                bad += 1;
                println!(
                    "MISMATCH {tag:<12} {path}: {stage}: first difference at byte {offset} (0x{offset:x}), field {field}; {original_len} bytes in, {written_len} bytes out"
                );
            }
            Outcome::Failed { tag, error } => {
                errors += 1;
                println!("ERROR    {:<12} {error}", tag.unwrap_or("?"));
            }
            Outcome::Unrecognised => {
                skipped += 1;
                // A file named on the command line must be recognised.
                if args.show_skipped || args.paths.contains(&r.path) {
                    println!("skipped  {:<12} {path}: not a recognised format", "-");
                    if args.paths.contains(&r.path) {
                        errors += 1;
                    }
                }
            }
        }
    }
    println!(
        "{} files: {ok} ok, {bad} mismatched, {errors} errors, {skipped} not recognised",
        reports.len()
    );
    Ok(if bad + errors == 0 {
        Status::Ok
    } else {
        Status::Failed
    })
}
