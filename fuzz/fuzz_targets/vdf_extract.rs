//! `vdf extract` on arbitrary bytes into a new folder: no panic, every file written lies below
//! the folder, a failed extraction writes nothing (see
//! `animkit::zengin::vdf::folder::fuzz_extract`; `cargo test` replays fuzz/regressions/).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    animkit::zengin::vdf::folder::fuzz_extract(data);
});
