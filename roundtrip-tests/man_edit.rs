//! Editing: edited values are re-encoded with the engine's quantisation; untouched values come
//! back bit-identical; edits the encoding cannot hold are reported.

use animkit::exact::ImportError;
use animkit::registry::{Codec, ImportOptions};
use animkit::zengin::man::quant;
use animkit::zengin::man::synth::{synthesize, synthesize_bytes, Synth};
use animkit::zengin::man::{Chunk, Man};

fn export(man: &Man) -> String {
    man.to_yaml(&Default::default()).unwrap()
}

fn import(text: &str, requantize: bool) -> Result<Man, ImportError> {
    Man::from_yaml(text, &ImportOptions { requantize })
}

fn bytes(man: &Man) -> Vec<u8> {
    let mut out = Vec::new();
    man.write(&mut out).unwrap();
    out
}

/// Replace the sample line of `frame`, `node` (0-based) in an exported document.
fn replace_sample(text: &str, frame: usize, node: usize, new: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let start = lines.iter().position(|l| l == "    frames:").unwrap() + 1;
    let (mut f, mut n) = (None::<usize>, 0usize);
    for line in lines.iter_mut().skip(start) {
        let prefix = if line.starts_with("    - - ") {
            f = Some(f.map_or(0, |f| f + 1));
            n = 0;
            "    - - "
        } else if line.starts_with("      - ") {
            n += 1;
            "      - "
        } else {
            break;
        };
        if f == Some(frame) && n == node {
            *line = format!("{prefix}{new}");
            return lines.join("\n") + "\n";
        }
    }
    panic!("sample {frame}/{node} not found");
}

#[test]
fn an_edited_rotation_changes_only_its_own_codes() {
    let man = synthesize(&Synth::new("S_EDIT", 3, 4));
    let original = bytes(&man);
    let text = replace_sample(
        &export(&man),
        2,
        1,
        "{rotation: [0.0, -0.7071068, 0.0, -0.7071068], position: [1.0, 2.0, 3.0]}",
    );
    let edited = import(&text, false).unwrap();
    let new = bytes(&edited);
    assert_eq!(new.len(), original.len());
    // Negative w: the packer stores the negated quaternion (w >= 0).
    let s = edited.samples().unwrap();
    let q = quant::unpack_rotation([
        s.codes[2 * 3 + 1][0],
        s.codes[2 * 3 + 1][1],
        s.codes[2 * 3 + 1][2],
    ]);
    let half = std::f32::consts::FRAC_1_SQRT_2;
    assert!(
        q[3] > 0.0 && (q[1] - half).abs() < 4e-5 && (q[3] - half).abs() < 4e-5,
        "{q:?}"
    );
    // Everything but that sample's 12 bytes is identical.
    let changed: Vec<usize> = (0..new.len()).filter(|&i| new[i] != original[i]).collect();
    let sample_at = original.len() - 12 * (3 * 4 - (2 * 3 + 1));
    assert!(
        changed
            .iter()
            .all(|&i| (sample_at..sample_at + 12).contains(&i)),
        "{changed:?} vs {sample_at}"
    );
    // diff summarises it per node.
    let lines = man.diff(&edited);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0].starts_with("samples node 1 (index 1): 1 of 4 frames changed"),
        "{}",
        lines[0]
    );
}

#[test]
fn an_untouched_export_imports_to_the_same_bytes() {
    let man = synthesize(&Synth {
        events: 7,
        garbage: true,
        unknown_chunk: true,
        ..Synth::new("S", 5, 6)
    });
    assert_eq!(bytes(&import(&export(&man), false).unwrap()), bytes(&man));
}

#[test]
fn a_position_outside_the_range_fails_unless_requantized() {
    let man = synthesize(&Synth::new("S_EDIT", 2, 3));
    let text = replace_sample(
        &export(&man),
        1,
        1,
        "{rotation: [0.0, 0.0, 0.0, 1.0], position: [1.0, 5000.0, 3.0]}",
    );
    let err = import(&text, false).unwrap_err().to_string();
    assert!(err.contains("frame 1, node 1"), "{err}");
    assert!(err.contains("position y = 5000.0 is outside"), "{err}");
    assert!(err.contains("--requantize"), "{err}");
    assert!(
        err.starts_with("chunks[3].samples.frames[1][1].position[1]"),
        "{err}"
    );

    let requantized = import(&text, true).unwrap();
    let h = requantized.header().unwrap();
    let old = man.header().unwrap();
    assert_eq!(
        h.position_min, old.position_min,
        "the minimum did not change"
    );
    let scale = h.position_scale.get();
    assert!(scale > old.position_scale.get());
    // Every position is within one quantisation step of what the document says.
    let decoded = requantized.decode_samples();
    assert!((decoded[3].1.y - 5000.0).abs() <= scale);
    for (k, ((_, a), (_, b))) in man.decode_samples().iter().zip(&decoded).enumerate() {
        if k != 3 {
            assert!(
                (*a - *b).abs().max_element() <= scale,
                "sample {k}: {a} vs {b}"
            );
        }
    }
    // The new range is the engine's: max maps to 65535.
    assert_eq!(requantized.samples().unwrap().codes[3][4], 65535);
}

#[test]
fn degenerate_ranges_export_raw_codes_with_a_comment_and_round_trip() {
    let mut man = synthesize(&Synth::new("S_FLAT", 2, 2));
    for c in &mut man.chunks {
        if let Chunk::Header(h) = c {
            h.position_scale = animkit::exact::F32::new(0.0);
        }
    }
    let text = export(&man);
    assert!(text.contains("position_code: ["), "{text}");
    assert!(
        text.contains("  # position_code: these codes do not survive decoding"),
        "{text}"
    );
    assert_eq!(bytes(&import(&text, false).unwrap()), bytes(&man));
}

#[test]
fn raw_codes_may_be_given_for_rotations_too() {
    let man = synthesize(&Synth::new("S", 1, 1));
    let text = replace_sample(
        &export(&man),
        0,
        0,
        "{rotation_code: [1, 2, 3], position_code: [4, 5, 6]}",
    );
    assert_eq!(
        import(&text, false).unwrap().samples().unwrap().codes[0],
        [1, 2, 3, 4, 5, 6]
    );
    let text = replace_sample(
        &export(&man),
        0,
        0,
        "{rotation_code: [1, 2, 3], rotation: [0.0, 0.0, 0.0, 1.0], position_code: [4, 5, 6]}",
    );
    assert!(import(&text, false)
        .unwrap_err()
        .to_string()
        .contains("exactly one of rotation and rotation_code"));
    let text = replace_sample(
        &export(&man),
        0,
        0,
        "{rotation: [0.0, 0.0, 0.0, 0.0], position_code: [4, 5, 6]}",
    );
    let err = import(&text, false).unwrap_err().to_string();
    assert!(
        err.contains("samples.frames[0][0].rotation")
            && err.contains("is not a unit quaternion (|q| = 0)"),
        "{err}"
    );
    // Any rotation far from unit length is refused with the key's path (not normalised).
    let man = synthesize(&Synth::new("S", 2, 2));
    let text = replace_sample(
        &export(&man),
        1,
        1,
        "{rotation: [0.1, 0.0, 0.0, 0.0], position_code: [4, 5, 6]}",
    );
    let err = import(&text, false).unwrap_err().to_string();
    assert!(
        err.contains("samples.frames[1][1].rotation")
            && err.contains("rotation [0.1, 0.0, 0.0, 0.0] is not a unit quaternion (|q| = 0.1)"),
        "{err}"
    );
}

#[test]
fn header_and_event_edits_are_written() {
    let original = synthesize_bytes(&Synth {
        events: 2,
        ..Synth::new("S_A", 1, 2)
    });
    let man = Man::read(&original).unwrap();
    let text = export(&man)
        .replace("    fps: 25.0\n", "    fps: 12.5\n")
        .replace("{type: tag, frame: 0,", "{type: camera_tremor, frame: 9,");
    let edited = import(&text, false).unwrap();
    assert_eq!(edited.header().unwrap().fps.get(), 12.5);
    let e = &edited.events()[0];
    assert_eq!((e.kind.to_u32(), e.frame), (11, 9));
    let d = man.diff(&edited);
    assert!(d.contains(&"header.fps: 25.0 → 12.5".to_string()), "{d:#?}");
    assert!(
        d.iter()
            .any(|l| l.starts_with("events[0] changed: Tag at frame 0")),
        "{d:#?}"
    );
}

#[test]
fn a_float_too_large_for_its_type_is_refused_with_its_path() {
    let man = synthesize(&Synth::new("S_A", 1, 2));
    let text = export(&man).replace("    fps: 25.0\n", "    fps: 1e39\n");
    let err = import(&text, false).unwrap_err().to_string();
    assert!(
        err.contains("header.fps")
            && err.contains("1e39 is too large for a 32-bit float (largest ±3.4028235e38)"),
        "{err}"
    );
    // A NaN or infinity typed in YAML's words is refused with the path and line:column.
    for word in [".inf", "-.inf", ".nan"] {
        let text = export(&man).replace("    fps: 25.0\n", &format!("    fps: {word}\n"));
        let line = text.lines().position(|l| l.contains("fps:")).unwrap() + 1;
        let err = import(&text, false).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "{line}:10: chunks[1].header.fps: {word} is not a number: a NaN or infinity is \
                 kept only where the original file held one"
            )),
            "{err}"
        );
    }
    // The spelling the export uses for an original's infinity (its exact bits) reads.
    let text = export(&man).replace("    fps: 25.0\n", "    fps: Inf(0x7f800000)\n");
    let back = import(&text, false).unwrap();
    assert_eq!(back.header().unwrap().fps.bits(), 0x7f80_0000);
}
