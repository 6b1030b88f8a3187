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
    let mut dirs = DirTree::of_catalog(entries, tree, removed, keep_empty);
    for (k, names) in added.iter().enumerate() {
        dirs.add(names, k)?;
    }
    dirs.prune()?;
    let mut emitted = Emitted {
        out: Vec::new(),
        remap: vec![None; entries.len()],
        new_indices: vec![0; added.len()],
        empty: Vec::new(),
    };
    dirs.emit(0, &mut emitted);
    // An empty directory's first child lies outside the catalog: its stored value while it
    // still does, else the catalog's length.
    let mut out = emitted.out;
    let len = u32::try_from(out.len()).map_err(|_| "too many catalog entries".to_string())?;
    for i in emitted.empty {
        out[i].offset = out[i].offset.max(len);
    }
    Ok((out, emitted.remap, emitted.new_indices))
}

/// One entry of the catalog being rebuilt.
struct Node {
    entry: Entry,
    /// Its index in the old catalog.
    old: Option<usize>,
    /// Which added file it is.
    new_file: Option<usize>,
    children: Vec<usize>,
    /// An empty directory of the catalog that stays.
    keep_empty: bool,
}

impl Node {
    fn new(entry: Entry) -> Node {
        Node {
            entry,
            old: None,
            new_file: None,
            children: Vec::new(),
            keep_empty: false,
        }
    }
}

/// The catalog as a tree of nodes (node 0 is the root).
struct DirTree {
    nodes: Vec<Node>,
}

/// The catalog written from a [`DirTree`].
struct Emitted {
    out: Vec<Entry>,
    remap: Vec<Option<usize>>,
    new_indices: Vec<usize>,
    /// Directories left without children.
    empty: Vec<usize>,
}

impl DirTree {
    /// The old catalog's entries that stay, each under its directory.
    fn of_catalog(
        entries: &[Entry],
        tree: &Tree,
        removed: &HashSet<usize>,
        keep_empty: &HashSet<usize>,
    ) -> DirTree {
        let mut nodes = vec![Node::new(new_entry(b"", TYPE_DIRECTORY, 0))];
        let mut node_of = vec![None; entries.len()];
        for (i, e) in entries.iter().enumerate() {
            if !tree.reached(i) || removed.contains(&i) {
                continue;
            }
            node_of[i] = Some(nodes.len());
            nodes.push(Node {
                old: Some(i),
                keep_empty: keep_empty.contains(&i),
                ..Node::new(*e)
            });
        }
        for i in 0..entries.len() {
            let Some(n) = node_of[i] else { continue };
            let parent = match tree.parent(i) {
                None => 0,
                Some(p) => match node_of[p] {
                    Some(pn) => pn,
                    None => continue,
                },
            };
            nodes[parent].children.push(n);
        }
        DirTree { nodes }
    }

    /// Add file `k` at `names` (directories made as needed) at the end of its directory.
    fn add(&mut self, names: &[Vec<u8>], k: usize) -> Result<(), String> {
        let Some((name, dirs)) = names.split_last() else {
            return Err("an added file without a name".into());
        };
        let mut cur = 0;
        for d in dirs {
            let nodes = &self.nodes;
            let found = nodes[cur].children.iter().copied().find(|&c| {
                nodes[c].entry.is_dir() && nodes[c].entry.path_name().eq_ignore_ascii_case(d)
            });
            cur = match found {
                Some(c) => c,
                None => self.push(cur, Node::new(new_entry(d, TYPE_DIRECTORY, 0))),
            };
        }
        self.push(
            cur,
            Node {
                new_file: Some(k),
                ..Node::new(new_entry(name, 0, ATTRIBUTE_ARCHIVE))
            },
        );
        Ok(())
    }

    fn push(&mut self, parent: usize, node: Node) -> usize {
        let id = self.nodes.len();
        self.nodes.push(node);
        self.nodes[parent].children.push(id);
        id
    }

    /// Drop directories without files (but not kept empty directories); refuse a nesting
    /// deeper than [`MAX_DEPTH`] (the recursive steps need a bounded depth).
    fn prune(&mut self) -> Result<(), String> {
        let nodes = &self.nodes;
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
            .map(|n| !nodes[n].entry.is_dir() || self.has_files(n, 0))
            .collect();
        for node in self.nodes.iter_mut() {
            node.children.retain(|&c| keep[c]);
        }
        Ok(())
    }

    fn has_files(&self, n: usize, depth: usize) -> bool {
        let nodes = &self.nodes;
        depth < 10_000
            && (nodes[n].keep_empty
                || nodes[n]
                    .children
                    .iter()
                    .any(|&c| !nodes[c].entry.is_dir() || self.has_files(c, depth + 1)))
    }

    /// Write node `n`'s block, then each sub-directory's blocks in order (pre-order).
    fn emit(&self, n: usize, e: &mut Emitted) {
        let nodes = &self.nodes;
        let start = e.out.len();
        let kids = &nodes[n].children;
        for (k, &c) in kids.iter().enumerate() {
            let mut entry = nodes[c].entry;
            entry.kind &= !TYPE_LAST;
            if k + 1 == kids.len() {
                entry.kind |= TYPE_LAST;
            }
            if let Some(o) = nodes[c].old {
                e.remap[o] = Some(e.out.len());
            }
            if let Some(f) = nodes[c].new_file {
                e.new_indices[f] = e.out.len();
            }
            e.out.push(entry);
        }
        for (k, &c) in kids.iter().enumerate() {
            if nodes[c].entry.is_dir() {
                if nodes[c].children.is_empty() {
                    e.empty.push(start + k);
                } else {
                    e.out[start + k].offset = e.out.len() as u32;
                    self.emit(c, e);
                }
            }
        }
    }
}
