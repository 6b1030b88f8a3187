//! YAML import of arbitrary text: no panic or abort; a document that imports encodes to bytes
//! that decode again (see `animkit::registry::fuzz_yaml_import`; `cargo test` replays
//! fuzz/regressions/).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    animkit::registry::fuzz_yaml_import(data);
});
