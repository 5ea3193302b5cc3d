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

use drivelab_engine::result::RunResult;
use drivelab_engine::run::{run_streams, Progress, Stream, VerifyFrom};
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::verify::Journal;
use drivelab_engine::Error;

use crate::act::ActRates;
use crate::plan::Point;
use crate::power;
use crate::prepare::{self, Prepared};
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
    /// Preconditioning: pass `pass` of `passes` over `target` starts.
    Precondition { target: &'a str, pass: u32, passes: u32 },
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
            format!(
                "{} already exists with {}; --size {} applies only to files drivelab creates, so its {} are used \
                 (delete it to have it made at --size, or use --span to use less of it)",
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
}

/// Why the journal at `path` could not be created, and what to do.
pub fn journal_error(path: &std::path::Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        return Error::invalid(format!(
            "--journal {}: the file exists; a journal is never appended to or overwritten: give a new file name",
            path.display()
        ));
    }
    Error::io(format!("creating the journal {}", path.display()), e)
}

/// A measurement: the engine's result as run, and the power drawn meanwhile.
pub struct Measured {
    pub result: RunResult,
    /// Average watts over the measurement, with `--power-cmd`.
    pub power_w: Option<f64>,
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
}

impl<'a> Lab<'a> {
    pub fn new(setup: Setup<'a>, sink: &'a mut dyn FnMut(Event)) -> Lab<'a> {
        Lab { setup, sink, claims: Claims::new(), known: Known::default(), journal: None }
    }

    pub fn emit(&mut self, e: Event) {
        (self.sink)(e)
    }

    /// Ctrl-C was pressed.
    pub fn stopped(&self) -> bool {
        self.setup.stop.load(Ordering::SeqCst)
    }

    /// Every check `measure(spec, targets)` would make that can refuse, with no side effects.
    pub fn check(&self, spec: &AccessSpec, targets: &[String]) -> Result<AccessSpec, Error> {
        prepare::check(spec, targets, self.setup.new_file_size, &self.setup.perm, &self.claims).map(|(s, _, _)| s)
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
        for n in &prepared.notices {
            self.emit(Event::Notice(n));
        }
        Ok(prepared)
    }

    /// Run `spec` on `targets`: prepare, run, sample power, attach notices.
    pub fn measure(&mut self, spec: &AccessSpec, targets: &[String]) -> Result<Measured, Error> {
        let (mut results, power_w) = self.measure_streams(&[(spec.clone(), targets.to_vec())])?;
        Ok(Measured { result: results.remove(0), power_w })
    }

    /// Run a point: its own spec, and its concurrent jobs (a fio group) started together with it,
    /// merged into one result (`drivelab_engine::merge`: histograms added, bytes over the
    /// longest window, as fio's group reporting).
    pub fn measure_point(&mut self, point: &Point) -> Result<Measured, Error> {
        if point.concurrent.is_empty() {
            return self.measure(&point.spec, &point.targets);
        }
        let (results, power_w) = self.measure_streams(&point.streams())?;
        let mut result = drivelab_engine::merge::merge_results(&results);
        let jobs: Vec<String> = std::iter::once(point.step.as_str())
            .chain(point.concurrent.iter().map(|c| c.name.as_str()))
            .zip(&results)
            .map(|(name, r)| format!("{name}: {} ({:.0} IOPS)", r.spec.label(), r.total.iops))
            .collect();
        result
            .notices
            .insert(0, format!("{} jobs ran together, merged into this result: {}", jobs.len(), jobs.join("; ")));
        Ok(Measured { result, power_w })
    }

    /// Run several workloads at once (ACT's three streams per drive), all started together;
    /// one result per stream, and the power drawn meanwhile.
    pub fn measure_streams(
        &mut self,
        streams: &[(AccessSpec, Vec<String>)],
    ) -> Result<(Vec<RunResult>, Option<f64>), Error> {
        let mut prepared = Vec::with_capacity(streams.len());
        for (spec, targets) in streams {
            prepared.push(self.prepare(spec, targets)?);
        }
        for p in &prepared {
            self.fill_for_verify(p)?;
        }
        let maps: Vec<Vec<_>> =
            prepared.iter().map(|p| self.known.maps_for(&p.spec, &p.targets)).collect::<Result<_, _>>()?;
        let ids: Vec<Vec<u32>> =
            prepared.iter().map(|p| if p.spec.verify { self.known.ids_for(&p.targets) } else { Vec::new() }).collect();
        let journal = self.journal_for(&prepared)?;
        // Ctrl-C during preparation: the engine sees the stop flag and returns an interrupted
        // result at once, so the driver keeps what finished and ends as interrupted.
        let list: Vec<Stream> = prepared
            .iter()
            .zip(maps.iter().zip(&ids))
            .map(|(p, (maps, ids))| Stream {
                spec: &p.spec,
                targets: &p.targets,
                verify: VerifyFrom { maps, ids, journal: journal.as_ref().filter(|_| p.spec.verify) },
            })
            .collect();
        let engine = prepared[0].spec.engine;
        let sampler = self.setup.power_cmd.as_deref().map(power::Sampler::start);
        let stop = self.setup.stop.clone();
        let sink = &mut *self.sink;
        let ran = run_streams(&list, engine, stop, &mut |p| sink(Event::Progress(p)));
        let power_w = sampler.and_then(|s| s.finish());
        self.emit(Event::MeasureEnd);
        let mut results = ran?;
        for (r, p) in results.iter_mut().zip(&prepared) {
            if r.verify.is_some() {
                self.known.keep(r);
            } else if p.spec.has_writes() {
                // Unverified writes: what those targets hold is no longer known.
                self.known.forget(&p.targets);
            }
            if p.spec.verify_after && !r.interrupted {
                let total: usize = r.verify_maps.iter().map(|m| m.written()).sum();
                self.emit(Event::Info(&format!("verify: re-reading the {total} units written")));
                let checks = verify::after(r, &p.targets, &self.setup.stop);
                if let Some(v) = r.verify.as_mut() {
                    v.after = Some(checks);
                }
            }
            r.notices.extend(p.notices.iter().cloned());
            if !p.spec.direct {
                r.notices.push("buffered I/O: results include the page cache".into());
            }
        }
        Ok((results, power_w))
    }

    /// With `--journal`: the journal (created at the first run), after checking that every
    /// stream verifies (an unverified write would be missing from the journal, and the journal
    /// could no longer tell what its units hold).
    fn journal_for(&mut self, prepared: &[Prepared]) -> Result<Option<Arc<Journal>>, Error> {
        let Some(path) = self.setup.journal.clone() else { return Ok(None) };
        if let Some(p) = prepared.iter().find(|p| !p.spec.verify) {
            return Err(Error::invalid(format!(
                "--journal {}: \"{}\" runs without verify, so its writes could not be journaled: add --verify \
                 (or `verify = true` to the point)",
                path.display(),
                p.spec.label()
            )));
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
            let m = self
                .measure(&spec, std::slice::from_ref(&t.info.path))
                .map_err(|e| e.context("verify: writing the region before reading it"))?;
            if let Some(e) = m.result.errors.first() {
                let why = format!("verify: writing the region of {} before reading it", t.info.path);
                return Err(Error::io(why, std::io::Error::other(e.error.clone())));
            }
            if m.result.mismatches() > 0 {
                return Err(Error::io(
                    format!("verify: writing the region of {}", t.info.path),
                    std::io::Error::other("its data did not read back as written"),
                ));
            }
        }
        Ok(())
    }
}
