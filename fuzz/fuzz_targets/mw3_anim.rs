//! `cargo +nightly fuzz run mw3_anim`: arbitrary bytes into the MechWarrior 3 anim.zbd decoder.
//! Decoding must never panic, and whatever decodes must round-trip byte for byte through the
//! model and through YAML. The same logic runs in the property tests
//! (`src/mw3/anim/tests_prop.rs`) on every `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = animkit::mw3::anim::fuzz_round_trip(data) {
        panic!("{e}");
    }
});
