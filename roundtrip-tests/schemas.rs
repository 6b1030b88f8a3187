//! `schemas/` holds the JSON Schema of every document kind, generated from the Rust types.
//! Regenerate with `cargo run -- schema --out-dir schemas`.

use crate::common::root;
use animkit::registry::FORMATS;

#[test]
fn schemas_are_up_to_date() {
    let all = FORMATS.iter().map(|f| (f.tag(), f.schema())).chain(
        animkit::cli::schema::other_documents()
            .into_iter()
            .map(|(t, _, s)| (t, s)),
    );
    for (tag, schema) in all {
        let path = root().join("schemas").join(format!("{tag}.schema.json"));
        let stored = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run `cargo run -- schema --out-dir schemas`",
                path.display()
            )
        });
        let mut current = serde_json::to_string_pretty(&schema).unwrap();
        current.push('\n');
        assert!(
            stored == current,
            "{} is out of date; run `cargo run -- schema --out-dir schemas`",
            path.display()
        );
    }
}

#[test]
fn exported_documents_validate_against_their_schema() {
    // Every sample's YAML is valid under the stored schema.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/zengin.man.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    for f in ["WALK.MAN", "EVENTS.MAN", "GARBAGE.MAN", "UNKNOWN-CHUNK.MAN"] {
        let bytes = std::fs::read(root().join("samples").join(f)).unwrap();
        let man = animkit::zengin::man::Man::read(&bytes).unwrap();
        let yaml = animkit::zengin::man::yaml::to_yaml(&man).unwrap();
        let value: serde_json::Value =
            serde_saphyr::from_str_with_options(&yaml, animkit::yaml::options(yaml.len())).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{f}: {errors:#?}");
    }
    // And a wrong type is caught.
    let bad = serde_json::json!({"format": "zengin.man", "version": 1, "chunks": [{"header": {"version": "twelve"}}]});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn an_unpack_manifest_validates_against_its_schema() {
    use animkit::zengin::vdf::folder;
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/zengin.vdf.manifest.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let path = root().join("samples/ANIMS.VDF");
    let bytes = std::fs::read(&path).unwrap();
    let (v, tree) = folder::open(&path, &bytes).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("u");
    let opts = folder::UnpackOptions {
        yaml: true,
        ..Default::default()
    };
    folder::unpack(
        &path,
        &v,
        &tree,
        &dir,
        &opts,
        animkit::registry::formats(),
        &|_| {},
        &|| {},
    )
    .unwrap();
    let text = std::fs::read_to_string(dir.join(folder::MANIFEST)).unwrap();
    let value: serde_json::Value =
        serde_saphyr::from_str_with_options(&text, animkit::yaml::options(text.len())).unwrap();
    assert_eq!(value["format"], "zengin.vdf.manifest");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // A layout piece of an unknown kind is caught.
    let mut bad = value.clone();
    bad["layout"][0]["kind"] = "folder".into();
    assert!(!validator.is_valid(&bad));
}
