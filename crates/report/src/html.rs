//! The HTML report of a results directory: one self-contained file (inline SVG charts, inline
//! CSS, no script, no network, no external files) that reads on screen and on paper.
//!
//! Run facts first (host, targets with their device facts, tool, command line, date), then
//! warnings next to the points they concern (CPU-bound, buffered I/O, interrupted, errors), then
//! each table of the suite with the chart that fits it above it, then latency percentiles and
//! CDFs on log axes, then per-second time series (downsampled so big sweeps stay small).

use std::fmt::Write;

use drivelab_lab::runner::{PointResult, RunManifest};

use crate::charts::{self, LineChart, Series, Size, XScale};
use crate::suite_tables;
use crate::tables::Table;

/// Time series are drawn for at most this many points (a bsqd run has 192 per target).
const MAX_SERIES_CHARTS: usize = 24;
/// Points per time-series chart at most (longer runs are averaged into this many).
const MAX_SERIES_POINTS: usize = 60;
/// Points in the latency charts at most.
const MAX_LATENCY_SERIES: usize = 8;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1000px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .9em; }
td, th { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
.facts td, .facts th { text-align: left; }
.warn { background: #fff4e0; border-left: 4px solid #e69500; padding: .4em .8em; margin: .3em 0; }
.chart svg { max-width: 100%; height: auto; }
details { margin: .3em 0; } summary { cursor: pointer; }
@media print { body { max-width: none; } details { display: block; } .chart { page-break-inside: avoid; } }
"#;

fn table_html(t: &Table) -> String {
    let mut h = String::from("<table><thead><tr>");
    let _ = write!(h, "<th>{}</th>", esc(&t.row_header));
    for c in &t.cols {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h += "</tr></thead><tbody>";
    for (name, vals) in &t.rows {
        let _ = write!(h, "<tr><td>{}</td>", esc(name));
        for v in vals {
            match v {
                Some(x) => {
                    let _ = write!(h, "<td>{}</td>", charts::fmt_num(*x));
                }
                None => h += "<td>—</td>",
            }
        }
        h += "</tr>";
    }
    h += "</tbody></table>";
    h
}

/// The x axis of a suite's tables, with units.
fn x_label(kind: &str) -> &'static str {
    match kind {
        "suite:iometer" => "outstanding I/Os per disk (DQL)",
        "suite:mixed" => "reads (% of I/Os)",
        "suite:jbod" => "drives at once (count)",
        "suite:bsqd" => "queue depth (I/Os)",
        _ => "",
    }
}

/// The chart that fits a table of `kind`.
fn chart_for(kind: &str, t: &Table) -> String {
    let numeric =
        t.cols.iter().filter(|c| c.trim_end_matches(|ch: char| !ch.is_ascii_digit()).parse::<f64>().is_ok()).count();
    match kind {
        "suite:bsqd" => charts::heatmap_with(t, x_label(kind), Size::default()),
        "suite:iometer" => charts::grouped_bars_with(t, x_label(kind), Size::default()),
        "suite:mixed" => charts::line_from_table(t, x_label(kind), XScale::Linear),
        "suite:jbod" if t.row_header == "targets" || t.row_header.starts_with("drives") => jbod_chart(t),
        _ if numeric >= 3 && numeric == t.cols.len() => {
            let label = format!("{} (from the plan)", t.cols.first().map(|_| "column value").unwrap_or(""));
            charts::line_from_table(t, &label, XScale::Linear)
        }
        _ => charts::grouped_bars(t),
    }
}

/// JBOD: each workload's aggregate against drives at once, with k x one drive as the ideal.
fn jbod_chart(t: &Table) -> String {
    let ks: Vec<f64> = t.rows.iter().map(|(k, _)| k.parse().unwrap_or(0.0)).collect();
    let mut series = Vec::new();
    for (ci, col) in t.cols.iter().enumerate() {
        let pts: Vec<(f64, f64)> =
            t.rows.iter().zip(&ks).filter_map(|((_, v), k)| Some((*k, v.get(ci).copied().flatten()?))).collect();
        if let Some(&(k1, one)) = pts.first() {
            if t.unit != "%" {
                series.push(Series {
                    name: format!("{col} ideal"),
                    points: ks.iter().map(|k| (*k, one / k1.max(1.0) * k)).collect(),
                });
            }
        }
        series.push(Series { name: col.clone(), points: pts });
    }
    charts::line_chart(&LineChart {
        title: format!("{} ({})", t.title, t.unit),
        x_label: x_label("suite:jbod").into(),
        y_label: t.unit.clone(),
        x_scale: XScale::Linear,
        y_log: false,
        series,
    })
}

/// Warnings grouped by kind: (one-line summary, the points it concerns). A sweep where every
/// point is CPU-bound gets one line, not hundreds.
fn warnings(points: &[PointResult]) -> Vec<(String, Vec<String>)> {
    let mut cpu = Vec::new();
    let (mut lo, mut hi) = (f64::MAX, 0f64);
    let (mut buffered, mut interrupted, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for p in points {
        let r = &p.result;
        let at = format!("point {} ({})", p.point.index, esc(&p.point.label));
        if r.cpu.cpu_bound {
            lo = lo.min(r.cpu.busiest_job_pct);
            hi = hi.max(r.cpu.busiest_job_pct);
            cpu.push(format!(
                "{at}: {:.0}% of a core, runnable {:.0}% of the time",
                r.cpu.busiest_job_pct, r.cpu.runnable_pct
            ));
        }
        if !r.spec.direct {
            buffered.push(at.clone());
        }
        if r.interrupted {
            interrupted.push(at.clone());
        }
        for e in &r.errors {
            errors.push(format!(
                "{at}: {} {} error(s) on {}: {} (first at offset {})",
                e.count,
                esc(&e.op),
                esc(&e.target),
                esc(&e.error),
                e.first_offset_bytes
            ));
        }
    }
    let n = points.len();
    let mut w = Vec::new();
    if !cpu.is_empty() {
        w.push((
            format!(
                "CPU-bound on {} of {n} points: drivelab's busiest job thread used {lo:.0}–{hi:.0}% of a core; there the CPU, not the target, was the limit",
                cpu.len()
            ),
            cpu,
        ));
    }
    if !buffered.is_empty() {
        w.push((
            format!("buffered I/O on {} of {n} points: their results include the page cache", buffered.len()),
            buffered,
        ));
    }
    if !interrupted.is_empty() {
        w.push((format!("{} point(s) interrupted: partial results", interrupted.len()), interrupted));
    }
    if !errors.is_empty() {
        w.push((format!("I/O errors on {} point(s)", errors.len()), errors));
    }
    w
}

fn facts(m: &RunManifest) -> String {
    let mut h = String::from("<table class=\"facts\">");
    let row = |h: &mut String, k: &str, v: &str| {
        let _ = write!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    };
    row(&mut h, "run", &format!("{} ({})", m.plan.name, m.kind));
    row(&mut h, "started (UTC)", &drivelab_lab::store::utc_stamp(m.started_unix_ms / 1000));
    row(&mut h, "tool", &format!("{} {}", m.tool.name, m.tool.version));
    row(&mut h, "command line", &m.command_line.join(" "));
    let host = &m.host;
    row(
        &mut h,
        "host",
        &format!(
            "{} · kernel {} · {} · {} x {} · {} GiB RAM · clocksource {} · {}",
            host.hostname,
            host.kernel,
            host.os.as_deref().unwrap_or("unknown OS"),
            host.cores_online,
            host.cpu_model.as_deref().unwrap_or("CPU"),
            host.memory_bytes >> 30,
            host.clocksource.as_deref().unwrap_or("?"),
            host.virtualization.as_deref().unwrap_or("bare metal or unknown")
        ),
    );
    for t in &m.targets {
        let mut parts = Vec::new();
        if let Some(d) = &t.device {
            parts.push(d.disk.clone());
            for v in
                [&d.model, &d.serial, &d.firmware, &d.transport, &d.scheduler, &d.write_cache].into_iter().flatten()
            {
                parts.push(v.clone());
            }
            if let Some(r) = d.rotational {
                parts.push(if r { "rotational".into() } else { "non-rotational".into() });
            }
            if let Some(c) = d.capacity_bytes {
                parts.push(format!("{} bytes", c));
            }
            if let (Some(l), Some(p)) = (d.logical_block_bytes, d.physical_block_bytes) {
                parts.push(format!("{l}/{p}-byte blocks"));
            }
        }
        if let Some(f) = &t.file {
            parts.push(format!("{} on {} ({})", f.filesystem, f.mount_point, f.source));
        }
        row(&mut h, &format!("target {}", t.path), &parts.join(" · "));
    }
    h += "</table>";
    h
}

/// Evenly spaced subset of at most `n` items.
fn pick<T>(items: &[T], n: usize) -> Vec<&T> {
    if items.len() <= n {
        return items.iter().collect();
    }
    (0..n).map(|i| &items[i * items.len() / n]).collect()
}

fn latency_section(points: &[PointResult]) -> String {
    let chosen = pick(points, MAX_LATENCY_SERIES);
    let pct: Vec<(String, Vec<(f64, f64)>)> = chosen
        .iter()
        .map(|p| {
            let l = &p.result.total.lat_ns;
            let v = drivelab_engine::hist::PERCENTILES.iter().map(|&(q, name)| (q, l.p(name) as f64)).collect();
            (p.point.label.clone(), v)
        })
        .collect();
    let cdf: Vec<(String, &drivelab_engine::hist::HistogramData)> =
        chosen.iter().map(|p| (p.point.label.clone(), &p.result.total.lat_ns.histogram)).collect();
    let note = if points.len() > chosen.len() {
        format!("<p>{} of {} points shown, evenly spaced through the run.</p>", chosen.len(), points.len())
    } else {
        String::new()
    };
    format!(
        "<h2>Latency</h2>{note}<div class=\"chart\">{}</div><div class=\"chart\">{}</div>",
        charts::latency_percentiles(&pct),
        charts::latency_cdf(&cdf)
    )
}

fn series_section(points: &[PointResult]) -> String {
    let mut h = String::from("<h2>Per-second time series</h2>");
    if points.len() > MAX_SERIES_CHARTS {
        let _ = write!(
            h,
            "<p>The first {MAX_SERIES_CHARTS} of {} points; every point's series is in its points/*.json file.</p>",
            points.len()
        );
    }
    for p in points.iter().take(MAX_SERIES_CHARTS) {
        let s = &p.result.series;
        let step = s.len().div_ceil(MAX_SERIES_POINTS).max(1);
        let iops: Vec<(f64, f64)> = s
            .chunks(step)
            .map(|c| (c.last().map(|x| x.t_s).unwrap_or(0.0), c.iter().map(|x| x.iops).sum::<f64>() / c.len() as f64))
            .collect();
        let chart = charts::line_chart_sized(
            &LineChart {
                title: format!("{} — IOPS per second", p.point.label),
                x_label: "time since measurement started (s)".into(),
                y_label: "IOPS".into(),
                x_scale: XScale::Linear,
                y_log: false,
                series: vec![Series { name: "IOPS".into(), points: iops }],
            },
            Size { w: 640, h: 260 },
        );
        let _ = write!(
            h,
            "<details><summary>point {}: {}</summary><div class=\"chart\">{chart}</div></details>",
            p.point.index,
            esc(&p.point.label)
        );
    }
    h
}

/// The whole report of one results directory.
pub fn report(manifest: &RunManifest, points: &[PointResult]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivelab report: {}</title><style>{STYLE}</style></head><body>",
        esc(&manifest.plan.name)
    );
    let _ = write!(h, "<h1>drivelab report: {}</h1>", esc(&manifest.plan.name));
    h += &facts(manifest);
    let w = warnings(points);
    if !w.is_empty() {
        h += "<h2>Warnings</h2>";
        for (summary, which) in &w {
            let _ = write!(h, "<div class=\"warn\">{summary}<details><summary>which points</summary><ul>");
            for line in which {
                let _ = write!(h, "<li>{line}</li>");
            }
            h += "</ul></details></div>";
        }
    }
    if points.is_empty() {
        h += "<p>No finished points yet.</p></body></html>";
        return h;
    }
    for t in suite_tables::tables(&manifest.kind, points) {
        let _ = write!(
            h,
            "<h2>{}</h2><div class=\"chart\">{}</div>{}",
            esc(&t.heading()),
            chart_for(&manifest.kind, &t),
            table_html(&t)
        );
    }
    h += &latency_section(points);
    h += &series_section(points);
    h += "</body></html>\n";
    h
}

/// The HTML page of a comparison: per table, the runs' values overlaid in one chart (a bar per
/// run), the side-by-side table with Δ rows, and the points present in one run but not another.
pub fn compare_report(c: &crate::compare::Comparison) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivelab compare</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(
        h,
        "<h1>drivelab compare ({})</h1><p>Baseline: <b>{}</b>; Δ rows are the change against it in percent.</p><ul>",
        esc(&c.kind),
        esc(&c.runs[0])
    );
    for r in &c.runs {
        let _ = write!(h, "<li>{}</li>", esc(r));
    }
    h += "</ul>";
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
        let values: Vec<(String, Vec<Option<f64>>)> =
            t.rows.iter().filter(|r| !r.delta).map(|r| (r.label.clone(), r.cells.clone())).collect();
        let overlay = Table {
            title: t.title.clone(),
            unit: t.unit.clone(),
            row_header: t.row_header.clone(),
            cols: t.cols.clone(),
            rows: values,
        };
        let _ = write!(
            h,
            "<h2>{} ({})</h2><div class=\"chart\">{}</div>",
            esc(&t.title),
            esc(&t.unit),
            charts::grouped_bars(&overlay)
        );
        h += "<table><thead><tr>";
        let _ = write!(h, "<th>{}</th>", esc(&t.row_header));
        for col in &t.cols {
            let _ = write!(h, "<th>{}</th>", esc(col));
        }
        h += "</tr></thead><tbody>";
        for r in &t.rows {
            let _ = write!(h, "<tr><td>{}</td>", esc(&r.label));
            for v in &r.cells {
                let cell = match (v, r.delta) {
                    (Some(x), true) => format!("{x:+.1}%"),
                    (Some(x), false) => charts::fmt_num(*x),
                    (None, _) => "—".into(),
                };
                let _ = write!(h, "<td>{cell}</td>");
            }
            h += "</tr>";
        }
        h += "</tbody></table>";
    }
    h += "</body></html>\n";
    h
}
