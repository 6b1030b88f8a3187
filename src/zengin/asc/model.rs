//! The typed view of an ASC file: header, scene, objects (helpers and geometry) with their
//! `*NODE_TM`, animation tracks and meshes, and the soft-skin weights. Values are `f64` as read
//! from the text; the text itself stays in [`super::parse::Doc`], so a file prints back
//! byte-exact however its numbers are spelled. [`Model::from_doc`] reads and checks it (every
//! error with line, column and block path); [`super::print::print_gs`] prints a model in
//! GothicSourcer's layout.
//!
//! Keywords are matched case-insensitively (as KrxImpExp does); unknown lines and blocks
//! (`*MATERIAL_LIST`, `*WIREFRAME_COLOR`, `*HELPER_CLASS`, `*BOUNDINGBOX_MIN`, ...) are kept in
//! the text and skipped here.

use super::parse::{AscError, Doc, Eol, Lexer, Line, Span, Tok};

/// An ASC file's content.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// `*3DSMAX_ASCIIEXPORT 110` (106/108 in the original Piranha files).
    pub export_version: i64,
    /// `*COMMENT "…"` without the quotes (`[ GothicSourcer v3.10 ] - August 2006`).
    pub comment: Option<String>,
    pub scene: Scene,
    /// The objects in file order (the order the MDH and the MANs' node lists follow).
    pub objects: Vec<Object>,
    /// `*MESH_SOFTSKINVERTS` blocks.
    pub softskins: Vec<SoftSkin>,
    /// Top-level lines and blocks the typed view does not interpret (`*MATERIAL_LIST`), as
    /// token texts, each with the number of objects before it.
    pub extra: Vec<Extra>,
}

/// A top-level line or block kept as token texts (see [`Model::extra`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Extra {
    /// How many objects come before it in the file.
    pub before_object: usize,
    pub raw: Raw,
}

/// A line as its token texts (quoted strings with their quotes), with its block's lines when
/// it opens one (the `{` is not among the tokens).
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    pub toks: Vec<String>,
    pub children: Option<Vec<Raw>>,
}

/// `*SCENE { … }`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scene {
    /// `*SCENE_FILENAME "X.MAX"` without the quotes.
    pub filename: String,
    pub first_frame: i64,
    pub last_frame: i64,
    /// `*SCENE_FRAMESPEED` (frames per second).
    pub frame_speed: f64,
    pub ticks_per_frame: i64,
    pub background: [f64; 3],
    pub ambient: [f64; 3],
}

impl Scene {
    /// `last_frame − first_frame + 1`: the sample count of every non-empty track.
    pub fn frame_count(&self) -> i64 {
        self.last_frame - self.first_frame + 1
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// `*HELPEROBJECT` (bones `Bip01…`, slots `ZS_…`, `Dummy…`).
    Helper,
    /// `*GEOMOBJECT` (meshes `zm_…`).
    Geom,
}

/// `*HELPEROBJECT { … }` or `*GEOMOBJECT { … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub kind: ObjectKind,
    /// `*NODE_NAME "…"` without the quotes, as written (GS: Biped case, `Bip01 L UpperArm`).
    pub name: String,
    /// `*NODE_PARENT "…"`; `None` for a root.
    pub parent: Option<String>,
    pub tm: NodeTm,
    /// `*TM_ANIMATION { … }`; `None` when the object has none.
    pub anim: Option<Anim>,
    /// `*MESH { … }` or `*MESH_SOFTSKIN { … }`.
    pub mesh: Option<Mesh>,
    /// `*MESH_ANIMATION { *MESH {…} … }` (morph files): one mesh per frame.
    pub morph: Vec<Mesh>,
    /// `*MATERIAL_REF n`.
    pub material_ref: Option<i64>,
}

/// `*NODE_TM { … }`: the world transform (3ds Max row-vector convention: rows 0..2 are the
/// world axes, row 3 the translation).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NodeTm {
    pub rows: [[f64; 3]; 4],
    pub pos: [f64; 3],
    pub rot_axis: [f64; 3],
    pub rot_angle: f64,
    pub scale: [f64; 3],
    pub scale_axis: [f64; 3],
    pub scale_axis_ang: [f64; 3],
}

/// `*TM_ANIMATION { … }`: world-space samples, one per frame FIRST..=LAST in each non-empty
/// track (GS writes `tick = FIRST + i·TICKSPERFRAME`, a bug every reader ignores: samples are
/// taken by index).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Anim {
    pub pos: Vec<PosKey>,
    pub rot: Vec<RotKey>,
    pub scale: Vec<ScaleKey>,
}

/// `*CONTROL_POS_SAMPLE tick x y z` (world position, Max space, Z up, centimetres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PosKey {
    pub tick: i64,
    pub pos: [f64; 3],
}

/// `*CONTROL_ROT_SAMPLE tick ax ay az angle` (world rotation as a 3ds Max AngAxis, radians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotKey {
    pub tick: i64,
    pub axis: [f64; 3],
    pub angle: f64,
}

/// `*CONTROL_SCALE_SAMPLE tick sx sy sz ax ay az angle`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleKey {
    pub tick: i64,
    pub scale: [f64; 3],
    pub axis: [f64; 3],
    pub angle: f64,
}

/// `*MESH { … }` / `*MESH_SOFTSKIN { … }` (vertices in world space).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// Written as `*MESH_SOFTSKIN`.
    pub softskin: bool,
    pub time_value: i64,
    pub vertices: Vec<[f64; 3]>,
    pub faces: Vec<Face>,
    pub tverts: Vec<[f64; 3]>,
    pub tfaces: Vec<[u32; 3]>,
}

/// `*MESH_FACE i: A: a B: b C: c AB: e BC: e CA: e *MESH_SMOOTHING s *MESH_MTLID m`.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    pub v: [u32; 3],
    pub edges: [u32; 3],
    /// The smoothing groups as written (`1`, `1,2`, or empty).
    pub smoothing: String,
    pub mtlid: Option<i64>,
}

/// `*MESH_SOFTSKINVERTS { mesh  count  n "Bone" w "Bone" w … }`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SoftSkin {
    pub mesh: String,
    /// Per vertex: (bone name, weight).
    pub verts: Vec<Vec<(String, f64)>>,
}

// ---------------------------------------------------------------------------------------------
// Numbers

/// Parse an ASC number (`1.5`, `-0`, `6.27438e-006`, `0.8803620338439941`) as `f64`. Correctly
/// rounded: up to 19 digits and an exponent the powers of ten hold exactly (Clinger's fast
/// path) is computed directly, anything else goes to the standard parser.
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    match scan_number(s) {
        Number::Fast(v, len) => (len == s.len()).then_some(v),
        Number::Slow => slow(s),
        Number::Not => None,
    }
}

/// What [`scan_number`] found at the start of a text.
enum Number {
    /// The value (correctly rounded) of the number spelled by the first `.1` bytes; what
    /// follows them is not part of a number.
    Fast(f64, usize),
    /// Too many digits, or an exponent beyond the fast path: the standard parser decides.
    Slow,
    /// No number: no digit, or an `e` without one.
    Not,
}

/// The number at the start of `s` ([`parse_f64`] is it, over the whole text; the sample lines
/// of `Reader::plain_sample` read their numbers with it straight from the line).
#[inline(always)]
fn scan_number(s: &[u8]) -> Number {
    let mut i = 0;
    let neg = match s.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    // One pass over the digits with no check per digit (the product wraps harmlessly past 19
    // digits, which then go to the standard parser): with a check per digit this was 30 % of
    // `compile`'s instructions.
    let mut mant: u64 = 0;
    let int_start = i;
    while let Some(d) = s.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
        mant = mant.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0usize;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while let Some(d) = s.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
            mant = mant.wrapping_mul(10).wrapping_add(d as u64);
            i += 1;
        }
        frac_digits = i - frac_start;
    }
    if int_digits + frac_digits > 19 {
        return Number::Slow;
    }
    if int_digits + frac_digits == 0 {
        return Number::Not;
    }
    let frac_digits = frac_digits as i32;
    let mut exp: i32 = 0;
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        let eneg = match s.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let st = i;
        while i < s.len() && s[i].is_ascii_digit() {
            if i - st > 6 {
                return Number::Slow;
            }
            exp = exp * 10 + (s[i] - b'0') as i32;
            i += 1;
        }
        if i == st {
            return Number::Not;
        }
        if eneg {
            exp = -exp;
        }
    }
    let e = exp - frac_digits;
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if mant < (1u64 << 53) && (-22..=22).contains(&e) {
        let m = mant as f64;
        let v = if e >= 0 {
            m * POW10[e as usize]
        } else {
            m / POW10[(-e) as usize]
        };
        return Number::Fast(if neg { -v } else { v }, i);
    }
    Number::Slow
}

fn slow(s: &[u8]) -> Option<f64> {
    std::str::from_utf8(s).ok()?.parse::<f64>().ok()
}

/// Bytes as text, one char per byte (Latin-1), so any byte survives a round trip through a
/// `String` ([`to_bytes`] gives them back).
pub fn latin1(b: &[u8]) -> String {
    if b.is_ascii() {
        // SAFETY-free fast path: ASCII is UTF-8.
        return String::from_utf8(b.to_vec()).unwrap_or_default();
    }
    b.iter().map(|&c| c as char).collect()
}

/// The bytes of a [`latin1`] string; `None` when it holds a char above U+00FF.
pub fn to_bytes(s: &str) -> Option<Vec<u8>> {
    if s.is_ascii() {
        return Some(s.as_bytes().to_vec());
    }
    s.chars().map(|c| u8::try_from(c as u32).ok()).collect()
}

// ---------------------------------------------------------------------------------------------
// Reading

/// The typed reader: the file's lines one at a time ([`Lexer`]), only the current line's
/// tokens kept (memory: the model, not the text's tokens).
struct Reader<'a> {
    text: &'a [u8],
    src: Source<'a>,
    /// The current line's tokens.
    toks: Vec<Tok>,
    /// The current line (its tokens are [`Reader::toks`]) and its 0-based index.
    cur: Line,
    cur_at: usize,
    /// Open blocks: (label, opening line index, opening line's indentation).
    path: Vec<(String, usize, Span)>,
    /// The first `}` whose indentation differs from its block's opening line: (its line, the
    /// block's label, the block's line), the likely place of a missing `}`.
    misaligned: Option<(usize, String, usize)>,
}

type R<T> = Result<T, AscError>;

/// Where the reader's lines come from: the bytes, tokenized a line at a time, or a [`Doc`]
/// already tokenized (its lines read in order).
enum Source<'a> {
    Text(Lexer<'a>),
    Doc(&'a Doc, usize),
}

impl Source<'_> {
    /// About how many bytes are left to read (a parsed document's lines: none, only a hint).
    fn remaining(&self) -> usize {
        match self {
            Source::Text(lex) => lex.remaining(),
            Source::Doc(..) => 0,
        }
    }

    /// Lines returned so far.
    fn lines(&self) -> usize {
        match self {
            Source::Text(lex) => lex.lines(),
            Source::Doc(_, i) => *i,
        }
    }

    #[inline]
    fn next_line(&mut self, toks: &mut Vec<Tok>) -> R<Option<Line>> {
        match self {
            Source::Text(lex) => lex.next_line(toks),
            Source::Doc(doc, i) => {
                let Some(&line) = doc.lines.get(*i) else {
                    return Ok(None);
                };
                *i += 1;
                let first = toks.len() as u32;
                toks.extend_from_slice(doc.line_toks(&line));
                Ok(Some(Line { first, ..line }))
            }
        }
    }
}

#[inline]
fn key_is(k: &[u8], want: &str) -> bool {
    k.len() == want.len() && (k == want.as_bytes() || k.eq_ignore_ascii_case(want.as_bytes()))
}

impl<'a> Reader<'a> {
    fn new(text: &'a [u8], src: Source<'a>) -> Reader<'a> {
        Reader {
            text,
            src,
            toks: Vec::with_capacity(64),
            cur: Line {
                indent: Span::default(),
                first: 0,
                count: 0,
                tail: Span::default(),
                eol: Eol::None,
            },
            cur_at: 0,
            path: Vec::new(),
            misaligned: None,
        }
    }

    fn path_text(&self) -> String {
        self.path
            .iter()
            .map(|(l, _, _)| l.as_str())
            .collect::<Vec<_>>()
            .join("/")
    }

    fn err_at(&self, line: usize, column: usize, message: impl Into<String>) -> AscError {
        AscError {
            line: line + 1,
            column,
            path: self.path_text(),
            message: message.into(),
        }
    }

    /// An error at token `tok` of the current line `line`.
    fn err_tok(&self, line: usize, tok: &Tok, message: impl Into<String>) -> AscError {
        debug_assert_eq!(line, self.cur_at);
        let column = (tok.text.start - self.cur.indent.start) as usize + 1;
        self.err_at(line, column, message)
    }

    /// The next line with tokens (its index), or `None` at the end of the file.
    #[inline]
    fn next(&mut self) -> R<Option<usize>> {
        loop {
            self.toks.clear();
            let at = self.src.lines();
            match self.src.next_line(&mut self.toks)? {
                None => return Ok(None),
                Some(l) if l.count > 0 => {
                    self.cur = l;
                    self.cur_at = at;
                    return Ok(Some(at));
                }
                Some(_) => {}
            }
        }
    }

    /// The tokens of the current line `line`.
    #[inline]
    fn toks(&self, line: usize) -> &[Tok] {
        debug_assert_eq!(line, self.cur_at);
        &self.toks
    }

    #[inline]
    fn tok(&self, t: &Tok) -> &'a [u8] {
        &self.text[t.text.range()]
    }

    #[inline]
    fn key(&self, line: usize) -> &'a [u8] {
        let t = &self.toks(line)[0];
        self.tok(t)
    }

    fn opens(&self, line: usize) -> bool {
        let t = self.toks(line);
        t.len() >= 2 && self.tok(&t[t.len() - 1]) == b"{"
    }

    #[inline]
    fn closes(&self, line: usize) -> bool {
        self.key(line) == b"}"
    }

    /// Enter the block the current line `line` opens.
    fn enter(&mut self, line: usize, label: String) {
        debug_assert_eq!(line, self.cur_at);
        self.path.push((label, line, self.cur.indent));
    }

    /// The next line of the current block, or `None` at its `}` (consumed).
    #[inline]
    fn child(&mut self) -> R<Option<usize>> {
        match self.next()? {
            None => {
                let (label, at, _) = self.path.last().cloned().unwrap_or_default();
                let end = self.src.lines();
                if let Some((close, inner, inner_at)) = self.misaligned.clone() {
                    return Err(self.err_at(
                        close,
                        1,
                        format!(
                            "the file ends inside `{label}` opened at line {} (a `}}` is missing); \
                             this `}}` closes `{inner}` of line {} but is not indented like it: \
                             the missing `}}` is probably just before it",
                            at + 1,
                            inner_at + 1
                        ),
                    ));
                }
                Err(self.err_at(
                    end.saturating_sub(1),
                    1,
                    format!(
                        "the file ends inside `{label}` opened at line {} (a `}}` is missing)",
                        at + 1
                    ),
                ))
            }
            Some(l) if self.closes(l) => {
                if self.toks(l).len() > 1 {
                    let t = self.toks(l)[1];
                    return Err(self.err_tok(l, &t, "text after `}`"));
                }
                if let Some((label, at, indent)) = self.path.pop() {
                    if self.misaligned.is_none()
                        && self.text[indent.range()] != self.text[self.cur.indent.range()]
                    {
                        self.misaligned = Some((l, label, at));
                    }
                }
                Ok(None)
            }
            Some(l) => Ok(Some(l)),
        }
    }

    /// The next line read as a sample line `KEY tick v1 … vN` without the tokenizer, when it
    /// is plain: `key` spelled exactly so, then whitespace-separated numbers, no quote
    /// anywhere, the tick whole, every value a number, and a line end after it; then it is
    /// read exactly as [`Reader::child`] and [`Reader::num`] read it (the same tokens, the
    /// same values: tokens after the N values are ignored as there). Any other line (or
    /// a [`Doc`] source) gives `None` and is left for the general path, which reads it or
    /// reports what is wrong with it. The test
    /// `plain_sample_lines_read_as_the_tokenizer_reads_them` ties both.
    #[inline]
    fn plain_sample(&mut self, key: &[u8], n: usize) -> Option<(i64, [f64; 7])> {
        use super::parse::CLASS;
        let Source::Text(lex) = &mut self.src else {
            return None;
        };
        lex.take_line(|line| {
            let mut p = 0;
            while p < line.len() && CLASS[line[p] as usize] == 1 {
                p += 1;
            }
            if !line[p..].starts_with(key) {
                return None;
            }
            p += key.len();
            // (each number read where it stands, in one pass: it must be a whole token, a
            // space or the line's end after it; anything else, e.g. a quote right after the
            // digits or a number the fast path does not read, is left to the general path)
            let mut token = || {
                let start = p;
                if start >= line.len() || CLASS[line[start] as usize] != 1 {
                    return None;
                }
                let mut q = start;
                while q < line.len() && CLASS[line[q] as usize] == 1 {
                    q += 1;
                }
                let Number::Fast(v, len) = scan_number(&line[q..]) else {
                    return None;
                };
                p = q + len;
                (p == line.len() || CLASS[line[p] as usize] == 1).then_some(v)
            };
            let tick = token()?;
            // (a whole number: `fract` is a library call on baseline x86-64, the conversion
            // is exact below 9e15 and NaN fails the comparison)
            if !(tick.abs() <= 9.0e15 && (tick as i64) as f64 == tick) {
                return None;
            }
            let mut v = [0.0; 7];
            for x in v.iter_mut().take(n) {
                *x = token()?;
            }
            // (a quote among the tokens after the values: the tokenizer reads it as a string)
            if memchr::memchr(b'"', &line[p..]).is_some() {
                return None;
            }
            Some((tick as i64, v))
        })
    }

    /// Skip the rest of a block whose opening line was consumed (nested blocks too).
    fn skip_block(&mut self, line: usize) -> R<()> {
        let label = latin1(self.key(line));
        self.enter(line, label);
        while let Some(l) = self.child()? {
            if self.opens(l) {
                self.skip_block(l)?;
            }
        }
        Ok(())
    }

    /// Argument `n` (1-based after the keyword) of `line`.
    #[inline]
    fn arg(&self, line: usize, n: usize, what: &str) -> R<&'a [u8]> {
        let t = self.toks(line);
        match t.get(n) {
            Some(tok) => Ok(self.tok(tok)),
            None => Err(self.lacks(line, what)),
        }
    }

    #[cold]
    fn lacks(&self, line: usize, what: &str) -> AscError {
        let col = (self.cur.tail.start - self.cur.indent.start) as usize + 1;
        self.err_at(
            line,
            col,
            format!("`{}` lacks its {what}", latin1(self.key(line))),
        )
    }

    #[inline]
    fn num(&self, line: usize, n: usize, what: &str) -> R<f64> {
        let text = self.arg(line, n, what)?;
        match parse_f64(text) {
            Some(v) => Ok(v),
            None => Err(self.not_a_number(line, n, what)),
        }
    }

    #[cold]
    fn not_a_number(&self, line: usize, n: usize, what: &str) -> AscError {
        let t = self.toks(line)[n];
        self.err_tok(
            line,
            &t,
            format!(
                "`{}`: {what} `{}` is not a number",
                latin1(self.key(line)),
                latin1(self.tok(&t))
            ),
        )
    }

    fn int(&self, line: usize, n: usize, what: &str) -> R<i64> {
        let v = self.num(line, n, what)?;
        if v.fract() != 0.0 || v.abs() > 9.0e15 {
            let t = self.toks(line)[n];
            return Err(self.err_tok(
                line,
                &t,
                format!(
                    "`{}`: {what} `{}` is not a whole number",
                    latin1(self.key(line)),
                    latin1(self.tok(&t))
                ),
            ));
        }
        Ok(v as i64)
    }

    fn index(&self, line: usize, n: usize, what: &str) -> R<u32> {
        let v = self.int(line, n, what)?;
        u32::try_from(v).map_err(|_| {
            let t = self.toks(line)[n];
            self.err_tok(line, &t, format!("{what} {v} is out of range"))
        })
    }

    fn vec3(&self, line: usize, first: usize, what: &str) -> R<[f64; 3]> {
        Ok([
            self.num(line, first, what)?,
            self.num(line, first + 1, what)?,
            self.num(line, first + 2, what)?,
        ])
    }

    fn string(&self, line: usize, n: usize, what: &str) -> R<String> {
        let t = self.arg(line, n, what)?;
        Ok(latin1(unquote(t)))
    }

    fn expect_open(&self, line: usize) -> R<()> {
        if self.opens(line) {
            Ok(())
        } else {
            let col = (self.cur.tail.start - self.cur.indent.start) as usize + 1;
            Err(self.err_at(
                line,
                col,
                format!("`{}` must open a block with `{{`", latin1(self.key(line))),
            ))
        }
    }
}

/// A quoted token without its quotes (an unquoted one as it is).
pub fn unquote(t: &[u8]) -> &[u8] {
    if t.len() >= 2 && t[0] == b'"' && t[t.len() - 1] == b'"' {
        &t[1..t.len() - 1]
    } else {
        t
    }
}

impl Model {
    /// Read and check the typed view of `doc` (its tokens as they are, edits included).
    pub fn from_doc(doc: &Doc) -> Result<Model, AscError> {
        Model::read(Reader::new(&doc.text, Source::Doc(doc, 0)))
    }

    /// Read and check the typed view of an ASC file's bytes, without keeping its text: the
    /// lines are tokenized one at a time (what `compile` and `asc import` need; the lossless
    /// [`Doc`] is for printing back).
    pub fn parse(data: &[u8]) -> Result<Model, AscError> {
        let (_, body) = super::parse::body(data)?;
        Model::read(Reader::new(body, Source::Text(Lexer::new(body))))
    }

    fn read(mut r: Reader<'_>) -> Result<Model, AscError> {
        let mut m = Model::default();
        let mut have_version = false;
        let mut have_scene = false;
        while let Some(l) = r.next()? {
            let k = r.key(l);
            if !have_version {
                if !key_is(k, "*3DSMAX_ASCIIEXPORT") {
                    let t = r.toks(l)[0];
                    return Err(r.err_tok(l, &t, "an ASC file starts with `*3DSMAX_ASCIIEXPORT`"));
                }
                m.export_version = r.int(l, 1, "version")?;
                have_version = true;
                continue;
            }
            if k == b"}" {
                let t = r.toks(l)[0];
                return Err(r.err_tok(l, &t, "this `}` closes no block"));
            } else if key_is(k, "*COMMENT") {
                m.comment = Some(r.string(l, 1, "text")?);
            } else if key_is(k, "*SCENE") {
                r.expect_open(l)?;
                m.scene = read_scene(&mut r, l)?;
                have_scene = true;
            } else if key_is(k, "*HELPEROBJECT") || key_is(k, "*GEOMOBJECT") {
                r.expect_open(l)?;
                let kind = if key_is(k, "*HELPEROBJECT") {
                    ObjectKind::Helper
                } else {
                    ObjectKind::Geom
                };
                let o = read_object(&mut r, l, kind, &m.scene, have_scene)?;
                m.objects.push(o);
            } else if key_is(k, "*MESH_SOFTSKINVERTS") {
                r.expect_open(l)?;
                m.softskins.push(read_softskin(&mut r, l)?);
            } else {
                let raw = read_raw(&mut r, l)?;
                m.extra.push(Extra {
                    before_object: m.objects.len(),
                    raw,
                });
            }
        }
        if !have_version {
            return Err(AscError {
                line: 1,
                column: 1,
                path: String::new(),
                message: "empty file: an ASC file starts with `*3DSMAX_ASCIIEXPORT`".into(),
            });
        }
        Ok(m)
    }

    /// The object named `name` (exact case first, then case-insensitively).
    pub fn object(&self, name: &str) -> Option<&Object> {
        self.objects.iter().find(|o| o.name == name).or_else(|| {
            self.objects
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(name))
        })
    }
}

fn read_raw(r: &mut Reader<'_>, l: usize) -> R<Raw> {
    let toks = r.toks(l);
    let opens = r.opens(l);
    let n = if opens { toks.len() - 1 } else { toks.len() };
    let texts = toks[..n].iter().map(|t| latin1(r.tok(t))).collect();
    let children = if opens {
        r.enter(l, latin1(r.key(l)));
        let mut c = Vec::new();
        while let Some(k) = r.child()? {
            c.push(read_raw(r, k)?);
        }
        Some(c)
    } else {
        None
    };
    Ok(Raw {
        toks: texts,
        children,
    })
}

fn read_scene(r: &mut Reader<'_>, open: usize) -> R<Scene> {
    r.enter(open, "*SCENE".into());
    let mut s = Scene {
        frame_speed: 25.0,
        ticks_per_frame: 192,
        ..Scene::default()
    };
    while let Some(l) = r.child()? {
        let k = r.key(l);
        if key_is(k, "*SCENE_FILENAME") {
            s.filename = r.string(l, 1, "name")?;
        } else if key_is(k, "*SCENE_FIRSTFRAME") {
            s.first_frame = r.int(l, 1, "frame")?;
        } else if key_is(k, "*SCENE_LASTFRAME") {
            s.last_frame = r.int(l, 1, "frame")?;
        } else if key_is(k, "*SCENE_FRAMESPEED") {
            s.frame_speed = r.num(l, 1, "speed")?;
        } else if key_is(k, "*SCENE_TICKSPERFRAME") {
            s.ticks_per_frame = r.int(l, 1, "ticks")?;
        } else if key_is(k, "*SCENE_BACKGROUND_STATIC") {
            s.background = r.vec3(l, 1, "colour")?;
        } else if key_is(k, "*SCENE_AMBIENT_STATIC") {
            s.ambient = r.vec3(l, 1, "colour")?;
        } else if r.opens(l) {
            r.skip_block(l)?;
        }
    }
    if s.last_frame < s.first_frame {
        return Err(r.err_at(
            open,
            1,
            format!(
                "*SCENE: SCENE_LASTFRAME {} is before SCENE_FIRSTFRAME {}",
                s.last_frame, s.first_frame
            ),
        ));
    }
    Ok(s)
}

fn is_object_key(k: &[u8]) -> bool {
    key_is(k, "*HELPEROBJECT") || key_is(k, "*GEOMOBJECT")
}

fn read_object(
    r: &mut Reader<'_>,
    open: usize,
    kind: ObjectKind,
    scene: &Scene,
    have_scene: bool,
) -> R<Object> {
    let label = latin1(r.key(open));
    r.enter(open, label.clone());
    let mut o = Object {
        kind,
        name: String::new(),
        parent: None,
        tm: NodeTm::default(),
        anim: None,
        mesh: None,
        morph: Vec::new(),
        material_ref: None,
    };
    let mut have_name = false;
    while let Some(l) = r.child()? {
        let k = r.key(l);
        if key_is(k, "*NODE_NAME") {
            o.name = r.string(l, 1, "name")?;
            have_name = true;
            if let Some(p) = r.path.last_mut() {
                p.0 = format!("{label} \"{}\"", o.name);
            }
        } else if key_is(k, "*NODE_PARENT") {
            o.parent = Some(r.string(l, 1, "name")?);
        } else if key_is(k, "*NODE_TM") {
            r.expect_open(l)?;
            o.tm = read_tm(r, l)?;
        } else if key_is(k, "*TM_ANIMATION") {
            r.expect_open(l)?;
            if !have_scene {
                let t = r.toks(l)[0];
                return Err(r.err_tok(l, &t, "`*TM_ANIMATION` before `*SCENE`"));
            }
            o.anim = Some(read_anim(r, l, scene)?);
        } else if key_is(k, "*MESH") || key_is(k, "*MESH_SOFTSKIN") {
            r.expect_open(l)?;
            o.mesh = Some(read_mesh(r, l)?);
        } else if key_is(k, "*MESH_ANIMATION") {
            r.expect_open(l)?;
            r.enter(l, "*MESH_ANIMATION".into());
            while let Some(m) = r.child()? {
                if key_is(r.key(m), "*MESH") {
                    r.expect_open(m)?;
                    o.morph.push(read_mesh(r, m)?);
                } else if r.opens(m) {
                    r.skip_block(m)?;
                }
            }
        } else if key_is(k, "*MATERIAL_REF") {
            o.material_ref = Some(r.int(l, 1, "index")?);
        } else if is_object_key(k) {
            let t = r.toks(l)[0];
            return Err(r.err_tok(
                l,
                &t,
                "a new object starts inside this one: a `}` is missing before this line",
            ));
        } else if r.opens(l) {
            r.skip_block(l)?;
        }
    }
    if !have_name {
        return Err(r.err_at(open, 1, format!("`{label}` has no `*NODE_NAME`")));
    }
    Ok(o)
}

fn read_tm(r: &mut Reader<'_>, open: usize) -> R<NodeTm> {
    r.enter(open, "*NODE_TM".into());
    let mut tm = NodeTm::default();
    while let Some(l) = r.child()? {
        let k = r.key(l);
        if key_is(k, "*TM_ROW0") {
            tm.rows[0] = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_ROW1") {
            tm.rows[1] = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_ROW2") {
            tm.rows[2] = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_ROW3") {
            tm.rows[3] = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_POS") {
            tm.pos = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_ROTAXIS") {
            tm.rot_axis = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_ROTANGLE") {
            tm.rot_angle = r.num(l, 1, "value")?;
        } else if key_is(k, "*TM_SCALE") {
            tm.scale = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_SCALEAXIS") {
            tm.scale_axis = r.vec3(l, 1, "value")?;
        } else if key_is(k, "*TM_SCALEAXISANG") {
            // GS writes three values, 3ds Max one.
            let n = r.toks(l).len() - 1;
            for j in 0..n.min(3) {
                tm.scale_axis_ang[j] = r.num(l, 1 + j, "value")?;
            }
        } else if r.opens(l) {
            r.skip_block(l)?;
        }
    }
    Ok(tm)
}

/// The fewest bytes a sample line can take (`*CONTROL_POS_SAMPLE 0 0 0 0` and its line end).
const MIN_SAMPLE_LINE: usize = 28;

fn read_anim(r: &mut Reader<'_>, open: usize, scene: &Scene) -> R<Anim> {
    r.enter(open, "*TM_ANIMATION".into());
    let mut a = Anim::default();
    while let Some(l) = r.child()? {
        let k = r.key(l);
        let which = if key_is(k, "*CONTROL_POS_TRACK") {
            0
        } else if key_is(k, "*CONTROL_ROT_TRACK") {
            1
        } else if key_is(k, "*CONTROL_SCALE_TRACK") {
            2
        } else {
            if is_object_key(k) {
                let t = r.toks(l)[0];
                return Err(r.err_tok(
                    l,
                    &t,
                    "a new object starts inside `*TM_ANIMATION`: a `}` is missing before this line",
                ));
            }
            if r.opens(l) {
                r.skip_block(l)?;
            }
            continue;
        };
        r.expect_open(l)?;
        let label = latin1(k);
        r.enter(l, label.clone());
        let sample = [
            "*CONTROL_POS_SAMPLE",
            "*CONTROL_ROT_SAMPLE",
            "*CONTROL_SCALE_SAMPLE",
        ][which];
        // (a position or rotation track holds a sample per frame: room for them at once,
        // instead of the vector growing by doubling; at most as many as the rest of the text
        // could hold, so a damaged frame range cannot make a large allocation)
        let room = usize::try_from(scene.frame_count())
            .unwrap_or(0)
            .min(r.src.remaining() / MIN_SAMPLE_LINE);
        match which {
            0 => a.pos.reserve_exact(room),
            1 => a.rot.reserve_exact(room),
            _ => {}
        }
        let mut count = 0i64;
        loop {
            // (most of an animation ASC is these lines: read straight from the text where
            // they are plain, see `Reader::plain_sample`)
            let values = [3, 4, 7][which];
            if let Some((tick, v)) = r.plain_sample(sample.as_bytes(), values) {
                match which {
                    0 => a.pos.push(PosKey {
                        tick,
                        pos: [v[0], v[1], v[2]],
                    }),
                    1 => a.rot.push(RotKey {
                        tick,
                        axis: [v[0], v[1], v[2]],
                        angle: v[3],
                    }),
                    _ => a.scale.push(ScaleKey {
                        tick,
                        scale: [v[0], v[1], v[2]],
                        axis: [v[3], v[4], v[5]],
                        angle: v[6],
                    }),
                }
                count += 1;
                continue;
            }
            let Some(s) = r.child()? else { break };
            if !key_is(r.key(s), sample) {
                let t = r.toks(s)[0];
                return Err(r.err_tok(
                    s,
                    &t,
                    format!(
                        "expected `{sample}` or the track's closing `}}`, found `{}`",
                        latin1(r.key(s))
                    ),
                ));
            }
            let tick = r.int(s, 1, "tick")?;
            match which {
                0 => a.pos.push(PosKey {
                    tick,
                    pos: r.vec3(s, 2, "value")?,
                }),
                1 => a.rot.push(RotKey {
                    tick,
                    axis: r.vec3(s, 2, "axis")?,
                    angle: r.num(s, 5, "angle")?,
                }),
                _ => a.scale.push(ScaleKey {
                    tick,
                    scale: r.vec3(s, 2, "scale")?,
                    axis: r.vec3(s, 5, "axis")?,
                    angle: r.num(s, 8, "angle")?,
                }),
            }
            count += 1;
        }
        // Position and rotation tracks hold one sample per frame (or none).
        if which < 2 && count != 0 && count != scene.frame_count() {
            r.path.push((label, l, Span::default()));
            let e = r.err_at(
                l,
                1,
                format!(
                    "{count} samples, but the scene's range {}..={} has {} frames",
                    scene.first_frame,
                    scene.last_frame,
                    scene.frame_count()
                ),
            );
            return Err(e);
        }
    }
    Ok(a)
}

fn read_mesh(r: &mut Reader<'_>, open: usize) -> R<Mesh> {
    let label = latin1(r.key(open));
    let softskin = key_is(r.key(open), "*MESH_SOFTSKIN");
    r.enter(open, label);
    let mut m = Mesh {
        softskin,
        ..Mesh::default()
    };
    let mut declared: [Option<(i64, usize)>; 4] = [None; 4];
    while let Some(l) = r.child()? {
        let k = r.key(l);
        if key_is(k, "*TIMEVALUE") {
            m.time_value = r.int(l, 1, "time")?;
        } else if key_is(k, "*MESH_NUMVERTEX") {
            declared[0] = Some((r.int(l, 1, "count")?, l));
        } else if key_is(k, "*MESH_NUMFACES") {
            declared[1] = Some((r.int(l, 1, "count")?, l));
        } else if key_is(k, "*MESH_NUMTVERTEX") {
            declared[2] = Some((r.int(l, 1, "count")?, l));
        } else if key_is(k, "*MESH_NUMTVFACES") {
            declared[3] = Some((r.int(l, 1, "count")?, l));
        } else if key_is(k, "*MESH_VERTEX_LIST") || key_is(k, "*MESH_TVERTLIST") {
            r.expect_open(l)?;
            let tv = key_is(k, "*MESH_TVERTLIST");
            let (label, item) = if tv {
                ("*MESH_TVERTLIST", "*MESH_TVERT")
            } else {
                ("*MESH_VERTEX_LIST", "*MESH_VERTEX")
            };
            r.enter(l, label.into());
            while let Some(v) = r.child()? {
                list_item(r, v, item)?;
                let p = r.vec3(v, 2, "coordinate")?;
                if tv {
                    m.tverts.push(p);
                } else {
                    m.vertices.push(p);
                }
            }
        } else if key_is(k, "*MESH_FACE_LIST") {
            r.expect_open(l)?;
            r.enter(l, "*MESH_FACE_LIST".into());
            while let Some(f) = r.child()? {
                list_item(r, f, "*MESH_FACE")?;
                m.faces.push(read_face(r, f)?);
            }
        } else if key_is(k, "*MESH_TFACELIST") {
            r.expect_open(l)?;
            r.enter(l, "*MESH_TFACELIST".into());
            while let Some(f) = r.child()? {
                list_item(r, f, "*MESH_TFACE")?;
                m.tfaces.push([
                    r.index(f, 2, "vertex")?,
                    r.index(f, 3, "vertex")?,
                    r.index(f, 4, "vertex")?,
                ]);
            }
        } else if r.opens(l) {
            r.skip_block(l)?;
        }
    }
    let have = [
        m.vertices.len(),
        m.faces.len(),
        m.tverts.len(),
        m.tfaces.len(),
    ];
    let names = [
        "*MESH_NUMVERTEX",
        "*MESH_NUMFACES",
        "*MESH_NUMTVERTEX",
        "*MESH_NUMTVFACES",
    ];
    for j in 0..4 {
        if let Some((n, line)) = declared[j] {
            if n != have[j] as i64 {
                return Err(r.err_at(
                    line,
                    1,
                    format!("{} says {n}, the list holds {}", names[j], have[j]),
                ));
            }
        }
    }
    Ok(m)
}

fn list_item(r: &Reader<'_>, line: usize, item: &str) -> R<()> {
    if key_is(r.key(line), item) {
        return Ok(());
    }
    let t = r.toks(line)[0];
    Err(r.err_tok(
        line,
        &t,
        format!(
            "expected `{item}` or the list's closing `}}`, found `{}`",
            latin1(r.key(line))
        ),
    ))
}

fn read_face(r: &Reader<'_>, l: usize) -> R<Face> {
    // *MESH_FACE 0: A: 137 B: 190 C: 50 AB: 1 BC: 1 CA: 1 *MESH_SMOOTHING 1 *MESH_MTLID 0
    let toks = r.toks(l);
    let labels = ["A:", "B:", "C:", "AB:", "BC:", "CA:"];
    let mut vals = [0u32; 6];
    for (j, want) in labels.iter().enumerate() {
        let at = 2 + 2 * j;
        let got = r.arg(l, at, want)?;
        if !got.eq_ignore_ascii_case(want.as_bytes()) {
            let t = toks[at];
            return Err(r.err_tok(l, &t, format!("expected `{want}`, found `{}`", latin1(got))));
        }
        vals[j] = r.index(l, at + 1, want)?;
    }
    let mut smoothing = String::new();
    let mut mtlid = None;
    let mut j = 14;
    while j < toks.len() {
        let t = r.tok(&toks[j]);
        if key_is(t, "*MESH_SMOOTHING") {
            j += 1;
            let mut parts = Vec::new();
            while j < toks.len() && !r.tok(&toks[j]).starts_with(b"*") {
                parts.push(latin1(r.tok(&toks[j])));
                j += 1;
            }
            smoothing = parts.join(" ");
            continue;
        }
        if key_is(t, "*MESH_MTLID") {
            mtlid = Some(r.int(l, j + 1, "material id")?);
            j += 2;
            continue;
        }
        j += 1;
    }
    Ok(Face {
        v: [vals[0], vals[1], vals[2]],
        edges: [vals[3], vals[4], vals[5]],
        smoothing,
        mtlid,
    })
}

fn read_softskin(r: &mut Reader<'_>, open: usize) -> R<SoftSkin> {
    r.enter(open, "*MESH_SOFTSKINVERTS".into());
    let mut s = SoftSkin::default();
    let mut state = 0;
    let mut declared: Option<(i64, usize)> = None;
    while let Some(l) = r.child()? {
        match state {
            0 => {
                s.mesh = latin1(unquote(r.key(l)));
                state = 1;
            }
            1 => {
                declared = Some((r.int(l, 0, "vertex count")?, l));
                state = 2;
            }
            _ => {
                let n = r.index(l, 0, "weight count")? as usize;
                let toks = r.toks(l);
                if toks.len() != 1 + 2 * n {
                    let t = toks[0];
                    return Err(r.err_tok(
                        l,
                        &t,
                        format!(
                            "{n} weights need {} values, the line has {}",
                            2 * n,
                            toks.len() - 1
                        ),
                    ));
                }
                let mut v = Vec::with_capacity(n);
                for j in 0..n {
                    v.push((
                        r.string(l, 1 + 2 * j, "bone")?,
                        r.num(l, 2 + 2 * j, "weight")?,
                    ));
                }
                s.verts.push(v);
            }
        }
    }
    if let Some((n, line)) = declared {
        if n != s.verts.len() as i64 {
            return Err(r.err_at(
                line,
                1,
                format!(
                    "*MESH_SOFTSKINVERTS: {n} vertices declared, {} listed",
                    s.verts.len()
                ),
            ));
        }
    }
    Ok(s)
}

/// The line of `doc` with index `i` (for callers that report positions).
pub fn line(doc: &Doc, i: usize) -> &Line {
    &doc.lines[i]
}
