//! The driver of `drivelab qos`: the highest load an access spec can carry while a latency
//! objective holds.
//!
//! By rate: first the closed-loop maximum at the spec's qd, then fixed rates below it (open loop:
//! latency from each I/O's intended issue time, so queueing counts), ending with a confirming
//! run. By qd (fio style): closed loop, the highest queue depth whose latency meets the
//! objective. The search itself is [`HighestPassing`], a pure state machine; this driver runs its
//! probes through the [`Lab`] and saves each one the moment it ends.
//!
//! A probe whose I/O failed is never a pass, and it ends the search with an error: an I/O error
//! is not a latency, and a load that errors has not been carried.

use drivelab_engine::hist::{Histogram, Pct};
use drivelab_engine::result::{OpenLoopStats, RunResult};
use drivelab_engine::spec::Rate;
use drivelab_engine::units::{fmt_count, fmt_ns};
use drivelab_engine::Error;

use drivelab_engine::spec::AccessSpec;
use serde::{Deserialize, Serialize};

use crate::delivery::Delivery;
use crate::execute::{Event, Lab};
use crate::results::{Kind, Outcome, ProbeData, ProbeResult, ProbeRole, QosProbe, ResultsDir, Setup, SCHEMA};
use crate::search::{Evaluation, HighestPassing, Objective, SearchSpace, Step, Unit};

/// What a qos search was asked.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QosSetup {
    pub by: SearchBy,
    pub objective: Objective,
    /// The access spec every probe runs (its rate or qd replaced by the probe's value).
    pub spec: AccessSpec,
    pub targets: Vec<String>,
    /// Stop refining when the bounds are this close (percent of the value).
    pub tolerance_pct: f64,
    /// `--by qd`: the highest queue depth tried.
    pub max_qd: u32,
    /// `--judge-busy`: judge a probe whose job threads waited for a CPU (the machine was busy)
    /// as any other. By default such a probe is not judged and counts as a miss.
    #[serde(default)]
    pub judge_busy: bool,
}

/// What a qos search varies.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SearchBy {
    /// Fixed rates (open loop) below the closed-loop maximum at the spec's qd.
    Rate,
    /// Closed-loop queue depths, fio style.
    Qd,
}

impl SearchBy {
    /// The unit of a probe's value.
    pub fn unit(self) -> &'static str {
        match self {
            SearchBy::Rate => "IOPS",
            SearchBy::Qd => "qd",
        }
    }
}

/// How the search ended.
pub struct QosEnd {
    pub dir: ResultsDir,
    pub outcome: Outcome,
    /// The probe that set the answer (the passing confirmation at `outcome.best`), for the
    /// answer's IOPS and latency.
    pub answer: Option<ProbeResult>,
}

/// A setting of [`QosSetup`] that can be wrong; the CLI names it by its flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QosField {
    Rate,
    Tolerance,
    MaxQd,
}

impl QosField {
    /// The setting's name in the results (`tolerance_pct`...) as a user writes it.
    pub fn name(self) -> &'static str {
        match self {
            QosField::Rate => "rate",
            QosField::Tolerance => "tolerance",
            QosField::MaxQd => "max-qd",
        }
    }
}

impl QosSetup {
    /// The settings' own checks: the field that is wrong and what is wrong with it ("5000: ...").
    pub fn validate(&self) -> Result<(), (QosField, String)> {
        if self.spec.rate.is_some() {
            return Err((QosField::Rate, "is chosen by qos itself: drop it".into()));
        }
        if !(self.tolerance_pct > 0.0 && self.tolerance_pct < 100.0) {
            return Err((
                QosField::Tolerance,
                format!("{}: give a percentage between 0 and 100, e.g. 5", self.tolerance_pct),
            ));
        }
        if self.by == SearchBy::Qd && self.max_qd == 0 {
            return Err((QosField::MaxQd, "0: give the highest queue depth to try, e.g. 256".into()));
        }
        Ok(())
    }
}

/// A qos setting refused before anything runs: the setting and why (the words of
/// [`QosSetup::validate`]), so a caller can match (or downcast from [`Error::Refused`]) the
/// setting. Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{} {why}", .field.name())]
pub struct QosError {
    pub field: QosField,
    pub why: String,
}

impl From<QosError> for Error {
    fn from(e: QosError) -> Error {
        Error::refused(e)
    }
}

/// Every check that can refuse, before anything runs.
pub fn check(lab: &Lab, setup: &QosSetup) -> Result<(), Error> {
    setup.validate().map_err(|(field, why)| QosError { field, why })?;
    lab.check_power()?;
    lab.check(&setup.spec, &setup.targets)?;
    if setup.by == SearchBy::Qd {
        let mut deepest = setup.spec.clone();
        deepest.qd = setup.max_qd;
        lab.check(&deepest, &setup.targets).map_err(|e| e.context(format!("max-qd {}", setup.max_qd)))?;
    }
    Ok(())
}

/// Check, create the results directory under `base`, and search.
pub fn run(
    lab: &mut Lab,
    base: &std::path::Path,
    command_line: Vec<String>,
    setup: &QosSetup,
) -> Result<QosEnd, Error> {
    lab.agree(check(lab, setup))?;
    let manifest = lab.manifest(Kind::Qos, command_line, &setup.targets, Setup::Qos(setup.clone()))?;
    let dir = lab.results_dir(base, &manifest)?;
    // The objective judges response time at a fixed rate (a stall is charged to every I/O
    // that waited), lat (from just before the submit call) in closed loop.
    let judged = match setup.by {
        SearchBy::Rate => "response time, from each I/O's intended issue time",
        SearchBy::Qd => "lat, from just before each submit call",
    };
    lab.emit(Event::Info(&format!(
        "qos: {} on {} · objective {} on {judged}",
        searched_label(setup),
        setup.targets.join(" "),
        setup.objective
    )));
    let mut search = Search { lab, setup, dir: &dir, index: 0, last_power: None, passed: Vec::new() };
    let outcome = search.run()?;
    dir.save_outcome(&outcome)?;
    let best = outcome.best;
    let at_best = |p: &&ProbeResult| Some(p.value) == best;
    let answer = search.passed.iter().rev().find(|p| at_best(p) && p.role == ProbeRole::Confirm);
    let answer = answer.or_else(|| search.passed.iter().rev().find(at_best)).cloned();
    Ok(QosEnd { dir, outcome, answer })
}

/// The spec's label with what the search varies in place of its value: `randread 4k queue
/// depth 1-256 (searched) x1` (the spec's own `qd1` is not what runs), or `... qd1 x1, rate
/// searched`.
pub fn searched_label(setup: &QosSetup) -> String {
    let label = setup.spec.label();
    match setup.by {
        SearchBy::Qd => {
            let searched = format!(" queue depth 1-{} (searched) x", setup.max_qd);
            label.replacen(&format!(" qd{} x", setup.spec.qd), &searched, 1)
        }
        SearchBy::Rate => format!("{label}, rate searched"),
    }
}

struct Search<'l, 'a, 's> {
    lab: &'l mut Lab<'a>,
    setup: &'s QosSetup,
    dir: &'s ResultsDir,
    index: usize,
    last_power: Option<f64>,
    /// Every probe that passed, in order: the answer is one of them.
    passed: Vec<ProbeResult>,
}

fn ended(reason: &str, interrupted: bool, errored: bool, saturation: Option<f64>, power: Option<f64>) -> Outcome {
    Outcome {
        schema: SCHEMA,
        best: None,
        reason: reason.into(),
        interrupted,
        errored,
        saturation_iops: saturation,
        power_w: power,
        response: None,
    }
}

impl Search<'_, '_, '_> {
    fn run(&mut self) -> Result<Outcome, Error> {
        let mut saturation = None;
        let space = match self.setup.by {
            SearchBy::Rate => {
                let p = self.probe(ProbeRole::Saturation, 0.0)?;
                if p.interrupted {
                    return Ok(ended("interrupted", true, false, None, p.power_w));
                }
                let r = &p.qos().expect("qos probe").result;
                if errored(r) {
                    return Ok(ended(&error_reason(r), false, true, None, p.power_w));
                }
                let max = r.total.iops;
                self.lab.emit(Event::Info(&format!(
                    "closed loop at qd {}: {} IOPS, p99 {} — the most it can do; searching fixed rates below",
                    self.setup.spec.qd,
                    fmt_count(max),
                    fmt_ns(r.total.lat_ns.p(Pct::P99) as f64)
                )));
                if max <= 0.0 {
                    return Err(Error::io(
                        "measuring the closed-loop maximum",
                        std::io::Error::other("no I/O completed"),
                    ));
                }
                saturation = Some(max);
                SearchSpace {
                    unit: Unit::Iops,
                    min: (max / 1000.0).max(1.0),
                    max,
                    start: max,
                    integer: false,
                    rel_tol: self.setup.tolerance_pct / 100.0,
                    step_down: 0.5,
                    max_probes: 30,
                }
            }
            SearchBy::Qd => SearchSpace {
                unit: Unit::Qd,
                min: 1.0,
                max: self.setup.max_qd as f64,
                start: self.setup.max_qd as f64,
                integer: true,
                rel_tol: self.setup.tolerance_pct / 100.0,
                step_down: 0.5,
                max_probes: 30,
            },
        };
        let mut search = HighestPassing::new(space).map_err(Error::invalid)?;
        // Probes tried, and of them those not judged because the machine was busy.
        let (mut tried, mut busy) = (0u32, 0u32);
        loop {
            match search.next() {
                Step::Done(o) => {
                    let reason = match busy {
                        0 => o.reason,
                        n => format!(
                            "{}; {n} of {tried} probes not judged: the machine was busy (--judge-busy judges them)",
                            o.reason
                        ),
                    };
                    return Ok(Outcome {
                        best: o.best,
                        reason,
                        ..ended("", false, false, saturation, self.last_power)
                    });
                }
                Step::Probe { value, confirm } => {
                    let role = if confirm { ProbeRole::Confirm } else { ProbeRole::Probe };
                    let p = self.probe(role, value)?;
                    if p.interrupted {
                        return Ok(ended("interrupted", true, false, saturation, self.last_power));
                    }
                    let r = &p.qos().expect("qos probe").result;
                    if errored(r) {
                        let why = format!("{} at {}: {}", role_word(role), self.load(value), error_reason(r));
                        return Ok(ended(&why, false, true, saturation, self.last_power));
                    }
                    tried += 1;
                    busy += u32::from(!p.pass && r.cpu.cpu_starved && !self.setup.judge_busy);
                    search.record(value, p.pass);
                }
            }
        }
    }

    fn load(&self, value: f64) -> String {
        match self.setup.by {
            SearchBy::Rate => format!("{} IOPS", fmt_count(value)),
            SearchBy::Qd => format!("qd {value}"),
        }
    }

    /// Run one probe at `value` (the saturation probe: closed loop at the spec's qd), judge it,
    /// save it.
    fn probe(&mut self, role: ProbeRole, value: f64) -> Result<ProbeResult, Error> {
        let mut spec = self.setup.spec.clone();
        let open = role != ProbeRole::Saturation && self.setup.by == SearchBy::Rate;
        if role != ProbeRole::Saturation {
            match self.setup.by {
                SearchBy::Rate => spec.rate = Some(Rate { per_s: value, ..self.setup.spec.rate.unwrap_or_default() }),
                SearchBy::Qd => spec.qd = value as u32,
            }
        }
        self.index += 1;
        let what = match role {
            ProbeRole::Saturation => format!("closed loop at qd {}", spec.qd),
            _ => format!("{} {}", role_word(role), self.load(value)),
        };
        self.lab.emit(Event::ProbeStart { index: self.index, what: &what });
        let m = self.lab.measure(&spec, &self.setup.targets)?;
        self.last_power = m.power_w.or(self.last_power);
        let r = m.result;
        let Judgement { evaluation, fell_behind, delivery, pass, why } =
            judge(&self.setup.objective, role, &r, open, self.setup.judge_busy);
        let slug = match role {
            ProbeRole::Saturation => "saturation".to_string(),
            _ => crate::store::slug(&format!("{} {value:.0} {}", role_word(role), self.setup.by.unit())),
        };
        let rec = ProbeResult {
            schema: SCHEMA,
            index: self.index,
            role,
            value: if role == ProbeRole::Saturation { r.total.iops } else { value },
            pass,
            why: if pass { String::new() } else { why },
            duration_ns: r.runtime_ns,
            interrupted: r.interrupted,
            power_w: m.power_w,
            data: ProbeData::Qos(Box::new(QosProbe { evaluation, fell_behind, delivery, result: r })),
            ranks: m.ranks,
        };
        if !rec.interrupted {
            self.dir.save_probe(&rec, &slug)?;
        }
        self.lab.emit(Event::ProbeDone { record: &rec });
        if rec.pass {
            self.passed.push(rec.clone());
        }
        if let Some(note) = cpu_bound_notice(&rec) {
            self.lab.emit(Event::Notice(&note));
        }
        if let Some(note) = starved_notice(&rec) {
            self.lab.emit(Event::Notice(&note));
        }
        Ok(rec)
    }
}

/// A probe judged: the objective on its latency, and what stands against a pass.
struct Judgement {
    evaluation: Evaluation,
    fell_behind: bool,
    delivery: Option<Delivery>,
    pass: bool,
    why: String,
}

/// Judge a probe's result: the objective on response time at a fixed rate (`open`), on lat in
/// closed loop; never a pass for the saturation probe, an I/O error, an interruption, a schedule
/// that fell behind, a rate the target did not deliver, or (unless `judge_busy`) a probe whose
/// job threads waited for a CPU ([`CpuStats::cpu_starved`]): its latencies hold that wait and,
/// in closed loop, the target saw its queue refilled only when the threads got a CPU, so the
/// busy machine, not the target, may have decided the verdict either way.
///
/// [`CpuStats::cpu_starved`]: drivelab_engine::result::CpuStats::cpu_starved
fn judge(objective: &Objective, role: ProbeRole, r: &RunResult, open: bool, judge_busy: bool) -> Judgement {
    let (hist, fell_behind) = match (&r.open_loop, open) {
        (Some(o), true) => (Histogram::from_sparse(&o.total_resp_lat_ns.histogram.buckets), !o.kept_up),
        _ => (Histogram::from_sparse(&r.total.lat_ns.histogram.buckets), false),
    };
    let evaluation = objective.evaluate(&hist);
    // A rate the target did not carry is never a pass, whatever its latency.
    let delivery = if open { Delivery::of_run(r) } else { None };
    let undelivered = delivery.filter(|d| !d.delivered());
    let busy = r.cpu.cpu_starved && !judge_busy;
    let pass = role != ProbeRole::Saturation
        && evaluation.pass
        && !fell_behind
        && undelivered.is_none()
        && !errored(r)
        && !r.interrupted
        && !busy;
    let mut why = why_not(r, &evaluation, fell_behind, undelivered);
    if busy && !errored(r) && r.total.ops > 0 {
        let waited = format!(
            "the machine was busy: drivelab's job threads waited for a CPU {:.0}% of the probe",
            r.cpu.runq_wait_pct
        );
        why = match (why.is_empty(), evaluation.pass) {
            (true, _) => format!("not judged: {waited}, so its latencies hold that wait (--judge-busy judges it)"),
            (false, false) => format!("{why}; {waited}: the miss may be the machine's"),
            (false, true) => format!("{why}; {waited}"),
        };
    }
    Judgement { evaluation, fell_behind, delivery, pass, why }
}

fn role_word(role: ProbeRole) -> &'static str {
    match role {
        ProbeRole::Saturation => "saturation",
        ProbeRole::Probe | ProbeRole::Load => "probe",
        ProbeRole::Confirm => "confirm",
    }
}

/// Why a probe is not a pass, in a line: not judged for an I/O error; the objective missed, each clause that
/// failed with its figure against its limit (`missed p99 191.37ms > 500µs`), and whether the
/// schedule fell behind as well; or, with the objective met, that the schedule fell behind.
/// Response times already hold every wait the target caused, so a probe that met the objective
/// while its schedule slipped was let down by drivelab's own issuing (CPU, timer wake-ups), not
/// by the target: it is not judged, and counts as a miss, since the I/Os still queued at the end
/// were never timed. Empty when nothing stands against a pass.
fn why_not(r: &RunResult, evaluation: &Evaluation, fell_behind: bool, undelivered: Option<Delivery>) -> String {
    if errored(r) {
        return format!("not judged: {}", error_reason(r));
    }
    let late = || r.open_loop.as_ref().map(|o| format!(" ({})", lateness(o))).unwrap_or_default();
    if r.total.ops == 0 {
        return "not judged: no I/O completed".into();
    }
    // A rate not delivered is never a pass ([`Delivery`]), said after the latency.
    let short = undelivered.map(|d| format!("; {}", d.why_not("", "I/Os"))).unwrap_or_default();
    if !evaluation.pass {
        let over: Vec<String> = evaluation.clauses.iter().filter(|c| !c.pass).map(|c| c.compared()).collect();
        let also = if fell_behind { format!("; behind schedule{}", late()) } else { String::new() };
        return format!("missed {}{also}{short}", over.join(", "));
    }
    if fell_behind {
        return format!("not judged: drivelab fell behind its schedule{}{short}", late());
    }
    if let Some(d) = undelivered {
        return d.why_not("", "I/Os");
    }
    String::new()
}

/// Said the moment a probe ends whose job thread was CPU-bound (`cpu.cpu_bound`: running or
/// waiting for a CPU nearly all the time, drivelab's own pacing spin aside): its load was set by
/// drivelab's CPU, not by the target, so its latency says little about the target.
fn cpu_bound_notice(p: &ProbeResult) -> Option<String> {
    let r = &p.qos()?.result;
    if !r.cpu.cpu_bound || p.interrupted {
        return None;
    }
    Some(format!(
        "probe {} is CPU-bound ({:.0}% of a core): drivelab's thread, not the target, was the limit; its \
         latency says little about the target",
        p.index, r.cpu.runnable_pct
    ))
}

/// Said the moment a probe ends whose job threads waited for a CPU ([`CpuStats::cpu_starved`]):
/// a failing verdict may be the busy machine's, not the target's.
///
/// [`CpuStats::cpu_starved`]: drivelab_engine::result::CpuStats::cpu_starved
fn starved_notice(p: &ProbeResult) -> Option<String> {
    let r = &p.qos()?.result;
    let said = r.cpu.starved_warning().filter(|_| !p.interrupted)?;
    let verdict = if p.pass {
        "judged all the same (--judge-busy): it passed"
    } else {
        "it counts as a miss: its verdict may be the machine's, not the target's"
    };
    Some(format!("probe {}: {said}; {verdict}", p.index))
}

/// How late a fixed-rate run's I/Os went out: `10.2% of I/Os over 1.0ms late`.
fn lateness(o: &OpenLoopStats) -> String {
    format!("{:.1}% of I/Os over {} late", o.late_pct, fmt_ns(o.late_threshold_ns as f64))
}

/// An I/O error stopped or marred the run.
fn errored(r: &RunResult) -> bool {
    r.errored()
}

fn error_reason(r: &RunResult) -> String {
    match r.errors.first() {
        Some(e) => format!("I/O error: {} ({} times)", e.error, e.count),
        None => "stopped by an I/O error".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::parse_objective;

    /// A rate probe drivelab ran (76 IOPS on a file, kept up: its schedule ended on time).
    fn kept_up() -> RunResult {
        serde_json::from_str(include_str!("../tests/data/qos/rate-probe-kept-up.json")).expect("a saved result")
    }

    #[test]
    fn a_probe_whose_threads_waited_for_a_cpu_is_not_judged_unless_asked() {
        let objective = parse_objective("p99<1000s").unwrap();
        let mut r = kept_up();
        (r.cpu.runq_wait_pct, r.cpu.cpu_starved) = (32.4, true);
        for open in [true, false] {
            let j = judge(&objective, ProbeRole::Probe, &r, open, false);
            assert!(!j.pass && j.evaluation.pass, "met the objective, not judged");
            assert!(
                j.why.starts_with("not judged: the machine was busy")
                    && j.why.contains("waited for a CPU 32% of the probe")
                    && j.why.contains("--judge-busy"),
                "{}",
                j.why
            );
            assert!(judge(&objective, ProbeRole::Probe, &r, open, true).pass, "--judge-busy judges it");
        }
        // A miss stays a miss, and says the machine may have made it.
        let j = judge(&parse_objective("p99<1ns").unwrap(), ProbeRole::Probe, &r, true, false);
        assert!(
            !j.pass && j.why.starts_with("missed p99") && j.why.ends_with("the miss may be the machine's"),
            "{}",
            j.why
        );
        // A quiet machine's probe is judged as before.
        (r.cpu.runq_wait_pct, r.cpu.cpu_starved) = (3.0, false);
        assert!(judge(&objective, ProbeRole::Probe, &r, true, false).pass);
    }

    #[test]
    fn a_rate_the_target_did_not_deliver_is_never_a_pass_even_on_schedule() {
        let objective = parse_objective("p99<1000s").unwrap();
        let r = kept_up();
        let j = judge(&objective, ProbeRole::Probe, &r, true, false);
        assert!(j.pass && j.delivery.is_some_and(|d| d.delivered()), "{}", j.why);
        // The same probe, its I/Os half of the schedule: the latency still meets the objective
        // and the schedule says kept up, but the load was not delivered.
        let mut half = r.clone();
        let o = half.open_loop.as_mut().unwrap();
        o.achieved_iops = o.target_iops / 2.0;
        assert!(o.kept_up);
        let j = judge(&objective, ProbeRole::Probe, &half, true, false);
        assert!(j.evaluation.pass && !j.pass, "{}", j.why);
        assert!(j.why.contains("not delivered") && j.why.contains("(50.0%)"), "{}", j.why);
        // Closed loop has no schedule: nothing to deliver.
        assert!(judge(&objective, ProbeRole::Probe, &half, false, false).delivery.is_none());
    }
}
