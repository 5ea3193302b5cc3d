//! One rank's measurement stopping with the others': the engine runs on a flag of its own that
//! Ctrl-C or another rank's stop sets, and this rank's own I/O error is said to the others. Why
//! not Ctrl-C's flag itself: a rank stopped because another failed was not interrupted, and
//! its result must not say it was (a driver ends as interrupted on that).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use drivelab_engine::result::RunResult;
use drivelab_engine::run::Progress;
use drivelab_engine::Error;

use super::StopLine;

/// A run's stop under MPI (see the module docs).
pub struct Halt<'a> {
    line: &'a dyn StopLine,
    /// Ctrl-C's flag.
    user: Arc<AtomicBool>,
    /// The engine's flag for this run.
    flag: Arc<AtomicBool>,
    /// The rank whose stop stopped this one.
    heard: Option<usize>,
}

impl<'a> Halt<'a> {
    pub fn new(line: &'a dyn StopLine, user: Arc<AtomicBool>) -> Halt<'a> {
        Halt { line, user, flag: Arc::new(AtomicBool::new(false)), heard: None }
    }

    /// The flag to give the engine.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// At each of the engine's progress ticks (4 a second): pass Ctrl-C on, say this rank's
    /// error, listen for another rank's.
    pub fn tick(&mut self, p: &Progress) {
        if self.user.load(Ordering::SeqCst) {
            self.flag.store(true, Ordering::SeqCst);
        }
        if p.stopped_by_error {
            self.line.say();
        }
        if self.heard.is_none() {
            self.heard = self.line.heard();
            if self.heard.is_some() {
                self.flag.store(true, Ordering::SeqCst);
            }
        }
    }

    /// After the run: an error of this rank's (one that stopped a job, or the run's failure) is
    /// said if it was not yet; a run that another rank's stop ended, and not Ctrl-C, is not
    /// interrupted: it says which rank (`who`) stopped it.
    pub fn finish(self, ran: &mut Result<Vec<RunResult>, Error>, who: impl Fn(usize) -> String) {
        if ran.as_ref().map_or(true, |rs| rs.iter().any(|r| r.stopped_by_error)) {
            self.line.say();
        }
        let (Some(rank), Ok(results)) = (self.heard, ran.as_mut()) else { return };
        if self.user.load(Ordering::SeqCst) {
            return;
        }
        for r in results.iter_mut().filter(|r| r.interrupted) {
            r.interrupted = false;
            if let Some(m) = r.measurement.as_mut() {
                m.interrupted = false;
            }
            r.notices.push(format!("stopped early with every rank: {} stopped on an I/O error", who(rank)));
        }
    }
}
