//! fio job files as drivelab plans: `drivelab run job.fio` and `drivelab plan job.fio` read
//! fio's own format and run it through the one runner, so a fio workload is measured, saved,
//! reported and compared like any plan.
//!
//! - `ini` reads the file as fio does (sections, `key=value`, comments, `${VAR}`).
//! - `options` turns each job's options (the `[global]` ones before it, then its own) into
//!   drivelab's access-spec fields, refusing by `FILE:LINE` what drivelab does not do.
//! - Here: jobs become points. fio runs every job of a group at the same time and a job with
//!   `stonewall` starts the next group, so each group is one point whose first job is the
//!   point's spec and whose others run beside it ([`Point::concurrent`]); the point's result is
//!   the group merged, as fio's group reporting. Its label is the jobs' names joined by ` + `.
//! - `--var NAME=LIST` gives `${NAME}` a list of values (`4k,8k,64k`, or a range `1..64x2`,
//!   `0..100+25`): the file is read once per combination (first variable outermost) and every
//!   point's label ends with the combination (`seq-read BS=4k QD=8`): seed 004's sweep of a
//!   job file, without a wrapper script.

mod ini;
mod options;
mod value;
mod walk;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use drivelab_engine::fields;
use drivelab_engine::Error;

use crate::plan::{expand, ConcurrentJob, Plan, PlanFile, Point};
use options::Job;

/// Access-spec fields as (key, value), as a point records them.
type Fields = Vec<(String, String)>;

/// At most this many combinations of `--var` values.
pub const MAX_COMBINATIONS: usize = 10_000;

/// Whether `path` names a fio job file (by its extension: `.fio`, `.job`, `.ini`) rather than a
/// TOML plan.
pub fn is_job_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("fio" | "job" | "ini"))
}

/// A `--var NAME=VALUES` as given.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub values: Vec<String>,
}

/// Parse `--var NAME=VALUES`: a comma list, or a whole-number range `A..B xF` / `A..B +S` (sizes
/// with a unit work too: `4k..64k x2`).
pub fn parse_var(text: &str) -> Result<Var, Error> {
    let bad = |why: &str| {
        Error::invalid(format!("--var {text}: {why}; expected NAME=VALUES such as BS=4k,8k,64k or QD=1..64x2"))
    };
    let (name, values) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad("the name must be letters, digits and _"));
    }
    let values = values.trim();
    let list: Vec<String> = if values.contains("..") {
        range(values).map_err(|e| bad(&e))?
    } else {
        values.split(',').map(|v| v.trim().to_string()).collect()
    };
    if list.is_empty() || list.iter().any(String::is_empty) {
        return Err(bad("an empty value"));
    }
    Ok(Var { name: name.to_string(), values: list })
}

/// `A..B xF` or `A..B +S` as texts, in A's unit (`4k..64k x2` is 4k 8k 16k 32k 64k).
fn range(text: &str) -> Result<Vec<String>, String> {
    let (a, rest) = text.split_once("..").ok_or("not a range")?;
    let (b, step, geometric) = if let Some((b, f)) = rest.split_once('x') {
        (b, f, true)
    } else if let Some((b, s)) = rest.split_once('+') {
        (b, s, false)
    } else {
        return Err("a range needs xF (geometric) or +S (arithmetic)".into());
    };
    let kb = value::KbBase::Binary;
    let (a, b, step) = (value::size(a.trim(), kb)?, value::size(b.trim(), kb)?, value::size(step.trim(), kb)?);
    if (geometric && (step < 2 || a == 0)) || (!geometric && step == 0) || b < a {
        return Err("the range never reaches its end".into());
    }
    let mut out = Vec::new();
    let mut v = a;
    while v <= b {
        out.push(short_size(v));
        if out.len() > MAX_COMBINATIONS {
            return Err(format!("more than {MAX_COMBINATIONS} values"));
        }
        v = if geometric { v.saturating_mul(step) } else { v.saturating_add(step) };
    }
    Ok(out)
}

/// `v` in fio's shortest unit (k = 1024): 4096 is `4k`, 1000 is `1000`.
fn short_size(v: u64) -> String {
    for (unit, shift) in [("g", 30), ("m", 20), ("k", 10)] {
        if v >= 1 << shift && v.is_multiple_of(1 << shift) {
            return format!("{}{unit}", v >> shift);
        }
    }
    v.to_string()
}

/// What the command line gives a job file.
#[derive(Clone, Copy, Debug)]
pub struct Given<'a> {
    /// Targets replacing every job's files (none: the jobs' own).
    pub targets: &'a [String],
    pub vars: &'a [Var],
}

/// Read the fio job file at `path` into a plan.
pub fn load(path: &Path, given: Given) -> Result<PlanFile, Error> {
    let file = path.display().to_string();
    let bytes = drivelab_engine::input::Input::JOB.read(path)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{file}: not a text file; expected a fio job file")))?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "fio".into());
    parse(&text, &file, &name, given)
}

/// A `FILE:LINE: ...` refusal.
fn at(file: &str, e: ini::LineError) -> Error {
    Error::invalid(format!("{file}:{}: {}", e.line, e.message))
}

/// Parse job-file `text` (`file` names it in messages, `name` is the plan's name).
pub fn parse(text: &str, file: &str, name: &str, given: Given) -> Result<PlanFile, Error> {
    let combos = combinations(given.vars)?;
    let mut points: Vec<Point> = Vec::new();
    let mut notices: Vec<String> = Vec::new();
    let mut no_effect: Vec<String> = Vec::new();
    let mut new_file_bytes: Option<u64> = None;
    let (mut labels, mut slugs) = (HashSet::new(), HashSet::new());
    for combo in &combos {
        let vars: BTreeMap<String, String> = combo.iter().cloned().collect();
        let suffix: String = combo.iter().map(|(k, v)| format!(" {k}={v}")).collect();
        let sections = ini::parse(text, &vars).map_err(|e| at(file, e))?;
        let jobs = jobs(&sections).map_err(|e| at(file, e))?;
        if jobs.is_empty() {
            return Err(Error::invalid(format!("{file}: no job section; expected at least one [jobname]")));
        }
        for group in groups(jobs) {
            let mut streams = Vec::new();
            for job in &group {
                for n in job.notices.iter() {
                    if !notices.contains(n) {
                        notices.push(n.clone());
                    }
                }
                for k in &job.no_effect {
                    if !no_effect.contains(k) {
                        no_effect.push(k.clone());
                    }
                }
                let (targets, fields) =
                    resolve(job, given.targets).map_err(|m| at(file, ini::LineError { line: job.line, message: m }))?;
                let spec = fields::from_pairs(expand::pairs(&fields)).map_err(|e| {
                    at(file, ini::LineError { line: job.line, message: format!("[{}]: {e}", job.name) })
                })?;
                if !job.null && given.targets.is_empty() {
                    if let Some(s) = job.size {
                        let whole = s.checked_next_multiple_of(4096).ok_or_else(|| {
                            let message =
                                format!("[{}]: size={s} is too large for a file; give a smaller size", job.name);
                            at(file, ini::LineError { line: job.line, message })
                        })?;
                        new_file_bytes = Some(new_file_bytes.unwrap_or(0).max(whole));
                    }
                }
                streams.push((job.name.clone(), targets, fields, spec));
            }
            let mut label = streams.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join(" + ");
            label.push_str(&suffix);
            let mut unique = label.clone();
            let mut n = 2;
            while !labels.insert(unique.clone()) {
                unique = format!("{label} #{n}");
                n += 1;
            }
            let slug = expand::unique_slug(&unique, &mut slugs);
            let mut it = streams.into_iter();
            let (step, targets, fields, spec) = it.next().expect("a group has a job");
            let concurrent: Vec<ConcurrentJob> =
                it.map(|(name, targets, fields, spec)| ConcurrentJob { name, targets, fields, spec }).collect();
            let estimate = std::iter::once(&spec)
                .chain(concurrent.iter().map(|c| &c.spec))
                .map(|s| s.time_ns.map(|t| t + s.ramp_ns))
                .try_fold(0u64, |acc, t| t.map(|t| acc.max(t)));
            points.push(Point {
                index: points.len() + 1,
                label: unique,
                slug,
                step,
                targets,
                fields,
                spec,
                estimate_ns: estimate,
                concurrent,
            });
            if points.len() > crate::plan::MAX_POINTS {
                return Err(Error::invalid(format!(
                    "{file}: more than {} points; expected fewer --var values",
                    crate::plan::MAX_POINTS
                )));
            }
        }
    }
    if !no_effect.is_empty() {
        notices.push(format!("{}: read, no effect in drivelab (see docs/guide/fio.md \"fio job files: drivelab run JOB.fio, drivelab plan JOB.fio\")", no_effect.join(", ")));
    }
    let mut targets: Vec<String> = Vec::new();
    for t in points.iter().flat_map(|p| p.targets.iter().chain(p.concurrent.iter().flat_map(|c| &c.targets))) {
        if !targets.contains(t) {
            targets.push(t.clone());
        }
    }
    let plan = Plan {
        name: name.to_string(),
        targets,
        together: true,
        repeat: 1,
        pause_ns: 0,
        precondition: None,
        points,
        source_notices: notices,
    };
    Ok(PlanFile { plan, new_file_bytes })
}

/// Every combination of the variables' values, first variable outermost (one empty
/// combination without variables).
fn combinations(vars: &[Var]) -> Result<Vec<Vec<(String, String)>>, Error> {
    let mut seen = HashSet::new();
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for v in vars {
        if !seen.insert(v.name.as_str()) {
            return Err(Error::invalid(format!("--var {} is given twice; give each variable once", v.name)));
        }
        let mut next = Vec::with_capacity(out.len() * v.values.len());
        for combo in &out {
            for value in &v.values {
                let mut c = combo.clone();
                c.push((v.name.clone(), value.clone()));
                next.push(c);
            }
        }
        if next.len() > MAX_COMBINATIONS {
            return Err(Error::invalid(format!(
                "--var: {} combinations; expected at most {MAX_COMBINATIONS}",
                next.len()
            )));
        }
        out = next;
    }
    Ok(out)
}

/// Every job section with the options that apply to it: the `[global]` sections before it
/// (fio applies a `[global]` to the jobs that follow it), then its own.
fn jobs(sections: &[ini::Section]) -> Result<Vec<Job>, ini::LineError> {
    let mut global: Vec<ini::Opt> = Vec::new();
    let mut out = Vec::new();
    for s in sections {
        if s.is_global() {
            global.extend(s.options.iter().cloned());
            continue;
        }
        // A `name` in [global] is overridden by the section's own name (as in fio); only a
        // job's own `name=` renames it.
        let opts: Vec<ini::Opt> = global.iter().filter(|o| o.key != "name").chain(&s.options).cloned().collect();
        out.push(options::translate(&s.name, s.line, &opts)?);
    }
    Ok(out)
}

/// Jobs split into fio's groups: a job with `stonewall` starts a new one.
fn groups(jobs: Vec<Job>) -> Vec<Vec<Job>> {
    let mut out: Vec<Vec<Job>> = Vec::new();
    for j in jobs {
        match out.last_mut() {
            Some(g) if !j.stonewall => g.push(j),
            _ => out.push(vec![j]),
        }
    }
    out
}

/// A job's targets (the command line's replace its files) and its fields with what depends on
/// them: one job per clone sharing them, or one file per clone; the bytes of one pass over the
/// whole target when fio would do that.
fn resolve(job: &Job, given: &[String]) -> Result<(Vec<String>, Fields), String> {
    let mut fields = job.fields.clone();
    let targets = if !given.is_empty() {
        if job.file_per_clone {
            let clones = job.targets.len().max(1);
            fields.push(("jobs".into(), clones.to_string()));
        }
        given.to_vec()
    } else if job.null {
        vec!["null".to_string()]
    } else {
        job.targets.clone()
    };
    if job.whole_target {
        let offset = fields.iter().rev().find(|(k, _)| k == "offset").and_then(|(_, v)| v.parse::<u64>().ok());
        let mut smallest: Option<u64> = None;
        for t in &targets {
            let info = drivelab_engine::target::probe(t).map_err(|e| e.to_string())?;
            if !info.exists {
                return Err(format!(
                    "[{}]: {t} does not exist and the job gives no size; fio would refuse it too: add size=",
                    job.name
                ));
            }
            let bytes = info.size_bytes.saturating_sub(offset.unwrap_or(0));
            smallest = Some(smallest.map_or(bytes, |s: u64| s.min(bytes)));
        }
        if let Some(b) = smallest.filter(|&b| b > 0) {
            fields.push(("io_size".into(), b.to_string()));
        }
    }
    Ok((targets, fields))
}

#[cfg(test)]
mod tests;
