//! `animkit PATH...` without a subcommand: every path converted the obvious way, as modders
//! know it from drag-and-drop tools (drop a file on `animkit.exe`, get the editable form beside
//! it; drop the edited form, get the binary back).
//!
//! - a recognised binary → its YAML beside it (`WALK.MAN` → `WALK.MAN.yaml`);
//! - an animkit YAML document → the binary at the name it came from (`WALK.MAN.yaml` →
//!   `WALK.MAN`), the binary it replaces kept once as `WALK.MAN.bak`;
//! - a container (an archive) → `unpack` into `NAME-unpacked/` beside it; such a folder →
//!   `repack` to `NAME` (the old one kept once as `NAME.bak`);
//! - a `.glb`/`.gltf` written by animkit → `gltf import` into the file it was exported from.
//!
//! Anything else is reported and the other paths still run (exit 2 when any failed). The
//! summary is also written to `animkit-last-run.txt` beside the first path, so a drop on the
//! executable without a console still leaves a readable account.

use super::{Input, Status};
use crate::convert::{self, keep_original, Existing, ExportJob, Output, Wrote};
use crate::exact::Error;
use crate::registry::ImportOptions;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The name of the summary written beside the first path.
pub const LAST_RUN: &str = "animkit-last-run.txt";
/// What a container's folder is called: `NAME` + this.
const UNPACKED: &str = "-unpacked";

/// What was done with one path.
struct Done {
    /// What it became (for the summary).
    what: String,
}

/// Convert every path; exit code 0 when all were done, 2 when any failed.
pub fn run(paths: &[PathBuf]) -> ExitCode {
    let mut lines = Vec::new();
    let mut failed = 0usize;
    for path in paths {
        match one(path) {
            Ok(done) => lines.push(format!("ok: {}: {}", path.display(), done.what)),
            Err(e) => {
                super::report(&e);
                failed += 1;
                lines.push(format!("FAILED: {e}"));
            }
        }
    }
    lines.push(format!(
        "{} of {} path{} done{}",
        paths.len() - failed,
        paths.len(),
        if paths.len() == 1 { "" } else { "s" },
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        }
    ));
    let mut summary = lines.join("\n");
    summary.push('\n');
    eprint!("{summary}");
    if let Some(first) = paths.first() {
        let log = beside(first).join(LAST_RUN);
        let text = format!(
            "animkit {} (one-step use)\n{}",
            env!("CARGO_PKG_VERSION"),
            summary.replace('\n', crate_newline())
        );
        if let Err(e) = crate::fsio::write_file(&log, text.as_bytes(), true) {
            convert::warn_plain(format_args!("summary not written: {e}"));
        }
    }
    if failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// What a start without arguments shows: how to use the program by dropping files on it.
pub const HOW_TO_USE: &str = "\
animkit converts game animation files byte-exactly (Gothic .MAN/.MDH/.MDS/.MSB/.VDF,
MechWarrior 3 anim.zbd, Blade & Soul .upk).

To use it, drop files or folders on animkit.exe in Explorer (or name them after `animkit`
in a command prompt). Each is converted beside itself:
  - a game file (WALK.MAN) becomes editable YAML (WALK.MAN.yaml);
  - the edited YAML becomes the game file again (the original kept once as WALK.MAN.bak);
  - an archive (ANIMS.VDF) becomes a folder ANIMS.VDF-unpacked, and that folder the archive;
  - a .glb/.gltf written by `animkit gltf export` goes back into its animation.
What was done is written to animkit-last-run.txt beside the first file.

Every command (info, diff, verify, gltf export/import, ...): `animkit --help` in a command
prompt.
";

/// `animkit` without arguments. Started by a double click (on Windows: a console window of
/// its own, nobody else attached to it) it explains how to use it and waits for Enter, so the
/// window does not flash and vanish; anywhere else (a shell, a script, no terminal) it prints
/// the command-line help (stdout) and the same explanation (stderr) and exits with 2 at once.
pub fn no_arguments() -> ExitCode {
    use std::io::IsTerminal;
    let wait = should_wait(own_console(), std::io::stdin().is_terminal());
    if !wait {
        let _ = <super::Cli as clap::CommandFactory>::command().print_help();
        eprintln!();
    }
    eprint!(
        "animkit {}: no files given.\n\n{HOW_TO_USE}",
        env!("CARGO_PKG_VERSION")
    );
    if wait {
        eprintln!("\nPress Enter to close this window.");
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }
    ExitCode::from(2)
}

/// Wait for a key only when the program has a console window of its own (a double click) and
/// can read a key from it: never in a shell, a pipe or without a terminal.
fn should_wait(own_console: bool, stdin_is_terminal: bool) -> bool {
    own_console && stdin_is_terminal
}

/// Whether this process is the only one attached to its console: Windows made the console for
/// it (started from Explorer), so it closes when the process ends.
#[cfg(windows)]
fn own_console() -> bool {
    let mut ids = [0u32; 2];
    // SAFETY: the buffer holds 2 ids and its length is passed; the call writes at most that
    // many and returns how many processes are attached (0 on failure: no console).
    let n = unsafe {
        windows_sys::Win32::System::Console::GetConsoleProcessList(
            ids.as_mut_ptr(),
            ids.len() as u32,
        )
    };
    n == 1
}

/// Elsewhere a program is started from a shell or a launcher: never a window of its own.
#[cfg(not(windows))]
fn own_console() -> bool {
    false
}

/// The summary file's line ending: the platform's, so Notepad shows it as lines.
fn crate_newline() -> &'static str {
    if cfg!(windows) {
        "\r\n"
    } else {
        "\n"
    }
}

/// The folder a path lies in (`.` for a bare name).
fn beside(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` with `suffix` appended to its file name (non-UTF-8 names kept as they are).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// `path` without the `suffix` of its file name (ASCII case ignored), if it has it.
fn strip_suffix(path: &Path, suffix: &str) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let cut = name.len().checked_sub(suffix.len())?;
    if cut == 0 || !name.is_char_boundary(cut) || !name[cut..].eq_ignore_ascii_case(suffix) {
        return None;
    }
    Some(path.with_file_name(&name[..cut]))
}

fn has_extension(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// A command's status as a result: a failed one (exit 1) is an error of `path`.
fn succeeded(r: Result<Status, Error>, path: &Path, command: &str) -> Result<(), Error> {
    match r? {
        Status::Ok => Ok(()),
        Status::Failed => Err(Error::other(path, format!("`{command}` failed"))),
    }
}

fn kept(bak: Option<PathBuf>) -> String {
    bak.map_or(String::new(), |b| {
        format!(" (the original kept as {})", b.display())
    })
}

fn one(path: &Path) -> Result<Done, Error> {
    if path.is_dir() {
        return folder(path);
    }
    if !path.exists() {
        return Err(Error::other(path, "no such file or folder"));
    }
    if has_extension(path, &["glb", "gltf"]) {
        // A glTF (animkit's export, or Blender's of it) back into the MANs it came from.
        return super::gltf_back::one_step(path).map(|what| Done { what });
    }
    let input = Input::read(path)?;
    if input.from_yaml {
        return yaml_to_binary(&input);
    }
    if input.format.container().is_some() {
        return unpack(&input);
    }
    binary_to_yaml(&input)
}

fn binary_to_yaml(input: &Input) -> Result<Done, Error> {
    let path = &input.path;
    let out = with_suffix(path, ".yaml");
    let to = Output::File {
        path: &out,
        existing: Existing::Keep,
        backup: false,
    };
    let what = match convert::export(input, &ExportJob::default(), to)? {
        Wrote::Same => format!("{} is up to date", out.display()),
        Wrote::Differs => {
            return Err(Error::other(
                &out,
                format!(
                    "exists and differs from what {} gives (it may hold your edits): drop the \
                     YAML to pack it into the binary, or delete it to export again",
                    path.display()
                ),
            ))
        }
        Wrote::Written { .. } => format!("wrote {} ({})", out.display(), input.format.tag()),
    };
    Ok(Done { what })
}

fn yaml_to_binary(input: &Input) -> Result<Done, Error> {
    let path = &input.path;
    let out = strip_suffix(path, ".yaml")
        .or_else(|| strip_suffix(path, ".yml"))
        .ok_or_else(|| {
            Error::other(
                path,
                "cannot tell which binary this document is for: its name does not end in .yaml \
                 (name it like WALK.MAN.yaml, or use `animkit import FILE -o OUT`)",
            )
        })?;
    if out.is_dir() {
        return Err(Error::other(
            &out,
            "is a folder; cannot write the binary there",
        ));
    }
    let opts = ImportOptions::default();
    let what = match convert::import_input(input, &opts, &out, Existing::ReplaceUnlessSame, true)? {
        Wrote::Written { len, backup } => format!(
            "wrote {} ({len} bytes, {}){}",
            out.display(),
            input.format.tag(),
            kept(backup)
        ),
        Wrote::Same | Wrote::Differs => format!("{} is unchanged", out.display()),
    };
    Ok(Done { what })
}

fn unpack(input: &Input) -> Result<Done, Error> {
    let path = &input.path;
    let dir = with_suffix(path, UNPACKED);
    if dir.exists() {
        return Err(Error::other(
            &dir,
            format!(
                "exists (an earlier unpack, maybe with your edits): drop the folder to pack it \
                 into {}, or delete it to unpack again",
                path.display()
            ),
        ));
    }
    let opts = crate::zengin::vdf::folder::UnpackOptions {
        yaml: true,
        yaml_only: false,
        force: false,
    };
    succeeded(super::unpack::unpack(path, &dir, &opts), path, "unpack")?;
    Ok(Done {
        what: format!("unpacked into {}", dir.display()),
    })
}

/// The one `.MDS` directly in `dir` (any case), if there is exactly one.
fn single_model_script(dir: &Path) -> Option<PathBuf> {
    let mut found = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && has_extension(p, &["mds"]));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// A folder holding a model script and its ASCs: compile the model into `DIR/_compiled/`, as
/// the engine does (files there are replaced).
fn compile_model(dir: &Path, mds: &Path) -> Result<Done, Error> {
    let out = dir.join("_compiled");
    let args = super::compile::Args {
        input: mds.to_path_buf(),
        output: Some(out.clone()),
        force: true,
        quiet: false,
        asc: Some(dir.to_path_buf()),
        mdh: None,
        rounding: super::compile::RoundingArg::Engine,
    };
    succeeded(super::compile::run(args), mds, "compile")?;
    Ok(Done {
        what: format!("model compiled into {}", out.display()),
    })
}

fn folder(dir: &Path) -> Result<Done, Error> {
    if strip_suffix(dir, UNPACKED).is_none() {
        if let Some(mds) = single_model_script(dir) {
            return compile_model(dir, &mds);
        }
    }
    let Some(archive) = strip_suffix(dir, UNPACKED) else {
        return Err(Error::other(
            dir,
            format!(
                "a folder: only a folder made by dropping an archive (NAME{UNPACKED}) is packed \
                 back in one step; to convert a whole tree use `animkit export DIR -o OUTDIR` or \
                 `animkit import DIR -o OUTDIR`"
            ),
        ));
    };
    if archive.is_dir() {
        return Err(Error::other(
            &archive,
            "is a folder; cannot write the archive there",
        ));
    }
    let bak = keep_original(&archive)?;
    let force = archive.exists();
    succeeded(super::repack::repack(dir, &archive, force), dir, "repack")?;
    Ok(Done {
        what: format!("repacked into {}{}", archive.display(), kept(bak)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_only_for_a_double_click_with_a_terminal() {
        assert!(should_wait(true, true));
        assert!(!should_wait(true, false));
        assert!(!should_wait(false, true));
        assert!(!should_wait(false, false));
        // No console window of its own outside Windows, so nothing there ever waits.
        #[cfg(not(windows))]
        assert!(!own_console());
    }

    #[test]
    fn names_are_derived_by_suffix_ignoring_case() {
        assert_eq!(
            strip_suffix(Path::new("a b/WALK.MAN.YAML"), ".yaml"),
            Some(PathBuf::from("a b/WALK.MAN"))
        );
        assert_eq!(
            strip_suffix(Path::new("ÄNIMS.VDF-unpacked"), UNPACKED),
            Some(PathBuf::from("ÄNIMS.VDF"))
        );
        assert_eq!(strip_suffix(Path::new(".yaml"), ".yaml"), None);
        assert_eq!(strip_suffix(Path::new("WALK.MAN"), ".yaml"), None);
        assert_eq!(
            with_suffix(Path::new("dir/Übung.MAN"), ".yaml"),
            PathBuf::from("dir/Übung.MAN.yaml")
        );
        assert_eq!(beside(Path::new("WALK.MAN")), PathBuf::from("."));
        assert_eq!(beside(Path::new("x/WALK.MAN")), PathBuf::from("x"));
    }
}
