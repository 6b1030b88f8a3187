//! Union's "ZippedStream": how a compressed VDF volume (last header field 0xA0) stores each
//! file. A 12-byte stream header (uncompressed length, block size, block count) is followed by
//! the blocks, each a 12-byte block header (uncompressed length, compressed length, block size)
//! and one complete zlib stream.
//!
//! Read side: [`probe`] measures a stream without inflating it (the archive reader needs the
//! stored length, which the catalog does not hold), [`decompress`] inflates it. Write side:
//! [`compress`] builds a new stream with `flate2`. Untouched streams are never re-compressed:
//! the archive keeps their stored bytes.

use crate::exact::Writer;
use std::io::Read;

/// Size of the stream header and of each block header.
pub const HEADER_SIZE: usize = 12;
/// The block size ZenKit's `save_compressed` uses for new files.
pub const DEFAULT_BLOCK_SIZE: u32 = 8192;

/// What [`probe`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamInfo {
    pub uncompressed_len: u32,
    pub block_size: u32,
    pub block_count: u32,
    /// Bytes the stream occupies in the archive (headers and zlib data).
    pub stored_len: u64,
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Measure the stream starting at `data[0]`. `None` when the stream header is not one Union's
/// reader accepts (zero length, zero block size, zero blocks, a block count that does not match
/// the length) or a block runs past the end of `data`: the game then reads the file's bytes
/// uncompressed, and so does animkit.
pub fn probe(data: &[u8]) -> Option<StreamInfo> {
    let uncompressed_len = u32_at(data, 0)?;
    let block_size = u32_at(data, 4)?;
    let block_count = u32_at(data, 8)?;
    if uncompressed_len == 0 || block_size == 0 || block_count == 0 {
        return None;
    }
    if u64::from(uncompressed_len).div_ceil(u64::from(block_size)) != u64::from(block_count) {
        return None;
    }
    let mut pos = HEADER_SIZE as u64;
    for _ in 0..block_count {
        let at = usize::try_from(pos).ok()?;
        let compressed = u32_at(data, at.checked_add(4)?)?;
        pos = pos
            .checked_add(HEADER_SIZE as u64)?
            .checked_add(u64::from(compressed))?;
        if pos > data.len() as u64 {
            return None;
        }
    }
    Some(StreamInfo {
        uncompressed_len,
        block_size,
        block_count,
        stored_len: pos,
    })
}

/// Inflate a whole stream (as measured by [`probe`]). Every block must inflate to exactly its
/// stated length. Output grows with the data actually inflated, never by a stated length alone.
pub fn decompress(stream: &[u8]) -> Result<Vec<u8>, String> {
    let info = probe(stream).ok_or("not a valid ZippedStream")?;
    let mut out = Vec::new();
    let mut pos = HEADER_SIZE;
    for b in 0..info.block_count {
        let ulen = u32_at(stream, pos).ok_or("truncated block header")?;
        let clen = u32_at(stream, pos + 4).ok_or("truncated block header")? as usize;
        pos += HEADER_SIZE;
        let zdata = stream
            .get(pos..pos + clen)
            .ok_or_else(|| format!("block {b}: compressed data runs past the stream"))?;
        pos += clen;
        let before = out.len();
        flate2::read::ZlibDecoder::new(zdata)
            .take(u64::from(ulen) + 1)
            .read_to_end(&mut out)
            .map_err(|e| format!("block {b}: zlib data does not inflate: {e}"))?;
        let got = out.len() - before;
        if got != ulen as usize {
            return Err(format!(
                "block {b}: inflates to {got} bytes, its header says {ulen}"
            ));
        }
    }
    if out.len() != info.uncompressed_len as usize {
        return Err(format!(
            "blocks inflate to {} bytes, the stream header says {}",
            out.len(),
            info.uncompressed_len
        ));
    }
    Ok(out)
}

/// Build a stream of `data` with blocks of `block_size` bytes (the last one shorter), each
/// compressed with zlib at `level` (0–9; 6 is zlib's default, header `78 9C`).
pub fn compress(data: &[u8], block_size: u32, level: u32) -> Result<Vec<u8>, String> {
    let len = u32::try_from(data.len()).map_err(|_| "file larger than 4 GiB".to_string())?;
    if len == 0 {
        return Err("an empty file cannot be stored as a ZippedStream".into());
    }
    let block_size = block_size.max(1);
    let count = len.div_ceil(block_size);
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    out.put_u32(len);
    out.put_u32(block_size);
    out.put_u32(count);
    for block in data.chunks(block_size as usize) {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
        std::io::Write::write_all(&mut z, block).map_err(|e| e.to_string())?;
        let z = z.finish().map_err(|e| e.to_string())?;
        out.put_u32(block.len() as u32);
        out.put_u32(u32::try_from(z.len()).map_err(|_| "block too large".to_string())?);
        out.put_u32(block_size);
        out.extend_from_slice(&z);
    }
    Ok(out)
}

/// Whether a new file of this name is stored uncompressed in a zipped volume (Union's
/// convention as followed by ZenKit: sound files stay raw).
pub fn stored_raw(name: &[u8]) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with(b".WAV") || upper.ends_with(b".OGG")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compress_probe_decompress_round_trip_with_the_samples_block_layout() {
        // README.MD of basic.vdf: 76 bytes, block size 19 → 4 blocks (spec §6.6).
        let data: Vec<u8> = (0..76u8).collect();
        let s = compress(&data, 19, 9).unwrap();
        let info = probe(&s).unwrap();
        assert_eq!(
            (info.uncompressed_len, info.block_size, info.block_count),
            (76, 19, 4)
        );
        assert_eq!(info.stored_len, s.len() as u64);
        // Best compression writes the 78 DA zlib header the sample has.
        assert_eq!(&s[24..26], &[0x78, 0xDA]);
        assert_eq!(decompress(&s).unwrap(), data);
        // 54 bytes with block size 13: four full blocks and a remainder of 2 → 5 blocks.
        let s = compress(&data[..54], 13, 6).unwrap();
        assert_eq!(probe(&s).unwrap().block_count, 5);
        assert_eq!(&s[24..26], &[0x78, 0x9C]);
    }

    #[test]
    fn streams_union_rejects_are_not_streams() {
        let mut h = Vec::new();
        for (len, bs, n) in [
            (0u32, 8, 0u32),
            (8, 0, 1),
            (8, 8, 0),
            (17, 8, 2),
            (16, 8, 3),
        ] {
            h.clear();
            h.put_u32(len);
            h.put_u32(bs);
            h.put_u32(n);
            assert_eq!(probe(&h), None, "{len} {bs} {n}");
        }
        // A block that runs past the end.
        let mut s = compress(b"hello world", 8192, 6).unwrap();
        s.pop();
        assert_eq!(probe(&s), None);
        assert!(decompress(&s).is_err());
    }

    #[test]
    fn a_block_that_lies_about_its_length_is_an_error() {
        let mut s = compress(b"hello world", 8192, 6).unwrap();
        s[12] = 10; // block says 10 bytes, inflates to 11
        assert!(decompress(&s).unwrap_err().contains("inflates to 11"));
    }

    #[test]
    fn sound_files_stay_raw() {
        assert!(stored_raw(b"THEME.WAV"));
        assert!(stored_raw(b"voice.ogg"));
        assert!(!stored_raw(b"S_RUN.MAN"));
    }
}
