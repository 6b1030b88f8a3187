#![deny(clippy::undocumented_unsafe_blocks)]
// mimalloc: the parsers allocate many small strings and vectors; it is markedly faster than the
// system allocator for that (see the benches, which use it too).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the enum's 16th entry in `mimalloc.h`, v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // Memory freed during a command stays with the process for reuse, instead of going back
    // to the system and being faulted in (zeroed) again a moment later: a command runs for
    // seconds, and that round trip was up to half the time of a 10 MB MW3 import.
    // SAFETY: sets a plain integer option; mimalloc reads it at each purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    animkit::cli::main()
}
