//! The MDS tokenizer. Lossless: every input byte belongs to exactly one token (whitespace, line
//! breaks and comments are tokens too), so printing the tokens in order gives the file back byte
//! for byte. (A parsed file keeps its tokens without the whitespace runs, which are the gaps
//! between the kept tokens.) Never loops without consuming input, so it cannot hang (unlike ZenKit on a comment in
//! an unterminated last line).

use crate::zengin::types::find_newline;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Spaces, tabs, `\r`, `\v`, `\f`.
    Space,
    /// One `\n`.
    Newline,
    /// `// …` or a lone `/ …`, up to (not including) the line break.
    Comment,
    /// Letters, digits, `_`, `-`, `.`, starting with a letter, `*`, `_` or `.`.
    Word,
    /// `"…"`; see [`Token::str_value`].
    Str,
    /// Digits with an optional leading `-` and `.`s.
    Number,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Colon,
    Semicolon,
    /// A byte that starts no token.
    Other,
}

/// A token: its kind and byte range in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
}

impl Token {
    pub fn text<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.start as usize..self.end as usize]
    }
    /// The value of a string token: without its quotes (an unterminated string has only the
    /// opening one).
    pub fn str_value<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        let t = self.text(src);
        let t = t.strip_prefix(b"\"").unwrap_or(t);
        t.strip_suffix(b"\"").unwrap_or(t)
    }
    /// Whether a string token lacks its closing quote.
    pub fn unterminated(&self, src: &[u8]) -> bool {
        let t = self.text(src);
        t.len() < 2 || !t.ends_with(b"\"")
    }
    pub fn is_trivia(&self) -> bool {
        matches!(self.kind, Kind::Space | Kind::Newline | Kind::Comment)
    }
}

/// Line and column (both from 1; columns count bytes) of byte `offset`.
pub fn line_col(src: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, col)
}

/// Byte classes, one table look-up per byte in the tokenizer's loops (the `matches!` chains
/// cost several compares per byte; the tokenizer is the largest part of MDS parsing).
const SPACE: u8 = 1;
const WORD_START: u8 = 2;
const WORD_CHAR: u8 = 4;
const DIGIT_DOT: u8 = 8;

const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut k = 0;
        if matches!(c, b' ' | b'\t' | b'\r' | 0x0B | 0x0C) {
            k |= SPACE;
        }
        if c.is_ascii_alphabetic() || matches!(c, b'*' | b'_' | b'.') {
            k |= WORD_START;
        }
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.') {
            k |= WORD_CHAR;
        }
        if c.is_ascii_digit() || c == b'.' {
            k |= DIGIT_DOT;
        }
        t[b] = k;
        b += 1;
    }
    t
};

#[inline(always)]
fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}
fn is_word_start(b: u8) -> bool {
    is(b, WORD_START)
}

/// The end of the run of bytes of `class` in `src` from `i`.
#[inline(always)]
fn run(src: &[u8], mut i: usize, class: u8) -> usize {
    while let Some(&b) = src.get(i) {
        if !is(b, class) {
            break;
        }
        i += 1;
    }
    i
}

/// Split `src` into tokens covering every byte.
pub fn tokenize(src: &[u8]) -> Vec<Token> {
    tokenize_with(src, true)
}

/// [`tokenize`], leaving out [`Kind::Space`] tokens when `spaces` is false (the whitespace is
/// then the gaps between tokens; printing them with the gaps still gives every byte back).
pub fn tokenize_with(src: &[u8], spaces: bool) -> Vec<Token> {
    let mut out = Vec::with_capacity(src.len() / if spaces { 3 } else { 5 });
    let mut i = 0usize;
    let n = src.len();
    while i < n {
        let start = i;
        let b = src[i];
        let kind = match b {
            b'\n' => {
                i += 1;
                Kind::Newline
            }
            b' ' | b'\t' | b'\r' | 0x0B | 0x0C => {
                i = run(src, i + 1, SPACE);
                Kind::Space
            }
            b'/' => {
                i += find_newline(&src[i..]).unwrap_or(n - i);
                Kind::Comment
            }
            b'"' => {
                i += 1;
                while i < n && src[i] != b'"' && src[i] != b'\n' {
                    i += 1;
                }
                if i < n && src[i] == b'"' {
                    i += 1;
                } else {
                    // Unterminated: a `)` ending the line (before trailing whitespace / `\r`)
                    // closes the statement, it is not part of the value.
                    let mut j = i;
                    while j > start + 1 && matches!(src[j - 1], b' ' | b'\t' | b'\r') {
                        j -= 1;
                    }
                    if j > start + 1 && src[j - 1] == b')' {
                        j -= 1;
                    }
                    // Do not keep a `\r` of a CRLF line in the value.
                    while j > start + 1 && src[j - 1] == b'\r' {
                        j -= 1;
                    }
                    i = j;
                }
                Kind::Str
            }
            b'(' => {
                i += 1;
                Kind::LParen
            }
            b')' => {
                i += 1;
                Kind::RParen
            }
            b'{' => {
                i += 1;
                Kind::LBrace
            }
            b'}' => {
                i += 1;
                Kind::RBrace
            }
            b':' => {
                i += 1;
                Kind::Colon
            }
            b';' => {
                i += 1;
                Kind::Semicolon
            }
            b if is_word_start(b) => {
                i = run(src, i + 1, WORD_CHAR);
                Kind::Word
            }
            b if b.is_ascii_digit() || b == b'-' => {
                i = run(src, i + 1, DIGIT_DOT);
                Kind::Number
            }
            _ => {
                i += 1;
                Kind::Other
            }
        };
        if spaces || kind != Kind::Space {
            out.push(Token {
                kind,
                start: start as u32,
                end: i as u32,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, String)> {
        tokenize(src.as_bytes())
            .iter()
            .map(|t| {
                (
                    t.kind,
                    String::from_utf8_lossy(t.text(src.as_bytes())).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn tokens_cover_every_byte() {
        let src = "Model(\"a\") {\r\n\t// c\r\n\tani(\"x\" 1 M. .F -3 4.2 FPS:25;)\n}";
        let toks = tokenize(src.as_bytes());
        let mut joined = Vec::new();
        for t in &toks {
            joined.extend_from_slice(t.text(src.as_bytes()));
        }
        assert_eq!(joined, src.as_bytes());
        let k = kinds("ani(\"x\" 1 M. .F -3 4.2 FPS:25)");
        use Kind::*;
        let expect: Vec<(Kind, &str)> = vec![
            (Word, "ani"),
            (LParen, "("),
            (Str, "\"x\""),
            (Space, " "),
            (Number, "1"),
            (Space, " "),
            (Word, "M."),
            (Space, " "),
            (Word, ".F"),
            (Space, " "),
            (Number, "-3"),
            (Space, " "),
            (Number, "4.2"),
            (Space, " "),
            (Word, "FPS"),
            (Colon, ":"),
            (Number, "25"),
            (RParen, ")"),
        ];
        assert_eq!(
            k,
            expect
                .into_iter()
                .map(|(a, b)| (a, b.to_string()))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn unterminated_strings_stop_at_the_line_end_and_leave_a_closing_paren() {
        let src = b"registerMesh(\"X.asc)\r\nnext";
        let toks = tokenize(src);
        assert_eq!(toks[2].kind, Kind::Str);
        assert_eq!(toks[2].str_value(src), b"X.asc");
        assert!(toks[2].unterminated(src));
        assert_eq!(toks[3].kind, Kind::RParen);
        assert_eq!(toks[4].kind, Kind::Space); // "\r"
        let src = b"\"abc)\"";
        assert_eq!(tokenize(src)[0].str_value(src), b"abc)");
    }

    #[test]
    fn comment_on_an_unterminated_last_line_ends() {
        // ZenKit loops forever here.
        let src = b"Model(\"m\") {\n// last";
        let toks = tokenize(src);
        assert_eq!(toks.last().unwrap().kind, Kind::Comment);
        assert_eq!(line_col(src, src.len() - 1), (2, 7));
    }
}
