//! fio's `--status-interval`: the run's figures so far, every N, as fio prints a whole report at
//! each interval. The watcher asks (a generation number, [`StatusBoard::ask`]); each job, at its
//! next loop turn (one relaxed load per turn, no lock), posts a copy of what it has measured
//! so far — its histograms and counters, never its I/O log; a job that has ended posts its final
//! figures. The run then merges what every job posted by the one measurement merge, as at the
//! end, into each stream's result so far.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::worker::JobOutput;

/// A job's post: the generation it answers (`FINAL`: the job has ended) and its figures.
type Post = Option<(u64, JobOutput)>;

/// The generation a job that has ended answers every ask with.
const FINAL: u64 = u64::MAX;

/// The longest a report waits for a job busy in a long I/O; it then takes the job's last post.
const PATIENCE: Duration = Duration::from_secs(1);

pub struct StatusBoard {
    asked: AtomicU64,
    posts: Mutex<Vec<Post>>,
    posted: Condvar,
}

impl StatusBoard {
    /// A board for `jobs` jobs (numbered as `JobCtx::run_job`).
    pub(crate) fn new(jobs: usize) -> StatusBoard {
        StatusBoard {
            asked: AtomicU64::new(0),
            posts: Mutex::new((0..jobs).map(|_| None).collect()),
            posted: Condvar::new(),
        }
    }

    /// The generation asked for, when it is newer than `seen` (the job's loop, every turn).
    #[inline]
    pub(crate) fn wanted(&self, seen: u64) -> Option<u64> {
        let asked = self.asked.load(Ordering::Relaxed);
        (asked > seen).then_some(asked)
    }

    /// Job `job`'s figures for generation `generation`.
    pub(crate) fn post(&self, job: usize, generation: u64, out: JobOutput) {
        let mut posts = self.posts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = posts.get_mut(job) {
            *p = Some((generation, out));
        }
        self.posted.notify_all();
    }

    /// Job `job` has ended with `out` (its final figures, without its I/O log).
    pub(crate) fn ended(&self, job: usize, out: JobOutput) {
        self.post(job, FINAL, out);
    }

    /// Ask every job for its figures now, and take them: each job's newest post (after waiting
    /// up to [`PATIENCE`] for the jobs still running, `running(job)`, to answer). A job that has
    /// not posted yet gives None.
    pub(crate) fn collect(
        &self,
        running: impl Fn(usize) -> bool,
        copy: impl Fn(&JobOutput) -> JobOutput,
    ) -> Vec<Option<JobOutput>> {
        let generation = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let deadline = Instant::now() + PATIENCE;
        let mut posts = self.posts.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let waiting =
                posts.iter().enumerate().any(|(j, p)| running(j) && p.as_ref().is_none_or(|(g, _)| *g < generation));
            let now = Instant::now();
            if !waiting || now >= deadline {
                break;
            }
            posts = match self.posted.wait_timeout(posts, deadline - now) {
                Ok((p, _)) => p,
                Err(e) => e.into_inner().0,
            };
        }
        posts.iter().map(|p| p.as_ref().map(|(_, out)| copy(out))).collect()
    }
}
