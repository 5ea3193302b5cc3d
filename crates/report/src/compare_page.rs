//! What a comparison's page shows beyond [`Comparison::report`], as more of the same model (the
//! HTML exporter draws it; there is no page renderer of compare's own): each side-by-side
//! table's runs overlaid as bars (a bar per run and row), each run's facts side by side (a
//! column per run, a row per fact), and a latency panel — each run's percentiles and exceedance
//! from all of its points' I/Os merged, with a table of p50 … p99.99 per run. The facts and the
//! panel need the runs' manifests and histograms, which a [`Comparison`] does not keep (its
//! JSON stays figures), so they are added from the [`Run`]s.

use drivelab_engine::hist::{Histogram, HistogramData, Pct};
use drivelab_engine::Error;

use crate::axis_words::{legend_entry, value_axis};
use crate::compare::{CompareRow, Comparison, Run, SideBySide};
use crate::compare_model::LATENCY;
use crate::html::chart_title;
use crate::model::{Cell, ChartSpec, Column, Grid, Report, Section, TableBlock, Unit};
use crate::tables::Table;

/// The title of the side-by-side facts section.
pub const RUN_FACTS: &str = "Run facts";

/// The comparison of `runs` (the first is the baseline) as the model its page draws.
pub fn page_report(runs: &[Run]) -> Result<Report, Error> {
    Ok(with_runs(&crate::compare::compare(runs)?, runs))
}

/// `c`'s report with a chart per side-by-side table, and with `runs`' facts side by side (in
/// place of the facts listed per run) and their latency panel.
pub fn with_runs(c: &Comparison, runs: &[Run]) -> Report {
    let mut r = c.report();
    for s in &mut r.sections {
        let charts: Vec<ChartSpec> = s
            .tables
            .iter()
            .filter_map(|t| match t {
                TableBlock::Compared(t) => Some(ChartSpec::Bars { table: overlay(c, t) }),
                _ => None,
            })
            .collect();
        s.charts.extend(charts);
    }
    if runs.is_empty() {
        return r;
    }
    // The settings listed per run ("A: host") give way to the same facts side by side.
    r.facts.truncate(c.run_info.len());
    let at = r.sections.iter().position(|s| s.title == crate::compare_runs::RUNS_COMPARED).map_or(0, |i| i + 1);
    let mut facts = Section::new(RUN_FACTS);
    facts.tables.push(TableBlock::Grid(facts_side_by_side(runs)));
    r.sections.insert(at, facts);
    if let Some((charts, grid)) = latency_panel(runs) {
        let at = match r.sections.iter().position(|s| s.title == LATENCY) {
            Some(i) => i,
            None => {
                r.sections.push(Section::new(LATENCY));
                r.sections.len() - 1
            }
        };
        let s = &mut r.sections[at];
        s.note = Some(
            "Each run's I/Os of all its points together (the runs ran the same points): the percentiles, \
             and the share of I/Os slower than each latency."
                .into(),
        );
        s.charts.extend(charts);
        s.tables.insert(0, TableBlock::Grid(grid));
    }
    r
}

/// The runs' values of a side-by-side table as one table to chart: a row per run and row (Δ rows
/// left out), legends naming the row's key where rows are keyed by a plan field ("qd 8 [B]").
fn overlay(c: &Comparison, t: &SideBySide) -> Table {
    let legend = |r: &CompareRow| match t.row_header.as_str() {
        "run" => r.label.clone(),
        key => format!("{} [{}]", legend_entry(key, &r.row), c.runs[r.run]),
    };
    Table {
        title: chart_title(t.heading(), t.errored.iter().filter(|e| !t.rows[e.row].delta).count()),
        unit: value_axis(&t.unit),
        row_header: t.row_header.clone(),
        // Bars name their x axis by the column header: the key as an axis, with its unit.
        col_header: crate::html::axis_label(c.kind, &t.col_header),
        cols: t.cols.clone(),
        rows: t.rows.iter().filter(|r| !r.delta).map(|r| (legend(r), r.cells.clone())).collect(),
        note: None,
        errored: Vec::new(),
        unsteady: Vec::new(),
    }
}

/// Each run's facts (run, start, tool, command line, host, targets) in a column of its own, a
/// row per fact.
fn facts_side_by_side(runs: &[Run]) -> Grid {
    let per_run: Vec<Vec<(String, String)>> = runs
        .iter()
        .map(|r| {
            let mut rows: Vec<(String, String)> = Vec::new();
            let mut targets = Vec::new();
            for (k, v) in crate::html::fact_rows(&r.manifest) {
                match k.strip_prefix("target ") {
                    Some(path) => targets.push(format!("{path}: {v}")),
                    None => rows.push((k, v)),
                }
            }
            // Results without target facts (fio's) still say where they ran: their points' targets.
            if targets.is_empty() {
                for t in r.points.iter().flat_map(|p| &p.point.targets) {
                    if !targets.contains(t) {
                        targets.push(t.clone());
                    }
                }
            }
            rows.push(("targets".into(), targets.join("; ")));
            rows
        })
        .collect();
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in per_run.iter().flatten() {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let mut columns = vec![Column::new("fact", Unit::Count)];
    columns.extend(runs.iter().map(|r| Column::new(&r.label, Unit::Count)));
    let rows = keys
        .into_iter()
        .map(|k| {
            let mut row = vec![Cell::text(k)];
            row.extend(
                per_run
                    .iter()
                    .map(|rows| Cell::text(rows.iter().find(|(key, _)| key == k).map_or("—", |(_, v)| v.as_str()))),
            );
            row
        })
        .collect();
    Grid { title: RUN_FACTS.into(), columns, rows }
}

/// Every I/O of a run's points in one histogram (the runs ran the same points, so the
/// distributions compare); None where no point saved one (fio's plain JSON).
fn merged_histogram(r: &Run) -> Option<HistogramData> {
    let mut all = Histogram::new();
    for p in &r.points {
        all.merge(&Histogram::from_sparse(&p.result.total.lat_ns.histogram.buckets));
    }
    (all.count() > 0).then(|| all.summary().histogram)
}

/// The title of the panel's table of each run's percentiles.
pub const LATENCY_PER_RUN: &str = "Latency per run, all points' I/Os";

/// The runs' latency side by side: the percentiles and exceedance charts of each run's I/Os, and
/// a grid of their percentiles; None where no run saved a histogram.
fn latency_panel(runs: &[Run]) -> Option<(Vec<ChartSpec>, Grid)> {
    let merged: Vec<(String, Histogram, HistogramData)> = runs
        .iter()
        .filter_map(|r| {
            let d = merged_histogram(r)?;
            let name = match r.points.len() {
                1 => r.label.clone(),
                n => format!("{} (all {n} points)", r.label),
            };
            Some((name, Histogram::from_sparse(&d.buckets), d))
        })
        .collect();
    if merged.is_empty() {
        return None;
    }
    let pcts = merged
        .iter()
        .map(|(l, h, _)| (l.clone(), Pct::ALL.iter().map(|q| (q.value(), h.percentile(q.value()) as f64)).collect()))
        .collect();
    let charts = vec![
        ChartSpec::Percentiles { title: "Latency percentiles per run".into(), series: pcts },
        ChartSpec::Exceedance {
            title: "Latency exceedance per run: I/Os slower than each latency".into(),
            series: merged.iter().map(|(l, _, d)| (l.clone(), d.clone())).collect(),
        },
    ];
    let shown = [Pct::P50, Pct::P90, Pct::P99, Pct::P99_9, Pct::P99_99];
    let mut columns = vec![Column::new("run", Unit::Count)];
    columns.extend(shown.iter().map(|q| Column::new(q.name(), Unit::Ns)));
    let rows = merged
        .iter()
        .map(|(l, h, _)| {
            let mut row = vec![Cell::text(l)];
            row.extend(shown.iter().map(|q| Cell::num(Some(h.percentile(q.value()) as f64))));
            row
        })
        .collect();
    Some((charts, Grid { title: LATENCY_PER_RUN.into(), columns, rows }))
}
