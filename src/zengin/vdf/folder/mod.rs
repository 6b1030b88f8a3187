//! The whole-archive workflow on memory-mapped archives: `vdf list`, `vdf extract`,
//! `vdf pack`, `unpack` (archive → folder tree + YAML + manifest), `repack` (folder →
//! archive) and the archive part of `verify`.
//!
//! Every function here takes the archive as a slice (a memory map from
//! [`crate::fsio::map_file`]) and a [`Vdf`] parsed from it, so member bytes are read from the
//! map on demand; outputs are written streaming ([`crate::fsio::write_streaming`]) with piece
//! contents produced on all cores, so memory stays far below an archive's size.
//!
//! # The unpacked folder
//!
//! ```text
//! DIR/vdf-manifest.yaml        header, catalog, layout (zengin.vdf.manifest)
//! DIR/vdf-streams/NNNNN.zs     compressed volumes only: each file's original ZippedStream
//! DIR/LICENSES/MIT.MD          every file of the archive at its path
//! DIR/ANIMS/S_RUN.MAN.yaml     every recognised asset also as YAML (or only, --yaml-only)
//! ```
//!
//! `unpack` fills a staging folder beside DIR and renames it to DIR at the end (a new or
//! empty DIR; into a non-empty DIR, `--force` writes each file through its own temporary
//! file), so DIR is never seen half-written and each of thousands of files costs one create
//! and one write.
//!
//! The manifest records the CRC-32 of every file's contents and of every YAML file as
//! unpacked. `repack` reads every YAML file and takes one whose CRC changed as an edit (the
//! asset is re-encoded from it; sizes and times are not trusted, so an edit that keeps both
//! is seen), otherwise the binary file, copied file to file into the archive; a compressed
//! file whose contents still have their old CRC keeps its original stream byte for byte.
//! CRC-32 detects every change confined to 32 consecutive bits (any one edited value) and
//! misses other changes with probability 2^-32. Empty directories of the catalog (a first
//! child outside the catalog) stay while their folder does. Files missing from the folder are removed
//! from the archive, files the manifest does not know are added (a new `NAME.yaml` animkit
//! document becomes the asset `NAME`), and then the catalog is rebuilt depth-first with the
//! existing order kept and new names (upper case) at the end of their directory's block.

mod catalog;
mod check;
mod list;
mod manifest;
mod pack;
mod repack;
mod unpack;

pub use check::{fuzz_extract, fuzz_one, verify_archive_structure};
pub use list::{extract, glob_match, list, plan_extract, ExtractPlan, ListItem};
pub use manifest::{ManifestDocument, ManifestPiece};
pub use pack::{
    archive_name, collect_dir, empty_folders, links_below, own_temps, pack_to, pack_to_vec,
    PackFile, PackOptions, Source,
};
pub use repack::{repack, RepackReport};
#[cfg(test)]
pub(crate) use unpack::manifest_text;
pub use unpack::{unpack, UnpackOptions, UnpackReport};

use catalog::rebuild_catalog;
use manifest::manifest_piece;
use pack::{new_entry, rel_to_names};
use repack::file_piece;
use unpack::path_text;

use crate::exact::{EncodeError, Error};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{Placement, Tree, Vdf};
use std::borrow::Cow;
use std::path::Path;

pub const MANIFEST: &str = "vdf-manifest.yaml";
pub const STREAMS: &str = "vdf-streams";
pub const MANIFEST_TAG: &str = "zengin.vdf.manifest";
pub const MANIFEST_VERSION: u32 = 1;

fn decode_err(path: &Path) -> impl Fn(crate::exact::DecodeError) -> Error + '_ {
    Error::decoding(path)
}

fn encode_err(path: &Path) -> impl Fn(EncodeError) -> Error + '_ {
    move |e| Error::encode_in(path, e)
}

/// A 64-bit hash of a path key (the same in every run: `repack` and `unpack` index members by
/// it and confirm every hit by the key itself).
/// The refusal of `unpack` or `extract` (`verb`) for `problems`, every one in the order found,
/// before anything is written.
fn refusal(archive: &Path, verb: &str, problems: &[String]) -> Error {
    Error::other(
        archive,
        format!(
            "refusing to {verb}: {} (nothing was written)",
            problems.join("; ")
        ),
    )
}

/// [`refusal`] when there are `problems`.
fn refuse_any(archive: &Path, verb: &str, problems: &[String]) -> Result<(), Error> {
    match problems.is_empty() {
        true => Ok(()),
        false => Err(refusal(archive, verb, problems)),
    }
}

fn key_hash(key: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(key.as_bytes());
    h.finish()
}

/// Parse an archive (then [`tree`]).
pub fn open<'a>(path: &Path, src: &'a [u8]) -> Result<Vdf<'a>, Error> {
    Vdf::parse(src).map_err(decode_err(path))
}

/// The tree of the archive `v` read from `path` (its problems are errors here: without a tree
/// there are no paths).
pub fn tree<'v>(path: &Path, v: &'v Vdf<'_>) -> Result<Tree<'v>, Error> {
    Tree::build(&v.entries, v.header.catalog_start()).map_err(decode_err(path))
}

/// The contents of file entry `entry`: its piece's (inflated) bytes, or for an unplaced entry
/// that still lies inside the archive (overlapping data), the bytes at its stored offset.
pub fn member_contents<'s>(
    v: &'s Vdf<'_>,
    src: &'s [u8],
    placement: &Placement,
    entry: usize,
) -> Result<Cow<'s, [u8]>, String> {
    if let Some(p) = placement.get(entry) {
        return v.piece_contents(p);
    }
    let e = v.entries.get(entry).ok_or("no such entry")?;
    let start = e.offset as usize;
    if v.header.zipped() {
        if let Some(info) = src.get(start..).and_then(zipped::probe) {
            let end = start + info.stored_len as usize;
            return zipped::decompress(&src[start..end]).map(Cow::Owned);
        }
    }
    let end = start
        .checked_add(e.size as usize)
        .filter(|&end| end <= src.len())
        .ok_or_else(|| "its data lies past the end of the archive".to_string())?;
    Ok(Cow::Borrowed(&src[start..end]))
}
