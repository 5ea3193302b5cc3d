//! The HTML report of a results directory: one self-contained file (inline SVG charts, inline
//! CSS, no script, no network, no external files) that reads on screen and on paper.
//!
//! Run facts first (host, targets with their device facts, tool, command line, date), then
//! warnings next to the points they concern (CPU-bound, buffered I/O, interrupted, errors), then
//! each table of the suite with the chart that fits it above it, then latency percentiles and
//! CDFs on log axes, then per-second time series.
//!
//! # Time series of every point
//!
//! A bsqd run has 192 points per target and a reader may want any one of them, so every point
//! gets a table row with two sparklines (IOPS and p99 latency per second, min and max written
//! next to them, a `<title>` tooltip with the figures) instead of a full chart: a sparkline is
//! about 1.3 KB, a full chart 10-20 KB, so a 384-point run of minute-long points stays near 1 MB
//! where full charts for all would be 10 MB and full charts for a few would hide the rest.
//! Series longer than [`MAX_SPARK_SAMPLES`] seconds are averaged down (p99 keeps each group's
//! worst second). Runs of at most [`MAX_FULL_SERIES`] points also get each point's series as
//! full charts with axes, collapsed, for articles.

use std::fmt::Write;

use drivelab_lab::results::{Kind, Manifest, PointResult};
use drivelab_lab::suites::SuiteId;

use crate::charts::{self, LineChart, Series, Size, XScale};
use crate::grid;
use crate::suite_tables::{self, ChartStyle};
use crate::tables::Table;
use crate::views;

pub(crate) use crate::axis_words::axis_label;
use crate::axis_words::{legend_entry, legend_rows, value_axis};

/// Samples per sparkline at most (longer series are averaged into this many): a 384-point bsqd
/// run with minute-long points stays well under 2 MB.
pub(crate) const MAX_SPARK_SAMPLES: usize = 120;
/// Runs with at most this many points also get each point's series as full charts with axes.
pub(crate) const MAX_FULL_SERIES: usize = 12;
/// Samples per full time-series chart at most.
pub(crate) const MAX_SERIES_POINTS: usize = 120;
/// Points in the latency charts at most.
pub(crate) const MAX_LATENCY_SERIES: usize = 8;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub(crate) const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1000px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .9em; display: block; max-width: 100%; overflow-x: auto; }
.wide { max-width: 100%; overflow-x: auto; }
td, th { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
.facts td, .facts th { text-align: left; }
.note { color: #555; font-size: .85em; margin-top: -.8em; }
.warn { background: #fff4e0; border-left: 4px solid #e69500; padding: .4em .8em; margin: .3em 0; }
td.errored { background: #fde2e2; }
.note { background: #eef3f8; border-left: 4px solid #6a8caf; padding: .4em .8em; margin: .3em 0; font-size: .92em; }
.chart svg { max-width: 100%; height: auto; }
.pair { display: flex; flex-wrap: wrap; gap: 0 1em; }
table.series td { padding: 0 .5em; vertical-align: middle; }
table.series th:nth-child(n+3) { text-align: left; }
table.series svg { display: block; }
details { margin: .3em 0; } summary { cursor: pointer; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 11pt; }
  table, .wide { display: table; overflow: visible; }
  .chart, tr, .warn, .note { page-break-inside: avoid; }
  h2 { page-break-after: avoid; }
  table.series svg { width: 220px; height: auto; }
}
"#;

pub(crate) fn table_html(t: &Table) -> String {
    let mut h = String::from("<table><thead><tr>");
    let _ = write!(h, "<th>{}</th>", esc(&t.row_header));
    for c in &t.cols {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h += "</tr></thead><tbody>";
    for (ri, (name, vals)) in t.rows.iter().enumerate() {
        let _ = write!(h, "<tr><td>{}</td>", esc(name));
        for (ci, v) in vals.iter().enumerate() {
            match v {
                Some(x) => {
                    let shown = crate::tables::mark_unsteady(grid::human(*x, &t.unit), t.is_unsteady(ri, ci));
                    h += &value_td(&shown, t.is_errored(ri, ci))
                }
                None => h += "<td>—</td>",
            }
        }
        h += "</tr>";
    }
    h += "</tbody></table>";
    if let Some(n) = &t.note {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(n));
    }
    h += &errored_note_html(&t.errored);
    if let Some(n) = crate::tables::unsteady_note(&t.unsteady) {
        let _ = write!(h, "<p class=\"warn\">{}</p>", esc(&n));
    }
    h
}

/// A figure's cell; an errored point's shaded, with [`crate::tables::ERRORED_MARK`] after it.
pub(crate) fn value_td(shown: &str, errored: bool) -> String {
    if errored {
        format!("<td class=\"errored\">{} <strong>{}</strong></td>", esc(shown), crate::tables::ERRORED_MARK)
    } else {
        format!("<td>{}</td>", esc(shown))
    }
}

/// The footnote of a table's errored cells, as a warning (empty when there are none).
pub(crate) fn errored_note_html(cells: &[crate::tables::ErroredCell]) -> String {
    crate::tables::errored_note(cells).map_or_else(String::new, |n| format!("<p class=\"warn\">{}</p>", esc(&n)))
}

/// A chart's title: an errored point is named on the chart itself, not only in the table
/// beside it.
pub(crate) fn chart_title(heading: String, errored: usize) -> String {
    match errored {
        0 => heading,
        n => format!("{heading} — {n} value(s) {} (I/O error)", crate::tables::ERRORED_MARK),
    }
}

/// The chart that fits a table of `kind`; its title carries the unit (charts are also saved
/// on their own as PNGs).
///
/// Every axis and legend names what it shows ([`axis_words`]): the x axis its key with a unit,
/// the value axis its quantity and unit, each legend entry its key ("qd 8", "bs 4 KiB").
pub(crate) fn chart_for(kind: Kind, t: &Table, log: bool, style: Option<ChartStyle>) -> String {
    let mut title = chart_title(t.heading(), t.errored.len());
    if !t.unsteady.is_empty() {
        title = format!("{title} — {} value(s) {} (not steady)", t.unsteady.len(), crate::tables::UNSTEADY_MARK);
    }
    if log {
        title = format!("{title}, log scale");
    }
    let titled = Table { title, ..t.clone() };
    let t = &titled;
    let x = axis_label(kind, &t.col_header);
    let numbers: Option<Vec<f64>> = t.cols.iter().map(|c| charts::parse_header(c)).collect();
    let style = style.unwrap_or_else(|| kind.suite().map_or(ChartStyle::Auto, |id| suite_tables::views(id).chart));
    // Rows become legend entries (bars, curves) with the value axis in the table's unit.
    let legend = Table { unit: value_axis(&t.unit), ..legend_rows(t) };
    let t_legend = &legend;
    match style {
        ChartStyle::Heatmap => charts::heatmap_with(t, &x, &axis_label(kind, &t.row_header), Size::default()),
        ChartStyle::Bars => charts::grouped_bars_scaled(t_legend, &x, Size::default(), log),
        ChartStyle::Curve => charts::line_from_table_scaled(t_legend, &x, XScale::Linear, Size::default(), log),
        ChartStyle::Scaling
            if (t.row_header == "targets" || t.row_header == "drives")
                && t.rows.iter().all(|(k, _)| k.parse::<f64>().is_ok()) =>
        {
            jbod_chart(t)
        }
        _ => match numbers {
            // Three or more numeric columns (queue depths, read shares...) read as a curve;
            // powers of two equally spaced.
            Some(xs) if xs.len() >= 3 => {
                let pow2 = xs.iter().all(|v| *v >= 1.0 && v.log2().fract() == 0.0);
                let scale = if pow2 { XScale::Log2 } else { XScale::Linear };
                charts::line_from_table_scaled(t_legend, &x, scale, Size::default(), log)
            }
            _ => charts::grouped_bars_scaled(t_legend, &x, Size::default(), log),
        },
    }
}

/// JBOD: each workload's aggregate against drives at once, with k x one drive as its ideal
/// (dashed, in the workload's colour).
fn jbod_chart(t: &Table) -> String {
    let ks: Vec<f64> = t.rows.iter().map(|(k, _)| k.parse().unwrap_or(0.0)).collect();
    let mut series = Vec::new();
    for (ci, col) in t.cols.iter().enumerate() {
        let pts: Vec<(f64, f64)> =
            t.rows.iter().zip(&ks).filter_map(|((_, v), k)| Some((*k, v.get(ci).copied().flatten()?))).collect();
        let first = pts.first().copied();
        let own = series.len();
        series.push(Series::new(legend_entry(&t.col_header, col), pts));
        if let Some((k1, one)) = first.filter(|_| t.unit != "%") {
            series.push(Series {
                name: format!("{}: ideal", legend_entry(&t.col_header, col)),
                points: ks.iter().map(|k| (*k, one / k1.max(1.0) * k)).collect(),
                reference_for: Some(own),
            });
        }
    }
    charts::line_chart(&LineChart {
        title: t.title.clone(),
        x_label: axis_label(Kind::Suite(SuiteId::Jbod), "targets"),
        y_label: value_axis(&t.unit),
        x_scale: XScale::Linear,
        y_log: false,
        series,
    })
}

/// Warnings grouped by kind: (one-line summary, the points it concerns). A sweep where every
/// point is CPU-bound gets one line, not hundreds.
pub(crate) fn warnings(points: &[PointResult]) -> Vec<(String, Vec<String>)> {
    let (mut cpu, mut busy) = (Vec::new(), Vec::new());
    let (mut lo, mut hi) = (f64::MAX, 0f64);
    let (mut buffered, mut interrupted, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for p in points {
        let r = &p.result;
        let at = format!("point {} ({})", p.point.index, esc(&p.point.label));
        if r.cpu.cpu_bound && !crate::views::common::reads_the_page_cache(r) {
            lo = lo.min(r.cpu.busiest_job_pct);
            hi = hi.max(r.cpu.busiest_job_pct);
            cpu.push(format!(
                "{at}: {:.0}% of a core, runnable {:.0}% of the time",
                r.cpu.busiest_job_pct, r.cpu.runnable_pct
            ));
        }
        if let Some(starved) = r.cpu.starved_warning() {
            busy.push(format!("{at}: {starved}"));
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
        let used = if lo.round() == hi.round() { format!("{hi:.0}%") } else { format!("{lo:.0}–{hi:.0}%") };
        w.push((
            format!(
                "CPU-bound on {} of {n} points: drivelab's busiest job thread used {used} of a core; there the CPU, not the target, was the limit",
                cpu.len()
            ),
            cpu,
        ));
    }
    if !busy.is_empty() {
        w.push((
            format!(
                "the machine was busy on {} of {n} points: drivelab's job threads waited for a CPU for {:.0}% of the \
                 run or more, and the latency figures hold that wait",
                busy.len(),
                drivelab_engine::measurement::summarize::CPU_STARVED_PCT
            ),
            busy,
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

/// "20261121-080722" (a results directory's stamp) as "2026-11-21 08:07:22 UTC".
fn readable_stamp(stamp: &str) -> String {
    let d = stamp.as_bytes();
    if stamp.len() == 15 && d[8] == b'-' && stamp.chars().filter(char::is_ascii_digit).count() == 14 {
        let p = |a: usize, b: usize| &stamp[a..b];
        format!("{}-{}-{} {}:{}:{} UTC", p(0, 4), p(4, 6), p(6, 8), p(9, 11), p(11, 13), p(13, 15))
    } else {
        format!("{stamp} UTC")
    }
}

/// The run's facts as (name, value) rows: run, start, tool, command line, host, each target.
pub(crate) fn fact_rows(m: &Manifest) -> Vec<(String, String)> {
    let mut h = Vec::new();
    let row = |h: &mut Vec<(String, String)>, k: &str, v: &str| h.push((k.to_string(), v.to_string()));
    row(&mut h, "run", &format!("{} ({})", m.name(), m.kind));
    row(&mut h, "started", &readable_stamp(&drivelab_lab::store::utc_stamp(m.started_unix_ms / 1000)));
    row(&mut h, "tool", &format!("{} {}", m.tool.name, m.tool.version));
    // Results read from another tool's output (fio's JSON) have no command line or host facts.
    if !m.command_line.is_empty() {
        row(&mut h, "command line", &m.command_line.join(" "));
    }
    let host = &m.host;
    if host.is_unknown() {
        row(&mut h, "host", &format!("not recorded ({} records no host facts)", m.tool.name));
    } else {
        row(
            &mut h,
            "host",
            &(format!(
                "{} · kernel {} · {} · {} x {} · {} GiB RAM · clocksource {} · {}",
                host.hostname,
                host.kernel,
                host.os.as_deref().unwrap_or("unknown OS"),
                host.cores_online,
                host.cpu_model.as_deref().unwrap_or("CPU"),
                host.memory_bytes >> 30,
                host.clocksource.as_deref().unwrap_or("?"),
                host.virtualization.as_deref().unwrap_or("bare metal or unknown")
            ) + &host
                .load_avg
                .as_ref()
                .map_or(String::new(), |l| format!(" · load {l} (1, 5, 15 min) at the start"))
                + &host.job_session.map_or(String::new(), |j| format!(" · {}", j.words()))),
        );
    }
    for t in &m.targets {
        let mut parts = Vec::new();
        // A file's facts first; the device is then the disk under its file system, said so
        // (a 1 GiB scratch file is not a 270 GB drive).
        if let Some(f) = &t.file {
            parts.push(format!("file on {} at {} ({})", f.filesystem, f.mount_point, f.source));
            if let Some(b) = t.new_file_bytes {
                parts.push(format!("made at {}", drivelab_engine::units::fmt_size_words(b)));
            }
        }
        let on_disk = t.file.is_some();
        if let Some(d) = &t.device {
            if on_disk {
                parts.push("on disk".into());
            }
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
                parts.push(if on_disk { format!("a disk of {c} bytes") } else { format!("{c} bytes") });
            }
            if let (Some(l), Some(p)) = (d.logical_block_bytes, d.physical_block_bytes) {
                parts.push(format!("{l}/{p}-byte blocks"));
            }
        }
        let target = match &t.name {
            Some(name) => format!("target {name} ({})", t.path),
            None => format!("target {}", t.path),
        };
        row(&mut h, &target, &parts.join(" · "));
    }
    h
}

/// Facts as the report's first table.
pub(crate) fn facts_table(rows: &[(String, String)]) -> String {
    let mut h = String::from("<table class=\"facts\">");
    for (k, v) in rows {
        let _ = write!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    h += "</table>";
    h
}

fn facts(m: &Manifest) -> String {
    facts_table(&fact_rows(m))
}

/// At most `n` of `points` for the latency charts, in run order, that between them show every
/// value of every field the points vary (iometer's 24: each `random`, each `read` and each
/// DQL at least once, never only the QD1 points an even spacing lands on): a point showing
/// the most values not shown yet is taken first (the earliest on a tie); left-over room is
/// filled evenly through the run.
pub(crate) fn pick_points(points: &[PointResult], n: usize) -> Vec<&PointResult> {
    pick_indices(points, n).into_iter().map(|i| &points[i]).collect()
}

/// [`pick_points`]' choice as indices into `points`, ascending.
pub(crate) fn pick_indices(points: &[PointResult], n: usize) -> Vec<usize> {
    if points.len() <= n {
        return (0..points.len()).collect();
    }
    // The fields the points vary: each field named once, then one pass over the points for it
    // (a pass per point and field took 40 s on 20,000 points).
    let mut names: Vec<&str> = Vec::new();
    for p in points {
        for (k, _) in &p.point.fields {
            if !names.contains(&k.as_str()) {
                names.push(k);
            }
        }
    }
    let keys: Vec<&str> = names
        .into_iter()
        .filter(|k| {
            let first = crate::tables::field(&points[0], k);
            points.iter().any(|q| crate::tables::field(q, k) != first)
        })
        .collect();
    let pairs = |p: &PointResult| -> Vec<(String, String)> {
        keys.iter().filter_map(|k| Some((k.to_string(), crate::tables::field(p, k)?.to_string()))).collect()
    };
    // Candidates in the order an even spacing would take them, then the rest: ties go to the
    // evenly spaced, so where not every value fits the picks still spread through the run.
    let even: Vec<usize> = (0..n).map(|k| k * points.len() / n).collect();
    let order: Vec<usize> = even.iter().copied().chain((0..points.len()).filter(|i| !even.contains(i))).collect();
    let mut shown: Vec<(String, String)> = Vec::new();
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < n {
        let mut best: Option<(usize, usize)> = None;
        for &i in order.iter().filter(|i| !chosen.contains(i)) {
            let new = pairs(&points[i]).into_iter().filter(|kv| !shown.contains(kv)).count();
            if best.is_none_or(|(b, _)| new > b) {
                best = Some((new, i));
            }
        }
        match best {
            Some((new, i)) if new > 0 => {
                shown.extend(pairs(&points[i]));
                chosen.push(i);
            }
            _ => break,
        }
    }
    for &i in &order {
        if chosen.len() >= n {
            break;
        }
        if !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen
}

fn latency_section(points: &[PointResult], h: &mut dyn std::fmt::Write) -> std::fmt::Result {
    let chosen = pick_points(points, MAX_LATENCY_SERIES);
    let note = if points.len() > chosen.len() {
        format!(
            "<p>{} of {} points shown: every value of each field the points vary, then evenly through the run.</p>",
            chosen.len(),
            points.len()
        )
    } else {
        String::new()
    };
    let hockey = views::plan::hockey_specs(points);
    if !hockey.is_empty() {
        write!(h, "<h2>Latency against throughput</h2><p>{}</p>", esc(views::plan::HOCKEY_NOTE))?;
        for spec in hockey {
            write!(h, "<div class=\"chart\">{}</div>", charts::draw(&spec))?;
        }
    }
    write!(h, "<h2>Latency</h2>{note}")?;
    for spec in views::plan::latency_specs(points) {
        write!(h, "<div class=\"chart\">{}</div>", charts::draw(&spec))?;
    }
    Ok(())
}

/// The results' notes (how they were made) under a heading of their own; nothing without any.
pub(crate) fn notes_html(notes: &[String]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Notes</h2>");
    for n in notes {
        let _ = write!(h, "<div class=\"note\">{}</div>", esc(n));
    }
    h
}

/// The whole report of one results directory.
pub fn report(manifest: &Manifest, points: &[PointResult]) -> String {
    let mut h = String::new();
    let _ = report_to(manifest, points, &mut h);
    h
}

/// [`report`], written into `h` section by section (a file, as the page is made: the page of
/// many thousand points is never held whole).
pub fn report_to(manifest: &Manifest, points: &[PointResult], h: &mut dyn std::fmt::Write) -> std::fmt::Result {
    write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivelab report: {}</title><style>{STYLE}</style></head><body>",
        esc(&manifest.name())
    )?;
    write!(h, "<h1>drivelab report: {}</h1>", esc(&manifest.name()))?;
    h.write_str(&facts(manifest))?;
    let w = warnings(points);
    // `--latency-split` runs that left I/Os or kernel events out.
    let split: Vec<String> = points
        .iter()
        .filter_map(|p| crate::views::split::problem(&p.point.label, p.result.latency_split.as_ref()?))
        .collect();
    if !w.is_empty() || !split.is_empty() {
        h.write_str("<h2>Warnings</h2>")?;
        for (summary, which) in &w {
            write!(h, "<div class=\"warn\">{summary}<details><summary>which points</summary><ul>")?;
            for line in which {
                write!(h, "<li>{line}</li>")?;
            }
            h.write_str("</ul></details></div>")?;
        }
    }
    for line in &split {
        write!(h, "<div class=\"warn\">{}</div>", esc(line))?;
    }
    let notes: Vec<String> =
        crate::views::plan::drives_note(manifest).into_iter().chain(crate::views::notes(points)).collect();
    h.write_str(&notes_html(&notes))?;
    if points.is_empty() {
        return h.write_str("<p>No finished points yet.</p></body></html>");
    }
    suite_tables::each_table(manifest.kind, points, &mut |t| {
        write!(h, "<h2>{}</h2>", esc(&t.heading()))?;
        for c in crate::views::plan::table_charts(manifest.kind, &t) {
            write!(h, "<div class=\"chart\">{}</div>", charts::draw(&c))?;
        }
        h.write_str(&table_html(&t))
    })?;
    if let Some(s) = crate::views::ranks::section_for_points(points) {
        h.write_str(&crate::export::html::section_html(&s))?;
    }
    h.write_str(&steady_section(points))?;
    latency_section(points, h)?;
    if let Some(s) = crate::views::split::section_for_points(points) {
        h.write_str(&crate::export::html::section_html(&s))?;
    }
    h.write_str(&series_section(points))?;
    h.write_str("</body></html>\n")
}

mod series;
pub(crate) use series::downsample;
use series::{series_section, steady_section};

#[cfg(test)]
mod tests;
