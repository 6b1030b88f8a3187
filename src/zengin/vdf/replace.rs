//! Members of an archive replaced in place: every other piece (the catalog's order and
//! entries, gaps, the other members' stored bytes, the header's comment, signature and
//! timestamp) written as stored; only the offsets after a member whose size changed move.

use super::{zipped, PieceKind, Produced, Tree, Vdf};
use crate::exact::EncodeError;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Seek, Write};

impl Vdf<'_> {
    /// The layout piece holding the member at catalog path `path` (`/`-separated, any case).
    pub fn member_piece(&self, path: &str) -> Option<usize> {
        let tree = Tree::paths(&self.entries, self.header.catalog_start()).ok()?;
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
        super::write::write_pieces(
            w,
            &mut header,
            super::write::EntriesOut::Cow(&mut entries),
            super::write::Kinds::Layout(&self.layout),
            recompute,
            &produce,
            &|| {},
            false,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::folder::{self, PackFile, PackOptions, Source};
    use super::super::{Vdf, SIGNATURE_GOTHIC2};
    use std::collections::HashMap;

    fn archive(zipped: bool) -> Vec<u8> {
        let file = |path: &[&str], data: &[u8]| PackFile {
            path: path.iter().map(|p| p.as_bytes().to_vec()).collect(),
            source: Source::Memory(data.to_vec()),
        };
        let files = vec![
            file(&["ANIMS", "A.MAN"], &[1u8; 300]),
            file(&["ANIMS", "B.MAN"], b"the member that changes"),
            file(&["README.TXT"], b"read me"),
        ];
        let opts = PackOptions {
            signature: *SIGNATURE_GOTHIC2,
            comment: b"replace".to_vec(),
            timestamp: 0x529B_5B1D,
            zipped,
        };
        let mut out = std::io::Cursor::new(Vec::new());
        folder::pack_to(&mut out, &files, &opts, &|| {}).unwrap();
        out.into_inner()
    }

    fn contents(data: &[u8], path: &str) -> Vec<u8> {
        let v = Vdf::parse(data).unwrap();
        v.piece_contents(v.member_piece(path).unwrap())
            .unwrap()
            .into_owned()
    }

    /// Nothing replaced: the same bytes; one member replaced (same size, plain): only its
    /// bytes differ; another size, plain and zipped: the member reads back, the others and the
    /// header's comment, signature and timestamp as they were, the data size follows.
    #[test]
    fn members_replaced_in_place() {
        for zipped in [false, true] {
            let data = archive(zipped);
            let v = Vdf::parse(&data).unwrap();
            let mut same = std::io::Cursor::new(Vec::new());
            v.write_replaced(&HashMap::new(), &mut same).unwrap();
            assert!(same.into_inner() == data);
            let b = v.member_piece("anims/b.man").unwrap();
            assert_eq!(v.member_piece("ANIMS/C.MAN"), None);
            for new in [
                &b"THE MEMBER THAT CHANGES"[..],
                &b"longer than it was before"[..],
            ] {
                let mut out = std::io::Cursor::new(Vec::new());
                v.write_replaced(&HashMap::from([(b, new.to_vec())]), &mut out)
                    .unwrap();
                let out = out.into_inner();
                assert_eq!(contents(&out, "ANIMS/B.MAN"), new);
                assert_eq!(contents(&out, "ANIMS/A.MAN"), [1u8; 300]);
                assert_eq!(contents(&out, "README.TXT"), b"read me");
                let w = Vdf::parse(&out).unwrap();
                assert_eq!(w.header.comment, v.header.comment);
                assert_eq!(w.header.timestamp, v.header.timestamp);
                assert_eq!(w.header.signature, v.header.signature);
                assert_eq!(u64::from(w.header.data_size), Vdf::sum_of_sizes(&w.entries));
                if !zipped && new.len() == b"the member that changes".len() {
                    let at = v.layout[b].offset as usize;
                    let differ: Vec<usize> =
                        (0..out.len()).filter(|&i| out[i] != data[i]).collect();
                    assert!(differ.iter().all(|&i| (at..at + new.len()).contains(&i)));
                    assert!(!differ.is_empty());
                }
            }
            let catalog = v
                .layout
                .iter()
                .position(|p| matches!(p.kind, super::super::PieceKind::Catalog))
                .unwrap();
            let mut out = std::io::Cursor::new(Vec::new());
            assert!(v
                .write_replaced(&HashMap::from([(catalog, vec![])]), &mut out)
                .is_err());
        }
    }
}
