use super::*;
use crate::model::TableBlock;
use crate::svg_read::Chart;
use crate::test_support::{point, results, split};

/// p50: 2 µs in drivelab, 5 in the kernel, 40 in the device, 3 completing, 1 reaping; p99 the
/// device's 400 µs.
const P50: [u64; 5] = [2_000, 5_000, 40_000, 3_000, 1_000];
const P99: [u64; 5] = [3_000, 6_000, 400_000, 4_000, 2_000];

fn with_split(label: &str, unmatched: u64) -> PointResult {
    let mut p = point(label, "", &[], &[("/dev/a", 10.0)]);
    p.result.latency_split = Some(Box::new(split(P50, P99, unmatched)));
    p
}

#[test]
fn the_table_has_a_row_per_percentile_with_each_stage_in_ns_and_percent_and_counts_in_its_title() {
    let s = split(P50, P99, 0);
    let g = grid("randread qd=1", &s);
    let at: Vec<&Cell> = g.rows.iter().map(|r| &r[0]).collect();
    assert_eq!(at, [&Cell::text("p50"), &Cell::text("p99"), &Cell::text("p99.9"), &Cell::text("mean")]);
    let heads: Vec<String> = g.columns.iter().map(Column::heading).collect();
    assert_eq!(heads[..5], ["at", "I/Os", "lat", "tool", "tool (%)"]);
    assert_eq!(heads.len(), 3 + 2 * 5);
    // p99: lat, then each stage's ns beside its share.
    let p99 = &g.rows[1];
    assert_eq!(p99[2], Cell::Num(415_000.0));
    let device = heads.iter().position(|h| h == "device").unwrap();
    assert_eq!(p99[device], Cell::Num(400_000.0));
    let Cell::Num(share) = p99[device + 1] else { panic!("{p99:?}") };
    assert!((share - 100.0 * 400.0 / 415.0).abs() < 1e-9, "{share}");
    assert_eq!(g.rows[2][device], Cell::Num(800_000.0), "p99.9 is its own row");
    // The counts are in the title, zeros included.
    assert!(g.title.contains("1,000 I/Os, 1,000 cut"), "{}", g.title);
    assert!(g.title.contains("0 unmatched, 7 clamped, 0 kernel events lost"), "{}", g.title);
    // As people read it: latencies in µs, shares in %.
    let shown = g.display();
    assert_eq!(shown[2][device], "400.0µs", "{shown:?}");
}

#[test]
fn a_run_report_shows_the_split_in_every_format_and_warns_of_unmatched_ios() {
    let r = results("run", vec![with_split("randread qd=1", 12)]);
    let report = crate::views::build(&r);
    let s = report.sections.iter().find(|s| s.title == TITLE).expect("a split section");
    assert_eq!(s.tables.len(), 1);
    let kinds: Vec<&str> = s
        .charts
        .iter()
        .map(|c| match c {
            ChartSpec::SplitBars(_) => "bars",
            ChartSpec::SplitSeconds(_) => "seconds",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["bars", "seconds"]);
    assert!(
        report.warnings.iter().any(|w| w.contains("12 of 1,012 I/Os unmatched")),
        "unmatched I/Os are a warning: {:?}",
        report.warnings
    );
    let text = crate::export::export_text(crate::Format::Text, &report).unwrap();
    assert!(text.contains("12 unmatched"), "the run's text counts them: {text}");
    let md = crate::export::export_text(crate::Format::Markdown, &report).unwrap();
    assert!(md.contains(&format!("## {TITLE}")) && md.contains("| p99 "), "{md}");
    let html = crate::render(&r, crate::Format::Html).unwrap();
    assert!(html.contains("Latency split, randread qd=1: each stage at p50, p99, p99.9"), "the chart is on the page");
    assert!(html.contains("Latency split per second, randread qd=1"));
    // Without a split: no section, no warning.
    let plain = crate::views::build(&results("run", vec![point("randread qd=1", "", &[], &[("/dev/a", 10.0)])]));
    assert!(plain.sections.iter().all(|s| s.title != TITLE));
    assert!(plain.warnings.iter().all(|w| !w.contains("latency split")));
}

#[test]
fn a_plans_page_and_text_have_each_points_split() {
    let mut second = with_split("randread qd=32", 0);
    second.point.index = 1;
    let r =
        results("plan", vec![with_split("randread qd=1", 0), second, point("no split", "", &[], &[("/dev/a", 1.0)])]);
    let report = crate::views::build(&r);
    let s = report.sections.iter().find(|s| s.title == TITLE).expect("a split section");
    let titles: Vec<&str> = s
        .tables
        .iter()
        .map(|t| match t {
            TableBlock::Grid(g) => g.title.split(':').next().unwrap(),
            _ => "",
        })
        .collect();
    assert_eq!(titles, [format!("{TITLE}, randread qd=1"), format!("{TITLE}, randread qd=32")]);
    let page = crate::render(&r, crate::Format::Html).unwrap();
    assert!(page.contains("Latency split, randread qd=32: each stage at p50, p99, p99.9"), "plan page");
    assert!(page.contains(&format!("{TITLE}, randread qd=32: 1,000 I/Os")), "plan page table");
}

#[test]
fn the_stacked_bars_are_three_bars_in_five_stage_colours_each_as_tall_as_its_stage() {
    let specs = bars("randread", &split(P50, P99, 0));
    let spec = specs[0].clone();
    let svg = crate::charts::draw(&spec);
    let chart = Chart::parse(&svg);
    let y = chart.y_axis();
    let mut colours = Vec::new();
    for (k, stage) in STAGES.iter().enumerate() {
        let c = chart.legend_color(stage);
        // Three bars, and the legend's swatch (the smallest, right of the plot).
        let mut rects = chart.bars(&c);
        assert_eq!(rects.len(), 4, "{stage}: {rects:?}");
        rects.sort_by(|a, b| a.0.total_cmp(&b.0));
        rects.pop();
        for (r, ns) in rects.iter().zip([P50[k], P99[k], 2 * P99[k]]) {
            let us = y.value(r.2) - y.value(r.3);
            assert!((us - ns as f64 / 1e3).abs() <= y.tolerance(2.0), "{stage}: {us} µs drawn for {ns} ns");
        }
        colours.push(c);
    }
    colours.sort();
    colours.dedup();
    assert_eq!(colours.len(), 5, "a colour per stage");
    // Stacked in stage order: tool at the bottom, reap on top (pixels grow downwards), each
    // stage's bottom the top of the one before it.
    for bar in 0..3 {
        let mut rects: Vec<(f64, f64)> = STAGES
            .iter()
            .map(|s| {
                let mut r = chart.bars(&chart.legend_color(s));
                r.sort_by(|a, b| a.0.total_cmp(&b.0));
                (r[bar].2, r[bar].3)
            })
            .collect();
        for k in 1..5 {
            assert!((rects[k].1 - rects[k - 1].0).abs() <= 1.0, "bar {bar}, {}: {rects:?}", STAGES[k]);
        }
        rects.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert!(rects[0].1 > rects[4].1 + 10.0, "stacked, not side by side: {rects:?}");
    }
}

#[test]
fn the_per_second_chart_stacks_a_band_per_stage() {
    let spec = seconds("randread", &split(P50, P99, 0), &[]).unwrap();
    let svg = crate::charts::draw(&spec);
    let chart = Chart::parse(&svg);
    let polygons: Vec<String> = chart
        .doc
        .descendants()
        .filter(|n| n.has_tag_name("polygon"))
        .filter_map(|n| n.attribute("fill").map(str::to_string))
        .collect();
    let want: Vec<String> = STAGES.iter().map(|s| chart.legend_color(s)).collect();
    assert_eq!(polygons, want, "a band per stage, in stage order");
    // One second is no series.
    let mut one = split(P50, P99, 0);
    one.series.truncate(1);
    assert!(seconds("randread", &one, &[]).is_none());
    // Timed by the run's own seconds; a split second past them (the drain) is left out.
    let two = crate::test_support::series(2, |_| 100.0, |_| 1000);
    let Some(ChartSpec::SplitSeconds(s)) = seconds("randread", &split(P50, P99, 0), &two) else { panic!() };
    assert_eq!(s.seconds.iter().map(|p| p.0).collect::<Vec<_>>(), [1.0, 2.0]);
}

#[test]
fn the_runs_tail_joins_its_last_second_in_the_per_second_split_weighted_by_ios() {
    // As a run records it: two whole seconds, then 7 ms of tail stamped at the same end time;
    // the split's third second is 3 I/Os whose completion took 100 µs each.
    let mut timed = crate::test_support::series(2, |_| 100.0, |_| 1000);
    let mut tail = timed[1].clone();
    tail.dur_ns = 7_000_000;
    timed.push(tail);
    let mut s = split(P50, P99, 0);
    s.series[2] = drivelab_engine::result::SplitSecondStats {
        ios: 3,
        mean_ns: drivelab_engine::split::Stages::from_array([2_000, 5_000, 40_000, 100_000, 1_000]),
    };
    let Some(ChartSpec::SplitSeconds(c)) = seconds("randread", &s, &timed) else { panic!() };
    assert_eq!(c.seconds.iter().map(|p| p.0).collect::<Vec<_>>(), [1.0, 2.0], "no third point at 2 s");
    let completion = c.seconds[1].1[3];
    let want = (3_000.0 * 333.0 + 100_000.0 * 3.0) / 336.0;
    assert!((completion - want).abs() < 1e-6, "{completion} vs {want}");
    // The chart's value axis stays near the data (it reached 150 µs for a 64 µs top before).
    let svg = crate::charts::draw(&ChartSpec::SplitSeconds(c));
    let chart = Chart::parse(&svg);
    let top = chart
        .texts()
        .filter(|n| n.attribute("text-anchor") == Some("end") && n.attribute("transform").is_none())
        .filter_map(|n| crate::svg_read::tick_value(&crate::svg_read::text_of(n)))
        .fold(0.0, f64::max);
    assert!(top < 80.0, "the axis tops at {top} µs for a 52 µs stack");
}

#[test]
fn a_searchs_probes_have_their_splits_and_a_plan_page_warns_of_unmatched_ios() {
    use drivelab_lab::results::{ProbeData, SearchBy};
    let mut r = crate::views::tests::qos_results(SearchBy::Rate, &crate::views::tests::QOS_LADDER);
    let ProbeData::Qos(q) = &mut r.probes[1].data else { panic!("a qos probe") };
    q.result.latency_split = Some(Box::new(split(P50, P99, 0)));
    let report = crate::views::build(&r);
    let s = report.sections.iter().find(|s| s.title == TITLE).expect("a split section");
    let TableBlock::Grid(g) = &s.tables[0] else { panic!("a grid") };
    assert!(g.title.starts_with(&format!("{TITLE}, probe 2 (")), "{}", g.title);
    assert_eq!(s.tables.len(), 1, "only the probe that split");
    // A plan's page (its own renderer) names a point whose split left I/Os out.
    let page = crate::render(&results("plan", vec![with_split("randread qd=1", 5)]), crate::Format::Html).unwrap();
    assert!(page.contains("latency split of randread qd=1: 5 of 1,005 I/Os unmatched"), "a warning on the page");
}

/// p50's split a sliver beside p99.9's (more than 20 times taller): a second chart gives each
/// percentile's bar as 100% of its own lat, so every split reads; close bars need none.
#[test]
fn a_sliver_of_a_p50_gets_a_chart_of_shares_beside_the_stacked_bars() {
    let close = bars("randread", &split(P50, P99, 0));
    let mut wide = split(P50, P99, 0);
    for a in &mut wide.at[1..] {
        a.stage_ns = Stages::from_array(a.stage_ns.to_array().map(|v| v * 100));
    }
    let wide = bars("randread", &wide);
    let shares =
        |specs: &[ChartSpec]| specs.iter().filter(|s| matches!(s, ChartSpec::SplitBars(b) if b.shares)).count();
    if close.len() == 1 {
        assert_eq!(shares(&close), 0);
    }
    assert_eq!((wide.len(), shares(&wide)), (2, 1));
    let svg = crate::charts::draw(&wide[1]);
    assert!(svg.contains("share of lat (%)"), "{svg}");
}
