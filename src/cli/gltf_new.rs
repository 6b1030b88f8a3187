//! `gltf import IN.glb --new NAME`: a new MAN from a glTF animation, as a file (`--mdh`, `-o`)
//! or added to a model (`--into` a folder or a model script: the MAN beside the MDH and an
//! `ani` line in the model's MDS/MSB).

use super::gltf_files::{ext_is, keep_once, read_mdh};
use super::Status;
use crate::exact::Error;
use crate::zengin::gltf::import::{self, NewOptions};
use crate::zengin::gltf::{Document, Skeleton};
use crate::zengin::man::build::Rounding;
use crate::zengin::mdh::Mdh;
use std::path::{Path, PathBuf};

/// The `ani` statement's values given on the command line (defaults in [`AniValues::line`]).
pub(super) struct AniValues {
    pub layer: Option<u32>,
    pub next: Option<String>,
    pub blend_in: Option<f32>,
    pub blend_out: Option<f32>,
    pub flags: Option<String>,
    pub fps: Option<f32>,
    pub rounding: Rounding,
}

/// Where the new animation goes.
pub(super) enum Target<'a> {
    /// `--mdh MODEL.MDH -o OUT.MAN`.
    File { mdh: &'a Path, output: &'a Path },
    /// `--into` a folder (its MDH: `--mdh`, or the only one) or a model script.
    Model {
        into: &'a Path,
        mdh: Option<&'a Path>,
    },
}

pub(super) fn run(
    input: &Path,
    doc: &Document,
    animation: Option<&str>,
    name: &str,
    values: &AniValues,
    target: Target<'_>,
    force: bool,
) -> Result<Status, Error> {
    if name.is_empty()
        || name.len() > 64
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(Error::other(
            input,
            format!("--new {name:?}: an animation name is letters, digits and _ (such as S_MYWALK or T_WAVE)"),
        ));
    }
    let anim = pick(doc, animation, name).map_err(|m| Error::other(input, m))?;
    match target {
        Target::File { mdh, output } => {
            let m = read_mdh(mdh)?;
            let sk = skeleton(mdh, &m)?;
            let (bytes, report, _) = make(input, doc, anim, &sk, name, values)?;
            crate::fsio::write_file(output, &bytes, force)?;
            eprintln!(
                "wrote {} ({} bytes): {report}",
                output.display(),
                bytes.len()
            );
            Ok(Status::Ok)
        }
        Target::Model { into, mdh } => into_model(input, doc, anim, name, values, into, mdh),
    }
}

/// The animation to take: `--animation`, else the only one, else the one named like NAME.
fn pick(doc: &Document, animation: Option<&str>, name: &str) -> Result<usize, String> {
    if animation.is_none() {
        if let Some(i) = doc.root.animations.iter().position(|a| {
            a.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        }) {
            if doc.root.animations.len() > 1 {
                return Ok(i);
            }
        }
    }
    import::pick_animation(doc, animation, name).map_err(|e| e.to_string())
}

fn skeleton(path: &Path, mdh: &Mdh) -> Result<Skeleton, Error> {
    let mut sk = Skeleton::from_mdh(mdh).map_err(|e| Error::other(path, e.to_string()))?;
    if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
        sk.model = stem.to_string();
    }
    Ok(sk)
}

/// The new MAN's bytes, its summary and its `ani` line.
fn make(
    input: &Path,
    doc: &Document,
    anim: usize,
    sk: &Skeleton,
    name: &str,
    v: &AniValues,
) -> Result<(Vec<u8>, String, String), Error> {
    let asc = format!("{}.ASC", name.to_ascii_uppercase());
    let probe = NewOptions {
        name: name.to_ascii_uppercase(),
        next: v.next.clone().unwrap_or_default().to_ascii_uppercase(),
        layer: v.layer.unwrap_or(1),
        fps: v.fps,
        rounding: v.rounding,
        source_path: format!("\\_WORK\\DATA\\ANIMS\\{asc}"),
        script: String::new(),
    };
    let (man, report) = import::new_animation(doc, anim, sk, &probe)
        .map_err(|e| Error::other(input, e.to_string()))?;
    // The flags' default: M. (the root's motion moves the model) when the root moves.
    let root_moves = man.samples().zip(man.header()).is_some_and(|(s, _)| {
        let root = sk.parents.iter().position(Option::is_none);
        let n = s.node_indices.len();
        s.node_indices
            .iter()
            .position(|&i| Some(i as usize) == root)
            .is_some_and(|k| {
                let first = &s.codes[k][3..];
                (0..s.frame_count()).any(|f| &s.codes[f * n + k][3..] != first)
            })
    });
    let flags = v
        .flags
        .clone()
        .unwrap_or_else(|| if root_moves { "M." } else { "." }.into());
    let line = format!(
        "ani (\"{}\" {} \"{}\" {} {} {} \"{}\" F 0 {}{})",
        probe.name,
        probe.layer,
        probe.next,
        fmt_f(v.blend_in.unwrap_or(0.1)),
        fmt_f(v.blend_out.unwrap_or(0.1)),
        flags,
        asc,
        report.frames.saturating_sub(1),
        if report.fps == 25.0 {
            String::new()
        } else {
            format!(" FPS:{}", fmt_f(report.fps))
        }
    );
    // Check the line with the MDS parser, and store it as the engine does.
    crate::zengin::asc::to_man::parse_ani(&line)
        .map_err(|m| Error::other(input, format!("the ani line {line:?}: {m}")))?;
    let mut man = man;
    for c in &mut man.chunks {
        if let crate::zengin::man::Chunk::Source(s) = c {
            s.script = crate::exact::Text::new(line.to_ascii_uppercase().into_bytes());
        }
    }
    for w in &report.warnings {
        crate::convert::warn_plain(w);
    }
    let mut bytes = Vec::new();
    man.write(&mut bytes).map_err(|e| Error::Encode {
        file: input.into(),
        source: e,
    })?;
    let summary = format!(
        "{} from {}: {} frames at {} fps, {} nodes animated{}; {} of the skeleton's checksum 0x{:08x}",
        probe.name,
        report.animation,
        report.frames,
        report.fps,
        report.nodes.len(),
        if report.at_rest.is_empty() {
            String::new()
        } else {
            format!(
                " ({} at rest throughout left out: {})",
                report.at_rest.len(),
                report.at_rest.join(", ")
            )
        },
        sk.model,
        sk.checksum
    );
    Ok((bytes, summary, line))
}

fn fmt_f(v: f32) -> String {
    let s = format!("{v}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// `--into` a folder or a model script: the MAN `MODEL-NAME.MAN` beside the MDH, the `ani`
/// line added to the model's script (MDS text before the aniEnum's closing brace; MSB: the
/// compiled statement before its aniEnum end). Nothing is written when anything fails; the
/// script is kept once as `.bak`.
fn into_model(
    input: &Path,
    doc: &Document,
    anim: usize,
    name: &str,
    values: &AniValues,
    into: &Path,
    mdh: Option<&Path>,
) -> Result<Status, Error> {
    let (script, mdh_path) = if into.is_dir() {
        folder_model(into, mdh)?
    } else {
        let script = into.to_path_buf();
        if !(ext_is(&script.to_string_lossy(), "mds") || ext_is(&script.to_string_lossy(), "msb")) {
            return Err(Error::other(
                into,
                "--new with --into needs a folder (made by `animkit unpack`) or a model script (.MDS or .MSB)",
            ));
        }
        let mdh_path = match mdh {
            Some(p) => p.to_path_buf(),
            None => mdh_of_script(&script)?,
        };
        (script, mdh_path)
    };
    let m = read_mdh(&mdh_path)?;
    let sk = skeleton(&mdh_path, &m)?;
    let model = mdh_path
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_uppercase())
        .unwrap_or_default();
    let man_path = mdh_path.with_file_name(format!("{model}-{}.MAN", name.to_ascii_uppercase()));
    if man_path.exists() {
        return Err(Error::other(
            &man_path,
            "exists already: the animation is not new (update it with `gltf import --into` that MAN, or choose another --new name)",
        ));
    }
    let (bytes, summary, line) = make(input, doc, anim, &sk, name, values)?;
    let old = crate::fsio::read_file(&script)?;
    let new_script = add_ani(&script, &old, name, &line)?;
    let bak = keep_once(&script)?;
    crate::fsio::write_new(&man_path, &bytes)?;
    crate::fsio::write_file(&script, &new_script, true)?;
    eprintln!(
        "wrote {} ({} bytes): {summary}",
        man_path.display(),
        bytes.len()
    );
    eprintln!(
        "added to {}: {line}{}",
        script.display(),
        bak.map_or(String::new(), |b| format!(
            " (the original kept as {})",
            b.display()
        ))
    );
    Ok(Status::Ok)
}

/// In a folder: the MDH (`--mdh`, or the only one) and the model script named like it
/// (NAME.MDS, else NAME.MSB, anywhere in the folder).
fn folder_model(dir: &Path, mdh: Option<&Path>) -> Result<(PathBuf, PathBuf), Error> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let is = |p: &Path, ext: &str| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case(ext))
    };
    let mdh_path = match mdh {
        Some(p) => p.to_path_buf(),
        None => {
            let mdhs: Vec<&PathBuf> = files.iter().filter(|p| is(p, "mdh")).collect();
            match mdhs.as_slice() {
                [one] => (*one).clone(),
                _ => {
                    return Err(Error::other(
                        dir,
                        format!(
                            "which model? pass --mdh (model hierarchies here: {})",
                            if mdhs.is_empty() {
                                "none".into()
                            } else {
                                mdhs.iter()
                                    .map(|p| p.display().to_string())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            }
                        ),
                    ))
                }
            }
        }
    };
    let stem = mdh_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let named = |ext: &str| {
        files.iter().find(|p| {
            is(p, ext)
                && p.file_stem()
                    .is_some_and(|s| s.to_string_lossy().eq_ignore_ascii_case(&stem))
        })
    };
    let script = named("mds").or_else(|| named("msb")).ok_or_else(|| {
        Error::other(
            dir,
            format!("no model script {stem}.MDS or {stem}.MSB in it for the new ani line"),
        )
    })?;
    Ok((script.clone(), mdh_path))
}

/// The MDH of a model script: `NAME.MDH` beside it or in the `_COMPILED` folder beside it
/// (any case).
fn mdh_of_script(script: &Path) -> Result<PathBuf, Error> {
    let dir = script
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let stem = script
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let find_in = |d: &Path| -> Option<PathBuf> {
        let rd = std::fs::read_dir(d).ok()?;
        let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        v.sort();
        v.into_iter().find(|p| {
            p.is_file()
                && p.file_name().is_some_and(|n| {
                    n.to_string_lossy()
                        .eq_ignore_ascii_case(&format!("{stem}.MDH"))
                })
        })
    };
    if let Some(p) = find_in(dir) {
        return Ok(p);
    }
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_name()
                .to_string_lossy()
                .eq_ignore_ascii_case("_compiled")
            {
                if let Some(p) = find_in(&e.path()) {
                    return Ok(p);
                }
            }
        }
    }
    Err(Error::other(
        script,
        format!("no {stem}.MDH beside it or in _COMPILED beside it: pass --mdh MODEL.MDH"),
    ))
}

/// The script with the `ani` line added; an ani of that name already there is refused.
fn add_ani(script: &Path, old: &[u8], name: &str, line: &str) -> Result<Vec<u8>, Error> {
    if ext_is(&script.to_string_lossy(), "msb") {
        return add_ani_msb(script, old, name, line);
    }
    let mds = crate::zengin::mds::parse(old)
        .map_err(|e| Error::other(script, format!("not a model script: {}", e.message)))?;
    if has_ani(&mds, name) {
        return Err(exists(script, name));
    }
    let at = ani_enum_end(old)
        .ok_or_else(|| Error::other(script, "has no aniEnum { … } block to add the ani line to"))?;
    // Insert before the line holding the closing brace, indented like the line above.
    let line_start = old[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let crlf = old.windows(2).any(|w| w == b"\r\n");
    let nl: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let indent: Vec<u8> = {
        let prev_end = line_start.saturating_sub(1);
        let prev_start = old[..prev_end]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        old[prev_start..prev_end]
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .copied()
            .collect()
    };
    let mut out = Vec::with_capacity(old.len() + line.len() + 8);
    if indent_len(&old[line_start..at]) == at - line_start {
        // The brace on its own line: the new line before it.
        out.extend_from_slice(&old[..line_start]);
        out.extend_from_slice(&indent);
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(nl);
        out.extend_from_slice(&old[line_start..]);
    } else {
        out.extend_from_slice(&old[..at]);
        out.extend_from_slice(nl);
        out.extend_from_slice(&indent);
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(nl);
        out.extend_from_slice(&old[at..]);
    }
    let check = crate::zengin::mds::parse(&out).map_err(|e| {
        Error::other(
            script,
            format!(
                "the script with the new line does not parse ({}); nothing written",
                e.message
            ),
        )
    })?;
    if !has_ani(&check, name) {
        return Err(Error::other(
            script,
            "the new ani line is not inside the aniEnum block; nothing written",
        ));
    }
    Ok(out)
}

fn indent_len(s: &[u8]) -> usize {
    s.iter().take_while(|b| **b == b' ' || **b == b'\t').count()
}

fn exists(script: &Path, name: &str) -> Error {
    Error::other(
        script,
        format!("has an ani {name:?} already: choose another --new name (or update that animation's MAN with `gltf import --into`)"),
    )
}

fn has_ani(mds: &crate::zengin::mds::Mds, name: &str) -> bool {
    use crate::zengin::mds::{AniItem, ModelItem};
    mds.script.items.iter().any(|it| match it {
        ModelItem::AniEnum(items) => items.iter().any(|a| match a {
            AniItem::Ani(a) => a.name.as_bytes().eq_ignore_ascii_case(name.as_bytes()),
            _ => false,
        }),
        _ => false,
    })
}

/// The offset of the `}` closing the first `aniEnum` block (comments and strings skipped).
fn ani_enum_end(src: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut depth = 0usize;
    let mut inside = false;
    let mut seen = false;
    while i < src.len() {
        let b = src[i];
        if b == b'/' && src.get(i + 1) == Some(&b'/') {
            while i < src.len() && src[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b == b'/' && src.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < src.len() && !(src[i] == b'*' && src[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if b == b'"' {
            i += 1;
            while i < src.len() && src[i] != b'"' && src[i] != b'\n' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if !inside && src[i..].len() >= 7 && src[i..i + 7].eq_ignore_ascii_case(b"aniEnum") {
            seen = true;
            i += 7;
            continue;
        }
        if seen && !inside && b == b'{' {
            inside = true;
            depth = 1;
        } else if inside && b == b'{' {
            depth += 1;
        } else if inside && b == b'}' {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// An MSB with the statement compiled from `line` before its aniEnum end chunk.
fn add_ani_msb(script: &Path, old: &[u8], name: &str, line: &str) -> Result<Vec<u8>, Error> {
    use crate::zengin::msb::{Entry, Msb};
    let mut msb = Msb::read(old).map_err(|e| Error::Decode {
        file: script.into(),
        source: e,
    })?;
    if msb.entries.iter().any(
        |e| matches!(e, Entry::Ani(a) if a.name.as_bytes().eq_ignore_ascii_case(name.as_bytes())),
    ) {
        return Err(exists(script, name));
    }
    let src = format!("Model (\"X\")\r\n{{\r\n\taniEnum\r\n\t{{\r\n\t\t{line}\r\n\t}}\r\n}}\r\n");
    let mds = crate::zengin::mds::parse(src.as_bytes()).map_err(|e| {
        Error::other(
            script,
            format!("the ani line does not parse: {}", e.message),
        )
    })?;
    let compiled = crate::zengin::mds::compile::compile(&mds.script, &mds.src, &Default::default());
    let ani = compiled
        .entries
        .into_iter()
        .find(|e| matches!(e, Entry::Ani(_)))
        .ok_or_else(|| Error::other(script, "the ani line compiled to no ani chunk"))?;
    let at = msb
        .entries
        .iter()
        .position(|e| matches!(e, Entry::AniEnumEnd(_)))
        .ok_or_else(|| {
            Error::other(
                script,
                "has no aniEnum end chunk (0xF5FF) to add the ani before",
            )
        })?;
    msb.entries.insert(at, ani);
    let mut out = Vec::with_capacity(old.len() + 128);
    msb.write(&mut out).map_err(|e| Error::Encode {
        file: script.into(),
        source: e,
    })?;
    Ok(out)
}
