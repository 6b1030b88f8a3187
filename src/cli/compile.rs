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
    input: PathBuf,
    /// Where to write the MSB (default: the input with extension .MSB).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Overwrite OUTPUT if it exists.
    #[arg(long)]
    force: bool,
    /// Do not print the parser's warnings.
    #[arg(short, long)]
    quiet: bool,
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
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("MSB"));
    crate::fsio::write_file(&target, &out, args.force)?;
    println!("{}: {} bytes", target.display(), out.len());
    Ok(Status::Ok)
}
