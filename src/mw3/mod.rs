//! MechWarrior 3 (base game, v1.2), one folder per format.
//!
//! * [`anim`]: the precompiled animation definitions, `anim.zbd` (spec:
//!   `shared/specs/mw3-anim.md`), the registry's `mw3.anim`.

pub mod anim;

pub use anim::Anim;
