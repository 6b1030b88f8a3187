//! Which test requirements this machine lacks, for visible skips (README "Tests").
//!
//! A test that needs the corpus or an external program carries
//! `#[cfg_attr(missing = "blender", ignore = "needs Blender: ...")]`; this script sets
//! `missing = "..."` for each requirement it does not find, so such a test shows as
//! `ignored` with its reason in the test summary instead of passing without running. With
//! `CI=true` nothing is marked missing: there the test runs and fails loudly when its
//! requirement is absent (src/testing.rs). Nothing here changes what the library does.

use std::env;
use std::path::{Path, PathBuf};

/// Every requirement a test may name (`missing = "NAME"`).
const REQUIREMENTS: &[&str] = &[
    "corpus",
    "krximpexp",
    "blender",
    "bpy",
    "assimp",
    "gltf_validator",
    "wine",
    "python3",
];

fn main() {
    let values: Vec<String> = REQUIREMENTS.iter().map(|r| format!("\"{r}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(missing, values({}))",
        values.join(", ")
    );
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");

    if env::var("CI").is_ok_and(|v| v == "true") {
        return;
    }
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let shared = root.join("../shared");
    let corpus = shared.join("corpus");
    let krx = shared.join("clients/krximpexp-blender");
    let validator = root.join("roundtrip-tests/node/node_modules/gltf-validator");
    let bpy = root.join("roundtrip-tests/bpy/venv");
    // Watched so that installing a requirement marks it present at the next build: the
    // folders that exist (a missing path would rerun this script, and rebuild the crate, at
    // every build; after making a missing one, `touch build.rs`).
    for p in [
        &shared,
        &root.join("roundtrip-tests/node"),
        &root.join("roundtrip-tests/bpy"),
    ] {
        if p.is_dir() {
            println!("cargo::rerun-if-changed={}", p.display());
        }
    }
    let present = |r: &str| match r {
        "corpus" => corpus.is_dir(),
        "krximpexp" => krx.is_dir(),
        "blender" => on_path("blender"),
        "bpy" => bpy.is_dir(),
        "assimp" => on_path("assimp"),
        "gltf_validator" => validator.is_dir() && on_path("node"),
        "wine" => on_path("wine") && on_path("x86_64-w64-mingw32-gcc"),
        "python3" => on_path("python3"),
        _ => unreachable!("listed in REQUIREMENTS"),
    };
    // A program installed later lands in a PATH folder: watched only while one is missing.
    if ["blender", "assimp", "gltf_validator", "wine", "python3"]
        .iter()
        .any(|r| !present(r))
    {
        for dir in env::split_paths(&env::var_os("PATH").unwrap_or_default()) {
            if dir.is_absolute() && dir.is_dir() {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
        }
    }
    for r in REQUIREMENTS {
        if !present(r) {
            println!("cargo::rustc-cfg=missing=\"{r}\"");
            println!("cargo::warning=tests that need {r} are marked ignored (not found)");
        }
    }
}

/// Whether `name` is a program in one of PATH's folders (also `name.exe` on Windows).
fn on_path(name: &str) -> bool {
    let Some(path) = env::var_os("PATH") else {
        return false;
    };
    env::split_paths(&path).any(|dir| {
        let exe = dir.join(name);
        is_program(&exe) || (cfg!(windows) && is_program(&exe.with_extension("exe")))
    })
}

fn is_program(p: &Path) -> bool {
    p.is_file()
}
