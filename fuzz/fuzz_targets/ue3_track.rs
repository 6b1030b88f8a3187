//! Fuzz the UE3 track decoder: the first 17 bytes choose the format and the four
//! CompressedTrackOffsets entries, the rest is the stream.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 17 {
        return;
    }
    let offs: Vec<i32> = data[1..17]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    animkit::ue3::fuzz_track(&data[17..], &offs, data[0] as usize);
});
