//! Whether the file system of a folder already orders a replacing rename after the new file's
//! data, so that forcing the data to disk first adds nothing to the "old file or new file,
//! never an incomplete one" guarantee.
//!
//! ext4 (and ext3 through the ext4 driver) does this by default: with `auto_da_alloc` (on
//! unless mounted `noauto_da_alloc`) a rename over an existing file makes the new file's
//! delayed blocks be allocated, and in the default `data=ordered` mode (not `data=writeback`)
//! they reach the disk before the journal commits the rename (the kernel's ext4 documentation,
//! `auto_da_alloc`). That needs a journal: an ext4 made or mounted without one (no `data=`
//! mode in `/proc/fs/ext4/DEVICE/options`) orders nothing, so it is flushed. tmpfs and ramfs
//! keep nothing over a crash, so there is nothing to order.
//! Everywhere else (XFS, btrfs, NTFS, APFS, network file systems, or when it cannot be told)
//! animkit forces the data to disk before the rename, as before.

use std::path::Path;

/// Whether a rename in `dir` that replaces a file needs the new file forced to disk first.
pub(super) fn flush_before_replacing(dir: &Path) -> bool {
    !replace_is_ordered(dir)
}

#[cfg(target_os = "linux")]
fn replace_is_ordered(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(dev) = std::fs::metadata(dir).map(|m| m.dev()) else {
        return false;
    };
    let (major, minor) = (libc::major(dev).into(), libc::minor(dev).into());
    match std::fs::read_to_string("/proc/self/mountinfo") {
        Ok(info) => ordered_in_mountinfo(&info, major, minor, || {
            ext4_options(major, minor).is_some_and(|o| ext4_is_journaled(&o))
        }),
        Err(_) => false,
    }
}

/// The ext4 driver's own list of the options of the file system on device `major:minor`
/// (`/proc/fs/ext4/NAME/options`, NAME the kernel's name of the device, found through
/// `/sys/dev/block/MAJOR:MINOR`).
#[cfg(target_os = "linux")]
fn ext4_options(major: u64, minor: u64) -> Option<String> {
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let name = link.file_name()?.to_str()?.to_string();
    std::fs::read_to_string(format!("/proc/fs/ext4/{name}/options")).ok()
}

/// Whether the ext4 driver's options (one per line) show a journal: a `data=ordered` or
/// `data=journal` mode (without a journal there is no `data=` line, and nothing is ordered).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn ext4_is_journaled(options: &str) -> bool {
    options
        .lines()
        .any(|l| matches!(l.trim(), "data=ordered" | "data=journal"))
}

#[cfg(not(target_os = "linux"))]
fn replace_is_ordered(_dir: &Path) -> bool {
    false
}

/// The decision from `/proc/self/mountinfo`'s text for the file system with device
/// `major:minor` (its first line: bind mounts of one file system share its options).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn ordered_in_mountinfo(
    info: &str,
    major: u64,
    minor: u64,
    journaled: impl FnOnce() -> bool,
) -> bool {
    let dev = format!("{major}:{minor}");
    for line in info.lines() {
        // id parent major:minor root mount-point mount-options [optional...] - type source super-options
        let mut fields = line.split(' ');
        if fields.nth(2) != Some(dev.as_str()) {
            continue;
        }
        let mount_options = fields.nth(2).unwrap_or("");
        let Some((_, after)) = line.split_once(" - ") else {
            return false;
        };
        let mut rest = after.split(' ');
        let fs = rest.next().unwrap_or("");
        let super_options = rest.nth(1).unwrap_or("");
        let has = |o: &str| {
            mount_options
                .split(',')
                .chain(super_options.split(','))
                .any(|x| x == o)
        };
        return match fs {
            "ext4" | "ext3" => !has("noauto_da_alloc") && !has("data=writeback") && journaled(),
            "tmpfs" | "ramfs" => true,
            _ => false,
        };
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{ext4_is_journaled, ordered_in_mountinfo};

    /// Lines as Linux writes them (this machine's root, and the variants that change the
    /// answer), with the decision each gives.
    #[test]
    fn decisions_from_mountinfo_lines() {
        let cases = [
            (
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict",
                true,
            ),
            (
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,noauto_da_alloc",
                false,
            ),
            (
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,data=writeback",
                false,
            ),
            (
                "27 1 254:0 / / rw,noauto_da_alloc - ext4 /dev/vda rw",
                false,
            ),
            (
                "27 1 254:0 / /old rw,relatime - ext3 /dev/vda rw,data=ordered",
                true,
            ),
            (
                "27 1 254:0 / /data rw,relatime - xfs /dev/vda rw,attr2,inode64",
                false,
            ),
            (
                "27 1 254:0 / /data rw,relatime shared:1 - btrfs /dev/vda rw,ssd,space_cache=v2",
                false,
            ),
            (
                "27 1 254:0 / /tmp rw,nosuid - tmpfs tmpfs rw,size=24684092k",
                true,
            ),
            (
                "27 1 254:0 / /mnt rw - fuseblk /dev/sdb1 rw,user_id=0",
                false,
            ),
        ];
        for (line, want) in cases {
            let info = format!("22 27 0:21 / /proc rw,relatime - proc proc rw\n{line}\n");
            assert_eq!(ordered_in_mountinfo(&info, 254, 0, || true), want, "{line}");
            // an ext4 without a journal orders nothing
            let ext = line.contains(" - ext");
            assert_eq!(
                ordered_in_mountinfo(&info, 254, 0, || false),
                want && !ext,
                "{line}"
            );
        }
        // another device's line decides nothing; no line at all: flush
        let info = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n";
        assert!(!ordered_in_mountinfo(info, 8, 1, || true));
        assert!(ordered_in_mountinfo(info, 254, 0, || true));
        assert!(!ordered_in_mountinfo("", 254, 0, || true));
    }

    /// The ext4 driver's option lists: a journaled file system's (Debian's default mount) and
    /// this machine's, made without a journal (`/proc/fs/ext4/vda/options`, shortened).
    #[test]
    fn a_journal_shows_as_a_data_mode() {
        let journaled = "rw\nbsddf\nnogrpid\nblock_validity\ndelalloc\nbarrier\nauto_da_alloc\nuser_xattr\nacl\nerrors=remount-ro\ndata=ordered\ncommit=5\n";
        let none = "rw\nbsddf\nnogrpid\nblock_validity\ndioread_nolock\ndiscard\ndelalloc\nnojournal_checksum\nbarrier\nauto_da_alloc\nerrors=continue\ncommit=5\n";
        assert!(ext4_is_journaled(journaled));
        assert!(ext4_is_journaled(
            &journaled.replace("data=ordered", "data=journal")
        ));
        assert!(!ext4_is_journaled(none));
        assert!(!ext4_is_journaled(""));
    }

    /// Every ext4 file system of this machine has its driver's option list found from its
    /// device number (so the journal is judged from the real list, not from no list); where
    /// there is none, the temporary folder's device has no list.
    #[cfg(target_os = "linux")]
    #[test]
    fn every_ext4_file_system_finds_its_option_list() {
        let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let mut found = 0;
        for line in info.lines().filter(|l| l.contains(" - ext4 ")) {
            let dev = line.split(' ').nth(2).unwrap();
            let (major, minor) = dev.split_once(':').unwrap();
            let (major, minor) = (major.parse().unwrap(), minor.parse().unwrap());
            let options = super::ext4_options(major, minor).expect(line);
            assert!(
                options
                    .lines()
                    .any(|l| l == "delalloc" || l == "nodelalloc"),
                "{options}"
            );
            found += 1;
        }
        if found == 0 {
            use std::os::unix::fs::MetadataExt;
            let dev = std::fs::metadata(std::env::temp_dir()).unwrap().dev();
            assert!(
                super::ext4_options(libc::major(dev).into(), libc::minor(dev).into()).is_none()
            );
        }
    }

    /// The folder tests write into is found in this machine's mountinfo by its device
    /// number (so the decision is made from its real line, not from no line).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_device_number_finds_its_mountinfo_line() {
        use std::os::unix::fs::MetadataExt;
        let dev = std::fs::metadata(std::env::temp_dir()).unwrap().dev();
        let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let dev_text = format!("{}:{}", libc::major(dev), libc::minor(dev));
        assert!(
            info.lines()
                .any(|l| l.split(' ').nth(2) == Some(dev_text.as_str())),
            "{dev_text} not in mountinfo"
        );
    }
}
