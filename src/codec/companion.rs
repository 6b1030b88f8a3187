//! Files that another file needs: the skeleton (MDH) of an animation (MAN), later the skeleton
//! a glTF export is built on. A format lists its companions in
//! [`Codec::COMPANIONS`](super::Codec::COMPANIONS); both formats give a [`companion
//! key`](super::Codec::companion_key) (ZenGin: the CRC-32 of the skeleton's node names, which
//! MAN and MDH both store), so the right companion can be found among many by its key. The
//! commands take it as `--with FILE` (or its own flag, e.g. `--mdh`), or find it by key with
//! `--with FOLDER|ARCHIVE`, and hand it to the format in [`ExportOptions`](super::ExportOptions)
//! and [`CheckContext`](super::CheckContext).

/// "Files of this format can use a file of format `tag`."
#[derive(Debug, Clone, Copy)]
pub struct Companion {
    /// The companion's format tag, e.g. `zengin.mdh`.
    pub tag: &'static str,
    /// A command-line flag that names it besides the generic `--with`, e.g. `mdh` (`--mdh`).
    pub flag: &'static str,
    /// What the file uses it for (shown in messages).
    pub role: &'static str,
    /// The name (without extension) a companion beside the file has, by the game's naming
    /// rule, from the file's name (ZenGin: `HUMANS-S_RUN.MAN` → `HUMANS`, whose skeleton is
    /// `HUMANS.MDH`); compared without regard to case. `None`: no such rule.
    pub beside: Option<fn(&str) -> Option<String>>,
}
