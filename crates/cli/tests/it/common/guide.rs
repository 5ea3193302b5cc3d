//! The user guide (docs/guide/*.md) as tests read it: every chapter, by file name.

/// Every Markdown file of docs/guide/ (the helpers' `_from-*.md` notes too), sorted by name:
/// (file name, text).
pub fn guide_chapters() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guide");
    let mut chapters: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect();
    chapters.sort();
    assert!(
        chapters.len() >= 10,
        "docs/guide has its chapters: {:?}",
        chapters.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    chapters
}
