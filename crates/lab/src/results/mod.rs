//! THE results model: one directory schema that every command writes and every report reads.
//!
//! ```text
//! results/<name>-<YYYYMMDD-HHMMSS>/
//!   run.json                        Manifest: schema, tool, kind, command line, host and target facts,
//!                                   and what was asked (the plan; the qos objective; the ACT config)
//!   points/0001-<slug>.json         PointResult: one per finished point (run, plan, suite)
//!   points/0003-<slug>.interrupted.json   a point cut short by Ctrl-C (kept, not counted as done)
//!   points/0003-<slug>.2.interrupted.json the same point cut short again after a resume
//!   probes/0001-<slug>.json         ProbeResult: one per finished probe of a search (qos, act)
//!   outcome.json                    Outcome: how a search ended (qos, act), written last
//!   report.html                     a view of the above, remade at will
//! ```
//! Each record is written whole the moment it exists ([`crate::store`]), so an interrupted run
//! keeps everything that finished. Results on disk are the interface between measuring and
//! reporting: [`load`] reads any results directory of schema 1 or 2 into one [`Results`].
//!
//! [`open`] reads a results directory or fio's JSON output ([`fio_json`]), telling them apart by
//! what they are, so `report` and `compare` take either.
//!
//! Schema 1 (drivelab 0.1 before this model) had only plan and suite directories; its reader is
//! [`schema1`]. A directory of a newer schema than this drivelab knows is refused, not guessed at.
//!
//! The results directory's record types and its reader/writer are kept together so the on-disk
//! format is defined in one place (docs/RESULTS.md documents it).

pub mod fio_json;
mod maps;
pub mod schema1;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use drivelab_engine::result::{RunResult, ToolInfo};
use drivelab_engine::Error;
use serde::{Deserialize, Serialize};

use crate::act_run::{ActOptions, ActRun};
use crate::plan::{Plan, Point};
pub use crate::qos::{QosSetup, SearchBy};
use crate::search::Evaluation;
use crate::steady::{SteadyRule, WindowStats};
use crate::store;
use crate::suites::SuiteId;
use crate::sysinfo::{self, HostFacts};

pub use maps::{load_maps, map_file, MapsError};

/// The schema this drivelab writes.
pub const SCHEMA: u32 = 2;

/// What produced a results directory. On disk: `"run"`, `"plan"`, `"suite:NAME"`, `"qos"`,
/// `"act"` (the schema-1 spellings of plan and suite, kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Kind {
    /// `drivelab run`: one point.
    Run,
    Plan,
    Suite(SuiteId),
    /// `drivelab qos`: a search for the highest load meeting a latency objective.
    Qos,
    /// `drivelab act`: Aerospike ACT certification loads (and the search for the highest N).
    Act,
}

impl Kind {
    /// Points (run, plan, suite) or probes of a search (qos, act).
    pub fn is_search(self) -> bool {
        matches!(self, Kind::Qos | Kind::Act)
    }

    pub fn suite(self) -> Option<SuiteId> {
        match self {
            Kind::Suite(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Run => f.write_str("run"),
            Kind::Plan => f.write_str("plan"),
            Kind::Suite(s) => write!(f, "suite:{s}"),
            Kind::Qos => f.write_str("qos"),
            Kind::Act => f.write_str("act"),
        }
    }
}

/// Why a results directory's `kind` was refused.
#[derive(Debug, thiserror::Error)]
pub enum KindError {
    #[error("unknown results kind '{0}' (run, plan, suite:NAME, qos or act)")]
    Unknown(String),
    /// `suite:NAME` with a name that is no suite.
    #[error(transparent)]
    Suite(#[from] Error),
}

impl FromStr for Kind {
    type Err = KindError;
    fn from_str(s: &str) -> Result<Kind, KindError> {
        match s {
            "run" => Ok(Kind::Run),
            "plan" => Ok(Kind::Plan),
            "qos" => Ok(Kind::Qos),
            "act" => Ok(Kind::Act),
            _ => match s.strip_prefix("suite:") {
                Some(name) => Ok(Kind::Suite(name.parse()?)),
                None => Err(KindError::Unknown(s.to_string())),
            },
        }
    }
}

impl From<Kind> for String {
    fn from(k: Kind) -> String {
        k.to_string()
    }
}

impl TryFrom<String> for Kind {
    type Error = KindError;
    fn try_from(s: String) -> Result<Kind, KindError> {
        s.parse()
    }
}

/// Facts about one target: what the engine probed, plus device and filesystem facts.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetFacts {
    pub path: String,
    pub device: Option<sysinfo::DeviceFacts>,
    pub file: Option<sysinfo::FileFacts>,
    /// A file that did not exist when the run started: the size the run creates it at (so a
    /// resume creates it again at that size, or replaces what a stop during its filling left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_file_bytes: Option<u64>,
    /// The name the target is shown by (`--label TARGET=TEXT`, [`crate::names`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl TargetFacts {
    pub fn of(path: &str) -> TargetFacts {
        let info = drivelab_engine::target::probe(path).ok();
        let device = info.as_ref().and_then(|i| i.disk.as_deref()).and_then(sysinfo::device);
        let file = match info.as_ref().map(|i| i.kind) {
            Some(drivelab_engine::target::TargetKind::File) => sysinfo::file_facts(Path::new(path)),
            _ => None,
        };
        TargetFacts { path: path.to_string(), device, file, new_file_bytes: None, name: None }
    }
}

/// What was asked, by kind.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
// One per results directory: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Setup {
    /// run, plan and suite: the points (a `run` is a plan of one point).
    Plan(Plan),
    Qos(QosSetup),
    Act(ActOptions),
}

/// `run.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub schema: u32,
    pub tool: ToolInfo,
    pub kind: Kind,
    pub command_line: Vec<String>,
    pub started_unix_ms: u64,
    pub host: HostFacts,
    pub targets: Vec<TargetFacts>,
    pub setup: Setup,
    /// Under MPI: how many ranks ran, how they shared targets, and each rank's host and targets
    /// (`host` and `targets` above are rank 0's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<crate::ranks::RanksRecord>,
}

impl Manifest {
    /// A manifest of this drivelab, now, on this host.
    pub fn new(kind: Kind, command_line: Vec<String>, targets: &[String], setup: Setup) -> Manifest {
        Manifest {
            schema: SCHEMA,
            tool: ToolInfo { name: "drivelab".into(), version: env!("CARGO_PKG_VERSION").into() },
            kind,
            command_line,
            started_unix_ms: store::now_unix_ms(),
            host: sysinfo::host(),
            targets: targets.iter().map(|t| TargetFacts::of(t)).collect(),
            setup,
            ranks: None,
        }
    }

    /// The plan of a run, plan or suite.
    pub fn plan(&self) -> Option<&Plan> {
        match &self.setup {
            Setup::Plan(p) => Some(p),
            _ => None,
        }
    }

    /// A short name for titles: the plan's name, or the kind.
    pub fn name(&self) -> String {
        match &self.setup {
            Setup::Plan(p) => p.name.clone(),
            _ => self.kind.to_string(),
        }
    }
}

/// `points/NNNN-<slug>.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    pub schema: u32,
    pub point: Point,
    pub result: RunResult,
    /// Average of the `--power-cmd` readings taken during the point, in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// With `--steady`: every round's IOPS and whether steady state was reached (`result` is
    /// the last round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyRecord>,
    /// With `--repeat N`: every run's IOPS and MB/s and which one `result` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<crate::repeat::RepeatRecord>,
    /// Under MPI: each rank's own part; `result` is their merge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<crate::ranks::RankPart>,
    /// Each block device the point used: what drivelab knew of its written state when the point
    /// started, and whether a read-only point read a device it never saw written
    /// (`crate::written`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prep: Vec<crate::written::DevicePrep>,
    /// A point of several jobs run together (a fio group, [`Point::concurrent`]): each job's
    /// own result, in stream order (`result` is their merge), so fio's per-job output can be
    /// written. Empty for a point of one job.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<RunResult>,
}

impl PointResult {
    /// Forget the raw measurement of the point and of its streams ([`Keep::Figures`]).
    pub fn drop_measurements(&mut self) {
        self.result.measurement = None;
        for j in &mut self.jobs {
            j.measurement = None;
        }
    }

    /// Forget the latency histograms and per-second series of the point and its streams
    /// ([`Keep::Summaries`]); every figure stays (MPI ranks keep theirs whole: their views merge them).
    pub fn drop_details(&mut self) {
        self.result.drop_details();
        self.jobs.iter_mut().for_each(RunResult::drop_details);
    }

    /// `point`'s record with `result` (and each job's, `jobs`, for a point of several) and
    /// nothing else: a report of a point still running (fio's `--status-interval`).
    pub fn of(point: Point, result: RunResult, jobs: Vec<RunResult>) -> PointResult {
        PointResult::with(point, result, jobs)
    }

    /// `point`'s record before it has run: every job with nothing measured (fio's status
    /// report lists the jobs not started yet with zeros).
    pub fn not_started(point: Point) -> PointResult {
        let streams: Vec<RunResult> =
            point.streams().iter().map(|(spec, _)| drivelab_engine::merge::not_started(spec)).collect();
        let result = drivelab_engine::merge::not_started(&point.spec);
        let jobs = if streams.len() > 1 { streams } else { Vec::new() };
        PointResult::with(point, result, jobs)
    }

    fn with(point: Point, result: RunResult, jobs: Vec<RunResult>) -> PointResult {
        PointResult {
            schema: SCHEMA,
            point,
            result,
            power_w: None,
            steady: None,
            repeats: None,
            ranks: Vec::new(),
            prep: Vec::new(),
            jobs,
        }
    }
}

/// The rounds of a point run to steady state (SNIA PTS), for the report's convergence chart.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SteadyRecord {
    pub rule: SteadyRule,
    /// Total IOPS of each round, in order.
    pub rounds_iops: Vec<f64>,
    /// Steady state was reached; false: gave up after `rule.max_rounds` (or interrupted).
    pub steady: bool,
    /// The last window's statistics (the steady window when `steady`).
    pub window: Option<WindowStats>,
    /// A fixed-rate round whose schedule was not delivered ([`crate::delivery`]): the rounds
    /// stopped there, and a load not carried is never steady. None otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_delivered: Option<crate::delivery::Delivery>,
    /// Each round's seed of where its random I/Os landed (`AccessSpec::offset_seed` of round
    /// 0, 1, ...): every round draws new offsets. Empty in results saved before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds_offset_seed: Vec<u64>,
    /// How many of the last rounds the point's `result` is, merged as one run over their windows
    /// (SNIA PTS reports the measurement window's average): the window's rounds. 0 in results
    /// saved before: `result` is the last round alone. 1 when the rounds stopped early (an
    /// interrupted, errored or undelivered round is the result).
    #[serde(default)]
    pub result_rounds: u32,
}

/// What part a probe plays in a search.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ProbeRole {
    /// qos by rate: the closed-loop maximum the rate search starts from (not judged).
    Saturation,
    /// A step of the search.
    Probe,
    /// The full-length run that confirms the best value found.
    Confirm,
    /// act without --search: the one load asked for.
    Load,
}

/// What a qos probe measured.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QosProbe {
    /// The objective judged on the probe's latency (response time for a rate, service time for
    /// a queue depth).
    pub evaluation: Evaluation,
    /// The target could not keep the schedule (rate search only).
    pub fell_behind: bool,
    /// A rate probe's I/Os done against its schedule: one not delivered is never a pass
    /// ([`crate::delivery`]). None in closed loop (the saturation probe, `--by qd`) and in older
    /// results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<crate::delivery::Delivery>,
    pub result: RunResult,
}

/// The measurement of a probe, by kind.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum ProbeData {
    Qos(Box<QosProbe>),
    Act(Box<ActRun>),
}

/// `probes/NNNN-<slug>.json`: one step of a qos or act search.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProbeResult {
    pub schema: u32,
    /// 1-based, in run order.
    pub index: usize,
    pub role: ProbeRole,
    /// The load tried: IOPS or qd (qos), N (act).
    pub value: f64,
    pub pass: bool,
    /// Why it failed, in a line ("p99 1.3ms over 1ms", "slice 2: 6.1% > 1 ms"); empty on a pass.
    pub why: String,
    pub duration_ns: u64,
    /// The run (or a stream of it) was cut short by Ctrl-C: never judged a pass.
    pub interrupted: bool,
    /// Average `--power-cmd` reading during the probe, in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    pub data: ProbeData,
    /// Under MPI: each rank's own part (one result per stream); `data` holds their merge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<crate::ranks::RankPart>,
}

impl ProbeResult {
    pub fn qos(&self) -> Option<&QosProbe> {
        match &self.data {
            ProbeData::Qos(q) => Some(q),
            ProbeData::Act(_) => None,
        }
    }
    pub fn act(&self) -> Option<&ActRun> {
        match &self.data {
            ProbeData::Act(a) => Some(a),
            ProbeData::Qos(_) => None,
        }
    }
    /// Every engine result of the probe (one, or one per ACT stream).
    pub fn results(&self) -> Vec<&RunResult> {
        match &self.data {
            ProbeData::Qos(q) => vec![&q.result],
            ProbeData::Act(a) => a.streams.iter().map(|s| &s.result).collect(),
        }
    }
}

/// `outcome.json`: how a qos or act search ended.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Outcome {
    pub schema: u32,
    /// The highest passing load (qos: IOPS or qd; act: N, the score); None when none passed.
    pub best: Option<f64>,
    /// Why the search ended, in a line.
    pub reason: String,
    /// Cut short by Ctrl-C: `best` is what was known then, unconfirmed.
    pub interrupted: bool,
    /// An I/O error stopped a probe: never a pass.
    pub errored: bool,
    /// qos by rate: the closed-loop maximum IOPS at the spec's qd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturation_iops: Option<f64>,
    /// Average power over the probe that set `best` (or the last probe), in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// act: the stricter score beside ACT's, judged by response time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseScore>,
}

/// act: the score judged by response time (from each I/O's intended issue time, so a service
/// thread's lateness counts), beside ACT's own score in [`Outcome::best`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseScore {
    /// The highest load that passed by response time; None when none did.
    pub best: Option<f64>,
    pub reason: String,
}

/// A results directory being written. It is locked (`flock` on the directory) while this
/// exists, so a second drivelab resuming the same directory is refused by name instead of
/// interleaving its points with this one's. Every file is made through the opened directory
/// (`store::Dir`): `points`/`probes` are opened without following a symlink put in their place.
pub struct ResultsDir {
    path: PathBuf,
    /// None: an MPI rank other than 0, which saves nothing ([`ResultsDir::not_written`]).
    dir: Option<store::Dir>,
}

/// Lock the opened directory `dir` for as long as it stays open.
fn lock_dir(dir: &store::Dir) -> Result<(), Error> {
    let consequence =
        "two drivelab runs writing one results directory mix their points; wait for it to finish or stop it";
    crate::safety::locks::lock_exclusive(dir.file(), &dir.path().display().to_string(), consequence)
        .map_err(|held| crate::safety::SafetyError::Locked(held).into())
}

/// The name a results directory starts with (`store::new_dir` makes it a slug): the plan's
/// name, else the kind (`run`, `suite-iometer`, `qos`, `act`).
fn dir_name(kind: Kind, manifest: &Manifest) -> String {
    match kind {
        Kind::Plan => manifest.name(),
        Kind::Suite(s) => s.name().to_string(),
        other => other.to_string(),
    }
}

impl ResultsDir {
    /// A new directory under `base` with `run.json` written.
    pub fn create(base: &Path, manifest: &Manifest) -> Result<ResultsDir, Error> {
        let name = dir_name(manifest.kind, manifest);
        let dir = store::new_dir(base, &name, manifest.started_unix_ms / 1000)?;
        let sub = if manifest.kind.is_search() { "probes" } else { "points" };
        dir.make_dir(sub).map_err(|e| Error::io(format!("creating {}", dir.path().join(sub).display()), e))?;
        dir.write_new("run.json", &store::json_bytes(manifest)?)?;
        lock_dir(&dir)?;
        Ok(ResultsDir { path: dir.path().to_path_buf(), dir: Some(dir) })
    }

    /// What an MPI rank other than 0 saves into: nothing (rank 0 saves every rank's part).
    pub fn not_written(base: &Path) -> ResultsDir {
        ResultsDir { path: base.to_path_buf(), dir: None }
    }

    /// An existing directory (to resume); refused while another drivelab writes it, and when
    /// its `points` or `probes` is not the directory drivelab made (a symlink put in its place
    /// would send the points elsewhere): before anything is measured.
    pub fn open(path: &Path) -> Result<ResultsDir, Error> {
        let dir = store::Dir::open(path)?;
        lock_dir(&dir)?;
        for sub in ["points", "probes"] {
            if dir.has(sub) {
                dir.open_own(sub)?;
            }
        }
        Ok(ResultsDir { path: path.to_path_buf(), dir: Some(dir) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Save a finished (or interrupted) point; with verify, its targets' generation maps
    /// beside it first ([`map_file`]), so a saved verifying point always has its maps. A point
    /// interrupted again after a resume keeps the earlier attempt's record: the new one is
    /// `NNNN-<slug>.2.interrupted.json` (`.3.`...), never over it.
    pub fn save_point(&self, r: &PointResult) -> Result<PathBuf, Error> {
        let stem = format!("{:04}-{}", r.point.index, r.point.slug);
        let Some(dir) = &self.dir else {
            let suffix = if r.result.interrupted { ".interrupted.json" } else { ".json" };
            return Ok(self.path.join("points").join(format!("{stem}{suffix}")));
        };
        let points = dir.open_own("points")?;
        let (name, map) = if r.result.interrupted {
            let attempt = (1..1000u32)
                .map(|n| if n == 1 { stem.clone() } else { format!("{stem}.{n}") })
                .find(|s| {
                    !points.has(format!("{s}.interrupted.json")) && !points.has(format!("{s}.interrupted.genmap"))
                })
                .unwrap_or(stem);
            (format!("{attempt}.interrupted.json"), format!("{attempt}.interrupted.genmap"))
        } else {
            let map = map_file(&self.path, &r.point, false);
            (format!("{stem}.json"), map.file_name().unwrap_or_default().to_string_lossy().into_owned())
        };
        if !r.result.verify_maps.is_empty() {
            let mut bytes = Vec::new();
            for m in &r.result.verify_maps {
                m.save(&mut bytes).map_err(|e| Error::io("encoding a generation map", e))?;
            }
            points.write_new(&map, &bytes)?;
        }
        points.write_new(&name, &store::json_bytes(r)?)?;
        Ok(self.path.join("points").join(name))
    }

    /// Save a finished probe.
    pub fn save_probe(&self, p: &ProbeResult, slug: &str) -> Result<PathBuf, Error> {
        let name = format!("{:04}-{slug}.json", p.index);
        let file = self.path.join("probes").join(&name);
        if let Some(dir) = &self.dir {
            dir.open_own("probes")?.write_new(&name, &store::json_bytes(p)?)?;
        }
        Ok(file)
    }

    /// Save how a search ended.
    pub fn save_outcome(&self, o: &Outcome) -> Result<(), Error> {
        let Some(dir) = &self.dir else { return Ok(()) };
        dir.write_new("outcome.json", &store::json_bytes(o)?)
    }

    /// Indices of points that have a (complete) result file.
    pub fn finished_points(&self) -> BTreeSet<usize> {
        record_files(&self.path.join("points"))
            .iter()
            .filter_map(|p| p.file_name()?.to_str()?.split('-').next()?.parse().ok())
            .collect()
    }
}

/// `*.json` files of `dir` that are complete records (not interrupted, not temporary), sorted.
fn record_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".json") && !n.ends_with(".interrupted.json") && !n.starts_with('.')
        })
        .collect();
    files.sort();
    files
}

/// Everything saved in a results directory, of any schema.
#[derive(Clone, Debug)]
pub struct Results {
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// run, plan, suite: finished points in index order.
    pub points: Vec<PointResult>,
    /// qos, act: finished probes in run order.
    pub probes: Vec<ProbeResult>,
    /// qos, act: how the search ended (None while running, or if it was killed).
    pub outcome: Option<Outcome>,
    /// Whether the points hold their histograms and series ([`Keep::Summaries`]).
    pub details: Details,
}

/// True when `dir` looks like a results directory (has `run.json`).
pub fn is_results_dir(dir: &Path) -> bool {
    dir.join("run.json").is_file()
}

/// Why saved results cannot be read: the words defined once, each kind with its path (and the
/// schema found), so a caller can match (or downcast from [`Error::Refused`]) the kind. Exit
/// code 2.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{} is not a results directory (no run.json): give a directory made by drivelab run, plan, suite, \
             qos or act", .dir.display())]
    NoRunJson { dir: PathBuf },
    #[error("{} is not a drivelab manifest: {error}", .path.display())]
    NotAManifest { path: PathBuf, error: serde_json::Error },
    #[error("{} is not a drivelab schema-1 manifest: {error}", .path.display())]
    NotASchema1Manifest { path: PathBuf, error: serde_json::Error },
    #[error("{} was written by a newer drivelab (results schema {schema}; this one reads 1 and {SCHEMA}): use \
             that version", .path.display())]
    NewerSchema { path: PathBuf, schema: u64 },
    #[error("{}: unknown results schema {schema}", .path.display())]
    UnknownSchema { path: PathBuf, schema: u64 },
    /// Neither a results directory nor fio's JSON output: `what` says what it is.
    #[error("{} is not a results directory: it is {what}; give a directory made by drivelab run, plan, suite, qos \
             or act, or fio's JSON output (a file written by fio --output-format=json or json+)", .path.display())]
    NotResults { path: PathBuf, what: &'static str },
    /// A point file read again for its details holds another point than it did.
    #[error("{} changed while it was read (another point is in it now): report the directory again once nothing \
             writes to it", .path.display())]
    Changed { path: PathBuf },
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Error {
        Error::refused(e)
    }
}

/// What of each point is kept in memory when a results directory is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything saved: the raw measurement too (exact merges, fio's formats, `--resume`).
    Everything,
    /// The figures only: each point's raw measurement (and its streams') is dropped as soon as
    /// the point is read and checked; the figures derived from it stay, and MPI ranks keep theirs (their
    /// merge needs them). A measurement's histograms are dense in memory (about 1.7 MB a
    /// point): a 5,000-point directory took 8.4 GB and 23 s to report, 264 MB and 4.8 s so.
    Figures,
    /// What a report holds: [`Keep::Figures`], and in a directory of more than
    /// [`DETAILED_POINTS`] points also each point's latency histograms and per-second series
    /// dropped ([`RunResult::drop_details`]; [`Details::Dropped`]) — they are most of a point's
    /// memory (60 KB of a 70 KB point), and the charts draw them for a few points only, read back
    /// with [`Results::restore_details`]; and the manifest's list of planned points is left empty
    /// (each finished point holds its own; a report never lists unfinished ones).
    Summaries,
}

/// The most points a [`Keep::Summaries`] read keeps whole: below it a report holds every detail
/// (and draws every point's sparklines), as it always did.
pub const DETAILED_POINTS: usize = 1_000;

/// Whether each point's histograms and series are in memory ([`Keep::Summaries`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Details {
    /// Every point whole (as saved, less what [`Keep`] dropped of the raw measurement).
    #[default]
    Kept,
    /// Dropped from every point but those [`Results::restore_details`] read back; `files` are
    /// the points' files, `files[i]` holding `points[i]`.
    Dropped { files: Vec<PathBuf> },
}

/// One point file, keeping `keep`: with [`Keep::Figures`] the raw measurements are dropped once
/// the point is read — decoded and checked first (a damaged or forged one is refused as with
/// [`Keep::Everything`]), one point at a time, so only one point's dense histograms are ever in
/// memory.
fn read_point(f: &Path, keep: Keep) -> Result<PointResult, Error> {
    let mut p: PointResult = store::read_json(f)?;
    if keep != Keep::Everything {
        p.drop_measurements();
    }
    Ok(p)
}

impl Results {
    /// Read back the points at `indices` whole (their histograms and series) where a
    /// [`Keep::Summaries`] read dropped them; nothing to do where every point was kept. A file
    /// changed since (its point no longer the one read first) is refused.
    pub fn restore_details(&mut self, indices: &[usize]) -> Result<(), Error> {
        let Details::Dropped { files } = &self.details else { return Ok(()) };
        for &i in indices {
            let (Some(f), Some(old)) = (files.get(i), self.points.get(i)) else { continue };
            let p = read_point(f, Keep::Figures)?;
            if p.point.index != old.point.index || p.schema != old.schema {
                return Err(LoadError::Changed { path: f.clone() }.into());
            }
            self.points[i] = p;
        }
        Ok(())
    }
}

/// Read a results directory of schema 1 or 2, everything kept ([`Keep::Everything`]).
pub fn load(dir: &Path) -> Result<Results, Error> {
    load_keeping(dir, Keep::Everything)
}

/// Read a results directory of schema 1 or 2, keeping `keep` of each point.
pub fn load_keeping(dir: &Path, keep: Keep) -> Result<Results, Error> {
    // A run.json that is there but not a regular file (a FIFO, a device) is refused by the
    // reader, saying what it is.
    if !dir.join("run.json").exists() {
        return Err(LoadError::NoRunJson { dir: dir.to_path_buf() }.into());
    }
    let run_json = dir.join("run.json");
    let value: serde_json::Value = store::read_json(&run_json)?;
    let schema = value.get("schema").and_then(|v| v.as_u64()).unwrap_or(0);
    match schema {
        1 => schema1::load(dir, value).map(|mut r| {
            if keep != Keep::Everything {
                r.points.iter_mut().for_each(PointResult::drop_measurements);
            }
            r
        }),
        s if s == SCHEMA as u64 => {
            let manifest: Manifest = serde_json::from_value(value)
                .map_err(|error| LoadError::NotAManifest { path: run_json.clone(), error })?;
            // Each record says its schema too: one of another (a newer drivelab's point copied in,
            // a hand-edited file) is refused, not read as this one.
            let checked = |f: &PathBuf, schema: u32| -> Result<(), Error> {
                match schema {
                    s if s == SCHEMA => Ok(()),
                    s if s > SCHEMA => Err(LoadError::NewerSchema { path: f.clone(), schema: s as u64 }.into()),
                    s => Err(LoadError::UnknownSchema { path: f.clone(), schema: s as u64 }.into()),
                }
            };
            let files = record_files(&dir.join("points"));
            let light = keep == Keep::Summaries && files.len() > DETAILED_POINTS;
            let mut points = Vec::with_capacity(files.len());
            for f in &files {
                let mut p = read_point(f, keep)?;
                checked(f, p.schema)?;
                if light {
                    p.drop_details();
                }
                points.push(p);
            }
            let details = if light { Details::Dropped { files } } else { Details::Kept };
            let mut manifest = manifest;
            if let (true, Setup::Plan(plan)) = (light, &mut manifest.setup) {
                // Each finished point holds its own (124 MB of 100,000 points held twice).
                plan.points = Vec::new();
            }
            let probes = record_files(&dir.join("probes"))
                .iter()
                .map(|f| store::read_json::<ProbeResult>(f).and_then(|p| checked(f, p.schema).map(|()| p)))
                .collect::<Result<_, _>>()?;
            let outcome_file = dir.join("outcome.json");
            let outcome = if outcome_file.exists() { Some(store::read_json(&outcome_file)?) } else { None };
            Ok(Results { dir: dir.to_path_buf(), manifest, points, probes, outcome, details })
        }
        schema if schema > SCHEMA as u64 => Err(LoadError::NewerSchema { path: run_json, schema }.into()),
        schema => Err(LoadError::UnknownSchema { path: run_json, schema }.into()),
    }
}

/// Read saved results from `path`: a results directory of any schema ([`load`]), or a file of
/// fio's JSON output (`fio --output-format=json` or `json+`), recognised by its content
/// ([`fio_json`]). Anything else is refused, naming the path and what to give instead.
pub fn open(path: &Path) -> Result<Results, Error> {
    open_keeping(path, Keep::Everything)
}

/// [`open`], keeping `keep` of each point of a results directory.
pub fn open_keeping(path: &Path, keep: Keep) -> Result<Results, Error> {
    if path.is_dir() {
        return load_keeping(path, keep);
    }
    if path.is_file() && fio_json::looks_like(path)? {
        return fio_json::load(path);
    }
    let what = if path.is_file() {
        "a file that is not fio's JSON output (no \"fio version\" at its start)"
    } else if path.exists() {
        "neither a directory nor a file"
    } else {
        "not there"
    };
    Err(LoadError::NotResults { path: path.to_path_buf(), what }.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for k in [Kind::Run, Kind::Plan, Kind::Qos, Kind::Act]
            .into_iter()
            .chain(SuiteId::ALL.iter().map(|s| Kind::Suite(*s)))
        {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(serde_json::from_str::<Kind>(&json).unwrap(), k, "{json}");
        }
        assert_eq!(serde_json::to_string(&Kind::Suite(SuiteId::Iometer)).unwrap(), "\"suite:iometer\"");
        assert!("suite:crystal".parse::<Kind>().unwrap_err().to_string().contains("quick"));
        assert!("bench".parse::<Kind>().is_err());
    }

    #[test]
    fn a_newer_schema_is_refused_not_guessed() {
        let dir = std::env::temp_dir().join(format!("drivelab-results-future-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("run.json"), r#"{"schema": 99, "kind": "plan"}"#).unwrap();
        let e = load(&dir).unwrap_err();
        assert!(e.is_invalid() && e.to_string().contains("newer drivelab"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(load(&dir).unwrap_err().to_string().contains("not a results directory"));
    }
}
