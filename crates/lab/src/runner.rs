//! The driver of points: `drivelab run` (a plan of one point), plans and suites. Runs every point
//! that has no result yet through [`Lab::measure`], saving each the moment it finishes (see
//! [`crate::results`] for the directory). With `--precondition`, passes over every target
//! first; with `--steady`, each point in rounds until [`SteadyDetector`] says so.
//! `--resume DIR` reads which points have a result file and runs only the others, so no point is
//! run twice.

use std::time::Duration;

use drivelab_engine::result::RunResult;
use drivelab_engine::Error;

use crate::devprep::{self, PrepOptions};
use crate::execute::{Event, Lab, Measured, WriteWhy};
use crate::plan::{Plan, PlanError, Point};
use crate::precondition;
use crate::prepare;
use crate::repeat::{self, Repeat, RepeatRecord};
use crate::results::{Kind, PointResult, ResultsDir, Setup, SteadyRecord, SCHEMA};
use crate::steady::{SteadyDetector, SteadyRule, SteadyVerdict, WindowStats};
use crate::written::Ledger;

/// How to run a plan, beyond what every command shares.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// Write every target sequentially this many times (128 KiB blocks) before the first point.
    pub precondition_passes: u32,
    /// Repeat each point in rounds until SNIA PTS steady state (or the rule's round limit).
    pub steady: Option<SteadyRule>,
    /// Go on to the next point after one whose I/O failed (it is saved and marked either way).
    /// Without it an errored point stops the plan: its figures describe a failing drive.
    pub continue_on_error: bool,
    /// Run each point this many times and keep the best or median run (CrystalDiskMark).
    pub repeat: Repeat,
    /// Fill each block device the plan writes before its first point (`--no-prep` skips it).
    pub fill_devices: bool,
    /// `--no-prep` was given (recorded with each point that writes a device).
    pub no_prep: bool,
}

impl PlanOptions {
    fn prep(&self) -> PrepOptions {
        PrepOptions {
            fill_devices: self.fill_devices,
            no_prep: self.no_prep,
            preconditioned: self.precondition_passes > 0,
        }
    }
}

/// What a plan run ended with. Every point of the plan is in exactly one of `finished`,
/// `errored`, `interrupted_points`, `skipped` or [`Outcome::not_run`], so a closing line built
/// from them adds up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Points that ran to their end without an I/O error and were saved.
    pub finished: usize,
    /// Points cut short by Ctrl-C: saved as `.interrupted.json` (not counted as done) when they
    /// had begun measuring; not saved when the stop came while their target was being created.
    pub interrupted_points: usize,
    /// Points skipped because an earlier run finished them (resume).
    pub skipped: usize,
    pub interrupted: bool,
    /// Points that ran to their end, or stopped, with I/O errors (saved, marked in every table).
    pub errored: usize,
    /// The plan stopped at an errored point (without `continue_on_error`).
    pub stopped_by_error: bool,
    /// Points run with `--steady` that finished without reaching steady state (saved, marked
    /// "not steady" in every table; the command's exit code says so).
    pub unsteady: usize,
    /// The last point run, as saved (what `drivelab run` summarizes).
    pub last: Option<PointResult>,
    /// Files that failed to be written after their point was measured and saved (fio's logs: a
    /// name planted as a symlink during the run): each said, the run goes on, its output is
    /// printed, and the command fails (exit 1), since an asked-for file is missing.
    pub lost_files: Vec<String>,
}

impl Outcome {
    /// Points this run started (finished, errored or interrupted).
    pub fn ran(&self) -> usize {
        self.finished + self.errored + self.interrupted_points
    }

    /// Points of a plan of `total` that neither ran nor had run before.
    pub fn not_run(&self, total: usize) -> usize {
        total.saturating_sub(self.ran() + self.skipped)
    }
}

/// Every check that can refuse, for every point and the precondition, before anything runs:
/// a bad point is found now, not an hour into the run.
pub fn check(lab: &Lab, plan: &Plan, opts: &PlanOptions) -> Result<(), Error> {
    lab.check_power()?;
    // Which point is wrong matters when there are several; a single `run` needs no such prefix.
    let several = plan.points.len() + plan.precondition.iter().count() > 1;
    // Every point's job threads, all its streams together (2,000 fio sections in one group ran
    // 2,000 threads; each stream alone was within its cap), counted before any target is
    // looked at: a refusal of 10,000 clones took minutes of probing their files first.
    let cap = prepare::max_job_threads();
    for p in plan.precondition.iter().chain(plan.points.iter()) {
        if p.concurrent.is_empty() {
            // One stream: its own refusal, in the user's spelling of jobs.
            prepare::check_threads(&p.spec, p.targets.len()).map_err(|e| {
                if several {
                    e.context(format!("point {} ({})", p.index, p.label))
                } else {
                    e
                }
            })?;
            continue;
        }
        let threads = std::iter::once((&p.spec, &p.targets))
            .chain(p.concurrent.iter().map(|j| (&j.spec, &j.targets)))
            .fold(0u64, |n, (s, t)| n.saturating_add(prepare::job_threads(s, t.len())));
        if threads > cap {
            // A group of 2,000 sections is labelled by all of them: its start names it.
            let label = match p.label.char_indices().nth(60) {
                Some((at, _)) => format!("{}…", &p.label[..at]),
                None => p.label.clone(),
            };
            return Err(PlanError::TooManyJobs { point: p.index, label, threads, cap }.into());
        }
    }
    // Devices that need --destroy are gathered over every point (a JBOD suite adds one drive
    // per point) and named in one refusal; any other refusal stops the check at once.
    let mut unnamed = None;
    let streams = plan.precondition.iter().chain(plan.points.iter()).flat_map(|p| {
        std::iter::once((p, &p.spec, &p.targets)).chain(p.concurrent.iter().map(move |j| (p, &j.spec, &j.targets)))
    });
    for (p, spec, targets) in streams {
        match lab.check(spec, targets) {
            Ok(_) => {}
            Err(e @ Error::NeedsDestroy { .. }) => unnamed = Some(prepare::merge_unnamed(unnamed, e)?),
            Err(e) if several => return Err(e.context(format!("point {} ({})", p.index, p.label))),
            Err(e) => return Err(e),
        }
    }
    if opts.precondition_passes > 0 {
        let spec = precondition::pass_spec(plan.points.first().map(|p| p.spec.engine).unwrap_or_default(), 0);
        match lab.check(&spec, &plan.targets) {
            Ok(_) => {}
            Err(e @ Error::NeedsDestroy { .. }) => unnamed = Some(prepare::merge_unnamed(unnamed, e)?),
            Err(e) => return Err(e.context("--precondition")),
        }
    }
    unnamed.map_or(Ok(()), Err)
}

/// Check `plan`, then create its results directory under `base` and run it.
pub fn start(
    lab: &mut Lab,
    base: &std::path::Path,
    kind: Kind,
    command_line: Vec<String>,
    plan: &Plan,
    opts: &PlanOptions,
) -> Result<(ResultsDir, Outcome), Error> {
    // Saved with absolute targets, so `--resume` from another directory runs on the same ones;
    // checked as they will run.
    let plan = &absolute_targets(plan)?;
    lab.agree(check(lab, plan, opts))?;
    // fio's log files: every name new, before the results directory is made.
    lab.agree(crate::fiologs::check(&plan.points, lab.ranks().is_some()))?;
    let manifest = lab.manifest(kind, command_line, &plan.targets, Setup::Plan(plan.clone()))?;
    let dir = lab.results_dir(base, &manifest)?;
    let outcome = run(lab, plan, &dir, opts)?;
    Ok((dir, outcome))
}

/// `plan` with every relative target path made absolute (against the current directory).
fn absolute_targets(plan: &Plan) -> Result<Plan, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?;
    let abs = |t: &String| crate::names::absolute(t, &cwd);
    let mut plan = plan.clone();
    plan.targets = plan.targets.iter().map(abs).collect();
    for p in plan.points.iter_mut().chain(plan.precondition.iter_mut()) {
        p.targets = p.targets.iter().map(abs).collect();
        for n in &mut p.names {
            n.target = abs(&n.target);
        }
        for j in &mut p.concurrent {
            j.targets = j.targets.iter().map(abs).collect();
        }
    }
    Ok(plan)
}

/// Resume `plan` in `dir`, made by an earlier run: the points still to run write fio logs under
/// new names only (checked before anything runs), then [`run`]. A new run's names were checked
/// by [`start`] before it made its directory; checked again after, a name planted meanwhile
/// would refuse a run that had already begun (it is refused when its log is written instead).
pub fn resume(lab: &mut Lab, plan: &Plan, dir: &ResultsDir, opts: &PlanOptions) -> Result<Outcome, Error> {
    let done = lab.from_writer(dir.finished_points())?;
    let todo = plan.points.iter().filter(|p| !done.contains(&p.index));
    lab.agree(crate::fiologs::check(todo, lab.ranks().is_some()))?;
    run(lab, plan, dir, opts)
}

/// Run every point of `plan` that has no result in `dir` yet, saving each as it finishes. Ctrl-C
/// at any moment (a point's target or the precondition being created included) ends it with what
/// finished counted, never with an error.
pub fn run(lab: &mut Lab, plan: &Plan, dir: &ResultsDir, opts: &PlanOptions) -> Result<Outcome, Error> {
    let mut out = Outcome::default();
    match run_points(lab, plan, dir, opts, &mut out) {
        Err(e) if e.is_interrupted() => {
            out.interrupted = true;
            Ok(out)
        }
        Err(e) => Err(e),
        Ok(()) => Ok(out),
    }
}

fn run_points(
    lab: &mut Lab,
    plan: &Plan,
    dir: &ResultsDir,
    opts: &PlanOptions,
    out: &mut Outcome,
) -> Result<(), Error> {
    // Under MPI the directory is rank 0's: every rank skips what rank 0 found done.
    let done = lab.from_writer(dir.finished_points())?;
    let total = plan.points.len();
    let anything_to_run = plan.points.iter().any(|p| !done.contains(&p.index));
    for n in plan.notices() {
        lab.emit(Event::Notice(&n));
    }

    // What drivelab has seen written on this host's block devices (`written`).
    let mut ledger = Ledger::open(lab.writes_results());

    // The precondition runs when any point still has to run (a resumed run preconditions again:
    // the drive's state after an interruption is unknown).
    if anything_to_run {
        // With verify, what preconditioning writes is stamped too: known to the points after it.
        let like = plan.points.iter().map(|p| &p.spec).find(|s| s.verify);
        // Devices the plan writes are filled first, as new files are (`devprep`).
        if !devprep::fill_devices(lab, plan, opts.prep(), &mut ledger, like)? {
            out.interrupted = true;
            return Ok(());
        }
        if let Some(pre) = &plan.precondition {
            let spec = like.and_then(|l| precondition::verifying(&pre.spec, l)).unwrap_or_else(|| pre.spec.clone());
            for t in &pre.targets {
                let m = lab.measure(&spec, std::slice::from_ref(t))?;
                if failed(&m.result, lab, &format!("preconditioning {t}"))? {
                    out.interrupted = true;
                    return Ok(());
                }
            }
            devprep::after_point(lab, pre, &mut ledger);
        }
        if opts.precondition_passes > 0 {
            let engine = plan.points.first().map(|p| p.spec.engine).unwrap_or_default();
            if !precondition::sequential(
                lab,
                &plan.targets,
                opts.precondition_passes,
                engine,
                like,
                WriteWhy::Precondition,
                0,
            )? {
                out.interrupted = true;
                return Ok(());
            }
            devprep::preconditioned(lab, &plan.targets, &mut ledger);
        }
    }
    for (i, p) in plan.points.iter().enumerate() {
        if done.contains(&p.index) {
            lab.emit(Event::PointSkip { point: p });
            out.skipped += 1;
            continue;
        }
        if i > 0 && out.ran() > 0 && plan.pause_ns > 0 && pause(plan.pause_ns, lab) {
            out.interrupted = true;
            break;
        }
        lab.emit(Event::PointStart { point: p, total });
        let prep = devprep::before_point(lab, p, &mut ledger, opts.prep());
        let measured = match &opts.steady {
            None if opts.repeat.runs > 1 => {
                run_repeated(lab, p, opts.repeat, plan.pause_ns).map(|(m, r)| (m, None, Some(r)))
            }
            None => lab.measure_point(p).map(|m| (m, None, None)),
            Some(rule) => run_steady(lab, p, rule).map(|(m, s)| (m, Some(s), None)),
        };
        let (m, steady, repeats) = match measured {
            // Stopped while the point's target was being created: nothing to save, but the point
            // was started and did not finish.
            Err(e) if e.is_interrupted() => {
                out.interrupted_points += 1;
                return Err(e);
            }
            other => other?,
        };
        devprep::after_point(lab, p, &mut ledger);
        let saved = PointResult {
            schema: SCHEMA,
            point: p.clone(),
            result: m.result,
            power_w: m.power_w,
            steady,
            repeats,
            ranks: m.ranks,
            prep,
            jobs: m.streams,
        };
        dir.save_point(&saved)?;
        if lab.writes_results() {
            match crate::fiologs::write(p, &saved.result, Some(dir.path())) {
                Ok(notices) => {
                    for n in notices {
                        lab.emit(Event::Notice(&n));
                    }
                }
                // The point is measured and saved: what failed is a file beside it, said at the end.
                Err(e) => out.lost_files.push(format!("point {} ({}): {e}", p.index, p.label)),
            }
            // The state is a file beside the result: failing to write it loses no measurement.
            if let Err(e) = crate::fiojob::vstate::write_point(p, &saved.result) {
                lab.emit(Event::Notice(&format!("fio's verify state was not written: {e}")));
            }
            for n in crate::fiojob::unlink::after_point(p, &saved.result, lab.setup.perm.overwrite) {
                lab.emit(Event::Notice(&n));
            }
        }
        lab.emit(Event::PointDone { record: &saved });
        let (interrupted, errored) = (saved.result.interrupted, saved.result.errored());
        let unsteady = saved.steady.as_ref().is_some_and(|s| !s.steady);
        out.last = Some(saved);
        match (interrupted, errored) {
            (true, _) => out.interrupted_points += 1,
            (false, true) => out.errored += 1,
            (false, false) => {
                out.finished += 1;
                out.unsteady += usize::from(unsteady);
            }
        }
        if errored && !interrupted && !opts.continue_on_error {
            out.stopped_by_error = true;
            break;
        }
        if interrupted || lab.stopped() {
            out.interrupted = true;
            break;
        }
    }
    Ok(())
}

/// True when a run that had to finish (preconditioning) was interrupted; an I/O error in it is
/// an error, not a result.
fn failed(r: &RunResult, lab: &Lab, what: &str) -> Result<bool, Error> {
    if let Some(e) = r.errors.first() {
        return Err(Error::io(what.to_string(), std::io::Error::other(e.error.clone())));
    }
    Ok(r.interrupted || lab.stopped())
}

/// Sleep `ns`, waking early (true) when stopped.
fn pause(ns: u64, lab: &Lab) -> bool {
    let end = std::time::Instant::now() + Duration::from_nanos(ns);
    while std::time::Instant::now() < end {
        if lab.stopped() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50).min(end - std::time::Instant::now()));
    }
    false
}

/// Run `p` `repeat.runs` times (pausing `pause_ns` between runs, as between points) and keep
/// the run `repeat.pick` chooses. A run that is interrupted or fails ends the repeats and is
/// kept, so the point says so.
fn run_repeated(lab: &mut Lab, p: &Point, repeat: Repeat, pause_ns: u64) -> Result<(Measured, RepeatRecord), Error> {
    let mut runs: Vec<Measured> = Vec::with_capacity(repeat.runs as usize);
    let mut seeds = Vec::with_capacity(repeat.runs as usize);
    for k in 1..=repeat.runs {
        if k > 1 && pause_ns > 0 && pause(pause_ns, lab) {
            break;
        }
        let round = in_round(p, k - 1);
        seeds.push(round.spec.offset_seed());
        let m = lab.measure_point(&round)?;
        let cut = m.result.interrupted || m.result.errored();
        let iops = m.result.total.iops;
        let verdict = format!("repeat {k} of {}; the {} run is kept", repeat.runs, repeat.pick);
        lab.emit(Event::Round { round: k as usize, iops, window: None, verdict: &verdict });
        runs.push(m);
        if cut || lab.stopped() {
            break;
        }
    }
    let iops: Vec<f64> = runs.iter().map(|m| m.result.total.iops).collect();
    let bw: Vec<f64> = runs.iter().map(|m| m.result.total.bw_bytes_per_s).collect();
    let last_cut = runs.last().is_some_and(|m| m.result.interrupted || m.result.errored());
    // A cut run is the point's result (it carries the interruption or the error); else the pick.
    let kept = if last_cut { runs.len() - 1 } else { repeat::pick_index(&iops, repeat.pick).unwrap_or(0) };
    let record = RepeatRecord {
        pick: repeat.pick,
        runs: repeat.runs,
        runs_iops: iops,
        runs_bw_bytes_per_s: bw,
        kept,
        runs_offset_seed: seeds,
    };
    let m = runs.swap_remove(kept);
    Ok((m, record))
}

/// Run `p` in rounds until the last `rule.window` rounds' IOPS are steady (SNIA PTS) or
/// `rule.max_rounds` ran. The point's result is the last window's rounds as one run (SNIA
/// reports the window's average: their I/Os over their windows), steady or not — the record
/// says which; a round that was interrupted, errored or did not carry its rate is the result
/// alone.
fn run_steady(lab: &mut Lab, p: &Point, rule: &SteadyRule) -> Result<(Measured, SteadyRecord), Error> {
    let mut detector = SteadyDetector::new(rule.clone());
    let mut seeds = Vec::new();
    let mut last: std::collections::VecDeque<Measured> = std::collections::VecDeque::with_capacity(rule.window);
    let record =
        |steady: bool, window: Option<WindowStats>, d: &SteadyDetector, seeds: &[u64], n: usize| SteadyRecord {
            rule: rule.clone(),
            rounds_iops: d.values().to_vec(),
            steady,
            window,
            not_delivered: None,
            rounds_offset_seed: seeds.to_vec(),
            result_rounds: n as u32,
        };
    loop {
        let round = in_round(p, seeds.len() as u32);
        seeds.push(round.spec.offset_seed());
        let m = lab.measure_point(&round)?;
        if m.result.interrupted || m.result.errored() {
            let rec = record(false, detector.last_window(), &detector, &seeds, 1);
            return Ok((m, rec));
        }
        // A fixed rate the target did not carry is never a steady state: its IOPS are the
        // target's limit, not the load asked for. The rounds stop there.
        if let Some(d) = crate::delivery::Delivery::of_run(&m.result).filter(|d| !d.delivered()) {
            let round = detector.values().len() + 1;
            let verdict = format!("not steady: {}", d.why_not("", "I/Os"));
            lab.emit(Event::Round { round, iops: m.result.total.iops, window: None, verdict: &verdict });
            let rec =
                SteadyRecord { not_delivered: Some(d), ..record(false, detector.last_window(), &detector, &seeds, 1) };
            return Ok((m, rec));
        }
        let verdict = detector.push(m.result.total.iops);
        if last.len() == rule.window {
            last.pop_front();
        }
        last.push_back(m);
        let round = detector.values().len();
        let window = detector.last_window();
        let (text, done) = match &verdict {
            SteadyVerdict::NeedMore => ("not steady yet", None),
            SteadyVerdict::Steady(w) => ("steady", Some((true, Some(w.clone())))),
            SteadyVerdict::GaveUp(w) => ("gave up: no steady state", Some((false, w.clone()))),
        };
        let iops = last.back().map_or(0.0, |m| m.result.total.iops);
        lab.emit(Event::Round { round, iops, window: window.as_ref(), verdict: text });
        if let Some((steady, w)) = done {
            let n = last.len();
            return Ok((Measured::consecutive(last.into()), record(steady, w, &detector, &seeds, n)));
        }
    }
}

/// `p` as its round `round` (from 0) runs: every spec of it (its concurrent jobs' too) draws
/// new offsets (`AccessSpec::round`), so rounds never replay the first round's offsets and
/// a randwrite repeated in rounds reaches the whole region.
fn in_round(p: &Point, round: u32) -> Point {
    let mut p = p.clone();
    p.spec.round = round;
    for c in &mut p.concurrent {
        c.spec.round = round;
    }
    p
}
