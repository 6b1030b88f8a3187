//! Members of an archive replaced in place: every other piece (the catalog's order and
//! entries, gaps, the other members' stored bytes, the header's comment, signature and
//! timestamp) written as stored; only the offsets after a member whose size changed move.

use super::{write_archive_in_order, zipped, PieceKind, Produced, Tree, Vdf};
use crate::exact::EncodeError;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Seek, Write};

impl Vdf<'_> {
    /// The layout piece holding the member at catalog path `path` (`/`-separated, any case).
    pub fn member_piece(&self, path: &str) -> Option<usize> {
        let tree = Tree::build(&self.entries, self.header.catalog_start()).ok()?;
        let want = path.to_ascii_uppercase();
        self.layout.iter().position(|p| match p.kind {
            PieceKind::File { entry, .. } => tree
                .path_string(entry)
                .is_some_and(|n| n.to_ascii_uppercase() == want),
            _ => false,
        })
    }

    /// Write the archive with the contents of the members at layout pieces `replace` (piece
    /// → new uncompressed contents) replaced; a zipped member is compressed again with its
    /// stream's block size. The header's data size follows the new sizes when it was the sum
    /// of the sizes before.
    pub fn write_replaced<W: Write + Seek>(
        &self,
        replace: &HashMap<usize, Vec<u8>>,
        w: &mut W,
    ) -> Result<u64, EncodeError> {
        for &i in replace.keys() {
            if !matches!(
                self.layout.get(i).map(|p| p.kind),
                Some(PieceKind::File { .. })
            ) {
                return Err(EncodeError::new(format!("layout[{i}] is not a member")));
            }
        }
        let mut header = self.header.clone();
        let mut entries = self.entries.clone();
        let recompute = u64::from(header.data_size) == Vdf::sum_of_sizes(&entries);
        let kinds: Vec<PieceKind> = self.layout.iter().map(|p| p.kind).collect();
        let produce = |i: usize| -> Result<Produced<'_>, EncodeError> {
            let old = &self.layout[i].bytes[..];
            let Some(new) = replace.get(&i) else {
                return Ok(Produced::bytes(Cow::Borrowed(old), None));
            };
            let size = Some(
                u32::try_from(new.len())
                    .map_err(|_| EncodeError::new("member larger than 4 GiB"))?,
            );
            let zipped = matches!(self.layout[i].kind, PieceKind::File { zipped: true, .. });
            if !zipped || new.is_empty() {
                return Ok(Produced::bytes(Cow::Borrowed(&new[..]), size));
            }
            let bs = zipped::probe(old).map_or(zipped::DEFAULT_BLOCK_SIZE, |s| s.block_size);
            let z = zipped::compress(new, bs, 6).map_err(EncodeError::new)?;
            Ok(Produced::bytes(Cow::Owned(z), size))
        };
        write_archive_in_order(
            w,
            &mut header,
            &mut entries,
            &kinds,
            recompute,
            &produce,
            &|| {},
        )
    }
}
