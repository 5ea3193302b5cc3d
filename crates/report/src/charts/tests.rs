use super::axes::fmt_linear_tick;
use super::*;
use drivelab_engine::units::fmt_latency;

fn table(rows: usize, cols: usize) -> Table {
    Table {
        title: "Random Read IOPS".into(),
        unit: "IOPS".into(),
        row_header: "bs".into(),
        col_header: "qd".into(),
        cols: (0..cols).map(|c| format!("{} DQL/Disk", 1 << c)).collect(),
        rows: (0..rows)
            .map(|r| {
                let vals = (0..cols)
                    .map(|c| if (r + c) % 7 == 3 { None } else { Some(1000.0 * (r + 1) as f64 + 137.5 * c as f64) })
                    .collect();
                (format!("{}k", 4 << r), vals)
            })
            .collect(),
        note: None,
        errored: Vec::new(),
        unsteady: Vec::new(),
    }
}

/// Parses the SVG (well-formed XML, one root `<svg>`), checks no NaN/inf and that every
/// expected string is in some text.
fn check(svg: &str, expect: &[&str]) {
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let lower = svg.to_lowercase();
    assert!(!lower.contains("nan") && !lower.contains("inf"), "NaN/inf in output");
    let texts: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).collect();
    for e in expect {
        assert!(texts.iter().any(|t| t.contains(e)), "no text {e:?} in {texts:?}");
    }
}

fn texts(svg: &str) -> Vec<(String, f64, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let num = |a| n.attribute(a).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
            (n.text().unwrap_or("").trim().to_string(), num("x"), num("y"))
        })
        .collect()
}

fn qd_chart(y_log: bool) -> LineChart {
    let qds: [f64; 8] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0];
    LineChart {
        title: "4k random read IOPS vs queue depth".into(),
        x_label: "queue depth (I/Os per job)".into(),
        y_label: "IOPS".into(),
        x_scale: XScale::Log2,
        y_log,
        series: vec![
            Series::new("nvme0n1", qds.iter().map(|&q| (q, 9000.0 * q.sqrt())).collect()),
            Series::new("sda", vec![(1.0, 200.0), (f64::NAN, 3.0), (2.0, f64::INFINITY), (0.0, 5.0), (4.0, 380.0)]),
            Series::new("empty one", vec![]),
        ],
    }
}

#[test]
fn line_chart_log2_equally_spaced() {
    let c = qd_chart(false);
    let svg = line_chart(&c);
    check(&svg, &[&c.title, &c.x_label, "IOPS", "nvme0n1", "sda", "empty one"]);
    // x tick labels 1..128: equally spaced in pixels (±1 for rounding).
    let t = texts(&svg);
    let xs: Vec<f64> = ["1", "2", "4", "8", "16", "32", "64", "128"]
        .iter()
        .map(|l| t.iter().find(|(s, _, _)| s == l).unwrap_or_else(|| panic!("no tick {l}: {t:?}")).1)
        .collect();
    let d = xs[1] - xs[0];
    assert!(d > 20.0, "{xs:?}");
    for w in xs.windows(2) {
        assert!((w[1] - w[0] - d).abs() <= 1.0, "not equally spaced: {xs:?}");
    }
    // The nvme series' markers sit on those ticks.
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let mut cx: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .filter_map(|n| n.attribute("cx")?.parse().ok())
        .collect();
    cx.sort_by(f64::total_cmp);
    cx.dedup();
    for x in &xs {
        assert!(cx.iter().any(|c| (c - x).abs() <= 1.0), "no marker at {x}: {cx:?}");
    }
    assert_eq!(svg, line_chart(&c), "deterministic");
}

#[test]
fn line_chart_log_y_and_linear_and_sized() {
    let svg = line_chart(&qd_chart(true));
    check(&svg, &["IOPS", "1000", "10k", "100k"]);
    let mut c = qd_chart(false);
    c.x_scale = XScale::Linear;
    let svg = line_chart_sized(&c, Size { w: 400, h: 300 });
    check(&svg, &["nvme0n1"]);
    assert!(svg.contains(r#"width="400""#) && svg.contains(r#"height="300""#));
}

#[test]
fn line_chart_all_empty_says_no_data() {
    let c = LineChart {
        title: "Nothing yet".into(),
        x_label: "read (%)".into(),
        y_label: "MB/s".into(),
        x_scale: XScale::Category(vec!["0".into(), "50".into(), "100".into()]),
        y_log: true,
        series: vec![Series::new("a", vec![(0.0, -1.0), (7.0, 3.0)])],
    };
    let svg = line_chart(&c);
    check(&svg, &["Nothing yet", "read (%)", "MB/s", "no data", "50"]);
    let svg = line_chart(&LineChart { series: vec![], x_scale: XScale::Log2, ..c });
    check(&svg, &["no data"]);
}

#[test]
fn grouped_bars_names_and_gaps() {
    let t = table(3, 4);
    let svg = grouped_bars(&t);
    check(&svg, &[&t.title, "IOPS", "DQL/Disk", "4k", "8k", "16k", "1 DQL/Disk", "8 DQL/Disk"]);
    let rects = roxmltree::Document::parse(&svg).unwrap().descendants().filter(|n| n.has_tag_name("rect")).count();
    let cells = t.rows.iter().flat_map(|r| r.1.iter()).filter(|v| v.is_some()).count();
    assert!(rects >= cells, "{rects} rects for {cells} cells");
    let svg = grouped_bars_with(&t, "queue depth (I/Os per target)", Size { w: 500, h: 300 });
    check(&svg, &["queue depth (I/Os per target)"]);
}

#[test]
fn line_from_table_parses_headers() {
    let t = table(2, 5);
    let svg = line_from_table(&t, "queue depth (I/Os per disk)", XScale::Log2);
    // Headers "1 DQL/Disk".."16 DQL/Disk" become numbers: ticks 1..16, no header text on the axis.
    check(&svg, &[&t.title, "queue depth (I/Os per disk)", "IOPS", "4k", "8k", "16"]);
    assert!(!svg.contains("16 DQL/Disk"));
    // Unparseable headers fall back to categories.
    let mut m = table(2, 3);
    m.cols = vec!["randread".into(), "70/30".into(), "randwrite".into()];
    let svg = line_from_table(&m, "workload", XScale::Linear);
    check(&svg, &["randread", "70/30", "randwrite", "workload"]);
    assert_eq!(parse_header("4k"), Some(4096.0));
    assert_eq!(parse_header("1m"), Some(1048576.0));
    assert_eq!(parse_header("4 DQL/Disk"), Some(4.0));
    assert_eq!(parse_header("QD"), None);
}

#[test]
fn heatmap_cells_values_and_size() {
    let t = table(12, 8);
    let svg = heatmap(&t);
    // "128 DQL/Disk" is wider than a column: the axis says "DQL/Disk" once, the columns their numbers.
    check(&svg, &[&t.title, "bs", "IOPS", "DQL/Disk", "4k", "8192k", "128", "—"]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let rects = doc.descendants().filter(|n| n.has_tag_name("rect")).count();
    assert!(rects >= 12 * 8, "{rects} rects");
    let shown: Vec<&str> =
        doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(str::trim).collect();
    for (_, vals) in &t.rows {
        for v in vals.iter().flatten() {
            let s = fmt_number(*v, Style::Label);
            assert!(shown.contains(&s.as_str()), "value {s} not printed");
        }
    }
    assert!(svg.len() < 200_000, "{} bytes", svg.len());
    assert_eq!(svg, heatmap(&t));
}

#[test]
fn empty_tables_render() {
    for t in [
        Table {
            title: "Empty".into(),
            unit: "MB/s".into(),
            row_header: "target".into(),
            col_header: "qd".into(),
            cols: vec![],
            rows: vec![],
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        },
        Table {
            title: "All missing".into(),
            unit: "MB/s".into(),
            row_header: "target".into(),
            col_header: "qd".into(),
            cols: vec!["1".into(), "2".into()],
            rows: vec![("sda".into(), vec![None, Some(f64::NAN)])],
            note: None,
            errored: Vec::new(),
            unsteady: Vec::new(),
        },
    ] {
        check(&grouped_bars(&t), &[&t.title, "MB/s", "no data"]);
        check(&heatmap(&t), &[&t.title, "MB/s", "no data"]);
        check(&line_from_table(&t, "x (units)", XScale::Log2), &[&t.title, "no data"]);
    }
    // One value only: the colour scale still has a range.
    let one = Table {
        title: "One".into(),
        unit: "µs".into(),
        row_header: "bs".into(),
        col_header: "qd".into(),
        cols: vec!["4k".into()],
        rows: vec![("x".into(), vec![Some(42.0)])],
        note: None,
        errored: Vec::new(),
        unsteady: Vec::new(),
    };
    check(&heatmap(&one), &["42", "µs"]);
}

#[test]
fn latency_percentiles_chart() {
    let names = ["p50", "p99", "p99.9", "p99.99", "p99.999", "p99.9999"];
    let pts: Vec<(f64, f64)> = [50.0, 99.0, 99.9, 99.99, 99.999, 99.9999]
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, 80_000.0 * 3f64.powi(i as i32)))
        .collect();
    let svg = latency_percentiles(&[
        ("nvme0n1 randread".into(), pts.clone()),
        ("sda".into(), vec![(50.0, 0.0), (99.0, f64::NAN), (99.9, 4_000_000.0)]),
    ]);
    let mut expect = vec!["Latency percentiles", "percentile", "latency (log scale)", "nvme0n1 randread", "sda", "100"];
    expect.extend(names);
    check(&svg, &expect);
    // The legend sits under the plot (the 13 percentiles need the width): below every marker.
    let doc = svg_doc(&svg);
    let lowest = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .filter_map(|n| n.attribute("cy")?.parse::<f64>().ok())
        .fold(0.0, f64::max);
    for name in ["nvme0n1 randread", "sda"] {
        let label = doc.descendants().find(|n| n.text().map(str::trim) == Some(name)).expect("legend entry");
        let y: f64 = label.attribute("y").unwrap().parse().unwrap();
        assert!(y > lowest + 40.0, "{name} at y {y}: over the plot (markers down to {lowest})");
    }
    assert!(svg.contains(&format!(r#"height="{}""#, DEFAULT_SIZE.h + 30)), "taller by one legend row");
    check(&latency_percentiles(&[]), &["no data", "latency (log scale)"]);
}

#[test]
fn latency_cdf_chart_ends_at_100() {
    use drivelab_engine::hist::Histogram;
    let mut h = Histogram::new();
    for i in 0..10_000u64 {
        h.record(50_000 + (i * 7919) % 200_000);
    }
    h.record(9_000_000);
    let data = h.summary().histogram;
    let pts = cdf_points(&data);
    assert_eq!(pts.first().unwrap().1, 0.0);
    assert_eq!(pts.last().unwrap().1, 100.0);
    assert!(pts.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    assert!(pts.last().unwrap().0 > 9000.0);
    let empty = HistogramData { sub_bucket_bits: SUB_BITS, max_relative_error: 0.01, buckets: vec![] };
    assert!(cdf_points(&empty).is_empty());
    let svg = latency_cdf(&[("job0 read".into(), &data), ("idle".into(), &empty)]);
    check(&svg, &["Latency CDF", "latency (log scale)", "I/Os completed (%)", "job0 read", "idle", "100 µs", "1 ms"]);
    check(&latency_cdf(&[]), &["no data"]);
}

fn svg_doc(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).expect("well-formed SVG")
}

#[test]
fn legends_sit_beside_the_plot_never_over_the_data() {
    let names: Vec<String> = (0..8).map(|i| format!("4K random write on {i} target(s)")).collect();
    let c = LineChart {
        title: "Latency percentiles".into(),
        x_label: "percentile".into(),
        y_label: "latency (µs)".into(),
        x_scale: XScale::Linear,
        y_log: false,
        series: names
            .iter()
            .enumerate()
            .map(|(i, n)| Series::new(n.as_str(), vec![(0.0, i as f64), (10.0, 50.0)]))
            .collect(),
    };
    let svg = line_chart(&c);
    let doc = svg_doc(&svg);
    let marks_right = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .filter_map(|n| n.attribute("cx")?.parse::<f64>().ok())
        .fold(0.0, f64::max);
    for name in &names {
        let label = doc
            .descendants()
            .find(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no legend entry {name}"));
        let x: f64 = label.attribute("x").unwrap().parse().unwrap();
        assert!(x > marks_right + 10.0, "legend entry {name} at x {x} is over the plot (marks up to {marks_right})");
        assert!(x + 7.0 * name.len() as f64 <= DEFAULT_SIZE.w as f64 + 10.0, "{name} runs off the chart");
    }
    // A long name ending in a path keeps its words whole (qd=128 tells it from qd=1) and the end
    // of its path; one without a path is shortened in the middle, keeping both ends.
    let long = "rw=randread bs=512 qd=128 on /dev/disk/by-id/nvme-Samsung_SSD_990_PRO";
    let svg = line_chart(&LineChart { series: vec![Series::new(long, vec![(1.0, 1.0)])], ..c.clone() });
    check(&svg, &["rw=randread bs=512 qd=128 on …", "_SSD_990_PRO"]);
    let words = "rw=randread bs=512 qd=128 numjobs=4 rate=100000 thinktime=10us";
    let svg = line_chart(&LineChart { series: vec![Series::new(words, vec![(1.0, 1.0)])], ..c });
    check(&svg, &["rw=randread bs=512 qd…", "thinktime=10us"]);
}

#[test]
fn reference_lines_are_dashed_in_their_series_colour() {
    let c = LineChart {
        title: "Aggregate MB/s by number of drives".into(),
        x_label: "drives at once (count)".into(),
        y_label: "MB/s".into(),
        x_scale: XScale::Linear,
        y_log: false,
        series: vec![
            Series::new("read", vec![(1.0, 100.0), (2.0, 180.0), (3.0, 200.0)]),
            Series { name: "read: ideal".into(), points: vec![(1.0, 100.0), (3.0, 300.0)], reference_for: Some(0) },
            Series::new("write", vec![(1.0, 90.0), (2.0, 170.0), (3.0, 250.0)]),
        ],
    };
    let svg = line_chart(&c);
    check(&svg, &["read", "read: ideal", "write"]);
    let doc = svg_doc(&svg);
    let blue = "#1F77B4";
    let strokes: Vec<&str> =
        doc.descendants().filter(|n| n.has_tag_name("polyline")).filter_map(|n| n.attribute("stroke")).collect();
    // read: one line and a legend swatch; its ideal: many dashes (and three legend dashes); write: orange.
    let blues = strokes.iter().filter(|s| **s == blue).count();
    assert!(blues > 10, "the ideal is dashed in read's colour: {strokes:?}");
    assert!(strokes.contains(&"#FF7F0E"), "write keeps the second colour: {strokes:?}");
    let markers: Vec<&str> =
        doc.descendants().filter(|n| n.has_tag_name("circle")).filter_map(|n| n.attribute("fill")).collect();
    assert_eq!(markers.len(), 6, "markers on the measured lines only: {markers:?}");
}

#[test]
fn count_axes_tick_at_whole_numbers_and_ticks_read_short() {
    let c = LineChart {
        title: "Scaling".into(),
        x_label: "drives at once (count)".into(),
        y_label: "IOPS".into(),
        x_scale: XScale::Linear,
        y_log: false,
        series: vec![Series::new("randread", vec![(1.0, 350_000.0), (2.0, 700_000.0), (3.0, 1_500_000.0)])],
    };
    let svg = line_chart(&c);
    let t: Vec<String> = texts(&svg).into_iter().map(|t| t.0).collect();
    assert!(t.iter().any(|s| s == "2") && !t.iter().any(|s| s == "1.5" || s == "2.5"), "{t:?}");
    assert!(t.iter().any(|s| s == "1.5M"), "{t:?}");
    assert_eq!(fmt_linear_tick(12_500.0, 2_500.0), "12.5k");
    assert_eq!(fmt_linear_tick(7_500.0, 2_500.0), "7500");
    assert_eq!(fmt_linear_tick(1_500_000.0, 250_000.0), "1.5M");
    assert_eq!(fmt_linear_tick(1_250_000.0, 250_000.0), "1.25M");
    assert_eq!(fmt_linear_tick(2.5, 2.5), "2.5");
    assert_eq!(fmt_linear_tick(0.75, 0.25), "0.75");
    assert_eq!(fmt_linear_tick(-40.0, 20.0), "-40");
}

#[test]
fn sparklines_label_min_and_max_or_the_one_value() {
    let fmt = |v: f64| fmt_with_unit(v, "IOPS");
    let svg = sparkline(&Sparkline {
        title: "p: IOPS per second",
        points: &[(1.0, 900.0), (2.0, 1200.0)],
        fmt: &fmt,
        color: 0,
    });
    check(&svg, &["max 1200 IOPS", "min 900 IOPS"]);
    assert!(svg.contains("<title>p: IOPS per second, 2 samples from 1 s to 2 s: min 900 IOPS, max 1200 IOPS</title>"));
    let svg = sparkline(&Sparkline { title: "p", points: &[(1.0, 5.0)], fmt: &fmt, color: 0 });
    check(&svg, &["5 IOPS"]);
    assert!(svg.contains("<title>p, 1 sample at 1 s: 5 IOPS</title>") && !svg.contains("max"), "{svg}");
    let svg = sparkline(&Sparkline { title: "p", points: &[(1.0, f64::NAN)], fmt: &fmt, color: 0 });
    check(&svg, &["no data"]);
    assert_eq!(fmt_latency(850.0, Style::Label), "850 ns");
    assert_eq!(fmt_latency(42_500.0, Style::Label), "42.5 µs");
    assert_eq!(fmt_latency(1_250_000.0, Style::Label), "1.25 ms");
    assert_eq!(fmt_latency(2_100_000_000.0, Style::Label), "2.1 s");
}

#[test]
fn the_colour_scales_top_tick_never_reaches_its_unit() {
    // Cells from 200k to exactly 1M: the scale's top tick ("1M") sits at the top of the scale,
    // right under the unit above it; its label's upper half must stay clear of the unit.
    let mut t = table(2, 2);
    t.rows = vec![("4k".into(), vec![Some(200e3), Some(1e6)]), ("8k".into(), vec![Some(400e3), Some(600e3)])];
    let svg = heatmap(&t);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    // (text, y, font size, dy): the unit is drawn below its y (dy 0.76em), a tick centred on it.
    let texts: Vec<(String, f64, f64, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let num = |a| n.attribute(a).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
            (
                n.text().unwrap_or("").trim().to_string(),
                num("y"),
                num("font-size"),
                n.attribute("dy").unwrap_or("").into(),
            )
        })
        .collect();
    let unit = texts.iter().find(|t| t.0 == "IOPS").expect("the scale's unit");
    assert_eq!(unit.3, "0.76em", "{unit:?}");
    let unit_bottom = unit.1 + unit.2;
    let top = texts.iter().filter(|t| t.0 == "1M").min_by(|a, b| a.1.total_cmp(&b.1)).expect("a 1M tick");
    let tick_top = top.1 - top.2 / 2.0;
    assert!(
        tick_top >= unit_bottom,
        "the 1M tick's top {tick_top} is above the unit's bottom {unit_bottom}: {texts:?}"
    );
}
