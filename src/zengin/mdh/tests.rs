//! Record tables of the MDH chunks, both directions; the YAML document; a MAN against its
//! skeleton.

use super::*;
use crate::exact::F32;
use crate::zengin::chunk::ChunkBody as _;

fn m(rows: [[f32; 4]; 4]) -> Mat4 {
    Mat4(rows.map(|r| r.map(F32::new)))
}

/// (value, bytes) pairs for the node record, both directions.
#[test]
fn node_table() {
    let mut identity_neg_zero = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, f32::from_bits(0xC3C5052E)],
        [0.0, 0.0, 0.0, 1.0],
    ];
    identity_neg_zero[2][1] = -0.0;
    let table: Vec<(Node, String)> = vec![
        (
            Node {
                name: ShortText::from("BIP01 NABE"),
                parent: 0,
                transform: m(identity_neg_zero),
            },
            "424950303120 4e414245 0a 0000 \
             0000803f 00000000 00000000 00000000 \
             00000000 0000803f 00000000 00000000 \
             00000000 00000080 0000803f 2e05c5c3 \
             00000000 00000000 00000000 0000803f"
                .into(),
        ),
        (
            Node {
                name: ShortText::new(&b"\xe4"[..]),
                parent: -1,
                transform: Mat4::default(),
            },
            format!("e4 0a ffff {}", "00".repeat(64)),
        ),
    ];
    for (value, hex_bytes) in table {
        let bytes = hex::decode(hex_bytes.replace(' ', "")).unwrap();
        let mut out = Vec::new();
        value.put(&mut out).unwrap();
        assert_eq!(out, bytes);
        let mut cur = Cursor::new(&bytes, 0);
        assert_eq!(Node::read(&mut cur).unwrap(), value);
        assert!(cur.is_empty());
    }
}

/// Hierarchy and source records, both directions.
#[test]
fn hierarchy_and_source_table() {
    let h = Hierarchy {
        version: 3,
        nodes: vec![Node {
            name: ShortText::from("A"),
            parent: -1,
            transform: Mat4::default(),
        }],
        bbox: BBox::default(),
        collision_bbox: BBox::default(),
        root_translation: [F32(0x8000_0000), F32::new(0.0), F32::new(2.0)],
        checksum: Hex32(0xD3D99E8B),
        trailing: Blob::new(vec![0xAA]),
    };
    let bytes = [
        "03000000 0100 41 0a ffff",
        &"00".repeat(64 + 48),
        "00000080 00000000 00000040 8b9ed9d3 aa",
    ]
    .concat();
    let bytes = hex::decode(bytes.replace(' ', "")).unwrap();
    let mut out = Vec::new();
    h.put(&mut out).unwrap();
    assert_eq!(out, bytes);
    assert_eq!(Hierarchy::read(&mut Cursor::new(&bytes, 0)).unwrap(), h);
    assert_eq!(h.computed_checksum(), 0xD3D99E8B); // crc32("A")

    let s = Source {
        date: ZDate {
            year: 0,
            month: 60480,
            day: 291,
            hour: 49946,
            minute: 2707,
            second: 35812,
            padding: 0x0EB7,
        },
        path: crate::zengin::stext::ShortText::from("X.ASC"),
        trailing: Blob::default(),
    };
    let bytes =
        hex::decode("00000000 40ec 2301 1ac3 930a e48b b70e 582e415343 0a".replace(' ', ""))
            .unwrap();
    let mut out = Vec::new();
    s.put(&mut out).unwrap();
    assert_eq!(out, bytes);
    assert_eq!(Source::read(&mut Cursor::new(&bytes, 0)).unwrap(), s);
}

#[test]
fn truncated_node_list_names_the_field() {
    // version 3, 2 nodes claimed but only one node's bytes
    let mut payload = hex::decode("03000000 0200".replace(' ', "")).unwrap();
    payload.extend_from_slice(b"A\n\xff\xff");
    payload.extend_from_slice(&[0; 64 + 70]);
    let mut data = Vec::new();
    chunk::put_chunk(&mut data, ID_HIERARCHY, |o| {
        o.extend_from_slice(&payload);
        Ok(())
    })
    .unwrap();
    let err = Mdh::read(&data).unwrap_err();
    assert!(
        err.path.to_string().starts_with("hierarchy.nodes[1]"),
        "{err}"
    );
}

fn corpus() -> Option<Vec<u8>> {
    crate::testing::corpus_file("zengin/hierarchy0.mdh")
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn corpus_hierarchy0_values_and_round_trips() {
    let Some(data) = corpus() else { return };
    let mdh = Mdh::read(&data).unwrap();
    let ids: Vec<u16> = mdh.chunks.iter().map(|c| c.id()).collect();
    assert_eq!(ids, [0xD100, 0xD110, 0xD120]);
    let h = mdh.hierarchy().unwrap();
    assert_eq!(h.version, 3);
    let names: Vec<String> = h.nodes.iter().map(|n| n.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "BIP01 MUEHLE",
            "BIP01 NABE",
            "BIP01 ROLLERL",
            "BIP01 ROLLERR",
            "ZM_MUEHLE01",
            "ZM_RING",
            "ZS_POS0"
        ]
    );
    let parents: Vec<i16> = h.nodes.iter().map(|n| n.parent).collect();
    assert_eq!(parents, [-1, 0, 1, 1, 1, 1, 0]);
    assert_eq!(h.checksum, Hex32(965956401));
    assert_eq!(h.computed_checksum(), 965956401);
    // node 0: rows (-1 0 0 0) (0 1 0 0) (0 0 -1 0) (0 0 0 1)
    let n0 = h.nodes[0].transform.0.map(|r| r.map(F32::get));
    assert_eq!(
        n0,
        [
            [-1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0]
        ]
    );
    let n1 = h.nodes[1].transform.0;
    assert_eq!(n1[2][3], F32(0xC3C5052E));
    assert_eq!(n1[2][1], F32(0x8000_0000), "-0.0 at file float index 9");
    assert_eq!(
        h.bbox.min,
        [F32(0xC3F8967E), F32(0xBF135A00), F32(0xC2D3CB1C)]
    );
    assert_eq!(
        h.bbox.max,
        [F32(0x4400EDE9), F32(0x43B678D1), F32(0x445F625A)]
    );
    assert_eq!(
        h.collision_bbox.min,
        [F32(0xC378967E), F32(0xBECE4ACD), F32(0xC253CB1C)]
    );
    assert_eq!(
        h.collision_bbox.max,
        [F32(0x4380EDE9), F32(0x4391FA41), F32(0x43DF625A)]
    );
    assert_eq!(
        h.root_translation,
        [F32(0x8000_0000), F32(0), F32(0xC3C5052E)]
    );
    let s = mdh.source().unwrap();
    assert_eq!(s.date.padding, 0x0EB7);
    assert_eq!(s.date.month, 60480);
    assert_eq!(
        s.path.to_string(),
        r"\_WORK\DATA\ANIMS\\_WORK\DATA\ANIMS\ASC_MOBSI\ANIMATED\STONEMILL_OM.ASC"
    );

    let mut out = Vec::new();
    mdh.write(&mut out).unwrap();
    assert_eq!(out, data);
    let yaml = mdh.to_yaml_text().unwrap();
    assert!(yaml.contains("parent_name: BIP01 NABE"), "{yaml}");
    assert!(yaml.contains("-0.0"), "{yaml}");
    let back = Mdh::from_yaml_text(&yaml).unwrap();
    assert_eq!(back, mdh);
    let mut out = Vec::new();
    back.write(&mut out).unwrap();
    assert_eq!(out, data);
    assert_eq!(mdh.field_at(6 + 6), "chunks[0].hierarchy.nodes[0].name");
    assert_eq!(mdh.field_at(0x262 + 4), "chunks[0].hierarchy.checksum");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn check_man_against_corpus_skeleton() {
    let Some(data) = corpus() else { return };
    let Some(man_data) = crate::testing::corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN") else {
        return;
    };
    let mdh = Mdh::read(&data).unwrap();
    let mut man = crate::zengin::man::Man::read(&man_data).unwrap();
    let found = check_man(&man, &mdh);
    // The human animation does not belong to the stone mill: wrong checksum, and 18 of
    // its 25 node indices (8..33) are beyond the mill's 7 nodes.
    assert_eq!(found.len(), 19, "{found:#?}");
    assert!(found[0].contains("0xc63488c2") && found[0].contains("0x39935331"));
    assert!(found[1].starts_with("samples.node_indices[7] = 8"));
    for c in &mut man.chunks {
        if let crate::zengin::man::Chunk::Samples(s) = c {
            s.checksum = Hex32(0x39935331);
            for i in &mut s.node_indices {
                *i %= 7;
            }
        }
    }
    assert_eq!(check_man(&man, &mdh), Vec::<String>::new());
    // and the names reach the MAN export
    let opts = ExportOptions {
        companion: Some(&mdh),
    };
    let yaml = Codec::to_yaml(&man, &opts).unwrap();
    assert!(
        yaml.contains("{node: BIP01 MUEHLE, rotation: "),
        "{}",
        &yaml[..2000]
    );
    let back = crate::zengin::man::yaml::from_yaml(&yaml, &ImportOptions::default()).unwrap();
    assert_eq!(back, man);
}

/// The generated one-copy node read and write (the hot path) agree with deku's reading and
/// writing of the [`NodeFixed`] declaration, on bytes with every kind of float (NaN payloads,
/// -0.0, denormals); so do the head's and the tail's.
#[test]
fn node_fast_path_matches_the_deku_declaration() {
    use crate::exact::record::same_as_deku;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for round in 0..200 {
        let mut b = [0u8; NodeFixed::SIZE];
        for x in b.iter_mut() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *x = state as u8;
        }
        if round == 0 {
            b[2..6].copy_from_slice(&0x8000_0000u32.to_le_bytes());
            b[6..10].copy_from_slice(&0x7fa0_0001u32.to_le_bytes());
            b[10..14].copy_from_slice(&1u32.to_le_bytes());
        }
        same_as_deku::<NodeFixed>(&b);
        same_as_deku::<HierarchyHead>(&b);
        let fast = NodeFixed::load(&b).unwrap();
        // Writing a node: its name line, then the record's bytes.
        let node = Node {
            name: ShortText::from("N"),
            parent: fast.parent,
            transform: fast.transform,
        };
        let mut hand = Vec::new();
        node.put(&mut hand).unwrap();
        assert_eq!(&hand[..2], b"N\n");
        assert_eq!(&hand[2..], &b[..]);
        same_as_deku::<HierarchyTail>(&b[2..]);
    }
}

/// The head and tail records read and write through deku with their exact bytes, and a cut
/// in any of their fields (or in a node's transform) names that field and item at its offset.
#[test]
fn fixed_records_and_where_a_cut_is_reported() {
    // version 3, 1 node "A", parent -1, identity-ish matrix, bbox, collision bbox, root
    // translation, checksum.
    let mut payload = hex::decode("03000000 0100".replace(' ', "")).unwrap();
    payload.extend_from_slice(b"A\n\xff\xff");
    for i in 0..16u32 {
        payload.extend_from_slice(&(i as f32).to_bits().to_le_bytes());
    }
    let tail_at = payload.len();
    for i in 0..15u32 {
        payload.extend_from_slice(&(100.0 + i as f32).to_bits().to_le_bytes());
    }
    payload.extend_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    let h = Hierarchy::read(&mut Cursor::new(&payload, 0)).unwrap();
    assert_eq!(h.version, 3);
    assert_eq!(h.nodes[0].parent, -1);
    assert_eq!(h.nodes[0].transform.0[3][2].get(), 14.0);
    assert_eq!(h.bbox.min[0].get(), 100.0);
    assert_eq!(h.collision_bbox.max[2].get(), 111.0);
    assert_eq!(h.root_translation[1].get(), 113.0);
    assert_eq!(h.checksum.0, 0xDEAD_BEEF);
    let mut out = Vec::new();
    h.put(&mut out).unwrap();
    assert_eq!(out, payload);
    let cut = |len: usize| {
        let e = Hierarchy::read(&mut Cursor::new(&payload[..len], 0)).unwrap_err();
        (e.offset, e.path.to_string())
    };
    assert_eq!(cut(3), (0, "version".into()));
    assert_eq!(cut(5), (4, "node_count".into()));
    // A cut in the node list is mostly refused by the node count check (67 bytes a node at
    // least); a node with a longer name can still be cut in its transform:
    let mut long = hex::decode("030000000100").unwrap();
    long.extend_from_slice(b"ABCDEFGHIJ\n\xff\xff");
    long.extend_from_slice(&[0; 58]);
    let e = Hierarchy::read(&mut Cursor::new(&long, 0)).unwrap_err();
    assert_eq!(
        (e.offset, e.path.to_string()),
        (6 + 11 + 2 + 56, "nodes[0].transform[3][2]".into())
    );
    assert_eq!(cut(tail_at + 3), (tail_at as u64, "bbox".into()));
    assert_eq!(
        cut(tail_at + 24 + 5),
        (tail_at as u64 + 24, "collision_bbox".into())
    );
    assert_eq!(
        cut(tail_at + 48 + 4 + 2),
        (tail_at as u64 + 52, "root_translation[1]".into())
    );
    assert_eq!(
        cut(tail_at + 60 + 3),
        (tail_at as u64 + 60, "checksum".into())
    );
}

/// [`ZDate`]'s one-copy read gives what deku reads of its declaration; a cut names the field.
#[test]
fn zdate_fast_path_matches_the_deku_declaration() {
    let b: Vec<u8> = (0u8..16).map(|i| i.wrapping_mul(37) ^ 0xA5).collect();
    crate::exact::record::same_as_deku::<ZDate>(&b);
    let fast: ZDate = Cursor::new(&b, 0).read().unwrap();
    assert_eq!(fast.padding, u16::from_le_bytes([b[14], b[15]]));
    let e = Cursor::new(&b[..15], 7).read::<ZDate>().unwrap_err();
    assert_eq!((e.offset, e.path.to_string()), (7 + 14, "padding".into()));
}

/// Names of every length read back the same, inline (up to 22 bytes) or not, on both paths of
/// the node list.
#[test]
fn node_names_of_every_length_round_trip() {
    let names: Vec<Vec<u8>> = (0..40)
        .map(|n| (0..n).map(|i| b'A' + (i % 26) as u8).collect())
        .collect();
    let h = Hierarchy {
        version: 3,
        nodes: names
            .iter()
            .enumerate()
            .map(|(i, n)| Node {
                name: ShortText::new(n),
                parent: i as i16 - 1,
                transform: Mat4::default(),
            })
            .collect(),
        bbox: BBox::default(),
        collision_bbox: BBox::default(),
        root_translation: Vec3::default(),
        checksum: Hex32(1),
        trailing: Blob::default(),
    };
    let mut out = Vec::new();
    h.put(&mut out).unwrap();
    let back = Hierarchy::read(&mut Cursor::new(&out, 0)).unwrap();
    assert_eq!(back, h);
    for (node, name) in back.nodes.iter().zip(&names) {
        assert_eq!(node.name.as_bytes(), &name[..]);
    }
}
