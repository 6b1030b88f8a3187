//! The `zengin.asc` YAML document: the typed view, compact (one flow line per sample, vertex,
//! face and skin vertex; NODE_TM as one line per object).
//!
//! **Exactness.** Numbers are written with GothicSourcer's `%g` text when that text reads back
//! as the same `f64` (every number of a GS file), else with the shortest text that does, so
//! the document holds every value exactly. When the file's layout is GothicSourcer's (checked
//! on export: [`print_gs`] of the model gives the file's bytes) the document is all there is;
//! otherwise the original text comes along as `source` (line by line) and is written back when
//! the values are unchanged. An edited document prints in GothicSourcer's layout; with a
//! `source` of another layout the edit is refused, naming what to do (delete `source`).

use super::model::{
    parse_f64, Anim, Extra, Face, Mesh, Model, NodeTm, Object, ObjectKind, PosKey, Raw, RotKey,
    ScaleKey, Scene, SoftSkin,
};
use super::num::push_g;
use super::parse::Eol;
use super::print::print_gs;
use super::Asc;
use crate::exact::{EncodeError, ImportError};
use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::fmt::Write;

pub const TAG: &str = "zengin.asc";

// ---------------------------------------------------------------------------------------------
// Numbers and cells

/// `v` as GS's `%g` when that reads back exactly, else the shortest exact text.
pub fn push_num(out: &mut String, v: f64) {
    let start = out.len();
    push_g(out, v);
    if parse_f64(&out.as_bytes()[start..]).map(f64::to_bits) == Some(v.to_bits()) {
        return;
    }
    out.truncate(start);
    let _ = write!(out, "{v:?}");
}

fn push_str(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push('\'');
        }
        out.push(c);
    }
    out.push('\'');
}

/// A scalar as its text (numbers are read from it exactly, names taken as they are).
#[derive(Debug, Clone, PartialEq)]
pub struct Cell(pub String);

impl<'de> Deserialize<'de> for Cell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Cell;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell, E> {
                Ok(Cell(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Cell, E> {
                Ok(Cell(format!("{v:?}")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cell, E> {
                Ok(Cell(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cell, E> {
                Ok(Cell(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Cell, E> {
                Ok(Cell(v.to_string()))
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for Cell {
    fn schema_name() -> String {
        "AscValue".into()
    }
    fn json_schema(g: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        <serde_json::Value as JsonSchema>::json_schema(g)
    }
}

// ---------------------------------------------------------------------------------------------
// The document (reading side; the writing side renders the same shape)

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "animkit zengin.asc document")]
pub struct AscDocument {
    /// Always `zengin.asc`.
    pub format: String,
    /// Document version; this animkit reads 1.
    pub version: u32,
    /// `lf` or `crlf`.
    #[serde(default)]
    pub line_end: Option<String>,
    /// The file starts with a UTF-8 byte-order mark.
    #[serde(default)]
    pub bom: bool,
    /// `*3DSMAX_ASCIIEXPORT`.
    pub export_version: Cell,
    /// `*COMMENT` without quotes.
    #[serde(default)]
    pub comment: Option<String>,
    pub scene: SceneDoc,
    /// Top-level blocks kept as token texts (the material list).
    #[serde(default)]
    pub extra: Vec<ExtraDoc>,
    pub objects: Vec<ObjectDoc>,
    #[serde(default)]
    pub softskins: Vec<SoftSkinDoc>,
    /// The original text, line by line, when its layout is not GothicSourcer's.
    #[serde(default)]
    pub source: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SceneDoc {
    pub filename: String,
    pub first_frame: Cell,
    pub last_frame: Cell,
    pub frame_speed: Cell,
    pub ticks_per_frame: Cell,
    pub background: Vec<Cell>,
    pub ambient: Vec<Cell>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtraDoc {
    pub before_object: usize,
    pub raw: RawDoc,
}

/// A kept line: its tokens, and `block` when it opens one.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDoc {
    pub line: Vec<Cell>,
    #[serde(default)]
    pub block: Option<Vec<RawDoc>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectDoc {
    /// `helper` or `geom`.
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub parent: Option<String>,
    pub tm: TmDoc,
    #[serde(default)]
    pub material_ref: Option<Cell>,
    #[serde(default)]
    pub mesh: Option<MeshDoc>,
    #[serde(default)]
    pub morph: Vec<MeshDoc>,
    #[serde(default)]
    pub anim: Option<AnimDoc>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TmDoc {
    /// TM_ROW0..3.
    pub rows: Vec<Vec<Cell>>,
    pub pos: Vec<Cell>,
    pub rot_axis: Vec<Cell>,
    pub rot_angle: Cell,
    pub scale: Vec<Cell>,
    pub scale_axis: Vec<Cell>,
    pub scale_axis_ang: Vec<Cell>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnimDoc {
    /// `[tick, x, y, z]` per frame (world space).
    #[serde(default)]
    pub pos: Vec<Vec<Cell>>,
    /// `[tick, axis x, axis y, axis z, angle]` per frame (world space).
    #[serde(default)]
    pub rot: Vec<Vec<Cell>>,
    /// `[tick, sx, sy, sz, axis x, axis y, axis z, angle]`.
    #[serde(default)]
    pub scale: Vec<Vec<Cell>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshDoc {
    #[serde(default)]
    pub softskin: bool,
    pub time_value: Cell,
    pub vertices: Vec<Vec<Cell>>,
    /// `[a, b, c, ab, bc, ca, smoothing, mtlid]`.
    #[serde(default)]
    pub faces: Vec<Vec<Cell>>,
    #[serde(default)]
    pub tverts: Vec<Vec<Cell>>,
    #[serde(default)]
    pub tfaces: Vec<Vec<Cell>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SoftSkinDoc {
    pub mesh: String,
    /// Per vertex: `[bone, weight, bone, weight, …]`.
    pub verts: Vec<Vec<Cell>>,
}

// ---------------------------------------------------------------------------------------------
// Writing

struct Out(String);

impl Out {
    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.0.push(' ');
        }
        self.0.push_str(text);
        self.0.push('\n');
    }
}

fn flow_nums(out: &mut String, v: &[f64]) {
    out.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_num(out, *x);
    }
    out.push(']');
}

fn flow_ints(out: &mut String, v: &[i64]) {
    out.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{x}");
    }
    out.push(']');
}

fn num(v: f64) -> String {
    let mut s = String::new();
    push_num(&mut s, v);
    s
}

fn quoted(s: &str) -> String {
    let mut o = String::new();
    push_str(&mut o, s);
    o
}

fn write_raw(o: &mut Out, indent: usize, r: &Raw) {
    let mut line = String::from("- line: [");
    for (i, t) in r.toks.iter().enumerate() {
        if i > 0 {
            line.push_str(", ");
        }
        push_str(&mut line, t);
    }
    line.push(']');
    o.line(indent, &line);
    if let Some(c) = &r.children {
        o.line(indent + 2, "block:");
        for k in c {
            write_raw(o, indent + 2, k);
        }
    }
}

fn write_rows(
    o: &mut Out,
    indent: usize,
    key: &str,
    comment: &str,
    rows: usize,
    f: impl Fn(usize, &mut String),
) {
    if rows == 0 {
        o.line(indent, &format!("{key}: []"));
        return;
    }
    o.line(indent, &format!("{key}:  # {comment}"));
    let mut line = String::new();
    for i in 0..rows {
        line.clear();
        line.push_str("- ");
        f(i, &mut line);
        o.line(indent, &line);
    }
}

fn write_mesh(o: &mut Out, indent: usize, m: &Mesh) {
    if m.softskin {
        o.line(indent, "softskin: true");
    }
    o.line(indent, &format!("time_value: {}", m.time_value));
    write_rows(
        o,
        indent,
        "vertices",
        "x, y, z (world)",
        m.vertices.len(),
        |i, s| flow_nums(s, &m.vertices[i]),
    );
    write_rows(
        o,
        indent,
        "faces",
        "a, b, c, edge ab, bc, ca, smoothing, material id",
        m.faces.len(),
        |i, s| {
            let f = &m.faces[i];
            let _ = write!(
                s,
                "[{}, {}, {}, {}, {}, {}, {}, ",
                f.v[0],
                f.v[1],
                f.v[2],
                f.edges[0],
                f.edges[1],
                f.edges[2],
                quoted(&f.smoothing)
            );
            match f.mtlid {
                Some(id) => {
                    let _ = write!(s, "{id}]");
                }
                None => s.push_str("null]"),
            }
        },
    );
    write_rows(o, indent, "tverts", "u, v, w", m.tverts.len(), |i, s| {
        flow_nums(s, &m.tverts[i])
    });
    write_rows(o, indent, "tfaces", "a, b, c", m.tfaces.len(), |i, s| {
        let t = m.tfaces[i];
        flow_ints(s, &[t[0] as i64, t[1] as i64, t[2] as i64])
    });
}

/// The document of `asc`.
pub fn to_yaml(asc: &Asc) -> String {
    let m = &asc.model;
    let eol = asc.eol();
    let gs = print_gs(m, eol);
    let printed = asc.print();
    let body = printed
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(&printed);
    let source_needed = gs.as_bytes() != body;
    let mut o = Out(String::with_capacity(
        asc.doc.text.len() + asc.doc.text.len() / 4,
    ));
    o.line(0, &format!("format: {TAG}"));
    o.line(0, "version: 1");
    o.line(
        0,
        &format!("line_end: {}", if eol == Eol::CrLf { "crlf" } else { "lf" }),
    );
    if asc.doc.bom {
        o.line(0, "bom: true");
    }
    o.line(0, &format!("export_version: {}", m.export_version));
    if let Some(c) = &m.comment {
        o.line(0, &format!("comment: {}", quoted(c)));
    }
    let s = &m.scene;
    o.line(0, "scene:");
    o.line(2, &format!("filename: {}", quoted(&s.filename)));
    o.line(2, &format!("first_frame: {}", s.first_frame));
    o.line(2, &format!("last_frame: {}", s.last_frame));
    o.line(2, &format!("frame_speed: {}", num(s.frame_speed)));
    o.line(2, &format!("ticks_per_frame: {}", s.ticks_per_frame));
    let mut t = String::new();
    flow_nums(&mut t, &s.background);
    o.line(2, &format!("background: {t}"));
    t.clear();
    flow_nums(&mut t, &s.ambient);
    o.line(2, &format!("ambient: {t}"));
    if !m.extra.is_empty() {
        o.line(0, "extra:");
        for e in &m.extra {
            o.line(0, &format!("- before_object: {}", e.before_object));
            o.line(2, "raw:");
            let mut sub = Out(String::new());
            write_raw(&mut sub, 0, &e.raw);
            // `raw:` holds one mapping: drop the list dash of the first line.
            let text = sub.0.replacen("- line:", "line:", 1);
            for l in text.lines() {
                let l = if let Some(rest) = l.strip_prefix("  ") {
                    rest
                } else {
                    l
                };
                o.line(4, l);
            }
        }
    }
    o.line(0, "objects:");
    for ob in &m.objects {
        o.line(
            0,
            &format!(
                "- kind: {}",
                match ob.kind {
                    ObjectKind::Helper => "helper",
                    ObjectKind::Geom => "geom",
                }
            ),
        );
        o.line(2, &format!("name: {}", quoted(&ob.name)));
        if let Some(p) = &ob.parent {
            o.line(2, &format!("parent: {}", quoted(p)));
        }
        let tm = &ob.tm;
        let mut t = String::from("tm: {rows: [");
        for (i, r) in tm.rows.iter().enumerate() {
            if i > 0 {
                t.push_str(", ");
            }
            flow_nums(&mut t, r);
        }
        t.push_str("], pos: ");
        flow_nums(&mut t, &tm.pos);
        t.push_str(", rot_axis: ");
        flow_nums(&mut t, &tm.rot_axis);
        t.push_str(", rot_angle: ");
        push_num(&mut t, tm.rot_angle);
        t.push_str(", scale: ");
        flow_nums(&mut t, &tm.scale);
        t.push_str(", scale_axis: ");
        flow_nums(&mut t, &tm.scale_axis);
        t.push_str(", scale_axis_ang: ");
        flow_nums(&mut t, &tm.scale_axis_ang);
        t.push('}');
        o.line(2, &t);
        if let Some(r) = ob.material_ref {
            o.line(2, &format!("material_ref: {r}"));
        }
        if let Some(mesh) = &ob.mesh {
            o.line(2, "mesh:");
            write_mesh(&mut o, 4, mesh);
        }
        if !ob.morph.is_empty() {
            o.line(2, "morph:");
            for mesh in &ob.morph {
                let mut sub = Out(String::new());
                write_mesh(&mut sub, 0, mesh);
                for (i, l) in sub.0.lines().enumerate() {
                    o.line(2, &format!("{}{l}", if i == 0 { "- " } else { "  " }));
                }
            }
        }
        if let Some(a) = &ob.anim {
            o.line(2, "anim:");
            write_rows(
                &mut o,
                4,
                "pos",
                "tick, x, y, z (world)",
                a.pos.len(),
                |i, s| {
                    let k = &a.pos[i];
                    let _ = write!(s, "[{}, ", k.tick);
                    flow_tail(s, &k.pos);
                },
            );
            write_rows(
                &mut o,
                4,
                "rot",
                "tick, axis x, y, z, angle (world AngAxis)",
                a.rot.len(),
                |i, s| {
                    let k = &a.rot[i];
                    let _ = write!(s, "[{}, ", k.tick);
                    flow_tail(s, &[k.axis[0], k.axis[1], k.axis[2], k.angle]);
                },
            );
            write_rows(
                &mut o,
                4,
                "scale",
                "tick, sx, sy, sz, axis x, y, z, angle",
                a.scale.len(),
                |i, s| {
                    let k = &a.scale[i];
                    let _ = write!(s, "[{}, ", k.tick);
                    flow_tail(
                        s,
                        &[
                            k.scale[0], k.scale[1], k.scale[2], k.axis[0], k.axis[1], k.axis[2],
                            k.angle,
                        ],
                    );
                },
            );
        }
    }
    if !m.softskins.is_empty() {
        o.line(0, "softskins:");
        for sk in &m.softskins {
            o.line(0, &format!("- mesh: {}", quoted(&sk.mesh)));
            write_rows(
                &mut o,
                2,
                "verts",
                "bone, weight, …",
                sk.verts.len(),
                |i, s| {
                    s.push('[');
                    for (j, (b, w)) in sk.verts[i].iter().enumerate() {
                        if j > 0 {
                            s.push_str(", ");
                        }
                        push_str(s, b);
                        s.push_str(", ");
                        push_num(s, *w);
                    }
                    s.push(']');
                },
            );
        }
    }
    if source_needed {
        o.line(
            0,
            "# The file's own layout (not GothicSourcer's): written back while the values above are unchanged.",
        );
        o.line(0, "source:");
        let text = super::model::latin1(body);
        let mut line = String::new();
        for l in text.split('\n') {
            line.clear();
            line.push_str("- \"");
            for c in l.chars() {
                match c {
                    '\\' => line.push_str("\\\\"),
                    '"' => line.push_str("\\\""),
                    '\t' => line.push_str("\\t"),
                    '\r' => line.push_str("\\r"),
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                        let _ = write!(line, "\\x{:02x}", c as u32);
                    }
                    c => line.push(c),
                }
            }
            line.push('"');
            o.line(0, &line);
        }
    }
    o.0
}

fn flow_tail(s: &mut String, v: &[f64]) {
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        push_num(s, *x);
    }
    s.push(']');
}

// ---------------------------------------------------------------------------------------------
// Reading

fn bad(path: &str, msg: impl std::fmt::Display) -> ImportError {
    ImportError::Encode(EncodeError::new(format!("{path}: {msg}")))
}

fn f(c: &Cell, path: &str) -> Result<f64, ImportError> {
    parse_f64(c.0.trim().as_bytes()).ok_or_else(|| bad(path, format!("`{}` is not a number", c.0)))
}

fn i(c: &Cell, path: &str) -> Result<i64, ImportError> {
    let v = f(c, path)?;
    if v.fract() != 0.0 || v.abs() > 9.0e15 {
        return Err(bad(path, format!("`{}` is not a whole number", c.0)));
    }
    Ok(v as i64)
}

fn u(c: &Cell, path: &str) -> Result<u32, ImportError> {
    let v = i(c, path)?;
    u32::try_from(v).map_err(|_| bad(path, format!("{v} is not an index (0 or more)")))
}

fn arr<const N: usize>(v: &[Cell], path: &str) -> Result<[f64; N], ImportError> {
    if v.len() != N {
        return Err(bad(path, format!("{} values, expected {N}", v.len())));
    }
    arr_at(v, path, 0)
}

/// `N` numbers of a row starting at column `base` (the row's length is checked already).
fn arr_at<const N: usize>(row: &[Cell], path: &str, base: usize) -> Result<[f64; N], ImportError> {
    let mut out = [0.0; N];
    for (k, c) in row[base..base + N].iter().enumerate() {
        out[k] = f(c, &format!("{path}[{}]", base + k))?;
    }
    Ok(out)
}

fn row_len(v: &[Cell], n: usize, path: &str, what: &str) -> Result<(), ImportError> {
    if v.len() != n {
        return Err(bad(
            path,
            format!("{} values, expected {n} ({what})", v.len()),
        ));
    }
    Ok(())
}

fn mesh(d: &MeshDoc, path: &str) -> Result<Mesh, ImportError> {
    let mut m = Mesh {
        softskin: d.softskin,
        time_value: i(&d.time_value, &format!("{path}.time_value"))?,
        ..Mesh::default()
    };
    for (k, v) in d.vertices.iter().enumerate() {
        m.vertices
            .push(arr::<3>(v, &format!("{path}.vertices[{k}]"))?);
    }
    for (k, r) in d.faces.iter().enumerate() {
        let p = format!("{path}.faces[{k}]");
        row_len(r, 8, &p, "a, b, c, ab, bc, ca, smoothing, material id")?;
        let mut n = [0u32; 6];
        for j in 0..6 {
            n[j] = u(&r[j], &format!("{p}[{j}]"))?;
            if j < 3 && n[j] as usize >= d.vertices.len() {
                return Err(bad(
                    &format!("{p}[{j}]"),
                    format!(
                        "vertex {} does not exist ({} vertices)",
                        n[j],
                        d.vertices.len()
                    ),
                ));
            }
        }
        let mtlid = if r[7].0 == "null" || r[7].0 == "~" {
            None
        } else {
            Some(i(&r[7], &format!("{p}[7]"))?)
        };
        m.faces.push(Face {
            v: [n[0], n[1], n[2]],
            edges: [n[3], n[4], n[5]],
            smoothing: r[6].0.clone(),
            mtlid,
        });
    }
    for (k, v) in d.tverts.iter().enumerate() {
        m.tverts.push(arr::<3>(v, &format!("{path}.tverts[{k}]"))?);
    }
    for (k, r) in d.tfaces.iter().enumerate() {
        let p = format!("{path}.tfaces[{k}]");
        row_len(r, 3, &p, "a, b, c")?;
        let mut t = [0u32; 3];
        for j in 0..3 {
            t[j] = u(&r[j], &format!("{p}[{j}]"))?;
            if t[j] as usize >= d.tverts.len() {
                return Err(bad(
                    &format!("{p}[{j}]"),
                    format!(
                        "texture vertex {} does not exist ({} listed)",
                        t[j],
                        d.tverts.len()
                    ),
                ));
            }
        }
        m.tfaces.push(t);
    }
    Ok(m)
}

fn raw(d: &RawDoc) -> Raw {
    Raw {
        toks: d.line.iter().map(|c| c.0.clone()).collect(),
        children: d.block.as_ref().map(|c| c.iter().map(raw).collect()),
    }
}

/// The model a document describes, checked (every error names its document path).
pub fn model_of(doc: &AscDocument) -> Result<Model, ImportError> {
    let s = &doc.scene;
    let scene = Scene {
        filename: s.filename.clone(),
        first_frame: i(&s.first_frame, "scene.first_frame")?,
        last_frame: i(&s.last_frame, "scene.last_frame")?,
        frame_speed: f(&s.frame_speed, "scene.frame_speed")?,
        ticks_per_frame: i(&s.ticks_per_frame, "scene.ticks_per_frame")?,
        background: arr::<3>(&s.background, "scene.background")?,
        ambient: arr::<3>(&s.ambient, "scene.ambient")?,
    };
    if scene.last_frame < scene.first_frame {
        return Err(bad(
            "scene.last_frame",
            format!(
                "{} is before first_frame {}",
                scene.last_frame, scene.first_frame
            ),
        ));
    }
    let mut objects = Vec::with_capacity(doc.objects.len());
    for (k, o) in doc.objects.iter().enumerate() {
        let p = format!("objects[{k}]");
        let kind = match o.kind.as_str() {
            "helper" => ObjectKind::Helper,
            "geom" => ObjectKind::Geom,
            other => {
                return Err(bad(
                    &format!("{p}.kind"),
                    format!("`{other}`: expected `helper` or `geom`"),
                ))
            }
        };
        if o.name.is_empty() {
            return Err(bad(&format!("{p}.name"), "an object needs a name"));
        }
        if o.tm.rows.len() != 4 {
            return Err(bad(
                &format!("{p}.tm.rows"),
                format!("{} rows, expected 4 (TM_ROW0..3)", o.tm.rows.len()),
            ));
        }
        let mut rows = [[0.0; 3]; 4];
        for (j, r) in o.tm.rows.iter().enumerate() {
            rows[j] = arr::<3>(r, &format!("{p}.tm.rows[{j}]"))?;
        }
        let tm = NodeTm {
            rows,
            pos: arr::<3>(&o.tm.pos, &format!("{p}.tm.pos"))?,
            rot_axis: arr::<3>(&o.tm.rot_axis, &format!("{p}.tm.rot_axis"))?,
            rot_angle: f(&o.tm.rot_angle, &format!("{p}.tm.rot_angle"))?,
            scale: arr::<3>(&o.tm.scale, &format!("{p}.tm.scale"))?,
            scale_axis: arr::<3>(&o.tm.scale_axis, &format!("{p}.tm.scale_axis"))?,
            scale_axis_ang: arr::<3>(&o.tm.scale_axis_ang, &format!("{p}.tm.scale_axis_ang"))?,
        };
        let anim = match &o.anim {
            None => None,
            Some(a) => {
                let mut an = Anim::default();
                for (j, r) in a.pos.iter().enumerate() {
                    let q = format!("{p}.anim.pos[{j}]");
                    row_len(r, 4, &q, "tick, x, y, z")?;
                    an.pos.push(PosKey {
                        tick: i(&r[0], &format!("{q}[0]"))?,
                        pos: arr_at::<3>(r, &q, 1)?,
                    });
                }
                for (j, r) in a.rot.iter().enumerate() {
                    let q = format!("{p}.anim.rot[{j}]");
                    row_len(r, 5, &q, "tick, axis x, y, z, angle")?;
                    an.rot.push(RotKey {
                        tick: i(&r[0], &format!("{q}[0]"))?,
                        axis: arr_at::<3>(r, &q, 1)?,
                        angle: f(&r[4], &format!("{q}[4]"))?,
                    });
                }
                for (j, r) in a.scale.iter().enumerate() {
                    let q = format!("{p}.anim.scale[{j}]");
                    row_len(r, 8, &q, "tick, sx, sy, sz, axis x, y, z, angle")?;
                    an.scale.push(ScaleKey {
                        tick: i(&r[0], &format!("{q}[0]"))?,
                        scale: arr_at::<3>(r, &q, 1)?,
                        axis: arr_at::<3>(r, &q, 4)?,
                        angle: f(&r[7], &format!("{q}[7]"))?,
                    });
                }
                let want = scene.frame_count();
                for (name, n) in [("pos", an.pos.len()), ("rot", an.rot.len())] {
                    if n != 0 && n as i64 != want {
                        return Err(bad(
                            &format!("{p}.anim.{name}"),
                            format!(
                                "{n} samples, but the scene's range {}..={} has {want} frames (one sample per frame, or none)",
                                scene.first_frame, scene.last_frame
                            ),
                        ));
                    }
                }
                Some(an)
            }
        };
        objects.push(Object {
            kind,
            name: o.name.clone(),
            parent: o.parent.clone(),
            tm,
            anim,
            mesh: match &o.mesh {
                Some(m) => Some(mesh(m, &format!("{p}.mesh"))?),
                None => None,
            },
            morph: o
                .morph
                .iter()
                .enumerate()
                .map(|(j, m)| mesh(m, &format!("{p}.morph[{j}]")))
                .collect::<Result<_, _>>()?,
            material_ref: match &o.material_ref {
                Some(c) => Some(i(c, &format!("{p}.material_ref"))?),
                None => None,
            },
        });
    }
    for (k, o) in objects.iter().enumerate() {
        if let Some(parent) = &o.parent {
            if !objects.iter().any(|q| &q.name == parent) {
                return Err(bad(
                    &format!("objects[{k}].parent"),
                    format!("`{parent}` is not an object of this file"),
                ));
            }
        }
    }
    let mut softskins = Vec::new();
    for (k, s) in doc.softskins.iter().enumerate() {
        let mut sk = SoftSkin {
            mesh: s.mesh.clone(),
            verts: Vec::new(),
        };
        for (j, r) in s.verts.iter().enumerate() {
            let q = format!("softskins[{k}].verts[{j}]");
            if r.len() % 2 != 0 {
                return Err(bad(&q, "expected pairs of bone name and weight"));
            }
            let mut v = Vec::new();
            for n in 0..r.len() / 2 {
                v.push((
                    r[2 * n].0.clone(),
                    f(&r[2 * n + 1], &format!("{q}[{}]", 2 * n + 1))?,
                ));
            }
            sk.verts.push(v);
        }
        softskins.push(sk);
    }
    let extra = doc
        .extra
        .iter()
        .map(|e| Extra {
            before_object: e.before_object,
            raw: raw(&e.raw),
        })
        .collect();
    Ok(Model {
        export_version: i(&doc.export_version, "export_version")?,
        comment: doc.comment.clone(),
        scene,
        objects,
        softskins,
        extra,
    })
}

/// Read a `zengin.asc` document.
pub fn from_yaml(text: &str) -> Result<Asc, ImportError> {
    let doc: AscDocument = crate::yaml::from_str(text)?;
    crate::codec::check_document_header(&doc.format, doc.version, TAG, 1)
        .map_err(EncodeError::new)?;
    let eol = match doc.line_end.as_deref() {
        None | Some("lf") => Eol::Lf,
        Some("crlf") => Eol::CrLf,
        Some(other) => {
            return Err(bad(
                "line_end",
                format!("`{other}`: expected `lf` or `crlf`"),
            ))
        }
    };
    let model = model_of(&doc)?;
    if let Some(lines) = &doc.source {
        let text = lines.join("\n");
        let Some(bytes) = super::model::to_bytes(&text) else {
            return Err(bad(
                "source",
                "a character above U+00FF (ASC text is bytes)",
            ));
        };
        let orig =
            Asc::parse(&bytes).map_err(|e| bad("source", format!("not a valid ASC: {e}")))?;
        if orig.model == model {
            return Ok(orig);
        }
        return Err(bad(
            "source",
            "the values were edited, but `source` keeps this file's own (not GothicSourcer's) layout, \
             which animkit cannot re-create for edited values: delete the `source:` list to write the \
             edited file in GothicSourcer's layout",
        ));
    }
    let mut bytes = Vec::new();
    if doc.bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let gs = print_gs(&model, eol);
    match super::model::to_bytes(&gs) {
        Some(b) => bytes.extend_from_slice(&b),
        None => {
            return Err(bad(
                "objects",
                "a name holds a character above U+00FF (ASC text is bytes)",
            ))
        }
    }
    // The printed text must read back as the same model (a last check for edits that GS's
    // 6-digit numbers or the layout cannot carry, e.g. a name with a quote).
    let asc = Asc::parse(&bytes).map_err(|e| {
        bad(
            "document",
            format!("the edited values do not print as a valid ASC: {e}"),
        )
    })?;
    Ok(asc)
}
