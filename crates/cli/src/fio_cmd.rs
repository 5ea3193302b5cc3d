//! `drivelab fio ARGS…` (and `drivelab run --name=… …`): fio's own command line, so a script
//! written for fio runs drivelab unchanged. The arguments are split as fio splits them
//! (`fiojob::split_args`) into the sections a job file gives, and made a plan by the same path
//! as `drivelab run JOB.fio` (one table of options). The plan runs into a drivelab results
//! directory like any other (its lines and where it is go to stderr); standard output, or
//! `--output FILE`, carries fio's output in the formats `--output-format` asks for, in fio's
//! order, as `drivelab_report::fio_out` writes them. stderr carries what fio would write there
//! (I/O errors, refusals) and nothing for a clean run: drivelab's notices are saved with the
//! results, and said only with `--drivelab-notices`. The results directory goes to drivelab's
//! data directory, not the working directory. drivelab's safety rules stay: writing a block
//! device needs `--destroy DEV`, a target file drivelab did not make is written only with
//! `--overwrite`; fio's `--output` is replaced whole, as fio replaces it.

use std::path::Path;

use drivelab_engine::spec::Trim;
use drivelab_engine::{Error, Spelling};
use drivelab_lab::fiojob::{self, Eta, FioArgs};
use drivelab_lab::plan::Plan;
use drivelab_lab::results::Kind;
use drivelab_report::fio_out::{before_report, error_lines, render, FioFormat};

use crate::args::{PointsArgs, SafetyArgs};
use crate::events::{FioStatus, Voice};
use crate::run_cmd::Outcome;
use crate::{output, plan_cmd};

/// The fio version whose command line and output drivelab follows.
pub const FIO_VERSION: &str = "3.33";

/// fio's argv within drivelab's: everything after `fio`, or after `run` when the first of it is
/// fio's `--name` (drivelab's `run` has no `--name`, so that is fio's command line).
pub fn fio_argv(raw: &[String]) -> Option<Vec<String>> {
    match raw.get(1).map(String::as_str) {
        Some("fio") => Some(raw[2..].to_vec()),
        Some("run") => {
            let first = raw.get(2)?;
            let name = first.trim_start_matches('-');
            let fio_name = first.starts_with('-') && (name == "name" || name.starts_with("name="));
            fio_name.then(|| raw[2..].to_vec())
        }
        _ => None,
    }
}

/// `drivelab fio --help`: every option drivelab takes on fio's command line.
const USAGE: &str = "\
drivelab fio: fio's command line, run by drivelab (fio 3.33's options and syntax).

usage: drivelab fio [options] [job options] [JOB.fio...]

Job options are fio's (--name=NAME starts a job; those before the first --name
apply to every job): --rw=randread --bs=4k --iodepth=32 --size=1g --runtime=60
--time_based ... Each behaves as the same line of a job file does.

fio's options:
  --output=FILE         write fio's output to FILE (replaced whole, as fio does;
                        never through a symlink to a file)
  --output-format=LIST  normal (default), json, json+, terse; comma-separated
  --minimal             terse output (--output-format=terse)
  --terse-version=3     the terse format (version 3 only)
  --section=NAME        run only this job section (repeatable)
  --readonly            refuse any job that writes, before anything runs
  --parse-only          check the jobs, run nothing (with --drivelab-notices: list
                        them as drivelab runs them)
  --showcmd             print each job file as a command line
  --warnings-fatal      refuse the jobs when any option warns
  --eta=auto|always|never   never: no live line (auto, always: as drivelab)
  --eta-newline=TIME    accepted; drivelab's live line is one line
  --eta-interval=TIME   accepted; drivelab's live line updates every second
  --status-interval=TIME    fio's whole report of the run so far every TIME
  --max-jobs=N          accepted, no effect
  --alloc-size=KB       accepted, no effect
  --version             fio-3.33-compatible version line
  --help                this text
drivelab's own:
  --destroy DEV         allow writing this block device (destroys its data)
  --force               with --destroy: even a mounted or partitioned device
  --overwrite           allow writing an existing file drivelab did not make
  --results DIR         where the results directory is made (default
                        $XDG_DATA_HOME/drivelab/results, ~/.local/share/...)
  --drivelab-notices    drivelab's notices and where the results went, on stderr
  --label FILE=NAME     show FILE as NAME in drivelab's reports of the results
                        (fio's contract keeps stderr empty for a clean run)
  --cap-time TIME       shorten every job to at most TIME (as drivelab run)
  --cap-size SIZE       shorten every job's region to at most SIZE
  --bandwidth-log         fio's agg-read_bw.log, agg-write_bw.log, agg-trim_bw.log
                        (each second's KiB/s per direction, all jobs summed)
Refused with a reason: --debug, --client, --server, --latency-log and fio's
other tools.

The user guide's chapter fio, section \"fio's command line: drivelab fio\",
says what each option becomes.
";

pub fn run(argv: &[String]) -> Result<Outcome, Error> {
    run_args(argv).map_err(|e| e.written_as(Spelling::FioJob))
}

fn run_args(argv: &[String]) -> Result<Outcome, Error> {
    let a = fiojob::split_args(argv)?;
    if a.drivelab_notices {
        for n in &a.notices {
            crate::output::stderr_line(&format!("notice: {n}"));
        }
    }
    if a.help {
        output::stdout_text(USAGE);
        return Ok(Outcome::Done);
    }
    if a.version {
        output::stdout_line(&version_line());
        return Ok(Outcome::Done);
    }
    let formats = formats(&a)?;
    let status_ns = check_times(&a)?;
    // fio writes over its --output file; drivelab replaces it whole, never through a symlink.
    let output = match &a.output {
        Some(o) => Some((o.as_str(), drivelab_lab::store::check_output_file("--output", o)?)),
        None => None,
    };
    // --bandwidth-log's files, checked before anything runs (a directory or a symlink there is
    // refused then, not after the run).
    let agg_logs = match a.bandwidth_log {
        true => Some(
            drivelab_lab::fiologs::AGG_BW_LOGS
                .iter()
                .map(|n| drivelab_lab::store::check_output_file("--bandwidth-log", n))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        false => None,
    };
    if a.showcmd {
        output::stdout_text(&fiojob::showcmd(&a)?);
        return Ok(Outcome::Done);
    }
    let loaded = fiojob::from_args(&a)?;
    // fio's contract keeps stderr for fio's own words, but never hides figures that differ from
    // fio's: those notices are said whatever the flags (the others with --drivelab-notices).
    if !a.drivelab_notices {
        for n in &loaded.differs_from_fio {
            crate::output::stderr_line(&format!("drivelab: {n}"));
        }
    }
    let plan = loaded.plan;
    if a.warnings_fatal && !plan.source_notices.is_empty() {
        return Err(Error::invalid(format!(
            "--warnings-fatal: {}; nothing was run (drop --warnings-fatal to run with these)",
            plan.source_notices.join("; ")
        )));
    }
    if a.readonly {
        refuse_writes(&plan)?;
    }
    // fio's --parse-only says nothing of jobs that parse; drivelab's listing of what each job
    // became comes with --drivelab-notices.
    if a.parse_only {
        if a.drivelab_notices {
            return plan_cmd::dry_run(&plan, true);
        }
        plan.read_traces()?;
        return Ok(crate::run_cmd::Outcome::Done);
    }
    let mut safety = SafetyArgs {
        size: loaded.new_file_bytes.map(|b| b.to_string()),
        destroy: a.destroy.clone(),
        force: a.force,
        overwrite: a.overwrite,
        journal: None,
        share: "own".into(),
        labels: a.labels.clone(),
        thread: false,
    };
    // Checked before fio's output starts: a refusal is the only thing said.
    safety.names(&plan.targets)?;
    // Under mpirun, as `run` and `plan`: every rank runs the jobs on its own targets (`{rank}`,
    // `{host}` in their names) and rank 0 saves and prints the merged result.
    crate::mpi::start(safety.share())?;
    if let Some(ranks) = crate::mpi::ranks() {
        safety.expand_for_rank(&ranks);
        if !ranks.is_writer() {
            output::silence();
        }
    }
    let results = results_base(&a)?;
    // fio's normal output announces its jobs before they run: on stdout once the plan's checks
    // passed (a refusal says only why), or at the head of the --output file.
    let preamble = match crate::mpi::writes() {
        true => before_report(&loaded.fio_jobs, formats.contains(&FioFormat::Normal)),
        false => String::new(),
    };
    if output.is_none() {
        output::hold_fio_opening(preamble.clone());
    }
    // --status-interval: fio's whole report of the run so far at every interval, in its
    // formats, on stdout (or held for the --output file, before the final report).
    let status = match status_ns {
        Some(every_ns) => {
            let mut list = [None; 4];
            for (slot, f) in list.iter_mut().zip(&formats) {
                *slot = Some(*f);
            }
            if output.is_some() {
                crate::output::hold_fio_status();
            }
            Some(FioStatus { every_ns, formats: list })
        }
        None => None,
    };
    let voice = Voice::Fio { notices: a.drivelab_notices, live: a.eta != Some(Eta::Never), status };
    // stdout is fio's: with --drivelab-notices, the closing line and the report's path go to stderr.
    output::divert_to_stderr(true);
    let ran = plan_cmd::execute(&plan, Kind::Plan, None, &safety, &results, voice, None, &PointsArgs::default());
    output::divert_to_stderr(false);
    let (outcome, dir) = ran.map_err(|e| name_writers(e, &plan))?;
    if !crate::mpi::writes() {
        return Ok(outcome);
    }
    let saved = drivelab_lab::results::load(&dir)?;
    let mut text = if output.is_some() { preamble + &crate::output::hold_fio_status() } else { String::new() };
    for f in formats {
        text.push_str(&render(&saved, f)?);
    }
    match output {
        Some((o, how)) => {
            drivelab_lab::store::write_output(o, how, drivelab_engine::printable::printable(&text).as_bytes())?
        }
        None => output::stdout_text(&text),
    }
    // --bandwidth-log: fio's aggregate logs in the working directory, replaced as fio replaces
    // them (never through a symlink).
    if let Some(hows) = agg_logs {
        let results: Vec<_> = saved.points.iter().map(|p| &p.result).collect();
        for ((name, text), how) in drivelab_lab::fiologs::aggregate_bw(&results).into_iter().zip(hows) {
            drivelab_lab::store::write_output(name, how, text.as_bytes())?;
        }
    }
    // fio says on stderr what failed (its verify lines and each failed job's closing line).
    let lines = error_lines(&saved)?;
    if !lines.is_empty() {
        crate::output::stderr_line(lines.trim_end_matches('\n'));
    }
    // And drivelab says when its job threads waited for a CPU: those latencies are the busy
    // machine's too (fio, measuring no run-queue time, cannot say it).
    for p in &saved.points {
        if let Some(starved) = p.result.cpu.starved_warning() {
            crate::output::stderr_line(&format!("drivelab: warning: {}: {starved}", p.point.label));
        }
    }
    Ok(outcome)
}

/// Where `drivelab fio` makes its results directory: `--results DIR`, else drivelab's data
/// directory (`$XDG_DATA_HOME/drivelab/results`, or `~/.local/share/drivelab/results`) — never
/// the working directory uninvited: fio leaves nothing there but its job files, and a script may
/// run in a read-only one.
fn results_base(a: &FioArgs) -> Result<String, Error> {
    if let Some(r) = &a.results {
        return Ok(r.clone());
    }
    let absolute = |v: std::ffi::OsString| Some(std::path::PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = match std::env::var_os("XDG_DATA_HOME").and_then(absolute) {
        Some(d) => d,
        None => match std::env::var_os("HOME").and_then(absolute) {
            Some(h) => h.join(".local/share"),
            None => {
                return Err(Error::invalid(
                    "drivelab fio saves its results under $XDG_DATA_HOME or $HOME, and neither is set: give \
                     --results DIR",
                ))
            }
        },
    };
    let dir = base.join("drivelab/results");
    dir.to_str().map(str::to_string).ok_or_else(|| {
        Error::invalid(format!(
            "drivelab fio's results directory {} is not UTF-8: give --results DIR",
            dir.to_string_lossy()
        ))
    })
}

/// A refusal to write block devices without `--destroy`, with the jobs that would write them
/// named (fio's command line names jobs, not drivelab's points).
fn name_writers(e: Error, plan: &Plan) -> Error {
    let Error::NeedsDestroy { devices, .. } = e.root() else { return e };
    let devices = devices.clone();
    let mut jobs: Vec<&str> = Vec::new();
    for p in &plan.points {
        let all = std::iter::once((&p.step, &p.targets)).chain(p.concurrent.iter().map(|c| (&c.name, &c.targets)));
        for (name, targets) in all {
            if targets.iter().any(|t| devices.contains(t)) && !jobs.contains(&name.as_str()) {
                jobs.push(name);
            }
        }
    }
    if jobs.is_empty() {
        return e;
    }
    e.context(format!("fio job {} writes {}", jobs.join(", "), devices.join(", ")))
}

/// What `fio --version` prints, for scripts that check it (`grep fio-3`, `cut -d- -f2`), with
/// drivelab's own version after it.
fn version_line() -> String {
    format!("fio-{FIO_VERSION}-drivelab-{}", env!("CARGO_PKG_VERSION"))
}

/// The formats asked for (`--minimal` is terse), in the order fio prints them: terse, JSON,
/// normal (json+ is the JSON with bins: one of the two).
fn formats(a: &FioArgs) -> Result<Vec<FioFormat>, Error> {
    let mut list = match &a.formats {
        Some(text) => FioFormat::parse_list(text)?,
        None => vec![FioFormat::Normal],
    };
    if list.contains(&FioFormat::JsonPlus) {
        list.retain(|f| *f != FioFormat::Json);
    }
    let rank = |f: &FioFormat| match f {
        FioFormat::Terse => 0,
        FioFormat::Json | FioFormat::JsonPlus => 1,
        FioFormat::Normal => 2,
    };
    list.sort_by_key(rank);
    Ok(list)
}

/// fio's time arguments, checked as fio checks them (a bare number is seconds); the
/// `--status-interval` read, in ns.
fn check_times(a: &FioArgs) -> Result<Option<u64>, Error> {
    let mut status_ns = None;
    let times = [
        ("--eta-newline", &a.eta_newline, 1),
        ("--eta-interval", &a.eta_interval, 1),
        ("--status-interval", &a.status_interval, 1_000_000),
    ];
    for (flag, value, least_ns) in times {
        let Some(v) = value else { continue };
        let ns = fiojob::fio_time_ns(v).map_err(|e| Error::invalid(format!("{flag}={v}: {e}")))?;
        if ns < least_ns {
            return Err(Error::invalid(format!(
                "{flag}={v}: too short for fio; give at least 1ms (or 1 for a second)"
            )));
        }
        if flag == "--status-interval" {
            status_ns = Some(ns);
        }
    }
    Ok(status_ns)
}

/// `--readonly`: a job that writes (or trims), or a target that would be created, is refused
/// before anything runs, naming the job, as fio refuses it.
fn refuse_writes(plan: &Plan) -> Result<(), Error> {
    for p in &plan.points {
        let jobs = std::iter::once((&p.step, &p.spec, &p.targets))
            .chain(p.concurrent.iter().map(|c| (&c.name, &c.spec, &c.targets)));
        for (name, spec, targets) in jobs {
            if spec.engine.changes_names() {
                return Err(Error::invalid(format!(
                    "--readonly: job {name} runs ioengine={}, which changes the file system; nothing was run (drop \
                     the job, or --readonly)",
                    spec.engine.name()
                )));
            }
            if spec.read_pct < 100 || spec.trim != Trim::None {
                return Err(Error::invalid(format!(
                    "--readonly: job {name} writes ({}% of its I/Os are writes or trims); nothing was run (drop the \
                     job, or --readonly)",
                    100 - u32::from(spec.read_pct)
                )));
            }
            if let Some(t) = targets.iter().find(|t| *t != "null" && !Path::new(t).exists()) {
                return Err(Error::invalid(format!(
                    "--readonly: job {name}'s file {t} does not exist and would be created (written); nothing was run"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn fios_argv_is_after_fio_or_after_run_when_it_starts_with_name() {
        assert_eq!(fio_argv(&words("drivelab fio --bs=4k x.fio")), Some(words("--bs=4k x.fio")));
        assert_eq!(fio_argv(&words("drivelab run --name=a --rw=read")), Some(words("--name=a --rw=read")));
        assert_eq!(fio_argv(&words("drivelab run -name a")), Some(words("-name a")));
        assert_eq!(fio_argv(&words("drivelab run --rw=read --name=a")), None, "run's own flags come first");
        assert_eq!(fio_argv(&words("drivelab run null --time 1s")), None);
        assert_eq!(fio_argv(&words("drivelab run --namespace x")), None);
    }

    #[test]
    fn formats_come_in_fios_order() {
        let a = |t: &str| FioArgs { formats: Some(t.into()), ..FioArgs::default() };
        use FioFormat::*;
        assert_eq!(formats(&a("normal,json,terse")).unwrap(), [Terse, Json, Normal]);
        assert_eq!(formats(&a("json,json+")).unwrap(), [JsonPlus]);
        assert_eq!(formats(&FioArgs::default()).unwrap(), [Normal]);
        assert!(formats(&a("xml")).is_err());
        assert!(version_line().starts_with("fio-3.33-drivelab-"));
    }
}
