//! glTF export and import of a generated 100-node × 11,700-frame animation (a 14 MB MAN),
//! beside YAML export of the same MAN (the yardstick: `gltf export` must be at least as fast).
//!
//!     cargo bench --bench gltf
//!
//! With `GLTF_BENCH_FILES=DIR` the inputs are also written to DIR (`BENCH.MAN`, `NODES.MDH`)
//! for side-by-side runs of the commands (`animkit export` vs `animkit gltf export`).

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::exact::{Text, Writer};
use animkit::registry::{Codec, ExportOptions};
use animkit::zengin::chunk::put_chunk;
use animkit::zengin::gltf::{self, export::Animation, Container, Document, Skeleton};
use animkit::zengin::man::synth::{synthesize_bytes, Synth};
use animkit::zengin::man::Man;
use animkit::zengin::mdh::Mdh;
use animkit::zengin::types::put_line;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// The hierarchy man::synth's animations are made for: nodes `BIP01 NODE{n}`, a chain.
fn mdh_bytes(nodes: usize) -> Vec<u8> {
    let names: Vec<String> = (0..nodes).map(|n| format!("BIP01 NODE{n}")).collect();
    let mut out = Vec::new();
    put_chunk(&mut out, 0xD100, |o| {
        o.put_u32(3);
        o.put_u16(nodes as u16);
        for (i, n) in names.iter().enumerate() {
            put_line(o, &Text::from(n.as_str()))?;
            o.put_i16(i as i16 - 1);
            let m = glam::Mat4::from_rotation_translation(
                glam::Quat::from_rotation_z(0.1 * i as f32),
                glam::Vec3::new(0.0, 5.0, 0.0),
            );
            for v in m.transpose().to_cols_array() {
                o.put_u32(v.to_bits());
            }
        }
        for _ in 0..15 {
            o.put_u32(0);
        }
        o.put_u32(animkit::zengin::node_list_checksum(
            names.iter().map(|n| n.as_bytes()),
        ));
        Ok(())
    })
    .expect("generated MDH encodes");
    out
}

fn bench(c: &mut Criterion) {
    let bytes = synthesize_bytes(&Synth::new("S_BENCH", 100, 11_700));
    let man = Man::read(&bytes).expect("generated MAN parses");
    let mdh = mdh_bytes(100);
    if let Some(dir) = std::env::var_os("GLTF_BENCH_FILES") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::write(dir.join("BENCH.MAN"), &bytes).expect("writes");
        std::fs::write(dir.join("NODES.MDH"), &mdh).expect("writes");
    }
    let sk = Skeleton::from_mdh(&Mdh::read(&mdh).expect("parses")).expect("skeleton");
    let anims = [Animation {
        label: "bench".into(),
        man: &man,
    }];
    let (glb, _) = gltf::export(&sk, &anims, Container::Glb).expect("exports");
    eprintln!(
        "input: {} bytes of MAN; {} bytes of GLB",
        bytes.len(),
        glb.len()
    );

    let mut g = c.benchmark_group("gltf");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    g.bench_function("yaml_export (yardstick)", |b| {
        b.iter(|| man.to_yaml(&ExportOptions::default()).map(|y| y.len()))
    });
    g.bench_function("gltf_export_glb", |b| {
        b.iter(|| gltf::export(&sk, black_box(&anims), Container::Glb).map(|(v, _)| v.len()))
    });
    g.bench_function("gltf_export_gltf", |b| {
        b.iter(|| gltf::export(&sk, black_box(&anims), Container::Gltf).map(|(v, _)| v.len()))
    });
    g.bench_function("gltf_import", |b| {
        b.iter(|| {
            let doc = Document::read(black_box(&glb), None).expect("reads");
            gltf::import_animation(&doc, 0, &sk, &man, &Default::default())
                .map(|(m, _)| m.chunks.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
