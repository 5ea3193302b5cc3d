//! What a newcomer meets first (issue #11, items 1, 2 and 5): the README's opening commands and
//! the install step under them, `--json -` holding nothing but JSON, and help that agrees with
//! the code.

use crate::common;

use crate::common::{drivelab, stderr, stdout};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).expect("README.md")
}

/// The first code block holds the two opening commands, and the install command comes right
/// after it, before any other section.
#[test]
fn the_readme_opens_with_the_two_commands_and_then_the_install_step() {
    let text = readme();
    let first_block = text.split("```").nth(1).expect("a code block");
    let commands: Vec<&str> = first_block
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(commands, ["cargo run --release", "scripts/test"], "{first_block}");
    let after = text.split("```").nth(2).expect("text after the block");
    let install_block = text.split("```").nth(3).expect("the install block");
    assert!(!after.contains("\n## "), "no section between the opening commands and the install step");
    assert!(install_block.contains("cargo install --locked --path crates/cli"), "{install_block}");
}

/// The install line installs the tested dependencies (issue #26): `--locked`, everywhere the
/// docs say `cargo install`, and the lock file it relies on is in the tree and not ignored.
#[test]
fn every_cargo_install_line_is_locked_to_the_committed_lock_file() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut docs = vec![("README.md".to_string(), readme())];
    for chapter in common::guide_chapters() {
        docs.push(chapter);
    }
    let mut installs = 0;
    for (name, text) in &docs {
        for line in text.lines().filter(|l| l.trim_start().starts_with("cargo install")) {
            installs += 1;
            assert!(line.contains("--locked"), "{name}: `{line}` re-resolves every dependency: add --locked");
        }
    }
    assert!(installs >= 2, "the README and the guide both give the install line");
    let lock = std::fs::read_to_string(format!("{root}/Cargo.lock")).expect("Cargo.lock is in the tree");
    assert!(lock.contains("name = \"drivelab\""), "Cargo.lock is this workspace's");
    let ignored = std::fs::read_to_string(format!("{root}/.gitignore")).unwrap_or_default();
    assert!(!ignored.lines().any(|l| l.trim().trim_start_matches('/') == "Cargo.lock"), "Cargo.lock is ignored by git");
}

/// `--json -`: standard output is exactly one JSON document; everything human goes to stderr.
#[test]
fn json_to_stdout_is_only_json() {
    let o = drivelab(&["run", "null", "--time", "200ms", "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("stdout parses as one JSON document");
    assert!(v["total"]["iops"].as_f64().unwrap() > 0.0);
    assert!(stderr(&o).contains("results:"), "the human lines went to stderr: {}", stderr(&o));
}

/// `act --help` says what the code does: records round up to 16 bytes, as the guide says.
#[test]
fn act_help_and_readme_agree_on_the_record_rounding() {
    let help = stdout(&drivelab(&["act", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("rounded up to 16 bytes"), "{help}");
    assert!(!flat.contains("128 bytes"), "{help}");
    let guide: String = common::guide_chapters().into_iter().map(|(_, text)| text).collect();
    let guide = guide.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(guide.contains("16-byte blocks") || guide.contains("16 bytes"), "the guide names the same rounding");
    assert!(!guide.contains("128-byte"), "the guide does not say otherwise");
}
