//! Record tables of the MAN chunks, both directions, and field paths of offsets.

use super::*;
use crate::exact::Cursor;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.split_whitespace().collect::<String>()).unwrap()
}

/// Read `bytes` with `read`, compare with `value`; write `value` with `put`, compare with
/// `bytes`: one table, both directions.
fn both_ways<T: PartialEq + std::fmt::Debug>(
    value: &T,
    bytes: &[u8],
    read: impl Fn(&mut Cursor<'_>) -> Result<T, DecodeError>,
    put: impl Fn(&T, &mut Vec<u8>) -> Result<(), EncodeError>,
) {
    let mut cur = Cursor::new(bytes, 0);
    assert_eq!(&read(&mut cur).unwrap(), value);
    assert!(cur.is_empty());
    let mut out = Vec::new();
    put(value, &mut out).unwrap();
    assert_eq!(out, bytes);
}

fn corpus_header() -> Header {
    Header {
        version: 12,
        name: Text::from("S_FISTRUN"),
        layer: 1,
        frame_count: 20,
        node_count: 25,
        fps: F32::new(10.0),
        fps_source: F32::new(25.0),
        position_min: F32(0xC110_29DC),
        position_scale: F32(0x3AC3_874A),
        bbox: BBox {
            min: [F32(0xC24C_5CC9), F32(0xC2BC_0B66), F32(0xC1FA_3EF0)],
            max: [F32(0x4239_5359), F32(0x4286_2FE3), F32(0x4247_8B4B)],
        },
        next: Text::from("S_FISTRUN"),
        trailing: Blob::default(),
    }
}

#[test]
fn header_table() {
    let corpus = "0c00 535f4649535452554e0a 01000000 14000000 19000000 00002041 0000c841 dc2910c1 \
                  4a87c33a c95c4cc2 660bbcc2 f03efac1 59533942 e32f8642 4b8b4742 535f4649535452554e0a";
    let mut odd = corpus_header();
    odd.name = Text::new(&b"A\r\0"[..]);
    odd.next = Text::default();
    odd.fps = F32(0x7fa0_0001);
    odd.trailing = Blob::new(vec![0xde, 0xad]);
    let table = [
        (corpus_header(), h(corpus)),
        (
            odd,
            h(
                "0c00 410d000a 01000000 14000000 19000000 0100a07f 0000c841 dc2910c1 \
               4a87c33a c95c4cc2 660bbcc2 f03efac1 59533942 e32f8642 4b8b4742 0a dead",
            ),
        ),
    ];
    for (value, bytes) in &table {
        both_ways(value, bytes, Header::read, Header::put);
    }
}

#[test]
fn source_table() {
    let value = Source {
        date: ZDate {
            year: 0,
            month: 6,
            day: 0,
            hour: 0,
            minute: 0,
            second: 57324,
            padding: 0x0123,
        },
        path: Text::from("\\A.ASC"),
        script: Text::from("\tANI"),
        trailing: Blob::default(),
    };
    both_ways(
        &value,
        &h("00000000 0600 0000 0000 0000 ecdf 2301 5c412e4153430a 09414e490a"),
        Source::read,
        Source::put,
    );
}

#[test]
fn event_tables() {
    let event = Event {
        kind: EventType::SoundEffect,
        frame: -1,
        tag: Text::from("T"),
        content: [
            Text::from("C_\u{e4}"),
            Text::default(),
            Text::default(),
            Text::from("Z"),
        ],
        values: [
            F32::new(1.0),
            F32(0x8000_0000),
            F32::new(2500.0),
            F32(0x7fa0_0001),
        ],
        probability: F32(0xCDCD_CDCD),
    };
    let bytes = h("01000000 ffffffff 540a 435fe40a 0a 0a 5a0a \
                   0000803f 00000080 00401c45 0100a07f cdcdcdcd");
    both_ways(&event, &bytes, Event::read, Event::put);

    let mut other = event.clone();
    other.kind = EventType::Other(99);
    let mut events_bytes = h("02000000");
    events_bytes.extend_from_slice(&bytes);
    let mut b2 = bytes.clone();
    b2[0] = 99;
    events_bytes.extend_from_slice(&b2);
    events_bytes.extend_from_slice(&[1, 2, 3]);
    let events = Events {
        events: vec![event, other],
        trailing: Blob::new(vec![1, 2, 3]),
    };
    both_ways(&events, &events_bytes, Events::read, Events::put);
}

#[test]
fn event_type_names_and_numbers() {
    for v in 0..14u32 {
        assert_eq!(EventType::from_u32(v).to_u32(), v);
    }
    assert_eq!(EventType::from_u32(11), EventType::CameraTremor);
    assert_eq!(EventType::from_u32(12), EventType::Other(12));
}

#[test]
fn samples_table() {
    let dims = Dims {
        frames: 2,
        nodes: 2,
    };
    let value = Samples {
        checksum: Hex32(0xC634_88C2),
        node_indices: vec![0, 17],
        codes: vec![
            [32767, 52406, 32767, 0, 1, 2],
            [1, 2, 3, 4, 5, 6],
            [0xffff; 6],
            [0; 6],
        ],
        trailing: Blob::new(vec![0xAB]),
    };
    let bytes = h("c28834c6 00000000 11000000 \
                   ff7fb6ccff7f 000001000200 010002000300 040005000600 \
                   ffffffffffff ffffffffffff 000000000000 000000000000 ab");
    both_ways(&value, &bytes, |c| Samples::read(c, dims), Samples::put);
}

#[test]
fn field_paths_of_offsets() {
    let man = Man {
        chunks: vec![
            Chunk::Marker(Marker::default()),
            Chunk::Header(corpus_header()),
            Chunk::Samples(Samples {
                checksum: Hex32(1),
                node_indices: vec![0; 25],
                codes: vec![[0; 6]; 500],
                trailing: Blob::default(),
            }),
        ],
    };
    // marker 0..6, header 6..86 (payload 12..86), samples header 86..92, payload from 92.
    assert_eq!(man.field_at(3), "chunks[0].length");
    assert_eq!(man.field_at(13), "chunks[1].header.version");
    assert_eq!(man.field_at(20), "chunks[1].header.name");
    assert_eq!(man.field_at(12 + 16), "chunks[1].header.frame_count");
    assert_eq!(man.field_at(12 + 39), "chunks[1].header.position_scale");
    // (down to the nested record's field)
    assert_eq!(man.field_at(12 + 40), "chunks[1].header.bbox.min[0]");
    assert_eq!(man.field_at(85), "chunks[1].header.next");
    assert_eq!(man.field_at(93), "chunks[2].samples.checksum");
    assert_eq!(
        man.field_at(96 + 4 * 7),
        "chunks[2].samples.node_indices[7]"
    );
    // frame 3, node 4, position y: 96 + 100 + (3*25+4)*12 + 8.
    assert_eq!(
        man.field_at(96 + 100 + 79 * 12 + 8),
        "chunks[2].samples.frames[3][4].position[1]"
    );
}

/// The compact sample form reports refusals as the per-sample list did: every rotation problem
/// (in sample order) before any position problem, each with its frame, node and path.
#[test]
fn sample_refusals_keep_their_order_and_paths() {
    use crate::codec::ImportOptions;
    let man = super::synth::synthesize(&super::synth::Synth::new("T", 2, 2));
    let text = yaml::to_yaml(&man).unwrap();
    let edit = |f: &dyn Fn(usize, &str) -> String| -> String {
        let mut k = 0;
        text.lines()
            .map(|l| {
                if l.contains("{rotation: [") {
                    k += 1;
                    f(k - 1, l)
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let no_position = |l: &str| format!("{}}}", &l[..l.find(", position").unwrap()]);
    let bad_rotation = |l: &str| {
        let a = l.find("rotation: [").unwrap();
        let b = a + l[a..].find(']').unwrap();
        format!("{}rotation: [0.1, 0.0, 0.0, 0.0{}", &l[..a], &l[b..])
    };
    let import = |t: &str| {
        Man::from_yaml(t, &ImportOptions::default())
            .unwrap_err()
            .to_string()
    };
    // Sample 0 lacks its position, sample 3 (frame 1, node 1) has a bad rotation: the
    // rotation is reported.
    let both = edit(&|k, l| match k {
        0 => no_position(l),
        3 => bad_rotation(l),
        _ => l.to_string(),
    });
    let e = import(&both);
    assert!(
        e.contains("frames[1][1].rotation")
            && e.contains(
                "frame 1, node 1: rotation [0.1, 0.0, 0.0, 0.0] is not a unit quaternion"
            ),
        "{e}"
    );
    // The position alone.
    let e = import(&edit(&|k, l| {
        if k == 2 {
            no_position(l)
        } else {
            l.to_string()
        }
    }));
    assert!(
        e.contains("frames[1][0].position")
            && e.contains("frame 1, node 0: give exactly one of position and position_code"),
        "{e}"
    );
    // Untouched, the text imports to the same bytes.
    let back = Man::from_yaml(&text, &ImportOptions::default()).unwrap();
    assert_eq!(back, man);
}

/// `to_yaml_into` (the streamed export) writes the bytes `to_yaml` makes: on every sample and
/// corpus MAN, with node labels, and on generated animations large enough to be rendered on
/// all cores in several batches (a node count that divides no batch evenly).
#[test]
fn the_streamed_export_writes_the_same_bytes_as_the_whole_one() {
    use crate::codec::ExportOptions;
    let streamed = |man: &Man, names: Option<&[Text]>| {
        let mut out = Vec::new();
        super::yaml::to_yaml_into(man, names, &mut out).unwrap();
        out
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let corpus = crate::testing::corpus_path("realworld");
    for dir in std::iter::once(samples).chain(corpus) {
        for e in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().to_ascii_lowercase();
            if e.file_type().is_file() && name.ends_with(".man") {
                files.push((
                    e.path().display().to_string(),
                    std::fs::read(e.path()).unwrap(),
                ));
            }
        }
    }
    if let Some(data) = crate::testing::corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN") {
        files.push(("corpus FISTRUN".into(), data));
    }
    let mut checked = 0;
    for (name, data) in &files {
        let Ok(man) = Man::decode(data) else { continue };
        let whole = man.to_yaml(&ExportOptions::default()).unwrap();
        assert!(streamed(&man, None) == whole.as_bytes(), "{name}");
        let mut out = Vec::new();
        Codec::to_yaml_into(&man, &ExportOptions::default(), &mut out).unwrap();
        assert!(out == whole.as_bytes(), "{name}: through the Codec");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} MANs");
    for (nodes, frames) in [(37, 3000), (1, 40_000), (300, 200)] {
        let man = Man::decode(&synth::synthesize_bytes(&synth::Synth::new(
            "S_BIG", nodes, frames,
        )))
        .unwrap();
        let whole = super::yaml::to_yaml_with(&man, None).unwrap();
        assert!(streamed(&man, None) == whole.as_bytes(), "{nodes}×{frames}");
        let names: Vec<Text> = (0..nodes)
            .map(|n| Text::from(format!("BIP01 N{n}").as_str()))
            .collect();
        let whole = super::yaml::to_yaml_with(&man, Some(&names)).unwrap();
        assert!(whole.contains("node: BIP01 N0"), "labelled");
        assert!(
            streamed(&man, Some(&names)) == whole.as_bytes(),
            "{nodes}×{frames} labelled"
        );
    }
}

/// `import`'s lean path (`Codec::import_to`: the events read straight into their bytes, the
/// file handed over chunk by chunk) gives the bytes, findings and edit warnings of the path
/// through the model (`codec::import_through_model`): on every sample and corpus MAN, and on
/// generated ones with many events whose frames are a small part of the text (read with the
/// whole text) or most of it (read through the reduced document); an event the file cannot
/// hold gives the model path's error.
#[test]
fn the_lean_import_writes_what_the_model_path_writes() {
    use crate::codec::{import_through_model, ExportOptions, ImportOptions};
    let opts = ImportOptions::default();
    let both = |yaml: &str, previous: Option<&[u8]>| {
        let mut lean_out = Vec::new();
        let lean = Man::import_to(yaml, &opts, previous, &mut lean_out);
        let mut model_out = Vec::new();
        let model = import_through_model::<Man>(yaml, &opts, previous, &mut model_out);
        (lean.map(|i| (lean_out, i)), model.map(|i| (model_out, i)))
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for dir in std::iter::once(samples).chain(crate::testing::corpus_path("realworld")) {
        for e in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().to_ascii_lowercase();
            if e.file_type().is_file() && name.ends_with(".man") {
                files.push((
                    e.path().display().to_string(),
                    std::fs::read(e.path()).unwrap(),
                ));
            }
        }
    }
    for (nodes, frames, events) in [(2, 10, 3000), (20, 400, 50), (1, 1, 0), (3, 2, 1)] {
        files.push((
            format!("generated {nodes}×{frames}, {events} events"),
            synth::synthesize_bytes(&synth::Synth {
                events,
                ..synth::Synth::new("S_LEAN", nodes, frames)
            }),
        ));
    }
    let (mut checked, mut lean_taken) = (0, 0);
    for (name, data) in &files {
        let Ok(man) = Man::decode(data) else { continue };
        let yaml = man.to_yaml(&ExportOptions::default()).unwrap();
        lean_taken += usize::from(yaml::from_yaml_lean(&yaml, &opts).is_some());
        let (lean, model) = both(&yaml, Some(data));
        let (lean, model) = (lean.unwrap(), model.unwrap());
        assert!(lean.0 == model.0, "{name}: bytes");
        assert!(lean.0 == *data, "{name}: the file's own bytes");
        assert_eq!(lean.1.value_findings, model.1.value_findings, "{name}");
        assert_eq!(lean.1.edit_warnings, model.1.edit_warnings, "{name}");
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} MANs");
    assert!(
        lean_taken >= 9,
        "the lean path read only {lean_taken} documents"
    );

    // The generated events document through each way of reading its frames.
    let data = &files
        .iter()
        .find(|f| f.0.contains("3000 events"))
        .unwrap()
        .1;
    let yaml = Man::decode(data)
        .unwrap()
        .to_yaml(&ExportOptions::default())
        .unwrap();
    let (reduced, _) = super::yaml_fast::split_parts(&yaml).unwrap();
    assert!(
        reduced.len() > yaml.len() / 8,
        "mostly events: the whole text is read"
    );
    let frames_heavy = &files.iter().find(|f| f.0.contains("50 events")).unwrap().1;
    let fy = Man::decode(frames_heavy)
        .unwrap()
        .to_yaml(&ExportOptions::default())
        .unwrap();
    let (reduced, _) = super::yaml_fast::split_parts(&fy).unwrap();
    assert!(
        reduced.len() <= fy.len() / 8,
        "mostly frames: the reduced document"
    );

    // An event the file cannot hold: the model path's error, word for word.
    let bad = yaml.replacen("tag: DEF_HIT", "tag: \"DEF\\nHIT\"", 1);
    assert_ne!(bad, yaml);
    let (lean, model) = both(&bad, None);
    let (lean, model) = (lean.unwrap_err(), model.unwrap_err());
    assert!(model.to_string().contains("line feed"), "{model}");
    assert_eq!(lean.to_string(), model.to_string());
}

/// A key given twice (at the top, in a samples chunk) is refused with serde-saphyr's message:
/// the document's own visitors refuse a second value, so the fast reader, which leaves a
/// struct's known keys to its visitor, gives the document to serde-saphyr.
#[test]
fn a_key_given_twice_is_refused() {
    use crate::codec::ImportOptions;
    let man = super::synth::synthesize(&super::synth::Synth::new("T", 2, 2));
    let text = yaml::to_yaml(&man).unwrap();
    for key in ["version:", "checksum:"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("{key} in {text}"));
        let twice = text.replacen(&format!("{line}\n"), &format!("{line}\n{line}\n"), 1);
        assert_ne!(twice, text);
        let e = Man::from_yaml(&twice, &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("duplicate"), "{key}: {e}");
    }
    assert_eq!(
        Man::from_yaml(&text, &ImportOptions::default()).unwrap(),
        man
    );
}
