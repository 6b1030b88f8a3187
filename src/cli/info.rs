//! `animkit info FILE...`: detected format and a short summary.

use super::{each_file, Input, Status};
use crate::exact::Error;
use crate::registry::ImportOptions;
use std::path::PathBuf;

/// Show each file's detected format and a short summary (name, frames, nodes, fps, checksum,
/// chunks).
#[derive(clap::Args)]
pub struct Args {
    /// Binary assets or animkit YAML documents.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<Status, Error> {
    each_file(&args.files, |path| {
        let input = Input::read(path)?;
        let opened = input.open(&ImportOptions::default())?;
        println!(
            "{}: {} ({}{}, {} bytes)",
            path.display(),
            input.format.tag(),
            input.format.description(),
            if input.from_yaml {
                ", YAML document"
            } else {
                ""
            },
            input.len()
        );
        for (k, v) in opened.info() {
            println!("  {k}: {v}");
        }
        Ok(Status::Ok)
    })
}
