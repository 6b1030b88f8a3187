//! Document → package: a `ue3.upk` YAML document back to a package, re-encoding only the
//! tracks whose keys changed.

use super::super::anim::{self, TrackEdit};
use super::super::codec::{self, Quat, RotFormat, TrackOffsets, Vec3};
use super::super::compress::ChunkRecord;
use super::super::package::{Compressed, Export, Gap, Import, NameEntry, Object, Package, Summary};
use super::super::props::{FName, FStr, Names, Properties, Property, Value};
use super::*;
use crate::codec::{check_document_header, Codec};
use crate::exact::{FieldPath, Segment};

fn path(segs: &[Segment]) -> FieldPath {
    segs.iter()
        .cloned()
        .fold(FieldPath::new(), |p, s| p.push(s))
}

fn err_at(segs: &[Segment], msg: impl Into<String>) -> EncodeError {
    EncodeError {
        path: path(segs),
        message: msg.into(),
    }
}

fn fstr_from(y: &FStrY, segs: &[Segment]) -> Result<FStr, EncodeError> {
    match (&y.text, &y.utf16) {
        (None, None) => Ok(FStr::Empty),
        (Some(t), None) => Ok(FStr::Ansi(t.clone())),
        (None, Some(b)) if b.len() % 2 == 0 => Ok(FStr::Utf16(
            b.as_bytes()
                .chunks_exact(2)
                .map(|u| u16::from_le_bytes([u[0], u[1]]))
                .collect(),
        )),
        (None, Some(_)) => Err(err_at(segs, "utf16 needs an even number of bytes")),
        (Some(_), Some(_)) => Err(err_at(segs, "give either text or utf16, not both")),
    }
}

fn blob16(b: &Blob, segs: &[Segment]) -> Result<[u8; 16], EncodeError> {
    b.as_bytes()
        .try_into()
        .map_err(|_| err_at(segs, format!("needs 16 bytes, has {}", b.len())))
}

struct Ctx<'a> {
    names: &'a Names,
}

impl Ctx<'_> {
    fn name(&self, s: &str, segs: &[Segment]) -> Result<FName, EncodeError> {
        self.names.parse(s).ok_or_else(|| {
            err_at(
                segs,
                format!("`{s}` is not in the name table (names cannot be added)"),
            )
        })
    }
}

fn prop_from(cx: &Ctx, y: &PropY, segs: &[Segment]) -> Result<Property, EncodeError> {
    let f = |name: &'static str| {
        let mut v = segs.to_vec();
        v.push(Segment::Field(name));
        v
    };
    let mut values: Vec<Value> = Vec::new();
    if let Some(v) = y.bool {
        values.push(Value::Bool(v));
    }
    if let Some(v) = y.int {
        values.push(Value::Int(v));
    }
    if let Some(v) = y.float {
        values.push(Value::Float(v.0));
    }
    if let Some(v) = &y.name {
        values.push(Value::Name(cx.name(v, &f("name"))?));
    }
    if let Some(v) = y.byte {
        values.push(Value::Byte(v));
    }
    if let Some(v) = y.object {
        values.push(Value::Object(v));
    }
    if let Some(v) = &y.names {
        let mut out = Vec::with_capacity(v.len());
        for (i, s) in v.iter().enumerate() {
            let mut p = f("names");
            p.push(Segment::Index(i));
            out.push(cx.name(s, &p)?);
        }
        values.push(Value::Names(out));
    }
    if let Some(v) = &y.ints {
        values.push(Value::Ints(v.clone()));
    }
    if let Some(v) = &y.raw {
        values.push(Value::Raw(v.0.clone()));
    }
    if values.len() != 1 {
        return Err(err_at(
            segs,
            format!(
                "a property needs exactly one value field, found {}",
                values.len()
            ),
        ));
    }
    let value = values.remove(0);
    Ok(Property {
        name: cx.name(&y.prop, &f("prop"))?,
        ty: cx.name(&y.ty, &f("type"))?,
        size: y.size.unwrap_or(0),
        array_index: y.index,
        struct_name: y
            .struct_name
            .as_ref()
            .map(|s| cx.name(s, &f("struct")))
            .transpose()?,
        value,
    })
}

/// A track of the document as (translations, rotations) per frame.
fn track_parts(t: &TrackY, segs: &[Segment]) -> Result<(Vec<Vec3>, Vec<Quat>), EncodeError> {
    let get3 = |v: &[F32; 3]| v.map(|f| f.get());
    let get4 = |v: &[F32; 4]| v.map(|f| f.get());
    match (&t.keys, &t.translations, &t.rotations) {
        (Some(keys), None, None) => {
            let with_t = keys.iter().filter(|k| k.translation.is_some()).count();
            let with_r = keys.iter().filter(|k| k.rotation.is_some()).count();
            for (what, n) in [("translation", with_t), ("rotation", with_r)] {
                if n != 0 && n != keys.len() {
                    return Err(err_at(
                        segs,
                        format!(
                            "{n} of {} keys have a {what}: give it on every key or on none",
                            keys.len()
                        ),
                    ));
                }
            }
            Ok((
                keys.iter()
                    .filter_map(|k| k.translation.as_ref().map(get3))
                    .collect(),
                keys.iter()
                    .filter_map(|k| k.rotation.as_ref().map(get4))
                    .collect(),
            ))
        }
        (None, tr, ro) => Ok((
            tr.iter().flatten().map(get3).collect(),
            ro.iter().flatten().map(get4).collect(),
        )),
        _ => Err(err_at(
            segs,
            "give either `keys` or `translations`/`rotations`, not both",
        )),
    }
}

pub fn from_doc(doc: &UpkDocument) -> Result<Package, EncodeError> {
    check_document_header(
        &doc.format,
        doc.version,
        Package::TAG,
        Package::YAML_VERSION,
    )
    .map_err(EncodeError::new)?;
    let names = names_from(doc)?;
    let texts = Names::new(names.iter().map(|n| n.name.text()).collect());
    let cx = Ctx { names: &texts };
    let summary = summary_from(doc)?;
    let imports = imports_from(&cx, doc)?;
    let exports = exports_from(&cx, doc)?;
    let objects = objects_from(&cx, doc, exports.len())?;
    let mut pkg = Package {
        whole_file_xor: doc.container.whole_file_xor,
        compressed: doc.container.compression.as_ref().map(|c| Compressed {
            stored: c.stored.0.clone(),
            image_size: c.image_size,
            image_crc32: c.image_crc32.0,
        }),
        summary,
        names,
        imports,
        exports,
        depends: doc.depends.0.clone(),
        objects,
        gaps: doc
            .gaps
            .iter()
            .map(|g| Gap {
                offset: g.offset,
                bytes: g.bytes.0.clone(),
            })
            .collect(),
        name_texts: texts,
    };
    // Animation edits.
    let sets = anim::anim_sets(&pkg);
    for (i, o) in doc.objects.iter().enumerate() {
        if let Some(a) = &o.animation {
            let set = anim::set_of(&sets, &pkg, i);
            let nt = set.map(|s| sets[s].bones.len());
            animation_from(&mut pkg, i, o, a, nt)?;
        }
    }
    Ok(pkg)
}

/// The name table (phase 1 of [`from_doc`]).
fn names_from(doc: &UpkDocument) -> Result<Vec<NameEntry>, EncodeError> {
    let f = Segment::Field;
    let mut names = Vec::with_capacity(doc.names.len());
    for (i, n) in doc.names.iter().enumerate() {
        let name = fstr_from(
            &FStrY {
                text: n.name.clone(),
                utf16: n.utf16.clone(),
            },
            &[f("names"), Segment::Index(i)],
        )?;
        names.push(NameEntry {
            name,
            flags: n.flags.0,
        });
    }
    Ok(names)
}

/// The package summary (phase 2); counts come from the tables' lengths.
fn summary_from(doc: &UpkDocument) -> Result<Summary, EncodeError> {
    let f = Segment::Field;
    let s = &doc.summary;
    let summary = Summary {
        file_version: s.file_version,
        licensee_version: s.licensee_version,
        headers_size: s.headers_size,
        folder_name: fstr_from(&s.folder_name, &[f("summary"), f("folder_name")])?,
        package_flags: s.package_flags.0,
        name_count: doc.names.len() as i32,
        name_offset: s.name_offset,
        export_count: doc.exports.len() as i32,
        export_offset: s.export_offset,
        import_count: doc.imports.len() as i32,
        import_offset: s.import_offset,
        depends_offset: s.depends_offset,
        guid: blob16(&s.guid, &[f("summary"), f("guid")])?,
        generations: s.generations.clone(),
        engine_version: s.engine_version,
        cooker_version: s.cooker_version,
        compression_flags: s.compression_flags,
        chunks: s
            .chunks
            .iter()
            .map(|c| ChunkRecord {
                uncompressed_offset: c[0],
                uncompressed_size: c[1],
                compressed_offset: c[2],
                compressed_size: c[3],
            })
            .collect(),
        package_source: s.package_source.0,
        additional_packages: s
            .additional_packages
            .iter()
            .enumerate()
            .map(|(i, a)| {
                fstr_from(
                    a,
                    &[f("summary"), f("additional_packages"), Segment::Index(i)],
                )
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(summary)
}

/// The import table (phase 3).
fn imports_from(cx: &Ctx, doc: &UpkDocument) -> Result<Vec<Import>, EncodeError> {
    let f = Segment::Field;
    let mut imports = Vec::with_capacity(doc.imports.len());
    for (i, im) in doc.imports.iter().enumerate() {
        let p = |n: &'static str| [f("imports"), Segment::Index(i), f(n)];
        imports.push(Import {
            class_package: cx.name(&im.class_package, &p("class_package"))?,
            class_name: cx.name(&im.class_name, &p("class_name"))?,
            outer: im.outer,
            object_name: cx.name(&im.object_name, &p("object_name"))?,
        });
    }
    Ok(imports)
}

/// The export table (phase 4).
fn exports_from(cx: &Ctx, doc: &UpkDocument) -> Result<Vec<Export>, EncodeError> {
    let f = Segment::Field;
    let mut exports = Vec::with_capacity(doc.exports.len());
    for (i, e) in doc.exports.iter().enumerate() {
        let p = |n: &'static str| [f("exports"), Segment::Index(i), f(n)];
        exports.push(Export {
            class: e.class,
            super_index: e.super_index,
            outer: e.outer,
            name: cx.name(&e.name, &p("name"))?,
            archetype: e.archetype,
            object_flags: e.object_flags.0,
            serial_size: e.serial_size,
            serial_offset: e.serial_offset,
            export_flags: e.export_flags.0,
            net_object_counts: e.net_object_counts.clone(),
            package_guid: blob16(&e.package_guid, &p("package_guid"))?,
            package_flags: e.package_flags.0,
        });
    }
    Ok(exports)
}

/// The objects' bytes (phase 5): tagged properties and native tails, before animation edits.
fn objects_from(cx: &Ctx, doc: &UpkDocument, n_exports: usize) -> Result<Vec<Object>, EncodeError> {
    let f = Segment::Field;
    if doc.objects.len() != n_exports {
        return Err(err_at(
            &[f("objects")],
            format!("{} objects for {} exports", doc.objects.len(), n_exports),
        ));
    }
    let none = cx.names.parse("None").unwrap_or_default();
    let mut objects = Vec::with_capacity(doc.objects.len());
    for (i, o) in doc.objects.iter().enumerate() {
        let at = |n: &'static str| vec![f("objects"), Segment::Index(i), f(n)];
        let obj = match (&o.raw, &o.properties) {
            (Some(_), Some(_)) => return Err(err_at(&at("raw"), "give either raw or properties")),
            (Some(b), None) => Object::Raw(b.0.clone()),
            (None, None) => Object::Empty,
            (None, Some(props)) => {
                let mut list = Vec::with_capacity(props.len());
                for (k, p) in props.iter().enumerate() {
                    let mut segs = at("properties");
                    segs.push(Segment::Index(k));
                    list.push(prop_from(cx, p, &segs)?);
                }
                let terminator = match &o.properties_end {
                    Some(s) => cx.name(s, &at("properties_end"))?,
                    None => none,
                };
                let tail = match (&o.animation, &o.native) {
                    (Some(a), None) => {
                        let st = a.stream.as_ref().map_or(&[][..], |b| b.as_bytes());
                        let mut t = Vec::with_capacity(st.len() + 4);
                        t.extend_from_slice(&(st.len() as i32).to_le_bytes());
                        t.extend_from_slice(st);
                        t
                    }
                    (None, Some(b)) => b.0.clone(),
                    (None, None) => Vec::new(),
                    (Some(_), Some(_)) => {
                        return Err(err_at(&at("native"), "give either native or animation"))
                    }
                };
                Object::Tagged {
                    net_index: o.net_index.unwrap_or(0),
                    props: Properties {
                        props: list,
                        terminator,
                    },
                    tail,
                }
            }
        };
        objects.push(obj);
    }
    Ok(objects)
}

/// One AnimSequence's animation block (phase 6): compares the given keys with what the stored
/// stream decodes to and rebuilds the stream when a part changed.
fn animation_from(
    pkg: &mut Package,
    i: usize,
    o: &ObjectY,
    a: &AnimY,
    nt: Option<usize>,
) -> Result<(), EncodeError> {
    let f = Segment::Field;
    let segs = vec![f("objects"), Segment::Index(i), f("animation")];
    let seq = anim::sequence(pkg, i, nt)
        .map_err(|e| err_at(&segs, e.to_string()))?
        .ok_or_else(|| {
            err_at(
                &segs,
                "animation given for an export that is not an AnimSequence",
            )
        })?;
    check_derived(&seq, a, o, &segs)?;
    let stream_format = RotFormat::from_name(&a.stream_format).ok_or_else(|| {
        err_at(
            &segs,
            format!("unknown stream_format `{}`", a.stream_format),
        )
    })?;
    let mut orig = seq.clone();
    orig.rotation_format = stream_format;
    let stream = anim::stream(pkg, i).to_vec();
    let n = seq.offsets.len();
    let kept = a.stream.is_some();
    let (layouts, tracks) = if kept {
        anim::decode(&orig, &stream).map_err(|e| err_at(&segs, e.to_string()))?
    } else {
        (vec![Default::default(); n], Vec::new())
    };
    if a.tracks.len() != n {
        return Err(err_at(
            &segs,
            format!("{} tracks given, the sequence has {n}", a.tracks.len()),
        ));
    }
    let same_format = stream_format == seq.rotation_format;
    let mut edits = Vec::with_capacity(n);
    let mut changed = !same_format || !kept;
    for (k, ty) in a.tracks.iter().enumerate() {
        let mut tsegs = segs.clone();
        tsegs.extend([f("tracks"), Segment::Index(k)]);
        let (tr, ro) = track_parts(ty, &tsegs)?;
        let mut e = TrackEdit::default();
        match tracks.get(k) {
            Some(t) if anim::same_keys(&t.translations, &tr) => {}
            _ => {
                e.translations = Some(tr);
                changed = true;
            }
        }
        match tracks.get(k) {
            Some(t) if same_format && anim::same_keys(&t.rotations, &ro) => {}
            _ => {
                // Refused here, with the key's own path (the encoder's error would only
                // know the track).
                for (i, q) in ro.iter().enumerate() {
                    codec::check_rotation(q).map_err(|m| {
                        let mut p = tsegs.clone();
                        if ty.keys.is_some() {
                            p.extend([f("keys"), Segment::Index(i), f("rotation")]);
                        } else {
                            p.extend([f("rotations"), Segment::Index(i)]);
                        }
                        err_at(&p, m)
                    })?;
                }
                e.rotations = Some(ro);
                changed = true;
            }
        }
        edits.push(e);
    }
    if changed {
        let (mut new_stream, offsets) = anim::rebuild(
            &stream,
            &layouts,
            &orig.offsets,
            &edits,
            seq.rotation_format,
        )
        .map_err(|mut e| {
            for s in segs.iter().rev() {
                e.path.prefix(s.clone());
            }
            e
        })?;
        if !kept {
            apply_headers(&seq, &mut new_stream, &offsets, a, &segs)?;
        }
        anim::store(pkg, i, new_stream, &offsets).map_err(|e| err_at(&segs, e.message))?;
    }
    Ok(())
}

/// The animation block's derived fields must be what the (possibly edited) properties give:
/// an edit of one is refused, naming the property to edit instead.
fn check_derived(
    seq: &anim::Sequence,
    a: &AnimY,
    o: &ObjectY,
    segs: &[Segment],
) -> Result<(), EncodeError> {
    let prop_at = |name: &str| {
        o.properties
            .iter()
            .flatten()
            .position(|p| p.prop.eq_ignore_ascii_case(name))
            .map_or_else(
                || format!("the {name} property (absent: add it)"),
                |k| format!("{name} (objects[{}].properties[{k}])", segs_index(segs)),
            )
    };
    let refuse = |field: &'static str, given: String, derived: String, from: &str| {
        let mut p = segs.to_vec();
        p.push(Segment::Field(field));
        Err(err_at(
            &p,
            format!(
                "{given} disagrees with the value derived from the properties, {derived}: \
                 `{field}` is derived and only shown; to change it edit {from}, then give the \
                 new value here or delete this line"
            ),
        ))
    };
    if let Some(v) = &a.sequence {
        if *v != seq.name {
            return refuse(
                "sequence",
                v.clone(),
                seq.name.clone(),
                &prop_at("SequenceName"),
            );
        }
    }
    if let Some(v) = a.frames {
        if v != seq.num_frames {
            return refuse(
                "frames",
                v.to_string(),
                seq.num_frames.to_string(),
                &prop_at("NumFrames"),
            );
        }
    }
    if let Some(v) = a.length {
        if v.bits() != seq.length.to_bits() {
            return refuse(
                "length",
                v.to_string(),
                F32::new(seq.length).to_string(),
                &prop_at("SequenceLength"),
            );
        }
    }
    if let Some(v) = a.rate {
        let r = F32::new(rate(seq));
        if v.bits() != r.bits() {
            let from = format!(
                "{} (NumFrames / SequenceLength × RateScale; for {v} frames per second \
                 SequenceLength {})",
                prop_at("SequenceLength"),
                F32::new(seq.num_frames as f32 / v.get() * seq.rate_scale)
            );
            return refuse("rate", v.to_string(), r.to_string(), &from);
        }
    }
    if let Some(v) = &a.translation_format {
        if *v != seq.translation_format {
            return refuse(
                "translation_format",
                v.clone(),
                seq.translation_format.clone(),
                &prop_at("TranslationCompressionFormat"),
            );
        }
    }
    Ok(())
}

/// The object index in a path `objects[i]...`.
fn segs_index(segs: &[Segment]) -> usize {
    segs.iter()
        .find_map(|s| match s {
            Segment::Index(i) => Some(*i),
            _ => None,
        })
        .unwrap_or(0)
}

/// Write the documented Mins/Ranges of tracks whose rotation keys are exactly what the new
/// encoding decodes to (i.e. unchanged by the user, up to the codec's own rounding).
fn apply_headers(
    seq: &anim::Sequence,
    stream: &mut [u8],
    offsets: &[TrackOffsets],
    a: &AnimY,
    segs: &[Segment],
) -> Result<(), EncodeError> {
    let mut view = seq.clone();
    view.offsets = offsets.to_vec();
    let (_, decoded) = anim::decode(&view, stream).map_err(|e| err_at(segs, e.to_string()))?;
    for (k, (ty, off)) in a.tracks.iter().zip(offsets).enumerate() {
        let Some(h) = ty.mins_ranges else { continue };
        if off.rot_keys < 2 || seq.rotation_format == RotFormat::IntervalFixed32NoW {
            continue;
        }
        let mut tsegs = segs.to_vec();
        tsegs.extend([Segment::Field("tracks"), Segment::Index(k)]);
        let (_, ro) = track_parts(ty, &tsegs)?;
        if decoded
            .get(k)
            .is_some_and(|d| anim::same_keys(&d.rotations, &ro))
        {
            let at = off.rot_offset as usize;
            for (c, v) in h.iter().enumerate() {
                stream[at + 4 * c..at + 4 * c + 4].copy_from_slice(&v.0.to_le_bytes());
            }
        }
    }
    Ok(())
}
