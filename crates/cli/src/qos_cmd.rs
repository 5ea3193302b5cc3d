//! `drivelab qos`: the highest load an access spec can carry while a latency objective holds.
//!
//! `--by rate` first measures the closed-loop maximum at `--qd`, then searches fixed rates below
//! it (open loop: latency from each I/O's intended issue time, so queueing counts) and ends with a
//! confirming run. `--by qd` is fio-style: closed loop, the highest queue depth whose latency
//! meets the objective. The search itself is `lab::search::HighestPassing`, a pure state machine;
//! this module only runs its probes and prints each one as it finishes.

use std::path::Path;

use drivelab_engine::hist::{Histogram, Pct};
use drivelab_engine::result::RunResult;
use drivelab_engine::spec::{AccessSpec, Rate};
use drivelab_engine::units::{fmt_count, fmt_ns};
use drivelab_engine::Error;
use drivelab_lab::prepare::prepare;
use drivelab_lab::search::{parse_objective, Evaluation, HighestPassing, Objective, SearchSpace, Step};
use drivelab_lab::store;

use crate::args::QosArgs;
use crate::progress;
use crate::run_cmd::{stop_flag, Outcome};

/// One probe as saved.
#[derive(serde::Serialize)]
struct Probe {
    /// The rate (I/Os per second) or queue depth tried.
    value: f64,
    confirm: bool,
    pass: bool,
    /// The target could not keep the schedule (rate search only).
    fell_behind: bool,
    evaluation: Evaluation,
    result: RunResult,
}

#[derive(serde::Serialize)]
struct QosRecord {
    schema: u32,
    kind: &'static str,
    by: String,
    objective: String,
    spec: AccessSpec,
    targets: Vec<String>,
    /// Closed-loop maximum IOPS at --qd (rate search only).
    saturation_iops: Option<f64>,
    best: Option<f64>,
    reason: String,
    probes: Vec<Probe>,
}

pub fn run(args: &QosArgs) -> Result<Outcome, Error> {
    let objective = parse_objective(&args.objective).map_err(|e| Error::invalid(format!("--objective {e}")))?;
    if args.run.rate.is_some() {
        return Err(Error::invalid("--rate with qos: qos chooses the rate itself; drop --rate"));
    }
    let by_rate = match args.by.as_str() {
        "rate" => true,
        "qd" => false,
        other => return Err(Error::invalid(format!("--by '{other}': use rate or qd"))),
    };
    if !(args.tolerance > 0.0 && args.tolerance < 100.0) {
        return Err(Error::invalid(format!(
            "--tolerance {}: give a percentage between 0 and 100, e.g. 5",
            args.tolerance
        )));
    }
    if !by_rate && args.max_qd == 0 {
        return Err(Error::invalid("--max-qd 0: give the highest queue depth to try, e.g. 256"));
    }
    let base = args.run.spec()?;
    let new_size = args.run.safety.new_file_size()?;
    let stop = stop_flag();
    let perm = args.run.safety.permission();
    // Every refusal before anything runs: check (and create) the targets once.
    let prepared = prepare(&base, &args.run.targets, new_size, &perm, &stop, &mut |_, _, _| {})?;
    drop(prepared);
    let dir = store::new_dir(Path::new(&args.results), "qos", store::now_unix_ms() / 1000)?;
    println!("qos: {} on {} · objective {objective}", base.label(), args.run.targets.join(" "));

    let mut probes = Vec::new();
    let mut saturation = None;
    let space = if by_rate {
        let Some((r, _)) = probe(args, &base, &objective, None, &mut probes, false)? else {
            return Ok(Outcome::Interrupted);
        };
        let max = r.total.iops;
        println!(
            "  closed loop at qd {}: {} IOPS, p99 {} — the most it can do; searching fixed rates below",
            base.qd,
            fmt_count(max),
            fmt_ns(r.total.lat_ns.p(Pct::P99) as f64)
        );
        saturation = Some(max);
        if max <= 0.0 {
            return Err(Error::io("measuring the closed-loop maximum", std::io::Error::other("no I/O completed")));
        }
        SearchSpace {
            min: (max / 1000.0).max(1.0),
            max,
            start: max,
            integer: false,
            rel_tol: args.tolerance / 100.0,
            step_down: 0.5,
            max_probes: 30,
        }
    } else {
        SearchSpace {
            min: 1.0,
            max: args.max_qd as f64,
            start: args.max_qd as f64,
            integer: true,
            rel_tol: args.tolerance / 100.0,
            step_down: 0.5,
            max_probes: 30,
        }
    };
    let mut search = HighestPassing::new(space).map_err(Error::invalid)?;
    let outcome = loop {
        match search.next() {
            Step::Done(o) => break o,
            Step::Probe { value, confirm } => {
                let Some((_, pass)) = probe(args, &base, &objective, Some((by_rate, value)), &mut probes, confirm)?
                else {
                    save(&dir, args, &base, &objective, saturation, None, "interrupted".into(), probes)?;
                    return Ok(Outcome::Interrupted);
                };
                search.record(value, pass);
            }
        }
    };
    let unit = if by_rate { "IOPS" } else { "qd" };
    match outcome.best {
        Some(b) => println!(
            "qos: highest {} meeting {objective}: {} {unit} ({})",
            if by_rate { "rate" } else { "queue depth" },
            if by_rate { fmt_count(b) } else { format!("{b}") },
            outcome.reason
        ),
        None => println!("qos: no load meets {objective}: {}", outcome.reason),
    }
    save(&dir, args, &base, &objective, saturation, outcome.best, outcome.reason.clone(), probes)?;
    println!("results: {}", dir.display());
    Ok(Outcome::Done)
}

/// Run one probe (`what` None: closed loop at the spec's qd; else by rate or qd and the value),
/// print its line and keep it; the result and whether it passed, or None when interrupted.
fn probe(
    args: &QosArgs,
    base: &AccessSpec,
    objective: &Objective,
    what: Option<(bool, f64)>,
    probes: &mut Vec<Probe>,
    confirm: bool,
) -> Result<Option<(RunResult, bool)>, Error> {
    let mut spec = base.clone();
    let mut value = 0.0;
    let mut open = false;
    if let Some((by_rate, v)) = what {
        value = v;
        if by_rate {
            spec.rate = Some(Rate { per_s: v, ..base.rate.unwrap_or_default() });
            open = true;
        } else {
            spec.qd = v as u32;
        }
    }
    let stop = stop_flag();
    let perm = args.run.safety.permission();
    let new_size = args.run.safety.new_file_size()?;
    let prepared = prepare(&spec, &args.run.targets, new_size, &perm, &stop, &mut |_, _, _| {})?;
    let mut display = progress::Live::new(!args.run.quiet);
    let r = drivelab_engine::run::run(&prepared.spec, &prepared.targets, prepared.spec.engine, stop, &mut |p| {
        display.update(p)
    })?;
    display.finish();
    if r.interrupted {
        return Ok(None);
    }
    let (hist, fell_behind) = match (&r.open_loop, open) {
        (Some(o), true) => (Histogram::from_sparse(&o.total_resp_lat_ns.histogram.buckets), !o.kept_up),
        _ => (Histogram::from_sparse(&r.total.lat_ns.histogram.buckets), false),
    };
    let evaluation = objective.evaluate(&hist);
    let pass = evaluation.pass && !fell_behind;
    if what.is_some() {
        let measured: Vec<String> =
            evaluation.clauses.iter().map(|c| format!("{} {}", c.label, fmt_ns(c.measured_ns as f64))).collect();
        let load = if open { format!("{} IOPS", fmt_count(value)) } else { format!("qd {value}") };
        println!(
            "  {}{load:>14}: {} · achieved {} IOPS · {}{}",
            if confirm { "confirm " } else { "probe   " },
            if pass { "PASS" } else { "FAIL" },
            fmt_count(r.total.iops),
            measured.join(", "),
            if fell_behind { " · fell behind the schedule" } else { "" }
        );
        probes.push(Probe { value, confirm, pass, fell_behind, evaluation, result: r.clone() });
    }
    Ok(Some((r, pass)))
}

#[allow(clippy::too_many_arguments)]
fn save(
    dir: &Path,
    args: &QosArgs,
    base: &AccessSpec,
    objective: &Objective,
    saturation: Option<f64>,
    best: Option<f64>,
    reason: String,
    probes: Vec<Probe>,
) -> Result<(), Error> {
    let rec = QosRecord {
        schema: drivelab_engine::result::SCHEMA,
        kind: "qos",
        by: args.by.clone(),
        objective: objective.to_string(),
        spec: base.clone(),
        targets: args.run.targets.clone(),
        saturation_iops: saturation,
        best,
        reason,
        probes,
    };
    store::write_json(&dir.join("qos.json"), &rec)
}
