//! MDS parser: never panics or hangs; whatever it accepts prints back byte for byte (directly
//! and through YAML), and compiling it never panics.
#![no_main]

use animkit::zengin::mds::{parse, Mds};
use animkit::zengin::mds::compile::{compile, CompileOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = parse(data) {
        assert_eq!(m.print(), data);
        if let Ok(yaml) = m.to_yaml_text() {
            let back = Mds::from_yaml_text(&yaml).expect("YAML import");
            assert_eq!(back.print(), data);
        }
        let _ = compile(&m.script, data, &CompileOptions::default());
    }
});
