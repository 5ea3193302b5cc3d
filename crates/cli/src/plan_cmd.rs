//! `drivelab plan`: load a plan (or the plan of a run to resume), check every point against its
//! targets before anything runs, then run the points into a results directory, one line each
//! (none with `-q`), ending with a line that counts every point once: finished, with I/O errors,
//! interrupted, done earlier (resume), not run.

use std::path::{Path, PathBuf};

use drivelab_engine::options::Field;
use drivelab_engine::units::fmt_elapsed;
use drivelab_engine::Error;
use drivelab_lab::execute::Lab;
use drivelab_lab::fiojob;
use drivelab_lab::plan::{self, Plan};
use drivelab_lab::results::Kind;
use drivelab_lab::resume;
use drivelab_lab::runner::{self, PlanOptions};

use crate::args::{PlanArgs, PointsArgs, SafetyArgs};
use crate::events::{Printer, Style, Voice};
use crate::run_cmd::{lab_setup, Outcome};
use crate::term::{self, Stream};

/// The plan in `file`: a fio job file (by its extension, `--var` sweeping its variables) or a
/// TOML plan (where `--var` has no place).
#[allow(dead_code)] // The entry for callers that never shorten.
pub fn load(file: &Path, targets: plan::Targets, vars: &[String]) -> Result<plan::PlanFile, Error> {
    load_capped(file, targets, vars, (None, None))
}

/// [`load`], a job file's jobs shortened by `--cap-time`/`--cap-size` (`cap`, as written).
pub fn load_capped(
    file: &Path,
    targets: plan::Targets,
    vars: &[String],
    cap: (Option<&str>, Option<&str>),
) -> Result<plan::PlanFile, Error> {
    let cap_flag = if cap.0.is_some() { Some("--cap-time") } else { cap.1.map(|_| "--cap-size") };
    if let Some(flag) = cap_flag.filter(|_| !fiojob::is_job_file(file)) {
        return Err(Error::invalid(format!(
            "{flag}: shortening is for fio job files (.fio, .job, .ini); a TOML plan sets its own time and span"
        )));
    }
    if fiojob::is_job_file(file) {
        let cap = fiojob::Cap::parse(cap.0, cap.1)?;
        let vars = vars.iter().map(|v| fiojob::parse_var(v)).collect::<Result<Vec<_>, _>>()?;
        let targets = match targets {
            plan::Targets::Given(t) | plan::Targets::ForListing(t) => t,
        };
        return fiojob::load(file, fiojob::Given { targets, vars: &vars, cap, aux: None });
    }
    if let Some(v) = vars.first() {
        return Err(Error::invalid(format!(
            "--var {v}: variables are for fio job files (.fio, .job, .ini); a TOML plan sweeps with [matrix]"
        )));
    }
    plan::load_file(file, targets)
}

/// Every point (and the precondition), in run order, with its estimated duration; for points
/// made from a fio job file, each job's drivelab fields and targets too. A replay's trace is
/// read first: what the run would refuse, the dry run refuses.
pub fn dry_run(plan: &Plan, jobs: bool) -> Result<Outcome, Error> {
    plan.read_traces()?;
    // Each line wrapped to the screen (a point's targets continue under it).
    let width = term::width(Stream::Stdout);
    let say = |line: &str| crate::output::stdout_line(&term::wrap(line, width));
    for n in &plan.source_notices {
        say(&format!("notice: {n}"));
    }
    say(&format!("plan {}: {} points", plan.name, plan.points.len()));
    if let Some(p) = &plan.precondition {
        let est = p.estimate_ns.map(fmt_elapsed).unwrap_or_else(|| "until its io_size is done".into());
        say(&format!("  precondition {} on each target: {est}", p.label));
    }
    for p in &plan.points {
        let est = p.estimate_ns.map(fmt_elapsed).unwrap_or_else(|| "io_size-bound".into());
        say(&format!("  {:>4}  {:<40} {:>9}  {}", p.index, p.label, est, p.targets.join(" ")));
        if jobs {
            let job = |name: &str, fields: &[(String, String)], targets: &[String]| {
                let f: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("        {name}: {} on {}", f.join(" "), targets.join(" "))
            };
            say(&job(&p.step, &p.fields, &p.targets));
            for c in &p.concurrent {
                say(&job(&c.name, &c.fields, &c.targets));
            }
        }
    }
    match plan.estimate_ns() {
        Some(t) => say(&format!("estimated total: {} (with {} pauses)", fmt_elapsed(t), fmt_elapsed(plan.pause_ns))),
        None => say("estimated total: unknown (some points end by io_size, not time)"),
    }
    Ok(Outcome::Done)
}

pub fn run(args: &PlanArgs) -> Result<Outcome, Error> {
    // Errors name the fields as the plan has them: a fio job file's options (`size=`), a TOML
    // plan's keys (`span`), never a flag the user did not write (on resume, the plan's keys).
    let file = args.file.as_deref().map(Path::new);
    let spelling = match file {
        Some(f) if fiojob::is_job_file(f) => drivelab_engine::Spelling::FioJob,
        _ => drivelab_engine::Spelling::PlanKeys,
    };
    // The command line's own --size, named as the flag it is.
    args.safety.new_file_size()?;
    run_plan(args).map_err(|e| e.written_as(spelling))
}

fn run_plan(args: &PlanArgs) -> Result<Outcome, Error> {
    args.steady.check()?;
    // Under mpirun rank 0 reads the directory and every rank checks its own targets.
    let resume = match &args.resume {
        Some(dir) => Some(resume::read(Path::new(dir), crate::mpi::ranks().as_deref())?),
        None => None,
    };
    // A plan file's own `size` (fio's), or on resume the size the run created new files at,
    // unless --size is given.
    let file_size;
    let plan = match &resume {
        Some(r) => {
            file_size = r.new_file_bytes();
            r.plan.clone()
        }
        None => {
            let file = Path::new(args.file.as_deref().unwrap_or_default());
            // A dry run can list a plan whose targets are not named yet.
            let targets = if args.dry_run {
                plan::Targets::ForListing(&args.targets)
            } else {
                plan::Targets::Given(&args.targets)
            };
            let loaded = load_capped(file, targets, &args.vars, (args.cap_time.as_deref(), args.cap_size.as_deref()))?;
            file_size = loaded.new_file_bytes;
            loaded.plan
        }
    };
    let mut safety = args.safety.clone();
    if let (None, Some(bytes)) = (&safety.size, file_size) {
        safety.size = Some(bytes.to_string());
    }
    if args.dry_run {
        let mut plan = plan;
        plan.name_targets(&safety.names(&plan.targets)?)?;
        return dry_run(&plan, args.file.as_deref().is_some_and(|f| fiojob::is_job_file(Path::new(f))));
    }
    let kind = resume.as_ref().map(|r| r.kind).unwrap_or(Kind::Plan);
    let steady = match &resume {
        Some(r) => resumed_point_options(&args.steady, &r.command_line)?,
        None => args.steady.clone(),
    };
    let resume_dir = resume.map(|r| r.dir);
    let (outcome, dir) = execute(
        &plan,
        kind,
        resume_dir,
        &safety,
        &args.results,
        Voice::quiet_if(args.quiet),
        args.power_cmd.as_ref(),
        &steady,
    )?;
    // A resumed suite ends as the suite itself does: with its tables.
    if kind.suite().is_some() {
        crate::report_cmd::print_tables(&dir)?;
    }
    Ok(outcome)
}

/// Check every point, then run `plan` into a new results directory under `results` (or into
/// `resume`), printing a line per point. Returns how it ended and the directory.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    plan: &Plan,
    kind: Kind,
    resume: Option<PathBuf>,
    safety: &SafetyArgs,
    results: &str,
    voice: Voice,
    power_cmd: Option<&String>,
    steady: &PointsArgs,
) -> Result<(Outcome, PathBuf), Error> {
    // --label: the plan's targets named once, for the lab and the plan (a resumed plan's names
    // are in its saved points); --latency-split: on every point (and every job run beside one),
    // recorded with its fields.
    let mut setup = lab_setup(safety, power_cmd, &plan.targets, plan.thread)?;
    setup.status_every_ns = voice.status_every_ns();
    let mut plan = plan.clone();
    plan.name_targets(&setup.names)?;
    if steady.latency_split {
        for pt in &mut plan.points {
            pt.set(Field::LatencySplit, "true")?;
            for c in &mut pt.concurrent {
                c.set(Field::LatencySplit, "true")?;
            }
        }
    }
    let plan = &plan;
    let opts = PlanOptions {
        precondition_passes: steady.precondition,
        steady: steady.rule()?,
        continue_on_error: steady.continue_on_error,
        repeat: steady.repeat()?,
        fill_devices: !steady.no_prep,
        no_prep: steady.no_prep,
    };
    let mut printer = Printer::new(Style::Points, voice, false);
    printer.plan_points(plan.points.iter().map(|p| (p.index, p.estimate_ns)).collect());
    printer.status_points(&plan.points);
    let mut sink = printer.sink();
    let mut lab = Lab::new(setup, &mut sink);
    let (dir, outcome) = match resume {
        Some(d) => {
            lab.agree(runner::check(&lab, plan, &opts))?;
            let dir = lab.reopen_results_dir(&d)?;
            let o = runner::resume(&mut lab, plan, &dir, &opts)?;
            (dir, o)
        }
        None => runner::start(&mut lab, Path::new(results), kind, crate::command_line(), plan, &opts)?,
    };
    let stopped = lab.stopped();
    drop(lab);
    drop(sink);
    printer.finish();
    let dir = dir.path().to_path_buf();
    let line = closing_line(&outcome, plan.points.len(), &dir, &resume_flags(safety));
    // fio's contract: its output is the answer; the closing lines only when asked for.
    let closing = !matches!(voice, Voice::Fio { notices: false, .. });
    if closing {
        crate::output::stdout_line(&term::wrap(&line, term::width(Stream::Stdout)));
    }
    crate::report_cmd::write_dir_report(&dir)?;
    if closing {
        crate::output::stdout_line(&format!("report: {}", dir.join("report.html").display()));
    }
    for lost in &outcome.lost_files {
        crate::output::stderr_line(&format!("drivelab: a file was not written after its point was saved: {lost}"));
    }
    let ended = if outcome.interrupted || stopped {
        Outcome::Interrupted
    } else if outcome.errored > 0 {
        Outcome::StoppedByError
    } else if outcome.unsteady > 0 && !steady.steady_unreached_ok {
        Outcome::NotSteady
    } else if !outcome.lost_files.is_empty() {
        Outcome::FilesLost
    } else {
        Outcome::Done
    };
    Ok((ended, dir))
}

/// The point options of a resumed run: those it was started with (`--no-prep`, `--precondition`,
/// `--steady` ...), read from its saved command line by the same flags, so the points still to
/// run are measured as the points done were (a resume without `--no-prep` filled the device the
/// run had been told not to fill). Options given again must be the same; others are refused.
/// A saved command line that is not a plan's or a suite's (a fio job) keeps `given`.
fn resumed_point_options(given: &PointsArgs, saved: &[String]) -> Result<PointsArgs, Error> {
    use clap::{CommandFactory, FromArgMatches};
    let parse = |words: Vec<std::ffi::OsString>| -> Option<PointsArgs> {
        let m = crate::args::Cli::command().try_get_matches_from(crate::negative::join_negative_values(words)).ok()?;
        match crate::args::Cli::from_arg_matches(&m).ok()?.command? {
            crate::args::Command::Plan(a) => Some(a.steady),
            crate::args::Command::Suite(a) => Some(a.steady),
            _ => None,
        }
    };
    let Some(original) = parse(saved.iter().map(Into::into).collect()) else { return Ok(given.clone()) };
    let none_given = parse(["drivelab", "plan", "--resume", "DIR"].map(Into::into).to_vec());
    if Some(given) == none_given.as_ref() || *given == original {
        return Ok(original);
    }
    let command_line = drivelab_engine::printable::printable(&saved.join(" ")).into_owned();
    Err(Error::refused(crate::args::CliRefusal::ResumeOptions { command_line }))
}

/// The permissions a resumed run needs again, as this run was given them (` --destroy /dev/sdb
/// --force`): a resume hint without them was refused when followed.
fn resume_flags(safety: &SafetyArgs) -> String {
    let mut flags: String = safety.destroy.iter().map(|d| format!(" --destroy {}", crate::shell_quote(d))).collect();
    if safety.overwrite {
        flags += " --overwrite";
    }
    if safety.force {
        flags += " --force";
    }
    flags
}

/// How the plan ended, every point counted once: `8 points: 2 finished, 1 interrupted, 5 not run;
/// results in DIR`, and what to do next when it was cut short (`flags`: the permissions to give
/// again, [`resume_flags`]).
fn closing_line(outcome: &runner::Outcome, total: usize, dir: &Path, flags: &str) -> String {
    let mut counts = vec![format!("{} finished", outcome.finished)];
    let mut count = |n: usize, what: &str| {
        if n > 0 {
            counts.push(format!("{n} {what}"));
        }
    };
    count(outcome.unsteady, "of them not steady");
    count(outcome.errored, "with I/O errors");
    count(outcome.interrupted_points, "interrupted");
    count(outcome.skipped, "done earlier");
    count(outcome.not_run(total), "not run");
    let mut line = format!("{total} point{}: {}", if total == 1 { "" } else { "s" }, counts.join(", "));
    if outcome.stopped_by_error {
        line += " — stopped at the point whose I/O failed (--continue-on-error goes on)";
    }
    line += &format!("; results in {}", dir.display());
    if outcome.interrupted {
        let dir = crate::shell_quote(&dir.display().to_string());
        line += &format!(" — interrupted: `drivelab plan --resume {dir}{flags}` runs the rest");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        safety: SafetyArgs,
    }

    #[test]
    fn an_interrupted_plans_resume_hint_gives_its_permissions_again() {
        let w = Wrap::parse_from(["x", "--destroy", "/dev/loop3", "--destroy", "/dev/my disk", "--force"]);
        let flags = resume_flags(&w.safety);
        assert_eq!(flags, " --destroy /dev/loop3 --destroy '/dev/my disk' --force");
        let out = runner::Outcome { interrupted: true, finished: 1, ..Default::default() };
        let line = closing_line(&out, 3, Path::new("/r/p-1"), &flags);
        assert!(
            line.ends_with(
                "interrupted: `drivelab plan --resume /r/p-1 --destroy /dev/loop3 --destroy '/dev/my disk' \
                            --force` runs the rest"
            ),
            "{line}"
        );
        let plain = Wrap::parse_from(["x"]);
        assert_eq!(resume_flags(&plain.safety), "");
    }
}
