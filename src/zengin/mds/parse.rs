//! The MDS parser: tokens ([`crate::zengin::mds::lex`]) → [`Script`], with the engine's rules (spec
//! §5.5) and ZenKit's tolerance (§5.1–5.2). Every quirk becomes a [`Warning`] with line and
//! column; a missing required argument is a [`ParseError`] naming what was expected.
//!
//! Statement arguments end at `)` or, when that is missing, at the end of the line (the engine
//! is line based). Every loop consumes at least one token per turn, so no input can hang it.

use crate::exact::F32;
pub use crate::zengin::mds::lex::engine_float;
use crate::zengin::mds::lex::{
    count_newlines, engine_int, event_position, line_col, tokenize_for_parse, Kind, Token,
};
use crate::zengin::mds::*;
use crate::zengin::stext::ShortText as Text;
use args::ArgReader;
use std::fmt;

mod args;

/// A quirk the parser tolerated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub column: usize,
    /// Borrowed when fixed (no allocation for the warnings every block of a long script may
    /// give, such as "more than 16 events").
    pub message: std::borrow::Cow<'static, str>,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// A script that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The parse stopped at the error in [`Parser::failed`]. speed: a zero-sized error keeps the
/// argument reads' results small (a `Result<i32, ParseError>` is 56 bytes, in memory).
#[derive(Debug)]
struct Stop;

/// A significant token and whether a line break precedes it.
#[derive(Clone, Copy)]
struct Sig {
    tok: Token,
    nl_before: bool,
    /// Line number, from 0.
    line: u32,
}

/// What an argument is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgKind {
    Str,
    Num,
    Word,
    /// `KEY:value`.
    Kv,
    /// Read already.
    Taken,
}

/// One argument of a statement, as byte ranges of the source. speed: 20 bytes, copied freely
/// (the form with borrowed slices was 40 bytes in an `Option`).
#[derive(Debug, Clone, Copy)]
struct Arg {
    kind: ArgKind,
    /// Where the argument starts (its token, or the key of `KEY:value`).
    off: u32,
    /// The end of the key of `KEY:value`.
    key_end: u32,
    /// The value: a string without its quotes, a number, a word, or the value of `KEY:value`.
    start: u32,
    end: u32,
}

impl Arg {
    fn new(kind: ArgKind, off: u32, start: u32, end: u32) -> Self {
        Arg {
            kind,
            off,
            key_end: off,
            start,
            end,
        }
    }
    fn offset(&self) -> usize {
        self.off as usize
    }
    fn value<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.start as usize..self.end as usize]
    }
    fn describe(&self, src: &[u8]) -> String {
        let v = Text::new(self.value(src));
        match self.kind {
            ArgKind::Str => format!("the string \"{v}\""),
            ArgKind::Num => format!("the number {v}"),
            ArgKind::Word | ArgKind::Taken => format!("the word {v}"),
            ArgKind::Kv => format!(
                "{}:{v}",
                Text::new(&src[self.off as usize..self.key_end as usize])
            ),
        }
    }
}

struct Parser<'a> {
    src: &'a [u8],
    /// The tokens (without whitespace runs); `p` is always at a significant one (or the end).
    toks: Vec<Token>,
    p: usize,
    /// A line break lies between the previous significant token and `p`.
    nl: bool,
    /// Line (from 0) of the token at `p`.
    line: u32,
    /// End offset of the last consumed significant token.
    prev_end: usize,
    warnings: Vec<Warning>,
    /// Where the line of the token at `p` starts: line and column of a warning are counted from
    /// here (a line table built on the first warning was 4 % of parsing a 930 KB script).
    line_start: usize,
    /// Recycled argument buffer (one allocation for all statements).
    arg_buf: Vec<Arg>,
    /// Recycled event list: a block's events are collected here and moved into a list of
    /// exactly their number (no regrowing per block).
    ev_buf: Vec<Event>,
    /// Lines (from 0, ascending) with `//` after code: the engine skips them entirely.
    slash_lines: Vec<u32>,
    /// The error that stopped the parse (see [`Stop`]).
    failed: Option<ParseError>,
}

fn eq_kw(text: &[u8], kw: &str) -> bool {
    text.eq_ignore_ascii_case(kw.as_bytes())
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Sig> {
        self.toks.get(self.p).map(|&tok| Sig {
            tok,
            nl_before: self.nl,
            line: self.line,
        })
    }
    /// Move past comments and line breaks to the next significant token.
    fn settle(&mut self) {
        while let Some(t) = self.toks.get(self.p) {
            match t.kind {
                Kind::Newline => {
                    self.nl = true;
                    self.line += 1;
                    self.line_start = t.end as usize;
                }
                Kind::Comment | Kind::Space => {}
                _ => break,
            }
            self.p += 1;
        }
    }
    /// Consume the current significant token.
    fn bump(&mut self) {
        if let Some(t) = self.toks.get(self.p) {
            self.prev_end = t.end as usize;
            self.p += 1;
            self.nl = false;
            self.settle();
        }
    }
    /// The significant token after the current one (and whether a line break precedes it).
    fn peek_second(&self) -> Option<Sig> {
        let mut k = self.p + 1;
        let mut nl = false;
        while let Some(&tok) = self.toks.get(k) {
            match tok.kind {
                Kind::Newline => nl = true,
                Kind::Comment | Kind::Space => {}
                _ => {
                    return Some(Sig {
                        tok,
                        nl_before: nl,
                        line: 0,
                    })
                }
            }
            k += 1;
        }
        None
    }
    fn text(&self, t: Token) -> &'a [u8] {
        t.text(self.src)
    }
    fn at_offset(&self) -> usize {
        self.peek().map_or(self.src.len(), |s| s.tok.start as usize)
    }
    /// Line and column (from 1) of `offset`, counted from the start of the current line
    /// (warnings are about the current or the previous lines, so this scans a few bytes).
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let (src, off, ls) = (self.src, offset.min(self.src.len()), self.line_start);
        let line = self.line as usize + 1;
        let (line, last_nl) = if off >= ls {
            let seg = &src[ls..off];
            (
                line + count_newlines(seg),
                seg.iter().rposition(|&b| b == b'\n').map(|p| ls + p),
            )
        } else {
            let last = src[..off].iter().rposition(|&b| b == b'\n');
            (line - count_newlines(&src[off..ls]), last)
        };
        match last_nl {
            Some(p) => (line, off - p),
            None if off >= ls => (line, off - ls + 1),
            None => (line, off + 1),
        }
    }
    fn warn(&mut self, offset: usize, message: impl Into<std::borrow::Cow<'static, str>>) {
        let (line, column) = self.line_col(offset);
        self.warnings.push(Warning {
            line,
            column,
            message: message.into(),
        });
    }
    /// Stop the parse with `e`.
    fn stop(&mut self, e: ParseError) -> Stop {
        self.failed = Some(e);
        Stop
    }
    fn error(&self, offset: usize, message: impl Into<String>) -> ParseError {
        let (line, column) = line_col(self.src, offset);
        ParseError {
            offset,
            line,
            column,
            message: message.into(),
        }
    }
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(s) => format!("`{}`", Text::new(self.text(s.tok))),
        }
    }
    /// Skip the rest of the current line (at least one token).
    fn skip_line(&mut self) {
        self.bump();
        while let Some(s) = self.peek() {
            if s.nl_before {
                break;
            }
            self.bump();
        }
    }
    fn skip_semicolons(&mut self) {
        while let Some(s) = self.peek() {
            if s.tok.kind == Kind::Semicolon {
                self.bump();
            } else {
                break;
            }
        }
    }
    /// The arguments after a statement keyword (the keyword is consumed already).
    fn args(&mut self, keyword: &str, kw_offset: usize) -> Vec<Arg> {
        let mut opens = 0;
        while let Some(s) = self.peek() {
            if s.tok.kind == Kind::LParen && (opens == 0 || !s.nl_before) {
                if opens == 1 {
                    self.warn(
                        s.tok.start as usize,
                        format!("{keyword}: extra `(` ignored"),
                    );
                }
                opens += 1;
                self.bump();
            } else {
                break;
            }
        }
        if opens == 0 {
            self.warn(kw_offset, format!("{keyword}: `(` missing"));
        }
        let mut args = std::mem::take(&mut self.arg_buf);
        args.clear();
        loop {
            let Some(s) = self.peek() else {
                self.warn(
                    self.src.len(),
                    format!("{keyword}: `)` missing at the end of the file"),
                );
                break;
            };
            let t = s.tok;
            let off = t.start as usize;
            if s.nl_before || matches!(t.kind, Kind::LBrace | Kind::RBrace) {
                // Point at the end of the statement's line.
                let at = if s.nl_before { self.prev_end } else { off };
                self.warn(at, format!("{keyword}: `)` missing"));
                break;
            }
            self.bump();
            match t.kind {
                Kind::RParen => break,
                Kind::Str => {
                    if t.unterminated(self.src) {
                        self.warn(off, "string not terminated (it ends at the line end)");
                    }
                    // the value without the quotes (an unterminated string has only the first)
                    let end = t.end - u32::from(!t.unterminated(self.src));
                    args.push(Arg::new(ArgKind::Str, t.start, t.start + 1, end));
                }
                Kind::Number => args.push(Arg::new(ArgKind::Num, t.start, t.start, t.end)),
                Kind::Word => {
                    // KEY:value
                    if let (Some(c), Some(v)) = (self.peek(), self.peek_second()) {
                        if c.tok.kind == Kind::Colon
                            && !c.nl_before
                            && !v.nl_before
                            && matches!(v.tok.kind, Kind::Number | Kind::Word)
                        {
                            self.bump();
                            self.bump();
                            args.push(Arg {
                                kind: ArgKind::Kv,
                                off: t.start,
                                key_end: t.end,
                                start: v.tok.start,
                                end: v.tok.end,
                            });
                            continue;
                        }
                    }
                    // A flag word with `:` for "not set" (`M:`, SWAMPRAT.MSB): the engine
                    // stores the text as written, colon included.
                    if let Some(c) = self.peek() {
                        let word = self.text(t);
                        if c.tok.kind == Kind::Colon
                            && c.tok.start == t.end
                            && word.iter().all(|b| b"MREFIP.mrefip:".contains(b))
                        {
                            self.bump();
                            args.push(Arg::new(ArgKind::Word, t.start, t.start, c.tok.end));
                            continue;
                        }
                    }
                    args.push(Arg::new(ArgKind::Word, t.start, t.start, t.end));
                }
                Kind::Colon => self.warn(off, format!("{keyword}: stray `:` ignored")),
                Kind::Semicolon => {}
                Kind::LParen => {
                    self.warn(off, format!("{keyword}: `(` inside the arguments ignored"))
                }
                _ => self.warn(
                    off,
                    format!(
                        "{keyword}: illegal character `{}` ignored",
                        Text::new(self.text(t))
                    ),
                ),
            }
        }
        // Extra `)` on the same line.
        while let Some(s) = self.peek() {
            if s.tok.kind == Kind::RParen && !s.nl_before {
                self.warn(
                    s.tok.start as usize,
                    format!("{keyword}: extra `)` ignored"),
                );
                self.bump();
            } else {
                break;
            }
        }
        args
    }

    fn parse_script(&mut self) -> Result<Script, Stop> {
        self.skip_semicolons();
        let Some(s) = self.peek() else {
            return Err(self.stop(self.error(
                self.src.len(),
                "expected `Model(\"name\")`, found an empty file",
            )));
        };
        if !(s.tok.kind == Kind::Word && eq_kw(self.text(s.tok), "model")) {
            return Err(self.stop(self.error(
                s.tok.start as usize,
                format!("expected `Model(\"name\")`, found {}", self.found()),
            )));
        }
        self.bump();
        let kw_off = s.tok.start as usize;
        let args = self.args("Model", kw_off);
        let mut r = ArgReader::new(self, "Model", kw_off, args);
        let model = r.string("the model name")?;
        r.finish();
        let mut items = Vec::new();
        match self.peek() {
            Some(s) if s.tok.kind == Kind::LBrace => self.bump(),
            _ => {
                let off = self.at_offset();
                self.warn(off, "Model: `{` missing");
            }
        }
        loop {
            self.skip_semicolons();
            let Some(s) = self.peek() else {
                self.warn(self.src.len(), "Model: `}` missing at the end of the file");
                break;
            };
            let t = s.tok;
            let off = t.start as usize;
            let text = self.text(t);
            if t.kind == Kind::RBrace {
                self.bump();
                break;
            }
            if t.kind != Kind::Word {
                self.warn(
                    off,
                    format!("unexpected {} in Model; line skipped", self.found()),
                );
                self.skip_line();
                continue;
            }
            if eq_kw(text, "meshAndTree") || eq_kw(text, "registerMesh") {
                let is_mesh = eq_kw(text, "meshAndTree");
                let kw = if is_mesh {
                    "meshAndTree"
                } else {
                    "registerMesh"
                };
                self.bump();
                let args = self.args(kw, off);
                let skipped = self.engine_skips(s.line, off, kw);
                let mut r = ArgReader::new(self, kw, off, args);
                let asc = r.string("the ASC file name")?;
                let item = if is_mesh {
                    let dont = r.flag_word(&["DONT_USE_MESH"]);
                    ModelItem::MeshAndTree(MeshAndTree {
                        asc,
                        dont_use_mesh: dont,
                    })
                } else {
                    ModelItem::RegisterMesh(RegisterMesh { asc })
                };
                r.finish();
                if !skipped {
                    items.push(item);
                }
            } else if eq_kw(text, "aniEnum") {
                self.bump();
                match self.peek() {
                    Some(s) if s.tok.kind == Kind::LBrace => self.bump(),
                    _ => {
                        let o = self.at_offset();
                        self.warn(o, "aniEnum: `{` missing");
                    }
                }
                let list = self.parse_ani_enum()?;
                items.push(ModelItem::AniEnum(list));
            } else {
                self.warn(
                    off,
                    format!(
                        "unknown statement `{}` in Model; line skipped",
                        Text::new(text)
                    ),
                );
                self.skip_line();
            }
        }
        if let Some(s) = self.peek() {
            self.warn(s.tok.start as usize, "text after the end of Model ignored");
            self.p = self.toks.len();
        }
        Ok(Script { model, items })
    }

    /// The engine skips any line that contains `//`: so does compile; warn about it.
    fn engine_skips(&mut self, line: u32, off: usize, kw: &str) -> bool {
        if self.slash_lines.binary_search(&line).is_ok() {
            self.warn(
                off,
                format!("{kw}: this line contains `//`, so the engine skips the whole statement (animkit does too)"),
            );
            true
        } else {
            false
        }
    }

    fn parse_ani_enum(&mut self) -> Result<Vec<AniItem>, Stop> {
        // Room for every statement at once (a statement is at least 16 tokens with spaces
        // and its line break; the unused rest is never touched): grown by doubling, the
        // copies were a tenth of parsing a 2.3 MB script of 27,000 statements.
        let mut items: Vec<AniItem> =
            Vec::with_capacity(self.toks.len().saturating_sub(self.p) / 16);
        loop {
            self.skip_semicolons();
            let Some(s) = self.peek() else {
                self.warn(
                    self.src.len(),
                    "aniEnum: `}` missing at the end of the file",
                );
                break;
            };
            let t = s.tok;
            let off = t.start as usize;
            if t.kind == Kind::RBrace {
                self.bump();
                break;
            }
            if t.kind == Kind::LBrace {
                // An event block after a statement that has one already, or after none.
                self.warn(
                    off,
                    "`{` without a statement that takes events; block skipped",
                );
                self.skip_block();
                continue;
            }
            let text = self.text(t);
            if t.kind == Kind::Word && text.first() == Some(&b'*') {
                let o = off;
                let skipped = self.engine_skips(s.line, off, "event");
                let ev = self.parse_event()?;
                match (ev, items.last_mut().and_then(AniItem::events_mut)) {
                    (Some(ev), Some(slot)) if !skipped => {
                        self.warn(
                            o,
                            "event outside `{ }`: attached to the statement before it",
                        );
                        slot.get_or_insert_with(Vec::new).push(ev);
                    }
                    (Some(_), _) if !skipped => {
                        self.warn(o, "event without an animation before it; ignored")
                    }
                    _ => {}
                }
                continue;
            }
            if t.kind != Kind::Word {
                self.warn(
                    off,
                    format!("unexpected {} in aniEnum; line skipped", self.found()),
                );
                self.skip_line();
                continue;
            }
            let Some(kind) = ANI_KEYWORD_LIST.iter().position(|k| eq_kw(text, k)) else {
                self.warn(
                    off,
                    format!(
                        "unknown statement `{}` in aniEnum; line skipped",
                        Text::new(text)
                    ),
                );
                self.skip_line();
                continue;
            };
            let kw = ANI_KEYWORD_LIST[kind];
            self.bump();
            let args = self.args(kw, off);
            let skipped = self.engine_skips(s.line, off, kw);
            // Pushed at once and finished in place: a statement is about 200 bytes, and
            // moving it through locals was a tenth of parsing a 27,000-statement script.
            items.push(self.ani_item(kind, off, args)?);
            let last = items.len() - 1;
            if let AniItem::AniBatch(b) = &mut items[last] {
                if matches!(self.peek(), Some(s) if s.tok.kind == Kind::LBrace) {
                    self.bump();
                    b.anis = self.parse_batch_block()?;
                }
            } else if let Some(slot) = items[last].events_mut() {
                if matches!(self.peek(), Some(s) if s.tok.kind == Kind::LBrace) {
                    self.bump();
                    *slot = Some(self.parse_event_block()?);
                }
            }
            if skipped {
                items.pop();
            }
        }
        Ok(items)
    }

    fn skip_block(&mut self) {
        let mut depth = 0usize;
        while let Some(s) = self.peek() {
            self.bump();
            match s.tok.kind {
                Kind::LBrace => depth += 1,
                Kind::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn parse_batch_block(&mut self) -> Result<Vec<Text>, Stop> {
        let mut out = Vec::new();
        loop {
            let Some(s) = self.peek() else {
                self.warn(
                    self.src.len(),
                    "aniBatch: `}` missing at the end of the file",
                );
                break;
            };
            let off = s.tok.start as usize;
            if s.tok.kind == Kind::RBrace {
                self.bump();
                break;
            }
            if s.tok.kind == Kind::Word && eq_kw(self.text(s.tok), "*aniBatch") {
                self.bump();
                let args = self.args("*aniBatch", off);
                let mut r = ArgReader::new(self, "*aniBatch", off, args);
                out.push(r.string("the animation name")?);
                r.finish();
            } else {
                self.warn(
                    off,
                    format!("unexpected {} in aniBatch; line skipped", self.found()),
                );
                self.skip_line();
            }
        }
        Ok(out)
    }

    fn parse_event_block(&mut self) -> Result<Vec<Event>, Stop> {
        let mut out = std::mem::take(&mut self.ev_buf);
        out.clear();
        loop {
            self.skip_semicolons();
            let Some(s) = self.peek() else {
                self.warn(
                    self.src.len(),
                    "event block: `}` missing at the end of the file",
                );
                break;
            };
            let off = s.tok.start as usize;
            if s.tok.kind == Kind::RBrace {
                self.bump();
                break;
            }
            if s.tok.kind == Kind::Word && self.text(s.tok).first() == Some(&b'*') {
                let skipped = self.engine_skips(s.line, off, "event");
                if let Some(ev) = self.parse_event()? {
                    if !skipped {
                        out.push(ev);
                    }
                }
                if out.len() == 17 {
                    self.warn(
                        off,
                        "more than 16 events in one block: the engine keeps at most 16 lines",
                    );
                }
                continue;
            }
            if s.tok.kind == Kind::Word {
                // A statement: the block's `}` is missing.
                self.warn(off, "event block: `}` missing before this statement");
                break;
            }
            self.warn(
                off,
                format!(
                    "unexpected {} in an event block; line skipped",
                    self.found()
                ),
            );
            self.skip_line();
        }
        let mut events = Vec::with_capacity(out.len());
        events.append(&mut out);
        self.ev_buf = out;
        Ok(events)
    }

    /// An event line (the current token is a `*word`). `None` for an unknown event keyword.
    fn parse_event(&mut self) -> Result<Option<Event>, Stop> {
        let Some(s) = self.peek() else {
            return Ok(None);
        };
        let off = s.tok.start as usize;
        let text = &self.text(s.tok)[1..];
        let Some(kind) = event_position(text) else {
            self.warn(
                off,
                format!("unknown event `*{}`; line skipped", Text::new(text)),
            );
            self.skip_line();
            return Ok(None);
        };
        let kw = EVENT_KEYWORDS[kind];
        self.bump();
        let args = self.args(kw, off);
        let mut r = ArgReader::new(self, kw, off, args);
        // By position in EVENT_KEYWORDS (a number compare, not a string compare per kind).
        use crate::zengin::script::event_kind;
        let ev = match kind {
            event_kind::SFX | event_kind::SFX_GRND => {
                let frame = r.int("the frame")?;
                let name = r.string("the sound name")?;
                let range = r.kv("R");
                let empty_slot = r.flag_word(&["EMPTY_SLOT"]);
                if r.take_word("EMTPY_SLOT") {
                    r.p.warn(
                        off,
                        format!("{kw}: `EMTPY_SLOT` is misspelled; the engine looks for `EMPTY_` and ignores it (ZenKit accepts it)"),
                    );
                }
                let e = Sfx {
                    frame,
                    name,
                    range,
                    empty_slot,
                };
                if kind == event_kind::SFX {
                    Event::Sfx(e)
                } else {
                    Event::SfxGrnd(e)
                }
            }
            event_kind::TAG => {
                let frame = r.opt_int();
                if frame.is_none() {
                    r.p.warn(off, "eventTag: no frame number; 0 is used");
                }
                let tag = r.string("the tag type (\"DEF_...\")")?;
                let mut args = Vec::new();
                while let Some(s) = r.opt_string() {
                    args.push(s);
                }
                if args.len() > 4 {
                    r.p.warn(off, "eventTag: more than 4 arguments; the MSB keeps 4");
                }
                let attach = r.flag_word(&["ATTACH"]);
                Event::Tag(Tag {
                    frame,
                    tag,
                    args,
                    attach,
                })
            }
            event_kind::PFX => {
                let frame = r.int("the frame")?;
                let handle = r.opt_num();
                let emitter = r.string("the emitter name")?;
                let node = r.string("the node name")?;
                let mut attach = r.flag_word(&["ATTACH"]);
                if let Some(s) = r.opt_string() {
                    if s.as_bytes().eq_ignore_ascii_case(b"ATTACH") {
                        r.p.warn(off, "eventPFX: ATTACH should not be quoted (accepted)");
                    } else {
                        r.p.warn(
                            off,
                            "eventPFX: an extra string; taken as ATTACH (like ZenKit)",
                        );
                    }
                    attach = true;
                }
                Event::Pfx(Pfx {
                    frame,
                    handle,
                    emitter,
                    node,
                    attach,
                })
            }
            event_kind::PFX_STOP => Event::PfxStop(PfxStop {
                frame: r.int("the frame")?,
                handle: r.num("the effect handle")?,
            }),
            event_kind::PFX_GRND => Event::PfxGrnd(PfxGrnd {
                frame: r.int("the frame")?,
            }),
            event_kind::SET_MESH => Event::SetMesh(SetMesh {
                frame: r.int("the frame")?,
                mesh: r.string("the mesh name")?,
            }),
            event_kind::SWAP_MESH => Event::SwapMesh(SwapMesh {
                frame: r.int("the frame")?,
                slot1: r.string("the first slot")?,
                slot2: r.string("the second slot")?,
            }),
            event_kind::MM_START_ANI => {
                let frame = r.int("the frame")?;
                let ani = r.string("the morph animation name")?;
                let node = r.opt_string();
                let intensity = r.kv("I");
                let hold_time = r.kv("H");
                Event::MmStartAni(MmStartAni {
                    frame,
                    ani,
                    node,
                    intensity,
                    hold_time,
                })
            }
            // event_kind::CAM_TREMOR, the last position `position` can give
            _ => Event::CamTremor(CamTremor {
                frame: r.int("the frame")?,
                radius: r.num("the radius")?,
                duration_ms: r.num("the duration (ms)")?,
                strength_xz: r.num("the x/z strength")?,
                strength_y: r.num("the y strength")?,
            }),
        };
        r.finish();
        Ok(Some(ev))
    }

    /// The statement of [`ANI_KEYWORD_LIST`]`[kind]`.
    fn ani_item(&mut self, kind: usize, off: usize, args: Vec<Arg>) -> Result<AniItem, Stop> {
        let mut r = ArgReader::new(self, ANI_KEYWORD_LIST[kind], off, args);
        let item = match kind {
            ANI_MAX_FPS => AniItem::AniMaxFps(AniMaxFps {
                fps: r.num("the frame rate")?,
                trailing: NotStored,
            }),
            ANI => {
                let name = r.string("the animation name")?;
                let layer = r.int("the layer")?;
                let next = r.string("the next animation")?;
                let blend_in = r.num("the blend-in time")?;
                let blend_out = r.num("the blend-out time")?;
                let flags = r.word("the flags (e.g. M.)")?;
                let asc = r.string("the ASC file name")?;
                let direction = r.word("the direction F or R")?;
                let first_frame = r.int("the first frame")?;
                let last_frame = r.int("the last frame")?;
                let fps = r.kv("FPS");
                let speed = r.kv("SPD");
                let collision_volume_scale = r.kv("CVS");
                AniItem::Ani(Ani {
                    name,
                    layer,
                    next,
                    blend_in,
                    blend_out,
                    flags,
                    asc,
                    direction,
                    first_frame,
                    last_frame,
                    fps,
                    speed,
                    collision_volume_scale,
                    trailing: NotStored,
                    events: None,
                })
            }
            ANI_ALIAS => {
                let name = r.string("the animation name")?;
                let layer = r.int("the layer")?;
                let next = r.string("the next animation")?;
                let blend_in = r.num("the blend-in time")?;
                let blend_out = r.num("the blend-out time")?;
                let flags = r.word("the flags (e.g. M.)")?;
                let alias_of = r.string("the aliased animation")?;
                // no direction: the engine stores an empty one (KEILER.MSB, ORC.MSB)
                let direction = r.opt_word();
                AniItem::AniAlias(AniAlias {
                    name,
                    layer,
                    next,
                    blend_in,
                    blend_out,
                    flags,
                    alias_of,
                    direction,
                    trailing: NotStored,
                    events: None,
                })
            }
            ANI_BLEND => {
                let name = r.string("the animation name")?;
                let layer = r.opt_int();
                if layer.is_some() {
                    r.p.warn(off, "aniBlend takes no layer; the number is ignored");
                }
                let next = r.string("the next animation")?;
                let blend_in = r.opt_num();
                let blend_out = r.opt_num();
                AniItem::AniBlend(AniBlend {
                    name,
                    layer,
                    next,
                    blend_in,
                    blend_out,
                    trailing: NotStored,
                    events: None,
                })
            }
            ANI_SYNC => AniItem::AniSync(AniSync {
                name: r.string("the animation name")?,
                next: r.string("the next animation")?,
                trailing: NotStored,
                events: None,
            }),
            ANI_BATCH => AniItem::AniBatch(AniBatch {
                name: r.string("the batch name")?,
                anis: Vec::new(),
            }),
            ANI_COMB => AniItem::AniComb(AniComb {
                name: r.string("the animation name")?,
                layer: r.int("the layer")?,
                next: r.string("the next animation")?,
                blend_in: r.num("the blend-in time")?,
                blend_out: r.num("the blend-out time")?,
                flags: r.word("the flags (e.g. M.)")?,
                prefix: r.string("the animation name prefix")?,
                count: r.int("the number of animations")?,
                trailing: NotStored,
                events: None,
            }),
            ANI_DISABLE => AniItem::AniDisable(AniDisable {
                name: r.string("the animation name")?,
                trailing: NotStored,
                events: None,
            }),
            // MODEL_TAG, the last position `position` can give
            _ => {
                let tag = r.string("the tag type (\"DEF_HIT_LIMB\")")?;
                let mut args = Vec::new();
                while let Some(s) = r.opt_string() {
                    args.push(s);
                }
                AniItem::ModelTag(ModelTag {
                    tag,
                    args,
                    trailing: NotStored,
                })
            }
        };
        r.finish();
        Ok(item)
    }
}

/// The statements of an `aniEnum` block; `ani_item` dispatches on the positions below.
const ANI_KEYWORD_LIST: &[&str] = &[
    "aniMaxFps",
    "ani",
    "aniAlias",
    "aniBlend",
    "aniSync",
    "aniBatch",
    "aniComb",
    "aniDisable",
    "modelTag",
];
const ANI_MAX_FPS: usize = 0;
const ANI: usize = 1;
const ANI_ALIAS: usize = 2;
const ANI_BLEND: usize = 3;
const ANI_SYNC: usize = 4;
const ANI_BATCH: usize = 5;
const ANI_COMB: usize = 6;
const ANI_DISABLE: usize = 7;
// (the `_` arm of ani_item; named for the test below)
#[cfg_attr(not(test), allow(dead_code))]
const MODEL_TAG: usize = 8;

#[test]
fn keyword_positions_name_their_keywords() {
    use crate::zengin::script::{event_kind as e, EVENT_KEYWORDS as ev};
    let ani = [
        (ANI_MAX_FPS, "aniMaxFps"),
        (ANI, "ani"),
        (ANI_ALIAS, "aniAlias"),
        (ANI_BLEND, "aniBlend"),
        (ANI_SYNC, "aniSync"),
        (ANI_BATCH, "aniBatch"),
        (ANI_COMB, "aniComb"),
        (ANI_DISABLE, "aniDisable"),
        (MODEL_TAG, "modelTag"),
    ];
    for (i, k) in ani {
        assert_eq!(ANI_KEYWORD_LIST[i], k);
    }
    assert_eq!(ANI_KEYWORD_LIST.len(), MODEL_TAG + 1);
    let events = [
        (e::SFX, "eventSFX"),
        (e::SFX_GRND, "eventSFXGrnd"),
        (e::TAG, "eventTag"),
        (e::PFX, "eventPFX"),
        (e::PFX_STOP, "eventPFXStop"),
        (e::PFX_GRND, "eventPFXGrnd"),
        (e::SET_MESH, "eventSetMesh"),
        (e::SWAP_MESH, "eventSwapMesh"),
        (e::MM_START_ANI, "eventMMStartAni"),
        (e::CAM_TREMOR, "eventCamTremor"),
    ];
    for (i, k) in events {
        assert_eq!(ev[i], k);
    }
    assert_eq!(ev.len(), e::CAM_TREMOR + 1);
}

/// Parse an MDS file.
pub fn parse(src: &[u8]) -> Result<Mds, ParseError> {
    let lexed = tokenize_for_parse(src);
    let mut p = Parser {
        src,
        toks: lexed.tokens,
        p: 0,
        nl: true,
        line: 0,
        prev_end: 0,
        warnings: Vec::new(),
        line_start: 0,
        arg_buf: Vec::new(),
        ev_buf: Vec::new(),
        slash_lines: lexed.slash_lines,
        failed: None,
    };
    for (_, line, column) in lexed.single_slash {
        p.warnings.push(Warning {
            line,
            column,
            message: "a single `/` starts a comment here (ZenKit also swallows the next byte; the engine ignores the line)".into(),
        });
    }
    p.settle();
    let script = match p.parse_script() {
        Ok(s) => s,
        Err(Stop) => {
            return Err(p
                .failed
                .take()
                .unwrap_or_else(|| p.error(0, "the parse stopped without naming an error")))
        }
    };
    let tokens = std::mem::take(&mut p.toks);
    let mut warnings = p.warnings;
    warnings.sort_by_key(|w| (w.line, w.column));
    Ok(Mds {
        src: src.to_vec(),
        tokens,
        script,
        warnings,
    })
}
