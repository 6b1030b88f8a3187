//! A VDF archive as a [`Container`]: opened borrowed from its bytes (a memory map), members are
//! the placed files in data order, named by their catalog path.

use super::{info_lines, PieceKind, Tree, Vdf};
use crate::codec::{
    Archive, Container, Document, ExportOptions, Formats, InfoLine, Members, Mismatch, Which,
};
use crate::exact::{DecodeError, EncodeError};
use std::borrow::Cow;

/// How the registry opens VDF archives ([`crate::codec::Codec::CONTAINER`]).
pub struct VdfContainer;

/// An archive opened from its bytes.
struct Opened<'a> {
    src: &'a [u8],
    v: Vdf<'a>,
}

impl Container for VdfContainer {
    fn documents(&self) -> Vec<(&'static str, &'static str, schemars::schema::RootSchema)> {
        vec![(
            super::folder::MANIFEST_TAG,
            "manifest of an unpacked VDF archive (vdf-manifest.yaml)",
            crate::exact::with_integer_ranges(schemars::schema_for!(
                super::folder::ManifestDocument
            )),
        )]
    }

    fn open<'a>(&self, data: &'a [u8]) -> Result<Box<dyn Archive + 'a>, DecodeError> {
        Ok(Box::new(Opened {
            src: data,
            v: Vdf::parse(data)?,
        }))
    }
    fn diff(
        &self,
        old: &[u8],
        new: &[u8],
        formats: Formats,
    ) -> Result<Vec<String>, (Which, DecodeError)> {
        let a = Vdf::parse(old).map_err(|e| (Which::Old, e))?;
        let b = Vdf::parse(new).map_err(|e| (Which::New, e))?;
        Ok(crate::zengin::vdf::yaml::diff(&a, &b, formats))
    }
}

impl Document for Opened<'_> {
    fn info(&self) -> Vec<InfoLine> {
        info_lines(&self.v)
    }
    fn to_yaml(&self, _opts: &ExportOptions<'_>) -> Result<String, EncodeError> {
        self.v.refuse_damage()?;
        crate::zengin::vdf::yaml::to_yaml(&self.v)
    }
    fn field_at(&self, offset: u64) -> String {
        self.v.field_at(offset)
    }
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        self.v.damage()
    }
}

impl Archive for Opened<'_> {
    fn verify_structure(
        &self,
        release: &(dyn Fn(&[u8]) + Sync),
    ) -> Result<Option<Mismatch>, EncodeError> {
        crate::zengin::vdf::folder::verify_archive_structure(self.src, &self.v, release)
    }
    fn members(&self) -> Result<Members, DecodeError> {
        let tree = Tree::build(&self.v.entries, self.v.header.catalog_start())?;
        let files = || {
            self.v.layout.iter().filter_map(|p| match p.kind {
                PieceKind::File { entry, .. } => Some(entry),
                _ => None,
            })
        };
        // (room for the names at once, not grown by doubling: a little short where a
        // character is not ASCII)
        let text = files().map(|e| tree.path_len(e).max(16)).sum();
        let mut out = Members::with_capacity(files().count(), text);
        let mut path = Vec::new();
        for (id, p) in self.v.layout.iter().enumerate() {
            if let PieceKind::File { entry, .. } = p.kind {
                path.clear();
                if tree.path_into(entry, &mut path) {
                    out.push(&crate::exact::text::decode_cp1252(&path), id);
                } else {
                    out.push(&format!("catalog[{entry}]"), id);
                }
            }
        }
        Ok(out)
    }
    fn read(&self, id: usize) -> Result<Cow<'_, [u8]>, String> {
        self.v
            .piece_contents(id)
            .map_err(|why| format!("compressed data does not inflate: {why}"))
    }
    fn stored(&self, id: usize) -> &[u8] {
        self.v.layout.get(id).map_or(&[], |p| &p.bytes)
    }
}
