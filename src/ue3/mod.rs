//! Blade & Soul (Unreal Engine 3, file version 573) animation packages and ActorX PSA.
pub mod anim;
pub mod codec;
pub mod compress;
pub mod crypt;
pub mod package;
pub mod props;
pub mod psa;
#[cfg(test)]
mod tests;
