//! `animkit export FILE [-o OUT.yaml] [--with COMPANION]`: binary → YAML.

use super::{Input, Status};
use crate::convert::{self, Existing, ExportJob, Output};
use crate::exact::Error;
use crate::registry::ImportOptions;
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
    /// (`animkit schema --out-dir BASE`); default `schemas`. With `-o FILE` and a folder BASE,
    /// the document's schema is written there when it is not there yet, so the comment always
    /// points at a file that exists.
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
    let companions = args.with.load()?;
    let job = ExportJob {
        companions: Some(&companions),
        force: args.out.force,
        schema_comment: args.schema_comment.as_deref(),
    };
    let output = match &args.out.output {
        Some(path) => Output::File {
            path,
            existing: if args.out.force {
                Existing::Replace
            } else {
                Existing::Refuse
            },
            backup: false,
        },
        None => Output::Stdout,
    };
    convert::export(&input, &job, output)?;
    if let (Some(base), Some(path)) = (&args.schema_comment, &args.out.output) {
        schema_beside(path, base, input.format)?;
    }
    Ok(Status::Ok)
}

/// The schema a `--schema-comment BASE` line of the document `path` points at, written when
/// BASE is a folder and the file is missing (an existing one is left as it is).
fn schema_beside(
    path: &std::path::Path,
    base: &str,
    format: &dyn crate::registry::Format,
) -> Result<(), Error> {
    if base.contains("://") {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(std::path::Path::new("")).join(base);
    let file = dir.join(format!("{}.schema.json", format.tag()));
    if file.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    crate::fsio::write_file(&file, super::schema::schema_text(format).as_bytes(), false)?;
    eprintln!(
        "wrote {} (the schema the document's first line points at)",
        file.display()
    );
    Ok(())
}
