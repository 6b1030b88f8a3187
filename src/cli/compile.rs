//! `animkit compile IN.MDS [-o OUT.MSB]`: the MSB the engine would write for a model script.

use super::Status;
use crate::exact::Error;
use crate::zengin::mds::compile::{compile, CompileOptions};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::types::ZDate;
use std::path::{Path, PathBuf};

/// Compile a text model script (.MDS) to the binary .MSB the engine writes: strings upper case,
/// engine defaults filled in, event kinds and their f32 fields as the engine stores them. Root
/// and source chunks come from an `// animkit-msb:` header (written by `decompile`), else from
/// the file name and its modification time.
#[derive(clap::Args)]
pub struct Args {
    /// The model script.
    input: PathBuf,
    /// Where to write the MSB (default: the input with extension .MSB).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Overwrite OUTPUT if it exists.
    #[arg(long)]
    force: bool,
    /// Do not print the parser's warnings.
    #[arg(short, long)]
    quiet: bool,
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A file time as a zDATE (UTC; padding 0).
pub fn zdate_of(time: std::time::SystemTime) -> Option<ZDate> {
    let secs = time.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    Some(ZDate {
        year: u32::try_from(y).ok()?,
        month: m as u16,
        day: d as u16,
        hour: (s / 3600) as u16,
        minute: (s / 60 % 60) as u16,
        second: (s % 60) as u16,
        padding: 0,
    })
}

pub fn location(path: &Path, line: usize, column: usize) -> PathBuf {
    PathBuf::from(format!("{}:{line}:{column}", path.display()))
}

pub fn run(args: Args) -> Result<Status, Error> {
    let src = crate::fsio::read_file(&args.input)?;
    let mds = crate::zengin::mds::parse(&src)
        .map_err(|e| Error::other(location(&args.input, e.line, e.column), e.message))?;
    if !args.quiet {
        for w in &mds.warnings {
            eprintln!(
                "{}: warning: {}",
                location(&args.input, w.line, w.column).display(),
                w.message
            );
        }
    }
    let opts = CompileOptions {
        file_name: args
            .input
            .file_name()
            .and_then(|n| Text::from_unicode(&n.to_string_lossy()).ok()),
        date: std::fs::metadata(&args.input)
            .and_then(|m| m.modified())
            .ok()
            .and_then(zdate_of),
    };
    let msb = compile(&mds.script, &src, &opts);
    let mut out = Vec::new();
    msb.write(&mut out).map_err(|e| Error::Encode {
        file: args.input.clone(),
        source: e,
    })?;
    let target = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("MSB"));
    crate::fsio::write_file(&target, &out, args.force)?;
    println!("{}: {} bytes", target.display(), out.len());
    Ok(Status::Ok)
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil(0), (1970, 1, 1));
        // 2002-08-28 (waran.msb's source date)
        assert_eq!(super::civil(11_927), (2002, 8, 28));
        assert_eq!(super::civil(-1), (1969, 12, 31));
    }
}
