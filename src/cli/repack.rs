//! `animkit repack DIR -o A.vdf`: an unpacked folder back into an archive.

use super::Status;
use crate::exact::Error;
use crate::zengin::vdf::folder;
use std::path::{Path, PathBuf};

/// Build the archive again from a folder made by `animkit unpack`: byte-identical when
/// nothing changed; edited YAML is re-encoded, edited files taken as they are, data laid out
/// again in the same order; files added to or removed from the folder are added to or
/// removed from the archive. A YAML exported later beside a member (after `unpack --no-yaml`)
/// is taken as that member's edit.
#[derive(clap::Args)]
pub struct Args {
    dir: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite OUTPUT if it exists. OUTPUT may lie inside DIR: it is never packed as a
    /// member (nor are animkit's own temporary files), and replaces the old file in one
    /// rename once the new one is complete.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    repack(&args.dir, &args.output, args.force)
}

/// Repack the unpacked folder `dir` into the archive `output`.
pub(super) fn repack(dir: &Path, output: &Path, force: bool) -> Result<Status, Error> {
    let b = super::progress::bar(0, "pieces");
    let r = folder::repack(dir, output, force, crate::registry::formats(), &|| {
        b.inc_length(1);
        b.inc(1)
    })?;
    b.finish_and_clear();
    for w in &r.warnings {
        crate::convert::warn_plain(w);
    }
    for y in &r.from_yaml {
        eprintln!("re-encoded from {y}");
    }
    for a in &r.added {
        eprintln!("added {a}");
    }
    for x in &r.removed {
        eprintln!("removed {x}");
    }
    eprintln!("wrote {} ({} files)", output.display(), r.files);
    Ok(Status::Ok)
}
