//! File output that never leaves a half-written file and never overwrites by accident: data
//! goes to a temporary file in the target folder, which is then renamed into place.

use crate::exact::Error;
use std::io::Write;
use std::path::Path;

/// Write `data` to `path` atomically. Without `overwrite`, an existing `path` is an error.
pub fn write_file(path: &Path, data: &[u8], overwrite: bool) -> Result<(), Error> {
    write_file_with(path, data, overwrite, true)
}

/// [`write_file`] without forcing the data to disk before the rename (`sync: false`): for
/// writing thousands of files (archive extraction), where one flush per file would dominate.
pub fn write_file_with(path: &Path, data: &[u8], overwrite: bool, sync: bool) -> Result<(), Error> {
    if !overwrite && path.exists() {
        return Err(Error::other(
            path,
            "already exists; pass --force to overwrite it",
        ));
    }
    let mut file = PendingFile::create(path)?;
    file.append(data).map_err(|e| Error::io(path, e))?;
    file.finish_with(overwrite, sync)
}

/// The folder `path` is to be written in exists (else the error says so, not the temporary
/// file's name).
fn check_folder(path: &Path) -> Result<(), Error> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(Error::other(
            path,
            format!("the output folder {} does not exist", dir.display()),
        )),
        _ => Ok(()),
    }
}

/// A file being written beside `path` that becomes `path` in one rename
/// ([`PendingFile::finish`]); dropped unfinished (an error, a panic), it is removed. So the
/// output is the old file, no file, or the whole new one, never part of it.
pub struct PendingFile {
    tmp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
    len: u64,
}

impl PendingFile {
    pub fn create(path: &Path) -> Result<PendingFile, Error> {
        check_folder(path)?;
        Ok(PendingFile {
            tmp: temp_beside(path)?,
            path: path.to_path_buf(),
            len: 0,
        })
    }
    /// The file it becomes.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// How many bytes it holds.
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Append bytes.
    pub fn append(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.tmp.write_all(data)?;
        self.len += data.len() as u64;
        Ok(())
    }
    /// Overwrite bytes written before, from `offset`.
    pub fn patch(&mut self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        if offset + data.len() as u64 > self.len {
            return Err(std::io::Error::other("patch past the end of the file"));
        }
        let f = self.tmp.as_file_mut();
        f.seek(SeekFrom::Start(offset))?;
        f.write_all(data)?;
        f.seek(SeekFrom::Start(self.len))?;
        Ok(())
    }
    /// Force the bytes written so far to the disk (so less is left for [`finish`](Self::finish)).
    pub fn settle(&mut self) -> std::io::Result<()> {
        self.tmp.as_file().sync_data()
    }
    /// Forget everything written.
    pub fn restart(&mut self) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        let f = self.tmp.as_file_mut();
        f.set_len(0)?;
        f.seek(SeekFrom::Start(0))?;
        self.len = 0;
        Ok(())
    }
    /// Force it to disk and rename it into place; without `overwrite`, an existing file there
    /// is an error (and stays as it was).
    pub fn finish(self, overwrite: bool) -> Result<(), Error> {
        self.finish_with(overwrite, true)
    }
    fn finish_with(self, overwrite: bool, sync: bool) -> Result<(), Error> {
        let path = self.path;
        if !overwrite && path.exists() {
            return Err(Error::other(
                &path,
                "already exists; pass --force to overwrite it",
            ));
        }
        if sync {
            self.tmp
                .as_file()
                .sync_all()
                .map_err(|e| Error::io(&path, e))?;
        }
        let result = if overwrite {
            self.tmp.persist(&path).map(|_| ())
        } else {
            self.tmp.persist_noclobber(&path).map(|_| ())
        };
        result.map_err(|e| Error::io(&path, e.error))
    }
}

/// The temporary file that becomes `path` when renamed: in the same folder, with the
/// permissions of the file it replaces, or those of any newly created file (0666 less the
/// umask) when there is none, not the temporary file's private 0600.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile, Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".animkit-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(dir).map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    if let Ok(old) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(old.permissions())
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(tmp)
}

/// A new folder being filled next to its final place, moved there in one rename by
/// [`Staging::finish`]; dropped unfinished, it is removed with everything in it. So a folder
/// of thousands of files is never seen half-written, and each file inside is written directly
/// (no temporary file and rename per file).
pub struct Staging {
    path: std::path::PathBuf,
    target: std::path::PathBuf,
    done: bool,
}

impl Staging {
    /// Create the staging folder beside `target` (which must not exist or be an empty folder;
    /// its parent is created when missing). The folder is made with the default permissions.
    pub fn new(target: &Path) -> Result<Staging, Error> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let parent = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        loop {
            let path = parent.join(format!(
                ".{name}.animkit-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    return Ok(Staging {
                        path,
                        target: target.to_path_buf(),
                        done: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(&path, e)),
            }
        }
    }

    /// The folder to fill.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Move the filled folder to its target. An empty folder at the target is replaced;
    /// anything else there is an error (and the staging folder is removed).
    pub fn finish(mut self) -> Result<(), Error> {
        let target = self.target.clone();
        if let Err(first) = std::fs::rename(&self.path, &target) {
            // Systems whose rename does not replace an empty folder.
            let empty = std::fs::read_dir(&target).is_ok_and(|mut d| d.next().is_none());
            if !(empty
                && std::fs::remove_dir(&target).is_ok()
                && std::fs::rename(&self.path, &target).is_ok())
            {
                return Err(Error::io(&target, first));
            }
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Check, before anything is written, that files can be written at `files` and folders made at
/// `dirs` (relative paths, each name already checked) below `root` without following a
/// symbolic link or junction, without a file and a folder sharing a path (compared ignoring
/// ASCII case, as Windows does), and, without `overwrite`, without replacing a file. Returns
/// every problem found, each naming its path.
///
/// `root` itself may be a link (the user named it); only what lies below it is checked. (A
/// link planted between this check and the writes by another process is not detected.)
pub fn check_output_tree(
    root: &Path,
    files: &[&Path],
    dirs: &[&Path],
    overwrite: bool,
) -> Vec<String> {
    use std::collections::{BTreeSet, HashSet};
    let key = |p: &Path| {
        p.components()
            .map(|c| c.as_os_str().to_string_lossy().to_uppercase())
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut problems = Vec::new();
    let mut folders: BTreeSet<&Path> = dirs.iter().copied().collect();
    for f in files {
        folders.extend(f.ancestors().skip(1).filter(|a| !a.as_os_str().is_empty()));
    }
    let folder_keys: HashSet<String> = folders.iter().map(|d| key(d)).collect();
    for f in files {
        if folder_keys.contains(&key(f)) {
            problems.push(format!(
                "{}: is both a file and a folder of the archive",
                f.display()
            ));
        }
    }
    // Parents before children (BTreeSet order): below a link or a file nothing more is said.
    let mut blocked: Vec<&Path> = Vec::new();
    for d in &folders {
        if blocked.iter().any(|b| d.starts_with(b)) {
            continue;
        }
        let at = root.join(d);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                problems.push(format!(
                    "{}: is a symbolic link or junction inside the output folder; refusing to write through it",
                    at.display()
                ));
                blocked.push(d);
            }
            Ok(m) if !m.is_dir() => {
                problems.push(format!(
                    "{}: exists and is not a folder, but the archive has files below it",
                    at.display()
                ));
                blocked.push(d);
            }
            _ => {}
        }
    }
    for f in files {
        if f.ancestors().skip(1).any(|a| blocked.contains(&a)) {
            continue;
        }
        let at = root.join(f);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => problems.push(format!(
                "{}: is a symbolic link or junction inside the output folder; refusing to replace it",
                at.display()
            )),
            Ok(m) if m.is_dir() => problems.push(format!(
                "{}: is a folder, but the archive has a file at this path",
                at.display()
            )),
            Ok(_) if !overwrite => problems.push(format!(
                "{}: already exists; pass --force to overwrite it",
                at.display()
            )),
            _ => {}
        }
    }
    problems
}

/// Whether a file or folder name is one animkit makes for itself while writing: a temporary
/// file (`.animkit-XXXXXX`, renamed into place when complete) or `unpack`'s staging folder
/// (`.NAME.animkit-PID-N`). One found later was left by an interrupted run.
pub fn is_own_temp(name: &std::ffi::OsStr) -> bool {
    let s = name.to_string_lossy();
    if s.starts_with(".animkit-") {
        return true;
    }
    s.starts_with('.')
        && s.rsplit_once(".animkit-").is_some_and(|(_, tail)| {
            let mut parts = tail.split('-');
            let digits = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            };
            digits(parts.next()) && digits(parts.next()) && parts.next().is_none()
        })
}

/// The warning for an own temporary file or folder found where files are collected.
pub fn own_temp_warning(path: &Path) -> String {
    format!(
        "{}: left by an interrupted animkit run; not packed (delete it)",
        path.display()
    )
}

/// Whether `a` and `b` name the same existing file (through links, `..` and the like).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Write several files as one: every target is checked first (without `overwrite`, none may
/// exist; none may be a folder or named twice), every file is written to its temporary file,
/// and only then are they renamed into place. On an error no new file is left behind (files
/// already renamed over are removed when they were new), so a command that fails leaves the
/// old files or none, never part of its output.
pub fn write_files(files: &[(std::path::PathBuf, Vec<u8>)], overwrite: bool) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::new();
    for (path, _) in files {
        if !seen.insert(path.clone()) {
            return Err(Error::other(path, "would be written twice by this command"));
        }
        if path.is_dir() {
            return Err(Error::other(path, "is a folder"));
        }
        if !overwrite && path.exists() {
            return Err(Error::other(
                path,
                "already exists; pass --force to overwrite it (nothing was written)",
            ));
        }
    }
    let mut temps = Vec::with_capacity(files.len());
    for (path, data) in files {
        let mut tmp = temp_beside(path)?;
        tmp.write_all(data).map_err(|e| Error::io(path, e))?;
        tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
        temps.push((path, tmp, path.exists()));
    }
    let mut made = Vec::new();
    for (path, tmp, existed) in temps {
        let r = if overwrite {
            tmp.persist(path).map(|_| ())
        } else {
            tmp.persist_noclobber(path).map(|_| ())
        };
        if let Err(e) = r {
            for m in made {
                let _ = std::fs::remove_file(m);
            }
            return Err(Error::io(path, e.error));
        }
        if !existed {
            made.push(path);
        }
    }
    Ok(())
}

/// Create `path` (which must not exist) and write `data` to it: for files inside a
/// [`Staging`] folder, where no one sees them half-written.
pub fn write_new(path: &Path, data: &[u8]) -> Result<(), Error> {
    let mut f = std::fs::File::create_new(path).map_err(|e| Error::io(path, e))?;
    f.write_all(data).map_err(|e| Error::io(path, e))
}

/// Read a whole file, naming it in the error.
pub fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// A file's bytes through a read-only memory map (an empty file maps to an empty slice).
///
/// The archive commands work on the mapped slice, so a large archive is never read into
/// memory, let alone twice. Like every memory-mapped reader, the result is unspecified if
/// another process truncates the file while it is mapped.
pub enum Mapped {
    Map(memmap2::Mmap),
    Empty,
}

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Mapped::Map(m) => m,
            Mapped::Empty => &[],
        }
    }
}

impl Mapped {
    /// Drop this process's pages of `part` (a sub-slice of the map, done with) so the
    /// resident set stays small while a large archive is walked; the bytes stay readable
    /// (they are read again from the page cache or the file if touched). Only whole pages
    /// inside `part` are dropped; elsewhere (or on other systems) this does nothing.
    pub fn release(&self, part: &[u8]) {
        #[cfg(target_os = "linux")]
        if let Mapped::Map(m) = self {
            const PAGE: usize = 4096;
            let base = m.as_ptr() as usize;
            let start = part.as_ptr() as usize;
            if start < base || start + part.len() > base + m.len() {
                return;
            }
            let lo = (start - base).next_multiple_of(PAGE);
            let hi = (start - base + part.len()) / PAGE * PAGE;
            if hi > lo {
                // SAFETY: the map is a read-only shared file mapping; on Linux MADV_DONTNEED
                // only unmaps its pages, and a later read faults the same file bytes back in.
                // An error (e.g. a larger page size) just leaves the pages resident.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, lo, hi - lo)
                };
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = part;
    }
}

/// Map `path` read-only.
pub fn map_file(path: &Path) -> Result<Mapped, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Ok(Mapped::Empty);
    }
    // SAFETY: the map is read-only; see the type's documentation about concurrent truncation.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    Ok(Mapped::Map(map))
}

/// Write `path` through a buffered, seekable temporary file that is renamed into place only
/// when `fill` succeeds (for outputs too large to build in memory).
///
/// When `path` exists (it is being replaced), the data is forced to disk before the rename, so
/// a crash cannot leave the old file replaced by an incomplete one; a new file is renamed
/// into place without that wait, as a copy would be.
pub fn write_streaming<T>(
    path: &Path,
    overwrite: bool,
    fill: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> Result<T, Error>,
) -> Result<T, Error> {
    let replacing = path.exists();
    if !overwrite && replacing {
        return Err(Error::other(
            path,
            "already exists; pass --force to overwrite it",
        ));
    }
    let tmp = temp_beside(path)?;
    let value = {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        let v = fill(&mut w)?;
        w.flush().map_err(|e| Error::io(path, e))?;
        v
    };
    if replacing {
        tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    }
    let result = if overwrite {
        tmp.persist(path).map(|_| ())
    } else {
        tmp.persist_noclobber(path).map(|_| ())
    };
    result.map_err(|e| Error::io(path, e.error))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_without_force_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        write_file(&p, b"one", false).unwrap();
        let err = write_file(&p, b"two", false).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        write_file(&p, b"two", true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    /// Issue 12 item 7: several outputs are written all or nothing.
    #[test]
    fn several_files_are_written_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("A.psa");
        let b = dir.path().join("B.psa");
        std::fs::create_dir(&b).unwrap();
        let files = vec![(a.clone(), b"one".to_vec()), (b.clone(), b"two".to_vec())];
        let e = write_files(&files, true).unwrap_err();
        assert!(e.to_string().contains("B.psa: is a folder"), "{e}");
        std::fs::remove_dir(&b).unwrap();
        std::fs::write(&b, b"old").unwrap();
        let e = write_files(&files, false).unwrap_err();
        assert!(e.to_string().contains("already exists"), "{e}");
        let names = |d: &Path| {
            let mut v: Vec<_> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(dir.path()), ["B.psa"]);
        let twice = vec![(a.clone(), b"x".to_vec()), (a.clone(), b"y".to_vec())];
        assert!(write_files(&twice, true).is_err());
        assert_eq!(names(dir.path()), ["B.psa"]);
        write_files(&files, true).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"one");
        assert_eq!(std::fs::read(&b).unwrap(), b"two");
        assert_eq!(names(dir.path()), ["A.psa", "B.psa"]);
    }

    #[cfg(unix)]
    #[test]
    fn outputs_get_ordinary_permissions_and_replacements_keep_the_old_ones() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // What this process gives a newly created file (0666 less the umask).
        let probe = dir.path().join("probe");
        std::fs::write(&probe, b"").unwrap();
        let p = dir.path().join("new.bin");
        write_file(&p, b"one", false).unwrap();
        assert_eq!(mode(&p), mode(&probe));
        let q = dir.path().join("streamed.bin");
        write_streaming(&q, false, |w| {
            w.write_all(b"two").map_err(|e| Error::io(&q, e))
        })
        .unwrap();
        assert_eq!(mode(&q), mode(&probe));
        std::fs::set_permissions(&q, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_streaming(&q, true, |w| {
            w.write_all(b"three").map_err(|e| Error::io(&q, e))
        })
        .unwrap();
        assert_eq!(mode(&q), 0o640);
        assert_eq!(std::fs::read(&q).unwrap(), b"three");
    }
}
