//! Blade & Soul (Unreal Engine 3, file version 573) animation packages and ActorX PSA.
pub mod codec;
pub mod compress;
pub mod crypt;
pub mod package;
pub mod props;
#[cfg(test)]
mod tests;
