//! Monotonic nanoseconds for the hot path.
//!
//! `clock_gettime(CLOCK_MONOTONIC)` through the vDSO: with the `tsc` clocksource (what this
//! project's machines use; see /sys/devices/system/clocksource) it is a calibrated TSC read by the
//! kernel's own code, about 20 ns, no system call, and the same clock on every CPU. A hand-rolled
//! RDTSC would save a few ns per batch at the price of our own calibration and its failure modes,
//! and workers read the clock once per submit batch and once per reap pass, not per I/O.

/// Nanoseconds on CLOCK_MONOTONIC.
#[inline(always)]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleep until CLOCK_MONOTONIC reads `t_ns` (at once if it has passed).
pub fn sleep_until(t_ns: u64) {
    let ts = libc::timespec { tv_sec: (t_ns / 1_000_000_000) as libc::time_t, tv_nsec: (t_ns % 1_000_000_000) as _ };
    // SAFETY: `ts` is a valid timespec; a null remainder is allowed with TIMER_ABSTIME. EINTR
    // returns early, which callers handle by looking at the clock again.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
}

/// Where a job reads the time and sleeps: the machine's monotonic clock ([`Monotonic`]), or in
/// tests one the test chooses as a type — one it drives, so the job loop's timing logic is tested
/// exactly whatever the machine's load, or one that stalls before it answers, so the job is busy
/// while its I/Os complete (a slow reap, made on purpose: `run::run_streams_on`). The loop is
/// generic over it: the real path is the plain `now_ns` call, and nothing is looked at per I/O to
/// choose.
pub trait Clock {
    fn now(&self) -> u64;
    fn sleep_until(&self, t_ns: u64);
}

/// CLOCK_MONOTONIC: [`now_ns`] and [`sleep_until`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Monotonic;

impl Clock for Monotonic {
    #[inline(always)]
    fn now(&self) -> u64 {
        now_ns()
    }
    #[inline(always)]
    fn sleep_until(&self, t_ns: u64) {
        sleep_until(t_ns)
    }
}

/// Let the calling thread's timers fire on time: Linux otherwise rounds sleeps of ordinary threads
/// up by as much as 50 us (timer slack), which would make an open-loop schedule late by design.
pub fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and only affects the calling thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// CPU time (user, system) in ns used by the calling thread (`who = RUSAGE_THREAD`) or the whole
/// process (`RUSAGE_SELF`).
pub fn cpu_ns(who: libc::c_int) -> (u64, u64) {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid and writable; `who` is one of the RUSAGE_* constants.
    unsafe { libc::getrusage(who, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    (tv(ru.ru_utime), tv(ru.ru_stime))
}

/// CPU time of the calling thread.
pub fn thread_cpu_ns() -> (u64, u64) {
    cpu_ns(libc::RUSAGE_THREAD)
}

/// Time the calling thread spent waiting on a run queue (runnable but not running), in ns, from
/// /proc/thread-self/schedstat. Together with CPU time it tells whether a thread ever slept:
/// a thread that was always running or runnable was CPU-bound, however busy the machine was.
pub fn thread_runq_wait_ns() -> u64 {
    runq_wait_at("/proc/thread-self/schedstat").unwrap_or(0)
}

/// The same for thread `tid` of this process, from another thread (None: it has ended, or the
/// kernel has no schedstat).
pub fn task_runq_wait_ns(tid: u32) -> Option<u64> {
    runq_wait_at(&format!("/proc/self/task/{tid}/schedstat"))
}

/// schedstat's second field: ns spent runnable on a run queue.
fn runq_wait_at(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok().and_then(|s| s.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_moves_forward_and_agrees_with_std() {
        // Both read CLOCK_MONOTONIC: std's interval lies between the two bracketing ours, in
        // order, however long the machine kept this thread off a CPU between any two reads.
        let a1 = super::now_ns();
        let s = std::time::Instant::now();
        let a2 = super::now_ns();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b1 = super::now_ns();
        let d = s.elapsed().as_nanos() as u64;
        let b2 = super::now_ns();
        assert!(a1 <= a2 && a2 < b1 && b1 <= b2);
        assert!(b1 - a2 <= d && d <= b2 - a1, "std's {d} ns outside ours [{}, {}]", b1 - a2, b2 - a1);
        assert!(b1 - a2 >= 20_000_000, "a 20 ms sleep took {} ns", b1 - a2);
    }

    #[test]
    fn sleeping_until_a_time_never_wakes_before_it() {
        // How close to the time it wakes is the machine's business (a loaded CI machine can be
        // milliseconds late): bench/timing measures that. Here: never early, and a time that
        // has passed returns.
        super::precise_timers();
        for ahead in [1_000u64, 100_000, 3_000_000] {
            let target = super::now_ns() + ahead;
            super::sleep_until(target);
            assert!(super::now_ns() >= target, "woke before {target}");
        }
        super::sleep_until(super::now_ns() - 1000);
        super::sleep_until(0);
    }

    #[test]
    fn thread_cpu_time_counts_work() {
        // Work until the thread's own CPU clock has counted 20 ms (however busy the machine,
        // a spinning thread gets there), then check that it never counted more than the wall
        // clock passed: CPU time that grows with work and never outruns time.
        let (u0, s0) = super::thread_cpu_ns();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let mut used = 0;
        while used < 20_000_000 && t.elapsed().as_secs() < 60 {
            for _ in 0..10_000 {
                x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(7));
            }
            let (u1, s1) = super::thread_cpu_ns();
            used = (u1 + s1) - (u0 + s0);
        }
        std::hint::black_box(x);
        assert!(used >= 20_000_000, "the thread's CPU clock never reached 20 ms in 60 s of spinning");
        assert!(used <= t.elapsed().as_nanos() as u64 + 10_000_000, "CPU {used} ns > wall {:?}", t.elapsed());
    }
}
