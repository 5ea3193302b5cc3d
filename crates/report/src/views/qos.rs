//! A qos search's report: the answer (the highest load meeting the objective, why the search
//! ended, the closed-loop maximum), the probe ladder as a chart (offered load against each
//! objective statistic, its limit dashed, pass and fail marked, the confirming run ringed) and
//! as a table, and the confirming run's latency.

use drivelab_lab::results::{ProbeResult, ProbeRole, QosSetup, Results, SearchBy, Setup};

use super::common::{facts, result_table, result_warnings};
use crate::model::{Cell, ChartSpec, Column, Grid, Ladder, LadderClause, LadderPoint, Report, Section, Unit};

fn load_unit(by: SearchBy) -> Unit {
    match by {
        SearchBy::Rate => Unit::Iops,
        SearchBy::Qd => Unit::Qd,
    }
}

pub fn role_name(r: ProbeRole) -> &'static str {
    match r {
        ProbeRole::Saturation => "saturation",
        ProbeRole::Probe => "probe",
        ProbeRole::Confirm => "confirm",
        ProbeRole::Load => "load",
    }
}

/// The statistic of a clause label ("p99<1ms" -> "p99").
fn stat_of(label: &str) -> String {
    label.split(['<', '>', '=']).next().unwrap_or(label).trim().to_string()
}

/// The probe that set the answer: the passing confirm at the best value, else the best passing
/// probe.
pub fn deciding(r: &Results) -> Option<&ProbeResult> {
    let best = r.outcome.as_ref()?.best?;
    let at_best = |p: &&ProbeResult| p.pass && p.value == best;
    r.probes
        .iter()
        .rev()
        .find(|p| p.role == ProbeRole::Confirm && at_best(p))
        .or_else(|| r.probes.iter().rev().find(at_best))
}

/// The qos answer as (name, value) lines; also used by compare.
pub fn answer(r: &Results, setup: &QosSetup) -> Vec<(String, String)> {
    let unit = load_unit(setup.by);
    let mut a = Vec::new();
    let o = r.outcome.as_ref();
    let what = match setup.by {
        SearchBy::Rate => "highest rate",
        SearchBy::Qd => "highest queue depth",
    };
    let best = match o.and_then(|o| o.best) {
        Some(b) => format!("{} {}", unit.fmt(b), unit.label()),
        None if o.is_some() => "none: no load met the objective".into(),
        None => "unknown: the search did not finish (no outcome.json)".into(),
    };
    a.push((format!("{what} meeting {}", setup.objective), best));
    if let Some(o) = o {
        a.push(("why the search ended".into(), o.reason.clone()));
        if let Some(s) = o.saturation_iops {
            a.push(("closed-loop maximum".into(), format!("{} IOPS at qd {}", Unit::Iops.fmt(s), setup.spec.qd)));
            if let (Some(b), SearchBy::Rate) = (o.best, setup.by) {
                a.push(("best as share of the maximum".into(), format!("{:.1}%", b / s * 100.0)));
            }
        }
        if let Some(w) = o.power_w {
            a.push(("average power".into(), format!("{w:.1} W")));
        }
    }
    if let Some(d) = deciding(r).and_then(|p| p.qos()) {
        a.push(("achieved at the answer".into(), format!("{} IOPS", Unit::Iops.fmt(d.result.total.iops))));
        // The answer's latency as the objective judged it, for --by qd as for a rate.
        let lat: Vec<String> = d
            .evaluation
            .clauses
            .iter()
            .map(|c| format!("{} {}", c.stat(), Unit::Ns.fmt(c.measured_ns as f64)))
            .collect();
        a.push(("latency at the answer".into(), lat.join(", ")));
    }
    a
}

fn ladder_table(r: &Results, setup: &QosSetup) -> Grid {
    let unit = load_unit(setup.by);
    let stats: Vec<String> = setup.objective.clauses.iter().map(|c| stat_of(&c.to_string())).collect();
    let mut columns = vec![
        Column::new("probe", Unit::Count),
        Column::new("role", Unit::Count),
        Column::new(if unit == Unit::Qd { "queue depth" } else { "offered" }, unit),
        Column::new("achieved", Unit::Iops),
    ];
    // A rate probe's achieved as a share of its schedule: under 99% is never a pass.
    if setup.by == SearchBy::Rate {
        columns.push(Column::new("delivered", Unit::Pct));
    }
    for s in &stats {
        columns.push(Column::new(s.as_str(), Unit::Ns));
        columns.push(Column::new(format!("{s} limit"), Unit::Ns));
    }
    columns.push(Column::new("verdict", Unit::Count));
    let power = r.probes.iter().any(|p| p.power_w.is_some());
    if power {
        columns.push(Column::new("power", Unit::Watts));
    }
    columns.push(Column::new("why", Unit::Count));
    let rows = r
        .probes
        .iter()
        .filter_map(|p| {
            let q = p.qos()?;
            let mut row = vec![
                Cell::Num(p.index as f64),
                Cell::text(role_name(p.role)),
                Cell::Num(p.value),
                Cell::Num(q.result.total.iops),
            ];
            if setup.by == SearchBy::Rate {
                row.push(Cell::num(q.delivery.map(|d| d.pct())));
            }
            for c in &q.evaluation.clauses {
                row.push(Cell::Num(c.measured_ns as f64));
                row.push(Cell::Num(c.limit_ns as f64));
            }
            row.push(if p.role == ProbeRole::Saturation { Cell::text("not judged") } else { Cell::Pass(p.pass) });
            if power {
                row.push(Cell::num(p.power_w));
            }
            // The lab's `why` names a schedule that fell behind; a probe saved with nothing said
            // (a pass or an older result) still shows it.
            let why = if q.fell_behind && p.why.is_empty() { "fell behind the schedule".into() } else { p.why.clone() };
            row.push(Cell::Text(why));
            Some(row)
        })
        .collect();
    Grid { title: "Probe ladder".into(), columns, rows }
}

/// The ladder chart's data: every judged probe, per clause.
pub fn ladder(r: &Results, setup: &QosSetup) -> Ladder {
    let clauses = setup
        .objective
        .clauses
        .iter()
        .enumerate()
        .map(|(i, c)| LadderClause {
            stat: stat_of(&c.to_string()),
            limit_ns: c.limit_ns as f64,
            points: r
                .probes
                .iter()
                .filter(|p| p.role != ProbeRole::Saturation)
                .filter_map(|p| {
                    let m = p.qos()?.evaluation.clauses.get(i)?;
                    Some(LadderPoint {
                        probe: p.index,
                        load: p.value,
                        latency_ns: m.measured_ns as f64,
                        pass: p.pass,
                        confirm: p.role == ProbeRole::Confirm,
                    })
                })
                .collect(),
        })
        .collect();
    // What the objective judged: response time at a fixed rate, lat in closed loop.
    let (latency, what) = match setup.by {
        SearchBy::Rate => ("response time (from the intended issue time)", "offered load"),
        SearchBy::Qd => ("lat (from just before the submit call)", "queue depth"),
    };
    Ladder { title: format!("Probe ladder: {latency} against {what}"), load_unit: load_unit(setup.by), clauses }
}

pub fn report(r: &Results) -> Report {
    let Setup::Qos(setup) = &r.manifest.setup else {
        return super::run::not_this_kind(r, "qos");
    };
    let mut warnings = Vec::new();
    if let Some(o) = &r.outcome {
        if o.interrupted {
            warnings.push("interrupted (Ctrl-C): the answer is what was known then, unconfirmed".into());
        }
        if o.errored {
            warnings.push("an I/O error stopped a probe: the search ended there".into());
        }
    } else {
        warnings.push("no outcome.json: the search is running or was killed; the probes so far are shown".into());
    }
    for p in &r.probes {
        if let Some(q) = p.qos() {
            warnings.extend(result_warnings(&format!("probe {}", p.index), &q.result));
        }
    }
    let asked = vec![
        ("objective".into(), setup.objective.to_string()),
        (
            "search".into(),
            match setup.by {
                SearchBy::Rate => format!(
                    "by fixed rate (open loop, latency from each I/O's intended time) below the closed-loop maximum at qd {}, within {}%",
                    setup.spec.qd, setup.tolerance_pct
                ),
                SearchBy::Qd => format!("by queue depth (closed loop) up to {}", setup.max_qd),
            },
        ),
        ("workload".into(), drivelab_lab::qos::searched_label(setup)),
    ];
    let mut ladder_s = Section::new("Probe ladder");
    ladder_s.note = Some(
        "Each probe's latency for every clause of the objective (filled: the probe passed, hollow: it failed; \
         ringed: a confirming run), the objective's limits dashed. The closed-loop maximum is not judged."
            .into(),
    );
    ladder_s.charts.push(ChartSpec::Ladder(ladder(r, setup)));
    ladder_s.tables.push(ladder_table(r, setup).into());
    let mut sections = vec![ladder_s];
    if let Some(q) = deciding(r).and_then(|p| p.qos()) {
        let mut s = Section::new("The answer's run");
        s.tables.push(result_table("Confirming run: throughput and latency", &q.result).into());
        sections.push(s);
    }
    Report {
        title: format!("drivelab qos: {}", setup.objective),
        answer: answer(r, setup),
        facts: facts(r, asked),
        warnings,
        notes: Vec::new(),
        sections,
    }
}
