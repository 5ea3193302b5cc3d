//! One exporter trait for every output of `report`: a [`Report`] in, documents out. Text,
//! Markdown, CSV and JSON are written here (they are a few lines each); HTML and PNG, which
//! draw the report's [`ChartSpec`]s, have modules of their own. A new format is one exporter
//! and one arm of [`exporter`].

pub mod html;
mod png;

pub use html::Html;
pub use png::Png;

use crate::grid;
use crate::model::{Grid, Report, TableBlock};
use crate::Format;

/// One document an exporter made: a suggested file name and its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifact {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Artifact {
    /// A text document (text, Markdown, CSV, JSON): nothing a terminal obeys is written into it
    /// ([`drivelab_engine::printable`]; JSON stays the same JSON).
    fn text(name: &str, s: String) -> Artifact {
        let s = match drivelab_engine::printable::printable(&s) {
            std::borrow::Cow::Borrowed(_) => s,
            std::borrow::Cow::Owned(o) => o,
        };
        Artifact { name: name.to_string(), bytes: s.into_bytes() }
    }
}

/// Why an exporter made no document, by kind: the command decides what the user is told (and
/// the exit code) from the kind, never from the words.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("encoding JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A chart (named by its file) could not be drawn as PNG.
    #[error("{chart}: {why}")]
    Chart { chart: String, why: crate::png::PngError },
}

impl From<ExportError> for drivelab_engine::Error {
    /// A PNG the build cannot draw, or at a scale that cannot be, is the user's to change (exit
    /// 2); anything else is the report failing to be written.
    fn from(e: ExportError) -> Self {
        match &e {
            ExportError::Chart { why, .. } if why.is_input() => drivelab_engine::Error::invalid(e.to_string()),
            _ => drivelab_engine::Error::io("writing the report", std::io::Error::other(e)),
        }
    }
}

/// Turns a report into documents (one, or one per chart for PNG).
pub trait Exporter {
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ExportError>;
}

/// The exporter of a format (PNG at twice the charts' size, for articles).
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Text => Box::new(Text),
        Format::Markdown => Box::new(Markdown),
        Format::Csv => Box::new(Csv),
        Format::Json => Box::new(Json),
        Format::Html => Box::new(Html),
        Format::Png => Box::new(Png { scale: 2.0 }),
    }
}

/// A single-document format's output as text.
pub fn export_text(format: Format, report: &Report) -> Result<String, ExportError> {
    let docs = exporter(format).export(report)?;
    // Each document's bytes become the text without a copy (they are text: UTF-8).
    let text =
        |d: Artifact| String::from_utf8(d.bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let mut docs = docs.into_iter();
    let mut out = docs.next().map(text).unwrap_or_default();
    for d in docs {
        out.push_str(&text(d));
    }
    Ok(out)
}

/// What starts each warning's line in text.
pub const WARNING: &str = "warning: ";

/// Aligned text for a terminal: the answer, warnings, then every table.
pub struct Text;

impl Exporter for Text {
    fn export(&self, r: &Report) -> Result<Vec<Artifact>, ExportError> {
        // Prose is wrapped to the tables' width (crate::fit), continued under itself.
        let cols = crate::fit::width();
        if let Some(s) = run_summary(r) {
            return Ok(vec![Artifact::text("report.txt", summary_text(s, r, cols))]);
        }
        let mut out = crate::fit::hanging("", &r.title, cols, 4);
        let width = r.answer.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
        for (k, v) in &r.answer {
            out += &crate::fit::hanging(&format!("  {k:<width$}  "), v, cols, width + 4);
        }
        for w in &r.warnings {
            out += &crate::fit::hanging(WARNING, w, cols, 4);
        }
        for n in &r.notes {
            out += &crate::fit::hanging("note: ", n, cols, 4);
        }
        for t in r.sections.iter().flat_map(|s| &s.tables) {
            out.push('\n');
            out += &match t {
                TableBlock::Grid(g) => g.text(),
                TableBlock::Table(t) => t.text(),
                TableBlock::Compared(t) => t.text(),
                TableBlock::Summary(s) => s.text(cols),
            };
        }
        Ok(vec![Artifact::text("report.txt", out)])
    }
}

/// The run's summary block, where the report has one (a run's report).
fn run_summary(r: &Report) -> Option<&crate::views::summary::RunSummary> {
    r.sections.iter().flat_map(|s| &s.tables).find_map(|t| match t {
        TableBlock::Summary(s) => Some(&**s),
        _ => None,
    })
}

/// A run's text, what `drivelab run` prints: the summary (which says what the title, the
/// answer and the warnings say: what ran, its figures, CPU-bound, buffered, interrupted, I/O
/// errors), the notes, then the other tables (fio's percentiles, MPI's ranks).
fn summary_text(s: &crate::views::summary::RunSummary, r: &Report, cols: usize) -> String {
    let mut out = s.text(cols);
    for n in &r.notes {
        out += &crate::fit::hanging("  note: ", n, cols, 8);
    }
    for t in r.sections.iter().flat_map(|s| &s.tables) {
        let text = match t {
            TableBlock::Summary(_) => continue,
            TableBlock::Grid(g) => g.text(),
            TableBlock::Table(t) => t.text(),
            TableBlock::Compared(t) => t.text(),
        };
        out.push('\n');
        out += &text;
    }
    out
}

/// GitHub Markdown: a heading, the answer as a list, warnings as quotes, a subheading per section.
pub struct Markdown;

impl Exporter for Markdown {
    fn export(&self, r: &Report) -> Result<Vec<Artifact>, ExportError> {
        // Every text is shown as written (`md_text`): a label's markup stays text.
        use crate::grid::md_text;
        let mut out = format!("# {}\n\n", md_text(&r.title));
        for (k, v) in &r.answer {
            out += &format!("- **{}**: {}\n", md_text(k), md_text(v));
        }
        for w in &r.warnings {
            out += &format!("\n> warning: {}\n", md_text(w));
        }
        if !r.notes.is_empty() {
            out += "\n## Notes\n\n";
            for n in &r.notes {
                out += &format!("- {}\n", md_text(n));
            }
        }
        for s in r.sections.iter().filter(|s| !s.tables.is_empty()) {
            out += &format!("\n## {}\n", md_text(&s.title));
            if let Some(n) = &s.note {
                out += &format!("\n{}\n", md_text(n));
            }
            for t in &s.tables {
                out.push('\n');
                out += &markdown_block(t, &s.title);
            }
        }
        // Markdown passes HTML through to whoever renders it: a label holding `<script>` or
        // `<svg onload=...>` would run there. No tag can start without a `<`.
        Ok(vec![Artifact::text("report.md", out.replace('<', "&lt;"))])
    }
}

/// A table in Markdown: under its bold heading, or without one where the section's heading
/// (`## X`) already says it.
fn markdown_block(t: &TableBlock, section: &str) -> String {
    match t {
        TableBlock::Grid(g) if g.title == section => grid::markdown_untitled(&g.display(), &g.word_columns()),
        TableBlock::Grid(g) => g.markdown(),
        TableBlock::Table(t) if t.heading() == section => t.markdown_untitled(),
        TableBlock::Table(t) => t.markdown(),
        TableBlock::Compared(t) if t.heading() == section => t.markdown_untitled(),
        TableBlock::Compared(t) => t.markdown(),
        TableBlock::Summary(s) => {
            let lines: String = s.prose().iter().map(|l| format!("- {}\n", crate::grid::md_text(l))).collect();
            format!("{lines}\n{}", s.full.markdown())
        }
    }
}

/// CSV tables (`report --format csv --tables`; `report --format csv` is the tidy table of
/// [`crate::tidy_csv`]): one block per table (a `table` column naming it, then the table's
/// columns with units in their headings; numbers at full precision, latencies in ns; a plan or
/// suite table in its own CSV form, `table,metric,unit,<row axis>,<col axis>=<value>...`),
/// blocks separated by an empty line; first a block of the answer (`answer,value`) when there
/// is one, last a block of the notes (`note`).
pub struct Csv;

fn csv_block(t: &Grid) -> String {
    let mut header = vec!["table".to_string()];
    header.extend(t.columns.iter().map(|c| match c.unit {
        crate::model::Unit::Ns => format!("{} (ns)", c.name),
        _ => c.heading(),
    }));
    let mut out = header.iter().map(|h| grid::csv_field(h)).collect::<Vec<_>>().join(",") + "\n";
    for r in &t.rows {
        let mut line = vec![grid::csv_field(&t.title)];
        line.extend(r.iter().map(|c| grid::csv_field(&c.raw())));
        out += &(line.join(",") + "\n");
    }
    out
}

impl Exporter for Csv {
    fn export(&self, r: &Report) -> Result<Vec<Artifact>, ExportError> {
        let mut blocks = Vec::new();
        if !r.answer.is_empty() {
            let mut b = String::from("answer,value\n");
            for (k, v) in &r.answer {
                b += &format!("{},{}\n", grid::csv_field(k), grid::csv_field(v));
            }
            blocks.push(b);
        }
        blocks.extend(r.sections.iter().flat_map(|s| &s.tables).map(|t| match t {
            TableBlock::Grid(g) => csv_block(g),
            TableBlock::Table(t) => t.csv(),
            TableBlock::Compared(t) => t.csv(),
            TableBlock::Summary(s) => csv_block(&s.full),
        }));
        // Notes last, as footnotes: the tables come first.
        if !r.notes.is_empty() {
            let mut b = String::from("note\n");
            for n in &r.notes {
                b += &format!("{}\n", grid::csv_field(n));
            }
            blocks.push(b);
        }
        Ok(vec![Artifact::text("report.csv", blocks.join("\n"))])
    }
}

/// The whole model as JSON: answer, facts, warnings, sections with tables (cells as numbers in
/// the column's unit: latencies in ns) and chart specs.
pub struct Json;

/// The report as JSON (pretty, a newline at the end) into `w`: what [`Json`] exports, streamed
/// (`report --format json` of 100,000 points writes it out as it goes, never holding it).
pub fn json_to(r: &Report, mut w: impl std::io::Write) -> Result<(), ExportError> {
    serde_json::to_writer_pretty(&mut w, r)?;
    w.write_all(b"\n").map_err(serde_json::Error::io)?;
    Ok(())
}

impl Exporter for Json {
    fn export(&self, r: &Report) -> Result<Vec<Artifact>, ExportError> {
        // Written into one buffer (a report of many thousand points is a large document; a
        // String grown by doubling would hold up to twice it).
        let mut bytes = Vec::with_capacity(1 << 16);
        json_to(r, &mut bytes)?;
        let s =
            String::from_utf8(bytes).map_err(|e| ExportError::from(serde_json::Error::io(std::io::Error::other(e))))?;
        Ok(vec![Artifact::text("report.json", s)])
    }
}
