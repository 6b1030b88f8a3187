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
