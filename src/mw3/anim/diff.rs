//! `animkit diff` of two MW3 files: the documents compared line by line, each changed line named
//! by its place in the document (`anim_defs[1].sequences[0].events[4].sound.node`) with its old
//! → new value as the YAML writes it.

/// The field path of every line of a block-style YAML document as animkit writes it (`key:`
/// mappings indented by two, `- ` sequence items); lines that are not part of a value (blank,
/// comments, `---`) get the path of what precedes them.
pub fn line_paths(text: &str) -> Vec<String> {
    #[derive(Clone)]
    enum Seg {
        Key(String),
        Index(usize),
    }
    let mut stack: Vec<(usize, Seg)> = Vec::new();
    let mut key_open = false; // the previous line was `key:` with its value below
    let show = |stack: &[(usize, Seg)]| {
        let mut p = String::new();
        for (_, s) in stack {
            match s {
                Seg::Key(k) if p.is_empty() => p.push_str(k),
                Seg::Key(k) => {
                    p.push('.');
                    p.push_str(k);
                }
                Seg::Index(i) => p.push_str(&format!("[{i}]")),
            }
        }
        p
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("---") {
            out.push(show(&stack));
            continue;
        }
        let mut col = line.len() - trimmed.len();
        let mut rest = trimmed;
        while let Some(r) = rest
            .strip_prefix("- ")
            .or(if rest == "-" { Some("") } else { None })
        {
            while stack.last().is_some_and(|(i, _)| *i > col) {
                stack.pop();
            }
            match stack.last_mut() {
                Some((i, Seg::Index(n))) if *i == col => *n += 1,
                Some((i, Seg::Key(_))) if *i == col && !key_open => {
                    stack.pop();
                    stack.push((col, Seg::Index(0)));
                }
                _ => stack.push((col, Seg::Index(0))),
            }
            key_open = false;
            col += 2;
            rest = r;
        }
        if let Some((k, v)) = split_key(rest) {
            // A key ends everything at its column or deeper (a sequence written at its
            // parent key's column included).
            while stack.last().is_some_and(|(i, _)| *i >= col) {
                stack.pop();
            }
            stack.push((col, Seg::Key(k.to_string())));
            key_open = v.is_empty();
        } else {
            key_open = false;
        }
        out.push(show(&stack));
    }
    out
}

/// `key: value` (or `key:`) → (key, value); `None` for a scalar or flow value.
fn split_key(s: &str) -> Option<(&str, &str)> {
    let first = s.chars().next()?;
    if !(first.is_ascii_alphanumeric() || first == '_') {
        return None;
    }
    let colon = s.find(':')?;
    let key = &s[..colon];
    if !key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == ' ')
    {
        return None;
    }
    let after = &s[colon + 1..];
    if after.is_empty() {
        return Some((key, ""));
    }
    after.strip_prefix(' ').map(|v| (key, v.trim_start()))
}

/// The value a line shows (after its `- ` markers and `key: `).
fn value_of(line: &str) -> &str {
    let mut rest = line.trim_start();
    while let Some(r) = rest.strip_prefix("- ") {
        rest = r;
    }
    match split_key(rest) {
        Some((_, v)) => v,
        None => rest,
    }
}

/// What changed from document `a` to `b`, one line per change, each named by its path.
pub fn diff_documents(a: &str, b: &str) -> Vec<String> {
    if a == b {
        return Vec::new();
    }
    let (pa, pb) = (line_paths(a), line_paths(b));
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut out = Vec::new();
    let d = similar::TextDiff::from_lines(a, b);
    for op in d.ops() {
        use similar::DiffOp;
        match *op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for k in old_index..old_index + old_len {
                    out.push(format!("{}: removed {}", pa[k], la[k].trim()));
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for k in new_index..new_index + new_len {
                    out.push(format!("{}: added {}", pb[k], lb[k].trim()));
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for k in 0..old_len.max(new_len) {
                    let (x, y) = (old_index + k, new_index + k);
                    match (k < old_len, k < new_len) {
                        (true, true) if pa[x] == pb[y] => out.push(format!(
                            "{}: {} → {}",
                            pa[x],
                            value_of(la[x]),
                            value_of(lb[y])
                        )),
                        (true, true) => {
                            out.push(format!("{}: removed {}", pa[x], la[x].trim()));
                            out.push(format!("{}: added {}", pb[y], lb[y].trim()));
                        }
                        (true, false) => out.push(format!("{}: removed {}", pa[x], la[x].trim())),
                        (false, true) => out.push(format!("{}: added {}", pb[y], lb[y].trim())),
                        (false, false) => {}
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_named_by_their_place_in_the_document() {
        let doc = "format: mw3.anim\nanim_list:\n- x\nanim_defs:\n- name: a\n  sequences:\n  - name: s0\n    events:\n    - {sound: {node: 1}}\n    - {sound: {node: 2}}\n  - name: s1\n    events: []\n- name: b\n  nodes:\n    - x\n    - - 1\n      - 2\n";
        let p = line_paths(doc);
        assert_eq!(
            p,
            [
                "format",
                "anim_list",
                "anim_list[0]",
                "anim_defs",
                "anim_defs[0].name",
                "anim_defs[0].sequences",
                "anim_defs[0].sequences[0].name",
                "anim_defs[0].sequences[0].events",
                "anim_defs[0].sequences[0].events[0]",
                "anim_defs[0].sequences[0].events[1]",
                "anim_defs[0].sequences[1].name",
                "anim_defs[0].sequences[1].events",
                "anim_defs[1].name",
                "anim_defs[1].nodes",
                "anim_defs[1].nodes[0]",
                "anim_defs[1].nodes[1][0]",
                "anim_defs[1].nodes[1][1]",
            ]
        );
        let b = doc.replace("{sound: {node: 2}}", "{sound: {node: 3}}");
        assert_eq!(
            diff_documents(doc, &b),
            ["anim_defs[0].sequences[0].events[1]: {sound: {node: 2}} → {sound: {node: 3}}"]
        );
    }
}
