//! `animkit asc …`: the 3ds Max ASCII (.ASC) pipeline. `asc import`: one animation ASC → MAN,
//! the way the engine compiles an MDS `ani` (see `compile --asc` for a whole model).

use super::Status;
use crate::codec::Codec;
use crate::exact::Error;
use crate::zengin::asc::to_man::{compile, parse_ani, skeleton_names, AniInput, Rounding};
use crate::zengin::asc::Asc;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Compile one animation ASC into a MAN (the engine's ASC → MAN for one `ani`).
    Import(ImportArgs),
    /// Write ASC files from MANs and an MDH (GothicSourcer's decompiler), or a skeleton.
    Export(super::asc_export::Args),
}

/// `asc` subcommands.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// How sample values become MAN codes.
#[derive(Clone, Copy, clap::ValueEnum, Default)]
pub enum RoundingArg {
    /// The engine's truncation: what the game's own compiler writes (fresh ASCs).
    #[default]
    Engine,
    /// Round to nearest: gives back a vanilla MAN from GothicSourcer's ASC of it.
    Nearest,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The animation ASC.
    asc: PathBuf,
    /// The model's hierarchy (its node names, order and checksum); without it the skeleton
    /// is the ASC's own Bip01…/ZS_… objects.
    #[arg(long)]
    mdh: Option<PathBuf>,
    /// The MDS `ani` statement, e.g. `ani ("S_RUN" 1 "S_RUN" 0.1 0.1 M. "HUM_RUN.ASC" F 1 50)`.
    #[arg(long)]
    ani: String,
    /// Rounding of the codes.
    #[arg(long, value_enum, default_value_t = RoundingArg::Engine)]
    rounding: RoundingArg,
    /// Output MAN (default: ANINAME.MAN beside the ASC).
    #[command(flatten)]
    out: super::OutputArgs,
}

pub fn run(args: Args) -> Result<Status, Error> {
    match args.command {
        Command::Import(a) => import(a),
        Command::Export(a) => super::asc_export::run(a),
    }
}

pub(super) fn rounding(r: RoundingArg) -> Rounding {
    match r {
        RoundingArg::Engine => Rounding::Engine,
        RoundingArg::Nearest => Rounding::Nearest,
    }
}

/// The hierarchy's node names and checksum, from `mdh` or else from the ASC itself.
pub(super) fn skeleton(mdh: Option<&Path>, asc: &Asc) -> Result<(Vec<Vec<u8>>, u32), Error> {
    match mdh {
        Some(path) => {
            let data = crate::fsio::read_file(path)?;
            let m = crate::zengin::mdh::Mdh::decode(&data).map_err(|e| Error::Decode {
                file: path.into(),
                source: e,
            })?;
            let h = m
                .hierarchy()
                .ok_or_else(|| Error::other(path, "the MDH holds no hierarchy chunk"))?;
            Ok((
                h.nodes.iter().map(|n| n.name.as_bytes().to_vec()).collect(),
                h.checksum.0,
            ))
        }
        None => {
            let names = skeleton_names(&asc.model);
            let sum = crate::zengin::node_list_checksum(names.iter().map(|n| n.as_slice()));
            Ok((names, sum))
        }
    }
}

fn import(a: ImportArgs) -> Result<Status, Error> {
    let data = crate::fsio::read_file(&a.asc)?;
    let asc = Asc::parse(&data).map_err(|e| Error::Decode {
        file: a.asc.clone(),
        source: e.into(),
    })?;
    let ani = parse_ani(&a.ani).map_err(|m| Error::other("--ani", m))?;
    let (nodes, checksum) = skeleton(a.mdh.as_deref(), &asc)?;
    let file_name = a
        .asc
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let input = AniInput {
        ani: &ani,
        line: &a.ani,
        asc_path: &file_name,
        nodes: &nodes,
        checksum,
        rounding: rounding(a.rounding),
        position_range: None,
    };
    let (man, notes) = compile(&asc.model, &input).map_err(|m| Error::other(&a.asc, m))?;
    for n in notes {
        eprintln!("warning: {}: {}", a.asc.display(), n.0);
    }
    let mut out = Vec::new();
    man.encode(&mut out).map_err(Error::encoding(&a.asc))?;
    let target = a.out.output.clone().unwrap_or_else(|| {
        a.asc.with_file_name(format!(
            "{}.MAN",
            String::from_utf8_lossy(ani.name.as_bytes()).to_ascii_uppercase()
        ))
    });
    crate::fsio::write_file(&target, &out, a.out.force)?;
    println!("{}: {} bytes", target.display(), out.len());
    Ok(Status::Ok)
}

/// `compile MODEL.MDS --asc DIR`: MSB (already compiled: `msb`), MDH and one MAN per `ani`.
pub(super) fn compile_model(
    args: &super::compile::Args,
    dir: &Path,
    mds: &crate::zengin::mds::Mds,
    msb: Vec<u8>,
) -> Result<Status, Error> {
    use crate::zengin::asc::model_compile::{ani_jobs, man_for, mdh_from_asc};
    use rayon::prelude::*;
    use std::collections::HashMap;
    // Every ASC under DIR by upper-case file name (the first found wins, in sorted order).
    let mut found: HashMap<String, PathBuf> = HashMap::new();
    let mut all: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("asc")))
        .collect();
    all.sort();
    for p in all {
        if let Some(n) = p.file_name() {
            found
                .entry(n.to_string_lossy().to_ascii_uppercase())
                .or_insert(p);
        }
    }
    let model_name = args
        .input
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_uppercase())
        .unwrap_or_default();
    let out_dir = args.output.clone().unwrap_or_else(|| {
        args.input
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    });
    let read_asc = |path: &Path| -> Result<Asc, Error> {
        let data = crate::fsio::read_file(path)?;
        Asc::parse(&data).map_err(|e| Error::Decode {
            file: path.into(),
            source: e.into(),
        })
    };
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![(out_dir.join(format!("{model_name}.MSB")), msb)];
    // The skeleton: --mdh, else the meshAndTree ASC (written as MODEL.MDH).
    let mesh_and_tree = mds.script.items.iter().find_map(|i| match i {
        crate::zengin::mds::ModelItem::MeshAndTree(m) => Some(m.asc.to_string()),
        _ => None,
    });
    let (nodes, checksum) = match &args.mdh {
        Some(p) => {
            let dummy = Asc::parse(b"*3DSMAX_ASCIIEXPORT\t110\n")
                .map_err(|e| Error::other(p, e.to_string()))?;
            skeleton(Some(p), &dummy)?
        }
        None => {
            let Some(name) = mesh_and_tree else {
                return Err(Error::other(
                    &args.input,
                    "the script has no meshAndTree: pass the model's hierarchy with --mdh",
                ));
            };
            let Some(path) = found.get(&name.to_ascii_uppercase()) else {
                return Err(Error::other(
                    &args.input,
                    format!(
                        "the meshAndTree ASC `{name}` is not under {}: pass --mdh or add it",
                        dir.display()
                    ),
                ));
            };
            let asc = read_asc(path)?;
            let mdh = mdh_from_asc(&asc.model, &name.to_ascii_uppercase())
                .map_err(|m| Error::other(path, m))?;
            let mut bytes = Vec::new();
            mdh.encode(&mut bytes).map_err(Error::encoding(path))?;
            files.push((out_dir.join(format!("{model_name}.MDH")), bytes));
            let h = mdh.hierarchy().expect("built with one");
            (
                h.nodes.iter().map(|n| n.name.as_bytes().to_vec()).collect(),
                h.checksum.0,
            )
        }
    };
    let jobs = ani_jobs(mds);
    let rounding = rounding(args.rounding);
    // One ani per task on all cores; each reads its own ASC (memory: one ASC per core).
    #[allow(clippy::type_complexity)]
    let results: Vec<Result<Option<(PathBuf, Vec<u8>, Vec<String>)>, Error>> = jobs
        .par_iter()
        .map(|job| {
            let asc_name = job.ani.asc.to_string();
            let Some(path) = found.get(&asc_name.to_ascii_uppercase()) else {
                return Ok(None);
            };
            let asc = read_asc(path)?;
            let (name, man, notes) = man_for(
                &model_name,
                job,
                &asc.model,
                &asc_name.to_ascii_uppercase(),
                &nodes,
                checksum,
                rounding,
            )
            .map_err(|m| Error::other(path, format!("ani `{}`: {m}", job.ani.name)))?;
            let mut bytes = Vec::new();
            man.encode(&mut bytes).map_err(Error::encoding(path))?;
            Ok(Some((out_dir.join(name), bytes, notes)))
        })
        .collect();
    let mut missing = 0;
    let mut failed = 0;
    for (job, r) in jobs.iter().zip(results) {
        match r {
            Ok(Some((path, bytes, notes))) => {
                for n in notes {
                    eprintln!("warning: {}: {n}", path.display());
                }
                files.push((path, bytes));
            }
            Ok(None) => {
                missing += 1;
                eprintln!(
                    "warning: {}: ani `{}`: its ASC `{}` is not under {}: no MAN written",
                    args.input.display(),
                    job.ani.name,
                    job.ani.asc,
                    dir.display()
                );
            }
            Err(e) => {
                failed += 1;
                super::report(&e);
            }
        }
    }
    std::fs::create_dir_all(&out_dir).map_err(|e| Error::io(&out_dir, e))?;
    crate::fsio::write_files(&files, args.force)?;
    println!(
        "{}: {} files written ({} MAN), {} ani without ASC, {} failed",
        out_dir.display(),
        files.len(),
        files.len() - 1 - usize::from(args.mdh.is_none()),
        missing,
        failed
    );
    Ok(if failed == 0 {
        Status::Ok
    } else {
        Status::Failed
    })
}
