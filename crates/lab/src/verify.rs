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

use drivelab_engine::options::Field;
use drivelab_engine::result::{Checks, RunResult};
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::target::{OpenTarget, TargetKind};
use drivelab_engine::verify::{sweep, GenerationMap, UnitFormat};
use drivelab_engine::Error;

/// Why saved results or a journal cannot be checked against the targets: the words defined
/// once, each kind with its paths and sizes, so a caller can match (or downcast from
/// [`Error::Refused`]) the kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{} has no point run with verify: give the results directory of a run, plan or suite made with --verify",
            .dir.display())]
    NoVerifiedPoint { dir: std::path::PathBuf },
    /// More paths than the journal has targets; `recorded` are the journal's.
    #[error("{given} targets given, and the journal {} records {} ({}): give at most one path per journaled target, in \
             its order", .journal.display(), .recorded.len(), .recorded.join(", "))]
    TooManyPaths { given: usize, journal: std::path::PathBuf, recorded: Vec<String> },
    #[error(
        "{path} holds {size} bytes, and the journal's {journaled} was written up to byte {end}: give the target it \
             journaled"
    )]
    TargetTooSmall { path: String, size: u64, journaled: String, end: u64 },
}

impl From<CheckError> for Error {
    fn from(e: CheckError) -> Error {
        Error::refused(e)
    }
}

/// The generation map of every target verified so far, by path, with the seed and
/// compressibility its units were made with, and the id its units carry.
#[derive(Default)]
pub struct Known {
    maps: HashMap<String, (GenerationMap, u64, u8)>,
    /// Paths by header id, in the order first verified.
    ids: Vec<String>,
}

impl Known {
    /// The maps a verifying run of `spec` on `targets` starts from: what is known, or fresh.
    pub fn maps_for(&self, spec: &AccessSpec, targets: &[OpenTarget]) -> Result<Vec<GenerationMap>, Error> {
        let Some(unit) = spec.verify_unit() else { return Ok(Vec::new()) };
        targets
            .iter()
            .map(|t| match self.current(spec, &t.info.path) {
                Some(m) => Ok(m.clone()),
                None => GenerationMap::whole(t.info.size_bytes, unit).map_err(Error::from),
            })
            .collect()
    }

    /// What is known of `path` for a run of `spec`: nothing when its units were made with another
    /// seed, compressibility or unit size (they would all read as foreign; the run starts over,
    /// and a reading run writes its region first).
    fn current(&self, spec: &AccessSpec, path: &str) -> Option<&GenerationMap> {
        match self.maps.get(path) {
            Some((m, seed, zero))
                if (*seed, *zero, Some(m.unit())) == (spec.seed, spec.verify_zero_pct(), spec.verify_unit()) =>
            {
                Some(m)
            }
            _ => None,
        }
    }

    /// The header id of each of `targets`: one per path for the lab's life.
    pub fn ids_for(&mut self, targets: &[OpenTarget]) -> Vec<u32> {
        targets
            .iter()
            .map(|t| match self.ids.iter().position(|p| *p == t.info.path) {
                Some(i) => i as u32,
                None => {
                    self.ids.push(t.info.path.clone());
                    (self.ids.len() - 1) as u32
                }
            })
            .collect()
    }

    /// Unverified writes went to `targets`: nothing is known of them any more (a later verifying
    /// read writes its region first).
    pub fn forget(&mut self, targets: &[OpenTarget]) {
        for t in targets {
            self.maps.remove(&t.info.path);
        }
    }

    /// Keep the maps a run ended with. A target two streams verified (regions apart, each its
    /// own map) is forgotten instead: neither map knows the other's writes.
    pub fn keep(&mut self, r: &RunResult) {
        let format = (r.spec.seed, r.spec.verify_zero_pct());
        let twice = |path: &str| r.targets.iter().filter(|t| t.path == path).count() > 1;
        for (t, m) in r.targets.iter().zip(&r.verify_maps) {
            if twice(&t.path) {
                self.maps.remove(&t.path);
            } else {
                self.maps.insert(t.path.clone(), (m.clone(), format.0, format.1));
            }
        }
    }

    /// Whether nothing is known to be written in `t`'s region (a null target always "holds"
    /// what the map says, so it never needs writing first).
    pub fn region_unknown(&self, spec: &AccessSpec, t: &OpenTarget) -> bool {
        if t.info.kind == TargetKind::Null || spec.verify_unit().is_none() {
            return false;
        }
        match self.current(spec, &t.info.path) {
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
    while bs > unit && (!span.is_multiple_of(bs) || !spec.offset_bytes.is_multiple_of(bs)) {
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
    let format = UnitFormat::new(unit as usize, spec.seed, spec.verify_zero_pct()).with_pattern(spec.verify_pattern());
    let mut all = Checks::default();
    let Some(v) = &r.kinds.verify else { return all };
    for (ti, (t, map)) in targets.iter().zip(&r.verify_maps).enumerate() {
        let Some(file) = t.file.as_ref().filter(|_| t.info.kind != TargetKind::Null) else { continue };
        // Timed as fio times its verify phase: its reads' runtime, bandwidth and IOPS.
        let began = std::time::Instant::now();
        let mut c = sweep_target(file, &t.info.path, map, &format, v.target_id(ti), stop);
        c.sweep_ns = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX).max(1);
        all.merge(&c, Checks::KEEP * targets.len());
    }
    all
}

/// [`sweep`] of target `ti` (at `path`), its mismatches named by path.
fn sweep_target(
    file: &std::fs::File,
    path: &str,
    map: &GenerationMap,
    format: &UnitFormat,
    id: u32,
    stop: &AtomicBool,
) -> Checks {
    let mut c = sweep(file, map, format, id, stop);
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
    let point = results.points.iter().rev().find(|p| p.result.kinds.verify.is_some());
    let point = point.ok_or_else(|| CheckError::NoVerifiedPoint { dir: dir.to_path_buf() })?;
    // Each target as it is now: its map is checked against its size before it is read.
    let infos: Vec<Option<drivelab_engine::target::TargetInfo>> = point
        .result
        .targets
        .iter()
        .map(|t| (t.kind != TargetKind::Null).then(|| drivelab_engine::target::probe(&t.path)).transpose())
        .collect::<Result<_, _>>()?;
    let sizes: Vec<u64> = infos.iter().map(|i| i.as_ref().map_or(u64::MAX, |i| i.size_bytes)).collect();
    let maps = crate::results::load_maps(dir, point, &sizes)?;
    let mut spec = point.result.spec.clone();
    spec.read_pct = 100;
    spec.sync = Default::default();
    let unit = spec.verify_unit().unwrap_or(4096);
    let format = UnitFormat::new(unit as usize, spec.seed, spec.verify_zero_pct()).with_pattern(spec.verify_pattern());
    let mut out = Recheck { point: point.point.label.clone(), unit_bytes: unit, targets: Vec::new() };
    for (ti, ((t, map), info)) in point.result.targets.iter().zip(&maps).zip(&infos).enumerate() {
        let Some(info) = info else { continue };
        let open = drivelab_engine::target::open(info, &spec)?;
        let file = open.file.as_ref().expect("a file or device target has a file");
        let id = point.result.kinds.verify.as_ref().map_or(ti as u32, |v| v.target_id(ti));
        out.targets.push((t.path.clone(), sweep_target(file, &t.path, map, &format, id, stop)));
    }
    Ok(out)
}

/// What `drivelab verify --journal FILE` found: the journal replayed, and each target judged.
pub struct CrashRecheck {
    pub replayed: drivelab_engine::verify::Replayed,
    pub targets: Vec<drivelab_engine::verify::CrashChecks>,
}

impl CrashRecheck {
    /// Durable writes lost or corrupt, and durable units unreadable, on all targets.
    pub fn failed(&self) -> u64 {
        self.targets.iter().map(|c| c.failed()).sum()
    }
}

/// Replay the journal at `journal` and judge every unit it says was written on each of its
/// targets — read from `paths` in its targets' order where given (a device may have another name
/// after a reboot), else from the paths it recorded. Read-only; block devices are read with
/// O_DIRECT, so nothing cached before the crash answers for the device.
pub fn after_crash(journal: &std::path::Path, paths: &[String], stop: &AtomicBool) -> Result<CrashRecheck, Error> {
    // Each target's size, known before the journal's units for it are allocated.
    let mut sizes: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut size_of = |id: usize, recorded: &str| -> Result<u64, Error> {
        let path = paths.get(id).map_or(recorded, |p| p.as_str());
        if let Some(&s) = sizes.get(path) {
            return Ok(s);
        }
        let size = drivelab_engine::target::probe(path)?.size_bytes;
        sizes.insert(path.to_string(), size);
        Ok(size)
    };
    let replayed = drivelab_engine::verify::replay_file(journal, &mut size_of)?;
    if paths.len() > replayed.targets.len() {
        let recorded = replayed.targets.iter().map(|t| t.path.clone()).collect();
        return Err(CheckError::TooManyPaths { given: paths.len(), journal: journal.to_path_buf(), recorded }.into());
    }
    let mut targets = Vec::new();
    for (i, t) in replayed.targets.iter().enumerate() {
        let path = paths.get(i).unwrap_or(&t.path);
        let info = drivelab_engine::target::probe(path)?;
        let end = t.start + t.units.len() as u64 * t.unit;
        if info.size_bytes < end {
            let (path, size, journaled) = (path.clone(), info.size_bytes, t.path.clone());
            return Err(CheckError::TargetTooSmall { path, size, journaled, end }.into());
        }
        let spec = AccessSpec { read_pct: 100, direct: info.kind == TargetKind::Block, ..Default::default() };
        let open = drivelab_engine::target::open(&info, &spec)?;
        let Some(file) = open.file.as_ref() else { continue };
        targets.push(drivelab_engine::verify::judge(file, path, t, stop));
    }
    Ok(CrashRecheck { replayed, targets })
}

/// Turn on verify (and `verify_after`) in every point of `plan` that can be verified; the
/// labels of those that cannot (their data is zeros: no room for a header), which run as they
/// were.
pub fn verify_plan(plan: &mut crate::plan::Plan, after: bool) -> Vec<String> {
    let mut left_out = Vec::new();
    for p in &mut plan.points {
        let mut checked = p.clone();
        let set = checked.set(Field::Verify, "true").and_then(|()| match (after, checked.spec.verify_after) {
            (false, false) => Ok(()),
            _ => checked.set(Field::VerifyAfter, if after { "true" } else { "false" }),
        });
        if set.is_err() || checked.spec.validate().is_err() {
            left_out.push(p.label.clone());
            continue;
        }
        *p = checked;
    }
    left_out
}
