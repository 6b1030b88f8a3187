//! The README's examples are true: every ```console block is run (in a scratch copy of the
//! project's samples) and its output compared. A line `...` stands for any number of lines.

use crate::common::root;
use std::path::Path;

struct Example {
    command: String,
    expected: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_console = false;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_console = !in_console && line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Example {
                command: cmd.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(last) = out.last_mut() {
            last.expected.push(line.to_string());
        }
    }
    out
}

fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => actual.first().is_some_and(|a| a == e) && matches(rest, &actual[1..]),
    }
}

#[test]
fn readme_examples_are_true() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(
        examples.len() >= 8,
        "only {} examples found",
        examples.len()
    );
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("samples"), &dir.path().join("samples"));
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_animkit"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for ex in examples {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("{} 2>&1", ex.command))
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .expect("bash runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let actual: Vec<&str> = text.lines().collect();
        assert!(
            matches(&ex.expected, &actual),
            "README example `{}`\n--- expected\n{}\n--- actual\n{}",
            ex.command,
            ex.expected.join("\n"),
            text
        );
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}
