//! glTF export and import of a generated 100-node × 11,700-frame animation (a 14 MB MAN),
//! beside YAML export of the same MAN (the yardstick: `gltf export` must be at least as fast).
//!
//!     cargo bench --bench gltf
//!
//! `gltf_character`: a whole real model with its mesh, from the corpus files to the GLB.
//!
//! With `GLTF_BENCH_FILES=DIR` the inputs are also written to DIR (`BENCH.MAN`, `NODES.MDH`)
//! for side-by-side runs of the commands (`animkit export` vs `animkit gltf export`).

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::registry::{Codec, ExportOptions};
use animkit::zengin::gltf::{self, export::Animation, Container, Document, Skeleton};
use animkit::zengin::man::synth::{synthesize_bytes, Synth};
use animkit::zengin::man::Man;
use animkit::zengin::mdh::Mdh;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let bytes = synthesize_bytes(&Synth::new("S_BENCH", 100, 11_700));
    let man = Man::read(&bytes).expect("generated MAN parses");
    let mdh = animkit::zengin::man::synth::chain_mdh(100);
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

/// A whole real character from the shared corpus (PiotrDrozdz96/Gothic's swamp rat: MDH, body
/// MDM and its 71 MANs), from the files' bytes to the GLB: decode everything, export with the
/// mesh. The README's "export of a whole real model in under 1 s".
fn character(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/realworld/{}/PiotrDrozdz96+Gothic/Anims/_compiled");
    let at = |kind: &str| std::path::PathBuf::from(dir.to_string_lossy().replace("{}", kind));
    let (Ok(mdh), Ok(mdm), Ok(listing)) = (
        std::fs::read(at("mdh").join("SWAMPRAT.MDH")),
        std::fs::read(at("mesh").join("SWAMPRAT_BODY.MDM")),
        std::fs::read_dir(at("man")),
    ) else {
        eprintln!("gltf_character skipped: the shared corpus is not there");
        return;
    };
    let mut mans: Vec<Vec<u8>> = Vec::new();
    for e in listing.flatten() {
        let name = e.file_name().to_string_lossy().to_ascii_uppercase();
        if name.starts_with("SWAMPRAT-") && name.ends_with(".MAN") {
            mans.push(std::fs::read(e.path()).expect("reads"));
        }
    }
    assert_eq!(mans.len(), 71);
    let total: usize = mdh.len() + mdm.len() + mans.iter().map(Vec::len).sum::<usize>();
    let run = || {
        let sk = Skeleton::from_mdh(&Mdh::read(&mdh).expect("parses")).expect("skeleton");
        let body = animkit::zengin::mdm::Mdm::decode(&mdm).expect("parses");
        let decoded: Vec<Man> = mans.iter().map(|m| Man::read(m).expect("parses")).collect();
        let anims: Vec<Animation<'_>> = decoded
            .iter()
            .map(|man| Animation {
                label: "man".into(),
                man,
            })
            .collect();
        let skin = &body.mesh.softskins[0];
        let ch = gltf::mesh::Character {
            parts: vec![gltf::mesh::Part {
                name: "SWAMPRAT_BODY".into(),
                mesh: &skin.mesh,
                bind: gltf::mesh::Bind::Skin(skin),
            }],
            textures: Default::default(),
        };
        gltf::export_with(&sk, &anims, Some(&ch), Container::Glb)
            .expect("exports")
            .0
            .len()
    };
    eprintln!("character: {total} bytes of input, {} bytes of GLB", run());
    let mut g = c.benchmark_group("gltf_character");
    g.throughput(Throughput::Bytes(total as u64));
    g.sample_size(10);
    g.bench_function("swamprat_mesh_and_71_anims", |b| b.iter(run));
    g.finish();
}

criterion_group!(benches, bench, character);
criterion_main!(benches);
