//! `animkit check FILE... [--mdh FILE.MDH]`: the format's validation rules, as a list of
//! findings, alone or against a related file (each format decides what it checks, see
//! `Codec::check`).

use super::{load, Status};
use crate::exact::Error;
use crate::registry::{CheckContext, ImportOptions, Severity};
use std::path::PathBuf;

/// Check files against their format's validation rules and consistency checks (MechWarrior 3
/// anim.zbd: spec §9; UE3 packages: which ZOnlyRLE reading each track's bytes fit). Errors break
/// the format's structure or its duplicated values; warnings are rules every shipped file follows
/// but an edited file may break; info lines describe the file. `animkit check ANIM.MAN --mdh
/// MODEL.MDH` tells whether an animation belongs to that skeleton (checksums match, every node
/// index exists). Exit 1 when any file has an error (or, with --strict, a warning).
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
    /// The model hierarchy (.MDH) the files (.MAN) must belong to.
    #[arg(long)]
    mdh: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let reference = match &args.mdh {
        Some(p) => {
            let r = load(p, &ImportOptions::default())?;
            if r.format.tag() != crate::zengin::mdh::Mdh::TAG_STR {
                return Err(Error::other(
                    p,
                    format!(
                        "--mdh expects a .MDH file, this is {}",
                        r.format.description()
                    ),
                ));
            }
            Some(r)
        }
        None => None,
    };
    let ctx = CheckContext {
        reference: reference.as_ref().map(|r| r.asset.as_ref()),
    };
    let mut status = Status::Ok;
    for path in &args.files {
        let loaded = match load(path, &ImportOptions::default()) {
            Ok(l) => l,
            Err(e) if args.files.len() > 1 => {
                eprintln!("animkit: error: {e}");
                status = Status::Failed;
                continue;
            }
            Err(e) => return Err(e),
        };
        let findings = loaded.asset.check(&ctx);
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        let warnings = findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .count();
        if !args.quiet {
            for f in &findings {
                println!("{}: {f}", path.display());
            }
        }
        println!(
            "{}: {} ({}): {errors} errors, {warnings} warnings",
            path.display(),
            if errors == 0 && (warnings == 0 || !args.strict) {
                "ok"
            } else {
                "FAILED"
            },
            loaded.format.tag()
        );
        if errors > 0 || args.strict && warnings > 0 {
            status = Status::Failed;
        }
    }
    Ok(status)
}
