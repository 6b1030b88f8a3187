//! A profiling driver for the MechWarrior 3 bench input (perf / callgrind):
//! `mw3_prof <gen|parse|write|parse_write|yaml> [typical|random] [iterations]`.
//! `gen` only builds the input, so its instruction count can be subtracted from the others.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::mw3::{gen, Anim};
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
    let model = if matches!(mode, "write" | "yaml") {
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
            _ => {}
        }
    }
    eprintln!(
        "{mode}: {} bytes, {:?} per iteration",
        data.len(),
        t.elapsed() / iterations
    );
}
