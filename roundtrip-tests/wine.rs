//! The Windows executable (`cargo build --target x86_64-pc-windows-gnu`, as `.ci/run` and
//! `release/build` make it) run under wine: info, the export/import round trip, one-step
//! conversion of a file with a non-ASCII name given by a backslash path, unpack/repack, and
//! the double-click start (no arguments, a console of its own) that explains and waits for a
//! key. Its outputs are compared with the native build's, byte for byte.
//!
//! Debian's wine 8 has no `bcryptprimitives.dll`, which Rust's standard library needs on
//! Windows 10+: the harness compiles a stand-in (roundtrip-tests/wine/bcryptprimitives.c)
//! next to the exe under test. It is never part of a release.

use crate::common::{missing_tool, root, run};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The Windows build: `ANIMKIT_WINDOWS_EXE`, else the newest of the debug and release builds
/// in this build's target folder.
fn windows_exe() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ANIMKIT_WINDOWS_EXE") {
        return Some(PathBuf::from(p));
    }
    // CARGO_BIN_EXE_animkit is TARGET/PROFILE/animkit.
    let target = Path::new(env!("CARGO_BIN_EXE_animkit"))
        .parent()?
        .parent()?;
    let newest = ["debug", "release"]
        .iter()
        .map(|p| {
            target
                .join("x86_64-pc-windows-gnu")
                .join(p)
                .join("animkit.exe")
        })
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max();
    match newest {
        Some((_, p)) => Some(p),
        None => missing_tool(
            "the Windows build of animkit",
            "cargo build --target x86_64-pc-windows-gnu (.ci/run does it)",
        ),
    }
}

fn tool(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A folder with `animkit.exe` and the stand-in DLL, or `None` (skipped, failing in CI) when
/// wine, MinGW or the exe is missing.
fn setup() -> Option<(tempfile::TempDir, PathBuf)> {
    if !tool("wine", "--version") {
        return missing_tool("wine", "apt-get install wine (.ci/run does it)");
    }
    if !tool("x86_64-w64-mingw32-gcc", "--version") {
        return missing_tool(
            "MinGW (x86_64-w64-mingw32-gcc)",
            "apt-get install gcc-mingw-w64-x86-64 (.ci/run does it)",
        );
    }
    let exe = windows_exe()?;
    assert!(exe.is_file(), "{} is missing", exe.display());
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy(&exe, bin.join("animkit.exe")).unwrap();
    // TEST HARNESS ONLY: see roundtrip-tests/wine/bcryptprimitives.c.
    let out = Command::new("x86_64-w64-mingw32-gcc")
        .args(["-shared", "-O2", "-o"])
        .arg(bin.join("bcryptprimitives.dll"))
        .arg(root().join("roundtrip-tests/wine/bcryptprimitives.c"))
        .arg("-ladvapi32")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // A new wine prefix is made by the first start: once, before the tests run in parallel.
    static PREFIX: std::sync::Once = std::sync::Once::new();
    PREFIX.call_once(|| {
        let (code, out, err) = wine(&work, &["--version"]);
        assert_eq!(code, 0, "{out}{err}");
    });
    Some((tmp, work))
}

/// `wine animkit.exe ARGS` in `dir`: (exit code, stdout, stderr).
fn wine(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let exe = dir.parent().unwrap().join("bin/animkit.exe");
    let out = Command::new("wine")
        .arg(exe)
        .args(args)
        .current_dir(dir)
        // quiet, and no Mono/Gecko installer on a new wine prefix
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .stdin(Stdio::null())
        .output()
        .expect("wine runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(root().join("samples").join(name)).unwrap()
}

#[test]
#[cfg_attr(
    missing = "wine",
    ignore = "needs wine and MinGW: apt-get install wine gcc-mingw-w64-x86-64"
)]
fn windows_exe_info_export_import_and_unpack_repack_under_wine() {
    let Some((_tmp, d)) = setup() else { return };
    for name in ["WALK.MAN", "ANIMS.VDF"] {
        std::fs::write(d.join(name), sample(name)).unwrap();
    }
    // info: what the native build prints.
    let (code, out, err) = wine(&d, &["info", "WALK.MAN"]);
    assert_eq!(code, 0, "{err}");
    let (_, native, _) = run(&d, &["info", "WALK.MAN"]);
    assert_eq!(out, native);
    assert!(out.contains("frames: 30"), "{out}");

    // export → import: the same YAML as the native build, the same bytes back.
    let (code, _, err) = wine(&d, &["export", "WALK.MAN", "-o", "WALK.MAN.yaml"]);
    assert_eq!(code, 0, "{err}");
    let (_, native, _) = run(&d, &["export", "WALK.MAN"]);
    assert_eq!(
        std::fs::read_to_string(d.join("WALK.MAN.yaml")).unwrap(),
        native
    );
    let (code, _, err) = wine(&d, &["import", "WALK.MAN.yaml", "-o", "BACK.MAN"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(d.join("BACK.MAN")).unwrap(),
        sample("WALK.MAN")
    );

    // unpack → repack: the identical archive.
    let (code, _, err) = wine(&d, &["unpack", "ANIMS.VDF", "-o", "u"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(d.join("u/ANIMS/WALK.MAN")).unwrap(),
        sample("WALK.MAN")
    );
    let (code, _, err) = wine(&d, &["repack", "u", "-o", "R.VDF"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(d.join("R.VDF")).unwrap(), sample("ANIMS.VDF"));
    // the unpacked folder holds no staging folder of the run (Windows cannot move or remove
    // a folder a process holds open: both were left behind before their handles were closed)
    assert!(!d.read_dir().unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains(".animkit-")));

    // vdf extract: all members in place, its staging folder gone.
    let (code, _, err) = wine(&d, &["vdf", "extract", "ANIMS.VDF", "-o", "x"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(d.join("x/ANIMS/WALK.MAN")).unwrap(),
        sample("WALK.MAN")
    );
    let left: Vec<String> = d
        .join("x")
        .read_dir()
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(left, ["ANIMS", "SAMPLE.MDH"]);
}

#[test]
#[cfg_attr(
    missing = "wine",
    ignore = "needs wine and MinGW: apt-get install wine gcc-mingw-w64-x86-64"
)]
fn windows_exe_converts_a_non_ascii_name_given_by_a_backslash_path_in_one_step() {
    let Some((_tmp, d)) = setup() else { return };
    let sub = d.join("Mods Übung");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("Gehen Ä.MAN"), sample("WALK.MAN")).unwrap();

    // A relative path with a backslash, as Explorer and cmd give them.
    let (code, _, err) = wine(&d, &["Mods Übung\\Gehen Ä.MAN"]);
    assert_eq!(code, 0, "{err}");
    let yaml = sub.join("Gehen Ä.MAN.yaml");
    let (_, native, _) = run(&d, &["export", "Mods Übung/Gehen Ä.MAN"]);
    assert_eq!(std::fs::read_to_string(&yaml).unwrap(), native);
    // The report beside it, with Windows line ends (for Notepad).
    let log = std::fs::read_to_string(sub.join("animkit-last-run.txt")).unwrap();
    assert!(
        log.contains("ok: Mods Übung\\Gehen Ä.MAN: wrote ") && log.contains("1 of 1 path done\r\n"),
        "{log:?}"
    );

    // The edited YAML back, by an absolute drive path (wine's Z: is /): the binary, the
    // original kept as .bak.
    std::fs::write(
        &yaml,
        native.replacen("\n    fps: 25.0\n", "\n    fps: 30.0\n", 1),
    )
    .unwrap();
    let windows_path = format!("Z:{}", yaml.to_str().unwrap().replace('/', "\\"));
    let (code, _, err) = wine(&d, &[&windows_path]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(sub.join("Gehen Ä.MAN.bak")).unwrap(),
        sample("WALK.MAN")
    );
    let (code, out, _) = run(
        &d,
        &[
            "diff",
            "Mods Übung/Gehen Ä.MAN.bak",
            "Mods Übung/Gehen Ä.MAN",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(out.trim(), "header.fps: 25.0 → 30.0");
}

/// Read a child's output on a thread, so the test can look at it while the child runs.
fn collect(mut from: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    rx
}

/// `script` (util-linux) gives a program a terminal, as a console window does.
fn in_terminal(command: &str, dir: &Path) -> Option<std::process::Child> {
    if !tool("script", "--version") {
        return missing_tool("script (util-linux)", "apt-get install bsdutils");
    }
    Some(
        Command::new("script")
            .args(["-qec", command, "/dev/null"])
            .current_dir(dir)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// The child's end, or a failure (after killing it) when it still runs after a minute.
fn wait_max(child: &mut std::process::Child) -> std::process::ExitStatus {
    for _ in 0..600 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("still running after a minute: it waits for a key");
}

/// A double click: the exe in a console of its own (wine gives it one on a terminal) and
/// no arguments: it explains how to drop files on it and stays open until Enter.
#[test]
#[cfg_attr(
    missing = "wine",
    ignore = "needs wine and MinGW: apt-get install wine gcc-mingw-w64-x86-64"
)]
fn windows_exe_started_without_arguments_explains_and_waits_for_enter() {
    let Some((_tmp, d)) = setup() else { return };
    let Some(mut child) = in_terminal("wine ../bin/animkit.exe", &d) else {
        return;
    };
    let rx = collect(child.stdout.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("Press Enter to close this window.") {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(s) => seen.push_str(&s),
            Err(_) => panic!("no prompt within a minute: {seen:?}"),
        }
    }
    assert!(
        seen.contains("drop files or folders on animkit.exe"),
        "{seen:?}"
    );
    // Still open: it waits for the key.
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(child.try_wait().unwrap().is_none(), "closed without a key");
    child.stdin.take().unwrap().write_all(b"\r\n").unwrap();
    // `script -e` ends with the program's exit code: 2 (no files given).
    assert_eq!(wait_max(&mut child).code(), Some(2));
    // Without a terminal (a script, a pipe): the same text, no wait, exit code 2.
    let (code, _, err) = wine(&d, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("drop files or folders on animkit.exe"),
        "{err}"
    );
    assert!(!err.contains("Press Enter"), "{err}");
}

/// On Linux nothing waits, even on a terminal: no double click there.
#[test]
#[cfg_attr(
    missing = "wine",
    ignore = "needs wine and MinGW: apt-get install wine gcc-mingw-w64-x86-64"
)]
fn native_exe_started_without_arguments_on_a_terminal_does_not_wait() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!("'{}'", env!("CARGO_BIN_EXE_animkit"));
    let Some(mut child) = in_terminal(&command, dir.path()) else {
        return;
    };
    let rx = collect(child.stdout.take().unwrap());
    // No key is ever sent: it must end by itself.
    let status = wait_max(&mut child);
    let seen: String = rx.iter().collect();
    assert!(seen.contains("no files given"), "{seen:?}");
    assert!(!seen.contains("Press Enter"), "{seen:?}");
    assert_eq!(status.code(), Some(2));
}

/// `wine PROGRAM ARGS` in `dir` with the wine prefix `prefix`: (exit code, stdout, stderr).
fn wine_in(prefix: &Path, dir: &Path, program: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("wine")
        .arg(program)
        .args(args)
        .current_dir(dir)
        .env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .stdin(Stdio::null())
        .output()
        .expect("wine runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
        String::from_utf8_lossy(&out.stderr).replace("\r\n", "\n"),
    )
}

/// `--register` adds "Convert with animkit" to Explorer's context menu of the files animkit
/// converts and of folders, for the current user: read back with wine's own `reg query`, the
/// entry's text, icon and command (the exe's Windows path and `"%1"`); registering again
/// changes nothing; `--unregister` removes exactly those keys (a sibling verb of another
/// program stays) and says so, a second time that there was nothing to remove. In a wine
/// prefix of its own, so the user's registry is left alone.
#[test]
#[cfg_attr(
    missing = "wine",
    ignore = "needs wine and MinGW: apt-get install wine gcc-mingw-w64-x86-64"
)]
fn windows_exe_registers_and_unregisters_its_explorer_menu_entry() {
    let Some((_tmp, d)) = setup() else { return };
    let prefix = d.parent().unwrap().join("prefix");
    let exe = d.parent().unwrap().join("bin/animkit.exe");
    let reg = Path::new("reg");
    let man_key = r"HKCU\Software\Classes\SystemFileAssociations\.man\shell";
    // Another program's verb on .MAN files.
    let (code, _, err) = wine_in(
        &prefix,
        &d,
        reg,
        &[
            "add",
            &format!(r"{man_key}\other"),
            "/ve",
            "/d",
            "Other",
            "/f",
        ],
    );
    assert_eq!(code, 0, "{err}");

    for _ in 0..2 {
        let (code, _, err) = wine_in(&prefix, &d, &exe, &["--register"]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.starts_with("registered \"Convert with animkit\" in Explorer's context menu for"),
            "{err}"
        );
    }
    // The Windows path wine gives the exe (Z: is the Unix root).
    let win_exe = format!("Z:{}", exe.to_str().unwrap().replace('/', "\\"));
    for key in [
        format!(r"{man_key}\animkit"),
        r"HKCU\Software\Classes\SystemFileAssociations\.vdf\shell\animkit".into(),
        r"HKCU\Software\Classes\SystemFileAssociations\.glb\shell\animkit".into(),
        r"HKCU\Software\Classes\Directory\shell\animkit".into(),
    ] {
        let (code, out, err) = wine_in(&prefix, &d, reg, &["query", &key, "/s"]);
        assert_eq!(code, 0, "{key}: {err}");
        let long = key.replacen("HKCU", "HKEY_CURRENT_USER", 1);
        let want = format!(
            "\n{long}\n    (Default)    REG_SZ    Convert with animkit\n    Icon    REG_SZ    \
             {win_exe}\n\n{long}\\command\n    (Default)    REG_SZ    \"{win_exe}\" \"%1\"\n\n"
        );
        assert_eq!(out, want);
    }

    let (code, _, err) = wine_in(&prefix, &d, &exe, &["--unregister"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("removed \"Convert with animkit\" from Explorer's context menu ("),
        "{err}"
    );
    for key in [
        format!(r"{man_key}\animkit"),
        r"HKCU\Software\Classes\Directory\shell\animkit".into(),
    ] {
        let (code, _, _) = wine_in(&prefix, &d, reg, &["query", &key]);
        assert_eq!(code, 1, "{key} is still there");
    }
    let (code, out, err) = wine_in(&prefix, &d, reg, &["query", &format!(r"{man_key}\other")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("REG_SZ    Other"), "{out}");
    let (code, _, err) = wine_in(&prefix, &d, &exe, &["--unregister"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("was not registered: nothing to remove"),
        "{err}"
    );
}
