//! Reading a glTF file: GLB or JSON, buffers from the GLB, data URIs or files beside it,
//! accessors checked against their buffer views. Every error names the JSON path.

use super::skeleton::trs_matrix;
use super::{glb, GltfError};
use base64::Engine as _;
use glam::{DMat4, DQuat, DVec3};
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::validation::{Checked, Validate};
use std::path::Path;

/// A parsed and checked glTF file with its buffers.
pub struct Document {
    pub root: json::Root,
    pub buffers: Vec<Vec<u8>>,
    /// Parent of each node (checked: at most one parent, no cycles).
    pub parents: Vec<Option<usize>>,
}

impl Document {
    /// Read `data` (the contents of a `.glb` or `.gltf` file); external buffers are looked up
    /// in `base_dir`.
    pub fn read(data: &[u8], base_dir: Option<&Path>) -> Result<Document, GltfError> {
        let (json_bytes, bin) = if glb::is_glb(data) {
            glb::split(data)?
        } else {
            (data, None)
        };
        let json_bytes = json_bytes
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(json_bytes);
        let root: json::Root = serde_json::from_slice(json_bytes).map_err(|e| {
            GltfError::new(format!(
                "not a valid glTF {}: {e}",
                if bin.is_some() || glb::is_glb(data) {
                    "JSON chunk"
                } else {
                    "file (neither GLB nor glTF JSON)"
                }
            ))
        })?;
        if !root.asset.version.starts_with("2.") {
            return Err(GltfError::at(
                "asset.version",
                format!("{:?}: only glTF 2 is read", root.asset.version),
            ));
        }
        let mut problems = Vec::new();
        root.validate(&root, json::Path::new, &mut |path, err| {
            problems.push(format!("{}: {err}", path().as_str()));
        });
        if !problems.is_empty() {
            let more = problems.len().saturating_sub(5);
            problems.truncate(5);
            let mut m = problems.join("; ");
            if more > 0 {
                m.push_str(&format!("; and {more} more"));
            }
            return Err(GltfError::new(format!("invalid glTF: {m}")));
        }
        let mut buffers = Vec::with_capacity(root.buffers.len());
        for (i, b) in root.buffers.iter().enumerate() {
            let path = format!("buffers[{i}]");
            let bytes = match &b.uri {
                None => match (i, bin) {
                    (0, Some(bin)) => bin.to_vec(),
                    _ => return Err(GltfError::at(
                        path,
                        "has no uri and there is no GLB binary chunk for it: the buffer is missing",
                    )),
                },
                Some(uri) if uri.starts_with("data:") => {
                    let (_, payload) = uri.split_once(";base64,").ok_or_else(|| {
                        GltfError::at(&path, "uri: a data URI must be base64 (`;base64,`)")
                    })?;
                    base64::engine::general_purpose::STANDARD
                        .decode(payload)
                        .map_err(|e| GltfError::at(&path, format!("uri: bad base64: {e}")))?
                }
                Some(_) => read_buffer_file(base_dir.unwrap_or(Path::new(".")), b)
                    .ok_or_else(|| GltfError::at(format!("{path}.uri"), BUFFER_URI_REFUSED))?,
            };
            if (bytes.len() as u64) < b.byte_length.0 {
                return Err(GltfError::at(
                    path,
                    format!(
                        "byteLength is {} but the data has only {} bytes",
                        b.byte_length.0,
                        bytes.len()
                    ),
                ));
            }
            buffers.push(bytes);
        }
        let parents = node_parents(&root)?;
        Ok(Document {
            root,
            buffers,
            parents,
        })
    }

    /// Local rest matrix of node `i` (its `matrix`, or its translation, rotation and scale).
    pub fn local(&self, i: usize) -> DMat4 {
        let n = &self.root.nodes[i];
        if let Some(m) = n.matrix {
            return DMat4::from_cols_array(&m.map(f64::from));
        }
        let (t, r, s) = self.rest_trs(i);
        trs_matrix(t, r, s)
    }

    /// Rest translation, rotation and scale of node `i` (decomposed from `matrix` if given).
    pub fn rest_trs(&self, i: usize) -> (DVec3, DQuat, DVec3) {
        let n = &self.root.nodes[i];
        if let Some(m) = n.matrix {
            let (s, r, t) =
                DMat4::from_cols_array(&m.map(f64::from)).to_scale_rotation_translation();
            return (t, r, s);
        }
        let t = n
            .translation
            .map_or(DVec3::ZERO, |t| DVec3::from_array(t.map(f64::from)));
        let r = n.rotation.as_ref().map_or(DQuat::IDENTITY, |q| {
            DQuat::from_array(q.0.map(f64::from)).normalize()
        });
        let s = n
            .scale
            .map_or(DVec3::ONE, |s| DVec3::from_array(s.map(f64::from)));
        (t, r, s)
    }

    /// World rest matrix of every node.
    pub fn world_rest(&self) -> Vec<DMat4> {
        let n = self.root.nodes.len();
        let mut world: Vec<Option<DMat4>> = vec![None; n];
        for i in 0..n {
            let mut chain = vec![i];
            while let Some(p) = self.parents[*chain.last().unwrap_or(&i)] {
                if world[p].is_some() {
                    break;
                }
                chain.push(p);
            }
            for &k in chain.iter().rev() {
                let local = self.local(k);
                world[k] = Some(match self.parents[k] {
                    Some(p) => world[p].unwrap_or(DMat4::IDENTITY) * local,
                    None => local,
                });
            }
        }
        world
            .into_iter()
            .map(|w| w.unwrap_or(DMat4::IDENTITY))
            .collect()
    }

    /// The floats of accessor `index`, `components` per element, checked: element type
    /// `want`, float (or, where `normalized_ok`, normalised integer) components, inside its
    /// buffer view, every value finite. `used_at` is the JSON path that refers to it.
    pub fn floats(
        &self,
        index: usize,
        want: Type,
        normalized_ok: bool,
        used_at: &str,
    ) -> Result<Vec<f32>, GltfError> {
        let at = format!("accessors[{index}] ({used_at})");
        let a =
            self.root.accessors.get(index).ok_or_else(|| {
                GltfError::at(used_at, format!("accessor {index} does not exist"))
            })?;
        let ty = match a.type_ {
            Checked::Valid(t) => t,
            Checked::Invalid => return Err(GltfError::at(&at, "type is invalid")),
        };
        if ty != want {
            return Err(GltfError::at(
                &at,
                format!("type is {}, this needs {}", type_name(ty), type_name(want)),
            ));
        }
        let ct = match a.component_type {
            Checked::Valid(c) => c.0,
            Checked::Invalid => return Err(GltfError::at(&at, "componentType is invalid")),
        };
        let int_ok = normalized_ok && a.normalized;
        let (size, conv): (usize, fn(&[u8]) -> f32) = match ct {
            ComponentType::F32 => (4, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            ComponentType::I8 if int_ok => (1, |b| (b[0] as i8 as f32 / 127.0).max(-1.0)),
            ComponentType::U8 if int_ok => (1, |b| b[0] as f32 / 255.0),
            ComponentType::I16 if int_ok => (2, |b| {
                (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0)
            }),
            ComponentType::U16 if int_ok => {
                (2, |b| u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0)
            }
            other => {
                return Err(GltfError::at(
                    &at,
                    format!(
                        "componentType {other:?}{}: this needs FLOAT{}",
                        if a.normalized { " (normalized)" } else { "" },
                        if normalized_ok {
                            " or a normalized integer type"
                        } else {
                            ""
                        }
                    ),
                ))
            }
        };
        if a.sparse.is_some() {
            return Err(GltfError::at(&at, "sparse accessors are not supported"));
        }
        let comps = type_components(ty);
        let elem = size * comps;
        let count = a.count.0 as usize;
        let Some(view_index) = a.buffer_view.map(|v| v.value()) else {
            return Err(GltfError::at(
                &at,
                "has no bufferView (all zeros): no key data",
            ));
        };
        let view =
            self.root.buffer_views.get(view_index).ok_or_else(|| {
                GltfError::at(&at, format!("bufferView {view_index} does not exist"))
            })?;
        let vpath = format!("bufferViews[{view_index}]");
        let buffer = self
            .buffers
            .get(view.buffer.value())
            .ok_or_else(|| GltfError::at(&vpath, "its buffer does not exist"))?;
        let vstart = view.byte_offset.map_or(0, |o| o.0) as usize;
        let vlen = view.byte_length.0 as usize;
        let vdata = vstart
            .checked_add(vlen)
            .and_then(|end| buffer.get(vstart..end))
            .ok_or_else(|| {
                GltfError::at(
                    &vpath,
                    format!(
                        "bytes {vstart}..{} lie outside its buffer of {} bytes",
                        vstart.saturating_add(vlen),
                        buffer.len()
                    ),
                )
            })?;
        let stride = view.byte_stride.map_or(elem, |s| s.0);
        if stride < elem {
            return Err(GltfError::at(
                &vpath,
                format!("byteStride {stride} is smaller than an element ({elem} bytes)"),
            ));
        }
        let offset = a.byte_offset.map_or(0, |o| o.0) as usize;
        let need = match count {
            0 => Some(0),
            c => (c - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(elem))
                .and_then(|x| x.checked_add(offset)),
        };
        match need {
            Some(n) if n <= vdata.len() => {}
            _ => {
                return Err(GltfError::at(
                    &at,
                    format!(
                        "{count} elements of {elem} bytes from byte {offset} do not fit in bufferView {view_index} ({} bytes)",
                        vdata.len()
                    ),
                ))
            }
        }
        // Bounded by the view's size, checked above.
        let mut out = Vec::with_capacity(count * comps);
        for e in 0..count {
            let base = offset + e * stride;
            for c in 0..comps {
                let v = conv(&vdata[base + c * size..]);
                if !v.is_finite() {
                    return Err(GltfError::at(
                        &at,
                        format!("element {e} component {c} is {v}, not a finite number"),
                    ));
                }
                out.push(v);
            }
        }
        Ok(out)
    }
}

pub fn type_components(t: Type) -> usize {
    match t {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 => 4,
        Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

fn type_name(t: Type) -> &'static str {
    match t {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

/// The one message for every buffer file that is not read: it says nothing about the file
/// (whether it exists, its size or kind), so a glTF from a stranger cannot probe the disk.
pub const BUFFER_URI_REFUSED: &str = "not read: a buffer is read only from a `data:` URI or a \
relative path to a regular file inside the glTF's folder (no `..`, no absolute path or other \
scheme, no link leading out) that exists and is no larger than the buffer's byteLength";

/// The file a buffer's (relative, percent-encoded) `uri` names, read only when it lies inside
/// `base` (after percent-decoding: no `..`, no absolute path, drive, share or scheme; a
/// symbolic link inside may not lead out, which the capability-based `cap_std::fs::Dir`
/// enforces on every component), is a regular file (never a device or FIFO: opened
/// non-blocking and checked again once open) and is no larger than `byteLength`. `None`
/// for anything else, without telling why (see [`BUFFER_URI_REFUSED`]).
fn read_buffer_file(base: &Path, b: &json::Buffer) -> Option<Vec<u8>> {
    use cap_std::fs::OpenOptions;
    use std::io::Read;
    let rel = percent_decode(b.uri.as_deref()?);
    if rel.contains([':', '\\', '\0']) || rel.starts_with('/') {
        return None;
    }
    let mut parts = Vec::new();
    for c in rel.split('/') {
        match c {
            "" | "." => {}
            ".." => return None,
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        return None;
    }
    let rel = parts.join("/");
    let limit = b.byte_length.0;
    let dir = cap_std::fs::Dir::open_ambient_dir(base, cap_std::ambient_authority()).ok()?;
    let meta = dir.metadata(&rel).ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let file = dir.open_with(&rel, &opts).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each node's parent, checking that no node has two parents and no node is its own
/// ancestor.
fn node_parents(root: &json::Root) -> Result<Vec<Option<usize>>, GltfError> {
    let n = root.nodes.len();
    let mut parents: Vec<Option<usize>> = vec![None; n];
    for (i, node) in root.nodes.iter().enumerate() {
        for (k, c) in node.children.iter().flatten().enumerate() {
            let c = c.value();
            if c == i {
                return Err(GltfError::at(
                    format!("nodes[{i}].children[{k}]"),
                    "a node cannot be its own child",
                ));
            }
            if let Some(p) = parents[c] {
                return Err(GltfError::at(
                    format!("nodes[{i}].children[{k}]"),
                    format!("node {c} already is a child of node {p}"),
                ));
            }
            parents[c] = Some(i);
        }
    }
    if let Some(start) = super::skeleton::first_cycle(&parents) {
        return Err(GltfError::at(
            format!("nodes[{start}]"),
            "its parents form a cycle",
        ));
    }
    Ok(parents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gltf(uri: &str, len: u64) -> Vec<u8> {
        serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"uri": uri, "byteLength": len}],
        })
        .to_string()
        .into_bytes()
    }

    /// Issue 28 item 1: what a buffer URI names is read only inside the glTF's folder, and
    /// every refusal names `buffers[N].uri` and nothing about the file.
    #[test]
    fn buffer_files_are_read_only_inside_the_gltf_folder() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("model");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(top.path().join("secret.bin"), b"SECRET-12345").unwrap();
        std::fs::write(dir.join("sub/a b.bin"), b"\x01\x02\x03\x04").unwrap();
        std::fs::write(dir.join("big.bin"), [7u8; 64]).unwrap();
        let ok = Document::read(&gltf("sub/a%20b.bin", 4), Some(&dir)).unwrap();
        assert_eq!(ok.buffers[0], [1, 2, 3, 4]);
        let ok = Document::read(&gltf("./sub/../sub2/../big.bin", 64), Some(&dir));
        assert!(
            ok.is_err(),
            "`..` is refused even when it would stay inside"
        );
        let secret = top.path().join("secret.bin");
        let mut refused = vec![
            "../secret.bin".to_string(),
            "%2e%2e/secret.bin".to_string(),
            "%2E%2E%2Fsecret.bin".to_string(),
            "sub/../../secret.bin".to_string(),
            secret.display().to_string(),
            format!("file://{}", secret.display()),
            "..\\secret.bin".to_string(),
            "//host/share/x.bin".to_string(),
            "C:/x.bin".to_string(),
            "big.bin".to_string(), // 64 bytes, declared 12
            "missing.bin".to_string(),
            "sub".to_string(),
        ];
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&secret, dir.join("link.bin")).unwrap();
            std::os::unix::fs::symlink(top.path(), dir.join("up")).unwrap();
            let fifo = dir.join("fifo.bin");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.unwrap().success());
            refused
                .extend(["link.bin", "up/secret.bin", "fifo.bin", "/dev/zero"].map(String::from));
        }
        for uri in refused {
            let e = Document::read(&gltf(&uri, 12), Some(&dir))
                .err()
                .unwrap_or_else(|| panic!("{uri}: read"))
                .to_string();
            assert!(
                e.contains("buffers[0].uri") && e.contains(BUFFER_URI_REFUSED),
                "{uri}: {e}"
            );
            for leak in ["12 bytes", "64", "No such file", "secret", "denied"] {
                assert!(!e.contains(leak), "{uri}: says {leak:?}: {e}");
            }
        }
    }

    fn chain(n: usize, cycle: bool) -> json::Root {
        let nodes: Vec<_> = (0..n)
            .map(|i| match i + 1 < n || cycle {
                true => serde_json::json!({"children": [(i + 1) % n]}),
                false => serde_json::json!({}),
            })
            .collect();
        serde_json::from_value(serde_json::json!({"asset": {"version": "2.0"}, "nodes": nodes}))
            .unwrap()
    }

    /// Issue 28 item 7: a chain of 300,000 nodes is checked in linear time (the walk from
    /// every node to its root took 63 s); a cycle is still found and named.
    #[test]
    fn deep_node_chains_are_checked_in_linear_steps() {
        let parents = node_parents(&chain(300_000, false)).unwrap();
        assert_eq!(parents[0], None);
        assert_eq!(parents[299_999], Some(299_998));
        let e = node_parents(&chain(300_000, true)).unwrap_err().to_string();
        assert!(
            e.contains("nodes[0]") && e.contains("its parents form a cycle"),
            "{e}"
        );
        let e = node_parents(&chain(1, true)).unwrap_err().to_string();
        assert!(e.contains("a node cannot be its own child"), "{e}");
    }
}
