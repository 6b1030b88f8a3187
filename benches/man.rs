//! MAN throughput on a generated 100-node × 2000-frame animation (~2.4 MB):
//! parse, parse + decode, byte-exact write, YAML export, YAML import.
//!
//!     cargo bench --bench man

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::registry::{Codec, ExportOptions, ImportOptions};
use animkit::zengin::man::synth::{synthesize_bytes, Synth};
use animkit::zengin::man::yaml::{document_to_man, ManDocument};
use animkit::zengin::man::Man;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let bytes = synthesize_bytes(&Synth {
        events: 4,
        ..Synth::new("S_BENCH", 100, 2000)
    });
    let man = Man::read(&bytes).expect("generated MAN parses");
    let yaml = man.to_yaml(&ExportOptions::default()).expect("exports");
    eprintln!(
        "input: {} bytes of MAN, {} bytes of YAML",
        bytes.len(),
        yaml.len()
    );

    let mut g = c.benchmark_group("man");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| Man::read(black_box(&bytes)).map(|m| m.chunks.len()))
    });
    g.bench_function("parse+decode", |b| {
        b.iter(|| {
            let m = Man::read(black_box(&bytes)).expect("parses");
            m.decode_samples().len()
        })
    });
    g.bench_function("write", |b| {
        let mut out = Vec::with_capacity(bytes.len());
        b.iter(|| {
            out.clear();
            man.write(&mut out).map(|_| out.len())
        })
    });
    g.bench_function("yaml_export", |b| {
        b.iter(|| man.to_yaml(&ExportOptions::default()).map(|y| y.len()))
    });
    g.sample_size(10);
    g.bench_function("yaml_import", |b| {
        b.iter(|| {
            Man::from_yaml(black_box(&yaml), &ImportOptions::default()).map(|m| m.chunks.len())
        })
    });
    // The same document through the general fast reader alone (no MAN line reader, no
    // placeholders): the measurement that decides whether the MAN-only reader is still needed
    // (issue 24 §3; BENCHMARKS.md).
    let general = |text: &str| {
        animkit::yaml::fast::from_str::<ManDocument>(text)
            .map(|d| document_to_man(d, &ImportOptions::default()))
    };
    match general(&yaml) {
        Some(Ok(m)) if m == man => {}
        _ => panic!("the general fast reader must read the MAN document to the same model"),
    }
    g.bench_function("yaml_import_general_fast_reader", |b| {
        b.iter(|| general(black_box(&yaml)).map(|m| m.map(|m| m.chunks.len())))
    });
    g.finish();

    // Per sample, a small MAN (the size of most real ones) against the large one: small jobs
    // must not pay for machinery only large ones need (issue 13).
    let small = synthesize_bytes(&Synth::new("S_SMALL", 40, 12));
    let small = Man::read(&small).expect("generated MAN parses");
    // The large export renders on all cores; `_1thread` runs it in a one-thread pool, the
    // honest per-sample figure to hold the small one against.
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let mut g = c.benchmark_group("man_yaml_export_per_sample");
    for (name, m, pool) in [
        ("small_40x12", &small, None),
        ("large_100x2000", &man, None),
        ("large_100x2000_1thread", &man, Some(&one)),
    ] {
        let samples = m.samples().map_or(0, |s| s.codes.len());
        g.throughput(Throughput::Elements(samples as u64));
        g.bench_function(name, |b| {
            let export = || m.to_yaml(&ExportOptions::default()).map(|y| y.len());
            match pool {
                Some(p) => b.iter(|| p.install(export)),
                None => b.iter(export),
            }
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
