//! A whole model for the glTF export from the members of an archive or folder (read by the
//! caller): the MDH chosen by name, every MAN whose checksum is its checksum (ZenGin's own link
//! between them), and whether a MAN fits an MDH, decided by the kind of each problem.

use crate::zengin::man::Man;
use crate::zengin::mdh::{check_pair, Mdh, PairKind};

/// A member of an archive or folder: its path inside (`/`-separated) and its bytes.
pub struct Member {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Whether `name` ends in `.EXT` (any case).
pub fn ext_is(name: &str, ext: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case(ext))
}

fn checksum_of(mdh: &Mdh) -> Option<u32> {
    mdh.hierarchy().map(|h| h.checksum.0)
}

/// The member that is model `model`'s MDH: `NAME`, `NAME.MDH` or its path inside (any case,
/// either slash). Not found: the error lists the MDH members; no `model`: the error lists
/// them with their checksums and asks for one.
pub fn find_mdh<'a>(members: &'a [Member], model: Option<&str>) -> Result<&'a Member, String> {
    let mdhs: Vec<&Member> = members.iter().filter(|f| ext_is(&f.name, "mdh")).collect();
    let list = |with_sums: bool| -> String {
        let v: Vec<String> = mdhs
            .iter()
            .map(|f| {
                if with_sums {
                    let sum = Mdh::read(&f.bytes)
                        .ok()
                        .and_then(|m| checksum_of(&m))
                        .map_or("?".into(), |c| format!("0x{c:08x}"));
                    format!("{} ({sum})", f.name)
                } else {
                    f.name.clone()
                }
            })
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    };
    let Some(model) = model else {
        return Err(format!(
            "which model? pass --model NAME (model hierarchies here: {})",
            list(true)
        ));
    };
    let want = format!("{model}.MDH");
    let path = model.replace('\\', "/").to_ascii_uppercase();
    mdhs.iter()
        .find(|f| {
            let base = f.name.rsplit('/').next().unwrap_or(&f.name);
            let name = f.name.replace('\\', "/").to_ascii_uppercase();
            base.eq_ignore_ascii_case(&want)
                || base.eq_ignore_ascii_case(model)
                || (path.contains('/')
                    && (name == path
                        || name.ends_with(&format!("/{path}"))
                        || name == format!("{path}.MDH")))
        })
        .copied()
        .ok_or_else(|| format!("no {want} in it (model hierarchies: {})", list(false)))
}

/// The MAN members whose checksum is `mdh`'s, decoded, with the names of MAN members that
/// do not read (skipped). None is an error.
#[allow(clippy::type_complexity)]
pub fn mans_of(
    members: &[Member],
    mdh: &Mdh,
    mdh_label: &str,
) -> Result<(Vec<(String, Man)>, Vec<String>), String> {
    let want = checksum_of(mdh);
    let mut mans = Vec::new();
    let mut skipped = Vec::new();
    for f in members.iter().filter(|f| ext_is(&f.name, "man")) {
        match man_of(&f.bytes, want) {
            Err(()) => skipped.push(f.name.clone()),
            Ok(Some(man)) => mans.push((f.name.clone(), man)),
            Ok(None) => {}
        }
    }
    if mans.is_empty() {
        return Err(no_man_message(mdh_label, want));
    }
    Ok((mans, skipped))
}

/// One MAN member for [`mans_of`]: decoded when its checksum is `want` (the MDH's), `None`
/// when it is another model's, `Err` when it does not read (skipped).
#[allow(clippy::result_unit_err)]
pub fn man_of(bytes: &[u8], want: Option<u32>) -> Result<Option<Man>, ()> {
    if !<Man as crate::codec::Codec>::detect(bytes) {
        return Err(());
    }
    let man = Man::read(bytes).map_err(|_| ())?;
    Ok((want.is_some() && man.samples().map(|s| s.checksum.0) == want).then_some(man))
}

/// The error of a model without MANs.
pub fn no_man_message(mdh_label: &str, want: Option<u32>) -> String {
    format!(
        "no MAN in it has the checksum of {mdh_label} ({})",
        want.map_or("none".into(), |c| format!("0x{c:08x}"))
    )
}

/// Whether `man` may be used with `mdh`: node indices outside the MDH never; another
/// skeleton's checksum (or the MDH's own checksum wrong, or parts missing) only when `force`.
pub fn fits(man: &Man, mdh: &Mdh, force: bool) -> Result<(), String> {
    let (index, other): (Vec<_>, Vec<_>) = check_pair(man, mdh)
        .into_iter()
        .partition(|p| p.kind == PairKind::NodeIndex);
    let join = |v: Vec<crate::zengin::mdh::PairProblem>| {
        v.into_iter()
            .map(|p| p.message)
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !index.is_empty() {
        return Err(join(index));
    }
    if !other.is_empty() && !force {
        return Err(format!(
            "{}; pass --force to export it with this MDH anyway",
            join(other)
        ));
    }
    Ok(())
}
