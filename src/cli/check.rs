//! `animkit check FILE [--mdh FILE.MDH]`: consistency checks of one file, alone or against a
//! related file (each format decides what it checks, see `Codec::check`).

use super::Status;
use crate::exact::Error;
use crate::registry::{CheckContext, ImportOptions};
use std::path::PathBuf;

/// Check a file: `animkit check ANIM.MAN --mdh MODEL.MDH` tells whether the animation belongs to
/// that skeleton (checksums match, every node index exists). Exit 1 when a check fails.
#[derive(clap::Args)]
pub struct Args {
    /// The file to check (binary or animkit YAML).
    file: PathBuf,
    /// The model hierarchy (.MDH) the file must belong to.
    #[arg(long)]
    mdh: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let opts = ImportOptions::default();
    let file = super::load(&args.file, &opts)?;
    let reference = match &args.mdh {
        Some(p) => {
            let r = super::load(p, &opts)?;
            if r.format.tag() != crate::zengin::mdh::Mdh::TAG_STR {
                return Err(Error::other(
                    p,
                    format!(
                        "--mdh expects a .MDH file, this is {}",
                        r.format.description()
                    ),
                ));
            }
            Some(r)
        }
        None => None,
    };
    let ctx = CheckContext {
        reference: reference.as_ref().map(|r| r.asset.as_ref()),
    };
    let findings = file.asset.check(&ctx);
    for f in &findings {
        println!("{}: {}: {}", args.file.display(), f.at, f.message);
    }
    if findings.is_empty() {
        match &args.mdh {
            Some(m) => println!("ok: {} belongs to {}", args.file.display(), m.display()),
            None => println!("ok: {}", args.file.display()),
        }
        Ok(Status::Ok)
    } else {
        println!("{} problem(s)", findings.len());
        Ok(Status::Failed)
    }
}
