//! File output that never leaves a half-written file and never overwrites by accident: data
//! goes to a temporary file in the target folder, which is then renamed into place.

use crate::exact::Error;
use std::io::Write;
use std::path::Path;

mod ordered;

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
    if let Target::Stream(dev) = output_target(path)? {
        return stream_into(&dev, |f| f.write_all(data)).map_err(|e| Error::io(path, e));
    }
    let mut file = PendingFile::create(path)?;
    file.append(data).map_err(|e| Error::io(path, e))?;
    file.finish_with(overwrite, sync)
}

/// What an output path names, once resolved: a regular file (or nothing yet) that is replaced
/// in one rename, or a character device or FIFO that is written into.
enum Target {
    Regular(std::path::PathBuf),
    // (only character devices and FIFOs of Unix systems are told apart today)
    #[cfg_attr(not(unix), allow(dead_code))]
    Stream(std::path::PathBuf),
}

/// How an output path is written (the policy `--help` states for `-o`): a new path or a
/// regular file is written through a temporary file renamed into place; a symbolic link is
/// followed and the file it points to written the same way (the link stays; a link to
/// nothing is refused, never replaced); a character device or FIFO (`/dev/null`, a named
/// pipe) is written into, streaming, without a temporary file or rename; a folder, block
/// device, socket or anything else is refused. So no non-regular file is ever replaced.
fn output_target(path: &Path) -> Result<Target, Error> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(_) => return Ok(Target::Regular(path.to_path_buf())),
    };
    let (real, meta) = if meta.file_type().is_symlink() {
        let real = std::fs::canonicalize(path).map_err(|_| {
            Error::other(
                path,
                "is a symbolic link to nothing; refusing to replace the link (name the file to write)",
            )
        })?;
        let meta = std::fs::metadata(&real).map_err(|e| Error::io(&real, e))?;
        (real, meta)
    } else {
        (path.to_path_buf(), meta)
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(Target::Regular(real));
    }
    if ft.is_dir() {
        return Err(Error::other(path, "is a folder"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_char_device() || ft.is_fifo() {
            return Ok(Target::Stream(real));
        }
    }
    Err(Error::other(
        path,
        "is not a regular file, character device or FIFO (a block device or socket?); refusing to write to it",
    ))
}

/// Open a character device or FIFO for writing (no create, no truncate) and let `fill`
/// write into it.
fn stream_into(
    dev: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).open(dev)?;
    fill(&mut f)?;
    f.flush()
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
///
/// A `path` naming a character device or FIFO gets the bytes streamed into it by `finish`
/// (they wait in a temporary file elsewhere meanwhile); see [`output_target`].
pub struct PendingFile {
    tmp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
    /// Where the file goes: `path`, or the file a link at `path` points to.
    target: Target,
    len: u64,
    /// [`PendingFile::finish_flushes`], once [`PendingFile::settle`] asked.
    flushes: Option<bool>,
}

impl PendingFile {
    pub fn create(path: &Path) -> Result<PendingFile, Error> {
        check_folder(path)?;
        let target = output_target(path)?;
        let tmp = match &target {
            Target::Regular(p) => temp_beside(p)?,
            Target::Stream(_) => tempfile::NamedTempFile::new().map_err(|e| Error::io(path, e))?,
        };
        Ok(PendingFile {
            tmp,
            path: path.to_path_buf(),
            target,
            len: 0,
            flushes: None,
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
    /// Force the bytes written so far to the disk (so less is left for [`finish`](Self::finish)),
    /// when `finish` forces the file to disk at all: a file that replaces another where the
    /// file system orders that rename after the data, or one streamed into a device, is not,
    /// and a flush here would be the system's later work done now, on this process's time
    /// (about 2 % of an 18 MB MW3 import's CPU time).
    pub fn settle(&mut self) -> std::io::Result<()> {
        let flushes = match self.flushes {
            Some(f) => f,
            None => *self.flushes.insert(self.finish_flushes()),
        };
        if flushes {
            self.tmp.as_file().sync_data()?;
        }
        Ok(())
    }
    /// Whether [`finish`](Self::finish) would force the file to disk now.
    fn finish_flushes(&self) -> bool {
        match &self.target {
            // (a file replaced where the file system orders the rename after the data needs
            // no flush for the guarantee: see `ordered`)
            Target::Regular(path) => {
                !path.exists()
                    || ordered::flush_before_replacing(path.parent().unwrap_or(Path::new("")))
            }
            Target::Stream(_) => false,
        }
    }
    /// Whether the file at `other` holds exactly the bytes written so far (compared a block
    /// at a time, neither held whole).
    pub fn same_as(&self, other: &Path) -> std::io::Result<bool> {
        use std::io::Read;
        let mut theirs = std::fs::File::open(other)?;
        if theirs.metadata()?.len() != self.len {
            return Ok(false);
        }
        let mut ours = self.tmp.reopen()?;
        let (mut a, mut b) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
        loop {
            let n = ours.read(&mut a)?;
            if n == 0 {
                // (as long as the other: a file that grew meanwhile differs)
                return Ok(theirs.read(&mut b[..1])? == 0);
            }
            theirs.read_exact(&mut b[..n])?;
            if a[..n] != b[..n] {
                return Ok(false);
            }
        }
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
    /// Force it to disk (unless it replaces a file where the file system orders that rename
    /// after the data) and rename it into place; without `overwrite`, an existing file there
    /// is an error (and stays as it was).
    pub fn finish(self, overwrite: bool) -> Result<(), Error> {
        self.finish_with(overwrite, true)
    }
    fn finish_with(mut self, overwrite: bool, sync: bool) -> Result<(), Error> {
        if !overwrite && self.path.exists() {
            return Err(Error::other(
                &self.path,
                "already exists; pass --force to overwrite it",
            ));
        }
        let flush = sync && self.finish_flushes();
        let path = match self.target {
            Target::Regular(p) => p,
            Target::Stream(dev) => {
                use std::io::{Seek, SeekFrom};
                let f = self.tmp.as_file_mut();
                return f
                    .seek(SeekFrom::Start(0))
                    .and_then(|_| stream_into(&dev, |out| std::io::copy(f, out).map(|_| ())))
                    .map_err(|e| Error::io(&self.path, e));
            }
        };
        if flush {
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

/// Bytes appended as they are written (for writers that stream, e.g. a YAML export).
impl Write for PendingFile {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let n = self.tmp.write(data)?;
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

/// The temporary file that becomes `path` when renamed: in the same folder, with the
/// permissions of the file it replaces, or those of any newly created file (0666 less the
/// umask) when there is none, not the temporary file's private 0600.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile, Error> {
    temp_beside_known(path, true)
}

/// [`temp_beside`] where whether `path` exists is known already (`false`: there are no
/// permissions to copy, and no need to look).
fn temp_beside_known(path: &Path, existed: bool) -> Result<tempfile::NamedTempFile, Error> {
    #[cfg(not(unix))]
    let _ = existed;
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
    if let Some(old) = existed.then(|| std::fs::metadata(path).ok()).flatten() {
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
            // The last number is unpredictable, so no other process can prepare the path.
            let path = parent.join(format!(
                ".{name}.animkit-{}-{}",
                std::process::id(),
                unpredictable() ^ u64::from(COUNTER.fetch_add(1, Ordering::Relaxed))
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

/// A random suffix for a staging name that another process cannot guess in advance (std's
/// `RandomState` is seeded from the system's random source).
fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// An output folder opened once, below which files are written only through folder handles:
/// each folder on a file's path is opened relative to the one above it without following a
/// symbolic link or junction (`cap_std`, `openat` with `O_NOFOLLOW` or the Windows
/// equivalent), so no path component below the root can be swapped for a link between the
/// check and the write (a link found there is an error). The root itself may be a link (the
/// user named it).
pub struct OutTree {
    dir: cap_std::fs::Dir,
    path: std::path::PathBuf,
}

impl OutTree {
    /// Open `path` (created with its parents when missing).
    pub fn open(path: &Path) -> Result<OutTree, Error> {
        std::fs::create_dir_all(path).map_err(|e| Error::io(path, e))?;
        let dir = cap_std::fs::Dir::open_ambient_dir(path, cap_std::ambient_authority())
            .map_err(|e| Error::io(path, e))?;
        Ok(OutTree {
            dir,
            path: path.to_path_buf(),
        })
    }

    /// The folder's path (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `rel` below the root, created when missing, reached one component at a
    /// time without following links.
    pub fn folder(&self, rel: &Path) -> Result<cap_std::fs::Dir, Error> {
        use cap_fs_ext::DirExt;
        use std::path::Component;
        let mut dir = self.dir.try_clone().map_err(|e| Error::io(&self.path, e))?;
        let mut at = self.path.clone();
        for c in rel.components() {
            let Component::Normal(name) = c else {
                return Err(Error::other(
                    self.path.join(rel),
                    "is not a plain relative path below the output folder",
                ));
            };
            at.push(name);
            let next = match dir.open_dir_nofollow(name) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    match dir.create_dir(name) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(Error::io(&at, e)),
                    }
                    dir.open_dir_nofollow(name)
                }
                r => r,
            };
            dir = next.map_err(|e| {
                let link = dir
                    .symlink_metadata(name)
                    .is_ok_and(|m| m.file_type().is_symlink());
                match link {
                    true => Error::other(
                        &at,
                        "is a symbolic link or junction inside the output folder; refusing to write through it",
                    ),
                    false => Error::io(&at, e),
                }
            })?;
        }
        Ok(dir)
    }

    /// The folder holding `rel` and `rel`'s file name.
    fn parent_of<'r>(
        &self,
        rel: &'r Path,
    ) -> Result<(cap_std::fs::Dir, &'r std::ffi::OsStr), Error> {
        let name = rel
            .file_name()
            .ok_or_else(|| Error::other(self.path.join(rel), "has no file name"))?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        Ok((self.folder(parent)?, name))
    }

    /// Create the new file `rel` (it must not exist; a link there is not followed) and write
    /// `data` to it: for a folder no one sees until it is complete (a staging folder).
    pub fn write_new(&self, rel: &Path, data: &[u8]) -> Result<(), Error> {
        self.write_new_with(rel, &mut |w| w.write_all(data))
    }

    /// [`OutTree::write_new`] of what `fill` writes (through a buffer), for a file too large
    /// to build in memory first.
    pub fn write_new_with(
        &self,
        rel: &Path,
        fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        let (dir, name) = self.parent_of(rel)?;
        let mut opts = cap_std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        let f = dir
            .open_with(name, &opts)
            .map_err(|e| Error::io(self.path.join(rel), e))?;
        let mut w = std::io::BufWriter::new(f);
        fill(&mut w)
            .and_then(|()| w.flush())
            .map_err(|e| Error::io(self.path.join(rel), e))
    }

    /// Write `rel` through a temporary file with an unpredictable name in its folder,
    /// renamed over it (a link at `rel` is replaced as a name, never followed).
    pub fn write_replace(&self, rel: &Path, data: &[u8]) -> Result<(), Error> {
        self.write_replace_with(rel, &mut |w| w.write_all(data))
    }

    /// [`OutTree::write_replace`] of what `fill` writes (through a buffer).
    pub fn write_replace_with(
        &self,
        rel: &Path,
        fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        let (dir, name) = self.parent_of(rel)?;
        let at = || self.path.join(rel);
        let mut opts = cap_std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        let (tmp, mut f) = loop {
            let tmp = format!(".animkit-{:016x}", unpredictable());
            match dir.open_with(&tmp, &opts) {
                Ok(f) => break (tmp, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(at(), e)),
            }
        };
        let filled = {
            let mut w = std::io::BufWriter::new(&mut f);
            fill(&mut w).and_then(|()| w.flush())
        };
        let r = filled
            .and_then(|()| {
                // (closed before the rename: Windows refuses to rename an open file)
                drop(f);
                dir.rename(&tmp, &dir, name)
            })
            .map_err(|e| Error::io(at(), e));
        if r.is_err() {
            let _ = dir.remove_file(&tmp);
        }
        r
    }

    /// Whether something (a file, folder or link) is at `rel`, its folders reached without
    /// following links (a missing folder: nothing there).
    pub fn has(&self, rel: &Path) -> bool {
        let parent = rel.parent().unwrap_or(Path::new(""));
        let Some(name) = rel.file_name() else {
            return true;
        };
        let mut dir = match self.dir.try_clone() {
            Ok(d) => d,
            Err(_) => return false,
        };
        for c in parent.components() {
            use cap_fs_ext::DirExt;
            match dir.open_dir_nofollow(c.as_os_str()) {
                Ok(d) => dir = d,
                Err(_) => return false,
            }
        }
        dir.symlink_metadata(name).is_ok()
    }

    /// A new folder with an unpredictable name (`.animkit-XXXXXXXXXXXXXXXX`, which
    /// [`is_own_temp`] knows) inside this one, removed with everything in it when dropped.
    pub fn staging(&self) -> Result<StagingIn<'_>, Error> {
        use cap_fs_ext::DirExt;
        loop {
            let name = format!(".animkit-{:016x}", unpredictable());
            match self.dir.create_dir(&name) {
                Ok(()) => {
                    let dir = self
                        .dir
                        .open_dir_nofollow(&name)
                        .map_err(|e| Error::io(self.path.join(&name), e))?;
                    return Ok(StagingIn {
                        parent: self,
                        tree: Some(OutTree {
                            dir,
                            path: self.path.join(&name),
                        }),
                        name,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(self.path.join(&name), e)),
            }
        }
    }
}

/// A staging folder inside an [`OutTree`] (see [`OutTree::staging`]): files are written into
/// [`StagingIn::tree`], then moved to the same relative paths in the parent by
/// [`StagingIn::move_into_place`]; whatever is left is removed when it is dropped.
pub struct StagingIn<'p> {
    parent: &'p OutTree,
    /// Open until dropped (`None` only inside `drop`).
    tree: Option<OutTree>,
    name: String,
}

impl StagingIn<'_> {
    pub fn tree(&self) -> &OutTree {
        self.tree
            .as_ref()
            .expect("the staging folder stays open until it is dropped")
    }

    /// Move every file of `rels` (all written in the staging folder) to its place in the
    /// parent tree: only renames, after every file was written. Without `overwrite`, a file
    /// that appeared at a target meanwhile is an error. On an error, the files already moved
    /// that were new are removed again (replaced ones cannot come back).
    pub fn move_into_place(&self, rels: &[&Path], overwrite: bool) -> Result<(), Error> {
        let mut moved: Vec<&Path> = Vec::new();
        let result = (|| {
            for rel in rels {
                let (from, name) = self.tree().parent_of(rel)?;
                let (to, _) = self.parent.parent_of(rel)?;
                let existed = to.symlink_metadata(name).is_ok();
                if existed && !overwrite {
                    return Err(Error::other(
                        self.parent.path.join(rel),
                        "already exists; pass --force to overwrite it",
                    ));
                }
                from.rename(name, &to, name)
                    .map_err(|e| Error::io(self.parent.path.join(rel), e))?;
                if !existed {
                    moved.push(rel);
                }
            }
            Ok(())
        })();
        if result.is_err() {
            for rel in moved {
                if let Ok((dir, name)) = self.parent.parent_of(rel) {
                    let _ = dir.remove_file(name);
                }
            }
        }
        result
    }
}

impl Drop for StagingIn<'_> {
    fn drop(&mut self) {
        // Its handle is closed first: Windows cannot remove a folder a process holds open
        // (the staging folder was left behind under wine).
        self.tree = None;
        let _ = self.parent.dir.remove_dir_all(&self.name);
    }
}

/// The longest path (in bytes, or UTF-16 units on Windows) this system opens: `PATH_MAX`
/// (4096 on Linux, 1024 on macOS), or Windows' 32,767 for the extended paths std uses.
pub const PATH_LIMIT: usize = {
    #[cfg(unix)]
    {
        libc::PATH_MAX as usize
    }
    #[cfg(not(unix))]
    {
        32_767
    }
};

/// When `rel` below `root` makes a path longer than [`PATH_LIMIT`] (which no other program
/// could open, even where animkit could write it through folder handles): its length.
pub fn too_long(root: &Path, rel: &Path) -> Option<usize> {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let full = root.join(rel);
    #[cfg(windows)]
    let len = {
        use std::os::windows::ffi::OsStrExt;
        full.as_os_str().encode_wide().count()
    };
    #[cfg(not(windows))]
    let len = full.as_os_str().len();
    // The terminating NUL counts against the limit.
    (len + 1 > PATH_LIMIT).then_some(len)
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
///
/// With `overwrite`, an existing regular file that already holds exactly the new bytes is left
/// as it is (not rewritten: its date stays, and there is nothing to force to disk), so running
/// a command again over its own outputs replaces only what changed.
pub fn write_files(files: &[(std::path::PathBuf, Vec<u8>)], overwrite: bool) -> Result<(), Error> {
    let paths: Vec<std::path::PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    write_files_inner(
        &paths,
        overwrite,
        |i, real| holds(real, &files[i].1),
        |i, w| {
            w.write_all(&files[i].1)
                .map_err(|e| Error::io(&files[i].0, e))
        },
    )
}

/// Whether the regular file `path` holds exactly `data` (read a block at a time; an error
/// reading it counts as different).
fn holds(path: &Path, data: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    if !f
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() == data.len() as u64)
    {
        return false;
    }
    let mut buf = vec![0u8; (1 << 16).min(data.len().max(1))];
    let mut rest = data;
    while !rest.is_empty() {
        let n = buf.len().min(rest.len());
        if f.read_exact(&mut buf[..n]).is_err() || buf[..n] != rest[..n] {
            return false;
        }
        rest = &rest[n..];
    }
    // (as long as `data`: a file that grew meanwhile differs)
    matches!(f.read(&mut buf[..1]), Ok(0))
}

/// [`write_files`] of files made while they are written: `fill(i, out)` writes the `i`th file
/// of `paths` (buffered, into its temporary file), so no file need be held in memory whole.
/// An error of `fill` is returned as it is, and nothing is renamed into place.
pub fn write_files_with(
    paths: &[std::path::PathBuf],
    overwrite: bool,
    fill: impl FnMut(usize, &mut dyn Write) -> Result<(), Error>,
) -> Result<(), Error> {
    write_files_inner(paths, overwrite, |_, _| false, fill)
}

/// [`write_files_with`], leaving the `i`th file alone where `unchanged(i, file)` says the
/// existing regular file it would replace already holds its bytes (only with `overwrite`).
fn write_files_inner(
    paths: &[std::path::PathBuf],
    overwrite: bool,
    unchanged: impl Fn(usize, &Path) -> bool,
    mut fill: impl FnMut(usize, &mut dyn Write) -> Result<(), Error>,
) -> Result<(), Error> {
    let set = FileSet::check(paths, overwrite)?;
    for i in 0..paths.len() {
        set.put_checked(i, |real| unchanged(i, real), |w| fill(i, w))?;
    }
    set.finish()
}

/// [`write_files`] taken apart, so that the files can be written from several threads while
/// the others are still being made: [`FileSet::check`] checks every target first (as
/// `write_files` does), [`FileSet::put`] writes one file's temporary file (from any thread),
/// and [`FileSet::finish`] renames them into place in order. A file never put is not written
/// (a command reports why); dropped unfinished, every temporary file is removed and nothing is
/// renamed.
pub struct FileSet<'p> {
    paths: &'p [std::path::PathBuf],
    overwrite: bool,
    /// Each path's target and whether a file was there.
    targets: Vec<(Target, bool)>,
    staged: Vec<std::sync::Mutex<Option<Staged>>>,
}

/// From how many renames [`FileSet::finish`] spreads them over threads.
const RENAME_THREADS_FROM: usize = 16;

/// What [`FileSet::put`] made of one file.
enum Staged {
    /// Its temporary file beside the target, renamed over it at the end.
    Temp(tempfile::NamedTempFile),
    /// The existing file already holds the bytes: left as it is.
    Unchanged,
    /// The bytes for a device or FIFO, waiting in a temporary file elsewhere (written last).
    Stream(std::fs::File),
}

impl<'p> FileSet<'p> {
    /// Check every target (without `overwrite`, none may exist; none may be a folder, a link
    /// to nothing, something other than a regular file, device or FIFO, or named twice)
    /// before anything is written.
    pub fn check(paths: &'p [std::path::PathBuf], overwrite: bool) -> Result<Self, Error> {
        let mut seen = std::collections::HashSet::new();
        let mut targets = Vec::with_capacity(paths.len());
        for path in paths {
            if !seen.insert(path.as_path()) {
                return Err(Error::other(path, "would be written twice by this command"));
            }
            // (one look at a path that is not there, the usual case for a fresh folder; a
            // link is looked at again through what it points to)
            let meta = std::fs::symlink_metadata(path);
            let link = meta.as_ref().is_ok_and(|m| m.file_type().is_symlink());
            let is_dir = match &meta {
                Ok(m) if !link => m.is_dir(),
                Ok(_) => path.is_dir(),
                Err(_) => false,
            };
            if is_dir {
                return Err(Error::other(path, "is a folder"));
            }
            let exists = match &meta {
                Ok(_) if link => path.exists(),
                m => m.is_ok(),
            };
            if !overwrite && exists {
                return Err(Error::other(
                    path,
                    "already exists; pass --force to overwrite it (nothing was written)",
                ));
            }
            let target = if meta.is_err() {
                Target::Regular(path.clone())
            } else {
                output_target(path)?
            };
            let existed = match &target {
                Target::Regular(real) if real != path => real.exists(),
                Target::Regular(_) => exists,
                Target::Stream(_) => true,
            };
            targets.push((target, existed));
        }
        Ok(FileSet {
            paths,
            overwrite,
            targets,
            staged: paths.iter().map(|_| Default::default()).collect(),
        })
    }

    /// Write the `i`th file's bytes (with `overwrite`, an existing regular file that already
    /// holds them is left as it is).
    pub fn put(&self, i: usize, data: &[u8]) -> Result<(), Error> {
        self.put_checked(
            i,
            |real| holds(real, data),
            |w| w.write_all(data).map_err(|e| Error::io(&self.paths[i], e)),
        )
    }

    fn put_checked(
        &self,
        i: usize,
        unchanged: impl FnOnce(&Path) -> bool,
        fill: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let path = &self.paths[i];
        let write_into = |file: &std::fs::File| {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
            fill(&mut w)?;
            w.flush().map_err(|e| Error::io(path, e))
        };
        let staged = match &self.targets[i] {
            (Target::Stream(_), _) => {
                // (what a device or FIFO gets waits in a temporary file elsewhere meanwhile)
                let file = tempfile::tempfile().map_err(|e| Error::io(path, e))?;
                write_into(&file)?;
                Staged::Stream(file)
            }
            (Target::Regular(real), existed) => {
                if self.overwrite && *existed && unchanged(real) {
                    Staged::Unchanged
                } else {
                    let tmp = temp_beside_known(real, *existed)?;
                    write_into(tmp.as_file())?;
                    Staged::Temp(tmp)
                }
            }
        };
        let mut slot = self.staged[i].lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_some() {
            return Err(Error::other(path, "would be written twice by this command"));
        }
        *slot = Some(staged);
        Ok(())
    }

    /// Rename every file put into place, in order (on an error, the files this made are
    /// removed again); devices and FIFOs are written last.
    pub fn finish(self) -> Result<(), Error> {
        let FileSet {
            paths,
            overwrite,
            targets,
            staged,
        } = self;
        let mut temps = Vec::with_capacity(paths.len());
        let mut streams = Vec::new();
        for ((path, (target, existed)), slot) in paths.iter().zip(&targets).zip(staged) {
            match (slot.into_inner().unwrap_or_else(|p| p.into_inner()), target) {
                (Some(Staged::Temp(tmp)), Target::Regular(real)) => {
                    temps.push((path, real, tmp, *existed))
                }
                (Some(Staged::Stream(file)), Target::Stream(dev)) => {
                    streams.push((path, dev, file))
                }
                _ => {}
            }
        }
        // A file that replaces one is forced to disk before its rename, so a crash cannot
        // leave the old file replaced by an incomplete one, unless its file system already
        // orders such a rename after the data (`ordered`: ext4's default); a new file is
        // renamed into place without that wait (as `write_streaming` does). The waits overlap
        // (up to 16 threads), so the file system commits them together instead of one after
        // another.
        let mut flush_in = std::collections::HashMap::new();
        let replacing: Vec<_> = temps
            .iter()
            .filter(|t| {
                t.3 && *flush_in
                    .entry(t.1.parent().map(Path::to_path_buf).unwrap_or_default())
                    .or_insert_with_key(|dir| ordered::flush_before_replacing(dir))
            })
            .collect();
        let per = replacing.len().div_ceil(16).max(1);
        std::thread::scope(|s| {
            let waits: Vec<_> = replacing
                .chunks(per)
                .map(|group| {
                    s.spawn(move || {
                        group.iter().try_for_each(|(path, _, tmp, _)| {
                            tmp.as_file().sync_all().map_err(|e| Error::io(path, e))
                        })
                    })
                })
                .collect();
            waits.into_iter().try_for_each(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(Error::other(
                        replacing[0].0,
                        "forcing the output to disk failed",
                    ))
                })
            })
        })?;
        // The renames: many on a few threads (a rename over a file frees the old one's blocks
        // after the folder is unlocked, which the others need not wait for). On an error the
        // new files already in place are removed again.
        type Temp<'a> = (
            &'a std::path::PathBuf,
            &'a std::path::PathBuf,
            tempfile::NamedTempFile,
            bool,
        );
        fn rename_all<'a>(
            chunk: Vec<Temp<'a>>,
            overwrite: bool,
        ) -> (Vec<&'a std::path::PathBuf>, Option<Error>) {
            let mut made = Vec::new();
            for (path, real, tmp, existed) in chunk {
                let r = if overwrite {
                    tmp.persist(real).map(|_| ())
                } else {
                    tmp.persist_noclobber(real).map(|_| ())
                };
                if let Err(e) = r {
                    return (made, Some(Error::io(path, e.error)));
                }
                if !existed {
                    made.push(real);
                }
            }
            (made, None)
        }
        let rename = |chunk| rename_all(chunk, overwrite);
        let threads = if temps.len() >= RENAME_THREADS_FROM {
            // (the pool's count, known already where many files are made: asking the system
            // again reads the cgroup files, a tenth of a millisecond on Linux)
            rayon::current_num_threads().min(4)
        } else {
            1
        };
        let mut chunks: Vec<Vec<_>> = (0..threads).map(|_| Vec::new()).collect();
        for (k, t) in temps.into_iter().enumerate() {
            chunks[k % threads].push(t);
        }
        let done: Vec<_> = if threads == 1 {
            chunks.into_iter().map(rename).collect()
        } else {
            std::thread::scope(|s| {
                let rename = &rename;
                let running: Vec<_> = chunks
                    .into_iter()
                    .map(|c| s.spawn(move || rename(c)))
                    .collect();
                running
                    .into_iter()
                    .map(|r| {
                        r.join().unwrap_or_else(|_| {
                            (
                                Vec::new(),
                                Some(Error::other(
                                    paths[0].as_path(),
                                    "renaming the outputs into place failed",
                                )),
                            )
                        })
                    })
                    .collect()
            })
        };
        if done.iter().any(|(_, e)| e.is_some()) {
            let mut first = None;
            for (made, e) in done {
                for m in made {
                    let _ = std::fs::remove_file(m);
                }
                first = first.or(e);
            }
            return Err(first.expect("an error"));
        }
        // Devices and FIFOs last: what they were given cannot be taken back.
        for (path, dev, mut file) in streams {
            use std::io::{Seek, SeekFrom};
            file.seek(SeekFrom::Start(0))
                .and_then(|_| stream_into(dev, |out| std::io::copy(&mut file, out).map(|_| ())))
                .map_err(|e| Error::io(path, e))?;
        }
        Ok(())
    }
}

/// A folder made for a command's outputs, with the parents it needed: removed again (only
/// what was made, and only while empty) unless the command [keeps](MadeDir::keep) it, so a
/// command that fails (a full disk, a refused name) leaves no empty folder behind.
pub struct MadeDir {
    /// The folders made, innermost first.
    made: Vec<std::path::PathBuf>,
}

impl MadeDir {
    pub fn create(dir: &Path) -> Result<Self, Error> {
        let mut made = Vec::new();
        let mut p = Some(dir);
        while let Some(d) = p {
            if d.as_os_str().is_empty() || d.exists() {
                break;
            }
            made.push(d.to_path_buf());
            p = d.parent();
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        Ok(MadeDir { made })
    }
    /// The outputs are written: the folder stays.
    pub fn keep(mut self) {
        self.made.clear();
    }
}

impl Drop for MadeDir {
    fn drop(&mut self) {
        for d in &self.made {
            // (remove_dir removes only an empty folder)
            let _ = std::fs::remove_dir(d);
        }
    }
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

/// Walk `items` (pieces of `data`, in about the order they lie there) in batches of
/// [`RELEASE_BATCH`], calling `each` with every batch; after each batch, every page of `data`
/// from the end of the last release up to the furthest end of the batch's items goes to
/// `release` (e.g. [`Mapped::release`]). Releasing item by item instead keeps every page two
/// small neighbours share: about half of an archive of 8 KB members stayed resident (330 MB
/// for 520 MB of MANs). Items not inside `data` (inflated copies) release nothing.
pub fn in_batches_releasing<'t, T>(
    data: &[u8],
    items: &'t [T],
    bytes_of: impl Fn(&'t T) -> &'t [u8],
    release: &dyn Fn(&[u8]),
    mut each: impl FnMut(&'t [T]),
) {
    const PAGE: usize = 4096;
    let base = data.as_ptr() as usize;
    let mut released_to = 0usize;
    for batch in items.chunks(RELEASE_BATCH) {
        each(batch);
        let end = batch
            .iter()
            .map(&bytes_of)
            .filter(|s| {
                s.as_ptr() as usize >= base && s.as_ptr() as usize + s.len() <= base + data.len()
            })
            .map(|s| s.as_ptr() as usize - base + s.len())
            .max()
            .unwrap_or(0);
        if end > released_to {
            release(&data[released_to..end]);
            released_to = end / PAGE * PAGE;
        }
    }
}

/// Items handled between two releases in [`in_batches_releasing`]: enough to keep every core
/// busy, few enough that the pages in flight stay a few MB.
pub const RELEASE_BATCH: usize = 256;

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
/// a crash cannot leave the old file replaced by an incomplete one (unless the file system
/// already orders that rename after the data: see `ordered`); a new file is renamed into place
/// without that wait, as a copy would be.
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
    let real = match output_target(path)? {
        Target::Regular(p) => p,
        Target::Stream(dev) => {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&dev)
                .map_err(|e| Error::io(path, e))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, &f);
            let v = fill(&mut w)?;
            w.flush().map_err(|e| Error::io(path, e))?;
            return Ok(v);
        }
    };
    let path = real.as_path();
    let tmp = temp_beside(path)?;
    let value = {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        let v = fill(&mut w)?;
        w.flush().map_err(|e| Error::io(path, e))?;
        v
    };
    if replacing && ordered::flush_before_replacing(path.parent().unwrap_or(Path::new(""))) {
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

    /// A pending file settles (flushes part way) exactly when its `finish` would flush: a new
    /// file does, a file streamed into a device does not, and one replacing a file does when
    /// its folder's file system does not order the rename after the data. The bytes are the
    /// same either way.
    #[test]
    fn a_pending_file_settles_only_when_it_is_flushed_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        let mut f = PendingFile::create(&p).unwrap();
        f.append(b"one").unwrap();
        f.settle().unwrap();
        assert_eq!(f.flushes, Some(true));
        f.finish(false).unwrap();
        let mut f = PendingFile::create(&p).unwrap();
        f.append(b"two").unwrap();
        f.settle().unwrap();
        assert_eq!(f.flushes, Some(ordered::flush_before_replacing(dir.path())));
        f.finish(true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        #[cfg(unix)]
        {
            let mut f = PendingFile::create(Path::new("/dev/null")).unwrap();
            f.settle().unwrap();
            assert_eq!(f.flushes, Some(false));
        }
    }

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

    /// An output that already holds the new bytes is left as it is (its date kept, nothing
    /// replaced); one that differs is replaced; without `overwrite` both are refused.
    #[test]
    fn a_file_set_is_written_from_several_threads_and_renamed_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<_> = (0..40)
            .map(|i| dir.path().join(format!("M{i:02}.MAN")))
            .collect();
        let set = FileSet::check(&paths, false).unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let set = &set;
                s.spawn(move || {
                    // (file 39 is never put: it is not written)
                    for i in (t..39).step_by(4) {
                        set.put(i, format!("file {i}").as_bytes()).unwrap();
                    }
                });
            }
        });
        let e = set.put(3, b"again").unwrap_err();
        assert!(e.to_string().contains("written twice"), "{e}");
        // Nothing is in place before the end, only the temporary files.
        assert!(paths.iter().all(|p| !p.exists()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 39);
        set.finish().unwrap();
        for (i, p) in paths.iter().enumerate().take(39) {
            assert_eq!(std::fs::read(p).unwrap(), format!("file {i}").as_bytes());
        }
        assert!(!paths[39].exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 39);
        // Without --force the existing files are refused before anything is written; a set
        // dropped unfinished leaves no temporary file.
        let e = FileSet::check(&paths, false).err().unwrap();
        assert!(e.to_string().contains("already exists"), "{e}");
        let set = FileSet::check(&paths, true).unwrap();
        set.put(0, b"changed").unwrap();
        set.put(39, b"new").unwrap();
        drop(set);
        assert_eq!(std::fs::read(&paths[0]).unwrap(), b"file 0");
        assert!(!paths[39].exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 39);
        let twice = [paths[0].clone(), paths[0].clone()];
        let e = FileSet::check(&twice, true).err().unwrap();
        assert!(e.to_string().contains("written twice"), "{e}");
    }

    #[test]
    fn unchanged_outputs_are_left_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("A.MAN"),
            dir.path().join("B.MAN"),
            dir.path().join("C.MAN"),
        );
        std::fs::write(&a, b"same bytes").unwrap();
        std::fs::write(&b, b"old bytes").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        for p in [&a, &b] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let files = vec![
            (a.clone(), b"same bytes".to_vec()),
            (b.clone(), b"new bytes".to_vec()),
            (c.clone(), b"a new file".to_vec()),
        ];
        let e = write_files(&files, false).unwrap_err();
        assert!(e.to_string().contains("already exists"), "{e}");
        assert!(!c.exists());
        write_files(&files, true).unwrap();
        let date = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(date(&a), old, "the unchanged file was rewritten");
        assert_ne!(date(&b), old);
        assert_eq!(std::fs::read(&a).unwrap(), b"same bytes");
        assert_eq!(std::fs::read(&b).unwrap(), b"new bytes");
        assert_eq!(std::fs::read(&c).unwrap(), b"a new file");
        // Same length, other bytes: replaced.
        write_files(&[(a.clone(), b"SAME BYTES".to_vec())], true).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"SAME BYTES");
        assert_ne!(date(&a), old);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
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

    /// Issue 28 item 3: an output naming a FIFO, a character device or a symbolic link is
    /// never replaced by a regular file: devices and FIFOs are written into, a link's target
    /// is written (the link stays), a link to nothing and a folder are refused.
    #[cfg(unix)]
    #[test]
    fn special_outputs_are_written_into_never_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let kind = |p: &Path| std::fs::symlink_metadata(p).unwrap().file_type();
        // A FIFO: every writer streams into it, a reader gets the bytes.
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        type Writer = fn(&Path) -> Result<(), Error>;
        let writers: [(&str, Writer); 4] = [
            ("write_file", |p| write_file(p, b"one", true)),
            ("write_streaming", |p| {
                write_streaming(p, true, |w| {
                    w.write_all(b"one").map_err(|e| Error::io(p, e))
                })
            }),
            ("PendingFile", |p| {
                let mut f = PendingFile::create(p)?;
                f.append(b"onX").unwrap();
                f.patch(2, b"e").unwrap();
                f.finish(true)
            }),
            ("write_files", |p| {
                write_files(&[(p.to_path_buf(), b"one".to_vec())], true)
            }),
        ];
        for (name, write) in writers {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::read(&fifo).unwrap())
            };
            write(&fifo).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(reader.join().unwrap(), b"one", "{name}");
            assert!(kind(&fifo).is_fifo(), "{name} replaced the FIFO");
        }
        // A character device.
        let null = Path::new("/dev/null");
        for (name, write) in writers {
            write(null).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(kind(null).is_char_device(), "{name} replaced /dev/null");
        }
        // A link to a regular file: the file is written, the link stays.
        let real = dir.path().join("real.bin");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link.bin");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        for (name, write) in writers {
            std::fs::write(&real, b"old").unwrap();
            write(&link).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(kind(&link).is_symlink(), "{name} replaced the link");
            assert_eq!(std::fs::read(&real).unwrap(), b"one", "{name}");
        }
        // A link to nothing and a folder are refused, and stay.
        let dangling = dir.path().join("dangling.bin");
        std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        for (name, write) in writers {
            let e = write(&dangling).unwrap_err().to_string();
            assert!(e.contains("is a symbolic link to nothing"), "{name}: {e}");
            assert!(kind(&dangling).is_symlink());
            let e = write(&sub).unwrap_err().to_string();
            assert!(e.contains("is a folder"), "{name}: {e}");
            assert!(kind(&sub).is_dir());
        }
        assert!(!dir.path().join("nothing").exists());
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
