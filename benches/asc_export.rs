//! `asc export` against YAML export of the same animations, per sample (node-frame): the 71
//! Swamprat MANs of the corpus with their MDH (`../shared/corpus/realworld`), each written as
//! an ASC (MAN → world samples → GothicSourcer text, spellings checked against the codes) and
//! as animkit YAML with node names. Skipped with a notice without the corpus.
//!
//! `asc` and `yaml`: one MAN after another on one core; `asc_all_cores` and `yaml_all_cores`:
//! the MANs spread over all cores (rayon), as `asc export --model` spreads its ASCs.
//!
//! Times are the process's CPU time (user + system of all its threads, `CLOCK_PROCESS_CPUTIME_ID`;
//! wall time on systems without it), so the figures hold on a loaded machine and the all-cores
//! rows give the CPU time per sample summed over the cores, like for like with one core.
//!
//!     cargo bench --bench asc_export

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::zengin::asc::from_man::{ani_line, animation_text, Part, Rig};
use animkit::zengin::asc::Eol;
use animkit::zengin::man::Man;
use animkit::zengin::mdh::Mdh;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;
use std::path::PathBuf;

/// The process's CPU time (all threads, user + system).
struct CpuTime;

#[cfg(unix)]
fn cpu_now() -> std::time::Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant the C library knows.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(r, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(not(unix))]
fn cpu_now() -> std::time::Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = std::time::Duration;
    type Value = std::time::Duration;
    fn start(&self) -> Self::Intermediate {
        cpu_now()
    }
    fn end(&self, i: Self::Intermediate) -> Self::Value {
        cpu_now().saturating_sub(i)
    }
    fn add(&self, a: &Self::Value, b: &Self::Value) -> Self::Value {
        *a + *b
    }
    fn zero(&self) -> Self::Value {
        std::time::Duration::ZERO
    }
    fn to_f64(&self, v: &Self::Value) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

fn bench(c: &mut Criterion<CpuTime>) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/realworld/")
        .canonicalize();
    let Ok(root) = root else {
        eprintln!("NOTICE: the corpus is missing: the asc_export bench is skipped");
        return;
    };
    let mdh = Mdh::read(
        &std::fs::read(root.join("mdh/PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT.MDH")).unwrap(),
    )
    .unwrap();
    let sum = mdh.hierarchy().unwrap().checksum.0;
    let names = mdh.node_names();
    let mut mans = Vec::new();
    for e in std::fs::read_dir(root.join("man/PiotrDrozdz96+Gothic/Anims/_compiled")).unwrap() {
        let Ok(man) = Man::read(&std::fs::read(e.unwrap().path()).unwrap()) else {
            continue;
        };
        if man.samples().is_some_and(|s| s.checksum.0 == sum) {
            mans.push(man);
        }
    }
    let samples: usize = mans
        .iter()
        .map(|m| m.samples().map_or(0, |s| s.codes.len()))
        .sum();
    eprintln!("{} MANs, {samples} samples", mans.len());
    let mut g = c.benchmark_group("asc_export");
    g.throughput(Throughput::Elements(samples as u64));
    g.sample_size(10);
    g.bench_function("asc", |b| {
        b.iter(|| {
            let rig = Rig::from_mdh(&mdh).unwrap();
            let mut n = 0;
            for m in &mans {
                let start =
                    ani_line(m.source().unwrap().script.as_bytes()).map_or(1, |l| l.first_frame);
                let part = Part {
                    label: String::new(),
                    man: m,
                    start,
                    end: None,
                };
                n += animation_text(&rig, "X.ASC", &[part], Eol::Lf)
                    .unwrap()
                    .0
                    .len();
            }
            n
        })
    });
    let rig = Rig::from_mdh(&mdh).unwrap();
    let asc_one = |m: &Man| -> usize {
        let start = ani_line(m.source().unwrap().script.as_bytes()).map_or(1, |l| l.first_frame);
        let part = Part {
            label: String::new(),
            man: m,
            start,
            end: None,
        };
        animation_text(&rig, "X.ASC", &[part], Eol::Lf)
            .unwrap()
            .0
            .len()
    };
    let yaml_one = |m: &Man| -> usize {
        animkit::zengin::man::yaml::to_yaml_with(m, Some(&names))
            .unwrap()
            .len()
    };
    g.bench_function("asc_all_cores", |b| {
        b.iter(|| mans.par_iter().map(asc_one).sum::<usize>())
    });
    g.bench_function("yaml_all_cores", |b| {
        b.iter(|| mans.par_iter().map(yaml_one).sum::<usize>())
    });
    g.bench_function("yaml", |b| {
        b.iter(|| {
            let mut n = 0;
            for m in &mans {
                n += animkit::zengin::man::yaml::to_yaml_with(m, Some(&names))
                    .unwrap()
                    .len();
            }
            n
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench
}
criterion_main!(benches);
