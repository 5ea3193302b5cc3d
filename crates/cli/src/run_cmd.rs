//! `drivelab run` (and the no-argument default's fallback): one point, run by the lab's plan
//! driver like any plan, so it leaves a results directory that `report` and `compare` read; then
//! the human summary (with `-q` too: it is the answer) and where the report is, and with `--json`
//! the result itself.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use drivelab_engine::Error;
use drivelab_lab::execute::{Lab, Setup};
use drivelab_lab::fiojob;
use drivelab_lab::plan::Plan;
use drivelab_lab::results::Kind;
use drivelab_lab::runner::{self, PlanOptions};

use crate::args::{RunArgs, SafetyArgs};
use crate::events::{Printer, Style, Voice};
use crate::term::Stream;
use crate::{output, plan_cmd, summary};

/// How a finished command ends the process.
pub enum Outcome {
    Done,
    Interrupted,
    StoppedByError,
    /// The run finished and found no load that meets the objective (act: no passing load;
    /// qos: no load meets it): exit 3, so a CI job can gate on a certification.
    NotMet,
    /// With `--steady`: a point ran its rounds to the end without reaching steady state (its
    /// result is saved, marked "not steady"): exit 4, unless `--steady-unreached-ok`.
    NotSteady,
    /// Everything was measured and saved, but a file asked for (a fio log) could not be
    /// written afterwards: said on stderr, exit 1.
    FilesLost,
}

/// Install the Ctrl-C (and SIGTERM) handler once; the flag it sets stops file creation and the
/// run, which then saves what it has. A second signal within a second of the first is the same
/// request delivered twice (a shell and `timeout -s INT` can both send one) and is ignored; one
/// later than that means "stop now" and exits at once (finished results are on disk already).
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let f = Arc::new(AtomicBool::new(false));
        let g = f.clone();
        let first = std::sync::Mutex::new(None::<std::time::Instant>);
        let _ = ctrlc::set_handler(move || {
            let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
            match *first {
                None => {
                    *first = Some(std::time::Instant::now());
                    g.store(true, Ordering::SeqCst);
                }
                Some(t) if t.elapsed() >= std::time::Duration::from_secs(1) => std::process::exit(130),
                Some(_) => {}
            }
        });
        f
    })
    .clone()
}

/// What every command gives the lab: permissions, the new-file size, power sampling, Ctrl-C,
/// and the names of `targets` (`--label`). The rest of the command runs in a session of its own
/// unless `--thread` or the plan's `thread` (fio's) says otherwise (`session::detach`): this is
/// where every command that measures passes before its first thread starts.
pub fn lab_setup<'a>(
    safety: &'a SafetyArgs,
    power_cmd: Option<&String>,
    targets: &[String],
    plan_thread: bool,
) -> Result<Setup<'a>, Error> {
    let names = safety.names(targets)?;
    crate::session::detach(safety.thread || plan_thread);
    Ok(Setup {
        names,
        new_file_size: safety.new_file_size()?,
        size_asked: safety.size.is_some(),
        perm: safety.permission(),
        power_cmd: power_cmd.cloned(),
        stop: stop_flag(),
        journal: safety.journal_path()?,
        ranks: crate::mpi::ranks(),
        status_every_ns: 0,
    })
}

pub fn run(args: &RunArgs) -> Result<Outcome, Error> {
    // A job file's name that is there but not a regular file (a FIFO, a directory) goes to the job
    // file's reader too, which says what it is (it was taken for a target, and --cap-time then
    // said "give the job file as the first target").
    let job_file = |t: &&String| fiojob::is_job_file(Path::new(t)) && std::fs::symlink_metadata(t).is_ok();
    if let Some(file) = args.targets.first().filter(job_file) {
        // Errors name the job file's options as it has them (`size=`, not --span); the command
        // line's --size is named as the flag it is.
        args.safety.new_file_size()?;
        return run_job_file(args, Path::new(file)).map_err(|e| e.written_as(drivelab_engine::Spelling::FioJob));
    }
    if let Some(v) = args.vars.first() {
        return Err(Error::invalid(format!(
            "--var {v}: variables are for fio job files; give the job file (.fio) as the first target"
        )));
    }
    if args.cap_time.is_some() || args.cap_size.is_some() {
        return Err(Error::invalid(
            "--cap-time/--cap-size shorten a fio job file's jobs; give the job file (.fio) as the first target, or \
             use --time and --span"
                .to_string(),
        ));
    }
    run_with_notices(args, &[])
}

/// `drivelab run JOB.fio [TARGET...]`: the job file's groups run as a plan (the targets given
/// replace its files); a file of one group ends with that point's summary, as `run` does.
fn run_job_file(args: &RunArgs, file: &Path) -> Result<Outcome, Error> {
    if let Some(flag) = args.given_spec_flags.first() {
        return Err(Error::invalid(format!(
            "{flag} with the job file {}: the job file sets the workload; change it there, or make it a \
             variable (bs=${{BS}}) and give --var BS=...",
            file.display()
        )));
    }
    let targets = &args.targets[1..];
    let cap = (args.cap_time.as_deref(), args.cap_size.as_deref());
    let loaded = plan_cmd::load_capped(file, drivelab_lab::plan::Targets::Given(targets), &args.vars, cap)?;
    let plan = loaded.plan;
    if args.json.is_some() && plan.points.len() != 1 {
        return Err(Error::invalid(format!(
            "--json: {} makes {} points and --json saves one result; use `drivelab report DIR --format json` \
             on the results directory",
            file.display(),
            plan.points.len()
        )));
    }
    if let Some(j) = args.json.as_deref() {
        output::check_json_path(j)?;
    }
    let mut safety = args.safety.clone();
    if let (None, Some(bytes)) = (&safety.size, loaded.new_file_bytes) {
        safety.size = Some(bytes.to_string());
    }
    let (ended, dir) = plan_cmd::execute(
        &plan,
        Kind::Plan,
        None,
        &safety,
        &args.results,
        Voice::quiet_if(args.quiet),
        args.power_cmd.as_ref(),
        &crate::args::PointsArgs::default(),
    )?;
    if plan.points.len() == 1 && crate::mpi::writes() {
        let saved = drivelab_lab::results::load(&dir)?;
        if let Some(record) = saved.points.last() {
            output::stdout_text(&summary::text(&dir, record, &[], Stream::Stdout)?);
            if let Some(j) = args.json.as_deref() {
                output::write_json(j, &record.result)?;
            }
        }
    }
    Ok(ended)
}

/// `run`, with notices the caller adds to the result (the default job's buffered fallback).
pub fn run_with_notices(args: &RunArgs, extra_notices: &[&str]) -> Result<Outcome, Error> {
    let spec = args.spec()?;
    if let Some(j) = args.json.as_deref() {
        output::check_json_path(j)?;
    }
    let json_to_stdout = args.json.as_deref() == Some("-");
    let mut plan = Plan::single(spec, args.targets.clone());
    plan.points[0].fields = args.fields();
    let setup = lab_setup(&args.safety, args.power_cmd.as_ref(), &plan.targets, plan.thread)?;
    plan.name_targets(&setup.names)?;
    let mut printer = Printer::new(Style::Run, Voice::quiet_if(args.quiet), json_to_stdout);
    let mut sink = printer.sink();
    let mut lab = Lab::new(setup, &mut sink);
    let base = Path::new(&args.results);
    let (dir, outcome) =
        runner::start(&mut lab, base, Kind::Run, crate::command_line(), &plan, &PlanOptions::default())?;
    let stopped = lab.stopped();
    drop(lab);
    drop(sink);
    printer.finish();
    crate::report_cmd::write_dir_report(dir.path())?;
    let Some(mut record) = outcome.last else {
        return Ok(if stopped { Outcome::Interrupted } else { Outcome::Done });
    };
    let extra: Vec<String> = extra_notices.iter().map(|n| n.to_string()).collect();
    // The summary is the answer, quiet or not (its I/O errors were said on stderr as they came).
    let report = format!("report: {}", dir.path().join("report.html").display());
    if json_to_stdout {
        output::stderr_line(&format!("{}{report}", summary::text(dir.path(), &record, &extra, Stream::Stderr)?));
    } else {
        output::stdout_text(&format!("{}{report}\n", summary::text(dir.path(), &record, &extra, Stream::Stdout)?));
    }
    record.result.notices.extend(extra);
    let r = &record.result;
    if let Some(j) = args.json.as_deref().filter(|_| crate::mpi::writes()) {
        if let Err(e) = output::write_json(j, r) {
            // The measurement is not lost: it is in the results directory, and here.
            crate::output::stderr_line(&format!(
                "drivelab: {}; the result follows on standard output",
                e.cli_message()
            ));
            output::write_json("-", r)?;
            return Err(e);
        }
    }
    Ok(if r.interrupted {
        Outcome::Interrupted
    } else if r.errored() {
        Outcome::StoppedByError
    } else {
        Outcome::Done
    })
}
