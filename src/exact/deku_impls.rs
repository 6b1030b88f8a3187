//! deku glue shared by the formats' record declarations: appending a record straight into the
//! output buffer (no per-record allocation, unlike `to_bytes`).

use deku::writer::Writer;
use deku::DekuWriter;

/// Append a fixed-layout deku record to `out` through `to_writer` (about twice as fast as
/// [`super::put_record`], which allocates a `Vec` per record).
pub fn append_record<T: DekuWriter<()>>(out: &mut Vec<u8>, value: &T) {
    let at = out.len() as u64;
    let mut cur = std::io::Cursor::new(out);
    cur.set_position(at);
    let mut w = Writer::new(&mut cur);
    // Writing a plain fixed-layout record into a Vec cannot fail: deku only errors on
    // assertions and bit-size overflows, which the record types given here do not declare.
    if let Err(e) = value.to_writer(&mut w, ()).and_then(|()| w.finalize()) {
        unreachable!("fixed-layout deku record failed to serialise: {e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deku::{DekuRead, DekuWrite};

    #[derive(DekuRead, DekuWrite)]
    #[deku(endian = "little")]
    struct Rec {
        a: u16,
        b: crate::exact::F32,
    }

    #[test]
    fn append_record_appends_after_existing_bytes() {
        let mut out = vec![0xAA];
        append_record(
            &mut out,
            &Rec {
                a: 0x0102,
                b: crate::exact::F32(0x7fc0_0001),
            },
        );
        assert_eq!(out, [0xAA, 0x02, 0x01, 0x01, 0x00, 0xc0, 0x7f]);
    }
}
