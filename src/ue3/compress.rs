//! Package compression (spec §1.9): the chunk table of the summary, chunk headers, LZO1X blocks
//! and the Blade & Soul per-block XOR of CompressionFlags 8. Decompression uses the
//! `lzokay-native` crate (pure Rust, MIT).

use super::crypt;
use crate::exact::{Cursor, DecodeError, PutLe};

pub const PACKAGE_TAG: u32 = 0x9E2A_83C1;
/// CompressionFlags: plain LZO1X.
pub const LZO: u32 = 2;
/// CompressionFlags: LZO1X with the BnS per-block XOR.
pub const LZO_XOR: u32 = 8;
/// Largest uncompressed image animkit builds (2 GiB).
const MAX_IMAGE: u64 = 1 << 31;

/// One record of the summary's CompressedChunks table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChunkRecord {
    pub uncompressed_offset: i32,
    pub uncompressed_size: i32,
    pub compressed_offset: i32,
    pub compressed_size: i32,
}

impl ChunkRecord {
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        Ok(Self {
            uncompressed_offset: c.i32()?,
            uncompressed_size: c.i32()?,
            compressed_offset: c.i32()?,
            compressed_size: c.i32()?,
        })
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        out.put_i32(self.uncompressed_offset);
        out.put_i32(self.uncompressed_size);
        out.put_i32(self.compressed_offset);
        out.put_i32(self.compressed_size);
    }
}

fn nonneg(v: i32, at: u64, what: &str) -> Result<u64, DecodeError> {
    u64::try_from(v).map_err(|_| DecodeError::invalid(at, format!("{what} {v} is negative")))
}

/// Size of the uncompressed image the chunks describe (largest chunk end), checked.
pub fn image_size(
    chunks: &[ChunkRecord],
    file_len: usize,
    table_at: u64,
) -> Result<u64, DecodeError> {
    let mut end = 0u64;
    for (i, ch) in chunks.iter().enumerate() {
        let at = table_at + 16 * i as u64;
        let e = nonneg(ch.uncompressed_offset, at, "chunk uncompressed offset")?
            + nonneg(ch.uncompressed_size, at + 4, "chunk uncompressed size")?;
        end = end.max(e);
    }
    // LZO1X cannot expand a byte into more than a few hundred; refuse absurd claims before
    // allocating.
    let limit = (file_len as u64)
        .saturating_mul(300)
        .saturating_add(1 << 20)
        .min(MAX_IMAGE);
    if end > limit {
        return Err(DecodeError::invalid(
            table_at,
            format!("chunks claim an uncompressed size of {end} bytes, impossible for a {file_len}-byte file"),
        ));
    }
    Ok(end)
}

/// LZO1X-decompress `src` into exactly `size` bytes.
pub fn lzo_decompress(src: &[u8], size: usize, at: u64) -> Result<Vec<u8>, DecodeError> {
    // The decompressor may index out of bounds on malformed input; contain that as an error.
    let r = std::panic::catch_unwind(|| lzokay_native::decompress_all(src, Some(size)));
    match r {
        Ok(Ok(v)) if v.len() == size => Ok(v),
        Ok(Ok(v)) => Err(DecodeError::invalid(
            at,
            format!(
                "LZO block decompressed to {} bytes, expected {size}",
                v.len()
            ),
        )),
        Ok(Err(e)) => Err(DecodeError::invalid(
            at,
            format!("LZO block is corrupt: {e}"),
        )),
        Err(_) => Err(DecodeError::invalid(at, "LZO block is corrupt")),
    }
}

/// Decompress every chunk of `file` into `image` (already sized by [`image_size`]).
pub fn decompress_chunks(
    file: &[u8],
    chunks: &[ChunkRecord],
    flags: u32,
    image: &mut [u8],
) -> Result<(), DecodeError> {
    for (ci, ch) in chunks.iter().enumerate() {
        let err = |e: DecodeError| {
            let mut e = e;
            e.path.prefix(crate::exact::Segment::Index(ci));
            e.path.prefix(crate::exact::Segment::Field("chunks"));
            e
        };
        let start = usize::try_from(ch.compressed_offset)
            .ok()
            .filter(|&s| s <= file.len())
            .ok_or_else(|| {
                err(DecodeError::invalid(
                    0,
                    format!(
                        "compressed offset {} is outside the file",
                        ch.compressed_offset
                    ),
                ))
            })?;
        let mut c = Cursor::new(&file[start..], start as u64);
        let tag_at = c.offset();
        let tag = c.u32().map_err(err)?;
        if tag != PACKAGE_TAG {
            return Err(err(DecodeError::invalid(
                tag_at,
                format!("chunk tag {tag:#010x} is not {PACKAGE_TAG:#010x}"),
            )));
        }
        let bs_at = c.offset();
        let block_size = c.i32().map_err(err)?;
        let _csize = c.i32().map_err(err)?;
        let usize_at = c.offset();
        let total = c.i32().map_err(err)?;
        if block_size <= 0 {
            return Err(err(DecodeError::invalid(
                bs_at,
                format!("block size {block_size} is not positive"),
            )));
        }
        if total != ch.uncompressed_size {
            return Err(err(DecodeError::invalid(
                usize_at,
                format!(
                    "chunk header size {total} differs from the table's {}",
                    ch.uncompressed_size
                ),
            )));
        }
        let total = total.max(0) as u64;
        let nblocks = total.div_ceil(block_size as u64);
        let nblocks = c.check_count(nblocks, 8).map_err(err)?;
        let mut blocks = Vec::with_capacity(nblocks);
        for _ in 0..nblocks {
            let at = c.offset();
            let cs = c.i32().map_err(err)?;
            let us = c.i32().map_err(err)?;
            if cs < 0 || us < 0 || us > block_size {
                return Err(err(DecodeError::invalid(
                    at,
                    format!("block sizes ({cs}, {us}) are invalid"),
                )));
            }
            blocks.push((cs as usize, us as usize));
        }
        let mut pos = ch.uncompressed_offset as usize;
        for (bi, (cs, us)) in blocks.into_iter().enumerate() {
            let at = c.offset();
            let mut src = c.bytes(cs).map_err(err)?.to_vec();
            if flags == LZO_XOR && cs >= 32 {
                crypt::xor(&mut src, 0);
            }
            let out = lzo_decompress(&src, us, at).map_err(err)?;
            let end = pos + us;
            if end > image.len()
                || end > ch.uncompressed_offset as usize + ch.uncompressed_size as usize
            {
                return Err(err(DecodeError::invalid(
                    at,
                    format!("block {bi} overflows its chunk"),
                )));
            }
            image[pos..end].copy_from_slice(&out);
            pos = end;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lzo_round_trip_and_corrupt_input_is_an_error() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let c = lzokay_native::compress(&data).unwrap();
        assert_eq!(lzo_decompress(&c, data.len(), 0).unwrap(), data);
        assert!(lzo_decompress(&c, data.len() + 1, 0).is_err());
        let mut bad = c.clone();
        for b in bad.iter_mut().skip(3).step_by(7) {
            *b ^= 0xA5;
        }
        assert!(lzo_decompress(&bad, data.len(), 0).is_err());
    }
}
