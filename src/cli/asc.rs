//! `animkit asc …`: the 3ds Max ASCII format (`.ASC`) as the Gothic community uses it.

use super::Status;
use crate::exact::Error;

/// ASC files (GothicSourcer, KrxImpExp, the engine's compiler).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Export(super::asc_export::Args),
}

pub fn run(args: Args) -> Result<Status, Error> {
    match args.command {
        Command::Export(a) => super::asc_export::run(a),
    }
}
