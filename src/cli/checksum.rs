//! `animkit checksum NAME...` / `animkit checksum --mdh FILE.MDH`: the node-list CRC-32 that
//! ties MAN, MDH and MDM together.

use super::Status;
use crate::exact::{Error, Text};

/// Print the CRC-32 of the concatenated node names (Windows-1252), e.g.
/// `animkit checksum BIP01 "BIP01 LEVER STICK"` → 0xea809bf7. With `--mdh FILE.MDH`: print
/// the stored checksum and the CRC-32 of its node names; exit 1 when they differ.
#[derive(clap::Args)]
pub struct Args {
    /// Node names in hierarchy order.
    #[arg(required_unless_present = "mdh", conflicts_with = "mdh")]
    names: Vec<String>,
    /// A model hierarchy whose stored checksum is checked against its node names.
    #[arg(long)]
    mdh: Option<std::path::PathBuf>,
}

fn run_mdh(path: &std::path::Path) -> Result<Status, Error> {
    use crate::registry::Codec;
    use crate::zengin::mdh::Mdh;
    let data = crate::fsio::read_file(path)?;
    let mdh = Mdh::decode(&data).map_err(Error::decoding(path))?;
    let h = mdh
        .hierarchy()
        .ok_or_else(|| Error::other(path, "no hierarchy chunk (0xD100)"))?;
    let computed = h.computed_checksum();
    println!("stored:   0x{:08x}", h.checksum.0);
    println!(
        "computed: 0x{computed:08x} (CRC-32 of {} node names)",
        h.nodes.len()
    );
    if computed == h.checksum.0 {
        println!("ok");
        Ok(Status::Ok)
    } else {
        println!("MISMATCH: the stored checksum is not the CRC-32 of the node names");
        Ok(Status::Failed)
    }
}

pub fn run(args: Args) -> Result<Status, Error> {
    if let Some(p) = &args.mdh {
        return run_mdh(p);
    }
    let mut encoded = Vec::with_capacity(args.names.len());
    for n in &args.names {
        let t = Text::from_unicode(n).map_err(|c| {
            Error::other(
                n,
                format!("character {c:?} cannot be stored in Windows-1252"),
            )
        })?;
        encoded.push(t);
    }
    let crc = crate::zengin::node_list_checksum(encoded.iter().map(|t| t.as_bytes()));
    println!("0x{crc:08x}");
    Ok(Status::Ok)
}
