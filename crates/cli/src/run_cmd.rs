//! `drivelab run` (and the no-argument default's fallback): one point, run by the lab's plan
//! driver like any plan, so it leaves a results directory that `report` and `compare` read; then
//! the human summary (with `-q` too: it is the answer) and where the report is, and with `--json`
//! the result itself.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use drivelab_engine::Error;
use drivelab_lab::execute::{Lab, Setup};
use drivelab_lab::plan::{Plan, Point};
use drivelab_lab::results::Kind;
use drivelab_lab::runner::{self, PlanOptions};

use crate::args::{RunArgs, SafetyArgs};
use crate::events::{Printer, Style};
use crate::term::{self, Stream};
use crate::{output, summary};

/// How a finished command ends the process.
pub enum Outcome {
    Done,
    Interrupted,
    StoppedByError,
    /// The run finished and found no load that meets the objective (act: no passing load;
    /// qos: no load meets it): exit 3, so a CI job can gate on a certification.
    NotMet,
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

/// What every command gives the lab: permissions, the new-file size, power sampling, Ctrl-C.
pub fn lab_setup<'a>(safety: &'a SafetyArgs, power_cmd: Option<&String>) -> Result<Setup<'a>, Error> {
    Ok(Setup {
        new_file_size: safety.new_file_size()?,
        size_asked: safety.size.is_some(),
        perm: safety.permission(),
        power_cmd: power_cmd.cloned(),
        stop: stop_flag(),
        journal: safety.journal_path()?,
    })
}

pub fn run(args: &RunArgs) -> Result<Outcome, Error> {
    run_with_notices(args, &[])
}

/// `run`, with notices the caller adds to the result (the default job's buffered fallback).
pub fn run_with_notices(args: &RunArgs, extra_notices: &[&str]) -> Result<Outcome, Error> {
    let spec = args.spec()?;
    if let Some(j) = args.json.as_deref() {
        output::check_json_path(j)?;
    }
    let json_to_stdout = args.json.as_deref() == Some("-");
    let point = Point {
        index: 1,
        label: spec.label(),
        slug: drivelab_lab::store::slug(&spec.label()),
        step: String::new(),
        targets: args.targets.clone(),
        fields: args.fields(),
        estimate_ns: spec.time_ns.map(|t| t + spec.ramp_ns),
        spec,
    };
    let plan = Plan {
        name: "run".into(),
        targets: args.targets.clone(),
        together: true,
        repeat: 1,
        pause_ns: 0,
        precondition: None,
        points: vec![point],
    };
    let mut printer = Printer::new(Style::Run, args.quiet, json_to_stdout);
    let mut sink = printer.sink();
    let mut lab = Lab::new(lab_setup(&args.safety, args.power_cmd.as_ref())?, &mut sink);
    let base = Path::new(&args.results);
    let (dir, outcome) =
        runner::start(&mut lab, base, Kind::Run, std::env::args().collect(), &plan, &PlanOptions::default())?;
    let stopped = lab.stopped();
    drop(lab);
    drop(sink);
    printer.finish();
    crate::report_cmd::write_dir_report(dir.path())?;
    let Some(mut record) = outcome.last else {
        return Ok(if stopped { Outcome::Interrupted } else { Outcome::Done });
    };
    record.result.notices.extend(extra_notices.iter().map(|n| n.to_string()));
    let r = &record.result;
    // The summary is the answer, quiet or not (its I/O errors were said on stderr as they came).
    let report = format!("report: {}", dir.path().join("report.html").display());
    if json_to_stdout {
        eprintln!("{}{report}", summary::render(r, term::width(Stream::Stderr)));
    } else {
        output::stdout_text(&format!("{}{report}\n", summary::render(r, term::width(Stream::Stdout))));
    }
    if let Some(j) = args.json.as_deref() {
        if let Err(e) = output::write_json(j, r) {
            // The measurement is not lost: it is in the results directory, and here.
            eprintln!("drivelab: {}; the result follows on standard output", e.cli_message());
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
