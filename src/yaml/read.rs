//! Reading YAML: serde-saphyr's streaming deserialiser with budgets sized by the document.
//!
//! The deserialiser pulls parser events as the target type asks for them (no event list or
//! value tree of the whole document), never panics on bad input, and stops at the first budget
//! it crosses with an error at a line and column. The budgets are sized by the document's
//! length, so any real document passes and a small hostile one (nesting, alias bombs) cannot
//! make the reader spend more than a small multiple of its own size. README "YAML import".
//!
//! Errors name the field path (`anim_defs[3].sequences[0]: ...`). Tracking the path costs an
//! allocation per map key, so the first read goes without it and only a failed read is
//! repeated with `serde_path_to_error` to learn where it failed.

use crate::exact::YamlError;
use serde::de::{DeserializeOwned, DeserializeSeed};
use serde_saphyr::{Budget, Options};

pub use crate::exact::error::{MAX_ALIASES, MAX_DEPTH};

/// The reading options for a document of `len` bytes: every count budget is a small multiple
/// of the length, so a real document passes and the work stays proportional to the input.
pub fn options(len: usize) -> Options {
    let mut budget = Budget::default();
    // A parser event needs at least one byte of input, except the empty value of `key:` and
    // the events an alias replays (limited below): twice the length bounds them all.
    let events = len.saturating_mul(2).saturating_add(1024);
    budget.max_events = events;
    budget.max_nodes = events;
    budget.max_total_scalar_bytes = len.saturating_add(1024);
    budget.max_depth = MAX_DEPTH;
    budget.flow_nesting_limit = MAX_DEPTH;
    budget.max_aliases = MAX_ALIASES;
    budget.max_anchors = MAX_ALIASES;
    budget.max_documents = 1;
    // What aliases may replay in all: at most the document's own size again.
    let replay = len.saturating_add(1024);
    budget.max_recorded_anchor_events = replay;
    budget.max_recorded_anchor_bytes = replay;
    let mut options = Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = replay;
    options.with_snippet = false;
    // animkit's documents carry no tags: a custom `!tag` would be ignored, so it is refused.
    options.reject_unsupported_tags = true;
    options.reject_tagged_field_names = true;
    options
}

/// Parse a YAML document; errors carry line, column and the field path.
///
/// The fast reader for animkit's own YAML ([`super::fast`]) is tried first; anything it does
/// not read exactly as serde-saphyr would (or any error) is read by serde-saphyr.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    let text = super::strip_bom(text);
    if fast_reader_on() {
        if let Some(v) = super::fast::from_str(text) {
            count_fast_read();
            return Ok(v);
        }
    }
    slow_from_str(text)
}

thread_local! {
    /// Whether [`from_str`] tries the fast reader on this thread, and how many documents it
    /// read (for the tests that compare both readers).
    static FAST: std::cell::Cell<(bool, u64)> = const { std::cell::Cell::new((true, 0)) };
}

/// Whether the fast reader is on for this thread (see [`with_fast_reader`]).
pub(crate) fn fast_reader_on() -> bool {
    FAST.with(|f| f.get().0)
}

/// Count a document the fast reader read (see [`with_fast_reader`]).
pub(crate) fn count_fast_read() {
    FAST.with(|f| f.set((f.get().0, f.get().1 + 1)));
}

/// Run `f` with the fast reader on or off on this thread (tests compare both readers
/// through the formats' own import functions); also returns how many documents the fast
/// reader read during `f`.
pub fn with_fast_reader<T>(on: bool, f: impl FnOnce() -> T) -> (T, u64) {
    let (was, before) = FAST.with(|c| c.get());
    FAST.with(|c| c.set((on, before)));
    let v = f();
    let after = FAST.with(|c| c.get().1);
    FAST.with(|c| c.set((was, after)));
    (v, after - before)
}

/// [`from_str`] through serde-saphyr only (`text` without a byte order mark).
pub fn slow_from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    let first =
        serde_saphyr::with_deserializer_from_str_with_options(text, options(text.len()), |de| {
            T::deserialize(de)
        });
    match first {
        Ok(v) => Ok(v),
        Err(e) => Err(located_with_path::<T>(text, e)),
    }
}

/// Read `text` with `seed`; the error without a field path (for readers that only need to know
/// whether a document is in their shape, such as the MAN fast path).
pub fn from_str_seed<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    seed: S,
) -> Result<S::Value, YamlError> {
    serde_saphyr::with_deserializer_from_str_with_options(text, options(text.len()), |de| {
        seed.deserialize(de)
    })
    .map_err(YamlError::from)
}

/// The error of reading `text` as `T` again, this time with the field path where it failed.
fn located_with_path<T: DeserializeOwned>(text: &str, first: serde_saphyr::Error) -> YamlError {
    let mut path = String::new();
    let again =
        serde_saphyr::with_deserializer_from_str_with_options(text, options(text.len()), |de| {
            serde_path_to_error::deserialize::<_, T>(de).map_err(|e| {
                path = e.path().to_string();
                e.into_inner()
            })
        });
    let e = match again {
        // (cannot happen: the same reader on the same text)
        Ok(_) => return YamlError::from(first),
        Err(e) => e,
    };
    let mut out = YamlError::from(e);
    if let Some(rest) = out.message.strip_prefix("invalid value, ") {
        if let Some(found) = token_at(text, out.line, out.column) {
            let kind = if found.parse::<i128>().is_ok() {
                "integer "
            } else {
                ""
            };
            out.message = format!("invalid value: {kind}`{found}`, {rest}");
        }
    }
    // A value nested deeper than animkit reads, where a scalar or another shape belongs:
    // the type mismatch is found first, but the nesting is what is wrong.
    if out.message.starts_with("expected ") && nesting_at(text, out.line, out.column) > MAX_DEPTH {
        out.message = crate::exact::error::nested_too_deep();
    }
    if out.message.starts_with("expected a ") {
        if let Some(found) = token_at(text, out.line, out.column) {
            out.message = format!("{}, found `{found}`", out.message);
        }
    }
    if !path.is_empty() && path != "." && !out.message.starts_with(&path) {
        out.message = format!("{path}: {}", out.message);
    }
    out
}

/// How many flow brackets (`[`, `{`) open one after another at `line`:`column` (1-based).
fn nesting_at(text: &str, line: Option<usize>, column: Option<usize>) -> usize {
    let Some(l) = line
        .and_then(|l| l.checked_sub(1))
        .and_then(|l| text.lines().nth(l))
    else {
        return 0;
    };
    let start = column
        .and_then(|c| c.checked_sub(1))
        .and_then(|c| l.char_indices().nth(c))
        .map_or(0, |(i, _)| i);
    l[start..]
        .chars()
        .filter(|c| *c != ' ')
        .take_while(|c| matches!(c, '[' | '{'))
        .count()
}

/// The scalar that starts at `line`:`column` (1-based, in characters), for a message that
/// says what was expected instead.
fn token_at(text: &str, line: Option<usize>, column: Option<usize>) -> Option<&str> {
    let l = text.lines().nth(line?.checked_sub(1)?)?;
    let start = l.char_indices().nth(column?.checked_sub(1)?)?.0;
    let rest = &l[start..];
    let end = rest.find([',', ']', '}', '#']).unwrap_or(rest.len());
    let t = rest[..end].trim();
    // (a list or mapping is named by the message itself)
    (!t.is_empty() && t.len() <= 64 && !t.starts_with(['[', '{'])).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        format: String,
        #[serde(default)]
        list: Vec<Item>,
        #[serde(default)]
        nested: Vec<serde::de::IgnoredAny>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Item {
        name: String,
        value: u16,
    }

    fn err(text: &str) -> YamlError {
        match from_str::<Doc>(text) {
            Ok(d) => panic!("read {d:?}"),
            Err(e) => e,
        }
    }

    /// Issue 28 item 12: reading errors in words: a second document, deep nesting where a
    /// scalar belongs, a custom tag; UTF-16/UTF-32 named; CR-only line ends read.
    #[test]
    fn reading_limits_tags_and_encodings_are_said_in_words() {
        let e = err("format: t\n---\nformat: u\n");
        assert_eq!(
            e.message,
            "the file holds more than one YAML document (a second `---`); an animkit file is one document"
        );
        let deep = format!(
            "format: t\nlist:\n- {{name: {}{}, value: 1}}\n",
            "[".repeat(300),
            "]".repeat(300)
        );
        let e = err(&deep);
        assert!(e.message.contains("nested too deep: "), "{e:?}");
        let e = err("format: t\nlist: !custom\n- {name: a, value: 1}\n");
        assert!(e.message.contains("unsupported tag `!custom`"), "{e:?}");
        let text = "format: t\nlist:\n- {name: a, value: 1}\n";
        let utf16: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        assert_eq!(
            crate::yaml::decode_text(&utf16).unwrap_err(),
            "is UTF-16 (little-endian) text; animkit reads YAML as UTF-8 (save it as UTF-8)"
        );
        let utf32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        assert!(crate::yaml::decode_text(&utf32)
            .unwrap_err()
            .starts_with("is UTF-32 (big-endian) text"));
        let cr = text.replace('\n', "\r");
        let read = crate::yaml::decode_text(cr.as_bytes()).unwrap();
        assert_eq!(from_str::<Doc>(&read).unwrap().list[0].value, 1);
        assert_eq!(crate::yaml::document_tag(&cr), Some("t"));
    }

    #[test]
    fn a_wrong_value_names_its_field_path_line_and_column() {
        let e = err("format: t\nlist:\n- {name: a, value: 1}\n- {name: b, value: 70000}\n");
        assert_eq!((e.line, e.column), (Some(4), Some(20)), "{e:?}");
        assert!(
            e.message.starts_with("list[1].value: ") && e.message.contains("0 … 65535"),
            "{}",
            e.message
        );
        let e = err("format: t\nlist:\n- name: a\n  value: 1\n  colour: red\n");
        assert_eq!(e.line, Some(5), "{e:?}");
        assert!(
            e.message.starts_with("list[0].colour: unknown field"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_byte_order_mark_is_accepted() {
        let d: Doc = from_str("\u{feff}format: t\r\nlist: [{name: a, value: 7}]\r\n").unwrap();
        assert_eq!(
            d.list,
            [Item {
                name: "a".into(),
                value: 7
            }]
        );
    }

    /// 100,000 levels, flow and block: refused at once where level 129 opens.
    #[test]
    fn nesting_past_the_limit_is_refused_at_its_line_and_column() {
        // On a thread with the main thread's 8 MiB of stack (the CLI's): the 128 levels the
        // reader accepts took more than a test thread's 2 MiB in an unoptimised build, whose
        // frames are larger, and aborted the whole test run (the release CLI refuses a
        // 2,000,000-level document at level 129).
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(nesting_past_the_limit)
            .expect("a thread")
            .join()
            .expect("no panic");
    }

    fn nesting_past_the_limit() {
        let mut s = String::from("format: t\nnested: ");
        s.extend(std::iter::repeat_n('[', 100_000));
        s.extend(std::iter::repeat_n(']', 100_000));
        let t = std::time::Instant::now();
        let e = err(&s);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
        assert_eq!(e.line, Some(2), "{e:?}");
        assert!(
            e.message.contains("depth") || e.message.contains("nest"),
            "{}",
            e.message
        );
        let mut s = String::from("format: t\nnested:\n");
        for _ in 0..100_000 {
            s.push_str("- ");
        }
        s.push_str("x\n");
        let e = err(&s);
        assert_eq!(e.line, Some(3), "{e:?}");
        assert!(
            e.message.contains("depth") || e.message.contains("nest"),
            "{}",
            e.message
        );
    }

    /// "A billion laughs": nine levels of nine aliases each would expand to 9^9 values.
    #[test]
    fn an_alias_bomb_is_refused_with_its_position() {
        let mut s = String::from("format: t\nnested:\n- &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            s.push_str(&format!(
                "- &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let t = std::time::Instant::now();
        let e = err(&s);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
        // (the anchors' replays are capped at the document's own size)
        assert_eq!(e.line, Some(6), "{e:?}");
        assert!(e.message.contains("too large or too complex"), "{e:?}");
    }
}
