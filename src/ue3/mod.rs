//! Blade & Soul (Unreal Engine 3) formats, one folder each: [`upk`] (the animation package,
//! registered as `ue3.upk`) and [`psa`] (ActorX PSA export of a package's AnimSet and import
//! back into it; `psa` uses `upk`, never the other way round).

pub mod psa;
pub mod upk;

pub use psa::fuzz_package;
pub use upk::{fuzz_track, Package};
