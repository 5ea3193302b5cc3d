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

/// What a cell of a point that never reached steady state carries after its number.
pub const UNSTEADY_MARK: &str = "!unsteady";

/// Why `p` is not a steady state's figure: run with `--steady`, its rounds ended without
/// reaching it (None for a point that did, or ran without `--steady`).
pub fn unsteady_point(p: &drivelab_lab::results::PointResult) -> Option<String> {
    let s = p.steady.as_ref().filter(|s| !s.steady)?;
    let rounds = s.rounds_iops.len();
    Some(match (&s.not_delivered, s.result_rounds) {
        (Some(_), _) => format!("its rate was not carried in round {}", rounds + 1),
        (None, n) if n > 1 => format!("not steady after {rounds} rounds; the figures are the last {n} rounds'"),
        (None, _) => format!("not steady after {rounds} rounds; the figures are the last round's"),
    })
}

/// A shown figure with [`UNSTEADY_MARK`] after it where `unsteady`.
pub fn mark_unsteady(shown: String, unsteady: bool) -> String {
    if unsteady {
        format!("{shown} {UNSTEADY_MARK}")
    } else {
        shown
    }
}

/// The footnote of not-steady `cells` (None when there are none): which points and why.
pub fn unsteady_note(cells: &[ErroredCell]) -> Option<String> {
    let mut whys: Vec<&str> = Vec::new();
    for c in cells {
        if !whys.contains(&c.error.as_str()) {
            whys.push(&c.error);
        }
    }
    (!whys.is_empty()).then(|| {
        format!(
            "{UNSTEADY_MARK}: the point never reached steady state (SNIA PTS), so its figures are no steady \
             state's ({})",
            whys.join("; ")
        )
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
