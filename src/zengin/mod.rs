//! ZenGin (Gothic 1 and 2) formats. Shared building blocks live in [`chunk`] (the binary
//! chunked container) and [`types`] (line strings, zDATE, bounding boxes); each format is one
//! folder: [`asc`], [`man`], [`mdh`], [`mdl`], [`mdm`], [`mmb`], [`mds`], [`msb`], [`tex`],
//! [`vdf`]; [`mesh`] holds what the mesh formats share.

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

/// The model a ZenGin animation file belongs to, by the engine's naming rule: the file name
/// up to its first `-` (`HUMANS-S_RUN.MAN` → `HUMANS`, `HUMANS-S_RUN.MAN.yaml` too), whose
/// skeleton is `HUMANS.MDH`. `None` for a name without a model part.
pub fn model_prefix(file_name: &str) -> Option<String> {
    let (model, _) = file_name.split_once('-')?;
    (!model.is_empty()).then(|| model.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_animation_names_its_model_before_the_first_dash() {
        assert_eq!(
            super::model_prefix("HUMANS-S_RUN.MAN").as_deref(),
            Some("HUMANS")
        );
        assert_eq!(
            super::model_prefix("Humans-T_1H_2_S0.man.yaml").as_deref(),
            Some("Humans")
        );
        assert_eq!(super::model_prefix("WALK.MAN"), None);
        assert_eq!(super::model_prefix("-X.MAN"), None);
    }

    #[test]
    fn checksum_of_the_zenkit_docs_example() {
        let names: [&[u8]; 2] = [b"BIP01", b"BIP01 LEVER STICK"];
        assert_eq!(super::node_list_checksum(names), 0xEA80_9BF7);
    }
}
