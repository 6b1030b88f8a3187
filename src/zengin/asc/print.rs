//! Printing ASC text in GothicSourcer's layout: [`GsWriter`] (one line at a time: tab
//! indentation, a space after the keyword, tabs between values, `%g` numbers with MSVC
//! exponents from [`super::num`]) and [`print_gs`], a whole [`Model`] in that layout.
//!
//! An unedited parsed file is printed by [`super::parse::Doc::print`] instead (its own bytes);
//! this module is for new files (`asc export`) and for documents without a source layout.

use super::model::{Mesh, Model, Object, ObjectKind, Raw};
use super::num::push_exact;
use super::parse::Eol;

/// A value on a line.
#[derive(Debug, Clone, Copy)]
pub enum Val<'a> {
    /// Printed with `%g` (MSVC exponents); with more digits only when 6 do not read back as
    /// the value (`num::push_exact`), so a writer can choose values 6 digits cannot hold.
    Num(f64),
    /// Printed as a whole number.
    Int(i64),
    /// Printed in double quotes.
    Str(&'a str),
    /// Printed as is (keywords, `0:`, bare names).
    Word(&'a str),
}

/// Writes GothicSourcer-style lines.
pub struct GsWriter {
    pub out: String,
    depth: usize,
    eol: &'static str,
}

impl GsWriter {
    pub fn new(eol: Eol) -> GsWriter {
        GsWriter {
            out: String::new(),
            depth: 0,
            eol: match eol {
                Eol::CrLf => "\r\n",
                _ => "\n",
            },
        }
    }

    #[inline]
    fn indent(&mut self) {
        const TABS: &str = "\t\t\t\t\t\t\t\t";
        let mut d = self.depth;
        while d > 0 {
            let n = d.min(TABS.len());
            self.out.push_str(&TABS[..n]);
            d -= n;
        }
    }

    fn val(&mut self, v: Val<'_>) {
        match v {
            Val::Num(x) => push_exact(&mut self.out, x),
            Val::Int(i) => self.out.push_str(itoa::Buffer::new().format(i)),
            Val::Str(s) => {
                self.out.push('"');
                self.out.push_str(s);
                self.out.push('"');
            }
            Val::Word(w) => self.out.push_str(w),
        }
    }

    /// `key first\tsecond\t…` (GS: a space after the keyword, tabs between values).
    pub fn line(&mut self, key: &str, vals: &[Val<'_>]) {
        self.line_sep(key, " ", vals);
    }

    /// Like [`GsWriter::line`] with `sep` between the keyword and the first value
    /// (`*CONTROL_SCALE_SAMPLE` uses a tab, `*NODE_NAME` in `*TM_ANIMATION` two spaces).
    pub fn line_sep(&mut self, key: &str, sep: &str, vals: &[Val<'_>]) {
        self.indent();
        self.out.push_str(key);
        for (i, v) in vals.iter().enumerate() {
            self.out.push_str(if i == 0 { sep } else { "\t" });
            self.val(*v);
        }
        self.out.push_str(self.eol);
    }

    /// A line written as given (indentation added).
    pub fn raw(&mut self, text: &str) {
        self.indent();
        self.out.push_str(text);
        self.out.push_str(self.eol);
    }

    /// `key {` and one level deeper.
    pub fn open(&mut self, key: &str) {
        self.indent();
        self.out.push_str(key);
        self.out.push_str(" {");
        self.out.push_str(self.eol);
        self.depth += 1;
    }

    /// `}` one level up.
    pub fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.indent();
        self.out.push('}');
        self.out.push_str(self.eol);
    }
}

fn v3(v: &[f64; 3]) -> [Val<'static>; 3] {
    [Val::Num(v[0]), Val::Num(v[1]), Val::Num(v[2])]
}

/// `model` in GothicSourcer's layout (header, scene, kept top-level blocks such as the
/// material list, objects with NODE_TM, TM_ANIMATION and meshes, soft-skin blocks). Unknown
/// lines inside objects are not in the model and so not printed.
pub fn print_gs(model: &Model, eol: Eol) -> String {
    print_gs_inner(model, eol, None)
}

/// The sample lines of one node's position and rotation tracks, as [`print_gs`] prints them.
pub type TrackLines = (Vec<u8>, Vec<u8>);

/// [`print_gs`] with the lines of the position and rotation tracks given as text: object `i`
/// with an `*TM_ANIMATION` gets `tracks[i]` (ASCII lines with indentation and line ends) in
/// place of its `pos` and `rot` keys.
pub fn print_gs_tracks(model: &Model, eol: Eol, tracks: &[Option<TrackLines>]) -> String {
    print_gs_inner(model, eol, Some(tracks))
}

fn print_gs_inner(model: &Model, eol: Eol, tracks: Option<&[Option<TrackLines>]>) -> String {
    let mut w = GsWriter::new(eol);
    if let Some(t) = tracks {
        w.out.reserve(
            t.iter()
                .flatten()
                .map(|(p, r)| p.len() + r.len() + 400)
                .sum::<usize>()
                + model.objects.len() * 800,
        );
    }
    w.line_sep(
        "*3DSMAX_ASCIIEXPORT",
        "\t",
        &[Val::Int(model.export_version)],
    );
    if let Some(c) = &model.comment {
        w.line("*COMMENT", &[Val::Str(c)]);
    }
    let s = &model.scene;
    w.open("*SCENE");
    w.line("*SCENE_FILENAME", &[Val::Str(&s.filename)]);
    w.line("*SCENE_FIRSTFRAME", &[Val::Int(s.first_frame)]);
    w.line("*SCENE_LASTFRAME", &[Val::Int(s.last_frame)]);
    w.line("*SCENE_FRAMESPEED", &[Val::Num(s.frame_speed)]);
    w.line("*SCENE_TICKSPERFRAME", &[Val::Int(s.ticks_per_frame)]);
    w.line("*SCENE_BACKGROUND_STATIC", &v3(&s.background));
    w.line("*SCENE_AMBIENT_STATIC", &v3(&s.ambient));
    w.close();
    let mut extra = model.extra.iter().peekable();
    for (i, o) in model.objects.iter().enumerate() {
        while let Some(e) = extra.next_if(|e| e.before_object <= i) {
            print_raw(&mut w, &e.raw);
        }
        print_object(&mut w, o, tracks.and_then(|t| t.get(i)?.as_ref()));
    }
    for e in extra {
        print_raw(&mut w, &e.raw);
    }
    for sk in &model.softskins {
        w.open("*MESH_SOFTSKINVERTS");
        let d = w.depth;
        w.depth = 0;
        w.raw(&sk.mesh);
        w.raw(&sk.verts.len().to_string());
        for v in &sk.verts {
            let mut line = v.len().to_string();
            for (bone, weight) in v {
                line.push_str("\t\"");
                line.push_str(bone);
                line.push_str("\"\t");
                push_exact(&mut line, *weight);
            }
            w.raw(&line);
        }
        w.depth = d;
        w.close();
    }
    w.out
}

/// A kept line: `key first\tsecond…`, and ` {` + its lines + `}` when it opens a block.
pub fn print_raw(w: &mut GsWriter, raw: &Raw) {
    let mut line = String::new();
    for (i, t) in raw.toks.iter().enumerate() {
        if i == 1 {
            line.push(' ');
        } else if i > 1 {
            line.push('\t');
        }
        line.push_str(t);
    }
    match &raw.children {
        None => w.raw(&line),
        Some(c) => {
            w.open(&line);
            for r in c {
                print_raw(w, r);
            }
            w.close();
        }
    }
}

fn print_object(w: &mut GsWriter, o: &Object, lines: Option<&TrackLines>) {
    w.open(match o.kind {
        ObjectKind::Helper => "*HELPEROBJECT",
        ObjectKind::Geom => "*GEOMOBJECT",
    });
    w.line("*NODE_NAME", &[Val::Str(&o.name)]);
    if let Some(p) = &o.parent {
        w.line("*NODE_PARENT", &[Val::Str(p)]);
    }
    let tm = &o.tm;
    w.open("*NODE_TM");
    w.line("*NODE_NAME", &[Val::Str(&o.name)]);
    for (i, row) in tm.rows.iter().enumerate() {
        w.line(
            ["*TM_ROW0", "*TM_ROW1", "*TM_ROW2", "*TM_ROW3"][i],
            &v3(row),
        );
    }
    w.line("*TM_POS", &v3(&tm.pos));
    w.line("*TM_ROTAXIS", &v3(&tm.rot_axis));
    w.line("*TM_ROTANGLE", &[Val::Num(tm.rot_angle)]);
    w.line("*TM_SCALE", &v3(&tm.scale));
    w.line("*TM_SCALEAXIS", &v3(&tm.scale_axis));
    w.line("*TM_SCALEAXISANG", &v3(&tm.scale_axis_ang));
    w.close();
    if let Some(r) = o.material_ref {
        w.line("*MATERIAL_REF", &[Val::Int(r)]);
    }
    if let Some(m) = &o.mesh {
        print_mesh(w, m);
    }
    if !o.morph.is_empty() {
        w.open("*MESH_ANIMATION");
        for m in &o.morph {
            print_mesh(w, m);
        }
        w.close();
    }
    if let Some(a) = &o.anim {
        w.open("*TM_ANIMATION");
        w.line_sep("*NODE_NAME", "  ", &[Val::Str(&o.name)]);
        w.open("*CONTROL_POS_TRACK");
        if let Some((pos, _)) = lines {
            w.out.push_str(std::str::from_utf8(pos).unwrap_or_default());
        }
        for k in &a.pos {
            w.line(
                "*CONTROL_POS_SAMPLE",
                &[
                    Val::Int(k.tick),
                    Val::Num(k.pos[0]),
                    Val::Num(k.pos[1]),
                    Val::Num(k.pos[2]),
                ],
            );
        }
        w.close();
        w.open("*CONTROL_ROT_TRACK");
        if let Some((_, rot)) = lines {
            w.out.push_str(std::str::from_utf8(rot).unwrap_or_default());
        }
        for k in &a.rot {
            w.line(
                "*CONTROL_ROT_SAMPLE",
                &[
                    Val::Int(k.tick),
                    Val::Num(k.axis[0]),
                    Val::Num(k.axis[1]),
                    Val::Num(k.axis[2]),
                    Val::Num(k.angle),
                ],
            );
        }
        w.close();
        w.open("*CONTROL_SCALE_TRACK");
        for k in &a.scale {
            w.line_sep(
                "*CONTROL_SCALE_SAMPLE",
                "\t",
                &[
                    Val::Int(k.tick),
                    Val::Num(k.scale[0]),
                    Val::Num(k.scale[1]),
                    Val::Num(k.scale[2]),
                    Val::Num(k.axis[0]),
                    Val::Num(k.axis[1]),
                    Val::Num(k.axis[2]),
                    Val::Num(k.angle),
                ],
            );
        }
        w.close();
        w.close();
    }
    w.close();
}

fn print_mesh(w: &mut GsWriter, m: &Mesh) {
    w.open(if m.softskin {
        "*MESH_SOFTSKIN"
    } else {
        "*MESH"
    });
    w.line("*TIMEVALUE", &[Val::Int(m.time_value)]);
    w.line("*MESH_NUMVERTEX", &[Val::Int(m.vertices.len() as i64)]);
    w.line("*MESH_NUMFACES", &[Val::Int(m.faces.len() as i64)]);
    w.open("*MESH_VERTEX_LIST");
    for (i, v) in m.vertices.iter().enumerate() {
        w.line(
            "*MESH_VERTEX",
            &[
                Val::Int(i as i64),
                Val::Num(v[0]),
                Val::Num(v[1]),
                Val::Num(v[2]),
            ],
        );
    }
    w.close();
    if !m.faces.is_empty() {
        w.open("*MESH_FACE_LIST");
        for (i, f) in m.faces.iter().enumerate() {
            let mut line = format!(
                "*MESH_FACE    {i}:    A:    {} B:    {} C:    {} AB:    {} BC:    {} CA:    {}\t *MESH_SMOOTHING {} \t",
                f.v[0], f.v[1], f.v[2], f.edges[0], f.edges[1], f.edges[2], f.smoothing
            );
            if let Some(id) = f.mtlid {
                line.push_str(&format!("*MESH_MTLID {id}"));
            }
            w.raw(&line);
        }
        w.close();
    }
    if !m.tverts.is_empty() {
        w.line("*MESH_NUMTVERTEX", &[Val::Int(m.tverts.len() as i64)]);
        w.open("*MESH_TVERTLIST");
        for (i, v) in m.tverts.iter().enumerate() {
            w.line(
                "*MESH_TVERT",
                &[
                    Val::Int(i as i64),
                    Val::Num(v[0]),
                    Val::Num(v[1]),
                    Val::Num(v[2]),
                ],
            );
        }
        w.close();
    }
    if !m.tfaces.is_empty() {
        w.line("*MESH_NUMTVFACES", &[Val::Int(m.tfaces.len() as i64)]);
        w.open("*MESH_TFACELIST");
        for (i, f) in m.tfaces.iter().enumerate() {
            w.line(
                "*MESH_TFACE",
                &[
                    Val::Int(i as i64),
                    Val::Int(f[0] as i64),
                    Val::Int(f[1] as i64),
                    Val::Int(f[2] as i64),
                ],
            );
        }
        w.close();
    }
    w.close();
}
