//! `G1_HUMANS-S_FISTRUN.MAN` decodes to the values in `../shared/corpus/zengin/EXPECTED.md` §1,
//! bit for bit.

use crate::common::corpus_file;
use animkit::zengin::chunk::ChunkBody as _;
use animkit::zengin::man::quant::{engine_rotation, unpack_position};
use animkit::zengin::man::{Chunk, Man};

fn load() -> Option<(Vec<u8>, Man)> {
    let bytes = corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN")?;
    let man = Man::read(&bytes).expect("corpus MAN parses");
    Some((bytes, man))
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn header_and_source_values() {
    let Some((bytes, man)) = load() else { return };
    assert_eq!(bytes.len(), 6354);
    let kinds: Vec<_> = man.chunks.iter().map(|c| (c.id(), c.kind())).collect();
    assert_eq!(
        kinds,
        [
            (0xA000, "marker"),
            (0xA020, "header"),
            (0xA010, "source"),
            (0xA090, "samples")
        ]
    );
    let h = man.header().unwrap();
    assert_eq!(h.version, 12);
    assert_eq!(h.name.as_bytes(), b"S_FISTRUN");
    assert_eq!(h.next.as_bytes(), b"S_FISTRUN");
    assert_eq!(h.layer, 1);
    assert_eq!((h.frame_count, h.node_count), (20, 25));
    assert_eq!(h.fps.get(), 10.0);
    assert_eq!(h.fps_source.get(), 25.0);
    assert_eq!(h.position_min.bits(), 0xC110_29DC);
    assert_eq!(h.position_scale.bits(), 0x3AC3_874A);
    assert_eq!(h.position_min.get(), -9.01021957397461f64 as f32);
    assert_eq!(h.position_scale.get(), 0.001491763861849904f64 as f32);
    let f = |v: [f64; 3]| v.map(|x| x as f32);
    assert_eq!(
        h.bbox.min.map(|v| v.get()),
        f([-51.09061050415039, -94.02226257324219, -31.280731201171875])
    );
    assert_eq!(
        h.bbox.max.map(|v| v.get()),
        f([46.33139419555664, 67.0935287475586, 49.88602828979492])
    );
    let s = man.source().unwrap();
    assert_eq!(
        s.path.as_bytes(),
        br"\_WORK\DATA\ANIMS\HUM_AMB_FISTRUN_M01.ASC"
    );
    assert_eq!(
        s.script.as_bytes(),
        b"\t\t\tANI\t\t\t(\"S_FISTRUN\"\t\t\t\t1\t\"S_FISTRUN\"\t\t0.0 0.1 MI\t\"HUM_AMB_FISTRUN_M01.ASC\"\tF   1\t50\tFPS:10)"
    );
    assert_eq!(s.script.len(), 93);
    // The garbage date: year 0, month 6, second 57324, padding 0x0123.
    let d = s.date;
    assert_eq!(
        (d.year, d.month, d.day, d.hour, d.minute, d.second, d.padding),
        (0, 6, 0, 0, 0, 57324, 0x0123)
    );
    assert!(man.events().is_empty());
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn node_indices_checksum_and_samples() {
    let Some((_, man)) = load() else { return };
    let s = man.samples().unwrap();
    assert_eq!(s.checksum.0, 3_325_331_650);
    assert_eq!(
        s.node_indices,
        [
            0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 26, 27, 28, 29, 30, 31, 32,
            33
        ]
    );
    assert_eq!(s.codes.len(), 500);
    assert!(s.trailing.is_empty());
    let h = man.header().unwrap();
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    // (index, position, rotation as x, y, z, w) from EXPECTED.md §1.
    let expected: [(usize, [f64; 3], [f64; 4]); 3] = [
        (
            0,
            [12.635274887084961, 88.75251770019531, -1.093428611755371],
            [0.0, 0.6293110251426697, 0.0, 0.7771535515785217],
        ),
        (
            249,
            [12.626323699951172, -0.00145721435546875, 22.643518447875977],
            [0.0, 0.70708167552948, 0.0, 0.7071319222450256],
        ),
        (
            499,
            [12.626323699951172, -0.00145721435546875, 22.643518447875977],
            [0.0, 0.70708167552948, 0.0, 0.7071319222450256],
        ),
    ];
    for (i, pos, rot) in expected {
        let c = s.codes[i];
        let p = [3, 4, 5].map(|k| unpack_position(c[k], min, scale));
        assert_eq!(p, pos.map(|v| v as f32), "sample {i} position");
        let q = engine_rotation([c[0], c[1], c[2]]).to_array();
        assert_eq!(q, rot.map(|v| v as f32), "sample {i} rotation");
    }
    // Sample 0's raw rotation codes, as the spec shows.
    assert_eq!(&s.codes[0][..3], &[32767, 52406, 32767]);
    // Every decoded value here also survives the displayed (w >= 0) form.
    let decoded = man.decode_samples();
    assert_eq!(decoded.len(), 500);
    assert!(matches!(man.chunks[3], Chunk::Samples(_)));
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn yaml_export_shows_the_expected_values() {
    let Some((_, man)) = load() else { return };
    let yaml = animkit::zengin::man::yaml::to_yaml(&man).unwrap();
    assert!(yaml.starts_with("format: zengin.man\nversion: 1\nchunks:\n- marker: {}\n- header:\n    version: 12\n    name: S_FISTRUN\n"));
    assert!(yaml.contains("\n    checksum: 0xc63488c2\n"));
    assert!(yaml.contains("padding: 291}"));
    assert!(yaml.contains(
        "    - - {rotation: [0.0, 0.629311, 0.0, 0.77715355], position: [12.635275, 88.75252, -1.0934286]}\n"
    ));
}
