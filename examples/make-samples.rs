//! Writes the project's sample files into `samples/` (or the folder given as the first
//! argument). Every file is deterministic, so re-running gives identical bytes.
//!
//!     cargo run --example make-samples [-- DIR]

use animkit::zengin::man_synth::{synthesize_bytes, Synth};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "samples".into()));
    std::fs::create_dir_all(&dir)?;
    let samples = [
        (
            "WALK.MAN",
            Synth {
                ..Synth::new("S_WALK", 12, 30)
            },
        ),
        (
            "EVENTS.MAN",
            Synth {
                events: 10,
                ..Synth::new("T_EVENTS", 4, 16)
            },
        ),
        (
            "UNKNOWN-CHUNK.MAN",
            Synth {
                unknown_chunk: true,
                ..Synth::new("S_UNKNOWN", 3, 5)
            },
        ),
        (
            "GARBAGE.MAN",
            Synth {
                garbage: true,
                events: 2,
                ..Synth::new("S_GARBAGE", 5, 8)
            },
        ),
        ("ONE-FRAME.MAN", Synth::new("S_POSE", 25, 1)),
        ("LARGE.MAN", Synth::new("S_LARGE", 60, 400)),
    ];
    for (file, synth) in samples {
        let bytes = synthesize_bytes(&synth);
        let path = dir.join(file);
        std::fs::write(&path, &bytes)?;
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}
