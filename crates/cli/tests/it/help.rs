//! Every `--help` (issue #11, item 10): each guide section a help text points to exists, each
//! suite's help names what it reproduces, the no-command help says what drivelab then does, and
//! `report`'s help names every format the report crate has.

use crate::common;

use crate::common::{drivelab, stderr, stdout};

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

/// The headings of the user guide's chapter `file` (docs/guide/FILE), without `#`s and backticks.
fn guide_headings(file: &str) -> Vec<String> {
    let path = format!("{}/../../docs/guide/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines().filter(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim().replace('`', "")).collect()
}

#[test]
fn every_guide_section_a_help_points_to_exists() {
    let mut pointers = Vec::new();
    for (command, text) in every_help() {
        assert!(
            !text.contains("README \""),
            "{command} --help points to the README, whose reference moved to docs/guide"
        );
        let mut rest = text.as_str();
        while let Some(i) = rest.find("docs/guide/") {
            let after = &rest[i + "docs/guide/".len()..];
            let (file, tail) = after.split_once(' ').unwrap_or_else(|| panic!("{command}: a chapter with no section"));
            let section = tail.strip_prefix('"').unwrap_or_else(|| panic!("{command}: {file} names no section"));
            let end = section.find('"').unwrap_or_else(|| panic!("{command}: an unclosed guide section name"));
            let section = &section[..end];
            let headings = guide_headings(file);
            assert!(
                headings.iter().any(|h| h == section),
                "{command} --help points to docs/guide/{file} \"{section}\", which has no such section; it has {headings:#?}"
            );
            pointers.push((command.clone(), section.to_string()));
            rest = &after[file.len()..];
        }
    }
    // The commands whose help points to their section.
    for c in ["run", "plan", "suite", "report", "act", "qos"] {
        assert!(pointers.iter().any(|(cmd, _)| cmd == c), "{c} --help points to no guide section: {pointers:?}");
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
