//! What the generic commands share: a file named on the command line (memory-mapped, of any
//! registered format, binary or YAML), the file opened for reading (decoded, or a container
//! borrowed from its map), its companion (`--with`), and where the output goes.

use crate::codec::{Archive, Asset, CheckContext, ExportOptions, Finding, Format, InfoLine};
use crate::exact::{EncodeError, Error};
use crate::fsio::Mapped;
use crate::registry::{self, ImportOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file named on the command line, read through a memory map (never copied): a binary of a
/// registered format, or an animkit YAML document.
pub struct Input {
    pub path: PathBuf,
    data: Mapped,
    pub format: &'static dyn Format,
    pub from_yaml: bool,
}

/// A file opened for a command: decoded, or (a binary of a container format) opened borrowed
/// from its map.
pub enum Opened<'a> {
    Asset(Box<dyn Asset>),
    Archive(Box<dyn Archive + 'a>),
}

impl Input {
    /// A binary asset (detected by content) or an animkit YAML document.
    pub fn read(path: &Path) -> Result<Input, Error> {
        let data = crate::fsio::map_file(path)?;
        if data.is_empty() {
            return Err(Error::other(path, "empty file"));
        }
        if let Some(format) = registry::detect(&data) {
            return Ok(Input::new(path, data, format, false));
        }
        if let Ok(text) = std::str::from_utf8(&data) {
            if let Some(tag) = crate::yaml::document_tag(text) {
                let format = registry::formats()
                    .by_tag_or_message(tag)
                    .map_err(|m| Error::other(path, m))?;
                return Ok(Input::new(path, data, format, true));
            }
        }
        Err(Error::other(
            path,
            format!(
                "not a recognised format (known: {})",
                registry::FORMATS
                    .iter()
                    .map(|f| f.description())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    }

    /// A binary asset only (detected by content).
    pub fn binary(path: &Path) -> Result<Input, Error> {
        let data = crate::fsio::map_file(path)?;
        if data.is_empty() {
            return Err(Error::other(path, "empty file"));
        }
        let format = registry::detect(&data)
            .ok_or_else(|| Error::other(path, "not a recognised binary format"))?;
        Ok(Input::new(path, data, format, false))
    }

    fn new(path: &Path, data: Mapped, format: &'static dyn Format, from_yaml: bool) -> Input {
        Input {
            path: path.to_path_buf(),
            data,
            format,
            from_yaml,
        }
    }

    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The file's bytes (the map).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// The file decoded (a binary) or imported (a YAML document).
    pub fn asset(&self, opts: &ImportOptions) -> Result<Box<dyn Asset>, Error> {
        if !self.from_yaml {
            return self
                .format
                .decode(&self.data)
                .map_err(Error::decoding(&self.path));
        }
        let text = std::str::from_utf8(&self.data)
            .map_err(|e| Error::other(&self.path, format!("not UTF-8 text: {e}")))?;
        self.format
            .read_yaml(text, opts)
            .map_err(|e| import_error(&self.path, e))
    }

    /// The file opened: a binary of a container format borrowed from the map, anything else
    /// through [`Input::asset`].
    pub fn open(&self, opts: &ImportOptions) -> Result<Opened<'_>, Error> {
        match self.format.container() {
            Some(c) if !self.from_yaml => c
                .open(&self.data)
                .map(Opened::Archive)
                .map_err(Error::decoding(&self.path)),
            _ => self.asset(opts).map(Opened::Asset),
        }
    }

    /// The file as binary bytes: the map, or the imported YAML document encoded.
    pub fn encoded(&self) -> Result<std::borrow::Cow<'_, [u8]>, Error> {
        if !self.from_yaml {
            return Ok(std::borrow::Cow::Borrowed(&self.data));
        }
        let asset = self.asset(&ImportOptions::default())?;
        asset
            .encode()
            .map(std::borrow::Cow::Owned)
            .map_err(Error::encoding(&self.path))
    }
}

impl Opened<'_> {
    pub fn info(&self) -> Vec<InfoLine> {
        match self {
            Opened::Asset(a) => a.info(),
            Opened::Archive(a) => a.info(),
        }
    }
    pub fn to_yaml(&self, opts: &ExportOptions<'_>) -> Result<String, EncodeError> {
        match self {
            Opened::Asset(a) => a.to_yaml(opts),
            Opened::Archive(a) => a.to_yaml(opts),
        }
    }
    pub fn check(&self, ctx: &CheckContext<'_>) -> Vec<Finding> {
        match self {
            Opened::Asset(a) => a.check(ctx),
            Opened::Archive(a) => a.check(),
        }
    }
    /// See [`crate::codec::Codec::export_warnings`] (containers have none).
    pub fn export_warnings(&self) -> Vec<Finding> {
        match self {
            Opened::Asset(a) => a.export_warnings(),
            Opened::Archive(_) => Vec::new(),
        }
    }
    /// See [`crate::codec::Codec::companion_key`] (containers have none).
    pub fn companion_key(&self) -> Option<u32> {
        match self {
            Opened::Asset(a) => a.companion_key(),
            Opened::Archive(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Companions

/// `--with`: a file the inputs use (see [`crate::codec::Companion`]).
#[derive(clap::Args)]
pub struct WithArgs {
    /// A companion file the inputs use (e.g. the skeleton an animation is made for), or a
    /// folder or archive in which to find it by its key (checksum).
    #[arg(long = "with", value_name = "FILE", visible_aliases = registry::companion_flags())]
    pub with: Option<PathBuf>,
}

/// What `--with` named.
pub enum Companions {
    None,
    /// A file of a companion format.
    Given {
        path: PathBuf,
        format: &'static dyn Format,
        asset: Box<dyn Asset>,
    },
    /// A folder or container in which each file's companion is found by its key.
    Search(PathBuf),
}

/// A companion for one file: the one given, or one found.
pub enum Held<'a> {
    Given(&'a dyn Asset),
    Found(Box<dyn Asset>),
}

impl Held<'_> {
    pub fn get(&self) -> &dyn Asset {
        match self {
            Held::Given(a) => *a,
            Held::Found(a) => a.as_ref(),
        }
    }
}

impl WithArgs {
    pub fn load(&self) -> Result<Companions, Error> {
        let Some(path) = &self.with else {
            return Ok(Companions::None);
        };
        if path.is_dir() {
            return Ok(Companions::Search(path.clone()));
        }
        let input = Input::read(path)?;
        let companion = registry::companion_formats().any(|f| f.tag() == input.format.tag());
        if companion {
            let asset = input.asset(&ImportOptions::default())?;
            return Ok(Companions::Given {
                path: path.clone(),
                format: input.format,
                asset,
            });
        }
        if input.format.container().is_some() && !input.from_yaml {
            return Ok(Companions::Search(path.clone()));
        }
        Err(Error::other(
            path,
            format!(
                "--with expects {} (or a folder or archive holding one), this is {}",
                registry::companion_formats()
                    .map(|f| f.description())
                    .collect::<Vec<_>>()
                    .join(" or "),
                input.format.description()
            ),
        ))
    }
}

impl Companions {
    /// The companion of `file` (of `format`, opened as `opened`): the given one when `format`
    /// uses its format; else, searching, the first of a format `format` uses whose key equals
    /// the file's (an error when there is none).
    pub fn for_file(
        &self,
        file: &Path,
        format: &dyn Format,
        opened: &Opened<'_>,
    ) -> Result<Option<Held<'_>>, Error> {
        match self {
            Companions::None => Ok(None),
            Companions::Given {
                format: given,
                asset,
                ..
            } => Ok(registry::companions_of(format)
                .any(|(_, f)| f.tag() == given.tag())
                .then(|| Held::Given(asset.as_ref()))),
            Companions::Search(place) => {
                let Some(key) = opened.companion_key() else {
                    return Ok(None);
                };
                for (_, f) in registry::companions_of(format) {
                    if let Some(found) = registry::find_companion(place, f.tag(), key)? {
                        eprintln!("{}: with {}", file.display(), found.path.display());
                        return Ok(Some(Held::Found(found.asset)));
                    }
                }
                if registry::companions_of(format).next().is_none() {
                    return Ok(None);
                }
                Err(Error::other(
                    file,
                    format!(
                        "no {} in {} has this file's key 0x{key:08x}",
                        registry::companions_of(format)
                            .map(|(_, f)| f.description())
                            .collect::<Vec<_>>()
                            .join(" or "),
                        place.display()
                    ),
                ))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Output

/// Where a command writes its file.
#[derive(clap::Args)]
pub struct OutputArgs {
    /// Output file.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Overwrite the output file if it exists. It may be the input itself: the whole input
    /// is read before anything is written, and the new file replaces it in one rename.
    #[arg(long)]
    pub force: bool,
}

/// Write `text` to the output file, or to stdout without one (a closed pipe, as with
/// `| head`, is not an error).
pub fn write_text(out: &OutputArgs, text: &str) -> Result<(), Error> {
    match &out.output {
        Some(path) => crate::fsio::write_file(path, text.as_bytes(), out.force),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(Error::io("<stdout>", e))
                }
                _ => Ok(()),
            }
        }
    }
}

/// A YAML document that did not import, as the error of its file.
pub fn import_error(path: &Path, e: crate::exact::ImportError) -> Error {
    match e {
        crate::exact::ImportError::Yaml(y) => Error::Yaml {
            file: path.into(),
            source: y,
        },
        crate::exact::ImportError::Encode(x) => Error::Encode {
            file: path.into(),
            source: x,
        },
    }
}
