//! The HTML report checked against the saved points it is made from: chart geometry read back
//! from the SVG (axis ticks inverted into values), sparklines against each point's series, and
//! the size and speed limits of issue #4 on a full-scale bsqd run.

use std::time::Instant;

use super::*;
use crate::svg_read::*;
use crate::test_support::{bsqd_points, manifest, point, series};
use drivelab_engine::units::{fmt_latency, Style};
use drivelab_lab::results::SteadyRecord;

// ---------------------------------------------------------------------------------------------
// Made-up runs

const DISKS: [&str; 3] = ["/dev/sas", "/dev/sata", "/dev/scsi"];

/// MB/s of disk `d` at `read`, `random` and DQL `qd` in the made-up iometer run: every cell
/// differs from every other by at least a few pixels' worth.
fn iometer_mb(d: usize, read: u32, random: u32, qd: u32) -> f64 {
    60.0 + 70.0 * d as f64 + 18.0 * qd as f64 - 0.4 * random as f64 + if read == 0 { 9.0 } else { 0.0 }
}

/// The iometer suite with three disks at once (`together`), DQL 1..3.
fn iometer_points() -> Vec<PointResult> {
    let mut out = Vec::new();
    for random in [0, 5, 20, 100] {
        for read in [100, 0] {
            for qd in 1..=3 {
                let targets: Vec<(&str, f64)> =
                    DISKS.iter().enumerate().map(|(d, t)| (*t, iometer_mb(d, read, random, qd))).collect();
                let fields = [("random", random.to_string()), ("read", read.to_string()), ("qd", qd.to_string())];
                let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let mut p = point(&format!("random={random} read={read} qd={qd}"), "", &fields, &targets);
                p.point.index = out.len() + 1;
                out.push(p);
            }
        }
    }
    out
}

/// MB/s of target `t` at `read`% reads in the made-up mixed run (a bathtub curve).
fn mixed_mb(t: usize, read: u32) -> f64 {
    let r = read as f64 / 100.0;
    (120.0 + 90.0 * t as f64) * (1.0 - 0.6 * r * (1.0 - r)) + 25.0 * r
}

/// The mixed suite on two targets one after another.
fn mixed_points() -> Vec<PointResult> {
    let mut out = Vec::new();
    for (t, target) in ["/dev/nvme0n1", "/dev/sdb"].iter().enumerate() {
        for read in (0..=100).step_by(10) {
            let r = read.to_string();
            let fields = [("bs", "4k"), ("random", "100"), ("qd", "1"), ("jobs", "32"), ("read", r.as_str())];
            let mut p = point(&format!("read={read} on {target}"), "", &fields, &[(target, mixed_mb(t, read))]);
            p.point.index = out.len() + 1;
            out.push(p);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Chart data against the saved points

#[test]
fn iometer_bars_have_the_height_of_each_disks_saved_mb_per_s() {
    let points = iometer_points();
    let page = report(&manifest("suite:iometer", &points), &points);
    for (read, dir) in [(100, "Reads"), (0, "Writes")] {
        for random in [0u32, 5, 20, 100] {
            let title = format!("64K {}% Sequential {dir} (MB/s)", 100 - random);
            let chart = Chart::parse(chart_titled(&page, &title));
            let y = chart.y_axis();
            assert!(y.px_per_unit < 0.0, "values grow upwards");
            let cols = chart.x_labels();
            let col_px = |qd: u32| {
                cols.iter().find(|(t, _)| *t == format!("{qd} DQL/Disk")).unwrap_or_else(|| panic!("{cols:?}")).1
            };
            let band = col_px(2) - col_px(1);
            for disk in DISKS {
                let color = chart.legend_color(disk);
                // The legend swatch is 12 px wide; bars are wider than that here.
                let bars: Vec<_> = chart.bars(&color).into_iter().filter(|b| b.1 - b.0 > 14.0).collect();
                assert_eq!(bars.len(), 3, "{title}: one bar per DQL for {disk}: {bars:?}");
                for qd in 1..=3 {
                    let saved = points
                        .iter()
                        .find(|p| {
                            let f = |k: &str, v: String| p.point.fields.contains(&(k.to_string(), v));
                            f("read", read.to_string()) && f("random", random.to_string()) && f("qd", qd.to_string())
                        })
                        .and_then(|p| p.result.per_target.iter().find(|t| t.path == *disk))
                        .map(|t| t.total.bw_mb_per_s)
                        .expect("saved point");
                    let in_group: Vec<_> =
                        bars.iter().filter(|b| ((b.0 + b.1) / 2.0 - col_px(qd)).abs() < band / 2.0).collect();
                    assert_eq!(in_group.len(), 1, "{title}: {disk} at {qd} DQL: {in_group:?}");
                    let (_, _, top, bottom) = *in_group[0];
                    let shown = y.value(top);
                    assert!(
                        (shown - saved).abs() <= y.tolerance(1.5),
                        "{title}: {disk} at {qd} DQL drawn as {shown:.1} MB/s, saved {saved}"
                    );
                    assert!((bottom - y.px(0.0)).abs() <= 1.5, "{title}: bars stand on 0");
                }
            }
        }
    }
}

#[test]
fn the_mixed_curve_puts_each_targets_saved_iops_at_its_read_share() {
    let points = mixed_points();
    let page = report(&manifest("suite:mixed", &points), &points);
    let chart = Chart::parse(chart_titled(&page, "4K mixed random, QD32 — 70/30 is 70% reads (IOPS)"));
    let (x, y) = (chart.x_axis(), chart.y_axis());
    for target in ["/dev/nvme0n1", "/dev/sdb"] {
        let markers = chart.markers(&chart.legend_color(target));
        let saved: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.point.targets == [target])
            .map(|p| {
                let read = p.point.fields.iter().find(|(k, _)| k == "read").unwrap().1.parse::<f64>().unwrap();
                (read, p.result.per_target[0].total.iops)
            })
            .collect();
        assert_eq!(markers.len(), saved.len(), "{target}: a marker per point");
        for (read, iops) in saved {
            let m = markers
                .iter()
                .find(|m| (x.value(m.0) - read).abs() <= x.tolerance(1.5))
                .unwrap_or_else(|| panic!("{target}: no marker at {read}% reads: {markers:?}"));
            let shown = y.value(m.1);
            assert!(
                (shown - iops).abs() <= y.tolerance(1.5),
                "{target} at {read}% reads drawn as {shown:.0} IOPS, saved {iops}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Time series

/// A sparkline parsed: its tooltip, its zero line's pixel and its data line.
struct Spark {
    title: String,
    zero_px: f64,
    line: Vec<(f64, f64)>,
    labels: Vec<String>,
}

fn spark(svg: &str) -> Spark {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.attribute("class"), Some("spark"));
    let title = root.children().find(|n| n.has_tag_name("title")).map(text_of).expect("a <title>");
    let lines: Vec<roxmltree::Node> = doc.descendants().filter(|n| n.has_tag_name("polyline")).collect();
    let zero = lines.iter().find(|n| n.attribute("stroke") == Some("#000000")).expect("the zero line");
    let zero_pts = vertices(*zero);
    assert!(zero_pts.iter().all(|p| p.1 == zero_pts[0].1), "the zero line is level");
    let data = lines.iter().find(|n| n.attribute("stroke") != Some("#000000")).map(|n| vertices(*n));
    let line = data.unwrap_or_else(|| {
        // One sample is drawn as a dot.
        doc.descendants().filter(|n| n.has_tag_name("circle")).map(|n| (num(n, "cx"), num(n, "cy"))).collect()
    });
    let labels = doc.descendants().filter(|n| n.has_tag_name("text")).map(text_of).collect();
    Spark { title, zero_px: zero_pts[0].1, line, labels }
}

/// The drawn line against the samples it should show: x proportional to time, y to value with
/// the zero line at 0 and the top of the drawing at the highest sample, within a pixel.
fn check_line(what: &str, line: &[(f64, f64)], samples: &[(f64, f64)], zero_px: f64, top_px: f64) {
    assert_eq!(line.len(), samples.len(), "{what}: a vertex per sample");
    let max = samples.iter().map(|s| s.1).fold(0.0, f64::max);
    let (t0, t1) = (samples[0].0, samples[samples.len() - 1].0);
    let (x0, x1) = (line[0].0, line[line.len() - 1].0);
    for (&(x, y), &(t, v)) in line.iter().zip(samples) {
        if t1 > t0 {
            let want_x = x0 + (t - t0) / (t1 - t0) * (x1 - x0);
            assert!((x - want_x).abs() <= 1.0, "{what}: second {t} at x {x}, expected {want_x:.1}");
        }
        let want_y = zero_px + v / max * (top_px - zero_px);
        assert!((y - want_y).abs() <= 1.0, "{what}: {v} at second {t} drawn at y {y}, expected {want_y:.1}");
    }
}

#[test]
fn every_points_sparklines_draw_its_saved_series() {
    let mut points = bsqd_points(&["/dev/sda"], 40);
    points.truncate(20);
    // Edge cases: one second, no series at all, and a series with an idle second.
    points[1].result.series.truncate(1);
    points[2].result.series.clear();
    points[3].result.series[5].iops = 0.0;
    let page = report(&manifest("suite:bsqd", &points), &points);
    let sparks: Vec<Spark> = svgs(&page).into_iter().filter(|s| s.contains(r#"class="spark""#)).map(spark).collect();
    assert_eq!(sparks.len(), 2 * points.len(), "an IOPS and a p99 sparkline per point");
    let zero_px = sparks[0].zero_px;
    let top_px = sparks.iter().flat_map(|s| s.line.iter().map(|p| p.1)).fold(f64::MAX, f64::min);
    for (p, pair) in points.iter().zip(sparks.chunks(2)) {
        let name = format!("point {} ({})", p.point.index, p.point.label);
        let s = &p.result.series;
        for (spark, what, samples, fmt) in [
            (
                &pair[0],
                "IOPS per second",
                s.iter().map(|x| (x.t_s, x.iops)).collect::<Vec<_>>(),
                &(|v| charts::fmt_with_unit(v, "IOPS")) as &dyn Fn(f64) -> String,
            ),
            (&pair[1], "p99 latency per second", s.iter().map(|x| (x.t_s, x.lat_p99_ns as f64)).collect(), &|v| {
                fmt_latency(v, Style::Label)
            }),
        ] {
            assert!(spark.title.starts_with(&format!("{name}: {what}")), "{} is not {name}'s {what}", spark.title);
            assert_eq!(spark.zero_px, zero_px, "every sparkline has its 0 on the same line");
            if samples.is_empty() {
                assert!(spark.title.ends_with("no data") && spark.labels == ["no data"], "{}", spark.title);
                continue;
            }
            let (lo, hi) = samples.iter().fold((f64::MAX, f64::MIN), |(l, h), s| (l.min(s.1), h.max(s.1)));
            if lo == hi {
                assert_eq!(spark.labels, [fmt(hi)], "one value, one label");
                assert!(spark.title.ends_with(&fmt(hi)) || spark.title.ends_with(&format!("{} each", fmt(hi))));
            } else {
                assert_eq!(spark.labels, [format!("max {}", fmt(hi)), format!("min {}", fmt(lo))]);
                assert!(spark.title.ends_with(&format!("min {}, max {}", fmt(lo), fmt(hi))), "{}", spark.title);
            }
            if samples.len() > 1 {
                check_line(&format!("{name}: {what}"), &spark.line, &samples, zero_px, top_px);
            } else {
                assert_eq!(spark.line.len(), 1, "one second is a dot");
            }
        }
    }
}

#[test]
fn long_series_are_averaged_and_keep_their_worst_p99() {
    // 300 seconds into at most 120 samples: groups of 3.
    let s = series(300, |i| (i * i % 97) as f64 * 10.0, |i| 1000 + (i as u64 * 7919) % 5000);
    let d = downsample(&s, MAX_SPARK_SAMPLES);
    assert_eq!(d.len(), 100);
    for (g, &(t, iops, p99)) in d.iter().enumerate() {
        let group = &s[g * 3..g * 3 + 3];
        assert_eq!(t, group[2].t_s, "a sample is stamped at its last second");
        let mean = group.iter().map(|x| x.iops).sum::<f64>() / 3.0;
        assert!((iops - mean).abs() < 1e-9, "sample {g}: {iops} vs {mean}");
        assert_eq!(p99, group.iter().map(|x| x.lat_p99_ns).max().unwrap() as f64);
    }
    // A short last second counts for its length.
    let mut s = series(2, |i| [100.0, 400.0][i], |_| 0);
    s[1].dur_ns = 500_000_000;
    assert_eq!(downsample(&s, 1), [(2.0, 200.0, 0.0)]);
    // The few milliseconds of draining after the measured time join the last second.
    let mut s = series(3, |i| [100.0, 300.0, 20.0][i], |i| [5, 7, 9][i]);
    s[2].t_s = 2.004;
    s[2].dur_ns = 4_000_000;
    let d = downsample(&s, MAX_SPARK_SAMPLES);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0], (1.0, 100.0, 5.0));
    let want = (300.0 * 1e9 + 20.0 * 4e6) / (1e9 + 4e6);
    assert!(d[1].0 == 2.004 && (d[1].1 - want).abs() < 1e-9 && d[1].2 == 9.0, "{d:?}");
    assert!(downsample(&[], MAX_SPARK_SAMPLES).is_empty());
}

#[test]
fn a_full_bsqd_run_of_minute_long_points_stays_under_2_mb_and_500_points_render_in_2_s() {
    // The bsqd suite at full scale on two targets: 384 points, each with a 60-second series.
    let points = bsqd_points(&["/dev/sda", "/dev/sdb"], 60);
    assert_eq!(points.len(), 384);
    let start = Instant::now();
    let page = report(&manifest("suite:bsqd", &points), &points);
    let took = start.elapsed();
    eprintln!("384-point bsqd report: {} bytes in {:.3} s", page.len(), took.as_secs_f64());
    assert!(page.len() < 2_000_000, "{} bytes", page.len());
    // On three targets, 576 points: the issue's "a report over 500 points renders in under 2 s".
    let more = bsqd_points(&["/dev/sda", "/dev/sdb", "/dev/sdc"], 60);
    let start = Instant::now();
    let big = report(&manifest("suite:bsqd", &more), &more);
    let took = start.elapsed();
    eprintln!("576-point bsqd report: {} bytes in {:.3} s", big.len(), took.as_secs_f64());
    // The 2 s target is measured (printed above, ~0.1 s in a release build); asserted here only as
    // a watchdog a loaded 2-core machine cannot miss, since a unit test holds no timing bound.
    assert!(took.as_secs_f64() < 60.0, "took {took:?}");
    // Every point's two sparklines, by name, each with all 60 seconds.
    for p in &points {
        for what in ["IOPS per second", "p99 latency per second"] {
            let title =
                format!("<title>point {} ({}): {what}, 60 samples from 1 s to 60 s", p.point.index, p.point.label);
            assert_eq!(page.matches(&title).count(), 1, "{title}");
        }
    }
    // No full per-point charts at this size: they are what would not fit.
    assert!(!page.contains("with axes</summary>"));
}

#[test]
fn small_runs_also_get_full_time_series_charts_with_axes() {
    let mut points = bsqd_points(&["/dev/sda"], 10);
    points.truncate(3);
    let page = report(&manifest("suite:bsqd", &points), &points);
    for p in &points {
        let name = format!("point {} ({})", p.point.index, p.point.label);
        assert!(page.contains(&format!("<summary>{} with axes</summary>", esc(&name))), "{name}");
        let chart = Chart::parse(chart_titled(&page, &format!("{} — IOPS per second", p.point.label)));
        let (x, y) = (chart.x_axis(), chart.y_axis());
        let line = chart
            .doc
            .descendants()
            .find(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some("#1F77B4"))
            .map(vertices)
            .expect("the IOPS line");
        assert_eq!(line.len(), p.result.series.len());
        for ((px, py), s) in line.iter().zip(&p.result.series) {
            assert!((x.value(*px) - s.t_s).abs() <= x.tolerance(1.0), "second {} at x {px}", s.t_s);
            assert!((y.value(*py) - s.iops).abs() <= y.tolerance(1.0), "{} IOPS drawn as {}", s.iops, y.value(*py));
        }
    }
}

#[test]
fn run_facts_give_the_start_as_a_date() {
    assert_eq!(readable_stamp("20261121-080722"), "2026-11-21 08:07:22 UTC");
    assert_eq!(readable_stamp("garbage"), "garbage UTC");
    let points = iometer_points();
    let mut m = manifest("suite:iometer", &points);
    m.started_unix_ms = 1_795_246_495_470;
    let page = report(&m, &points);
    assert!(page.contains("<tr><th>started</th><td>2026-11-21 "), "{}", &page[..2000]);
}

#[test]
fn every_chart_axis_is_described() {
    // Per suite, the x axis descriptions its charts must carry (units where there are any).
    let cases: [(&str, Vec<PointResult>, &[&str]); 3] = [
        ("suite:iometer", iometer_points(), &["outstanding I/Os per disk (DQL)", "throughput (MB/s)"]),
        ("suite:mixed", mixed_points(), &["reads (% of I/Os)", "I/Os per second (IOPS)", "throughput (MB/s)"]),
        ("suite:bsqd", bsqd_points(&["/dev/sda"], 2), &["queue depth (I/Os)", "block size (bytes, k = 1024)"]),
    ];
    for (kind, points, want) in cases {
        let page = report(&manifest(kind, &points), &points);
        for w in want {
            assert!(page.contains(&format!(">\n{w}\n</text>")), "{kind}: no axis {w:?}");
        }
    }
}

/// A plan over `outer` (its values) x qd 1, 2, 4, 8 on one target: point (i, q) moved
/// 10 x (i + 1) + q MB/s.
fn two_axis_plan(outer: &str, values: &[&str]) -> Vec<PointResult> {
    let mut out = Vec::new();
    for (i, v) in values.iter().enumerate() {
        for q in [1, 2, 4, 8] {
            let qd = q.to_string();
            let mb = 10.0 * (i + 1) as f64 + q as f64;
            let mut p = point(&format!("{outer}={v} qd={qd}"), "", &[(outer, v), ("qd", &qd)], &[("/dev/sda", mb)]);
            p.point.index = out.len() + 1;
            out.push(p);
        }
    }
    out
}

#[test]
fn plan_chart_legends_name_their_key_and_unit_and_axes_their_quantity() {
    for (outer, values, legend) in [
        ("bs", ["4k", "64k"], ["bs 4 KiB", "bs 64 KiB"]),
        ("jobs", ["1", "2"], ["jobs 1", "jobs 2"]),
        ("read", ["0", "70"], ["read 0%", "read 70%"]),
    ] {
        let points = two_axis_plan(outer, &values);
        let page = report(&manifest("plan", &points), &points);
        let chart = Chart::parse(chart_titled(&page, "Throughput (MB/s)"));
        let y = chart.y_axis();
        // Each legend entry names its key; its line's markers are its points, qd 1 to 8.
        for (i, entry) in legend.iter().enumerate() {
            let mut markers = chart.markers(&chart.legend_color(entry));
            markers.sort_by(|a, b| a.0.total_cmp(&b.0));
            let shown: Vec<f64> = markers.iter().map(|m| y.value(m.1)).collect();
            let saved = [1.0, 2.0, 4.0, 8.0].map(|q| 10.0 * (i + 1) as f64 + q);
            assert_eq!(shown.len(), 4, "{outer}: {entry}");
            for (s, w) in shown.iter().zip(saved) {
                assert!((s - w).abs() <= y.tolerance(1.5), "{entry}: drawn {s}, saved {w}");
            }
        }
        let words: Vec<String> = chart.texts().map(text_of).collect();
        let legend_words: Vec<String> =
            chart.texts().filter(|n| n.attribute("text-anchor") == Some("start")).map(text_of).collect();
        assert_eq!(legend_words, legend, "{outer}: the legend, and no bare value");
        for axis in ["queue depth (I/Os per job)", "throughput (MB/s)"] {
            assert!(words.iter().any(|w| w == axis), "{outer}: no axis {axis:?} in {words:?}");
        }
    }
}

#[test]
fn steady_state_rounds_are_drawn_with_their_verdict_and_window() {
    use drivelab_lab::steady::{window_stats, SteadyRule};
    let mut points: Vec<PointResult> =
        (0..2).map(|i| point(&format!("randwrite {i}"), "", &[], &[("/dev/sdb", 100.0)])).collect();
    points[0].point.index = 1;
    points[1].point.index = 2;
    // Point 1 settles after a warm-up drop; point 2 keeps falling and gives up after 6 rounds.
    let settled = vec![90_000.0, 70_000.0, 52_000.0, 50_000.0, 51_000.0, 49_500.0, 50_500.0];
    let falling = vec![90_000.0, 80_000.0, 70_000.0, 60_000.0, 50_000.0, 40_000.0];
    let rule = SteadyRule::default();
    for (p, (rounds, steady)) in points.iter_mut().zip([(&settled, true), (&falling, false)]) {
        p.steady = Some(SteadyRecord {
            rule: rule.clone(),
            rounds_iops: rounds.clone(),
            steady,
            window: window_stats(rounds, rule.window),
            not_delivered: None,
            rounds_offset_seed: Vec::new(),
            result_rounds: 0,
        });
    }
    let page = report(&manifest("plan", &points), &points);
    assert!(page.contains("<h2>Steady state</h2>"));
    assert!(page.contains("steady after 7 rounds") && page.contains("gave up after 6 rounds"), "the verdicts");
    // The sparklines carry each point's rounds, in order, within a pixel.
    let sparks: Vec<Spark> = svgs(&page).into_iter().filter(|s| s.contains("steady-state round")).map(spark).collect();
    assert_eq!(sparks.len(), 2);
    let top_px = sparks.iter().flat_map(|s| s.line.iter().map(|p| p.1)).fold(f64::MAX, f64::min);
    for (s, rounds) in sparks.iter().zip([&settled, &falling]) {
        let samples: Vec<(f64, f64)> = rounds.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect();
        check_line(&s.title, &s.line, &samples, s.zero_px, top_px);
    }
    // The convergence chart: IOPS by round plus the window's average, band and fit (dashed).
    let chart = chart_titled(&page, "randwrite 0 — steady-state convergence");
    let doc = roxmltree::Document::parse(chart).unwrap();
    let lines = doc.descendants().filter(|n| n.has_tag_name("polyline")).count();
    assert!(lines >= 5, "the rounds, the average, two band lines and the fit: {lines} polylines");
    let w = window_stats(&settled, 5).unwrap();
    assert!(w.range_pct <= 20.0 && page.contains(&format!("{:.1}%", w.range_pct)), "the window's range is shown");
}

#[test]
fn the_steady_section_shows_the_rule_each_point_was_run_with_not_the_default() {
    use drivelab_lab::steady::{window_stats, SteadyRule};
    let mut p = point("randwrite", "", &[], &[("/dev/sdb", 100.0)]);
    p.point.index = 1;
    let rule = SteadyRule { window: 3, max_range_pct: 30.0, max_slope_pct: 15.0, max_rounds: 9 };
    let rounds = vec![90_000.0, 60_000.0, 50_000.0, 55_000.0, 52_000.0];
    let w = window_stats(&rounds, rule.window).unwrap();
    p.steady = Some(SteadyRecord {
        rule: rule.clone(),
        rounds_iops: rounds,
        steady: true,
        window: Some(w.clone()),
        not_delivered: None,
        rounds_offset_seed: Vec::new(),
        result_rounds: 0,
    });
    let points = vec![p];
    let page = report(&manifest("plan", &points), &points);
    assert!(page.contains("window 3 rounds, range ≤ 30%, fit change ≤ 15%, at most 9 rounds"), "the saved rule");
    // The band is the saved range rule's: ±15% of the window average, across the 3-round window.
    let chart = Chart::parse(chart_titled(&page, "randwrite — steady-state convergence"));
    let y = chart.y_axis();
    let band = chart.legend_color("average +15%");
    assert_eq!(band, chart.legend_color("average −15%"));
    let levels: Vec<f64> = chart
        .doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(band.as_str()))
        .flat_map(vertices)
        .map(|(_, py)| y.value(py))
        .collect();
    for want in [w.avg * 1.15, w.avg * 0.85] {
        assert!(levels.iter().any(|v| (v - want).abs() <= y.tolerance(1.0)), "band at {want}: {levels:?}");
    }
}

#[test]
fn a_compare_page_sets_the_runs_facts_side_by_side_and_their_latency_from_every_io() {
    use drivelab_engine::hist::Histogram;
    // Run A: all I/Os at 100 µs; run B: one in ten at 10 ms.
    let run = |label: &str, target: &str, slow: u64| {
        let points: Vec<PointResult> = (1..=2)
            .map(|qd| {
                let q = qd.to_string();
                let mut p = point(&format!("read qd={qd}"), "", &[("qd", &q)], &[(target, 10.0)]);
                let mut h = Histogram::new();
                h.record_n(100_000, 90);
                h.record_n(slow, 10);
                p.result.total.lat_ns = h.summary();
                p
            })
            .collect();
        crate::compare::Run {
            label: label.into(),
            dir: format!("results/{label}"),
            manifest: manifest("plan", &points),
            points,
        }
    };
    let runs = [run("A", "/dev/a", 100_000), run("B", "/dev/b", 10_000_000)];
    let page = crate::export::html::page(&crate::compare_page::page_report(&runs).expect("comparable"));
    let facts = &page[page.find("<h2>Run facts</h2>").expect("run facts")..];
    assert!(facts.starts_with("<h2>Run facts</h2><table><thead><tr><th>fact</th><th>A</th><th>B</th>"), "{facts}");
    assert!(facts.contains("/dev/a") && facts.contains("/dev/b"), "each run's targets");
    let lat = &page[page.find("<h2>Latency</h2>").expect("a latency panel")..];
    assert!(lat.contains("Latency percentiles per run") && lat.contains("Latency exceedance per run"));
    // Every I/O of each run, both points merged: A's all 100 µs; B's p50 and p90 100 µs, its
    // slow tenth (10 ms) from p99 on (each as its histogram bucket reads).
    let row = |label: &str| {
        let at = lat.find(&format!("<tr><td class=\"t\">{label} (all 2 points)</td>")).expect("a row per run");
        lat[at..at + lat[at..].find("</tr>").unwrap()].to_string()
    };
    let td = |ns: u64| {
        let v = Histogram::from_sparse(&[[ns, 1]]).percentile(50.0) as f64;
        format!("<td>{}</td>", crate::model::Cell::Num(v).show(crate::model::Unit::Ns))
    };
    let (fast, slow) = (td(100_000), td(10_000_000));
    assert_eq!(row("A"), format!("<tr><td class=\"t\">A (all 2 points)</td>{}", fast.repeat(5)));
    assert_eq!(row("B"), format!("<tr><td class=\"t\">B (all 2 points)</td>{}{}", fast.repeat(2), slow.repeat(3)));
}

#[test]
fn a_plan_page_names_the_points_whose_job_threads_waited_for_a_cpu() {
    let mut busy = point("qd=1", "", &[("qd", "1")], &[("/dev/a", 1.0)]);
    busy.point.index = 1;
    (busy.result.cpu.runq_wait_pct, busy.result.cpu.cpu_starved) = (62.4, true);
    let mut quiet = point("qd=2", "", &[("qd", "2")], &[("/dev/a", 1.0)]);
    quiet.point.index = 2;
    quiet.result.cpu.runq_wait_pct = 3.0;
    let page = crate::html_page(&crate::test_support::results("plan", vec![busy, quiet]));
    assert!(page.contains("the machine was busy on 1 of 2 points"), "the warning, counted");
    assert!(
        page.contains("point 1 (qd=1): drivelab&#39;s job threads waited for a CPU 62% of the run")
            || page.contains("point 1 (qd=1): drivelab's job threads waited for a CPU 62% of the run")
    );
    assert!(!page.contains("point 2 (qd=2): drivelab"), "not the quiet point");
    // And how busy the machine was when the run started, beside the host.
    assert!(page.contains("load 4.12 3.80 2.10 (1, 5, 15 min) at the start"), "the host's load");
}
