//! The qos, act and run views checked against the saved probes they are made from: chart marks
//! read back from the SVG (axes fitted through their tick labels), tables and every exporter.

use std::path::PathBuf;

use drivelab_engine::spec::AccessSpec;
use drivelab_lab::act::{self, ActConfig, ActCriteria, SliceRow};
use drivelab_lab::act_run::{ActOptions, ActRun, Judged, Timing};
use drivelab_lab::results::{
    Kind, Outcome, ProbeData, ProbeResult, ProbeRole, QosProbe, QosSetup, ResponseScore, Results, SearchBy, Setup,
};
use drivelab_lab::search::{parse_objective, ClauseResult, Evaluation};

use super::build;
use crate::export::{export_text, html::page};
use crate::model::{ChartSpec, Report};
use crate::svg_read::{svgs, Chart, LogAxis};
use crate::test_support::{manifest, point};
use crate::Format;

fn results(kind: Kind, setup: Setup, probes: Vec<ProbeResult>, outcome: Option<Outcome>) -> Results {
    let mut m = manifest("plan", &[]);
    m.kind = kind;
    m.setup = setup;
    Results {
        dir: PathBuf::from("/results/x"),
        manifest: m,
        points: Vec::new(),
        probes,
        outcome,
        details: Default::default(),
    }
}

/// A plan's results directory holding `points`.
fn plan_results(points: Vec<drivelab_lab::results::PointResult>) -> Results {
    crate::test_support::results("plan", points)
}

fn probe(index: usize, role: ProbeRole, value: f64, pass: bool, why: &str, data: ProbeData) -> ProbeResult {
    ProbeResult {
        schema: 2,
        index,
        role,
        value,
        pass,
        why: why.into(),
        duration_ns: 2_000_000_000,
        interrupted: false,
        power_w: Some(4.0 + index as f64),
        data,
        ranks: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// qos

/// p99 at a load in the made-up search (ns): grows with the load, crosses 1 ms at 12 500.
fn p99_at(load: f64) -> u64 {
    (load * 80.0) as u64
}

/// A rate search by halving and bisection: (role, offered IOPS).
pub(crate) const QOS_LADDER: [(ProbeRole, f64); 7] = [
    (ProbeRole::Saturation, 50_000.0),
    (ProbeRole::Probe, 50_000.0),
    (ProbeRole::Probe, 25_000.0),
    (ProbeRole::Probe, 6_250.0),
    (ProbeRole::Probe, 12_000.0),
    (ProbeRole::Probe, 9_000.0),
    (ProbeRole::Confirm, 12_000.0),
];

pub(crate) fn qos_results(by: SearchBy, ladder: &[(ProbeRole, f64)]) -> Results {
    let objective = parse_objective("p99<1ms,p99.9<4ms").unwrap();
    let setup = QosSetup {
        by,
        objective: objective.clone(),
        spec: AccessSpec::default(),
        targets: vec!["/dev/x".into()],
        tolerance_pct: 5.0,
        max_qd: 64,
        judge_busy: false,
    };
    let probes = ladder
        .iter()
        .enumerate()
        .map(|(i, &(role, load))| {
            let measured = [p99_at(load), p99_at(load) * 3];
            let clauses: Vec<ClauseResult> = objective
                .clauses
                .iter()
                .zip(measured)
                .map(|(c, m)| ClauseResult {
                    label: c.to_string(),
                    measured_ns: m,
                    limit_ns: c.limit_ns,
                    pass: m < c.limit_ns,
                })
                .collect();
            let pass = clauses.iter().all(|c| c.pass);
            let mut result = point("p", "", &[], &[("/dev/x", load / 256.0)]).result;
            result.total.iops = load;
            let data = ProbeData::Qos(Box::new(QosProbe {
                evaluation: Evaluation { pass, clauses },
                fell_behind: false,
                delivery: None,
                result,
            }));
            probe(i + 1, role, load, pass, if pass { "" } else { "p99 over 1ms" }, data)
        })
        .collect();
    let outcome = Outcome {
        schema: 2,
        best: Some(12_000.0),
        reason: "converged within 5%".into(),
        interrupted: false,
        errored: false,
        saturation_iops: Some(50_000.0),
        power_w: Some(7.5),
        response: None,
    };
    results(Kind::Qos, Setup::Qos(setup), probes, Some(outcome))
}

fn only_chart(r: &Report) -> String {
    let page = page(r);
    let charts: Vec<&str> = svgs(&page);
    assert_eq!(charts.len(), r.charts().count(), "one SVG per chart spec");
    charts[0].to_string()
}

#[test]
fn the_qos_ladder_puts_every_probe_at_its_load_and_latency_with_the_objective_dashed_at_its_limit() {
    let saved = qos_results(SearchBy::Rate, &QOS_LADDER);
    let report = build(&saved);
    let svg = only_chart(&report);
    let chart = Chart::parse(&svg);
    let y = LogAxis::fit(&chart.y_ticks());
    let x = LogAxis::fit(&chart.x_ticks());
    // (statistic, its limit, its measured latency at a load)
    type Measured = fn(f64) -> f64;
    let clauses: [(&str, f64, Measured); 2] =
        [("p99", 1e6, |l| p99_at(l) as f64), ("p99.9", 4e6, |l| p99_at(l) as f64 * 3.0)];
    for (stat, limit_ns, lat) in clauses {
        let color = chart.legend_color(&format!("{stat} limit {}", drivelab_engine::units::fmt_ns(limit_ns)));
        let levels = chart.dashed_levels(&color);
        assert_eq!(levels.len(), 1, "{stat}: one limit line");
        let limit_us = y.value(levels[0]);
        assert!((y.px(limit_ns / 1e3) - levels[0]).abs() <= 1.0, "{stat} limit drawn at {limit_us} µs");
        let (filled, hollow) = (chart.markers(&color), chart.hollow(&color, 4.0));
        for p in saved.probes.iter().filter(|p| p.role != ProbeRole::Saturation) {
            let want = (p.value, lat(p.value) / 1e3);
            let marks = if p.pass { &filled } else { &hollow };
            // Within a pixel (plotters rounds to pixels).
            let found =
                marks.iter().any(|&(mx, my)| (x.px(want.0) - mx).abs() <= 1.0 && (y.px(want.1) - my).abs() <= 1.0);
            let seen: Vec<(f64, f64)> = marks.iter().map(|&(mx, my)| (x.value(mx), y.value(my))).collect();
            assert!(
                found,
                "{stat}: probe {} at {want:?} ({}) not drawn: {seen:?}",
                p.index,
                if p.pass { "filled" } else { "hollow" }
            );
        }
        let judged = saved.probes.iter().filter(|p| p.role != ProbeRole::Saturation).count();
        assert_eq!(filled.len() + hollow.len(), judged + 1, "{stat}: a mark per judged probe (+ the legend's)");
    }
    let rings = chart.hollow("#000000", 8.0);
    assert_eq!(rings.len(), 2 + 1, "the confirm ringed for each clause, and the legend's ring");
    assert!(rings.iter().any(|&(rx, _)| (x.px(12_000.0) - rx).abs() <= 1.0), "ring at the confirmed load");
}

#[test]
fn a_qd_ladder_spaces_queue_depths_as_powers_of_two() {
    let ladder =
        [(ProbeRole::Probe, 64.0), (ProbeRole::Probe, 16.0), (ProbeRole::Probe, 4.0), (ProbeRole::Confirm, 16.0)];
    let saved = qos_results(SearchBy::Qd, &ladder);
    let report = build(&saved);
    let ChartSpec::Ladder(l) = report.charts().next().unwrap() else { panic!("a ladder") };
    assert_eq!(l.clauses[0].points.iter().map(|p| p.load).collect::<Vec<_>>(), vec![64.0, 16.0, 4.0, 16.0]);
    let svg = only_chart(&report);
    let chart = Chart::parse(&svg);
    let x = LogAxis::fit(&chart.x_ticks());
    assert!((x.px(16.0) - x.px(4.0) - (x.px(64.0) - x.px(16.0))).abs() <= 1.0, "equal steps per x4");
}

#[test]
fn the_qos_answer_and_ladder_table_read_the_same_in_every_format() {
    let saved = qos_results(SearchBy::Rate, &QOS_LADDER);
    let report = build(&saved);
    let text = export_text(Format::Text, &report).unwrap();
    assert!(text.contains("highest rate meeting p99<1ms,p99.9<4ms  12,000 IOPS"), "{text}");
    assert!(text.contains("closed-loop maximum") && text.contains("50,000 IOPS"), "{text}");
    assert!(text.contains("best as share of the maximum") && text.contains("24.0%"), "{text}");
    let md = export_text(Format::Markdown, &report).unwrap();
    assert!(md.contains("| probe |") && md.contains("**highest rate meeting"), "{md}");
    // CSV: each probe's offered load and measured p99 at full precision, in ns.
    let csv = export_text(Format::Csv, &report).unwrap();
    let header = csv.lines().find(|l| l.starts_with("table,probe,")).expect("ladder block");
    let cols: Vec<&str> = header.split(',').collect();
    let at = |name: &str| cols.iter().position(|c| *c == name).unwrap_or_else(|| panic!("{name} in {header}"));
    let (offered, p99, verdict) = (at("offered (IOPS)"), at("p99 (ns)"), at("verdict"));
    let rows: Vec<Vec<&str>> =
        csv.lines().filter(|l| l.starts_with("Probe ladder,")).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), saved.probes.len());
    for (row, p) in rows.iter().zip(&saved.probes) {
        assert_eq!(row[offered].parse::<f64>().unwrap(), p.value);
        assert_eq!(row[p99].parse::<u64>().unwrap(), p99_at(p.value));
        let want = match p.role {
            ProbeRole::Saturation => "not judged",
            _ if p.pass => "PASS",
            _ => "FAIL",
        };
        assert_eq!(row[verdict], want);
    }
    let json: serde_json::Value = serde_json::from_str(&export_text(Format::Json, &report).unwrap()).unwrap();
    assert_eq!(json["sections"][0]["charts"][0]["chart"], "ladder");
    assert_eq!(json["sections"][0]["charts"][0]["clauses"][0]["limit_ns"], 1e6);
}

// ---------------------------------------------------------------------------------------------
// act

/// % over each threshold in slice `s` at load `n`: distinct for every bar.
fn over(n: f64, s: usize) -> [f64; 7] {
    let base = 0.6 * n + 0.2 * s as f64;
    [base, base * 0.7, base * 0.5, base * 0.3, base * 0.2, base * 0.1, base * 0.05]
}

fn act_run(n: f64, slices: usize, c: &ActCriteria) -> ActRun {
    let rows: Vec<SliceRow> = (0..slices)
        .map(|s| SliceRow {
            index: s + 1,
            start_s: 10 * s as u64,
            end_s: 10 * (s as u64 + 1),
            ops: 20_000,
            rate_per_s: 2000.0 * n,
            over_pct: over(n, s),
            partial: false,
            delivery: None,
        })
        .collect();
    let verdict = act::verdict(&rows, c);
    // Response times are never below service times: more reads over each threshold.
    let resp_rows: Vec<SliceRow> =
        rows.iter().map(|r| SliceRow { over_pct: r.over_pct.map(|p| p * 1.5), ..r.clone() }).collect();
    let resp_verdict = act::verdict(&resp_rows, c);
    ActRun {
        scale: n,
        rates: ActConfig { scale: n, ..Default::default() }.derive(4096),
        timing: Timing::Service,
        seconds: Vec::new(),
        passed: verdict.pass,
        why: String::new(),
        reasons: Vec::new(),
        slices: rows,
        verdict,
        fell_behind: None,
        interrupted: false,
        response: Some(Judged {
            timing: Timing::Response,
            passed: resp_verdict.pass,
            slices: resp_rows,
            verdict: resp_verdict,
            why: String::new(),
        }),
        own_lag_moved: None,
        streams: Vec::new(),
    }
}

/// Not ACT's default limits: the report must draw these.
fn criteria() -> ActCriteria {
    ActCriteria { over_1ms_pct: 6.5, over_8ms_pct: 2.5, over_64ms_pct: 0.75 }
}

pub(crate) fn act_results() -> Results {
    let c = criteria();
    let opts = ActOptions {
        config: ActConfig::default(),
        criteria: c.clone(),
        targets: vec!["/dev/x".into()],
        time_ns: 40_000_000_000,
        slice_secs: 10,
        service_threads: 10,
        large_block_threads: 1,
        dsync: true,
        max_lag_ns: 10_000_000_000,
        pace: Default::default(),
        engine: Default::default(),
        seed: 1,
        prep: false,
        search: true,
        probe_time_ns: 20_000_000_000,
        search_start: Some(12),
        latency_split: false,
    };
    let loads = [(ProbeRole::Probe, 12.0), (ProbeRole::Probe, 6.0), (ProbeRole::Probe, 9.0), (ProbeRole::Confirm, 9.0)];
    let probes = loads
        .iter()
        .enumerate()
        .map(|(i, &(role, n))| {
            let run = act_run(n, if role == ProbeRole::Confirm { 4 } else { 2 }, &c);
            let why = run.verdict.failing_slices.first().map(|f| f.1.clone()).unwrap_or_default();
            probe(i + 1, role, n, run.passed, &why, ProbeData::Act(Box::new(run)))
        })
        .collect();
    let outcome = Outcome {
        schema: 2,
        best: Some(9.0),
        reason: "converged".into(),
        interrupted: false,
        errored: false,
        saturation_iops: None,
        power_w: None,
        response: Some(ResponseScore { best: Some(6.0), reason: "converged: 6 passes, 9 fails".into() }),
    };
    results(Kind::Act, Setup::Act(opts), probes, Some(outcome))
}

#[test]
fn act_slice_bars_have_each_saved_percentage_and_the_limits_are_the_runs_own_criteria() {
    let saved = act_results();
    assert!(saved.probes[3].pass && !saved.probes[0].pass, "12x fails, the 9x confirm passes");
    let report = build(&saved);
    let svg = only_chart(&report);
    let chart = Chart::parse(&svg);
    let y = chart.y_axis();
    let confirm = saved.probes[3].act().unwrap();
    for (k, ms) in [1, 2, 4, 8, 16, 32, 64].into_iter().enumerate() {
        let color = chart.legend_color(&format!("> {ms} ms"));
        let mut bars = chart.bars(&color);
        bars.retain(|b| b.1 - b.0 > 13.0); // not the legend's 12-pixel swatch
        bars.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(bars.len(), confirm.slices.len(), "> {ms} ms: a bar per slice");
        for (bar, s) in bars.iter().zip(&confirm.slices) {
            let (top, bottom) = (y.value(bar.2), y.value(bar.3));
            assert!(bottom.abs() <= y.tolerance(1.0), "bars stand on 0");
            assert!(
                (top - s.over_pct[k]).abs() <= y.tolerance(1.0),
                "slice {} > {ms} ms: {top} vs {}",
                s.index,
                s.over_pct[k]
            );
        }
    }
    let c = criteria();
    for (ms, pct) in [(1, c.over_1ms_pct), (8, c.over_8ms_pct), (64, c.over_64ms_pct)] {
        let color = chart.legend_color(&format!("limit > {ms} ms: {pct}%"));
        let levels = chart.dashed_levels(&color);
        assert_eq!(levels.len(), 1, "limit > {ms} ms: one line");
        assert!((y.value(levels[0]) - pct).abs() <= y.tolerance(1.0), "limit > {ms} ms at {}", y.value(levels[0]));
    }
}

#[test]
fn the_act_report_gives_verdict_score_per_watt_and_every_load_of_the_search() {
    let saved = act_results();
    let report = build(&saved);
    let text = export_text(Format::Text, &report).unwrap();
    assert!(text.contains("PASS at 9x"), "{text}");
    // The confirm (probe 4) drew 8 W: 9 / 8 = 1.125 N per watt.
    let line = |key: &str| text.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_default().to_string();
    assert!(line("average power").ends_with(" 8.0 W") && line("score per watt").ends_with(" 1.125 N/W"), "{text}");
    // ACT's score says what it judged; the response-time score stands beside it.
    assert!(line("judged by").contains("service time, as ACT measures it"), "{text}");
    assert!(line("response-time score").contains("6x (converged: 6 passes, 9 fails)"), "{text}");
    assert!(text.contains("< 6.5% over 1 ms, < 2.5% over 8 ms, < 0.75% over 64 ms"), "{text}");
    let csv = export_text(Format::Csv, &report).unwrap();
    let loads: Vec<Vec<&str>> =
        csv.lines().filter(|l| l.starts_with("Loads run,")).map(|l| l.split(',').collect()).collect();
    assert_eq!(loads.len(), 4);
    for (row, p) in loads.iter().zip(&saved.probes) {
        assert_eq!(row[3].parse::<f64>().unwrap(), p.value, "N");
        assert_eq!(row[7].parse::<f64>().unwrap(), p.act().unwrap().verdict.worst[0], "worst > 1 ms");
        assert_eq!(row[10], if p.pass { "PASS" } else { "FAIL" });
        let by_response = p.act().unwrap().response.as_ref().unwrap().passed;
        assert_eq!(row[11], if by_response { "PASS" } else { "FAIL" }, "the response-time verdict beside");
    }
    // The confirm's 4 slices and the max row, by service time and by response time, each titled so.
    for timing in ["service time (ACT's) — PASS", "response time — FAIL"] {
        let rows = csv.lines().filter(|l| l.starts_with("\"Reads over each threshold") && l.contains(timing)).count();
        assert_eq!(rows, 4 + 1, "{timing}: {csv}");
    }
}

#[test]
fn an_unfinished_search_says_so_instead_of_a_verdict() {
    let mut saved = act_results();
    saved.outcome = None;
    let text = export_text(Format::Text, &build(&saved)).unwrap();
    assert!(text.contains("unknown: the run did not finish") && text.contains("warning: no outcome.json"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// run

#[test]
fn a_run_directory_gets_its_figures_result_table_and_latency_chart() {
    let mut p = point("randread 4k qd1 x1", "", &[], &[("/dev/x", 100.0)]);
    let mut saved = results(
        Kind::Run,
        Setup::Plan(manifest("plan", std::slice::from_ref(&p)).plan().unwrap().clone()),
        Vec::new(),
        None,
    );
    // An io_uring result: clat beside lat, each row naming its latency.
    p.result.read.clat_ns = Some(p.result.read.lat_ns.clone());
    p.result.schema = 2;
    saved.points = vec![p];
    let report = build(&saved);
    let text = export_text(Format::Text, &report).unwrap();
    // The text is the run's summary (what `drivelab run` prints): its compact table's read row.
    let read: Vec<&str> =
        text.lines().find(|l| l.trim_start().starts_with("read ")).unwrap_or_default().split_whitespace().collect();
    assert_eq!(read[1..=2], ["25.6k", "100.0"], "{text}");
    assert_eq!(read[6], "100.0µs", "p99 (after the mean, p50): {text}");
    // The documents show the answer and the full table.
    let md = export_text(Format::Markdown, &report).unwrap();
    assert!(md.contains("- **IOPS**: 25,600") && md.contains("| read clat "), "{md}");
    let csv = export_text(Format::Csv, &report).unwrap();
    let rows: Vec<&str> =
        csv.lines().filter(|l| l.starts_with("Throughput and latency (lat: from just before")).collect();
    let labels: Vec<&str> = rows.iter().filter_map(|l| l.split(',').nth(1)).collect();
    assert!(labels.starts_with(&["read lat", "read clat", "total lat"]), "{csv}");
    let page = page(&report);
    assert_eq!(svgs(&page).len(), 1, "latency percentiles (no series saved)");
    assert!(page.contains("Throughput and latency"));
}

// ---------------------------------------------------------------------------------------------
// plans and suites: PNG from the specs

#[test]
fn a_plan_pages_charts_are_exactly_its_chart_specs_drawn_so_png_never_reads_the_html() {
    let mut points: Vec<_> = (1..=3)
        .map(|i| {
            let qd = (1 << i).to_string();
            let mut p = point(&format!("qd={qd}"), "", &[("qd", qd.as_str())], &[("/dev/x", 50.0 * i as f64)]);
            p.point.index = i;
            p.result.series = crate::test_support::series(5, |s| 1000.0 + s as f64, |s| 100_000 + s as u64);
            p
        })
        .collect();
    points[0].power_w = None;
    for kind in ["plan", "suite:bsqd", "suite:iometer"] {
        let m = manifest(kind, &points);
        let page = crate::html::report(&m, &points);
        let drawn: Vec<&str> =
            svgs(&page).into_iter().filter(|s| !s[..s.find('>').unwrap()].contains("class=\"spark\"")).collect();
        let specs = super::plan::chart_specs(&m, &points);
        assert_eq!(drawn.len(), specs.len(), "{kind}: every chart of the page has a spec");
        for (svg, spec) in drawn.iter().zip(&specs) {
            assert_eq!(*svg, crate::charts::draw(spec).trim_end(), "{kind}: '{}' is the spec drawn", spec.title());
        }
    }
}

#[test]
fn plan_and_suite_tables_go_through_the_exporters_in_their_own_form() {
    let points: Vec<_> = (1..=3)
        .map(|i| {
            let qd = (1 << i).to_string();
            let mut p = point(&format!("qd={qd}"), "", &[("qd", &qd), ("read", &qd)], &[("/dev/x", 50.0 * i as f64)]);
            p.point.index = i;
            p
        })
        .collect();
    for kind in ["plan", "suite:mixed"] {
        let m = manifest(kind, &points);
        let saved = Results {
            dir: PathBuf::from("/r"),
            manifest: m.clone(),
            points: points.clone(),
            probes: vec![],
            outcome: None,
            details: Default::default(),
        };
        let report = build(&saved);
        let tables = crate::suite_tables::tables(m.kind, &points);
        assert!(!tables.is_empty());
        let csv = export_text(Format::Csv, &report).unwrap();
        assert_eq!(csv, tables.iter().map(|t| t.csv()).collect::<Vec<_>>().join("\n"), "{kind}");
        let text = export_text(Format::Text, &report).unwrap();
        assert!(tables.iter().all(|t| text.contains(&t.text())), "{kind}: {text}");
        let charts = report.charts().count();
        assert_eq!(charts, super::plan::chart_specs(&m, &points).len(), "{kind}: the PNGs are the page's charts");
    }
}

/// Issue #12: every report says which latency its figures are — fio's lat for results of schema
/// 2, fio's clat for schema 1 (whose `lat_ns` started at the submit call's return), both named
/// when a resumed plan mixes them.
#[test]
fn the_facts_name_which_latency_the_figures_are() {
    use crate::test_support::point;
    let old = point("a", "s", &[], &[("t", 1.0)]);
    let mut new = point("b", "s", &[], &[("t", 1.0)]);
    new.result.schema = 2;
    let of = |points: Vec<drivelab_lab::results::PointResult>| {
        super::common::latency_definition(&plan_results(points)).expect("a definition")
    };
    assert_eq!(of(vec![new.clone()]), "from just before the submit call (fio's lat)");
    assert!(of(vec![old.clone()]).contains("fio's clat; results of schema 1"));
    let both = of(vec![new, old]);
    assert!(both.contains("fio's lat") && both.contains("schema 1"), "{both}");
}

#[test]
fn notices_become_notes_once_each_naming_the_points_not_all_have() {
    let mut a = point("a", "", &[("qd", "1")], &[("null", 1.0)]);
    let mut b = point("b", "", &[("qd", "2")], &[("null", 2.0)]);
    a.result.notices = vec!["made by fio".into(), "no histogram".into()];
    b.result.notices = vec!["made by fio".into()];
    // A percentile the saved data lacks is shown as missing, not as 0.
    a.result.total.lat_ns.percentiles.clear();
    a.result.per_target[0].total.lat_ns.percentiles.clear();
    let points = vec![a, b];
    assert_eq!(super::notes(&points), ["made by fio", "no histogram (a)"]);
    let r = plan_results(points);
    let report = build(&r);
    let text = export_text(Format::Text, &report).unwrap();
    assert!(text.contains("note: made by fio\nnote: no histogram (a)\n"), "{text}");
    assert!(export_text(Format::Markdown, &report).unwrap().contains("## Notes\n\n- made by fio\n"));
    assert!(export_text(Format::Csv, &report).unwrap().contains("note\nmade by fio\n"));
    assert!(page(&report).contains("<div class=\"note\">made by fio</div>"));
    let p99 = report.sections.iter().flat_map(|s| &s.tables).find_map(|t| match t {
        crate::model::TableBlock::Table(t) if t.unit == "µs" => Some(t.clone()),
        _ => None,
    });
    let p99 = p99.expect("a p99 table");
    assert_eq!(p99.rows[0].1[0], None, "a's p99 is not known: missing, not 0");
    assert!(p99.rows[0].1[1].is_some());
    let html = crate::html::report(&r.manifest, &r.points);
    assert!(html.contains("<h2>Notes</h2>") && html.contains("no histogram (a)"));
}

#[test]
fn a_ranks_flags_come_from_its_typed_fields_not_from_the_wording_of_a_notice() {
    // A host named "CPU-bound-01" whose rank fell behind its rate but was not CPU-bound: the row
    // said "CPU-bound" because the notice (naming the host) contained the words.
    let p = crate::test_support::ranked(point("a", "", &[], &[("null", 1.0), ("null2", 1.0)]), "CPU-bound-01");
    let mut part = p.ranks[0].clone();
    let empty = serde_json::to_value(drivelab_engine::hist::Histogram::new().summary()).unwrap();
    let open_loop = serde_json::json!({
        "target_iops": 1000.0, "target_bw_bytes_per_s": 4096000.0, "arrivals": "uniform", "achieved_iops": 500.0,
        "read_resp_lat_ns": empty, "write_resp_lat_ns": empty, "total_resp_lat_ns": empty, "lag_ns": empty,
        "late_threshold_ns": 1000000, "late_ops": 10, "late_pct": 1.0, "final_lag_ns": 500000000,
        "max_lag_ns": null, "gave_up": false, "kept_up": false,
    });
    part.results[0].open_loop = Some(Box::new(serde_json::from_value(open_loop).unwrap()));
    assert!(!part.results[0].cpu.cpu_bound);
    let notice = drivelab_lab::ranks::merge::rank_flags(std::slice::from_ref(&part), 0);
    assert!(notice.iter().any(|n| n.contains("CPU-bound")), "the notice names the host: {notice:?}");
    assert_eq!(super::ranks::flag_words(&part), ["fell behind"]);
    part.results[0].cpu.cpu_bound = true;
    assert_eq!(super::ranks::flag_words(&part), ["CPU-bound", "fell behind"]);
}

#[test]
fn a_long_runs_every_second_is_a_dot_in_its_consistency_chart_beside_its_mean() {
    // 90 s at 1000 IOPS but seconds 40..45 stalled at 100: a dot each, the stall visible.
    let mut p = point("randwrite 4k", "", &[], &[("/dev/a", 10.0)]);
    p.result.series = crate::test_support::series(90, |i| if (40..45).contains(&i) { 100.0 } else { 1000.0 }, |_| 1000);
    let specs = crate::views::plan::series_specs(&p);
    let Some(spec @ ChartSpec::Scatter { line, .. }) = specs.get(2) else { panic!("no scatter: {specs:?}") };
    assert!(line.title.ends_with("consistency: IOPS of every second (90 s)"), "{}", line.title);
    let svg = crate::charts::draw(spec);
    let chart = Chart::parse(&svg);
    let color = chart.legend_color("each second");
    let dots = chart.markers(&color);
    assert_eq!(dots.len(), 90 + 1, "a dot per second, and the legend's");
    let (x, y) = (chart.x_axis(), chart.y_axis());
    let low: Vec<f64> =
        dots.iter().filter(|d| x.value(d.0) <= 90.5).map(|d| y.value(d.1)).filter(|v| *v < 500.0).collect();
    assert_eq!(low.len(), 5, "the stalled seconds: {low:?}");
    assert!(low.iter().all(|v| (v - 100.0).abs() <= y.tolerance(1.0)), "{low:?}");
    // No line joins the dots: the only lines of their colour are the dashes of the mean, at 950 IOPS.
    let dashes: Vec<Vec<(f64, f64)>> = chart
        .doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(color.as_str()))
        .map(crate::svg_read::vertices)
        .filter(|v| v.iter().all(|p| x.value(p.0) <= 90.5))
        .collect();
    assert!(dashes.len() > 10, "a dashed line: {dashes:?}");
    for d in &dashes {
        assert!(d.iter().all(|v| (y.value(v.1) - 950.0).abs() <= y.tolerance(1.5)), "a line off the mean: {d:?}");
    }
    // A run under a minute has its line only.
    p.result.series.truncate(59);
    assert_eq!(crate::views::plan::series_specs(&p).len(), 2);
}

#[test]
fn a_report_of_many_points_holds_their_figures_and_reads_back_the_details_its_charts_draw() {
    use drivelab_engine::hist::Histogram;
    use drivelab_lab::results::{Details, ResultsDir, DETAILED_POINTS, SCHEMA};
    // One point more than a report keeps whole: qd 1..=7 x bs 4k..64k, a latency of its own each.
    let n = DETAILED_POINTS + 1;
    let points: Vec<_> = (0..n)
        .map(|i| {
            let (qd, bs) = ((i % 7 + 1).to_string(), ["4k", "8k", "16k", "64k"][i / 7 % 4]);
            let mut p = point(&format!("qd={qd} bs={bs} #{i}"), "", &[("qd", &qd), ("bs", bs)], &[("/dev/a", 1.0)]);
            p.schema = SCHEMA;
            p.point.index = i + 1;
            p.point.slug = format!("p{i}");
            let mut h = Histogram::new();
            h.record_n(1_000 * (i as u64 + 1), 10);
            p.result.total.lat_ns = h.summary();
            p.result.series = crate::test_support::series(3, |_| 1.0, |_| 1);
            p
        })
        .collect();
    let base = std::env::temp_dir().join(format!("drivelab-many-points-{}", std::process::id()));
    std::fs::create_dir_all(&base).unwrap();
    let dir = ResultsDir::create(&base, &manifest("plan", &points)).unwrap();
    for p in &points {
        dir.save_point(p).unwrap();
    }
    let r = super::open(dir.path()).unwrap();
    std::fs::remove_dir_all(&base).unwrap();
    assert!(matches!(r.details, Details::Dropped { .. }), "more than {DETAILED_POINTS} points: details dropped");
    let wanted = super::detailed_points(&r);
    assert!(!wanted.is_empty() && wanted.len() <= 2 * crate::html::MAX_LATENCY_SERIES, "{wanted:?}");
    for (i, p) in r.points.iter().enumerate() {
        // Every point's figures stay; only the drawn ones hold their histogram and series.
        assert_eq!(p.result.total.lat_ns.get(drivelab_engine::hist::Pct::P99), Some(1_000 * (i as u64 + 1)), "{i}");
        let whole = !p.result.total.lat_ns.histogram.buckets.is_empty();
        assert_eq!(whole, wanted.contains(&i), "point {i}");
        assert_eq!(!p.result.series.is_empty(), wanted.contains(&i), "point {i}'s series");
    }
    // The latency panel draws exactly those points, each with its histogram: a CDF line per pick.
    let specs = super::plan::latency_specs(&r.points);
    let cdf = specs.iter().find_map(|s| match s {
        ChartSpec::Cdf { series } => Some(series.len()),
        _ => None,
    });
    assert_eq!(cdf, Some(crate::html::MAX_LATENCY_SERIES), "every picked point drawn");
    // No sparkline row per point at this count: the page says where the seconds are.
    let page = crate::html_page(&r);
    assert!(page.contains(&format!("{n} points: more than {DETAILED_POINTS}")), "the series note");
}
