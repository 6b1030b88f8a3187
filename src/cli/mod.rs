//! The `animkit` command line: one file per subcommand. Exit codes: 0 ok, 1 a check failed or
//! the files differ, 2 bad input or usage.

// `println!`/`print!` in every subcommand write through `out` (a closed stdout is not a panic):
// defined before the modules so that they shadow std's there.
macro_rules! println {
    () => { $crate::cli::out::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!("{}\n", format_args!($($arg)*))) };
}
macro_rules! print {
    ($($arg:tt)*) => { $crate::cli::out::write(format_args!($($arg)*)) };
}

mod asc;
mod asc_export;
mod check;
mod checksum;
mod compile;
mod completions;
mod decompile;
mod diff;
mod export;
mod gltf;
mod gltf_back;
mod gltf_files;
mod gltf_info;
mod gltf_mesh;
mod gltf_new;
mod import;
mod info;
mod input;
mod json;
mod oneshot;
mod out;
mod progress;
mod psa;
mod register;
mod repack;
mod repair;
pub mod schema;
mod tree;
mod unpack;
mod vdf;
mod verify;

pub use crate::convert::{import_error, Input, Opened};
pub use input::{write_text, OutputArgs, WithArgs};

use crate::exact::Error;
use clap::{Parser, Subcommand};
use std::path::Path;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "animkit",
    version,
    about = "Read, verify, edit and repack game animation assets byte-exactly",
    long_about = "animkit reads game animation assets (ZenGin .MAN, ...), writes them back byte for \
byte, turns them into editable YAML and packs edited YAML back into the game's binary format.\n\n\
One step: `animkit PATH...` (or files dropped on the program) converts each path the obvious \
way: a binary to YAML beside it, an animkit YAML back to its binary (the original kept once as \
.bak), an archive to a NAME-unpacked folder and such a folder back, an animkit glTF back into \
its animation.\n\n\
Output files (-o and the like) are written to a temporary file and renamed into place, so a \
failed run leaves the old file or none. -o naming a symbolic link writes the file the link \
points to (the link stays; a link to nothing is refused); -o naming a character device or \
FIFO (/dev/null, a named pipe) writes into it; a folder, block device or socket is refused. \
No output ever replaces anything but a regular file.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a subcommand: files or folders to convert in one step (a binary → YAML beside
    /// it, an animkit YAML → its binary, an archive ↔ its NAME-unpacked folder; see --help).
    #[arg(value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    /// Windows: add "Convert with animkit" (the one-step conversion) to Explorer's context menu
    /// of the files animkit converts and of folders, for the current user (registry, under
    /// HKEY_CURRENT_USER\Software\Classes). Elsewhere: says it is Windows-only, exit 2.
    #[arg(long, conflicts_with_all = ["paths", "unregister"])]
    register: bool,
    /// Windows: remove the context-menu entry `--register` added.
    #[arg(long, conflicts_with = "paths")]
    unregister: bool,
}

#[derive(Subcommand)]
enum Command {
    Info(info::Args),
    Export(export::Args),
    Import(import::Args),
    Verify(verify::Args),
    Diff(diff::Args),
    Checksum(checksum::Args),
    Check(check::Args),
    Compile(compile::Args),
    Decompile(decompile::Args),
    Schema(schema::Args),
    Psa(psa::Args),
    Vdf(vdf::Args),
    Unpack(unpack::Args),
    Repack(repack::Args),
    Repair(repair::Args),
    Gltf(gltf::Args),
    /// The 3ds Max ASCII (.ASC) pipeline: `asc import` (ASC → MAN), `asc export` (MAN → ASC).
    Asc(asc::Args),
    Completions(completions::Args),
}

/// What a command reports.
pub enum Status {
    Ok,
    /// A check failed or the inputs differ (exit 1).
    Failed,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            // --help and --version are not errors.
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if cli.register || cli.unregister {
        return register::run(cli.register);
    }
    let result = match cli.command {
        Some(command) => dispatch(command),
        None if cli.paths.is_empty() => return oneshot::no_arguments(),
        None => return oneshot::run(&cli.paths),
    };
    let code = match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Failed) => ExitCode::from(1),
        Err(e) => {
            report(&e);
            ExitCode::from(2)
        }
    };
    // A write to a closed stdout ends the command quietly; its exit code says so.
    if out::failed() {
        return ExitCode::from(2);
    }
    code
}

/// Run a subcommand.
fn dispatch(command: Command) -> Result<Status, Error> {
    match command {
        Command::Info(a) => info::run(a),
        Command::Export(a) => export::run(a),
        Command::Import(a) => import::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Checksum(a) => checksum::run(a),
        Command::Check(a) => check::run(a),
        Command::Compile(a) => compile::run(a),
        Command::Decompile(a) => decompile::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Psa(a) => psa::run(a),
        Command::Vdf(a) => vdf::run(a),
        Command::Unpack(a) => unpack::run(a),
        Command::Repack(a) => repack::run(a),
        Command::Repair(a) => repair::run(a),
        Command::Gltf(a) => gltf::run(a),
        Command::Asc(a) => asc::run(a),
        Command::Completions(a) => completions::run(a),
    }
}

/// Print an error on stderr: `animkit: error: FILE: message`, or for an error at a line and
/// column of a text file `FILE:LINE:COL: error: message` (as compilers write it).
pub fn report(e: &Error) {
    if e.is_located() {
        eprintln!("{e}");
    } else {
        eprintln!("animkit: error: {e}");
    }
}

/// Run `f` for every file; with several files, a file's error is printed and the others still
/// run (status failed), with one file it is the command's error.
/// The files named, with each folder replaced by the recognised files inside it (recursively,
/// sorted by name, as `verify` walks folders); files named directly are kept as they are.
pub fn expand_folders(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, Error> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            for f in crate::verify::collect_files(std::slice::from_ref(p))? {
                if Input::read(&f).is_ok() {
                    out.push(f);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

pub fn each_file(
    files: &[std::path::PathBuf],
    mut f: impl FnMut(&Path) -> Result<Status, Error>,
) -> Result<Status, Error> {
    let mut status = Status::Ok;
    for path in files {
        match f(path) {
            Ok(Status::Ok) => {}
            Ok(Status::Failed) => status = Status::Failed,
            Err(e) if files.len() > 1 => {
                report(&e);
                status = Status::Failed;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(status)
}
