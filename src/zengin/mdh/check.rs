//! Checking a MAN against its skeleton (`check --with`): the checksum, and every node index.

use super::Mdh;
use crate::exact::Hex32;

/// Why an animation does not belong to a hierarchy; empty when it does.
pub fn check_man(man: &crate::zengin::man::Man, mdh: &Mdh) -> Vec<String> {
    let mut out = Vec::new();
    let Some(h) = mdh.hierarchy() else {
        out.push("the MDH has no hierarchy chunk (0xD100)".into());
        return out;
    };
    let computed = h.computed_checksum();
    if computed != h.checksum.0 {
        out.push(format!(
            "the MDH's stored checksum {} is not the CRC-32 of its node names ({})",
            h.checksum,
            Hex32(computed)
        ));
    }
    let Some(s) = man.samples() else {
        out.push("the MAN has no raw-data chunk (0xA090), so no checksum or node indices".into());
        return out;
    };
    if s.checksum != h.checksum {
        out.push(format!(
            "checksum mismatch: the MAN was made for the skeleton with checksum {}, the MDH has {} (CRC-32 of its names {})",
            s.checksum,
            h.checksum,
            Hex32(computed)
        ));
    }
    for (k, &idx) in s.node_indices.iter().enumerate() {
        if idx as usize >= h.nodes.len() {
            out.push(format!(
                "samples.node_indices[{k}] = {idx}: the MDH has only {} nodes (0..{})",
                h.nodes.len(),
                h.nodes.len().saturating_sub(1)
            ));
        }
    }
    out
}

/// `animkit check FILE.MAN --mdh FILE.MDH` for [`crate::codec::Codec::check`].
pub fn check_man_findings(
    man: &crate::zengin::man::Man,
    ctx: &crate::codec::CheckContext<'_>,
) -> Vec<crate::codec::Finding> {
    let Some(reference) = ctx.companion else {
        return Vec::new();
    };
    let finding =
        |message: String| crate::codec::Finding::new(crate::codec::Severity::Error, "mdh", message);
    match reference.as_any().downcast_ref::<Mdh>() {
        Some(mdh) => check_man(man, mdh).into_iter().map(finding).collect(),
        None => vec![finding(format!(
            "a .MAN is checked against a .MDH, not against a {} file",
            reference.tag()
        ))],
    }
}
