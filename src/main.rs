// mimalloc: the parsers allocate many small strings and vectors; it is markedly faster than the
// system allocator for that (see the benches, which use it too).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    animkit::cli::main()
}
