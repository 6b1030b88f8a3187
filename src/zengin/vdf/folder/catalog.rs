//! The catalog `repack` writes: the old one without removed files and with added ones, rebuilt
//! depth-first.

use super::new_entry;
use crate::zengin::vdf::{Entry, Tree, ATTRIBUTE_ARCHIVE, TYPE_DIRECTORY, TYPE_LAST};
use std::collections::HashSet;

/// The deepest directory nesting `repack` rebuilds.
pub(super) const MAX_DEPTH: usize = 1000;

/// A new catalog without `removed` and with `added` (names upper case) at the end of their
/// directories' blocks, blocks depth-first, directories left without files dropped. Returns
/// the entries, the old → new index map and the new files' indices.
#[allow(clippy::type_complexity)]
pub(super) fn rebuild_catalog(
    entries: &[Entry],
    tree: &Tree,
    removed: &HashSet<usize>,
    keep_empty: &HashSet<usize>,
    added: &[&[Vec<u8>]],
) -> Result<(Vec<Entry>, Vec<Option<usize>>, Vec<usize>), String> {
    #[derive(Clone)]
    struct Node {
        entry: Entry,
        old: Option<usize>,
        new_file: Option<usize>,
        children: Vec<usize>,
        /// An empty directory of the catalog that stays.
        keep_empty: bool,
    }
    let mut nodes: Vec<Node> = vec![Node {
        entry: new_entry(b"", TYPE_DIRECTORY, 0),
        old: None,
        new_file: None,
        children: Vec::new(),
        keep_empty: false,
    }];
    let mut node_of = vec![None; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if tree.paths[i].is_none() || removed.contains(&i) {
            continue;
        }
        node_of[i] = Some(nodes.len());
        nodes.push(Node {
            entry: *e,
            old: Some(i),
            new_file: None,
            children: Vec::new(),
            keep_empty: keep_empty.contains(&i),
        });
    }
    for (i, e) in entries.iter().enumerate() {
        let _ = e;
        let Some(n) = node_of[i] else { continue };
        let parent = match tree.parent[i] {
            None => 0,
            Some(p) => match node_of[p] {
                Some(pn) => pn,
                None => continue,
            },
        };
        nodes[parent].children.push(n);
    }
    for (k, names) in added.iter().enumerate() {
        let Some((name, dirs)) = names.split_last() else {
            return Err("an added file without a name".into());
        };
        let mut cur = 0;
        for d in dirs {
            let found = nodes[cur].children.iter().copied().find(|&c| {
                nodes[c].entry.is_dir() && nodes[c].entry.path_name().eq_ignore_ascii_case(d)
            });
            cur = match found {
                Some(c) => c,
                None => {
                    let id = nodes.len();
                    nodes.push(Node {
                        entry: new_entry(d, TYPE_DIRECTORY, 0),
                        old: None,
                        new_file: None,
                        children: Vec::new(),
                        keep_empty: false,
                    });
                    nodes[cur].children.push(id);
                    id
                }
            };
        }
        let id = nodes.len();
        nodes.push(Node {
            entry: new_entry(name, 0, ATTRIBUTE_ARCHIVE),
            old: None,
            new_file: Some(k),
            children: Vec::new(),
            keep_empty: false,
        });
        nodes[cur].children.push(id);
    }
    // Drop directories without files (or kept empty directories).
    fn has_files(nodes: &[Node], n: usize, depth: usize) -> bool {
        depth < 10_000
            && (nodes[n].keep_empty
                || nodes[n]
                    .children
                    .iter()
                    .any(|&c| !nodes[c].entry.is_dir() || has_files(nodes, c, depth + 1)))
    }
    // The recursive steps below need a bounded depth.
    let mut depth = vec![0usize; nodes.len()];
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(n) = queue.pop_front() {
        for &c in &nodes[n].children {
            depth[c] = depth[n] + 1;
            queue.push_back(c);
        }
    }
    if depth.iter().any(|&d| d > MAX_DEPTH) {
        return Err(format!(
            "directories are nested deeper than {MAX_DEPTH} levels"
        ));
    }
    let keep: Vec<bool> = (0..nodes.len())
        .map(|n| !nodes[n].entry.is_dir() || has_files(&nodes, n, 0))
        .collect();
    for node in nodes.iter_mut() {
        node.children.retain(|&c| keep[c]);
    }
    // Emit depth-first.
    let mut out: Vec<Entry> = Vec::new();
    let mut remap = vec![None; entries.len()];
    let mut new_indices = vec![0; added.len()];
    let mut stack = vec![0usize];
    // Blocks in pre-order: a block, then each sub-directory's blocks in order.
    fn emit(
        nodes: &[Node],
        n: usize,
        out: &mut Vec<Entry>,
        remap: &mut [Option<usize>],
        new_indices: &mut [usize],
        empty: &mut Vec<usize>,
    ) {
        let start = out.len();
        let kids = &nodes[n].children;
        for (k, &c) in kids.iter().enumerate() {
            let mut e = nodes[c].entry;
            e.kind &= !TYPE_LAST;
            if k + 1 == kids.len() {
                e.kind |= TYPE_LAST;
            }
            if let Some(o) = nodes[c].old {
                remap[o] = Some(out.len());
            }
            if let Some(f) = nodes[c].new_file {
                new_indices[f] = out.len();
            }
            out.push(e);
        }
        for (k, &c) in kids.iter().enumerate() {
            if nodes[c].entry.is_dir() {
                if nodes[c].children.is_empty() {
                    empty.push(start + k);
                } else {
                    out[start + k].offset = out.len() as u32;
                    emit(nodes, c, out, remap, new_indices, empty);
                }
            }
        }
    }
    stack.clear();
    let mut empty = Vec::new();
    emit(
        &nodes,
        0,
        &mut out,
        &mut remap,
        &mut new_indices,
        &mut empty,
    );
    // An empty directory's first child lies outside the catalog: its stored value while it
    // still does, else the catalog's length.
    let len = u32::try_from(out.len()).map_err(|_| "too many catalog entries".to_string())?;
    for i in empty {
        out[i].offset = out[i].offset.max(len);
    }
    Ok((out, remap, new_indices))
}
