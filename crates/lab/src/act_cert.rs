//! The driver of `drivelab act`: Aerospike's ACT storage certification. Fills the targets
//! (ACT's prep), then runs one load at N or searches the highest passing N with
//! [`HighestPassing`] (start high, step down, refine, confirm at full length), every load through
//! the [`Lab`] and saved as a probe the moment it ends; `outcome.json` holds the score. With
//! `--act-log`, the scored load's log in ACT's own format (the last load tried when none passed).
//!
//! Every load is judged both ways ([`act_run`]): ACT's verdict (service time) gives the score, as
//! ACT's would; the response-time verdict gives the stricter score beside it. A search finds
//! ACT's score first, then the response-time score from there down, reusing every load already
//! run (a load that passes by response time passes ACT's verdict, so it is never above ACT's
//! score); when the load that set ACT's score also passes by response time, that costs nothing.
//!
//! The load itself (streams, judging) is [`crate::act_run`]; the arithmetic is [`crate::act`].

use std::path::Path;

use drivelab_engine::spec::{AccessSpec, BlockSize, EngineKind};
use drivelab_engine::units::fmt_count;
use drivelab_engine::Error;

use crate::act::{self, ActConfig, ActLogHeader, ActLogTarget};
use crate::act_run::{self, errored_stream, ActOptions, ActRun, StreamResult, Timing};
use crate::execute::{Event, Lab, WriteWhy};
use crate::precondition;
use crate::results::{Kind, Outcome, ProbeData, ProbeResult, ProbeRole, ResponseScore, ResultsDir, Setup, SCHEMA};
use crate::search::{HighestPassing, SearchSpace, Step, Unit};

/// How the certification ended.
pub struct ActEnd {
    pub dir: ResultsDir,
    pub outcome: Outcome,
}

/// Every check that can refuse, for the fill and every stream, before anything is written.
pub fn check(lab: &Lab, opts: &ActOptions, act_log: Option<&Path>) -> Result<(), Error> {
    if let Some(log) = act_log {
        crate::store::check_new_file("--act-log", &log.to_string_lossy())?;
    }
    if opts.service_threads == 0 || opts.large_block_threads == 0 {
        return Err(act_run::ThreadsError::NoThreads.into());
    }
    lab.check_power()?;
    for (_, t, spec) in act_run::plan(opts)?.1 {
        lab.check(&spec, std::slice::from_ref(&opts.targets[t]))?;
    }
    if opts.prep {
        lab.check(&precondition::pass_spec(opts.engine, 0), &opts.targets).map_err(|e| e.context("the fill"))?;
    }
    Ok(())
}

/// Check, create the results directory under `base`, fill, and run the load or the search.
pub fn run(
    lab: &mut Lab,
    base: &Path,
    command_line: Vec<String>,
    opts: &ActOptions,
    act_log: Option<&Path>,
) -> Result<ActEnd, Error> {
    lab.agree(check(lab, opts, act_log))?;
    let manifest = lab.manifest(Kind::Act, command_line, &opts.targets, Setup::Act(opts.clone()))?;
    let dir = lab.results_dir(base, &manifest)?;
    let mut cert = Cert { lab, opts: opts.clone(), dir: &dir, loads: Vec::new(), tried: Vec::new(), index: 0 };
    let outcome = cert.run()?;
    dir.save_outcome(&outcome)?;
    let act_log = act_log.filter(|_| cert.lab.writes_results());
    // ACT's log of the load that scored, not of the last one tried (the response-time search
    // runs loads below the score after it).
    let summary: Vec<(f64, bool, u64)> = cert.loads.iter().map(|p| (p.value, p.pass, p.duration_ns)).collect();
    let scored = scored_load(&summary, outcome.best, opts.time_ns).and_then(|i| cert.loads[i].act());
    if let (Some(log), Some(scored)) = (act_log, scored) {
        write_log(log, &cert.opts, scored)?;
        cert.lab.emit(Event::Info(&format!(
            "ACT log: {} (analysis/act_latency.py -l {})",
            log.display(),
            log.display()
        )));
    }
    Ok(ActEnd { dir, outcome })
}

struct Cert<'l, 'a, 'd> {
    lab: &'l mut Lab<'a>,
    opts: ActOptions,
    dir: &'d ResultsDir,
    /// Every finished load, in order (the ACT log is the scored one's).
    loads: Vec<ProbeResult>,
    /// Every load judged so far. The response-time search reuses them instead of running a
    /// load twice.
    tried: Vec<Tried>,
    /// Loads run so far (each probe's number in the results directory).
    index: usize,
}

fn outcome(best: Option<f64>, reason: String, interrupted: bool, errored: bool, power_w: Option<f64>) -> Outcome {
    Outcome { schema: SCHEMA, best, reason, interrupted, errored, saturation_iops: None, power_w, response: None }
}

/// How a single load (act without --search) ended.
fn end_of_one(p: &ProbeResult, n: f64) -> Outcome {
    if p.interrupted {
        return outcome(None, "interrupted".into(), true, false, p.power_w);
    }
    if p.act().is_some_and(|run| errored_stream(&run.streams).is_some()) {
        return outcome(None, p.why.clone(), false, true, p.power_w);
    }
    let reason = if p.pass { "passed".to_string() } else { format!("failed: {}", p.why) };
    let response = p.act().and_then(|run| run.response.as_ref()).map(|r| ResponseScore {
        best: r.passed.then_some(n),
        reason: if r.passed { "passed".into() } else { format!("failed: {}", r.why) },
    });
    Outcome { response, ..outcome(p.pass.then_some(n), reason, false, false, p.power_w) }
}

/// A load run during a search, as both searches need it.
struct Tried {
    n: f64,
    /// Run for the full length (a confirmation, or probes as long as it).
    full: bool,
    act: bool,
    response: bool,
    power_w: Option<f64>,
}

impl Tried {
    fn passed(&self, timing: Timing) -> bool {
        match timing {
            Timing::Service => self.act,
            Timing::Response => self.response,
        }
    }
}

/// How one search ended: its outcome, or the outcome that stops everything (an interruption or
/// an I/O error).
enum Searched {
    Done(crate::search::SearchOutcome),
    Stopped(Outcome),
}

impl Cert<'_, '_, '_> {
    fn run(&mut self) -> Result<Outcome, Error> {
        if self.opts.prep {
            self.lab.emit(Event::Info(&format!(
                "act: filling {} with random data first (ACT's prep; --no-prep skips)",
                self.opts.targets.join(" ")
            )));
            if !precondition::sequential(
                self.lab,
                &self.opts.targets.clone(),
                1,
                self.opts.engine,
                None,
                WriteWhy::Fill,
                0,
            )? {
                return Ok(outcome(None, "interrupted during the fill".into(), true, false, None));
            }
        }
        if !self.opts.search {
            let n = self.opts.config.scale;
            let p = self.load(ProbeRole::Load, n, self.opts.time_ns)?;
            return Ok(end_of_one(p, n));
        }
        let start = match self.opts.search_start {
            Some(n) => n.max(1),
            None => self.estimate_start()?,
        };
        if self.lab.stopped() {
            return Ok(outcome(None, "interrupted".into(), true, false, None));
        }
        self.lab.emit(Event::Info(&format!(
            "act: searching the highest passing N from {start} down ({:.0} s per probe)",
            self.opts.probe_time_ns as f64 / 1e9
        )));
        let act = match self.search(start, Timing::Service)? {
            Searched::Stopped(o) => return Ok(o),
            Searched::Done(o) => o,
        };
        let power = self.power_at(act.best);
        let Some(best) = act.best else {
            let response = ResponseScore { best: None, reason: "no load passed ACT's verdict".into() };
            return Ok(Outcome { response: Some(response), ..outcome(None, act.reason, false, false, power) });
        };
        self.lab.emit(Event::Info(&format!(
            "act: ACT's score is {best}x; now the highest N that passes by response time (from {best}x down)"
        )));
        let response = match self.search(best as u32, Timing::Response)? {
            Searched::Stopped(o) => return Ok(Outcome { best: Some(best), ..o }),
            Searched::Done(o) => ResponseScore { best: o.best, reason: o.reason },
        };
        Ok(Outcome { response: Some(response), ..outcome(Some(best), act.reason, false, false, power) })
    }

    /// The highest N from `start` down that passes when judged by `timing`; loads already run
    /// at the same N and length are not run again.
    fn search(&mut self, start: u32, timing: Timing) -> Result<Searched, Error> {
        let space = SearchSpace {
            unit: Unit::Load,
            min: 1.0,
            max: start as f64,
            start: start as f64,
            integer: true,
            rel_tol: 0.0,
            step_down: 0.5,
            max_probes: 40,
        };
        let mut search = HighestPassing::new(space).map_err(Error::invalid)?;
        let (full_ns, probe_ns) = (self.opts.time_ns, self.opts.probe_time_ns);
        loop {
            let (value, confirm) = match search.next() {
                Step::Done(o) => return Ok(Searched::Done(o)),
                Step::Probe { value, confirm } => (value, confirm),
            };
            let full = confirm || probe_ns >= full_ns;
            let known = self.tried.iter().find(|j| j.n == value && (j.full || !full));
            let passed = match known {
                Some(j) => j.passed(timing),
                None => {
                    let (role, time) =
                        if confirm { (ProbeRole::Confirm, full_ns) } else { (ProbeRole::Probe, probe_ns) };
                    let p = self.load(role, value, time)?;
                    if p.interrupted {
                        return Ok(Searched::Stopped(outcome(None, "interrupted".into(), true, false, None)));
                    }
                    if let Some(s) = p.act().and_then(|run| errored_stream(&run.streams)) {
                        let why = format!("{}x: {} stopped by an I/O error: {}", value, s.target, p.why);
                        return Ok(Searched::Stopped(outcome(None, why, false, true, None)));
                    }
                    let by = |t| p.act().and_then(|run| run.passed_by(t)).unwrap_or(false);
                    let j = Tried {
                        n: value,
                        full,
                        act: by(Timing::Service),
                        response: by(Timing::Response),
                        power_w: p.power_w,
                    };
                    let passed = j.passed(timing);
                    self.tried.push(j);
                    passed
                }
            };
            search.record(value, passed);
        }
    }

    /// The power measured over the full-length load at `n`, if any.
    fn power_at(&self, n: Option<f64>) -> Option<f64> {
        let n = n?;
        self.tried.iter().find(|j| j.n == n && j.full).and_then(|j| j.power_w)
    }

    /// Run one load at scale `n` for `time_ns`, judge it, save it as the next probe.
    fn load(&mut self, role: ProbeRole, n: f64, time_ns: u64) -> Result<&ProbeResult, Error> {
        self.index += 1;
        let index = self.index;
        self.opts.config.scale = n;
        self.opts.time_ns = time_ns;
        let (rates, plan) = act_run::plan(&self.opts)?;
        let what = format!(
            "{} {n}x for {:.0} s",
            if role == ProbeRole::Confirm { "confirming" } else { "load" },
            time_ns as f64 / 1e9
        );
        self.lab.emit(Event::ProbeStart { index, what: &what });
        self.lab.emit(Event::ActRates { scale: n, rates: &rates });
        let streams: Vec<(AccessSpec, Vec<String>)> =
            plan.iter().map(|(_, t, spec)| (spec.clone(), vec![self.opts.targets[*t].clone()])).collect();
        let measured = self.lab.measure_streams(&streams)?;
        let power_w = measured.power_w;
        let streams: Vec<StreamResult> = plan
            .iter()
            .zip(measured.results)
            .map(|((role, t, _), result)| StreamResult { role: *role, target: self.opts.targets[*t].clone(), result })
            .collect();
        let run = act_run::judge(&self.opts, rates, streams, &self.opts.targets);
        let rec = ProbeResult {
            schema: SCHEMA,
            index,
            role,
            value: n,
            pass: run.passed,
            why: run.why.clone(),
            duration_ns: time_ns,
            interrupted: run.interrupted,
            power_w,
            data: ProbeData::Act(Box::new(run)),
            ranks: measured.ranks,
        };
        if !rec.interrupted {
            self.dir.save_probe(&rec, &format!("{}-{n}x", role_slug(role)))?;
        }
        self.lab.emit(Event::ProbeDone { record: &rec });
        self.loads.push(rec);
        Ok(self.loads.last().expect("just pushed"))
    }

    /// A short closed-loop read probe: N where the small reads alone would use the measured
    /// throughput. The search starts there and steps down (large-block traffic and latency
    /// limits only lower it).
    fn estimate_start(&mut self) -> Result<u32, Error> {
        let rates = self.opts.config.derive(act_run::min_op_bytes(&self.opts.targets)?);
        // ACT's service threads, one read at a time each, as fast as they can.
        let threads = act_run::share(self.opts.service_threads, self.opts.targets.len(), 0);
        let (jobs, qd) = if self.opts.engine == EngineKind::Psync { (threads, 1) } else { (1, threads) };
        let spec = AccessSpec {
            bs: vec![BlockSize { bytes: rates.read_bytes, pct: 100 }],
            qd,
            jobs,
            time_ns: Some(3_000_000_000),
            engine: self.opts.engine,
            ..Default::default()
        };
        let targets = self.opts.targets.clone();
        let r = self.lab.measure(&spec, &targets)?.result;
        // Under MPI `r` is every rank's: each runs `targets.len()` drives.
        let per_target = r.total.iops / (targets.len() * self.lab.rank_count()) as f64;
        let n = (per_target / act::READS_PER_N).floor().max(1.0) as u32;
        self.lab.emit(Event::Info(&format!(
            "act: {} small reads/s per target from {threads} threads in closed loop: start at {n}x",
            fmt_count(per_target),
        )));
        Ok(n)
    }
}

/// Which of the loads run (value, passed ACT's verdict, length in ns), in order, is the one
/// that scored: the last full-length (`full_ns`) load at the score `best` that passed; without a
/// score, the last load run (its log shows why it failed).
fn scored_load(loads: &[(f64, bool, u64)], best: Option<f64>, full_ns: u64) -> Option<usize> {
    let Some(best) = best else { return loads.len().checked_sub(1) };
    let at_best = |full: bool| loads.iter().rposition(|&(n, pass, ns)| n == best && pass && (!full || ns >= full_ns));
    at_best(true).or_else(|| at_best(false))
}

fn role_slug(role: ProbeRole) -> &'static str {
    match role {
        ProbeRole::Confirm => "confirm",
        ProbeRole::Load => "load",
        _ => "probe",
    }
}

/// The ACT 6 log of `run`, for aerospike's `analysis/act_latency.py`.
fn write_log(path: &Path, opts: &ActOptions, run: &ActRun) -> Result<(), Error> {
    let infos = crate::prepare::probe_all(&opts.targets)?;
    let min_op = act_run::min_op_bytes(&opts.targets)?;
    let header = ActLogHeader {
        drivelab_version: env!("CARGO_PKG_VERSION").into(),
        targets: infos
            .iter()
            .map(|i| ActLogTarget { name: i.path.clone(), size_bytes: i.size_bytes, min_op_bytes: min_op })
            .collect(),
        config: ActConfig { scale: run.scale, ..opts.config.clone() },
        rates: run.rates.clone(),
        service_threads: opts.service_threads,
        duration_secs: (opts.time_ns / 1_000_000_000).max(1),
        // ACT sets the scheduler; drivelab reports the one it found.
        scheduler: infos
            .iter()
            .find_map(|i| i.disk.as_deref().and_then(crate::sysinfo::device).and_then(|d| d.scheduler))
            .unwrap_or_else(|| "none".into()),
    };
    let mut text = Vec::new();
    act::write_act_log(&mut text, &header, &run.seconds)
        .map_err(|e| Error::io(format!("writing the ACT log {}", path.display()), e))?;
    crate::store::write_new(path, &text)
}

#[cfg(test)]
mod tests {
    use super::scored_load;

    #[test]
    fn the_act_log_is_the_scored_loads_not_the_last_tried() {
        // ACT's search: 170x fails, 85x passes, confirmed at 30 s; then the response-time
        // search runs 42x and 46x below the score. The log is the 85x confirmation's.
        let (probe, full) = (10_000_000_000, 30_000_000_000);
        let loads = [
            (170.0, false, probe),
            (85.0, true, probe),
            (127.0, false, probe),
            (85.0, true, full),
            (42.0, true, full),
            (46.0, true, full),
        ];
        assert_eq!(scored_load(&loads, Some(85.0), full), Some(3));
        // No score: the last load run, which shows why.
        assert_eq!(scored_load(&loads[..3], None, full), Some(2));
        assert_eq!(scored_load(&[], None, full), None);
    }
}
