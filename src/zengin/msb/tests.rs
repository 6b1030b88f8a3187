//! MSB tests: a (value, bytes) table per chunk kind checked both ways, file-level round trips
//! (binary and YAML), folding rules and errors.

use super::*;
use crate::codec::Codec;
use crate::exact::{Cursor, Writer, F32};
use crate::zengin::chunk::put_chunk;

fn t(s: &str) -> Text {
    Text::from(s)
}
fn f(v: f32) -> F32 {
    F32::new(v)
}
fn hexb(s: &str) -> Vec<u8> {
    hex::decode(s.replace([' ', '\n'], "")).unwrap()
}
fn args(a: [&str; 4]) -> super::Args {
    a.into()
}

/// Every chunk kind: (entry, chunk id, payload bytes). Values from spec §4.1/§4.2 where the spec
/// shows the bytes of waran.msb.
pub(super) fn table() -> Vec<(Entry, u16, Vec<u8>)> {
    vec![
        (
            Entry::Root(Root {
                version: 1,
                directory: t(r"\_WORK\DATA\ANIMS\"),
                trailing: Blob::default(),
            }),
            0xF000,
            [&hexb("01000000")[..], br"\_WORK\DATA\ANIMS\", b"\n"].concat(),
        ),
        (
            Entry::Source(Source {
                date: crate::zengin::types::ZDate {
                    year: 2002,
                    month: 8,
                    day: 28,
                    hour: 12,
                    minute: 50,
                    second: 52,
                    padding: 0,
                },
                path: t(r"\_WORK\DATA\ANIMS\WARAN.MDS"),
                trailing: Blob::default(),
            }),
            0xF100,
            [
                &hexb("d2070000 0800 1c00 0c00 3200 3400 0000")[..],
                br"\_WORK\DATA\ANIMS\WARAN.MDS",
                b"\n",
            ]
            .concat(),
        ),
        (Entry::Model(Marker::default()), 0xF200, vec![]),
        (
            Entry::MeshAndTree(MeshAndTree {
                dont_use_mesh: Bool32(1),
                mesh: t("WAR_BODY"),
                trailing: Blob::default(),
            }),
            0xF300,
            [&hexb("01000000")[..], b"WAR_BODY\n"].concat(),
        ),
        (
            Entry::RegisterMesh(Name {
                name: t("WAR_BODY.ASC"),
                trailing: Blob::default(),
            }),
            0xF400,
            b"WAR_BODY.ASC\n".to_vec(),
        ),
        (Entry::AniEnum(Marker::default()), 0xF500, vec![]),
        (
            Entry::AniMaxFps(AniMaxFps {
                fps: f(12.5),
                trailing: Blob::default(),
            }),
            0xF510,
            hexb("00004841"),
        ),
        (
            // waran.msb @207: ani T_FISTRUN_2_FISTRUNL 1 S_FISTRUNL 0 0 "M." WARAN_RUN_KM01.ASC "F" 1 8 25 0 1
            Entry::Ani(Ani {
                name: t("T_FISTRUN_2_FISTRUNL"),
                layer: 1,
                next: t("S_FISTRUNL"),
                blend_in: f(0.0),
                blend_out: f(0.0),
                flags: t("M."),
                asc: t("WARAN_RUN_KM01.ASC"),
                direction: t("F"),
                first_frame: 1,
                last_frame: 8,
                fps: f(25.0),
                speed: f(0.0),
                collision_volume_scale: f(1.0),
                trailing: Blob::default(),
                events: None,
            }),
            0xF520,
            [
                &b"T_FISTRUN_2_FISTRUNL\n"[..],
                &hexb("01000000"),
                b"S_FISTRUNL\n",
                &hexb("00000000 00000000"),
                b"M.\nWARAN_RUN_KM01.ASC\nF\n",
                &hexb("01000000 08000000 0000c841 00000000 0000803f"),
            ]
            .concat(),
        ),
        (
            // waran.msb @153: alias S_FISTRUN 1 S_FISTRUN 0 0 "MI" S_FISTWALK "F" (len 48)
            Entry::AniAlias(AniAlias {
                name: t("S_FISTRUN"),
                layer: 1,
                next: t("S_FISTRUN"),
                blend_in: f(0.0),
                blend_out: f(0.0),
                flags: t("MI"),
                alias_of: t("S_FISTWALK"),
                direction: t("F"),
                trailing: Blob::default(),
                events: None,
            }),
            0xF530,
            [
                &b"S_FISTRUN\n"[..],
                &hexb("01000000"),
                b"S_FISTRUN\n",
                &hexb("00000000 00000000"),
                b"MI\nS_FISTWALK\nF\n",
            ]
            .concat(),
        ),
        (
            Entry::AniBlend(AniBlend {
                name: t("BLEND"),
                layer: NotStored,
                next: t(""),
                blend_in: f(0.1),
                blend_out: f(-0.0),
                trailing: Blob::default(),
                events: None,
            }),
            0xF540,
            [&b"BLEND\n\n"[..], &hexb("cdcccc3d 00000080")].concat(),
        ),
        (
            Entry::AniSync(AniSync {
                name: t("A"),
                next: t("B"),
                trailing: Blob::default(),
                events: None,
            }),
            0xF550,
            b"A\nB\n".to_vec(),
        ),
        (
            Entry::AniComb(AniComb {
                name: t("T_LOOK"),
                layer: 9,
                next: t("T_LOOK"),
                blend_in: f(0.3),
                blend_out: f(0.3),
                flags: t("M."),
                prefix: t("C_LOOK_"),
                count: 9,
                trailing: Blob::default(),
                events: None,
            }),
            0xF570,
            [
                &b"T_LOOK\n"[..],
                &hexb("09000000"),
                b"T_LOOK\n",
                &hexb("9a99993e 9a99993e"),
                b"M.\nC_LOOK_\n",
                &hexb("09000000"),
            ]
            .concat(),
        ),
        (
            Entry::AniDisable(AniDisable {
                name: t("S_RUN"),
                trailing: Blob::default(),
                events: None,
            }),
            0xF580,
            b"S_RUN\n".to_vec(),
        ),
        (
            Entry::ModelTag(ModelTag {
                tag: t("DEF_HIT_LIMB"),
                args: args(["BIP01 HEAD", "", "", ""]),
                trailing: Blob::default(),
            }),
            0xF590,
            b"DEF_HIT_LIMB\nBIP01 HEAD\n\n\n\n".to_vec(),
        ),
        (
            Entry::AniEvents(AniEvents {
                count: 3,
                trailing: Blob::default(),
            }),
            0xF5A0,
            hexb("03000000"),
        ),
        (
            // waran.msb @311: frame 5 "SNEAK" 1000.0 1.0
            Entry::Event(Event::SfxGrnd(Sfx {
                frame: 5,
                name: t("SNEAK"),
                range: f(1000.0),
                empty_slot_flag: f(1.0),
                trailing: Blob::default(),
            })),
            0xF5A2,
            [
                &hexb("05000000")[..],
                b"SNEAK\n",
                &hexb("00007a44 0000803f"),
            ]
            .concat(),
        ),
        (
            Entry::Event(Event::Sfx(Sfx {
                frame: -1,
                name: t("WAR_ATTACK"),
                range: f(2500.0),
                empty_slot_flag: f(0.0),
                trailing: Blob::default(),
            })),
            0xF5A1,
            [
                &hexb("ffffffff")[..],
                b"WAR_ATTACK\n",
                &hexb("00401c45 00000000"),
            ]
            .concat(),
        ),
        (
            // the 35-byte tag chunk of spec §4.1
            Entry::Event(Event::Tag(Tag {
                frame: 0,
                tag: t("DEF_HIT_LIMB"),
                args: args(["BIP01 TONGUE04", "", "", ""]),
                trailing: Blob::default(),
            })),
            0xF5A3,
            [
                &hexb("00000000")[..],
                b"DEF_HIT_LIMB\nBIP01 TONGUE04\n\n\n\n",
            ]
            .concat(),
        ),
        (
            Entry::Event(Event::Pfx(Pfx {
                frame: 7,
                handle: f(1.0),
                emitter: t("FIRE"),
                node: t("BIP01 HEAD"),
                attach: f(1.0),
                trailing: Blob::default(),
            })),
            0xF5A4,
            [
                &hexb("07000000 0000803f")[..],
                b"FIRE\nBIP01 HEAD\n",
                &hexb("0000803f"),
            ]
            .concat(),
        ),
        (
            Entry::Event(Event::PfxStop(PfxStop {
                frame: 9,
                handle: f(1.0),
                trailing: Blob::default(),
            })),
            0xF5A5,
            hexb("09000000 0000803f"),
        ),
        (
            Entry::Event(Event::PfxGrnd(FrameOnly {
                frame: 3,
                trailing: Blob::default(),
            })),
            0xF5A6,
            hexb("03000000"),
        ),
        (
            Entry::Event(Event::SetMesh(SetMesh {
                frame: 2,
                mesh: t("X.ASC"),
                trailing: Blob::default(),
            })),
            0xF5A7,
            [&hexb("02000000")[..], b"X.ASC\n"].concat(),
        ),
        (
            Entry::Event(Event::SwapMesh(SwapMesh {
                frame: 4,
                slot1: t("ZS_RIGHTHAND"),
                slot2: t("ZS_LEFTHAND"),
                trailing: Blob::default(),
            })),
            0xF5A8,
            [&hexb("04000000")[..], b"ZS_RIGHTHAND\nZS_LEFTHAND\n"].concat(),
        ),
        (
            Entry::Event(Event::MmStartAni(MmStartAni {
                frame: 10,
                ani: t("EYESBLINK"),
                node: t(""),
                intensity: f(1.0),
                hold_time: f(-2.0),
                trailing: Blob::default(),
            })),
            0xF5A9,
            [
                &hexb("0a000000")[..],
                b"EYESBLINK\n\n",
                &hexb("0000803f 000000c0"),
            ]
            .concat(),
        ),
        (
            Entry::Event(Event::CamTremor(CamTremor {
                frame: 11,
                radius_squared: f(881.0 * 881.0),
                duration_ms: f(882.0),
                strength_xz: f(883.0),
                strength_y: f(884.0),
                trailing: Blob::default(),
            })),
            0xF5AA,
            hexb("0b000000 107e3d49 00805c44 00c05c44 00005d44"),
        ),
        (Entry::AniEventsEnd(Marker::default()), 0xF5AF, vec![]),
        (Entry::AniEnumEnd(Marker::default()), 0xF5FF, vec![]),
        (Entry::ModelEnd(Marker::default()), 0xF2FF, vec![]),
        (Entry::End(Marker::default()), 0xFFFF, vec![]),
        (
            Entry::Unknown(Unknown {
                id: Hex16(0xF560),
                data: Blob::new(vec![1, 2, 3]),
            }),
            0xF560,
            vec![1, 2, 3],
        ),
        (
            Entry::AniDisable(AniDisable {
                name: t("X"),
                trailing: Blob::new(vec![0xCD, 0xCD]),
                events: None,
            }),
            0xF580,
            vec![b'X', b'\n', 0xCD, 0xCD],
        ),
    ]
}

#[test]
fn every_chunk_kind_both_ways() {
    for (entry, id, payload) in table() {
        assert_eq!(entry.id(), id, "{entry:?}");
        let mut out = Vec::new();
        entry.put_payload(&mut out).unwrap();
        assert_eq!(out, payload, "{}", entry.kind());
        let mut cur = Cursor::new(&payload, 0);
        assert_eq!(Entry::read_from(id, &payload, &mut cur).unwrap(), entry);
        assert!(cur.is_empty());
        // The fast source reads the same, also with file bytes after the payload.
        let mut file = vec![0u8; crate::zengin::chunk::HEADER_SIZE];
        file.extend_from_slice(&payload);
        file.extend_from_slice(b"after the chunk, more than 22 bytes\n");
        let chunk = crate::zengin::chunk::RawChunk {
            id,
            offset: 0,
            payload: &file[crate::zengin::chunk::HEADER_SIZE..][..payload.len()],
        };
        let quick = Entry::read_from(id, &payload, &mut super::fields::Quick::new(&file, &chunk));
        assert_eq!(quick, Ok(entry), "fast source");
    }
}

/// A file with every chunk kind, events folded after an ani, plus stray event entries.
pub(crate) fn sample_file() -> (Msb, Vec<u8>) {
    let mut entries: Vec<Entry> = Vec::new();
    let mut bytes = Vec::new();
    let rows = table();
    let events: Vec<Event> = rows
        .iter()
        .filter_map(|(e, _, _)| match e {
            Entry::Event(ev) => Some(ev.clone()),
            _ => None,
        })
        .collect();
    for (entry, id, payload) in rows {
        put_chunk(&mut bytes, id, |o| {
            o.extend_from_slice(&payload);
            Ok(())
        })
        .unwrap();
        let entry = match entry {
            Entry::Ani(mut a) => {
                // every event kind, folded
                put_chunk(&mut bytes, ID_ANI_EVENTS, |o| {
                    o.put_u32(events.len() as u32);
                    Ok(())
                })
                .unwrap();
                for ev in &events {
                    put_chunk(&mut bytes, ev.id(), |o| ev.put(o)).unwrap();
                }
                put_chunk(&mut bytes, ID_ANI_EVENTS_END, |_| Ok(())).unwrap();
                a.events = Some(events.clone());
                Entry::Ani(a)
            }
            other => other,
        };
        entries.push(entry);
    }
    (Msb { entries }, bytes)
}

#[test]
fn file_round_trips_binary_and_yaml() {
    let (msb, bytes) = sample_file();
    let read = Msb::read(&bytes).unwrap();
    assert_eq!(read, msb);
    let mut out = Vec::new();
    read.write(&mut out).unwrap();
    assert_eq!(out, bytes);
    let yaml = crate::zengin::msb::yaml::to_yaml(&read).unwrap();
    assert!(yaml.contains("- ani:"), "{yaml}");
    assert!(yaml.contains("eventCamTremor"), "{yaml}");
    let back = crate::zengin::msb::yaml::from_yaml(&yaml).unwrap();
    assert_eq!(back, msb);
    let mut out = Vec::new();
    back.write(&mut out).unwrap();
    assert_eq!(out, bytes);
    assert!(Msb::detect(&bytes));
}

#[test]
fn only_engine_shaped_event_lists_fold() {
    let ani = table()
        .into_iter()
        .find(|(e, _, _)| e.kind() == "ani")
        .unwrap();
    let ev = table()
        .into_iter()
        .find(|(e, _, _)| e.kind() == "eventSFXGrnd")
        .unwrap();
    let build = |count: u32, end_payload: &[u8]| {
        let mut b = Vec::new();
        put_chunk(&mut b, ani.1, |o| {
            o.extend_from_slice(&ani.2);
            Ok(())
        })
        .unwrap();
        put_chunk(&mut b, ID_ANI_EVENTS, |o| {
            o.put_u32(count);
            Ok(())
        })
        .unwrap();
        put_chunk(&mut b, ev.1, |o| {
            o.extend_from_slice(&ev.2);
            Ok(())
        })
        .unwrap();
        put_chunk(&mut b, ID_ANI_EVENTS_END, |o| {
            o.extend_from_slice(end_payload);
            Ok(())
        })
        .unwrap();
        b
    };
    let good = build(1, &[]);
    let m = Msb::read(&good).unwrap();
    assert_eq!(m.entries.len(), 1);
    assert_eq!(m.entries[0].events().map(Vec::len), Some(1));
    // a count that disagrees, and an end marker with a payload: kept as separate entries
    for bad in [build(2, &[]), build(0, &[]), build(1, &[9])] {
        let m = Msb::read(&bad).unwrap();
        let kinds: Vec<&str> = m.entries.iter().map(Entry::kind).collect();
        assert_eq!(kinds, ["ani", "aniEvents", "eventSFXGrnd", "aniEventsEnd"]);
        let mut out = Vec::new();
        m.write(&mut out).unwrap();
        assert_eq!(out, bad);
        let yaml = crate::zengin::msb::yaml::to_yaml(&m).unwrap();
        assert_eq!(crate::zengin::msb::yaml::from_yaml(&yaml).unwrap(), m);
    }
}

#[test]
fn truncated_chunk_names_offset_and_field() {
    let mut b = Vec::new();
    put_chunk(&mut b, ID_MODEL, |_| Ok(())).unwrap();
    put_chunk(&mut b, ID_ANI, |o| {
        o.extend_from_slice(b"NAME\n\x01\x00");
        Ok(())
    })
    .unwrap();
    let err = Msb::read(&b).unwrap_err();
    assert_eq!(err.path.to_string(), "chunks[1].ani.layer");
    assert_eq!(err.offset, 6 + 6 + 5);
}

#[test]
fn floats_keep_their_bits_through_yaml() {
    let nan = F32(0x7fa0_0001);
    let msb = Msb {
        entries: vec![Entry::AniMaxFps(AniMaxFps {
            fps: nan,
            trailing: Blob::default(),
        })],
    };
    let yaml = crate::zengin::msb::yaml::to_yaml(&msb).unwrap();
    assert_eq!(crate::zengin::msb::yaml::from_yaml(&yaml).unwrap(), msb);
}

/// An event of a folded list that ends early: the fast source gives up and the checking cursor
/// reports the field and offset (the list's chunk indices count every chunk).
#[test]
fn truncated_folded_event_names_offset_and_field() {
    let mut b = Vec::new();
    put_chunk(&mut b, ID_ANI_DISABLE, |o| {
        o.extend_from_slice(b"X\n");
        Ok(())
    })
    .unwrap();
    put_chunk(&mut b, ID_ANI_EVENTS, |o| {
        o.extend_from_slice(&1u32.to_le_bytes());
        Ok(())
    })
    .unwrap();
    // frame, tag, args[0]; args[1] is missing.
    put_chunk(&mut b, ID_EVENT_TAG, |o| {
        o.extend_from_slice(b"\x05\x00\x00\x00T\nA\n");
        Ok(())
    })
    .unwrap();
    put_chunk(&mut b, ID_ANI_EVENTS_END, |_| Ok(())).unwrap();
    let err = Msb::read(&b).unwrap_err();
    assert_eq!(err.path.to_string(), "chunks[2].eventTag.args[1]");
    assert_eq!(err.offset, 8 + 10 + 6 + 8);
}
