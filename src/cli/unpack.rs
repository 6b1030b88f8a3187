//! `animkit unpack A.vdf -o DIR`: an archive as a folder of files, assets as YAML, and a
//! manifest for `repack`.

use super::Status;
use crate::convert::warn;
use crate::exact::Error;
use crate::zengin::vdf::folder::{self as folder, UnpackOptions};
use std::path::{Path, PathBuf};

/// Unpack a VDF archive into a folder: every file at its path, every recognised asset (MAN,
/// ...) also as `<file>.yaml`, and `vdf-manifest.yaml` with what the archive needs beyond the
/// files (header, catalog order, data order, compression). Edit, then `animkit repack`.
#[derive(clap::Args)]
pub struct Args {
    archive: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// Write recognised assets only as YAML (the binary is kept where YAML cannot reproduce it).
    #[arg(long, conflicts_with = "no_yaml")]
    yaml_only: bool,
    /// Write no YAML, only the files and the manifest.
    #[arg(long)]
    no_yaml: bool,
    /// Overwrite files of an earlier unpack.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let opts = UnpackOptions {
        yaml: !args.no_yaml,
        yaml_only: args.yaml_only,
        force: args.force,
    };
    unpack(&args.archive, &args.output, &opts)
}

/// Unpack `archive` into the folder `output`.
pub(super) fn unpack(archive: &Path, output: &Path, opts: &UnpackOptions) -> Result<Status, Error> {
    let map = crate::fsio::map_file(archive)?;
    let v = folder::open(archive, &map)?;
    let tree = folder::tree(archive, &v)?;
    for w in v.warnings.iter().chain(&tree.warnings) {
        warn(archive, w);
    }
    let b = super::progress::bar(v.layout.len(), "pieces");
    let r = folder::unpack(
        archive,
        &v,
        &tree,
        output,
        opts,
        crate::registry::formats(),
        &map,
        &|part| map.release(part),
        &|| b.inc(1),
    )?;
    b.finish_and_clear();
    for w in &r.warnings {
        warn(archive, w);
    }
    eprintln!(
        "unpacked {} files ({} as YAML) to {}",
        r.files,
        r.yaml,
        output.display()
    );
    Ok(Status::Ok)
}
