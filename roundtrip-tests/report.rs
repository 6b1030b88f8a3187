//! Reports that must be true (issue 11): closed pipes, diffs, `--json`, refused edits.

use crate::common::{animkit, root, run};
use std::path::Path;
use std::process::Stdio;

fn samples() -> std::path::PathBuf {
    root().join("samples")
}

/// Run animkit with stdout a pipe whose reading end is already closed (as `| head` leaves
/// it); returns (exit code, stderr).
// std::io::pipe is Rust 1.87 (the crate's MSRV is 1.85): in this test only, where a portable,
// race-free closed pipe is worth it.
#[allow(clippy::incompatible_msrv)]
fn run_closed_stdout(dir: &Path, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = animkit()
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("animkit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn no_command_panics_on_a_closed_stdout() {
    let s = samples();
    let cases: &[(&[&str], i32)] = &[
        (&["diff", "WALK.MAN", "GARBAGE.MAN"], 1),
        (&["diff", "--yaml", "WALK.MAN", "GARBAGE.MAN"], 1),
        (&["diff", "WALK.MAN", "WALK.MAN"], 0),
        (&["info", "WALK.MAN", "HUMAN.MDH", "ANIM.ZBD"], 0),
        (&["check", "WALK.MAN", "SAMPLE.MSB"], 0),
        (&["verify", "WALK.MAN", "SAMPLE.MDS", "ANIMS.VDF"], 0),
        (&["export", "WALK.MAN"], 0),
        (&["vdf", "list", "ANIMS.VDF"], 0),
        (&["checksum", "BIP01"], 0),
        (&["schema", "zengin.man"], 0),
    ];
    for (args, want) in cases {
        let (code, err) = run_closed_stdout(&s, args);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!((code, err.as_str()), (*want, ""), "{args:?}");
    }
}

#[test]
fn export_refuses_a_skeleton_of_another_checksum_without_force() {
    let s = samples();
    let (code, out, err) = run(&s, &["export", "WALK.MAN", "--mdh", "SAMPLE.MDH"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (2, "", "animkit: error: WALK.MAN: the file's key (checksum) is 0x2dfb0782, its companion's (zengin.mdh) is 0x0519cb77: they do not belong together (`check --with` says more); pass --force to export with it anyway\n")
    );
    let (code, out, err) = run(
        &s,
        &["export", "WALK.MAN", "--with", "SAMPLE.MDH", "--force"],
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("format: zengin.man"), "{out}");
    assert_eq!(err, "animkit: warning: WALK.MAN: the file's key (checksum) is 0x2dfb0782, its companion's (zengin.mdh) is 0x0519cb77: they do not belong together (`check --with` says more)\n");
    // The skeleton it was made for: no message.
    let (code, _, err) = run(&s, &["export", "IDLE.MAN", "--mdh", "SAMPLE.MDH"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn diff_after_a_requantizing_position_edit_reports_no_rotation_change() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::copy(samples().join("WALK.MAN"), p.join("WALK.MAN")).unwrap();
    let (code, yaml, err) = run(p, &["export", "WALK.MAN"]);
    assert_eq!(code, 0, "{err}");
    // One position far outside the range: every position code changes, no rotation does.
    let at = yaml.find("position: [").unwrap() + "position: [".len();
    let end = at + yaml[at..].find(']').unwrap();
    let edited = format!("{}1.0, 5000.0, 3.0{}", &yaml[..at], &yaml[end..]);
    std::fs::write(p.join("W.yaml"), edited).unwrap();
    let (code, _, err) = run(p, &["import", "W.yaml", "--requantize", "-o", "W2.MAN"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(p, &["diff", "WALK.MAN", "W2.MAN"]);
    assert_eq!(code, 1);
    let nodes: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("samples node"))
        .collect();
    assert!(!nodes.is_empty(), "{out}");
    for l in &nodes {
        assert!(l.contains("largest rotation change 0.0000°"), "{out}");
    }
}

#[test]
fn check_reports_references_a_rename_left_dangling() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::copy(samples().join("SAMPLE.MSB"), p.join("SAMPLE.MSB")).unwrap();
    let (_, yaml, _) = run(p, &["export", "SAMPLE.MSB"]);
    let note = "names no animation of this script (renamed? rename every reference too; an overlay may take it from its base script)";
    // Untouched: only the sample's combination (its C_LOOK_1 … 9 are not in the script).
    let (code, out, _) = run(p, &["check", "SAMPLE.MSB"]);
    assert_eq!(
        (code, out.as_str()),
        (0, format!("SAMPLE.MSB: warning: entries[11].aniComb.prefix: combines C_LOOK_1 … C_LOOK_9, of which 9 (C_LOOK_1, C_LOOK_2, C_LOOK_3, C_LOOK_4, …) {note}\nSAMPLE.MSB: ok (zengin.msb): 0 errors, 1 warnings\n").as_str())
    );
    // Rename S_WALK (and its own next) only: the alias and the sync still name S_WALK.
    let renamed = yaml
        .replacen("    name: S_WALK\n", "    name: S_STROLL\n", 1)
        .replacen("    next: S_WALK\n", "    next: S_STROLL\n", 1);
    std::fs::write(p.join("R.yaml"), renamed).unwrap();
    let (code, out, _) = run(p, &["check", "R.yaml", "--strict"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "R.yaml: warning: entries[8].aniAlias.alias_of: \"S_WALK\" {note}\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "R.yaml: warning: entries[10].aniSync.next: \"S_WALK\" {note}\n"
        )),
        "{out}"
    );
    assert!(
        out.ends_with("R.yaml: FAILED (zengin.msb): 0 errors, 3 warnings\n"),
        "{out}"
    );
    // Names compare without case, as in the engine.
    std::fs::write(
        p.join("C.yaml"),
        yaml.replace("alias_of: S_WALK", "alias_of: s_walk"),
    )
    .unwrap();
    let (_, out, _) = run(p, &["check", "C.yaml"]);
    assert!(
        out.ends_with("C.yaml: ok (zengin.msb): 0 errors, 1 warnings\n"),
        "{out}"
    );
}

/// Validate `doc` against `schemas/animkit.<command>.schema.json`.
pub fn assert_valid_report(command: &str, doc: &serde_json::Value) {
    let path = root().join(format!("schemas/animkit.{command}.schema.json"));
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{command}: {errors:#?}\n{doc:#}");
}

/// Run animkit with `--json`: (exit code, the one JSON document on stdout).
fn run_json(dir: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let (code, out, err) = run(dir, args);
    let doc: serde_json::Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}): {out}\n{err}"));
    assert_valid_report(args[0], &doc);
    (code, doc)
}

#[test]
fn json_reports_have_their_documented_shape() {
    use serde_json::json;
    let s = samples();
    let (code, doc) = run_json(&s, &["info", "--json", "WALK.MAN", "NOPE.MAN"]);
    assert_eq!(code, 1);
    assert_eq!(doc["report"], "animkit.info");
    let walk = &doc["files"][0];
    assert_eq!(
        (
            &walk["path"],
            &walk["format"],
            &walk["bytes"],
            &walk["yaml_document"]
        ),
        (
            &json!("WALK.MAN"),
            &json!("zengin.man"),
            &json!(4568),
            &json!(false)
        )
    );
    assert!(walk["summary"]
        .as_array()
        .unwrap()
        .contains(&json!({"label": "checksum", "value": "0x2dfb0782"})));
    assert!(doc["files"][1]["error"]
        .as_str()
        .unwrap()
        .contains("NOPE.MAN"));

    let (code, doc) = run_json(&s, &["check", "--json", "SAMPLE.MSB", "IDLE.MAN"]);
    assert_eq!(code, 0);
    assert_eq!(doc["files"][0]["warnings"], 1);
    assert_eq!(doc["files"][0]["findings"][0]["severity"], "warning");
    assert_eq!(
        doc["files"][0]["findings"][0]["path"],
        "entries[11].aniComb.prefix"
    );
    assert_eq!(
        doc["files"][1],
        json!({"path": "IDLE.MAN", "format": "zengin.man", "ok": true, "errors": 0, "warnings": 0, "findings": []})
    );

    let (code, doc) = run_json(&s, &["verify", "--json", "WALK.MAN", "ANIMS.VDF"]);
    assert_eq!(code, 0);
    assert_eq!(
        doc["files"][0],
        json!({"path": "WALK.MAN", "outcome": "ok", "format": "zengin.man"})
    );
    assert_eq!(doc["totals"]["mismatched"], 0);
    assert_eq!(
        doc["totals"]["files"],
        doc["files"].as_array().unwrap().len()
    );

    let (code, doc) = run_json(&s, &["diff", "--json", "WALK.MAN", "GARBAGE.MAN"]);
    assert_eq!(code, 1);
    assert_eq!(
        (&doc["equal"], &doc["format"]),
        (&json!(false), &json!("zengin.man"))
    );
    assert!(doc["changes"]
        .as_array()
        .unwrap()
        .contains(&json!("header.name: \"S_WALK\" → \"S_GARBAGE\"")));
    // Each change also as data (items), values as numbers, texts and lists, not printed text.
    let items = doc["items"].as_array().unwrap();
    assert_eq!(items.len(), doc["changes"].as_array().unwrap().len());
    assert!(items.contains(
        &json!({"path": "header.name", "old": "S_WALK", "new": "S_GARBAGE",
        "text": "header.name: \"S_WALK\" → \"S_GARBAGE\""})
    ));
    assert!(
        items.contains(&json!({"path": "header.frame_count", "old": 30, "new": 8,
        "text": "header.frame_count: 30 → 8"}))
    );
    let event = items.iter().find(|i| i["path"] == "events[1]").unwrap();
    assert_eq!(
        (
            &event["old"],
            &event["new"]["frame"],
            &event["new"]["content"][0]
        ),
        (&serde_json::Value::Null, &json!(1), &json!("WHOOSH"))
    );
    let (code, doc) = run_json(&s, &["diff", "--json", "WALK.MAN", "WALK.MAN"]);
    assert_eq!((code, &doc["changes"]), (0, &json!([])));
}

#[test]
fn diff_lines_say_where_and_show_values_as_the_yaml_does() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for f in ["ANIM.ZBD", "WALK.MAN"] {
        std::fs::copy(samples().join(f), p.join(f)).unwrap();
    }
    // MW3: the changed event named by its place in the document.
    let (_, yaml, _) = run(p, &["export", "ANIM.ZBD"]);
    let from = "    - {start: event, time: 2.0, sound: {sound: {index: 1, name: \"\\x01\"}, pos: [1.0e-45, 1.0e-45, 0.0]}}\n";
    assert!(yaml.contains(from), "{yaml}");
    std::fs::write(
        p.join("A.yaml"),
        yaml.replacen(from, &from.replace("time: 2.0", "time: 2.5"), 1),
    )
    .unwrap();
    let (code, out, err) = run(p, &["diff", "ANIM.ZBD", "A.yaml"]);
    assert_eq!(
        (code, out.as_str()),
        (1, "anim_defs[0].sequences[1].events[2]: {start: event, time: 2.0, sound: {sound: {index: 1, name: \"\\x01\"}, pos: [1.0e-45, 1.0e-45, 0.0]}} → {start: event, time: 2.5, sound: {sound: {index: 1, name: \"\\x01\"}, pos: [1.0e-45, 1.0e-45, 0.0]}}\n"),
        "{err}"
    );
    // MAN (also what a VDF diff shows inside a changed member): a bbox as the YAML writes it.
    let (_, yaml, _) = run(p, &["export", "WALK.MAN"]);
    let from = "bbox: {min: [0.0, -2.4852848, -10.0], max: [29.225504, 85.0, -2.75]}";
    std::fs::write(
        p.join("W.yaml"),
        yaml.replacen(from, &from.replace("85.0", "90.5"), 1),
    )
    .unwrap();
    let (code, out, _) = run(p, &["diff", "WALK.MAN", "W.yaml"]);
    assert_eq!(
        (code, out.as_str()),
        (1, "header.bbox: {min: [0.0, -2.4852848, -10.0], max: [29.225504, 85.0, -2.75]} → {min: [0.0, -2.4852848, -10.0], max: [29.225504, 90.5, -2.75]}\n")
    );
}
