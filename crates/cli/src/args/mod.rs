//! Command-line flags: the commands and their options (`run`'s access-spec flags and their
//! translation into an engine `AccessSpec` are in `run.rs`).
//!
//! clap parses strings; every value with a unit is parsed by the engine's `units` so the CLI and
//! (later) plan files accept exactly the same spellings and give the same errors.
//!
//! The top of the clap tree: every command and the flag groups they share; each command's own
//! groups live in the submodules.

pub mod complete;
mod run;
mod safety;
mod spec_flags;

use clap::{Args, Parser, Subcommand};
use drivelab_engine::options as fields;
use drivelab_engine::Error;
use drivelab_lab::repeat::{Pick, Repeat};
use drivelab_lab::steady;

mod points;

pub use run::RunArgs;
pub use safety::SafetyArgs;

#[derive(Parser, Debug)]
#[command(
    name = "drivelab",
    version = crate::version::VERSION,
    about = "A storage performance lab in one binary: fio-grade load, Iometer-style specs, exact latency.",
    long_about = crate::default_job::about()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// A section of the user guide a help text points to: its chapter and heading (a test checks
/// that it exists).
macro_rules! guide {
    ($chapter:literal, $heading:literal) => {
        concat!("See docs/guide/", $chapter, " \"", $heading, "\".")
    };
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one workload on one or more targets (files, block devices, or `null`).
    #[command(long_about = concat!(
        "Run one workload on one or more targets (files, block devices, or `null`): the access spec \
         in fio's words or Iometer's, measured with exact latency histograms. Leaves a results \
         directory (for report and compare) and prints a summary.\n\n",
        guide!("run.md", "drivelab run — one workload, measured exactly")
    ))]
    Run(Box<RunArgs>),
    /// Run a test plan (TOML): defaults, matrix axes, steps; results saved point by point.
    #[command(long_about = concat!(
        "Run a test plan (TOML): defaults, matrix axes, steps; results saved point by point. Every point \
         is checked against its targets before the first one runs; --resume continues an interrupted run.\n\n",
        guide!("plans.md", "drivelab plan — your own test plan")
    ))]
    Plan(PlanArgs),
    /// Run a built-in suite that reproduces a known benchmark (CrystalDiskMark, Iometer, AnandTech,
    /// fio sweeps, hdparm...) and print its tables.
    #[command(long_about = suites_about())]
    Suite(SuiteArgs),
    #[command(about = report_about(), long_about = format!("{}.\n\n{}", report_about(), guide!("reports.md", "drivelab report and drivelab compare — from saved results")))]
    Report(ReportArgs),
    /// Results of the same kind from different devices or runs, side by side with deltas.
    Compare(CompareArgs),
    /// The Aerospike ACT storage certification: small reads plus large-block reads and writes at
    /// N x (2000 reads/s + 1000 writes/s) per drive; pass/fail per time slice; --search finds the highest N.
    #[command(long_about = concat!(
        "The Aerospike ACT storage certification: small reads plus large-block reads and writes at \
         N x (2000 reads/s + 1000 writes/s) per drive, open loop from fixed schedules; pass/fail per \
         time slice (by default under 5% of reads over 1 ms, 1% over 8 ms, 0.1% over 64 ms); \
         --search finds the highest N that passes. Writes need --destroy for block devices.\n\n",
        guide!("qos-act.md", "drivelab act — the Aerospike ACT storage certification")
    ))]
    Act(Box<ActArgs>),
    /// The highest load that meets a latency objective: by fixed rate (open loop) or by queue depth.
    #[command(long_about = concat!(
        "The highest load that meets a latency objective: by fixed rate (open loop: latency from each \
         I/O's intended time) or by queue depth (closed loop, as fio). The workload takes every access \
         spec flag of `run`; --time is the duration of each probe.\n\n",
        guide!("qos-act.md", "drivelab qos — the highest load that meets a latency objective")
    ))]
    Qos(Box<QosArgs>),
    /// What a target is, the drive behind it, and whether drivelab would write it (which flags
    /// that takes). Reads only.
    #[command(long_about = concat!(
        "What each target is (file, block device, null), the drive behind it (model, serial, firmware, \
         transport, capacity, block sizes, queue limits, scheduler, write cache, rotational, temperature \
         where the kernel reports one) and whether drivelab would write it: as named, with which flags \
         (--overwrite, --destroy DEV, --force), or not at all, and why. Reads only; needs no root \
         beyond what opening the target needs.\n\n",
        guide!("safety.md", "drivelab info — a target's facts and whether drivelab would write it")
    ))]
    Info(InfoArgs),
    /// Re-check a device against what a run with --verify wrote (its results directory), or
    /// after a crash against its --journal. Reads only; exit 1 when any unit is wrong.
    #[command(long_about = concat!(
        "Re-check a device against what a run with --verify wrote: every unit the results directory's \
         saved map says was written (by its last verifying point) is read back and checked, and each \
         wrong unit is named by kind (never_written, foreign, misdirected, stale, ahead, torn, bit_flip) \
         with its offset. With --journal FILE (after a crash or power cut), every unit the journal says \
         was written is judged: a write the drive acknowledged as durable that is not there is lost; \
         writes that were in flight or not yet flushed are reported apart, never as lost. Reads only; \
         exit 0 when every unit is as written (every durable write survived), 1 when any is not.\n\n",
        guide!("verify.md", "Data verification")
    ))]
    Verify(VerifyArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell), made from these
    /// flags: e.g. `drivelab completions bash > /etc/bash_completion.d/drivelab`.
    Completions(CompletionsArgs),
    /// Run fio's own command line: `drivelab fio --name=j --rw=randread --bs=4k --size=1g
    /// [JOB.fio...]`, options and syntax as fio's (`drivelab fio --help` lists fio's own options).
    #[command(
        disable_help_flag = true,
        long_about = concat!(
            "Run fio's own command line: `drivelab fio --name=j --rw=randread --bs=4k --size=1g [JOB.fio...]`, \
             parsed as fio 3.33 parses it and run as the same job file would be; fio's output on stdout (or \
             --output), the results directory as every run's. `drivelab fio --help` lists fio's own options.\n\n",
            guide!("fio.md", "fio's command line: drivelab fio")
        )
    )]
    Fio(FioCmdArgs),
    /// Print drivelab's man page (roff), or a command's, made from these flags: e.g.
    /// `drivelab man | man -l -`, `drivelab man run > drivelab-run.1`.
    Man(ManArgs),
}

/// `drivelab info`.
#[derive(Args, Debug, Clone)]
pub struct InfoArgs {
    /// Files, block devices (/dev/...), or `null`.
    #[arg(required = true, value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Print the facts as JSON (a list, one entry per target) on standard output.
    #[arg(long)]
    pub json: bool,
}

/// `drivelab verify`.
#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// A results directory of a run, plan or suite made with --verify; with --journal, the
    /// targets to read in place of the paths the journal recorded (in its order; e.g. a device
    /// renamed by a reboot).
    #[arg(value_name = "DIR | TARGET")]
    pub paths: Vec<String>,
    /// After a crash or power cut: replay this journal (from `--journal` of a verifying run)
    /// and report every write the drive acknowledged as durable that did not survive, and,
    /// apart, the writes that were not yet durable (in flight, or not yet flushed).
    #[arg(long, value_name = "FILE", value_parser = non_empty())]
    pub journal: Option<String>,
    /// Print the checks as JSON (a list, one entry per target) on standard output.
    #[arg(long)]
    pub json: bool,
}

/// `drivelab fio`: fio's argv, read by `fio_cmd` (never by clap: `main` hands it over first).
#[derive(Args, Debug, Clone)]
pub struct FioCmdArgs {
    /// fio's arguments: job options, fio's own options, job files.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0.., value_name = "FIO-ARGS")]
    pub args: Vec<String>,
}

/// `drivelab completions`.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `drivelab man`.
#[derive(Args, Debug, Clone)]
pub struct ManArgs {
    /// The command whose page to print (run, plan, suite...); none: drivelab's own page.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// `suite --help`: every suite, what it reproduces and what it measures.
fn suites_about() -> String {
    use drivelab_lab::suites::SUITES;
    let mut text = String::from(
        "Run a built-in suite and print its tables in the shape of the benchmark it reproduces. The suites:\n",
    );
    for s in SUITES {
        text += &format!("\n  {:<8} {}, {} per point", s.name, s.reproduces, s.default_time);
    }
    text += "\n\n`drivelab suite` lists what each measures. Without targets a suite runs on \
             ./drivelab-scratch.dat (created at --size). ";
    text += guide!("suites.md", "drivelab suite — well-known benchmarks, built in");
    text
}

/// `report`'s one line: every format of the report crate, by name.
fn report_about() -> String {
    let names = drivelab_report::Format::document_names();
    let (last, rest) = names.split_last().expect("formats");
    format!(
        "Report saved results (a results directory of any command) as {} or {last} (--format), \
         as an HTML page (-o) or as PNG charts (--png)",
        rest.join(", ")
    )
}

/// What `qos` raises.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByArg {
    /// Fixed rates (open loop) below the closed-loop maximum.
    Rate,
    /// Closed-loop queue depths (fio style).
    Qd,
}

impl From<ByArg> for drivelab_lab::results::SearchBy {
    fn from(b: ByArg) -> Self {
        match b {
            ByArg::Rate => drivelab_lab::results::SearchBy::Rate,
            ByArg::Qd => drivelab_lab::results::SearchBy::Qd,
        }
    }
}

/// `--format`: the report crate's document formats, by their names (a new format there is a
/// new value here without a change to the CLI).
fn format_value() -> impl clap::builder::TypedValueParser<Value = drivelab_report::Format> {
    use clap::builder::TypedValueParser;
    let mut names = drivelab_report::Format::document_names();
    names.push("markdown");
    clap::builder::PossibleValuesParser::new(names)
        .map(|name: String| drivelab_report::Format::from_name(&name).expect("a listed format"))
}

fn fio_format_value() -> impl clap::builder::TypedValueParser<Value = drivelab_report::fio_out::FioFormat> {
    use clap::builder::TypedValueParser;
    use drivelab_report::fio_out::FioFormat;
    clap::builder::PossibleValuesParser::new(FioFormat::NAMES.map(|(n, _)| n))
        .map(|name: String| FioFormat::parse_list(&name).expect("a listed format")[0])
}

/// Paths and commands: an empty one names nothing (`--json ''` would fail only after the run).
pub(crate) fn non_empty() -> clap::builder::NonEmptyStringValueParser {
    clap::builder::NonEmptyStringValueParser::new()
}

/// The size of a new file target when neither `--size` nor a plan gives one.
pub const DEFAULT_FILE_SIZE: &str = "1g";

/// The heading of fio's spellings in `--help`.
const FIO: &str = "fio's spellings (the same as drivelab's own flags)";

const FILENAME_HELP: &str =
    "fio's --filename: the targets, separated by ':' (a:b is two targets; \\: is a colon inside a name)";

impl Cli {
    /// The target and safety flags of a command that measures (run, plan, suite, qos, act).
    pub fn safety_mut(&mut self) -> Option<&mut SafetyArgs> {
        match &mut self.command {
            Some(Command::Run(a)) => Some(&mut a.safety),
            Some(Command::Qos(a)) => Some(&mut a.run.safety),
            Some(Command::Plan(a)) => Some(&mut a.safety),
            Some(Command::Suite(a)) => Some(&mut a.safety),
            Some(Command::Act(a)) => Some(&mut a.safety),
            _ => None,
        }
    }

    /// The positional targets and fio's `--filename` of a command that measures.
    fn targets_mut(&mut self) -> Option<(&mut Vec<String>, &mut Option<String>)> {
        match &mut self.command {
            Some(Command::Run(a)) => Some((&mut a.targets, &mut a.filename)),
            Some(Command::Qos(a)) => Some((&mut a.run.targets, &mut a.run.filename)),
            Some(Command::Plan(a)) => Some((&mut a.targets, &mut a.filename)),
            Some(Command::Suite(a)) => Some((&mut a.targets, &mut a.filename)),
            Some(Command::Act(a)) => Some((&mut a.targets, &mut a.filename)),
            _ => None,
        }
    }

    /// Refuse a target that is a stray value, not a name: a word that does not exist, has no `/`
    /// and reads as a size, a duration, a share or a switch's value (`--thread 5KB`, `--direct 1`)
    /// would otherwise become a new file laid out at `--size` (1 GiB by default). `argv` (the
    /// command line as given) names the flag it followed. `./5KB` names such a file.
    pub fn refuse_stray_values(&mut self, argv: &[std::ffi::OsString]) -> Result<(), Error> {
        let Some((targets, _)) = self.targets_mut() else { return Ok(()) };
        for t in targets.iter() {
            let Some(kind) = reads_as_value(t) else { continue };
            if std::fs::symlink_metadata(t).is_ok() {
                continue;
            }
            let shown = drivelab_engine::printable::printable(t).into_owned();
            let before = argv
                .iter()
                .position(|a| a.to_str() == Some(t.as_str()))
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| argv[i].to_str())
                .filter(|f| f.starts_with("--") && !f.contains('='));
            let after = match before {
                Some(flag) => {
                    format!("it follows {}, which takes no value", drivelab_engine::printable::printable(flag))
                }
                None => "a target is a file, a block device or null".into(),
            };
            return Err(Error::refused(CliRefusal::StrayValue { word: shown, kind, after }));
        }
        Ok(())
    }

    /// Move fio's `--filename a:b` into the command's targets; naming targets both ways is
    /// refused (which would count?).
    pub fn take_filenames(&mut self) -> Result<(), Error> {
        let Some((targets, filename)) = self.targets_mut() else { return Ok(()) };
        let Some(text) = filename.take() else { return Ok(()) };
        if !targets.is_empty() {
            return Err(Error::invalid(format!(
                "--filename {text} and the targets {} both name targets: give them one way",
                targets.join(" ")
            )));
        }
        *targets = fields::split_filename(&text).map_err(|e| Error::invalid(format!("--{e}")))?;
        Ok(())
    }
}

/// Command lines refused before anything is looked at (exit 2), typed so a caller can tell them.
#[derive(Debug, thiserror::Error)]
pub enum CliRefusal {
    /// A target that reads as a value (`--thread 5KB`): `after` says what it followed.
    #[error(
        "{word} reads as a value ({kind}), not a target: {after}; as a target it would be created as a new \
         file. Drop it, or write ./{word} to name a file of that name"
    )]
    StrayValue { word: String, kind: &'static str, after: String },
    /// `--resume` with point options other than the run's (its command line, shown).
    #[error(
        "--resume continues the run with the point options it was started with (its command line: {command_line}): \
         give no point options (--no-prep, --precondition, --steady, --repeat, --continue-on-error, \
         --latency-split) to resume, or start a new run to change them"
    )]
    ResumeOptions { command_line: String },
}

/// What kind of value `word` reads as, if it is one and could not be a target's name given on
/// purpose: a size (`5KB`, `4k`, `100`), a duration (`500ms`), a share (`50%`) or a switch's
/// value (`yes`, `off`). A name with a `/` is always a name.
fn reads_as_value(word: &str) -> Option<&'static str> {
    use drivelab_engine::units::{parse_duration, parse_size_in, Dialect, KbBase};
    if word.contains('/') || word == "null" {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    if matches!(lower.as_str(), "true" | "false" | "yes" | "no" | "on" | "off") {
        return Some("a switch's value");
    }
    if !word.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if word.strip_suffix('%').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')) {
        return Some("a share");
    }
    if parse_size_in(word, Dialect::Fio(KbBase::Binary)).is_ok() {
        return Some("a size");
    }
    parse_duration(word).is_ok().then_some("a duration")
}

/// How the points of a plan or suite run: preconditioning, steady state, I/O errors.
#[derive(Args, Debug, Clone, PartialEq)]
pub struct PointsArgs {
    /// Before the first point, write every target sequentially N times in 128 KiB blocks
    /// (SNIA PTS preconditioning; needs permission to write, e.g. --destroy for a device).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Steady state")]
    pub precondition: u32,
    /// Repeat every point in rounds until its IOPS reach steady state (SNIA PTS: the last 5
    /// rounds within 20% of their average, the best-fit line's change within 10%).
    #[arg(long, help_heading = "Steady state")]
    pub steady: bool,
    /// With --steady: give up after this many rounds of a point (and say so).
    #[arg(long, value_name = "N", default_value_t = steady::PTS_MAX_ROUNDS, requires = "steady", help_heading = "Steady state")]
    pub steady_rounds: usize,
    /// With --steady: rounds in the measurement window.
    #[arg(long, value_name = "N", default_value_t = steady::PTS_WINDOW, requires = "steady", help_heading = "Steady state")]
    pub steady_window: usize,
    /// With --steady: a point that never reached steady state is still marked "not steady"
    /// everywhere, but the run exits 0 (without it: exit code 4).
    #[arg(long, requires = "steady", help_heading = "Steady state")]
    pub steady_unreached_ok: bool,
    /// Go on to the next point after a point whose I/O failed (it is saved and marked either
    /// way); without it the first errored point stops the run with exit code 1.
    #[arg(long)]
    pub continue_on_error: bool,
    /// Run every point N times and keep one run (CrystalDiskMark shows the best of 5); every
    /// run's IOPS and MB/s are saved with the point. Not with --steady.
    #[arg(long, value_name = "N", default_value_t = Repeat::default().runs, conflicts_with = "steady")]
    pub repeat: u32,
    /// With --repeat: keep the best run (highest IOPS) or the median one.
    #[arg(long, value_name = "best|median", default_value_t = Repeat::default().pick)]
    pub pick: Pick,
    /// Do not fill a block device the plan writes (--destroy) before its first point; the
    /// results record it. Without it such a device is filled whole first, as a new file is.
    #[arg(long, help_heading = "Steady state")]
    pub no_prep: bool,
    /// Cut every I/O's latency of every point into where it went (drivelab, kernel, device,
    /// completion, reap), as `run --latency-split` does; a plan's key `latency_split` does it
    /// for its own points.
    #[arg(long)]
    pub latency_split: bool,
}

/// `drivelab plan`.
#[derive(Args, Debug, Clone)]
pub struct PlanArgs {
    /// The plan file: TOML (see docs/guide/plans.md "drivelab plan — your own test plan"), or a fio
    /// job file (.fio, .job, .ini; docs/guide/fio.md "fio job files: drivelab run JOB.fio,
    /// drivelab plan JOB.fio").
    #[arg(value_name = "PLAN.toml|JOB.fio", required_unless_present = "resume")]
    pub file: Option<String>,
    /// Targets; replace the plan's own `targets`.
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[arg(long, value_name = "A:B", help = FILENAME_HELP)]
    pub filename: Option<String>,
    /// List every point in order with its estimated duration; run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// fio job files: give ${NAME} these values, one point per combination (NAME=4k,8k,64k or
    /// NAME=1..64x2; first variable outermost). Repeatable.
    #[arg(long = "var", value_name = "NAME=VALUES")]
    pub vars: Vec<String>,
    /// fio job files: run each job at most this long (ramp too; a job bound by size also ends
    /// here), e.g. 200ms. The results say the run was shortened.
    #[arg(long, value_name = "DUR")]
    pub cap_time: Option<String>,
    /// fio job files: each job's region and bytes at most this (e.g. 16m).
    #[arg(long, value_name = "SIZE")]
    pub cap_size: Option<String>,
    /// Continue an interrupted run in this results directory, skipping finished points (a run
    /// started under mpirun: with the same number of ranks and --share).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file", "labels"], value_parser = non_empty())]
    pub resume: Option<String>,
    /// Where new results directories are made.
    #[arg(long, default_value = "results", value_name = "DIR", value_parser = non_empty())]
    pub results: String,
    /// A command that prints the power draw in watts, run every second during each point.
    #[arg(long, value_name = "CMD", value_parser = non_empty())]
    pub power_cmd: Option<String>,
    #[command(flatten)]
    pub safety: SafetyArgs,
    #[command(flatten)]
    pub steady: PointsArgs,
    /// Only the answer on stdout (the closing line and tables); no live line, no point lines.
    /// Warnings and errors still go to stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `drivelab suite`.
#[derive(Args, Debug, Clone)]
pub struct SuiteArgs {
    /// The suite: quick, iometer, jbod, span, mixed, bsqd, hdparm, sync (none: list them; --help
    /// says what each reproduces).
    pub name: Option<String>,
    /// Targets (default: ./drivelab-scratch.dat, created at --size).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[arg(long, value_name = "A:B", help = FILENAME_HELP)]
    pub filename: Option<String>,
    /// Measured time per point, replacing the suite's default.
    #[arg(long, value_name = "DUR")]
    pub time: Option<String>,
    /// Multiply the suite's default time per point (0.1 runs it ten times shorter). Not with
    /// --time, which replaces that time outright.
    #[arg(long, value_name = "F", conflicts_with = "time")]
    pub scale: Option<f64>,
    /// A command that prints the power draw in watts, run every second during each point
    /// (average W and MB/s per watt are tabulated).
    #[arg(long, value_name = "CMD", value_parser = non_empty())]
    pub power_cmd: Option<String>,
    /// iometer: outstanding I/Os per disk (DQL), one point per depth: N is 1..N (Iometer's
    /// default 3: 1, 2, 3), or a list and ranges as a plan's axis takes them: 1,2,4..32x2 is 1,
    /// 2, 4, 8, 16, 32.
    #[arg(long, default_value = "3", value_name = "DQL")]
    pub dql: String,
    /// Run every point on all the targets at once (the jbod suite's only way; iometer's drives
    /// sharing one host, each at its DQL).
    #[arg(long, conflicts_with = "each")]
    pub together: bool,
    /// Measure the targets one after another, each alone (every suite's default but jbod's: a
    /// comparison of drives never lets one drive's load touch another's figures).
    #[arg(long)]
    pub each: bool,
    /// Verify the data of every point that can be verified (all but those writing zeros): stamp
    /// every write, check every read as it completes; a wrong unit stops the point (exit 1).
    #[arg(long, help_heading = "Verification")]
    pub verify: bool,
    /// With --verify: re-read and check every written unit at the end of each point (implies
    /// --verify).
    #[arg(long, help_heading = "Verification")]
    pub verify_after: bool,
    /// List every point with its estimated duration; run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Where the results directory is made.
    #[arg(long, default_value = "results", value_name = "DIR", value_parser = non_empty())]
    pub results: String,
    #[command(flatten)]
    pub safety: SafetyArgs,
    #[command(flatten)]
    pub steady: PointsArgs,
    /// Only the answer on stdout (the closing line and tables); no live line, no point lines.
    /// Warnings and errors still go to stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `drivelab compare`.
#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Two or more results directories of the same kind (run, plan, suite, qos or act), or fio's
    /// JSON output beside a run or plan; the first is the baseline.
    #[arg(required = true, num_args = 2.., value_name = "DIR|FIO.json")]
    pub dirs: Vec<String>,
    /// text (terminal), md (Markdown), csv, json or html.
    #[arg(long, default_value = "text", value_parser = format_value())]
    pub format: drivelab_report::Format,
    /// Write the comparison as an HTML page with overlaid charts here; must not exist.
    #[arg(short, long, value_name = "FILE.html", value_parser = non_empty())]
    pub output: Option<String>,
    /// Name a run in rows and columns: one --label per directory, in the same order (default
    /// A, B, C...). Each run's targets and their models are listed either way.
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,
}

/// `drivelab act`.
#[derive(Args, Debug, Clone)]
pub struct ActArgs {
    /// Block devices (or files) to certify; each gets the full per-drive load.
    #[arg(required_unless_present = "filename", value_name = "TARGET")]
    pub targets: Vec<String>,
    #[arg(long, value_name = "A:B", help = FILENAME_HELP)]
    pub filename: Option<String>,
    /// The load: N x (2000 reads/s + 1000 writes/s) per target (ACT's "Nx"). Default 1.
    #[arg(long, value_name = "N", conflicts_with = "search")]
    pub scale: Option<f64>,
    /// Find the highest whole N that passes: start high, step down, refine, then confirm at --time.
    #[arg(long)]
    pub search: bool,
    /// Cut every I/O's latency into where it went (drivelab, kernel, device, completion, reap),
    /// as `run --latency-split` does: which stage made a slice fail.
    #[arg(long)]
    pub latency_split: bool,
    /// Where --search starts (default: estimated from a short read-throughput probe).
    #[arg(long, value_name = "N", requires = "search")]
    pub search_start: Option<u32>,
    /// Duration of the load (of the confirming run with --search). ACT certifies over 24h.
    #[arg(long, default_value = "24h", value_name = "DUR")]
    pub time: String,
    /// Duration of each --search probe before the confirming run.
    #[arg(long, default_value = "10m", value_name = "DUR")]
    pub probe_time: String,
    /// Analysis slice: every slice must pass on its own (act_latency.py's -t).
    #[arg(long, default_value = "1h", value_name = "DUR")]
    pub slice: String,
    /// Record size: small reads read this much, rounded up to 16 bytes and to the drive's minimum I/O size.
    #[arg(long, default_value = "1536", value_name = "SIZE")]
    pub record_bytes: String,
    /// Large-block read and write size (a power of two).
    #[arg(long, default_value = "128k", value_name = "SIZE")]
    pub large_block: String,
    /// Replica writes multiply the write load.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub replication_factor: u32,
    /// Percent of writes that are updates (each also reads the record).
    #[arg(long, default_value_t = 0, value_name = "PCT")]
    pub update_pct: u32,
    /// Defragmentation low-water mark: large-block writes x 100/(100 - PCT).
    #[arg(long, default_value_t = 50, value_name = "PCT")]
    pub defrag_lwm_pct: u32,
    /// Write each record to the device as it arrives (plus defrag large-block writes).
    #[arg(long)]
    pub commit_to_device: bool,
    /// Open without O_DSYNC (ACT's disable-odsync).
    #[arg(long)]
    pub no_dsync: bool,
    /// Fail the load when a stream falls this far behind its schedule (ACT's max-lag-sec).
    #[arg(long, default_value = "10s", value_name = "DUR")]
    pub max_lag: String,
    /// How each stream waits for its next intended time: auto, hybrid, sleep or spin (see
    /// `run --pace`; auto is hybrid while its spinning leaves a whole CPU free).
    #[arg(long, default_value = "auto", value_name = "MODE")]
    pub pace: String,
    /// ACT's service threads over all targets, each doing one small read at a time on its own
    /// schedule (default: ACT's, 5 per online CPU).
    #[arg(long, alias = "read-qd", value_name = "N")]
    pub service_threads: Option<u32>,
    /// Large-block reader threads, and writer threads, per target (ACT: 1).
    #[arg(long, alias = "large-block-qd", default_value_t = 1, value_name = "N")]
    pub large_block_threads: u32,
    /// How the service threads are run: psync (a thread each, pread/pwrite, as ACT: the
    /// default, since ACT's time of a read includes its thread's wake-up; docs/ACT.md) or uring
    /// (each thread a slot of one io_uring queue per stream, on its own schedule).
    #[arg(long, default_value = "psync", value_name = "ENGINE")]
    pub engine: String,
    /// Skip filling the targets with random data first (ACT's act_prep).
    #[arg(long)]
    pub no_prep: bool,
    /// Pass limit: the percent of reads over 1 ms a slice may have (ACT: 5).
    #[arg(long, default_value_t = 5.0, value_name = "PCT")]
    pub max_over_1ms: f64,
    /// Pass limit: the percent of reads over 8 ms a slice may have (ACT: 1).
    #[arg(long, default_value_t = 1.0, value_name = "PCT")]
    pub max_over_8ms: f64,
    /// Pass limit: the percent of reads over 64 ms a slice may have (ACT: 0.1).
    #[arg(long, default_value_t = 0.1, value_name = "PCT")]
    pub max_over_64ms: f64,
    /// A command that prints the power draw in watts, run every second during each load: the
    /// report gives average W and score per watt.
    #[arg(long, value_name = "CMD", value_parser = non_empty())]
    pub power_cmd: Option<String>,
    /// Also write the final load's log in ACT's own output format (ACT's analysis/act_latency.py
    /// reads it).
    #[arg(long, value_name = "FILE", value_parser = non_empty())]
    pub act_log: Option<String>,
    /// Where the results directory is made.
    #[arg(long, default_value = "results", value_name = "DIR", value_parser = non_empty())]
    pub results: String,
    #[command(flatten)]
    pub safety: SafetyArgs,
    /// Only the answer on stdout (the score); no live line, no slice tables. Warnings and errors
    /// still go to stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `drivelab qos`.
#[derive(Args, Debug, Clone)]
pub struct QosArgs {
    /// Latency objective, all clauses must hold: e.g. 'p99<1ms,p99.9<5ms' (also mean<, max<).
    #[arg(long, value_name = "CRITERIA", help_heading = "Objective")]
    pub objective: String,
    /// What to raise: rate (fixed-rate load, latency from intended issue times; --qd caps the
    /// I/Os in flight) or qd (closed loop, fio-style: the highest queue depth that meets it).
    #[arg(long, value_enum, default_value_t = ByArg::Rate, help_heading = "Objective")]
    pub by: ByArg,
    /// With --by qd: the highest queue depth tried (the search starts there).
    #[arg(long, default_value_t = 256, value_name = "N", help_heading = "Objective",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_qd: u32,
    /// Stop refining when the passing and failing loads are this close (percent of the passing one).
    #[arg(long, default_value_t = 5.0, value_name = "PCT", help_heading = "Objective")]
    pub tolerance: f64,
    /// Judge a probe whose job threads waited for a CPU 20% of it or more (the machine was busy)
    /// as any other. By default such a probe is not judged and counts as a miss: its latencies
    /// hold that wait.
    #[arg(long, help_heading = "Objective")]
    pub judge_busy: bool,
    /// The workload, as for `drivelab run` (--time is each probe's duration).
    #[command(flatten)]
    pub run: RunArgs,
}

/// `drivelab report`.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Results directories (made by any command: run, plan, suite, qos, act), or fio's JSON
    /// output (--output-format=json or json+; see docs/guide/fio.md "fio's results").
    #[arg(required = true, value_name = "DIR|FIO.json")]
    pub dirs: Vec<String>,
    /// text (terminal), md (Markdown), csv (one row per point, probe or slice; --tables: the
    /// tables), json (the report as data) or html.
    #[arg(long, default_value = "text", value_parser = format_value())]
    pub format: drivelab_report::Format,
    /// Write the HTML report (charts and tables, one self-contained file) here, or with --format
    /// md, csv or json that document; must not exist.
    #[arg(short, long, value_name = "FILE.html", value_parser = non_empty())]
    pub output: Option<String>,
    /// Also write every chart of the report as a PNG (2x scale, for articles) into this directory.
    #[arg(long, value_name = "DIR", value_parser = non_empty())]
    pub png: Option<String>,
    /// With --format csv: every second of every point, probe or stream instead of the tables
    /// (time_s, iops, mb_per_s, lat_p99_ns...: units in the column names).
    #[arg(long, conflicts_with_all = ["output", "png"])]
    pub series: bool,
    /// With --format csv: the tables as people read them, a block per table headed by its metric,
    /// unit and axes (`table,metric,unit,bs,qd=1,qd=2...`), instead of one row per point.
    #[arg(long, conflicts_with_all = ["output", "png", "series"])]
    pub tables: bool,
    /// Write fio's output instead of drivelab's report, as `fio --output-format` would for the
    /// same run: normal, json, json+ (with latency bins) or terse. One DIR (a run, plan, job
    /// file run, suite, qos or act).
    #[arg(long, value_name = "FORMAT", value_parser = fio_format_value(), conflicts_with_all = ["output", "png", "series", "tables"])]
    pub fio_format: Option<drivelab_report::fio_out::FioFormat>,
}

#[cfg(test)]
mod defaults_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::spec::{AccessSpec, DataPattern, SyncMode};

    fn args(extra: &[&str]) -> Result<AccessSpec, Error> {
        let mut v = vec!["drivelab", "run", "null"];
        v.extend_from_slice(extra);
        match Cli::try_parse_from(v).unwrap().command.unwrap() {
            Command::Run(r) => r.spec(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn iometer_flags_override_the_fio_mix() {
        let s = args(&["--rw", "randrw", "--read", "70"]).unwrap();
        assert_eq!((s.read_pct, s.random_pct), (70, 100));
        let s = args(&["--read", "100", "--random", "5", "--bs", "64k"]).unwrap();
        assert_eq!((s.read_pct, s.random_pct, s.bs[0].bytes), (100, 5, 65536));
    }

    #[test]
    fn sync_and_data_modes_parse() {
        assert_eq!(args(&["--sync", "fsync:4"]).unwrap().sync, SyncMode::Fsync { every: 4 });
        assert_eq!(args(&["--sync", "dsync"]).unwrap().sync, SyncMode::Dsync);
        assert_eq!(args(&["--data", "compress:50"]).unwrap().data, DataPattern::Compress { pct: 50 });
        assert!(args(&["--data", "compress:150"]).unwrap_err().to_string().contains("outside 0..100"));
        assert!(args(&["--sync", "always"]).unwrap_err().to_string().contains("none, dsync, fsync:N or fdatasync:N"));
        assert_eq!(args(&["--sync", "fdatasync:2"]).unwrap().sync, SyncMode::Fdatasync { every: 2 });
    }

    #[test]
    fn io_size_alone_ends_the_run_without_a_default_time() {
        let s = args(&["--io-size", "1g"]).unwrap();
        assert_eq!((s.time_ns, s.io_size_bytes), (None, Some(1 << 30)));
        assert_eq!(args(&[]).unwrap().time_ns, Some(10_000_000_000));
        assert!(!args(&["--buffered"]).unwrap().direct);
    }
}
