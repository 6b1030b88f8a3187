//! Where an exported glTF came from, recorded in the file (`asset.extras.animkit`) so that the
//! way back needs nothing but the file: the MDH, the archive or folder, and the MAN of each
//! animation. Paths are relative to the glTF file's folder (with `/`) when they lie inside
//! it, else absolute. Tools that drop `extras` (Blender's exporter by default) lose it; the
//! import then finds the files by the animation names.

use super::read::Document;
use serde::{Deserialize, Serialize};

/// The recorded origin.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// The model hierarchy (`.MDH`), or its path inside `source`.
    pub mdh: String,
    /// The archive or folder the model was taken from (`--model`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Each animation's MAN (inside `source` when there is one).
    #[serde(default)]
    pub animations: Vec<OriginAnimation>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginAnimation {
    /// The glTF animation's name (the MAN's name).
    pub name: String,
    /// The MAN's path.
    pub man: String,
    /// Its rate (frames per second).
    pub fps: f32,
    /// CRC-32 of the MAN's bytes as exported: the way back into an archive refuses a member
    /// that changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crc32: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct Extras {
    animkit: Origin,
}

impl Origin {
    /// The raw `extras` value to store in `asset.extras`.
    pub fn to_extras(&self) -> Option<Box<serde_json::value::RawValue>> {
        let text = serde_json::to_string(&Extras {
            animkit: self.clone(),
        })
        .ok()?;
        serde_json::value::RawValue::from_string(text).ok()
    }

    /// The origin recorded in a file, if any (a malformed record counts as none).
    pub fn of(doc: &Document) -> Option<Origin> {
        let raw = doc.root.asset.extras.as_ref()?;
        serde_json::from_str::<Extras>(raw.get())
            .ok()
            .map(|e| e.animkit)
    }
}
