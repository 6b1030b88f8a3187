//! animkit: byte-exact readers and writers for game animation assets, with editable YAML.
//!
//! * [`exact`]: the byte-exact primitives every format shares (errors with offsets and field
//!   paths, the bounds-checked cursor, Windows-1252 text, bit-exact floats, blobs).
//! * [`yaml`]: the human-facing YAML emitter and parser entry point.
//! * [`codec`]: the floor every format implements (the `Codec` trait, options, findings).
//! * [`registry`]: the list of formats; detects a file's format and dispatches every command to it.
//! * one module per game family: [`zengin`], [`mw3`], [`ue3`].
//!
//! # Read, edit, write
//!
//! Every format is a [`codec::Codec`]: `decode` the bytes into a model, change the model,
//! `encode` it back. Untouched data comes back byte for byte; an edit changes only what it
//! touches. Here a MechWarrior 3 `anim.zbd` gets a new health value and a new sequence name:
//!
//! ```
//! use animkit::codec::Codec;
//! use animkit::exact::F32;
//! use animkit::mw3::Anim;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/ANIM.ZBD"))?;
//! let mut anim = Anim::decode(&bytes)?;
//!
//! // Nothing changed: the same bytes come back.
//! let mut out = Vec::new();
//! anim.encode(&mut out)?;
//! assert_eq!(out, bytes);
//!
//! // Edit the model and write it again.
//! let def = &mut anim.anim_defs[0];
//! def.health = F32::new(250.0);
//! def.sequences[0].name.set_text(b"renamed")?;
//! let mut edited = Vec::new();
//! anim.encode(&mut edited)?;
//! assert_eq!(edited.len(), bytes.len());
//!
//! // The edit is in the new file, and nothing else moved.
//! let again = Anim::decode(&edited)?;
//! assert_eq!(again.anim_defs[0].health.get(), 250.0);
//! assert_eq!(again.anim_defs[0].sequences[0].name.text(), b"renamed");
//! let changed = bytes.iter().zip(&edited).filter(|(a, b)| a != b).count();
//! assert!(changed > 0 && changed <= 4 + 4 + 8, "{changed} bytes changed");
//! # Ok(())
//! # }
//! ```
//!
//! The same model is what the YAML documents show ([`codec::Codec::to_yaml`] and
//! [`codec::Codec::from_yaml`]), and what `animkit export` / `import` use.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod cli;
pub mod codec;
pub mod convert;
pub mod exact;
pub mod fsio;
pub mod mw3;
pub mod registry;
#[cfg(test)]
pub(crate) mod testing;
pub mod ue3;
pub mod verify;
pub mod yaml;
pub mod zengin;
