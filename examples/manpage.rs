//! Write animkit's man pages (`animkit.1` and one per subcommand, `animkit-export.1`, ...) from
//! the same definitions as the command line: `cargo run --example manpage -- OUTDIR`
//! (default `man/`), then `man -l OUTDIR/animkit.1`.

use clap::CommandFactory;

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| std::path::PathBuf::from("man"), Into::into);
    std::fs::create_dir_all(&dir)?;
    clap_mangen::generate_to(animkit::cli::Cli::command(), &dir)?;
    println!("wrote the man pages to {}", dir.display());
    Ok(())
}
