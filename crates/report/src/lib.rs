//! drivelab's report layer: what saved results look like to a reader.
//!
//! Measuring and reporting meet only at the results directory (`drivelab_lab::results`): this
//! crate reads saved points and probes and turns them into tables, charts and pages. It never
//! runs an I/O, so a report can be made, remade or reshaped long after the drive is gone.
//!
//! Every results directory is described as a typed [`model::Report`] by [`views`] and written
//! by an [`export::Exporter`] (text, Markdown, CSV, JSON, HTML, PNG); the HTML page of a plan or
//! suite is [`html::report`], which draws the same chart specs and adds a sparkline row per point.

pub mod all_ranks;
mod axis_words;
pub mod charts;
pub mod compare;
pub mod compare_figures;
pub mod compare_model;
pub mod compare_page;
pub mod compare_runs;
pub mod compare_split;
pub mod durable;
pub mod export;
pub mod fio_out;
pub mod fit;
mod grid;
pub mod html;
pub mod model;
pub mod png;
pub mod point_targets;
pub mod series_csv;
pub mod suite_tables;
pub mod tables;
pub mod tidy_csv;
pub mod views;

use drivelab_lab::results::{Kind, Results};

/// What `report` and `compare` print: one format enum for every exporter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a terminal.
    Text,
    Markdown,
    Csv,
    /// The tables (plan, suite) or the whole report model (qos, act, run) as data.
    Json,
    /// The self-contained page.
    Html,
    /// Every chart as a PNG file.
    Png,
}

impl Format {
    pub const ALL: [Format; 6] = [Format::Text, Format::Markdown, Format::Csv, Format::Json, Format::Html, Format::Png];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Markdown => "md",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Html => "html",
            Format::Png => "png",
        }
    }

    /// The format `name` names (`markdown` too).
    pub fn from_name(name: &str) -> Option<Format> {
        let name = if name == "markdown" { "md" } else { name };
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// One document that can go to standard output (every format but PNG, which is a file per
    /// chart: `report --png DIR`).
    pub fn is_document(self) -> bool {
        self != Format::Png
    }

    /// The names of the document formats, for `--format`.
    pub fn document_names() -> Vec<&'static str> {
        Self::ALL.into_iter().filter(|f| f.is_document()).map(Format::name).collect()
    }
}

pub use tables::{build, default_tables, Dir, Key, Metric, Table, TableSpec};

/// A results directory in a single-document format (text, md, csv, json, html). CSV is the
/// tidy table, a row per point ([`tidy_csv`]); the tables as CSV are [`tables_csv`].
pub fn render(saved: &Results, format: Format) -> Result<String, export::ExportError> {
    match format {
        Format::Html => Ok(html_page(saved)),
        Format::Csv => Ok(tidy_csv::csv(saved)),
        _ => export::export_text(format, &views::build(saved)),
    }
}

/// A results directory's report as JSON into `w`, as it is made (never held whole), escaped as
/// every text drivelab writes: what [`render`] gives for [`Format::Json`], for a document too
/// large to hold twice.
pub fn write_json(saved: &Results, w: impl std::io::Write) -> Result<(), export::ExportError> {
    let mut text = drivelab_engine::printable::PrintableWriter::new(w);
    export::json_to(&views::build(saved), &mut text)?;
    text.into_inner().map_err(serde_json::Error::io)?;
    Ok(())
}

/// A results directory's text with `notes` added (what the command knows that the saved results
/// do not say): what `drivelab run` prints, the same as `drivelab report RUNDIR`.
pub fn run_text(saved: &Results, notes: &[String]) -> Result<String, export::ExportError> {
    let mut r = views::build(saved);
    r.notes.extend(notes.iter().filter(|n| !r.notes.contains(n)).cloned().collect::<Vec<_>>());
    export::export_text(Format::Text, &r)
}

/// The report's tables as CSV blocks, each headed by its metric and axes (`report --format csv
/// --tables`): the CSV exporter of the report model.
pub fn tables_csv(saved: &Results) -> Result<String, export::ExportError> {
    export::export_text(Format::Csv, &views::build(saved))
}

/// The HTML report of a results directory of any kind: the Html exporter's page, or for plans
/// and suites the page with a sparkline row per point ([`html::report`]).
pub fn html_page(saved: &Results) -> String {
    match saved.manifest.kind {
        Kind::Plan | Kind::Suite(_) => html::report(&saved.manifest, &saved.points),
        _ => export::html::page(&views::build(saved)),
    }
}

/// [`html_page`] written into `w` as it is made (a plan's page section by section: one of many
/// thousand points is never held whole in memory), escaped as every text drivelab writes
/// ([`drivelab_engine::printable`]: a page someone `cat`s obeys nothing in a saved label).
pub fn write_html_page(saved: &Results, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut text = drivelab_engine::printable::PrintableWriter::new(w);
    page_to(saved, &mut text)?;
    text.into_inner().map(drop)
}

fn page_to(saved: &Results, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    /// The page's text into `w`, keeping the first I/O error (fmt::Write carries none).
    struct Sink<'a> {
        w: &'a mut dyn std::io::Write,
        err: Option<std::io::Error>,
    }
    impl std::fmt::Write for Sink<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.w.write_all(s.as_bytes()).map_err(|e| {
                self.err.get_or_insert(e);
                std::fmt::Error
            })
        }
    }
    match saved.manifest.kind {
        Kind::Plan | Kind::Suite(_) => {
            let mut sink = Sink { w, err: None };
            match html::report_to(&saved.manifest, &saved.points, &mut sink) {
                Ok(()) => Ok(()),
                Err(_) => Err(sink.err.unwrap_or_else(|| std::io::Error::other("the report could not be written"))),
            }
        }
        _ => w.write_all(export::html::page(&views::build(saved)).as_bytes()),
    }
}

/// Every chart of a results directory as (file name, PNG bytes), drawn from its chart specs
/// (never from the HTML page).
pub fn chart_pngs(saved: &Results, scale: f32) -> Result<Vec<(String, Vec<u8>)>, export::ExportError> {
    let docs = export::Png { scale }.export(&views::build(saved))?;
    Ok(docs.into_iter().map(|d| (d.name, d.bytes)).collect())
}

use export::Exporter;

#[cfg(test)]
mod svg_read;
#[cfg(test)]
mod test_support;
