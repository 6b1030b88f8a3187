//! The binary glTF container: a 12-byte header, then chunks (`length`, `type`, data), the
//! JSON chunk first, an optional BIN chunk second, each padded to 4 bytes.

use super::GltfError;
use crate::exact::{Cursor, Writer};

pub const MAGIC: u32 = 0x4654_6C67; // "glTF"
pub const VERSION: u32 = 2;
pub const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
pub const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

crate::record! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Header: little plain {
        pub magic: u32,
        pub version: u32,
        pub length: u32,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct ChunkHeader: little plain {
        pub length: u32,
        pub kind: u32,
    }
}

pub fn is_glb(data: &[u8]) -> bool {
    data.len() >= 4 && u32::from_le_bytes([data[0], data[1], data[2], data[3]]) == MAGIC
}

/// The JSON chunk and the BIN chunk (if any) of a GLB file.
pub fn split(data: &[u8]) -> Result<(&[u8], Option<&[u8]>), GltfError> {
    let bad = |offset: u64, m: &str| {
        GltfError::new(format!("not a valid GLB file: byte offset {offset}: {m}"))
    };
    let mut cur = Cursor::new(data, 0);
    let h: Header = cur
        .read::<Header>()
        .map_err(|e| bad(e.offset, &e.kind.to_string()))?;
    if h.version != VERSION {
        return Err(bad(
            4,
            &format!("version {} (only glTF 2 is read)", h.version),
        ));
    }
    if h.length as usize != data.len() {
        return Err(bad(
            8,
            &format!(
                "the header says {} bytes, the file has {}",
                h.length,
                data.len()
            ),
        ));
    }
    let mut chunks = Vec::new();
    while !cur.is_empty() {
        let at = cur.offset();
        let c: ChunkHeader = cur
            .read::<ChunkHeader>()
            .map_err(|e| bad(e.offset, &e.kind.to_string()))?;
        let body = cur
            .bytes(c.length as usize)
            .map_err(|e| bad(at, &format!("chunk {}: {}", chunks.len(), e.kind)))?;
        chunks.push((c.kind, body));
    }
    match chunks.as_slice() {
        [(CHUNK_JSON, json), rest @ ..] => {
            let bin = rest.iter().find(|(k, _)| *k == CHUNK_BIN).map(|(_, b)| *b);
            if rest.first().is_some_and(|(k, _)| *k != CHUNK_BIN) {
                // Unknown chunks after JSON are allowed, but BIN must come second.
                if bin.is_some() {
                    return Err(bad(12, "the BIN chunk must directly follow the JSON chunk"));
                }
            }
            Ok((json, bin))
        }
        _ => Err(bad(12, "the first chunk is not the JSON chunk")),
    }
}

/// A GLB file of `json` and `bin`.
pub fn write(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(glb_len(json, bin));
    write_to(&mut out, json, bin).expect("writing to a Vec does not fail");
    out
}

fn pad(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// The size of the GLB file of `json` and `bin`.
fn glb_len(json: &[u8], bin: &[u8]) -> usize {
    let mut total = 12 + 8 + json.len() + pad(json.len());
    if !bin.is_empty() {
        total += 8 + bin.len() + pad(bin.len());
    }
    total
}

/// [`write`] into `w` (the bytes of [`write`], without a copy of `bin`); returns the size.
pub fn write_to(w: &mut dyn std::io::Write, json: &[u8], bin: &[u8]) -> std::io::Result<usize> {
    let (jp, bp) = (pad(json.len()), pad(bin.len()));
    let total = glb_len(json, bin);
    let mut out = Vec::with_capacity(32);
    out.put_plain(&Header {
        magic: MAGIC,
        version: VERSION,
        length: total as u32,
    });
    out.put_plain(&ChunkHeader {
        length: (json.len() + jp) as u32,
        kind: CHUNK_JSON,
    });
    w.write_all(&out)?;
    w.write_all(json)?;
    w.write_all(&b"   "[..jp])?;
    if !bin.is_empty() {
        out.clear();
        out.put_plain(&ChunkHeader {
            length: (bin.len() + bp) as u32,
            kind: CHUNK_BIN,
        });
        w.write_all(&out)?;
        w.write_all(bin)?;
        w.write_all(&[0u8; 3][..bp])?;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_chunks_both_ways() {
        let glb = write(b"{}", &[1, 2, 3, 4, 5]);
        assert_eq!(
            hex::encode(&glb),
            "676c5446 02000000 28000000 04000000 4a534f4e 7b7d2020 08000000 42494e00 0102030405000000"
                .replace(' ', "")
        );
        let (json, bin) = split(&glb).unwrap();
        assert_eq!(json, b"{}  ");
        assert_eq!(bin, Some(&[1, 2, 3, 4, 5, 0, 0, 0][..]));
        let mut short = glb.clone();
        short.truncate(30);
        let e = split(&short).unwrap_err().to_string();
        assert!(e.contains("says 40 bytes, the file has 30"), "{e}");
    }
}
