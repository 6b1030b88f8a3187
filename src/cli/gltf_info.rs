//! `info`, `verify` and `diff` of glTF files (an interchange format, not a registered one):
//! a summary, the file checked as `gltf import` reads it and against the MANs it came from,
//! and what it changes in a MAN.

use super::Status;
use crate::exact::Error;
use crate::zengin::gltf::import;
use crate::zengin::gltf::origin::Origin;
use std::path::{Path, PathBuf};

/// A `.glb` or `.gltf` path (any case).
pub(super) fn is_gltf(path: &Path) -> bool {
    crate::zengin::gltf::container_for(path).is_some()
}

/// `info` of glTF files.
pub(super) fn info(files: &[PathBuf]) -> Result<Status, Error> {
    for path in files {
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
                    o.source.as_deref().map_or(String::new(), |s| format!("{s}: ")),
                    o.mdh
                );
                for a in &o.animations {
                    println!("    {} ← {} ({} fps)", a.name, a.man, a.fps);
                }
            }
            None => println!("  exported from: not recorded (the way back finds the MANs by the animation names)"),
        }
    }
    Ok(Status::Ok)
}

/// `verify` of glTF files: each reads as `gltf import` reads it, and each animation imported
/// into the MAN it came from (recorded, or found by name) is reported unchanged (the MAN's
/// bytes) or with the samples it changes. A file that does not read, or that matches no MAN,
/// fails.
pub(super) fn verify(files: &[PathBuf]) -> Result<Status, Error> {
    let mut status = Status::Ok;
    for path in files {
        let doc = match super::gltf_files::read_document(path) {
            Ok(d) => d,
            Err(e) => {
                println!("error    gltf         {}: {e}", path.display());
                status = Status::Failed;
                continue;
            }
        };
        let mut bad = None;
        for i in 0..doc.root.animations.len() {
            if let Err(e) = import::facts(&doc, i) {
                bad = Some(e.to_string());
                break;
            }
        }
        if let Some(e) = bad {
            println!("error    gltf         {}: {e}", path.display());
            status = Status::Failed;
            continue;
        }
        match super::gltf_back::compare(path, &doc) {
            Ok(lines) => {
                println!("ok       gltf         {}", path.display());
                for l in lines {
                    println!("  {l}");
                }
            }
            Err(e) => {
                println!("error    gltf         {}: {e}", path.display());
                status = Status::Failed;
            }
        }
    }
    Ok(status)
}

/// `diff` of a glTF file and a MAN (either order): the file's animation (the one named like
/// the MAN, or the only one) imported into the MAN, and what that changes.
pub(super) fn diff(a: &Path, b: &Path) -> Result<Status, Error> {
    let (glb, man) = if is_gltf(a) { (a, b) } else { (b, a) };
    if is_gltf(man) {
        return Err(Error::other(
            man,
            "diff compares a glTF file with a MAN (what importing it would change); for two glTF files compare each with the MAN",
        ));
    }
    let doc = super::gltf_files::read_document(glb)?;
    let (orig, out, report) =
        super::gltf_files::import_one(glb, &doc, man, None, None, &Default::default())?;
    for w in &report.warnings {
        crate::convert::warn_plain(w);
    }
    let changes = crate::codec::Codec::diff(&orig, &out);
    if changes.is_empty() {
        println!(
            "no differences: {} is the motion of {}",
            report.animation,
            man.display()
        );
        return Ok(Status::Ok);
    }
    for c in &changes {
        println!("{c}");
    }
    Ok(Status::Failed)
}
