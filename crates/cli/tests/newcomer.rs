//! What a newcomer meets first (issue #11, items 1, 2 and 5): the README's opening commands and
//! the install step under them, `--json -` holding nothing but JSON, and help that agrees with
//! the code.

mod common;

use common::{drivelab, stderr, stdout};

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
    assert!(install_block.contains("cargo install --path crates/cli"), "{install_block}");
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

/// `act --help` says what the code does: records round up to 16 bytes, as the README says.
#[test]
fn act_help_and_readme_agree_on_the_record_rounding() {
    let help = stdout(&drivelab(&["act", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("rounded up to 16 bytes"), "{help}");
    assert!(!flat.contains("128 bytes"), "{help}");
    let readme = readme().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(readme.contains("16-byte blocks") || readme.contains("16 bytes"), "the README names the same rounding");
    assert!(!readme.contains("128-byte"), "the README does not say otherwise");
}
