//! Every `--help` (issue #11, item 10): each README section a help text points to exists, each
//! suite's help names what it reproduces, the no-command help says what drivelab then does, and
//! `report`'s help names every format the report crate has.

mod common;

use common::{drivelab, stderr, stdout};

/// `drivelab ARGS`'s output with every run of whitespace made one space (help text wraps).
fn help(args: &[&str]) -> String {
    let o = drivelab(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The commands `drivelab --help` lists.
fn commands() -> Vec<String> {
    let names = common::commands();
    assert!(names.len() >= 7, "{names:?}");
    names
}

/// Every help text: the root's and each command's long help.
fn every_help() -> Vec<(String, String)> {
    let mut all = vec![("drivelab".to_string(), help(&["--help"]))];
    for c in commands() {
        all.push((c.clone(), help(&[&c, "--help"])));
    }
    all
}

/// README.md's headings, without `#`s and backticks.
fn readme_headings() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    readme.lines().filter(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim().replace('`', "")).collect()
}

#[test]
fn every_readme_section_a_help_points_to_exists() {
    let headings = readme_headings();
    let mut pointers = Vec::new();
    for (command, text) in every_help() {
        let mut rest = text.as_str();
        while let Some(i) = rest.find("README \"") {
            let after = &rest[i + "README \"".len()..];
            let end = after.find('"').unwrap_or_else(|| panic!("{command}: an unclosed README section name"));
            let section = &after[..end];
            assert!(
                headings.iter().any(|h| h == section),
                "{command} --help points to README \"{section}\", which has no such section; it has {headings:#?}"
            );
            pointers.push((command.clone(), section.to_string()));
            rest = &after[end..];
        }
    }
    // The commands whose help points to their section.
    for c in ["run", "plan", "suite", "report", "act", "qos"] {
        assert!(pointers.iter().any(|(cmd, _)| cmd == c), "{c} --help points to no README section: {pointers:?}");
    }
}

#[test]
fn each_suites_help_names_what_it_reproduces() {
    let suite = help(&["suite", "--help"]);
    for s in drivelab_lab::suites::SUITES {
        assert!(!s.reproduces.is_empty());
        assert!(suite.contains(&format!("{} {}", s.name, s.reproduces)), "{}: {suite}", s.name);
    }
    // In words a reader knows, not the names of our sources.
    for words in
        ["CrystalDiskMark", "Iometer access specs", "JBOD scaling", "AnandTech", "fio block size x iodepth", "hdparm"]
    {
        assert!(suite.contains(words), "suite --help does not name {words}: {suite}");
    }
    let listing = help(&["suite"]);
    for s in drivelab_lab::suites::SUITES {
        assert!(listing.contains(&format!("{} {}: {}", s.name, s.reproduces, s.about)), "{listing}");
    }
    assert!(help(&["act", "--help"]).contains("Aerospike ACT"));
    for (command, text) in every_help() {
        assert!(!text.contains("seeds") && !text.contains("seed 0"), "{command} --help speaks of the seeds: {text}");
    }
}

#[test]
fn the_no_command_help_says_what_drivelab_then_does() {
    let root = help(&["--help"]);
    for words in [
        "runs the quick suite",
        "CrystalDiskMark",
        "./drivelab-scratch.dat",
        "created at 1 GiB and fully written",
        "kept for next time",
        "./results/",
        "4 KiB random reads",
    ] {
        assert!(root.contains(words), "expected '{words}' in: {root}");
    }
    assert!(!root.contains("short default workload"), "{root}");
}

#[test]
fn report_help_names_every_format() {
    let short = help(&["--help"]);
    let long = help(&["report", "--help"]);
    for name in drivelab_report::Format::document_names() {
        assert!(long.contains(&format!("{name},")) || long.contains(&format!("or {name} ")), "{name}: {long}");
    }
    for text in [&short, &long] {
        assert!(text.contains("PNG charts (--png)") && text.contains("HTML page (-o)"), "{text}");
    }
}
