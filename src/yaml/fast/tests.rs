use super::*;
use crate::yaml::read::slow_from_str;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;

/// Whenever the fast reader reads `text` as `T`, serde-saphyr reads the same value.
/// Returns whether the fast reader read it.
fn agrees<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) -> bool {
    match from_str::<T>(text) {
        Some(fast) => {
            let slow = slow_from_str::<T>(text)
                .unwrap_or_else(|e| panic!("fast read {text:?} as {fast:?}, slow: {e}"));
            assert_eq!(fast, slow, "{text:?}");
            true
        }
        None => false,
    }
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct S {
    a: String,
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Typed {
    s: Option<String>,
    u: Option<u32>,
    i: Option<i16>,
    f: Option<f32>,
    b: Option<bool>,
    #[serde(default)]
    v: Vec<u8>,
}

const SPELLINGS: &[&str] = &[
    "a",
    "abc def",
    "0",
    "7",
    "-7",
    "007",
    "+7",
    "0x1f",
    "0X1F",
    "0o17",
    "0b101",
    "1_000",
    "1.5",
    "-1.5",
    "1e5",
    "1.0e+20",
    "-0.0",
    ".5",
    "5.",
    ".inf",
    "-.inf",
    ".nan",
    "nan",
    "inf",
    "Infinity",
    "1e999",
    "null",
    "Null",
    "NULL",
    "~",
    "true",
    "True",
    "TRUE",
    "yes",
    "no",
    "on",
    "Off",
    "y",
    "N",
    "tRuE",
    "\"\"",
    "''",
    "\"a\\tb\"",
    "\"\\x41\\u00e9\"",
    "'it''s'",
    "\"null\"",
    "'7'",
    "a:b",
    "a #b",
    "a#b",
    "-a",
    "?a",
    ":a",
    "..\\\\x",
    "\"..\\\\data\"",
    "9223372036854775808",
    "-9223372036854775809",
    "256",
    "65536",
    "-32769",
    "äöü",
    "a\u{85}b",
    "\u{feff}",
    "a\tb",
    "&x a",
    "*x",
    "!t a",
    "|",
    ">",
    "@a",
    "`a",
    "%a",
    "\"a\\/b\"",
    "\"a\\eb\"",
    "[a, b]",
    "{a: b}",
    "[]",
    "{}",
    "[a, ]",
    "",
];

/// Every scalar spelling into every kind of target: the fast reader either gives up or
/// reads exactly what serde-saphyr reads.
#[test]
fn scalars_read_as_serde_saphyr_reads_them_or_not_at_all() {
    let mut fast = 0;
    for sp in SPELLINGS {
        for key in ["s", "u", "i", "f", "b"] {
            for text in [
                format!("{key}: {sp}\n"),
                format!("x: 1\n{key}: {sp}  # c\n"),
            ] {
                fast += usize::from(agrees::<Typed>(&text.replacen("x: 1\n", "", 1)));
                fast += usize::from(agrees::<serde_json::Value>(&text));
                fast += usize::from(agrees::<BTreeMap<String, serde::de::IgnoredAny>>(&text));
            }
        }
        for text in [
            format!("v: [{sp}]\n"),
            format!("v:\n- {sp}\n"),
            format!("s: {{a: {sp}}}\n"),
            format!("list:\n- a: {sp}\n  b: 1\n"),
        ] {
            fast += usize::from(agrees::<serde_json::Value>(&text));
        }
        fast += usize::from(agrees::<S>(&format!("a: {sp}\n")));
        fast += usize::from(agrees::<Vec<S>>(&format!("- a: {sp}\n- {{a: {sp}}}\n")));
    }
    // (most of them are in the subset)
    assert!(fast > 500, "{fast}");
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Doc {
    format: String,
    #[serde(default)]
    list: Vec<BTreeMap<String, serde_json::Value>>,
    #[serde(default)]
    nested: Option<serde_json::Value>,
}

/// Documents outside the subset: the fast reader gives up, and `read::from_str` still
/// reads them (through serde-saphyr) with the same value.
#[test]
fn documents_outside_the_subset_fall_back_and_still_read() {
    for text in [
        "format: t\nlist:\n- &x {a: 1}\n- *x\n",
        "format: !!str t\n",
        "%YAML 1.2\n---\nformat: t\n",
        "---\nformat: t\n...\n",
        "format: t\nnested: |\n  two\n  lines\n",
        "format: >\n  folded\n",
        "format: \"two\n  lines\"\n",
        "format: plain\n  continued\n",
        "format: t\nlist:\n- {a: 1,\n   b: 2}\n",
        "format: t\nlist:\n- <<: {a: 1}\n  b: 2\n",
        "format: t\nnested: {a: 1, a: 2}\n",
        "format:\tt\n",
        "format: t\nnested: [a, ]\n",
        "format: t\nnested: \"\\e\"\n",
        "? format\n: t\n",
        "  format: t\n",
    ] {
        assert!(from_str::<Doc>(text).is_none(), "fast read {text:?}");
        let slow = slow_from_str::<Doc>(text);
        let through = crate::yaml::from_str::<Doc>(text);
        assert_eq!(format!("{slow:?}"), format!("{through:?}"), "{text:?}");
    }
    // (the alias document reads, with the alias replayed)
    let d: Doc = crate::yaml::from_str("format: t\nlist:\n- &x {a: 1}\n- *x\n").unwrap();
    assert_eq!(d.list.len(), 2);
    assert_eq!(d.list[0], d.list[1]);
}

/// The same document in every layout the subset allows reads the same, fast.
#[test]
fn layouts_of_the_subset_read_fast() {
    let expected = Doc {
        format: "t".into(),
        list: vec![BTreeMap::from([
            ("a".to_string(), serde_json::json!(1)),
            ("b".to_string(), serde_json::json!(["x", "y z"])),
        ])],
        nested: Some(serde_json::json!({"k": [[1, -2], {"q": "it's"}]})),
    };
    for text in [
        "format: t\nlist:\n- a: 1\n  b: [x, y z]\nnested: {k: [[1, -2], {q: \"it's\"}]}\n",
        "# head\nformat: t  # tag\n\nlist:\n  - a: 1\n    b:\n    - x\n    - 'y z'\n\
         nested:\n  k:\n  - - 1\n    - -2\n  - q: 'it''s'\n",
        "format: t\r\nlist:\r\n- {a: 1, b: [x, \"y z\"]}\r\nnested:\r\n  k: [[1, -2], {q: it's}]\r\n",
    ] {
        assert_eq!(from_str::<Doc>(text).as_ref(), Some(&expected), "{text:?}");
        assert!(agrees::<Doc>(text));
    }
}

/// Nesting past [`FAST_DEPTH`] is left to serde-saphyr (which refuses it past its own
/// limit with line:col); a million levels cost the fast reader nothing.
#[test]
fn deep_nesting_is_left_to_serde_saphyr() {
    let deep = |n: usize| {
        let mut s = String::from("format: t\nnested: ");
        s.extend(std::iter::repeat_n('[', n));
        s.extend(std::iter::repeat_n(']', n));
        s
    };
    assert!(from_str::<Doc>(&deep(FAST_DEPTH - 1)).is_some());
    assert!(from_str::<Doc>(&deep(FAST_DEPTH)).is_none());
    let t = std::time::Instant::now();
    assert!(from_str::<Doc>(&deep(1_000_000)).is_none());
    let mut block = String::from("format: t\nnested:\n");
    block.extend(std::iter::repeat_n("- ", 1_000_000));
    block.push_str("x\n");
    assert!(from_str::<Doc>(&block).is_none());
    assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
    let e = crate::yaml::from_str::<Doc>(&deep(1_000_000)).unwrap_err();
    assert_eq!(e.line, Some(2), "{e:?}");
}

/// A type error anywhere gives up, so serde-saphyr reports it with its path and place.
#[test]
fn errors_come_from_serde_saphyr() {
    let text = "format: t\nlist:\n- {a: 1}\n- [x]\n";
    assert!(from_str::<Doc>(text).is_none());
    let e = crate::yaml::from_str::<Doc>(text).unwrap_err();
    assert_eq!(e.line, Some(4), "{e:?}");
    assert!(e.message.starts_with("list[1]"), "{}", e.message);
}

/// The 16-byte scan stops exactly where the byte table says: every byte value at every
/// position of a 16-byte step (and in the byte-wise tail), after runs of plain bytes.
#[test]
fn plain_run_matches_the_table() {
    let table = |s: &[u8], mut i: usize| {
        while i < s.len() && !scan::PLAIN_STOP[s[i] as usize] {
            i += 1;
        }
        i
    };
    let mut stops = 0;
    for b in 0..=255u8 {
        for len in [0usize, 1, 7, 15, 16, 17, 31, 40] {
            let mut s = vec![b'a'; len];
            s.push(b);
            s.extend_from_slice(b"zzzzzzzzzzzzzzzzzzzz");
            for start in [0usize, 1, 3] {
                let want = table(&s, start.min(s.len()));
                assert_eq!(
                    scan::plain_run(&s, start.min(s.len())),
                    want,
                    "byte {b:#04x}, len {len}"
                );
                if start == 0 && want == len {
                    stops += 1;
                }
            }
        }
    }
    // (0x00-0x1f, 0x7f-0xff and `:#,[]{}`: 168 byte values stop the scan)
    assert_eq!(stops, 168 * 8);
    // no stop byte at all: the end of the text
    let s = [b'x'; 50];
    assert_eq!(scan::plain_run(&s, 0), 50);
    assert_eq!(scan::plain_run(&s, 50), 50);
    assert_eq!(scan::plain_run(b"0123456789abcdef:", 0), 16);
}

#[test]
fn integers_parse_as_the_standard_parser() {
    use super::scalar::{parse_i64, parse_u64};
    // (the rules before the short-decimal step: all digits, no leading zero, then `str::parse`)
    let digits = |b: &[u8]| {
        !(b.is_empty() || b[0] == b'0' && b.len() > 1) && b.iter().all(u8::is_ascii_digit)
    };
    let want_u = |s: &str| {
        if s.starts_with("0x") {
            return parse_u64(s);
        }
        digits(s.as_bytes())
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let want_i = |s: &str| match s.strip_prefix('-') {
        Some(d) => digits(d.as_bytes())
            .then(|| s.parse::<i64>().ok())
            .flatten(),
        None => want_u(s).and_then(|x| i64::try_from(x).ok()),
    };
    let mut texts: Vec<String> = [
        "", "-", "0", "00", "01", "-0", "-00", "-01", "1a", "a1", "+1", "1 ", " 1", "1.0", "0x1f",
        "-0x1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for n in 1..=21 {
        for lead in ['1', '9'] {
            let t: String = std::iter::once(lead)
                .chain(std::iter::repeat_n('9', n - 1))
                .collect();
            texts.push(t.clone());
            texts.push(format!("-{t}"));
            texts.push(format!("{t}x"));
        }
    }
    for v in [
        u64::MAX,
        i64::MAX as u64,
        i64::MAX as u64 + 1,
        10u64.pow(18),
        10u64.pow(18) - 1,
        10u64.pow(19),
    ] {
        texts.push(v.to_string());
        texts.push(format!("-{v}"));
    }
    for v in (0u64..100_000).step_by(7) {
        texts.push(v.to_string());
        texts.push(format!("-{v}"));
    }
    let mut read = 0;
    for t in &texts {
        assert_eq!(parse_u64(t), want_u(t), "{t:?}");
        assert_eq!(parse_i64(t), want_i(t), "{t:?}");
        read += usize::from(parse_i64(t).is_some());
    }
    // (every generated spelling of a number within i64 reads; the malformed ones do not)
    assert!(read > 28_000, "{read}");
    assert_eq!(parse_i64("-9223372036854775808"), Some(i64::MIN));
    assert_eq!(parse_u64("18446744073709551615"), Some(u64::MAX));
    assert_eq!(parse_u64("18446744073709551616"), None);
    assert_eq!(
        parse_i64("-999999999999999999"),
        Some(-999_999_999_999_999_999)
    );
}

#[test]
fn space_run_matches_bytes() {
    // every byte after runs of spaces of every length around the 16-byte step, from several
    // starts, and runs to the end of the text
    let mut ended = 0;
    for b in 0..=255u8 {
        for len in 0usize..40 {
            for tail in [0usize, 1, 20] {
                let mut s = vec![b' '; len];
                s.push(b);
                s.extend(std::iter::repeat_n(b'x', tail));
                for start in [0usize, 1, 5, 16] {
                    let start = start.min(s.len());
                    let want = scan::space_run_bytes(&s, start);
                    assert_eq!(scan::space_run(&s, start), want, "{b:#04x} {len} {start}");
                    if b != b' ' && start <= len && want == len {
                        ended += 1;
                    }
                }
            }
        }
    }
    // (a non-space byte ends the run at its length, from each start at or before it: per
    // byte and tail, 1 start for length 0, 2 for 1–4, 3 for 5–15, 4 for 16–39)
    assert_eq!(ended, 255 * 3 * (1 + 4 * 2 + 11 * 3 + 24 * 4));
    assert_eq!(scan::space_run(&[b' '; 50], 0), 50);
    assert_eq!(scan::space_run(&[b' '; 50], 50), 50);
    assert_eq!(scan::space_run(b"   ", 7), 7);
}

/// Keys' prints: length and first seven bytes, so different short keys never share one.
#[test]
fn key_fingerprints() {
    use super::scalar::fingerprint;
    assert_eq!(fingerprint(""), 0);
    assert_eq!(fingerprint("ab"), 0x0200_0000_0000_6261);
    assert_eq!(fingerprint("abcdefgh"), 0x0867_6665_6463_6261);
    assert_eq!(fingerprint("abcdefgX"), fingerprint("abcdefgh"));
    assert_ne!(fingerprint("abcdefg"), fingerprint("abcdefgh"));
    assert_ne!(fingerprint("name"), fingerprint("node"));
}

/// A key's print from the text is its [`scalar::fingerprint`], wherever it stands (the
/// text's last bytes too).
#[test]
fn key_prints_from_the_text_are_the_fingerprints() {
    let text = "a: 1\nname: x\nabcdefg: 2\nabcdefghij: 3\nzz";
    let p = Parser::new(text, 0);
    for (at, len) in [
        (0, 1),
        (5, 4),
        (13, 7),
        (24, 10),
        (38, 2),
        (39, 1),
        (40, 0),
        (0, 40),
    ] {
        let key = &text[at..at + len];
        assert_eq!(p.key_print(key), scalar::fingerprint(key), "{key:?}");
    }
    // a key that is not in the text (decoded) gets the same print too
    let owned = String::from("name");
    assert_eq!(p.key_print(&owned), scalar::fingerprint("name"));
}

/// A plain key that is `null` or a YAML 1.1 boolean in any case is left to serde-saphyr;
/// keys that only start like one read fast.
#[test]
fn special_keys_are_left_to_serde_saphyr() {
    for k in [
        "null", "Null", "NULL", "nULL", "true", "True", "TRUE", "false", "FALSE", "yes", "Yes",
        "no", "NO", "on", "On", "off", "OFF", "y", "Y", "n", "N", "~",
    ] {
        let text = format!("a: 1\n{k}: 2\n");
        assert!(
            !agrees::<BTreeMap<String, u8>>(&text),
            "{k}: the fast reader read it"
        );
    }
    for k in [
        "name", "node", "nope", "offset", "trueish", "yess", "o", "t", "f", "nulls", "type",
        "time", "flags", "on_call", "y_axis", "n1", "of", "tru", "fals",
    ] {
        let text = format!("a: 1\n{k}: 2\n");
        assert!(agrees::<BTreeMap<String, u8>>(&text), "{k}: not read fast");
        let text = format!("m: {{a: 1, {k}: 2}}\n");
        assert!(
            agrees::<BTreeMap<String, BTreeMap<String, u8>>>(&text),
            "{k}: not read fast"
        );
    }
}

/// A mapping with many keys: every duplicate is found, whatever the fingerprint filter says.
#[test]
fn duplicates_among_many_keys_are_found() {
    let keys: Vec<String> = (0..200).map(|i| format!("key_{i}")).collect();
    let all = keys
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k}: {i}\n"))
        .collect::<String>();
    assert!(agrees::<BTreeMap<String, u32>>(&all));
    // (the first keys are compared directly, the rest through the filter: every size and
    // place around the switch)
    for n in 1..=12 {
        let few = &keys[..n];
        let flow = |extra: &str| {
            let mut m: Vec<String> = few.iter().map(|k| format!("{k}: 1")).collect();
            m.push(format!("{extra}: 2"));
            format!("m: {{{}}}\n", m.join(", "))
        };
        assert!(
            agrees::<BTreeMap<String, BTreeMap<String, u32>>>(&flow("other")),
            "{n}"
        );
        for k in few {
            let text = flow(k);
            assert!(
                from_str::<BTreeMap<String, BTreeMap<String, u32>>>(&text).is_none(),
                "{text}"
            );
            let block: String = few.iter().chain([k]).map(|k| format!("{k}: 1\n")).collect();
            assert!(
                from_str::<BTreeMap<String, u32>>(&block).is_none(),
                "{block}"
            );
        }
    }
    for dup in [0, 1, 63, 64, 150, 199] {
        let text = format!("{all}{}: 7\n", keys[dup]);
        assert!(from_str::<BTreeMap<String, u32>>(&text).is_none(), "{dup}");
        let flow = format!(
            "m: {{{}, {}: 7}}\n",
            keys.iter()
                .map(|k| format!("{k}: 1"))
                .collect::<Vec<_>>()
                .join(", "),
            keys[dup]
        );
        assert!(
            from_str::<BTreeMap<String, BTreeMap<String, u32>>>(&flow).is_none(),
            "{dup}"
        );
    }
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct Fields {
    a: u8,
    #[serde(default)]
    b: Option<Vec<u8>>,
    #[serde(default)]
    inner: Option<Box<Fields>>,
}

/// A struct's keys: a second value of a field it reads is refused by its visitor, a repeated
/// key it does not know by the reader (its values are skipped); either way serde-saphyr reads
/// the document and reports the duplicate. Unknown keys once each, the same unknown key in
/// a nested struct, and nested maps with keys of the outer struct read fast.
#[test]
fn duplicate_keys_of_structs_are_refused() {
    for text in [
        "a: 1\nb: [2]\nc: 3\nd: [4, {e: 5}]\n",
        "a: 1\nc: 3\ninner: {a: 2, c: 3, d: {c: 1, a: 1}}\nd: 4\n",
        "a: 1\nc: {c: {c: 1}}\ninner:\n  c: 1\n  a: 2\n  d: 1\nd: 1\n",
        "inner: {a: 1, b: [], c: 2}\na: 1\n",
    ] {
        assert!(agrees::<Fields>(text), "{text:?}: not read fast");
    }
    for text in [
        "a: 1\na: 2\n",
        "a: 1\nb: [1]\nb: [2]\n",
        "a: 1\nc: 3\nc: 3\n",
        "a: 1\nc: 3\nd: 4\nc: {x: 1}\n",
        "a: 1\ninner: {a: 1, c: 2, c: 3}\n",
        "a: 1\ninner: {a: 2, a: 3}\n",
        "a: 1\ninner: {a: 2, c: 1, d: 2, c: 3}\n",
        "a: 1\nc: {x: 1, x: 2}\n",
    ] {
        assert!(from_str::<Fields>(text).is_none(), "{text:?}: read fast");
        let e = crate::yaml::from_str::<Fields>(text).unwrap_err();
        assert!(e.message.contains("duplicate"), "{text:?}: {e:?}");
    }
}

#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Catalog,
    File,
    Gap,
}

#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Piece {
    kind: Kind,
    #[serde(default)]
    entry: Option<usize>,
}

#[test]
fn unit_variants_read_as_serde_saphyr_reads_them() {
    // A plain name is read here, with the value serde-saphyr gives it.
    for text in [
        "kind: file\n",
        "kind: gap\nentry: 3\n",
        "kind: catalog  # the catalog\n",
    ] {
        assert!(agrees::<Piece>(text), "{text:?}");
    }
    let list = from_str::<Vec<Piece>>("- {kind: catalog}\n- {kind: file, entry: 4}\n").unwrap();
    assert_eq!(
        list,
        [
            Piece {
                kind: Kind::Catalog,
                entry: None
            },
            Piece {
                kind: Kind::File,
                entry: Some(4)
            },
        ]
    );
    // Anything else is left to serde-saphyr (which reads or refuses it with a located error).
    for text in [
        "kind: \"file\"\n",
        "kind: File\n",
        "kind: null\n",
        "kind: {file: 1}\n",
        "kind: [file]\n",
    ] {
        assert!(from_str::<Piece>(text).is_none(), "{text:?}");
    }
}

/// Every spelling of `null` and the YAML 1.1 booleans, in any case, is a key the reader gives
/// up on (serde-saphyr does not read it as text); other short words are not.
#[test]
fn special_keys_are_null_and_the_yaml11_booleans_in_any_case() {
    for w in ["null", "true", "false", "yes", "no", "on", "off", "y", "n"] {
        // every mix of upper and lower case
        for mask in 0u32..(1 << w.len()) {
            let k: String = w
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if mask & (1 << i) != 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            assert!(super::scan::special_key(k.as_bytes()), "{k}");
        }
    }
    for k in [
        "", "nul", "nulls", "yess", "ok", "of", "x", "tru", "falsey", "name", "node",
    ] {
        assert!(!super::scan::special_key(k.as_bytes()), "{k}");
    }
}

/// What [`Parser::plain_from`] gives from `at` in `text`: the scalar's text, style and
/// escape mark and the cursor after it, or `None` where it gives up.
fn plain_at(text: &str, at: usize, flow: bool, word_run: bool) -> Option<(String, usize)> {
    let mut p = Parser::new(text, 0);
    p.pos = at;
    let s = p.plain_from(flow, word_run).ok()?;
    assert!(s.style == Style::Plain && !s.escaped);
    Some((s.raw.to_string(), p.pos))
}

/// The short-word step of the plain scan ends a scalar exactly where the general scan does
/// (and gives up where it does): every byte after words of every length around the step's
/// limit, in block and flow context.
#[test]
fn the_word_step_ends_plain_scalars_as_the_general_scan() {
    let after: Vec<String> = (0x01..0x80u8)
        .map(|b| (b as char).to_string())
        .chain(["é", ": ", ":", ":,", ":x", " #", "#", " x", "\r\n", "-"].map(String::from))
        .collect();
    let mut words = 0;
    for len in [0usize, 1, 2, 5, 15, 16, 23, 24, 25, 40] {
        let word: String = "a_1.b+C-9".chars().cycle().take(len).collect();
        for first in ["", "-", ".", "x", "0x"] {
            for tail in &after {
                for end in ["", "\n", " z, q]"] {
                    let text = format!("{first}{word}{tail}{end}");
                    for flow in [false, true] {
                        let fast = plain_at(&text, 0, flow, true);
                        assert_eq!(fast, plain_at(&text, 0, flow, false), "{text:?} {flow}");
                        words += usize::from(fast.is_some());
                    }
                }
            }
        }
    }
    assert!(words > 10_000, "{words}");
}

proptest::proptest! {
    /// The same on any text from the bytes that matter, from any position.
    #[test]
    fn the_word_step_agrees_on_any_text(
        text in "[a-c0-9_.+\\-: ,\\[\\]{}#\\n\\r\\t'\"é/]{0,40}",
        at in 0usize..40,
        flow in proptest::bool::ANY,
    ) {
        let at = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        proptest::prop_assert_eq!(plain_at(&text, at, flow, true), plain_at(&text, at, flow, false));
    }
}

/// The 16-byte word step counts exactly the [`scan::WORD`] bytes from the start: every byte
/// value at every place of the 16.
#[test]
fn word_run_matches_the_table() {
    let table = |s: &[u8]| s.iter().take_while(|&&b| scan::WORD[b as usize]).count();
    for b in 0..=255u8 {
        for at in 0..=16 {
            let mut s: Vec<u8> = b"aZ09_.+-zA9".iter().cycle().take(20).copied().collect();
            if at < s.len() {
                s[at] = b;
            }
            let want = table(&s).min(16);
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            assert_eq!(scan::word_run_sse2(&s[..16]), want, "byte {b:#04x} at {at}");
            // (and the whole step, from a few starts)
            for start in [0, 1, 4] {
                let got = scan::word_run(&s, start);
                assert!(got >= start && got <= s.len());
                assert_eq!(
                    got - start,
                    table(&s[start..]).min(16),
                    "{b:#04x} {at} {start}"
                );
            }
        }
    }
    assert_eq!(scan::WORD.iter().filter(|&&w| w).count(), 26 * 2 + 10 + 4);
}

#[test]
fn a_piece_read_into_a_vector_with_room_is_the_vec_read() {
    let texts = [
        "- a\n- b\n- c\n",
        "- {x: 1}\n- [2, 3]\n",
        "- 1\n- 2\nafter: 3\n",
        "- 1\n  - 2\n",
        "- 1\n- &a 2\n",
    ];
    for text in texts {
        let want = read_piece::<Vec<serde_json::Value>>(text, 1, false);
        for room in [0, 1, 2, 100] {
            let got = read_piece_vec::<serde_json::Value>(text, 1, false, room);
            assert_eq!(got, want, "{text:?} {room}");
            if let Some((v, _)) = &got {
                assert!(v.capacity() >= room, "{room}");
            }
        }
    }
    // (the pieces that read, and where the rest starts)
    let ok = |t| read_piece::<Vec<serde_json::Value>>(t, 1, false).map(|(v, end)| (v.len(), end));
    assert_eq!(ok(texts[0]), Some((3, 12)));
    assert_eq!(ok(texts[2]), Some((2, 8)));
    assert_eq!(ok(texts[4]), None);
}
