//! Blade & Soul encryption layers (spec §1.10): the 32-byte key, the whole-file / per-block XOR
//! and the export-pointer obfuscation of packages flagged `0x08000000`.

/// The Blade & Soul XOR key.
pub const KEY: &[u8; 32] = b"qiffjdlerdoqymvketdcl0er2subioxq";
/// First dword of a whole-file-XOR'd package (the package tag XOR the key).
pub const XOR_TAG: u32 = 0xF84C_EAB0;
/// PackageFlags bit: export SerialSize/SerialOffset are obfuscated.
pub const FLAG_OBFUSCATED: u32 = 0x0800_0000;

/// XOR `data` with the key, `data[0]` being at key position `start`. An involution.
pub fn xor(data: &mut [u8], start: usize) {
    for (i, b) in data.iter_mut().enumerate() {
        *b ^= KEY[(start + i) % 32];
    }
}

/// The two obfuscation codes, from the summary fields exactly as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointerCodes {
    pub code1: u32,
    pub code2: u32,
}

impl PointerCodes {
    pub fn new(
        headers_size: i32,
        name_count: i32,
        name_offset: i32,
        export_count: i32,
        export_offset: i32,
        import_count: i32,
        import_offset: i32,
    ) -> Self {
        let b = |v: i32| (v as u32) & 0xFF;
        let code1 = (b(headers_size) << 24)
            | (b(name_count) << 16)
            | (b(name_offset) << 8)
            | b(export_count);
        let code2 = (export_offset
            .wrapping_add(import_count)
            .wrapping_add(import_offset) as u32)
            & 0x1F;
        Self { code1, code2 }
    }
    /// Stored → plain, for export `i`.
    pub fn decode(&self, i: usize, stored: u32) -> u32 {
        let rot = ((i as u32).wrapping_add(self.code2)) & 31;
        stored.rotate_right(rot) ^ self.code1.rotate_right((i % 32) as u32)
    }
    /// Plain → stored, for export `i`.
    pub fn encode(&self, i: usize, plain: u32) -> u32 {
        let rot = ((i as u32).wrapping_add(self.code2)) & 31;
        (plain ^ self.code1.rotate_right((i % 32) as u32)).rotate_left(rot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec §1.10 test vectors: (index, size, stored size, offset, stored offset).
    const VECTORS: [(usize, u32, u32, u32, u32); 4] = [
        (0, 168, 0xDB59C242, 1249, 0xD3CBC242),
        (1, 492, 0xDDB9C242, 1417, 0xCC2DC242),
        (2, 436, 0xD7A9C242, 1909, 0xE1A1C242),
        (3, 416, 0xC009C242, 2345, 0x4899C242),
    ];

    #[test]
    fn pointer_obfuscation_matches_the_spec_vectors_both_ways() {
        let c = PointerCodes::new(1249, 33, 109, 4, 961, 3, 877);
        assert_eq!(c.code1, 0xE121_6D04);
        assert_eq!(c.code2, 17);
        for (i, size, ssize, off, soff) in VECTORS {
            assert_eq!(c.decode(i, ssize), size);
            assert_eq!(c.encode(i, size), ssize);
            assert_eq!(c.decode(i, soff), off);
            assert_eq!(c.encode(i, off), soff);
        }
    }

    #[test]
    fn xor_turns_the_tag_into_the_bns_tag() {
        let mut b = 0x9E2A_83C1u32.to_le_bytes();
        xor(&mut b, 0);
        assert_eq!(u32::from_le_bytes(b), XOR_TAG);
        xor(&mut b, 0);
        assert_eq!(u32::from_le_bytes(b), 0x9E2A_83C1);
    }
}
