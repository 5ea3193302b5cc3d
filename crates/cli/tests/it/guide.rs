//! The user guide documents the binary (issue #26, item 5): every long flag that any command's
//! `--help` lists, and every suite, is named somewhere in docs/guide/*.md. A flag added without
//! a word in the guide fails here, named with its command.

use crate::common;

use crate::common::{drivelab, guide_chapters, stderr, stdout};

/// The long flags (`--foo`) a help text lists as options (lines that start with them, after
/// the short form if any), in order.
fn listed_flags(help: &str) -> Vec<String> {
    let mut flags = Vec::new();
    for line in help.lines() {
        let t = line.trim_start();
        let t = match t.strip_prefix('-').and_then(|r| r.get(1..)).and_then(|r| r.strip_prefix(", ")) {
            Some(after_short) if !t.starts_with("--") => after_short,
            _ => t,
        };
        let Some(name) = t.strip_prefix("--") else { continue };
        let name: String = name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
        if !name.is_empty() && !flags.contains(&name) {
            flags.push(name);
        }
    }
    flags
}

/// Whether `text` names `--flag` as a whole word (`--verify` is not named by `--verify-after`).
fn names_flag(text: &str, flag: &str) -> bool {
    let needle = format!("--{flag}");
    text.match_indices(&needle).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + needle.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

fn guide() -> String {
    guide_chapters().into_iter().map(|(_, text)| text + "\n").collect()
}

#[test]
fn every_flag_of_every_help_is_in_the_guide() {
    let guide = guide();
    let mut commands = vec![String::new()];
    commands.extend(common::commands());
    let mut undocumented = Vec::new();
    let mut checked = 0;
    for c in &commands {
        let args: Vec<&str> = if c.is_empty() { vec!["--help"] } else { vec![c.as_str(), "--help"] };
        let o = drivelab(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        for flag in listed_flags(&stdout(&o)) {
            if matches!(flag.as_str(), "help" | "version") {
                continue;
            }
            checked += 1;
            if !names_flag(&guide, &flag) {
                undocumented.push(format!("{} --{flag}", if c.is_empty() { "drivelab" } else { c }));
            }
        }
    }
    assert!(checked > 100, "the help texts list their flags ({checked} found)");
    assert!(undocumented.is_empty(), "flags no chapter of docs/guide/ names: {undocumented:#?}");
}

#[test]
fn every_suite_is_in_the_guide() {
    let guide = guide();
    let missing: Vec<&str> = drivelab_lab::suites::SUITES
        .iter()
        .map(|s| s.name)
        .filter(|name| !guide.contains(&format!("| `{name}` |")) && !guide.contains(&format!("suite {name}")))
        .collect();
    assert!(missing.is_empty(), "suites the guide does not describe: {missing:?}");
}

/// The checks above find what they look for, and only that.
#[test]
fn flags_are_found_as_whole_words_only() {
    let help = "Options:\n  -q, --quiet\n          Only the answer\n      --verify-after\n      --qd <N>\n";
    assert_eq!(listed_flags(help), ["quiet", "verify-after", "qd"]);
    assert!(names_flag("use `--verify` here", "verify"));
    assert!(!names_flag("use `--verify-after` here", "verify"));
    assert!(!names_flag("fio's --thinktime_spin", "thinktime"));
    assert!(!names_flag("x---qd", "qd"));
}

/// Every relative link of the README and the guide leads to a file that exists (the reference
/// moved: a link left pointing at the old place fails here).
#[test]
fn every_relative_link_of_the_readme_and_the_guide_resolves() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut docs = vec![(root.to_path_buf(), "README.md".to_string(), readme)];
    for (name, text) in guide_chapters() {
        docs.push((root.join("docs/guide"), name, text));
    }
    let mut broken = Vec::new();
    let mut links = 0;
    for (dir, name, text) in &docs {
        for piece in text.split("](").skip(1) {
            let target = piece.split(')').next().unwrap().split('#').next().unwrap();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            links += 1;
            if !dir.join(target).exists() {
                broken.push(format!("{name}: {target}"));
            }
        }
    }
    assert!(links >= 20, "{links} links");
    assert!(broken.is_empty(), "links to nothing: {broken:?}");
}
