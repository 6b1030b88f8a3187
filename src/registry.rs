//! The format registry: every format is one type implementing [`Codec`] (in its own module,
//! on the floor [`crate::codec`]) plus one line in [`FORMATS`]; detection and every command
//! (`info`, `export`, `import`, `verify`, `diff`, ...) then work for it through the object-safe
//! [`Format`] and [`Asset`] traits. A container format (its files hold other files) and a
//! format with companions (files it can use) declare that in their [`Codec`] too, so it is
//! still one module and one line here.

pub use crate::codec::{
    check_document_header, Archive, Asset, Change, CheckContext, Codec, Companion, Container, Diff,
    DiffContext, Document, ExportError, ExportOptions, Finding, Format, Formats, ImportOptions,
    Imported, InfoLine, Member, Registered, Severity, Sink,
};
use crate::exact::Error;
use std::path::{Path, PathBuf};

/// Every format animkit knows. Order matters only when two detectors accept the same bytes.
pub static FORMATS: &[&dyn Format] = &[
    &Registered::<crate::zengin::man::Man>::NEW,
    &Registered::<crate::mw3::Anim>::NEW,
    &Registered::<crate::ue3::Package>::NEW,
    &Registered::<crate::zengin::mdl::Mdl>::NEW,
    &Registered::<crate::zengin::mdh::Mdh>::NEW,
    &Registered::<crate::zengin::mdm::Mdm>::NEW,
    &Registered::<crate::zengin::mmb::Mmb>::NEW,
    &Registered::<crate::zengin::tex::Tex>::NEW,
    &Registered::<crate::zengin::msb::Msb>::NEW,
    &Registered::<crate::zengin::mds::Mds>::NEW,
    &Registered::<crate::zengin::vdf::Vdf<'static>>::NEW,
    &Registered::<crate::zengin::asc::Asc>::NEW,
];

/// [`FORMATS`] as handed down to code below the registry (a container's members).
pub fn formats() -> Formats {
    Formats(FORMATS)
}

/// The format of `data`, detected from its content.
pub fn detect(data: &[u8]) -> Option<&'static dyn Format> {
    formats().detect(data)
}

/// The format with YAML tag `tag`.
pub fn by_tag(tag: &str) -> Option<&'static dyn Format> {
    formats().by_tag(tag)
}

// ---------------------------------------------------------------------------------------------
// Companions

/// The companions a file of `format` can use, each with its format.
pub fn companions_of(
    format: &dyn Format,
) -> impl Iterator<Item = (&'static Companion, &'static dyn Format)> {
    format
        .companions()
        .iter()
        .filter_map(|c| by_tag(c.tag).map(|f| (c, f)))
}

/// The formats that are some format's companion.
pub fn companion_formats() -> impl Iterator<Item = &'static dyn Format> {
    FORMATS.iter().copied().filter(|f| {
        FORMATS
            .iter()
            .any(|g| companions_of(*g).any(|(_, c)| c.tag() == f.tag()))
    })
}

/// Every companion's own flag (`mdh`), for the commands' `--with` aliases.
pub fn companion_flags() -> Vec<&'static str> {
    let mut flags: Vec<&'static str> = FORMATS
        .iter()
        .flat_map(|f| f.companions().iter().map(|c| c.flag))
        .collect();
    flags.sort_unstable();
    flags.dedup();
    flags
}

/// A companion found by its key.
pub struct Found {
    /// Its file, or `ARCHIVE:MEMBER` for a container's member.
    pub path: PathBuf,
    pub asset: Box<dyn Asset>,
}

/// The first file of format `tag` whose companion key is `key`, in `place`: a folder (walked
/// in name order, containers in it searched too), a container (its members), or one file.
/// Files that do not decode are not candidates.
pub fn find_companion(place: &Path, tag: &str, key: u32) -> Result<Option<Found>, Error> {
    if place.is_dir() {
        for entry in walkdir::WalkDir::new(place).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::other(place, e.to_string()))?;
            if !entry.file_type().is_file() {
                continue;
            }
            let data = crate::fsio::map_file(entry.path())?;
            if let Some(found) = find_companion_in(entry.path(), &data, tag, key) {
                return Ok(Some(found));
            }
        }
        return Ok(None);
    }
    let data = crate::fsio::map_file(place)?;
    Ok(find_companion_in(place, &data, tag, key))
}

/// [`find_companion`] in a file's bytes (named `path` in the result): the file itself when it
/// is of format `tag` with key `key`, else, for a container, the first such member.
pub fn find_companion_in(path: &Path, data: &[u8], tag: &str, key: u32) -> Option<Found> {
    let format = detect(data)?;
    if format.tag() == tag {
        let asset = format.decode(data).ok()?;
        return (asset.companion_key() == Some(key)).then(|| Found {
            path: path.to_path_buf(),
            asset,
        });
    }
    let archive = format.container()?.open(data).ok()?;
    archive.members().ok()?.iter().find_map(|id| {
        let bytes = archive.read(id).ok()?;
        find_companion_in(&member_path(path, &archive.name(id)), &bytes, tag, key)
    })
}

/// How a container's member is named in reports: `ARCHIVE:MEMBER/PATH`.
pub fn member_path(container: &Path, member: &str) -> PathBuf {
    PathBuf::from(format!("{}:{member}", container.display()))
}

// ---------------------------------------------------------------------------------------------
// Fuzzing (the fuzz targets in fuzz/ and the replay of fuzz/regressions in `cargo test`)

/// Any bytes: no panic; whatever a format decodes is written back byte for byte, through the
/// model and through its YAML document.
pub fn fuzz_binary(data: &[u8]) {
    let Some(f) = detect(data) else {
        return;
    };
    let Ok(asset) = f.decode(data) else {
        return;
    };
    let out = asset.encode().expect("a decoded asset encodes");
    assert!(out == data, "{}: binary → model → binary differs", f.tag());
    let yaml = asset
        .to_yaml(&ExportOptions::default())
        .expect("a decoded asset exports");
    let back = f
        .read_yaml(&yaml, &ImportOptions::default())
        .expect("its YAML imports");
    let again = back.encode().expect("the imported asset encodes");
    assert!(again == data, "{}: binary → YAML → binary differs", f.tag());
}

/// Any bytes as a YAML document (what `animkit import` does with a file from anywhere): no
/// panic, no abort; a document that imports encodes (or is refused with an error) and its
/// binary decodes again.
pub fn fuzz_yaml_import(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(tag) = crate::yaml::document_tag(text) else {
        return;
    };
    let Some(f) = by_tag(tag) else {
        return;
    };
    let Ok(asset) = f.read_yaml(text, &ImportOptions::default()) else {
        return;
    };
    if let Ok(bytes) = asset.encode() {
        f.decode(&bytes).unwrap_or_else(|e| {
            panic!("{tag}: an imported document encodes to bytes that do not decode: {e}")
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> Vec<u8> {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("samples")
                .join(name),
        )
        .unwrap()
    }

    #[test]
    fn the_skeleton_of_an_animation_is_found_by_its_checksum_inside_an_archive() {
        let man = sample("IDLE.MAN");
        let format = detect(&man).unwrap();
        let (companion, mdh) = companions_of(format).next().unwrap();
        assert_eq!(
            (companion.tag, companion.flag, mdh.tag()),
            ("zengin.mdh", "mdh", "zengin.mdh")
        );
        let key = format.decode(&man).unwrap().companion_key().unwrap();
        assert_eq!(key, 0x0519_cb77);
        let vdf = sample("ANIMS.VDF");
        let found = find_companion_in(Path::new("A.VDF"), &vdf, mdh.tag(), key).unwrap();
        assert_eq!(found.path, Path::new("A.VDF:SAMPLE.MDH"));
        assert_eq!(found.asset.companion_key(), Some(key));
        assert!(find_companion_in(Path::new("A.VDF"), &vdf, mdh.tag(), key ^ 1).is_none());
        assert_eq!(companion_flags(), ["base", "mdh"]);
    }

    #[test]
    fn an_archive_is_detected_as_vdf_by_no_earlier_format() {
        assert_eq!(
            detect(&sample("ANIMS.VDF")).map(|f| f.tag()),
            Some("zengin.vdf")
        );
    }
}
