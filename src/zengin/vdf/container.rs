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
    /// The tree's directory of each entry ([`Tree::parents`]), once [`Archive::members`] or
    /// [`Archive::name`] built it (`None`: the tree is broken).
    parents: std::sync::OnceLock<Option<Vec<u32>>>,
}

impl Opened<'_> {
    fn tree(&self) -> Result<Tree<'_>, DecodeError> {
        Tree::paths(&self.v.entries, self.v.header.catalog_start())
    }
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
            parents: std::sync::OnceLock::new(),
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
        let tree = self.tree()?;
        let _ = self.parents.set(Some(tree.into_parents()));
        let files = self
            .v
            .layout
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.kind, PieceKind::File { .. }));
        let mut out = Members::with_capacity(files.clone().count());
        for (id, _) in files {
            out.push(id);
        }
        Ok(out)
    }
    /// The entry's path in the tree; `catalog[N]` for an entry no directory reaches (or
    /// when the tree is broken).
    fn name(&self, id: usize) -> String {
        let parents = self
            .parents
            .get_or_init(|| self.tree().ok().map(Tree::into_parents));
        let Some(PieceKind::File { entry, .. }) = self.v.layout.get(id).map(|p| p.kind) else {
            return format!("layout[{id}]");
        };
        let mut path = Vec::new();
        match parents {
            Some(p) if Tree::with_parents(&self.v.entries, p).path_into(entry, &mut path) => {
                crate::exact::text::decode_cp1252(&path).into_owned()
            }
            _ => format!("catalog[{entry}]"),
        }
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
