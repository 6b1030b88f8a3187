//! Round-trip tests (filled in below).
