//! MDS → MSB (`compile`, what the engine writes, spec §4.1/§5.6) and MSB → MDS (`decompile`).
//!
//! The engine rules applied by [`compile`]: every string upper-cased (ASCII, as the engine's
//! C-locale `toupper`), `meshAndTree` stored without its extension (cut at the first `.`),
//! `registerMesh` with it; `ani` fps = `FPS:` else the last `aniMaxFps` else 25, speed = `SPD:`
//! else 0, collision volume scale = `CVS:` clamped to 0..10 else 1; SFX range = `R:` (at most
//! 3500) else 2500 (`*eventSFX`) or 1000 (`*eventSFXGrnd`), empty-slot flag 0.0 when the line
//! has `EMPTY_` else 1.0; PFX handle default 0, attach 1.0/0.0; MMStartAni intensity 1.0 and hold
//! time −2.0 by default; camera-tremor radius squared; tag/model-tag arguments padded to four
//! lines; aniBatch writes nothing; event lists only for blocks with at least one event.
//!
//! What an MSB holds beyond the script (root version and directory, source date and path) goes
//! into a comment header (`// animkit-msb: …`) that [`compile`] reads back, so decompile →
//! compile reproduces engine-written MSBs byte for byte. [`decompile`] checks that and reports
//! anything the script cannot carry (unknown chunks, extra bytes, values outside what a script
//! can produce).
//!
//! Both directions walk the same statement declarations ([`crate::zengin::script::statements`]):
//! each is one [`Convert`] implementation holding the value rules, text → compiled
//! (`Compiler`) and compiled → text (`Decompiler`).

use crate::exact::{Blob, F32};
use crate::zengin::mds::{self, AniItem, Event as MEvent, ModelItem, Script, Written};
use crate::zengin::msb::{self, Bool32, Compiled, Entry, Marker, Msb};
use crate::zengin::script::{Convert, NotStored, Rule};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::types::ZDate;

/// Where the root/source chunk data comes from when the script has no header.
#[derive(Debug, Clone, Default)]
pub struct CompileOptions {
    /// The MDS file name (e.g. `WARAN.MDS`), for the source path.
    pub file_name: Option<Text>,
    /// The MDS file time, for the source date.
    pub date: Option<ZDate>,
}

/// The engine's default directory for model scripts.
pub const DEFAULT_DIRECTORY: &str = r"\_WORK\DATA\ANIMS\";

/// Root and source chunk data carried in the comment header.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Header {
    /// `None`: the MSB has no root chunk.
    pub root: Option<(u32, Text)>,
    /// `None`: no source chunk.
    pub source: Option<(ZDate, Text)>,
    /// Whether the header has a `root` line (else a default root chunk is written).
    pub root_given: bool,
    /// Whether the header has a `source` line (else a default source chunk is written).
    pub source_given: bool,
    /// The closing chunks left out (`ends modelEnd=0 end=0`): an engine MSB may stop after its
    /// last statement (CHESTBIG_ORCMUMMY.MSB has neither `modelEnd` nor `end`).
    pub no_model_end: bool,
    pub no_end: bool,
}

const PREFIX: &str = "// animkit-msb: ";

fn upper(t: &Text) -> Text {
    Text::new(t.as_bytes().to_ascii_uppercase())
}

fn header_value(t: &Text) -> String {
    let b = t.as_bytes();
    if b.iter().any(|&c| c == b'"' || c < 0x20 || c == 0x7f) || !b.is_ascii() {
        format!("hex:{}", hex::encode(b))
    } else {
        format!("\"{}\"", t)
    }
}

/// Read the comment header from a script's text.
pub fn read_header(src: &[u8]) -> Header {
    let mut h = Header::default();
    for line in src.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let trimmed = line
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .map_or(&line[..0], |p| &line[p..]);
        let Some(rest) = trimmed.strip_prefix(PREFIX.as_bytes()) else {
            continue;
        };
        let fields = header_fields(rest);
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        match fields.first().map(|(n, _)| n.as_str()) {
            Some("root") => {
                h.root_given = true;
                let version = get("version")
                    .and_then(|v| String::from_utf8(v).ok())
                    .and_then(|v| v.parse().ok());
                if let (Some(v), Some(d)) = (version, get("directory")) {
                    h.root = Some((v, Text::new(d)));
                }
            }
            Some("source") => {
                h.source_given = true;
                let date = get("date").and_then(|v| {
                    let s = String::from_utf8(v).ok()?;
                    let n: Vec<u32> = s
                        .split(',')
                        .map(|x| x.trim().parse().ok())
                        .collect::<Option<_>>()?;
                    let w = |i: usize| u16::try_from(*n.get(i)?).ok();
                    Some(ZDate {
                        year: *n.first()?,
                        month: w(1)?,
                        day: w(2)?,
                        hour: w(3)?,
                        minute: w(4)?,
                        second: w(5)?,
                        padding: w(6)?,
                    })
                });
                if let (Some(d), Some(p)) = (date, get("path")) {
                    h.source = Some((d, Text::new(p)));
                }
            }
            Some("ends") => {
                h.no_model_end = get("modelEnd").is_some_and(|v| v == b"0");
                h.no_end = get("end").is_some_and(|v| v == b"0");
            }
            _ => {}
        }
    }
    h
}

/// `root version=1 directory="..."` → [("root", ""), ("version", "1"), ...].
fn header_fields(s: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        while i < s.len() && s[i] == b' ' {
            i += 1;
        }
        let start = i;
        while i < s.len() && s[i] != b'=' && s[i] != b' ' {
            i += 1;
        }
        let key = String::from_utf8_lossy(&s[start..i]).into_owned();
        let mut value = Vec::new();
        if i < s.len() && s[i] == b'=' {
            i += 1;
            if i < s.len() && s[i] == b'"' {
                i += 1;
                let vs = i;
                while i < s.len() && s[i] != b'"' {
                    i += 1;
                }
                value = s[vs..i].to_vec();
                i += 1;
            } else {
                let vs = i;
                while i < s.len() && s[i] != b' ' {
                    i += 1;
                }
                let raw = &s[vs..i];
                value = match raw.strip_prefix(b"hex:") {
                    Some(h) => hex::decode(h).unwrap_or_default(),
                    None => raw.to_vec(),
                };
            }
        }
        if !key.is_empty() {
            out.push((key, value));
        }
    }
    out
}

fn write_header(h: &Header) -> Vec<u8> {
    let mut o = Vec::new();
    o.extend_from_slice(
        b"// Decompiled by animkit. The animkit-msb lines keep the MSB's root and source chunks;\r\n// `animkit compile` reads them back (the engine ignores lines with //).\r\n",
    );
    match &h.root {
        Some((v, d)) => o.extend_from_slice(
            format!("{PREFIX}root version={v} directory={}\r\n", header_value(d)).as_bytes(),
        ),
        None => o.extend_from_slice(format!("{PREFIX}root none\r\n").as_bytes()),
    }
    match &h.source {
        Some((d, p)) => o.extend_from_slice(
            format!(
                "{PREFIX}source date={},{},{},{},{},{},{} path={}\r\n",
                d.year,
                d.month,
                d.day,
                d.hour,
                d.minute,
                d.second,
                d.padding,
                header_value(p)
            )
            .as_bytes(),
        ),
        None => o.extend_from_slice(format!("{PREFIX}source none\r\n").as_bytes()),
    }
    if h.no_model_end || h.no_end {
        o.extend_from_slice(
            format!(
                "{PREFIX}ends modelEnd={} end={}\r\n",
                u8::from(!h.no_model_end),
                u8::from(!h.no_end)
            )
            .as_bytes(),
        );
    }
    o.extend_from_slice(b"\r\n");
    o
}

fn f(v: f32) -> F32 {
    F32::new(v)
}

fn args4(args: &[Text]) -> msb::Args {
    let mut out: [Text; 4] = Default::default();
    for (o, a) in out.iter_mut().zip(args) {
        *o = upper(a);
    }
    out.into()
}

fn compile_event(e: &MEvent) -> msb::Event {
    let none = Blob::default;
    match e {
        MEvent::Sfx(x) | MEvent::SfxGrnd(x) => {
            let grnd = matches!(e, MEvent::SfxGrnd(_));
            let default = if grnd { 1000.0 } else { 2500.0 };
            let range = x
                .range
                .map_or(f(default), |r| if r.get() > 3500.0 { f(3500.0) } else { r });
            let name = upper(&x.name);
            let empty = x.empty_slot || name.as_bytes().windows(6).any(|w| w == b"EMPTY_");
            let s = msb::Sfx {
                frame: x.frame,
                name,
                range,
                empty_slot_flag: f(if empty { 0.0 } else { 1.0 }),
                trailing: none(),
            };
            if grnd {
                msb::Event::SfxGrnd(s)
            } else {
                msb::Event::Sfx(s)
            }
        }
        MEvent::Tag(x) => msb::Event::Tag(msb::Tag {
            frame: x.frame.unwrap_or(0),
            tag: upper(&x.tag),
            args: args4(&x.args),
            trailing: none(),
        }),
        MEvent::Pfx(x) => msb::Event::Pfx(msb::Pfx {
            frame: x.frame,
            handle: x.handle.unwrap_or(f(0.0)),
            emitter: upper(&x.emitter),
            node: upper(&x.node),
            attach: f(if x.attach { 1.0 } else { 0.0 }),
            trailing: none(),
        }),
        MEvent::PfxStop(x) => msb::Event::PfxStop(msb::PfxStop {
            frame: x.frame,
            handle: x.handle,
            trailing: none(),
        }),
        MEvent::PfxGrnd(x) => msb::Event::PfxGrnd(msb::FrameOnly {
            frame: x.frame,
            trailing: none(),
        }),
        MEvent::SetMesh(x) => msb::Event::SetMesh(msb::SetMesh {
            frame: x.frame,
            mesh: upper(&x.mesh),
            trailing: none(),
        }),
        MEvent::SwapMesh(x) => msb::Event::SwapMesh(msb::SwapMesh {
            frame: x.frame,
            slot1: upper(&x.slot1),
            slot2: upper(&x.slot2),
            trailing: none(),
        }),
        MEvent::MmStartAni(x) => msb::Event::MmStartAni(msb::MmStartAni {
            frame: x.frame,
            ani: upper(&x.ani),
            node: x.node.as_ref().map(upper).unwrap_or_default(),
            intensity: x.intensity.unwrap_or(f(1.0)),
            hold_time: x.hold_time.unwrap_or(f(-2.0)),
            trailing: none(),
        }),
        MEvent::CamTremor(x) => msb::Event::CamTremor(msb::CamTremor {
            frame: x.frame,
            radius_squared: f(x.radius.get() * x.radius.get()),
            duration_ms: x.duration_ms,
            strength_xz: x.strength_xz,
            strength_y: x.strength_y,
            trailing: none(),
        }),
    }
}

fn compile_events(ev: Option<&Vec<MEvent>>) -> Option<Vec<msb::Event>> {
    ev.filter(|v| !v.is_empty())
        .map(|v| v.iter().map(compile_event).collect())
}

/// The engine's rules for a statement's values, text → compiled file.
struct Compiler {
    /// The last `aniMaxFps` so far.
    max_fps: Option<F32>,
}

impl Convert<Written, Compiled> for Compiler {
    fn text(&mut self, t: &Text) -> Text {
        upper(t)
    }
    fn opt(&mut self, v: &Option<F32>, rule: Rule<f32>) -> F32 {
        match (rule, v) {
            (Rule::Clamped { lo, hi, .. }, Some(v)) => f(v.get().clamp(lo, hi)),
            (_, Some(v)) => *v,
            (Rule::Default(d) | Rule::Written(d) | Rule::Clamped { default: d, .. }, None) => f(d),
            (Rule::MaxFps, None) => self.max_fps.unwrap_or(f(25.0)),
        }
    }
    fn opt_text(&mut self, v: &Option<Text>, default: &str) -> Text {
        v.as_ref().map_or(Text::from(default), upper)
    }
    fn text_only(&mut self, _: &Option<i32>) -> NotStored {
        NotStored
    }
    fn trailing(&mut self, _: &NotStored) -> Blob {
        Blob::default()
    }
    fn tag_args(&mut self, v: &Vec<Text>) -> msb::Args {
        args4(v)
    }
    fn events(&mut self, v: Option<&Vec<MEvent>>) -> Option<Vec<msb::Event>> {
        compile_events(v)
    }
}

/// The MSB the engine writes for `script` (whose source text is `src`, for the header).
pub fn compile(script: &Script, src: &[u8], opts: &CompileOptions) -> Msb {
    let header = read_header(src);
    let mut e: Vec<Entry> = Vec::new();
    let none = Blob::default;
    let dir = Text::from(DEFAULT_DIRECTORY);
    let root = if header.root_given {
        header.root
    } else {
        Some((1, dir.clone()))
    };
    let source = if header.source_given {
        header.source
    } else {
        let name = opts
            .file_name
            .as_ref()
            .map(upper)
            .unwrap_or_else(|| Text::new([upper(&script.model).as_bytes(), b".MDS"].concat()));
        let path = Text::new([dir.as_bytes(), name.as_bytes()].concat());
        Some((opts.date.unwrap_or_default(), path))
    };
    if let Some((version, directory)) = root {
        e.push(Entry::Root(msb::Root {
            version,
            directory,
            trailing: none(),
        }));
    }
    if let Some((date, path)) = source {
        e.push(Entry::Source(msb::Source {
            date,
            path,
            trailing: none(),
        }));
    }
    e.push(Entry::Model(Marker::default()));
    let mut compiler = Compiler { max_fps: None };
    for item in &script.items {
        match item {
            ModelItem::MeshAndTree(m) => {
                let name = upper(&m.asc);
                let cut = name
                    .as_bytes()
                    .iter()
                    .position(|&b| b == b'.')
                    .unwrap_or(name.len());
                e.push(Entry::MeshAndTree(msb::MeshAndTree {
                    dont_use_mesh: Bool32(m.dont_use_mesh.into()),
                    mesh: Text::new(&name.as_bytes()[..cut]),
                    trailing: none(),
                }));
            }
            ModelItem::RegisterMesh(r) => e.push(Entry::RegisterMesh(msb::Name {
                name: upper(&r.asc),
                trailing: none(),
            })),
            ModelItem::AniEnum(items) => {
                e.push(Entry::AniEnum(Marker::default()));
                for a in items {
                    let c = &mut compiler;
                    let entry = match a {
                        AniItem::AniMaxFps(x) => {
                            c.max_fps = Some(x.fps);
                            Entry::AniMaxFps(x.convert(c))
                        }
                        AniItem::Ani(x) => Entry::Ani(x.convert(c)),
                        AniItem::AniAlias(x) => Entry::AniAlias(x.convert(c)),
                        AniItem::AniBlend(x) => Entry::AniBlend(x.convert(c)),
                        AniItem::AniSync(x) => Entry::AniSync(x.convert(c)),
                        AniItem::AniBatch(_) => continue,
                        AniItem::AniComb(x) => Entry::AniComb(x.convert(c)),
                        AniItem::AniDisable(x) => Entry::AniDisable(x.convert(c)),
                        AniItem::ModelTag(x) => Entry::ModelTag(x.convert(c)),
                    };
                    e.push(entry);
                }
                e.push(Entry::AniEnumEnd(Marker::default()));
            }
        }
    }
    if !header.no_model_end {
        e.push(Entry::ModelEnd(Marker::default()));
    }
    if !header.no_end {
        e.push(Entry::End(Marker::default()));
    }
    Msb { entries: e }
}

// ---------------------------------------------------------------------------------------------
// Decompile

fn trim_args(args: &msb::Args) -> Vec<Text> {
    let n = (0..4)
        .rposition(|i| !args.get(i).is_empty())
        .map_or(0, |p| p + 1);
    args.iter().take(n).map(Text::new).collect()
}

fn opt_unless(v: F32, default: f32) -> Option<F32> {
    (v != F32::new(default)).then_some(v)
}

/// A radius whose f32 square has the bits of `sq`, if there is one.
fn tremor_radius(sq: F32) -> F32 {
    let r = sq.get().sqrt();
    if !r.is_finite() {
        return sq;
    }
    let mut c = r;
    for _ in 0..4 {
        if F32::new(c * c) == sq {
            return F32::new(c);
        }
        c = f32::from_bits(c.to_bits().wrapping_sub(1));
    }
    let mut c = r;
    for _ in 0..4 {
        if F32::new(c * c) == sq {
            return F32::new(c);
        }
        c = f32::from_bits(c.to_bits() + 1);
    }
    F32::new(r)
}

fn decompile_event(e: &msb::Event) -> MEvent {
    match e {
        msb::Event::Sfx(x) | msb::Event::SfxGrnd(x) => {
            let grnd = matches!(e, msb::Event::SfxGrnd(_));
            let s = mds::Sfx {
                frame: x.frame,
                name: x.name.clone(),
                range: opt_unless(x.range, if grnd { 1000.0 } else { 2500.0 }),
                empty_slot: x.empty_slot_flag == F32::new(0.0),
            };
            if grnd {
                MEvent::SfxGrnd(s)
            } else {
                MEvent::Sfx(s)
            }
        }
        msb::Event::Tag(x) => MEvent::Tag(mds::Tag {
            frame: Some(x.frame),
            tag: x.tag.clone(),
            args: trim_args(&x.args),
            attach: false,
        }),
        msb::Event::Pfx(x) => MEvent::Pfx(mds::Pfx {
            frame: x.frame,
            handle: opt_unless(x.handle, 0.0),
            emitter: x.emitter.clone(),
            node: x.node.clone(),
            attach: x.attach == F32::new(1.0),
        }),
        msb::Event::PfxStop(x) => MEvent::PfxStop(mds::PfxStop {
            frame: x.frame,
            handle: x.handle,
        }),
        msb::Event::PfxGrnd(x) => MEvent::PfxGrnd(mds::PfxGrnd { frame: x.frame }),
        msb::Event::SetMesh(x) => MEvent::SetMesh(mds::SetMesh {
            frame: x.frame,
            mesh: x.mesh.clone(),
        }),
        msb::Event::SwapMesh(x) => MEvent::SwapMesh(mds::SwapMesh {
            frame: x.frame,
            slot1: x.slot1.clone(),
            slot2: x.slot2.clone(),
        }),
        msb::Event::MmStartAni(x) => MEvent::MmStartAni(mds::MmStartAni {
            frame: x.frame,
            ani: x.ani.clone(),
            node: (!x.node.is_empty()).then(|| x.node.clone()),
            intensity: opt_unless(x.intensity, 1.0),
            hold_time: opt_unless(x.hold_time, -2.0),
        }),
        msb::Event::CamTremor(x) => MEvent::CamTremor(mds::CamTremor {
            frame: x.frame,
            radius: tremor_radius(x.radius_squared),
            duration_ms: x.duration_ms,
            strength_xz: x.strength_xz,
            strength_y: x.strength_y,
        }),
    }
}

/// A compiled statement's values as a script writes them: a value equal to the engine's default
/// is left out where the rule says so.
struct Decompiler {
    /// The block's `aniMaxFps` so far.
    max_fps: Option<F32>,
}

impl Convert<Compiled, Written> for Decompiler {
    fn text(&mut self, t: &Text) -> Text {
        t.clone()
    }
    fn opt(&mut self, v: &F32, rule: Rule<f32>) -> Option<F32> {
        let default = match rule {
            Rule::Written(_) => return Some(*v),
            Rule::Default(d) | Rule::Clamped { default: d, .. } => f(d),
            Rule::MaxFps => self.max_fps.unwrap_or(f(25.0)),
        };
        (*v != default).then_some(*v)
    }
    fn opt_text(&mut self, v: &Text, default: &str) -> Option<Text> {
        // the engine stores an omitted direction as the default (empty): written back omitted
        (v.as_bytes() != default.as_bytes()).then(|| v.clone())
    }
    fn text_only(&mut self, _: &NotStored) -> Option<i32> {
        None
    }
    fn trailing(&mut self, _: &Blob) -> NotStored {
        NotStored
    }
    fn tag_args(&mut self, v: &msb::Args) -> Vec<Text> {
        trim_args(v)
    }
    fn events(&mut self, v: Option<&Vec<msb::Event>>) -> Option<Vec<MEvent>> {
        decompile_events(v)
    }
}

fn decompile_events(ev: Option<&Vec<msb::Event>>) -> Option<Vec<MEvent>> {
    ev.map(|v| v.iter().map(decompile_event).collect())
}

/// The result of [`decompile`].
pub struct Decompiled {
    /// The script text (header comment + canonical script).
    pub text: Vec<u8>,
    /// What the script cannot carry (empty when compile reproduces the MSB byte for byte).
    pub losses: Vec<String>,
}

/// A readable script for `msb`.
pub fn decompile(m: &Msb) -> Decompiled {
    let mut losses = Vec::new();
    let mut header = Header {
        root_given: true,
        source_given: true,
        no_model_end: !m.entries.iter().any(|e| matches!(e, Entry::ModelEnd(_))),
        no_end: !m.entries.iter().any(|e| matches!(e, Entry::End(_))),
        ..Header::default()
    };
    let mut items: Vec<ModelItem> = Vec::new();
    let mut ani: Option<Vec<AniItem>> = None;
    let mut max_fps: Option<F32> = None;
    for (i, e) in m.entries.iter().enumerate() {
        match e {
            Entry::Root(r) => header.root = Some((r.version, r.directory.clone())),
            Entry::Source(s) => header.source = Some((s.date, s.path.clone())),
            Entry::Model(_) | Entry::ModelEnd(_) | Entry::End(_) => {}
            Entry::MeshAndTree(x) => items.push(ModelItem::MeshAndTree(mds::MeshAndTree {
                asc: Text::new([x.mesh.as_bytes(), b".ASC"].concat()),
                dont_use_mesh: x.dont_use_mesh.0 != 0,
            })),
            Entry::RegisterMesh(x) => items.push(ModelItem::RegisterMesh(mds::RegisterMesh {
                asc: x.name.clone(),
            })),
            Entry::AniEnum(_) => {
                if let Some(list) = ani.take() {
                    items.push(ModelItem::AniEnum(list));
                }
                ani = Some(Vec::new());
            }
            Entry::AniEnumEnd(_) => {
                if let Some(list) = ani.take() {
                    items.push(ModelItem::AniEnum(list));
                }
            }
            Entry::AniEvents(_) | Entry::Event(_) | Entry::AniEventsEnd(_) => losses.push(format!(
                "entries[{i}] ({}): an event list not attached to an animation cannot be written in a script",
                e.kind()
            )),
            Entry::Unknown(u) => losses.push(format!(
                "entries[{i}]: unknown chunk 0x{:04X} ({} bytes) cannot be written in a script",
                u.id.0,
                u.data.len()
            )),
            _ => {
                if let Entry::AniMaxFps(x) = e {
                    max_fps = Some(x.fps);
                }
                let Some(item) = ani_item(e, max_fps) else {
                    continue;
                };
                match &mut ani {
                    Some(list) => list.push(item),
                    None => losses.push(format!(
                        "entries[{i}] ({}) is outside aniEnum; the script puts it in one",
                        e.kind()
                    )),
                }
            }
        }
    }
    if let Some(list) = ani.take() {
        items.push(ModelItem::AniEnum(list));
    }
    let script = Script {
        model: model_name(&header),
        items,
    };
    let mut text = write_header(&header);
    text.extend_from_slice(&mds::print_canonical(&script));
    if losses.is_empty() {
        losses.extend(round_trip_loss(m, &text));
    }
    Decompiled { text, losses }
}

/// The script statement of an entry of an aniEnum block (`None` for other entries); `max_fps`
/// is the block's aniMaxFps so far (an animation at that rate leaves its fps out).
fn ani_item(e: &Entry, max_fps: Option<F32>) -> Option<AniItem> {
    let c = &mut Decompiler { max_fps };
    Some(match e {
        Entry::AniMaxFps(x) => AniItem::AniMaxFps(x.convert(c)),
        Entry::Ani(x) => AniItem::Ani(x.convert(c)),
        Entry::AniAlias(x) => AniItem::AniAlias(x.convert(c)),
        Entry::AniBlend(x) => AniItem::AniBlend(x.convert(c)),
        Entry::AniSync(x) => AniItem::AniSync(x.convert(c)),
        Entry::AniComb(x) => AniItem::AniComb(x.convert(c)),
        Entry::AniDisable(x) => AniItem::AniDisable(x.convert(c)),
        Entry::ModelTag(x) => AniItem::ModelTag(x.convert(c)),
        _ => return None,
    })
}

/// The model's name: the source file's stem, else `MODEL`.
fn model_name(header: &Header) -> Text {
    header
        .source
        .as_ref()
        .map(|(_, p)| {
            let b = p.as_bytes();
            let file = b.rsplit(|&c| c == b'\\' || c == b'/').next().unwrap_or(b);
            let stem = file.split(|&c| c == b'.').next().unwrap_or(file);
            Text::new(stem)
        })
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| Text::from("MODEL"))
}

/// Whether the script gives the MSB back: `None` when it does, else what differs.
fn round_trip_loss(m: &Msb, text: &[u8]) -> Option<String> {
    match mds::parse(text) {
        Ok(parsed) => {
            let again = compile(&parsed.script, text, &CompileOptions::default());
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let wa = m.write(&mut a);
            let wb = again.write(&mut b);
            if wa.is_ok() && wb.is_ok() && a != b {
                let off = crate::exact::first_difference(&a, &b).unwrap_or(0);
                return Some(format!(
                    "compiling the script does not give the same MSB: first difference at byte {off} ({}); the MSB holds values a script cannot produce (extra bytes, values outside the engine's defaults/clamps, strings in lower case, ...)",
                    m.field_at(off as u64)
                ));
            }
            None
        }
        Err(e) => Some(format!("the decompiled script does not parse: {e}")),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
