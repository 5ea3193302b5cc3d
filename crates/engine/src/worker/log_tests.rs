//! fio's log files, as the job loop records them (`crate::iolog`): every measured I/O, timed
//! from the end of the ramp, and nothing when the spec does not ask.

use super::tests::{ctx, delayed, run_on, TestClock};
use crate::spec::AccessSpec;

#[test]
fn fios_logs_record_every_measured_io_from_the_end_of_the_ramp_and_nothing_when_not_asked() {
    // Submit calls of 300 µs, I/Os of 200 µs more, after a 50 ms ramp: one entry per measured
    // I/O, timed from the end of the ramp (fio's epoch), with lat = slat + clat per I/O.
    let log = crate::iolog::IoLogSpec { lat: Some("p".into()), per_job: true, first_job: 1, ..Default::default() };
    let spec = AccessSpec {
        time_ns: Some(200_000_000),
        ramp_ns: 50_000_000,
        qd: 1,
        io_log: Some(Box::new(log.clone())),
        ..Default::default()
    };
    let clock = TestClock::new();
    let mut b = delayed(&clock, 300_000, 200_000);
    let out = run_on(&ctx(spec.clone(), None), &mut b, &clock);
    let l = out.io_log.expect("asked for");
    let e: Vec<_> = l.entries().copied().collect();
    assert_eq!(e.len() as u64, out.read.count(), "one entry per measured I/O, none of the ramp");
    assert!(e[0].t_ns < 1_000_000, "times start at the end of the ramp: {}", e[0].t_ns);
    assert!(e.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
    assert!(e.last().unwrap().t_ns <= l.end_ns && l.end_ns == out.window_ns);
    assert!(l.slat && e.iter().all(|x| x.slat_ns >= 300_000 && x.clat_ns() >= 150_000 && x.len == 4096));
    // Windowed: the windows' I/Os add up to every measured I/O.
    let windowed = AccessSpec { io_log: Some(Box::new(crate::iolog::IoLogSpec { avg_ms: 20, ..log })), ..spec.clone() };
    let clock = TestClock::new();
    let mut b = delayed(&clock, 300_000, 200_000);
    let out = run_on(&ctx(windowed, None), &mut b, &clock);
    let l = out.io_log.expect("asked for");
    assert_eq!(l.windows.iter().map(|w| w.ios).sum::<u64>(), out.read.count());
    assert!(l.windows.len() >= 10 && l.entries().next().is_none(), "{} windows", l.windows.len());
    // Not asked: nothing recorded.
    let clock = TestClock::new();
    let mut b = delayed(&clock, 300_000, 200_000);
    let out = run_on(&ctx(AccessSpec { io_log: None, ..spec }, None), &mut b, &clock);
    assert!(out.io_log.is_none() && out.read.count() > 0);
}
