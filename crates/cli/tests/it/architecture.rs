//! docs/ARCHITECTURE.md kept true to the tree: every module a crate's section names exists, every
//! module of a crate's `src/` is named in its section, and every path the document spells out
//! (`engine/src/backend/mod.rs`) is a file or directory of the workspace. Without this the
//! document drifted quietly (it named `spec.rs` and `args.rs` long after both became
//! directories); now a module added, moved or removed without its row fails here by name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn doc() -> String {
    std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md")
}

/// The text of each `## CRATE (`crates/CRATE/src`)` section up to the next `## `.
fn sections(doc: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            out.extend(current.take());
            if let Some(start) = h.find("`crates/") {
                let rest = &h[start + "`crates/".len()..];
                let name = rest.split('/').next().unwrap_or("").to_string();
                current = Some((name, String::new()));
            }
            continue;
        }
        if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out.extend(current);
    out
}

/// Every `` `x` `` span of `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The names a module table's first column gives (`` | `a.rs`, `b/` | ``): each span of the first
/// cell of every table row.
fn first_column_names(section: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in section.lines() {
        let Some(row) = line.strip_prefix("| ") else { continue };
        let cell = row.split(" | ").next().unwrap_or("");
        for span in code_spans(cell) {
            names.insert(span.trim_end_matches('/').to_string());
        }
    }
    names
}

#[test]
fn every_module_named_in_a_crate_section_exists_and_every_module_is_named() {
    let doc = doc();
    let secs = sections(&doc);
    let crates: Vec<&str> = secs.iter().map(|(c, _)| c.as_str()).collect();
    assert!(crates.contains(&"engine") && crates.contains(&"lab"), "sections found: {crates:?}");
    let mut problems = Vec::new();
    for (krate, text) in &secs {
        let src = root().join("crates").join(krate).join("src");
        let named = first_column_names(text);
        for name in &named {
            // Rows may name files beside src/ (the cli's build.rs).
            if !src.join(name).exists() && !src.join("..").join(name).exists() {
                problems.push(format!("crates/{krate}: the table names `{name}`, which is not in {}", src.display()));
            }
        }
        for entry in std::fs::read_dir(&src).expect("src dir") {
            let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
            if name == "lib.rs" && krate != "engine" || name == "main.rs" && krate != "cli" {
                continue;
            }
            let stem = name.trim_end_matches(".rs");
            // A directory module and its file (`tables.rs` + `tables/`) may share one row.
            let mentioned = named.contains(&name)
                || named.contains(stem)
                || text.contains(&format!("`{name}`"))
                || text.contains(&format!("`{stem}/`"))
                || text.contains(&format!("`{name}/"));
            if !mentioned {
                problems.push(format!("crates/{krate}/src/{name} is not described in its section"));
            }
        }
    }
    assert!(problems.is_empty(), "docs/ARCHITECTURE.md has drifted:\n{}", problems.join("\n"));
}

#[test]
fn every_path_the_document_spells_out_exists() {
    let doc = doc();
    let mut missing = Vec::new();
    for span in code_spans(&doc) {
        if span.starts_with("crates/") && !span.contains(' ') && !span.contains('*') {
            if !root().join(span).exists() {
                missing.push(span.to_string());
            }
            continue;
        }
        let Some((krate, rest)) = span.split_once("/src/") else { continue };
        if span.contains(' ') || span.contains("NEW") || span.contains('*') {
            continue;
        }
        let krate = krate.trim_start_matches("crates/");
        let path = root().join("crates").join(krate).join("src").join(rest.trim_end_matches('/'));
        if !path.exists() {
            missing.push(span.to_string());
        }
    }
    assert!(missing.is_empty(), "docs/ARCHITECTURE.md names paths that do not exist: {missing:?}");
}
