//! `animkit export FILE [-o OUT.yaml] [--with COMPANION]`: binary → YAML.

use super::{write_text, Input, Status};
use crate::exact::Error;
use crate::registry::{ExportOptions, ImportOptions};
use std::path::PathBuf;

/// Convert a binary asset to an editable YAML document (stdout without -o). With a companion
/// (`--with`, e.g. the skeleton an animation is made for), what the format takes from it is
/// shown too (an animation's samples are labelled with their nodes' names).
#[derive(clap::Args)]
pub struct Args {
    /// The binary asset (format detected from its content), or a folder: every recognised
    /// file in it to `-o OUTDIR`, the tree mirrored (`NAME` → `NAME.yaml`), on all cores.
    file: PathBuf,
    /// Write the YAML to OUTPUT instead of stdout.
    #[command(flatten)]
    out: super::OutputArgs,
    #[command(flatten)]
    with: super::WithArgs,
}

pub fn run(args: Args) -> Result<Status, Error> {
    if args.file.is_dir() {
        let opts = ImportOptions::default();
        let (out, dir) = (args.out.output.as_deref(), super::tree::Direction::Export);
        return super::tree::run(&args.file, out, args.out.force, dir, &opts);
    }
    // A container is read through the map, never copied.
    let input = Input::binary(&args.file)?;
    let opened = input.open(&ImportOptions::default())?;
    let companions = args.with.load()?;
    let companion = companions.for_file(&args.file, input.format, &opened)?;
    let opts = ExportOptions {
        companion: companion.as_ref().map(|c| c.get()),
    };
    let yaml = opened.to_yaml(&opts).map_err(Error::encoding(&args.file))?;
    for w in opened.export_warnings() {
        eprintln!(
            "animkit: warning: {}: {}: {}",
            args.file.display(),
            w.path,
            w.message
        );
    }
    write_text(&args.out, &yaml)?;
    Ok(Status::Ok)
}
