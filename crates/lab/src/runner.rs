//! Running a plan into a results directory, one point after another.
//!
//! ```text
//! results/<name>-<YYYYMMDD-HHMMSS>/
//!   run.json                      schema, tool, command line, host and target facts, the expanded plan
//!   points/0001-<slug>.json       one per finished point, written the moment it finishes
//!   points/0003-<slug>.interrupted.json   a point cut short by Ctrl-C (kept, not counted as done)
//! ```
//! Results on disk are the interface between measuring and reporting. `--resume DIR` reads
//! which points have a result file and runs only the others, so no point is run twice.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use drivelab_engine::result::{RunResult, ToolInfo};
use drivelab_engine::run::Progress;
use drivelab_engine::Error;
use serde::{Deserialize, Serialize};

use crate::plan::{Plan, Point};
use crate::power;
use crate::precondition;
use crate::prepare::prepare;
use crate::safety::Permission;
use crate::steady::{SteadyDetector, SteadyRule, SteadyVerdict, WindowStats};
use crate::store;
use crate::sysinfo::{self, HostFacts};

pub const SCHEMA: u32 = 1;

/// A point as saved: what it is, without the derived spec (the result holds the spec as run).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointRecord {
    pub index: usize,
    pub label: String,
    pub slug: String,
    pub step: String,
    pub targets: Vec<String>,
    pub fields: Vec<(String, String)>,
    pub estimate_ns: Option<u64>,
}

impl From<&Point> for PointRecord {
    fn from(p: &Point) -> Self {
        PointRecord {
            index: p.index,
            label: p.label.clone(),
            slug: p.slug.clone(),
            step: p.step.clone(),
            targets: p.targets.clone(),
            fields: p.fields.clone(),
            estimate_ns: p.estimate_ns,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlanRecord {
    pub name: String,
    pub together: bool,
    pub repeat: u32,
    pub pause_ns: u64,
    pub precondition: Option<PointRecord>,
    pub points: Vec<PointRecord>,
}

/// Facts about one target: what the engine probed, plus device and filesystem facts.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetFacts {
    pub path: String,
    pub device: Option<sysinfo::DeviceFacts>,
    pub file: Option<sysinfo::FileFacts>,
}

/// `run.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunManifest {
    pub schema: u32,
    pub tool: ToolInfo,
    /// "plan", or "suite:<name>".
    pub kind: String,
    pub command_line: Vec<String>,
    pub started_unix_ms: u64,
    pub host: HostFacts,
    pub targets: Vec<TargetFacts>,
    pub plan: PlanRecord,
}

/// `points/NNNN-<slug>.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    pub schema: u32,
    pub point: PointRecord,
    pub result: RunResult,
    /// Average of the `--power-cmd` readings taken during the point, in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// With `--steady`: every round's IOPS and whether steady state was reached (`result` is
    /// the last round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyRecord>,
}

/// The rounds of a point run to steady state (SNIA PTS), for the report's convergence chart.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SteadyRecord {
    pub rule: SteadyRule,
    /// Total IOPS of each round, in order.
    pub rounds_iops: Vec<f64>,
    /// Steady state was reached; false: gave up after `rule.max_rounds` (or interrupted).
    pub steady: bool,
    /// The last window's statistics (the steady window when `steady`).
    pub window: Option<WindowStats>,
}

/// What the runner tells its caller as it goes.
pub enum Event<'a> {
    /// Point `index` of `total` (0 for the precondition) starts.
    Start {
        point: &'a PointRecord,
        total: usize,
    },
    /// A point already has a result from an earlier run (resume).
    Skip {
        point: &'a PointRecord,
    },
    Progress(&'a Progress),
    Done {
        point: &'a PointRecord,
        result: &'a RunResult,
        power_w: Option<f64>,
    },
    /// Preconditioning: pass `pass` of `passes` over `target` starts.
    Precondition {
        target: &'a str,
        pass: u32,
        passes: u32,
    },
    /// A steady-state round of a point finished.
    Round {
        round: usize,
        iops: f64,
        window: Option<&'a WindowStats>,
        verdict: &'a str,
    },
}

pub struct Options<'a> {
    pub new_file_size: u64,
    pub perm: Permission<'a>,
    pub command_line: Vec<String>,
    pub kind: String,
    /// A command that prints the power draw in watts; sampled every second during each point.
    pub power_cmd: Option<String>,
    /// Write every target sequentially this many times (128 KiB blocks) before the first point.
    pub precondition_passes: u32,
    /// Repeat each point in rounds until SNIA PTS steady state (or the rule's round limit).
    pub steady: Option<SteadyRule>,
}

pub fn points_dir(dir: &Path) -> PathBuf {
    dir.join("points")
}

fn point_file(dir: &Path, p: &PointRecord, interrupted: bool) -> PathBuf {
    let suffix = if interrupted { ".interrupted.json" } else { ".json" };
    points_dir(dir).join(format!("{:04}-{}{suffix}", p.index, p.slug))
}

/// Indices of points that have a (complete) result file in `dir`.
pub fn finished_points(dir: &Path) -> BTreeSet<usize> {
    let Ok(entries) = std::fs::read_dir(points_dir(dir)) else { return BTreeSet::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".interrupted.json") && !n.starts_with('.'))
        .filter_map(|n| n.split('-').next()?.parse().ok())
        .collect()
}

/// All saved point results of a results directory, in index order.
pub fn load_points(dir: &Path) -> Result<Vec<PointResult>, Error> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(points_dir(dir))
        .map_err(|e| Error::io(format!("reading {}", points_dir(dir).display()), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".json") && !n.ends_with(".interrupted.json") && !n.starts_with('.')
        })
        .collect();
    files.sort();
    files.iter().map(|f| store::read_json(f)).collect()
}

fn record(plan: &Plan) -> PlanRecord {
    PlanRecord {
        name: plan.name.clone(),
        together: plan.together,
        repeat: plan.repeat,
        pause_ns: plan.pause_ns,
        precondition: plan.precondition.as_ref().map(PointRecord::from),
        points: plan.points.iter().map(PointRecord::from).collect(),
    }
}

fn target_facts(path: &str) -> TargetFacts {
    let info = drivelab_engine::target::probe(path).ok();
    let device = info.as_ref().and_then(|i| i.disk.as_deref()).and_then(sysinfo::device);
    let file = match info.as_ref().map(|i| i.kind) {
        Some(drivelab_engine::target::TargetKind::File) => sysinfo::file_facts(Path::new(path)),
        _ => None,
    };
    TargetFacts { path: path.to_string(), device, file }
}

/// Start a new results directory under `base` for `plan`: creates it and writes `run.json`.
pub fn create(base: &Path, plan: &Plan, opts: &Options) -> Result<PathBuf, Error> {
    let started = store::now_unix_ms();
    let dir = store::new_dir(base, &plan.name, started / 1000)?;
    std::fs::create_dir(points_dir(&dir)).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let mut names: Vec<String> = Vec::new();
    for p in plan.points.iter().chain(plan.precondition.iter()) {
        for t in &p.targets {
            if !names.contains(t) {
                names.push(t.clone());
            }
        }
    }
    let manifest = RunManifest {
        schema: SCHEMA,
        tool: ToolInfo { name: "drivelab".into(), version: env!("CARGO_PKG_VERSION").into() },
        kind: opts.kind.clone(),
        command_line: opts.command_line.clone(),
        started_unix_ms: started,
        host: sysinfo::host(),
        targets: names.iter().map(|t| target_facts(t)).collect(),
        plan: record(plan),
    };
    store::write_json(&dir.join("run.json"), &manifest)?;
    Ok(dir)
}

/// What a plan run ended with.
pub struct Outcome {
    pub ran: usize,
    pub skipped: usize,
    pub interrupted: bool,
}

/// Run every point of `plan` that has no result in `dir` yet, saving each as it finishes.
pub fn run(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    stop: Arc<AtomicBool>,
    on_event: &mut dyn FnMut(Event),
) -> Result<Outcome, Error> {
    let done = finished_points(dir);
    let total = plan.points.len();
    let mut out = Outcome { ran: 0, skipped: 0, interrupted: false };

    // The precondition runs when any point still has to run (a resumed run preconditions again:
    // the drive's state after an interruption is unknown).
    if let Some(pre) = &plan.precondition {
        if plan.points.iter().any(|p| !done.contains(&p.index)) {
            for t in &pre.targets {
                let mut p = pre.clone();
                p.targets = vec![t.clone()];
                run_point(&p, opts, &stop, &mut |e| on_event(e))?;
                if stop.load(Ordering::SeqCst) {
                    out.interrupted = true;
                    return Ok(out);
                }
            }
        }
    }
    if opts.precondition_passes > 0 && plan.points.iter().any(|p| !done.contains(&p.index)) {
        let mut names: Vec<String> = Vec::new();
        for t in plan.points.iter().flat_map(|p| p.targets.iter()) {
            if !names.contains(t) {
                names.push(t.clone());
            }
        }
        let engine = plan.points.first().map(|p| p.spec.engine).unwrap_or_default();
        let passes = opts.precondition_passes;
        let events = std::cell::RefCell::new(&mut *on_event);
        let finished = precondition::sequential(
            &names,
            passes,
            engine,
            &opts.perm,
            opts.new_file_size,
            &stop,
            &mut |target, pass| (events.borrow_mut())(Event::Precondition { target, pass, passes }),
            &mut |pr| (events.borrow_mut())(Event::Progress(pr)),
        )?;
        if !finished {
            out.interrupted = true;
            return Ok(out);
        }
    }
    for (i, p) in plan.points.iter().enumerate() {
        let rec = PointRecord::from(p);
        if done.contains(&p.index) {
            on_event(Event::Skip { point: &rec });
            out.skipped += 1;
            continue;
        }
        if i > 0 && out.ran > 0 && plan.pause_ns > 0 && pause(plan.pause_ns, &stop) {
            out.interrupted = true;
            break;
        }
        on_event(Event::Start { point: &rec, total });
        let sampler = opts.power_cmd.as_ref().map(|cmd| power::Sampler::start(cmd));
        let (result, steady) = match &opts.steady {
            None => (run_point(p, opts, &stop, &mut |e| on_event(e))?, None),
            Some(rule) => {
                let (r, s) = run_steady(p, opts, rule, &stop, &mut |e| on_event(e))?;
                (r, Some(s))
            }
        };
        let power_w = sampler.and_then(|s| s.finish());
        let saved = PointResult { schema: SCHEMA, point: rec.clone(), result, power_w, steady };
        store::write_json(&point_file(dir, &rec, saved.result.interrupted), &saved)?;
        on_event(Event::Done { point: &rec, result: &saved.result, power_w: saved.power_w });
        out.ran += 1;
        if saved.result.interrupted || stop.load(Ordering::SeqCst) {
            out.interrupted = true;
            break;
        }
    }
    Ok(out)
}

/// Sleep `ns`, waking early (true) when stopped.
fn pause(ns: u64, stop: &AtomicBool) -> bool {
    let end = std::time::Instant::now() + Duration::from_nanos(ns);
    while std::time::Instant::now() < end {
        if stop.load(Ordering::SeqCst) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50).min(end - std::time::Instant::now()));
    }
    false
}

fn run_point(
    p: &Point,
    opts: &Options,
    stop: &Arc<AtomicBool>,
    on_event: &mut dyn FnMut(Event),
) -> Result<RunResult, Error> {
    let prepared = prepare(&p.spec, &p.targets, opts.new_file_size, &opts.perm, stop, &mut |_, _, _| {})?;
    let mut result =
        drivelab_engine::run::run(&prepared.spec, &prepared.targets, prepared.spec.engine, stop.clone(), &mut |pr| {
            on_event(Event::Progress(pr))
        })?;
    result.notices.extend(prepared.notices);
    if !prepared.spec.direct {
        result.notices.push("buffered I/O: results include the page cache".into());
    }
    Ok(result)
}

/// Run `p` in rounds until the last `rule.window` rounds' IOPS are steady (SNIA PTS) or
/// `rule.max_rounds` ran; the last round is the point's result.
fn run_steady(
    p: &Point,
    opts: &Options,
    rule: &SteadyRule,
    stop: &Arc<AtomicBool>,
    on_event: &mut dyn FnMut(Event),
) -> Result<(RunResult, SteadyRecord), Error> {
    let mut detector = SteadyDetector::new(rule.clone());
    loop {
        let r = run_point(p, opts, stop, on_event)?;
        let record = |steady: bool, window: Option<WindowStats>, d: &SteadyDetector| SteadyRecord {
            rule: rule.clone(),
            rounds_iops: d.values().to_vec(),
            steady,
            window,
        };
        if r.interrupted {
            let rec = record(false, detector.last_window(), &detector);
            return Ok((r, rec));
        }
        let verdict = detector.push(r.total.iops);
        let round = detector.values().len();
        let window = detector.last_window();
        let (text, done) = match &verdict {
            SteadyVerdict::NeedMore => ("not steady yet", None),
            SteadyVerdict::Steady(w) => ("steady", Some(record(true, Some(w.clone()), &detector))),
            SteadyVerdict::GaveUp(w) => ("gave up: no steady state", Some(record(false, w.clone(), &detector))),
        };
        on_event(Event::Round { round, iops: r.total.iops, window: window.as_ref(), verdict: text });
        if let Some(rec) = done {
            return Ok((r, rec));
        }
    }
}

/// The plan of an earlier run, rebuilt from its `run.json` (for `--resume`): specs are derived
/// again from the saved fields, so a resumed point runs exactly what it would have.
pub fn plan_from_record(rec: &PlanRecord) -> Result<Plan, Error> {
    let point = |r: &PointRecord| -> Result<Point, Error> {
        let spec = drivelab_engine::fields::from_pairs(r.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(|e| Error::invalid(format!("point {} ({}) in run.json: {e}", r.index, r.label)))?;
        Ok(Point {
            index: r.index,
            label: r.label.clone(),
            slug: r.slug.clone(),
            step: r.step.clone(),
            targets: r.targets.clone(),
            fields: r.fields.clone(),
            spec,
            estimate_ns: r.estimate_ns,
        })
    };
    let points = rec.points.iter().map(point).collect::<Result<Vec<_>, _>>()?;
    let mut targets: Vec<String> = Vec::new();
    for t in points.iter().flat_map(|p| p.targets.iter()) {
        if !targets.contains(t) {
            targets.push(t.clone());
        }
    }
    Ok(Plan {
        name: rec.name.clone(),
        targets,
        together: rec.together,
        repeat: rec.repeat,
        pause_ns: rec.pause_ns,
        precondition: rec.precondition.as_ref().map(point).transpose()?,
        points,
    })
}
