//! The HTML page of a comparison: who was compared (each run's facts: host, tool, command
//! line, targets and their devices, side by side), then per table the runs' values overlaid in
//! one chart (a bar per run) above the side-by-side table with Δ rows, then a latency panel (each
//! run's percentiles and exceedance from all its I/Os), and the points present in one run but not
//! another. Split from `html.rs`, which lays out the report of one run.

use std::fmt::Write;

use drivelab_engine::hist::{Histogram, HistogramData, Pct};
use drivelab_engine::Error;

use super::*;
use crate::compare::{Comparison, Run};

/// The HTML page of a comparison: per table, the runs' values overlaid in one chart (a bar per
/// run), the side-by-side table with Δ rows, and the points present in one run but not another.
pub fn compare_report(c: &Comparison) -> String {
    page(c, &[])
}

/// The comparison of `runs` (the first is the baseline) as its page, with the runs' facts and
/// latency panel.
pub fn compare_page(runs: &[Run]) -> Result<String, Error> {
    Ok(page(&crate::compare::compare(runs)?, runs))
}

fn page(c: &Comparison, runs: &[Run]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivelab compare</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(
        h,
        "<h1>drivelab compare ({})</h1><p>Baseline: <b>{}</b>; Δ rows are the change against it in percent.</p>",
        esc(&c.kind.to_string()),
        esc(&c.runs[0])
    );
    if let Some(n) = c.matching_note() {
        let _ = write!(h, "<p>{}</p>", esc(n));
    }
    h += &crate::export::html::grid_html(&crate::compare_runs::runs_grid(&c.run_info));
    h += &facts_side_by_side(runs);
    if !c.missing.is_empty() {
        h += "<h2>Points missing from a run</h2>";
        for m in &c.missing {
            let _ = write!(
                h,
                "<div class=\"warn\">point '{}' is in {} but not in {}</div>",
                esc(&m.point),
                esc(&c.runs[m.present]),
                esc(&c.runs[m.absent])
            );
        }
    }
    for t in &c.tables {
        // A bar per run and row; rows keyed by a plan field say which ("qd 8 [B]").
        let legend = |r: &crate::compare::CompareRow| match t.row_header.as_str() {
            "run" => r.label.clone(),
            key => format!("{} [{}]", legend_entry(key, &r.row), c.runs[r.run]),
        };
        let values: Vec<(String, Vec<Option<f64>>)> =
            t.rows.iter().filter(|r| !r.delta).map(|r| (legend(r), r.cells.clone())).collect();
        let overlay = Table {
            title: chart_title(t.heading(), t.errored.iter().filter(|e| !t.rows[e.row].delta).count()),
            unit: value_axis(&t.unit),
            row_header: t.row_header.clone(),
            col_header: t.col_header.clone(),
            cols: t.cols.clone(),
            rows: values,
            note: None,
            errored: Vec::new(),
        };
        let _ = write!(
            h,
            "<h2>{}</h2><div class=\"chart\">{}</div>",
            esc(&t.heading()),
            charts::grouped_bars_with(&overlay, &axis_label(c.kind, &t.col_header), Size::default())
        );
        h += "<table><thead><tr>";
        let _ = write!(h, "<th>{}</th>", esc(&t.row_header));
        for col in &t.cols {
            let _ = write!(h, "<th>{}</th>", esc(col));
        }
        h += "</tr></thead><tbody>";
        for (ri, r) in t.rows.iter().enumerate() {
            let _ = write!(h, "<tr><td>{}</td>", esc(&r.label));
            for (ci, v) in r.cells.iter().enumerate() {
                match (v, r.delta) {
                    (Some(x), true) => h += &value_td(&format!("{x:+.1}%"), t.is_errored(ri, ci)),
                    (Some(x), false) => h += &value_td(&grid::human(*x, &t.unit), t.is_errored(ri, ci)),
                    (None, _) => h += "<td>—</td>",
                }
            }
            h += "</tr>";
        }
        h += "</tbody></table>";
        if let Some(n) = &t.note {
            let _ = write!(h, "<p class=\"note\">{}</p>", esc(n));
        }
        h += &errored_note_html(&t.errored);
    }
    h += &latency_panel(runs);
    h += "</body></html>\n";
    h
}

/// Each run's facts (run, start, tool, command line, host, targets) in a column of its own, a
/// row per fact; nothing without runs.
fn facts_side_by_side(runs: &[Run]) -> String {
    if runs.is_empty() {
        return String::new();
    }
    let per_run: Vec<Vec<(String, String)>> = runs
        .iter()
        .map(|r| {
            let mut rows: Vec<(String, String)> = Vec::new();
            let mut targets = Vec::new();
            for (k, v) in fact_rows(&r.manifest) {
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
    for rows in &per_run {
        for (k, _) in rows {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let mut h = String::from("<h2>Run facts</h2><div class=\"wide\"><table class=\"facts\"><thead><tr><th></th>");
    for r in runs {
        let _ = write!(h, "<th>{}</th>", esc(&r.label));
    }
    h += "</tr></thead><tbody>";
    for k in keys {
        let _ = write!(h, "<tr><th>{}</th>", esc(k));
        for rows in &per_run {
            let v = rows.iter().find(|(key, _)| key == k).map_or("—", |(_, v)| v.as_str());
            let _ = write!(h, "<td>{}</td>", esc(v));
        }
        h += "</tr>";
    }
    h + "</tbody></table></div>"
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

/// The runs' latency side by side: percentiles and exceedance of each run's I/Os, and a table
/// of the percentiles.
fn latency_panel(runs: &[Run]) -> String {
    let merged: Vec<(String, HistogramData, usize)> =
        runs.iter().filter_map(|r| merged_histogram(r).map(|h| (r.label.clone(), h, r.points.len()))).collect();
    if merged.is_empty() {
        return String::new();
    }
    let name = |label: &str, n: usize| match n {
        1 => label.to_string(),
        n => format!("{label} (all {n} points)"),
    };
    let mut h = String::from(
        "<h2>Latency</h2><p>Each run's I/Os of all its points together (the runs ran the same points): \
         the percentiles, and the share of I/Os slower than each latency.</p>",
    );
    let pcts: Vec<(String, Vec<(f64, f64)>)> = merged
        .iter()
        .map(|(l, d, n)| {
            let hist = Histogram::from_sparse(&d.buckets);
            (name(l, *n), Pct::ALL.iter().map(|q| (q.value(), hist.percentile(q.value()) as f64)).collect())
        })
        .collect();
    let specs = [
        ChartSpec::Percentiles { title: "Latency percentiles per run".into(), series: pcts.clone() },
        ChartSpec::Exceedance {
            title: "Latency exceedance per run: I/Os slower than each latency".into(),
            series: merged.iter().map(|(l, d, n)| (name(l, *n), d.clone())).collect(),
        },
    ];
    for spec in &specs {
        let _ = write!(h, "<div class=\"chart\">{}</div>", charts::draw(spec));
    }
    let shown = [Pct::P50, Pct::P90, Pct::P99, Pct::P99_9, Pct::P99_99];
    h += "<div class=\"wide\"><table><thead><tr><th>run</th>";
    for q in shown {
        let _ = write!(h, "<th>{}</th>", q.name());
    }
    h += "</tr></thead><tbody>";
    for ((label, _), (_, d, _)) in pcts.iter().zip(&merged) {
        let hist = Histogram::from_sparse(&d.buckets);
        let _ = write!(h, "<tr><td>{}</td>", esc(label));
        for q in shown {
            let _ = write!(h, "<td>{}</td>", esc(&drivelab_engine::units::fmt_ns(hist.percentile(q.value()) as f64)));
        }
        h += "</tr>";
    }
    h + "</tbody></table></div>"
}
