//! A whole model from its MDS and ASC files, as the engine writes `_compiled/`: the MDH from
//! the `meshAndTree` ASC (asc.md §5) and one MAN per `ani` whose ASC is there (§4.4). The MSB
//! comes from [`crate::zengin::mds::compile`]; file access stays with the caller.

use super::model::Model;
use super::pose::{mdh_from_tm, world_from_tm_rows, World};
use super::to_man::{compile, skeleton_names, AniInput, Rounding};
use crate::exact::{Blob, Hex32, F32};
use crate::zengin::man::Man;
use crate::zengin::mdh::{Chunk, End, Hierarchy, Mdh, Node, Source};
use crate::zengin::mds::{AniItem, Mds, ModelItem};
use crate::zengin::stext::ShortText;
use crate::zengin::types::{BBox, Mat4, ZDate};
use glam::DVec3;

/// The MDH of a mesh-and-tree ASC (asc.md §5): the `Bip01…`/`ZS_…` objects in file order with
/// upper-case names, local matrices from the `*NODE_TM`s, the root's translation apart, the
/// checksum of the names. `asc_path` is stored after `\_WORK\DATA\ANIMS\` (upper case). The
/// bboxes are zero: they need the mesh (not derived).
pub fn mdh_from_asc(asc: &Model, asc_path: &str) -> Result<Mdh, String> {
    let names = skeleton_names(asc);
    if names.is_empty() {
        return Err("the ASC has no Bip01… or ZS_… object: no skeleton".into());
    }
    let objs: Vec<&super::model::Object> = asc
        .objects
        .iter()
        .filter(|o| {
            let n = o.name.to_ascii_uppercase();
            n.starts_with("BIP01") || n.starts_with("ZS_")
        })
        .collect();
    let world = |o: &super::model::Object| -> World {
        world_from_tm_rows(o.tm.rows.map(DVec3::from_array))
    };
    let mut nodes = Vec::with_capacity(objs.len());
    let mut root_translation = [F32::new(0.0); 3];
    for o in &objs {
        let parent_obj = o
            .parent
            .as_deref()
            .and_then(|p| asc.objects.iter().find(|q| q.name == p));
        let parent_idx = o
            .parent
            .as_deref()
            .and_then(|p| objs.iter().position(|q| q.name.eq_ignore_ascii_case(p)));
        let (rows, root) = mdh_from_tm(parent_obj.map(world), world(o));
        if let Some(t) = root {
            if parent_idx.is_none() && nodes.is_empty() {
                root_translation = t.map(F32::new);
            }
        }
        let name = o.name.to_ascii_uppercase();
        nodes.push(Node {
            name: ShortText::from(name.as_str()),
            parent: parent_idx.map_or(-1, |i| i as i16),
            transform: Mat4(rows.map(|r| r.map(F32::new))),
        });
    }
    let checksum = crate::zengin::node_list_checksum(names.iter().map(|n| n.as_slice()));
    Ok(Mdh {
        chunks: vec![
            Chunk::Hierarchy(Hierarchy {
                version: 3,
                nodes,
                bbox: BBox::default(),
                collision_bbox: BBox::default(),
                root_translation,
                checksum: Hex32(checksum),
                trailing: Blob::default(),
            }),
            Chunk::Source(Source {
                date: ZDate::default(),
                path: crate::zengin::stext::ShortText::new(
                    format!("\\_WORK\\DATA\\ANIMS\\{asc_path}")
                        .to_ascii_uppercase()
                        .into_bytes(),
                ),
                trailing: Blob::default(),
            }),
            Chunk::End(End::default()),
        ],
    })
}

/// One `ani` of a script: its statement, its source line and the ASC it names.
pub struct AniJob {
    pub ani: crate::zengin::mds::Ani,
    pub line: String,
}

/// The `ani` statements of `mds` with the script line each was written on (the i-th line
/// whose first word is `ani` followed by `(` belongs to the i-th `ani`).
pub fn ani_jobs(mds: &Mds) -> Vec<AniJob> {
    let mut anis = Vec::new();
    for item in &mds.script.items {
        if let ModelItem::AniEnum(items) = item {
            for a in items {
                if let AniItem::Ani(a) = a {
                    anis.push(a.clone());
                }
            }
        }
    }
    let text = super::model::latin1(&mds.src);
    let mut lines = text.split('\n').filter(|l| {
        let t = l.trim_start();
        t.len() >= 3 && t[..3].eq_ignore_ascii_case("ani") && t[3..].trim_start().starts_with('(')
    });
    anis.into_iter()
        .map(|ani| AniJob {
            line: lines
                .next()
                .map(|l| l.trim_end_matches('\r').to_string())
                .unwrap_or_default(),
            ani,
        })
        .collect()
}

/// The MAN of one ani (its file name: [`man_name`]) and the compiler's notes.
pub fn man_for(
    job: &AniJob,
    asc: &Model,
    asc_path: &str,
    nodes: &[Vec<u8>],
    checksum: u32,
    rounding: Rounding,
) -> Result<(Man, Vec<String>), String> {
    let input = AniInput {
        ani: &job.ani,
        line: &job.line,
        asc_path,
        nodes,
        checksum,
        rounding,
        position_range: None,
    };
    let (man, notes) = compile(asc, &input)?;
    Ok((man, notes.into_iter().map(|n| n.0).collect()))
}

/// The file name of one ani's MAN: `MODEL-ANINAME.MAN`, upper case.
pub fn man_name(model_name: &str, job: &AniJob) -> String {
    format!(
        "{}-{}.MAN",
        model_name.to_ascii_uppercase(),
        String::from_utf8_lossy(job.ani.name.as_bytes()).to_ascii_uppercase()
    )
}
