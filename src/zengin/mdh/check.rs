//! Checking a MAN against its skeleton (`check --with`): the checksum, and every node index.

use super::Mdh;
use crate::exact::Hex32;

/// What is wrong between a MAN and an MDH, by kind (callers decide by the kind, never by the
/// message's wording).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairKind {
    /// The MDH has no hierarchy chunk.
    NoHierarchy,
    /// The MDH's stored checksum is not the CRC-32 of its node names.
    MdhChecksum,
    /// The MAN has no samples chunk.
    NoSamples,
    /// The MAN was made for another skeleton (checksums differ).
    ChecksumMismatch,
    /// A MAN node index outside the MDH's nodes (the pair cannot be used at all).
    NodeIndex,
}

/// One problem of a MAN/MDH pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairProblem {
    pub kind: PairKind,
    pub message: String,
}

/// Whether `man` fits `mdh`: the problems, by kind.
pub fn check_pair(man: &crate::zengin::man::Man, mdh: &Mdh) -> Vec<PairProblem> {
    let mut out = Vec::new();
    let mut push = |kind, message: String| out.push(PairProblem { kind, message });
    let Some(h) = mdh.hierarchy() else {
        push(
            PairKind::NoHierarchy,
            "the MDH has no hierarchy chunk (0xD100)".into(),
        );
        return out;
    };
    let computed = h.computed_checksum();
    if computed != h.checksum.0 {
        push(
            PairKind::MdhChecksum,
            format!(
                "the MDH's stored checksum {} is not the CRC-32 of its node names ({})",
                h.checksum,
                Hex32(computed)
            ),
        );
    }
    let Some(s) = man.samples() else {
        push(
            PairKind::NoSamples,
            "the MAN has no raw-data chunk (0xA090), so no checksum or node indices".into(),
        );
        return out;
    };
    if s.checksum != h.checksum {
        push(
            PairKind::ChecksumMismatch,
            format!(
                "checksum mismatch: the MAN was made for the skeleton with checksum {}, the MDH has {} (CRC-32 of its names {})",
                s.checksum,
                h.checksum,
                Hex32(computed)
            ),
        );
    }
    for (k, &idx) in s.node_indices.iter().enumerate() {
        if idx as usize >= h.nodes.len() {
            push(
                PairKind::NodeIndex,
                format!(
                    "samples.node_indices[{k}] = {idx}: the MDH has only {} nodes (0..{})",
                    h.nodes.len(),
                    h.nodes.len().saturating_sub(1)
                ),
            );
        }
    }
    out
}

/// Why an animation does not belong to a hierarchy ([`check_pair`]'s messages); empty when
/// it does.
pub fn check_man(man: &crate::zengin::man::Man, mdh: &Mdh) -> Vec<String> {
    check_pair(man, mdh)
        .into_iter()
        .map(|p| p.message)
        .collect()
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
