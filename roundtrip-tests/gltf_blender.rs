//! The glTF loop with the real Blender (Debian's `blender`, its bundled glTF add-on, default
//! options): import animkit's export, check the armature and sampled poses against the MAN's
//! decoded values, export again, import into the MAN: byte-identical; one bone turned at one
//! frame changes that node at that frame only.

use crate::common::run;
use crate::gltf::{missing_tool, ok, s, sample, validate, validator};
use animkit::zengin::gltf::coords::{position_to_gltf, rotation_to_gltf};
use animkit::zengin::gltf::Skeleton;
use animkit::zengin::man::Man;
use animkit::zengin::mdh::Mdh;
use glam::{DMat3, DMat4, DQuat, DVec3};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn blender() -> Option<PathBuf> {
    let found = std::process::Command::new("blender")
        .args(["-b", "--factory-startup", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some(PathBuf::from("blender"));
    }
    missing_tool(
        "Blender",
        "apt-get install blender python3-numpy (.ci/run does it)",
    )
}

/// World matrices (glTF) of every node of `sk` at MAN frame `f`: the MDH's rest pose with the
/// MAN's samples of that frame (parents come first in these skeletons).
pub fn world_at(sk: &Skeleton, man: &Man, f: usize) -> Vec<DMat4> {
    let s = man.samples().unwrap();
    let decoded = man.decode_samples();
    let n = s.node_indices.len();
    let mut local: Vec<DMat4> = sk.rest.iter().map(|r| r.matrix()).collect();
    for (k, &idx) in s.node_indices.iter().enumerate() {
        let (q, p) = decoded[f * n + k];
        let q = rotation_to_gltf(q.to_array()).map(f64::from);
        let p = position_to_gltf(p.to_array()).map(f64::from);
        local[idx as usize] =
            DMat4::from_rotation_translation(DQuat::from_array(q), DVec3::from_array(p));
    }
    let mut world = vec![DMat4::IDENTITY; sk.len()];
    for i in 0..sk.len() {
        world[i] = match sk.parents[i] {
            Some(p) => world[p] * local[i],
            None => local[i],
        };
    }
    world
}

/// Run `roundtrip-tests/blender/SCRIPT` in Blender headless with `args`; it must exit 0 and
/// print `marker`; its JSON report (written to `report`) is returned.
pub fn run_script(
    exe: &Path,
    script: &str,
    args: &[&std::ffi::OsStr],
    marker: &str,
    report: &Path,
) -> Value {
    let out = std::process::Command::new(exe)
        .args(["-b", "--factory-startup", "--python"])
        .arg(
            crate::common::root()
                .join("roundtrip-tests/blender")
                .join(script),
        )
        .arg("--")
        .args(args)
        .output()
        .expect("blender runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(marker),
        "blender failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap()
}

fn script() -> PathBuf {
    crate::common::root().join("roundtrip-tests/blender/roundtrip.py")
}

/// Run the Blender side; returns its report.
pub fn blender_roundtrip(
    exe: &Path,
    input: &Path,
    output: &Path,
    fps: u32,
    edit: Option<(&str, &str, u32, f32)>,
) -> Value {
    let report = output.with_extension("json");
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["-b", "--factory-startup", "--python"])
        .arg(script())
        .arg("--")
        .args([input, output, &report])
        .arg(fps.to_string());
    if let Some((action, bone, frame, degrees)) = edit {
        cmd.args([
            "--edit",
            action,
            bone,
            &frame.to_string(),
            &degrees.to_string(),
        ]);
    }
    let out = cmd.output().expect("blender runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("animkit-blender: ok"),
        "blender failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap()
}

/// glTF (y up) to Blender (z up): (x, y, z) → (x, -z, y).
fn to_blender() -> DMat3 {
    DMat3::from_cols(
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, 0.0, 1.0),
        DVec3::new(0.0, -1.0, 0.0),
    )
}

fn rows(v: &Value) -> DMat4 {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    DMat4::from_cols_array(&a.try_into().unwrap()).transpose()
}

/// Every bone's head and motion in Blender at the sampled frames is what the MAN decodes to.
fn check_poses(report: &Value, track: &str, sk: &Skeleton, man: &Man) {
    let samples = &report["samples"][track];
    let frames: Vec<usize> = samples
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.parse().unwrap())
        .collect();
    assert!(frames.len() >= 2, "{frames:?}");
    let a = to_blender();
    for f in frames {
        let world = world_at(sk, man, f);
        let bones = &samples[f.to_string()];
        for (i, name) in sk.names.iter().enumerate() {
            let b = &bones[name.as_str()];
            let (m, rest) = (rows(&b["matrix"]), rows(&b["rest"]));
            let head = m.w_axis.truncate();
            let want = a * world[i].w_axis.truncate();
            assert!(
                head.distance(want) < 1e-4,
                "{track} frame {f} {name}: head {head} vs {want}"
            );
            // The motion from the rest pose, which does not depend on how Blender turned
            // the bone: R_pose · R_rest⁻¹ = A · (W_f · W_rest⁻¹) · A⁻¹.
            let got = DQuat::from_mat3(&(DMat3::from_mat4(m) * DMat3::from_mat4(rest).inverse()));
            let motion = DMat3::from_mat4(world[i]) * DMat3::from_mat4(sk.world[i]).inverse();
            let want = DQuat::from_mat3(&(a * motion * a.transpose()));
            // (acos of a dot product near 1 loses digits; the vector part does not)
            let off = 2.0 * (got * want.conjugate()).xyz().length().min(1.0).asin();
            assert!(
                off < 1e-4,
                "{track} frame {f} {name}: rotation off by {off} rad"
            );
        }
    }
}

fn human() -> (Skeleton, Vec<u8>, Vec<u8>) {
    let mdh = Mdh::read(&std::fs::read(sample("HUMAN.MDH")).unwrap()).unwrap();
    (
        Skeleton::from_mdh(&mdh).unwrap(),
        std::fs::read(sample("HUMAN-S_WALKL.MAN")).unwrap(),
        std::fs::read(sample("HUMAN-S_RUNL.MAN")).unwrap(),
    )
}

#[test]
#[cfg_attr(
    any(missing = "blender", missing = "gltf_validator"),
    ignore = "needs Blender (apt-get install blender python3-numpy) and the glTF validator (npm install in roundtrip-tests/node)"
)]
fn blender_shows_the_motion_and_gives_back_the_same_bytes() {
    let Some(exe) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (sk, walk, runl) = human();
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_WALKL.MAN")),
            s(&sample("HUMAN-S_RUNL.MAN")),
            "--mdh",
            s(&sample("HUMAN.MDH")),
            "-o",
            "human.glb",
        ],
    );
    let report = blender_roundtrip(&exe, &d.join("human.glb"), &d.join("blender.glb"), 25, None);
    // The armature: one bone per MDH node, the MDH's parents.
    assert_eq!(report["armature"], "HUMAN");
    let bones: Vec<(String, Option<String>)> = report["bones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["parent"].as_str().map(str::to_string),
            )
        })
        .collect();
    let mut want: Vec<(String, Option<String>)> = (0..sk.len())
        .map(|i| {
            (
                sk.names[i].clone(),
                sk.parents[i].map(|p| sk.names[p].clone()),
            )
        })
        .collect();
    let mut got = bones.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    // The actions: one per MAN, frames 0 .. frame_count - 1.
    assert_eq!(
        report["actions"]["S_WALKL_HUMAN"],
        serde_json::json!([0.0, 31.0])
    );
    assert_eq!(
        report["actions"]["S_RUNL_HUMAN"],
        serde_json::json!([0.0, 19.0])
    );
    check_poses(&report, "S_WALKL", &sk, &Man::read(&walk).unwrap());
    check_poses(&report, "S_RUNL", &sk, &Man::read(&runl).unwrap());

    // Blender's export, imported into each MAN: the original bytes.
    for (name, bytes) in [("HUMAN-S_WALKL.MAN", &walk), ("HUMAN-S_RUNL.MAN", &runl)] {
        let err = ok(
            d,
            &[
                "gltf",
                "import",
                "blender.glb",
                "--into",
                s(&sample(name)),
                "--mdh",
                s(&sample("HUMAN.MDH")),
                "-o",
                name,
            ],
        );
        assert!(err.contains(" 0 samples changed"), "{err}");
        assert_eq!(&std::fs::read(d.join(name)).unwrap(), bytes, "{name}");
    }
    if let Some(v) = validator() {
        validate(&v, &[d.join("human.glb")]);
    }
}

#[test]
#[cfg_attr(
    missing = "blender",
    ignore = "needs Blender (apt-get install blender python3-numpy)"
)]
fn one_bone_turned_in_blender_changes_that_node_at_that_frame() {
    let Some(exe) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_WALKL.MAN")),
            s(&sample("HUMAN-S_RUNL.MAN")),
            "--mdh",
            s(&sample("HUMAN.MDH")),
            "-o",
            "human.glb",
        ],
    );
    let report = blender_roundtrip(
        &exe,
        &d.join("human.glb"),
        &d.join("edited.glb"),
        25,
        Some(("S_WALKL", "BIP01 L FOREARM", 10, 30.0)),
    );
    assert_eq!(report["edited"]["frame"], 10);
    let walk = s(&sample("HUMAN-S_WALKL.MAN")).to_string();
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "edited.glb",
            "--into",
            &walk,
            "--mdh",
            s(&sample("HUMAN.MDH")),
            "-o",
            "W.MAN",
        ],
    );
    assert!(err.contains(" 1 samples changed"), "{err}");
    let (code, out, _) = run(d, &["diff", &walk, "W.MAN"]);
    assert_eq!(code, 1, "{out}");
    // BIP01 L FOREARM is MDH node 9, column 9 of the walk; turned by 30° at frame 10 only
    // (named by HUMAN.MDH beside the walk), not moved.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].starts_with("BIP01 L FOREARM: frame 10: rotation 29.99")
            || lines[0].starts_with("BIP01 L FOREARM: frame 10: rotation 30.00"),
        "{out}"
    );
    assert!(!lines[0].contains("position"), "{out}");
    // The run was not touched.
    let run_man = s(&sample("HUMAN-S_RUNL.MAN")).to_string();
    ok(
        d,
        &[
            "gltf",
            "import",
            "edited.glb",
            "--into",
            &run_man,
            "--mdh",
            s(&sample("HUMAN.MDH")),
            "-o",
            "R.MAN",
        ],
    );
    assert_eq!(
        std::fs::read(d.join("R.MAN")).unwrap(),
        std::fs::read(sample("HUMAN-S_RUNL.MAN")).unwrap()
    );
}

/// Other skeletons and frame rates: IDLE at 25 fps (all bones along y: Blender keeps them), the
/// run stored at 10 fps, IDLE on a generated skeleton of two trees (the skin's joints get a
/// common parent that is no bone).
#[test]
#[cfg_attr(
    missing = "blender",
    ignore = "needs Blender (apt-get install blender python3-numpy)"
)]
fn blender_round_trip_at_other_rates_and_skeletons() {
    let Some(exe) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut run10 = Man::read(&std::fs::read(sample("HUMAN-S_RUNL.MAN")).unwrap()).unwrap();
    for c in &mut run10.chunks {
        if let animkit::zengin::man::Chunk::Header(h) = c {
            h.fps = animkit::exact::F32::new(10.0);
        }
    }
    let mut bytes = Vec::new();
    run10.write(&mut bytes).unwrap();
    std::fs::write(d.join("RUN10.MAN"), &bytes).unwrap();
    std::fs::copy(sample("HUMAN.MDH"), d.join("HUMAN.MDH")).unwrap();
    for (man, mdh, fps) in [
        (d.join("RUN10.MAN"), d.join("HUMAN.MDH"), 10),
        (sample("IDLE.MAN"), sample("SAMPLE.MDH"), 25),
    ] {
        ok(
            d,
            &[
                "gltf",
                "export",
                s(&man),
                "--mdh",
                s(&mdh),
                "-o",
                "in.glb",
                "--force",
            ],
        );
        let report = blender_roundtrip(&exe, &d.join("in.glb"), &d.join("out.glb"), fps, None);
        assert_eq!(report["frame_range"][0], 0, "{report}");
        ok(
            d,
            &[
                "gltf",
                "import",
                "out.glb",
                "--into",
                s(&man),
                "--mdh",
                s(&mdh),
                "-o",
                "BACK.MAN",
                "--force",
            ],
        );
        assert_eq!(
            std::fs::read(d.join("BACK.MAN")).unwrap(),
            std::fs::read(&man).unwrap(),
            "{}",
            man.display()
        );
    }
}
