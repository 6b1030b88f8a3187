//! Blade & Soul (Unreal Engine 3, file version 573) animation packages, the `ue3.upk` format
//! (spec `ue3-bns-anim.md`).
//!
//! * [`package`]: container (summary, tables, objects, layout and byte-exact writer);
//!   [`crypt`]: whole-file / per-block XOR and export-pointer obfuscation;
//!   [`compress`]: LZO chunks; [`props`]: names, strings, tagged properties.
//! * [`anim`]: AnimSet / AnimSequence views, track decoding, stream rebuild;
//!   [`codec`]: the rotation formats incl. ZOnlyRLE (ActorX PSA export/import is `ue3::psa`).
//! * [`doc`]: the `ue3.upk` YAML document (see there for how untouched tracks stay exact).
//!
//! Writing: an untouched package is byte-identical whatever its layers. An edited sequence is
//! written in place when its record keeps its size, else every later object shifts and the
//! export table's SerialSize/SerialOffset are rewritten (re-obfuscated when flagged). A
//! compressed package whose content changed is written uncompressed (spec §1.11 Option U).

pub mod anim;
pub mod codec;
pub mod compress;
pub mod crypt;
pub mod diff;
pub mod doc;
pub mod package;
pub mod props;
pub mod synth;

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{DecodeError, EncodeError, ImportError};
pub use package::Package;

impl Codec for Package {
    const TAG: &'static str = "ue3.upk";
    const DESCRIPTION: &'static str = "Unreal Engine 3 / Blade & Soul animation package (.upk)";
    const EXTENSIONS: &'static [&'static str] = &["upk"];

    fn detect(data: &[u8]) -> bool {
        data.len() >= 8 && {
            let t = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
            t == compress::PACKAGE_TAG || t == crypt::XOR_TAG
        }
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Package::read(data)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        doc::to_yaml(self)
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        doc::from_yaml(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        doc::schema()
    }
    fn info(&self) -> Vec<InfoLine> {
        let s = &self.summary;
        let mut v = vec![
            (
                "version",
                format!("{}.{}", s.file_version, s.licensee_version),
            ),
            ("package_flags", format!("{:#010x}", s.package_flags)),
            (
                "layers",
                format!(
                    "whole-file XOR: {}, compression: {}, obfuscated export pointers: {}",
                    if self.whole_file_xor { "yes" } else { "no" },
                    match s.compression_flags {
                        0 => "none".to_string(),
                        2 => "LZO".into(),
                        8 => "LZO+XOR".into(),
                        f => f.to_string(),
                    },
                    if s.package_flags & crypt::FLAG_OBFUSCATED != 0 {
                        "yes"
                    } else {
                        "no"
                    }
                ),
            ),
            ("names", self.names.len().to_string()),
            ("imports", self.imports.len().to_string()),
            ("exports", self.exports.len().to_string()),
        ];
        let sets = anim::anim_sets(self);
        for set in &sets {
            v.push((
                "animset",
                format!(
                    "{} ({} bones: {})",
                    set.name,
                    set.bones.len(),
                    set.bones.join(", ")
                ),
            ));
            if !set.use_translation_bone_names.is_empty() {
                v.push((
                    "translation bones",
                    set.use_translation_bone_names.join(", "),
                ));
            }
            if !set.use_movement_bone_names.is_empty() {
                v.push(("movement bones", set.use_movement_bone_names.join(", ")));
            }
            for &si in &set.sequences {
                match anim::sequence(self, si, Some(set.bones.len())) {
                    Ok(Some(q)) => v.push((
                        "sequence",
                        format!(
                            "{} = {}: {} frames, {} s, {}",
                            self.export_name(si),
                            q.name,
                            q.num_frames,
                            q.length,
                            q.rotation_format.name()
                        ),
                    )),
                    Ok(None) => {}
                    Err(e) => v.push(("sequence", format!("{}: {e}", self.export_name(si)))),
                }
            }
        }
        v
    }
    fn field_at(&self, offset: u64) -> String {
        Package::field_at(self, offset)
    }
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        use crate::codec::{Finding, Severity};
        let damaged = anim::damaged(self)
            .into_iter()
            .map(|d| Finding::new(Severity::Error, d.path, d.message));
        damaged
            .chain(anim::check(self).into_iter().map(|line| {
                let severity = if line.contains("fits neither") {
                    Severity::Warning
                } else {
                    Severity::Info
                };
                match line.split_once(": ") {
                    Some((at, msg)) => Finding::new(severity, at, msg),
                    None => Finding::new(severity, "", line),
                }
            }))
            .collect()
    }
    fn export_warnings(&self) -> Vec<crate::codec::Finding> {
        anim::damaged(self)
            .into_iter()
            .map(|d| crate::codec::Finding::new(crate::codec::Severity::Warning, d.path, d.message))
            .collect()
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        diff::diff(self, other)
    }
}

#[cfg(test)]
pub(crate) mod tests;

/// Fuzzing entry point of the track decoder: lay out and decode one track of `stream` with
/// the given `CompressedTrackOffsets` entries and rotation format (index into
/// [`codec::RotFormat::ALL`]). Never panics.
pub fn fuzz_track(stream: &[u8], offsets: &[i32], format: usize) {
    let fmt = codec::RotFormat::ALL[format % codec::RotFormat::ALL.len()];
    let o = codec::TrackOffsets {
        trans_offset: offsets.first().copied().unwrap_or(0),
        trans_keys: offsets.get(1).copied().unwrap_or(0),
        rot_offset: offsets.get(2).copied().unwrap_or(0),
        rot_keys: offsets.get(3).copied().unwrap_or(0),
    };
    if let Ok(l) = codec::layout(stream, 0, &o, fmt) {
        let t = codec::decode_translations(stream, &l);
        let r = codec::decode_rotations(stream, &l, o.rot_keys.max(0) as usize, fmt);
        let mut out = Vec::new();
        codec::encode_translations(&t, &mut out);
        let _ = codec::encode_rotations(&r, fmt, &mut out);
    }
}

/// Fuzzing entry point of the package reader: read, decode every track, export YAML, check,
/// diff, write back (`ue3::psa::fuzz_package` adds the PSA export and import). Never panics.
pub fn fuzz_package(data: &[u8]) {
    let Ok(pkg) = Package::read(data) else { return };
    let _ = doc::to_yaml(&pkg);
    let _ = anim::check(&pkg);
    let _ = anim::damaged(&pkg);
    let _ = diff::diff(&pkg, &pkg);
    let _ = pkg.write(&mut Vec::new());
}

/// Property check of a (possibly mutated) package: either a clean read error at a byte offset
/// inside the file, or a package
/// whose binary and YAML round trips give the input back byte for byte and whose whole
/// pipeline ([`fuzz_package`]) runs. `Err` says which of these failed.
pub fn fuzz_round_trip(data: &[u8]) -> Result<(), String> {
    let pkg = match Package::read(data) {
        Ok(p) => p,
        Err(e) => {
            // A compressed package's offsets after its summary are positions in the decompressed
            // image, which the reader never lets grow past the bound of `compress::image_size`.
            let image_bound = (data.len() as u64).saturating_mul(300) + (1 << 20);
            return if e.offset <= image_bound {
                Ok(())
            } else {
                Err(format!("read error without a usable offset: {e}"))
            };
        }
    };
    let mut out = Vec::with_capacity(data.len());
    pkg.write(&mut out)
        .map_err(|e| format!("package that reads does not write: {e}"))?;
    if out != data {
        return Err(format!(
            "binary round trip differs at {:?}",
            crate::exact::first_difference(data, &out)
        ));
    }
    let text = doc::to_yaml(&pkg).map_err(|e| format!("YAML export failed: {e}"))?;
    let back = doc::from_yaml(&text).map_err(|e| format!("own YAML does not import: {e}"))?;
    let mut out2 = Vec::with_capacity(data.len());
    back.write(&mut out2)
        .map_err(|e| format!("imported YAML does not write: {e}"))?;
    if out2 != data {
        return Err(format!(
            "YAML round trip differs at {:?}",
            crate::exact::first_difference(data, &out2)
        ));
    }
    fuzz_package(data);
    Ok(())
}
