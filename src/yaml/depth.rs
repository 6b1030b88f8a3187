//! The nesting-depth limit, checked in one pass over the text before the YAML parser sees it.
//!
//! libyaml (under serde_yaml) builds the whole event list before the deserialiser looks at it,
//! and its time grows with the square of the nesting depth (20,000 levels: seconds; 100,000:
//! minutes); serde_yaml's own recursion limit (128) only speaks after that. This scan refuses
//! a deeper document at once, at the line and column where the limit is crossed.
//!
//! The scan is a conservative lexer: flow collections (`[`, `{` outside quotes and comments)
//! and block levels (strictly increasing columns of `- ` entries and `key:` lines) count as
//! levels; block scalars (`|`, `>`) and quoted scalars (also over several lines) are skipped.
//! It never counts more levels than the document has, so a document it refuses is one the
//! parser would refuse too.

use crate::exact::YamlError;

/// The deepest nesting a document may have: serde_yaml's own recursion limit. animkit's
/// documents nest less than 16 levels.
pub const MAX_DEPTH: usize = 128;

/// `Err` at the first place `text` nests deeper than `limit` levels.
pub fn check_depth(text: &str, limit: usize) -> Result<(), YamlError> {
    let b = text.as_bytes();
    let mut flow = 0usize;
    // the columns of the open block levels, increasing
    let mut block: Vec<usize> = Vec::new();
    // inside a quoted scalar: its quote byte
    let mut quote: Option<u8> = None;
    // inside a block scalar: the indentation its content must exceed
    let mut block_scalar: Option<usize> = None;
    let mut line_no = 0usize;
    let mut pos = 0usize;
    while pos < b.len() {
        line_no += 1;
        let end = memchr_nl(b, pos);
        let line = &b[pos..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        pos = end + 1;
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        let blank = indent == line.len() || line[indent] == b'#';
        if let Some(parent) = block_scalar {
            if blank || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        let mut i = 0usize;
        if quote.is_none() && flow == 0 {
            if blank {
                continue;
            }
            while block.last().is_some_and(|&c| c > indent) {
                block.pop();
            }
            // `- ` entries (compact nesting `- - x` opens a level per dash), then the content
            i = indent;
            loop {
                if block.last() != Some(&i) {
                    block.push(i);
                    if block.len() > limit {
                        return Err(too_deep(line_no, i, limit));
                    }
                }
                let is_entry = line[i] == b'-' && matches!(line.get(i + 1), None | Some(b' '));
                if !is_entry {
                    break;
                }
                i += 1;
                while line.get(i) == Some(&b' ') {
                    i += 1;
                }
                if i >= line.len() || line[i] == b'#' {
                    break;
                }
            }
        }
        // the rest of the line: quotes, flow brackets, comments
        let mut prev = if i == 0 { b' ' } else { line[i - 1] };
        let mut last_token = 0u8;
        while i < line.len() {
            let c = line[i];
            match quote {
                Some(b'\'') => {
                    if c == b'\'' {
                        if line.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            quote = None;
                        }
                    }
                }
                Some(_) => {
                    if c == b'\\' {
                        i += 1;
                    } else if c == b'"' {
                        quote = None;
                    }
                }
                None => match c {
                    b'#' if prev == b' ' || prev == b'\t' => break,
                    b'\'' | b'"'
                        if matches!(prev, b' ' | b'\t' | b'[' | b'{' | b',' | b':' | b'-') =>
                    {
                        quote = Some(c)
                    }
                    // (inside a plain scalar, `a[b`, a bracket is text)
                    b'[' | b'{' if matches!(prev, b' ' | b'\t' | b'[' | b'{' | b',') => {
                        flow += 1;
                        if flow + block.len() > limit {
                            return Err(too_deep(line_no, i, limit));
                        }
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            if !matches!(c, b' ' | b'\t') {
                last_token = c;
            }
            prev = c;
            i += 1;
        }
        if quote.is_none() && flow == 0 && matches!(last_token, b'|' | b'>')
            || quote.is_none() && flow == 0 && ends_with_block_indicator(line)
        {
            block_scalar = Some(indent);
        }
    }
    Ok(())
}

/// `key: |-`, `- >2`, `|+ # comment`: a block scalar header ends the line.
fn ends_with_block_indicator(line: &[u8]) -> bool {
    let text = match line.windows(2).position(|w| w == b" #") {
        Some(p) => &line[..p],
        None => line,
    };
    let t = text.trim_ascii_end();
    let head = t
        .iter()
        .rposition(|&c| c == b' ')
        .map_or(t, |p| &t[p + 1..]);
    matches!(head.first(), Some(b'|' | b'>'))
        && head[1..]
            .iter()
            .all(|c| matches!(c, b'-' | b'+' | b'1'..=b'9'))
        && (head.len() == t.len()
            || t[..t.len() - head.len()].trim_ascii_end().ends_with(b":")
            || t[..t.len() - head.len()].trim_ascii_end().ends_with(b"-"))
}

fn memchr_nl(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| from + p)
}

fn too_deep(line: usize, index: usize, limit: usize) -> YamlError {
    YamlError {
        line: Some(line),
        column: Some(index + 1),
        message: format!(
            "the document nests deeper than {limit} levels here (animkit's documents nest \
             less than 16): refused before parsing"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_nesting_past_the_limit_is_refused_at_its_line_and_column() {
        let mut s = String::from("format: mw3.anim\nversion: 1\nanim_defs: ");
        s.extend(std::iter::repeat_n('[', 100_000));
        s.extend(std::iter::repeat_n(']', 100_000));
        let e = check_depth(&s, MAX_DEPTH).unwrap_err();
        // `anim_defs` is block level 1; the 128th bracket opens level 129
        assert_eq!((e.line, e.column), (Some(3), Some(11 + 128)));
        assert!(
            e.message.contains("deeper than 128 levels"),
            "{}",
            e.message
        );
    }

    #[test]
    fn block_nesting_past_the_limit_is_refused() {
        let mut s = String::from("format: mw3.anim\nanim_defs:\n");
        for _ in 0..20_000 {
            s.push_str("- ");
        }
        s.push_str("x\n");
        let e = check_depth(&s, MAX_DEPTH).unwrap_err();
        assert_eq!(e.line, Some(3));
        let mut s = String::new();
        for d in 0..200 {
            s.push_str(&" ".repeat(d));
            s.push_str("k:\n");
        }
        // (line 129 opens level 129)
        assert_eq!(check_depth(&s, MAX_DEPTH).unwrap_err().line, Some(129));
    }

    #[test]
    fn brackets_in_quotes_comments_and_block_scalars_do_not_count() {
        let open = "[".repeat(200);
        let s = format!(
            "a: '{open}'\nb: \"{open}\\\"{open}\"\nc: x # {open}\nd: |\n  {open}\n  {open}\ne: [1, [2]]\n\
             f: 'it''s {open}'\ng: \"two\n  lines {open}\"\nh: plain[text\n"
        );
        check_depth(&s, MAX_DEPTH).unwrap();
    }
}
