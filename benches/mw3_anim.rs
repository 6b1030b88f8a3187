//! MechWarrior 3 anim.zbd: a generated file with 3,000 anim defs. Parse + write against two
//! copies of the same bytes (a clone in memory, and `std::fs::copy` of the file), and YAML
//! export throughput (bytes of binary input per second).
//!
//! Measured on the shared 2-core machine (another developer and a fuzzer running, so noisy;
//! the better of two runs), `--warm-up-time 1 --measurement-time 3`, after the inline-name
//! rework (before it, same machine and session):
//!
//! | input | copy / file_copy | parse | write | parse + write | YAML export |
//! |---|---|---|---|---|---|
//! | typical, 11.08 MB | 0.22 ms / 10.4 ms | 13.5 ms (21.9) | 6.1 ms (11.3) | 19.7 ms (31.8) | 129 ms = 86 MB/s (160 ms = 69 MB/s) |
//! | random, 11.25 MB | 0.23 ms / 10.4 ms | 14.6 ms (23.2) | 6.6 ms (13.0) | 22.3 ms (37.0) | 175 ms = 64 MB/s (215 ms = 52 MB/s) |
//!
//! parse + write is about 2× the file copy and about 90× the in-memory clone.

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::mw3::anim::gen::{self, Shape};
use animkit::mw3::Anim;
use animkit::registry::{Codec, ExportOptions, ImportOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

fn input(realistic: bool) -> Vec<u8> {
    let shape = Shape {
        defs: 3000,
        max_items: 6,
        max_sequences: 3,
        max_events: 16,
        realistic,
    };
    match gen::file(7, &shape) {
        Ok(d) => d,
        Err(e) => panic!("generator: {e}"),
    }
}

fn bench(c: &mut Criterion) {
    // "typical": shipped-file-like values; "random": arbitrary bit patterns and garbage tails
    for (label, realistic) in [("typical", true), ("random", false)] {
        bench_input(c, label, &input(realistic));
    }
}

fn bench_input(c: &mut Criterion, label: &str, data: &[u8]) {
    let data = data.to_vec();
    eprintln!(
        "mw3_anim/{label} input: {} bytes, 3000 anim defs",
        data.len()
    );
    let mut g = c.benchmark_group(format!("mw3_anim/{label}"));
    g.throughput(Throughput::Bytes(data.len() as u64));
    // Two yardsticks for "the time to copy it": the bytes in memory, and the file on disk
    // (std::fs::copy in a temp dir; page cache, so no real disk I/O).
    g.bench_function("copy", |b| b.iter(|| black_box(data.clone())));
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("temp dir: {e}"),
    };
    let src = dir.path().join("anim.zbd");
    let dst = dir.path().join("copy.zbd");
    if let Err(e) = std::fs::write(&src, &data) {
        panic!("write {}: {e}", src.display());
    }
    g.bench_function("file_copy", |b| {
        b.iter(|| std::fs::copy(black_box(&src), black_box(&dst)).map_err(|e| e.kind()))
    });
    g.bench_function("parse", |b| {
        b.iter(|| Anim::read(black_box(&data)).map(|a| a.anim_defs.len()))
    });
    let model = Anim::read(&data).unwrap_or_default();
    g.bench_function("write", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(data.len());
            model.write(&mut out, None).map(|_| out.len())
        })
    });
    g.bench_function("parse_write", |b| {
        b.iter(|| {
            let a = Anim::read(black_box(&data)).unwrap_or_default();
            let mut out = Vec::with_capacity(data.len());
            a.write(&mut out, None).map(|_| out.len())
        })
    });
    g.sample_size(10);
    g.bench_function("yaml_export", |b| {
        b.iter(|| Codec::to_yaml(&model, &ExportOptions::default()).map(|s| s.len()))
    });
    // The same document through serde-saphyr's serializer instead of animkit's emitter
    // (issue 24 §3, measured once: BENCHMARKS.md); whether its text reads back to the same
    // model is printed beside the figure.
    let by_saphyr = serde_saphyr::to_string(&model.document()).expect("serde-saphyr serializes");
    let back = Anim::from_yaml(&by_saphyr, &ImportOptions::default());
    eprintln!(
        "serde-saphyr's document: {} bytes (animkit's {}); reads back to the same model: {}",
        by_saphyr.len(),
        Codec::to_yaml(&model, &ExportOptions::default()).map_or(0, |s| s.len()),
        match &back {
            Ok(b) if *b == model => "yes".to_string(),
            Ok(_) => "no (a different model)".to_string(),
            Err(e) => format!("no ({e})"),
        }
    );
    g.bench_function("yaml_export_serde_saphyr", |b| {
        b.iter(|| serde_saphyr::to_string(&model.document()).map(|s| s.len()))
    });
    g.finish();
    // YAML import (issue 12 item 11), throughput in bytes of YAML read: the document to the
    // model (the fast reader, then the references resolved), and on to the file's bytes.
    let yaml = match Codec::to_yaml(&model, &ExportOptions::default()) {
        Ok(y) => y,
        Err(e) => panic!("export: {e}"),
    };
    let mut g = c.benchmark_group(format!("mw3_anim/{label}"));
    g.throughput(Throughput::Bytes(yaml.len() as u64));
    g.sample_size(10);
    g.bench_function("yaml_import", |b| {
        b.iter(|| {
            Anim::from_yaml(black_box(&yaml), &ImportOptions::default()).map(|a| a.anim_defs.len())
        })
    });
    g.bench_function("yaml_import_write", |b| {
        b.iter(|| {
            let a = Anim::from_yaml(black_box(&yaml), &ImportOptions::default())
                .map_err(|e| e.to_string())?;
            let mut out = Vec::new();
            Codec::encode(&a, &mut out).map_err(|e| e.to_string())?;
            Ok::<_, String>(out.len())
        })
    });
    // `import`'s path: the anim defs read, resolved and encoded piece by piece on every core
    // into the output (a large document; a small one takes the path above)
    g.bench_function("yaml_import_streamed", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            Anim::import_to(black_box(&yaml), &ImportOptions::default(), None, &mut out)
                .map(|_| out.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
