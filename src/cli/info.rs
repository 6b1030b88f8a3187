//! `animkit info FILE...`: detected format and a short summary.

use super::{load, Status};
use crate::exact::Error;
use crate::registry::{Codec, ImportOptions};
use crate::zengin::vdf::Vdf;
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
    let mut status = Status::Ok;
    for path in &args.files {
        // An archive: read through a memory map, never copied.
        match super::vdf::map_archive(path).and_then(|m| match m {
            Some(map) => {
                let v = super::vdf::parse_mapped(path, &map)?;
                println!(
                    "{}: {} ({}, {} bytes)",
                    path.display(),
                    <Vdf<'static> as Codec>::TAG,
                    <Vdf<'static> as Codec>::DESCRIPTION,
                    map.len()
                );
                for (k, v) in crate::zengin::vdf::info_lines(&v) {
                    println!("  {k}: {v}");
                }
                Ok(true)
            }
            None => Ok(false),
        }) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) if args.files.len() > 1 => {
                eprintln!("animkit: error: {e}");
                status = Status::Failed;
                continue;
            }
            Err(e) => return Err(e),
        }
        match load(path, &ImportOptions::default()) {
            Ok(l) => {
                println!(
                    "{}: {} ({}{}, {} bytes)",
                    path.display(),
                    l.format.tag(),
                    l.format.description(),
                    if l.from_yaml { ", YAML document" } else { "" },
                    l.size
                );
                for (k, v) in l.asset.info() {
                    println!("  {k}: {v}");
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
