//! Fuzz the UE3 package reader and everything run on a package that reads.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    animkit::ue3::fuzz_package(data);
});
