//! The one conversion core: binary → YAML and YAML → binary as every command that converts
//! does it (`export`, `import`, the folder walk, the one-step mode, `gltf import`'s edit
//! warnings): the file read (memory-mapped, of any registered format), its companion
//! (`--with`: found by key, refused when its key differs unless forced), the document written
//! as it is made (streamed to the output, never held whole when the format streams), the
//! edited document packed straight into the output (with its value findings and the edit
//! warnings against the file it replaces), the warnings printed one way, and the output rules:
//! a temporary file renamed into place (`fsio`), an existing file refused, replaced or kept,
//! the original kept once as `.bak`.
//!
//! One floor above the [`registry`](crate::registry), below the command line
//! ([`crate::cli`]), which parses arguments and calls these functions (never an argv).

use crate::codec::{Archive, Asset, Document, ExportError, ExportOptions, Finding, Format, Sink};
use crate::exact::Error;
use crate::fsio::Mapped;
use crate::registry::{self, ImportOptions};
use std::fmt::Display;
use std::io::Write;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Warnings: one printer, one style (`animkit: warning: FILE: message`, as errors are
// `animkit: error: FILE: message`; at a line and column `FILE:LINE:COL: warning: message`, as
// compilers and located errors write it)

/// Print a warning about `file`.
pub fn warn(file: &Path, message: impl Display) {
    let mut w = Warnings::default();
    w.warn(file, message);
}

/// Warnings about files gathered and printed together, in one write when dropped (or at
/// [`Warnings::flush`]): for a command that reports hundreds at its end (a model's anis without
/// their ASC), where a write per line cost more than the lines.
#[derive(Default)]
pub struct Warnings(String);

impl Warnings {
    /// [`warn`]'s line, kept for later.
    pub fn warn(&mut self, file: &Path, message: impl Display) {
        use std::fmt::Write as _;
        let _ = if file.as_os_str().is_empty() {
            writeln!(self.0, "animkit: warning: {message}")
        } else {
            writeln!(self.0, "animkit: warning: {}: {message}", file.display())
        };
    }

    /// Print what is gathered (e.g. before an error, so the lines keep their order).
    pub fn flush(&mut self) {
        if !self.0.is_empty() {
            let _ = std::io::stderr().write_all(self.0.as_bytes());
            self.0.clear();
        }
    }
}

impl Drop for Warnings {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Print a warning about no file in particular.
pub fn warn_plain(message: impl Display) {
    say(format_args!("animkit: warning: {message}"));
}

/// Print a warning at a line and column of a text file.
pub fn warn_at(file: &Path, line: usize, column: usize, message: impl Display) {
    say(format_args!(
        "{}:{line}:{column}: warning: {message}",
        file.display()
    ));
}

/// One line on standard error in one write (`eprintln!` writes each formatted piece on its
/// own to the unbuffered stream: a command with hundreds of warnings paid a system call per
/// piece), so lines of parallel tasks never interleave either.
fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut text = line.to_string();
    text.push('\n');
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Print findings as warnings about `file`, each naming its field.
pub fn warn_findings(file: &Path, findings: &[Finding]) {
    for w in findings {
        warn(file, format_args!("{}: {}", w.path, w.message));
    }
}

/// Print what an edit from `old` to `new` left stale ([`crate::codec::Codec::edit_warnings`])
/// as warnings about `file` (the output).
pub fn print_edit_warnings(file: &Path, old: &dyn Asset, new: &dyn Asset) {
    warn_findings(file, &old.edit_warnings(new));
}

// ---------------------------------------------------------------------------------------------
// Input

/// A file to convert, read through a memory map (never copied): a binary of a registered
/// format, or an animkit YAML document.
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

    /// A YAML document's text (UTF-8, or UTF-16 with a byte order mark).
    pub fn text(&self) -> Result<std::borrow::Cow<'_, str>, Error> {
        crate::yaml::decode_text(&self.data).map_err(|e| Error::other(&self.path, e))
    }

    /// The file decoded (a binary) or imported (a YAML document).
    pub fn asset(&self, opts: &ImportOptions) -> Result<Box<dyn Asset>, Error> {
        if !self.from_yaml {
            return self
                .format
                .decode(&self.data)
                .map_err(Error::decoding(&self.path));
        }
        let text = self.text()?;
        self.format
            .read_yaml(&text, opts)
            .map_err(|e| import_error(&self.path, &text, e))
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

/// An opened file is a [`Document`] whichever it is (info, YAML, findings, key).
impl<'a> std::ops::Deref for Opened<'a> {
    type Target = dyn Document + 'a;
    fn deref(&self) -> &Self::Target {
        match self {
            Opened::Asset(a) => a.as_ref(),
            Opened::Archive(a) => a.as_ref(),
        }
    }
}

/// A YAML document (`text`) that did not import, as the error of its file. An error found
/// while encoding the document (a zero rotation, a derived value that disagrees) points at the
/// value its field path names, `FILE:LINE:COL: error: PATH: message`, as reading errors do
/// (where the document has no node at that path, it names the path alone).
pub fn import_error(path: &Path, text: &str, e: crate::exact::ImportError) -> Error {
    match e {
        crate::exact::ImportError::Yaml(y) => Error::Yaml {
            file: path.into(),
            source: y,
        },
        crate::exact::ImportError::Encode(x) => {
            match crate::yaml::locate::locate(text, x.path.segments()) {
                Some((line, column)) => Error::Yaml {
                    file: path.into(),
                    source: crate::exact::YamlError {
                        line: Some(line),
                        column: Some(column),
                        message: x.to_string(),
                    },
                },
                None => Error::Encode {
                    file: path.into(),
                    source: x,
                },
            }
        }
        crate::exact::ImportError::Text(m) => Error::other(path, m),
    }
}

// ---------------------------------------------------------------------------------------------
// Companions

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

impl Companions {
    /// What `--with PATH` names: a companion file, or a folder or archive to search.
    pub fn load(with: Option<&Path>) -> Result<Companions, Error> {
        let Some(path) = with else {
            return Ok(Companions::None);
        };
        if path.is_dir() {
            return Ok(Companions::Search(path.to_path_buf()));
        }
        let input = Input::read(path)?;
        let companion = registry::companion_formats().any(|f| f.tag() == input.format.tag());
        if companion {
            let asset = input.asset(&ImportOptions::default())?;
            return Ok(Companions::Given {
                path: path.to_path_buf(),
                format: input.format,
                asset,
            });
        }
        if input.format.container().is_some() && !input.from_yaml {
            return Ok(Companions::Search(path.to_path_buf()));
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

    /// The companion of `file` (of `format`, opened as `opened`): the given one when `format`
    /// uses its format; else, searching, the first of a format `format` uses whose key equals
    /// the file's (an error when there is none).
    pub fn for_file(
        &self,
        file: &Path,
        format: &dyn Format,
        opened: &dyn Document,
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

    /// [`Companions::for_file`], or without `--with` the companion beside the file or one
    /// of `others` ([`beside`]): what `diff` names its changes with.
    pub fn for_file_or_beside(
        &self,
        file: &Path,
        others: &[&Path],
        format: &dyn Format,
        opened: &dyn Document,
    ) -> Result<Option<Held<'_>>, Error> {
        if !matches!(self, Companions::None) {
            let companion = self.for_file(file, format, opened)?;
            // A companion of another key would name the wrong things: said, and not used.
            if let (Some(c), Some(key)) = (&companion, opened.companion_key()) {
                if let Some(theirs) = c.get().companion_key().filter(|&k| k != key) {
                    warn(
                        file,
                        format!(
                            "the file's key (checksum) is 0x{key:08x}, its companion's ({}) is \
                             0x{theirs:08x}: not used",
                            c.get().tag()
                        ),
                    );
                    return Ok(None);
                }
            }
            return Ok(companion);
        }
        for f in std::iter::once(file).chain(others.iter().copied()) {
            if let Some(found) = beside(f, format, opened) {
                eprintln!("{}: with {}", file.display(), found.path.display());
                return Ok(Some(Held::Found(found.asset)));
            }
        }
        Ok(None)
    }

    /// [`Companions::for_file`], refused when its key is not the file's (a skeleton of
    /// another checksum) unless `force`, which uses it with a warning.
    pub fn checked_for_file(
        &self,
        file: &Path,
        format: &dyn Format,
        opened: &Opened<'_>,
        force: bool,
    ) -> Result<Option<Held<'_>>, Error> {
        let companion = self.for_file(file, format, &**opened)?;
        if let (Some(c), Some(key)) = (&companion, opened.companion_key()) {
            if let Some(theirs) = c.get().companion_key().filter(|&k| k != key) {
                let what = format!(
                    "the file's key (checksum) is 0x{key:08x}, its companion's ({}) is \
                     0x{theirs:08x}: they do not belong together (`check --with` says more)",
                    c.get().tag()
                );
                if !force {
                    return Err(Error::other(
                        file,
                        format!("{what}; pass --force to export with it anyway"),
                    ));
                }
                warn(file, what);
            }
        }
        Ok(companion)
    }
}

/// The companion in the folder of `file` that the game's naming rule gives it
/// ([`Companion::beside`](crate::codec::Companion::beside): `HUMANS.MDH` beside
/// `HUMANS-S_RUN.MAN`, names compared without regard to case), when its key is the file's
/// (`doc`'s; a companion of another key, or one that does not decode, is not used).
pub fn beside(file: &Path, format: &dyn Format, doc: &dyn Document) -> Option<registry::Found> {
    let name = file.file_name()?.to_str()?;
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let key = doc.companion_key();
    for (companion, cformat) in registry::companions_of(format) {
        let Some(stem) = companion.beside.and_then(|rule| rule(name)) else {
            continue;
        };
        let wanted: Vec<String> = cformat
            .extensions()
            .iter()
            .map(|ext| format!("{stem}.{ext}").to_lowercase())
            .collect();
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut candidates: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| wanted.contains(&n.to_lowercase()))
            })
            .collect();
        candidates.sort();
        for path in candidates {
            let Ok(data) = crate::fsio::map_file(&path) else {
                continue;
            };
            if !cformat.detect(&data) {
                continue;
            }
            let Ok(asset) = cformat.decode(&data) else {
                continue;
            };
            if key.is_some() && asset.companion_key() != key {
                continue;
            }
            return Some(registry::Found { path, asset });
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Output rules

/// Where a conversion writes.
pub enum Output<'a> {
    /// Standard output (a closed pipe, as with `| head`, is not an error).
    Stdout,
    /// A file, by the rules of [`Existing`] (and kept once as `.bak` with `backup`).
    File {
        path: &'a Path,
        existing: Existing,
        backup: bool,
    },
}

/// What becomes of a file already at the output path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// It is an error (`already exists; pass --force to overwrite it`).
    Refuse,
    /// It is replaced (`--force`).
    Replace,
    /// It is replaced unless it already holds the same bytes ([`Wrote::Same`]).
    ReplaceUnlessSame,
    /// It stays: [`Wrote::Same`] when it holds the same bytes, else [`Wrote::Differs`].
    Keep,
}

/// What a conversion did with its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wrote {
    /// Written: its length, and the `.bak` the replaced file was kept as (if one was made).
    Written { len: u64, backup: Option<PathBuf> },
    /// The output already held these bytes; it was left as it was.
    Same,
    /// ([`Existing::Keep`]) The output exists and holds other bytes; it was left as it was.
    Differs,
}

/// What the `.bak` of `path` is called.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

/// Keep `path` once as `path.bak` before it is replaced; a `.bak` from an earlier run is
/// never overwritten (the first original survives any number of round trips). Copied to a
/// temporary file and renamed, so a `.bak` is never half-written.
pub fn keep_original(path: &Path) -> Result<Option<PathBuf>, Error> {
    let bak = backup_path(path);
    if !path.is_file() || bak.exists() {
        return Ok(None);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".animkit-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(path, e))?;
    std::fs::copy(path, tmp.path()).map_err(|e| Error::io(path, e))?;
    tmp.persist_noclobber(&bak)
        .map_err(|e| Error::io(&bak, e.error))?;
    Ok(Some(bak))
}

/// Make a finished temporary output the file at `path` by the rules.
fn finish(
    pending: crate::fsio::PendingFile,
    path: &Path,
    existing: Existing,
    backup: bool,
) -> Result<Wrote, Error> {
    let compare = matches!(existing, Existing::Keep | Existing::ReplaceUnlessSame);
    if compare && path.is_file() {
        let same = pending.same_as(path).map_err(|e| Error::io(path, e))?;
        if same {
            return Ok(Wrote::Same);
        }
        if existing == Existing::Keep {
            return Ok(Wrote::Differs);
        }
    }
    let len = pending.len();
    let backup = if backup { keep_original(path)? } else { None };
    pending.finish(existing != Existing::Refuse && existing != Existing::Keep)?;
    Ok(Wrote::Written { len, backup })
}

/// A [`PendingFile`](crate::fsio::PendingFile) as a format's [`Sink`]: the first write error
/// is kept (and reported once the format is done), later writes are skipped. The pieces of the
/// document the format is done with are dropped from memory when the document is the `input`
/// file map.
struct FileSink<'a> {
    file: crate::fsio::PendingFile,
    error: Option<std::io::Error>,
    input: Option<&'a crate::fsio::Mapped>,
}

impl FileSink<'_> {
    fn run(&mut self, f: impl FnOnce(&mut crate::fsio::PendingFile) -> std::io::Result<()>) {
        if self.error.is_none() {
            if let Err(e) = f(&mut self.file) {
                self.error = Some(e);
            }
        }
    }
}

impl Sink for FileSink<'_> {
    fn append(&mut self, bytes: &[u8]) {
        self.run(|f| f.append(bytes));
    }
    fn patch(&mut self, offset: usize, bytes: &[u8]) {
        self.run(|f| f.patch(offset as u64, bytes));
    }
    fn settle(&mut self) {
        self.run(|f| f.settle());
    }
    fn restart(&mut self) {
        self.error = None;
        self.run(|f| f.restart());
    }
    fn done_with(&mut self, part: &[u8]) {
        if let Some(map) = self.input {
            map.release(part);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Binary → YAML

/// How a binary is exported.
#[derive(Default)]
pub struct ExportJob<'a> {
    /// `--with`.
    pub companions: Option<&'a Companions>,
    /// `--force`: a companion of another key is used (with a warning).
    pub force: bool,
    /// `--schema-comment BASE`: the document starts with
    /// `# yaml-language-server: $schema=BASE/<tag>.schema.json`.
    pub schema_comment: Option<&'a str>,
}

/// The first line of a document with `--schema-comment BASE`.
pub fn schema_comment_line(base: &str, tag: &str) -> String {
    let base = base.trim_end_matches(['/', '\\']);
    format!("# yaml-language-server: $schema={base}/{tag}.schema.json\n")
}

/// Export `input` (a binary) as its YAML document to `output`, streamed as the format makes
/// it: companion (checked), the schema comment, the document, its export warnings.
pub fn export(input: &Input, job: &ExportJob<'_>, output: Output<'_>) -> Result<Wrote, Error> {
    let format = input.format;
    if format.exports_from_bytes() && !input.from_yaml && format.companions().is_empty() {
        // (written as the bytes are read: the model is never held whole; such a format has
        // no companion to check and no export warnings)
        let doc = |out: &mut dyn Write| format.yaml_from_bytes(input.bytes(), out);
        return write_export(input, job, output, &doc, &Vec::new);
    }
    let opened = input.open(&ImportOptions::default())?;
    export_opened(input, &opened, job, output)
}

/// [`export`] of the file `input` opened as `opened`.
pub fn export_opened(
    input: &Input,
    opened: &Opened<'_>,
    job: &ExportJob<'_>,
    output: Output<'_>,
) -> Result<Wrote, Error> {
    let file = &input.path;
    let none = Companions::None;
    let companions = job.companions.unwrap_or(&none);
    let companion = companions.checked_for_file(file, input.format, opened, job.force)?;
    let opts = ExportOptions {
        companion: companion.as_ref().map(|c| c.get()),
    };
    let doc = |out: &mut dyn Write| opened.to_yaml_into(&opts, out);
    write_export(input, job, output, &doc, &|| opened.export_warnings())
}

/// The output side of [`export`]: the schema comment and the document `doc` writes, to
/// `output`, then the `warnings` printed.
fn write_export(
    input: &Input,
    job: &ExportJob<'_>,
    output: Output<'_>,
    doc: &dyn Fn(&mut dyn Write) -> Result<(), ExportError>,
    warnings: &dyn Fn() -> Vec<Finding>,
) -> Result<Wrote, Error> {
    let file = &input.path;
    let head = job
        .schema_comment
        .map(|base| schema_comment_line(base, input.format.tag()));
    let write = |out: &mut dyn Write| -> Result<(), ExportError> {
        if let Some(h) = &head {
            out.write_all(h.as_bytes())?;
        }
        doc(out)?;
        out.flush()?;
        Ok(())
    };
    match output {
        Output::Stdout => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            let r = write(&mut out);
            warn_findings(file, &warnings());
            match r {
                Ok(()) => Ok(Wrote::Written {
                    len: 0,
                    backup: None,
                }),
                Err(ExportError::Encode(e)) => Err(Error::encoding(file)(e)),
                Err(ExportError::Decode(e)) => {
                    // (nothing of a file that does not decode is written, the schema
                    // comment neither)
                    let _ = out.into_parts();
                    Err(Error::decoding(file)(e))
                }
                Err(ExportError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    // (what was buffered for the closed pipe is thrown away, not written)
                    let _ = out.into_parts();
                    Ok(Wrote::Written {
                        len: 0,
                        backup: None,
                    })
                }
                Err(ExportError::Write(e)) => {
                    let _ = out.into_parts();
                    Err(Error::io("<stdout>", e))
                }
            }
        }
        Output::File {
            path,
            existing,
            backup,
        } => {
            if existing == Existing::Refuse && path.exists() {
                return Err(Error::other(
                    path,
                    "already exists; pass --force to overwrite it",
                ));
            }
            let pending = crate::fsio::PendingFile::create(path)?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, pending);
            match write(&mut out) {
                Ok(()) => {}
                Err(ExportError::Encode(e)) => return Err(Error::encoding(file)(e)),
                Err(ExportError::Decode(e)) => return Err(Error::decoding(file)(e)),
                Err(ExportError::Write(e)) => return Err(Error::io(path, e)),
            }
            let pending = out
                .into_inner()
                .map_err(|e| Error::io(path, e.into_error()))?;
            warn_findings(file, &warnings());
            finish(pending, path, existing, backup)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// YAML → binary

/// Import the YAML document `text` (of `file`, a document of `format`; borrowed from the file
/// map `map` when given, whose pages the format's finished pieces then leave) into the binary
/// file `output`, packed straight into it as the format reads the document (streamed where the
/// format streams); prints the document's value findings (naming `file`) and the edit
/// warnings against the file `output` replaces (naming `output`).
#[allow(clippy::too_many_arguments)]
pub fn import(
    file: &Path,
    text: &crate::yaml::FileText,
    map: Option<&crate::fsio::Mapped>,
    format: &dyn Format,
    opts: &ImportOptions,
    output: &Path,
    existing: Existing,
    backup: bool,
) -> Result<Wrote, Error> {
    // The file the output replaces, for the edit warnings (mapped: a format without edit
    // warnings does not read it).
    let previous = if output.is_file() {
        crate::fsio::map_file(output).ok()
    } else {
        None
    };
    let mut sink = FileSink {
        file: crate::fsio::PendingFile::create(output)?,
        error: None,
        input: map,
    };
    let imported = format
        .import_to(text, opts, previous.as_deref(), &mut sink)
        .map_err(|e| match &e {
            // (an error that points at a value: the document was read, so checked whole)
            crate::exact::ImportError::Encode(_) => {
                import_error(file, text.str().unwrap_or_default(), e)
            }
            _ => import_error(file, "", e),
        })?;
    // (unmapped before the output replaces it: Windows renames no file over a mapped one)
    drop(previous);
    if let Some(e) = sink.error {
        return Err(Error::io(output, e));
    }
    warn_findings(file, &imported.value_findings);
    warn_findings(output, &imported.edit_warnings);
    finish(sink.file, output, existing, backup)
}

/// [`import`] of a YAML document given as a file.
pub fn import_input(
    input: &Input,
    opts: &ImportOptions,
    output: &Path,
    existing: Existing,
    backup: bool,
) -> Result<Wrote, Error> {
    let text = input.text()?;
    import(
        &input.path,
        &crate::yaml::FileText::of_str(&text),
        Some(&input.data),
        input.format,
        opts,
        output,
        existing,
        backup,
    )
}
