//! An ACT certification's report: the verdict and score first (with `--power-cmd`, average
//! watts and score per watt, as seed 003 publishes), then the deciding load's slices as grouped
//! bars of % of reads over 1..64 ms against the run's own limits (its saved criteria, not ACT's
//! defaults) and as ACT's slice table, then the search ladder.
//!
//! Every table says which latency it judges: ACT's service time (the score, comparable with a
//! published ACT score) or the response time from each read's intended issue time (the stricter
//! score beside it).

use drivelab_lab::act_run::{ActOptions, ActRun, Judged, Timing};
use drivelab_lab::results::{ProbeResult, ProbeRole, Results, Setup};

use super::common::{facts, result_warnings};
use super::qos::role_name;
use crate::model::{Cell, ChartSpec, Column, Grid, Report, Section, SliceBars, Unit};

/// ACT's thresholds, in ms, in the order of `SliceRow::over_pct`.
pub const THRESHOLDS_MS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The load that decides the verdict: the passing confirm at the best N, else the one load,
/// else the last probe.
pub fn deciding(r: &Results) -> Option<&ProbeResult> {
    let best = r.outcome.as_ref().and_then(|o| o.best);
    let confirm =
        best.and_then(|b| r.probes.iter().rev().find(|p| p.role == ProbeRole::Confirm && p.value == b && p.pass));
    let passing = best.and_then(|b| r.probes.iter().rev().find(|p| p.value == b && p.pass));
    confirm
        .or(passing)
        .or_else(|| r.probes.iter().rev().find(|p| p.role == ProbeRole::Load))
        .or_else(|| r.probes.last())
}

/// The criteria as a line: "< 5% over 1 ms, < 1% over 8 ms, < 0.1% over 64 ms in every slice".
pub fn criteria_line(o: &ActOptions) -> String {
    let c = &o.criteria;
    format!(
        "< {}% over 1 ms, < {}% over 8 ms, < {}% over 64 ms in every {} s slice",
        c.over_1ms_pct, c.over_8ms_pct, c.over_64ms_pct, o.slice_secs
    )
}

/// The score (N) and its average power, when a load passed.
pub fn score(r: &Results) -> (Option<f64>, Option<f64>) {
    let best = r.outcome.as_ref().and_then(|o| o.best);
    let watts = deciding(r).and_then(|p| p.power_w).or_else(|| r.outcome.as_ref().and_then(|o| o.power_w));
    (best, watts)
}

pub fn answer(r: &Results, o: &ActOptions) -> Vec<(String, String)> {
    let mut a = Vec::new();
    let (best, watts) = score(r);
    let verdict = match (&r.outcome, best) {
        (None, _) => "unknown: the run did not finish (no outcome.json)".to_string(),
        (Some(_), Some(n)) => format!("PASS at {}x", Unit::ActN.fmt(n)),
        (Some(_), None) => "FAIL: no load passed".to_string(),
    };
    a.push(("verdict".into(), verdict));
    if let Some(n) = best {
        a.push(("score (N)".into(), Unit::ActN.fmt(n)));
    }
    if let Some(out) = &r.outcome {
        a.push(("why".into(), out.reason.clone()));
    }
    let judged_by = deciding(r).and_then(|p| p.act()).map(|a| a.timing);
    a.push(("judged by".into(), timing_words(judged_by.unwrap_or(Timing::Service)).into()));
    if let Some(resp) = r.outcome.as_ref().and_then(|o| o.response.as_ref()) {
        let line = match resp.best {
            Some(n) => format!("{}x ({})", Unit::ActN.fmt(n), resp.reason),
            None => format!("none: {}", resp.reason),
        };
        a.push(("response-time score".into(), line));
    }
    if let Some(w) = watts {
        a.push(("average power".into(), format!("{w:.1} W")));
        if let Some(n) = best.filter(|_| w > 0.0) {
            a.push(("score per watt".into(), format!("{} N/W", Unit::NPerWatt.fmt(n / w))));
        }
    }
    a.push(("criteria".into(), criteria_line(o)));
    a
}

/// What a timing means, in a phrase a reader of an ACT report needs.
pub fn timing_words(t: Timing) -> &'static str {
    match t {
        Timing::Service => "service time, as ACT measures it (from just before each read's call to its completion)",
        Timing::Response => "response time (from each read's intended issue time: a late thread's wait counts)",
    }
}

fn timing_title(t: Timing) -> &'static str {
    match t {
        Timing::Service => "service time (ACT's)",
        Timing::Response => "response time",
    }
}

/// The slices of `run` judged by its own timing and, beside, by response time.
fn slice_tables(run: &ActRun) -> Vec<Grid> {
    let own = Judged {
        timing: run.timing,
        slices: run.slices.clone(),
        verdict: run.verdict.clone(),
        passed: run.passed,
        why: run.why.clone(),
    };
    std::iter::once(own).chain(run.response.clone()).map(|j| slice_table(&j, run.scale)).collect()
}

fn slice_table(run: &Judged, scale: f64) -> Grid {
    let mut columns = vec![Column::new("slice", Unit::Count), Column::new("seconds", Unit::Count)];
    columns.extend(THRESHOLDS_MS.iter().map(|ms| Column::new(format!("> {ms} ms"), Unit::Pct)));
    columns.push(Column::new("reads/s", Unit::Count));
    // Done beside scheduled: a slice that did not carry its schedule is never a pass.
    columns.push(Column::new("scheduled reads/s", Unit::Count));
    columns.push(Column::new("delivered", Unit::Pct));
    let mut rows: Vec<Vec<Cell>> = run
        .slices
        .iter()
        .map(|s| {
            let mut row = vec![
                Cell::text(format!("{}{}", s.index, if s.partial { " (partial)" } else { "" })),
                Cell::text(format!("{}–{}", s.start_s, s.end_s)),
            ];
            row.extend(s.over_pct.iter().map(|v| Cell::Num(*v)));
            row.push(Cell::Num(s.rate_per_s.round()));
            row.push(Cell::num(s.delivery.map(|d| d.scheduled_iops.round())));
            row.push(Cell::num(s.delivery.map(|d| d.pct())));
            row
        })
        .collect();
    let mut max = vec![Cell::text("max"), Cell::Empty];
    max.extend(run.verdict.worst.iter().map(|v| Cell::Num(*v)));
    max.extend([Cell::Empty, Cell::Empty, Cell::Empty]);
    rows.push(max);
    let title = format!(
        "Reads over each threshold, per slice, at {}x: {} — {}",
        Unit::ActN.fmt(scale),
        timing_title(run.timing),
        if run.passed { "PASS" } else { "FAIL" }
    );
    Grid { title, columns, rows }
}

/// The deciding load's slices as a chart spec, the limits from the run's own criteria.
pub fn slice_bars(run: &ActRun, o: &ActOptions) -> SliceBars {
    let c = &o.criteria;
    SliceBars {
        title: format!("Reads over 1..64 ms per slice at {}x, {}", Unit::ActN.fmt(run.scale), timing_title(run.timing)),
        x_label: "slice (in time order)".into(),
        thresholds_ms: THRESHOLDS_MS.to_vec(),
        slices: run
            .slices
            .iter()
            .map(|s| (format!("{}{}", s.index, if s.partial { "*" } else { "" }), s.over_pct.to_vec()))
            .collect(),
        limits: vec![(1, c.over_1ms_pct), (8, c.over_8ms_pct), (64, c.over_64ms_pct)],
    }
}

fn ladder_table(r: &Results) -> Grid {
    let power = r.probes.iter().any(|p| p.power_w.is_some());
    let mut columns = vec![
        Column::new("probe", Unit::Count),
        Column::new("role", Unit::Count),
        Column::new("N", Unit::ActN),
        Column::new("reads/s scheduled", Unit::Count),
        Column::new("reads/s done", Unit::Count),
        Column::new("seconds", Unit::Count),
        Column::new("worst > 1 ms", Unit::Pct),
        Column::new("worst > 8 ms", Unit::Pct),
        Column::new("worst > 64 ms", Unit::Pct),
        Column::new("verdict", Unit::Count),
        Column::new("by response time", Unit::Count),
    ];
    if power {
        columns.push(Column::new("power", Unit::Watts));
    }
    columns.push(Column::new("why", Unit::Count));
    let rows = r
        .probes
        .iter()
        .filter_map(|p| {
            let a = p.act()?;
            let w = &a.verdict.worst;
            let mut row = vec![
                Cell::Num(p.index as f64),
                Cell::text(role_name(p.role)),
                Cell::Num(p.value),
                Cell::Num(a.rates.read_iops.round()),
                Cell::num(reads_done_per_target(a).map(f64::round)),
                Cell::Num((p.duration_ns as f64 / 1e9).round()),
                Cell::Num(w[0]),
                Cell::Num(w[3]),
                Cell::Num(w[6]),
                Cell::Pass(p.pass),
                a.passed_by(Timing::Response).filter(|_| a.timing != Timing::Response).map_or(Cell::Empty, Cell::Pass),
            ];
            if power {
                row.push(Cell::num(p.power_w));
            }
            row.push(Cell::text(p.why.clone()));
            Some(row)
        })
        .collect();
    Grid { title: "Loads run".into(), columns, rows }
}

/// The small reads a load completed per second and target (its reads streams' achieved rates;
/// `rates.read_iops` is the schedule's, per target). None for a load without reads streams.
pub fn reads_done_per_target(a: &ActRun) -> Option<f64> {
    let reads: Vec<f64> = a
        .streams
        .iter()
        .filter(|s| s.role == drivelab_lab::act_run::Role::Reads)
        .map(|s| s.result.open_loop.as_ref().map_or(s.result.total.iops, |o| o.achieved_iops))
        .collect();
    (!reads.is_empty()).then(|| reads.iter().sum::<f64>() / reads.len() as f64)
}

pub fn report(r: &Results) -> Report {
    let Setup::Act(o) = &r.manifest.setup else {
        return super::run::not_this_kind(r, "act");
    };
    let mut warnings = Vec::new();
    match &r.outcome {
        None => warnings.push("no outcome.json: the run is going on or was killed; the loads so far are shown".into()),
        Some(out) if out.interrupted => warnings.push("interrupted (Ctrl-C): never a pass".into()),
        Some(out) if out.errored => warnings.push("an I/O error stopped a load: never a pass".into()),
        _ => {}
    }
    for p in &r.probes {
        if let Some(a) = p.act() {
            if let Some(why) = &a.fell_behind {
                warnings.push(format!("load {} ({}x): {why}", p.index, Unit::ActN.fmt(p.value)));
            }
            for s in &a.streams {
                warnings.extend(result_warnings(&format!("load {} {:?} on {}", p.index, s.role, s.target), &s.result));
            }
        }
    }
    let cfg = &o.config;
    let load = if o.search {
        let start = o.search_start.map_or("from a closed-loop read probe".to_string(), |n| format!("from {n}x"));
        format!(
            "search for the highest N {start}, {} s per probe, {} s confirmation",
            o.probe_time_ns / 1_000_000_000,
            o.time_ns / 1_000_000_000
        )
    } else {
        format!("{}x for {} s", Unit::ActN.fmt(cfg.scale), o.time_ns / 1_000_000_000)
    };
    let asked = vec![
        (
            "workload".into(),
            format!(
                "ACT {load}: {}-byte records, {}-byte large-block ops, {} s slices, O_DSYNC {}",
                cfg.record_bytes,
                cfg.large_block_op_bytes,
                o.slice_secs,
                if o.dsync { "on" } else { "off" }
            ),
        ),
        ("criteria".into(), criteria_line(o)),
        (
            "issue model".into(),
            format!(
                "ACT's: {} service threads doing one read at a time on their own schedules, {} large-block \
                 reader and writer per target, {} engine",
                o.service_threads,
                o.large_block_threads,
                o.engine.name()
            ),
        ),
    ];
    let mut sections = Vec::new();
    if let Some(a) = deciding(r).and_then(|p| p.act()) {
        let mut s = Section::new(format!("Slices at {}x", Unit::ActN.fmt(a.scale)));
        s.note = Some(format!(
            "Percent of reads slower than each threshold in each slice of the deciding load; dashed: this run's limits ({}).",
            criteria_line(o)
        ));
        s.charts.push(ChartSpec::SliceBars(slice_bars(a, o)));
        s.tables.extend(slice_tables(a).into_iter().map(Into::into));
        sections.push(s);
    }
    let mut ladder = Section::new(if o.search { "Search ladder" } else { "Load" });
    ladder.tables.push(ladder_table(r).into());
    sections.push(ladder);
    Report {
        title: "drivelab act".into(),
        answer: answer(r, o),
        facts: facts(r, asked),
        warnings,
        notes: Vec::new(),
        sections,
    }
}
