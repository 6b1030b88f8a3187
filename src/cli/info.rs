//! `animkit info FILE...`: detected format and a short summary.

use super::{each_file, json, Input, Status};
use crate::exact::Error;
use crate::registry::ImportOptions;
use std::path::PathBuf;

/// Show each file's detected format and a short summary (name, frames, nodes, fps, checksum,
/// chunks).
#[derive(clap::Args)]
pub struct Args {
    /// Binary assets or animkit YAML documents; a folder stands for the recognised files in it
    /// (recursively, as `verify` walks folders).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON document instead (schema: schemas/animkit.info.schema.json); a file that
    /// cannot be read is an entry with `error` (exit 1).
    #[arg(long)]
    json: bool,
}

pub fn run(mut args: Args) -> Result<Status, Error> {
    // Interchange files (glTF) have their own summary (alone, or among the others).
    if !args.json && args.files.iter().all(|p| super::gltf_info::is_gltf(p)) {
        return super::gltf_info::info(&args.files);
    }
    let gltf = |p: &std::path::Path| super::gltf_info::is_gltf(p) && !p.is_dir();
    args.files = super::expand_folders(&args.files)?;
    if args.json {
        let mut status = Status::Ok;
        let files = args
            .files
            .iter()
            .map(|path| {
                let mut f = json::InfoFile {
                    path: path.display().to_string(),
                    format: None,
                    description: None,
                    yaml_document: None,
                    bytes: None,
                    summary: Vec::new(),
                    error: None,
                };
                let r = if gltf(path) {
                    super::gltf_info::summary(path).map(|g| {
                        f.format = Some(g.tag);
                        f.description = Some(g.description);
                        f.yaml_document = Some(false);
                        f.bytes = Some(g.bytes);
                        f.summary = g
                            .lines
                            .into_iter()
                            .map(|(label, value)| json::Line::new(label, value))
                            .collect();
                    })
                } else {
                    Input::read(path).and_then(|input| {
                        f.format = Some(input.format.tag().into());
                        f.description = Some(input.format.description().into());
                        f.yaml_document = Some(input.from_yaml);
                        f.bytes = Some(input.len() as u64);
                        let opened = input.open(&ImportOptions::default())?;
                        f.summary = opened
                            .info()
                            .into_iter()
                            .map(|(label, value)| json::Line::new(label.into(), value))
                            .collect();
                        Ok(())
                    })
                };
                if let Err(e) = r {
                    f.error = Some(e.to_string());
                    status = Status::Failed;
                }
                f
            })
            .collect();
        json::print(&json::InfoReport {
            report: "animkit.info",
            files,
        });
        return Ok(status);
    }
    each_file(&args.files, |path| {
        if gltf(path) {
            super::gltf_info::print_info(path)?;
            return Ok(Status::Ok);
        }
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
