//! glTF 2.0 for ZenGin animations: a model hierarchy (`.MDH`) and its animations (`.MAN`) as
//! one glTF file (nodes, a skin, one animation per MAN), and the way back into a MAN.
//!
//! * [`coords`]: the coordinate mapping (ZenGin left-handed, Y up, centimetres ↔ glTF
//!   right-handed, Y up, metres: x is mirrored, lengths divided by 100).
//! * [`skeleton`]: the MDH hierarchy with its rest poses in glTF coordinates.
//! * [`mod@export`]: MDH + MANs → `.glb` / `.gltf`.
//! * [`mesh`]: the character's meshes (skinned, node-attached, head) and textures in it.
//! * [`model`]: a whole model (MDH + its MANs) from an archive's or folder's members.
//! * [`origin`]: where an export came from, recorded in the file for the way back.
//! * [`read`]: a glTF file (GLB or JSON with embedded, external or GLB buffers) read and
//!   checked, with JSON paths in every error.
//! * [`import`]: one glTF animation sampled at a MAN's frame times and packed into a copy of the
//!   original MAN; untouched motion gives back the original codes.

pub mod coords;
pub mod export;
pub mod glb;
pub mod import;
pub mod mesh;
pub mod model;
pub mod origin;
pub mod read;
pub mod skeleton;

pub use export::{
    export, export_streamed, export_with, export_with_origin, export_with_origin_to, Container,
    ExportReport, Layout,
};
pub use import::{import_animation, ImportOptions, ImportReport};
pub use read::Document;
pub use skeleton::Skeleton;

/// A problem with a glTF file or with what is exported into one. The message names the JSON
/// path (`animations[0].channels[3].sampler`) or the MAN and node it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GltfError(pub String);

impl GltfError {
    pub fn new(message: impl Into<String>) -> Self {
        GltfError(message.into())
    }
    /// The same error under a JSON path: `path: message`.
    pub fn at(path: impl std::fmt::Display, message: impl std::fmt::Display) -> Self {
        GltfError(format!("{path}: {message}"))
    }
}

/// The output container a file name asks for: `.glb` or `.gltf` (any case).
pub fn container_for(path: &std::path::Path) -> Option<Container> {
    let ext = path.extension()?.to_str()?;
    if ext.eq_ignore_ascii_case("glb") {
        Some(Container::Glb)
    } else if ext.eq_ignore_ascii_case("gltf") {
        Some(Container::Gltf)
    } else {
        None
    }
}
