//! Standard output for every subcommand. `println!`/`print!` inside `src/cli/` are this
//! module's macros (defined in `cli/mod.rs`, shadowing std's): std's panic when stdout is a
//! closed pipe (`animkit diff A B | head`); these stop writing quietly instead and the command
//! finishes its work. Any other write error (a full disk) is reported once and makes the exit
//! code 2.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// 0 writing, 1 the reader went away (a closed pipe), 2 a write failed otherwise.
static STATE: AtomicU8 = AtomicU8::new(0);

/// Write `args` to stdout (see the module).
pub fn write(args: std::fmt::Arguments<'_>) {
    if STATE.load(Ordering::Relaxed) != 0 {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|_| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            STATE.store(1, Ordering::Relaxed);
        } else {
            STATE.store(2, Ordering::Relaxed);
            eprintln!("animkit: error: <stdout>: {e}");
        }
    }
}

/// Whether a write to stdout failed other than by a closed pipe.
pub fn failed() -> bool {
    STATE.load(Ordering::Relaxed) == 2
}
