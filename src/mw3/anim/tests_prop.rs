//! Property tests: generated files with random defs, arrays, events and garbage round-trip;
//! random and mutated bytes never panic the decoder, and whatever decodes round-trips.

use super::gen::{self, Shape};
use super::{fuzz_round_trip, Anim};
use proptest::prelude::*;

fn shape() -> impl Strategy<Value = Shape> {
    (0usize..4, 0usize..6, 1usize..4, 0usize..20, any::<bool>()).prop_map(
        |(defs, max_items, seqs, events, realistic)| Shape {
            defs,
            max_items,
            max_sequences: seqs,
            max_events: events,
            realistic,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_files_round_trip(seed in any::<u64>(), shape in shape()) {
        let data = gen::file(seed, &shape).unwrap();
        let a = Anim::read(&data).unwrap();
        prop_assert_eq!(a.anim_defs.len(), shape.defs);
        prop_assert_eq!(fuzz_round_trip(&data), Ok(()));
    }

    #[test]
    fn mutated_files_never_panic(
        seed in any::<u64>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut data = gen::file(seed, &Shape::default()).unwrap();
        for (at, v) in edits {
            let i = at.index(data.len());
            data[i] = v;
        }
        if truncate {
            data.truncate(cut.index(data.len() + 1));
        }
        prop_assert_eq!(fuzz_round_trip(&data), Ok(()));
    }

    #[test]
    fn random_bytes_never_panic(mut data in proptest::collection::vec(any::<u8>(), 0..2048)) {
        // give most inputs the right signature so the decoder gets past the header
        if data.len() >= 8 && data[0] & 1 == 0 {
            data[..4].copy_from_slice(&super::header::SIGNATURE.to_le_bytes());
            data[4..8].copy_from_slice(&super::header::VERSION.to_le_bytes());
        }
        prop_assert_eq!(fuzz_round_trip(&data), Ok(()));
    }
}

/// The YAML of `data` read by the fast reader and by serde-saphyr alone: the same model, and
/// the fast reader did read it (animkit's own YAML is inside its subset).
fn fast_and_slow_yaml_agree(data: &[u8]) {
    use crate::codec::{Codec, ExportOptions, ImportOptions};
    use crate::yaml::read::with_fast_reader;
    let a = Anim::read(data).unwrap();
    let text = Codec::to_yaml(&a, &ExportOptions::default()).unwrap();
    let (fast, n) = with_fast_reader(true, || Anim::from_yaml(&text, &ImportOptions::default()));
    assert_eq!(n, 1, "the fast reader gave up on animkit's own YAML");
    let (slow, n) = with_fast_reader(false, || Anim::from_yaml(&text, &ImportOptions::default()));
    assert_eq!(n, 0);
    let (fast, slow) = (fast.unwrap(), slow.unwrap());
    assert_eq!(fast, slow);
    let mut out = Vec::new();
    Codec::encode(&fast, &mut out).unwrap();
    assert_eq!(out, data);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn fast_and_slow_yaml_readers_agree_on_the_sample_and_corpus() {
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/ANIM.ZBD");
    fast_and_slow_yaml_agree(&std::fs::read(sample).unwrap());
    if let Some(data) = crate::testing::corpus_file("mw3/synthetic.zbd") {
        fast_and_slow_yaml_agree(&data);
    }
    for realistic in [true, false] {
        let shape = Shape {
            defs: 60,
            max_items: 6,
            max_sequences: 3,
            max_events: 30,
            realistic,
        };
        fast_and_slow_yaml_agree(&gen::file(11, &shape).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Generated files (every event type, garbage tails, odd names): both YAML readers give
    /// the same model, the fast one reads every document.
    #[test]
    fn fast_and_slow_yaml_readers_agree_on_generated_files(seed in any::<u64>(), shape in shape()) {
        fast_and_slow_yaml_agree(&gen::file(seed, &shape).unwrap());
    }
}
