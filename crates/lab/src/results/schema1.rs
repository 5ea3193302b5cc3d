//! The reader for schema-1 results directories (drivelab 0.1 before the one results model).
//!
//! Schema 1 had only plan and suite directories:
//! - `run.json`: `{schema: 1, tool, kind: "plan" | "suite:NAME", command_line, started_unix_ms,
//!   host, targets, plan: {name, together, repeat, pause_ns, precondition, points}}`, each point
//!   `{index, label, slug, step, targets, fields, estimate_ns}` without its spec;
//! - `points/NNNN-<slug>.json`: `{schema: 1, point, result, power_w?, steady?}`.
//!
//! They become a schema-2 [`Results`] with `Setup::Plan`: the plan's target list is the targets
//! of its points in order, and each point's spec is derived again from its saved fields (as
//! schema 1's `--resume` did), falling back to the spec its result recorded.

use std::path::Path;

use drivelab_engine::result::{RunResult, ToolInfo};
use drivelab_engine::Error;
use serde::Deserialize;

use super::{record_files, Kind, Manifest, PointResult, Results, Setup, SteadyRecord, TargetFacts};
use crate::plan::{Plan, Point};
use crate::store;
use crate::sysinfo::HostFacts;

#[derive(Deserialize)]
struct ManifestV1 {
    tool: ToolInfo,
    kind: Kind,
    command_line: Vec<String>,
    started_unix_ms: u64,
    host: HostFacts,
    targets: Vec<TargetFacts>,
    plan: PlanV1,
}

#[derive(Deserialize)]
struct PlanV1 {
    name: String,
    together: bool,
    repeat: u32,
    pause_ns: u64,
    precondition: Option<Point>,
    points: Vec<Point>,
}

#[derive(Deserialize)]
struct PointResultV1 {
    point: Point,
    result: RunResult,
    #[serde(default)]
    power_w: Option<f64>,
    #[serde(default)]
    steady: Option<SteadyRecord>,
}

/// A schema-1 point has no spec: derive it from its fields as schema 1 did.
fn with_spec(mut p: Point, fallback: Option<&RunResult>) -> Point {
    match drivelab_engine::options::from_pairs(p.fields.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(spec) => p.spec = spec,
        Err(_) => {
            if let Some(r) = fallback {
                p.spec = r.spec.clone();
            }
        }
    }
    p
}

/// `run.json` (already parsed as `value`) and the points of a schema-1 directory.
pub fn load(dir: &Path, value: serde_json::Value) -> Result<Results, Error> {
    let old: ManifestV1 = serde_json::from_value(value)
        .map_err(|error| super::LoadError::NotASchema1Manifest { path: dir.join("run.json"), error })?;
    let mut targets: Vec<String> = Vec::new();
    for t in old.plan.points.iter().flat_map(|p| p.targets.iter()) {
        if !targets.contains(t) {
            targets.push(t.clone());
        }
    }
    let plan = Plan {
        name: old.plan.name,
        targets,
        together: old.plan.together,
        repeat: old.plan.repeat,
        pause_ns: old.plan.pause_ns,
        precondition: old.plan.precondition.map(|p| with_spec(p, None)),
        points: old.plan.points.into_iter().map(|p| with_spec(p, None)).collect(),
        source_notices: Vec::new(),
        thread: false,
    };
    let mut points = Vec::new();
    for f in record_files(&dir.join("points")) {
        let p: PointResultV1 = store::read_json(&f)?;
        points.push(PointResult {
            schema: 1,
            point: with_spec(p.point, Some(&p.result)),
            result: p.result,
            power_w: p.power_w,
            steady: p.steady,
            repeats: None,
            ranks: Vec::new(),
            prep: Vec::new(),
            jobs: Vec::new(),
        });
    }
    let manifest = Manifest {
        schema: 1,
        tool: old.tool,
        kind: old.kind,
        command_line: old.command_line,
        started_unix_ms: old.started_unix_ms,
        host: old.host,
        targets: old.targets,
        setup: Setup::Plan(plan),
        ranks: None,
    };
    Ok(Results {
        dir: dir.to_path_buf(),
        manifest,
        points,
        probes: Vec::new(),
        outcome: None,
        details: Default::default(),
    })
}
