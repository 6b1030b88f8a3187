//! The mesh formats' YAML through the command line: a real head exported, its texture and a
//! morph offset edited, imported, and `animkit diff` naming both fields; an edit the file cannot
//! hold refused with the YAML's line and column and the field, nothing written.

use crate::common::{corpus_path, run};

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_head_edited_in_yaml_and_diffed_by_field() {
    let Some(head) =
        corpus_path("realworld/mesh/PiotrDrozdz96+Gothic/Anims/_compiled/ORCSTONE_HEAD.MMB")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(&head, d.join("HEAD.MMB")).unwrap();
    let (code, _, err) = run(d, &["export", "HEAD.MMB", "-o", "HEAD.yaml"]);
    assert_eq!(code, 0, "{err}");
    let yaml = std::fs::read_to_string(d.join("HEAD.yaml")).unwrap();
    // the S_ANGRY expression's first offset, and the texture
    let angry = yaml.find("  - name: S_ANGRY\n").unwrap();
    let frames = angry + yaml[angry..].find("    frames:\n").unwrap();
    let line_start = frames + "    frames:\n".len();
    let line_end = line_start + yaml[line_start..].find('\n').unwrap();
    let first = &yaml[line_start..line_end];
    // a frame of 36 offsets is one line each: `- - [x, y, z]`, then `  - [x, y, z]`
    assert!(first.starts_with("    - - ["), "{first}");
    let mut edited = yaml.clone();
    edited.replace_range(line_start..line_end, "    - - [1.5, 2.5, 3.5]");
    let edited = edited.replacen("texture: MOSTHEAD01.TGA", "texture: MOSTHEAD02.TGA", 1);
    std::fs::write(d.join("EDITED.yaml"), &edited).unwrap();
    let (code, _, err) = run(d, &["import", "EDITED.yaml", "-o", "NEW.MMB"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(d, &["diff", "HEAD.MMB", "NEW.MMB"]);
    assert_eq!(code, 1, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(
        lines[0],
        "chunks[2].mesh.materials[0].texture: \"MOSTHEAD01.TGA\" → \"MOSTHEAD02.TGA\""
    );
    assert!(
        lines[1].starts_with("chunks[5].animations[1].frames[0][0]: [")
            && lines[1].ends_with(" → [1.5, 2.5, 3.5]"),
        "{}",
        lines[1]
    );
    // the same file size: a letter and twelve bytes of floats changed in place
    let (a, b) = (
        std::fs::read(d.join("HEAD.MMB")).unwrap(),
        std::fs::read(d.join("NEW.MMB")).unwrap(),
    );
    assert_eq!(a.len(), b.len());
    let changed = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!((2..=13).contains(&changed), "{changed} bytes changed");

    // an offset too few in a frame: refused at its line, nothing written
    let second_end = line_end + 1 + yaml[line_end + 1..].find('\n').unwrap();
    let mut short = yaml.clone();
    short.replace_range(line_end..second_end, "");
    std::fs::write(d.join("SHORT.yaml"), &short).unwrap();
    let (code, _, err) = run(d, &["import", "SHORT.yaml", "-o", "SHORT.MMB"]);
    assert_eq!(code, 2, "{err}");
    let line = yaml[..line_start].lines().count() + 1;
    assert!(
        err.contains(&format!("SHORT.yaml:{line}:"))
            && err
                .contains("chunks[5].animations[1].frames[0]: 35 offsets, but `vertices` lists 36"),
        "{err}"
    );
    assert!(!d.join("SHORT.MMB").exists());
}
