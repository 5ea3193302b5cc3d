//! fio's JSON output (`fio --output-format=json` or `json+`, fio 3.x) read into drivelab's one
//! results model, so `drivelab report fio.json` and `drivelab compare fio.json results/...`
//! chart and compare a fio run like any drivelab run, through the same views, tables, charts and
//! exporters, with nothing downstream special-cased: put a fio run beside a drivelab run of the
//! same job and see the difference.
//!
//! # How fio's output becomes results
//!
//! - Each reporting group (fio's `groupid`: the jobs that ran at once, between `stonewall`s)
//!   becomes one point, as drivelab runs a group of a job file: fio's entries are its jobs one by
//!   one (merged here, [`group`]) or, with `group_reporting`, the group already summed. A
//!   group of one job — the usual case — is that job. Its label is the jobs' names joined by
//!   " + " (each name once: `numjobs` clones share theirs), as drivelab labels a point of a job
//!   file's group, so `compare` can pair them by label.
//! - Its spec is translated from fio's options (`[global]`, then the job's) as far as they map
//!   ([`options`]), from fio's defaults; its targets are fio's files, or `null` for fio's null
//!   engine.
//! - Figures keep drivelab's units (`bytes`, `lat_ns`, `iops`). fio's `lat_ns` (slat + clat) is
//!   drivelab's `lat_ns`, fio's `clat_ns` its `clat_ns`, fio's `slat_ns` its `slat_ns`; min,
//!   mean, deviation and max are fio's exact figures. Percentiles: with json+ recomputed from
//!   fio's histogram bins in a drivelab histogram (within 1/256 of fio's own figure, within
//!   ≈1.17% of the truth: [`lat`] has the bound and why); with plain json fio's own percentiles
//!   are kept and the histogram is said to be missing.
//! - fio's version goes in the manifest's and every result's `tool` ("fio"), so every report
//!   says where the figures came from; each result's notices say how they were made and what
//!   was left out ([`notes`]). With `--status-interval`, the per-interval figures become the
//!   points' seconds ([`series`]).
//!
//! A file is recognised by its content (`"fio version"` in its first JSON document), never by
//! its name; anything wrong with it is an error naming the file and what is wrong.

mod check;
pub(crate) mod doc;
mod group;
mod lat;
mod notes;
pub(crate) mod options;
mod series;
#[cfg(test)]
mod tests;

use std::io::Read;
use std::path::Path;

use drivelab_engine::result::ToolInfo;
use drivelab_engine::Error;
use serde_json::json;

pub use lat::{DRIVELAB_BUCKET, FIO_BIN, IMPORTED};

use super::{Kind, Manifest, PointResult, Results, Setup, TargetFacts, SCHEMA};
use crate::plan::{Plan, Point};
use crate::store;
use crate::sysinfo::HostFacts;

/// The tool name of results read from fio's output.
pub const TOOL: &str = "fio";

/// Results that fio measured (read by this module), as their `tool` says.
pub fn is_fio(tool: &ToolInfo) -> bool {
    tool.name == TOOL
}

/// How much of a file's start [`looks_like`] reads.
const HEAD: u64 = 64 * 1024;

/// True when `path` is a file that starts like fio's JSON output.
pub fn looks_like(path: &Path) -> Result<bool, Error> {
    let mut head = Vec::new();
    let (file, _) = drivelab_engine::input::Input::JSON.open(path)?;
    file.take(HEAD).read_to_end(&mut head).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    Ok(doc::looks_like_fio(&head))
}

/// fio's JSON output that cannot be read as results: the file and the reader's words why, so a
/// caller can tell it (downcast from [`Error::Refused`]) from a file that could not be read.
/// Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{}: {why}", .path.display())]
pub struct FioJsonError {
    pub path: std::path::PathBuf,
    pub why: String,
}

impl From<FioJsonError> for Error {
    fn from(e: FioJsonError) -> Error {
        Error::refused(e)
    }
}

/// fio's JSON output in `path` as results (see the module docs).
pub fn load(path: &Path) -> Result<Results, Error> {
    let bytes = drivelab_engine::input::Input::JSON.read(path)?;
    from_bytes(&bytes, path).map_err(|why| FioJsonError { path: path.to_path_buf(), why }.into())
}

/// The reporting groups of a document, in fio's order: (groupid, its entries).
fn groups(d: &doc::Doc) -> Vec<(u64, Vec<&doc::Job>)> {
    let mut out: Vec<(u64, Vec<&doc::Job>)> = Vec::new();
    for j in &d.jobs {
        match out.iter_mut().find(|(g, _)| *g == j.groupid) {
            Some((_, jobs)) => jobs.push(j),
            None => out.push((j.groupid, vec![j])),
        }
    }
    out
}

/// `label`, or where an earlier point has it already, `label (group N)`.
fn unique_label(label: String, group: u64, taken: &[String]) -> String {
    let label = if label.trim().is_empty() { format!("group {group}") } else { label };
    if taken.contains(&label) {
        format!("{label} (group {group})")
    } else {
        label
    }
}

/// The label's slug, `-2`, `-3`... where taken.
fn unique_slug(label: &str, taken: &[String]) -> String {
    let base = Some(store::slug(label)).filter(|s| !s.is_empty()).unwrap_or_else(|| "point".into());
    let mut slug = base.clone();
    let mut n = 1;
    while taken.contains(&slug) {
        n += 1;
        slug = format!("{base}-{n}");
    }
    slug
}

/// A record built through its saved form, as `load` builds it from a results directory: the
/// fields this reader knows are set, any added since with a default take it.
fn from_saved<T: serde::de::DeserializeOwned>(value: serde_json::Value, what: &str) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("building the {what}: {e}"))
}

/// [`load`] of `bytes` read from `path` (named in the results, not read again).
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Results, String> {
    let parsed = doc::parse(bytes)?;
    check::figures(&parsed.docs)?;
    let Some(last) = parsed.docs.last().filter(|d| !d.jobs.is_empty()) else {
        return Err("fio's JSON lists no jobs: nothing ran".into());
    };
    let version = last.version.trim();
    let mut version = version.strip_prefix("fio-").unwrap_or(version).to_string();
    if let Some(d) = &last.drivelab {
        // drivelab's own figures in fio's format: the reports say who measured them.
        version = format!("{version} format, written by drivelab {d}");
    }
    let tool = ToolInfo { name: TOOL.into(), version };
    let elapsed_ms = last.jobs.iter().map(|j| j.elapsed).max().unwrap_or(0).saturating_mul(1000);
    let started_unix_ms = last.timestamp_ms.unwrap_or(0).saturating_sub(elapsed_ms);
    let plus = parsed.docs.iter().flat_map(|d| &d.jobs).any(|j| {
        [&j.read, &j.write, &j.mixed]
            .into_iter()
            .flatten()
            .any(|d| d.clat_ns.bins.is_some() || d.lat_ns.bins.is_some() || d.slat_ns.bins.is_some())
    });
    let ctx = group::Context { tool: &tool, global: &last.global, started_unix_ms, plus };

    let (mut labels, mut slugs, mut targets) = (Vec::new(), Vec::new(), Vec::<String>::new());
    let mut points = Vec::new();
    for (id, jobs) in groups(last) {
        let mut g = group::import(&jobs, &ctx).map_err(|e| format!("reporting group {id}: {e}"))?;
        let (series, p99_known) = series::series(&parsed.docs, id)?;
        if !series.is_empty() {
            g.result.notices.push(format!(
                "seconds: fio's --status-interval documents, one interval after another (I/Os, bytes and mean lat \
                 from fio's exact counts{})",
                if p99_known { "; p99 from the interval's histogram bins" } else { "; no p99: no histogram" }
            ));
        }
        g.result.series = series;
        if let Some(text) = &parsed.preamble {
            g.result.notices.push(format!("text before fio's JSON passed over: {text}"));
        }
        let label = unique_label(g.label, id, &labels);
        let slug = unique_slug(&label, &slugs);
        let point: Point = from_saved(
            json!({
                "index": points.len() + 1,
                "label": label,
                "slug": slug,
                "step": "",
                "targets": g.targets,
                "fields": g.workload.fields,
                "spec": g.workload.spec,
                "estimate_ns": g.result.runtime_ns,
            }),
            "point",
        )?;
        for t in &g.targets {
            if !targets.contains(t) {
                targets.push(t.clone());
            }
        }
        labels.push(label);
        slugs.push(slug);
        points.push(PointResult {
            schema: SCHEMA,
            point,
            result: g.result,
            power_w: None,
            steady: None,
            repeats: None,
            ranks: Vec::new(),
            prep: Vec::new(),
            jobs: Vec::new(),
        });
    }
    let file = path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned());
    let plan: Plan = from_saved(
        json!({
            "name": format!("fio {file}"),
            "targets": targets,
            "together": false,
            "repeat": 1,
            "pause_ns": 0,
            "precondition": null,
            "points": points.iter().map(|p| &p.point).collect::<Vec<_>>(),
        }),
        "plan",
    )?;
    let manifest = Manifest {
        schema: SCHEMA,
        tool,
        kind: if points.len() == 1 { Kind::Run } else { Kind::Plan },
        command_line: Vec::new(),
        started_unix_ms,
        host: HostFacts::unknown(),
        targets: targets
            .iter()
            .map(|t| TargetFacts { path: t.clone(), device: None, file: None, new_file_bytes: None, name: None })
            .collect(),
        setup: Setup::Plan(plan),
        ranks: None,
    };
    Ok(Results {
        dir: path.to_path_buf(),
        manifest,
        points,
        probes: Vec::new(),
        outcome: None,
        details: Default::default(),
    })
}
