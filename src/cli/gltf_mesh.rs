//! `gltf export`'s character flags (`--mesh`, `--head`, `--textures`): finding the meshes and
//! textures (files, or by name in the model's archive or folder) and handing them to
//! [`crate::zengin::gltf::mesh`].

use super::gltf_files::Source;
use crate::exact::Error;
use crate::registry::{self, Codec};
use crate::zengin::gltf::mesh::{Bind, Character, Part};
use crate::zengin::gltf::Skeleton;
use crate::zengin::mdl::Mdl;
use crate::zengin::mdm::Mdm;
use crate::zengin::mesh::model::{ModelMesh, MorphMesh};
use crate::zengin::mmb::Mmb;
use crate::zengin::tex::Tex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The character's meshes and textures.
#[derive(clap::Args, Default)]
pub struct MeshArgs {
    /// The body: a model mesh (.MDM, or an .MDL) file, or its name in the archive or folder
    /// given as input (`HUM_BODY_NAKED0`). Its soft-skin meshes are skinned to the MDH's
    /// bones, its node-attached meshes hang on their nodes. With --model and no --mesh, the
    /// model's own NAME.MDM is taken when the archive or folder has one.
    #[arg(long, value_name = "BODY.MDM|NAME")]
    pub mesh: Option<String>,
    /// A head: a morph mesh (.MMB) file or its name in the archive or folder, attached to
    /// the head node (--head-node).
    #[arg(long, value_name = "HEAD.MMB|NAME")]
    pub head: Option<String>,
    /// The node the head hangs on.
    #[arg(long, default_value = "BIP01 HEAD", value_name = "NODE")]
    pub head_node: String,
    /// Where the compiled textures (NAME-C.TEX) are: a folder or an archive (Textures.vdf).
    /// Each material's texture is decoded and embedded as PNG; without it, materials have no
    /// images.
    #[arg(long, value_name = "DIR|Textures.vdf")]
    pub textures: Option<PathBuf>,
}

/// The decoded meshes, owned (the [`Character`] borrows them).
pub struct Loaded {
    body: Option<(String, ModelMesh)>,
    head: Option<(String, MorphMesh)>,
    head_node: String,
    textures: HashMap<String, Vec<u8>>,
}

fn base(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The files or members of `source` (a folder or an archive) whose base name `want` accepts,
/// with their bytes (only those are read).
fn find_in(source: &Path, want: &dyn Fn(&str) -> bool) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut out = Vec::new();
    if source.is_dir() {
        for e in walkdir::WalkDir::new(source).sort_by_file_name() {
            let e = e.map_err(|err| Error::other(source, err.to_string()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_file() && want(&name) {
                out.push((
                    e.path().display().to_string(),
                    crate::fsio::read_file(e.path())?,
                ));
            }
        }
        return Ok(out);
    }
    let data = crate::fsio::map_file(source)?;
    let Some(container) = registry::detect(&data).and_then(|f| f.container()) else {
        return Err(Error::other(
            source,
            "not a folder or an archive (such as a .VDF)",
        ));
    };
    let archive = container.open(&data).map_err(Error::decoding(source))?;
    let mut members = archive.members().map_err(Error::decoding(source))?;
    members.sort_by_path(&*archive);
    for id in members.iter() {
        let name = &archive.name(id)[..];
        if want(base(name)) {
            let bytes = archive
                .read(id)
                .map_err(|why| Error::other(source, format!("{name}: {why}")))?;
            out.push((
                registry::member_path(source, name).display().to_string(),
                bytes.into_owned(),
            ));
        }
    }
    Ok(out)
}

/// [`find_in`] of the archive or folder given as input (opened once for the whole command).
fn find_in_source(
    src: &Source<'_>,
    want: &dyn Fn(&str) -> bool,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    if src.path.is_dir() {
        return find_in(src.path, want);
    }
    let mut out = Vec::new();
    src.each_archive_member(
        |name| want(base(name)),
        |name, bytes| {
            out.push((
                registry::member_path(src.path, name).display().to_string(),
                bytes.to_vec(),
            ));
            Ok(())
        },
    )?;
    Ok(out)
}

/// A file given by path, or `NAME[.EXT]` found in `source`.
fn locate(
    what: &str,
    value: &str,
    exts: &[&str],
    src: Option<&Source<'_>>,
) -> Result<Option<(String, Vec<u8>)>, Error> {
    let p = Path::new(value);
    if p.is_file() {
        return Ok(Some((value.to_string(), crate::fsio::read_file(p)?)));
    }
    let Some(src) = src else {
        return Err(Error::other(
            p,
            format!("no such {what} file (a name is looked up only in an archive or folder given as input)"),
        ));
    };
    let names: Vec<String> = exts
        .iter()
        .map(|e| format!("{value}.{e}"))
        .chain(std::iter::once(value.to_string()))
        .collect();
    let mut hits = find_in_source(src, &|n| names.iter().any(|w| n.eq_ignore_ascii_case(w)))?;
    Ok((!hits.is_empty()).then(|| hits.swap_remove(0)))
}

fn decode_body(label: &str, data: &[u8]) -> Result<ModelMesh, Error> {
    let path = Path::new(label);
    if Mdm::detect(data) {
        return Mdm::decode(data)
            .map(|m| m.mesh)
            .map_err(Error::decoding(path));
    }
    if Mdl::detect(data) {
        return Mdl::decode(data)
            .map(|m| m.mesh)
            .map_err(Error::decoding(path));
    }
    Err(Error::other(
        path,
        "not a ZenGin model mesh (.MDM) or model (.MDL)",
    ))
}

/// Read what the flags name. `source` is the archive or folder given as input, `model` the
/// `--model` name.
pub(super) fn load(
    a: &MeshArgs,
    src: Option<&Source<'_>>,
    model: Option<&str>,
) -> Result<Option<Loaded>, Error> {
    let source = src.map(|s| s.path);
    let body = match (&a.mesh, model, source) {
        (Some(m), _, _) => {
            let (label, data) = locate("mesh", m, &["MDM", "MDL"], src)?.ok_or_else(|| {
                Error::other(source.unwrap_or(Path::new(m)), format!("no {m}.MDM in it"))
            })?;
            Some((label.clone(), decode_body(&label, &data)?))
        }
        (None, Some(name), Some(_)) => match locate("mesh", name, &["MDM"], src)? {
            Some((label, data)) if Mdm::detect(&data) => {
                Some((label.clone(), decode_body(&label, &data)?))
            }
            _ => None,
        },
        _ => None,
    };
    let head = match &a.head {
        Some(h) => {
            let (label, data) = locate("head", h, &["MMB"], src)?.ok_or_else(|| {
                Error::other(source.unwrap_or(Path::new(h)), format!("no {h}.MMB in it"))
            })?;
            if !Mmb::detect(&data) {
                return Err(Error::other(&label, "not a ZenGin morph mesh (.MMB)"));
            }
            let m = Mmb::decode(&data).map_err(Error::decoding(Path::new(&label)))?;
            Some((label, m.morph))
        }
        None => None,
    };
    if body.is_none() && head.is_none() {
        if a.textures.is_some() {
            return Err(Error::other(
                a.textures.as_deref().unwrap_or(Path::new("")),
                "--textures needs a mesh (--mesh or --head)",
            ));
        }
        return Ok(None);
    }
    // the textures the materials name, as `NAME-C.TEX`
    let mut wanted: HashMap<String, String> = HashMap::new();
    let meshes = body
        .iter()
        .flat_map(|(_, b)| {
            b.softskins
                .iter()
                .map(|s| &s.mesh)
                .chain(b.attachments.iter().map(|(_, m)| m))
        })
        .chain(head.iter().filter_map(|(_, h)| h.mesh.as_ref()));
    for m in meshes {
        for s in &m.submeshes {
            if let Some(t) = &s.texture {
                let upper = t.to_ascii_uppercase();
                let stem = upper.rsplit_once('.').map_or(upper.as_str(), |(s, _)| s);
                wanted.insert(format!("{stem}-C.TEX"), upper.clone());
            }
        }
    }
    let mut textures = HashMap::new();
    if let Some(dir) = &a.textures {
        let found = find_in(dir, &|n| wanted.contains_key(&n.to_ascii_uppercase()))?;
        for (label, data) in found {
            let key = &wanted[&base(&label).to_ascii_uppercase()];
            if textures.contains_key(key) {
                continue;
            }
            let tex = Tex::decode(&data).map_err(Error::decoding(Path::new(&label)))?;
            let png = tex.png().map_err(|e| Error::other(Path::new(&label), e))?;
            textures.insert(key.clone(), png);
        }
    }
    Ok(Some(Loaded {
        body,
        head,
        head_node: a.head_node.clone(),
        textures,
    }))
}

fn node_named(sk: &Skeleton, name: &str) -> Option<usize> {
    sk.names.iter().position(|n| n.eq_ignore_ascii_case(name))
}

impl Loaded {
    /// The character on skeleton `sk`: every mesh with how it follows the bones.
    pub fn character(&self, sk: &Skeleton) -> Result<Character<'_>, Error> {
        let mut parts = Vec::new();
        if let Some((label, b)) = &self.body {
            let stem = Path::new(label)
                .file_stem()
                .map_or("MESH".into(), |s| s.to_string_lossy().into_owned());
            for (i, s) in b.softskins.iter().enumerate() {
                parts.push(Part {
                    name: if b.softskins.len() == 1 {
                        stem.clone()
                    } else {
                        format!("{stem}.{i}")
                    },
                    mesh: &s.mesh,
                    bind: Bind::Skin(s),
                });
            }
            for (node, m) in &b.attachments {
                let j = node_named(sk, node).ok_or_else(|| {
                    Error::other(
                        Path::new(label),
                        format!("the mesh hangs on node {node}, which the MDH does not have"),
                    )
                })?;
                parts.push(Part {
                    name: format!("{stem} {node}"),
                    mesh: m,
                    bind: Bind::Node(j),
                });
            }
        }
        if let Some((label, h)) = &self.head {
            if let Some(m) = &h.mesh {
                let j = node_named(sk, &self.head_node).ok_or_else(|| {
                    Error::other(
                        Path::new(label),
                        format!(
                            "the MDH has no node {} for the head (choose one with --head-node)",
                            self.head_node
                        ),
                    )
                })?;
                parts.push(Part {
                    name: if h.name.is_empty() {
                        "HEAD".into()
                    } else {
                        h.name.clone()
                    },
                    mesh: m,
                    bind: Bind::Node(j),
                });
            }
        }
        Ok(Character {
            parts,
            textures: self.textures.clone(),
        })
    }
}
