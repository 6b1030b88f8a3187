//! The 3ds Max ASCII export (`.ASC`) as GothicSourcer, KrxImpExp and the original Zengine
//! exporter write it (spec: `specs/asc.md`).
//!
//! Two layers:
//! * [`parse::Doc`]: the lossless text (every line's indentation, tokens, separators and line
//!   end), so any file prints back byte for byte, whatever its number spellings or layout;
//! * [`model::Model`]: the typed view (scene, objects with `*NODE_TM`, tracks, meshes,
//!   soft-skin weights) read from it with every error's line, column and block path.
//!
//! [`print::print_gs`] prints a model in GothicSourcer's layout (new files); [`to_man`] turns an
//! animation ASC into a MAN the way the engine compiles it.

pub mod from_man;
pub mod model;
pub mod num;
pub mod parse;
pub mod pose;
pub mod print;

pub use model::{
    Anim, Extra, Face, Mesh, Model, NodeTm, Object, ObjectKind, PosKey, Raw, RotKey, ScaleKey,
    Scene, SoftSkin,
};
pub use parse::{AscError, Doc, Eol};
pub use print::{print_gs, GsWriter, Val};

/// A parsed ASC file: its text and its typed view.
#[derive(Debug, Clone, PartialEq)]
pub struct Asc {
    pub doc: Doc,
    pub model: Model,
}

impl Asc {
    /// Parse and check `data`.
    pub fn parse(data: &[u8]) -> Result<Asc, AscError> {
        let doc = Doc::parse(data)?;
        let model = Model::from_doc(&doc)?;
        Ok(Asc { doc, model })
    }

    /// The file's bytes (identical to the parsed input while nothing was edited).
    pub fn print(&self) -> Vec<u8> {
        self.doc.print()
    }

    /// The line end most lines use (for new text in the same style).
    pub fn eol(&self) -> Eol {
        let crlf = self.doc.lines.iter().filter(|l| l.eol == Eol::CrLf).count();
        if crlf * 2 > self.doc.lines.len() {
            Eol::CrLf
        } else {
            Eol::Lf
        }
    }
}

#[cfg(test)]
mod tests;
