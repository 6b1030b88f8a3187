//! `info`, `verify` and `diff` of glTF files (an interchange format, not a registered one):
//! a summary, the file checked as `gltf import` reads it and against the MANs it came from,
//! and what it changes in a MAN.

use super::Status;
use crate::exact::Error;
use crate::zengin::gltf::import;
use crate::zengin::gltf::origin::Origin;
use crate::zengin::man::Man;
use std::path::{Path, PathBuf};

/// A `.glb` or `.gltf` path (any case).
pub(super) fn is_gltf(path: &Path) -> bool {
    crate::zengin::gltf::container_for(path).is_some()
}

/// `info` of glTF files.
pub(super) fn info(files: &[PathBuf]) -> Result<Status, Error> {
    for path in files {
        print_info(path)?;
    }
    Ok(Status::Ok)
}

/// A glTF file's frame count at the rate of its keys (none without a rate).
fn frames(f: &import::AnimationFacts) -> Option<u64> {
    f.rate
        .map(|r| (f.duration * f64::from(r)).round() as u64 + 1)
}

/// `info` of one glTF file, printed.
pub(super) fn print_info(path: &Path) -> Result<(), Error> {
    let doc = super::gltf_files::read_document(path)?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let r = &doc.root;
    println!(
        "{}: glTF 2.0 (generator {:?}, {size} bytes)",
        path.display(),
        r.asset.generator.clone().unwrap_or_default()
    );
    println!(
        "  nodes: {}, skins: {}, meshes: {}, materials: {}, images: {}",
        r.nodes.len(),
        r.skins.len(),
        r.meshes.len(),
        r.materials.len(),
        r.images.len()
    );
    if let Some(skin) = r.skins.first() {
        println!(
            "  skin: {} ({} joints)",
            skin.name.clone().unwrap_or_default(),
            skin.joints.len()
        );
    }
    println!("  animations: {}", r.animations.len());
    for i in 0..r.animations.len() {
        let f = import::facts(&doc, i).map_err(|e| Error::other(path, e.to_string()))?;
        println!(
            "    {}: {:.3} s, {} channels{}",
            f.name,
            f.duration,
            f.channels,
            f.rate
                .map_or(String::new(), |r| format!(", keys at {r} per second"))
        );
    }
    match Origin::of(&doc) {
        Some(o) => {
            println!(
                "  exported from: {}{}",
                o.source
                    .as_deref()
                    .map_or(String::new(), |s| format!("{s}: ")),
                o.mdh
            );
            for a in &o.animations {
                println!("    {} ← {} ({} fps)", a.name, a.man, a.fps);
            }
        }
        None => println!(
            "  exported from: not recorded (the way back finds the MANs by the animation names)"
        ),
    }
    Ok(())
}

/// What `info --json` reports of a glTF file.
pub(super) struct Summary {
    pub tag: String,
    pub description: String,
    pub bytes: u64,
    /// (label, value), in order.
    pub lines: Vec<(String, String)>,
}

/// What `info --json` reports of a glTF file: the format tag and description, its size and
/// the summary lines (each animation one line `animation NAME`: frames at the rate of its
/// keys, duration, channels).
pub(super) fn summary(path: &Path) -> Result<Summary, Error> {
    let doc = super::gltf_files::read_document(path)?;
    let size = std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::io(path, e))?;
    let r = &doc.root;
    let mut lines: Vec<(String, String)> = vec![
        (
            "generator".into(),
            r.asset.generator.clone().unwrap_or_default(),
        ),
        ("nodes".into(), r.nodes.len().to_string()),
        ("skins".into(), r.skins.len().to_string()),
        ("meshes".into(), r.meshes.len().to_string()),
        ("materials".into(), r.materials.len().to_string()),
        ("images".into(), r.images.len().to_string()),
    ];
    if let Some(skin) = r.skins.first() {
        lines.push(("skin".into(), skin.name.clone().unwrap_or_default()));
        lines.push(("joints".into(), skin.joints.len().to_string()));
    }
    lines.push(("animations".into(), r.animations.len().to_string()));
    for i in 0..r.animations.len() {
        let f = import::facts(&doc, i).map_err(|e| Error::other(path, e.to_string()))?;
        let mut v = match frames(&f) {
            Some(n) => format!("{n} frames, "),
            None => String::new(),
        };
        v.push_str(&format!("{:.3} s, {} channels", f.duration, f.channels));
        if let Some(rate) = f.rate {
            v.push_str(&format!(", keys at {rate} per second"));
        }
        lines.push((format!("animation {}", f.name), v));
    }
    match Origin::of(&doc) {
        Some(o) => {
            lines.push((
                "exported from".into(),
                format!(
                    "{}{}",
                    o.source
                        .as_deref()
                        .map_or(String::new(), |s| format!("{s}: ")),
                    o.mdh
                ),
            ));
            for a in &o.animations {
                lines.push((
                    format!("origin {}", a.name),
                    format!("{} ({} fps)", a.man, a.fps),
                ));
            }
        }
        None => lines.push(("exported from".into(), "not recorded".into())),
    }
    let binary = crate::zengin::gltf::container_for(path)
        .is_some_and(|c| matches!(c, crate::zengin::gltf::Container::Glb));
    Ok(Summary {
        tag: TAG.into(),
        description: if binary {
            "glTF 2.0 (binary .glb)".into()
        } else {
            "glTF 2.0 (JSON .gltf)".into()
        },
        bytes: size,
        lines,
    })
}

/// The name `info`, `verify` and `diff` reports give glTF files (an interchange format, not
/// a registered one).
pub(super) const TAG: &str = "gltf";

/// `verify` of glTF files: each reads as `gltf import` reads it, and each animation imported
/// into the MAN it came from (recorded, or found by name) is reported unchanged (the MAN's
/// bytes) or with the samples it changes. A file that does not read, or that matches no MAN,
/// fails.
pub(super) fn verify(files: &[PathBuf]) -> Result<Status, Error> {
    let mut status = Status::Ok;
    for path in files {
        let c = check(path);
        print_check(path, &c);
        if c.is_err() {
            status = Status::Failed;
        }
    }
    Ok(status)
}

/// `verify` of one glTF file: its animations against their MANs, or why it fails.
pub(super) fn check(path: &Path) -> Result<Vec<super::json::GltfAnimationCheck>, String> {
    let doc = super::gltf_files::read_document(path).map_err(|e| e.to_string())?;
    for i in 0..doc.root.animations.len() {
        import::facts(&doc, i).map_err(|e| e.to_string())?;
    }
    super::gltf_back::compare(path, &doc).map_err(|e| e.to_string())
}

/// [`check`]'s result as `verify` prints it.
pub(super) fn print_check(path: &Path, c: &Result<Vec<super::json::GltfAnimationCheck>, String>) {
    match c {
        Ok(lines) => {
            println!("ok       {TAG:<12} {}", path.display());
            for l in lines {
                println!("  {}", l.text);
            }
        }
        Err(e) => println!("error    {TAG:<12} {}: {e}", path.display()),
    }
}

/// What importing a glTF file's animation into a MAN changes (`diff` of a glTF file and a
/// MAN, either order): the MAN before and after, the MDH's node names, the animation's name,
/// the MAN's path and the glTF file's.
pub(super) struct GltfDiff {
    pub before: Man,
    pub after: Man,
    names: Vec<crate::exact::text::Text>,
    pub animation: String,
    pub man: PathBuf,
    pub gltf: PathBuf,
}

impl GltfDiff {
    /// The changes, the MAN's nodes named by the MDH.
    pub fn changes(&self) -> crate::registry::Diff {
        self.before.diff_named(&self.after, Some(&self.names))
    }
    /// The MAN's YAML before and after.
    pub fn yaml(&self) -> Result<(String, String), Error> {
        use crate::codec::Codec;
        let y = |m: &Man| {
            m.to_yaml(&Default::default())
                .map_err(Error::encoding(&self.man))
        };
        Ok((y(&self.before)?, y(&self.after)?))
    }
}

/// What `diff` of a glTF file compares: the MAN it goes back into.
pub(super) const DIFF_TAG: &str = "zengin.man";

/// [`GltfDiff`] of `a` and `b` (one a glTF file, the other a MAN): the file's animation (the
/// one named like the MAN, or the only one) imported into the MAN.
pub(super) fn diff(a: &Path, b: &Path) -> Result<GltfDiff, Error> {
    let (glb, man) = if is_gltf(a) { (a, b) } else { (b, a) };
    if is_gltf(man) {
        return Err(Error::other(
            man,
            "diff compares a glTF file with a MAN (what importing it would change); for two glTF files compare each with the MAN",
        ));
    }
    let doc = super::gltf_files::read_document(glb)?;
    let (before, after, report, mdh) =
        super::gltf_files::import_one(glb, &doc, man, None, None, &Default::default())?;
    for w in &report.warnings {
        crate::convert::warn_plain(w);
    }
    Ok(GltfDiff {
        before,
        after,
        names: mdh.node_names(),
        animation: report.animation,
        man: man.to_path_buf(),
        gltf: glb.to_path_buf(),
    })
}
