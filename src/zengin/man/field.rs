//! Which field a byte of an encoded MAN belongs to (for mismatch reports).

use super::{Chunk, Header, Man, Samples};
use crate::exact::FieldPath;
use crate::zengin::chunk;
use crate::zengin::chunk::ChunkBody as _;
use crate::zengin::types::ZDate;

impl Man {
    /// The field path of the byte at `offset` of the encoded file.
    pub fn field_at(&self, offset: u64) -> String {
        let mut pos = 0u64;
        for (i, c) in self.chunks.iter().enumerate() {
            let mut payload = Vec::new();
            if c.put_payload(&mut payload).is_err() {
                return format!("chunks[{i}]");
            }
            let start = pos;
            let body = start + chunk::HEADER_SIZE as u64;
            let end = body + payload.len() as u64;
            pos = end;
            if offset >= end {
                continue;
            }
            let base = FieldPath::new().field("chunks").index(i);
            if offset < body {
                return base.field("length").to_string();
            }
            let rel = (offset - body) as usize;
            return match c {
                Chunk::Samples(s) => samples_field_at(s, rel, base.field("samples")),
                Chunk::Header(h) => header_field_at(h, rel, base.field("header")),
                Chunk::Source(s) => {
                    let p = base.field("source");
                    let path_end = <ZDate as crate::exact::Record>::SIZE + s.path.len() + 1;
                    let script_end = path_end + s.script.len() + 1;
                    match rel {
                        r if r < <ZDate as crate::exact::Record>::SIZE => p.field("date"),
                        r if r < path_end => p.field("path"),
                        r if r < script_end => p.field("script"),
                        _ => p.field("trailing"),
                    }
                    .to_string()
                }
                Chunk::Events(e) => {
                    let p = base.field("events");
                    let mut at = 4usize;
                    for (k, ev) in e.events.iter().enumerate() {
                        let mut buf = Vec::new();
                        let _ = ev.put(&mut buf);
                        if rel < at + buf.len() {
                            return p.field("events").index(k).to_string();
                        }
                        at += buf.len();
                    }
                    if rel < 4 {
                        p.field("count")
                    } else {
                        p.field("trailing")
                    }
                    .to_string()
                }
                Chunk::Marker(_) => base.field("marker").to_string(),
                Chunk::Unknown(_) => base.field("unknown").field("data").to_string(),
            };
        }
        format!("<past the end, offset {offset}>")
    }
}

pub(super) fn header_field_at(h: &Header, rel: usize, p: FieldPath) -> String {
    let name_end = 2 + h.name.len() + 1;
    use crate::exact::Record;
    let fixed = super::chunks::HeaderFixed::FIELDS;
    if rel < 2 {
        return p.field("version").to_string();
    }
    if rel < name_end {
        return p.field("name").to_string();
    }
    if let Some(f) = crate::exact::record::field_at(fixed, rel - name_end, &p) {
        return f.to_string();
    }
    let at = name_end + super::chunks::HeaderFixed::SIZE;
    if rel < at + h.next.len() + 1 {
        return p.field("next").to_string();
    }
    p.field("trailing").to_string()
}

pub(super) fn samples_field_at(s: &Samples, rel: usize, p: FieldPath) -> String {
    const NAMES: [&str; 6] = [
        "rotation", "rotation", "rotation", "position", "position", "position",
    ];
    if rel < 4 {
        return p.field("checksum").to_string();
    }
    let nodes = s.node_indices.len();
    let idx_end = 4 + nodes * 4;
    if rel < idx_end {
        return p.field("node_indices").index((rel - 4) / 4).to_string();
    }
    let k = (rel - idx_end) / Samples::SAMPLE_SIZE;
    if k < s.codes.len() && nodes > 0 {
        let comp = (rel - idx_end) % Samples::SAMPLE_SIZE / 2;
        return p
            .field("frames")
            .index(k / nodes)
            .index(k % nodes)
            .field(NAMES[comp])
            .index(comp % 3)
            .to_string();
    }
    p.field("trailing").to_string()
}
