//! `animkit asc …`: the 3ds Max ASCII (.ASC) pipeline. `asc import`: one animation ASC → MAN,
//! the way the engine compiles an MDS `ani` (see `compile --asc` for a whole model); `asc
//! export` (src/cli/asc_export.rs): MAN → ASC.

use super::compile::{rounding, skeleton, RoundingArg};
use super::Status;
use crate::codec::Codec;
use crate::exact::Error;
use crate::zengin::asc::to_man::{compile, parse_ani, AniInput};
use crate::zengin::asc::Model;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Compile one animation ASC into a MAN (the engine's ASC → MAN for one `ani`).
    Import(ImportArgs),
    /// MAN(s) + MDH → ASC in GothicSourcer's layout (see `asc export --help`).
    Export(super::asc_export::Args),
}

/// `asc` subcommands.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
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

fn import(a: ImportArgs) -> Result<Status, Error> {
    let data = crate::fsio::read_file(&a.asc)?;
    let asc = Model::parse(&data).map_err(|e| Error::Decode {
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
    let (man, notes) = compile(&asc, &input).map_err(|m| Error::other(&a.asc, m))?;
    for n in notes {
        crate::convert::warn(&a.asc, &n.0);
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
