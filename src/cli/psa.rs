//! `animkit psa IN.upk [-o DIR]`: one ActorX `.psa` per AnimSet of a UE3 package;
//! `animkit psa --import IN.psa --into PKG.upk --set NAME -o OUT.upk`: replace the keys of the
//! set's sequences named in the PSA.

use super::Status;
use crate::exact::Error;
use crate::ue3::{psa, upk::anim, Package};
use std::path::{Path, PathBuf};

/// Export ActorX PSA animations from a Blade & Soul / UE3 package, or import one back.
#[derive(clap::Args)]
pub struct Args {
    /// The package to export from (without --import).
    #[arg(required_unless_present = "import")]
    package: Option<PathBuf>,
    /// Output folder for the .psa files (default: the current folder); with --import the
    /// output package.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Import this PSA instead of exporting.
    #[arg(long, requires_all = ["into", "set", "output"])]
    import: Option<PathBuf>,
    /// The package whose sequences the PSA replaces.
    #[arg(long)]
    into: Option<PathBuf>,
    /// The AnimSet whose sequences are replaced.
    #[arg(long)]
    set: Option<String>,
    /// Overwrite existing output files. The output package of --import may be the input
    /// package itself: it is read whole before anything is written.
    #[arg(long)]
    force: bool,
}

fn load(path: &Path) -> Result<Package, Error> {
    let data = crate::fsio::read_file(path)?;
    Package::read(&data).map_err(Error::decoding(path))
}

pub fn run(args: Args) -> Result<Status, Error> {
    if let (Some(psa_path), Some(into), Some(set), Some(out)) =
        (&args.import, &args.into, &args.set, &args.output)
    {
        let data = crate::fsio::read_file(psa_path)?;
        let p = psa::read(&data).map_err(Error::decoding(psa_path))?;
        let mut pkg = load(into)?;
        let done = psa::import(&mut pkg, set, &p).map_err(Error::encoding(into))?;
        let mut bytes = Vec::new();
        pkg.write(&mut bytes).map_err(Error::encoding(out))?;
        crate::fsio::write_file(out, &bytes, args.force)?;
        println!(
            "{}: replaced {} from {}",
            out.display(),
            done.join(", "),
            psa_path.display()
        );
        return Ok(Status::Ok);
    }
    let Some(path) = &args.package else {
        return Err(Error::other(
            "psa",
            "give a package, or --import with --into, --set and -o",
        ));
    };
    let pkg = load(path)?;
    let dir = args.output.clone().unwrap_or_else(|| PathBuf::from("."));
    let sets = anim::anim_sets(&pkg);
    if sets.is_empty() {
        return Err(Error::other(path, "the package holds no AnimSet"));
    }
    // Every set written to its temporary file, streamed (only one sequence's keys in memory),
    // and the files renamed into place only when all are done: a failure leaves the old
    // files or none, never some of the sets.
    let mut outs = Vec::with_capacity(sets.len());
    let mut said = Vec::with_capacity(sets.len());
    for set in &sets {
        // Names come from the package: keep them from naming other folders.
        let safe: String = set
            .name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || "_-.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let out = dir.join(format!("{safe}.psa"));
        said.push(format!(
            "wrote {} ({} bones, {} sequences)",
            out.display(),
            set.bones.len(),
            set.sequences.len()
        ));
        outs.push(out);
    }
    let made = crate::fsio::MadeDir::create(&dir)?;
    crate::fsio::write_files_with(&outs, args.force, |i, w| {
        psa::export_set_to(&pkg, &sets[i], w).map_err(|e| match e {
            psa::ExportError::Decode(e) => Error::decoding(path)(e),
            psa::ExportError::Io(e) => Error::io(&outs[i], e),
        })
    })?;
    made.keep();
    for s in said {
        println!("{s}");
    }
    Ok(Status::Ok)
}
