//! MDL reader: never panics; whatever it accepts is written back byte for byte, also via YAML.
#![no_main]

use animkit::registry::{Codec, ExportOptions, ImportOptions};
use animkit::zengin::mdl::Mdl;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Mdl::decode(data) {
        let mut out = Vec::new();
        m.encode(&mut out).expect("a decoded MDL encodes");
        assert_eq!(out, data);
        let yaml = m.to_yaml(&ExportOptions::default()).expect("YAML export");
        let back = Mdl::from_yaml(&yaml, &ImportOptions::default()).expect("YAML import");
        assert!(back == m);
    }
});
