//! `drivelab plan`: load a plan (or the plan of a run to resume), check every point against its
//! targets before anything runs, then run the points into a results directory, one line each.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use drivelab_engine::units::{fmt_count, fmt_elapsed, fmt_ns};
use drivelab_engine::Error;
use drivelab_lab::plan::{self, Plan};
use drivelab_lab::runner::{self, Event, Options, RunManifest};
use drivelab_lab::{prepare, store};

use crate::args::{PlanArgs, SafetyArgs, SteadyArgs};
use crate::progress;
use crate::run_cmd::{stop_flag, Outcome};

/// Every point (and the precondition), in run order, with its estimated duration.
pub fn dry_run(plan: &Plan) {
    println!("plan {}: {} points", plan.name, plan.points.len());
    if let Some(p) = &plan.precondition {
        let est = p.estimate_ns.map(fmt_elapsed).unwrap_or_else(|| "until its io_size is done".into());
        println!("  precondition {} on each target: {est}", p.label);
    }
    for p in &plan.points {
        let est = p.estimate_ns.map(fmt_elapsed).unwrap_or_else(|| "io_size-bound".into());
        println!("  {:>4}  {:<40} {:>9}  {}", p.index, p.label, est, p.targets.join(" "));
    }
    match plan.estimate_ns() {
        Some(t) => println!("estimated total: {} (with {} pauses)", fmt_elapsed(t), fmt_elapsed(plan.pause_ns)),
        None => println!("estimated total: unknown (some points end by io_size, not time)"),
    }
}

pub fn run(args: &PlanArgs) -> Result<Outcome, Error> {
    let (plan, resume_dir) = match &args.resume {
        Some(dir) => {
            let manifest: RunManifest = store::read_json(&Path::new(dir).join("run.json"))?;
            (runner::plan_from_record(&manifest.plan)?, Some((PathBuf::from(dir), manifest.kind)))
        }
        None => {
            let file = Path::new(args.file.as_deref().unwrap_or_default());
            match plan::load(file, &args.targets) {
                // A dry run can list a plan whose targets are not named yet.
                Err(Error::Invalid(m)) if args.dry_run && m.contains("names no targets") => {
                    (plan::load(file, &["TARGET".to_string()])?, None)
                }
                other => (other?, None),
            }
        }
    };
    if args.dry_run {
        dry_run(&plan);
        return Ok(Outcome::Done);
    }
    let kind = resume_dir.as_ref().map(|(_, k)| k.clone()).unwrap_or_else(|| "plan".into());
    let (outcome, _) = execute(
        &plan,
        &kind,
        resume_dir.map(|(d, _)| d),
        &args.safety,
        &args.results,
        args.quiet,
        args.power_cmd.as_deref(),
        &args.steady,
    )?;
    Ok(outcome)
}

/// Check every point, then run `plan` into a new results directory under `results` (or into
/// `resume`), printing a line per point. Returns how it ended and the directory.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    plan: &Plan,
    kind: &str,
    resume: Option<PathBuf>,
    safety: &SafetyArgs,
    results: &str,
    quiet: bool,
    power_cmd: Option<&str>,
    steady: &SteadyArgs,
) -> Result<(Outcome, PathBuf), Error> {
    let steady_rule = steady.rule()?;
    if let Some(cmd) = power_cmd {
        drivelab_lab::power::read_watts(cmd)?;
    }
    let size = safety.new_file_size()?;
    let perm = safety.permission();
    // A bad point is found now, not an hour into the run.
    for p in plan.precondition.iter().chain(plan.points.iter()) {
        prepare::check(&p.spec, &p.targets, size, &perm)
            .map_err(|e| Error::invalid(format!("point {} ({}): {e}", p.index, p.label)))?;
    }
    let opts = Options {
        new_file_size: size,
        perm,
        command_line: std::env::args().collect(),
        kind: kind.into(),
        power_cmd: power_cmd.map(str::to_string),
        precondition_passes: steady.precondition,
        steady: steady_rule,
    };
    let dir = match resume {
        Some(d) => d,
        None => runner::create(Path::new(results), plan, &opts)?,
    };
    println!("results: {}", dir.display());
    let stop = stop_flag();
    let mut live: Option<progress::Live> = None;
    let outcome = runner::run(plan, &dir, &opts, stop.clone(), &mut |e| match e {
        Event::Start { point, total } => {
            println!("[{}/{}] {} on {}", point.index, total, point.label, point.targets.join(" "));
            live = Some(progress::Live::new(!quiet));
        }
        Event::Precondition { target, pass, passes } => {
            println!("preconditioning {target}: sequential 128 KiB write, pass {pass} of {passes}");
            live = Some(progress::Live::new(!quiet));
        }
        Event::Round { round, iops, window, verdict } => {
            if let Some(l) = live.take() {
                l.finish();
            }
            let w = window
                .map(|w| format!(" · window range {:.1}%, fit change {:.1}%", w.range_pct, w.fit_change_pct))
                .unwrap_or_default();
            println!("      round {round}: {} IOPS{w} · {verdict}", fmt_count(iops));
            live = Some(progress::Live::new(!quiet));
        }
        Event::Skip { point } => println!("[{}] {}: done in an earlier run, skipped", point.index, point.label),
        Event::Progress(p) => {
            if let Some(l) = live.as_mut() {
                l.update(p)
            }
        }
        Event::Done { result, power_w, .. } => {
            if let Some(l) = live.take() {
                l.finish();
            }
            let t = &result.total;
            println!(
                "      {} IOPS  {:.1} MB/s  p50 {}  p99 {}  cpu {:.0}%{}{}",
                fmt_count(t.iops),
                t.bw_mb_per_s,
                fmt_ns(t.lat_ns.p("p50") as f64),
                fmt_ns(t.lat_ns.p("p99") as f64),
                result.cpu.usr_pct + result.cpu.sys_pct,
                power_w.map(|w| format!("  {w:.2} W")).unwrap_or_default(),
                if result.interrupted { "  INTERRUPTED" } else { "" }
            );
        }
    })?;
    println!(
        "{} point(s) run, {} skipped; results in {}{}",
        outcome.ran,
        outcome.skipped,
        dir.display(),
        if outcome.interrupted {
            format!(" — interrupted: `drivelab plan --resume {}` runs the rest", dir.display())
        } else {
            String::new()
        }
    );
    crate::report_cmd::write_dir_report(&dir)?;
    println!("report: {}", dir.join("report.html").display());
    let ended = if outcome.interrupted || stop.load(Ordering::SeqCst) { Outcome::Interrupted } else { Outcome::Done };
    Ok((ended, dir))
}
