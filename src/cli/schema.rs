//! `animkit schema [TAG]`: the JSON Schema of a YAML document kind.

use super::Status;
use crate::exact::Error;
use crate::registry::{self, FORMATS};
use std::path::PathBuf;

/// Print the JSON Schema of a document kind (`animkit schema zengin.man`), list the kinds
/// (no argument), or write every schema into a folder (`--out-dir schemas/`).
#[derive(clap::Args)]
pub struct Args {
    /// Document tag, e.g. zengin.man.
    tag: Option<String>,
    /// Write `<tag>.schema.json` for every format into this folder.
    #[arg(long)]
    out_dir: Option<PathBuf>,
}

/// The schema file text of a format, as stored in `schemas/`.
pub fn schema_text(format: &dyn registry::Format) -> String {
    let mut s = serde_json::to_string_pretty(&format.schema()).unwrap_or_default();
    s.push('\n');
    s
}

/// Document kinds that are not formats of their own: (tag, description, schema): those the
/// registry's containers write beside their members, and the `--json` reports.
pub fn other_documents() -> Vec<(&'static str, &'static str, schemars::schema::RootSchema)> {
    let mut v: Vec<_> = FORMATS
        .iter()
        .filter_map(|f| f.container())
        .flat_map(|c| c.documents())
        .collect();
    // The `--json` reports of info, check, verify and diff.
    v.extend(super::json::schemas());
    v
}

/// Schema file text, as stored in `schemas/`.
pub fn schema_file_text(schema: &schemars::schema::RootSchema) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}

pub fn run(args: Args) -> Result<Status, Error> {
    if let Some(dir) = &args.out_dir {
        // (all files or none: a failure, e.g. a full disk, leaves neither some of them nor a
        // folder made for them)
        let made = crate::fsio::MadeDir::create(dir)?;
        let files: Vec<(PathBuf, Vec<u8>)> = FORMATS
            .iter()
            .map(|f| (f.tag(), f.schema()))
            .chain(other_documents().into_iter().map(|(t, _, s)| (t, s)))
            .map(|(tag, schema)| {
                let path = dir.join(format!("{tag}.schema.json"));
                (path, schema_file_text(&schema).into_bytes())
            })
            .collect();
        crate::fsio::write_files(&files, true)?;
        made.keep();
        for (path, _) in &files {
            println!("wrote {}", path.display());
        }
        return Ok(Status::Ok);
    }
    match &args.tag {
        Some(tag) => match registry::by_tag(tag) {
            Some(f) => print!("{}", schema_text(f)),
            None => {
                let (_, _, schema) = other_documents()
                    .into_iter()
                    .find(|(t, _, _)| t == tag)
                    .ok_or_else(|| Error::other(tag, "unknown document format"))?;
                print!("{}", schema_file_text(&schema));
            }
        },
        None => {
            for f in FORMATS {
                println!("{:<14} {}", f.tag(), f.description());
            }
            for (tag, description, _) in other_documents() {
                println!("{tag:<14} {description}");
            }
        }
    }
    Ok(Status::Ok)
}
