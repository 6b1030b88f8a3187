//! The MDH hierarchy as glTF sees it: names, parents, rest poses in glTF coordinates.

use super::coords::matrix_to_gltf;
use super::GltfError;
use crate::zengin::mdh::Mdh;
use glam::{DAffine3, DMat4, DQuat, DVec3};

/// A rest pose as written into the glTF file (f32 translation, rotation, scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

impl Trs {
    /// The matrix of these (f32) values, in f64.
    pub fn matrix(&self) -> DMat4 {
        trs_matrix(
            DVec3::from_array(self.translation.map(f64::from)),
            DQuat::from_array(self.rotation.map(f64::from)).normalize(),
            DVec3::from_array(self.scale.map(f64::from)),
        )
    }
    pub fn has_unit_scale(&self) -> bool {
        self.scale == [1.0; 3]
    }
}

pub fn trs_matrix(t: DVec3, r: DQuat, s: DVec3) -> DMat4 {
    DMat4::from_scale_rotation_translation(s, r, t)
}

/// The hierarchy of an MDH in glTF coordinates.
#[derive(Debug, Clone)]
pub struct Skeleton {
    /// Node names as Unicode (decoded from Windows-1252).
    pub names: Vec<String>,
    pub parents: Vec<Option<usize>>,
    pub rest: Vec<Trs>,
    /// World rest matrix of each node (from the f32 rest values as written), in metres.
    pub world: Vec<DMat4>,
    /// The stored node-list checksum.
    pub checksum: u32,
    /// The model's name (the skin's name in glTF: Blender names its armature after it).
    pub model: String,
}

impl Skeleton {
    pub fn from_mdh(mdh: &Mdh) -> Result<Self, GltfError> {
        let h = mdh
            .hierarchy()
            .ok_or_else(|| GltfError::new("the MDH has no hierarchy chunk (0xD100)"))?;
        let n = h.nodes.len();
        let mut names = Vec::with_capacity(n);
        let mut parents = Vec::with_capacity(n);
        let mut rest = Vec::with_capacity(n);
        for (i, node) in h.nodes.iter().enumerate() {
            names.push(node.name.to_unicode().into_owned());
            let parent = match usize::try_from(node.parent) {
                Err(_) => None,
                Ok(p) if p < n && p != i => Some(p),
                Ok(p) => {
                    return Err(GltfError::new(format!(
                        "MDH hierarchy.nodes[{i}] ({}): parent {p} is not another node of the {n}",
                        names[i]
                    )))
                }
            };
            parents.push(parent);
            let rows = node.transform.0.map(|r| r.map(|v| v.get()));
            if rows.iter().flatten().any(|v| !v.is_finite()) {
                return Err(GltfError::new(format!(
                    "MDH hierarchy.nodes[{i}] ({}): the transform holds a value that is not a finite number",
                    names[i]
                )));
            }
            let (s, r, t) = matrix_to_gltf(rows).to_scale_rotation_translation();
            let r = r.normalize();
            let near_one = |v: f64| (v - 1.0).abs() < 1e-6;
            let scale = if near_one(s.x) && near_one(s.y) && near_one(s.z) {
                [1.0; 3]
            } else {
                s.to_array().map(|v| v as f32)
            };
            let mut rot = r.to_array().map(|v| v as f32);
            if rot[3] < 0.0 {
                rot = rot.map(|v| -v);
            }
            rest.push(Trs {
                translation: t.to_array().map(|v| v as f32),
                rotation: rot,
                scale,
            });
        }
        // Parents must lead to a root (no cycles).
        if let Some(start) = first_cycle(&parents) {
            return Err(GltfError::new(format!(
                "MDH hierarchy.nodes[{start}] ({}): its parents form a cycle",
                names[start]
            )));
        }
        let mut world: Vec<Option<DMat4>> = vec![None; n];
        for i in 0..n {
            let mut chain = vec![i];
            while let Some(p) = parents[*chain.last().unwrap_or(&i)] {
                if world[p].is_some() {
                    break;
                }
                chain.push(p);
            }
            for &k in chain.iter().rev() {
                let local = rest[k].matrix();
                world[k] = Some(match parents[k] {
                    Some(p) => world[p].unwrap_or(DMat4::IDENTITY) * local,
                    None => local,
                });
            }
        }
        Ok(Skeleton {
            names,
            parents,
            rest,
            world: world
                .into_iter()
                .map(|w| w.unwrap_or(DMat4::IDENTITY))
                .collect(),
            checksum: h.checksum.0,
            model: "MDH".into(),
        })
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    pub fn roots(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| self.parents[i].is_none())
            .collect()
    }
    pub fn children(&self, i: usize) -> Vec<usize> {
        (0..self.len())
            .filter(|&k| self.parents[k] == Some(i))
            .collect()
    }
    /// Inverse bind matrix of node `i` (column-major), with an exact (0, 0, 0, 1) last row.
    pub fn inverse_bind(&self, i: usize) -> [f32; 16] {
        let a = DAffine3::from_mat4(self.world[i]).inverse();
        DMat4::from(a).to_cols_array().map(|v| v as f32)
    }
}

/// The first node whose parents form a cycle (each node has at most one parent). Each chain
/// of parents is walked once, so this is linear in the node count however deep the chains
/// are: a node already known to reach a root ends a walk; one met again on this walk is a
/// cycle.
pub(super) fn first_cycle(parents: &[Option<usize>]) -> Option<usize> {
    const OPEN: u8 = 1;
    const ROOTED: u8 = 2;
    let mut state = vec![0u8; parents.len()];
    let mut walk = Vec::new();
    for start in 0..parents.len() {
        let mut at = start;
        while state[at] == 0 {
            state[at] = OPEN;
            walk.push(at);
            match parents[at] {
                Some(p) if p < parents.len() => at = p,
                _ => break,
            }
        }
        if state[at] == OPEN && parents[at].is_some() {
            return Some(start);
        }
        for w in walk.drain(..) {
            state[w] = ROOTED;
        }
    }
    None
}
