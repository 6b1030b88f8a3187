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

/// The engine stores a MAN sample's rotation as the conjugate of the rotation its MDH
/// matrices hold: in the real files (the swamp rat's 71 animations, the humans of asc-pairs
/// with HUMANS_RUN.MDH), a node's first-frame rotation, read so (`rotation_to_gltf`), is close
/// to its rest rotation from the MDH, as animations mostly are; read as the same rotation as
/// the matrix, the two are far apart (a body at rest would be drawn twisted).
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn man_rotations_are_the_conjugate_of_the_mdh_rest() {
    use animkit::zengin::gltf::coords::rotation_to_gltf;
    use glam::DQuat;
    let Some(root) = corpus() else { return };
    let real = root.join("realworld");
    let mut sets: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    let rat: Vec<PathBuf> = std::fs::read_dir(root.join(DIR.replace("{}", "man")))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("SWAMPRAT-")
        })
        .collect();
    sets.push((file("mdh", "SWAMPRAT.MDH").unwrap(), rat));
    let humans: Vec<PathBuf> = walkdir::WalkDir::new(real.join("asc-pairs"))
        .into_iter()
        .map(|e| e.unwrap().path().to_path_buf())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_uppercase();
            n.starts_with("HUMANS") && n.ends_with(".MAN")
        })
        .collect();
    sets.push((file("mdh", "HUMANS_RUN.MDH").unwrap(), humans));
    let angle = |a: DQuat, b: DQuat| 2.0 * a.dot(b).abs().min(1.0).acos().to_degrees();
    let (mut conj, mut same) = (Vec::new(), Vec::new());
    let mut files = 0;
    for (mdh, mans) in &sets {
        let sk = Skeleton::from_mdh(&Mdh::read(&std::fs::read(mdh).unwrap()).unwrap()).unwrap();
        for m in mans {
            let man = Man::read(&std::fs::read(m).unwrap()).unwrap();
            let s = man.samples().unwrap();
            let dec = man.decode_samples();
            files += 1;
            for (k, &node) in s.node_indices.iter().enumerate() {
                let rest = DQuat::from_array(sk.rest[node as usize].rotation.map(f64::from));
                let q = dec[k].0.to_array();
                let read = DQuat::from_array(rotation_to_gltf(q).map(f64::from));
                let as_matrix = DQuat::from_array([q[0], -q[1], -q[2], q[3]].map(f64::from));
                conj.push(angle(rest, read));
                same.push(angle(rest, as_matrix));
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    let (mc, ms) = (median(&mut conj), median(&mut same));
    eprintln!(
        "{files} MANs, {} node samples: median {mc:.1}° (conjugate) vs {ms:.1}° (as the matrix)",
        conj.len()
    );
    assert!(files >= 79, "{files}");
    assert!(mc < 15.0, "median {mc}°");
    assert!(ms > 60.0, "median {ms}°");
}

/// The README picture's pipeline (`blender/render_readme`: a real human of the corpus with
/// its body mesh, head and textures exported by animkit, posed in Blender at frame 12 of
/// T_1HPARADE_O and rendered by Cycles headless), run at 64×48 with 4 samples: the PNG has
/// that size, the model covers a plausible part of the frame, its pixels hold many colours
/// (textured, not one flat material) that are not the background's, three materials have
/// their texture image and the head is there; and the committed picture is a 480×360 PNG.
#[test]
#[cfg_attr(
    any(missing = "blender", missing = "corpus"),
    ignore = "needs Blender (apt-get install blender python3-numpy) and ../shared/corpus"
)]
fn gltf_readme_render_of_a_real_model() {
    let Some(_) = blender() else { return };
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (png_path, report) = (dir.path().join("small.png"), dir.path().join("report.json"));
    let out = std::process::Command::new("bash")
        .arg(crate::common::root().join("blender/render_readme"))
        .arg(&png_path)
        .arg(env!("CARGO_BIN_EXE_animkit"))
        .args(["64", "48", "4"])
        .arg(&report)
        .env("ANIMKIT_CORPUS", &corpus)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |p: &Path| {
        let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info.width, info.height, info.color_type, buf)
    };
    let (w, h, color, pixels) = read(&png_path);
    assert_eq!((w, h), (64, 48));
    assert_eq!(color, png::ColorType::Rgb);
    let px: Vec<[u8; 3]> = pixels.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    let background = px[0];
    assert!(
        px[63] == background && px[64 * 47] == background,
        "corners differ"
    );
    let far = |a: [u8; 3]| (0..3).any(|i| a[i].abs_diff(background[i]) > 24);
    let model: Vec<[u8; 3]> = px.iter().copied().filter(|&p| far(p)).collect();
    let cover = model.len() as f64 / px.len() as f64;
    assert!(
        (0.08..0.7).contains(&cover),
        "the model covers {cover:.3} of the frame"
    );
    let mut colours: Vec<[u8; 3]> = model.iter().map(|p| p.map(|v| v >> 4)).collect();
    colours.sort();
    colours.dedup();
    assert!(
        colours.len() >= 20,
        "{} colours in the model",
        colours.len()
    );
    // the armour's dark textured cloth and leather, far below the light background
    let dark = model
        .iter()
        .filter(|p| p.iter().map(|&v| v as u32).sum::<u32>() < 3 * 90)
        .count();
    assert!(dark * 5 >= model.len(), "{dark} dark of {}", model.len());
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["size"], serde_json::json!([64, 48]));
    assert_eq!(
        (r["action"].as_str(), r["frame"].as_u64()),
        (Some("T_1HPARADE_O"), Some(12))
    );
    let textured: Vec<&String> = r["materials"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| **v == true)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(textured.len(), 3, "{textured:?}");
    assert!(
        textured.iter().all(|m| m.contains("ORCMERS_")),
        "{textured:?}"
    );
    let meshes: Vec<&str> = r["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(meshes.contains(&"DS_HEAD"), "{meshes:?}");
    assert!(
        meshes
            .iter()
            .filter(|m| m.starts_with("HUM_DMB_ARMOR_TPL"))
            .count()
            >= 10
    );
    // a standing figure about 1.8 m tall (Blender's z is up)
    let (lo, hi) = (&r["bounds"][0], &r["bounds"][1]);
    let tall = hi[2].as_f64().unwrap() - lo[2].as_f64().unwrap();
    assert!((1.4..2.2).contains(&tall), "{tall} m tall");
    let (w, h, _, _) = read(&crate::common::root().join("blender/model.png"));
    assert_eq!((w, h), (480, 360));
}
