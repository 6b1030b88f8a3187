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

pub fn run(args: Args) -> Result<Status, Error> {
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for f in FORMATS {
            let path = dir.join(format!("{}.schema.json", f.tag()));
            crate::fsio::write_file(&path, schema_text(*f).as_bytes(), true)?;
            println!("wrote {}", path.display());
        }
        return Ok(Status::Ok);
    }
    match &args.tag {
        Some(tag) => {
            let f = registry::by_tag(tag)
                .ok_or_else(|| Error::other(tag, "unknown document format"))?;
            print!("{}", schema_text(f));
        }
        None => {
            for f in FORMATS {
                println!("{:<14} {}", f.tag(), f.description());
            }
        }
    }
    Ok(Status::Ok)
}
