//! The `animkit` command line: one file per subcommand. Exit codes: 0 ok, 1 a check failed or
//! the files differ, 2 bad input or usage.

mod check;
mod checksum;
mod compile;
mod decompile;
mod diff;
mod export;
mod gltf;
mod import;
mod info;
mod psa;
mod repack;
pub mod schema;
mod unpack;
mod vdf;
mod verify;

use crate::exact::Error;
use crate::registry::{self, Asset, Format, ImportOptions};
use clap::{Parser, Subcommand};
use std::path::Path;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "animkit",
    version,
    about = "Read, verify, edit and repack game animation assets byte-exactly",
    long_about = "animkit reads game animation assets (ZenGin .MAN, ...), writes them back byte for \
byte, turns them into editable YAML and packs edited YAML back into the game's binary format."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Info(info::Args),
    Export(export::Args),
    Import(import::Args),
    Verify(verify::Args),
    Diff(diff::Args),
    Checksum(checksum::Args),
    Check(check::Args),
    Compile(compile::Args),
    Decompile(decompile::Args),
    Schema(schema::Args),
    Psa(psa::Args),
    Vdf(vdf::Args),
    Unpack(unpack::Args),
    Repack(repack::Args),
    Gltf(gltf::Args),
}

/// What a command reports.
pub enum Status {
    Ok,
    /// A check failed or the inputs differ (exit 1).
    Failed,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            // --help and --version are not errors.
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Export(a) => export::run(a),
        Command::Import(a) => import::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Checksum(a) => checksum::run(a),
        Command::Check(a) => check::run(a),
        Command::Compile(a) => compile::run(a),
        Command::Decompile(a) => decompile::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Psa(a) => psa::run(a),
        Command::Vdf(a) => vdf::run(a),
        Command::Unpack(a) => unpack::run(a),
        Command::Repack(a) => repack::run(a),
        Command::Gltf(a) => gltf::run(a),
    };
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Failed) => ExitCode::from(1),
        Err(e) => {
            eprintln!("animkit: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Where a command writes its file.
#[derive(clap::Args)]
pub struct OutputArgs {
    /// Output file.
    #[arg(short, long)]
    pub output: Option<std::path::PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// A file loaded for a command: a recognised binary, or a YAML document of a known format.
pub struct Loaded {
    pub format: &'static dyn Format,
    pub asset: Box<dyn Asset>,
    pub size: usize,
    pub from_yaml: bool,
}

/// Load a binary asset (detected by content) or an animkit YAML document.
pub fn load(path: &Path, opts: &ImportOptions) -> Result<Loaded, Error> {
    let data = crate::fsio::map_file(path)?;
    if let Some(format) = registry::detect(&data) {
        let asset = format.decode(&data).map_err(|e| Error::Decode {
            file: path.into(),
            source: e,
        })?;
        return Ok(Loaded {
            format,
            asset,
            size: data.len(),
            from_yaml: false,
        });
    }
    if let Ok(text) = std::str::from_utf8(&data) {
        if let Some(tag) = crate::yaml::document_tag(text) {
            let format = registry::by_tag(tag)
                .ok_or_else(|| Error::other(path, format!("unknown document format `{tag}`")))?;
            let asset = format
                .read_yaml(text, opts)
                .map_err(|e| import_error(path, e))?;
            return Ok(Loaded {
                format,
                asset,
                size: data.len(),
                from_yaml: true,
            });
        }
    }
    Err(Error::other(
        path,
        format!(
            "not a recognised format (known: {})",
            registry::FORMATS
                .iter()
                .map(|f| f.description())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

pub fn import_error(path: &Path, e: crate::exact::ImportError) -> Error {
    match e {
        crate::exact::ImportError::Yaml(y) => Error::Yaml {
            file: path.into(),
            source: y,
        },
        crate::exact::ImportError::Encode(x) => Error::Encode {
            file: path.into(),
            source: x,
        },
    }
}
