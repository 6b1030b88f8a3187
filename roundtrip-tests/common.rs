//! Shared helpers for the round-trip tests.

use std::path::{Path, PathBuf};

// The corpus-or-fail-in-CI rule, shared with the library's unit tests (one copy).
#[path = "../src/testing.rs"]
mod testing;
pub use testing::{corpus, corpus_file, corpus_path, missing_tool};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The animkit binary built for this test run.
pub fn animkit() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_animkit"))
}

/// Run animkit with `args` in `dir`; returns (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = animkit()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("animkit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The corpus files damaged by a hand edit (a name lengthened in a hex editor without fixing
/// its chunk's length), paths inside `realworld/`, with the chunk whose fields overrun it: its
/// header offset, stated and actual length. `verify` reports each with that cause and `animkit
/// repair` makes each readable (roundtrip-tests/realworld.rs).
pub const DAMAGED: &[(&str, usize, u32, u32)] = &[
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-S_TREASUREOLD_S0.MAN", 6, 82, 88),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-S_TREASUREOLD_S1.MAN", 6, 82, 88),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-S_TREASUREOLD_S2.MAN", 6, 82, 88),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-S_TREASUREOLD_S3.MAN", 6, 82, 88),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-S_TREASUREOLD_S4.MAN", 6, 82, 88),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-T_TREASUREOLD_S0_2_S1.MAN", 6, 87, 93),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-T_TREASUREOLD_S0_2_STAND.MAN", 6, 77, 80),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-T_TREASUREOLD_S1_2_STAND.MAN", 6, 77, 80),
    ("man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS-T_TREASUREOLD_STAND_2_S0.MAN", 6, 90, 96),
    ("msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/GOBBO@bfdd00f.MSB", 104, 13, 24),
];

/// Two MDLs whose mesh part has the same damage (a source chunk at byte 286 whose length says
/// 56): since `.MDL` is its own format (`zengin.mdl`), that part is kept as its chunks' bytes,
/// so they read and write back byte for byte; `verify` passes them and `repair` has nothing
/// to undo. (As `zengin.mdh` they failed with the overrun message.)
pub const DAMAGED_READ_AS_MDL: &[&str] = &[
    "mdl/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/TOMBRAIDER_DS.MDL",
    "mdl/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/TREASUREOLD_ADDON_01.MDL",
];

/// The corpus script that is damaged: GOLEM.MDS has a name broken across two lines.
pub const DAMAGED_SCRIPT: &str =
    "mds/CarnageMarkus+gothic-animations-decompiled/Gothic_2/MONSTER/GOLEM/GOLEM.MDS";
