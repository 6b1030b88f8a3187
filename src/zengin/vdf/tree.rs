//! The catalog tree (directory blocks → paths) and the names that are safe to write as files.

use super::{Entry, ENTRY_SIZE};
use crate::exact::{DecodeError, Within};

/// Every entry's path in the directory tree, built from the catalog's blocks. The paths lie
/// one after another in one buffer (an archive of 69,000 members keeps about 70 bytes a
/// member here, not a string of its own and a copy per member for finding duplicates).
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Every reached entry's path (components joined with `/`, raw Windows-1252 bytes).
    text: Vec<u8>,
    /// Per entry: where its path lies in `text` (start, length); [`UNREACHED`] for an entry
    /// no directory reaches.
    spans: Vec<(u32, u32)>,
    /// Per entry: the directory entry it sits in ([`ROOT`] for the root block).
    parents: Vec<u32>,
    pub warnings: Vec<String>,
}

/// [`Tree::spans`] of an entry no directory reaches.
const UNREACHED: (u32, u32) = (u32::MAX, 0);
/// [`Tree::parents`] of an entry of the root block (or of none).
const ROOT: u32 = u32::MAX;

impl Tree {
    /// Walk the blocks from the root block at index 0. A block reached twice (a loop, or two
    /// directories sharing children) is an error; a block without a "last" entry ends at the
    /// catalog's end, a directory whose first child lies outside the catalog is empty and an
    /// entry no directory reaches is skipped, each with a warning.
    pub fn build(entries: &[Entry], catalog_start: u64) -> Result<Tree, DecodeError> {
        let n = entries.len();
        let too_long = || {
            DecodeError::invalid(
                catalog_start,
                format!(
                    "the catalog's {n} entries have paths longer than 4 GiB together (directories nested too deep)"
                ),
            )
        };
        // (the header's entry count is a u32: every index fits)
        let mut t = Tree {
            text: Vec::new(),
            spans: vec![UNREACHED; n],
            parents: vec![ROOT; n],
            warnings: Vec::new(),
        };
        // (start of a block, the span of its directory's path, its directory)
        type Block = (usize, Option<(u32, u32)>, Option<usize>);
        let mut stack: Vec<Block> = Vec::new();
        if n > 0 {
            stack.push((0, None, None));
        }
        while let Some((start, prefix, parent)) = stack.pop() {
            let mut i = start;
            loop {
                if i >= n {
                    t.warnings.push(format!(
                        "the block starting at catalog[{start}] has no entry marked last; it ends with the catalog"
                    ));
                    break;
                }
                let e = &entries[i];
                if t.spans[i] != UNREACHED {
                    let at = catalog_start + (i * ENTRY_SIZE) as u64;
                    let by = match parent {
                        Some(p) => format!("directory catalog[{p}]"),
                        None => "the root block".into(),
                    };
                    return Err(DecodeError::invalid(
                        at,
                        format!(
                            "catalog loop: entry {i} ({}) is reached a second time, from {by}",
                            e.display_name()
                        ),
                    ))
                    .within_index(i)
                    .within("catalog");
                }
                let from = t.text.len();
                if let Some((ps, pl)) = prefix {
                    let ps = ps as usize;
                    t.text.extend_from_within(ps..ps + pl as usize);
                    t.text.push(b'/');
                }
                t.text.extend_from_slice(e.path_name());
                let span = (
                    u32::try_from(from).map_err(|_| too_long())?,
                    u32::try_from(t.text.len() - from).map_err(|_| too_long())?,
                );
                if span == UNREACHED {
                    return Err(too_long());
                }
                if e.is_dir() {
                    let child = e.offset as usize;
                    if child >= n {
                        t.warnings.push(format!(
                            "directory catalog[{i}] {}: first child {child} lies outside the catalog ({n} entries); treated as empty",
                            e.display_name()
                        ));
                    } else {
                        stack.push((child, Some(span), Some(i)));
                    }
                }
                t.spans[i] = span;
                t.parents[i] = parent.map_or(ROOT, |p| p as u32);
                if e.is_last() {
                    break;
                }
                i += 1;
            }
        }
        for (i, span) in t.spans.iter().enumerate() {
            if *span == UNREACHED {
                t.warnings.push(format!(
                    "catalog[{i}] {}: no directory reaches this entry; it is not part of the tree",
                    entries[i].display_name()
                ));
            }
        }
        // Paths equal ignoring ASCII case, found by sorting a hash of each (each named with
        // the one before it in catalog order), reported in catalog order.
        let hash = |p: &[u8]| {
            p.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b.to_ascii_uppercase())).wrapping_mul(0x0000_0100_0000_01b3)
            })
        };
        let mut order: Vec<(u64, u32)> = (0..n)
            .filter_map(|i| t.path(i).map(|p| (hash(p), i as u32)))
            .collect();
        order.sort_unstable();
        let mut same: Vec<(u32, u32)> = Vec::new();
        for run in order.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
            // (in catalog order; a hash shared by different paths only costs comparisons)
            for (k, &(_, i)) in run.iter().enumerate().skip(1) {
                let path = t.path(i as usize).unwrap_or_default();
                if let Some(&(_, first)) = run[..k].iter().rev().find(|&&(_, j)| {
                    t.path(j as usize)
                        .unwrap_or_default()
                        .eq_ignore_ascii_case(path)
                }) {
                    same.push((i, first));
                }
            }
        }
        drop(order);
        same.sort_unstable();
        for (i, first) in same {
            t.warnings.push(format!(
                "catalog[{i}] and catalog[{first}] have the same path {}; the game sees only one of them",
                crate::exact::text::decode_cp1252(t.path(i as usize).unwrap_or_default())
            ));
        }
        Ok(t)
    }

    /// Entry `entry`'s path (`None`: no directory reaches it, or no such entry).
    pub fn path(&self, entry: usize) -> Option<&[u8]> {
        match *self.spans.get(entry)? {
            UNREACHED => None,
            (start, len) => Some(&self.text[start as usize..][..len as usize]),
        }
    }

    /// The directory entry `entry` sits in (`None` for the root block's entries).
    pub fn parent(&self, entry: usize) -> Option<usize> {
        match *self.parents.get(entry)? {
            ROOT => None,
            p => Some(p as usize),
        }
    }

    /// The length of every path together.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn path_string(&self, entry: usize) -> Option<String> {
        self.path(entry)
            .map(|p| crate::exact::text::decode_cp1252(p).into_owned())
    }
}

// ---------------------------------------------------------------------------------------------
// Safe extraction paths

/// Device names Windows reserves in every folder, with any extension (`CON.MAN`), compared
/// ignoring case: the digits include 0 and the superscripts ¹²³ (which Windows also treats
/// as the device), and the console's `CONIN$`/`CONOUT$`.
const WINDOWS_RESERVED: [&str; 32] = [
    "CON",
    "PRN",
    "AUX",
    "NUL",
    "CONIN$",
    "CONOUT$",
    "COM0",
    "COM1",
    "COM2",
    "COM3",
    "COM4",
    "COM5",
    "COM6",
    "COM7",
    "COM8",
    "COM9",
    "COM\u{B9}",
    "COM\u{B2}",
    "COM\u{B3}",
    "LPT0",
    "LPT1",
    "LPT2",
    "LPT3",
    "LPT4",
    "LPT5",
    "LPT6",
    "LPT7",
    "LPT8",
    "LPT9",
    "LPT\u{B9}",
    "LPT\u{B2}",
    "LPT\u{B3}",
];

/// A name as NTFS compares it: each character upper-cased on its own (Unicode-aware, so
/// `ä.MAN` and `Ä.MAN` are one name; no expansions such as ß → SS, which NTFS does not make).
/// Two members whose keys are equal are one file on Windows.
pub fn case_key(text: &str) -> String {
    text.chars()
        .map(|c| {
            let mut up = c.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        })
        .collect()
}

/// [`case_key`] of a catalog path (CP1252 bytes).
pub fn path_case_key(path: &[u8]) -> String {
    case_key(&crate::exact::text::decode_cp1252(path))
}

/// A catalog name as one file-name component, or why it cannot be one: empty, `.`/`..`,
/// path separators, drive colons, control bytes, characters Windows forbids, a trailing dot
/// or space, or a reserved device name.
pub fn safe_component(name: &[u8]) -> Result<String, String> {
    let text = crate::exact::text::decode_cp1252(name);
    let bad = |why: &str| Err(format!("unsafe name {text:?}: {why}"));
    if name.is_empty() {
        return bad("empty");
    }
    if name == b"." || name == b".." {
        return bad("refers to a directory above or itself");
    }
    if name[0] == b'/' || name[0] == b'\\' {
        return bad("an absolute path (starts with a path separator)");
    }
    if name.len() >= 2 && name[0].is_ascii_alphabetic() && name[1] == b':' {
        return bad("an absolute path (starts with a drive letter)");
    }
    if let Some(at) = name.iter().position(|&b| b == 0) {
        return bad(&format!(
            "contains a NUL byte (at byte {at}), which ends a file name on every system"
        ));
    }
    if let Some(&b) = name
        .iter()
        .find(|&&b| b < 0x20 || b == 0x7F || b"/\\:*?\"<>|".contains(&b))
    {
        return bad(&format!("contains byte 0x{b:02x}"));
    }
    if name.ends_with(b".") || name.ends_with(b" ") {
        return bad("ends with a dot or space");
    }
    // Windows ignores spaces before the extension too (`NUL .MAN` is the device).
    let stem = case_key(text.split('.').next().unwrap_or("").trim_end_matches(' '));
    if WINDOWS_RESERVED.contains(&stem.as_str()) {
        return bad("a reserved device name on Windows");
    }
    Ok(text.into_owned())
}

/// The relative path (below the output folder) of an entry's path, every component checked.
pub fn safe_relative_path(path: &[u8]) -> Result<std::path::PathBuf, String> {
    let text = || crate::exact::text::decode_cp1252(path);
    if path.first().is_some_and(|&b| b == b'/' || b == b'\\') {
        return Err(format!(
            "unsafe path {:?}: an absolute path (starts with a path separator)",
            text()
        ));
    }
    let mut out = std::path::PathBuf::new();
    let comps: Vec<&[u8]> = path.split(|&b| b == b'/').collect();
    for (k, comp) in comps.iter().enumerate() {
        if comp.is_empty() && comps.len() > 1 {
            return Err(format!(
                "unsafe path {:?}: a name {} with a path separator (an absolute name inside a directory, or an empty name)",
                text(),
                if k + 1 == comps.len() { "ends" } else { "starts" }
            ));
        }
        out.push(safe_component(comp)?);
    }
    Ok(out)
}
