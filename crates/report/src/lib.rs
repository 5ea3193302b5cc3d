//! drivelab's report layer: what saved results look like to a reader.
//!
//! Measuring and reporting meet only at the results directory (`drivelab_lab::results`): this
//! crate reads saved points and probes and turns them into tables, charts and pages. It never
//! runs an I/O, so a report can be made, remade or reshaped long after the drive is gone.
//!
//! qos, act and run directories are described as a typed [`model::Report`] by [`views`] and
//! written by an [`export::Exporter`]; plans and suites are still rendered by
//! [`suite_tables`] (text) and [`html`] (their page).

pub mod charts;
pub mod compare;
pub mod compare_figures;
pub mod export;
mod grid;
pub mod html;
pub mod model;
pub mod png;
pub mod suite_tables;
pub mod tables;
pub mod views;

use drivelab_lab::results::Results;

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

pub use tables::{build, default_tables, Dir, Key, Metric, Table, TableSpec};

/// A results directory in a single-document format (text, md, csv, json, html).
pub fn render(saved: &Results, format: Format) -> Result<String, String> {
    if let Some(model) = views::build(saved) {
        return export::export_text(format, &model);
    }
    if format == Format::Html {
        return Ok(html_page(saved));
    }
    let tables = suite_tables::tables(saved.manifest.kind, &saved.points);
    if format == Format::Json {
        let mut text = serde_json::to_string_pretty(&tables).map_err(|e| format!("encoding JSON: {e}"))?;
        text.push('\n');
        return Ok(text);
    }
    let mut out = String::new();
    for t in tables {
        out += &match format {
            Format::Markdown => t.markdown(),
            Format::Csv => t.csv(),
            _ => t.text(),
        };
        out.push('\n');
    }
    if out.is_empty() {
        out = format!("{}: no finished points yet\n", saved.dir.display());
    }
    Ok(out)
}

/// The HTML report of a results directory of any kind.
pub fn html_page(saved: &Results) -> String {
    match views::build(saved) {
        Some(model) => export::html::page(&model),
        None => html::report(&saved.manifest, &saved.points),
    }
}

/// Every chart of a results directory as (file name, PNG bytes), drawn from its chart specs
/// (never from the HTML page).
pub fn chart_pngs(saved: &Results, scale: f32) -> Result<Vec<(String, Vec<u8>)>, String> {
    match views::build(saved) {
        Some(model) => {
            let docs = export::Png { scale }.export(&model)?;
            Ok(docs.into_iter().map(|d| (d.name, d.bytes)).collect())
        }
        None => {
            let specs = views::plan::chart_specs(&saved.manifest, &saved.points);
            let report = model::Report {
                title: String::new(),
                answer: Vec::new(),
                facts: Vec::new(),
                warnings: Vec::new(),
                sections: vec![model::Section { charts: specs, ..model::Section::new("charts") }],
            };
            let docs = export::Png { scale }.export(&report)?;
            Ok(docs.into_iter().map(|d| (d.name, d.bytes)).collect())
        }
    }
}

use export::Exporter;

#[cfg(test)]
mod svg_read;
#[cfg(test)]
mod test_support;
