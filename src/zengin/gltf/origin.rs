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

/// The record [`Origin::to_extras`] makes, written an animation at a time as its text (a
/// whole game's model keeps the text of its animations' entries, about 100 bytes each, not
/// an [`OriginAnimation`] of three strings each). The same bytes as `to_extras` (a test
/// compares them).
#[derive(Debug, Clone)]
pub struct OriginText {
    text: String,
    first: bool,
}

impl OriginText {
    /// The record's start: the MDH and the source.
    pub fn new(mdh: &str, source: Option<&str>) -> OriginText {
        let s = |v: &str| serde_json::to_string(v).unwrap_or_default();
        let mut text = format!("{{\"animkit\":{{\"mdh\":{}", s(mdh));
        if let Some(src) = source {
            text.push_str(",\"source\":");
            text.push_str(&s(src));
        }
        text.push_str(",\"animations\":[");
        OriginText { text, first: true }
    }

    /// One animation more.
    pub fn push(&mut self, a: &OriginAnimation) {
        if !std::mem::take(&mut self.first) {
            self.text.push(',');
        }
        // (an OriginAnimation is strings and numbers: it always serializes)
        if let Ok(one) = serde_json::to_string(a) {
            self.text.push_str(&one);
        }
    }

    /// The raw `extras` value to store in `asset.extras` (as [`Origin::to_extras`]).
    pub fn finish(mut self) -> Option<Box<serde_json::value::RawValue>> {
        self.text.push_str("]}}");
        self.text.shrink_to_fit();
        serde_json::value::RawValue::from_string(self.text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record written an animation at a time is `to_extras`'s, with and without a
    /// source, with none, one and several animations (names that JSON escapes too).
    #[test]
    fn the_record_as_text_is_the_declared_one() {
        let anim = |i: u32| OriginAnimation {
            name: format!("S_RUN\"{i}\\ü"),
            man: format!("ANIMS/_COMPILED/HUMANS-S_RUN{i}.MAN"),
            fps: 25.0 + i as f32 / 3.0,
            crc32: i.is_multiple_of(2).then_some(0xdead_beef ^ i),
        };
        for source in [None, Some("../Anims.vdf".to_string())] {
            for n in [0, 1, 3] {
                let origin = Origin {
                    mdh: "_WORK/DATA/ANIMS/_COMPILED/HUMANS.MDH".into(),
                    source: source.clone(),
                    animations: (0..n).map(anim).collect(),
                };
                let mut text = OriginText::new(&origin.mdh, origin.source.as_deref());
                for a in &origin.animations {
                    text.push(a);
                }
                let got = text.finish().expect("a record");
                let want = origin.to_extras().expect("a record");
                assert_eq!(got.get(), want.get());
                assert!(got.get().contains("\"animations\":["), "{}", got.get());
            }
        }
    }
}
