//! Package compression (spec §1.9): the chunk table of the summary, chunk headers, LZO1X blocks
//! and the Blade & Soul per-block XOR of CompressionFlags 8. Decompression uses the `lzokay`
//! crate (pure safe Rust, MIT): every read and copy of its decoder is bounds-checked and returns
//! an error, so a corrupt block is a [`DecodeError`] at the block's offset, never a panic (the
//! `lzokay-native` decoder used before indexed out of bounds on such blocks).

use super::crypt;
use crate::exact::{Cursor, DecodeError};

pub const PACKAGE_TAG: u32 = 0x9E2A_83C1;
/// CompressionFlags: plain LZO1X.
pub const LZO: u32 = 2;
/// CompressionFlags: LZO1X with the BnS per-block XOR.
pub const LZO_XOR: u32 = 8;
/// Largest uncompressed image animkit builds (2 GiB).
const MAX_IMAGE: u64 = 1 << 31;

crate::record! {
    /// One record of the summary's CompressedChunks table, 16 bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct ChunkRecord: little plain {
        pub uncompressed_offset: i32,
        pub uncompressed_size: i32,
        pub compressed_offset: i32,
        pub compressed_size: i32,
    }
}

crate::record! {
    /// The header at the start of a compressed chunk (spec §1.9), 16 bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct ChunkHeader: little plain {
        pub tag: u32,
        pub block_size: i32,
        pub compressed_size: i32,
        pub uncompressed_size: i32,
    }
}

crate::record! {
    /// One entry of a chunk's block table, 8 bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct BlockSizes: little plain {
        pub compressed_size: i32,
        pub uncompressed_size: i32,
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

/// LZO1X-decompress `src` (a block read at file offset `at`) into exactly `size` bytes. The
/// output buffer is `size` bytes (the block record's uncompressed size, checked against the
/// block size before): a stream that would write more is an error, not a larger allocation.
pub fn lzo_decompress(src: &[u8], size: usize, at: u64) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; size];
    let n = lzokay::decompress::decompress(src, &mut out).map_err(|e| {
        let why = match e {
            lzokay::Error::LookbehindOverrun => {
                "a match refers to bytes before the start of the block".into()
            }
            lzokay::Error::OutputOverrun => {
                format!("the block decompresses to more than its stated {size} bytes")
            }
            lzokay::Error::InputOverrun => {
                "the compressed data ends in the middle of an instruction".into()
            }
            lzokay::Error::InputNotConsumed => "bytes follow the end-of-stream marker".into(),
            lzokay::Error::Error => {
                "the stream does not end with LZO1X's end-of-stream marker".into()
            }
        };
        DecodeError::invalid(
            at,
            format!("LZO block ({} bytes) is corrupt: {why}", src.len()),
        )
    })?;
    if n != size {
        return Err(DecodeError::invalid(
            at,
            format!("LZO block decompressed to {n} bytes, expected {size}"),
        ));
    }
    Ok(out)
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
        let head: ChunkHeader = c.read().map_err(err)?;
        let tag = head.tag;
        if tag != PACKAGE_TAG {
            return Err(err(DecodeError::invalid(
                tag_at,
                format!("chunk tag {tag:#010x} is not {PACKAGE_TAG:#010x}"),
            )));
        }
        let bs_at = tag_at + 4;
        let block_size = head.block_size;
        let usize_at = tag_at + 12;
        let total = head.uncompressed_size;
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
            let b: BlockSizes = c.read().map_err(err)?;
            let (cs, us) = (b.compressed_size, b.uncompressed_size);
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
    use proptest::prelude::*;

    fn sample(len: usize, seed: u32) -> Vec<u8> {
        // Text-like data with repeats at every distance class LZO1X encodes (M1..M4).
        let mut x = seed.wrapping_mul(2_654_435_761).max(1);
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            match x % 4 {
                0 if out.len() > 40_000 => {
                    let from = out.len() - 40_000 + (x as usize >> 8) % 1000;
                    let n = (x as usize >> 4) % 40 + 3;
                    for k in 0..n.min(len - out.len()) {
                        out.push(out[from + k]);
                    }
                }
                1 if out.len() > 10 => {
                    let back = 1 + (x as usize >> 8) % out.len().min(3000);
                    let from = out.len() - back;
                    let n = (x as usize >> 4) % 300 + 2;
                    for k in 0..n.min(len - out.len()) {
                        out.push(out[from + k]);
                    }
                }
                _ => out.push(b'a' + (x >> 24) as u8 % 26),
            }
        }
        out
    }

    #[test]
    fn lzo_round_trip_through_two_independent_compressors() {
        for (len, seed) in [(1, 1), (5000, 2), (70_000, 3), (131_072, 4)] {
            let data = sample(len, seed);
            for c in [
                lzokay_native::compress(&data).unwrap(),
                lzokay::compress::compress(&data).unwrap(),
            ] {
                assert_eq!(lzo_decompress(&c, data.len(), 0).unwrap(), data);
                // One byte more or less than the block holds is an error, not a short read.
                let e = lzo_decompress(&c, data.len() + 1, 7).unwrap_err();
                assert!(
                    e.to_string().contains(&format!(
                        "decompressed to {len} bytes, expected {}",
                        len + 1
                    )),
                    "{e}"
                );
                let e = lzo_decompress(&c, data.len() - 1, 7).unwrap_err();
                assert!(e.to_string().contains("more than its stated"), "{e}");
                assert_eq!(e.offset, 7);
            }
        }
    }

    #[test]
    fn corrupt_blocks_are_errors_at_the_blocks_offset() {
        let data = sample(5000, 9);
        let c = lzokay::compress::compress(&data).unwrap();
        // A match before the block's start (an M2 instruction first: what made lzokay-native
        // index out of bounds).
        let mut bad = c.clone();
        bad[0] = 0x40;
        let e = lzo_decompress(&bad, data.len(), 149).unwrap_err();
        assert_eq!(e.offset, 149);
        assert!(
            e.to_string().contains("before the start of the block"),
            "{e}"
        );
        // Cut short.
        let e = lzo_decompress(&c[..c.len() / 2], data.len(), 5).unwrap_err();
        assert!(e.to_string().contains("ends in the middle"), "{e}");
        // Bytes after the end marker.
        let mut long = c.clone();
        long.push(0);
        let e = lzo_decompress(&long, data.len(), 5).unwrap_err();
        assert!(e.to_string().contains("follow the end-of-stream"), "{e}");
        // Empty input.
        assert!(lzo_decompress(&[], 10, 0).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn decompress_inverts_compress(len in 0usize..20_000, seed in any::<u32>()) {
            let data = sample(len, seed);
            // An empty input is no LZO1X stream from either compressor: lzokay-native gives no
            // bytes (not even the end-of-stream marker) and lzokay [0x11, 0x11, 0, 0], whose
            // first byte is no literal run (LZO1X needs > 17 there), so every LZO1X decoder, the
            // reference one too, reads a match before the block's start. The compressors' bug,
            // on a block no package holds; the decoder refusing both is right.
            let a = lzokay::compress::compress(&data).unwrap();
            let b = lzokay_native::compress(&data).unwrap();
            if data.is_empty() {
                prop_assert_eq!(&a[..], &[0x11u8, 0x11, 0, 0][..]);
                prop_assert!(b.is_empty());
                prop_assert!(lzo_decompress(&a, 0, 0).is_err());
                prop_assert!(lzo_decompress(&b, 0, 0).is_err());
            } else {
                prop_assert_eq!(lzo_decompress(&a, data.len(), 0).unwrap(), data.clone());
                prop_assert_eq!(lzo_decompress(&b, data.len(), 0).unwrap(), data);
            }
        }

        #[test]
        fn damaged_blocks_never_panic(
            seed in any::<u32>(),
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
            cut in any::<usize>(),
            size in 0usize..9000,
        ) {
            let data = sample(4000, seed);
            let mut c = lzokay::compress::compress(&data).unwrap();
            for (at, v) in edits {
                let n = c.len();
                c[at % n] = v;
            }
            if cut % 3 == 0 {
                c.truncate(cut % (c.len() + 1));
            }
            // Ok or a clean error; the output is exactly `size` bytes when Ok.
            if let Ok(out) = lzo_decompress(&c, size, 0) {
                prop_assert_eq!(out.len(), size);
            }
        }
    }
}
