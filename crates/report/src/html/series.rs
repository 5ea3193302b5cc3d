//! The report page's time series: every point's per-second IOPS and p99 as sparklines (full
//! charts too for small runs), and with `--steady` the rounds, verdicts and convergence charts
//! of each point. Split from `html.rs`, which lays out the page.

use std::fmt::Write;

use drivelab_engine::result::SeriesPoint;
use drivelab_engine::units::{fmt_latency, fmt_number, Style};
use drivelab_lab::results::{PointResult, SteadyRecord};

use super::*;

/// A point's per-second series reduced to at most `max` samples: `(seconds at the sample's
/// end, IOPS, p99 latency ns)`. Consecutive seconds are grouped evenly; a group's IOPS is the
/// mean weighted by each second's length (so it is the group's I/Os over its time), its p99
/// the worst second's (so a latency spike survives the averaging). A last interval shorter
/// than half a second (the few milliseconds of draining after the measured time) joins the
/// second before it the same way, rather than showing as a dip of its own.
pub(crate) fn downsample(series: &[SeriesPoint], max: usize) -> Vec<(f64, f64, f64)> {
    let mut merged;
    let mut series = series;
    if let [.., before, last] = series {
        if last.dur_ns < 500_000_000 {
            let dur = before.dur_ns + last.dur_ns;
            let ops = before.iops * before.dur_ns as f64 + last.iops * last.dur_ns as f64;
            merged = series.to_vec();
            merged.pop();
            let joined = merged.last_mut().expect("two or more");
            joined.t_s = last.t_s;
            joined.dur_ns = dur;
            joined.iops = if dur > 0 { ops / dur as f64 } else { before.iops };
            joined.lat_p99_ns = before.lat_p99_ns.max(last.lat_p99_ns);
            series = &merged;
        }
    }
    let step = series.len().div_ceil(max.max(1)).max(1);
    series
        .chunks(step)
        .map(|c| {
            let dur: f64 = c.iter().map(|x| x.dur_ns as f64).sum();
            let iops = if dur > 0.0 {
                c.iter().map(|x| x.iops * x.dur_ns as f64).sum::<f64>() / dur
            } else {
                c.iter().map(|x| x.iops).sum::<f64>() / c.len() as f64
            };
            let p99 = c.iter().map(|x| x.lat_p99_ns).max().unwrap_or(0) as f64;
            (c.last().map_or(0.0, |x| x.t_s), iops, p99)
        })
        .collect()
}

/// "point 17 (randread bs=4k qd=8)".
fn point_name(p: &PointResult) -> String {
    format!("point {} ({})", p.point.index, p.point.label)
}

/// Every point's IOPS and p99 latency per second as a table row of two sparklines, then for
/// small runs each point's series as full charts with axes.
pub(super) fn series_section(points: &[PointResult]) -> String {
    use drivelab_lab::results::DETAILED_POINTS;
    if points.len() > DETAILED_POINTS {
        // A row of sparklines per point is no chart at this count, and a report of this many
        // points does not hold their series ([`drivelab_lab::results::Keep::Summaries`]).
        return format!(
            "<h2>Per-second time series</h2><p>{} points: more than {DETAILED_POINTS}, so no sparkline per point. \
             Every second of every point is in its points/*.json file, and <code>drivelab report DIR --format csv \
             --series</code> writes them all as one table.</p>",
            points.len()
        );
    }
    let mut h = format!(
        "<h2>Per-second time series</h2><p>Each point's IOPS and p99 latency, second by second, drawn from 0 \
         (bottom) to the point's highest second (top); hover over a line for its figures. Points longer than \
         {MAX_SPARK_SAMPLES} s are averaged into {MAX_SPARK_SAMPLES} samples (p99: the worst second of each). \
         Every second of every point is in its points/*.json file.</p>"
    );
    h += "<table class=\"series\"><thead><tr><th>point</th><th>seconds</th><th>IOPS per second</th>\
          <th>p99 latency per second</th></tr></thead><tbody>";
    for p in points {
        let s = downsample(&p.result.series, MAX_SPARK_SAMPLES);
        let iops: Vec<(f64, f64)> = s.iter().map(|x| (x.0, x.1)).collect();
        let p99: Vec<(f64, f64)> = s.iter().map(|x| (x.0, x.2)).collect();
        let name = point_name(p);
        let iops_fmt = |v: f64| charts::fmt_with_unit(v, "IOPS");
        let spark_iops = charts::sparkline(&charts::Sparkline {
            title: &format!("{name}: IOPS per second"),
            points: &iops,
            fmt: &iops_fmt,
            color: 0,
        });
        let spark_p99 = charts::sparkline(&charts::Sparkline {
            title: &format!("{name}: p99 latency per second"),
            points: &p99,
            fmt: &|ns| fmt_latency(ns, Style::Label),
            color: 3,
        });
        let secs = p.result.series.last().map_or_else(|| "—".to_string(), |x| fmt_number(x.t_s, Style::Label));
        let _ = write!(
            h,
            "<tr><td>{} {}</td><td>{secs}</td><td>{spark_iops}</td><td>{spark_p99}</td></tr>",
            p.point.index,
            esc(&p.point.label)
        );
    }
    h += "</tbody></table>";
    if points.len() <= MAX_FULL_SERIES {
        for p in points.iter().filter(|p| !p.result.series.is_empty()) {
            let drawn: Vec<String> = views::plan::series_specs(p).iter().map(charts::draw).collect();
            let (pair, rest) = drawn.split_at(2.min(drawn.len()));
            let pair: String = pair.iter().map(|c| format!("<div class=\"chart\">{c}</div>")).collect();
            let rest: String = rest.iter().map(|c| format!("<div class=\"chart\">{c}</div>")).collect();
            let _ = write!(
                h,
                "<details><summary>{} with axes</summary><div class=\"pair\">{pair}</div>{rest}</details>",
                esc(&point_name(p))
            );
        }
    }
    h
}

/// Points run with `--steady`: per point its rounds' IOPS as a sparkline, the verdict and the
/// window's figures; for small runs a convergence chart per point (IOPS by round, the steady
/// window's average and the band its rule allows, and the best-fit line across the window).
pub(super) fn steady_section(points: &[PointResult]) -> String {
    let steady: Vec<(&PointResult, &SteadyRecord)> =
        points.iter().filter_map(|p| p.steady.as_ref().map(|s| (p, s))).collect();
    if steady.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<h2>Steady state</h2><p>Each point ran in rounds until SNIA PTS steady state: over the last rounds \
         (the window), max − min of IOPS within a share of their average and the best-fit line's change across \
         the window within another (each point's rule, as it was run, is in its verdict). The point's result is \
         the rounds of its steady window, merged into one measurement (a point that never \
         reached steady state: its last window's rounds, marked not steady).</p>\
         <table class=\"series\"><thead><tr><th>point</th><th>rounds</th><th>verdict</th><th>window average</th>\
         <th>range</th><th>fit change</th><th>IOPS per round</th></tr></thead><tbody>",
    );
    for (p, st) in &steady {
        let rounds: Vec<(f64, f64)> = st.rounds_iops.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect();
        let iops_fmt = |v: f64| charts::fmt_with_unit(v, "IOPS");
        let spark = charts::sparkline(&charts::Sparkline {
            title: &format!("{}: IOPS per steady-state round", point_name(p)),
            points: &rounds,
            fmt: &iops_fmt,
            color: 0,
        });
        let r = &st.rule;
        let rule = format!(
            "window {} rounds, range ≤ {}%, fit change ≤ {}%, at most {} rounds",
            r.window, r.max_range_pct, r.max_slope_pct, r.max_rounds
        );
        let verdict = if st.steady {
            format!("steady after {} rounds ({rule})", st.rounds_iops.len())
        } else {
            format!("<b>not steady</b>: gave up after {} rounds ({rule})", st.rounds_iops.len())
        };
        let (avg, range, fit) = match &st.window {
            Some(w) => (
                charts::fmt_with_unit(w.avg, "IOPS"),
                format!("{:.1}%", w.range_pct),
                format!("{:.1}%", w.fit_change_pct),
            ),
            None => ("—".into(), "—".into(), "—".into()),
        };
        let _ = write!(
            h,
            "<tr><td>{} {}</td><td>{}</td><td>{verdict}</td><td>{avg}</td><td>{range}</td><td>{fit}</td><td>{spark}</td></tr>",
            p.point.index,
            esc(&p.point.label),
            st.rounds_iops.len()
        );
    }
    h += "</tbody></table>";
    if steady.len() <= MAX_FULL_SERIES {
        for (p, st) in &steady {
            let chart = charts::draw(&views::plan::steady_spec(p, st));
            let _ = write!(h, "<div class=\"chart\">{chart}</div>");
        }
    }
    h
}
