//! The lossless layer of an ASC file: every line as its indentation, its tokens (each with the
//! whitespace before it), its trailing whitespace and its line end. Printing the lines gives
//! every byte back ([`Doc::print`]); the typed view ([`super::model::Scene`]) is read from it.
//!
//! A token is a quoted string (`"Bip01 L UpperArm"`, quotes included, no escapes: ASC has none)
//! or a run of non-whitespace bytes (`*NODE_NAME`, `6.27438e-006`, `{`, `0:`). Whitespace is
//! space, tab, vertical tab, form feed and a carriage return not followed by a line feed. A line
//! ends with `\n` or `\r\n` (or with the end of the file). A UTF-8 byte-order mark is kept apart.
//!
//! All positions are byte offsets into [`Doc::text`], a `u32` each (an ASC above 4 GiB is refused).

use std::fmt;

/// A byte range of [`Doc::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    pub fn is_empty(self) -> bool {
        self.end == self.start
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// How a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    Lf,
    CrLf,
    /// The last line of a file without a final newline.
    None,
}

impl Eol {
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            Eol::Lf => b"\n",
            Eol::CrLf => b"\r\n",
            Eol::None => b"",
        }
    }
}

/// One token with the whitespace before it (empty for a line's first token: that whitespace
/// is the line's [`Line::indent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tok {
    pub sep: Span,
    pub text: Span,
}

/// One line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub indent: Span,
    /// First token index in [`Doc::toks`].
    pub first: u32,
    /// Number of tokens (0 for a blank line).
    pub count: u32,
    /// Whitespace after the last token.
    pub tail: Span,
    pub eol: Eol,
}

/// An ASC file as lines of tokens.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Doc {
    /// The file's bytes without the byte-order mark (new token texts are appended after them).
    pub text: Vec<u8>,
    /// The file started with a UTF-8 byte-order mark.
    pub bom: bool,
    pub lines: Vec<Line>,
    pub toks: Vec<Tok>,
}

/// A syntax or structure error: 1-based line and column (in bytes, counting the BOM as none)
/// and the block path (`*HELPEROBJECT "Bip01"/*TM_ANIMATION/*CONTROL_POS_TRACK`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AscError {
    pub line: usize,
    pub column: usize,
    pub path: String,
    pub message: String,
}

impl fmt::Display for AscError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}:{}: {}", self.line, self.column, self.message)
        } else {
            write!(
                f,
                "{}:{}: in {}: {}",
                self.line, self.column, self.path, self.message
            )
        }
    }
}

impl std::error::Error for AscError {}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether `data` is an ASC file: its first token (after a BOM and whitespace) is
/// `*3DSMAX_ASCIIEXPORT` (any case).
pub fn detect(data: &[u8]) -> bool {
    let d = data.strip_prefix(BOM).unwrap_or(data);
    let start = d
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(d.len());
    let key = b"*3DSMAX_ASCIIEXPORT";
    let rest = &d[start..];
    rest.len() >= key.len()
        && rest[..key.len()].eq_ignore_ascii_case(key)
        && rest.get(key.len()).is_none_or(|b| b.is_ascii_whitespace())
}

/// Byte classes of the tokenizer: 0 a token byte, 1 whitespace, 2 a quote.
pub(super) const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = 1;
    t[b'\t' as usize] = 1;
    t[0x0b] = 1;
    t[0x0c] = 1;
    t[b'\r' as usize] = 1;
    t[b'"' as usize] = 2;
    t
};

/// `data` without its UTF-8 byte-order mark, and whether it had one; an error for a file above
/// 4 GiB (positions are `u32`).
pub fn body(data: &[u8]) -> Result<(bool, &[u8]), AscError> {
    let (bom, body) = match data.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, data),
    };
    if body.len() > (u32::MAX - 1) as usize {
        return Err(AscError {
            line: 1,
            column: 1,
            path: String::new(),
            message: format!("{} bytes: an ASC above 4 GiB is not supported", data.len()),
        });
    }
    Ok((bom, body))
}

/// The tokenizer: the lines of a file body (see [`body`]) one at a time, each line's tokens
/// appended to a caller's vector. [`Doc::parse`] keeps every line; the typed reader
/// ([`super::model::Model::parse`]) keeps only the current one.
pub struct Lexer<'a> {
    body: &'a [u8],
    /// Start of the next line.
    pos: usize,
    /// Lines returned so far.
    lines: usize,
    done: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(body: &'a [u8]) -> Lexer<'a> {
        Lexer {
            body,
            pos: 0,
            lines: 0,
            done: false,
        }
    }

    /// The next line's bytes (its line end not included, a `\r` before it kept) when it ends
    /// in `\n`, handed to `read`; when that gives a value the line counts as read. For a
    /// caller that reads lines of a known shape itself and leaves every other line (and the
    /// file's last, unterminated one) to [`Lexer::next_line`].
    #[inline]
    pub fn take_line<T>(&mut self, read: impl FnOnce(&'a [u8]) -> Option<T>) -> Option<T> {
        let body = self.body;
        let rest = body.get(self.pos..).filter(|_| !self.done)?;
        let end = memchr::memchr(b'\n', rest)?;
        let v = read(&rest[..end])?;
        self.lines += 1;
        self.pos += end + 1;
        if self.pos >= body.len() {
            self.done = true;
        }
        Some(v)
    }

    /// Lines returned so far (the 0-based index of the next one).
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Bytes not yet read (the line ends included).
    pub fn remaining(&self) -> usize {
        if self.done {
            0
        } else {
            self.body.len().saturating_sub(self.pos)
        }
    }

    /// The next line, its tokens appended to `toks` (its [`Line::first`] indexes `toks`);
    /// `None` after the last line. An empty body is one empty line. Fails only on a quoted
    /// string not closed on its line.
    #[inline]
    pub fn next_line(&mut self, toks: &mut Vec<Tok>) -> Result<Option<Line>, AscError> {
        if self.done {
            return Ok(None);
        }
        let body = self.body;
        let n = body.len();
        let i = self.pos;
        let eol_at = memchr::memchr(b'\n', &body[i..]).map_or(n, |p| i + p);
        let (content_end, eol, next) = if eol_at == n {
            (n, Eol::None, n)
        } else if eol_at > i && body[eol_at - 1] == b'\r' {
            (eol_at - 1, Eol::CrLf, eol_at + 1)
        } else {
            (eol_at, Eol::Lf, eol_at + 1)
        };
        let line = &body[..content_end];
        let mut p = i;
        while p < content_end && CLASS[line[p] as usize] == 1 {
            p += 1;
        }
        let indent = Span {
            start: i as u32,
            end: p as u32,
        };
        let first = toks.len() as u32;
        let mut sep_start = p;
        while p < content_end {
            let tok_start = p;
            if line[p] == b'"' {
                match memchr::memchr(b'"', &line[p + 1..]) {
                    Some(q) => p = p + 1 + q + 1,
                    None => {
                        return Err(AscError {
                            line: self.lines + 1,
                            column: tok_start - i + 1,
                            path: String::new(),
                            message: "a quoted string is not closed on its line".into(),
                        })
                    }
                }
            } else {
                p += 1;
                while p < content_end && CLASS[line[p] as usize] != 1 {
                    p += 1;
                }
            }
            toks.push(Tok {
                sep: Span {
                    start: sep_start as u32,
                    end: tok_start as u32,
                },
                text: Span {
                    start: tok_start as u32,
                    end: p as u32,
                },
            });
            sep_start = p;
            while p < content_end && CLASS[line[p] as usize] == 1 {
                p += 1;
            }
        }
        let count = toks.len() as u32 - first;
        let tail = if count == 0 {
            Span {
                start: p as u32,
                end: p as u32,
            }
        } else {
            Span {
                start: sep_start as u32,
                end: content_end as u32,
            }
        };
        self.lines += 1;
        self.pos = next;
        // The body ends after a line end, or this line had none.
        if next >= n {
            self.done = true;
        }
        Ok(Some(Line {
            indent,
            first,
            count,
            tail,
            eol,
        }))
    }
}

impl Doc {
    /// Split `data` into lines and tokens. Fails only on an unterminated quoted string or a
    /// file larger than 4 GiB; the structure (braces, blocks) is checked by the typed reader.
    pub fn parse(data: &[u8]) -> Result<Doc, AscError> {
        let (bom, body) = body(data)?;
        let n = body.len();
        // A GS line is ~35 bytes with ~4 tokens.
        let mut lines = Vec::with_capacity(n / 32 + 1);
        let mut toks = Vec::with_capacity(n / 8 + 1);
        let mut lex = Lexer::new(body);
        while let Some(line) = lex.next_line(&mut toks)? {
            lines.push(line);
        }
        Ok(Doc {
            text: body.to_vec(),
            bom,
            lines,
            toks,
        })
    }

    /// The bytes of `span`.
    #[inline]
    pub fn bytes(&self, span: Span) -> &[u8] {
        &self.text[span.range()]
    }

    /// The tokens of `line`.
    #[inline]
    pub fn line_toks(&self, line: &Line) -> &[Tok] {
        &self.toks[line.first as usize..(line.first + line.count) as usize]
    }

    /// The text of token `t`.
    #[inline]
    pub fn tok(&self, t: &Tok) -> &[u8] {
        &self.text[t.text.range()]
    }

    /// Replace the text of token `index` (the whitespace before it stays).
    pub fn set_token(&mut self, index: usize, text: &[u8]) {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(text);
        self.toks[index].text = Span {
            start,
            end: self.text.len() as u32,
        };
    }

    /// The file's bytes: every line printed back (BOM, indentation, tokens, separators, line
    /// ends), identical to the parsed input while nothing was edited.
    pub fn print(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len() + 3);
        self.print_into(&mut out);
        out
    }

    pub fn print_into(&self, out: &mut Vec<u8>) {
        if self.bom {
            out.extend_from_slice(BOM);
        }
        for line in &self.lines {
            out.extend_from_slice(self.bytes(line.indent));
            for t in self.line_toks(line) {
                out.extend_from_slice(self.bytes(t.sep));
                out.extend_from_slice(self.bytes(t.text));
            }
            out.extend_from_slice(self.bytes(line.tail));
            out.extend_from_slice(line.eol.as_bytes());
        }
    }

    /// 1-based column of token `t` on line `line`.
    pub fn column(&self, line: &Line, t: &Tok) -> usize {
        (t.text.start - line.indent.start) as usize + 1
    }
}
