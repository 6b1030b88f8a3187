//! `animkit checksum NAME...`: the node-list CRC-32 that ties MAN, MDH and MDM together.

use super::Status;
use crate::exact::{Error, Text};

/// Print the CRC-32 of the concatenated node names (Windows-1252), e.g.
/// `animkit checksum BIP01 "BIP01 LEVER STICK"` → 0xea809bf7.
#[derive(clap::Args)]
pub struct Args {
    /// Node names in hierarchy order.
    #[arg(required = true)]
    names: Vec<String>,
}

pub fn run(args: Args) -> Result<Status, Error> {
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
