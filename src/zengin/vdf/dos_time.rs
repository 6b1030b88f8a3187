//! DOS timestamps (the header's `timestamp`).

/// A DOS date/time as `(year, month, day, hour, minute, second)`, or `None` when a field is
/// out of range (then it cannot be written as a date and back).
pub fn dos_to_parts(v: u32) -> Option<(u32, u32, u32, u32, u32, u32)> {
    let year = 1980 + (v >> 25);
    let month = (v >> 21) & 0xF;
    let day = (v >> 16) & 0x1F;
    let hour = (v >> 11) & 0x1F;
    let minute = (v >> 5) & 0x3F;
    let second = (v & 0x1F) * 2;
    if !(1..=12).contains(&month) || day == 0 || hour > 23 || minute > 59 || second > 58 {
        return None;
    }
    Some((year, month, day, hour, minute, second))
}

/// `YYYY-MM-DD hh:mm:ss` of a DOS timestamp, when it is a valid one.
pub fn dos_to_string(v: u32) -> Option<String> {
    dos_to_parts(v)
        .map(|(y, mo, d, h, mi, s)| format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
}

/// Parse `YYYY-MM-DD hh:mm:ss` (seconds are stored in 2 s steps: odd seconds are refused).
pub fn dos_from_string(s: &str) -> Option<u32> {
    let s = s.trim();
    let (date, time) = s.split_once([' ', 'T'])?;
    let d: Vec<u32> = date
        .split('-')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let t: Vec<u32> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let ([y, mo, da], [h, mi, se]) = (d.as_slice(), t.as_slice()) else {
        return None;
    };
    if !(1980..=2107).contains(y) || se % 2 != 0 {
        return None;
    }
    let v = ((y - 1980) << 25) | (mo << 21) | (da << 16) | (h << 11) | (mi << 5) | (se / 2);
    (dos_to_parts(v) == Some((*y, *mo, *da, *h, *mi, *se))).then_some(v)
}

/// The DOS timestamp of a Unix time (UTC).
pub fn dos_from_unix(secs: i64) -> u32 {
    let (year, month, day) = crate::zengin::types::civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400) as u32;
    let year = year.clamp(1980, 2107) as u32;
    ((year - 1980) << 25)
        | (month << 21)
        | (day << 16)
        | ((rem / 3600) << 11)
        | (((rem / 60) % 60) << 5)
        | ((rem % 60) / 2)
}
