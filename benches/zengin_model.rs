//! Parse/write speed of a generated MSB with 2,000 animations (and its decompiled MDS text),
//! and of a 300-node MDH. Throughput is reported in bytes of the file.

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::exact::{Blob, Hex32, F32};
use animkit::zengin::mdh::{Chunk as MdhChunk, End, Hierarchy, Mdh, Node, Source as MdhSource};
use animkit::zengin::mds;
use animkit::zengin::mds::compile::decompile;
use animkit::zengin::msb::*;
use animkit::zengin::stext::ShortText;
use animkit::zengin::types::{BBox, Mat4, ZDate};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn st(s: String) -> ShortText {
    ShortText::new(s)
}

fn generated_msb(anis: usize) -> Msb {
    let nb = Blob::default;
    let mut e = vec![
        Entry::Root(Root {
            version: 1,
            directory: ShortText::from(r"\_WORK\DATA\ANIMS\"),
            trailing: nb(),
        }),
        Entry::Source(Source {
            date: ZDate::default(),
            path: ShortText::from(r"\_WORK\DATA\ANIMS\HUMANS.MDS"),
            trailing: nb(),
        }),
        Entry::Model(Marker::default()),
        Entry::MeshAndTree(MeshAndTree {
            dont_use_mesh: Bool32(0),
            mesh: ShortText::from("HUM_BODY_NAKED0"),
            trailing: nb(),
        }),
        Entry::AniEnum(Marker::default()),
    ];
    for i in 0..anis {
        let events = (i % 3 == 0).then(|| {
            vec![
                Event::Tag(Tag {
                    frame: 3,
                    tag: ShortText::from("DEF_HIT_LIMB"),
                    args: ["ZS_RIGHTHAND", "", "", ""].into(),
                    trailing: nb(),
                }),
                Event::SfxGrnd(Sfx {
                    frame: 5,
                    name: ShortText::from("RUN"),
                    range: F32::new(1000.0),
                    empty_slot_flag: F32::new(1.0),
                    trailing: nb(),
                }),
            ]
        });
        e.push(match i % 4 {
            3 => Entry::AniAlias(AniAlias {
                name: st(format!("S_RUNL_ALIAS{i}")),
                layer: 1,
                next: st(format!("S_RUNL{i}")),
                blend_in: F32::new(0.1),
                blend_out: F32::new(0.1),
                flags: ShortText::from("M."),
                alias_of: st(format!("S_RUNL{}", i - 1)),
                direction: ShortText::from("F"),
                trailing: nb(),
                events,
            }),
            _ => Entry::Ani(Ani {
                name: st(format!("S_RUNL{i}")),
                layer: 1,
                next: st(format!("S_RUNL{i}")),
                blend_in: F32::new(0.1),
                blend_out: F32::new(0.1),
                flags: ShortText::from("M."),
                asc: st(format!("HUM_RUNLOOP_M{i:04}.ASC")),
                direction: ShortText::from("F"),
                first_frame: 1,
                last_frame: 24,
                fps: F32::new(25.0),
                speed: F32::new(0.0),
                collision_volume_scale: F32::new(1.0),
                trailing: nb(),
                events,
            }),
        });
    }
    e.push(Entry::AniEnumEnd(Marker::default()));
    e.push(Entry::ModelEnd(Marker::default()));
    e.push(Entry::End(Marker::default()));
    Msb { entries: e }
}

fn generated_mdh(nodes: usize) -> Mdh {
    let m = Mat4([[F32::new(1.0), F32::new(0.0), F32::new(0.0), F32::new(2.5)]; 4]);
    Mdh {
        chunks: vec![
            MdhChunk::Hierarchy(Hierarchy {
                version: 3,
                nodes: (0..nodes)
                    .map(|i| Node {
                        name: st(format!("BIP01 NODE {i}")),
                        parent: i as i16 - 1,
                        transform: m,
                    })
                    .collect(),
                bbox: BBox::default(),
                collision_bbox: BBox::default(),
                root_translation: [F32::new(0.0); 3],
                checksum: Hex32(0),
                trailing: Blob::default(),
            }),
            MdhChunk::Source(MdhSource {
                date: ZDate::default(),
                path: animkit::zengin::stext::ShortText::from(r"\_WORK\DATA\ANIMS\HUMANS.ASC"),
                trailing: Blob::default(),
            }),
            MdhChunk::End(End::default()),
        ],
    }
}

fn bench(c: &mut Criterion) {
    let msb = generated_msb(2000);
    let mut msb_bytes = Vec::new();
    msb.write(&mut msb_bytes).unwrap();
    let mut g = c.benchmark_group("msb_2000_anis");
    g.throughput(Throughput::Bytes(msb_bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter_with_large_drop(|| Msb::read(black_box(&msb_bytes)).unwrap())
    });
    // The same parse with the model dropped inside the loop, as in a batch run where the
    // allocator reuses memory (above, every batch's models stay alive, so each iteration also
    // pays for the kernel handing out and zeroing fresh pages).
    g.bench_function("parse_and_drop", |b| {
        b.iter(|| Msb::read(black_box(&msb_bytes)).map(|m| m.entries.len()))
    });
    g.bench_function("write", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(msb_bytes.len());
            msb.write(&mut out).unwrap();
            out
        })
    });
    g.finish();

    let text = decompile(&msb).text;
    let mut g = c.benchmark_group("mds_2000_anis");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse", |b| {
        b.iter_with_large_drop(|| mds::parse(black_box(&text)).unwrap())
    });
    let parsed = mds::parse(&text).unwrap();
    g.bench_function("print", |b| b.iter(|| parsed.print()));
    g.finish();

    let mdh = generated_mdh(300);
    let mut mdh_bytes = Vec::new();
    mdh.write(&mut mdh_bytes).unwrap();
    let mut g = c.benchmark_group("mdh_300_nodes");
    g.throughput(Throughput::Bytes(mdh_bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter_with_large_drop(|| Mdh::read(black_box(&mdh_bytes)).unwrap())
    });
    g.bench_function("write", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(mdh_bytes.len());
            mdh.write(&mut out).unwrap();
            out
        })
    });
    g.finish();

    // The real 718-byte skeleton the ZenKit comparison uses (benches/peers/compare), when the
    // shared corpus is there: at this size per-parse fixed costs dominate.
    let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/zengin/hierarchy0.mdh");
    match std::fs::read(&real) {
        Ok(bytes) => {
            let mut g = c.benchmark_group("mdh_real_hierarchy0");
            g.throughput(Throughput::Bytes(bytes.len() as u64));
            g.bench_function("parse", |b| {
                b.iter_with_large_drop(|| Mdh::read(black_box(&bytes)).unwrap())
            });
            g.finish();
        }
        Err(e) => eprintln!("mdh_real_hierarchy0 skipped: {}: {e}", real.display()),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
