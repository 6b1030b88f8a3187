//! ASC parse throughput (asc.md §7: skeletal animation ASCs are the bulk, up to ~3 MB each).
//! Every ASC of `../shared/corpus/realworld/asc-pairs` (56 files, 9.8 MB) parsed on one core:
//!
//! * `doc`: the lossless line/token layer only ([`animkit::zengin::asc::Doc::parse`]);
//! * `parse`: the lossless lines + the checked typed model ([`animkit::zengin::asc::Asc::parse`]),
//!   what `info`/`verify`/`export` read;
//! * `model`: the checked typed model alone ([`animkit::zengin::asc::Model::parse`], lines
//!   tokenized one at a time), what `asc import` and `compile --asc` read;
//! * `largest`: the largest file alone through `Model::parse` (the latency case).
//!
//! Throughput is reported in bytes per second (criterion's `Throughput::Bytes`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::zengin::asc::{Asc, Doc, Model};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;

fn files() -> Vec<Vec<u8>> {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/realworld/asc-pairs");
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(|e| e.ok())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("asc")))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no ASC under {}", root.display());
    v.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn bench(c: &mut Criterion) {
    let files = files();
    let total: usize = files.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("asc");
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("doc", |b| {
        b.iter(|| {
            for f in &files {
                black_box(Doc::parse(f).unwrap());
            }
        })
    });
    g.bench_function("parse", |b| {
        b.iter(|| {
            for f in &files {
                black_box(Asc::parse(f).unwrap());
            }
        })
    });
    g.bench_function("model", |b| {
        b.iter(|| {
            for f in &files {
                black_box(Model::parse(f).unwrap());
            }
        })
    });
    let largest = files.iter().max_by_key(|f| f.len()).unwrap();
    g.throughput(Throughput::Bytes(largest.len() as u64));
    g.bench_function("largest", |b| {
        b.iter(|| black_box(Model::parse(largest).unwrap()))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
