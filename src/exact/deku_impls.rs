//! deku support for the byte-exact primitives: readers and writers that the derived records of
//! every format use through `#[deku(reader = ..., writer = ...)]`. Each block belongs to the
//! records that need it; keep blocks generic.

// ---------------------------------------------------------------------------------------------
// Fixed byte arrays (names, comments, signatures): one copy for the whole array. deku's own
// `[u8; N]` reads and writes one byte per call, which made the VDF catalog (a 64-byte name per
// entry) read 2× slower than by hand (measured with `benches/peers/compare`, vdf-list rows).

use deku::ctx::Order;
use deku::no_std_io::{Read, Seek, Write};
use deku::reader::Reader;
use deku::writer::Writer;
use deku::DekuError;

/// Read `N` bytes as one array: `#[deku(reader = "read_byte_array(deku::reader)")]`.
#[inline]
pub fn read_byte_array<R: Read + Seek, const N: usize>(
    reader: &mut Reader<R>,
) -> Result<[u8; N], DekuError> {
    let mut buf = [0u8; N];
    reader.read_bytes_const_into(&mut buf, Order::Msb0)?;
    Ok(buf)
}

/// Write a byte array as it is: `#[deku(writer = "write_byte_array(deku::writer, &self.f)")]`.
#[inline]
pub fn write_byte_array<W: Write + Seek>(
    writer: &mut Writer<W>,
    bytes: &[u8],
) -> Result<(), DekuError> {
    writer.write_bytes(bytes)
}

#[cfg(test)]
mod byte_array_tests {
    use deku::{DekuContainerRead, DekuContainerWrite, DekuRead, DekuWrite};

    #[derive(Debug, PartialEq, DekuRead, DekuWrite)]
    #[deku(endian = "little")]
    struct Named {
        #[deku(
            reader = "super::read_byte_array(deku::reader)",
            writer = "super::write_byte_array(deku::writer, &self.name)"
        )]
        name: [u8; 5],
        value: u16,
    }

    #[test]
    fn a_byte_array_reads_and_writes_in_place() {
        let bytes = b"ABCDE\x34\x12";
        let (_, n) = Named::from_bytes((bytes, 0)).unwrap();
        assert_eq!(
            n,
            Named {
                name: *b"ABCDE",
                value: 0x1234
            }
        );
        assert_eq!(n.to_bytes().unwrap(), bytes);
        // too short: an error, not a panic
        assert!(Named::from_bytes((&bytes[..4], 0)).is_err());
    }
}
