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
    let sizes = Sizes {
        json: json.len(),
        bin: bin.len(),
    };
    let mut out = Vec::with_capacity(sizes.total());
    write_to(&mut out, json, bin).expect("writing to a Vec does not fail");
    out
}

fn pad(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// The lengths of a GLB's JSON text and binary buffer, from which its framing follows (for
/// a file written as it is made: the header first, the chunks' data after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub json: usize,
    pub bin: usize,
}

impl Sizes {
    /// The size of the file.
    pub fn total(&self) -> usize {
        let mut total = 12 + 8 + self.json + pad(self.json);
        if self.bin != 0 {
            total += 8 + self.bin + pad(self.bin);
        }
        total
    }

    /// The file's header and the JSON chunk's header (the JSON text follows).
    pub fn head(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20);
        out.put_plain(&Header {
            magic: MAGIC,
            version: VERSION,
            length: self.total() as u32,
        });
        out.put_plain(&ChunkHeader {
            length: (self.json + pad(self.json)) as u32,
            kind: CHUNK_JSON,
        });
        out
    }

    /// The spaces after the JSON text.
    pub fn json_pad(&self) -> &'static [u8] {
        &b"   "[..pad(self.json)]
    }

    /// The BIN chunk's header (the buffer follows); none without a buffer.
    pub fn bin_head(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8);
        if self.bin != 0 {
            out.put_plain(&ChunkHeader {
                length: (self.bin + pad(self.bin)) as u32,
                kind: CHUNK_BIN,
            });
        }
        out
    }

    /// The zeros after the buffer.
    pub fn bin_pad(&self) -> &'static [u8] {
        &[0u8; 3][..pad(self.bin)]
    }
}

/// [`write`] into `w` (the bytes of [`write`], without a copy of `bin`); returns the size.
pub fn write_to(w: &mut dyn std::io::Write, json: &[u8], bin: &[u8]) -> std::io::Result<usize> {
    let sizes = Sizes {
        json: json.len(),
        bin: bin.len(),
    };
    w.write_all(&sizes.head())?;
    w.write_all(json)?;
    w.write_all(sizes.json_pad())?;
    w.write_all(&sizes.bin_head())?;
    w.write_all(bin)?;
    w.write_all(sizes.bin_pad())?;
    Ok(sizes.total())
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
