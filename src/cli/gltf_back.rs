//! `gltf import IN.glb` with nothing else: back into the files it was exported from.

use super::Status;
use crate::exact::Error;
use crate::zengin::gltf::{import, Document};
use std::path::Path;

pub(super) fn import_back(
    input: &Path,
    _doc: &Document,
    _opts: &import::ImportOptions,
    _animation: Option<&str>,
) -> Result<Status, Error> {
    Err(Error::other(
        input,
        "pass --into THE.MAN (or the folder made by `animkit unpack`), or --new NAME",
    ))
}
