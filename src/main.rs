fn main() -> std::process::ExitCode {
    animkit::cli::main()
}
