//! How a job waits for completions (io_uring's and libaio's). A job thread that sleeps whenever no completion
//! is ready pays a wake-up for every one it sleeps for, and so does whoever completes the I/O
//! (the loop device's kernel worker, io_uring's io-wq workers, an interrupt handler): the send of
//! a wake-up to a halted virtual CPU and the switch back. Where completions come fast and the
//! job's queue is short, that wake-up is the device's idle time and the job's pace: so while
//! completions have lately come within [`SPIN_WAIT_MAX_NS`], the job first looks for them
//! without sleeping, for up to twice that recent wait, then sleeps. It does so:
//!
//! - on a file on tmpfs, whose I/Os the kernel hands to io-wq workers (4k randread QD8 on
//!   /dev/shm: 0.25M IOPS sleeping at once, fio 0.7M; looking first 0.9M, less CPU per I/O);
//! - at a queue depth of at most [`LOOK_MAX_DEPTH`], on anything, with io_uring or libaio: 4k randread on a loop device
//!   over /dev/shm, 2 cores, medians of 4 alternating pairs (issue #40): QD4 77k IOPS sleeping,
//!   232k looking (fio 89k); QD8 161–167k, 254–263k (fio 183–203k); QD16 219k, 265k (fio 245k);
//!   beside 4 CPU hogs at QD8 70k, 94k (fio 83k): a thread that sleeps less often also waits
//!   less often for a CPU to be given back. Four jobs at QD8 on 2 cores: 305k, 302k (looks
//!   that find nothing make the average wait too long to look again). libaio at QD8 on the
//!   same device: 159k sleeping at once, fio's libaio 206k.
//!
//! Not deeper: at QD32 on the same loop device the device stays busy through the job's
//! wake-up, and a sleeping job gathers several completions per wake-up; looking took CPU from
//! the loop device's worker (272k against 288k, and 174k against 192k beside 4 hogs). On a
//! device whose completions take longer than [`SPIN_WAIT_MAX_NS`] (this machine's virtio disk:
//! 25 µs and more) nothing changes: the job sleeps at once, as fio's does.

use std::io;

use crate::clock::Clock;

/// Completions that come this soon after the job starts waiting are looked for before it
/// sleeps.
const SPIN_WAIT_MAX_NS: u64 = 20_000;

/// The deepest queue at which a job looks for completions before sleeping (see the module).
pub(crate) const LOOK_MAX_DEPTH: u32 = 16;

/// Whether a job looks for completions before it sleeps, and how long they have lately taken
/// to come when it had to wait.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Look {
    enabled: bool,
    /// A moving average of the waits, in ns (u64::MAX: none yet).
    wait_avg_ns: u64,
}

impl Look {
    /// For a job of queue depth `qd`; `always`: at any depth (an io_uring job on a tmpfs file).
    pub(crate) fn new(qd: u32, always: bool) -> Look {
        Look { enabled: qd <= LOOK_MAX_DEPTH || always, wait_avg_ns: u64::MAX }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// A wait that began at `start` on `clock`: while completions have lately come within
    /// [`SPIN_WAIT_MAX_NS`], call `found` (a look that never sleeps: true when enough
    /// completions are ready) until it says so or twice the recent wait has passed. True when
    /// found; false: sleep for them.
    #[inline]
    pub(crate) fn look(
        &self,
        clock: &impl Clock,
        start: u64,
        mut found: impl FnMut() -> io::Result<bool>,
    ) -> io::Result<bool> {
        if !self.enabled || self.wait_avg_ns > SPIN_WAIT_MAX_NS {
            return Ok(false);
        }
        let until = start + 2 * self.wait_avg_ns;
        loop {
            if found()? {
                return Ok(true);
            }
            if clock.now() >= until {
                return Ok(false);
            }
        }
    }

    /// Wait for completions on `clock`: `get(false)` looks once without sleeping (true: enough
    /// are ready), `get(true)` sleeps until they are. A job that looks does so first, while it
    /// pays ([`Look::look`]), and times the wait for the next; one that never looks sleeps at
    /// once and reads no clock.
    #[inline]
    pub(crate) fn wait(&mut self, clock: &impl Clock, mut get: impl FnMut(bool) -> io::Result<bool>) -> io::Result<()> {
        if !self.enabled {
            return get(true).map(drop);
        }
        let start = clock.now();
        if !self.look(clock, start, || get(false))? {
            get(true)?;
        }
        self.waited(clock.now().saturating_sub(start));
        Ok(())
    }

    /// A wait for a completion took `ns`: fold it into the recent average (1/8 weight; the
    /// first one sets it).
    #[inline]
    fn waited(&mut self, ns: u64) {
        self.wait_avg_ns = if self.wait_avg_ns == u64::MAX { ns } else { (7 * self.wait_avg_ns + ns) / 8 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_queue_or_a_tmpfs_file_looks_before_sleeping_a_deep_queue_elsewhere_does_not() {
        // The measured rule (see the module): a deep queue sleeps at once, as fio's job does; a
        // short one, or io_uring on tmpfs at any depth, looks first.
        for qd in [1, 4, 8, LOOK_MAX_DEPTH] {
            assert!(Look::new(qd, false).enabled(), "QD{qd}");
        }
        for qd in [LOOK_MAX_DEPTH + 1, 32, 128] {
            assert!(!Look::new(qd, false).enabled(), "QD{qd}");
            assert!(Look::new(qd, true).enabled(), "QD{qd} on tmpfs");
        }
    }

    /// A clock that stands still: the looks' time never runs out unless a test starts them in
    /// the past, however slowly the machine runs the test.
    struct Still(u64);
    impl Clock for Still {
        fn now(&self) -> u64 {
            self.0
        }
        fn sleep_until(&self, _: u64) {}
    }

    /// Looks by `l` of a wait that began `ago` ns before the clock's time, the `found_at`-th
    /// finding the completions (0: none does): whether they were found, and how many looks.
    fn looks(l: &Look, ago: u64, found_at: u32) -> (bool, u32) {
        let clock = Still(1_000_000_000);
        let mut calls = 0;
        let found = l
            .look(&clock, clock.0 - ago, || {
                calls += 1;
                Ok(calls == found_at)
            })
            .unwrap();
        (found, calls)
    }

    #[test]
    fn it_looks_only_while_completions_come_fast_and_stops_when_found() {
        let mut l = Look::new(8, false);
        // No wait seen yet: no look (the first wait sleeps and sets the average).
        assert_eq!(looks(&l, 0, 1), (false, 0));
        // Fast completions: it looks, and the first look that finds them ends it.
        l.waited(5_000);
        assert_eq!(looks(&l, 0, 3), (true, 3));
        // A look that never finds them ends once twice the recent wait has passed (here the
        // wait began that long ago: one look, then sleep).
        assert_eq!(looks(&l, 10_000, 0), (false, 1));
        // Slow completions (over 20 µs on average): sleep at once.
        for _ in 0..64 {
            l.waited(1_000_000);
        }
        assert_eq!(looks(&l, 0, 1), (false, 0));
        // A deep queue never looks.
        let mut deep = Look::new(32, false);
        deep.waited(1_000);
        assert_eq!(looks(&deep, 0, 1), (false, 0));
    }

    #[test]
    fn a_wait_sleeps_at_once_unless_a_look_pays_and_finds_the_completions() {
        // The calls a wait makes: false a look, true a sleep.
        fn calls(l: &mut Look, found: bool) -> Vec<bool> {
            let mut seen = Vec::new();
            l.wait(&Still(1_000), |sleep| {
                seen.push(sleep);
                Ok(sleep || found)
            })
            .unwrap();
            seen
        }
        // A deep queue sleeps at once, however fast its completions.
        let mut deep = Look::new(32, false);
        assert_eq!(calls(&mut deep, true), [true]);
        // A short one sleeps the first time (no wait seen yet: on the still clock it took 0 ns),
        // then looks, and a look that finds them is the whole wait.
        let mut short = Look::new(8, false);
        assert_eq!(calls(&mut short, true), [true]);
        assert_eq!(calls(&mut short, true), [false]);
        // A look that finds nothing in its time (twice 0 ns here): then it sleeps.
        assert_eq!(calls(&mut short, false), [false, true]);
    }
}
