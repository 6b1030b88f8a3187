//! UE3 package bench: a generated package with 500 sequences × 60 bones × 300 frames
//! (Float96NoW / Fixed48NoW / ZOnlyRLE in turn): read, decode every track, write back; export
//! the AnimSet as PSA and read that PSA.

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::ue3::upk::{anim, synth};
use animkit::ue3::{psa, Package};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let data = synth::synthetic(500, 60, 300);
    let pkg = Package::read(&data).expect("generated package reads");
    let keys: u64 = 500 * 60 * 300;
    let mut g = c.benchmark_group("ue3");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("read_package", |b| b.iter(|| Package::read(&data).unwrap()));
    g.throughput(Throughput::Elements(keys));
    g.bench_function("decode_all_tracks", |b| {
        b.iter(|| {
            let sets = anim::anim_sets(&pkg);
            let mut n = 0usize;
            for &si in &sets[0].sequences {
                let q = anim::sequence(&pkg, si, Some(60)).unwrap().unwrap();
                let (_, t) = anim::decode(&q, anim::stream(&pkg, si)).unwrap();
                n += t.iter().map(|t| t.rotations.len()).sum::<usize>();
            }
            n
        })
    });
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("write_package", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(data.len());
            pkg.write(&mut out).unwrap();
            out
        })
    });
    // PSA (spec §5): export of an AnimSet (20 sequences × 60 bones × 300 frames, 11.5 MB of
    // keys) and reading that file back.
    let small = Package::read(&synth::synthetic(20, 60, 300)).expect("generated package reads");
    let pkg = &small;
    let sets = anim::anim_sets(pkg);
    let psa_bytes = psa::export_set(pkg, &sets[0]).unwrap();
    g.throughput(Throughput::Bytes(psa_bytes.len() as u64));
    g.bench_function("psa_export", |b| {
        b.iter(|| psa::export_set(pkg, &sets[0]).unwrap())
    });
    g.bench_function("psa_read", |b| b.iter(|| psa::read(&psa_bytes).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
