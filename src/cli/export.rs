//! `animkit export FILE [-o OUT.yaml]`: binary → YAML.

use super::Status;
use crate::exact::Error;
use crate::registry::{self, ExportOptions};
use std::io::Write;
use std::path::PathBuf;

/// Convert a binary asset to an editable YAML document (stdout without -o).
#[derive(clap::Args)]
pub struct Args {
    /// The binary asset (format detected from its content).
    file: PathBuf,
    /// Write the YAML to OUTPUT instead of stdout.
    #[command(flatten)]
    out: super::OutputArgs,
    /// The model hierarchy (.MDH) of a .MAN: each sample is labelled with its node's name.
    #[arg(long)]
    mdh: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let data = crate::fsio::map_file(&args.file)?;
    if crate::zengin::vdf_folder::is_archive(&data) {
        // Borrowed from the map: the archive is not copied before it is written as YAML.
        let v = super::vdf::parse_mapped(&args.file, &data)?;
        let yaml = crate::zengin::vdf_yaml::to_yaml(&v).map_err(|e| Error::Encode {
            file: args.file.clone(),
            source: e,
        })?;
        return write_out(&args.out, &yaml);
    }
    let format = registry::detect(&data)
        .ok_or_else(|| Error::other(&args.file, "not a recognised binary format"))?;
    let asset = format.decode(&data).map_err(|e| Error::Decode {
        file: args.file.clone(),
        source: e,
    })?;
    let mut opts = ExportOptions::default();
    if let Some(p) = &args.mdh {
        let data = crate::fsio::read_file(p)?;
        let mdh =
            <crate::zengin::mdh::Mdh as crate::registry::Codec>::decode(&data).map_err(|e| {
                Error::Decode {
                    file: p.clone(),
                    source: e,
                }
            })?;
        opts.node_names = Some(mdh.node_names());
    }
    let yaml = asset.to_yaml(&opts).map_err(|e| Error::Encode {
        file: args.file.clone(),
        source: e,
    })?;
    for w in asset.export_warnings() {
        eprintln!(
            "animkit: warning: {}: {}: {}",
            args.file.display(),
            w.path,
            w.message
        );
    }
    write_out(&args.out, &yaml)
}

fn write_out(out: &super::OutputArgs, yaml: &str) -> Result<Status, Error> {
    match &out.output {
        Some(path) => crate::fsio::write_file(path, yaml.as_bytes(), out.force)?,
        None => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout
                .write_all(yaml.as_bytes())
                .and_then(|_| stdout.flush())
            {
                // A closed pipe (`| head`) is not an error worth reporting.
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(Error::io("<stdout>", e));
                }
            }
        }
    }
    Ok(Status::Ok)
}
