//! Bad input gives a clear error with the byte offset (or YAML line) and the field path, and
//! never a panic.

use crate::common::corpus_file;
use animkit::exact::{DecodeErrorKind, ImportError};
use animkit::registry::{Codec, ImportOptions};
use animkit::zengin::man::synth::{synthesize_bytes, Synth};
use animkit::zengin::man::Man;

fn chunk(id: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = id.to_le_bytes().to_vec();
    v.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

/// A header payload with the given counts.
fn header(frames: u32, nodes: u32) -> Vec<u8> {
    let mut p = 12u16.to_le_bytes().to_vec();
    p.extend_from_slice(b"X\n");
    for v in [1u32, frames, nodes] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&[0u8; 16 + 24]);
    p.extend_from_slice(b"X\n");
    p
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_truncation_of_real_and_generated_files_is_an_error_not_a_panic() {
    let mut inputs = vec![synthesize_bytes(&Synth {
        events: 3,
        unknown_chunk: true,
        ..Synth::new("T", 3, 4)
    })];
    inputs.extend(corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN"));
    for bytes in inputs {
        let mut errors = 0;
        for len in 0..bytes.len() {
            match Man::read(&bytes[..len]) {
                // A cut exactly at a chunk boundary (before the samples) is a shorter valid file.
                Ok(m) => {
                    let mut out = Vec::new();
                    m.write(&mut out).unwrap();
                    assert_eq!(out, &bytes[..len]);
                    assert!(m.samples().is_none(), "cut at {len} still has samples");
                }
                Err(err) => {
                    errors += 1;
                    assert!(err.offset <= len as u64, "offset {} past {len}", err.offset);
                    if len > 0 {
                        assert!(
                            !err.path.is_empty(),
                            "no field path for truncation at {len}: {err}"
                        );
                    }
                }
            }
        }
        assert!(
            errors + 8 >= bytes.len(),
            "{errors} errors for {} cuts",
            bytes.len()
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn truncation_inside_the_header_names_the_chunk_length() {
    let Some(bytes) = corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN") else {
        return;
    };
    let err = Man::read(&bytes[..50]).unwrap_err();
    assert_eq!(err.offset, 12);
    assert_eq!(err.path.to_string(), "chunks[1].length");
    assert!(
        err.to_string()
            .contains("claims 74 payload bytes but only 38 are left"),
        "{err}"
    );
}

#[test]
fn a_string_without_terminator_names_the_field() {
    let mut file = chunk(0xA000, &[]);
    file.extend(chunk(0xA020, &[12, 0, b'S', b'_', b'R']));
    let err = Man::read(&file).unwrap_err();
    assert_eq!(err.path.to_string(), "header.name");
    assert_eq!(err.offset, 14);
    assert_eq!(err.kind, DecodeErrorKind::Unterminated);
}

#[test]
fn counts_larger_than_the_chunk_are_refused_before_allocating() {
    // 65536 × 65536 samples overflows u32 arithmetic and would need 48 GiB.
    let mut file = chunk(0xA020, &header(0x1_0000, 0x1_0000));
    let mut raw = 0u32.to_le_bytes().to_vec();
    raw.extend_from_slice(&[0u8; 64]);
    file.extend(chunk(0xA090, &raw));
    let err = Man::read(&file).unwrap_err();
    assert_eq!(err.path.to_string(), "samples.node_indices");
    assert!(err.to_string().contains("node_count 65536"), "{err}");

    // Node indices fit, the samples do not.
    let mut file = chunk(0xA020, &header(u32::MAX, 2));
    let mut raw = 0u32.to_le_bytes().to_vec();
    raw.extend_from_slice(&[0u8; 8 + 24]);
    file.extend(chunk(0xA090, &raw));
    let err = Man::read(&file).unwrap_err();
    assert_eq!(err.path.to_string(), "samples.frames");
    assert!(
        err.to_string().contains("4294967295 frames × 2 nodes"),
        "{err}"
    );

    // An event count of 4 billion in a 4-byte chunk.
    let file = chunk(0xA030, &u32::MAX.to_le_bytes());
    let err = Man::read(&file).unwrap_err();
    assert_eq!(err.path.to_string(), "events.count");
    assert!(matches!(
        err.kind,
        DecodeErrorKind::CountTooLarge {
            count: 4294967295,
            ..
        }
    ));
}

#[test]
fn samples_without_any_header_and_empty_files() {
    let file = chunk(0xA090, &[0; 4]);
    let err = Man::read(&file).unwrap_err();
    assert_eq!(err.path.to_string(), "chunks[0]");
    assert!(err.to_string().contains("needs the header chunk"), "{err}");
    assert!(Man::read(&[]).unwrap_err().to_string().contains("empty"));
}

#[test]
fn samples_before_their_header_are_read_with_the_later_header() {
    let mut raw = 7u32.to_le_bytes().to_vec();
    raw.extend_from_slice(&3u32.to_le_bytes());
    raw.extend_from_slice(&[1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0]);
    let mut file = chunk(0xA090, &raw);
    file.extend(chunk(0xA020, &header(1, 1)));
    let man = Man::read(&file).unwrap();
    assert_eq!(man.samples().unwrap().codes, vec![[1, 2, 3, 4, 5, 6]]);
    let mut out = Vec::new();
    man.write(&mut out).unwrap();
    assert_eq!(out, file);
    // And through YAML.
    let yaml = man.to_yaml(&Default::default()).unwrap();
    let back = Man::from_yaml(&yaml, &ImportOptions::default()).unwrap();
    let mut out = Vec::new();
    back.write(&mut out).unwrap();
    assert_eq!(out, file);
}

fn sample_yaml() -> String {
    let man = Man::read(&synthesize_bytes(&Synth::new("T", 2, 3))).unwrap();
    man.to_yaml(&Default::default()).unwrap()
}

fn yaml_error(text: &str) -> animkit::exact::YamlError {
    match Man::from_yaml(text, &ImportOptions::default()) {
        Err(ImportError::Yaml(e)) => e,
        other => panic!("expected a YAML error, got {other:?}"),
    }
}

#[test]
fn yaml_with_a_wrong_type_gives_line_column_and_path() {
    let text = sample_yaml().replace("    layer: 1\n", "    layer: one\n");
    let e = yaml_error(&text);
    assert_eq!(e.line, Some(8));
    assert!(e.message.contains("chunks[1].header.layer"), "{e}");
    assert!(e.message.contains("invalid"), "{e}");
}

#[test]
fn yaml_with_a_missing_field_says_which() {
    let text = sample_yaml().replace("    fps: 25.0\n", "");
    let e = yaml_error(&text);
    assert!(e.message.contains("missing field `fps`"), "{e}");
    assert!(e.line.is_some());
}

#[test]
fn yaml_with_a_wrong_frame_count_gives_the_line() {
    let text = sample_yaml().replace("    frame_count: 3\n", "    frame_count: 4\n");
    let e = yaml_error(&text);
    assert!(
        e.message.contains("3 frames, but header.frame_count is 4"),
        "{e}"
    );
    let frames_line = text.lines().position(|l| l == "    frames:").unwrap() + 2;
    assert_eq!(e.line, Some(frames_line));
}

#[test]
fn yaml_with_a_missing_sample_in_a_frame_gives_the_line() {
    let text = sample_yaml();
    let lines: Vec<&str> = text.lines().collect();
    // Drop the second sample of the first frame.
    let first = lines
        .iter()
        .position(|l| l.starts_with("    - - {rotation"))
        .unwrap();
    let mut edited: Vec<&str> = lines.clone();
    edited.remove(first + 1);
    let e = yaml_error(&(edited.join("\n") + "\n"));
    assert!(
        e.message
            .contains("frame has 1 samples, but there are 2 nodes"),
        "{e}"
    );
    assert!(e.message.contains("frames[0]"), "{e}");
    assert_eq!(e.line, Some(first + 1));
}

#[test]
fn yaml_of_another_format_or_version_is_refused() {
    let e = yaml_error(&sample_yaml().replace("format: zengin.man", "format: zengin.mdh"));
    assert!(e.message.contains("expected `zengin.man`"), "{e}");
    let e = yaml_error(&sample_yaml().replace("version: 1\n", "version: 2\n"));
    assert!(e.message.contains("version 2 is not supported"), "{e}");
    let e = yaml_error(&sample_yaml().replace("- marker: {}", "- markr: {}"));
    assert!(e.message.contains("unknown variant `markr`"), "{e}");
}

#[test]
fn yaml_text_outside_cp1252_is_refused() {
    let e = yaml_error(&sample_yaml().replace("    name: T\n", "    name: \"\u{4E2D}\"\n"));
    assert!(
        e.message.contains("cannot be stored in Windows-1252"),
        "{e}"
    );
}

#[test]
fn a_line_feed_inside_a_name_cannot_be_written() {
    let text = sample_yaml().replace("    name: T\n", "    name: \"A\\nB\"\n");
    match Man::from_yaml(&text, &ImportOptions::default()) {
        Ok(man) => {
            let err = man.write(&mut Vec::new()).unwrap_err();
            assert_eq!(err.path.to_string(), "chunks[1].header.name");
        }
        Err(e) => panic!("{e}"),
    }
}
