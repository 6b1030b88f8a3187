//! MDH + MANs → glTF: a node per MDH node (rest pose from the MDH), a skin whose joints are
//! those nodes, and one animation per MAN with a rotation and a translation channel for each
//! node it animates, one key per frame.

use super::coords::{position_to_gltf, rotation_to_gltf};
use super::skeleton::Skeleton;
use super::{glb, GltfError};
use crate::zengin::man::Man;
use crate::zengin::quant;
use base64::Engine as _;
use gltf_json as json;
use json::validation::{Checked, USize64};
use rayon::prelude::*;

/// `.glb` (binary) or `.gltf` (JSON with the buffer embedded as a data URI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Glb,
    Gltf,
}

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct ExportReport {
    pub nodes: usize,
    /// Meshes written (the character's).
    pub meshes: usize,
    pub animations: Vec<String>,
    pub warnings: Vec<String>,
}

/// One animation to export: a label for messages (its file name) and the MAN.
pub struct Animation<'a> {
    pub label: String,
    pub man: &'a Man,
}

fn accessor(
    view: usize,
    offset: usize,
    count: usize,
    type_: json::accessor::Type,
    min_max: Option<(f32, f32)>,
) -> json::Accessor {
    json::Accessor {
        buffer_view: Some(json::Index::new(view as u32)),
        byte_offset: Some(USize64(offset as u64)),
        count: USize64(count as u64),
        component_type: Checked::Valid(json::accessor::GenericComponentType(
            json::accessor::ComponentType::F32,
        )),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min: min_max.map(|(a, _)| serde_json::json!([a])),
        max: min_max.map(|(_, b)| serde_json::json!([b])),
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// Where one MAN's data goes: checked before anything is built.
struct Plan<'a> {
    name: String,
    man: &'a Man,
    frames: usize,
    fps: f32,
    /// (column in the MAN, skeleton node)
    columns: Vec<(usize, usize)>,
}

fn plan<'a>(sk: &Skeleton, a: &Animation<'a>) -> Result<Option<Plan<'a>>, GltfError> {
    let err = |m: String| GltfError::new(format!("{}: {m}", a.label));
    let h = a
        .man
        .header()
        .ok_or_else(|| err("the MAN has no header chunk (0xA020)".into()))?;
    let Some(s) = a.man.samples() else {
        return Ok(None);
    };
    let frames = s.frame_count();
    if frames == 0 || s.node_indices.is_empty() {
        return Ok(None);
    }
    let fps = h.fps.get();
    if !(fps.is_finite() && fps > 0.0) {
        return Err(err(format!(
            "header.fps is {fps}: the frames cannot be placed in time (fix it with `animkit export`/`import` first)"
        )));
    }
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    if !(min.is_finite() && quant::unpack_position(65535, min, scale).is_finite()) {
        return Err(err(format!(
            "header.position_min {min} / position_scale {scale} do not decode to finite positions; fix them with `animkit export`/`import --requantize` first"
        )));
    }
    let mut seen = vec![usize::MAX; sk.len()];
    let mut columns = Vec::with_capacity(s.node_indices.len());
    for (k, &idx) in s.node_indices.iter().enumerate() {
        let node = idx as usize;
        if node >= sk.len() {
            return Err(err(format!(
                "samples.node_indices[{k}] = {idx}: the MDH has only {} nodes",
                sk.len()
            )));
        }
        if seen[node] != usize::MAX {
            return Err(err(format!(
                "samples.node_indices[{k}] and [{}] both name node {idx} ({}); a glTF animation can drive a node once",
                seen[node], sk.names[node]
            )));
        }
        seen[node] = k;
        columns.push((k, node));
    }
    Ok(Some(Plan {
        name: h.name.to_unicode().into_owned(),
        man: a.man,
        frames,
        fps,
        columns,
    }))
}

/// Build the glTF file.
pub fn export(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    container: Container,
) -> Result<(Vec<u8>, ExportReport), GltfError> {
    export_with(sk, anims, None, container)
}

/// Build the glTF file, with the character's meshes when given.
pub fn export_with(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
) -> Result<(Vec<u8>, ExportReport), GltfError> {
    export_with_origin(sk, anims, character, container, None)
}

/// [`export_with`], recording where the model came from in `asset.extras` (see
/// [`super::origin`]).
pub fn export_with_origin(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
    origin: Option<&super::origin::Origin>,
) -> Result<(Vec<u8>, ExportReport), GltfError> {
    let mut out = Vec::new();
    let (_, report) = export_with_origin_to(sk, anims, character, container, origin, &mut out)?;
    Ok((out, report))
}

/// [`export_with_origin`] written into `w` (a GLB's binary buffer is written as it is, not
/// copied behind the JSON first); returns the file's size and the report. An error of `w`
/// is a [`GltfError`] naming it.
pub fn export_with_origin_to(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
    origin: Option<&super::origin::Origin>,
    w: &mut dyn std::io::Write,
) -> Result<(usize, ExportReport), GltfError> {
    let mut report = ExportReport {
        nodes: sk.len(),
        ..Default::default()
    };
    if sk.is_empty() {
        return Err(GltfError::new("the MDH has no nodes"));
    }
    let mut plans = Vec::new();
    for a in anims {
        match plan(sk, a)? {
            Some(p) => plans.push(p),
            None => report
                .warnings
                .push(format!("{}: no frames or no nodes; not exported", a.label)),
        }
    }

    // A file of no animation would be refused by `gltf import` (the way back): not written.
    if plans.is_empty() && !anims.is_empty() {
        let labels: Vec<&str> = anims.iter().map(|a| a.label.as_str()).collect();
        return Err(GltfError::new(format!(
            "{}: no frames or no nodes: no animation to export, and a glTF file without \
             animations would not go back in with `gltf import`; leave {} out (the skeleton, \
             or a mesh with --mesh, exports without MANs)",
            labels.join(", "),
            if labels.len() == 1 { "it" } else { "them" },
        )));
    }
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("animkit {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".into(),
            extras: origin.and_then(|o| o.to_extras()),
            ..Default::default()
        },
        ..Default::default()
    };
    push_nodes(&mut root, sk);

    // The binary buffer: inverse bind matrices, then every animation's key times, then the
    // outputs, node by node (rotations then translations).
    let ibm_len = sk.len() * 64;
    let times_len: usize = plans.iter().map(|p| p.frames * 4).sum();
    let out_len: usize = plans.iter().map(|p| p.columns.len() * p.frames * 28).sum();
    let total = ibm_len + times_len + out_len;
    if total > u32::MAX as usize - 64 {
        return Err(GltfError::new(format!(
            "the animations need {total} bytes of key data; a glTF buffer holds at most 4 GiB"
        )));
    }
    let mut bin = vec![0u8; total];
    push_skin(&mut root, sk, &mut bin[..ibm_len]);
    if !plans.is_empty() {
        let (times_bin, out_bin) = bin[ibm_len..].split_at_mut(times_len);
        push_animations(&mut root, &plans, (ibm_len, times_bin, out_bin));
        report.animations = plans.iter().map(|p| p.name.clone()).collect();
    }
    if let Some(ch) = character {
        report
            .warnings
            .extend(super::mesh::push_character(&mut root, sk, ch, &mut bin)?);
        report.meshes = root.meshes.len();
    }
    Ok((serialize(root, bin, container, w)?, report))
}

/// The MDH's nodes, in MDH order, and the scene; several roots get a common parent (a skin's
/// joints need one).
fn push_nodes(root: &mut json::Root, sk: &Skeleton) {
    for i in 0..sk.len() {
        let r = &sk.rest[i];
        let children = sk.children(i);
        root.nodes.push(json::Node {
            name: Some(sk.names[i].clone()),
            translation: (r.translation != [0.0; 3]).then_some(r.translation),
            rotation: (r.rotation != [0.0, 0.0, 0.0, 1.0])
                .then_some(json::scene::UnitQuaternion(r.rotation)),
            scale: (!r.has_unit_scale()).then_some(r.scale),
            children: (!children.is_empty()).then(|| {
                children
                    .into_iter()
                    .map(|c| json::Index::new(c as u32))
                    .collect()
            }),
            ..Default::default()
        });
    }
    let roots = sk.roots();
    let scene_roots: Vec<json::Index<json::Node>> = if roots.len() == 1 {
        vec![json::Index::new(roots[0] as u32)]
    } else {
        let top = root.nodes.len();
        root.nodes.push(json::Node {
            name: Some(sk.model.clone()),
            children: Some(roots.iter().map(|&r| json::Index::new(r as u32)).collect()),
            ..Default::default()
        });
        vec![json::Index::new(top as u32)]
    };
    root.scenes.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: None,
        nodes: scene_roots,
    });
    root.scene = Some(json::Index::new(0));
}

/// A buffer view of buffer 0; its index.
fn push_view(root: &mut json::Root, offset: usize, len: usize) -> usize {
    root.buffer_views.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64(len as u64),
        byte_offset: Some(USize64(offset as u64)),
        byte_stride: None,
        name: None,
        target: None,
        extensions: None,
        extras: Default::default(),
    });
    root.buffer_views.len() - 1
}

/// The skin: the inverse bind matrices (written into `ibm`, the start of the buffer) and the
/// joints.
fn push_skin(root: &mut json::Root, sk: &Skeleton, ibm: &mut [u8]) {
    let roots = sk.roots();
    for i in 0..sk.len() {
        for (k, v) in sk.inverse_bind(i).iter().enumerate() {
            let at = i * 64 + k * 4;
            ibm[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    let ibm_view = push_view(root, 0, ibm.len());
    root.accessors.push(accessor(
        ibm_view,
        0,
        sk.len(),
        json::accessor::Type::Mat4,
        None,
    ));
    root.skins.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(json::Index::new(0)),
        joints: (0..sk.len()).map(|i| json::Index::new(i as u32)).collect(),
        name: Some(sk.model.clone()),
        skeleton: (roots.len() == 1).then(|| json::Index::new(roots[0] as u32)),
    });
}

/// One glTF animation per plan: key times into `times_bin`, the outputs (filled on all cores)
/// into `out_bin`, which follow each other at buffer offset `start`.
fn push_animations(
    root: &mut json::Root,
    plans: &[Plan<'_>],
    (start, times_bin, out_bin): (usize, &mut [u8], &mut [u8]),
) {
    let times_view = push_view(root, start, times_bin.len());
    let out_view = push_view(root, start + times_bin.len(), out_bin.len());
    let mut t_at = 0;
    let mut o_at = 0;
    // Every node's output block, to be filled on all cores.
    let mut jobs: Vec<(&Plan<'_>, usize, &mut [u8])> = Vec::new();
    let mut rest_out: &mut [u8] = out_bin;
    for p in plans {
        let input = root.accessors.len();
        for f in 0..p.frames {
            let t = (f as f64 / p.fps as f64) as f32;
            times_bin[t_at + f * 4..t_at + f * 4 + 4].copy_from_slice(&t.to_le_bytes());
        }
        let last = ((p.frames - 1) as f64 / p.fps as f64) as f32;
        root.accessors.push(accessor(
            times_view,
            t_at,
            p.frames,
            json::accessor::Type::Scalar,
            Some((0.0, last)),
        ));
        t_at += p.frames * 4;
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for &(k, node) in &p.columns {
            let rot_acc = root.accessors.len();
            root.accessors.push(accessor(
                out_view,
                o_at,
                p.frames,
                json::accessor::Type::Vec4,
                None,
            ));
            root.accessors.push(accessor(
                out_view,
                o_at + p.frames * 16,
                p.frames,
                json::accessor::Type::Vec3,
                None,
            ));
            o_at += p.frames * 28;
            let (block, rest) = std::mem::take(&mut rest_out).split_at_mut(p.frames * 28);
            rest_out = rest;
            jobs.push((p, k, block));
            for (path, acc) in [
                (json::animation::Property::Rotation, rot_acc),
                (json::animation::Property::Translation, rot_acc + 1),
            ] {
                channels.push(json::animation::Channel {
                    sampler: json::Index::new(samplers.len() as u32),
                    target: json::animation::Target {
                        extensions: None,
                        extras: Default::default(),
                        node: json::Index::new(node as u32),
                        path: Checked::Valid(path),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
                samplers.push(json::animation::Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input: json::Index::new(input as u32),
                    interpolation: Checked::Valid(json::animation::Interpolation::Linear),
                    output: json::Index::new(acc as u32),
                });
            }
        }
        root.animations.push(json::Animation {
            extensions: None,
            extras: Default::default(),
            channels,
            name: Some(p.name.clone()),
            samplers,
        });
    }
    jobs.into_par_iter()
        .for_each(|(p, k, block)| fill_node(p, k, block));
}

/// The file: GLB (JSON and binary chunk), or glTF JSON with the buffer as a data URI.
fn serialize(
    mut root: json::Root,
    bin: Vec<u8>,
    container: Container,
    w: &mut dyn std::io::Write,
) -> Result<usize, GltfError> {
    let write_err = |e: std::io::Error| GltfError::new(format!("cannot write the file: {e}"));
    root.buffers.push(json::Buffer {
        byte_length: USize64(bin.len() as u64),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let out = match container {
        Container::Glb => {
            let text = root
                .to_vec()
                .map_err(|e| GltfError::new(format!("cannot write the glTF JSON: {e}")))?;
            glb::write_to(w, &text, &bin).map_err(write_err)?
        }
        Container::Gltf => {
            let mut uri = String::with_capacity(bin.len() * 4 / 3 + 64);
            uri.push_str("data:application/octet-stream;base64,");
            base64::engine::general_purpose::STANDARD.encode_string(&bin, &mut uri);
            drop(bin);
            root.buffers[0].uri = Some(uri);
            let text = root
                .to_vec_pretty()
                .map_err(|e| GltfError::new(format!("cannot write the glTF JSON: {e}")))?;
            w.write_all(&text).map_err(write_err)?;
            text.len()
        }
    };
    Ok(out)
}

/// Decode column `k` of a MAN into its rotation (VEC4) and translation (VEC3) outputs.
fn fill_node(p: &Plan<'_>, k: usize, block: &mut [u8]) {
    let (Some(h), Some(s)) = (p.man.header(), p.man.samples()) else {
        return;
    };
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    let n = s.node_indices.len();
    let (rot, pos) = block.split_at_mut(p.frames * 16);
    for f in 0..p.frames {
        let c = &s.codes[f * n + k];
        let q = rotation_to_gltf(quant::engine_rotation([c[0], c[1], c[2]]).to_array());
        for (i, v) in q.iter().enumerate() {
            rot[f * 16 + i * 4..f * 16 + i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let t = position_to_gltf([
            quant::unpack_position(c[3], min, scale),
            quant::unpack_position(c[4], min, scale),
            quant::unpack_position(c[5], min, scale),
        ]);
        for (i, v) in t.iter().enumerate() {
            pos[f * 12 + i * 4..f * 12 + i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}
