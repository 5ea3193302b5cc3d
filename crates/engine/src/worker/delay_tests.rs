//! fio's `startdelay`, `number_ios` and a stream-scoped early end in the job loop, against the
//! test clock ([`TestClock`]): order and lengths are exact, with no wall-clock bound.

use std::rc::Rc;

use super::tests::{ctx, run_on, TestClock};
use super::*;
use crate::backend::Pending;
use crate::pattern::BufferPool;
use crate::result::EndReason;
use crate::run::stream_bit;

/// A synchronous target whose every I/O takes 10 µs, noting when the first one came.
struct Timed {
    clock: Rc<TestClock>,
    pool: BufferPool,
    done: Vec<(u32, i32)>,
    first_ns: Option<u64>,
}

impl Timed {
    fn new(clock: &Rc<TestClock>) -> Timed {
        Timed { clock: clock.clone(), pool: BufferPool::new(1, 4096), done: Vec::new(), first_ns: None }
    }
}

// SAFETY: completes every I/O inside `submit` without touching the buffers.
unsafe impl Backend for Timed {
    const SUBMIT_COMPLETES: bool = true;
    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
        let now = self.clock.now();
        self.first_ns.get_or_insert(now);
        self.clock.sleep_until(now + 10_000);
        self.done.extend(batch.iter().map(|p| (p.slot, p.len as i32)));
        Ok(())
    }
    fn wait(&mut self, _n: u32) -> std::io::Result<()> {
        Ok(())
    }
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        for (slot, res) in self.done.drain(..) {
            f(slot, res);
        }
    }
    fn fsync(&mut self, _data_only: bool) -> std::io::Result<()> {
        Ok(())
    }
}

/// A 100 ms job that starts `delay_ms` after the run: (when its first I/O came, from the run's
/// start; its output).
fn delayed(delay_ms: u64) -> (u64, JobOutput) {
    let spec = AccessSpec { time_ns: Some(100_000_000), start_delay_ns: delay_ms * 1_000_000, ..Default::default() };
    let clock = TestClock::new();
    let t0 = clock.now();
    let mut b = Timed::new(&clock);
    let out = run_job_on(&ctx(spec, None), &mut b, &*clock, t0, None);
    (b.first_ns.unwrap() - t0, out)
}

#[test]
fn a_delayed_job_starts_after_its_delay_and_its_runtime_excludes_it() {
    let (first_a, a) = delayed(1000);
    let (first_b, b) = delayed(2500);
    assert!(first_a >= 1_000_000_000 && first_a < first_b, "a at {first_a} ns, b at {first_b} ns");
    assert!(first_b >= 2_500_000_000, "b at {first_b} ns");
    for out in [a, b] {
        // 100 ms of I/O of 10 µs each: the window is the job's time, not its delay with it.
        assert!(out.window_ns >= 100_000_000 && out.window_ns < 101_000_000, "window {}", out.window_ns);
        assert!(out.read.count() > 9_000, "{}", out.read.count());
    }
}

#[test]
fn a_run_stopped_during_a_jobs_delay_ends_it_before_any_io() {
    let spec = AccessSpec { time_ns: Some(100_000_000), start_delay_ns: 10_000_000_000, ..Default::default() };
    let c = ctx(spec, None);
    c.stop.store(true, Ordering::Relaxed);
    let clock = TestClock::new();
    let t0 = clock.now();
    let mut b = Timed::new(&clock);
    let out = run_on(&c, &mut b, &clock);
    assert!(out.interrupted && out.read.count() == 0 && b.first_ns.is_none());
    assert!(clock.now() - t0 < 1_000_000, "it did not sit out its 10 s delay");
}

#[test]
fn an_end_asked_of_other_streams_leaves_this_one_running() {
    // Job of stream 1: an end of stream 0 (fio's exit_what=group) does not stop it; an end of
    // its own stream does, cleanly.
    let spec = AccessSpec { time_ns: Some(50_000_000), ..Default::default() };
    let c = JobCtx { job: 1 << 40, ..ctx(spec, None) };
    c.end.end_streams(EndReason::Exitall, stream_bit(0));
    let clock = TestClock::new();
    let out = run_on(&c, &mut Timed::new(&clock), &clock);
    assert!(!out.ended && out.window_ns >= 50_000_000, "ran its whole time: {}", out.window_ns);
    c.end.end_streams(EndReason::Exitall, stream_bit(1));
    let out = run_on(&c, &mut Timed::new(&clock), &clock);
    assert!(out.ended && out.window_ns < 1_000_000 && !out.interrupted);
}

#[test]
fn number_ios_ends_the_job_after_that_many_ios_before_its_bytes() {
    let spec =
        AccessSpec { time_ns: None, io_size_bytes: Some(1000 * 4096), number_ios: Some(300), ..Default::default() };
    let clock = TestClock::new();
    let out = run_on(&ctx(spec.clone(), None), &mut Timed::new(&clock), &clock);
    assert_eq!((out.read.count(), out.read_bytes), (300, 300 * 4096));
    // Bytes still end a job first when they come first.
    let spec = AccessSpec { number_ios: Some(5000), ..spec };
    let out = run_on(&ctx(spec, None), &mut Timed::new(&clock), &clock);
    assert_eq!(out.read.count(), 1000);
}
