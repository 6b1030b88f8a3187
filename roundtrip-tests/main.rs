//! Round-trip and end-to-end tests: the verify engine over `samples/` and `../shared/corpus`,
//! decoded corpus values, bad input, generated property tests, the CLI and the README.

mod asc_compile;
mod asc_export;
mod blender_addon;
mod cli;
mod common;
mod convert;
mod fuzz_corpus;
mod gltf;
mod gltf_author;
mod gltf_blender;
mod gltf_mesh;
mod man_bad_input;
mod man_corpus;
mod man_edit;
mod man_props;
mod mesh_cli;
mod oneshot;
mod readme;
mod realworld;
mod report;
mod schemas;
mod ue3;
mod vdf_cli;
mod verify_trees;
mod wine;
mod yaml_io;
mod zengin_model_cli;
