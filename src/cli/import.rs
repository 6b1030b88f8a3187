//! `animkit import FILE.yaml [-o OUT]`: YAML → binary; the format comes from the document tag.

use super::{import_error, Status};
use crate::exact::Error;
use crate::registry::{self, ImportOptions};
use std::path::PathBuf;

/// Pack an (edited) YAML document back into the game's binary format.
#[derive(clap::Args)]
pub struct Args {
    /// The YAML document (its `format:` names the binary format), or a folder: every animkit
    /// document in it to `-o OUTDIR`, the tree mirrored (`NAME.yaml` → `NAME`), on all cores.
    file: PathBuf,
    /// Output file (default: FILE without its .yaml/.yml extension).
    #[command(flatten)]
    out: super::OutputArgs,
    /// Where edited values fall outside the stored quantisation range (e.g. an animation's
    /// positions), recompute the range from all values and re-pack everything instead of failing.
    #[arg(long)]
    requantize: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    if args.file.is_dir() {
        let opts = ImportOptions {
            requantize: args.requantize,
        };
        let (out, dir) = (args.out.output.as_deref(), super::tree::Direction::Import);
        return super::tree::run(&args.file, out, args.out.force, dir, &opts);
    }
    let bytes = crate::fsio::read_file(&args.file)?;
    if bytes.is_empty() {
        return Err(Error::other(&args.file, "empty file"));
    }
    // (the file's own buffer becomes the text when it is UTF-8 as read, the usual case: no
    // second copy of a large document is held beside it)
    let converted =
        match crate::yaml::decode_text(&bytes).map_err(|e| Error::other(&args.file, e))? {
            std::borrow::Cow::Owned(s) => Some(s),
            std::borrow::Cow::Borrowed(_) => None,
        };
    let text = match converted {
        Some(s) => s,
        None => String::from_utf8(bytes).map_err(|e| Error::other(&args.file, e.to_string()))?,
    };
    let tag = crate::yaml::document_tag(&text)
        .ok_or_else(|| Error::other(&args.file, "no `format:` line: not an animkit document"))?;
    let format = registry::formats()
        .by_tag_or_message(tag)
        .map_err(|m| Error::other(&args.file, m))?;
    let opts = ImportOptions {
        requantize: args.requantize,
    };
    let tag = format.tag();
    let output = match args.out.output {
        Some(o) => o,
        None => {
            let ext = args.file.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !ext.eq_ignore_ascii_case("yaml") && !ext.eq_ignore_ascii_case("yml") {
                return Err(Error::other(
                    &args.file,
                    "cannot derive an output name (no .yaml extension); pass -o OUT",
                ));
            }
            args.file.with_extension("")
        }
    };
    if !format.has_edit_warnings() {
        // (no edit warnings to print, so no model is needed: the format writes the output as
        // it reads the document, into a file that becomes the output only when complete)
        let mut sink = FileSink {
            file: crate::fsio::PendingFile::create(&output)?,
            error: None,
        };
        format
            .import_into(&text, &opts, &mut sink)
            .map_err(|e| import_error(&args.file, e))?;
        if let Some(e) = sink.error {
            return Err(Error::io(&output, e));
        }
        let len = sink.file.len();
        sink.file.finish(args.out.force)?;
        eprintln!("wrote {} ({len} bytes, {tag})", output.display());
        return Ok(Status::Ok);
    }
    let asset = format
        .read_yaml(&text, &opts)
        .map_err(|e| import_error(&args.file, e))?;
    // (the text is done with: its memory is reused for the output, a lower peak)
    drop(text);
    let data = asset.encode().map_err(Error::encoding(&args.file))?;
    for w in asset.value_findings() {
        eprintln!(
            "warning: {}: {}: {}",
            args.file.display(),
            w.path,
            w.message
        );
    }
    warn_against_existing(&output, format, asset.as_ref());
    // (the process ends here: the operating system takes the model back faster than dropping
    // it piece by piece, e.g. 90,000 MW3 events)
    std::mem::forget(asset);
    crate::fsio::write_file(&output, &data, args.out.force)?;
    eprintln!("wrote {} ({} bytes, {})", output.display(), data.len(), tag);
    Ok(Status::Ok)
}

/// The output file as a format's [`Sink`](crate::registry::Sink): the first write error is
/// kept (and reported once the format is done), later writes are skipped.
struct FileSink {
    file: crate::fsio::PendingFile,
    error: Option<std::io::Error>,
}

impl FileSink {
    fn run(&mut self, f: impl FnOnce(&mut crate::fsio::PendingFile) -> std::io::Result<()>) {
        if self.error.is_none() {
            if let Err(e) = f(&mut self.file) {
                self.error = Some(e);
            }
        }
    }
}

impl crate::registry::Sink for FileSink {
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
}

/// Print what an edit from `old` to `new` left stale ([`crate::codec::Codec::edit_warnings`]),
/// as warnings naming `file` and the field.
pub(super) fn print_edit_warnings(
    file: &std::path::Path,
    old: &dyn crate::registry::Asset,
    new: &dyn crate::registry::Asset,
) {
    for w in old.edit_warnings(new) {
        eprintln!("warning: {}: {}: {}", file.display(), w.path, w.message);
    }
}

/// When `output` already holds a file of `format` (the original being replaced), print the
/// edit warnings of `new` against it. An unreadable or other old output gives no warnings.
pub(super) fn warn_against_existing(
    output: &std::path::Path,
    format: &dyn crate::registry::Format,
    new: &dyn crate::registry::Asset,
) {
    if !format.has_edit_warnings() || !output.is_file() {
        return;
    }
    let Ok(old) = crate::fsio::read_file(output) else {
        return;
    };
    if let Some(old) = format
        .detect(&old)
        .then(|| format.decode(&old).ok())
        .flatten()
    {
        print_edit_warnings(output, old.as_ref(), new);
    }
}
