//! THE way to run anything. Every command — `run`, plans, suites, `qos`, `act`, preconditioning —
//! measures through [`Lab::measure`] (or [`Lab::measure_streams`]), which prepares the targets
//! (probing, safety, file creation: [`crate::prepare`]), runs the engine, samples power and
//! attaches notices; and every driver tells its caller what happens through one [`Event`] stream.
//! A new capability (data verification, MPI ranks) is added here once and every command has it.
//!
//! The drivers ([`crate::runner`] for points, [`crate::qos`] and [`crate::act_run`] for searches)
//! decide what to run; this module only runs it. The CLI turns [`Event`]s into lines.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use drivelab_engine::measurement::kinds::First;
use drivelab_engine::result::RunResult;
use drivelab_engine::run::{run_streams_until, EndEarly, Progress, Stream, VerifyFrom};
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::verify::Journal;
use drivelab_engine::Error;

use crate::act::ActRates;
use crate::plan::Point;
use crate::power;
use crate::prepare::{self, Prepared};
use crate::ranks::halt::Halt;
use crate::ranks::{merge::merge_ranks, RankPart, Ranks, StopLine};
use crate::results::{PointResult, ProbeResult};
use crate::safety::{Claims, Permission};
use crate::steady::WindowStats;
use crate::verify::{self, Known};

/// What a driver tells its caller as it goes.
pub enum Event<'a> {
    /// The results directory was created (or reopened to resume).
    ResultsDir(&'a std::path::Path),
    /// Something the user should know about how the run is done (engine fallback, buffered I/O).
    Notice(&'a str),
    /// A new file is being filled before it is used.
    Fill { path: &'a str, done_bytes: u64, total_bytes: u64 },
    /// A whole-target sequential write starts: pass `pass` of `passes` over `target`, `bytes`
    /// long, with `after_bytes` more of this step to write after it (other targets, later
    /// passes), so the live line can say when the step, and the plan, will be done.
    Writing { why: WriteWhy, target: &'a str, pass: u32, passes: u32, bytes: u64, after_bytes: u64 },
    /// A point starts (`total`: points in the plan).
    PointStart { point: &'a Point, total: usize },
    /// A point already has a result from an earlier run (resume).
    PointSkip { point: &'a Point },
    /// A steady-state round of a point finished.
    Round { round: usize, iops: f64, window: Option<&'a WindowStats>, verdict: &'a str },
    /// A point finished and was saved.
    PointDone { record: &'a PointResult },
    /// A search (qos, act) starts a probe: what it runs, in a line.
    ProbeStart { index: usize, what: &'a str },
    /// An ACT load's derived rates (per target).
    ActRates { scale: f64, rates: &'a ActRates },
    /// A probe finished and was saved.
    ProbeDone { record: &'a ProbeResult },
    /// A line of a driver's own (the search's start, a closed-loop maximum...).
    Info(&'a str),
    /// Live figures of the run in progress (about 4 a second).
    Progress(&'a Progress),
    /// The measurement in progress ended (the live line can go).
    MeasureEnd,
}

/// Why a target is written whole before the measurements ([`Event::Writing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteWhy {
    /// A plan's fill of a device it writes (or ACT's prep): once, so reads read written blocks.
    Fill,
    /// `--precondition N`: SNIA's workload-independent preconditioning passes.
    Precondition,
}

/// `--size` applies to files drivelab creates: say so for each target that already existed with
/// another size (or is a device), rather than measure it silently.
fn size_notices(p: &Prepared, asked: u64) -> Vec<String> {
    use drivelab_engine::target::TargetKind;
    use drivelab_engine::units::fmt_size;
    p.targets
        .iter()
        .map(|t| &t.info)
        .filter(|i| i.kind != TargetKind::Null && !p.created.contains(&i.path) && i.size_bytes != asked)
        .map(|i| {
            // A device is never to be deleted: only a file can be made again at --size.
            let (what, remedy) = match i.kind {
                TargetKind::Block => ("is a block device of", "use --span to use less of it"),
                _ => ("already exists with", "delete it to have it made at --size, or use --span to use less of it"),
            };
            format!(
                "{} {what} {}; --size {} applies only to files drivelab creates, so its {} are used ({remedy})",
                i.path,
                fmt_size(i.size_bytes),
                fmt_size(asked),
                fmt_size(i.size_bytes)
            )
        })
        .collect()
}

/// What every command shares about how to run.
pub struct Setup<'a> {
    /// Size of a file target that does not exist yet (created and filled first).
    pub new_file_size: u64,
    /// `new_file_size` was asked for (`--size`): an existing file of another size is noticed.
    pub size_asked: bool,
    pub perm: Permission<'a>,
    /// A command printing watts, sampled every second during each measurement.
    pub power_cmd: Option<String>,
    /// Set by Ctrl-C: stops file creation and runs (finished results are kept).
    pub stop: Arc<AtomicBool>,
    /// `--journal`: the file (new) every verifying write is journaled in (see
    /// `drivelab_engine::verify::Journal`); created at the first verifying run.
    pub journal: Option<std::path::PathBuf>,
    /// Under `mpirun`: this rank's place among the others (see [`crate::ranks`]). None: alone.
    pub ranks: Option<std::rc::Rc<Ranks>>,
    /// fio's `--status-interval`: each measurement's result so far every this many ns, in its
    /// `Event::Progress` (0: never).
    pub status_every_ns: u64,
    /// `--label`: the names targets are shown by, saved in the manifest.
    pub names: crate::names::DriveNames,
}

/// Why a point or its journal is refused as it is about to run: the words defined once, each
/// kind with its point or file, so a caller can match (or downcast from [`Error::Refused`]) the
/// kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    #[error("--journal {}: the file exists; a journal is never appended to or overwritten: give a new file name",
            .path.display())]
    JournalExists { path: std::path::PathBuf },
    /// A stream (`label`) that does not verify, with `--journal`.
    #[error("--journal {}: \"{label}\" runs without verify, so its writes could not be journaled: add --verify \
             (or `verify = true` to the point)", .path.display())]
    JournalWithoutVerify { path: std::path::PathBuf, label: String },
    /// A point's fio options whose watch no longer reads (the point was edited since its job
    /// file was read): the reader's words.
    #[error("{point}: {why}")]
    Watch { point: String, why: String },
}

impl From<ExecuteError> for Error {
    fn from(e: ExecuteError) -> Error {
        Error::refused(e)
    }
}

/// Why the journal at `path` could not be created, and what to do.
pub fn journal_error(path: &std::path::Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        return ExecuteError::JournalExists { path: path.to_path_buf() }.into();
    }
    Error::io(format!("creating the journal {}", path.display()), e)
}

/// A measurement: the engine's result as run, and the power drawn meanwhile.
pub struct Measured {
    pub result: RunResult,
    /// Average watts over the measurement, with `--power-cmd` (under MPI: every host's, added).
    pub power_w: Option<f64>,
    /// Under MPI: each rank's own part (`result` is their merge); empty when alone.
    pub ranks: Vec<RankPart>,
    /// A point of several jobs: each job's own result, in stream order (`result` is their
    /// merge); empty for one job.
    pub streams: Vec<RunResult>,
}

impl Measured {
    /// Measurements of one point that ran one after the other (a steady-state window's
    /// rounds) as one: the results joined over their windows (`merge::consecutive`), each
    /// stream's and each rank's the same way, the power their mean. `rounds` must not be empty.
    pub fn consecutive(rounds: Vec<Measured>) -> Measured {
        use drivelab_engine::merge::consecutive;
        let results: Vec<RunResult> = rounds.iter().map(|m| m.result.clone()).collect();
        let watts: Vec<f64> = rounds.iter().filter_map(|m| m.power_w).collect();
        let last = rounds.last().expect("at least one round");
        let streams = (0..last.streams.len())
            .map(|i| consecutive(&rounds.iter().filter_map(|m| m.streams.get(i).cloned()).collect::<Vec<_>>()))
            .collect();
        let ranks = last
            .ranks
            .iter()
            .enumerate()
            .map(|(k, part)| {
                let of_rank: Vec<&RankPart> = rounds.iter().filter_map(|m| m.ranks.get(k)).collect();
                let results = (0..part.results.len())
                    .map(|i| consecutive(&of_rank.iter().filter_map(|r| r.results.get(i).cloned()).collect::<Vec<_>>()))
                    .collect();
                let w: Vec<f64> = of_rank.iter().filter_map(|r| r.power_w).collect();
                RankPart { results, power_w: mean(&w), ..part.clone() }
            })
            .collect();
        Measured { result: consecutive(&results), power_w: mean(&watts), ranks, streams }
    }
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Several workloads measured at once: one result per stream (under MPI: every rank's merged).
pub struct MeasuredStreams {
    pub results: Vec<RunResult>,
    pub power_w: Option<f64>,
    /// Under MPI: each rank's own results, one per stream.
    pub ranks: Vec<RankPart>,
}

/// What a measurement needs beside its prepared targets (see [`Lab::ready`]).
struct Ready {
    maps: Vec<Vec<drivelab_engine::verify::GenerationMap>>,
    ids: Vec<Vec<u32>>,
    journal: Option<Arc<Journal>>,
}

/// The lab: the setup, and where events go.
pub struct Lab<'a> {
    pub setup: Setup<'a>,
    sink: &'a mut dyn FnMut(Event),
    /// Targets opened, checked and held for writing until the lab ends (see `safety`).
    claims: Claims,
    /// With verify: what is known to be written on each target (see [`crate::verify`]).
    known: Known,
    /// `--journal`, once created.
    journal: Option<Arc<Journal>>,
    /// Under MPI: every target this rank checked (canonical paths), to refuse two ranks of one
    /// host naming the same one (see [`Ranks::check_own_targets`]).
    checked: std::cell::RefCell<Vec<String>>,
    /// The point being measured ends early by fio's options (`fiojob::watch`): taken by its run.
    watch: Option<crate::fiojob::watch::Watch>,
}

impl<'a> Lab<'a> {
    pub fn new(setup: Setup<'a>, sink: &'a mut dyn FnMut(Event)) -> Lab<'a> {
        Lab {
            setup,
            sink,
            claims: Claims::new(),
            known: Known::default(),
            journal: None,
            checked: Default::default(),
            watch: None,
        }
    }

    /// Under MPI: this rank's place among the others.
    pub fn ranks(&self) -> Option<&Ranks> {
        self.setup.ranks.as_deref()
    }

    /// Ranks taking part (1 when alone).
    pub fn rank_count(&self) -> usize {
        self.ranks().map_or(1, Ranks::size)
    }

    /// This process writes the results directory and prints (always, unless it is an MPI rank
    /// other than 0).
    pub fn writes_results(&self) -> bool {
        self.ranks().is_none_or(Ranks::is_writer)
    }

    /// `mine` as the writer has it (collective under MPI: rank 0's, sent to every rank), for what
    /// only the results directory knows (the points a resumed run has done).
    pub fn from_writer<T: serde::Serialize + serde::de::DeserializeOwned>(&self, mine: T) -> Result<T, Error> {
        let Some(ranks) = self.ranks() else { return Ok(mine) };
        Ok(ranks.gather(&mine)?.swap_remove(0))
    }

    /// An existing results directory to resume, opened by the writer (collective under MPI).
    pub fn reopen_results_dir(&mut self, path: &std::path::Path) -> Result<crate::results::ResultsDir, Error> {
        self.writers_dir(path, || crate::results::ResultsDir::open(path))
    }

    /// A driver's checks, agreed by every rank (collective under MPI): a refusal on any rank is
    /// every rank's, named with its rank and host, before anything is written anywhere.
    pub fn agree<T>(&self, local: Result<T, Error>) -> Result<T, Error> {
        let Some(ranks) = self.ranks() else { return local };
        let local = ranks.agree(local)?;
        let checked = self.checked.borrow().clone();
        ranks.agree(ranks.check_own_targets(&checked))?;
        Ok(local)
    }

    /// The manifest of a new results directory: this host's facts, and under MPI every rank's
    /// (collective).
    pub fn manifest(
        &self,
        kind: crate::results::Kind,
        command_line: Vec<String>,
        targets: &[String],
        setup: crate::results::Setup,
    ) -> Result<crate::results::Manifest, Error> {
        let local: Vec<String> = targets.iter().map(|t| self.local_target(t)).collect();
        let mut m = crate::results::Manifest::new(kind, command_line, &local, setup);
        for (t, given) in m.targets.iter_mut().zip(targets) {
            t.name = self.setup.names.get(given).map(str::to_string);
        }
        // Files the run will create, at the size it creates them (what a resume needs).
        for t in &mut m.targets {
            let info = drivelab_engine::target::probe(&t.path).ok();
            if info.is_some_and(|i| i.kind == drivelab_engine::target::TargetKind::File && !i.exists) {
                t.new_file_bytes = Some(self.setup.new_file_size);
            }
        }
        if let Some(ranks) = self.ranks() {
            let mine = crate::ranks::RankFacts { rank: ranks.rank(), host: m.host.clone(), targets: m.targets.clone() };
            let all = ranks.gather(&mine)?;
            m.ranks = Some(crate::ranks::RanksRecord { size: ranks.size(), share: ranks.share(), ranks: all });
        }
        Ok(m)
    }

    /// The results directory of `manifest` under `base`: created by the writer (rank 0), a
    /// directory that saves nothing on the other ranks.
    pub fn results_dir(
        &mut self,
        base: &std::path::Path,
        manifest: &crate::results::Manifest,
    ) -> Result<crate::results::ResultsDir, Error> {
        self.writers_dir(base, || {
            crate::store::check_results_base(base).and_then(|_| crate::results::ResultsDir::create(base, manifest))
        })
    }

    /// The results directory `make` gives the writer (`ResultsDir::not_written(path)` elsewhere),
    /// agreed by every rank and announced.
    fn writers_dir(
        &mut self,
        path: &std::path::Path,
        make: impl FnOnce() -> Result<crate::results::ResultsDir, Error>,
    ) -> Result<crate::results::ResultsDir, Error> {
        let local = if self.writes_results() { make() } else { Ok(crate::results::ResultsDir::not_written(path)) };
        let dir = self.agree(local)?;
        self.emit(Event::ResultsDir(dir.path()));
        Ok(dir)
    }

    /// `target` as this rank names it (`{rank}`, `{host}` replaced under MPI).
    pub fn local_target(&self, target: &str) -> String {
        self.ranks().map_or_else(|| target.to_string(), |r| r.expand(target))
    }

    /// `spec` on `targets` as this rank runs them: targets expanded, and this rank's share of a
    /// total rate or of a split region (see [`Ranks::rank_spec`]).
    fn local_stream(&self, spec: &AccessSpec, targets: &[String]) -> Result<(AccessSpec, Vec<String>), Error> {
        let Some(ranks) = self.ranks() else { return Ok((spec.clone(), targets.to_vec())) };
        let targets: Vec<String> = targets.iter().map(|t| ranks.expand(t)).collect();
        let size = if ranks.share() == crate::ranks::Share::Split {
            let infos = prepare::probe_all(&targets)?;
            infos.iter().map(|i| if i.exists { i.size_bytes } else { self.setup.new_file_size }).min().unwrap_or(0)
        } else {
            0
        };
        Ok((ranks.rank_spec(spec, size)?, targets))
    }

    pub fn emit(&mut self, e: Event) {
        (self.sink)(e)
    }

    /// Ctrl-C was pressed.
    pub fn stopped(&self) -> bool {
        self.setup.stop.load(Ordering::SeqCst)
    }

    /// Every check `measure(spec, targets)` would make that can refuse, with no side effects
    /// (this rank's only: drivers agree on their checks with [`Lab::agree`]).
    pub fn check(&self, spec: &AccessSpec, targets: &[String]) -> Result<AccessSpec, Error> {
        let (spec, targets) = self.local_stream(spec, targets)?;
        if self.ranks().is_some() {
            let mut checked = self.checked.borrow_mut();
            for t in &targets {
                let t = drivelab_engine::target::canonical(t).to_string_lossy().into_owned();
                if !checked.contains(&t) {
                    checked.push(t);
                }
            }
        }
        prepare::check(&spec, &targets, self.setup.new_file_size, &self.setup.perm, &self.claims).map(|(s, _, _)| s)
    }

    /// Every check of the power command: it runs and prints watts.
    pub fn check_power(&self) -> Result<(), Error> {
        match &self.setup.power_cmd {
            Some(cmd) => power::read_watts(cmd).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Prepare `targets` (probe, safety, create), announcing notices and fill progress.
    fn prepare(&mut self, spec: &AccessSpec, targets: &[String]) -> Result<Prepared, Error> {
        let (size, stop) = (self.setup.new_file_size, self.setup.stop.clone());
        let sink = &mut *self.sink;
        let mut prepared = prepare::prepare(
            spec,
            targets,
            size,
            &self.setup.perm,
            &mut self.claims,
            &stop,
            &mut |path, done, total| sink(Event::Fill { path, done_bytes: done, total_bytes: total }),
        )?;
        if self.setup.size_asked {
            let notes = size_notices(&prepared, self.setup.new_file_size);
            prepared.notices.extend(notes);
        }
        if self.ranks().is_none() {
            prepared.notices.extend(unexpanded_notices(targets));
        }
        prepared.notices.extend(random_map_notices(&prepared));
        for n in &prepared.notices {
            self.emit(Event::Notice(n));
        }
        Ok(prepared)
    }

    /// Run `spec` on `targets`: prepare, run, sample power, attach notices.
    pub fn measure(&mut self, spec: &AccessSpec, targets: &[String]) -> Result<Measured, Error> {
        let mut m = self.measure_streams(&[(spec.clone(), targets.to_vec())])?;
        Ok(Measured { result: m.results.remove(0), power_w: m.power_w, ranks: m.ranks, streams: Vec::new() })
    }

    /// Run a point: its own spec, and its concurrent jobs (a fio group) started together with it,
    /// merged into one result (`drivelab_engine::merge`: the streams' measurements merged and
    /// summarized — histograms added, bytes over the longest window as fio's group reporting,
    /// an open loop's rates and lateness every job's).
    pub fn measure_point(&mut self, point: &Point) -> Result<Measured, Error> {
        // Checked when the job file was read: an error here is a point edited since.
        self.watch = match point.fio.as_ref().map(crate::fiojob::watch::Watch::of).transpose() {
            Ok(w) => w.flatten(),
            Err(why) => return Err(ExecuteError::Watch { point: point.label.clone(), why }.into()),
        };
        if point.concurrent.is_empty() {
            return self.measure(&point.spec, &point.targets);
        }
        let MeasuredStreams { results, power_w, ranks } = self.measure_streams(&point.streams())?;
        let mut result = drivelab_engine::merge::merge_results(&results);
        let jobs: Vec<String> = std::iter::once(point.step.as_str())
            .chain(point.concurrent.iter().map(|c| c.name.as_str()))
            .zip(&results)
            .map(|(name, r)| format!("{name}: {} ({:.0} IOPS)", r.spec.label(), r.total.iops))
            .collect();
        result
            .notices
            .insert(0, format!("{} jobs ran together, merged into this result: {}", jobs.len(), jobs.join("; ")));
        Ok(Measured { result, power_w, ranks, streams: results })
    }

    /// Run several workloads at once (ACT's three streams per drive), all started together;
    /// one result per stream, and the power drawn meanwhile. Under MPI every rank runs them on
    /// its own targets, started at one barrier, and each stream's results are merged.
    pub fn measure_streams(&mut self, streams: &[(AccessSpec, Vec<String>)]) -> Result<MeasuredStreams, Error> {
        let Some(ranks) = self.setup.ranks.clone() else {
            let prepared = self.prepare_streams(streams)?;
            let ready = self.ready(&prepared)?;
            let (results, power_w) = self.run_ready(&prepared, &ready, None)?;
            return Ok(MeasuredStreams { results, power_w, ranks: Vec::new() });
        };
        // Every rank prepares (probes, checks, creates, claims) and they agree before any
        // writes; targets shared among ranks are prepared in turn, so the first creates a new
        // file and the others find it made.
        let prepared = if ranks.share().shared() {
            let mut mine = None;
            for turn in 0..ranks.size() {
                let local = if turn == ranks.rank() { self.prepare_streams(streams).map(Some) } else { Ok(None) };
                if let Some(p) = ranks.agree(local)? {
                    mine = Some(p);
                }
            }
            mine.expect("every rank takes a turn")
        } else {
            ranks.agree(self.prepare_streams(streams))?
        };
        let ready = ranks.agree(self.ready(&prepared))?;
        let start = ranks.start();
        let ran = ranks.while_measuring(|line| self.run_ready(&prepared, &ready, Some(line)));
        let local = ran.map(|(mut results, power_w)| {
            for r in &mut results {
                // Maps stay with the rank that wrote them (they are large; see `known`).
                r.verify_maps.clear();
            }
            RankPart { rank: ranks.rank(), host: ranks.host().to_string(), results, power_w, start }
        });
        let parts = ranks.gather_results(local)?;
        let asked: Vec<AccessSpec> = streams.iter().map(|(s, _)| s.clone()).collect();
        let results = merge_ranks(&parts, &asked);
        if results.iter().any(|r| r.interrupted) {
            // Every rank ends as interrupted, so every driver stops at the same point.
            self.setup.stop.store(true, Ordering::SeqCst);
        }
        Ok(MeasuredStreams { results, power_w: crate::ranks::merge::total_power(&parts), ranks: parts })
    }

    /// Probe, check, create and claim every stream's targets (this rank's).
    fn prepare_streams(&mut self, streams: &[(AccessSpec, Vec<String>)]) -> Result<Vec<Prepared>, Error> {
        let mut prepared = Vec::with_capacity(streams.len());
        for (spec, targets) in streams {
            let (spec, targets) = self.local_stream(spec, targets)?;
            prepared.push(self.prepare(&spec, &targets)?);
        }
        Ok(prepared)
    }

    /// What prepared streams need before the engine starts: verify's fill of regions nothing is
    /// known of, the generation maps and target ids, the journal.
    fn ready(&mut self, prepared: &[Prepared]) -> Result<Ready, Error> {
        for p in prepared {
            self.fill_for_verify(p)?;
        }
        let maps: Vec<Vec<_>> =
            prepared.iter().map(|p| self.known.maps_for(&p.spec, &p.targets)).collect::<Result<_, _>>()?;
        let ids: Vec<Vec<u32>> =
            prepared.iter().map(|p| if p.spec.verify { self.known.ids_for(&p.targets) } else { Vec::new() }).collect();
        let journal = self.journal_for(prepared)?;
        Ok(Ready { maps, ids, journal })
    }

    /// Run prepared streams on this host; afterwards what is known to be written,
    /// `--verify-after`'s re-read and the notices. Under MPI (`line`) an I/O error on any rank
    /// stops every rank ([`Halt`]).
    fn run_ready(
        &mut self,
        prepared: &[Prepared],
        ready: &Ready,
        line: Option<&dyn StopLine>,
    ) -> Result<(Vec<RunResult>, Option<f64>), Error> {
        // Ctrl-C during preparation: the engine sees the stop flag and returns an interrupted
        // result at once, so the driver keeps what finished and ends as interrupted.
        let list: Vec<Stream> = prepared
            .iter()
            .zip(ready.maps.iter().zip(&ready.ids))
            .map(|(p, (maps, ids))| Stream {
                spec: &p.spec,
                targets: &p.targets,
                verify: VerifyFrom { maps, ids, journal: ready.journal.as_ref().filter(|_| p.spec.verify) },
            })
            .collect();
        let engine = prepared[0].spec.engine;
        let sampler = self.setup.power_cmd.as_deref().map(power::Sampler::start);
        let mut halt = line.map(|l| Halt::new(l, self.setup.stop.clone()));
        let stop = halt.as_ref().map_or_else(|| self.setup.stop.clone(), Halt::flag);
        let sink = &mut *self.sink;
        let end = Arc::new(EndEarly::default());
        end.report_every(self.setup.status_every_ns);
        let mut watch = self.watch.take();
        let mut ran = run_streams_until(&list, engine, stop, end.clone(), &mut |p| {
            if let Some(h) = halt.as_mut() {
                h.tick(p);
            }
            if let Some(w) = watch.as_mut() {
                if let Some(why) = w.tick(p) {
                    end.end_streams(why, w.mask());
                }
            }
            sink(Event::Progress(p))
        });
        if let (Some(w), Ok(results)) = (watch.as_ref(), ran.as_mut()) {
            for r in results.iter_mut() {
                r.amend(|k| k.steadystate = w.steadystate().map(|s| First::new(0, s)));
                if let Some(note) = w.note().filter(|_| r.kinds.ended.is_some()) {
                    r.notices.push(note.to_string());
                }
            }
        }
        if let (Some(h), Some(ranks)) = (halt, self.setup.ranks.as_ref()) {
            h.finish(&mut ran, |r| ranks.who(r));
        }
        let power_w = sampler.and_then(|s| s.finish());
        self.emit(Event::MeasureEnd);
        let mut results = ran?;
        for (r, p) in results.iter_mut().zip(prepared) {
            if r.kinds.verify.is_some() {
                self.known.keep(r);
            } else if p.spec.has_writes() {
                // Unverified writes: what those targets hold is no longer known.
                self.known.forget(&p.targets);
            }
            if p.spec.verify_after && !r.interrupted {
                let total: usize = r.verify_maps.iter().map(|m| m.written()).sum();
                self.emit(Event::Info(&format!("verify: re-reading the {total} units written")));
                let checks = verify::after(r, &p.targets, &self.setup.stop);
                r.amend(|k| {
                    if let Some(v) = k.verify.as_mut() {
                        v.after = Some(checks);
                    }
                });
            }
            r.notices.extend(p.notices.iter().cloned());
            if !p.spec.direct {
                r.notices.push("buffered I/O: results include the page cache".into());
            }
        }
        Ok((results, power_w))
    }

    /// One run on this host alone, with no other rank (verify's fill before a measurement).
    fn measure_here(&mut self, spec: &AccessSpec, targets: &[String]) -> Result<RunResult, Error> {
        // The point's own watch is for the point's run, not this one.
        let watch = self.watch.take();
        let prepared = vec![self.prepare(spec, targets)?];
        let ready = self.ready(&prepared);
        let ran = ready.and_then(|ready| self.run_ready(&prepared, &ready, None));
        self.watch = watch;
        Ok(ran?.0.remove(0))
    }

    /// With `--journal`: the journal (created at the first run), after checking that every
    /// stream verifies (an unverified write would be missing from the journal, and the journal
    /// could no longer tell what its units hold).
    fn journal_for(&mut self, prepared: &[Prepared]) -> Result<Option<Arc<Journal>>, Error> {
        let Some(path) = self.setup.journal.clone() else { return Ok(None) };
        if let Some(p) = prepared.iter().find(|p| !p.spec.verify) {
            return Err(ExecuteError::JournalWithoutVerify { path, label: p.spec.label() }.into());
        }
        if self.journal.is_none() {
            let j = Journal::create(&path).map_err(|e| journal_error(&path, e))?;
            self.journal = Some(Arc::new(j));
        }
        Ok(self.journal.clone())
    }

    /// A verifying run that reads, on targets where nothing is known to be written in its
    /// region: write the region first (stamped, sequential), so its reads can be checked.
    fn fill_for_verify(&mut self, p: &Prepared) -> Result<(), Error> {
        if !p.spec.verify || !p.spec.has_reads() {
            return Ok(());
        }
        // fio's verify_pattern: every read is checked against the pattern, whoever wrote it;
        // verify_found (fio's jobs): every read is checked by what it finds.
        if p.spec.verify_pattern.is_some() || p.spec.verify_found {
            return Ok(());
        }
        for t in &p.targets {
            if !self.known.region_unknown(&p.spec, t) {
                continue;
            }
            let spec = verify::fill_spec(&p.spec, t.span);
            let note = format!(
                "verify: nothing is known to be written in the region of {} that this run reads, so it is written \
                 first ({} in {} blocks, stamped) and every read is checked",
                t.info.path,
                drivelab_engine::units::fmt_size(t.span),
                drivelab_engine::units::fmt_size(spec.bs[0].bytes)
            );
            self.emit(Event::Notice(&note));
            let r = self
                .measure_here(&spec, std::slice::from_ref(&t.info.path))
                .map_err(|e| e.context("verify: writing the region before reading it"))?;
            if let Some(e) = r.errors.first() {
                let why = format!("verify: writing the region of {} before reading it", t.info.path);
                return Err(Error::io(why, std::io::Error::other(e.error.clone())));
            }
            if r.mismatches() > 0 {
                return Err(Error::io(
                    format!("verify: writing the region of {}", t.info.path),
                    std::io::Error::other("its data did not read back as written"),
                ));
            }
        }
        Ok(())
    }
}

/// A target naming `{rank}` or `{host}` outside mpirun is used as written (drivelab alone behaves
/// as it always has), but a file literally named `t{rank}.dat` is rarely what was meant.
/// fio's random map covers at most [`RANDOM_MAP_MAX_POSITIONS`] blocks per job (a 256 MiB
/// bitmap); a larger region runs with each offset drawn independently, and the result says so.
///
/// [`RANDOM_MAP_MAX_POSITIONS`]: drivelab_engine::gen::RANDOM_MAP_MAX_POSITIONS
fn random_map_notices(p: &Prepared) -> Vec<String> {
    let s = &p.spec;
    if !s.random_map || s.random_pct == 0 {
        return Vec::new();
    }
    let max = drivelab_engine::gen::RANDOM_MAP_MAX_POSITIONS;
    p.targets
        .iter()
        .filter(|t| t.span / s.align().max(1) > max)
        .map(|t| {
            format!(
                "random map: {}'s region of {} holds more than {max} blocks of {} bytes; its random offsets are drawn \
                 independently (as with norandommap), so a pass may repeat some blocks and miss others",
                t.info.path,
                drivelab_engine::units::fmt_size(t.span),
                s.align()
            )
        })
        .collect()
}

fn unexpanded_notices(targets: &[String]) -> Vec<String> {
    targets
        .iter()
        .filter(|t| t.contains("{rank}") || t.contains("{host}"))
        .map(|t| format!("{t}: {{rank}} and {{host}} are only filled in under mpirun; used as written here"))
        .collect()
}
