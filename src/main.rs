#![deny(clippy::undocumented_unsafe_blocks)]
// mimalloc: the parsers allocate many small strings and vectors; it is markedly faster than the
// system allocator for that (see the benches, which use it too).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the enum's 16th entry in `mimalloc.h`, v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// mimalloc's `mi_option_arena_eager_commit` (the enum's 5th entry in `mimalloc.h`, v3).
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

fn main() -> std::process::ExitCode {
    // Memory freed during a command stays with the process for reuse, instead of going back
    // to the system and being faulted in (zeroed) again a moment later: a command runs for
    // seconds, and that round trip was up to half the time of a 10 MB MW3 import.
    // SAFETY: sets a plain integer option; mimalloc reads it at each purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    // Arena memory is committed as it is used, not in whole arenas up front: the eager commit
    // put 6–14 MB more in the resident set of every command (`info` of a small file 12.7 →
    // 7.0 MB, MW3 import 51–70 → 36–44 MB), for no measured speed (BENCHMARKS.md).
    // SAFETY: as above, a plain integer option (read when an arena commits memory).
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) };
    animkit::cli::main()
}
