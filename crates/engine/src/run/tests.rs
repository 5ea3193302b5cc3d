//! Running streams: the start gate, the shared start, aggregation, pacing on the null target.

use super::gate::start_margin;
use super::*;
use crate::spec::Rate;
use crate::target::TargetInfo;

fn null_target() -> OpenTarget {
    OpenTarget { info: TargetInfo::null(), file: None, start: 0, span: 1 << 30 }
}

#[test]
fn a_failed_thread_start_releases_the_jobs_already_started_and_returns_the_error() {
    // Four jobs; the third cannot be spawned. Before the start gate, the two started ones
    // waited on a barrier for four forever and this never returned.
    let spec = AccessSpec { jobs: 4, time_ns: Some(200_000_000), ..Default::default() };
    let targets = [null_target()];
    let (tx, rx) = std::sync::mpsc::channel();
    let runner = std::thread::spawn(move || {
        let mut n = 0;
        let started = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let s2 = started.clone();
        let r = run_streams_with(
            &[Stream { spec: &spec, targets: &targets, verify: VerifyFrom::default() }],
            EngineKind::Uring,
            Arc::new(AtomicBool::new(false)),
            Arc::new(EndEarly::default()),
            crate::clock::Monotonic,
            &mut |_| {},
            &mut |b, f| {
                n += 1;
                if n == 3 {
                    return Err(std::io::Error::from_raw_os_error(libc::EAGAIN));
                }
                s2.fetch_add(1, Ordering::SeqCst);
                b.spawn(f)
            },
        );
        tx.send((r.map(|_| ()).map_err(|e| e.to_string()), started.load(Ordering::SeqCst))).unwrap();
    });
    let (r, started) = rx.recv_timeout(Duration::from_secs(10)).expect("run_streams hung after a failed spawn");
    runner.join().unwrap();
    let e = r.unwrap_err();
    assert!(e.contains("starting a job thread"), "{e}");
    assert_eq!(started, 2);
}

#[test]
fn every_measured_io_is_counted_against_the_thresholds_in_its_second() {
    // An open-loop null run at 2000/s: at or over 0 ns is every I/O, second by second.
    let spec = AccessSpec {
        time_ns: Some(1_500_000_000),
        thresholds_ns: vec![0, 3_600_000_000_000],
        rate: Some(Rate { per_s: 2000.0, ..Default::default() }),
        ..Default::default()
    };
    let r = run(&spec, &[null_target()], EngineKind::Uring, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
    assert_eq!(r.series.len(), 2);
    for p in &r.series {
        assert_eq!(p.over_threshold_counts.len(), 2);
        assert_eq!(p.over_threshold_counts[0], p.ops, "every I/O is at or over 0 ns");
        assert_eq!(p.over_threshold_counts[1], 0);
        assert!(p.resp_pow2_ms.is_none());
    }
    assert_eq!(r.series.iter().map(|p| p.ops).sum::<u64>(), r.total.ops);
    let json = serde_json::to_string(&r.series[0]).unwrap();
    assert!(json.contains("\"over_threshold_counts\":[") && !json.contains("resp_pow2_ms"), "{json}");
}

#[test]
fn schema_1_series_with_act_buckets_still_load() {
    let old = r#"{"t_s":1.0,"dur_ns":1000000000,"iops":2.0,"read_iops":2.0,"write_iops":0.0,
        "bw_bytes_per_s":8192.0,"lat_mean_ns":100.0,"lat_p99_ns":120,"resp_p99_ns":130,
        "lag_max_ns":5,"resp_pow2_ms":[2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}"#;
    let p: SeriesPoint = serde_json::from_str(old).unwrap();
    assert_eq!(p.resp_pow2_ms.as_ref().map(|v| v[0]), Some(2));
    assert!(p.over_threshold_counts.is_empty() && p.ops == 0);
}

#[test]
fn the_start_gate_starts_everyone_or_no_one() {
    let gate = Arc::new(StartGate::new());
    let hs: Vec<_> = (0..3)
        .map(|i| {
            let g = gate.clone();
            std::thread::spawn(move || g.arrive(i != 1))
        })
        .collect();
    assert_eq!(gate.start(3), None, "one setup failed: nobody runs");
    assert!(hs.into_iter().all(|h| h.join().unwrap().is_none()));
}

#[test]
fn every_job_gets_the_same_start_time_after_the_gate_opens() {
    // Five jobs arrive at different times; all are handed one start, a little after the gate
    // opened, so their schedules start together however late each thread wakes.
    let gate = Arc::new(StartGate::new());
    let hs: Vec<_> = (0..5u64)
        .map(|i| {
            let g = gate.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(3 * i));
                g.arrive(true)
            })
        })
        .collect();
    let opened = now_ns();
    let t0 = gate.start(5).expect("every setup succeeded");
    let starts: Vec<Option<u64>> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(starts.iter().all(|s| *s == Some(t0)), "{starts:?} vs {t0}");
    assert!(t0 >= opened + start_margin(5), "the start lies beyond the gate's opening");
    assert!(t0 <= now_ns() + start_margin(5));
}

#[test]
fn hybrid_pacing_runs_the_null_target_on_its_schedule() {
    // 20k IOPS on the null target with hybrid pacing, on the real clock: never ahead of the
    // schedule, every I/O's lateness measured, the spinning counted. How late drivelab is on a
    // quiet machine is timing quality, measured in bench/timing (and bench/vs-fio's null-rate);
    // the pacing logic is tested exactly on a driven clock in worker/tests.rs.
    let spec = AccessSpec {
        qd: 16,
        time_ns: Some(500_000_000),
        rate: Some(Rate { per_s: 20_000.0, pace: crate::spec::PaceMode::Hybrid, ..Default::default() }),
        ..Default::default()
    };
    let r = run(&spec, &[null_target()], EngineKind::Uring, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
    let o = r.open_loop.expect("open loop");
    assert_eq!(o.pace, crate::spec::PaceMode::Hybrid);
    let scheduled = 20_000.0 * r.runtime_ns as f64 / 1e9;
    assert!(r.total.ops > 0 && r.total.ops as f64 <= scheduled + 16.0, "{} I/Os of {scheduled} scheduled", r.total.ops);
    let own = o.tool_lag_ns.expect("drivelab's own lateness");
    // Per I/O, drivelab's own lateness is part of the lag: so is each percentile.
    let p50 = crate::hist::Pct::P50;
    assert!(own.p(p50) <= o.lag_ns.p(p50) && own.max <= o.lag_ns.max, "{own:?} vs {:?}", o.lag_ns);
    assert!(o.spin_pct > 0.0, "hybrid spins towards each time");
}

#[test]
fn aligned_jobs_start_their_schedules_together_and_spread_ones_do_not() {
    // ACT's service threads all issue at the start; jobs sharing a rate otherwise take turns.
    assert_eq!((0..3).map(|i| job_phase(true, i, 3)).collect::<Vec<_>>(), vec![0.0; 3]);
    let spread: Vec<f64> = (0..4).map(|i| job_phase(false, i, 4)).collect();
    assert_eq!(spread, vec![0.0, 0.25, 0.5, 0.75]);
}

#[test]
fn a_job_that_stops_on_an_error_stops_every_job_and_what_each_measured_is_kept() {
    // Two targets for 60 s: a file opened read-only, so its writes fail at once, and null. The
    // null job stops at its next loop turn, not after 60 s, and its I/Os stay in the result,
    // beside the error that stopped the run.
    let path = std::env::temp_dir().join(format!("drivelab-run-ro-{}", std::process::id()));
    std::fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    let info = crate::target::probe(path.to_str().unwrap()).unwrap();
    let ro = OpenTarget { info, file: Some(std::fs::File::open(&path).unwrap()), start: 0, span: 1 << 20 };
    let spec = AccessSpec { read_pct: 0, qd: 1, time_ns: Some(60_000_000_000), ..Default::default() };
    let targets = [ro, null_target()];
    let r = run(&spec, &targets, EngineKind::Psync, Arc::new(AtomicBool::new(false)), &mut |_| {});
    std::fs::remove_file(&path).unwrap();
    let r = r.expect("an I/O error is a result, not a failure to run");
    assert!(r.stopped_by_error && !r.interrupted && r.errored());
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert_eq!((r.errors[0].target.as_str(), r.errors[0].op.as_str()), (path.to_str().unwrap(), "write"));
    assert_eq!(r.errors[0].errno, libc::EBADF);
    assert!(r.per_target[1].total.ops >= 1, "the null job's I/Os are kept");
    assert_eq!(r.total.ops, r.per_target[1].total.ops + r.per_target[0].total.ops);
    assert!(r.runtime_ns < 30_000_000_000, "the null job stopped with the failed one: ran {} ns of 60 s", r.runtime_ns);
    let said = format!("stopped early with every job: a job on {} stopped on an error", path.display());
    assert!(r.notices.contains(&said), "{:?}", r.notices);
}

#[test]
fn a_results_figures_are_derived_again_from_its_saved_measurement() {
    // Two jobs on each of two targets at a rate, with thresholds: every kind of figure.
    let spec = AccessSpec {
        jobs: 2,
        time_ns: Some(1_200_000_000),
        thresholds_ns: vec![0, 1_000_000],
        rate: Some(Rate { per_s: 4000.0, ..Default::default() }),
        ..Default::default()
    };
    let targets = [null_target(), null_target()];
    let r = run(&spec, &targets, EngineKind::Uring, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
    let m = r.measurement.clone().expect("a run keeps its measurement");
    assert_eq!((m.jobs, m.targets.len(), r.per_target.len()), (4, 2, 2), "one entry per target, as given");
    assert_eq!(crate::measurement::summarize(&m, &r.spec), crate::measurement::Figures::of(&r));
    let back: RunResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back.measurement.as_ref(), Some(&m), "saved and read back exactly");
    let o = r.open_loop.as_ref().unwrap();
    assert!((o.target_iops - 4000.0).abs() < 1e-6, "{}", o.target_iops);
    // A result saved before measurements were kept still loads (and merges, from its figures).
    let mut old = serde_json::to_value(&r).unwrap();
    old.as_object_mut().unwrap().remove("measurement");
    let old: RunResult = serde_json::from_value(old).unwrap();
    assert!(old.measurement.is_none());
    let merged = crate::merge::merge_results(&[old.clone(), old]);
    assert_eq!(merged.total.ops, 2 * r.total.ops);
}

#[test]
fn a_result_saved_before_its_measurement_kept_every_kind_merges_them_from_its_figures() {
    // Two jobs: thread usage, depths and each job's own result (the clones) are in the figures.
    let spec = AccessSpec { jobs: 2, time_ns: Some(200_000_000), ..Default::default() };
    let r = run(&spec, &[null_target()], EngineKind::Uring, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
    let m = r.measurement.clone().unwrap();
    assert_eq!((m.kinds.per_job.0.len(), r.clones.len()), (2, 2), "each job's own, and its result");
    assert_eq!(r.kinds.thread_usage, m.kinds.thread_usage);
    // As saved before: the measurement without the kinds (older results never had them there).
    let mut old = serde_json::to_value(&r).unwrap();
    for k in ["thread_usage", "iodepths", "per_job"] {
        old["measurement"].as_object_mut().unwrap().remove(k);
    }
    let old: RunResult = serde_json::from_value(old).unwrap();
    assert_eq!(old.kinds, r.kinds, "the figures read as they were saved");
    assert_eq!(old.measurement.as_ref().unwrap().kinds, Default::default(), "no kind in its measurement");
    let merged = crate::merge::merge_results(&[old.clone(), old]);
    let twice = |u: crate::usage::ThreadUsage| u.context_switches * 2;
    assert_eq!(merged.kinds.thread_usage.map(|u| u.context_switches), r.kinds.thread_usage.map(twice));
    assert_eq!(merged.kinds.iodepths.unwrap().issued_at_depth[0], 2 * r.kinds.iodepths.unwrap().issued_at_depth[0]);
    assert_eq!(merged.clones.len(), 2, "the clones, from their figures (the same two jobs, merged)");
    assert_eq!(merged.clones[0].total.ops, 2 * r.clones[0].total.ops);
}

/// A clock that stalls before every answer (spinning: the job thread stays busy), so a job is slow
/// to take what completed: a slow reap, chosen by the test as a type.
#[derive(Clone)]
struct Stalling(u64);

impl crate::clock::Clock for Stalling {
    fn now(&self) -> u64 {
        let end = crate::clock::now_ns() + self.0;
        while crate::clock::now_ns() < end {
            std::hint::spin_loop();
        }
        crate::clock::now_ns()
    }
    fn sleep_until(&self, t_ns: u64) {
        crate::clock::sleep_until(t_ns)
    }
}

#[test]
fn the_clock_a_run_is_given_times_every_io_of_it() {
    // A real io_uring ring on a file. Every read of the clock stalls 300 us before it answers, so
    // each I/O's lat spans at least the two stalls between its submit call and its reaping (the
    // stamp after the submit call, the stamp after the wait), however fast the file is.
    let path = std::env::temp_dir().join(format!("drivelab-clock-{}", std::process::id()));
    std::fs::File::create(&path).and_then(|f| f.set_len(1 << 20)).unwrap();
    let spec = AccessSpec { direct: false, time_ns: Some(100_000_000), ..Default::default() };
    let info = crate::target::probe(path.to_str().unwrap()).unwrap();
    let targets = [crate::target::open(&info, &spec).unwrap()];
    let stall = 300_000;
    let r = run_streams_on(
        &[Stream { spec: &spec, targets: &targets, verify: VerifyFrom::default() }],
        EngineKind::Uring,
        Arc::new(AtomicBool::new(false)),
        Arc::new(EndEarly::default()),
        Stalling(stall),
        &mut |_| {},
    );
    std::fs::remove_file(&path).unwrap();
    let r = r.unwrap().remove(0);
    assert_eq!(r.engine.backend, "uring");
    assert!(r.total.ops > 0, "no I/O in 100 ms");
    assert!(r.total.lat_ns.min >= 2 * stall, "an I/O's lat {} ns is shorter than two stalls", r.total.lat_ns.min);
    let clat = r.read.clat_ns.as_ref().expect("io_uring keeps clat");
    assert!(clat.min >= stall, "clat {} ns spans the stall before the reap", clat.min);
}

#[test]
fn with_per_io_priorities_each_priority_used_keeps_its_own_completion_latency() {
    // 30% of the reads real-time level 0, the rest at the job's own (none set: 0/0), two jobs.
    let prio = crate::spec::prio::IoPrio { job: 0, cmd: crate::spec::prio::parse_cmd("*/30/1/0").unwrap() };
    let spec = AccessSpec { jobs: 2, time_ns: Some(200_000_000), prio: Some(prio), ..Default::default() };
    let r = run(&spec, &[null_target()], EngineKind::Uring, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
    let ios = |l: &crate::hist::LatSummary| l.histogram.buckets.iter().map(|b| b[1]).sum::<u64>();
    let p = r.kinds.clat_prio.as_ref().expect("per-priority latencies");
    assert_eq!(p.read.iter().map(|e| (e.prioclass, e.prio)).collect::<Vec<_>>(), [(0, 0), (1, 0)]);
    assert!(p.write.is_empty(), "no writes");
    let (low, high) = (ios(&p.read[0].clat_ns), ios(&p.read[1].clat_ns));
    assert_eq!(low + high, r.read.ops, "every read, at its own priority");
    let share = high as f64 / r.read.ops as f64;
    assert!((0.25..0.35).contains(&share), "30% real-time: {share:.3}");
    // Each job's own, and the two merged are the whole.
    let jobs: Vec<u64> = r.clones.iter().map(|c| ios(&c.kinds.clat_prio.as_ref().unwrap().read[1].clat_ns)).collect();
    assert_eq!(jobs.iter().sum::<u64>(), high);
    // Without per-I/O priorities nothing is kept.
    let plain = AccessSpec { prio: None, ..spec };
    let r = run(&plain, &[null_target()], EngineKind::Uring, Arc::new(AtomicBool::new(false)), &mut |_| {}).unwrap();
    assert!(r.kinds.clat_prio.is_none() && r.measurement.unwrap().kinds.clat_prio.is_empty());
}

#[test]
fn the_live_cpu_wait_is_read_from_each_running_job_thread_between_two_ticks() {
    // This thread as a job: read at two ticks, its wait over the interval is a share of it.
    let me = Arc::new(Live::default());
    // SAFETY: gettid has no preconditions.
    me.tid.store(unsafe { libc::gettid() } as u32, Ordering::Relaxed);
    let unstarted = Arc::new(Live::default());
    let lives = [me.clone(), unstarted];
    let mut waited = vec![None; 2];
    assert_eq!(super::cpu_wait(&lives, &mut waited, 250_000_000), None, "one tick read: nothing to compare");
    assert!(waited[0].is_some() && waited[1].is_none(), "the started thread is read, the other not");
    let w = super::cpu_wait(&lives, &mut waited, 250_000_000).expect("two ticks read");
    assert!((0.0..=100.0).contains(&w), "{w}");
    // A job that has ended is read no more.
    me.done.store(true, Ordering::Relaxed);
    assert_eq!(super::cpu_wait(&lives, &mut waited, 250_000_000), None);
}
