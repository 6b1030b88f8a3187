//! The verify engine over the project's samples and the shared corpus.

use crate::common::{corpus, root, DAMAGED, DAMAGED_SCRIPT};
use animkit::verify::{collect_files, verify_files, Outcome, Progress};

fn verify_all(dir: &std::path::Path) -> (usize, Vec<String>) {
    let files = collect_files(&[dir.to_path_buf()]).expect("folder lists");
    let reports = verify_files(&files, Progress::NONE);
    let mut ok = 0;
    let mut problems = Vec::new();
    for r in reports {
        match r.outcome {
            Outcome::Ok { .. } => ok += 1,
            Outcome::Unrecognised => {}
            other => problems.push(format!("{}: {other:?}", r.path.display())),
        }
    }
    (ok, problems)
}

#[test]
fn every_sample_round_trips_byte_for_byte() {
    let (ok, problems) = verify_all(&root().join("samples"));
    assert!(problems.is_empty(), "{problems:#?}");
    // The six files make-samples writes.
    assert!(ok >= 6, "only {ok} samples verified");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_recognised_corpus_file_round_trips_byte_for_byte() {
    let Some(dir) = corpus() else { return };
    let (ok, problems) = verify_all(&dir);
    // The damaged real files fail with their cause (checked in detail in realworld.rs); every
    // other recognised file round-trips.
    let damaged = |p: &String| {
        let p = p.replace('\\', "/");
        DAMAGED.iter().any(|(f, offset, old, new)| {
            p.contains(f)
                && p.contains(&format!(
                    "at byte offset {offset}: its fields take {new} bytes but its length says {old}: a string edited without fixing the length?"
                ))
        }) || (p.contains(DAMAGED_SCRIPT) && p.contains("unterminated string"))
    };
    let unexpected: Vec<&String> = problems.iter().filter(|p| !damaged(p)).collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert_eq!(problems.len(), DAMAGED.len() + 1, "{problems:#?}");
    assert!(ok >= 600, "only {ok} corpus files verified");
}

#[test]
fn the_samples_are_what_make_samples_writes() {
    // samples/ is generated; a stale checkout would test old bytes.
    let tmp = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO"))
        .args([
            "run",
            "--quiet",
            "--release",
            "--example",
            "make-samples",
            "--",
        ])
        .arg(tmp.path())
        .current_dir(root())
        .status()
        .expect("cargo runs");
    assert!(status.success());
    for entry in std::fs::read_dir(tmp.path()).unwrap() {
        let entry = entry.unwrap();
        let committed = std::fs::read(root().join("samples").join(entry.file_name()))
            .unwrap_or_else(|e| panic!("samples/{:?}: {e}", entry.file_name()));
        assert_eq!(
            std::fs::read(entry.path()).unwrap(),
            committed,
            "samples/{:?} differs from what make-samples writes",
            entry.file_name()
        );
    }
}

#[test]
fn many_archives_verified_at_once_do_not_block_the_thread_pool() {
    // Verifying an archive rewrites it with pieces produced on the thread pool; with every
    // worker busy verifying an archive, a writer that waited for another thread's pool work
    // deadlocked (seen in CI). Four times as many archives as workers, all at once.
    let archive = root().join("samples").join("ANIMS.VDF");
    let per_archive = verify_files(std::slice::from_ref(&archive), Progress::NONE).len();
    assert!(
        per_archive > 1,
        "the archive and its members each get a report"
    );
    let files = vec![archive; 4 * rayon::current_num_threads().max(2)];
    let reports = verify_files(&files, Progress::NONE);
    assert_eq!(reports.len(), files.len() * per_archive);
    for r in reports {
        assert!(matches!(r.outcome, Outcome::Ok { .. }), "{:?}", r.outcome);
    }
}
