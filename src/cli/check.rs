//! `animkit check FILE...`: format-specific consistency findings (e.g. for UE3 packages, which
//! ZOnlyRLE reading the byte counts of each track fit).

use super::{load, Status};
use crate::exact::Error;
use crate::registry::ImportOptions;
use std::path::PathBuf;

/// Report what the format's own checks find in each file (exit 1 when a file cannot be read).
#[derive(clap::Args)]
pub struct Args {
    /// Binary assets or animkit YAML documents.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let mut status = Status::Ok;
    for path in &args.files {
        match load(path, &ImportOptions::default()) {
            Ok(l) => {
                let lines = l.asset.check();
                println!(
                    "{}: {} ({} findings)",
                    path.display(),
                    l.format.tag(),
                    lines.len()
                );
                for line in lines {
                    println!("  {line}");
                }
            }
            Err(e) if args.files.len() > 1 => {
                eprintln!("animkit: error: {e}");
                status = Status::Failed;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(status)
}
