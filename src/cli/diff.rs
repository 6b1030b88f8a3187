//! `animkit diff A B`: what changed between two versions of an asset.

use super::{json, Input, Status};
use crate::codec::Which;
use crate::exact::Error;
use crate::registry::{self, Diff, DiffContext, ExportOptions, ImportOptions};
use std::path::{Path, PathBuf};

/// Show what changed from A to B (binary assets or animkit YAML documents, any mix): fields
/// old → new, events added/removed/changed, per-node sample summaries. Exit 0 when equal,
/// 1 when different. A companion names what changed (an animation's nodes by the skeleton's
/// names): given with --with, or found beside A or B by the game's naming rule (HUMANS.MDH
/// beside HUMANS-S_RUN.MAN) when its key (checksum) is A's.
#[derive(clap::Args)]
pub struct Args {
    a: PathBuf,
    b: PathBuf,
    /// Print a unified diff of the two YAML documents instead.
    #[arg(long)]
    yaml: bool,
    /// Print one JSON document instead (schema: schemas/animkit.diff.schema.json).
    #[arg(long, conflicts_with = "yaml")]
    json: bool,
    #[command(flatten)]
    with: super::WithArgs,
}

pub fn run(args: Args) -> Result<Status, Error> {
    // An interchange file (glTF) against the MAN it goes back into: what the import changes
    // (the MAN old, the glTF new, in either order).
    if super::gltf_info::is_gltf(&args.a) || super::gltf_info::is_gltf(&args.b) {
        let g = super::gltf_info::diff(&args.a, &args.b)?;
        if args.yaml {
            let (before, after) = g.yaml()?;
            return Ok(print_yaml_diff(&g.man, &g.gltf, &before, &after));
        }
        let changes = g.changes();
        if changes.is_empty() && !args.json {
            println!(
                "no differences: {} is the motion of {}",
                g.animation,
                g.man.display()
            );
            return Ok(Status::Ok);
        }
        return Ok(print_changes(
            &g.man,
            &g.gltf,
            args.json,
            super::gltf_info::DIFF_TAG,
            &changes,
        ));
    }
    let (a, b) = (Input::read(&args.a)?, Input::read(&args.b)?);
    let opts = ImportOptions::default();
    let export = ExportOptions::default();
    match a.format.container() {
        Some(container) if a.format.tag() == b.format.tag() => {
            if args.yaml {
                // Containers are read through their maps, never copied.
                let to_yaml = |i: &Input| {
                    i.open(&opts)?
                        .to_yaml(&export)
                        .map_err(Error::encoding(&i.path))
                };
                return Ok(print_yaml_diff(
                    &args.a,
                    &args.b,
                    &to_yaml(&a)?,
                    &to_yaml(&b)?,
                ));
            }
            // Compared through the maps (a YAML document is encoded first); what changed inside
            // changed members is shown too.
            let (ea, eb) = (a.encoded()?, b.encoded()?);
            let changes = container
                .diff(&ea, &eb, registry::formats())
                .map_err(|(which, e)| match which {
                    Which::Old => Error::decoding(&args.a)(e),
                    Which::New => Error::decoding(&args.b)(e),
                })?;
            return Ok(print_changes(
                &args.a,
                &args.b,
                args.json,
                a.format.tag(),
                &Diff::from_lines(changes),
            ));
        }
        _ => {}
    }
    let (x, y) = (a.asset(&opts)?, b.asset(&opts)?);
    if a.format.tag() != b.format.tag() {
        return Err(Error::other(
            &args.b,
            format!(
                "is {}, but {} is {}: cannot compare",
                b.format.tag(),
                args.a.display(),
                a.format.tag()
            ),
        ));
    }
    if args.yaml {
        let to_yaml = |asset: &dyn crate::registry::Asset, p: &PathBuf| {
            asset.to_yaml(&export).map_err(Error::encoding(p))
        };
        let (ya, yb) = (to_yaml(x.as_ref(), &args.a)?, to_yaml(y.as_ref(), &args.b)?);
        return Ok(print_yaml_diff(&args.a, &args.b, &ya, &yb));
    }
    let companions = args.with.load()?;
    let companion = companions.for_file_or_beside(&args.a, &[&args.b], a.format, x.as_ref())?;
    let ctx = DiffContext {
        companion: companion.as_ref().map(|c| c.get()),
    };
    let changes = x
        .diff_report(y.as_ref(), &ctx)
        .ok_or_else(|| Error::other(&args.b, "different formats"))?;
    // What the edit left stale: a note on stderr (stdout keeps the documented shapes).
    for w in x.edit_warnings(y.as_ref()) {
        eprintln!("note: {}: {}: {}", args.b.display(), w.path, w.message);
    }
    Ok(print_changes(
        &args.a,
        &args.b,
        args.json,
        a.format.tag(),
        &changes,
    ))
}

fn print_yaml_diff(a: &Path, b: &Path, ya: &str, yb: &str) -> Status {
    if ya == yb {
        return Status::Ok;
    }
    let diff = similar::TextDiff::from_lines(ya, yb);
    print!(
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(&a.display().to_string(), &b.display().to_string())
    );
    Status::Failed
}

fn print_changes(a: &Path, b: &Path, as_json: bool, tag: &str, diff: &Diff) -> Status {
    let changes = &diff.lines;
    if as_json {
        json::print(&json::DiffReport {
            report: "animkit.diff",
            old: a.display().to_string(),
            new: b.display().to_string(),
            format: tag.into(),
            equal: diff.is_empty(),
            changes: changes.to_vec(),
            items: diff.changes.clone(),
        });
        return if changes.is_empty() {
            Status::Ok
        } else {
            Status::Failed
        };
    }
    if changes.is_empty() {
        println!("no differences");
        return Status::Ok;
    }
    for c in changes {
        println!("{c}");
    }
    Status::Failed
}
