//! [`Args`]: the four argument lines of a tag (`eventTag`, `modelTag`), held in one value. The
//! same bytes, YAML and schema as `[ShortText; 4]`, in 48 bytes instead of 96: the tag event is
//! the largest event, and at 152 bytes every event was copied by a call to `memmove` (16 % of
//! MSB parsing); at 104 the copy is a few inline moves.

use crate::exact::text::decode_cp1252;
use crate::zengin::stext::ShortText as Text;
use schemars::JsonSchema;
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The most bytes the four lines (with the three separators between them) take inline.
pub const ARGS_INLINE: usize = 40;

/// Four lines of Windows-1252 text, inline when short.
#[derive(Clone)]
pub enum Args {
    /// Line 0 is `buf[..ends[0]]`, line `i` is `buf[ends[i - 1] + 1..ends[i]]` (one byte
    /// between two lines, whatever it holds); the bytes after `ends[3]` mean nothing.
    Inline {
        ends: [u8; 4],
        buf: [u8; ARGS_INLINE],
    },
    Heap(Box<[Text; 4]>),
}

impl Args {
    /// The four lines of `window`, line `i` ending (exclusive) at `ends[i]` and each line
    /// followed by one separator byte: one fixed-size copy when `window` has `ARGS_INLINE`
    /// bytes (the window's bytes after the last line are copied too and ignored).
    #[inline(always)]
    pub fn from_window(window: &[u8], ends: [usize; 4]) -> Self {
        let last = ends[3];
        if last <= ARGS_INLINE {
            let mut buf = [0u8; ARGS_INLINE];
            match window.get(..ARGS_INLINE) {
                Some(w) => buf.copy_from_slice(w),
                None => buf[..last].copy_from_slice(&window[..last]),
            }
            return Args::Inline {
                ends: ends.map(|e| e as u8),
                buf,
            };
        }
        let line = |i: usize| {
            let start = if i == 0 { 0 } else { ends[i - 1] + 1 };
            Text::new(&window[start..ends[i]])
        };
        Args::Heap(Box::new([line(0), line(1), line(2), line(3)]))
    }

    /// Line `i` (0..4).
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        match self {
            Args::Inline { ends, buf } => {
                let start = if i == 0 { 0 } else { ends[i - 1] as usize + 1 };
                &buf[start..ends[i] as usize]
            }
            Args::Heap(t) => t[i].as_bytes(),
        }
    }

    /// The four lines.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..4).map(move |i| self.get(i))
    }

    /// The four lines as texts.
    pub fn to_texts(&self) -> [Text; 4] {
        [0, 1, 2, 3].map(|i| Text::new(self.get(i)))
    }
}

impl From<[Text; 4]> for Args {
    fn from(t: [Text; 4]) -> Self {
        let need: usize = t.iter().map(|l| l.len() + 1).sum::<usize>() - 1;
        if need > ARGS_INLINE {
            return Args::Heap(Box::new(t));
        }
        let mut buf = [0u8; ARGS_INLINE];
        let mut ends = [0u8; 4];
        let mut at = 0;
        for (i, l) in t.iter().enumerate() {
            buf[at..at + l.len()].copy_from_slice(l.as_bytes());
            at += l.len();
            ends[i] = at as u8;
            at += 1;
        }
        Args::Inline { ends, buf }
    }
}

impl From<[&str; 4]> for Args {
    /// For literals in code and tests; panics on text Windows-1252 cannot hold.
    fn from(t: [&str; 4]) -> Self {
        t.map(Text::from).into()
    }
}

impl Default for Args {
    fn default() -> Self {
        <[Text; 4]>::default().into()
    }
}

impl PartialEq for Args {
    fn eq(&self, other: &Self) -> bool {
        (0..4).all(|i| self.get(i) == other.get(i))
    }
}
impl Eq for Args {}

impl fmt::Debug for Args {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(decode_cp1252))
            .finish()
    }
}

impl Serialize for Args {
    /// As `[ShortText; 4]` serialises.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(4)?;
        for line in self.iter() {
            t.serialize_element(&*decode_cp1252(line))?;
        }
        t.end()
    }
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <[Text; 4]>::deserialize(d).map(Args::from)
    }
}

/// Always written: the engine stores four lines, empty ones empty.
impl crate::zengin::script::Value for Args {}

impl JsonSchema for Args {
    fn is_referenceable() -> bool {
        <[Text; 4]>::is_referenceable()
    }
    fn schema_name() -> String {
        <[Text; 4]>::schema_name()
    }
    fn json_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        <[Text; 4]>::json_schema(gen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap_hold_the_same_lines() {
        assert_eq!(std::mem::size_of::<Args>(), 48);
        let lines = ["BIP01 HEAD", "", "ZS_RIGHTHAND", "\u{e4}"];
        let a = Args::from(lines);
        assert!(matches!(a, Args::Inline { .. }));
        assert_eq!(a.get(0), b"BIP01 HEAD");
        assert_eq!(a.get(1), b"");
        assert_eq!(a.get(2), b"ZS_RIGHTHAND");
        assert_eq!(a.get(3), b"\xe4");
        // from a window of the file: lines ended by `\n`, bytes after the last ignored
        let w = Args::from_window(
            b"BIP01 HEAD\n\nZS_RIGHTHAND\n\xe4\nXXXXXXXXXXXXXXXXXXXXXX",
            [10, 11, 24, 26],
        );
        assert_eq!(w, a);
        let short = Args::from_window(b"A\nB\nC\nD\n", [1, 3, 5, 7]);
        assert_eq!(short, Args::from(["A", "B", "C", "D"]));
        // 41 bytes with separators: heap, same lines
        let long = ["0123456789", "0123456789", "0123456789", "01234567"];
        let h = Args::from(long);
        assert!(matches!(h, Args::Heap(_)));
        assert_eq!(h.to_texts(), long.map(Text::from));
        let joined = long.join("\n");
        let hw = Args::from_window(joined.as_bytes(), [10, 21, 32, 41]);
        assert!(matches!(hw, Args::Heap(_)));
        assert_eq!(hw, h);
        // a line with a line feed inside (an edit) stays one line
        let lf = Args::from(["a\nb", "", "", ""]);
        assert_eq!(lf.get(0), b"a\nb");
        assert_eq!(lf.get(1), b"");
        assert_eq!(Args::default(), Args::from(["", "", "", ""]));
    }

    #[test]
    fn yaml_and_schema_as_four_texts() {
        let lines = ["BIP01 HEAD", "", "x\u{e4}", ""];
        let texts = lines.map(Text::from);
        let y1 = crate::yaml::to_string(&texts).unwrap();
        let y2 = crate::yaml::to_string(&Args::from(lines)).unwrap();
        assert_eq!(y1, y2);
        let back: Args = crate::yaml::from_str(&y1).unwrap();
        assert_eq!(back, Args::from(lines));
        let err = crate::yaml::from_str::<Args>("[a, b, c]")
            .unwrap_err()
            .to_string();
        let err4 = crate::yaml::from_str::<[Text; 4]>("[a, b, c]")
            .unwrap_err()
            .to_string();
        assert_eq!(err, err4);
        // as a field, where a referenceable schema would become a definition
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct A {
            args: Args,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct B {
            args: [Text; 4],
        }
        let json = |s: schemars::schema::RootSchema| {
            let mut v = serde_json::to_value(s).unwrap();
            v.as_object_mut().unwrap().remove("title");
            v
        };
        let (s1, s2) = (
            json(schemars::schema_for!(A)),
            json(schemars::schema_for!(B)),
        );
        assert_eq!(s1, s2);
        let defs = s1.get("definitions").and_then(|d| d.as_object());
        assert!(!defs.is_some_and(|d| d.keys().any(|k| k.contains("Array"))));
    }
}
