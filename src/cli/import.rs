//! `animkit import FILE.yaml [-o OUT]`: YAML → binary; the format comes from the document tag.

use super::Status;
use crate::convert::{self, Existing, Wrote};
use crate::exact::Error;
use crate::registry::{self, ImportOptions};
use std::path::PathBuf;

/// Pack an (edited) YAML document back into the game's binary format.
#[derive(clap::Args)]
pub struct Args {
    /// The YAML document (its `format:` names the binary format), or a folder: every animkit
    /// document in it to `-o OUTDIR`, the tree mirrored (`NAME.yaml` → `NAME`), on all cores.
    file: PathBuf,
    /// Output file (default: FILE without its .yaml/.yml extension).
    #[command(flatten)]
    out: super::OutputArgs,
    /// Where edited values fall outside the stored quantisation range (e.g. an animation's
    /// positions), recompute the range from all values and re-pack everything instead of failing.
    #[arg(long)]
    requantize: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    if args.file.is_dir() {
        let opts = ImportOptions {
            requantize: args.requantize,
        };
        let (out, dir) = (args.out.output.as_deref(), super::tree::Direction::Import);
        return super::tree::run(&args.file, out, args.out.force, dir, &opts);
    }
    // (mapped: the text is the file's own pages when it is UTF-8 as stored, the usual case, no
    // copy of a large document is held, and a format that streams drops the pages of the
    // pieces it has packed)
    let map = crate::fsio::map_file(&args.file)?;
    if map.is_empty() {
        return Err(Error::other(&args.file, "empty file"));
    }
    // (checked as UTF-8 by the format as it reads it: a format that reads a large document
    // in pieces checks each piece on the thread that reads it, the usual path checks the whole
    // file first, each part's pages dropped once checked so the whole file is never resident
    // at once; a format that streams drops each piece again once packed)
    let release = |part: &[u8]| map.release(part);
    let text =
        crate::yaml::FileText::of_bytes(&map, &release).map_err(|e| Error::other(&args.file, e))?;
    // (a file that is not UTF-8 text says so before anything else it lacks)
    let whole_first = |m: String| match text.str() {
        Err(e) => Error::other(&args.file, e),
        Ok(_) => Error::other(&args.file, m),
    };
    let tag = text
        .tag()
        .map_err(|e| Error::other(&args.file, e))?
        .ok_or_else(|| whole_first("no `format:` line: not an animkit document".into()))?;
    let format = registry::formats()
        .by_tag_or_message(tag)
        .map_err(whole_first)?;
    let opts = ImportOptions {
        requantize: args.requantize,
    };
    let tag = format.tag();
    let output = match args.out.output {
        Some(o) => o,
        None => {
            let ext = args.file.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !ext.eq_ignore_ascii_case("yaml") && !ext.eq_ignore_ascii_case("yml") {
                return Err(whole_first(
                    "cannot derive an output name (no .yaml extension); pass -o OUT".into(),
                ));
            }
            args.file.with_extension("")
        }
    };
    let existing = if args.out.force {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    let wrote = convert::import(
        &args.file,
        &text,
        Some(&map),
        format,
        &opts,
        &output,
        existing,
        false,
    )?;
    if let Wrote::Written { len, .. } = wrote {
        eprintln!("wrote {} ({len} bytes, {tag})", output.display());
    }
    Ok(Status::Ok)
}
