//! `animkit decompile IN.MSB [-o OUT.MDS]`: a readable model script from a compiled one.

use super::Status;
use crate::exact::Error;
use crate::registry::Codec;
use crate::zengin::mds::compile::decompile;
use crate::zengin::msb::Msb;
use std::path::PathBuf;

/// Turn a compiled model script (.MSB) into a text script (.MDS). A comment header keeps the
/// MSB's root and source chunks, so `animkit compile` gives the same MSB back byte for byte;
/// anything a script cannot carry is reported as a warning.
#[derive(clap::Args)]
pub struct Args {
    /// The compiled script.
    input: PathBuf,
    /// Where to write the script (default: the input with extension .MDS).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Overwrite OUTPUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let data = crate::fsio::read_file(&args.input)?;
    if !Msb::detect(&data) {
        return Err(Error::other(
            &args.input,
            "not a compiled model script (.MSB)",
        ));
    }
    let msb = Msb::decode(&data).map_err(Error::decoding(&args.input))?;
    let d = decompile(&msb);
    for l in &d.losses {
        crate::convert::warn(&args.input, l);
    }
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("MDS"));
    crate::fsio::write_file(&target, &d.text, args.force)?;
    println!(
        "{}: {} bytes{}",
        target.display(),
        d.text.len(),
        if d.losses.is_empty() {
            "; compiles back to the same MSB"
        } else {
            ""
        }
    );
    Ok(Status::Ok)
}
