//! VDF archive workflow on a generated archive of MAN files (default 10,000 files of about
//! 100 KiB = 1 GiB; `ANIMKIT_BENCH_VDF_FILES` sets the count). Generated once into a
//! temporary folder that is deleted afterwards (`ANIMKIT_BENCH_VDF_KEEP=PATH` writes the
//! archive to PATH instead and keeps it, for timing the release CLI).
//!
//! * `list`: map + parse + tree + listing.
//! * `copy`: `std::fs::copy` of the archive, the yardstick for the archive steps.
//! * `verify_structure`: the archive-level verify round trips (no members).
//! * `write_member_files`: every member written as its own file with plain `std::fs::write`
//!   on all cores, the yardstick for unpack (creating 10,000 files is file-system work that
//!   no archive tool avoids).
//! * `unpack` (no YAML), `repack` (of one unpacked folder, to a new file), `compare` (map both
//!   files, compare the bytes), and all three in a row: `unpack_repack_compare`.
//! * `unpack_repack_yaml_100`: `unpack` with YAML + `repack` + comparison on a 100-file
//!   archive (YAML export of 1 GiB of animations is measured with the CLI instead).
//!
//! Needs `../shared/corpus/zengin/G1_HUMANS-S_FISTRUN.MAN` as the animation to multiply.
//!
//! Each iteration of the writing steps starts after `sync` (untimed), and folders written by
//! earlier iterations are moved aside instead of deleted: this machine's ext4 has no journal,
//! and there creating files within minutes of deleting thousands scans past every recently
//! deleted inode (seen with perf: `recently_deleted` under `ext4_create`), which made unpack
//! 3-10x slower and timed the bench's own clean-up, not unpack. Even so, figures here swing
//! 2x with the file system's state and the other work on the 2 shared cores.
//!
//! Measured 2026-11-22 (session 3), 964,342,136-byte archive of 10,000 MAN files, page cache
//! warm, nothing else running: list 1.41 ms; copy 0.275 s; verify_structure 0.143 s;
//! write_member_files 1.49 s; unpack 1.29 s; repack 0.69 s; compare 0.155 s;
//! unpack + repack + compare 1.99 s (was 3.27 s: a new output is no longer forced to disk
//! before its rename, see `fsio::write_streaming`); unpack_repack_yaml_100 (9.6 MB) 0.45 s.
//! Writing into one file from several threads was tried for repack and bought nothing (the
//! writes serialise on the file's inode lock).

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::registry::Codec;
use animkit::zengin::man::{Chunk, Man};
use animkit::zengin::vdf::folder::{self as folder, PackFile, PackOptions, Source, UnpackOptions};
use animkit::zengin::vdf::{Vdf, SIGNATURE_GOTHIC2};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::path::{Path, PathBuf};

/// A MAN of about 100 KiB: the corpus animation with its frames repeated.
fn big_man(base: &[u8], k: usize) -> Vec<u8> {
    let mut man = Man::decode(base).expect("corpus MAN decodes");
    let mut repeat = 1;
    for c in &mut man.chunks {
        if let Chunk::Samples(s) = c {
            let frames = s.codes.clone();
            repeat = (100_000 / (frames.len() * 12)).max(1);
            for r in 1..repeat {
                // Vary the data a little per file and copy.
                s.codes.extend(
                    frames
                        .iter()
                        .map(|f| [f[0], f[1], f[2], f[3], f[4] ^ ((k + r) as u16 & 3), f[5]]),
                );
            }
        }
    }
    for c in &mut man.chunks {
        if let Chunk::Header(h) = c {
            h.frame_count *= repeat as u32;
        }
    }
    let mut out = Vec::new();
    Codec::encode(&man, &mut out).expect("MAN encodes");
    out
}

fn generate(path: &Path, files: usize) -> u64 {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/zengin/G1_HUMANS-S_FISTRUN.MAN");
    let base = std::fs::read(&corpus).expect("the corpus MAN is needed for this bench");
    let variants: Vec<Vec<u8>> = (0..4).map(|k| big_man(&base, k)).collect();
    let list: Vec<PackFile> = (0..files)
        .map(|i| PackFile {
            path: vec![
                b"_WORK".to_vec(),
                b"DATA".to_vec(),
                b"ANIMS".to_vec(),
                format!("GROUP{:02}", i / 500).into_bytes(),
                format!("HUMANS-S_ANI{i:05}.MAN").into_bytes(),
            ],
            source: Source::Memory(variants[i % 4].clone()),
        })
        .collect();
    let opts = PackOptions {
        signature: *SIGNATURE_GOTHIC2,
        comment: b"animkit bench".to_vec(),
        timestamp: 0x529B_5B1D,
        zipped: false,
    };
    animkit::fsio::write_streaming(path, true, |w| {
        folder::pack_to(w, &list, &opts, &|| {}).map_err(|e| animkit::exact::Error::Encode {
            file: path.into(),
            source: e,
        })
    })
    .expect("bench archive written")
}

/// Unpacked folders moved aside so far.
static TRASHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Write back what earlier iterations left dirty (outside the timing, for `copy` and the
/// archive loop alike), so each iteration starts as a single command on a quiet machine
/// would, instead of waiting for the write-back of the iterations before it.
fn sync() {
    let _ = std::process::Command::new("sync").status();
}

/// `animkit unpack` of `archive` into `dir`: without YAML, or YAML only (`yaml`).
fn unpack(archive: &Path, dir: &Path, yaml: bool) {
    let map = animkit::fsio::map_file(archive).unwrap();
    let v = folder::open(archive, &map).unwrap();
    let tree = folder::tree(archive, &v).unwrap();
    let opts = UnpackOptions {
        yaml,
        yaml_only: yaml,
        force: false,
    };
    folder::unpack(
        archive,
        &v,
        &tree,
        dir,
        &opts,
        animkit::registry::formats(),
        &map,
        &|b| map.release(b),
        &|| {},
    )
    .unwrap();
}

fn same_files(a: &Path, b: &Path) -> bool {
    let (x, y) = (
        animkit::fsio::map_file(a).unwrap(),
        animkit::fsio::map_file(b).unwrap(),
    );
    x[..] == y[..]
}

fn bench(c: &mut Criterion) {
    let files: usize = std::env::var("ANIMKIT_BENCH_VDF_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let tmp = tempfile::tempdir().unwrap();
    let keep = std::env::var_os("ANIMKIT_BENCH_VDF_KEEP").map(PathBuf::from);
    let archive = keep.clone().unwrap_or_else(|| tmp.path().join("Anims.vdf"));
    let t = std::time::Instant::now();
    let len = generate(&archive, files);
    eprintln!(
        "generated {} ({files} files, {len} bytes) in {:.1?}",
        archive.display(),
        t.elapsed()
    );
    if keep.is_some() {
        return;
    }
    let mut g = c.benchmark_group("vdf");
    g.sample_size(10);
    g.throughput(criterion::Throughput::Bytes(len));

    g.bench_function("list", |b| {
        b.iter(|| {
            let map = animkit::fsio::map_file(&archive).unwrap();
            let v = folder::open(&archive, &map).unwrap();
            let tree = folder::tree(&archive, &v).unwrap();
            folder::list(&v, &tree).len()
        })
    });
    g.bench_function("copy", |b| {
        let out = tmp.path().join("copy.vdf");
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(&out);
                sync();
            },
            |()| std::fs::copy(&archive, &out).unwrap(),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("verify_structure", |b| {
        b.iter(|| {
            let map = animkit::fsio::map_file(&archive).unwrap();
            let v = Vdf::parse(&map).unwrap();
            assert_eq!(
                folder::verify_archive_structure(&map, &v, &|_| {}).unwrap(),
                None
            );
        })
    });
    // Folders written by the iterations are moved aside, not deleted: on an ext4 without a
    // journal (this machine's) creating files right after deleting thousands scans past every
    // recently deleted inode, which would time the deletion, not the step.
    let trash = tmp.path().join("trash");
    std::fs::create_dir_all(&trash).unwrap();
    let set_aside = |dir: &Path| {
        if dir.exists() {
            let n = TRASHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::fs::rename(dir, trash.join(n.to_string())).unwrap();
        }
    };
    let unpack_to = |dir: &Path| unpack(&archive, dir, false);
    g.bench_function("write_member_files", |b| {
        // The yardstick for unpack: every member written as its own file (plain
        // `std::fs::write`, on all cores), without names checks, manifest or staging.
        use rayon::prelude::*;
        let dir = tmp.path().join("files");
        b.iter_batched(
            || {
                set_aside(&dir);
                sync();
            },
            |()| {
                let map = animkit::fsio::map_file(&archive).unwrap();
                let v = folder::open(&archive, &map).unwrap();
                let tree = folder::tree(&archive, &v).unwrap();
                let items = folder::list(&v, &tree);
                for i in items.iter().filter(|i| i.directory) {
                    let p = i.path.as_deref().unwrap_or("").trim_end_matches('/');
                    std::fs::create_dir_all(dir.join(p)).unwrap();
                }
                let files: Vec<_> = items.iter().filter(|i| !i.directory).collect();
                files.par_iter().for_each(|i| {
                    let (at, len) = (i.offset as usize, i.size as usize);
                    std::fs::write(dir.join(i.path.as_deref().unwrap()), &map[at..at + len])
                        .unwrap();
                });
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("unpack", |b| {
        let dir = tmp.path().join("work");
        b.iter_batched(
            || {
                set_aside(&dir);
                sync();
            },
            |()| unpack_to(&dir),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("repack", |b| {
        let dir = tmp.path().join("work");
        set_aside(&dir);
        unpack_to(&dir);
        let out = tmp.path().join("repacked.vdf");
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(&out);
                sync();
            },
            |()| folder::repack(&dir, &out, false, animkit::registry::formats(), &|| {}).unwrap(),
            BatchSize::PerIteration,
        );
        assert!(same_files(&archive, &out));
    });
    g.bench_function("compare", |b| {
        let out = tmp.path().join("repacked.vdf");
        b.iter(|| assert!(same_files(&archive, &out)))
    });
    g.bench_function("unpack_repack_compare", |b| {
        let dir = tmp.path().join("work");
        let out = tmp.path().join("repacked.vdf");
        b.iter_batched(
            || {
                set_aside(&dir);
                let _ = std::fs::remove_file(&out);
                sync();
            },
            |()| {
                unpack_to(&dir);
                folder::repack(&dir, &out, true, animkit::registry::formats(), &|| {}).unwrap();
                assert!(same_files(&archive, &out));
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    let _ = std::fs::remove_dir_all(tmp.path().join("trash"));

    // YAML export and re-import of every animation, at a smaller scale.
    let small = tmp.path().join("Small.vdf");
    let small_len = generate(&small, 100);
    let mut g = c.benchmark_group("vdf_yaml");
    g.sample_size(10);
    g.throughput(criterion::Throughput::Bytes(small_len));
    g.bench_function("unpack_repack_yaml_100", |b| {
        let dir = tmp.path().join("work_yaml");
        let out = tmp.path().join("small_repacked.vdf");
        b.iter(|| {
            let _ = std::fs::remove_dir_all(&dir);
            unpack(&small, &dir, true);
            folder::repack(&dir, &out, true, animkit::registry::formats(), &|| {}).unwrap();
            assert!(same_files(&small, &out));
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
