//! animkit: byte-exact readers and writers for game animation assets, with editable YAML.
//!
//! * [`exact`]: the byte-exact primitives every format shares (errors with offsets and field
//!   paths, the bounds-checked cursor, Windows-1252 text, bit-exact floats, blobs).
//! * [`yaml`]: the human-facing YAML emitter and parser entry point.
//! * [`codec`]: the floor every format implements (the `Codec` trait, options, findings).
//! * [`registry`]: the list of formats; detects a file's format and dispatches every command to it.
//! * one module per game family: [`zengin`], [`mw3`].

pub mod cli;
pub mod codec;
pub mod exact;
pub mod fsio;
pub mod mw3;
pub mod registry;
pub mod ue3;
pub mod verify;
pub mod yaml;
pub mod zengin;
