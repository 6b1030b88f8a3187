//! The UE3 package container at file version 573 (spec §1): summary, name / import / export
//! tables, depends map, object records, the layers around them (whole-file XOR, LZO chunks,
//! export-pointer obfuscation), and the byte-exact writer with the shift placement of §1.11.

use super::compress::{self, ChunkRecord, PACKAGE_TAG};
use super::crypt::{self, PointerCodes, FLAG_OBFUSCATED};
use super::props::{FName, FStr, Names, Properties};
use crate::exact::{Cursor, DecodeError, EncodeError, Record, Within, Writer};

/// Largest run of uncovered image bytes the writer fills with zeros.
const MAX_HOLE: usize = 1 << 20;

/// PackageFlags bit set when the package uses a chunk table.
pub const FLAG_COMPRESSED: u32 = 0x0200_0000;

/// FPackageFileSummary (spec §1.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub file_version: u16,
    pub licensee_version: u16,
    pub headers_size: i32,
    pub folder_name: FStr,
    pub package_flags: u32,
    pub name_count: i32,
    pub name_offset: i32,
    pub export_count: i32,
    pub export_offset: i32,
    pub import_count: i32,
    pub import_offset: i32,
    pub depends_offset: i32,
    pub guid: [u8; 16],
    pub generations: Vec<[i32; 3]>,
    pub engine_version: i32,
    pub cooker_version: i32,
    pub compression_flags: u32,
    pub chunks: Vec<ChunkRecord>,
    pub package_source: u32,
    pub additional_packages: Vec<FStr>,
}

crate::record! {
    /// The summary's fixed run from its tag: Tag .. HeadersSize (spec §1.3), 12 bytes.
    #[derive(Debug, PartialEq)]
    struct SummaryHead: little plain {
        tag: u32,
        file_version: u16,
        licensee_version: u16,
        headers_size: i32,
    }
}

crate::record! {
    /// The summary's fixed run after FolderName: PackageFlags .. Guid, 48 bytes.
    #[derive(Debug, PartialEq)]
    struct SummaryTables: little plain {
        package_flags: u32,
        name_count: i32,
        name_offset: i32,
        export_count: i32,
        export_offset: i32,
        import_count: i32,
        import_offset: i32,
        depends_offset: i32,
        guid: [u8; 16],
    }
}

crate::record! {
    /// One entry of the summary's Generations array, 12 bytes.
    #[derive(Debug, PartialEq)]
    struct Generation: little plain {
        export_count: i32,
        name_count: i32,
        net_object_count: i32,
    }
}

crate::record! {
    /// The summary's fixed run after Generations: EngineVersion .. CompressionFlags, 12 bytes.
    #[derive(Debug, PartialEq)]
    struct SummaryVersions: little plain {
        engine_version: i32,
        cooker_version: i32,
        compression_flags: u32,
    }
}

impl Summary {
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let at = c.offset();
        // The tag first, so that a short file of another kind is called that, not "cut off".
        let tag = c
            .peek(4)
            .ok()
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if let Some(tag) = tag.filter(|&t| t != PACKAGE_TAG) {
            return Err(DecodeError::invalid(
                at,
                format!("tag {tag:#010x} is not a UE3 package"),
            ))
            .within("tag");
        }
        let head: SummaryHead = c.read()?;
        let file_version = head.file_version;
        if !(543..577).contains(&file_version) {
            return Err(DecodeError::invalid(
                at + 4,
                format!("file version {file_version} is not supported (Blade & Soul is 573; animkit reads 543..576)"),
            ))
            .within("file_version");
        }
        let folder_name = FStr::read(c).within("folder_name")?;
        let t: SummaryTables = c.read()?;
        let gcount = count(c, 12).within("generations")?;
        let mut generations = Vec::with_capacity(gcount);
        for i in 0..gcount {
            let g: Generation = c.read().within_index(i).within("generations")?;
            generations.push([g.export_count, g.name_count, g.net_object_count]);
        }
        let v: SummaryVersions = c.read()?;
        let ccount = count(c, 16).within("chunks")?;
        let mut chunks = Vec::with_capacity(ccount);
        for i in 0..ccount {
            chunks.push(c.read::<ChunkRecord>().within_index(i).within("chunks")?);
        }
        let package_source = c.u32().within("package_source")?;
        let acount = count(c, 4).within("additional_packages")?;
        let mut additional_packages = Vec::with_capacity(acount);
        for i in 0..acount {
            additional_packages.push(
                FStr::read(c)
                    .within_index(i)
                    .within("additional_packages")?,
            );
        }
        Ok(Self {
            file_version,
            licensee_version: head.licensee_version,
            headers_size: head.headers_size,
            folder_name,
            package_flags: t.package_flags,
            name_count: t.name_count,
            name_offset: t.name_offset,
            export_count: t.export_count,
            export_offset: t.export_offset,
            import_count: t.import_count,
            import_offset: t.import_offset,
            depends_offset: t.depends_offset,
            guid: t.guid,
            generations,
            engine_version: v.engine_version,
            cooker_version: v.cooker_version,
            compression_flags: v.compression_flags,
            chunks,
            package_source,
            additional_packages,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        let head = SummaryHead {
            tag: PACKAGE_TAG,
            file_version: self.file_version,
            licensee_version: self.licensee_version,
            headers_size: self.headers_size,
        };
        out.put_plain(&head);
        self.folder_name.write(out);
        let tables = SummaryTables {
            package_flags: self.package_flags,
            name_count: self.name_count,
            name_offset: self.name_offset,
            export_count: self.export_count,
            export_offset: self.export_offset,
            import_count: self.import_count,
            import_offset: self.import_offset,
            depends_offset: self.depends_offset,
            guid: self.guid,
        };
        out.put_plain(&tables);
        out.put_i32(self.generations.len() as i32);
        for &[export_count, name_count, net_object_count] in &self.generations {
            let g = Generation {
                export_count,
                name_count,
                net_object_count,
            };
            out.put_plain(&g);
        }
        let versions = SummaryVersions {
            engine_version: self.engine_version,
            cooker_version: self.cooker_version,
            compression_flags: self.compression_flags,
        };
        out.put_plain(&versions);
        out.put_i32(self.chunks.len() as i32);
        for ch in &self.chunks {
            out.put_plain(ch);
        }
        out.put_u32(self.package_source);
        out.put_i32(self.additional_packages.len() as i32);
        for s in &self.additional_packages {
            s.write(out);
        }
    }

    pub fn pointer_codes(&self) -> PointerCodes {
        PointerCodes::new(
            self.headers_size,
            self.name_count,
            self.name_offset,
            self.export_count,
            self.export_offset,
            self.import_count,
            self.import_offset,
        )
    }
}

fn count(c: &mut Cursor, item: usize) -> Result<usize, DecodeError> {
    let at = c.offset();
    let n = c.i32()?;
    let n =
        u64::try_from(n).map_err(|_| DecodeError::invalid(at, format!("count {n} is negative")))?;
    c.check_count(n, item)
}

/// A name-table entry (spec §1.4).
#[derive(Debug, Clone, PartialEq)]
pub struct NameEntry {
    pub name: FStr,
    pub flags: u64,
}

crate::record! {
    /// An import-table entry (spec §1.5), 28 bytes.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Import: little plain {
        pub class_package: FName,
        pub class_name: FName,
        pub outer: i32,
        pub object_name: FName,
    }
}

const _: () = assert!(<Import as Record>::SIZE == 28);

/// An export-table entry (spec §1.6), 68 bytes + 4 per net object count. SerialSize and
/// SerialOffset are read and written as stored; [`Package`] de-obfuscates them after reading
/// and obfuscates them before writing (they depend on the entry's index).
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    pub class: i32,
    pub super_index: i32,
    pub outer: i32,
    pub name: FName,
    pub archetype: i32,
    pub object_flags: u64,
    pub serial_size: i32,
    pub serial_offset: i32,
    pub export_flags: u32,
    pub net_object_counts: Vec<i32>,
    pub package_guid: [u8; 16],
    pub package_flags: u32,
}

crate::record! {
    /// An export entry up to its counted part (44 bytes).
    struct ExportHead: little plain {
        class: i32,
        super_index: i32,
        outer: i32,
        name: FName,
        archetype: i32,
        object_flags: u64,
        serial_size: i32,
        serial_offset: i32,
        export_flags: u32,
    }

    /// An export entry after its counted part (20 bytes).
    struct ExportTail: little plain {
        package_guid: [u8; 16],
        package_flags: u32,
    }
}

const _: () = assert!(<ExportHead as Record>::SIZE == 44);
const _: () = assert!(<ExportTail as Record>::SIZE == 20);

impl Export {
    /// The head, the net object counts (an `i32` count, then that many `i32`s, checked against
    /// what is left before anything is allocated), the tail.
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let h: ExportHead = c.read()?;
        let n = count(c, 4).within("net_object_counts")?;
        let mut net_object_counts = Vec::with_capacity(n);
        for _ in 0..n {
            net_object_counts.push(c.i32()?);
        }
        let t: ExportTail = c.read()?;
        Ok(Export {
            class: h.class,
            super_index: h.super_index,
            outer: h.outer,
            name: h.name,
            archetype: h.archetype,
            object_flags: h.object_flags,
            serial_size: h.serial_size,
            serial_offset: h.serial_offset,
            export_flags: h.export_flags,
            net_object_counts,
            package_guid: t.package_guid,
            package_flags: t.package_flags,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.put_plain(&ExportHead {
            class: self.class,
            super_index: self.super_index,
            outer: self.outer,
            name: self.name,
            archetype: self.archetype,
            object_flags: self.object_flags,
            serial_size: self.serial_size,
            serial_offset: self.serial_offset,
            export_flags: self.export_flags,
        });
        out.put_i32(self.net_object_counts.len() as i32);
        for v in &self.net_object_counts {
            out.put_i32(*v);
        }
        out.put_plain(&ExportTail {
            package_guid: self.package_guid,
            package_flags: self.package_flags,
        });
    }
}

/// One export's record.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    /// SerialSize 0: no bytes.
    Empty,
    /// Bytes animkit does not interpret (classes other than AnimSet/AnimSequence whose record is
    /// not a plain tagged-property stream).
    Raw(Vec<u8>),
    /// NetIndex, tagged properties, then class-specific native bytes (AnimSequence: NumBytes +
    /// the compressed stream).
    Tagged {
        net_index: i32,
        props: Properties,
        tail: Vec<u8>,
    },
}

impl Object {
    /// Encoded size of the record.
    pub fn encoded_len(&self) -> usize {
        match self {
            Object::Empty => 0,
            Object::Raw(b) => b.len(),
            Object::Tagged { props, tail, .. } => 4 + props.encoded_len() + tail.len(),
        }
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Object::Empty => {}
            Object::Raw(b) => out.extend_from_slice(b),
            Object::Tagged {
                net_index,
                props,
                tail,
            } => {
                out.put_i32(*net_index);
                props.write(out);
                out.extend_from_slice(tail);
            }
        }
    }
}

/// The compressed layer of a package as stored, to write an untouched package back verbatim.
#[derive(Debug, Clone, PartialEq)]
pub struct Compressed {
    /// File bytes after the stored summary (chunk headers, block tables, LZO data, trailer).
    pub stored: Vec<u8>,
    /// Size and CRC-32 of the uncompressed image after the summary: when the rebuilt image
    /// still matches them, `stored` is written back; otherwise the package is written
    /// uncompressed (spec §1.11 Option U).
    pub image_size: u64,
    pub image_crc32: u32,
}

/// Bytes of the uncompressed image covered by no table or object.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// A decoded package.
#[derive(Debug, Clone)]
pub struct Package {
    pub whole_file_xor: bool,
    pub compressed: Option<Compressed>,
    pub summary: Summary,
    pub names: Vec<NameEntry>,
    pub imports: Vec<Import>,
    pub exports: Vec<Export>,
    pub depends: Vec<u8>,
    pub objects: Vec<Object>,
    pub gaps: Vec<Gap>,
    /// Name texts for lookups (derived from `names`).
    pub name_texts: Names,
}

impl PartialEq for Package {
    fn eq(&self, o: &Self) -> bool {
        self.whole_file_xor == o.whole_file_xor
            && self.compressed == o.compressed
            && self.summary == o.summary
            && self.names == o.names
            && self.imports == o.imports
            && self.exports == o.exports
            && self.depends == o.depends
            && self.objects == o.objects
            && self.gaps == o.gaps
    }
}

/// Size of the summary without its chunk table: where the uncompressed image's tables begin.
pub fn image_summary_size(s: &Summary) -> u64 {
    let mut v = Vec::new();
    s.write(&mut v);
    (v.len() - 16 * s.chunks.len()) as u64
}

/// One piece of the image the writer places.
#[derive(Clone, Copy)]
enum Item {
    Table(Region),
    Object(usize),
    Gap(usize),
}

/// The writer's plan: each object's new size, the export entries with their new serial
/// fields, and every item with its target image offset, in image order.
struct Layout {
    sizes: Vec<usize>,
    exports: Vec<Export>,
    placed: Vec<(Item, usize)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    Summary,
    Names,
    Imports,
    Exports,
    Depends,
    Object(usize),
}

impl Package {
    pub fn names(&self) -> &Names {
        &self.name_texts
    }

    /// The object name of a package index (`> 0` export, `< 0` import).
    pub fn object_name(&self, index: i32) -> Option<FName> {
        if index > 0 {
            self.exports.get(index as usize - 1).map(|e| e.name)
        } else if index < 0 {
            self.imports
                .get((-(index as i64) - 1) as usize)
                .map(|i| i.object_name)
        } else {
            None
        }
    }

    /// The class name of export `i` (`Class` for ClassIndex 0).
    pub fn class_of(&self, i: usize) -> String {
        match self.exports.get(i) {
            Some(e) if e.class == 0 => "Class".into(),
            Some(e) => self
                .object_name(e.class)
                .map(|n| self.name_texts.display(n))
                .unwrap_or_default(),
            None => String::new(),
        }
    }

    pub fn export_name(&self, i: usize) -> String {
        self.exports
            .get(i)
            .map(|e| self.name_texts.display(e.name))
            .unwrap_or_default()
    }

    pub fn rebuild_name_index(&mut self) {
        self.name_texts = Names::new(self.names.iter().map(|n| n.name.text()).collect());
    }

    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        let mut owned;
        let mut file = data;
        let whole_file_xor = data.len() >= 4
            && u32::from_le_bytes([data[0], data[1], data[2], data[3]]) == crypt::XOR_TAG;
        if whole_file_xor {
            owned = data.to_vec();
            crypt::xor(&mut owned, 0);
            file = &owned;
        }
        let mut c = Cursor::new(file, 0);
        let summary = Summary::read(&mut c).within("summary")?;
        let stored_summary = c.position();
        let image_owned;
        let (image, compressed): (&[u8], Option<Compressed>) = if !summary.chunks.is_empty() {
            if summary.compression_flags != compress::LZO
                && summary.compression_flags != compress::LZO_XOR
            {
                return Err(DecodeError::invalid(
                    0x5D,
                    format!(
                        "compression flags {} are not supported (LZO 2 and BnS LZO+XOR 8 are)",
                        summary.compression_flags
                    ),
                ))
                .within("summary.compression_flags");
            }
            let size = compress::image_size(
                &summary.chunks,
                file.len(),
                stored_summary as u64 - 16 * summary.chunks.len() as u64,
            )
            .within("summary.chunks")?;
            let mut img = vec![0u8; size as usize];
            compress::decompress_chunks(
                file,
                &summary.chunks,
                summary.compression_flags,
                &mut img,
            )?;
            let s = image_summary_size(&summary) as usize;
            let body = img.get(s..).unwrap_or(&[]);
            let comp = Compressed {
                stored: file[stored_summary..].to_vec(),
                image_size: img.len() as u64,
                image_crc32: crc32fast::hash(body),
            };
            image_owned = img;
            (&image_owned[..], Some(comp))
        } else {
            (file, None)
        };
        let mut pkg = Self::read_image(image, summary, compressed.is_some())?;
        pkg.whole_file_xor = whole_file_xor;
        pkg.compressed = compressed;
        Ok(pkg)
    }

    /// Read the uncompressed image (spec §1.4–§1.8): the tables, the depends map, the objects,
    /// then the bytes no table or object covers.
    fn read_image(image: &[u8], summary: Summary, compressed: bool) -> Result<Self, DecodeError> {
        let (names, names_end) = read_names(image, &summary)?;
        let name_texts = Names::new(names.iter().map(|n| n.name.text()).collect());
        let (imports, imports_end) = read_imports(image, &summary)?;
        let (exports, entry_at, exports_end) = read_exports(image, &summary)?;
        let depends = depends_range(image.len(), &summary)?;
        let mut pkg = Package {
            whole_file_xor: false,
            compressed: None,
            depends: image[depends.clone()].to_vec(),
            summary,
            names,
            imports,
            exports,
            objects: Vec::new(),
            gaps: Vec::new(),
            name_texts,
        };
        pkg.objects = pkg.read_objects(image, &entry_at)?;
        let tables = [
            (pkg.summary.name_offset as u64, names_end, Region::Names),
            (
                pkg.summary.import_offset as u64,
                imports_end,
                Region::Imports,
            ),
            (
                pkg.summary.export_offset as u64,
                exports_end,
                Region::Exports,
            ),
            (depends.start as u64, depends.end as u64, Region::Depends),
        ];
        pkg.gaps = pkg.find_gaps(image, compressed, &tables)?;
        Ok(pkg)
    }

    /// The object of every export, read from its SerialOffset/SerialSize range of the image
    /// (`entry_at`: each export entry's offset, for errors).
    fn read_objects(&self, image: &[u8], entry_at: &[u64]) -> Result<Vec<Object>, DecodeError> {
        let len = image.len();
        let mut objects = Vec::with_capacity(entry_at.len());
        for (i, &at) in entry_at.iter().enumerate() {
            let e = &self.exports[i];
            let obj = if e.serial_size == 0 {
                Object::Empty
            } else {
                let range = usize::try_from(e.serial_offset)
                    .ok()
                    .zip(usize::try_from(e.serial_size).ok())
                    .and_then(|(o, s)| o.checked_add(s).map(|end| o..end))
                    .filter(|r| r.end <= len)
                    .ok_or_else(|| {
                        DecodeError::invalid(
                            at + 32,
                            format!(
                                "object {}+{} (SerialOffset+SerialSize) lies past the end of the {len}-byte package",
                                e.serial_offset, e.serial_size
                            ),
                        )
                    })
                    .within("serial_offset")
                    .within_index(i)
                    .within("exports")?;
                self.read_object(i, &image[range.clone()], range.start as u64)
                    .within_index(i)
                    .within("objects")?
            };
            objects.push(obj);
        }
        Ok(objects)
    }

    /// Coverage: every image byte belongs to the summary, a table (`tables`: start, end,
    /// region), an object or a gap; the gaps are returned, overlaps refused.
    fn find_gaps(
        &self,
        image: &[u8],
        compressed: bool,
        tables: &[(u64, u64, Region)],
    ) -> Result<Vec<Gap>, DecodeError> {
        let s_end = if compressed {
            image_summary_size(&self.summary)
        } else {
            self.summary_len_plain()
        };
        let mut regions: Vec<(u64, u64, Region)> = vec![(0, s_end, Region::Summary)];
        regions.extend_from_slice(tables);
        for (i, e) in self.exports.iter().enumerate() {
            if e.serial_size > 0 {
                regions.push((
                    e.serial_offset as u64,
                    e.serial_offset as u64 + e.serial_size as u64,
                    Region::Object(i),
                ));
            }
        }
        regions.sort_by_key(|r| (r.0, r.1));
        let mut gaps = Vec::new();
        let mut pos = 0u64;
        for &(s, e, r) in &regions {
            if s < pos && e > s {
                return Err(DecodeError::invalid(
                    s,
                    format!("{} overlaps the data before it", region_name(r)),
                ));
            }
            if s > pos {
                gaps.push(Gap {
                    offset: pos,
                    bytes: image[pos as usize..s as usize].to_vec(),
                });
            }
            pos = pos.max(e);
        }
        if (image.len() as u64) > pos {
            gaps.push(Gap {
                offset: pos,
                bytes: image[pos as usize..].to_vec(),
            });
        }
        Ok(gaps)
    }

    fn summary_len_plain(&self) -> u64 {
        let mut v = Vec::new();
        self.summary.write(&mut v);
        v.len() as u64
    }

    fn read_object(&self, i: usize, bytes: &[u8], base: u64) -> Result<Object, DecodeError> {
        let class = self.class_of(i);
        let anim = class == "AnimSet" || class == "AnimSequence";
        let parse = || -> Result<Object, DecodeError> {
            let mut c = Cursor::new(bytes, base);
            let net_index = c.i32().within("net_index")?;
            let props = Properties::read(&mut c, &self.name_texts).within("properties")?;
            let tail = c.rest().to_vec();
            Ok(Object::Tagged {
                net_index,
                props,
                tail,
            })
        };
        match parse() {
            Ok(o) => Ok(o),
            Err(e) if anim => Err(e),
            Err(_) => Ok(Object::Raw(bytes.to_vec())),
        }
    }

    /// Write the package. Untouched packages come back byte for byte; objects whose size
    /// changed shift every later object (spec §1.11 strategy 2), and a compressed package
    /// whose content changed is written uncompressed (Option U).
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.objects.len() != self.exports.len() {
            return Err(EncodeError::new(format!(
                "{} objects for {} exports",
                self.objects.len(),
                self.exports.len()
            )));
        }
        let mut summary = self.summary.clone();
        summary.name_count = self.names.len() as i32;
        summary.import_count = self.imports.len() as i32;
        summary.export_count = self.exports.len() as i32;
        let layout = self.plan()?;
        // Build the image (straight into `out` when nothing goes around it).
        let direct = out.is_empty() && self.compressed.is_none();
        let mut img = if direct {
            std::mem::take(out)
        } else {
            Vec::new()
        };
        img.reserve(
            self.gaps.iter().map(|g| g.bytes.len()).sum::<usize>()
                + layout.sizes.iter().sum::<usize>()
                + s_estimate(self),
        );
        let mut sum_plain = summary.clone();
        sum_plain.chunks.clear();
        sum_plain.write(&mut img);
        let s_len = img.len();
        self.place_items(&summary, layout, &mut img)?;
        let start = out.len();
        match &self.compressed {
            Some(c)
                if img.len() as u64 == c.image_size
                    && crc32fast::hash(&img[s_len..]) == c.image_crc32 =>
            {
                summary.write(out);
                out.extend_from_slice(&c.stored);
            }
            Some(_) => {
                // Option U: uncompressed, chunk table removed, "compressed" flag cleared.
                let mut s = summary.clone();
                s.compression_flags = 0;
                s.chunks.clear();
                s.package_flags &= !FLAG_COMPRESSED;
                s.write(out);
                out.extend_from_slice(&img[s_len..]);
            }
            None if direct => *out = img,
            None => out.extend_from_slice(&img),
        }
        if self.whole_file_xor {
            crypt::xor(&mut out[start..], 0);
        }
        Ok(())
    }

    /// Where everything goes in the new image: the tables, objects and gaps in original image
    /// order, each at its old offset shifted by the size changes of the objects before it
    /// (a table may not move), and the export entries with their new SerialOffset/Size.
    fn plan(&self) -> Result<Layout, EncodeError> {
        let s = &self.summary;
        let sizes: Vec<usize> = self.objects.iter().map(Object::encoded_len).collect();
        let mut exports = self.exports.clone();
        let mut items: Vec<(u64, u8, Item)> = Vec::new();
        for (off, r) in [
            (s.name_offset, Region::Names),
            (s.import_offset, Region::Imports),
            (s.export_offset, Region::Exports),
            (s.depends_offset, Region::Depends),
        ] {
            items.push((off.max(0) as u64, 1, Item::Table(r)));
        }
        for (i, e) in self.exports.iter().enumerate() {
            if !matches!(self.objects[i], Object::Empty) || e.serial_size != 0 {
                items.push((e.serial_offset.max(0) as u64, 2, Item::Object(i)));
            }
        }
        for (i, g) in self.gaps.iter().enumerate() {
            items.push((g.offset, 0, Item::Gap(i)));
        }
        items.sort_by_key(|x| (x.0, x.1));
        let mut delta: i64 = 0;
        let mut placed = Vec::with_capacity(items.len());
        for &(off, _, it) in &items {
            let target = off as i64 + delta;
            match it {
                Item::Table(r) => {
                    if delta != 0 {
                        return Err(EncodeError::new(format!(
                            "the {} would move because an object before it changed size; animkit does not relocate tables",
                            region_name(r)
                        )));
                    }
                }
                Item::Object(i) => {
                    let new_size = sizes[i] as i64;
                    delta += new_size - self.exports[i].serial_size as i64;
                    let (Ok(o), Ok(s)) = (i32::try_from(target), i32::try_from(new_size)) else {
                        return Err(EncodeError::new(format!(
                            "object {i} no longer fits 32-bit offsets"
                        )));
                    };
                    exports[i].serial_offset = o;
                    exports[i].serial_size = s;
                }
                Item::Gap(_) => {}
            }
            placed.push((it, usize::try_from(target).unwrap_or(0)));
        }
        Ok(Layout {
            sizes,
            exports,
            placed,
        })
    }

    /// Append the planned items to the image after its summary, each at its target offset
    /// (small holes a hand-edited document leaves are filled with zeros).
    fn place_items(
        &self,
        summary: &Summary,
        layout: Layout,
        img: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let Layout {
            sizes,
            mut exports,
            placed,
        } = layout;
        let codes = (summary.package_flags & FLAG_OBFUSCATED != 0).then(|| summary.pointer_codes());
        for (it, target) in placed {
            let empty = match it {
                Item::Object(i) => sizes[i] == 0,
                Item::Gap(g) => self.gaps[g].bytes.is_empty(),
                Item::Table(Region::Names) => self.names.is_empty(),
                Item::Table(Region::Imports) => self.imports.is_empty(),
                Item::Table(Region::Exports) => self.exports.is_empty(),
                Item::Table(_) => self.depends.is_empty(),
            };
            if empty {
                continue;
            }
            if target < img.len() {
                return Err(EncodeError::new(format!(
                    "layout conflict: data for image offset {target} overlaps what precedes it (image is {} bytes so far)",
                    img.len()
                )));
            }
            // A decoded package covers every image byte with a table, an object or a gap, so a
            // hole can only come from a hand-edited document: fill small ones with zeros.
            if target - img.len() > MAX_HOLE {
                return Err(EncodeError::new(format!(
                    "layout leaves {} bytes before image offset {target} uncovered (more than {MAX_HOLE})",
                    target - img.len()
                )));
            }
            img.resize(target, 0);
            match it {
                Item::Table(Region::Names) => {
                    for n in &self.names {
                        n.name.write(img);
                        img.put_u64(n.flags);
                    }
                }
                Item::Table(Region::Imports) => {
                    for im in &self.imports {
                        img.put_plain(im);
                    }
                }
                Item::Table(Region::Exports) => {
                    for (i, e) in exports.iter_mut().enumerate() {
                        if let Some(k) = codes {
                            e.serial_size = k.encode(i, e.serial_size as u32) as i32;
                            e.serial_offset = k.encode(i, e.serial_offset as u32) as i32;
                        }
                        e.write(img);
                    }
                }
                Item::Table(_) => img.extend_from_slice(&self.depends),
                Item::Object(i) => self.objects[i].write(img),
                Item::Gap(g) => img.extend_from_slice(&self.gaps[g].bytes),
            }
        }
        Ok(())
    }

    /// Describe the byte at `offset` of the uncompressed image.
    pub fn field_at(&self, offset: u64) -> String {
        let s = &self.summary;
        for (i, e) in self.exports.iter().enumerate() {
            let (o, z) = (e.serial_offset as u64, e.serial_size as u64);
            if offset >= o && offset < o + z {
                return format!("objects[{i}] ({}, +{})", self.export_name(i), offset - o);
            }
        }
        let table = |off: i32, n: usize, size: u64, name: &str| -> Option<String> {
            let o = off as u64;
            (offset >= o && offset < o + n as u64 * size)
                .then(|| format!("{name}[{}]", (offset - o) / size))
        };
        if let Some(t) = table(s.export_offset, self.exports.len(), 68, "exports") {
            return t;
        }
        if let Some(t) = table(
            s.import_offset,
            self.imports.len(),
            Import::SIZE as u64,
            "imports",
        ) {
            return t;
        }
        if offset < s.name_offset as u64 {
            return "summary".into();
        }
        if offset < s.import_offset.min(s.export_offset) as u64 {
            return "names".into();
        }
        if offset >= s.depends_offset as u64 && offset < s.headers_size as u64 {
            return "depends".into();
        }
        "gaps".into()
    }
}

/// Bytes of the header part (summary and tables), for reserving.
fn s_estimate(p: &Package) -> usize {
    usize::try_from(p.summary.headers_size)
        .unwrap_or(0)
        .min(1 << 30)
}

/// A cursor at a table's offset in the image (the summary's field `field`), checked.
fn table_at<'a>(image: &'a [u8], off: i32, field: &str) -> Result<Cursor<'a>, DecodeError> {
    let len = image.len();
    usize::try_from(off)
        .ok()
        .filter(|&o| o <= len)
        .map(|o| Cursor::new(&image[o..], o as u64))
        .ok_or_else(|| {
            DecodeError::invalid(
                0,
                format!("{field} {off} is outside the {len}-byte package"),
            )
        })
        .within("summary")
}

/// A table's item count from the summary (its field `field`), checked for sign.
fn table_count(n: i32, field: &str) -> Result<u64, DecodeError> {
    u64::try_from(n)
        .map_err(|_| DecodeError::invalid(0, format!("{field} {n} is negative")))
        .within("summary")
}

/// The name table (spec §1.4) and the image offset where it ends.
fn read_names(image: &[u8], s: &Summary) -> Result<(Vec<NameEntry>, u64), DecodeError> {
    let mut c = table_at(image, s.name_offset, "name_offset")?;
    let n = c
        .check_count(table_count(s.name_count, "name_count")?, 12)
        .within("names")?;
    let mut names = Vec::with_capacity(n);
    for i in 0..n {
        let name = FStr::read(&mut c)
            .within("name")
            .within_index(i)
            .within("names")?;
        let flags = c.u64().within("flags").within_index(i).within("names")?;
        names.push(NameEntry { name, flags });
    }
    Ok((names, c.offset()))
}

/// The import table (spec §1.5) and the image offset where it ends.
fn read_imports(image: &[u8], s: &Summary) -> Result<(Vec<Import>, u64), DecodeError> {
    let mut c = table_at(image, s.import_offset, "import_offset")?;
    let n = c
        .check_count(table_count(s.import_count, "import_count")?, 28)
        .within("imports")?;
    let mut imports = Vec::with_capacity(n);
    for i in 0..n {
        let r = c.read::<Import>();
        imports.push(r.within_index(i).within("imports")?);
    }
    Ok((imports, c.offset()))
}

/// Exports read from the export table (spec §1.6), with their serial fields de-obfuscated.
type ExportTable = (Vec<Export>, Vec<u64>, u64);

/// The export table (spec §1.6), SerialSize/SerialOffset de-obfuscated, with each entry's
/// image offset and the offset where the table ends.
fn read_exports(image: &[u8], s: &Summary) -> Result<ExportTable, DecodeError> {
    let mut c = table_at(image, s.export_offset, "export_offset")?;
    let n = c
        .check_count(table_count(s.export_count, "export_count")?, 68)
        .within("exports")?;
    let codes = (s.package_flags & FLAG_OBFUSCATED != 0).then(|| s.pointer_codes());
    let mut exports = Vec::with_capacity(n);
    let mut entry_at = Vec::with_capacity(n);
    for i in 0..n {
        entry_at.push(c.offset());
        let mut e = Export::read(&mut c).within_index(i).within("exports")?;
        if let Some(k) = codes {
            e.serial_size = k.decode(i, e.serial_size as u32) as i32;
            e.serial_offset = k.decode(i, e.serial_offset as u32) as i32;
        }
        exports.push(e);
    }
    Ok((exports, entry_at, c.offset()))
}

/// The depends map's range of the image: DependsOffset up to HeadersSize.
fn depends_range(len: usize, s: &Summary) -> Result<std::ops::Range<usize>, DecodeError> {
    let start = usize::try_from(s.depends_offset).ok().filter(|&d| d <= len);
    let end = usize::try_from(s.headers_size).ok().filter(|&d| d <= len);
    match (start, end) {
        (Some(a), Some(b)) if a <= b => Ok(a..b),
        _ => Err(DecodeError::invalid(
            0,
            format!(
                "depends map {}..{} (DependsOffset..HeadersSize) is not inside the {len}-byte package",
                s.depends_offset, s.headers_size
            ),
        ))
        .within("summary"),
    }
}

fn region_name(r: Region) -> String {
    match r {
        Region::Summary => "summary".into(),
        Region::Names => "name table".into(),
        Region::Imports => "import table".into(),
        Region::Exports => "export table".into(),
        Region::Depends => "depends map".into(),
        Region::Object(i) => format!("object of export {i}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary's records: sizes as the spec gives them, fields named from the
    /// declarations, one-copy reading and writing as deku's.
    #[test]
    fn summary_records_follow_their_declarations() {
        use crate::exact::record::same_as_deku;
        assert_eq!(
            [
                SummaryHead::SIZE,
                SummaryTables::SIZE,
                Generation::SIZE,
                SummaryVersions::SIZE
            ],
            [12, 48, 12, 12]
        );
        assert_eq!(<ChunkRecord as Record>::SIZE, 16);
        assert_eq!(SummaryTables::FIELDS[8].name, "guid");
        assert_eq!(SummaryTables::FIELDS[8].offset, 32);
        let b: Vec<u8> = (0u8..48).map(|i| i.wrapping_mul(71) ^ 0x1F).collect();
        same_as_deku::<SummaryHead>(&b);
        same_as_deku::<SummaryTables>(&b);
        same_as_deku::<Generation>(&b);
        same_as_deku::<SummaryVersions>(&b);
        same_as_deku::<ChunkRecord>(&b);
        same_as_deku::<Import>(&b);
    }
}
