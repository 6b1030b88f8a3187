//! `animkit completions SHELL`: the shell's completion script, from the same definitions as
//! the commands (`examples/manpage.rs` makes the man pages from them too).

use super::{write_text, OutputArgs, Status};
use crate::exact::Error;

/// Print a completion script for SHELL (bash, zsh, fish, powershell, elvish). Install, e.g.:
/// bash `animkit completions bash > ~/.local/share/bash-completion/completions/animkit`;
/// PowerShell `animkit completions powershell >> $PROFILE`.
#[derive(clap::Args)]
pub struct Args {
    shell: clap_complete::Shell,
}

pub fn run(args: Args) -> Result<Status, Error> {
    let mut command = <super::Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "animkit", &mut script);
    let text = String::from_utf8(script)
        .map_err(|e| Error::other("<completions>", format!("not UTF-8: {e}")))?;
    write_text(
        &OutputArgs {
            output: None,
            force: false,
        },
        &text,
    )?;
    Ok(Status::Ok)
}
