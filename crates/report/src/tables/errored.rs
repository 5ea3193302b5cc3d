//! How an errored point is marked, in one place: `report`'s tables and `compare`'s side-by-side
//! tables (`crate::compare`) both mark with these, so every format marks alike — a figure an I/O
//! error cut short is never shown as a plain number (text and Markdown `!err` and a footnote,
//! CSV an `errored` column, JSON the table's `errored` list, HTML through `crate::html`).

use drivelab_engine::result::RunResult;
use serde::Serialize;

use crate::grid;

/// A cell of a [`super::Table`] with an errored point in it, and the error.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErroredCell {
    pub row: usize,
    pub col: usize,
    pub error: String,
}

/// What an errored cell carries after its number in text, Markdown and HTML.
pub const ERRORED_MARK: &str = "!err";

/// The error of an errored point, in a line (its first I/O error, or what stopped it).
pub fn point_error(r: &RunResult) -> Option<String> {
    if !r.errored() {
        return None;
    }
    Some(match r.errors.first() {
        Some(e) => format!("{} {} error(s) on {}: {}", e.count, e.op, e.target, e.error),
        None if r.mismatches() > 0 => format!("{} unit(s) read back wrong", r.mismatches()),
        None => "stopped by an I/O error".into(),
    })
}

/// Is the cell at (`row`, `col`) among `cells`?
pub fn is_errored(cells: &[ErroredCell], row: usize, col: usize) -> bool {
    cells.iter().any(|e| (e.row, e.col) == (row, col))
}

/// A shown figure with [`ERRORED_MARK`] after it where `errored`.
pub fn mark_if(shown: String, errored: bool) -> String {
    if errored {
        format!("{shown} {ERRORED_MARK}")
    } else {
        shown
    }
}

/// The footnote of errored `cells` (None when there are none): which points and why.
pub fn errored_note(cells: &[ErroredCell]) -> Option<String> {
    errored_footnote(cells.iter().map(|e| e.error.as_str()))
}

/// The footnote of errored points (None when there are none), from their errors ("point:
/// error"), each said once.
pub fn errored_footnote<'a>(all: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut errors: Vec<&str> = Vec::new();
    for e in all {
        if !errors.contains(&e) {
            errors.push(e);
        }
    }
    (!errors.is_empty()).then(|| {
        format!(
            "{ERRORED_MARK}: an I/O error stopped the point; its figures cover only the I/O before it ({})",
            errors.join("; ")
        )
    })
}

/// The note under a table: its own `note`, then the footnote of its errored `cells`.
pub fn notes(note: Option<&str>, cells: &[ErroredCell]) -> Option<String> {
    match (note, errored_note(cells)) {
        (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
        (a, b) => a.map(str::to_string).or(b),
    }
}

/// CSV's `errored` field of row `row`: its errored cells as "column: error", "; " apart.
pub fn errored_csv_field(cells: &[ErroredCell], cols: &[String], row: usize) -> String {
    let errors: Vec<String> = cells
        .iter()
        .filter(|e| e.row == row)
        .map(|e| format!("{}: {}", cols.get(e.col).map_or("", |c| c.as_str()), e.error))
        .collect();
    grid::csv_field(&errors.join("; "))
}
