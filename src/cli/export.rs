//! `animkit export FILE [-o OUT.yaml] [--with COMPANION]`: binary → YAML.

use super::{write_text, Input, Status};
use crate::exact::Error;
use crate::registry::{ExportOptions, ImportOptions};
use std::path::PathBuf;

/// Convert a binary asset to an editable YAML document (stdout without -o). With a companion
/// (`--with`, e.g. the skeleton an animation is made for), what the format takes from it is
/// shown too (an animation's samples are labelled with their nodes' names). A companion whose
/// key does not match the file's (a skeleton of another checksum) is refused: `--force` uses it
/// anyway, with a warning.
#[derive(clap::Args)]
pub struct Args {
    /// The binary asset (format detected from its content).
    file: PathBuf,
    /// Write the YAML to OUTPUT instead of stdout.
    #[command(flatten)]
    out: super::OutputArgs,
    #[command(flatten)]
    with: super::WithArgs,
}

pub fn run(args: Args) -> Result<Status, Error> {
    // A container is read through the map, never copied.
    let input = Input::binary(&args.file)?;
    let opened = input.open(&ImportOptions::default())?;
    let companions = args.with.load()?;
    let companion = companions.for_file(&args.file, input.format, &opened)?;
    if let (Some(c), Some(key)) = (&companion, opened.companion_key()) {
        if let Some(theirs) = c.get().companion_key().filter(|&k| k != key) {
            let what = format!(
                "the file's key (checksum) is 0x{key:08x}, its companion's ({}) is 0x{theirs:08x}: \
                 they do not belong together (`check --with` says more)",
                c.get().tag()
            );
            if !args.out.force {
                return Err(Error::other(
                    &args.file,
                    format!("{what}; pass --force to export with it anyway"),
                ));
            }
            eprintln!("animkit: warning: {}: {what}", args.file.display());
        }
    }
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
