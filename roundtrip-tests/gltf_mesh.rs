//! glTF with the character: a real model (the swamp rat of PiotrDrozdz96/Gothic: MDH, body MDM
//! and animations) exported with its mesh, checked by the Khronos validator and by Blender: a
//! vertex weighted fully to one bone follows that bone's world transform (computed here from
//! the MDH and the MAN) at sampled frames, within 1 mm.

use crate::common::corpus;
use crate::gltf::{ok, s, validate, validator};
use crate::gltf_blender::{blender, run_script, world_at};
use animkit::registry::Codec;
use animkit::zengin::gltf::coords::position_to_gltf;
use animkit::zengin::gltf::Skeleton;
use animkit::zengin::man::Man;
use animkit::zengin::mdh::Mdh;
use animkit::zengin::mdm::Mdm;
use glam::{DMat4, DVec3};
use serde_json::Value;
use std::path::{Path, PathBuf};

const DIR: &str = "realworld/{}/PiotrDrozdz96+Gothic/Anims/_compiled";

fn file(kind: &str, name: &str) -> Option<PathBuf> {
    let p = corpus()?.join(DIR.replace("{}", kind)).join(name);
    assert!(p.is_file(), "corpus file {} is missing", p.display());
    Some(p)
}

/// glTF (y up) to Blender (z up).
fn to_blender(v: DVec3) -> DVec3 {
    DVec3::new(v.x, -v.z, v.y)
}

fn vec3(v: &Value) -> DVec3 {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    DVec3::new(a[0], a[1], a[2])
}

fn run_blender(exe: &Path, glb: &Path, action: &str, frames: &[u32]) -> Value {
    let report = glb.with_extension("json");
    let frames: Vec<String> = frames.iter().map(|f| f.to_string()).collect();
    let mut args: Vec<&std::ffi::OsStr> =
        vec![glb.as_os_str(), report.as_os_str(), action.as_ref()];
    args.extend(frames.iter().map(std::ffi::OsStr::new));
    run_script(exe, "skinned.py", &args, "animkit-blender: ok", &report)
}

#[test]
#[cfg_attr(
    any(missing = "blender", missing = "corpus", missing = "gltf_validator"),
    ignore = "needs Blender (apt-get install blender python3-numpy) and ../shared/corpus and the glTF validator (npm install in roundtrip-tests/node)"
)]
fn a_real_character_deforms_with_its_bones_in_blender() {
    let (Some(mdh), Some(mdm), Some(run), Some(surprise)) = (
        file("mdh", "SWAMPRAT.MDH"),
        file("mesh", "SWAMPRAT_BODY.MDM"),
        file("man", "SWAMPRAT-S_FISTRUN.MAN"),
        file("man", "SWAMPRAT-S_SURPRISE.MAN"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let err = ok(
        d,
        &[
            "gltf",
            "export",
            s(&run),
            s(&surprise),
            "--mdh",
            s(&mdh),
            "--mesh",
            s(&mdm),
            "-o",
            "rat.glb",
        ],
    );
    assert!(err.contains("33 nodes, 1 mesh, 2 animations"), "{err}");
    if let Some(v) = validator() {
        let r = validate(&v, &[d.join("rat.glb")]);
        let messages = r[0]["messages"].to_string();
        assert!(!messages.contains("UNUSED_OBJECT"), "{messages}");
    }
    let Some(exe) = blender() else { return };

    let sk = Skeleton::from_mdh(&Mdh::read(&std::fs::read(&mdh).unwrap()).unwrap()).unwrap();
    let man = Man::read(&std::fs::read(&run).unwrap()).unwrap();
    let body = Mdm::decode(&std::fs::read(&mdm).unwrap()).unwrap();
    let skin = &body.mesh.softskins[0];
    let fps = man.header().unwrap().fps.get();
    assert_eq!(fps, 12.5);
    // MAN frames 0, 15, 30 are Blender frames 0, 30, 60 at the scene's 25 fps
    let man_frames = [0usize, 15, 30];
    let frames: Vec<u32> = man_frames
        .iter()
        .map(|&k| (k as f32 * 25.0 / fps) as u32)
        .collect();
    let report = run_blender(&exe, &d.join("rat.glb"), "S_FISTRUN", &frames);

    let meshes = report["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 1, "{meshes:?}");
    assert_eq!(meshes[0]["name"], "SWAMPRAT_BODY");
    assert_eq!(meshes[0]["skinned"], true);
    let b = &report["skinned"]["SWAMPRAT_BODY"];
    let rest: Vec<DVec3> = b["rest"].as_array().unwrap().iter().map(vec3).collect();

    // every vertex weighted fully to one bone
    let worlds: Vec<Vec<DMat4>> = man_frames.iter().map(|&k| world_at(&sk, &man, k)).collect();
    let (mut checked, mut moved) = (0, 0.0f64);
    for w in &skin.weights {
        let [one] = w.as_slice() else { continue };
        if one.weight.get() != 1.0 {
            continue;
        }
        let node = usize::from(one.node);
        let local = DVec3::from_array(
            position_to_gltf(one.position.map(animkit::exact::F32::get)).map(f64::from),
        );
        let bind = to_blender(sk.world[node].transform_point3(local));
        // the Blender vertex at that rest position (the importer keeps one per glTF vertex)
        let (bi, dist) = rest
            .iter()
            .enumerate()
            .map(|(i, r)| (i, r.distance(bind)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        assert!(
            dist < 1e-5,
            "no Blender vertex at the rest position {bind} (nearest {dist} m)"
        );
        let groups = &b["groups"][bi];
        assert_eq!(groups.as_array().unwrap().len(), 1, "{groups}");
        assert_eq!(groups[0][0], sk.names[node].as_str());
        for (fi, f) in frames.iter().enumerate() {
            let got = vec3(&b["posed"][f.to_string()][bi]);
            let want = to_blender(worlds[fi][node].transform_point3(local));
            assert!(
                got.distance(want) < 0.001,
                "vertex on {} at frame {f}: {got} vs {want} ({} mm off)",
                sk.names[node],
                got.distance(want) * 1000.0
            );
            moved = moved.max(got.distance(bind));
        }
        checked += 1;
    }
    assert!(
        checked > 100,
        "only {checked} vertices with one full weight"
    );
    // the run moves the body: the check compares moved vertices, not the rest pose
    assert!(moved > 0.05, "largest movement {moved} m");
}

/// The JSON of a GLB file.
pub fn glb_json(path: &Path) -> Value {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"glTF");
    let n = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&b[20..20 + n]).unwrap()
}

/// `--model` in a folder with the mesh and head named, and a body with its textures: every
/// part where it belongs, the textures embedded as PNG, the validator content.
#[test]
#[cfg_attr(
    any(missing = "corpus", missing = "gltf_validator"),
    ignore = "needs ../shared/corpus and the glTF validator (npm install in roundtrip-tests/node)"
)]
fn meshes_by_name_in_a_model_folder_and_textures_as_png() {
    let (Some(mdh), Some(mdm), Some(run), Some(head), Some(human), Some(armor)) = (
        file("mdh", "SWAMPRAT.MDH"),
        file("mesh", "SWAMPRAT_BODY.MDM"),
        file("man", "SWAMPRAT-S_FISTRUN.MAN"),
        file("mesh", "ORCSTONE_HEAD.MMB"),
        file("mdh", "HUMANS_RUN.MDH"),
        file("mesh", "HUM_DHTS_ARMOR.MDM"),
    ) else {
        return;
    };
    let textures = corpus()
        .unwrap()
        .join("realworld/mesh/PiotrDrozdz96+Gothic/Textures");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = d.join("model");
    std::fs::create_dir(&model).unwrap();
    for p in [&mdh, &mdm, &run, &head] {
        std::fs::copy(p, model.join(p.file_name().unwrap())).unwrap();
    }
    let err = ok(
        d,
        &[
            "gltf",
            "export",
            "model",
            "--model",
            "SWAMPRAT",
            "--mesh",
            "swamprat_body",
            "--head",
            "ORCSTONE_HEAD",
            "-o",
            "rat.glb",
        ],
    );
    assert!(err.contains("2 meshes, 1 animation"), "{err}");
    let j = glb_json(&d.join("rat.glb"));
    let nodes = j["nodes"].as_array().unwrap();
    let head_node = nodes
        .iter()
        .position(|n| n["name"] == "BIP01 HEAD")
        .unwrap();
    let head_mesh = nodes
        .iter()
        .position(|n| n["name"] == "ORCSTONE_HEAD")
        .unwrap();
    assert!(nodes[head_node]["children"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(head_mesh)));
    let body = nodes.iter().find(|n| n["name"] == "SWAMPRAT_BODY").unwrap();
    assert_eq!(body["skin"], 0);
    // the head is rigid: no joints
    let head_prim =
        &j["meshes"][nodes[head_mesh]["mesh"].as_u64().unwrap() as usize]["primitives"][0];
    assert!(head_prim["attributes"].get("JOINTS_0").is_none());

    // a human armour with its texture from the textures folder (no animations)
    let err = ok(
        d,
        &[
            "gltf",
            "export",
            "--mdh",
            s(&human),
            "--mesh",
            s(&armor),
            "--textures",
            s(&textures),
            "-o",
            "human.glb",
        ],
    );
    assert!(err.contains("0 animations"), "{err}");
    let j = glb_json(&d.join("human.glb"));
    let images: Vec<&str> = j["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(images, ["HUM_BODY_POSSESSED_V0_C0.TGA"]);
    assert_eq!(j["images"][0]["mimeType"], "image/png");
    if let Some(v) = validator() {
        let r = validate(&v, &[d.join("rat.glb"), d.join("human.glb")]);
        for x in r {
            assert!(!x["messages"].to_string().contains("UNUSED_OBJECT"), "{x}");
            assert_eq!(x["infos"], 0, "{x}");
        }
    }
}
