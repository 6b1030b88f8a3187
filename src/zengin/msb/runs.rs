//! The fixed runs of fields between an MSB chunk's lines, each one deku declaration: the
//! checking source ([`Cursor`](crate::exact::Cursor), used to report an error) reads them
//! through deku; the fast source (`fields::Quick`) and the writer load or copy the same
//! `#[repr(C)]` struct in one step ([`WordRun`]), tied to deku by a test.
//! Single numbers between lines (a layer, a count, a frame) are read and written as themselves.

use crate::exact::{Run, WordRun, F32};
use deku::{DekuRead, DekuSize, DekuWrite};

/// `blend_in`, `blend_out` (seconds): ani, aniAlias, aniBlend, aniComb.
#[derive(
    Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite, DekuSize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
pub struct BlendTimes {
    pub blend_in: F32,
    pub blend_out: F32,
}

impl Run for BlendTimes {
    const FIELDS: &'static [(&'static str, usize)] = &[("blend_in", 4), ("blend_out", 4)];
}

/// What follows an ani's direction line.
#[derive(
    Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite, DekuSize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
#[deku(endian = "little")]
pub struct AniFrames {
    pub first_frame: i32,
    pub last_frame: i32,
    pub fps: F32,
    pub speed: F32,
    pub collision_volume_scale: F32,
}

impl Run for AniFrames {
    const FIELDS: &'static [(&'static str, usize)] = &[
        ("first_frame", 4),
        ("last_frame", 4),
        ("fps", 4),
        ("speed", 4),
        ("collision_volume_scale", 4),
    ];
}

/// What follows an SFX event's name.
#[derive(
    Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite, DekuSize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
pub struct SfxRange {
    pub range: F32,
    pub empty_slot_flag: F32,
}

impl Run for SfxRange {
    const FIELDS: &'static [(&'static str, usize)] = &[("range", 4), ("empty_slot_flag", 4)];
}

/// The start of a PFX and a PFXStop event.
#[derive(
    Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite, DekuSize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
#[deku(endian = "little")]
pub struct FrameHandle {
    pub frame: i32,
    pub handle: F32,
}

impl Run for FrameHandle {
    const FIELDS: &'static [(&'static str, usize)] = &[("frame", 4), ("handle", 4)];
}

/// What follows an MMStartAni event's node.
#[derive(
    Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite, DekuSize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
pub struct Intensity {
    pub intensity: F32,
    pub hold_time: F32,
}

impl Run for Intensity {
    const FIELDS: &'static [(&'static str, usize)] = &[("intensity", 4), ("hold_time", 4)];
}

/// A camera-tremor event's body.
#[derive(
    Debug, Clone, Copy, PartialEq, DekuRead, DekuWrite, DekuSize, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(C)]
#[deku(endian = "little")]
pub struct Tremor {
    pub frame: i32,
    pub radius_squared: F32,
    pub duration_ms: F32,
    pub strength_xz: F32,
    pub strength_y: F32,
}

impl Run for Tremor {
    const FIELDS: &'static [(&'static str, usize)] = &[
        ("frame", 4),
        ("radius_squared", 4),
        ("duration_ms", 4),
        ("strength_xz", 4),
        ("strength_y", 4),
    ];
}
impl WordRun for BlendTimes {}
impl WordRun for AniFrames {}
impl WordRun for SfxRange {}
impl WordRun for FrameHandle {}
impl WordRun for Intensity {}
impl WordRun for Tremor {}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<T: WordRun + std::fmt::Debug + PartialEq>(bytes: &[u8]) {
        let b = &bytes[..T::SIZE];
        assert_eq!(std::mem::size_of::<T>(), T::SIZE);
        assert!(crate::exact::deku_impls::fields_cover::<T>(T::FIELDS));
        let by_deku = T::from_bytes((b, 0)).unwrap().1;
        assert_eq!(T::from_exact(b), Some(by_deku));
        assert_eq!(T::from_exact(&bytes[..T::SIZE - 1]), None);
        let mut out = vec![7u8];
        by_deku.put(&mut out);
        assert_eq!(out[1..], *b);
        assert_eq!(by_deku.to_bytes().unwrap(), b);
    }

    /// The one-read loads and one-copy writes give what deku's reading and writing of the
    /// declarations give.
    #[test]
    fn words_read_and_write_as_deku_does() {
        let bytes: Vec<u8> = (0u8..20).map(|i| i.wrapping_mul(97) ^ 0xA5).collect();
        same::<BlendTimes>(&bytes);
        same::<AniFrames>(&bytes);
        same::<SfxRange>(&bytes);
        same::<FrameHandle>(&bytes);
        same::<Intensity>(&bytes);
        same::<Tremor>(&bytes);
        let t = Tremor::from_exact(&bytes).unwrap();
        assert_eq!(
            t.frame,
            i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        );
        assert_eq!(
            t.strength_y.0,
            u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]])
        );
    }
}
