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
    /// The binary asset (format detected from its content), or a folder: every recognised
    /// file in it to `-o OUTDIR`, the tree mirrored (`NAME` → `NAME.yaml`), on all cores.
    file: PathBuf,
    /// Write the YAML to OUTPUT instead of stdout.
    #[command(flatten)]
    out: super::OutputArgs,
    #[command(flatten)]
    with: super::WithArgs,
    /// Start the document with `# yaml-language-server: $schema=BASE/<tag>.schema.json`, so an
    /// editor with the YAML language server (VS Code's YAML extension, ...) validates it without
    /// settings. BASE is a folder (relative to the document) or URL holding the schemas
    /// (`animkit schema --out-dir BASE`); default `schemas`.
    #[arg(long, value_name = "BASE", num_args = 0..=1, default_missing_value = "schemas")]
    schema_comment: Option<String>,
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
    let mut yaml = opened.to_yaml(&opts).map_err(Error::encoding(&args.file))?;
    if let Some(base) = &args.schema_comment {
        let base = base.trim_end_matches(['/', '\\']);
        let tag = input.format.tag();
        yaml.insert_str(
            0,
            &format!("# yaml-language-server: $schema={base}/{tag}.schema.json\n"),
        );
    }
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
