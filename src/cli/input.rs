//! What the generic commands share beside the conversion core ([`crate::convert`], which
//! holds the file named on the command line, its companion and the output rules): the
//! arguments `--with` and `-o`/`--force`, and text written to stdout or a file.

use crate::convert::Companions;
use crate::exact::Error;
use crate::registry;
use std::io::Write;
use std::path::PathBuf;

/// `--with`: a file the inputs use (see [`crate::codec::Companion`]).
#[derive(clap::Args)]
pub struct WithArgs {
    /// A companion file the inputs use (e.g. the skeleton an animation is made for), or a
    /// folder or archive in which to find it by its key (checksum).
    #[arg(long = "with", value_name = "FILE", visible_aliases = registry::companion_flags())]
    pub with: Option<PathBuf>,
}

impl WithArgs {
    pub fn load(&self) -> Result<Companions, Error> {
        Companions::load(self.with.as_deref())
    }
}

/// Where a command writes its file.
#[derive(clap::Args)]
pub struct OutputArgs {
    /// Output file. A symbolic link writes the file it points to (the link stays); a
    /// character device or FIFO is written into; nothing but a regular file is replaced.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Overwrite the output file if it exists. It may be the input itself: the whole input
    /// is read before anything is written, and the new file replaces it in one rename.
    #[arg(long)]
    pub force: bool,
}

/// Write `text` to the output file, or to stdout without one (a closed pipe, as with
/// `| head`, is not an error).
pub fn write_text(out: &OutputArgs, text: &str) -> Result<(), Error> {
    match &out.output {
        Some(path) => crate::fsio::write_file(path, text.as_bytes(), out.force),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(Error::io("<stdout>", e))
                }
                _ => Ok(()),
            }
        }
    }
}
