//! Property tests: generated MAN files round-trip through the model and through YAML; any
//! bytes either fail cleanly or parse and write back identically.

use animkit::exact::{Blob, Hex32, Text, F32};
use animkit::registry::{Codec, ImportOptions};
use animkit::zengin::man::{
    Chunk, Event, EventType, Events, Header, Hex16, Man, Marker, Samples, Source, Unknown,
};
use animkit::zengin::types::{BBox, ZDate};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = Text> {
    // Any byte but the line terminator.
    proptest::collection::vec(any::<u8>().prop_filter("no LF", |b| *b != b'\n'), 0..12)
        .prop_map(Text)
}
fn f32_bits() -> impl Strategy<Value = F32> {
    prop_oneof![
        any::<u32>().prop_map(F32),
        Just(F32(0x8000_0000)),
        Just(F32(0x7fc0_0000)),
        Just(F32(0x7fa0_0001)),
        (-1000.0f32..1000.0).prop_map(F32::new),
    ]
}
fn blob() -> impl Strategy<Value = Blob> {
    proptest::collection::vec(any::<u8>(), 0..6).prop_map(Blob)
}
fn bbox() -> impl Strategy<Value = BBox> {
    (
        [f32_bits(), f32_bits(), f32_bits()],
        [f32_bits(), f32_bits(), f32_bits()],
    )
        .prop_map(|(min, max)| BBox { min, max })
}
fn date() -> impl Strategy<Value = ZDate> {
    (any::<u32>(), any::<[u16; 6]>()).prop_map(|(year, v)| ZDate {
        year,
        month: v[0],
        day: v[1],
        hour: v[2],
        minute: v[3],
        second: v[4],
        padding: v[5],
    })
}
fn event() -> impl Strategy<Value = Event> {
    (
        any::<u32>(),
        any::<i32>(),
        text(),
        [text(), text(), text(), text()],
        [f32_bits(), f32_bits(), f32_bits(), f32_bits()],
        f32_bits(),
    )
        .prop_map(|(kind, frame, tag, content, values, probability)| Event {
            kind: EventType::from_u32(kind % 14),
            frame,
            tag,
            content,
            values,
            probability,
        })
}

/// A whole file: chunks in random order around one header and one consistent samples chunk.
fn man() -> impl Strategy<Value = Man> {
    (0u32..5, 0u32..5).prop_flat_map(|(nodes, frames)| {
        let header = (
            any::<u16>(),
            text(),
            any::<u32>(),
            f32_bits(),
            f32_bits(),
            f32_bits(),
            f32_bits(),
            bbox(),
            text(),
            blob(),
        )
            .prop_map(
                move |(
                    version,
                    name,
                    layer,
                    fps,
                    fps_source,
                    position_min,
                    position_scale,
                    bbox,
                    next,
                    trailing,
                )| Header {
                    version,
                    name,
                    layer,
                    frame_count: frames,
                    node_count: nodes,
                    fps,
                    fps_source,
                    position_min,
                    position_scale,
                    bbox,
                    next,
                    trailing,
                },
            );
        let samples = (
            any::<u32>(),
            proptest::collection::vec(any::<u32>(), nodes as usize),
            proptest::collection::vec(any::<[u16; 6]>(), (nodes * frames) as usize),
            blob(),
        )
            .prop_map(|(c, node_indices, codes, trailing)| Samples {
                checksum: Hex32(c),
                node_indices,
                codes,
                trailing,
            });
        let extra = proptest::collection::vec(
            prop_oneof![
                blob().prop_map(|trailing| Chunk::Marker(Marker { trailing })),
                (date(), text(), text(), blob()).prop_map(|(date, path, script, trailing)| {
                    Chunk::Source(Source {
                        date,
                        path,
                        script,
                        trailing,
                    })
                }),
                (proptest::collection::vec(event(), 0..4), blob())
                    .prop_map(|(events, trailing)| Chunk::Events(Events { events, trailing })),
                (0xA100u16..0xFFFF, blob()).prop_map(|(id, data)| Chunk::Unknown(Unknown {
                    id: Hex16(id),
                    data
                })),
            ],
            0..4,
        );
        (header, samples, extra, any::<bool>()).prop_map(|(h, s, mut extra, samples_first)| {
            if samples_first {
                extra.insert(0, Chunk::Samples(s));
                extra.push(Chunk::Header(h));
            } else {
                extra.insert(0, Chunk::Header(h));
                extra.push(Chunk::Samples(s));
            }
            Man { chunks: extra }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn generated_files_round_trip_through_model_and_yaml(m in man()) {
        let mut bytes = Vec::new();
        m.write(&mut bytes).unwrap();
        let back = Man::read(&bytes).unwrap();
        prop_assert_eq!(&back, &m);
        let yaml = back.to_yaml(&Default::default()).unwrap();
        let again = Man::from_yaml(&yaml, &ImportOptions::default()).map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        let mut out = Vec::new();
        again.write(&mut out).unwrap();
        prop_assert_eq!(out, bytes);
        // The fast frames reader agrees with the ordinary path whenever it takes the document.
        let doc: animkit::zengin::man::yaml::ManDocument = serde_saphyr::from_str_with_options(&yaml, animkit::yaml::options(yaml.len())).unwrap();
        let slow = animkit::zengin::man::yaml::document_to_man(doc, &ImportOptions::default()).unwrap();
        prop_assert_eq!(&slow, &again);
        if m.chunks.iter().any(|c| matches!(c, Chunk::Samples(s) if !s.codes.is_empty())) {
            prop_assert!(animkit::zengin::man::yaml::from_yaml_fast(&yaml, &ImportOptions::default()).is_some());
        }
    }

    #[test]
    fn any_bytes_parse_and_write_back_identically_or_fail_cleanly(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        match Man::read(&data) {
            Ok(m) => {
                let mut out = Vec::new();
                m.write(&mut out).unwrap();
                prop_assert_eq!(out, data);
            }
            // A clean failure: an offset inside the input (or at its end) and a message that
            // says it.
            Err(e) => {
                prop_assert!(e.offset <= data.len() as u64, "{e} (offset past the input)");
                let text = e.to_string();
                prop_assert!(text.contains(&format!("{}", e.offset)), "{text}");
            }
        }
    }

    #[test]
    fn mutated_files_parse_and_write_back_identically_or_fail_cleanly(
        m in man(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut data = Vec::new();
        m.write(&mut data).unwrap();
        for (at, byte) in flips {
            let i = at.index(data.len());
            data[i] = byte;
        }
        match Man::read(&data) {
            Ok(m) => {
                let mut out = Vec::new();
                m.write(&mut out).unwrap();
                prop_assert_eq!(out, data);
            }
            // A clean failure: an offset inside the input (or at its end) and a message that
            // says it.
            Err(e) => {
                prop_assert!(e.offset <= data.len() as u64, "{e} (offset past the input)");
                let text = e.to_string();
                prop_assert!(text.contains(&format!("{}", e.offset)), "{text}");
            }
        }
    }
}
