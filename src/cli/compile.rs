//! `animkit compile IN.MDS [-o OUT.MSB]`: the MSB the engine would write for a model script.

use super::Status;
use crate::exact::Error;
use crate::zengin::mds::compile::{compile, CompileOptions};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::types::ZDate;
use std::path::{Path, PathBuf};

/// Compile a text model script (.MDS) to the binary .MSB the engine writes: strings upper case,
/// engine defaults filled in, event kinds and their f32 fields as the engine stores them. Root
/// and source chunks come from an `// animkit-msb:` header (written by `decompile`), else from
/// the file name and its modification time.
#[derive(clap::Args)]
pub struct Args {
    /// The model script.
    pub(super) input: PathBuf,
    /// Where to write the MSB (default: the input with extension .MSB).
    #[arg(short, long)]
    pub(super) output: Option<PathBuf>,
    /// Overwrite OUTPUT if it exists.
    #[arg(long)]
    pub(super) force: bool,
    /// Do not print the parser's warnings.
    #[arg(short, long)]
    quiet: bool,
    /// Compile the whole model as the engine writes `_compiled/`: with the folder holding the
    /// ASC files (found case-insensitively, also in subfolders), write MODEL.MSB, MODEL.MDH
    /// (from the meshAndTree ASC unless --mdh) and MODEL-ANI.MAN per `ani` into the folder -o
    /// names (default: the script's folder). Uses all cores.
    #[arg(long, value_name = "DIR")]
    pub(super) asc: Option<PathBuf>,
    /// The model's hierarchy to compile the animations against (instead of one made from
    /// the meshAndTree ASC; it is not written).
    #[arg(long, requires = "asc")]
    pub(super) mdh: Option<PathBuf>,
    /// Rounding of the animation codes (with --asc).
    #[arg(long, value_enum, default_value_t = super::asc::RoundingArg::Engine, requires = "asc")]
    pub(super) rounding: super::asc::RoundingArg,
}

pub fn location(path: &Path, line: usize, column: usize) -> PathBuf {
    PathBuf::from(format!("{}:{line}:{column}", path.display()))
}

pub fn run(args: Args) -> Result<Status, Error> {
    let src = crate::fsio::read_file(&args.input)?;
    let mds = crate::zengin::mds::parse(&src).map_err(|e| Error::Decode {
        file: args.input.clone(),
        source: e.into(),
    })?;
    if !args.quiet {
        for w in &mds.warnings {
            eprintln!(
                "{}: warning: {}",
                location(&args.input, w.line, w.column).display(),
                w.message
            );
        }
    }
    let opts = CompileOptions {
        file_name: args
            .input
            .file_name()
            .and_then(|n| Text::from_unicode(&n.to_string_lossy()).ok()),
        date: std::fs::metadata(&args.input)
            .and_then(|m| m.modified())
            .ok()
            .and_then(ZDate::of_system_time),
    };
    let msb = compile(&mds.script, &src, &opts);
    let mut out = Vec::new();
    msb.write(&mut out).map_err(Error::encoding(&args.input))?;
    if let Some(dir) = &args.asc {
        return super::asc::compile_model(&args, dir, &mds, out);
    }
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("MSB"));
    crate::fsio::write_file(&target, &out, args.force)?;
    println!("{}: {} bytes", target.display(), out.len());
    Ok(Status::Ok)
}
