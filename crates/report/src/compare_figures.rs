//! `compare` of qos, act and run results: each run's headline figures (ACT score, verdict,
//! watts and score per watt, worst slice; QoS maximum, closed-loop maximum, the objective's
//! statistics at the answer; a run's IOPS, MB/s and latency) side by side, with the change
//! against the first run: in percentage points where the figure is already a percent (% of
//! reads over 1 ms, CPU %), relative percent otherwise. The result is a [`Report`], so every
//! exporter writes it. Runs of different kinds (or qos searches by rate and by qd) are refused:
//! their figures do not measure the same thing.
//!
//! A run's figures from a point whose I/O failed are marked as `report` marks them: its column
//! and its Δ column carry [`crate::tables::ERRORED_MARK`], and the table's title and a warning
//! name the run, the point and the error. (A qos or act load with an I/O error never passes,
//! so it never decides a figure.)

use drivelab_engine::hist::Pct;
use drivelab_engine::result::RunResult;
use drivelab_engine::Error;
use drivelab_lab::results::{Kind, Results, SearchBy, Setup};

use crate::compare_runs::{runs_grid, RunInfo};
use crate::durable;
use crate::model::{Cell, ChartSpec, Column, Grid, Report, Section, SliceBars, TableBlock, Unit};
use crate::tables::{errored_footnote, mark_if, point_error, ERRORED_MARK};
use crate::views::{act, qos};

/// One figure of a run: name, unit, value (None: not measured, e.g. no load passed).
type Figure = (String, Unit, Option<f64>);

fn ns_to_us(ns: f64) -> f64 {
    ns / 1e3
}

fn act_figures(r: &Results) -> Vec<Figure> {
    let (best, watts) = act::score(r);
    let mut f = vec![("score (N)".to_string(), Unit::ActN, best)];
    f.push(("average power".into(), Unit::Watts, watts));
    f.push(("score per watt".into(), Unit::NPerWatt, best.zip(watts).filter(|(_, w)| *w > 0.0).map(|(n, w)| n / w)));
    let run = act::deciding(r).and_then(|p| p.act());
    for (i, ms) in [(0, 1), (3, 8), (6, 64)] {
        f.push((format!("worst slice, reads > {ms} ms"), Unit::Pct, run.map(|a| a.verdict.worst[i])));
    }
    f.push(("reads/s of the deciding load".into(), Unit::Count, run.map(|a| a.rates.read_iops)));
    f
}

fn qos_figures(r: &Results) -> Vec<Figure> {
    let Setup::Qos(s) = &r.manifest.setup else { return Vec::new() };
    let o = r.outcome.as_ref();
    let unit = if s.by == SearchBy::Qd { Unit::Qd } else { Unit::Iops };
    let best = o.and_then(|o| o.best);
    let deciding = qos::deciding(r).and_then(|p| p.qos());
    let mut f = vec![(format!("highest load meeting {}", s.objective), unit, best)];
    f.push(("achieved at the answer".into(), Unit::Iops, deciding.map(|q| q.result.total.iops)));
    let sat = o.and_then(|o| o.saturation_iops);
    if s.by == SearchBy::Rate {
        f.push(("closed-loop maximum".into(), Unit::Iops, sat));
        f.push(("answer as share of the maximum".into(), Unit::Pct, best.zip(sat).map(|(b, m)| b / m * 100.0)));
    }
    for (i, c) in s.objective.clauses.iter().enumerate() {
        let m = deciding.and_then(|q| q.evaluation.clauses.get(i)).map(|c| ns_to_us(c.measured_ns as f64));
        f.push((format!("{} at the answer", c.to_string().split('<').next().unwrap_or("")), Unit::Us, m));
    }
    f.push(("average power".into(), Unit::Watts, o.and_then(|o| o.power_w)));
    f
}

fn run_figures(r: &Results) -> Vec<Figure> {
    let p = r.points.first();
    let t = p.map(|p| &p.result.total);
    let mut f = vec![
        ("IOPS".to_string(), Unit::Iops, t.map(|t| t.iops)),
        ("MB/s".into(), Unit::MBps, t.map(|t| t.bw_mb_per_s)),
        ("mean latency".into(), Unit::Us, t.map(|t| ns_to_us(t.lat_ns.mean))),
    ];
    for q in [Pct::P50, Pct::P99, Pct::P99_9, Pct::P99_99] {
        f.push((
            format!("{} latency", q.name()),
            Unit::Us,
            t.and_then(|t| t.lat_ns.get(q)).map(|ns| ns_to_us(ns as f64)),
        ));
    }
    // clat (from the submit call's return) where the run has it: io_uring's, and fio's, whose
    // lat has no percentiles unless fio was asked for them.
    if let Some(clat) = t.and_then(|t| t.clat_ns.as_ref()) {
        for q in [Pct::P50, Pct::P99] {
            f.push((format!("{} clat", q.name()), Unit::Us, clat.get(q).map(|ns| ns_to_us(ns as f64))));
        }
    }
    // A mixed workload: each direction's p50 and p99 (lat and clat) too. fio's default JSON
    // gives percentiles per direction only (they do not add up to the total's), so there these
    // are the only percentiles a fio run has.
    if let Some(r) = p.map(|p| &p.result) {
        let dirs = [("read", &r.read), ("write", &r.write)];
        if dirs.iter().all(|(_, d)| d.ops > 0) {
            for (name, d) in dirs {
                let stats = [("latency", Some(&d.lat_ns)), ("clat", d.clat_ns.as_ref())];
                for (word, l) in stats.into_iter().filter_map(|(w, l)| Some((w, l?))) {
                    for q in [Pct::P50, Pct::P99] {
                        let v = l.get(q).map(|ns| ns_to_us(ns as f64));
                        f.push((format!("{name} {} {word}", q.name()), Unit::Us, v));
                    }
                }
            }
        }
    }
    if let Some(r) = p.map(|p| &p.result).filter(|r| durable::uses_fsync(r)) {
        let until = durable::until_durable_mean_ns(r, None).map(ns_to_us);
        f.push(("until durable (write + fsync), mean per write".into(), Unit::Us, until));
        f.push(("fsync call alone, p99".into(), Unit::Us, durable::fsync_ns(r, None, Pct::P99).map(ns_to_us)));
    }
    f.push(("CPU, busiest job thread (% of a core)".into(), Unit::Pct, p.map(|p| p.result.cpu.busiest_job_pct)));
    f.push(("average power".into(), Unit::Watts, p.and_then(|p| p.power_w)));
    f
}

/// The headline figures of a qos, act or run directory; None for plans and suites.
pub fn figures(r: &Results) -> Option<Vec<Figure>> {
    match r.manifest.kind {
        Kind::Act => Some(act_figures(r)),
        Kind::Qos => Some(qos_figures(r)),
        Kind::Run => Some(run_figures(r)),
        Kind::Plan | Kind::Suite(_) => None,
    }
}

/// The change of `v` against `base`: percentage points for a percent, else relative percent.
pub fn delta(unit: Unit, base: Option<f64>, v: Option<f64>) -> Option<Cell> {
    let (b, v) = (base?, v?);
    if unit.is_percent() {
        return Some(Cell::Quantity { value: v - b, unit: Unit::DeltaPp });
    }
    let rel = if b != 0.0 {
        (v / b - 1.0) * 100.0
    } else if v == 0.0 {
        0.0
    } else {
        return None;
    };
    Some(Cell::Quantity { value: rel, unit: Unit::DeltaPct })
}

fn search_by(r: &Results) -> Option<SearchBy> {
    match &r.manifest.setup {
        Setup::Qos(s) => Some(s.by),
        _ => None,
    }
}

/// ACT runs: each run's worst slice over 1..64 ms as a group of bars, the baseline's limits
/// dashed.
fn act_chart(runs: &[(String, Results)]) -> Option<SliceBars> {
    let Setup::Act(o) = &runs.first()?.1.manifest.setup else { return None };
    let slices =
        runs.iter().filter_map(|(n, r)| Some((n.clone(), act::deciding(r)?.act()?.verdict.worst.to_vec()))).collect();
    let c = &o.criteria;
    Some(SliceBars {
        title: "Worst slice of each run's deciding load: reads over 1..64 ms".into(),
        x_label: "run".into(),
        thresholds_ms: act::THRESHOLDS_MS.to_vec(),
        slices,
        limits: vec![(1, c.over_1ms_pct), (8, c.over_8ms_pct), (64, c.over_64ms_pct)],
    })
}

/// What a run's latency is compared by, each named alike across runs: a run's point (its name
/// without target), qos's probe at the answer, each stream of act's deciding load (by role).
fn latency_of(r: &Results) -> Vec<(String, &RunResult)> {
    match r.manifest.kind {
        Kind::Qos => qos::deciding(r)
            .and_then(|p| p.qos())
            .map(|q| ("at the answer".to_string(), &q.result))
            .into_iter()
            .collect(),
        Kind::Act => act::deciding(r)
            .and_then(|p| p.act())
            .map(|a| {
                a.streams
                    .iter()
                    .map(|s| {
                        let role = serde_json::to_value(s.role).ok().and_then(|v| v.as_str().map(str::to_string));
                        (format!("deciding load: {}", role.unwrap_or_default()), &s.result)
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => r.points.iter().map(|p| (crate::tables::point_name(p), &p.result)).collect(),
    }
}

/// `runs` (label, results; the first is the baseline) side by side, after the runs themselves
/// (label, directory, targets and their models: [`crate::compare_runs`]). Refuses runs of
/// different kinds, plans and suites (see [`crate::compare`]), and qos searches by rate next to
/// ones by qd.
pub fn compare(runs: &[(String, Results)]) -> Result<Report, Error> {
    let (first_name, first) = runs.first().ok_or_else(|| Error::invalid("compare needs results directories"))?;
    for (name, r) in &runs[1..] {
        if r.manifest.kind != first.manifest.kind {
            return Err(Error::invalid(format!(
                "{first_name} is {} but {name} is {}: compare results of the same kind",
                first.manifest.kind, r.manifest.kind
            )));
        }
        if search_by(r) != search_by(first) {
            return Err(Error::invalid(format!(
                "{first_name} and {name} are qos searches over different things (rate and queue depth): compare searches of the same kind"
            )));
        }
    }
    let per_run: Vec<Vec<Figure>> = runs
        .iter()
        .map(|(_, r)| figures(r).ok_or_else(|| Error::invalid("plans and suites are compared by their tables")))
        .collect::<Result<_, _>>()?;
    let mut names: Vec<(String, Unit)> = Vec::new();
    for (n, u, _) in per_run.iter().flatten() {
        if !names.iter().any(|(m, _)| m == n) {
            names.push((n.clone(), *u));
        }
    }
    // A run's error, if the point its figures come from failed ("run: point: error").
    let errors: Vec<Option<String>> = runs
        .iter()
        .map(|(n, r)| {
            let p = r.points.first().filter(|_| r.manifest.kind == Kind::Run)?;
            point_error(&p.result).map(|e| format!("{n}: {}: {e}", p.point.label))
        })
        .collect();
    let mut columns =
        vec![Column::new("figure", Unit::Count), Column::new("unit", Unit::Count), Column::new("Δ in", Unit::Count)];
    columns.extend(
        runs.iter().enumerate().map(|(i, (n, _))| Column::new(mark_if(n.clone(), errors[i].is_some()), Unit::Count)),
    );
    columns.extend(runs[1..].iter().enumerate().map(|(i, (n, _))| {
        let errored = errors[0].is_some() || errors[i + 1].is_some();
        Column::new(mark_if(format!("Δ {n} vs {first_name}"), errored), Unit::Count)
    }));
    let value = |i: usize, name: &str| per_run[i].iter().find(|f| f.0 == name).and_then(|f| f.2);
    let rows = names
        .iter()
        .map(|(name, unit)| {
            let delta_in = if unit.is_percent() { "pp" } else { "%" };
            let mut row = vec![Cell::text(name.clone()), Cell::text(unit.label()), Cell::text(delta_in)];
            row.extend(
                (0..runs.len())
                    .map(|i| value(i, name).map_or(Cell::Empty, |v| Cell::Quantity { value: v, unit: *unit })),
            );
            row.extend((1..runs.len()).map(|i| delta(*unit, value(0, name), value(i, name)).unwrap_or(Cell::Empty)));
            row
        })
        .collect();
    let info: Vec<RunInfo> =
        runs.iter().map(|(n, r)| RunInfo::new(n, &r.dir.display().to_string(), &r.manifest)).collect();
    let mut who = Section::new("Runs");
    who.tables.push(TableBlock::Grid(runs_grid(&info)));
    let manifests: Vec<(&str, &drivelab_lab::results::Manifest)> =
        runs.iter().map(|(n, r)| (n.as_str(), &r.manifest)).collect();
    let settings = crate::compare_model::settings_grid(&manifests);
    // Each run's latency per direction: a run's point, qos's answer, each stream of act's
    // deciding load.
    let measured: Vec<(&str, Vec<(String, &RunResult)>)> =
        runs.iter().map(|(n, r)| (n.as_str(), latency_of(r))).collect();
    let latency = crate::compare_model::latency_grid(&measured);
    // `--latency-split`: which stage changed, where both runs split.
    let split = crate::compare_split::compare(&measured);
    let mut section = Section::new("Side by side");
    section.note = Some(format!(
        "Baseline: {first_name}. Δ: change against it, in percentage points (pp) where the figure is a percent, else in percent of the baseline."
    ));
    section.tables.push(TableBlock::Grid(Grid {
        // As `report`'s result table: the title names the errors, so every format (CSV's
        // `table` column too) carries them.
        title: std::iter::once(format!("{} results compared", first.manifest.kind))
            .chain(errors.iter().flatten().map(|e| format!("{ERRORED_MARK}: {e}")))
            .collect::<Vec<_>>()
            .join(" "),
        columns,
        rows,
    }));
    if let Some(chart) = act_chart(runs) {
        section.charts.push(ChartSpec::SliceBars(chart));
    }
    let mut answer = Vec::new();
    if first.manifest.kind == Kind::Act {
        for (n, r) in runs {
            let verdict = act::answer(
                r,
                match &r.manifest.setup {
                    Setup::Act(o) => o,
                    _ => continue,
                },
            );
            if let Some((_, v)) = verdict.into_iter().next() {
                answer.push((format!("{n}: verdict"), v));
            }
        }
    }
    let mut facts: Vec<(String, String)> = runs
        .iter()
        .enumerate()
        .map(|(i, (n, r))| {
            let role = if i == 0 { format!("{n} (baseline)") } else { n.clone() };
            (role, format!("{} ({} on {})", r.dir.display(), r.manifest.kind, r.manifest.host.hostname))
        })
        .collect();
    facts.extend(crate::compare_model::settings_facts(&settings));
    Ok(Report {
        title: format!("drivelab compare ({})", first.manifest.kind),
        answer,
        facts,
        warnings: errored_footnote(errors.iter().flatten().map(String::as_str)).into_iter().collect(),
        notes: split.one_sided.clone(),
        sections: [who, section]
            .into_iter()
            .chain((!latency.rows.is_empty()).then(|| {
                let mut s = Section::new(crate::compare_model::LATENCY);
                s.tables.push(TableBlock::Grid(latency));
                s
            }))
            .chain(split.section())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::export_text;
    use crate::views::tests::{act_results, qos_results, QOS_LADDER};
    use crate::Format;

    fn row<'a>(r: &'a Report, figure: &str) -> &'a Vec<Cell> {
        let TableBlock::Grid(t) = &r.sections[1].tables[0] else { panic!("a grid") };
        t.rows.iter().find(|r| r[0] == Cell::text(figure)).unwrap_or_else(|| panic!("no row {figure}"))
    }

    #[test]
    fn act_scores_compare_in_percent_and_slice_shares_in_percentage_points() {
        let a = act_results();
        let mut b = act_results();
        // Drive B: scores 12 with a worse worst slice, at 6 W.
        let mut o = b.outcome.take().unwrap();
        o.best = Some(12.0);
        b.outcome = Some(o);
        let p = b.probes.iter_mut().find(|p| p.value == 12.0).unwrap();
        p.role = drivelab_lab::results::ProbeRole::Confirm;
        p.pass = true;
        p.power_w = Some(6.0);
        let worst_a = a.probes[3].act().unwrap().verdict.worst[0];
        let worst_b = b.probes[0].act().unwrap().verdict.worst[0];
        let report = compare(&[("A".into(), a), ("B".into(), b)]).unwrap();
        let score = row(&report, "score (N)");
        assert_eq!(
            score[3..5],
            [Cell::Quantity { value: 9.0, unit: Unit::ActN }, Cell::Quantity { value: 12.0, unit: Unit::ActN }]
        );
        assert_eq!(score[5], Cell::Quantity { value: (12.0 / 9.0 - 1.0) * 100.0, unit: Unit::DeltaPct });
        let per_watt = row(&report, "score per watt");
        assert_eq!(
            per_watt[3..5],
            [
                Cell::Quantity { value: 9.0 / 8.0, unit: Unit::NPerWatt },
                Cell::Quantity { value: 2.0, unit: Unit::NPerWatt }
            ]
        );
        let over = row(&report, "worst slice, reads > 1 ms");
        assert_eq!(over[1], Cell::text("%"));
        assert_eq!(over[5], Cell::Quantity { value: worst_b - worst_a, unit: Unit::DeltaPp }, "percentage points");
        let ChartSpec::SliceBars(chart) = &report.sections[1].charts[0] else { panic!("a chart") };
        let worst: Vec<f64> = chart.slices.iter().map(|(_, v)| v[0]).collect();
        assert_eq!(worst, [worst_a, worst_b], "each run's worst slice over 1 ms, baseline first");
        assert_eq!(chart.limits[0], (1, 6.5), "the baseline's saved limit");
        let text = export_text(Format::Text, &report).unwrap();
        assert!(text.contains("+33.3%") && text.contains(&format!("{:+.2} pp", worst_b - worst_a)), "{text}");
    }

    #[test]
    fn runs_compare_with_each_runs_settings_and_latency_per_direction() {
        let run = |mb: f64| {
            let points = vec![crate::test_support::point("randread", "", &[], &[("/dev/x", mb)])];
            crate::test_support::results("run", points)
        };
        let report = compare(&[("A".into(), run(1.0)), ("B".into(), run(2.0))]).unwrap();
        let titles: Vec<&str> = report.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Runs", "Side by side", crate::compare_model::LATENCY]);
        let TableBlock::Grid(lat) = &report.sections[2].tables[0] else { panic!("a grid") };
        let p99 = lat.columns.iter().position(|c| c.name == "p99").unwrap();
        let rows: Vec<(&Cell, &Cell, &Cell)> = lat.rows.iter().map(|r| (&r[1], &r[2], &r[p99])).collect();
        assert_eq!(
            rows,
            [
                (&Cell::text("A"), &Cell::text("read"), &Cell::Num(1000.0)),
                (&Cell::text("B"), &Cell::text("read"), &Cell::Num(2000.0))
            ],
            "each run's read p99 in ns, as saved"
        );
        assert!(report.facts.iter().any(|(k, _)| k == "B: tool"), "each run's settings: {:?}", report.facts);
    }

    #[test]
    fn qos_maxima_compare_and_mixed_kinds_or_searches_are_refused() {
        let a = qos_results(SearchBy::Rate, &QOS_LADDER);
        let report = compare(&[("A".into(), a.clone()), ("B".into(), a.clone())]).unwrap();
        let TableBlock::Grid(runs) = &report.sections[0].tables[0] else { panic!("the runs first") };
        assert_eq!(runs.title, "Runs compared");
        let labels: Vec<&Cell> = runs.rows.iter().map(|r| &r[0]).collect();
        assert_eq!(labels, [&Cell::text("A"), &Cell::text("B")]);
        let best = row(&report, "highest load meeting p99<1ms,p99.9<4ms");
        assert_eq!(best[3], Cell::Quantity { value: 12_000.0, unit: Unit::Iops });
        assert_eq!(best[5], Cell::Quantity { value: 0.0, unit: Unit::DeltaPct });
        let share = row(&report, "answer as share of the maximum");
        assert_eq!(share[5], Cell::Quantity { value: 0.0, unit: Unit::DeltaPp });
        // The latency compared is the answer's, as the probe at the answer saved it.
        let lat = report.sections.iter().find(|s| s.title == crate::compare_model::LATENCY).expect("a latency section");
        let TableBlock::Grid(lat) = &lat.tables[0] else { panic!("a grid") };
        let answer = qos::deciding(&a).and_then(|p| p.qos()).unwrap();
        let p99 = lat.columns.iter().position(|c| c.name == "p99").unwrap();
        let want = answer.result.read.lat_ns.get(Pct::P99).map(|ns| ns as f64);
        assert_eq!(lat.rows[0][..2], [Cell::text("at the answer"), Cell::text("A")]);
        assert_eq!(lat.rows[0][p99], Cell::num(want), "{lat:?}");
        let by_qd = qos_results(SearchBy::Qd, &QOS_LADDER);
        let e = compare(&[("A".into(), a.clone()), ("B".into(), by_qd)]).unwrap_err();
        assert!(e.is_invalid() && e.to_string().contains("rate and queue depth"), "{e}");
        let e = compare(&[("A".into(), a), ("B".into(), act_results())]).unwrap_err();
        assert!(e.is_invalid() && e.to_string().contains("A is qos but B is act"), "{e}");
    }
}
