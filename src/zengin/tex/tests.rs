use super::*;
use crate::exact::DecodeErrorKind;
use crate::testing::corpus_file;

/// ZenKit's `Texture.load` expectations for its `erz.tex` sample.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn erz_is_zenkits_dxt1_texture() {
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/erz.tex") else {
        return;
    };
    let t = Tex::decode(&data).unwrap();
    let h = t.header;
    assert_eq!((h.width, h.height), (128, 128));
    assert_eq!((h.reference_width, h.reference_height), (128, 128));
    assert_eq!(h.mip_count, 5);
    assert_eq!(h.average_color, Hex32(0xff44_3a3c));
    assert_eq!(format_name(h.pixel_format), "DXT1");
    assert_eq!(mip_dims(128, 128, 1), (64, 64));
    assert_eq!(mip_dims(128, 128, 2), (32, 32));
    // smallest first: 8×8, 16×16, 32×32, 64×64, 128×128 in 4×4 blocks of 8 bytes
    let sizes: Vec<usize> = t.mips.iter().map(Blob::len).collect();
    assert_eq!(sizes, [32, 128, 512, 2048, 8192]);
    assert!(t.trailing.is_empty());
    // the decoded pixels average to the stored average colour (0xAARRGGBB)
    let (w, ht, rgba) = t.rgba().unwrap();
    assert_eq!((w, ht, rgba.len()), (128, 128, 128 * 128 * 4));
    let mean = |c: usize| rgba.chunks_exact(4).map(|p| u64::from(p[c])).sum::<u64>() / (128 * 128);
    let want = [0x44u64, 0x3a, 0x3c];
    for (c, want) in want.iter().enumerate() {
        assert!(
            mean(c).abs_diff(*want) <= 6,
            "channel {c}: {} vs {want}",
            mean(c)
        );
    }
    let png = t.png().unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

/// A real DXT texture of a character.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_real_head_texture() {
    let Some(data) = corpus_file(
        "realworld/mesh/PiotrDrozdz96+Gothic/Textures/_compiled/HUM_HEAD_V120_C0-C.tex",
    ) else {
        return;
    };
    let t = Tex::decode(&data).unwrap();
    assert!(t.header.pixel_format >= 10 && t.header.pixel_format <= 14);
    assert_eq!(t.mips.len() as u32, t.mip_levels());
    let (w, h, _) = t.rgba().unwrap();
    assert_eq!((w, h), (t.header.width, t.header.height));
}

/// A cut-short level is an error at the level, with its path; a wrong edit is refused by
/// name.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn bad_input_and_bad_edits_are_named() {
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/erz.tex") else {
        return;
    };
    let e = Tex::decode(&data[..data.len() - 100]).unwrap_err();
    assert_eq!(e.path.to_string(), "mips[4]");
    assert_eq!(e.offset, (data.len() - 8192) as u64);
    assert!(matches!(
        e.kind,
        DecodeErrorKind::CountTooLarge { count: 8192, .. }
    ));
    let mut bad = data.clone();
    bad[0] = b'X';
    assert_eq!(
        Tex::decode(&bad).unwrap_err().path.to_string(),
        "header.signature"
    );
    let mut t = Tex::decode(&data).unwrap();
    t.mips[0].0.pop();
    let e = t.write(&mut Vec::new()).unwrap_err();
    assert_eq!(e.path.to_string(), "mips[0]");
    assert!(e.to_string().contains("takes 32 bytes"), "{e}");
}

/// `diff` names the header fields and levels that changed, not whole hex lines.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn diff_names_fields_and_levels() {
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/erz.tex") else {
        return;
    };
    let a = Tex::decode(&data).unwrap();
    let mut b = a.clone();
    b.header.average_color = Hex32(0xff00_0000);
    b.mips[2].0[5] ^= 0xff;
    assert_eq!(
        Codec::diff(&a, &b),
        [
            "header.average_color: 0xff443a3c → 0xff000000".to_string(),
            "mips[2]: 512 → 512 bytes, 1 bytes differ".to_string()
        ]
    );
    assert!(Codec::diff(&a, &a).is_empty());
}

/// The header record both ways: the first 36 bytes of a real Gothic texture
/// (`HUM_HEAD_V121_C0-C.TEX`, a 256×128 DXT1 head texture with one mip level).
#[test]
fn header_table() {
    crate::exact::record::both_ways(&[(
        Header {
            signature: *b"ZTEX",
            version: 0,
            pixel_format: 10,
            width: 256,
            height: 128,
            mip_count: 1,
            reference_width: 256,
            reference_height: 128,
            average_color: crate::exact::Hex32(0xFFFF_FFFF),
        },
        "5a544558 00000000 0a000000 00010000 80000000 01000000 00010000 80000000 ffffffff",
    )]);
}
