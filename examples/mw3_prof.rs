//! A profiling driver for the MechWarrior 3 bench input (perf / callgrind):
//! `mw3_prof <gen|parse|write|parse_write|yaml|digest> [typical|random] [iterations]`.
//! `gen` only builds the input, so its instruction count can be subtracted from the others.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::mw3::anim::{gen, Anim};
use animkit::registry::Codec;
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("parse", String::as_str);
    let shape = gen::Shape {
        defs: 3000,
        max_items: 6,
        max_sequences: 3,
        max_events: 16,
        realistic: args.get(2).is_some_and(|a| a == "typical"),
    };
    let iterations: u32 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let data = match gen::file(7, &shape) {
        Ok(d) => d,
        Err(e) => panic!("generator: {e}"),
    };
    let model = if matches!(mode, "write" | "yaml" | "digest") {
        Anim::read(&data).unwrap_or_default()
    } else {
        Anim::default()
    };
    let t = std::time::Instant::now();
    for _ in 0..iterations {
        match mode {
            "parse" => {
                black_box(Anim::read(black_box(&data)).map(|a| a.anim_defs.len())).ok();
            }
            "write" => {
                let mut out = Vec::with_capacity(data.len());
                black_box(model.write(&mut out, None)).ok();
            }
            "parse_write" => {
                let a = Anim::read(black_box(&data)).unwrap_or_default();
                let mut out = Vec::with_capacity(data.len());
                black_box(a.write(&mut out, None)).ok();
            }
            "yaml" => {
                black_box(Codec::to_yaml(&model, &Default::default()).map(|s| s.len())).ok();
            }
            "digest" => {
                // CRC-32 of the YAML export and of the re-encoded bytes, to compare builds
                let text = Codec::to_yaml(&model, &Default::default()).unwrap_or_default();
                let mut out = Vec::new();
                model.write(&mut out, None).ok();
                println!(
                    "yaml {} bytes crc {:08x}; binary {} crc {:08x} (input crc {:08x})",
                    text.len(),
                    crc32fast::hash(text.as_bytes()),
                    out.len(),
                    crc32fast::hash(&out),
                    crc32fast::hash(&data)
                );
            }
            _ => {}
        }
    }
    eprintln!(
        "{mode}: {} bytes, {:?} per iteration",
        data.len(),
        t.elapsed() / iterations
    );
}
