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
pub mod model_compile;
pub mod num;
pub mod parse;
pub mod pose;
pub mod print;
pub mod to_man;
pub mod yaml;

pub use model::{
    Anim, Extra, Face, Mesh, Model, NodeTm, Object, ObjectKind, PosKey, Raw, RotKey, ScaleKey,
    Scene, SoftSkin,
};
pub use parse::{AscError, Doc, Eol};
pub use print::{print_gs, GsWriter, Val};

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{DecodeError, EncodeError, ImportError};

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

/// The parse error as a [`DecodeError`] (line:column and block path in the message).
impl From<AscError> for DecodeError {
    fn from(e: AscError) -> Self {
        let msg = if e.path.is_empty() {
            e.message
        } else {
            format!("in {}: {}", e.path, e.message)
        };
        DecodeError::text(0, e.line, e.column, msg)
    }
}

impl Codec for Asc {
    const TAG: &'static str = yaml::TAG;
    const DESCRIPTION: &'static str = "3ds Max ASCII scene export, text (.ASC)";
    const EXTENSIONS: &'static [&'static str] = &["asc"];

    fn detect(data: &[u8]) -> bool {
        parse::detect(data)
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Ok(Asc::parse(data)?)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.doc.print_into(out);
        Ok(())
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        Ok(yaml::to_yaml(self))
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        yaml::from_yaml(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(yaml::AscDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let m = &self.model;
        let mut v = Vec::new();
        if let Some(c) = &m.comment {
            v.push(("exporter", c.clone()));
        }
        let s = &m.scene;
        v.push(("scene", s.filename.clone()));
        v.push((
            "frames",
            format!(
                "{}..={} ({} frames) at {} fps, {} ticks per frame",
                s.first_frame,
                s.last_frame,
                s.frame_count(),
                s.frame_speed,
                s.ticks_per_frame
            ),
        ));
        let helpers = m
            .objects
            .iter()
            .filter(|o| o.kind == ObjectKind::Helper)
            .count();
        v.push((
            "objects",
            format!(
                "{} ({helpers} helpers, {} geometry)",
                m.objects.len(),
                m.objects.len() - helpers
            ),
        ));
        let animated: Vec<&str> = m
            .objects
            .iter()
            .filter(|o| {
                o.anim
                    .as_ref()
                    .is_some_and(|a| !a.pos.is_empty() || !a.rot.is_empty())
            })
            .map(|o| o.name.as_str())
            .collect();
        v.push(("animated", animated.len().to_string()));
        for o in &m.objects {
            if let Some(mesh) = &o.mesh {
                v.push((
                    "mesh",
                    format!(
                        "{}: {} vertices, {} faces, {} texture vertices{}",
                        o.name,
                        mesh.vertices.len(),
                        mesh.faces.len(),
                        mesh.tverts.len(),
                        if mesh.softskin { ", soft skin" } else { "" }
                    ),
                ));
            }
            if !o.morph.is_empty() {
                v.push(("morph", format!("{}: {} frames", o.name, o.morph.len())));
            }
        }
        for sk in &m.softskins {
            v.push(("skin", format!("{}: {} vertices", sk.mesh, sk.verts.len())));
        }
        v.push((
            "line ends",
            match self.eol() {
                Eol::CrLf => "CRLF".into(),
                _ => "LF".into(),
            },
        ));
        v
    }
    fn field_at(&self, offset: u64) -> String {
        let mut seen = 0u64;
        let mut bytes = Vec::new();
        for (i, line) in self.doc.lines.iter().enumerate() {
            bytes.clear();
            bytes.extend_from_slice(self.doc.bytes(line.indent));
            for t in self.doc.line_toks(line) {
                bytes.extend_from_slice(self.doc.bytes(t.sep));
                bytes.extend_from_slice(self.doc.bytes(t.text));
            }
            bytes.extend_from_slice(self.doc.bytes(line.tail));
            bytes.extend_from_slice(line.eol.as_bytes());
            let len = bytes.len() as u64;
            if offset < seen + len {
                return format!("line {} column {}", i + 1, offset - seen + 1);
            }
            seen += len;
        }
        format!("end of file (byte {offset})")
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        crate::zengin::tagged::diff_yaml(&yaml::to_yaml(self), &yaml::to_yaml(other))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod to_man_tests;
