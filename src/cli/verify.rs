//! `animkit verify PATH...`: byte-exact round trips of every recognised file.

use super::{json, Status};
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
    /// Print one JSON document instead (schema: schemas/animkit.verify.schema.json), every
    /// file found included.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    // Interchange files (glTF): read, and compared with the MANs they came from (alone, or
    // among the others).
    let is_gltf = |p: &PathBuf| super::gltf_info::is_gltf(p) && !p.is_dir();
    if !args.json && args.paths.iter().all(is_gltf) {
        return super::gltf_info::verify(&args.paths);
    }
    let gltf: Vec<(PathBuf, GltfCheck)> = args
        .paths
        .iter()
        .filter(|p| is_gltf(p))
        .map(|p| (p.clone(), super::gltf_info::check(p)))
        .collect();
    let others: Vec<PathBuf> = args.paths.iter().filter(|p| !is_gltf(p)).cloned().collect();
    let files = if others.is_empty() {
        Vec::new()
    } else {
        collect_files(&others)?
    };
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

    if args.json {
        return Ok(print_json(&args, &reports, &gltf));
    }
    let (mut ok, mut bad, mut errors, mut skipped) = (0, 0, 0, 0);
    for (path, c) in &gltf {
        super::gltf_info::print_check(path, c);
        match c {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
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
        reports.len() + gltf.len()
    );
    Ok(if bad + errors == 0 {
        Status::Ok
    } else {
        Status::Failed
    })
}

/// A glTF file's `verify`: its animations against their MANs, or why it fails.
type GltfCheck = Result<Vec<json::GltfAnimationCheck>, String>;

fn print_json(
    args: &Args,
    reports: &[crate::verify::FileReport],
    gltf: &[(PathBuf, GltfCheck)],
) -> Status {
    let mut totals = json::VerifyTotals {
        files: (reports.len() + gltf.len()) as u64,
        ok: 0,
        mismatched: 0,
        errors: 0,
        not_recognised: 0,
    };
    let files = reports
        .iter()
        .map(|r| {
            let mut f = json::VerifyFile {
                path: r.path.display().to_string(),
                outcome: json::Outcome::Ok,
                format: None,
                stage: None,
                offset: None,
                field: None,
                original_bytes: None,
                written_bytes: None,
                error: None,
                animations: None,
            };
            match &r.outcome {
                Outcome::Ok { tag } => {
                    totals.ok += 1;
                    f.format = Some(tag.to_string());
                }
                Outcome::Mismatch {
                    tag,
                    stage,
                    offset,
                    field,
                    original_len,
                    written_len,
                } => {
                    totals.mismatched += 1;
                    f.outcome = json::Outcome::Mismatch;
                    f.format = Some(tag.to_string());
                    f.stage = Some(stage.to_string());
                    f.offset = Some(*offset);
                    f.field = Some(field.clone());
                    f.original_bytes = Some(*original_len as u64);
                    f.written_bytes = Some(*written_len as u64);
                }
                Outcome::Failed { tag, error } => {
                    totals.errors += 1;
                    f.outcome = json::Outcome::Error;
                    f.format = tag.map(str::to_string);
                    f.error = Some(error.to_string());
                }
                Outcome::Unrecognised => {
                    totals.not_recognised += 1;
                    f.outcome = json::Outcome::Unrecognised;
                    // A file named on the command line must be recognised.
                    if args.paths.contains(&r.path) {
                        totals.errors += 1;
                        f.error = Some("not a recognised format".into());
                    }
                }
            }
            f
        })
        .collect::<Vec<_>>();
    let mut gltf_files = Vec::new();
    for (path, c) in gltf {
        let mut f = json::VerifyFile {
            path: path.display().to_string(),
            outcome: json::Outcome::Ok,
            format: Some(super::gltf_info::TAG.into()),
            stage: None,
            offset: None,
            field: None,
            original_bytes: None,
            written_bytes: None,
            error: None,
            animations: None,
        };
        match c {
            Ok(animations) => {
                totals.ok += 1;
                f.animations = Some(animations.to_vec());
            }
            Err(e) => {
                totals.errors += 1;
                f.outcome = json::Outcome::Error;
                f.error = Some(e.clone());
            }
        }
        gltf_files.push(f);
    }
    gltf_files.extend(files);
    let files = gltf_files;
    let failed = totals.mismatched + totals.errors > 0;
    json::print(&json::VerifyReport {
        report: "animkit.verify",
        files,
        totals,
    });
    if failed {
        Status::Failed
    } else {
        Status::Ok
    }
}
