//! YAML documents as other tools write them: a BOM and CRLF line ends (Notepad, PowerShell),
//! a document that went through PyYAML (load → dump), schema validation of what a YAML 1.1
//! reader sees, and the messages of a document animkit does not know.

use crate::common::{corpus, root, run};
use std::path::{Path, PathBuf};

/// Every sample and corpus file of a registered binary format.
fn binaries() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("samples")];
    if let Some(c) = corpus() {
        dirs.extend(
            [
                "mw3",
                "ue3/lzo",
                "ue3/obf",
                "ue3/plain",
                "ue3/xor",
                "zengin",
            ]
            .map(|d| c.join(d)),
        );
    }
    let mut files = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_file() && animkit::registry::detect(&std::fs::read(&p).unwrap()).is_some() {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 16, "{files:?}");
    files
}

fn export(path: &Path) -> (Vec<u8>, String) {
    let bytes = std::fs::read(path).unwrap();
    let format = animkit::registry::detect(&bytes).unwrap();
    let asset = format.decode(&bytes).unwrap();
    let yaml = asset.to_yaml(&Default::default()).unwrap();
    (bytes, yaml)
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_document_with_a_bom_and_crlf_line_ends_imports_byte_identically() {
    let tmp = tempfile::tempdir().unwrap();
    for path in binaries() {
        let (bytes, yaml) = export(&path);
        let name = path.file_name().unwrap().to_str().unwrap();
        let dir = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let name = format!("{dir}-{name}");
        let doc = tmp.path().join(format!("{name}.yaml"));
        let mut text = String::from("\u{feff}");
        text.push_str(&yaml.replace('\n', "\r\n"));
        std::fs::write(&doc, text).unwrap();
        let out = tmp.path().join(format!("{name}.out"));
        let (code, _, err) = run(
            tmp.path(),
            &["import", doc.to_str().unwrap(), "-o", out.to_str().unwrap()],
        );
        assert_eq!(code, 0, "{name}: {err}");
        assert!(
            std::fs::read(&out).unwrap() == bytes,
            "{name}: bytes differ"
        );
    }
}

/// A document holding a byte that is not UTF-8 is refused as such, at that byte's offset,
/// before anything else, however the format reads it: a large MW3 document (read in pieces,
/// each checked as it is read) with the byte before the sequence, in it or after it, and a
/// small MAN document; no output is left. The untouched large document imports to its bytes.
#[test]
fn a_document_that_is_not_utf8_is_refused_at_its_byte() {
    use animkit::mw3::anim::gen::{self, Shape};
    let tmp = tempfile::tempdir().unwrap();
    let bytes = gen::file(5, &Shape::realistic(400)).expect("generates");
    let format = animkit::registry::detect(&bytes).unwrap();
    let yaml = format
        .decode(&bytes)
        .unwrap()
        .to_yaml(&Default::default())
        .unwrap();
    assert!(yaml.len() > 1 << 20, "large enough to be read in pieces");
    let doc = tmp.path().join("anim.yaml");
    std::fs::write(&doc, &yaml).unwrap();
    let (code, _, err) = run(tmp.path(), &["import", "anim.yaml", "-o", "anim.zbd"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(tmp.path().join("anim.zbd")).unwrap() == bytes);
    let defs = yaml.find("\nanim_defs:\n").unwrap();
    let (_, man) = export(&root().join("samples/WALK.MAN"));
    for (text, at) in [
        (&yaml, 2),
        (&yaml, defs - 3),
        (&yaml, yaml.len() / 2),
        (&yaml, yaml.len() - 2),
        (&man, man.len() / 2),
    ] {
        let mut b = text.clone().into_bytes();
        b[at] = 0xFF;
        std::fs::write(&doc, &b).unwrap();
        let (code, _, err) = run(tmp.path(), &["import", "anim.yaml", "-o", "out.bin"]);
        assert_eq!(code, 2, "{at}: {err}");
        let want = format!(
            "animkit: error: anim.yaml: not UTF-8 text: invalid utf-8 sequence of 1 bytes from index {at}"
        );
        assert!(err.contains(&want), "{at}: {err}");
        assert!(!tmp.path().join("out.bin").exists(), "{at}");
    }
}

#[test]
fn an_unknown_format_tag_lists_the_known_ones() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("x.yaml"),
        "format: zengin.mna\nversion: 1\n",
    )
    .unwrap();
    let (code, _, err) = run(tmp.path(), &["import", "x.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("unknown document format `zengin.mna` (known: mw3.anim, ue3.upk, zengin.asc, zengin.man, zengin.mdh, zengin.mdl, zengin.mdm, zengin.mds, zengin.mmb, zengin.msb, zengin.tex, zengin.vdf)"),
        "{err}"
    );
    let (code, _, err) = run(tmp.path(), &["info", "x.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("(known: mw3.anim, ue3.upk, "), "{err}");
}

/// PyYAML (python3-yaml, the YAML library most scripts use) loads each document and writes
/// what it loaded as JSON (`.json`) and as YAML again (`.py.yaml`, `yaml.safe_dump` with the
/// keys in document order).
const PYYAML: &str = r#"
import json, sys, yaml
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
def json_safe(v):
    # JSON has no NaN or infinity: their YAML spelling stands for them
    if isinstance(v, float) and v != v:
        return ".nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return ".inf" if v > 0 else "-.inf"
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    return v
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        data = yaml.load(f, Loader=Loader)
    with open(path + ".json", "w", encoding="utf-8") as f:
        json.dump(json_safe(data), f, default=str, allow_nan=False)
    with open(path + ".py.yaml", "w", encoding="utf-8") as f:
        yaml.dump(data, f, Dumper=Dumper, sort_keys=False, allow_unicode=True)
"#;

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_document_validates_and_survives_a_pyyaml_load_and_dump() {
    let tmp = tempfile::tempdir().unwrap();
    let mut docs = Vec::new();
    for path in binaries() {
        let (bytes, yaml) = export(&path);
        let name = path.file_name().unwrap().to_str().unwrap();
        let dir = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let doc = tmp.path().join(format!("{dir}-{name}.yaml"));
        std::fs::write(&doc, &yaml).unwrap();
        docs.push((doc, bytes, yaml));
    }
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(PYYAML)
        .args(docs.iter().map(|d| &d.0))
        .output()
        .expect("python3 runs (.ci/run installs python3-yaml)");
    assert!(
        out.status.success(),
        "PyYAML: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut failures = Vec::new();
    for (doc, bytes, yaml) in &docs {
        let name = doc.file_name().unwrap().to_str().unwrap();
        let format = animkit::registry::detect(bytes).unwrap();
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join(format!("schemas/{}.schema.json", format.tag())))
                .unwrap(),
        )
        .unwrap();
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        // The document as a YAML 1.2 reader (serde_yaml) and as PyYAML (YAML 1.1) sees it.
        let as_12: serde_json::Value =
            serde_saphyr::from_str_with_options(yaml, animkit::yaml::options(yaml.len())).unwrap();
        let as_11: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(doc.with_extension("yaml.json")).unwrap(),
        )
        .unwrap();
        for (reader, value) in [("YAML 1.2", &as_12), ("PyYAML", &as_11)] {
            for e in validator.iter_errors(value).take(3) {
                failures.push(format!("{name} ({reader}): {e} at {}", e.instance_path));
            }
        }
        // PyYAML's dump imports to the same bytes.
        let dumped = std::fs::read_to_string(doc.with_extension("yaml.py.yaml")).unwrap();
        match format.read_yaml(&dumped, &Default::default()) {
            Ok(asset) => {
                if asset.encode().unwrap() != *bytes {
                    failures.push(format!("{name}: PyYAML's dump imports to other bytes"));
                }
            }
            Err(e) => failures.push(format!("{name}: PyYAML's dump does not import: {e}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn schema_integers_carry_their_range_and_errors_speak_in_ranges() {
    // Every fixed-size integer of every schema has its type's range.
    let mut checked = 0;
    for e in std::fs::read_dir(root().join("schemas")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut stack = vec![&v];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Object(m) => {
                    let range = match m.get("format").and_then(|f| f.as_str()) {
                        Some("uint8") => Some((0.0, 255.0)),
                        Some("uint16") => Some((0.0, 65535.0)),
                        Some("uint32") => Some((0.0, 4294967295.0)),
                        Some("int16") => Some((-32768.0, 32767.0)),
                        Some("int32") => Some((-2147483648.0, 2147483647.0)),
                        _ => None,
                    };
                    if let Some((lo, hi)) = range {
                        assert_eq!(m["minimum"].as_f64(), Some(lo), "{m:?}");
                        assert_eq!(m["maximum"].as_f64(), Some(hi), "{m:?}");
                        checked += 1;
                    }
                    stack.extend(m.values());
                }
                serde_json::Value::Array(a) => stack.extend(a),
                _ => {}
            }
        }
    }
    assert!(checked > 100, "{checked}");
    // An editor (a JSON Schema validator) flags what animkit refuses.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/zengin.man.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (_, yaml) = export(&root().join("samples/WALK.MAN"));
    assert!(yaml.contains("  layer: 1\n"), "{yaml}");
    let edited = yaml.replacen("  layer: 1\n", "  layer: 99999999999\n", 1);
    let value: serde_json::Value =
        serde_saphyr::from_str_with_options(&edited, animkit::yaml::options(edited.len())).unwrap();
    assert!(!validator.is_valid(&value));
    // animkit's message says the range, not the Rust type.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("W.MAN.yaml"), &edited).unwrap();
    let (code, _, err) = run(tmp.path(), &["import", "W.MAN.yaml", "-o", "W.MAN"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "invalid value: integer `99999999999`, expected a whole number 0 … 4294967295"
        ),
        "{err}"
    );
    assert!(!err.contains("u32"), "{err}");
}

#[test]
fn export_can_name_the_schema_for_the_yaml_language_server() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    std::fs::copy(root().join("samples/ANIM.ZBD"), p.join("ANIM.ZBD")).unwrap();
    let (code, _, err) = run(
        p,
        &["export", "ANIM.ZBD", "-o", "a.yaml", "--schema-comment"],
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(p.join("a.yaml")).unwrap();
    assert!(
        text.starts_with(
            "# yaml-language-server: $schema=schemas/mw3.anim.schema.json\nformat: mw3.anim\n"
        ),
        "{}",
        &text[..200]
    );
    // The schema it points at exists (written beside it: a user with only the binary has no
    // `schemas/` folder), the one `animkit schema` prints; a file already there is kept.
    let schema = p.join("schemas/mw3.anim.schema.json");
    let (_, printed, _) = run(p, &["schema", "mw3.anim"]);
    assert_eq!(
        std::fs::read_to_string(&schema).unwrap().trim(),
        printed.trim()
    );
    std::fs::write(&schema, "{}").unwrap();
    let (code, _, err) = run(
        p,
        &[
            "export",
            "ANIM.ZBD",
            "-o",
            "a.yaml",
            "--force",
            "--schema-comment",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&schema).unwrap(), "{}");
    let url = "https://example.org/animkit/schemas/";
    let (code, out, err) = run(p, &["export", "ANIM.ZBD", "--schema-comment", url]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(
        "# yaml-language-server: $schema=https://example.org/animkit/schemas/mw3.anim.schema.json\n"
    ));
    // The document still imports to the same bytes.
    let (code, _, err) = run(p, &["import", "a.yaml", "-o", "back.zbd"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(p.join("back.zbd")).unwrap(),
        std::fs::read(p.join("ANIM.ZBD")).unwrap()
    );
}

#[test]
fn a_document_nested_too_deep_is_refused_at_once_with_its_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 100_000;
    let mut flow = String::from("format: mw3.anim\nversion: 1\nanim_defs: ");
    flow.extend(std::iter::repeat_n('[', n));
    flow.extend(std::iter::repeat_n(']', n));
    flow.push('\n');
    let mut block = String::from("format: zengin.man\nversion: 1\nchunks:\n");
    for _ in 0..n {
        block.push_str("- ");
    }
    block.push_str("x\n");
    // The streaming reader stops at the first level that is too deep, or earlier at the first
    // value of the wrong kind (a chunk is a mapping, not a list), before reading deeper.
    for (name, text, at, says) in [
        (
            "flow.yaml",
            flow,
            "flow.yaml:3:140: error: ",
            "nests deeper than 128 levels",
        ),
        (
            "block.yaml",
            block,
            "block.yaml:4:3: error: ",
            "chunks[0]: expected a mapping",
        ),
    ] {
        std::fs::write(tmp.path().join(name), text).unwrap();
        let t = std::time::Instant::now();
        let (code, _, err) = run(tmp.path(), &["import", name, "-o", "out.bin"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with(at), "{err}");
        assert!(err.contains(says), "{err}");
        // (before the limit: 3.6 s at 20,000 levels, no answer at 100,000)
        assert!(t.elapsed().as_secs() < 20, "{name}: {:?}", t.elapsed());
        assert!(!tmp.path().join("out.bin").exists());
    }
}

/// The fast YAML reader (`src/yaml/fast.rs`) against serde-saphyr alone, on the YAML of every
/// sample and corpus file of every format: the same bytes come back either way, and for MW3
/// and the formats whose documents are inside the fast reader's subset it was the fast reader
/// that read them.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn fast_and_slow_yaml_readers_give_the_same_bytes_for_every_sample_and_corpus_file() {
    use animkit::registry::{ExportOptions, ImportOptions};
    use animkit::yaml::read::with_fast_reader;
    let mut fast_tags = std::collections::BTreeSet::new();
    for path in binaries() {
        let bytes = std::fs::read(&path).unwrap();
        let format = animkit::registry::detect(&bytes).unwrap();
        let asset = format.decode(&bytes).unwrap();
        let text = asset.to_yaml(&ExportOptions::default()).unwrap();
        let read = |on| {
            with_fast_reader(on, || {
                let a = format
                    .read_yaml(&text, &ImportOptions::default())
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                a.encode().unwrap()
            })
        };
        let ((fast, hits), (slow, _)) = (read(true), read(false));
        assert_eq!(fast, slow, "{}", path.display());
        assert_eq!(fast, bytes, "{}", path.display());
        if hits > 0 {
            fast_tags.insert(asset.tag());
        }
        if asset.tag() == "mw3.anim" {
            assert_eq!(hits, 1, "{}: the fast reader gave up", path.display());
        }
    }
    eprintln!("read by the fast reader: {fast_tags:?}");
    assert!(fast_tags.contains("mw3.anim"), "{fast_tags:?}");
}
