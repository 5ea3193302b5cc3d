//! Data verification across a lab: what is known to be written on each target, carried from
//! one measurement to the next (a plan's points, a suite's steps), so a read in point 5 is
//! checked against the writes of points 1 to 4.
//!
//! - [`Known`] holds one generation map per target path (a byte per unit of the whole target)
//!   and hands the engine the maps of a run's targets; the run's maps come back in its result.
//! - A verifying run that reads a region nothing is known about first has it written ([`fill_spec`]:
//!   one sequential stamped pass), through the same safety checks as any write: reads need known
//!   data to be checked at all.
//! - `verify_after` re-reads every written unit when the run ends ([`after`]).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use drivelab_engine::result::{Checks, RunResult};
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::target::{OpenTarget, TargetKind};
use drivelab_engine::verify::{sweep, GenerationMap, UnitFormat};
use drivelab_engine::Error;

/// The generation map of every target verified so far, by path.
#[derive(Default)]
pub struct Known {
    maps: HashMap<String, GenerationMap>,
}

impl Known {
    /// The maps a verifying run of `spec` on `targets` starts from: what is known, or fresh.
    pub fn maps_for(&self, spec: &AccessSpec, targets: &[OpenTarget]) -> Result<Vec<GenerationMap>, Error> {
        let Some(unit) = spec.verify_unit() else { return Ok(Vec::new()) };
        targets
            .iter()
            .map(|t| match self.maps.get(&t.info.path) {
                Some(m) => Ok(m.clone()),
                None => GenerationMap::whole(t.info.size_bytes, unit).map_err(Error::invalid),
            })
            .collect()
    }

    /// Keep the maps a run ended with.
    pub fn keep(&mut self, r: &RunResult) {
        for (t, m) in r.targets.iter().zip(&r.verify_maps) {
            self.maps.insert(t.path.clone(), m.clone());
        }
    }

    /// Whether nothing is known to be written in `t`'s region (a null target always "holds"
    /// what the map says, so it never needs writing first).
    pub fn region_unknown(&self, spec: &AccessSpec, t: &OpenTarget) -> bool {
        if t.info.kind == TargetKind::Null || spec.verify_unit().is_none() {
            return false;
        }
        match self.maps.get(&t.info.path) {
            None => true,
            Some(m) => {
                let (a, b) = (m.index(t.start), m.index(t.start + t.span).min(m.len()));
                m.generations()[a..b].iter().all(|&g| g == 0)
            }
        }
    }
}

/// The pass that writes a region before a verifying run reads it: sequential, stamped, 1 MiB
/// blocks (or the largest power of two that divides the region), the spec's own region, data,
/// seed, unit, engine and I/O mode; one job at queue depth 4, until the region is written once.
pub fn fill_spec(spec: &AccessSpec, span: u64) -> AccessSpec {
    let unit = spec.verify_unit().unwrap_or(4096);
    let mut bs = 1u64 << 20;
    while bs > unit && (span % bs != 0 || spec.offset_bytes % bs != 0) {
        bs /= 2;
    }
    let mut s = AccessSpec {
        read_pct: 0,
        random_pct: 0,
        bs: vec![drivelab_engine::spec::BlockSize { bytes: bs, pct: 100 }],
        align_bytes: None,
        qd: if spec.engine == drivelab_engine::spec::EngineKind::Psync { 1 } else { 4 },
        jobs: 1,
        time_ns: None,
        io_size_bytes: Some(span),
        ramp_ns: 0,
        rate: None,
        thresholds_ns: Vec::new(),
        verify_after: false,
        verify_unit_bytes: Some(unit),
        cpus: Default::default(),
        ..spec.clone()
    };
    s.verify = true;
    s
}

/// `verify_after`: re-read every unit written on each of `targets` (null ones excepted) and
/// check it; the checks of all targets, the first mismatches of each.
pub fn after(r: &RunResult, targets: &[OpenTarget], stop: &AtomicBool) -> Checks {
    let spec = &r.spec;
    let unit = spec.verify_unit().unwrap_or(4096);
    let format = UnitFormat::new(unit as usize, spec.seed, spec.verify_zero_pct());
    let mut all = Checks::default();
    for (ti, (t, map)) in targets.iter().zip(&r.verify_maps).enumerate() {
        let Some(file) = t.file.as_ref().filter(|_| t.info.kind != TargetKind::Null) else { continue };
        all.merge(&sweep_target(file, &t.info.path, map, &format, ti, stop), Checks::KEEP * targets.len());
    }
    all
}

/// [`sweep`] of target `ti` (at `path`), its mismatches named by path.
fn sweep_target(
    file: &std::fs::File,
    path: &str,
    map: &GenerationMap,
    format: &UnitFormat,
    ti: usize,
    stop: &AtomicBool,
) -> Checks {
    let mut c = sweep(file, map, format, ti as u32, stop);
    for m in &mut c.first {
        m.target = path.to_string();
    }
    c
}

/// What `drivelab verify DIR` found on each target of a saved verifying point.
pub struct Recheck {
    /// The point whose maps were used (the last verifying one of the directory).
    pub point: String,
    pub unit_bytes: u64,
    pub targets: Vec<(String, Checks)>,
}

impl Recheck {
    /// Units wrong or unreadable, on all targets.
    pub fn failed(&self) -> u64 {
        self.targets.iter().map(|(_, c)| c.failed()).sum()
    }
}

/// Re-read every unit the last verifying point of results directory `dir` left written, on
/// each of its targets, and check it (read-only: opened for reading, as the point's I/O mode).
pub fn recheck(dir: &std::path::Path, stop: &AtomicBool) -> Result<Recheck, Error> {
    let results = crate::results::load(dir)?;
    let point = results.points.iter().rev().find(|p| p.result.verify.is_some()).ok_or_else(|| {
        Error::invalid(format!(
            "{} has no point run with verify: give the results directory of a run, plan or suite made with --verify",
            dir.display()
        ))
    })?;
    let maps = crate::results::load_maps(dir, point)?;
    let mut spec = point.result.spec.clone();
    spec.read_pct = 100;
    spec.sync = Default::default();
    let unit = spec.verify_unit().unwrap_or(4096);
    let format = UnitFormat::new(unit as usize, spec.seed, spec.verify_zero_pct());
    let mut out = Recheck { point: point.point.label.clone(), unit_bytes: unit, targets: Vec::new() };
    for (ti, (t, map)) in point.result.targets.iter().zip(&maps).enumerate() {
        if t.kind == TargetKind::Null {
            continue;
        }
        let info = drivelab_engine::target::probe(&t.path)?;
        let open = drivelab_engine::target::open(&info, &spec)?;
        let file = open.file.as_ref().expect("a file or device target has a file");
        out.targets.push((t.path.clone(), sweep_target(file, &t.path, map, &format, ti, stop)));
    }
    Ok(out)
}
