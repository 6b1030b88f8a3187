//! A character's meshes in the glTF file: soft-skin meshes skinned to the MDH skeleton (joints
//! and weights, bind pose from the MDH's rest pose), node-attached meshes and the head as
//! children of their nodes, and materials with their textures as PNG images.
//!
//! A soft-skin vertex is stored as one position per bone in that bone's space; its bind-pose
//! position is `Σ weight · (rest world matrix of the bone · position)`, so with the skin's
//! inverse bind matrices (the rest world matrices' inverses) the engine's and glTF's skinning
//! agree. Every ZenGin vector goes through [`super::coords`] (x mirrored, cm → m). glTF allows
//! four influences per vertex: the four largest are kept and scaled to sum to 1.

use super::coords::position_to_gltf;
use super::skeleton::Skeleton;
use super::GltfError;
use crate::exact::F32;
use crate::zengin::mesh::model::SoftSkin;
use crate::zengin::mesh::mrm::Mrm;
use glam::DVec3;
use gltf_json as json;
use json::validation::{Checked, USize64};
use std::collections::HashMap;

/// How a mesh follows the skeleton.
pub enum Bind<'a> {
    /// Skinned: each vertex by its weights.
    Skin(&'a SoftSkin),
    /// Rigid: in the space of this skeleton node.
    Node(usize),
}

/// One mesh of the character.
pub struct Part<'a> {
    pub name: String,
    pub mesh: &'a Mrm,
    pub bind: Bind<'a>,
}

/// Everything to add to the skeleton.
#[derive(Default)]
pub struct Character<'a> {
    pub parts: Vec<Part<'a>>,
    /// PNG images by texture name as the materials give it (upper case, e.g. `HUM_BODY.TGA`).
    pub textures: HashMap<String, Vec<u8>>,
}

/// Where the character's data starts when the file's accessors and buffer are not all in
/// `root` and `bin` (the streamed export keeps the animations' accessors and data out of
/// them): accessors before the first of `root.accessors` past the skin's (index 0), and
/// bytes before `bin`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Base {
    /// Accessors between the skin's (index 0) and `root.accessors[1]`.
    pub accessors: usize,
    /// Buffer bytes before `bin[0]` (a multiple of 4).
    pub bytes: usize,
}

/// Append `bytes` to the buffer (4-byte aligned) as a new buffer view; its index.
fn view(
    root: &mut json::Root,
    (bin, at): (&mut Vec<u8>, Base),
    bytes: &[u8],
    target: Option<json::buffer::Target>,
) -> u32 {
    while !(at.bytes + bin.len()).is_multiple_of(4) {
        bin.push(0);
    }
    let offset = at.bytes + bin.len();
    bin.extend_from_slice(bytes);
    root.buffer_views.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64(bytes.len() as u64),
        byte_offset: Some(USize64(offset as u64)),
        byte_stride: None,
        name: None,
        target: target.map(Checked::Valid),
        extensions: None,
        extras: Default::default(),
    });
    (root.buffer_views.len() - 1) as u32
}

fn accessor(
    (root, at): (&mut json::Root, Base),
    view: u32,
    count: usize,
    component: json::accessor::ComponentType,
    type_: json::accessor::Type,
    min_max: Option<(serde_json::Value, serde_json::Value)>,
) -> json::Index<json::Accessor> {
    let (min, max) = match min_max {
        Some((a, b)) => (Some(a), Some(b)),
        None => (None, None),
    };
    root.accessors.push(json::Accessor {
        buffer_view: Some(json::Index::new(view)),
        byte_offset: Some(USize64(0)),
        count: USize64(count as u64),
        component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    });
    json::Index::new((at.accessors + root.accessors.len() - 1) as u32)
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A unit normal in glTF coordinates (a zero or broken normal becomes +Y).
fn normal_to_gltf(n: [f32; 3]) -> [f32; 3] {
    let v = DVec3::new(-f64::from(n[0]), f64::from(n[1]), f64::from(n[2]));
    let len = v.length();
    if !(len.is_finite() && len > 1e-12) {
        return [0.0, 1.0, 0.0];
    }
    (v / len).to_array().map(|x| x as f32)
}

/// A skinned vertex: bind-pose position (glTF), four joints, their weights.
type SkinVertex = ([f32; 3], [u16; 4], [f32; 4]);

/// Bind-pose position (glTF) and up to four (joint, weight) of each vertex of a soft skin.
fn skin_vertices(sk: &Skeleton, skin: &SoftSkin, part: &str) -> Result<Vec<SkinVertex>, GltfError> {
    let mut out = Vec::with_capacity(skin.weights.len());
    for (v, ws) in skin.weights.iter().enumerate() {
        let mut pos = DVec3::ZERO;
        let mut infl: Vec<(u16, f64)> = Vec::with_capacity(ws.len());
        for (k, w) in ws.iter().enumerate() {
            let node = usize::from(w.node);
            if node >= sk.len() {
                return Err(GltfError::new(format!(
                    "{part}: weights[{v}][{k}] names node {node}, the MDH has {} nodes",
                    sk.len()
                )));
            }
            let local =
                DVec3::from_array(position_to_gltf(w.position.map(F32::get)).map(f64::from));
            let weight = f64::from(w.weight.get());
            if !weight.is_finite() || !local.is_finite() {
                return Err(GltfError::new(format!(
                    "{part}: weights[{v}][{k}] holds a value that is not a finite number"
                )));
            }
            pos += weight * sk.world[node].transform_point3(local);
            match infl.iter_mut().find(|(j, _)| usize::from(*j) == node) {
                Some((_, x)) => *x += weight,
                None => infl.push((node as u16, weight)),
            }
        }
        infl.retain(|(_, w)| *w > 0.0);
        infl.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        infl.truncate(4);
        let sum: f64 = infl.iter().map(|(_, w)| w).sum();
        if infl.is_empty() || sum <= 0.0 {
            return Err(GltfError::new(format!(
                "{part}: vertex {v} has no positive weight"
            )));
        }
        let mut joints = [0u16; 4];
        let mut weights = [0f32; 4];
        for (i, (j, w)) in infl.iter().enumerate() {
            joints[i] = *j;
            weights[i] = (w / sum) as f32;
        }
        // the stored sum is 1 within f32 rounding: put the rest on the largest weight
        let rest: f32 = 1.0 - weights.iter().sum::<f32>();
        weights[0] += rest;
        out.push((pos.to_array().map(|x| x as f32), joints, weights));
    }
    Ok(out)
}

/// Add the character's meshes, materials and textures to `root`, their data to `bin`; the
/// skeleton's nodes are `root.nodes[..sk.len()]` and its skin is skin 0.
pub fn push_character(
    root: &mut json::Root,
    sk: &Skeleton,
    ch: &Character<'_>,
    (bin, at): (&mut Vec<u8>, Base),
) -> Result<Vec<String>, GltfError> {
    use json::accessor::{ComponentType as C, Type as T};
    let mut warnings = Vec::new();
    let mut materials: HashMap<String, u32> = HashMap::new();
    let mut images: HashMap<String, u32> = HashMap::new();
    for part in &ch.parts {
        let mesh = part.mesh;
        let skinned = match &part.bind {
            Bind::Skin(s) => {
                if s.weights.len() != mesh.positions.len() {
                    return Err(GltfError::new(format!(
                        "{}: {} vertices but weights for {}",
                        part.name,
                        mesh.positions.len(),
                        s.weights.len()
                    )));
                }
                Some(skin_vertices(sk, s, &part.name)?)
            }
            Bind::Node(_) => None,
        };
        let mut primitives = Vec::new();
        for (si, sub) in mesh.submeshes.iter().enumerate() {
            if sub.triangles.is_empty() || sub.wedges.is_empty() {
                continue;
            }
            let n = sub.wedges.len();
            let mut pos = Vec::with_capacity(n * 3);
            let mut nrm = Vec::with_capacity(n * 3);
            let mut uv = Vec::with_capacity(n * 2);
            let mut joints: Vec<u8> = Vec::new();
            let mut weights = Vec::new();
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for (wi, w) in sub.wedges.iter().enumerate() {
                let v = usize::from(w.vertex);
                let p = match &skinned {
                    Some(sv) => sv.get(v).map(|x| x.0),
                    None => mesh.positions.get(v).map(|p| position_to_gltf(*p)),
                }
                .ok_or_else(|| {
                    GltfError::new(format!(
                        "{}: submeshes[{si}].wedges[{wi}] uses position {v} of {}",
                        part.name,
                        mesh.positions.len()
                    ))
                })?;
                if p.iter().any(|x| !x.is_finite()) || w.uv.iter().any(|x| !x.get().is_finite()) {
                    return Err(GltfError::new(format!(
                        "{}: submeshes[{si}].wedges[{wi}] holds a value that is not a finite number",
                        part.name
                    )));
                }
                for ((l, h), x) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
                    *l = l.min(x);
                    *h = h.max(x);
                }
                pos.extend_from_slice(&p);
                nrm.extend_from_slice(&normal_to_gltf(w.normal.map(F32::get)));
                uv.extend(w.uv.map(F32::get));
                if let Some(sv) = &skinned {
                    let (_, j, wt) = sv[v];
                    joints.extend(j.iter().flat_map(|x| x.to_le_bytes()));
                    weights.extend_from_slice(&wt);
                }
            }
            let mut idx: Vec<u8> = Vec::with_capacity(sub.triangles.len() * 6);
            for (ti, t) in sub.triangles.iter().enumerate() {
                for &k in &t.wedges {
                    if usize::from(k) >= n {
                        return Err(GltfError::new(format!(
                            "{}: submeshes[{si}].triangles[{ti}] uses wedge {k} of {n}",
                            part.name
                        )));
                    }
                    idx.extend_from_slice(&k.to_le_bytes());
                }
            }
            let array = Some(json::buffer::Target::ArrayBuffer);
            let mut attributes = std::collections::BTreeMap::new();
            let v = view(root, (bin, at), &floats(&pos), array);
            let a = accessor(
                (root, at),
                v,
                n,
                C::F32,
                T::Vec3,
                Some((serde_json::json!(lo), serde_json::json!(hi))),
            );
            attributes.insert(Checked::Valid(json::mesh::Semantic::Positions), a);
            let v = view(root, (bin, at), &floats(&nrm), array);
            let a = accessor((root, at), v, n, C::F32, T::Vec3, None);
            attributes.insert(Checked::Valid(json::mesh::Semantic::Normals), a);
            let (material, textured) = material(
                root,
                (bin, at),
                ch,
                sub.material.as_deref(),
                sub.texture.as_deref(),
                (&mut materials, &mut images),
                &mut warnings,
            );
            // texture coordinates only where an image uses them (else the validator calls
            // them unused)
            if textured {
                let v = view(root, (bin, at), &floats(&uv), array);
                let a = accessor((root, at), v, n, C::F32, T::Vec2, None);
                attributes.insert(Checked::Valid(json::mesh::Semantic::TexCoords(0)), a);
            }
            if skinned.is_some() {
                let v = view(root, (bin, at), &joints, array);
                let a = accessor((root, at), v, n, C::U16, T::Vec4, None);
                attributes.insert(Checked::Valid(json::mesh::Semantic::Joints(0)), a);
                let v = view(root, (bin, at), &floats(&weights), array);
                let a = accessor((root, at), v, n, C::F32, T::Vec4, None);
                attributes.insert(Checked::Valid(json::mesh::Semantic::Weights(0)), a);
            }
            let v = view(
                root,
                (bin, at),
                &idx,
                Some(json::buffer::Target::ElementArrayBuffer),
            );
            let indices = accessor(
                (root, at),
                v,
                sub.triangles.len() * 3,
                C::U16,
                T::Scalar,
                None,
            );
            primitives.push(json::mesh::Primitive {
                attributes,
                extensions: None,
                extras: Default::default(),
                indices: Some(indices),
                material: Some(json::Index::new(material)),
                mode: Checked::Valid(json::mesh::Mode::Triangles),
                targets: None,
            });
        }
        if primitives.is_empty() {
            warnings.push(format!("{}: no triangles; not exported", part.name));
            continue;
        }
        root.meshes.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(part.name.clone()),
            primitives,
            weights: None,
        });
        let mesh_index = json::Index::new((root.meshes.len() - 1) as u32);
        let node = root.nodes.len() as u32;
        match part.bind {
            Bind::Skin(_) => {
                root.nodes.push(json::Node {
                    name: Some(part.name.clone()),
                    mesh: Some(mesh_index),
                    skin: Some(json::Index::new(0)),
                    ..Default::default()
                });
                root.scenes[0].nodes.push(json::Index::new(node));
            }
            Bind::Node(j) => {
                root.nodes.push(json::Node {
                    name: Some(part.name.clone()),
                    mesh: Some(mesh_index),
                    ..Default::default()
                });
                root.nodes[j]
                    .children
                    .get_or_insert_with(Vec::new)
                    .push(json::Index::new(node));
            }
        }
    }
    Ok(warnings)
}

/// The material for a sub-mesh (one per texture or material name), with its texture when
/// the texture is among `ch.textures`.
fn material(
    root: &mut json::Root,
    (bin, at): (&mut Vec<u8>, Base),
    ch: &Character<'_>,
    name: Option<&str>,
    texture: Option<&str>,
    (materials, images): (&mut HashMap<String, u32>, &mut HashMap<String, u32>),
    warnings: &mut Vec<String>,
) -> (u32, bool) {
    let key = texture
        .map(|t| format!("tex:{}", t.to_ascii_uppercase()))
        .or_else(|| name.map(|n| format!("mat:{n}")))
        .unwrap_or_else(|| "none".into());
    if let Some(&m) = materials.get(&key) {
        let textured = root.materials[m as usize]
            .pbr_metallic_roughness
            .base_color_texture
            .is_some();
        return (m, textured);
    }
    let mut pbr = json::material::PbrMetallicRoughness {
        metallic_factor: json::material::StrengthFactor(0.0),
        ..Default::default()
    };
    if let Some(t) = texture {
        let upper = t.to_ascii_uppercase();
        match ch.textures.get(&upper) {
            Some(png) => {
                let tex = match images.get(&upper) {
                    Some(&i) => i,
                    None => {
                        if root.samplers.is_empty() {
                            root.samplers.push(json::texture::Sampler::default());
                        }
                        let v = view(root, (bin, at), png, None);
                        root.images.push(json::Image {
                            buffer_view: Some(json::Index::new(v)),
                            mime_type: Some(json::image::MimeType("image/png".into())),
                            name: Some(upper.clone()),
                            uri: None,
                            extensions: None,
                            extras: Default::default(),
                        });
                        root.textures.push(json::Texture {
                            name: Some(upper.clone()),
                            sampler: Some(json::Index::new(0)),
                            source: json::Index::new((root.images.len() - 1) as u32),
                            extensions: None,
                            extras: Default::default(),
                        });
                        let i = (root.textures.len() - 1) as u32;
                        images.insert(upper.clone(), i);
                        i
                    }
                };
                pbr.base_color_texture = Some(json::texture::Info {
                    index: json::Index::new(tex),
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                });
            }
            None => warnings.push(format!(
                "texture {upper}: not found; the material has no image"
            )),
        }
    }
    root.materials.push(json::Material {
        name: name.or(texture).map(str::to_string),
        pbr_metallic_roughness: pbr,
        ..Default::default()
    });
    let m = (root.materials.len() - 1) as u32;
    materials.insert(key, m);
    (
        m,
        root.materials[m as usize]
            .pbr_metallic_roughness
            .base_color_texture
            .is_some(),
    )
}
