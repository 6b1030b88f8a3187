//! `animkit diff A B`: what changed between two versions of an asset.

use super::{load, Status};
use crate::exact::Error;
use crate::registry::{ExportOptions, ImportOptions};
use std::path::PathBuf;

/// Show what changed from A to B (binary assets or animkit YAML documents, any mix): fields
/// old → new, events added/removed/changed, per-node sample summaries. Exit 0 when equal,
/// 1 when different.
#[derive(clap::Args)]
pub struct Args {
    a: PathBuf,
    b: PathBuf,
    /// Print a unified diff of the two YAML documents instead.
    #[arg(long)]
    yaml: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    // Two archives: compared through memory maps, never copied into memory.
    if let (Some(ma), Some(mb)) = (
        super::vdf::map_archive(&args.a)?,
        super::vdf::map_archive(&args.b)?,
    ) {
        let a = super::vdf::parse_mapped(&args.a, &ma)?;
        let b = super::vdf::parse_mapped(&args.b, &mb)?;
        if args.yaml {
            let to_yaml = |v: &crate::zengin::vdf::Vdf<'_>, p: &PathBuf| {
                crate::zengin::vdf_yaml::to_yaml(v).map_err(|e| Error::Encode {
                    file: p.clone(),
                    source: e,
                })
            };
            return Ok(print_yaml_diff(
                &args,
                &to_yaml(&a, &args.a)?,
                &to_yaml(&b, &args.b)?,
            ));
        }
        return Ok(print_changes(&crate::zengin::vdf_yaml::diff(&a, &b)));
    }
    let opts = ImportOptions::default();
    let a = load(&args.a, &opts)?;
    let b = load(&args.b, &opts)?;
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
        let to_yaml = |l: &super::Loaded, p: &PathBuf| {
            l.asset
                .to_yaml(&ExportOptions::default())
                .map_err(|e| Error::Encode {
                    file: p.clone(),
                    source: e,
                })
        };
        let (ya, yb) = (to_yaml(&a, &args.a)?, to_yaml(&b, &args.b)?);
        return Ok(print_yaml_diff(&args, &ya, &yb));
    }
    let changes = a
        .asset
        .diff(b.asset.as_ref())
        .ok_or_else(|| Error::other(&args.b, "different formats"))?;
    Ok(print_changes(&changes))
}

fn print_yaml_diff(args: &Args, ya: &str, yb: &str) -> Status {
    if ya == yb {
        return Status::Ok;
    }
    let diff = similar::TextDiff::from_lines(ya, yb);
    print!(
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(&args.a.display().to_string(), &args.b.display().to_string())
    );
    Status::Failed
}

fn print_changes(changes: &[String]) -> Status {
    if changes.is_empty() {
        println!("no differences");
        return Status::Ok;
    }
    for c in changes {
        println!("{c}");
    }
    Status::Failed
}
