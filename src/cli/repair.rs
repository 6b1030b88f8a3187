//! `animkit repair FILE -o OUT`: a damaged file made readable, with what was changed.

use super::Status;
use crate::exact::Error;
use std::path::PathBuf;

/// Repair a file damaged in a way its format can name and undo, and say what changed: e.g. a
/// chunked ZenGin file (MAN, MDH/MDL, MSB) whose name was lengthened in a hex editor without
/// fixing the chunk's length gets lengths that agree with its content (nothing else changes).
/// The input is never replaced; the output is checked to read back.
#[derive(clap::Args)]
pub struct Args {
    /// The damaged file.
    input: PathBuf,
    /// Where to write the repaired file.
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite OUTPUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let data = crate::fsio::read_file(&args.input)?;
    let Some(format) = crate::registry::detect(&data) else {
        return Err(Error::other(&args.input, "format not recognised"));
    };
    // A file may read and still be damaged (a format that keeps bytes it cannot place, such
    // as the mesh formats' `trailing`): the repair decides, the decoder only words the refusal.
    let Some(fixed) = format.repair(&data) else {
        return Err(match format.decode(&data) {
            Ok(asset) => {
                let kept = asset
                    .export_warnings()
                    .into_iter()
                    .find(|f| f.severity == crate::codec::Severity::Error);
                match kept {
                    Some(f) => Error::other(
                        &args.input,
                        format!(
                            "reads as {}, keeping damage animkit knows no repair for: {}: {}",
                            format.tag(),
                            f.path,
                            f.message
                        ),
                    ),
                    None => Error::other(
                        &args.input,
                        format!(
                            "reads as {} without damage; nothing to repair",
                            format.tag()
                        ),
                    ),
                }
            }
            Err(damage) => Error::other(
                &args.input,
                format!("{damage}; animkit knows no repair for this damage"),
            ),
        });
    };
    format
        .decode(&fixed.bytes)
        .map_err(Error::decoding(&args.input))?;
    crate::fsio::write_file(&args.output, &fixed.bytes, args.force)?;
    for c in &fixed.changes {
        println!("{}: {c}", args.input.display());
    }
    println!(
        "{}: wrote {} ({} bytes, {}); it reads back",
        args.input.display(),
        args.output.display(),
        fixed.bytes.len(),
        format.tag()
    );
    Ok(Status::Ok)
}
