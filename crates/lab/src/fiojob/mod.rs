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
//! - `argv` splits fio's command line (`drivelab fio ARGS…`) into the same sections, so
//!   [`from_args`] makes a plan from it by this same path (one table of options).
//! - `--var NAME=LIST` gives `${NAME}` a list of values (`4k,8k,64k`, or a range `1..64x2`,
//!   `0..100+25`): the file is read once per combination (first variable outermost) and every
//!   point's label ends with the combination (`seq-read BS=4k QD=8`): seed 004's sweep of a
//!   job file, without a wrapper script.
//!
//! The job file's (and command line's) way from sections to points is in one place; options,
//! argv, logs, zones, caps, notices and job control are submodules.

mod argv;
mod cap;
mod delay;
mod errs;
mod ini;
mod jobctl;
mod logs;
mod notice;
mod onerror;
mod opendir;
mod options;
mod prio;
mod rates;
pub mod reporting;
mod share;
pub mod steadystate;
mod stripe;
pub mod unlink;
mod value;
pub mod vstate;
mod waitfor;
mod walk;
pub mod watch;

pub use cap::Cap;
pub use notice::Notice;
pub use options::Banner;

/// One job as fio's normal output announces it before the run (`NAME: (g=G): rw=...`, `...`
/// for its clones, `NAME: Laying out IO file (1 file / NMiB)` for each set of files it makes).
#[derive(Clone, Debug, PartialEq)]
pub struct JobLine {
    pub name: String,
    /// Its group (fio's `g=`): the point it runs in, from 0.
    pub group: usize,
    pub banner: Banner,
    /// Its clones (`numjobs`), itself included.
    pub clones: u64,
    /// The files it will make (they do not exist yet), per set a job lays out (a clone's
    /// file, or a job's several: `nrfiles`): each path.
    pub new_files: Vec<Vec<String>>,
    /// The bytes each new file is laid out to (the job's offset and size, before drivelab
    /// rounds a new file up to whole pages).
    pub file_bytes: u64,
}

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use drivelab_engine::options as fields;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;

use crate::plan::{expand, ConcurrentJob, FioOptions, Plan, PlanFile, Point};
use options::{Job, VerifyStateUse};

pub use argv::{fio_time_ns, split as split_args, Eta, FioArgs};

/// Access-spec fields as (key, value), as a point records them.
type Fields = Vec<(String, String)>;

/// At most this many combinations of `--var` values.
pub const MAX_COMBINATIONS: usize = 10_000;

/// The access spec of a fio job with these options (`[global]`'s, then its own; fio's JSON
/// writes a flag's value as `""`), as a job file's reader makes it: the one translation of
/// fio's options, for fio results imported (`results::fio_json`). A refusal says why in fio's
/// words (`iodepth=0: ...`) and, where one option is refused, which (its index in `opts`).
pub fn job_spec(
    name: &str,
    opts: &[(String, String)],
) -> Result<drivelab_engine::spec::AccessSpec, (Option<usize>, String)> {
    // Line 1 is the job's section; option i is on line i + 2.
    let opts: Vec<ini::Opt> = opts
        .iter()
        .enumerate()
        .map(|(i, (k, v))| ini::Opt {
            key: k.clone(),
            value: Some(v.trim().to_string()).filter(|v| !v.is_empty()),
            line: i + 2,
        })
        .collect();
    let job = options::translate(name, 1, &opts).map_err(|e| (e.line.checked_sub(2), e.message))?;
    job.spec.validate().map_err(|e| (None, e.written_as(drivelab_engine::Spelling::FioJob).cli_message()))?;
    Ok(job.spec)
}

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
    /// `--cap-time`/`--cap-size`: each job shortened to these.
    pub cap: Cap,
    /// fio's `--aux-path`: where verify state files are written and read (`vstate.rs`).
    pub aux: Option<&'a str>,
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

/// Where sections came from, to name a line in a refusal.
enum Origin<'a> {
    /// A job file: `FILE:LINE`.
    File(&'a str),
    /// fio's command line: the argument as written (`--bs=4q: ...`).
    Args(&'a FioArgs),
}

impl Origin<'_> {
    fn at(&self, e: ini::LineError) -> Error {
        let Origin::Args(a) = self else {
            let Origin::File(file) = self else { unreachable!() };
            return at(file, e);
        };
        let arg = a.written.get(e.line.wrapping_sub(argv::FIRST_LINE)).map_or("fio's command line", String::as_str);
        // The option's own `key=value: ` prefix says again what the argument says.
        let opt = a.sections.iter().flat_map(|s| &s.options).find(|o| o.line == e.line);
        let own = opt.map(|o| match &o.value {
            Some(v) => format!("{}={v}: ", o.key),
            None => format!("{}: ", o.key),
        });
        let message = own.as_deref().and_then(|p| e.message.strip_prefix(p)).unwrap_or(&e.message);
        Error::invalid(format!("{arg}: {message}"))
    }
}

/// Sections read together. `fresh`: fio starts this one (a job file after the first) from no
/// global options, and its first job waits for the jobs before it.
struct Part<'a> {
    origin: Origin<'a>,
    sections: Vec<ini::Section>,
    fresh: bool,
}

/// Parse job-file `text` (`file` names it in messages, `name` is the plan's name).
pub fn parse(text: &str, file: &str, name: &str, given: Given) -> Result<PlanFile, Error> {
    let empty = format!("{file}: no job section; expected at least one [jobname]");
    build(name, file, &empty, given, |vars| {
        let sections = ini::parse(text, vars, ini::From::File(Path::new(file))).map_err(|e| at(file, e))?;
        Ok(vec![Part { origin: Origin::File(file), sections, fresh: false }])
    })
}

/// fio's command line, split ([`split_args`]): its jobs, then each job file's (read here; `-`
/// is standard input), as fio runs them.
pub fn from_args(args: &FioArgs) -> Result<PlanFile, Error> {
    let mut texts = Vec::new();
    for f in &args.files {
        let bytes = if f == "-" {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut b)
                .map_err(|e| Error::io("reading standard input", e))?;
            b
        } else {
            drivelab_engine::input::Input::JOB.read(Path::new(f))?
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::invalid(format!("{f}: not a text file; expected a fio job file")))?;
        texts.push((f.as_str(), text));
    }
    let read = |vars: &BTreeMap<String, String>| {
        let mut parts =
            vec![Part { origin: Origin::Args(args), sections: only(args, args.sections.clone()), fresh: false }];
        for (k, (file, text)) in texts.iter().enumerate() {
            let from = if *file == "-" { ini::From::Nowhere } else { ini::From::File(Path::new(file)) };
            let sections = ini::parse(text, vars, from).map_err(|e| at(file, e))?;
            parts.push(Part { origin: Origin::File(file), sections: only(args, sections), fresh: k > 0 });
        }
        Ok::<_, Error>(parts)
    };
    for s in &args.only {
        let found = read(&BTreeMap::new())?.iter().flat_map(|p| &p.sections).any(|x| &x.name == s);
        if !found {
            return Err(Error::invalid(format!(
                "--section={s}: no job section is named {s}; give the name of a [section] of the job files or of a --name"
            )));
        }
    }
    let name = args
        .sections
        .iter()
        .find(|s| !s.is_global())
        .map(|s| s.name.clone())
        .or_else(|| {
            args.files
                .first()
                .map(|f| Path::new(f).file_stem().map_or("fio".into(), |s| s.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| "fio".into());
    let empty = "fio's command line has no job: give --name=NAME and the job's options, or a job file";
    let cap = Cap::parse(args.cap_time.as_deref(), args.cap_size.as_deref())?;
    let given = Given { targets: &[], vars: &[], cap, aux: args.aux_path.as_deref() };
    build(&name, "fio's command line", empty, given, read)
}

/// fio's verify state files of `job` (its clones numbered from `first_index`): with
/// `verify_state_load`, each clone's file read and the writes it counts made the job's bound;
/// with `verify_state_save`, each clone's file checked writable and the files to write when
/// the job ends. Refusals name the file.
fn verify_states(
    job: &Job,
    spec: &mut AccessSpec,
    aux: Option<&str>,
    first_index: u64,
    clones: u64,
) -> Result<Option<crate::plan::StateFiles>, String> {
    let paths = (0..clones).map(|k| vstate::path(aux, &job.name, first_index + k));
    match job.verify_state {
        VerifyStateUse::None => Ok(None),
        VerifyStateUse::Save => {
            for p in paths {
                vstate::check_writable(&p).map_err(|e| format!("[{}]: {e}", job.name))?;
            }
            let dir = aux.map(str::to_string);
            Ok(Some(crate::plan::StateFiles { name: job.name.clone(), dir, first_index, ..Default::default() }))
        }
        VerifyStateUse::Load => {
            let mut counts = Vec::new();
            for p in paths {
                let s = vstate::VerifyState::load(&p).map_err(|e| format!("[{}]: verify_state_load: {e}", job.name))?;
                counts.push((p, s.numberio));
            }
            let Some(&(_, n)) = counts.first() else { return Ok(None) };
            if let Some((p, m)) = counts.iter().find(|(_, m)| *m != n) {
                return Err(format!(
                    "[{}]: verify_state_load: {} counts {m} writes and {} counts {n}: drivelab checks one count for every \
                     clone of a job; verify the clones as jobs of their own (numjobs=1, offset=)",
                    job.name,
                    p.display(),
                    counts[0].0.display()
                ));
            }
            if n == 0 {
                return Err(format!(
                    "[{}]: verify_state_load: {} counts no write: there is nothing to verify",
                    job.name,
                    counts[0].0.display()
                ));
            }
            spec.number_ios = Some(spec.number_ios.map_or(n, |b| b.min(n)));
            Ok(None)
        }
    }
}

/// `sections` without the jobs `--section` leaves out (fio keeps every `[global]`).
fn only(args: &FioArgs, mut sections: Vec<ini::Section>) -> Vec<ini::Section> {
    if !args.only.is_empty() {
        sections.retain(|s| s.is_global() || args.only.contains(&s.name));
    }
    sections
}

/// fio's `--showcmd`: each job file as one command line, `fio --key=value ... --name=JOB ...`.
pub fn showcmd(args: &FioArgs) -> Result<String, Error> {
    let mut out = String::new();
    for f in &args.files {
        let bytes = drivelab_engine::input::Input::JOB.read(Path::new(f))?;
        let text = String::from_utf8_lossy(&bytes);
        let sections =
            only(args, ini::parse(&text, &BTreeMap::new(), ini::From::File(Path::new(f))).map_err(|e| at(f, e))?);
        if let Some(e) = sections.iter().find_map(|s| s.unset.clone()) {
            return Err(at(f, e));
        }
        out.push_str("fio ");
        for s in &sections {
            if !s.is_global() {
                out.push_str(&format!("--name={} ", s.name));
            }
            for o in &s.options {
                match &o.value {
                    Some(v) => out.push_str(&format!("--{}={v} ", o.key)),
                    None => out.push_str(&format!("--{} ", o.key)),
                }
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The plan of the parts `read` gives for each combination of `given.vars` (`what` names the
/// source in messages; `empty` refuses a source without jobs).
fn build<'a>(
    name: &str,
    what: &str,
    empty: &str,
    given: Given,
    read: impl Fn(&BTreeMap<String, String>) -> Result<Vec<Part<'a>>, Error>,
) -> Result<PlanFile, Error> {
    let combos = combinations(given.vars)?;
    let mut points: Vec<Point> = Vec::new();
    let mut notices: Vec<Notice> = Vec::new();
    let mut no_effect: Vec<String> = Vec::new();
    let mut new_file_bytes: Option<u64> = None;
    let mut file_bytes = 0;
    let (mut labels, mut slugs) = (HashSet::new(), HashSet::new());
    // fio's job numbers (its log files' `.N`): every job of the file from 1, clones included.
    let mut next_job = 1u32;
    let mut fio_jobs: Vec<JobLine> = Vec::new();
    // The longest start delay `--cap-time` scaled, to say how.
    let mut scaled_delays: Option<u64> = None;
    for combo in &combos {
        let vars: BTreeMap<String, String> = combo.iter().cloned().collect();
        let suffix: String = combo.iter().map(|(k, v)| format!(" {k}={v}")).collect();
        let parts = read(&vars)?;
        let mut jobs = part_jobs(&parts)?;
        waitfor::apply(&mut jobs).map_err(|(part, e)| parts[part].origin.at(e))?;
        let mut given_options = part_given_options(&parts).into_iter();
        if jobs.is_empty() {
            return Err(Error::invalid(empty.to_string()));
        }
        // fio's exit_what=all: once that job ends, fio ends every job, and the later groups'
        // never start (fio lists them with nothing done): they are left out, saying so.
        let mut ended_by: Option<String> = None;
        let mut left_out: Vec<String> = Vec::new();
        // Different files of the job file on the targets given (`share.rs`).
        let files = share::files(jobs.iter().map(|(j, _)| j));
        if !given.targets.is_empty() {
            let size = given.targets.first().and_then(|t| drivelab_engine::target::probe(t).ok()).map(|i| i.size_bytes);
            if let Some(n) = share::notice(&files, given.targets, size) {
                n.push_to(&mut notices);
            }
        }
        for group in groups(jobs) {
            if ended_by.is_some() {
                for (job, _) in &group {
                    given_options.next();
                    left_out.push(format!("[{}]", job.name));
                }
                continue;
            }
            if let Some((j, _)) = group.iter().find(|(j, _)| j.exitall && j.exit_what_all) {
                ended_by = Some(j.name.clone());
            }
            // --cap-time: start delays scaled so the group's longest is the cap (`Cap::delay`).
            let longest_delay = group.iter().map(|(j, _)| j.spec.start_delay_ns).max().unwrap_or(0);
            let mut streams = Vec::new();
            let mut fio = FioOptions::default();
            for (job, part) in &group {
                let origin = &parts[*part].origin;
                for n in &job.notices {
                    n.clone().push_to(&mut notices);
                }
                for k in &job.no_effect {
                    if !no_effect.contains(k) {
                        no_effect.push(k.clone());
                    }
                }
                let (targets, mut spec) = resolve(job, given.targets, &files)
                    .map_err(|m| origin.at(ini::LineError { line: job.line, message: m }))?;
                if let Some(want) = &job.ioscheduler {
                    for n in targets.iter().filter_map(|t| scheduler_kept(t, want)) {
                        n.push_to(&mut notices);
                    }
                }
                if !given.cap.is_none() {
                    let whole = spec.clone();
                    given.cap.apply(&mut spec);
                    if let Some(note) = given.cap.bytes.and_then(|c| stripe::cap(c, &mut spec, &job.name)) {
                        note.push_to(&mut notices);
                    }
                    if let Some(d) = given.cap.delay(whole.start_delay_ns, longest_delay) {
                        spec.start_delay_ns = d;
                        scaled_delays = scaled_delays.max(Some(longest_delay));
                    }
                }
                // The logs first: what the spec refuses beside them (a trim of several ranges
                // and write_iolog) is refused here, before anything is made.
                let first_index = u64::from(next_job - 1);
                logs::number(&mut spec, job, given.targets.is_empty(), &targets, &mut next_job);
                spec.validate().map_err(|e| {
                    origin.at(ini::LineError { line: job.line, message: format!("[{}]: {e}", job.name) })
                })?;
                let per_target = job.file_per_clone && given.targets.is_empty();
                let clones = if per_target { (targets.len() / spec.files.each()) as u64 } else { u64::from(spec.jobs) };
                let states = verify_states(job, &mut spec, given.aux, first_index, clones)
                    .map_err(|m| origin.at(ini::LineError { line: job.line, message: m }))?;
                if job.unlink {
                    fio.unlink.push(fio.jobs.len());
                }
                if let Some(mut s) = states {
                    (s.stream, s.per_target, s.per_job_targets) = (fio.jobs.len(), per_target, spec.files.each());
                    fio.verify_states.push(s);
                }
                if !job.null && given.targets.is_empty() {
                    if let Some(s) = job.size {
                        // As fio lays a new file out: to the end of the job's region (its offset,
                        // and its last clone's offset_increment, plus its size).
                        let clones = u64::from(spec.jobs.saturating_sub(1));
                        let end = spec
                            .offset_bytes
                            .checked_add(spec.offset_increment_bytes.saturating_mul(clones))
                            .and_then(|o| o.checked_add(s));
                        file_bytes = end.unwrap_or(0);
                        let whole = end.and_then(|e| e.checked_next_multiple_of(4096)).ok_or_else(|| {
                            let message =
                                format!("[{}]: size={s} is too large for a file; give a smaller size", job.name);
                            origin.at(ini::LineError { line: job.line, message })
                        })?;
                        let whole = given.cap.bytes.map_or(whole, |c| whole.min(c.next_multiple_of(4096)));
                        new_file_bytes = Some(new_file_bytes.unwrap_or(0).max(whole));
                    }
                }
                let new_files = if job.null || !given.targets.is_empty() || spec.engine.is_meta() {
                    Vec::new()
                } else {
                    let per_job = spec.files.each();
                    let new = |set: &[String]| -> Vec<String> {
                        // `null` is drivelab's null target, never a file made.
                        set.iter().filter(|t| *t != "null" && !Path::new(t.as_str()).exists()).cloned().collect()
                    };
                    targets.chunks(per_job).map(new).filter(|set| !set.is_empty()).collect()
                };
                fio_jobs.push(JobLine {
                    name: job.name.clone(),
                    group: points.len(),
                    banner: job.banner.clone(),
                    clones: if job.file_per_clone {
                        (targets.len() / spec.files.each()) as u64
                    } else {
                        u64::from(spec.jobs)
                    },
                    new_files,
                    file_bytes: std::mem::take(&mut file_bytes),
                });
                streams.push((job.name.clone(), targets, spec));
                let (global, own) = given_options.next().expect("one entry per job");
                if fio.jobs.is_empty() {
                    fio.global = global;
                }
                fio.jobs.push(own);
            }
            // fio's options that end the group early, checked as a whole (a minimum above the cap).
            watch::Watch::of(&fio).map_err(|message| {
                parts[group[0].1]
                    .origin
                    .at(ini::LineError { line: group[0].0.line, message: format!("[{}]: {message}", group[0].0.name) })
            })?;
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
            let (step, targets, spec) = it.next().expect("a group has a job");
            let concurrent: Vec<ConcurrentJob> = it
                .map(|(name, targets, spec)| ConcurrentJob { name, targets, fields: described(&spec), spec })
                .collect();
            let estimate = std::iter::once(&spec)
                .chain(concurrent.iter().map(|c| &c.spec))
                .map(|s| s.time_ns.map(|t| t + s.ramp_ns + s.start_delay_ns))
                .try_fold(0u64, |acc, t| t.map(|t| acc.max(t)));
            points.push(Point {
                index: points.len() + 1,
                label: unique,
                slug,
                step,
                targets,
                fields: described(&spec),
                spec,
                estimate_ns: estimate,
                concurrent,
                fio: Some(fio),
                names: Vec::new(),
            });
            if points.len() > crate::plan::MAX_POINTS {
                return Err(Error::invalid(format!(
                    "{what}: more than {} points; expected fewer --var values",
                    crate::plan::MAX_POINTS
                )));
            }
        }
        if let (Some(by), false) = (&ended_by, left_out.is_empty()) {
            Notice::ExitWhatAll { by: by.clone(), left_out }.push_to(&mut notices);
        }
    }
    if !given.cap.is_none() {
        let c = &given.cap;
        notices.push(Notice::Capped { time_ns: c.time_ns, bytes: c.bytes, scaled_delay: scaled_delays });
    }
    if !no_effect.is_empty() {
        notices.push(Notice::NoEffect { options: no_effect });
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
        source_notices: notices.iter().map(Notice::to_string).collect(),
        thread: fio_jobs.iter().any(|j| j.banner.thread),
    };
    let differs_from_fio = notices.iter().filter(|n| n.differs_from_fio()).map(Notice::to_string).collect();
    Ok(PlanFile { plan, new_file_bytes, differs_from_fio, fio_jobs })
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
        if let Some(e) = &s.unset {
            return Err(e.clone());
        }
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

/// Every part's jobs, each with its part's index: within a part as [`jobs`]; a `fresh` part
/// starts from no global options and its first job waits for those before it (fio puts a
/// stonewall between job files).
fn part_jobs(parts: &[Part]) -> Result<Vec<(Job, usize)>, Error> {
    let mut out = Vec::new();
    let mut carried: Vec<ini::Section> = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        if part.fresh {
            carried.clear();
        }
        let start = out.len();
        // The globals before this part (as a section of their own) and the part's sections.
        let mut sections = carried.clone();
        sections.extend(part.sections.iter().cloned());
        let jobs = jobs(&sections).map_err(|e| {
            // The command line's lines are numbered apart: a global option of the command line
            // refused in a job file's job is named as the argument it is.
            let args = parts.iter().find(|p| matches!(p.origin, Origin::Args(_)));
            match args {
                Some(a) if e.line >= argv::FIRST_LINE => a.origin.at(e),
                _ => part.origin.at(e),
            }
        })?;
        out.extend(jobs.into_iter().map(|j| (j, k)));
        if part.fresh {
            if let Some((j, _)) = out.get_mut(start) {
                j.stonewall = true;
            }
        }
        carried = sections.into_iter().filter(|s| s.is_global()).collect();
    }
    Ok(out)
}

/// Each job's options as given, in the order [`part_jobs`] gives the jobs: the globals that
/// apply to it and its own (see [`given_options`]).
fn part_given_options(parts: &[Part]) -> Vec<(Fields, Fields)> {
    let mut out = Vec::new();
    let mut carried: Vec<ini::Section> = Vec::new();
    for part in parts {
        if part.fresh {
            carried.clear();
        }
        let mut sections = carried.clone();
        sections.extend(part.sections.iter().cloned());
        out.extend(given_options(&sections));
        carried = sections.into_iter().filter(|s| s.is_global()).collect();
    }
    out
}

/// Each job section's options as given, in job order: the `[global]` options before it and its
/// own (`""` for a flag), as fio's output writes them ("global options", "job options").
fn given_options(sections: &[ini::Section]) -> Vec<(Fields, Fields)> {
    let pairs = |opts: &[ini::Opt]| -> Fields {
        opts.iter().map(|o| (o.key.clone(), o.value.clone().unwrap_or_default())).collect()
    };
    let mut global: Fields = Vec::new();
    let mut out = Vec::new();
    for s in sections {
        if s.is_global() {
            global.extend(pairs(&s.options));
        } else {
            out.push((global.clone(), pairs(&s.options)));
        }
    }
    out
}

/// Jobs split into fio's groups: a job with `stonewall` starts a new one.
fn groups(jobs: Vec<(Job, usize)>) -> Vec<Vec<(Job, usize)>> {
    let mut out: Vec<Vec<(Job, usize)>> = Vec::new();
    for j in jobs {
        match out.last_mut() {
            Some(g) if !j.0.stonewall => g.push(j),
            _ => out.push(vec![j]),
        }
    }
    out
}

/// A spec's workload as a point records it for display (`options::describe`).
fn described(spec: &drivelab_engine::spec::AccessSpec) -> Vec<(String, String)> {
    fields::describe(spec).into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// fio's `ioscheduler=NAME`: fio switches the disk under the target to NAME for the job (and
/// leaves it so). drivelab changes no setting of a whole device, which every other user of the
/// disk shares: a disk on another scheduler runs as it is, with a notice that says so (the
/// figures may not be fio's); a target with no disk under it (tmpfs) has nothing to switch, in
/// fio either.
fn scheduler_kept(target: &str, want: &str) -> Option<Notice> {
    let disk = drivelab_engine::target::probe(target).ok()?.disk?;
    let now = crate::sysinfo::device(&disk)?.scheduler?;
    (now != want).then(|| Notice::SchedulerKept { disk, now, want: want.to_string() })
}

/// A job's targets (the command line's replace its files) and its spec with what depends on
/// them: one job per clone sharing them, or one file per clone; the bytes of one pass over the
/// whole target when fio would do that.
fn resolve(job: &Job, given: &[String], files: &[Vec<String>]) -> Result<(Vec<String>, AccessSpec), String> {
    let mut spec = job.spec.clone();
    // One pass over the target (or the job's part of it): bytes bound the job, and its runtime.
    let pass = |spec: &mut AccessSpec, bytes: u64| {
        spec.io_size_bytes = Some(bytes);
        if !job.runtime_given {
            spec.time_ns = None;
        }
    };
    let mut part = false;
    let targets = if !given.is_empty() {
        if job.file_per_clone {
            let clones = job.targets.len() / spec.files.each();
            spec.jobs = u32::try_from(clones.max(1)).unwrap_or(u32::MAX);
        }
        // The targets given replace a job's files: a job over several runs over every target
        // given (or its one target, or part).
        let all = matches!(share::place(job, files, given.len()), share::Place::All);
        if spec.files.per_job > 1 {
            spec.files.per_job = if all { u32::try_from(given.len()).unwrap_or(u32::MAX) } else { 1 };
        }
        match share::place(job, files, given.len()) {
            share::Place::All => given.to_vec(),
            share::Place::Target(i) => vec![given[i].clone()],
            share::Place::Part { index, of } => {
                let info = drivelab_engine::target::probe(&given[0]).map_err(|e| e.to_string())?;
                share::into_part(&job.name, &given[0], info.size_bytes, index, of, &mut spec)?;
                part = true;
                given.to_vec()
            }
        }
    } else if job.null {
        vec!["null".to_string()]
    } else {
        job.targets.clone()
    };
    if job.existing_only {
        for t in &targets {
            if !drivelab_engine::target::probe(t).map_err(|e| e.to_string())?.exists {
                return Err(format!(
                    "[{}]: allow_file_create=0 and {t} does not exist; fio would refuse it too: create it, or drop \
                     allow_file_create=0",
                    job.name
                ));
            }
        }
    }
    if let Some(p) = job.increment_pct {
        let mut smallest: Option<u64> = None;
        for t in &targets {
            let info = drivelab_engine::target::probe(t).map_err(|e| e.to_string())?;
            smallest = Some(smallest.map_or(info.size_bytes, |s: u64| s.min(info.size_bytes)));
        }
        stripe::resolve_pct(p, smallest.unwrap_or(0), &mut spec).map_err(|e| format!("[{}]: {e}", job.name))?;
    }
    if job.whole_target && part {
        // One pass over the job's part of the target.
        if let Some(span) = spec.span_bytes {
            pass(&mut spec, span);
        }
    } else if job.whole_target {
        let offset = spec.offset_bytes;
        let mut each = Vec::with_capacity(targets.len());
        for t in &targets {
            let info = drivelab_engine::target::probe(t).map_err(|e| e.to_string())?;
            if !info.exists && spec.fill_device {
                return Err(errs::new_file_refused(&job.name, t));
            }
            if !info.exists {
                return Err(format!(
                    "[{}]: {t} does not exist and the job gives no size; fio would refuse it too: add size=",
                    job.name
                ));
            }
            each.push(info.size_bytes.saturating_sub(offset));
        }
        // A pass over each job's files (one, or a file set's: fio's job over several).
        let per_job = spec.files.each();
        let smallest = each.chunks(per_job).map(|set| set.iter().sum::<u64>()).min();
        if let Some(b) = smallest.filter(|&b| b > 0) {
            pass(&mut spec, b);
        }
    }
    Ok((targets, spec))
}

#[cfg(test)]
mod tests;
