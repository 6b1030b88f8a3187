//! `animkit compile IN.MDS [-o OUT.MSB]`: the MSB the engine would write for a model script.

use super::Status;
use crate::codec::Codec;
use crate::exact::Error;
use crate::zengin::asc::to_man::{skeleton_names, Rounding};
use crate::zengin::asc::Model;
use crate::zengin::mds::compile::{compile, CompileOptions};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::types::ZDate;
use std::path::{Path, PathBuf};

/// Compile a text model script (.MDS) to the binary .MSB the engine writes: strings upper case,
/// engine defaults filled in, event kinds and their f32 fields as the engine stores them. Root
/// and source chunks come from an `// animkit-msb:` header (written by `decompile`), else from
/// the file name and its modification time.
#[derive(clap::Args)]
pub struct Args {
    /// The model script.
    pub(super) input: PathBuf,
    /// Where to write the MSB (default: the input with extension .MSB).
    #[arg(short, long)]
    pub(super) output: Option<PathBuf>,
    /// Overwrite OUTPUT if it exists.
    #[arg(long)]
    pub(super) force: bool,
    /// Do not print the parser's warnings.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// Compile the whole model as the engine writes `_compiled/`: with the folder holding the
    /// ASC files (found case-insensitively, also in subfolders), write MODEL.MSB, MODEL.MDH
    /// (from the meshAndTree ASC unless --mdh) and MODEL-ANI.MAN per `ani` into the folder -o
    /// names (default: the script's folder). Uses all cores.
    #[arg(long, value_name = "DIR")]
    pub(super) asc: Option<PathBuf>,
    /// The model's hierarchy to compile the animations against (instead of one made from
    /// the meshAndTree ASC; it is not written).
    #[arg(long, requires = "asc")]
    pub(super) mdh: Option<PathBuf>,
    /// Rounding of the animation codes (with --asc).
    #[arg(long, value_enum, default_value_t = RoundingArg::Engine, requires = "asc")]
    pub(super) rounding: RoundingArg,
}

pub fn run(args: Args) -> Result<Status, Error> {
    // (with --asc, the ASC folder is looked through on another core while the script is read
    // and compiled)
    let (found, script) = match &args.asc {
        Some(dir) => {
            let (found, script) = rayon::join(|| asc_index(dir), || script_and_msb(&args));
            (Some(found), script)
        }
        None => (None, script_and_msb(&args)),
    };
    let (mds, out) = script?;
    if let (Some(dir), Some(found)) = (&args.asc, found) {
        return compile_model(&args, dir, &mds, out, found);
    }
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("MSB"));
    crate::fsio::write_file(&target, &out, args.force)?;
    println!("{}: {} bytes", target.display(), out.len());
    Ok(Status::Ok)
}

/// The script read (its warnings said unless --quiet) and its MSB's bytes.
fn script_and_msb(args: &Args) -> Result<(crate::zengin::mds::Mds, Vec<u8>), Error> {
    let src = crate::fsio::read_file(&args.input)?;
    let mds = crate::zengin::mds::parse(&src).map_err(|e| Error::Decode {
        file: args.input.clone(),
        source: e.into(),
    })?;
    if !args.quiet {
        for w in &mds.warnings {
            crate::convert::warn_at(&args.input, w.line, w.column, &w.message);
        }
    }
    let opts = CompileOptions {
        file_name: args
            .input
            .file_name()
            .and_then(|n| Text::from_unicode(&n.to_string_lossy()).ok()),
        date: std::fs::metadata(&args.input)
            .and_then(|m| m.modified())
            .ok()
            .and_then(ZDate::of_system_time),
    };
    let msb = compile(&mds.script, &src, &opts);
    let mut out = Vec::new();
    msb.write(&mut out).map_err(Error::encoding(&args.input))?;
    Ok((mds, out))
}

/// Every ASC under `dir` by upper-case file name (the first found wins, in sorted order).
fn asc_index(dir: &Path) -> std::collections::HashMap<String, PathBuf> {
    let mut found = std::collections::HashMap::new();
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
    found
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

pub(super) fn rounding(r: RoundingArg) -> Rounding {
    match r {
        RoundingArg::Engine => Rounding::Engine,
        RoundingArg::Nearest => Rounding::Nearest,
    }
}

/// The hierarchy's node names and checksum, from `mdh` or else from the ASC itself.
pub(super) fn skeleton(mdh: Option<&Path>, asc: &Model) -> Result<(Vec<Vec<u8>>, u32), Error> {
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
            let names = skeleton_names(asc);
            let sum = crate::zengin::node_list_checksum(names.iter().map(|n| n.as_slice()));
            Ok((names, sum))
        }
    }
}

/// A compiled MAN, already in its temporary file: its path and notes.
type Written = (PathBuf, Vec<String>);

/// One ani's outcome: its index in the script, and its MAN (`None`: its ASC is missing).
type AniResult = (usize, Result<Option<Written>, Error>);

/// `compile MODEL.MDS --asc DIR`: MSB (already compiled: `msb`), MDH and one MAN per `ani`.
pub(super) fn compile_model(
    args: &Args,
    dir: &Path,
    mds: &crate::zengin::mds::Mds,
    msb: Vec<u8>,
    found: std::collections::HashMap<String, PathBuf>,
) -> Result<Status, Error> {
    use crate::zengin::asc::model_compile::{ani_jobs, man_for, mdh_from_asc};
    use rayon::prelude::*;
    use std::collections::HashMap;
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
    // Only the typed view is read (not the lossless text), from the mapped file: no copy of
    // the ASC in memory, only its model.
    let read_asc = |path: &Path| -> Result<Model, Error> {
        let data = crate::fsio::map_file(path)?;
        Model::parse(&data).map_err(|e| Error::Decode {
            file: path.into(),
            source: e.into(),
        })
    };
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![(out_dir.join(format!("{model_name}.MSB")), msb)];
    // The MDH of a skeleton ASC, queued as MODEL.MDH; its node names and checksum.
    let mdh_of = |asc: &Model,
                  path: &Path,
                  stored: &str,
                  files: &mut Vec<(PathBuf, Vec<u8>)>|
     -> Result<(Vec<Vec<u8>>, u32), Error> {
        let mdh = mdh_from_asc(asc, stored).map_err(|m| Error::other(path, m))?;
        let mut bytes = Vec::new();
        mdh.encode(&mut bytes).map_err(Error::encoding(path))?;
        files.push((out_dir.join(format!("{model_name}.MDH")), bytes));
        let h = mdh.hierarchy().expect("built with one");
        Ok((
            h.nodes.iter().map(|n| n.name.as_bytes().to_vec()).collect(),
            h.checksum.0,
        ))
    };
    // The skeleton: --mdh, else the meshAndTree ASC (written as MODEL.MDH).
    let mesh_and_tree = mds.script.items.iter().find_map(|i| match i {
        crate::zengin::mds::ModelItem::MeshAndTree(m) => Some(m.asc.to_string()),
        _ => None,
    });
    let jobs = ani_jobs(mds);
    // The anis grouped by their ASC (upper case), in script order: each ASC is read and parsed
    // once, one ASC per task on all cores (memory: one parsed ASC per core), and its anis
    // compiled on all cores too.
    let mut by_asc: Vec<(String, Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<String, usize> = HashMap::new();
    for (i, job) in jobs.iter().enumerate() {
        let key = job.ani.asc.to_string().to_ascii_uppercase();
        let g = *group_of.entry(key.clone()).or_insert_with(|| {
            by_asc.push((key, Vec::new()));
            by_asc.len() - 1
        });
        by_asc[g].1.push(i);
    }
    // The largest ASCs first, so that the cores finish together (a large one started last
    // would be left to one core).
    let size = |key: &String| {
        found
            .get(key)
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len())
    };
    let mut order: Vec<(u64, &(String, Vec<usize>))> =
        by_asc.iter().map(|g| (size(&g.0), g)).collect();
    order.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    // ASCs parsed before the compile below (by upper-case name): the one that gave the
    // skeleton, and the largest, parsed on another core meanwhile (the compile's first task,
    // which would otherwise start only after the skeleton).
    let mut parsed: Vec<(String, Result<Model, Error>)> = Vec::new();
    let largest_but = |skeleton: &Path| {
        let key = &order.first()?.1 .0;
        let path = found.get(key).filter(|p| p.as_path() != skeleton)?;
        Some((key.clone(), read_asc(path)))
    };
    let (nodes, checksum) = match &args.mdh {
        Some(p) => skeleton(Some(p), &Model::default())?,
        None => match mesh_and_tree
            .as_ref()
            .and_then(|name| Some((name, found.get(&name.to_ascii_uppercase())?)))
        {
            Some((name, path)) => {
                let (skeleton, largest) = rayon::join(
                    || -> Result<_, Error> {
                        let asc = read_asc(path)?;
                        mdh_of(&asc, path, &name.to_ascii_uppercase(), &mut files)
                    },
                    || largest_but(path),
                );
                parsed.extend(largest);
                skeleton?
            }
            None => {
                // No meshAndTree ASC (an overlay script has none): GothicSourcer writes every
                // node of the model, in MDH order and with its rest pose, into each animation
                // ASC (asc.md §5), so the first animation ASC found gives the skeleton.
                let what = match &mesh_and_tree {
                    Some(name) => format!(
                        "the meshAndTree ASC `{name}` is not under {}",
                        dir.display()
                    ),
                    None => "the script has no meshAndTree".to_string(),
                };
                let first = jobs.iter().find_map(|j| {
                    let key = j.ani.asc.to_string().to_ascii_uppercase();
                    Some((key.clone(), found.get(&key)?))
                });
                match first {
                    Some((key, path)) => {
                        crate::convert::warn(
                            &args.input,
                            format_args!(
                                "{what}: {model_name}.MDH is made from the skeleton of {} \
                                 (pass --mdh MODEL.MDH to compile against the model's own)",
                                path.display()
                            ),
                        );
                        let (asc, largest) = rayon::join(|| read_asc(path), || largest_but(path));
                        let asc = asc?;
                        let skeleton = mdh_of(&asc, path, &key, &mut files)?;
                        // (its animations are compiled from this parse, not a second one)
                        parsed.push((key, Ok(asc)));
                        parsed.extend(largest);
                        skeleton
                    }
                    None => {
                        crate::convert::warn(
                            &args.input,
                            format_args!("{what} and no ani's ASC is: no MDH written"),
                        );
                        (Vec::new(), 0)
                    }
                }
            }
        },
    };
    let rounding = rounding(args.rounding);
    // Every output is known before any is made (the MSB, the MDH, a MAN per ani whose ASC is
    // there) and checked at once; each MAN then goes to its temporary file from the thread
    // that compiled it, while the others are still being compiled, and all are renamed into
    // place at the end (nothing is, if the command fails).
    let mut man_at = vec![None; jobs.len()];
    let mut paths: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    for (i, job) in jobs.iter().enumerate() {
        if found.contains_key(&job.ani.asc.to_string().to_ascii_uppercase()) {
            man_at[i] = Some(paths.len());
            paths.push(out_dir.join(crate::zengin::asc::model_compile::man_name(
                &model_name,
                job,
            )));
        }
    }
    let set = crate::fsio::FileSet::check(&paths, args.force)?;
    let made = crate::fsio::MadeDir::create(&out_dir)?;
    // (the MSB and the MDH go to their temporary files beside the first compiles)
    let put_files = || -> Result<(), Error> {
        for (i, (_, bytes)) in files.iter().enumerate() {
            set.put(i, bytes)?;
        }
        Ok(())
    };
    // (a file that cannot be written stops the command, unlike an ani that does not compile)
    let fatal: std::sync::Mutex<Option<Error>> = Default::default();
    let parsed = std::sync::Mutex::new(parsed);
    // (one ASC or ani per task: rayon's own splitting leaves a run of large ASCs to one core
    // while the other waits)
    let compile_all = || -> Vec<Vec<AniResult>> {
        order
            .par_iter()
            .with_max_len(1)
            .map(|(_, (key, members))| {
                let Some(path) = found.get(key) else {
                    return members.iter().map(|&i| (i, Ok(None))).collect();
                };
                let before = {
                    let mut list = parsed.lock().unwrap_or_else(|p| p.into_inner());
                    let at = list.iter().position(|(k, _)| k == key);
                    at.map(|at| list.swap_remove(at).1)
                };
                let asc = match before.unwrap_or_else(|| read_asc(path)) {
                    Ok(a) => a,
                    Err(e) => {
                        // The error once; the other anis of this ASC point to it.
                        let mut e = Some(e);
                        return members
                            .iter()
                            .map(|&i| {
                                let r = e.take().unwrap_or_else(|| {
                                    Error::other(
                                        path,
                                        format!(
                                            "ani `{}`: its ASC does not read (above)",
                                            jobs[i].ani.name
                                        ),
                                    )
                                });
                                (i, Err(r))
                            })
                            .collect();
                    }
                };
                // Where the engine found it, after `\_WORK\DATA\ANIMS\` (a subfolder of DIR
                // included, asc.md §4.4).
                let stored = path
                    .strip_prefix(dir)
                    .ok()
                    .map(|r| {
                        r.components()
                            .map(|c| c.as_os_str().to_string_lossy().to_string())
                            .collect::<Vec<_>>()
                            .join("\\")
                    })
                    .unwrap_or_else(|| key.clone())
                    .to_ascii_uppercase();
                members
                    .par_iter()
                    .with_max_len(1)
                    .map(|&i| {
                        let job = &jobs[i];
                        let r = man_for(job, &asc, &stored, &nodes, checksum, rounding)
                            .map_err(|m| Error::other(path, format!("ani `{}`: {m}", job.ani.name)))
                            .and_then(|(man, notes)| {
                                let mut bytes = Vec::new();
                                man.encode(&mut bytes).map_err(Error::encoding(path))?;
                                let at = man_at[i].expect("a MAN path for every ani with its ASC");
                                if let Err(e) = set.put(at, &bytes) {
                                    let mut f = fatal.lock().unwrap_or_else(|p| p.into_inner());
                                    f.get_or_insert(e);
                                }
                                Ok(Some((paths[at].clone(), notes)))
                            });
                        (i, r)
                    })
                    .collect()
            })
            .collect()
    };
    let (put, grouped) = rayon::join(put_files, compile_all);
    put?;
    if let Some(e) = fatal.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut results: Vec<Option<Result<Option<Written>, Error>>> =
        (0..jobs.len()).map(|_| None).collect();
    for (i, r) in grouped.into_iter().flatten() {
        results[i] = Some(r);
    }
    let results = results
        .into_iter()
        .map(|r| r.expect("every ani has a result"));
    let (mut missing, mut failed, mut mans) = (0, 0, 0);
    let mut said = crate::convert::Warnings::default();
    for (job, r) in jobs.iter().zip(results) {
        match r {
            Ok(Some((path, notes))) => {
                for n in notes {
                    said.warn(&path, n);
                }
                mans += 1;
            }
            Ok(None) => {
                missing += 1;
                said.warn(
                    &args.input,
                    format_args!(
                        "ani `{}`: its ASC `{}` is not under {}: no MAN written",
                        job.ani.name,
                        job.ani.asc,
                        dir.display()
                    ),
                );
            }
            Err(e) => {
                failed += 1;
                said.flush();
                super::report(&e);
            }
        }
    }
    drop(said);
    set.finish()?;
    made.keep();
    println!(
        "{}: {} files written ({} MAN), {} ani without ASC, {} failed",
        out_dir.display(),
        files.len() + mans,
        mans,
        missing,
        failed
    );
    Ok(if failed == 0 {
        Status::Ok
    } else {
        Status::Failed
    })
}
