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
    let v = folder::open(&path, &bytes).unwrap();
    let tree = folder::tree(&path, &v).unwrap();
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
        &bytes,
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

/// The structured mesh YAML of real files (a soft-skin MDM, a head MMB with its morph
/// animations, an MDL, a damaged MDL with a hex chunk) is valid under the stored schemas, and
/// a wrong type in a decoded field is caught.
#[test]
fn mesh_documents_validate_against_their_schema() {
    use animkit::codec::{Codec, ExportOptions};
    use animkit::zengin::{mdl::Mdl, mdm::Mdm, mmb::Mmb};
    let validator = |tag: &str| {
        let path = root().join(format!("schemas/{tag}.schema.json"));
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::validator_for(&schema).expect("schema compiles")
    };
    let check = |tag: &str, name: &str, yaml: String| {
        let value: serde_json::Value =
            serde_saphyr::from_str_with_options(&yaml, animkit::yaml::options(yaml.len())).unwrap();
        let errors: Vec<String> = validator(tag)
            .iter_errors(&value)
            .take(5)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        value
    };
    let o = ExportOptions::default();
    let mesh = "realworld/mesh";
    let Some(f) = crate::common::corpus_file(&format!(
        "{mesh}/PiotrDrozdz96+Gothic/Anims/_compiled/ORCSTONE_HEAD.MMB"
    )) else {
        return;
    };
    let head = check(
        "zengin.mmb",
        "ORCSTONE_HEAD.MMB",
        Mmb::decode(&f).unwrap().to_yaml(&o).unwrap(),
    );
    assert_eq!(head["chunks"][5]["animations"][4]["name"], "VISEME");
    let mut bad = head.clone();
    bad["chunks"][5]["animations"][4]["layer"] = serde_json::json!("two");
    assert!(!validator("zengin.mmb").is_valid(&bad));
    for (tag, file) in [
        ("zengin.mdm", "GothicKit+ZenKit/tests/samples/secretdoor.mdm"),
        ("zengin.mdm", "GothicKit+ZenKit/tests/samples/smoke_waterpipe.mdm"),
        (
            "zengin.mdm",
            "NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/ARMOR_DS_DARKMAG_01.MDM",
        ),
    ] {
        let f = crate::common::corpus_file(&format!("{mesh}/{file}")).unwrap();
        check(tag, file, Mdm::decode(&f).unwrap().to_yaml(&o).unwrap());
    }
    let mdl = "realworld/mdl/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled";
    for file in ["BIGORCDRUM_1.MDL", "TOMBRAIDER_DS.MDL"] {
        let f = crate::common::corpus_file(&format!("{mdl}/{file}")).unwrap();
        check(
            "zengin.mdl",
            file,
            Mdl::decode(&f).unwrap().to_yaml(&o).unwrap(),
        );
    }
}
