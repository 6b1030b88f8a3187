//! ZenGin (Gothic 1 and 2) formats. Shared building blocks live in [`chunk`] (the binary
//! chunked container) and [`types`] (line strings, zDATE, bounding boxes); each format is one
//! folder: [`asc`], [`man`], [`mdh`], [`mdl`], [`mdm`], [`mmb`], [`mds`], [`msb`], [`tex`], [`vdf`];
//! [`mesh`] holds what the mesh formats share.

pub mod anirefs;
pub mod asc;
pub mod chunk;
pub mod gltf;
pub mod man;
pub mod mdh;
pub mod mdl;
pub mod mdm;
pub mod mds;
pub mod mesh;
pub mod mmb;
pub mod msb;
pub mod script;
pub mod stext;
pub mod tagged;
pub mod tex;
pub mod types;
pub mod vdf;

pub use man::quant;

/// CRC-32 of the concatenated node names, as the engine stores it in MDH, MAN and MDM.
pub fn node_list_checksum<'a>(names: impl IntoIterator<Item = &'a [u8]>) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for n in names {
        h.update(n);
    }
    h.finalize()
}

#[cfg(test)]
mod tests {
    #[test]
    fn checksum_of_the_zenkit_docs_example() {
        let names: [&[u8]; 2] = [b"BIP01", b"BIP01 LEVER STICK"];
        assert_eq!(super::node_list_checksum(names), 0xEA80_9BF7);
    }
}
