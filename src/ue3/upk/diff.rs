//! `animkit diff` of two packages: every change named by its place in the YAML document, with
//! old → new values written as the document writes them.
//!
//! Tables (container, summary, names, imports, exports) are compared field by field through
//! their document form; objects property by property (matched by name and array index); an
//! AnimSequence's tracks key by key on the decoded values' bits (angles in f64), so a stream
//! that changed without any key changing is said to be just that.

use super::anim::{self, Track};
use super::codec::{Quat, Vec3};
use super::doc;
use super::package::{Object, Package};
use super::props::{Names, Property, Value};
use crate::exact::F32;
use serde_json::Value as Json;

/// Keys listed one by one up to this many per part; more are summarised.
const LIST_KEYS: usize = 3;
/// Array elements listed one by one up to this many per property.
const LIST_ELEMENTS: usize = 6;

pub fn diff(a: &Package, b: &Package) -> Vec<String> {
    let mut out = Vec::new();
    if a.whole_file_xor != b.whole_file_xor {
        out.push(format!(
            "container.whole_file_xor: {} → {}",
            a.whole_file_xor, b.whole_file_xor
        ));
    }
    match (&a.compressed, &b.compressed) {
        (Some(_), None) => out.push("container.compression: LZO → none (uncompressed)".into()),
        (None, Some(_)) => out.push("container.compression: none → LZO".into()),
        (Some(x), Some(y)) if x != y => {
            out.push(format!(
                "container.compression: stored bytes differ ({} → {} bytes)",
                x.stored.len(),
                y.stored.len()
            ));
        }
        _ => {}
    }
    let (ta, tb) = (doc::tables(a), doc::tables(b));
    for (name, x, y) in [
        ("summary", &ta.0, &tb.0),
        ("names", &ta.1, &tb.1),
        ("imports", &ta.2, &tb.2),
        ("exports", &ta.3, &tb.3),
    ] {
        json_diff(name, x, y, &mut out);
    }
    if a.depends != b.depends {
        out.push(format!(
            "depends: differs ({} → {} bytes)",
            a.depends.len(),
            b.depends.len()
        ));
    }
    if a.gaps != b.gaps {
        out.push(format!(
            "gaps: differ ({} → {} uncovered ranges)",
            a.gaps.len(),
            b.gaps.len()
        ));
    }
    for (i, (oa, ob)) in a.objects.iter().zip(&b.objects).enumerate() {
        object_diff(a, b, i, oa, ob, &mut out);
    }
    out
}

fn label(p: &Package, i: usize) -> String {
    match anim::sequence(p, i, None) {
        Ok(Some(q)) => format!("objects[{i}] ({} = {})", p.export_name(i), q.name),
        _ => format!("objects[{i}] ({})", p.export_name(i)),
    }
}

fn object_diff(
    a: &Package,
    b: &Package,
    i: usize,
    oa: &Object,
    ob: &Object,
    out: &mut Vec<String>,
) {
    let at = label(a, i);
    match (oa, ob) {
        (Object::Empty, Object::Empty) => {}
        (Object::Raw(x), Object::Raw(y)) => {
            if x != y {
                out.push(format!(
                    "{at}: raw record differs ({} → {} bytes)",
                    x.len(),
                    y.len()
                ));
            }
        }
        (
            Object::Tagged {
                net_index: na,
                props: pa,
                tail: xa,
            },
            Object::Tagged {
                net_index: nb,
                props: pb,
                tail: xb,
            },
        ) => {
            if na != nb {
                out.push(format!("{at}: net_index: {na} → {nb}"));
            }
            props_diff(&at, a.names(), &pa.props, b.names(), &pb.props, out);
            let (ea, eb) = (
                a.names().to_yaml(pa.terminator),
                b.names().to_yaml(pb.terminator),
            );
            if ea != eb {
                out.push(format!("{at}: properties_end: {ea} → {eb}"));
            }
            if xa != xb {
                tail_diff(a, b, i, &at, xa, xb, out);
            }
        }
        _ => out.push(format!(
            "{at}: record kind differs ({} → {})",
            kind(oa),
            kind(ob)
        )),
    }
}

fn kind(o: &Object) -> &'static str {
    match o {
        Object::Empty => "empty",
        Object::Raw(_) => "raw bytes",
        Object::Tagged { .. } => "tagged properties",
    }
}

/// A property's value as the document writes it.
fn show(names: &Names, v: &Value) -> String {
    match v {
        Value::Bool(x) => x.to_string(),
        Value::Int(x) => x.to_string(),
        Value::Float(bits) => F32(*bits).to_yaml_text(),
        Value::Name(n) => names.to_yaml(*n),
        Value::Byte(x) => x.to_string(),
        Value::Object(x) => x.to_string(),
        Value::Names(v) => format!(
            "[{}]",
            v.iter()
                .map(|n| names.to_yaml(*n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Ints(v) => format!(
            "[{}]",
            v.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
        ),
        Value::Raw(b) => format!("{} bytes of raw data", b.len()),
    }
}

/// The elements of a list value, as written.
fn elements(names: &Names, v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Names(v) => Some(v.iter().map(|n| names.to_yaml(*n)).collect()),
        Value::Ints(v) => Some(v.iter().map(i32::to_string).collect()),
        _ => None,
    }
}

fn prop_key(names: &Names, p: &Property) -> (String, i32) {
    (names.to_yaml(p.name), p.array_index)
}

fn props_diff(
    at: &str,
    na: &Names,
    pa: &[Property],
    nb: &Names,
    pb: &[Property],
    out: &mut Vec<String>,
) {
    let name = |(n, idx): &(String, i32)| {
        if *idx == 0 {
            n.clone()
        } else {
            format!("{n}[{idx}]")
        }
    };
    for p in pa {
        let k = prop_key(na, p);
        let Some(q) = pb.iter().find(|q| prop_key(nb, q) == k) else {
            out.push(format!(
                "{at}: {} removed (was {})",
                name(&k),
                show(na, &p.value)
            ));
            continue;
        };
        let (ta, tb) = (na.to_yaml(p.ty), nb.to_yaml(q.ty));
        if ta != tb {
            out.push(format!("{at}: {} type: {ta} → {tb}", name(&k)));
        }
        if matches!(p.value, Value::Bool(_)) && p.size != q.size {
            out.push(format!("{at}: {} size: {} → {}", name(&k), p.size, q.size));
        }
        let (sa, sb) = (show(na, &p.value), show(nb, &q.value));
        if sa == sb {
            continue;
        }
        match (elements(na, &p.value), elements(nb, &q.value)) {
            (Some(x), Some(y)) if x.len() == y.len() => {
                let changed: Vec<usize> = (0..x.len()).filter(|&e| x[e] != y[e]).collect();
                for &e in changed.iter().take(LIST_ELEMENTS) {
                    out.push(format!("{at}: {}[{e}]: {} → {}", name(&k), x[e], y[e]));
                }
                if changed.len() > LIST_ELEMENTS {
                    out.push(format!(
                        "{at}: {}: {} more of {} entries changed",
                        name(&k),
                        changed.len() - LIST_ELEMENTS,
                        x.len()
                    ));
                }
            }
            _ => out.push(format!("{at}: {}: {sa} → {sb}", name(&k))),
        }
    }
    for q in pb {
        let k = prop_key(nb, q);
        if !pa.iter().any(|p| prop_key(na, p) == k) {
            out.push(format!("{at}: {} added: {}", name(&k), show(nb, &q.value)));
        }
    }
    let order = |n: &Names, v: &[Property]| v.iter().map(|p| prop_key(n, p)).collect::<Vec<_>>();
    let (oa, ob) = (order(na, pa), order(nb, pb));
    let common = |o: &[(String, i32)], other: &[(String, i32)]| {
        o.iter()
            .filter(|k| other.contains(k))
            .cloned()
            .collect::<Vec<_>>()
    };
    if common(&oa, &ob) != common(&ob, &oa) {
        out.push(format!("{at}: properties reordered"));
    }
}

fn decoded(p: &Package, i: usize) -> Option<(Vec<String>, Vec<Track>)> {
    let sets = anim::anim_sets(p);
    let set = anim::set_of(&sets, p, i);
    let q = anim::sequence(p, i, set.map(|s| sets[s].bones.len())).ok()??;
    let (_, tracks) = anim::decode(&q, anim::stream(p, i)).ok()?;
    let bones = set.map(|s| sets[s].bones.clone()).unwrap_or_default();
    Some((bones, tracks))
}

fn tail_diff(
    a: &Package,
    b: &Package,
    i: usize,
    at: &str,
    xa: &[u8],
    xb: &[u8],
    out: &mut Vec<String>,
) {
    let (Some((bones, ta)), Some((_, tb))) = (decoded(a, i), decoded(b, i)) else {
        out.push(format!(
            "{at}: native bytes differ ({} → {} bytes)",
            xa.len(),
            xb.len()
        ));
        return;
    };
    let before = out.len();
    if ta.len() != tb.len() {
        out.push(format!(
            "{at}: animation.tracks: {} → {} tracks",
            ta.len(),
            tb.len()
        ));
    }
    for (k, (x, y)) in ta.iter().zip(&tb).enumerate() {
        let track = format!(
            "{at}: animation.tracks[{k}] ({})",
            bones.get(k).map_or("?", String::as_str)
        );
        part_diff(
            &track,
            "translation",
            &x.translations,
            &y.translations,
            dist3,
            "",
            out,
        );
        part_diff(
            &track,
            "rotation",
            &x.rotations,
            &y.rotations,
            angle,
            "°",
            out,
        );
    }
    if out.len() == before {
        out.push(format!(
            "{at}: stream bytes differ ({} → {} bytes) but every key decodes the same \
             (stored Mins/Ranges, padding or layout)",
            xa.len().saturating_sub(4),
            xb.len().saturating_sub(4)
        ));
    }
}

fn list<const N: usize>(v: &[f32; N]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|&c| F32::new(c).to_yaml_text())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn dist3(a: &Vec3, b: &Vec3) -> f64 {
    (0..3)
        .map(|c| (a[c] as f64 - b[c] as f64).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The angle between two rotations in degrees (f64; q and −q are the same rotation).
fn angle(a: &Quat, b: &Quat) -> f64 {
    let n = |q: &Quat| q.iter().map(|&c| (c as f64).powi(2)).sum::<f64>().sqrt();
    let (na, nb) = (n(a), n(b));
    if na == 0.0 || nb == 0.0 {
        return f64::NAN;
    }
    let dot: f64 = (0..4).map(|c| a[c] as f64 * b[c] as f64).sum::<f64>() / (na * nb);
    2.0 * dot.abs().min(1.0).acos().to_degrees()
}

fn part_diff<const N: usize>(
    track: &str,
    what: &str,
    a: &[[f32; N]],
    b: &[[f32; N]],
    measure: fn(&[f32; N], &[f32; N]) -> f64,
    unit: &str,
    out: &mut Vec<String>,
) {
    let bits = |v: &[f32; N]| v.map(f32::to_bits);
    if a.len() != b.len() {
        out.push(format!("{track}: {what} keys: {} → {}", a.len(), b.len()));
        return;
    }
    let changed: Vec<usize> = (0..a.len())
        .filter(|&k| bits(&a[k]) != bits(&b[k]))
        .collect();
    let shown = |x: f64| format!("{}{unit}", (x * 1e4).round() / 1e4);
    if changed.len() <= LIST_KEYS {
        for &k in &changed {
            let m = measure(&a[k], &b[k]);
            out.push(format!(
                "{track}: key {k} {what}: {} → {}{}",
                list(&a[k]),
                list(&b[k]),
                if unit.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", shown(m))
                }
            ));
        }
    } else {
        let largest = changed
            .iter()
            .map(|&k| measure(&a[k], &b[k]))
            .fold(0.0f64, f64::max);
        out.push(format!(
            "{track}: {what} of {} of {} keys changed (largest change {})",
            changed.len(),
            a.len(),
            shown(largest)
        ));
    }
}

/// Field-by-field differences of two document values, as `path: old → new`.
fn json_diff(path: &str, a: &Json, b: &Json, out: &mut Vec<String>) {
    if a == b {
        return;
    }
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            for (k, va) in x {
                let p = format!("{path}.{k}");
                match y.get(k) {
                    Some(vb) => json_diff(&p, va, vb, out),
                    None => out.push(format!("{p}: {} → (absent)", leaf(va))),
                }
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    out.push(format!("{path}.{k}: (absent) → {}", leaf(vb)));
                }
            }
        }
        (Json::Array(x), Json::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!("{path}: {} → {} entries", x.len(), y.len()));
            }
            for (k, (va, vb)) in x.iter().zip(y).enumerate() {
                json_diff(&format!("{path}[{k}]"), va, vb, out);
            }
        }
        _ => out.push(format!("{path}: {} → {}", leaf(a), leaf(b))),
    }
}

fn leaf(v: &Json) -> String {
    match v {
        Json::String(s) if s.len() > 80 => format!("{} hex digits", s.len()),
        Json::String(s) => s.clone(),
        Json::Null => "~".into(),
        Json::Array(v) => format!("[{}]", v.iter().map(leaf).collect::<Vec<_>>().join(", ")),
        Json::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{k}: {}", leaf(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}
