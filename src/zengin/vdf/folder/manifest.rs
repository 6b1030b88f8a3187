//! The `zengin.vdf.manifest` document `unpack` writes and `repack` reads: what an archive needs
//! beyond its files (header, catalog, layout, compression, the CRC-32 of each file as unpacked).

use crate::exact::{Blob, Hex32};
use crate::zengin::vdf::yaml::{EntryDoc, HeaderDoc, PieceKindDoc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One layout piece in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestPiece {
    pub kind: PieceKindDoc,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    /// `file`: its path in the folder (`/`-separated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `file`: CRC-32 of the contents as unpacked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crc32: Option<Hex32>,
    /// CRC-32 of the asset's YAML file as unpacked (`<file>.yaml`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yaml: Option<Hex32>,
    /// Ignored (written by earlier versions: `repack` now always compares the YAML's CRC).
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    pub yaml_stamp: Option<String>,
    /// Only the YAML file was written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub yaml_only: bool,
    /// Stored as a ZippedStream; the original stream is in this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
    /// `gap`: the bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Blob>,
}

/// The `zengin.vdf.manifest` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestDocument {
    pub format: String,
    pub version: u32,
    /// The archive's header as stored.
    pub header: HeaderDoc,
    /// The catalog in stored order (offsets of placed files follow the layout on repack).
    pub catalog: Vec<EntryDoc>,
    /// Every byte after the header in file order.
    pub layout: Vec<ManifestPiece>,
}

pub(super) fn manifest_piece(kind: PieceKindDoc) -> ManifestPiece {
    ManifestPiece {
        kind,
        entry: None,
        file: None,
        crc32: None,
        yaml: None,
        yaml_stamp: None,
        yaml_only: false,
        stream: None,
        data: None,
    }
}
