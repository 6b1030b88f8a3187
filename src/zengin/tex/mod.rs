//! `.TEX` textures (`zCTexture`, compiled from TGA): a 36-byte header (`ZTEX`, version, pixel
//! format, size, mip count, reference size, average colour), a 256-entry palette for `P8`, then
//! the mip levels from the smallest to the full size. Bytes after the last level are kept.
//!
//! Pixel data stays as stored (hex in YAML, one blob per level); [`Tex::rgba`] decodes the full
//! level to RGBA8 (DXT blocks through `texpresso`) for the glTF export.

#[cfg(test)]
mod tests;

use crate::codec::{check_document_header, Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{
    put_record, Blob, Cursor, DecodeError, EncodeError, Hex32, ImportError, Within,
};
use deku::{DekuRead, DekuWrite};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const SIGNATURE: &[u8; 4] = b"ZTEX";
pub const HEADER_SIZE: usize = 36;
pub const PALETTE_SIZE: usize = 256 * 4;
/// Pixel format `P8`: one palette index per pixel.
pub const FORMAT_P8: u32 = 9;

/// The file header: the one declaration of its layout.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, DekuRead, DekuWrite, Serialize, Deserialize, JsonSchema,
)]
#[deku(endian = "little")]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// `ZTEX`, kept as stored (hex).
    #[serde(with = "sig")]
    #[schemars(with = "String")]
    pub signature: [u8; 4],
    /// 0 in every known file.
    pub version: u32,
    /// Pixel format: 0 B8G8R8A8, 1 R8G8B8A8, 2 A8B8G8R8, 3 A8R8G8B8, 4 B8G8R8, 5 R8G8B8,
    /// 6 A4R4G4B4, 7 A1R5G5B5, 8 R5G6B5, 9 P8, 10 DXT1, 11 DXT2, 12 DXT3, 13 DXT4, 14 DXT5.
    pub pixel_format: u32,
    pub width: u32,
    pub height: u32,
    /// Number of mip levels stored (0 is read as 1).
    pub mip_count: u32,
    pub reference_width: u32,
    pub reference_height: u32,
    /// Average colour, 0xAARRGGBB.
    pub average_color: Hex32,
}

mod sig {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &[u8; 4], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(v) {
            Ok(t) if t.chars().all(|c| c.is_ascii_alphanumeric()) => s.serialize_str(t),
            _ => s.serialize_str(&format!("hex:{}", hex::encode(v))),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; 4], D::Error> {
        let t = String::deserialize(d)?;
        let bytes = match t.strip_prefix("hex:") {
            Some(h) => hex::decode(h).map_err(serde::de::Error::custom)?,
            None => t.into_bytes(),
        };
        bytes
            .try_into()
            .map_err(|_| serde::de::Error::custom("the signature is 4 bytes"))
    }
}

/// A decoded `.TEX` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Tex {
    pub header: Header,
    /// 256 × BGRA for `P8`, else empty.
    pub palette: Blob,
    /// The mip levels in file order: the smallest first, the full size last.
    pub mips: Vec<Blob>,
    /// Bytes after the last level (none in real files).
    pub trailing: Blob,
}

/// The name of a pixel format.
pub fn format_name(f: u32) -> &'static str {
    match f {
        0 => "B8G8R8A8",
        1 => "R8G8B8A8",
        2 => "A8B8G8R8",
        3 => "A8R8G8B8",
        4 => "B8G8R8",
        5 => "R8G8B8",
        6 => "A4R4G4B4",
        7 => "A1R5G5B5",
        8 => "R5G6B5",
        9 => "P8",
        10 => "DXT1",
        11 => "DXT2",
        12 => "DXT3",
        13 => "DXT4",
        14 => "DXT5",
        _ => "unknown",
    }
}

/// Width and height of mip `level` (0 = full size).
pub fn mip_dims(width: u32, height: u32, level: u32) -> (u32, u32) {
    let s = level.min(31);
    ((width.max(1) >> s).max(1), (height.max(1) >> s).max(1))
}

/// Bytes of mip `level`, or `None` for an unknown pixel format. DXT levels smaller than a
/// block take one block (the engine's rule).
pub fn mip_size(format: u32, width: u32, height: u32, level: u32) -> Option<u64> {
    let (x, y) = mip_dims(width, height, level);
    let (x, y) = (u64::from(x), u64::from(y));
    let blocks = (x / 4).max(1) * (y / 4).max(1);
    Some(match format {
        0..=3 => x * y * 4,
        4 | 5 => x * y * 3,
        6..=8 => x * y * 2,
        9 => x * y,
        10 => blocks * 8,
        11..=14 => blocks * 16,
        _ => return None,
    })
}

impl Tex {
    pub fn mip_levels(&self) -> u32 {
        self.header.mip_count.max(1)
    }

    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        let mut cur = Cursor::new(data, 0);
        let header: Header = cur.record::<Header, HEADER_SIZE>().within("header")?;
        if &header.signature != SIGNATURE {
            return Err(DecodeError::invalid(0, "not a ZTEX texture (signature)"))
                .within("signature")
                .within("header");
        }
        let palette = if header.pixel_format == FORMAT_P8 {
            Blob::new(cur.bytes(PALETTE_SIZE).within("palette")?)
        } else {
            Blob::default()
        };
        let mut mips = Vec::new();
        if mip_size(header.pixel_format, 1, 1, 0).is_some() {
            let levels = header.mip_count.max(1);
            // every level takes at least one byte: the count is checked before the list grows
            cur.check_count(u64::from(levels), 1)
                .within("header")
                .within("mip_count")?;
            mips.reserve(levels as usize);
            for i in 0..levels {
                let level = levels - 1 - i;
                let size =
                    mip_size(header.pixel_format, header.width, header.height, level).unwrap_or(0);
                let n = cur
                    .check_count(size, 1)
                    .within_index(i as usize)
                    .within("mips")?;
                mips.push(Blob::new(cur.bytes(n)?));
            }
        }
        let trailing = Blob::new(cur.rest());
        Ok(Tex {
            header,
            palette,
            mips,
            trailing,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let h = &self.header;
        if h.pixel_format == FORMAT_P8 && self.palette.len() != PALETTE_SIZE {
            return Err(EncodeError::new(format!(
                "a P8 texture has a palette of {PALETTE_SIZE} bytes (256 × BGRA), this one has {}",
                self.palette.len()
            )))
            .within("palette");
        }
        if h.pixel_format != FORMAT_P8 && !self.palette.is_empty() {
            return Err(EncodeError::new(
                "only a P8 texture has a palette: remove it or set pixel_format 9",
            ))
            .within("palette");
        }
        if mip_size(h.pixel_format, 1, 1, 0).is_some() {
            let levels = self.mip_levels() as usize;
            if self.mips.len() != levels {
                return Err(EncodeError::new(format!(
                    "the header says {levels} mip levels (mip_count), the document has {}",
                    self.mips.len()
                )))
                .within("mips");
            }
            for (i, m) in self.mips.iter().enumerate() {
                let level = (levels - 1 - i) as u32;
                let want = mip_size(h.pixel_format, h.width, h.height, level).unwrap_or(0);
                if m.len() as u64 != want {
                    let (w, hh) = mip_dims(h.width, h.height, level);
                    return Err(EncodeError::new(format!(
                        "level {level} ({w}×{hh} {}) takes {want} bytes, this one has {}",
                        format_name(h.pixel_format),
                        m.len()
                    )))
                    .within_index(i)
                    .within("mips");
                }
            }
        } else if !self.mips.is_empty() {
            return Err(EncodeError::new(format!(
                "pixel format {} is unknown: its data is kept in `trailing`, not in mips",
                h.pixel_format
            )))
            .within("mips");
        }
        put_record(out, h);
        out.extend_from_slice(self.palette.as_bytes());
        for m in &self.mips {
            out.extend_from_slice(m.as_bytes());
        }
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }

    /// The full-size level as RGBA8 (`width × height × 4` bytes), or why not.
    pub fn rgba(&self) -> Result<(u32, u32, Vec<u8>), String> {
        let h = &self.header;
        let data = self
            .mips
            .last()
            .ok_or_else(|| format!("pixel format {} is unknown", h.pixel_format))?
            .as_bytes();
        let (w, ht) = (h.width.max(1), h.height.max(1));
        let n = (w as usize)
            .checked_mul(ht as usize)
            .filter(|n| *n <= 1 << 26)
            .ok_or("the texture is too large to decode")?;
        let levels = self.mip_levels();
        let want = mip_size(h.pixel_format, w, ht, 0).unwrap_or(u64::MAX);
        if data.len() as u64 != want || levels as usize != self.mips.len() {
            return Err(format!(
                "the full-size level has {} bytes, {}x{} {} takes {want}",
                data.len(),
                w,
                ht,
                format_name(h.pixel_format)
            ));
        }
        if h.pixel_format == FORMAT_P8 && self.palette.len() != PALETTE_SIZE {
            return Err("a P8 texture needs its 256-entry palette".into());
        }
        let mut out = vec![0u8; n * 4];
        let px = |i: usize, k: usize| data[i * k..i * k + k].to_vec();
        match h.pixel_format {
            10..=14 => {
                let f = match h.pixel_format {
                    10 => texpresso::Format::Bc1,
                    11 | 12 => texpresso::Format::Bc2,
                    _ => texpresso::Format::Bc3,
                };
                let bs = if h.pixel_format == 10 { 8 } else { 16 };
                if (w.div_ceil(4) as usize) * (ht.div_ceil(4) as usize) * bs != data.len() {
                    return Err(format!(
                        "{w}x{ht} is not stored as whole 4x4 blocks; this texture cannot be decoded"
                    ));
                }
                if w % 4 != 0 || ht % 4 != 0 {
                    // texpresso decodes whole blocks: decode padded, then crop
                    let (pw, ph) = (w.div_ceil(4) * 4, ht.div_ceil(4) * 4);
                    let mut padded = vec![0u8; pw as usize * ph as usize * 4];
                    f.decompress(data, pw as usize, ph as usize, &mut padded);
                    for y in 0..ht as usize {
                        let src = &padded[y * pw as usize * 4..][..w as usize * 4];
                        out[y * w as usize * 4..][..w as usize * 4].copy_from_slice(src);
                    }
                } else {
                    f.decompress(data, w as usize, ht as usize, &mut out);
                }
            }
            0..=9 => {
                for (i, o) in out.chunks_exact_mut(4).enumerate() {
                    let rgba: [u8; 4] = match h.pixel_format {
                        0 => {
                            let p = px(i, 4);
                            [p[2], p[1], p[0], p[3]]
                        }
                        1 => px(i, 4).try_into().unwrap_or_default(),
                        2 => {
                            let p = px(i, 4);
                            [p[3], p[2], p[1], p[0]]
                        }
                        3 => {
                            let p = px(i, 4);
                            [p[1], p[2], p[3], p[0]]
                        }
                        4 => {
                            let p = px(i, 3);
                            [p[2], p[1], p[0], 255]
                        }
                        5 => {
                            let p = px(i, 3);
                            [p[0], p[1], p[2], 255]
                        }
                        6..=8 => {
                            let v = u16::from_le_bytes([data[i * 2], data[i * 2 + 1]]);
                            let s = |v: u16, bits: u32| {
                                let max = (1u32 << bits) - 1;
                                ((u32::from(v) & max) * 255 / max) as u8
                            };
                            match h.pixel_format {
                                6 => [s(v >> 8, 4), s(v >> 4, 4), s(v, 4), s(v >> 12, 4)],
                                7 => [s(v >> 10, 5), s(v >> 5, 5), s(v, 5), s(v >> 15, 1)],
                                _ => [s(v >> 11, 5), s(v >> 5, 6), s(v, 5), 255],
                            }
                        }
                        _ => {
                            let e = usize::from(data[i]) * 4;
                            let p = &self.palette.as_bytes()[e..e + 4];
                            [p[2], p[1], p[0], p[3]]
                        }
                    };
                    o.copy_from_slice(&rgba);
                }
            }
            f => return Err(format!("pixel format {f} is unknown")),
        }
        Ok((w, ht, out))
    }

    /// The full-size level as a PNG file.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        let (w, h, rgba) = self.rgba()?;
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut wr = enc.write_header().map_err(|e| e.to_string())?;
            wr.write_image_data(&rgba).map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}

/// A level as written in YAML.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MipDoc {
    /// For people; import checks the data's length against the header instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    pub data: Blob,
}

/// A `zengin.tex` YAML document.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "animkit zengin.tex document")]
pub struct TexDocument {
    pub format: String,
    pub version: u32,
    pub header: Header,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub palette: Blob,
    /// The levels in file order: the smallest first.
    pub mips: Vec<MipDoc>,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

impl Tex {
    fn to_doc(&self) -> TexDocument {
        let h = &self.header;
        let levels = self.mips.len();
        TexDocument {
            format: Tex::TAG.into(),
            version: Tex::YAML_VERSION,
            header: *h,
            palette: self.palette.clone(),
            mips: self
                .mips
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let (w, ht) = mip_dims(h.width, h.height, (levels - 1 - i) as u32);
                    MipDoc {
                        size: Some(format!("{w}x{ht}")),
                        data: m.clone(),
                    }
                })
                .collect(),
            trailing: self.trailing.clone(),
        }
    }
}

impl Codec for Tex {
    const TAG: &'static str = "zengin.tex";
    const DESCRIPTION: &'static str = "ZenGin texture (.TEX)";
    const EXTENSIONS: &'static [&'static str] = &["tex"];

    fn detect(data: &[u8]) -> bool {
        data.len() >= HEADER_SIZE && data.starts_with(SIGNATURE)
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Tex::read(data)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        crate::yaml::to_string(&self.to_doc()).map_err(|e| EncodeError::new(e.to_string()))
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        let doc: TexDocument = crate::yaml::from_str(text)?;
        check_document_header(&doc.format, doc.version, Tex::TAG, Tex::YAML_VERSION)
            .map_err(EncodeError::new)?;
        Ok(Tex {
            header: doc.header,
            palette: doc.palette,
            mips: doc.mips.into_iter().map(|m| m.data).collect(),
            trailing: doc.trailing,
        })
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(TexDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let h = &self.header;
        let mut v = vec![
            (
                "pixel format",
                format!("{} ({})", format_name(h.pixel_format), h.pixel_format),
            ),
            ("size", format!("{}x{}", h.width, h.height)),
            (
                "reference size",
                format!("{}x{}", h.reference_width, h.reference_height),
            ),
            ("mip levels", self.mip_levels().to_string()),
            ("average color", h.average_color.to_string()),
        ];
        if !self.trailing.is_empty() {
            v.push(("trailing bytes", self.trailing.len().to_string()));
        }
        v
    }
    fn field_at(&self, offset: u64) -> String {
        let mut at = HEADER_SIZE as u64;
        if offset < at {
            return "header".into();
        }
        at += self.palette.len() as u64;
        if offset < at {
            return "palette".into();
        }
        for (i, m) in self.mips.iter().enumerate() {
            at += m.len() as u64;
            if offset < at {
                return format!("mips[{i}].data");
            }
        }
        "trailing".into()
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        let mut out = Vec::new();
        let (a, b) = (&self.header, &other.header);
        let fields: [(&str, u32, u32); 7] = [
            ("version", a.version, b.version),
            ("pixel_format", a.pixel_format, b.pixel_format),
            ("width", a.width, b.width),
            ("height", a.height, b.height),
            ("mip_count", a.mip_count, b.mip_count),
            ("reference_width", a.reference_width, b.reference_width),
            ("reference_height", a.reference_height, b.reference_height),
        ];
        if a.signature != b.signature {
            out.push("header.signature changed".into());
        }
        for (name, x, y) in fields {
            if x != y {
                out.push(format!("header.{name}: {x} → {y}"));
            }
        }
        if a.average_color != b.average_color {
            out.push(format!(
                "header.average_color: {} → {}",
                a.average_color, b.average_color
            ));
        }
        let blobs = |what: &str, x: &Blob, y: &Blob, out: &mut Vec<String>| {
            if x != y {
                let changed = x.0.iter().zip(&y.0).filter(|(p, q)| p != q).count();
                out.push(format!(
                    "{what}: {} → {} bytes, {changed} bytes differ",
                    x.len(),
                    y.len()
                ));
            }
        };
        blobs("palette", &self.palette, &other.palette, &mut out);
        for i in 0..self.mips.len().max(other.mips.len()) {
            let empty = Blob::default();
            let x = self.mips.get(i).unwrap_or(&empty);
            let y = other.mips.get(i).unwrap_or(&empty);
            blobs(&format!("mips[{i}]"), x, y, &mut out);
        }
        blobs("trailing", &self.trailing, &other.trailing, &mut out);
        out
    }
}
