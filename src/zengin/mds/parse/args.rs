//! The argument reader of a statement: positional arguments in order, then `KEY:value` pairs
//! and flag words anywhere after them.

use super::*;

/// Reads a statement's arguments in order; `KEY:value` and flag words may appear anywhere
/// after the positional ones.
pub(super) struct ArgReader<'p, 'a> {
    pub(super) p: &'p mut Parser<'a>,
    kw: &'static str,
    kw_off: usize,
    args: Vec<Arg>,
    i: usize,
}

impl<'p, 'a> ArgReader<'p, 'a> {
    pub(super) fn new(
        p: &'p mut Parser<'a>,
        kw: &'static str,
        kw_off: usize,
        args: Vec<Arg>,
    ) -> Self {
        ArgReader {
            p,
            kw,
            kw_off,
            args,
            i: 0,
        }
    }
    /// The next positional argument (skipping KEY:value ones, which are looked up by key).
    pub(super) fn next_pos(&mut self) -> Option<(usize, Arg)> {
        while let Some(&a) = self.args.get(self.i) {
            if matches!(a.kind, ArgKind::Kv | ArgKind::Taken) {
                self.i += 1;
            } else {
                return Some((self.i, a));
            }
        }
        None
    }
    /// The source text of `a`'s value.
    pub(super) fn value(&self, a: Arg) -> &'a [u8] {
        a.value(self.p.src)
    }
    /// `a`'s value as text: one fixed-size copy of the source from its start
    /// ([`Text::from_window`]) instead of a copy of its length.
    pub(super) fn short(&self, a: Arg) -> Text {
        let src = self.p.src;
        let (start, end) = (a.start as usize, a.end as usize);
        match src.get(start..) {
            Some(w) if end >= start && end - start <= w.len() => Text::from_window(w, end - start),
            _ => Text::new(a.value(src)),
        }
    }
    pub(super) fn missing(&mut self, what: &str) -> Stop {
        // A string without its closing quote ends at the line end (as the engine's reader
        // does); the statement then lacks what followed on the next line: point at the quote.
        let src = self.p.src;
        let open = self.args.iter().find(|a| {
            src.get(a.off as usize) == Some(&b'"')
                && a.start == a.off + 1
                && src.get(a.end as usize) != Some(&b'"')
        });
        if let Some(a) = open {
            let e = self.p.error(
                a.offset(),
                format!(
                    "{}: unterminated string: this `\"` has no closing quote on its line (a name \
                     cannot continue on the next line), so {what} is missing",
                    self.kw
                ),
            );
            return self.p.stop(e);
        }
        let found = self.next_pos();
        let (off, found) = match found {
            Some((_, a)) => (a.offset(), a.describe(self.p.src)),
            None => (self.kw_off, "the end of the statement".into()),
        };
        let e = self
            .p
            .error(off, format!("{}: expected {what}, found {found}", self.kw));
        self.p.stop(e)
    }
    pub(super) fn take(&mut self, k: usize) {
        if let Some(a) = self.args.get_mut(k) {
            a.kind = ArgKind::Taken;
        }
        self.i = k + 1;
    }
    pub(super) fn string(&mut self, what: &str) -> Result<Text, Stop> {
        self.opt_string().ok_or_else(|| self.missing(what))
    }
    pub(super) fn opt_string(&mut self) -> Option<Text> {
        match self.next_pos() {
            Some((k, a)) if a.kind == ArgKind::Str => {
                self.take(k);
                Some(self.short(a))
            }
            _ => None,
        }
    }
    pub(super) fn opt_int(&mut self) -> Option<i32> {
        match self.next_pos() {
            Some((k, a)) if a.kind == ArgKind::Num => {
                let (s, off) = (self.value(a), a.offset());
                let v = engine_int(s)?;
                if s.contains(&b'.') {
                    self.p.warn(
                        off,
                        format!("{}: expected a whole number; the engine uses {v}", self.kw),
                    );
                }
                self.take(k);
                Some(v)
            }
            _ => None,
        }
    }
    pub(super) fn int(&mut self, what: &str) -> Result<i32, Stop> {
        self.opt_int().ok_or_else(|| self.missing(what))
    }
    pub(super) fn opt_num(&mut self) -> Option<F32> {
        match self.next_pos() {
            Some((k, a)) if a.kind == ArgKind::Num => {
                let v = engine_float(self.value(a))?;
                self.take(k);
                Some(F32::new(v))
            }
            _ => None,
        }
    }
    pub(super) fn num(&mut self, what: &str) -> Result<F32, Stop> {
        self.opt_num().ok_or_else(|| self.missing(what))
    }
    pub(super) fn opt_word(&mut self) -> Option<Text> {
        match self.next_pos() {
            Some((k, a)) if a.kind == ArgKind::Word => {
                self.take(k);
                Some(self.short(a))
            }
            _ => None,
        }
    }
    pub(super) fn word(&mut self, what: &str) -> Result<Text, Stop> {
        self.opt_word().ok_or_else(|| self.missing(what))
    }
    /// `KEY:number` anywhere in the arguments.
    pub(super) fn kv(&mut self, key: &str) -> Option<F32> {
        let src = self.p.src;
        for k in 0..self.args.len() {
            let a = self.args[k];
            if a.kind == ArgKind::Kv && eq_kw(&src[a.off as usize..a.key_end as usize], key) {
                self.args[k].kind = ArgKind::Taken;
                let v = engine_float(a.value(src));
                if v.is_none() {
                    self.p.warn(
                        a.offset(),
                        format!("{}: `{key}:` needs a number; ignored", self.kw),
                    );
                }
                return v.map(F32::new);
            }
        }
        None
    }
    /// A flag word (any of `names`, any case) anywhere in the remaining arguments.
    pub(super) fn flag_word(&mut self, names: &[&str]) -> bool {
        let src = self.p.src;
        for k in self.i..self.args.len() {
            let a = self.args[k];
            if a.kind == ArgKind::Word && names.iter().any(|n| eq_kw(a.value(src), n)) {
                self.args[k].kind = ArgKind::Taken;
                return true;
            }
        }
        false
    }
    pub(super) fn take_word(&mut self, name: &str) -> bool {
        self.flag_word(&[name])
    }
    /// Warn about arguments nobody read; give the buffer back to the parser.
    pub(super) fn finish(mut self) {
        for a in self.args.drain(..) {
            if a.kind != ArgKind::Taken {
                let msg = format!(
                    "{}: unexpected argument {} ignored",
                    self.kw,
                    a.describe(self.p.src)
                );
                self.p.warn(a.offset(), msg);
            }
        }
        self.p.arg_buf = std::mem::take(&mut self.args);
    }
}
