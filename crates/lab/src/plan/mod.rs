//! Test plans: `drivelab plan FILE.toml` reads a TOML file and expands it into the points to run.
//!
//! This module only reads and expands; running the points is the runner's job. Access-spec
//! values go through [`fields::from_pairs`], the parser behind `drivelab run`'s flags, so a plan
//! accepts exactly the spellings of the command line (`bs = "4k:70,64k:30"` is `--bs
//! 4k:70,64k:30`) and refuses what it refuses.
//!
//! # Format
//!
//! ```toml
//! name = "nvme qd sweep"      # optional, default: the file name without .toml
//! targets = ["/dev/nvme0n1"]  # optional if targets are given on the command line (those win);
//!                             # or fio's filename = "/dev/nvme0n1:/dev/nvme1n1"
//! size = "8g"                 # optional: the size of file targets that do not exist yet (fio's
//!                             # size; the command line's --size wins)
//! together = false            # false: targets one after another; true: every point on all at once
//! repeat = 1                  # run each point this many times (labels get "#2", "#3" ...)
//! pause = "5s"                # idle time between two runs (precondition runs included)
//!
//! [defaults]                  # access-spec fields for every point (not for the precondition)
//! bs = "4k"                   # values: strings, whole numbers or true/false
//! time = "30s"
//!
//! [precondition]              # optional: run once per target before the points, taken as written
//! rw = "write"
//! bs = "128k"
//! io_size = "2g"
//!
//! [matrix]                    # axes of a cartesian product, first axis outermost
//! qd = "1..64 x2"             # geometric range, inclusive: 1 2 4 8 16 32 64
//! read = "0..100 +50"         # arithmetic range, inclusive when hit: 0 50 100
//! bs = ["4k", "64k"]          # a list of values (strings, whole numbers or true/false)
//!
//! [[step]]                    # optional named steps, run in file order
//! name = "random read"
//! rw = "randread"             # step fields override [defaults]
//! [step.matrix]               # a step's own axes replace the top-level [matrix] for that step
//! qd = [1, 32]
//!
//! [[step]]
//! name = "mixed"              # default name: "step N"
//! rw = "randrw"               # no [step.matrix]: the top-level [matrix] applies
//! ```
//!
//! Field keys may also be fio's spellings ([`fields::Fio`]: `iodepth`, `numjobs`, `blocksize`,
//! `runtime` (a bare number is seconds), `ioengine`, `readwrite`, `rwmixread`, `rwmixwrite`);
//! one table may not set a field twice under two names.
//!
//! Without any `[[step]]` there is one implicit, unnamed step made of `[defaults]` and
//! `[matrix]`. The keys of a point's spec are applied in this order: `[defaults]` (in the order
//! written), the step's fields, the matrix values in axis order; a later key replaces an earlier
//! one ([`Point::fields`] records the result).
//!
//! Ranges are `A..B xF` (geometric, F a whole number >= 2, A >= 1) or `A..B +S` (arithmetic,
//! S > 0), at most [`MAX_AXIS_VALUES`] values, in the unit of their field: sizes for `bs`,
//! `align`, `offset`, `span`, `io_size` (`"512..1m x2"` is 512, 1k, 2k ... 1m), durations for
//! `time`, `ramp` (`"10s..30s +10s"`), whole numbers for `qd`, `jobs`, `read`, `random`,
//! `batch`, `seed`. The other fields (`rw`, `sync`, `data`, `engine`, `cpus`, `direct`, ...)
//! take lists only.
//!
//! # Expansion
//!
//! Points are numbered from 1 in run order. When `together = false` each target gets every
//! point of every step in turn (steps in file order, matrix product, repeats innermost), and with
//! more than one target the labels end in `on NAME` (the target's file name, or its full path
//! when file names clash). When `together = true` there is one sequence of points, each run on
//! all targets at once. A label is the step name, then `key=value` for each axis, then the
//! target and the repeat: `random read qd=32 on nvme0n1 #2`; a point with neither step name nor
//! axes is labelled by its spec (`randread 4k qd1 x1`). Labels are unique; slugs are the labels
//! made file-name safe (`random-read-qd32-on-nvme0n1-2`).
//!
//! # Errors
//!
//! Every refusal of the plan's text is a [`PlanError`] (exit code 2) and reads `FILE:LINE:COLUMN:
//! what is wrong; what was expected`, pointing at the offending key or value, or, for a refusal that comes from a
//! combination of fields, at the `[[step]]` header or the `[defaults]` table.

mod errors;
pub(crate) mod expand;
mod matrix;
mod tables;
#[cfg(test)]
mod tests;

use std::path::Path;

use drivelab_engine::options as fields;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::units::parse_duration;
use drivelab_engine::Error;
use toml_edit::{Document, Item};

pub use errors::PlanError;
use errors::{a_type, key_span, syntax_message, Src};
use expand::{estimate, first_duplicate, pairs};
pub use matrix::count_list;
use matrix::matrix;
use tables::{non_empty_string, scalar, spec_fields, steps, string_list, Step};
#[cfg(test)]
use {
    expand::unique_slug,
    matrix::{expand_range, Unit},
};

/// At most this many values in one range.
pub const MAX_AXIS_VALUES: usize = 10_000;
/// At most this many points in one plan (targets and repeats included).
pub const MAX_POINTS: usize = 100_000;

const PLAN_KEYS: &[&str] = &[
    "name",
    "targets",
    "filename",
    "size",
    "together",
    "repeat",
    "pause",
    "defaults",
    "precondition",
    "matrix",
    "step",
];
const RANGE_EXPECTED: &str = r#"expected a range like "1..64 x2" or "0..100 +10", or a list"#;

/// A plan, expanded. Saved whole in a results directory's `run.json`, so `--resume` runs exactly
/// the points it would have run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    pub name: String,
    /// The command line's targets if it gave any, else the file's.
    pub targets: Vec<String>,
    /// Every point runs on all targets at once (JBOD).
    pub together: bool,
    pub repeat: u32,
    /// Idle time between two runs.
    pub pause_ns: u64,
    /// Runs once per target before the points (index 0, label and step `precondition`).
    pub precondition: Option<Point>,
    /// In run order; repeats are separate points.
    pub points: Vec<Point>,
    /// What the plan's source said about how it runs (a fio job file's options that run a
    /// little differently, or had no effect), told when it runs; see [`Plan::notices`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_notices: Vec<String>,
    /// A fio job of the plan said `thread`: its jobs are threads of the process that started
    /// them, in its session, not a session of their own (drivelab's `--thread`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thread: bool,
}

/// One run of one access spec: the one point type, planned, saved in `run.json` and with every
/// point result.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// 1-based, in run order.
    pub index: usize,
    /// E.g. `random read qd=4 read=70`; unique within the plan.
    pub label: String,
    /// The label for file names: `[a-z0-9.-]` only, e.g. `random-read-qd4-read70`; unique.
    pub slug: String,
    /// The step's name; empty for the implicit step of a plan without `[[step]]`.
    pub step: String,
    /// The targets this point runs on: one, or all when the plan runs them together.
    pub targets: Vec<String>,
    /// For display only, never read to decide: a plan's fields as given (defaults, then step,
    /// then matrix; a later key replaces an earlier one), `run`'s flags, or a fio job's
    /// `options::describe(&spec)`. Set together with the spec by [`Point::set`].
    pub fields: Vec<(String, String)>,
    /// The point's workload: the one source of what it runs and of how `compare` pairs it.
    #[serde(default)]
    pub spec: AccessSpec,
    /// Ramp plus time; None when only `io_size` bounds the run.
    pub estimate_ns: Option<u64>,
    /// Jobs that run at the same time as this point's own spec, started together with it (the
    /// jobs of one group of a fio job file); the point's result is all of them merged
    /// (`drivelab_engine::merge`). Empty for every other point.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concurrent: Vec<ConcurrentJob>,
    /// A point read from a fio job file: the fio options as given, so fio's output formats can
    /// write its "global options" and each job's "job options" (`drivelab report --fio-format`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fio: Option<FioOptions>,
    /// The names its targets are shown by (`--label TARGET=TEXT`, [`crate::names`]); a target
    /// not listed is shown by its path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<crate::names::DriveName>,
}

/// The fio options of a point from a job file, as given (see [`Point::fio`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FioOptions {
    /// The `[global]` options before the point's first job, in file order (`""` for a flag).
    pub global: Vec<(String, String)>,
    /// Each job's own options, in stream order (the point's spec, then its concurrent jobs).
    pub jobs: Vec<Vec<(String, String)>>,
    /// fio's verify state files the point's verifying writers leave when they end.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verify_states: Vec<StateFiles>,
    /// The streams whose files are deleted when the point ends (fio's `unlink=1`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlink: Vec<usize>,
}

/// The verify state files of one job of a point (`fiojob::vstate`): one per clone, named
/// `local-NAME-INDEX-verify.state` in `dir` (fio's `--aux-path`) or the current directory.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateFiles {
    /// The job's stream in the point.
    pub stream: usize,
    pub name: String,
    pub dir: Option<String>,
    /// The number of the job's first clone in the job file, from 0 (fio's thread index).
    pub first_index: u64,
    /// Each clone has its own files (a clone is its target set's index), else the clones
    /// share them (a clone is the job's number among its target's jobs).
    pub per_target: bool,
    /// Targets per job (a file set's).
    pub per_job_targets: usize,
}

impl FioOptions {
    /// fio's `group_reporting` is set for the point (in `[global]` or any of its jobs).
    pub fn group_reporting(&self) -> bool {
        self.global.iter().chain(self.jobs.iter().flatten()).any(|(k, _)| k == "group_reporting")
    }
}

/// A job run beside a point's own spec (see [`Point::concurrent`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConcurrentJob {
    /// The job's name (a fio job section's).
    pub name: String,
    pub targets: Vec<String>,
    /// For display only: `options::describe(&spec)`.
    pub fields: Vec<(String, String)>,
    pub spec: AccessSpec,
}

/// `field` set to `value` in `spec` through the option table's one setter, and in `fields` (the
/// record of what was given) in the same step, replacing an earlier value: the two never drift.
fn set_both(
    spec: &mut AccessSpec,
    fields: &mut Vec<(String, String)>,
    field: fields::Field,
    value: &str,
) -> Result<(), Error> {
    fields::set(spec, field, value)?;
    let same = |k: &str| fields::Field::from_key(k).map(fields::Field::canonical) == Some(field.canonical());
    fields.retain(|(k, _)| !same(k));
    fields.push((field.name().to_string(), value.to_string()));
    Ok(())
}

impl ConcurrentJob {
    /// `field` set in the job's spec and recorded in its fields at once.
    pub fn set(&mut self, field: fields::Field, value: &str) -> Result<(), Error> {
        set_both(&mut self.spec, &mut self.fields, field, value)
    }
}

impl Point {
    /// `field` set in the point's spec and recorded in its fields at once (a command's flag
    /// added to every point of a plan, as `--latency-split` and `--verify` are).
    pub fn set(&mut self, field: fields::Field, value: &str) -> Result<(), Error> {
        set_both(&mut self.spec, &mut self.fields, field, value)
    }

    /// Every stream the point runs at once: its own spec on its targets, then its concurrent
    /// jobs'.
    pub fn streams(&self) -> Vec<(AccessSpec, Vec<String>)> {
        std::iter::once((self.spec.clone(), self.targets.clone()))
            .chain(self.concurrent.iter().map(|j| (j.spec.clone(), j.targets.clone())))
            .collect()
    }

    /// How `target` is shown: its name ([`Point::names`]), else its path.
    pub fn shown<'a>(&'a self, target: &'a str) -> &'a str {
        crate::names::shown(&self.names, target)
    }
}

impl Plan {
    /// Give the plan's targets their `names`: each point records the names of its targets, and
    /// a point of one target among several is labelled `... on NAME` (slugs follow). Refused
    /// when a name is the file name another target's points are labelled by.
    pub fn name_targets(&mut self, names: &crate::names::DriveNames) -> Result<(), crate::names::NameError> {
        if names.is_empty() {
            return Ok(());
        }
        let old = expand::target_names(&self.targets);
        let new: Vec<String> = self
            .targets
            .iter()
            .zip(&old)
            .map(|(t, o)| names.get(t).map_or_else(|| o.clone(), str::to_string))
            .collect();
        for (i, n) in new.iter().enumerate() {
            if let Some(j) = new.iter().position(|m| m == n).filter(|&j| j != i) {
                let (a, b) = (i.min(j), i.max(j));
                let named = if names.get(&self.targets[a]).is_some() { a } else { b };
                return Err(crate::names::NameError::AnotherTarget {
                    target: self.targets[named].clone(),
                    name: n.clone(),
                });
            }
        }
        let relabel = !self.together && self.targets.len() > 1;
        let mut slugs = std::collections::HashSet::new();
        for p in self.precondition.iter_mut().chain(self.points.iter_mut()) {
            p.names = names.of(&p.targets);
            if relabel && p.index > 0 {
                // A point of one of the plan's targets (a fio job's own file is labelled by its
                // job, and keeps its label).
                if let Some(i) = p
                    .targets
                    .first()
                    .filter(|_| p.targets.len() == 1)
                    .and_then(|t| self.targets.iter().position(|x| x == t))
                {
                    let (from, to) = (format!(" on {}", old[i]), format!(" on {}", new[i]));
                    if let Some(at) = p.label.rfind(&from) {
                        p.label.replace_range(at..at + from.len(), &to);
                    }
                }
                p.slug = expand::unique_slug(&p.label, &mut slugs);
            }
        }
        Ok(())
    }

    /// `drivelab run`'s plan: one point, `spec` on `targets` (all at once), its label the spec's.
    pub fn single(spec: AccessSpec, targets: Vec<String>) -> Plan {
        let point = Point {
            index: 1,
            label: spec.label(),
            slug: crate::store::slug(&spec.label()),
            step: String::new(),
            targets: targets.clone(),
            fields: Vec::new(),
            estimate_ns: spec.time_ns.map(|t| t + spec.ramp_ns),
            spec,
            concurrent: Vec::new(),
            fio: None,
            names: Vec::new(),
        };
        Plan {
            name: "run".into(),
            targets,
            together: true,
            repeat: 1,
            pause_ns: 0,
            precondition: None,
            points: vec![point],
            source_notices: Vec::new(),
            thread: false,
        }
    }

    /// How long the plan takes: every point, the precondition once per target (once when the
    /// targets run together) and the pauses between runs. None when a run (the precondition
    /// included) is bounded only by `io_size`.
    pub fn estimate_ns(&self) -> Option<u64> {
        let mut total = 0u64;
        for p in &self.points {
            total = total.saturating_add(p.estimate_ns?);
        }
        let mut runs = self.points.len() as u64;
        if let Some(pre) = &self.precondition {
            let times = if self.together { 1 } else { self.targets.len() as u64 };
            total = total.saturating_add(pre.estimate_ns?.saturating_mul(times));
            runs += times;
        }
        Some(total.saturating_add(self.pause_ns.saturating_mul(runs.saturating_sub(1))))
    }
}

/// Which targets a plan runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets<'a> {
    /// The command line's, when not empty, else the file's; none at all is an error.
    Given(&'a [String]),
    /// For listing a plan (`--dry-run`) before its targets are known: the file's, or a
    /// placeholder `TARGET` when it names none.
    ForListing(&'a [String]),
}

/// A plan file read whole: its plan, and its settings for the command that runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanFile {
    pub plan: Plan,
    /// `size`: the size of file targets that do not exist yet (fio's `size`); the command
    /// line's `--size` wins.
    pub new_file_bytes: Option<u64>,
    /// Of the plan's notices, those that mean its figures differ from what fio would measure
    /// (`drivelab fio` says these on stderr even under fio's contract).
    pub differs_from_fio: Vec<String>,
    /// A fio job file's (or command line's) jobs as fio's normal output announces them before
    /// it runs; empty for drivelab's own plans.
    pub fio_jobs: Vec<crate::fiojob::JobLine>,
}

/// Read, parse and expand the plan at `path`. `cli_targets`, when not empty, replace the file's.
pub fn load(path: &Path, cli_targets: &[String]) -> Result<Plan, Error> {
    load_with(path, Targets::Given(cli_targets))
}

/// [`load`], choosing what happens when no target is named.
pub fn load_with(path: &Path, targets: Targets) -> Result<Plan, Error> {
    load_file(path, targets).map(|f| f.plan)
}

/// [`load_with`], with the file's settings for the command that runs it.
pub fn load_file(path: &Path, targets: Targets) -> Result<PlanFile, Error> {
    let file = path.display().to_string();
    if path.is_dir() {
        return Err(PlanError::IsADirectory { file }.into());
    }
    let bytes = drivelab_engine::input::Input::PLAN.read(path)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        let src = Src { text: valid, file: &file };
        src.err(Some(valid.len()..valid.len()), "this byte is not UTF-8; expected a TOML file in UTF-8")
    })?;
    parse_with(&text, &file, targets)
}

/// Parse and expand plan `text`; `file_name` is used in messages and for the default name.
pub fn parse(text: &str, file_name: &str, cli_targets: &[String]) -> Result<Plan, Error> {
    parse_file(text, file_name, cli_targets).map(|f| f.plan)
}

/// [`parse`], with the file's settings for the command that runs it.
pub fn parse_file(text: &str, file_name: &str, cli_targets: &[String]) -> Result<PlanFile, Error> {
    parse_with(text, file_name, Targets::Given(cli_targets))
}

fn parse_with(text: &str, file_name: &str, given: Targets) -> Result<PlanFile, Error> {
    let (cli_targets, listing) = match given {
        Targets::Given(t) => (t, false),
        Targets::ForListing(t) => (t, true),
    };
    let src = Src { text, file: file_name };
    let doc = Document::parse(text).map_err(|e| src.err(e.span(), syntax_message(e.message())))?;
    let root = doc.as_table();

    for (k, _) in root.iter() {
        if !PLAN_KEYS.contains(&k) {
            let hint = if fields::is_key(k) { "; access-spec fields go under [defaults] or a [[step]]" } else { "" };
            return Err(src.err(
                key_span(root, k),
                format!("'{k}' is not a plan key; expected one of {}{hint}", PLAN_KEYS.join(", ")),
            ));
        }
    }

    let name = match root.get("name") {
        Some(item) => non_empty_string(&src, "name", item, "\"nvme qd sweep\"")?,
        None => Path::new(file_name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let name = if name.is_empty() { "plan".to_string() } else { name };

    let file_targets = match (root.get("targets"), root.get("filename")) {
        (Some(_), Some(_)) => {
            return Err(src.err(
                key_span(root, "filename"),
                "filename (fio's spelling) and targets both name the targets; expected only one of them",
            ))
        }
        (Some(item), None) => string_list(&src, "targets", item)?,
        (None, Some(item)) => {
            let text = item.as_str().ok_or_else(|| {
                src.err(
                    item.span(),
                    format!("filename is {}; expected a string such as \"/dev/sdb:/dev/sdc\"", a_type(item)),
                )
            })?;
            let list = fields::split_filename(text).map_err(|e| src.err(item.span(), e))?;
            if let Some(t) = first_duplicate(&list) {
                return Err(src.err(item.span(), format!("{t} is listed twice in filename; expected each target once")));
            }
            list
        }
        (None, None) => Vec::new(),
    };

    let new_file_bytes = match root.get("size") {
        Some(item) => {
            let text = match item.as_value() {
                Some(v) => scalar(&src, "size", v)?,
                None => {
                    return Err(
                        src.err(item.span(), format!("size is {}; expected a size such as \"8g\"", a_type(item)))
                    )
                }
            };
            Some(fields::parse_new_file_size(&text).map_err(|e| src.err(item.span(), e))?)
        }
        None => None,
    };

    let together = match root.get("together") {
        Some(item) => item
            .as_bool()
            .ok_or_else(|| src.err(item.span(), format!("together is {}; expected true or false", a_type(item))))?,
        None => false,
    };

    let repeat_span = root.get("repeat").and_then(Item::span);
    let repeat = match root.get("repeat") {
        Some(item) => {
            let expected = "expected a whole number of 1 or more";
            match item.as_integer() {
                Some(n) if n < 0 => {
                    return Err(
                        src.err(item.span(), format!("repeat = {n}: negative numbers are not allowed; {expected}"))
                    )
                }
                Some(0) => return Err(src.err(item.span(), format!("repeat = 0 would run nothing; {expected}"))),
                Some(n) => u32::try_from(n).map_err(|_| {
                    src.err(item.span(), format!("repeat = {n} is too large; {expected}, at most {}", u32::MAX))
                })?,
                None => return Err(src.err(item.span(), format!("repeat is {}; {expected}", a_type(item)))),
            }
        }
        None => 1,
    };

    let pause_ns = match root.get("pause") {
        Some(item) => {
            let text = item.as_str().ok_or_else(|| {
                src.err(item.span(), format!("pause is {}; expected a duration such as \"5s\"", a_type(item)))
            })?;
            parse_duration(text).map_err(|e| src.err(item.span(), format!("pause {e}")))?.as_nanos() as u64
        }
        None => 0,
    };

    let defaults_item = root.get("defaults");
    let defaults = match defaults_item {
        Some(item) => {
            let fields = spec_fields(&src, "defaults", item)?;
            if let Err(e) = fields::partial_from_pairs(pairs(&fields)) {
                return Err(src.err(item.span(), format!("[defaults]: {e}")));
            }
            fields
        }
        None => Vec::new(),
    };

    let precondition = match root.get("precondition") {
        Some(item) => {
            let fields = spec_fields(&src, "precondition", item)?;
            let spec =
                fields::from_pairs(pairs(&fields)).map_err(|e| src.err(item.span(), format!("[precondition]: {e}")))?;
            Some(Point {
                index: 0,
                label: "precondition".into(),
                slug: "precondition".into(),
                step: "precondition".into(),
                targets: Vec::new(), // filled in below, once the targets are known
                estimate_ns: estimate(&spec),
                fields,
                spec,
                concurrent: Vec::new(),
                fio: None,
                names: Vec::new(),
            })
        }
        None => None,
    };

    let top_matrix = root.get("matrix").map(|item| matrix(&src, item)).transpose()?;

    let mut steps = match root.get("step") {
        Some(item) => steps(&src, item)?,
        None => Vec::new(),
    };
    if steps.is_empty() {
        let anchor = defaults_item.and_then(Item::span).or_else(|| top_matrix.as_ref().and_then(|m| m.span.clone()));
        steps.push(Step { name: String::new(), anchor, fields: Vec::new(), matrix: None });
    }

    let mut targets = if cli_targets.is_empty() { file_targets } else { cli_targets.to_vec() };
    if targets.is_empty() && listing {
        targets.push("TARGET".to_string());
    }
    if targets.is_empty() {
        let span = root.get("targets").and_then(Item::span);
        return Err(src.err(
            span,
            concat!(
                "the plan names no targets: add targets = [...] or give them on the command line; ",
                "expected at least one target"
            ),
        ));
    }
    if !cli_targets.is_empty() {
        if let Some(t) = first_duplicate(cli_targets) {
            return Err(PlanError::TargetTwice { target: t.to_string() }.into());
        }
    }

    let protos = expand::protos(&src, &steps, top_matrix.as_ref(), &defaults)?;

    let groups = expand::groups(&targets, together);
    let total = protos
        .len()
        .checked_mul(repeat as usize)
        .and_then(|n| n.checked_mul(groups.len()))
        .filter(|&n| n <= MAX_POINTS);
    if total.is_none() {
        let span = repeat_span.filter(|_| repeat > 1).or_else(|| top_matrix.as_ref().and_then(|m| m.span.clone()));
        return Err(src.err(
            span,
            format!(
                "the plan expands to more than {MAX_POINTS} points ({} per target, {repeat} repeats, {} targets); \
                 expected fewer points, repeats or targets",
                protos.len(),
                targets.len()
            ),
        ));
    }

    let points = expand::points(&src, &protos, &groups, repeat, total.unwrap_or(0))?;

    let precondition = precondition.map(|p| Point { targets: targets.clone(), ..p });
    let plan = Plan {
        name,
        targets,
        together,
        repeat,
        pause_ns,
        precondition,
        points,
        source_notices: Vec::new(),
        thread: false,
    };
    Ok(PlanFile { plan, new_file_bytes, differs_from_fio: Vec::new(), fio_jobs: Vec::new() })
}

impl Plan {
    /// What the user should be told about how the plan runs (what its source said).
    pub fn notices(&self) -> Vec<String> {
        self.source_notices.clone()
    }

    /// Every replay's trace read and checked as the run's check reads it (bounded), so a dry
    /// run refuses a trace the run would refuse (parsing only named it).
    pub fn read_traces(&self) -> Result<(), Error> {
        let points = self.precondition.iter().chain(&self.points);
        let specs = points.flat_map(|p| std::iter::once(&p.spec).chain(p.concurrent.iter().map(|j| &j.spec)));
        // Each trace once, however many points replay it (a trace may be up to 1 GiB).
        let mut read = std::collections::HashSet::new();
        for spec in specs.filter(|s| s.replay.as_ref().is_some_and(|r| read.insert(r.path.clone()))) {
            drivelab_engine::replay::resolve(&mut spec.clone())?;
        }
        Ok(())
    }
}
