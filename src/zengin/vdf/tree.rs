//! The catalog tree (directory blocks → paths) and the names that are safe to write as files.

use super::{Entry, ENTRY_SIZE};
use crate::exact::{DecodeError, Within};

/// Every entry's place in the directory tree, built from the catalog's blocks: the directory
/// each entry sits in, nothing more. A path is put together when asked for, from the names in
/// the catalog (which a parsed archive borrows from its input): an archive of 69,000 members
/// keeps 4 bytes a member here, not its paths (about 70 bytes a member).
#[derive(Debug, Clone, Default)]
pub struct Tree<'e> {
    entries: &'e [Entry],
    /// Per entry: the directory entry it sits in ([`ROOT`] for the root block,
    /// [`UNREACHED`] for an entry no directory reaches).
    parents: std::borrow::Cow<'e, [u32]>,
    pub warnings: Vec<String>,
}

/// [`Tree::parents`] of an entry no directory reaches.
const UNREACHED: u32 = u32::MAX;
/// [`Tree::parents`] of an entry of the root block.
const ROOT: u32 = u32::MAX - 1;

/// The hash of paths that finds those equal ignoring ASCII case (FNV-1a of the upper-cased
/// bytes), continued from `h` (a directory's path's) over `bytes`.
fn hash_on(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, b| {
        (h ^ u64::from(b.to_ascii_uppercase())).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
const HASH_START: u64 = 0xcbf2_9ce4_8422_2325;

impl<'e> Tree<'e> {
    /// Walk the blocks from the root block at index 0. A block reached twice (a loop, or two
    /// directories sharing children) is an error; a block without a "last" entry ends at the
    /// catalog's end, a directory whose first child lies outside the catalog is empty and an
    /// entry no directory reaches is skipped, each with a warning.
    pub fn build(entries: &'e [Entry], catalog_start: u64) -> Result<Tree<'e>, DecodeError> {
        Self::walk(entries, catalog_start, true)
    }

    /// [`Tree::build`] for the paths only: without its warnings (nor the work and the 24
    /// bytes an entry of finding paths equal ignoring case), the same errors and paths.
    pub fn paths(entries: &'e [Entry], catalog_start: u64) -> Result<Tree<'e>, DecodeError> {
        Self::walk(entries, catalog_start, false)
    }

    fn walk(entries: &'e [Entry], catalog_start: u64, warn: bool) -> Result<Tree<'e>, DecodeError> {
        let n = entries.len();
        if n >= ROOT as usize {
            return Err(DecodeError::invalid(
                catalog_start,
                format!("the catalog's {n} entries are more than a tree of u32 indices holds"),
            ));
        }
        let mut t = Tree {
            entries,
            parents: std::borrow::Cow::Owned(vec![UNREACHED; n]),
            warnings: Vec::new(),
        };
        // Each reached entry's path hash (for the paths equal ignoring case below), made
        // from its directory's as the walk goes (a directory is reached before its block).
        let mut hashes: Vec<u64> = vec![0; if warn { n } else { 0 }];
        // (start of a block, its directory)
        let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
        if n > 0 {
            stack.push((0, None));
        }
        while let Some((start, parent)) = stack.pop() {
            let prefix = parent
                .and_then(|p| hashes.get(p))
                .map(|&h| hash_on(h, b"/"));
            let mut i = start;
            loop {
                if i >= n {
                    t.warnings.push(format!(
                        "the block starting at catalog[{start}] has no entry marked last; it ends with the catalog"
                    ));
                    break;
                }
                let e = &entries[i];
                if t.parents[i] != UNREACHED {
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
                if let Some(h) = hashes.get_mut(i) {
                    *h = hash_on(prefix.unwrap_or(HASH_START), e.path_name());
                }
                if e.is_dir() {
                    let child = e.offset as usize;
                    if child >= n {
                        t.warnings.push(format!(
                            "directory catalog[{i}] {}: first child {child} lies outside the catalog ({n} entries); treated as empty",
                            e.display_name()
                        ));
                    } else {
                        stack.push((child, Some(i)));
                    }
                }
                t.parents.to_mut()[i] = parent.map_or(ROOT, |p| p as u32);
                if e.is_last() {
                    break;
                }
                i += 1;
            }
        }
        if !warn {
            t.warnings.clear();
            return Ok(t);
        }
        for (i, &p) in t.parents.iter().enumerate() {
            if p == UNREACHED {
                t.warnings.push(format!(
                    "catalog[{i}] {}: no directory reaches this entry; it is not part of the tree",
                    entries[i].display_name()
                ));
            }
        }
        // Paths equal ignoring ASCII case, found by sorting the hash of each (each named with
        // the one before it in catalog order), reported in catalog order.
        let mut order: Vec<(u64, u32)> = (0..n)
            .filter(|&i| t.parents[i] != UNREACHED)
            .map(|i| (hashes[i], i as u32))
            .collect();
        drop(hashes);
        order.sort_unstable();
        let mut same: Vec<(u32, u32)> = Vec::new();
        for run in order.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
            // (in catalog order; a hash shared by different paths only costs comparisons)
            let paths: Vec<Vec<u8>> = run
                .iter()
                .map(|&(_, i)| t.path(i as usize).unwrap_or_default())
                .collect();
            for k in 1..run.len() {
                if let Some(j) = (0..k)
                    .rev()
                    .find(|&j| paths[j].eq_ignore_ascii_case(&paths[k]))
                {
                    same.push((run[k].1, run[j].1));
                }
            }
        }
        drop(order);
        same.sort_unstable();
        for (i, first) in same {
            t.warnings.push(format!(
                "catalog[{i}] and catalog[{first}] have the same path {}; the game sees only one of them",
                crate::exact::text::decode_cp1252(&t.path(i as usize).unwrap_or_default())
            ));
        }
        Ok(t)
    }

    /// The directory of each entry, to keep without the catalog's borrow
    /// ([`Tree::with_parents`] makes the tree again; its warnings are not kept).
    pub fn into_parents(self) -> Vec<u32> {
        self.parents.into_owned()
    }

    /// The tree of `entries` whose directories [`Tree::into_parents`] gave (of the same
    /// entries), without walking the catalog again.
    pub fn with_parents(entries: &'e [Entry], parents: &'e [u32]) -> Tree<'e> {
        Tree {
            entries,
            parents: std::borrow::Cow::Borrowed(parents),
            warnings: Vec::new(),
        }
    }

    /// Whether a directory reaches entry `entry` (it has a path).
    pub fn reached(&self, entry: usize) -> bool {
        self.parents.get(entry).is_some_and(|&p| p != UNREACHED) && entry < self.entries.len()
    }

    /// Entry `entry`'s path: its directories' names and its own joined with `/` (raw
    /// Windows-1252 bytes). `None`: no directory reaches it, or no such entry.
    pub fn path(&self, entry: usize) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.path_into(entry, &mut out).then_some(out)
    }

    /// [`Tree::path`] appended to `out`; `false` (nothing appended) when there is none.
    pub fn path_into(&self, entry: usize, out: &mut Vec<u8>) -> bool {
        if !self.reached(entry) {
            return false;
        }
        // (the chain of directories up to the root block: no loop, the walk above refused
        // any block reached twice)
        let from = out.len();
        let mut at = entry;
        // (at most one step per entry: parents given to `with_parents` are trusted no further)
        for _ in 0..self.parents.len() {
            let Some(e) = self.entries.get(at) else { break };
            out.extend(e.path_name().iter().rev());
            match self.parents[at] {
                ROOT | UNREACHED => {
                    out[from..].reverse();
                    return true;
                }
                p => {
                    out.push(b'/');
                    at = p as usize;
                }
            }
        }
        out.truncate(from);
        false
    }

    /// The directory entry `entry` sits in (`None` for the root block's entries).
    pub fn parent(&self, entry: usize) -> Option<usize> {
        match *self.parents.get(entry)? {
            ROOT | UNREACHED => None,
            p => Some(p as usize),
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    pub fn path_string(&self, entry: usize) -> Option<String> {
        self.path(entry)
            .map(|p| crate::exact::text::decode_cp1252(&p).into_owned())
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
