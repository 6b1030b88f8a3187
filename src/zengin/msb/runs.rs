//! The fixed runs of fields between an MSB chunk's lines, each one declared record of plain
//! little-endian words ([`crate::record!`]): the checking source ([`Cursor`](crate::exact::Cursor))
//! and the fast source (`fields::Quick`) load them with the generated one-copy reader, the
//! writer appends them with the generated one-copy writer; a test ties both to deku.
//! Single numbers between lines (a layer, a count, a frame) are read and written as themselves.

use crate::exact::F32;

crate::record! {
    /// `blend_in`, `blend_out` (seconds): ani, aniAlias, aniBlend, aniComb.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct BlendTimes: little plain {
        pub blend_in: F32,
        pub blend_out: F32,
    }

    /// What follows an ani's direction line.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct AniFrames: little plain {
        pub first_frame: i32,
        pub last_frame: i32,
        pub fps: F32,
        pub speed: F32,
        pub collision_volume_scale: F32,
    }

    /// What follows an SFX event's name.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct SfxRange: little plain {
        pub range: F32,
        pub empty_slot_flag: F32,
    }

    /// The start of a PFX and a PFXStop event.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct FrameHandle: little plain {
        pub frame: i32,
        pub handle: F32,
    }

    /// What follows an MMStartAni event's node.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Intensity: little plain {
        pub intensity: F32,
        pub hold_time: F32,
    }

    /// A camera-tremor event's body.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Tremor: little plain {
        pub frame: i32,
        pub radius_squared: F32,
        pub duration_ms: F32,
        pub strength_xz: F32,
        pub strength_y: F32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::record::same_as_deku;
    use crate::exact::{Cursor, Record};

    /// The one-copy loads and writes give what deku's reading and writing of the
    /// declarations give.
    #[test]
    fn words_read_and_write_as_deku_does() {
        let bytes: Vec<u8> = (0u8..20).map(|i| i.wrapping_mul(97) ^ 0xA5).collect();
        same_as_deku::<BlendTimes>(&bytes);
        same_as_deku::<AniFrames>(&bytes);
        same_as_deku::<SfxRange>(&bytes);
        same_as_deku::<FrameHandle>(&bytes);
        same_as_deku::<Intensity>(&bytes);
        same_as_deku::<Tremor>(&bytes);
        let t = Tremor::load(&bytes).unwrap();
        assert_eq!(
            t.frame,
            i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        );
        assert_eq!(
            t.strength_y.0,
            u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]])
        );
    }

    /// The records that once forgot their byte order read little-endian bytes through deku
    /// (as on a big-endian host) to the values those bytes hold.
    #[test]
    fn byte_order_is_little_endian_through_deku() {
        let le = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08];
        let b: BlendTimes = Cursor::new(&le, 0).read().unwrap();
        assert_eq!(
            (b.blend_in, b.blend_out),
            (F32(0x0403_0201), F32(0x0807_0605))
        );
        let s: SfxRange = Cursor::new(&le, 0).read().unwrap();
        assert_eq!(
            (s.range, s.empty_slot_flag),
            (F32(0x0403_0201), F32(0x0807_0605))
        );
        let i: Intensity = Cursor::new(&le, 0).read().unwrap();
        assert_eq!(
            (i.intensity, i.hold_time),
            (F32(0x0403_0201), F32(0x0807_0605))
        );
        assert_eq!(
            Intensity::FIELDS
                .iter()
                .map(|f| (f.name, f.offset))
                .collect::<Vec<_>>(),
            [("intensity", 0), ("hold_time", 4)]
        );
    }
}
