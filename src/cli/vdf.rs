//! `animkit vdf list|extract|pack`: VDF archives as archives.

use super::Status;
use crate::exact::Error;
use crate::zengin::vdf::folder::{self as folder, PackOptions};
use crate::zengin::vdf::{self, SIGNATURE_GOTHIC1, SIGNATURE_GOTHIC2};
use std::io::Write;
use std::path::PathBuf;

/// List, extract and pack VDF archives (Gothic's `.VDF` volumes, Union compressed ones too).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    List(ListArgs),
    Extract(ExtractArgs),
    Pack(PackArgs),
}

/// List every entry: offset, size, path (directories end in `/`).
#[derive(clap::Args)]
struct ListArgs {
    archive: PathBuf,
    /// Print JSON (an array of entries) instead.
    #[arg(long)]
    json: bool,
}

/// Extract files (all, or those whose path or name matches PATTERN: `*` and `?`, any case).
/// Names that could escape the output folder (`..`, drive letters, separators, control
/// bytes) are refused and nothing is written.
#[derive(clap::Args)]
struct ExtractArgs {
    archive: PathBuf,
    pattern: Option<String>,
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Game {
    Gothic1,
    Gothic2,
}

/// Pack a folder into a new archive: upper-case names, catalog depth-first (directories,
/// then files, by name), data in the original packer's order.
#[derive(clap::Args)]
struct PackArgs {
    dir: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// Which game's signature to write.
    #[arg(long, value_enum, default_value = "gothic2")]
    game: Game,
    /// The archive's comment (at most 256 bytes).
    #[arg(long, default_value = "Packed with animkit")]
    comment: String,
    /// Timestamp `YYYY-MM-DD hh:mm:ss` (UTC, even seconds) or a raw 0x value, for repeatable
    /// output; default: now.
    #[arg(long)]
    timestamp: Option<String>,
    /// Write a Union compressed volume (ZippedStream, 8192-byte blocks; .WAV/.OGG stay raw).
    #[arg(long)]
    zipped: bool,
    /// Overwrite OUTPUT if it exists. OUTPUT may lie inside DIR: it is never packed as a
    /// member (nor are animkit's own temporary files), and replaces the old file in one
    /// rename once the new one is complete.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<Status, Error> {
    match args.command {
        Command::List(a) => list(a),
        Command::Extract(a) => extract(a),
        Command::Pack(a) => pack(a),
    }
}

fn print_warnings(file: &std::path::Path, w: &[String]) {
    for w in w {
        crate::convert::warn(file, w);
    }
}

fn list(a: ListArgs) -> Result<Status, Error> {
    let map = crate::fsio::map_file(&a.archive)?;
    let v = folder::open(&a.archive, &map)?;
    let tree = folder::tree(&a.archive, &v)?;
    print_warnings(&a.archive, &v.warnings);
    print_warnings(&a.archive, &tree.warnings);
    let items = folder::list(&v, &tree);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let r = if a.json {
        serde_json::to_writer_pretty(&mut out, &items)
            .map_err(std::io::Error::other)
            .and_then(|_| writeln!(out))
    } else {
        (|| {
            writeln!(
                out,
                "{:>10} {:>10} {:>10}  path",
                "offset", "size", "stored"
            )?;
            for it in &items {
                let stored = match (it.directory, it.stored, it.zipped) {
                    (true, _, _) => "-".to_string(),
                    (_, Some(s), true) => format!("{s}z"),
                    (_, Some(s), false) => s.to_string(),
                    (_, None, _) => "unplaced".to_string(),
                };
                let path = it
                    .path
                    .clone()
                    .unwrap_or_else(|| format!("<catalog[{}], not in the tree>", it.index));
                writeln!(
                    out,
                    "{:>10} {:>10} {:>10}  {path}",
                    it.offset, it.size, stored
                )?;
            }
            Ok(())
        })()
    };
    if let Err(e) = r.and_then(|_| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Error::io("<stdout>", e));
        }
    }
    // Listed as stored; a member that cannot be read (its data does not inflate) is an error.
    let damage = v.damage();
    if let Some((last, rest)) = damage.split_last() {
        for f in rest {
            eprintln!(
                "animkit: error: {}: {}: {}",
                a.archive.display(),
                f.path,
                f.message
            );
        }
        return Err(Error::other(
            &a.archive,
            format!("{}: {}", last.path, last.message),
        ));
    }
    Ok(Status::Ok)
}

fn extract(a: ExtractArgs) -> Result<Status, Error> {
    let map = crate::fsio::map_file(&a.archive)?;
    let v = folder::open(&a.archive, &map)?;
    let tree = folder::tree(&a.archive, &v)?;
    print_warnings(&a.archive, &v.warnings);
    print_warnings(&a.archive, &tree.warnings);
    let b = super::progress::bar(v.entries.len(), "files");
    let (n, warnings) = folder::extract(
        &a.archive,
        &map,
        &v,
        &tree,
        a.pattern.as_deref(),
        &a.output,
        a.force,
        &|part| map.release(part),
        &|| b.inc(1),
    )?;
    b.finish_and_clear();
    print_warnings(&a.archive, &warnings);
    eprintln!("extracted {n} files to {}", a.output.display());
    Ok(if n == 0 && a.pattern.is_some() {
        eprintln!(
            "animkit: no file matches {:?}",
            a.pattern.unwrap_or_default()
        );
        Status::Failed
    } else {
        Status::Ok
    })
}

/// Parse a `--timestamp` value.
pub fn parse_timestamp(s: &str) -> Option<u32> {
    vdf::dos_from_string(s).or_else(|| crate::exact::blob::parse_u32(s))
}

fn pack(a: PackArgs) -> Result<Status, Error> {
    if !a.dir.is_dir() {
        return Err(Error::other(&a.dir, "not a directory"));
    }
    let timestamp = match &a.timestamp {
        Some(t) => parse_timestamp(t).ok_or_else(|| {
            Error::other(
                t,
                "not a timestamp: use YYYY-MM-DD hh:mm:ss (1980–2107, even seconds) or 0x…",
            )
        })?,
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0);
            vdf::dos_from_unix(now)
        }
    };
    let comment = crate::exact::text::encode_cp1252(&a.comment)
        .map_err(|c| Error::other(&a.comment, format!("{c:?} cannot be stored in the comment")))?
        .into_owned();
    let opts = PackOptions {
        signature: match a.game {
            Game::Gothic1 => *SIGNATURE_GOTHIC1,
            Game::Gothic2 => *SIGNATURE_GOTHIC2,
        },
        comment,
        timestamp,
        zipped: a.zipped,
    };
    let out_abs = std::path::absolute(&a.output).unwrap_or(a.output.clone());
    let dir_abs = std::path::absolute(&a.dir).unwrap_or(a.dir.clone());
    let files = folder::collect_dir(&a.dir, &|rel| {
        dir_abs.join(rel) == out_abs || crate::fsio::same_file(&a.dir.join(rel), &a.output)
    })?;
    for l in folder::links_below(&a.dir) {
        crate::convert::warn(
            &l,
            "a symbolic link or junction; not packed (vdf pack does not follow links: put the file or folder itself there)",
        );
    }
    for t in folder::own_temps(&a.dir) {
        crate::convert::warn_plain(crate::fsio::own_temp_warning(&t));
    }
    for d in folder::empty_folders(&a.dir) {
        crate::convert::warn_plain(format_args!(
            "{d}/: empty folder left out (an archive directory needs at least one entry)"
        ));
    }
    let b = super::progress::bar(files.len() + 1, "pieces");
    let len = crate::fsio::write_streaming(&a.output, a.force, |w| {
        folder::pack_to(w, &files, &opts, &|| b.inc(1)).map_err(Error::encoding(&a.output))
    })?;
    b.finish_and_clear();
    eprintln!(
        "wrote {} ({} files, {len} bytes)",
        a.output.display(),
        files.len()
    );
    Ok(Status::Ok)
}
