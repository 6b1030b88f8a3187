//! The 3ds Max ASCII format (`.ASC`) as the Gothic community uses it (GothicSourcer,
//! KrxImpExp, the engine's compiler). See `../shared/specs/asc.md`.

pub mod num;
pub mod pose;
