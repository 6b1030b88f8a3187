//! The VDF reader on arbitrary bytes: no panic, and whatever parses is written back byte for
//! byte (see `animkit::zengin::vdf::folder::fuzz_one`; the proptest tests in
//! `src/zengin/vdf_tests.rs` run the same function on random and mutated archives).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    animkit::zengin::vdf::folder::fuzz_one(data);
});
