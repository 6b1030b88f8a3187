//! animkit's side of the side-by-side comparison with ZenKit (`benches/peers/compare`): the
//! same method as ZenKit's timing driver `zkbench` (see `benches/peers/README.md`), so both
//! figures mean the same thing.
//!
//!     peer-bench KIND FILE [N=10] [REPS=7]
//!
//! Reads FILE once, parses it once (warm-up and failure check), then REPS rounds of N parses
//! from memory; prints the median, minimum and maximum seconds per parse over the rounds and
//! the median's MB/s (1 MB = 1e6 bytes of FILE). REPS=0: the one load only.
//!
//! KIND (each the step a user's command pays, as ZenKit's `load` does for its kinds):
//! * `man`: parse + decode every sample to a quaternion and a position (ZenKit decodes all
//!   samples while loading).
//! * `mdh`, `msb`: parse.
//! * `mds`: parse the text (token tree and structured script).
//! * `vdf`: open an archive from memory (header, catalog, tree) and list every entry with its
//!   path; `vdfpath`: the same after mapping the file (ZenKit's `mount_disk(path)` maps it too).
//! * `vdfsave`: write a new archive of the members of FILE (read once into memory) into a
//!   reused in-memory buffer (ZenKit: `Vfs::save` of the archive mounted once).
//! * `manyaml`: YAML export of a MAN parsed once (no peer kind: animkit's export cost per
//!   sample, small against large animations).
//! * `mw3yaml`: MechWarrior 3 YAML document → model → anim.zbd bytes (no peer kind: the
//!   in-process part of `animkit import`).

// The same allocator as the animkit binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use animkit::mw3::Anim;
use animkit::registry::{Codec, ImportOptions};
use animkit::zengin::man::Man;
use animkit::zengin::mdh::Mdh;
use animkit::zengin::mds;
use animkit::zengin::msb::Msb;
use animkit::zengin::vdf::folder::{self as folder, PackFile, PackOptions, Source};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// What one parse needs besides the file's bytes (set up once, outside the timing).
enum Prepared {
    None,
    /// `vdfsave`: the members to write and the header values.
    Pack(Vec<PackFile>, PackOptions, Vec<u8>),
    /// `mw3yaml`: the file as text.
    Text(String),
    /// `manyaml`: the parsed animation.
    Man(Box<Man>),
}

fn prepare(kind: &str, path: &Path, buf: &[u8]) -> Res<Prepared> {
    Ok(match kind {
        "vdfsave" => {
            let v = folder::open(path, buf)?;
            let tree = folder::tree(path, &v)?;
            let placement = v.placement();
            let mut files = Vec::new();
            for item in folder::list(&v, &tree) {
                if item.directory {
                    continue;
                }
                let Some(p) = item.path else {
                    return Err(format!("entry {} has no path", item.index).into());
                };
                let data = folder::member_contents(&v, buf, &placement, item.index)?;
                files.push(PackFile {
                    path: p.split('/').map(|c| c.as_bytes().to_vec()).collect(),
                    source: Source::Memory(data.into_owned()),
                });
            }
            let opts = PackOptions {
                signature: v.header.signature,
                comment: animkit::zengin::vdf::trim_pad(
                    &v.header.comment,
                    animkit::zengin::vdf::COMMENT_PAD,
                )
                .to_vec(),
                timestamp: v.header.timestamp,
                zipped: false,
            };
            Prepared::Pack(files, opts, Vec::with_capacity(buf.len()))
        }
        "mw3yaml" => Prepared::Text(String::from_utf8(buf.to_vec())?),
        "manyaml" => Prepared::Man(Box::new(Man::read(buf)?)),
        _ => Prepared::None,
    })
}

/// One parse (or write) of `buf`; returns a number made from the result so nothing is skipped.
fn once(kind: &str, path: &Path, buf: &[u8], prep: &mut Prepared) -> Res<f64> {
    Ok(match (kind, prep) {
        ("man", _) => {
            let m = Man::read(black_box(buf))?;
            let samples = m.decode_samples();
            let mut acc = samples.iter().map(|(q, p)| q.w + p.x).sum::<f32>() as f64;
            acc += m.events().len() as f64;
            acc += m.header().map_or(0.0, |h| h.fps.get() as f64);
            acc
        }
        ("mdh", _) => {
            let h = Mdh::read(black_box(buf))?;
            h.hierarchy().map_or(0, |h| h.nodes.len()) as f64
        }
        ("msb", _) => Msb::read(black_box(buf))?.entries.len() as f64,
        ("mds", _) => {
            let m = mds::parse(black_box(buf))?;
            (m.tokens.len() + m.script.items.len()) as f64
        }
        ("vdf", _) => {
            let v = folder::open(path, black_box(buf))?;
            let tree = folder::tree(path, &v)?;
            let l = folder::list(&v, &tree);
            (l.len()
                + l.iter()
                    .map(|i| i.path.as_ref().map_or(0, String::len))
                    .sum::<usize>()) as f64
        }
        ("vdfpath", _) => {
            let map = animkit::fsio::map_file(path)?;
            let v = folder::open(path, &map)?;
            let tree = folder::tree(path, &v)?;
            let l = folder::list(&v, &tree);
            (l.len()
                + l.iter()
                    .map(|i| i.path.as_ref().map_or(0, String::len))
                    .sum::<usize>()) as f64
        }
        ("vdfsave", Prepared::Pack(files, opts, out)) => {
            out.clear();
            let n = folder::pack_to_vec(out, files, opts, &|| {})?;
            n as f64 + out.get(out.len() / 2).copied().unwrap_or(0) as f64
        }
        ("manyaml", Prepared::Man(m)) => {
            let y = m.to_yaml(&animkit::registry::ExportOptions::default())?;
            y.len() as f64
        }
        ("mw3yaml", Prepared::Text(text)) => {
            let a = <Anim as Codec>::from_yaml(black_box(text), &ImportOptions::default())?;
            let mut out = Vec::with_capacity(buf.len() / 2);
            a.write(&mut out, None)?;
            out.len() as f64
        }
        _ => return Err(format!("unknown kind {kind}").into()),
    })
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err(
            "usage: peer-bench man|mdh|mds|msb|vdf|vdfpath|vdfsave|manyaml|mw3yaml FILE [N] [REPS]"
                .into(),
        );
    }
    let (kind, path) = (args[1].as_str(), Path::new(&args[2]));
    let number = |i: usize, default: u32| -> Res<u32> {
        args.get(i)
            .map_or(Ok(default), |a| a.parse())
            .map_err(|e| format!("argument {i} ({}): {e}", args[i]).into())
    };
    let (n, reps) = (number(3, 10)?.max(1), number(4, 7)?);

    // vdfpath maps the file in every parse: read nothing here (size only, for MB/s)
    let buf = if kind == "vdfpath" {
        Vec::new()
    } else {
        std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?
    };
    let size = std::fs::metadata(path)?.len();
    let mut prep = prepare(kind, path, &buf)?;
    let mut sink = match once(kind, path, &buf, &mut prep) {
        Ok(v) => v,
        Err(e) => {
            println!("FAIL {kind} {}: {e}", path.display());
            std::process::exit(1);
        }
    };
    if reps == 0 {
        println!(
            "animkit {kind} {} bytes={size} single load ok sink={sink}",
            path.display()
        );
        return Ok(());
    }
    let mut per = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        let t = Instant::now();
        let mut acc = 0.0;
        for _ in 0..n {
            acc += once(kind, path, &buf, &mut prep)?;
        }
        per.push(t.elapsed().as_secs_f64() / n as f64);
        sink += black_box(acc);
    }
    per.sort_by(f64::total_cmp);
    let med = per[per.len() / 2];
    println!(
        "animkit {kind} {} bytes={size} n={n} reps={reps} median_s={med:.6e} min_s={:.6e} max_s={:.6e} MBps={:.1} sink={sink}",
        path.display(),
        per[0],
        per[per.len() - 1],
        size as f64 / med / 1e6
    );
    Ok(())
}
