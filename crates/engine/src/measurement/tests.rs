//! Property tests of the one merge (seeded, so they run the same in CI every time): merging is
//! associative and commutative; a sample stream split into any parts and merged in any grouping
//! is exactly the measurement of the whole stream (every bucket, count, extreme and open-loop
//! figure, and every other kind: thread usage, depths, the latency target's depth, an early end,
//! a steady-state verdict, the disks, verify's counts, each job's own, each priority's clat);
//! figures summarized from
//! the merge, and the whole result assembled from it, are those of the whole. And the saved
//! encoding reads back exactly, and refuses damaged or forged input without panicking.

use super::kinds::{Disks, First, JobPart, Jobs, Last};
use super::*;
use crate::diskstat::DiskUtil;
use crate::hist::{bucket_of, Pct};
use crate::result::{EndReason, MismatchRecord, SteadyStateStats, UnitHeader, VerifyStats};
use crate::spec::{AccessSpec, Rate};
use crate::usage::{DepthCounts, ThreadUsage};

/// One I/O as a job saw it, with the job-level facts it contributes (a maximum, or a share of a
/// sum), so that a part of a stream is a measurement of its own.
#[derive(Clone, Debug)]
struct Sample {
    target: usize,
    /// 0 read, 1 write, 2 trim, 3 fsync.
    dir: usize,
    lat: u64,
    clat: u64,
    slat: u64,
    bytes: u64,
    second: usize,
    resp: u64,
    lag: u64,
    tool_lag: u64,
    late: bool,
    end_ns: u64,
    cpu_ns: u64,
    ppm: u64,
    target_uiops: u64,
    gave_up: bool,
    error: Option<(i32, u64)>,
    /// The job that did it (its place in the run).
    job: u64,
    /// Context switches and page faults the job counted meanwhile; the depth buckets it issued at
    /// and submitted and reaped in.
    ctx: u64,
    faults: u64,
    depth: usize,
    /// Job-level facts seen with this I/O: where a latency target's search stood, an early end, a
    /// steady-state verdict (its window length), a disk's reading (disk, reads).
    lat_depth: Option<u32>,
    ended: Option<EndReason>,
    steady: Option<u64>,
    disk: Option<(u64, u64)>,
    /// Verify: 0 stamped, 1 checked, 2 checked and wrong.
    verify: Option<u8>,
    /// The I/O's priority (an ioprio value; reads and writes keep clat per priority).
    prio: u16,
}

const THRESHOLDS: [u64; 3] = [1_000, 50_000, 1_000_000];

fn samples(rng: &mut fastrand::Rng, n: usize) -> Vec<Sample> {
    (0..n)
        .map(|_| {
            let lat = match rng.u8(0..10) {
                0 => rng.u64(1_000_000..50_000_000),
                1..=3 => rng.u64(0..300),
                _ => rng.u64(5_000..200_000),
            };
            let lag = if rng.bool() { rng.u64(0..3_000_000) } else { 0 };
            Sample {
                target: rng.usize(0..3),
                dir: rng.usize(0..4),
                lat,
                clat: lat - lat / 4,
                slat: rng.u64(100..5_000),
                bytes: 512 * rng.u64(1..256),
                second: rng.usize(0..5),
                resp: lat + lag,
                lag,
                tool_lag: lag / 3,
                late: lag > 1_000_000,
                end_ns: rng.u64(1..5_000_000_000),
                cpu_ns: rng.u64(0..10_000),
                ppm: rng.u64(0..1_000_000),
                target_uiops: rng.u64(0..1_000_000_000),
                gave_up: rng.u32(0..5000) == 0,
                error: (rng.u32(0..200) == 0).then(|| (rng.i32(1..4), rng.u64(0..1 << 30))),
                job: rng.u64(0..4),
                ctx: rng.u64(0..3),
                faults: rng.u64(0..2),
                depth: rng.usize(0..7),
                lat_depth: (rng.u32(0..50) == 0).then(|| rng.u32(1..64)),
                ended: (rng.u32(0..300) == 0)
                    .then(|| [EndReason::Steady, EndReason::RateMin, EndReason::Exitall][rng.usize(0..3)]),
                steady: (rng.u32(0..500) == 0).then(|| rng.u64(1..4)),
                disk: (rng.u32(0..100) == 0).then(|| (rng.u64(0..3), rng.u64(0..1000))),
                verify: (rng.u32(0..4) == 0).then(|| [0, 1, 1, 1, 2][rng.usize(0..5)]),
                prio: [0, 0x2000, 0x2001, 0x6007][rng.usize(0..4)],
            }
        })
        .collect()
}

/// The measurement of a sample stream, accumulated directly (as a job does), not by merging;
/// each job's own beside it (`kinds.per_job`).
fn measure(s: &[Sample], open: bool) -> Measurement {
    let mut m = measure_one(s, open);
    let mut ids: Vec<u64> = s.iter().map(|x| x.job).collect();
    ids.sort_unstable();
    ids.dedup();
    let own = |j: u64| {
        let mine: Vec<Sample> = s.iter().filter(|x| x.job == j).cloned().collect();
        // A job split across parts is one job: its own measurement counts no job thread.
        Measurement { jobs: 0, ..measure_one(&mine, open) }
    };
    m.kinds.per_job = Jobs(ids.into_iter().map(|j| JobPart { at: j, m: own(j) }).collect());
    m
}

/// The kinds of `s` beside the core histograms, each by its own rule written out here: counts
/// summed; the latency target's depth of the last job (the largest of that job's); the first job's
/// early end and steady-state verdict; each disk once (its first place, its largest reading);
/// verify's counts summed and its first mismatches in (target, offset) order.
fn kinds_of(s: &[Sample]) -> kinds::Kinds {
    let mut k = kinds::Kinds {
        thread_usage: Some(ThreadUsage::default()),
        iodepths: Some(DepthCounts::default()),
        ..Default::default()
    };
    let (u, d) = (k.thread_usage.as_mut().unwrap(), k.iodepths.as_mut().unwrap());
    let mut by_prio: [std::collections::BTreeMap<u16, crate::hist::Histogram>; 2] = Default::default();
    for x in s.iter().filter(|x| x.dir < 2) {
        by_prio[x.dir].entry(x.prio).or_default().record(x.clat);
    }
    k.clat_prio = kinds::prio::PrioClat(by_prio.map(|d| d.into_iter().collect()));
    for x in s {
        u.context_switches += x.ctx;
        (u.minor_faults, u.major_faults) = (u.minor_faults + x.faults, u.major_faults + x.faults / 2);
        d.issued_at_depth[x.depth] += 1;
        d.submit_calls[6 - x.depth] += 1;
        d.reap_passes[x.depth / 2] += 1;
    }
    k.latency_depth = s.iter().filter_map(|x| x.lat_depth.map(|v| (x.job, v))).max().map(|(j, v)| Last::new(j, v));
    k.ended =
        s.iter().filter_map(|x| x.ended.map(|e| (x.job, std::cmp::Reverse(e)))).min().map(|(j, e)| First::new(j, e.0));
    let verdict = |n: u64| SteadyStateStats {
        ss: "iops_slope:0.1%".into(),
        duration_s: n,
        attained: n > 1,
        ..Default::default()
    };
    k.steadystate = s
        .iter()
        .filter_map(|x| x.steady.map(|n| (x.job, std::cmp::Reverse(n))))
        .min()
        .map(|(j, n)| First::new(j, verdict(n.0)));
    let mut disks: Vec<(u64, DiskUtil)> = Vec::new();
    for (x, (disk, reads)) in s.iter().filter_map(|x| x.disk.map(|d| (x, d))) {
        let name = format!("loop{disk}");
        let reading = DiskUtil { name: name.clone(), read_ios: reads, busy_ms: reads / 3, ..Default::default() };
        match disks.iter_mut().find(|d| d.1.name == name) {
            Some(d) => {
                (d.0, d.1.read_ios, d.1.busy_ms) =
                    (d.0.min(x.target as u64), d.1.read_ios.max(reads), d.1.busy_ms.max(reads / 3))
            }
            None => disks.push((x.target as u64, reading)),
        }
    }
    disks.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
    k.disks = Disks(disks);
    if s.iter().any(|x| x.verify.is_some()) {
        let mut v = VerifyStats { unit_bytes: 4096, seed: 7, ..Default::default() };
        let mut wrong = Vec::new();
        for x in s {
            match x.verify {
                Some(0) => v.written_units += 1,
                Some(1) => v.inline.checked_units += 1,
                Some(_) => {
                    v.inline.checked_units += 1;
                    v.inline.mismatches += 1;
                    *v.inline.by_kind.entry(crate::verify::MismatchKind::Stale).or_default() += 1;
                    let head = UnitHeader {
                        target: x.target as u32,
                        offset_bytes: x.lat,
                        generation: x.job,
                        seed: 7,
                        unit_bytes: 4096,
                    };
                    wrong.push(MismatchRecord {
                        target: format!("/t{}", x.target),
                        offset_bytes: x.lat,
                        kind: crate::verify::MismatchKind::Stale,
                        expected: head,
                        found: None,
                        bits: x.slat,
                        differs_at_byte: None,
                        expected_hex: String::new(),
                        found_hex: String::new(),
                    });
                }
                None => {}
            }
        }
        wrong.sort();
        wrong.truncate(crate::result::Checks::KEEP_PER_RUN);
        v.inline.first = wrong;
        k.verify = Some(v);
    }
    k
}

/// [`measure`] without each job's own.
fn measure_one(s: &[Sample], open: bool) -> Measurement {
    let mut m = Measurement { jobs: 1, kinds: kinds_of(s), ..Default::default() };
    let mut ol = OpenLoop::default();
    for x in s {
        let d = match x.dir {
            0 => &mut m.read,
            1 => &mut m.write,
            2 => &mut m.trim,
            _ => &mut m.sync,
        };
        d.lat.record(x.lat);
        d.clat.record(x.clat);
        d.bytes += x.bytes;
        m.slat.record(x.slat);
        m.window_ns = m.window_ns.max(x.end_ns);
        m.cpu.usr_ns += x.cpu_ns;
        m.cpu.sys_ns += x.cpu_ns / 2;
        m.cpu.spin_ns += x.cpu_ns / 3;
        m.cpu.busiest_job_ppm = m.cpu.busiest_job_ppm.max(x.ppm);
        m.cpu.runnable_ppm = m.cpu.runnable_ppm.max(x.ppm);
        m.cpu.runnable_less_spin_ppm = m.cpu.runnable_less_spin_ppm.max(x.ppm / 2);
        m.cpu.cores = 2;
        if x.dir < 3 {
            let path = format!("/t{}", x.target);
            let t = match m.targets.iter_mut().position(|t| t.path == path) {
                Some(i) => &mut m.targets[i],
                None => {
                    m.targets.push(TargetPart { order: x.target as u64, path, ..Default::default() });
                    m.targets.last_mut().unwrap()
                }
            };
            t.window_ns = t.window_ns.max(x.end_ns);
            let td = match x.dir {
                0 => &mut t.read,
                1 => &mut t.write,
                _ => &mut t.trim,
            };
            td.lat.record(x.lat);
            td.bytes += x.bytes;
            if m.series.len() <= x.second {
                m.series.resize_with(x.second + 1, || Second {
                    over: vec![0; 3],
                    lat_over: vec![0; 3],
                    ready_over: vec![0; 3],
                    ..Default::default()
                });
            }
            let sec = &mut m.series[x.second];
            sec.dur_ns = sec.dur_ns.max(1_000_000_000 - (x.end_ns % 7));
            *[&mut sec.read_ops, &mut sec.write_ops, &mut sec.trim_ops][x.dir] += 1;
            sec.bytes += x.bytes;
            sec.lat_sum_ns += x.lat as u128;
            sec.lat = merge::sparse(&sec.lat, &[(bucket_of(x.lat) as u16, 1)]);
            if open {
                sec.resp = merge::sparse(&sec.resp, &[(bucket_of(x.resp) as u16, 1)]);
                sec.lag_max_ns = sec.lag_max_ns.max(x.lag);
                sec.tool_lag_max_ns = sec.tool_lag_max_ns.max(x.tool_lag);
            }
            for (k, &th) in THRESHOLDS.iter().enumerate() {
                sec.over[k] += (x.resp >= th) as u64;
                sec.lat_over[k] += (x.lat >= th) as u64;
                sec.ready_over[k] += (open && x.resp.saturating_sub(x.tool_lag) >= th) as u64;
            }
            if open {
                if x.dir == 0 { &mut ol.resp_read } else { &mut ol.resp_write }.record(x.resp);
                ol.lag.record(x.lag);
                ol.tool_lag.record(x.tool_lag);
                ol.late_ops += x.late as u64;
            }
        }
        ol.gave_up |= x.gave_up;
        ol.final_lag_ns = ol.final_lag_ns.max(x.lag);
        ol.target_uiops += x.target_uiops;
        ol.paced_window_ns += x.end_ns;
        m.stopped_by_error |= x.error.is_some();
        if let Some((errno, off)) = x.error {
            let e = crate::result::ErrorStat {
                target: format!("/t{}", x.target),
                op: ["read", "write", "trim", "fsync"][x.dir].into(),
                errno,
                error: format!("errno {errno}"),
                count: 1,
                first_offset_bytes: off,
                continued: false,
            };
            m.errors = merge::merge_errors(std::mem::take(&mut m.errors), vec![e]);
        }
    }
    m.targets.sort_by(|a, b| (a.order, &a.path).cmp(&(b.order, &b.path)));
    m.open_loop = open.then_some(ol);
    m
}

/// `s` split at random points into `k` parts (some possibly empty), shuffled.
fn split(rng: &mut fastrand::Rng, s: &[Sample], k: usize) -> Vec<Vec<Sample>> {
    let mut cuts: Vec<usize> = (0..k - 1).map(|_| rng.usize(0..=s.len())).collect();
    cuts.push(0);
    cuts.push(s.len());
    cuts.sort();
    let mut parts: Vec<Vec<Sample>> = cuts.windows(2).map(|w| s[w[0]..w[1]].to_vec()).collect();
    rng.shuffle(&mut parts);
    parts
}

fn spec(open: bool) -> AccessSpec {
    AccessSpec {
        thresholds_ns: THRESHOLDS.to_vec(),
        rate: open.then(|| Rate { per_s: 1000.0, ..Default::default() }),
        ..Default::default()
    }
}

/// Every part measured alone (one job each), merged in a random grouping.
fn merge_randomly(rng: &mut fastrand::Rng, parts: &[Vec<Sample>], open: bool) -> Measurement {
    let mut ms: Vec<Measurement> = parts.iter().map(|p| measure(p, open)).collect();
    while ms.len() > 1 {
        let i = rng.usize(0..ms.len() - 1);
        let (a, b) = (ms.remove(i), ms.remove(i));
        ms.insert(i, if rng.bool() { merge(&a, &b) } else { merge(&b, &a) });
    }
    ms.pop().unwrap()
}

#[test]
fn splitting_a_stream_into_parts_and_merging_them_gives_the_whole_stream_exactly() {
    let mut rng = fastrand::Rng::with_seed(25);
    for round in 0..40 {
        let open = round % 2 == 0;
        let n = rng.usize(0..3000);
        let s = samples(&mut rng, n);
        let k = rng.usize(1..7);
        let parts = split(&mut rng, &s, k);
        let mut whole = measure(&s, open);
        whole.jobs = k as u64; // each part was one job
        let merged = merge_randomly(&mut rng, &parts, open);
        assert_eq!(merged, whole, "round {round}: {k} parts");
        assert_eq!(summarize(&merged, &spec(open)), summarize(&whole, &spec(open)), "round {round}");
        // Every figure of the result, each job's own result (fio's clones) among them.
        let (a, b) = (assemble(merged, open), assemble(whole, open));
        assert!(a.clones.len() > 1 || n < 100, "round {round}: each job's own result");
        assert_eq!(a, b, "round {round}");
    }
}

/// The result of `m`, on the samples' targets.
fn assemble(m: Measurement, open: bool) -> crate::result::RunResult {
    let targets =
        (0..3).map(|t| crate::target::TargetInfo { path: format!("/t{t}"), ..crate::target::TargetInfo::null() });
    let facts = crate::result::EngineFacts {
        backend: "null".into(),
        ring: None,
        looks_before_sleep: None,
        job_cpus: Vec::new(),
    };
    let u = crate::merge::Unmeasured::new(spec(open), facts, targets.collect(), 0);
    crate::merge::assemble(m, u)
}

#[test]
fn merge_is_associative_and_commutative() {
    let mut rng = fastrand::Rng::with_seed(7);
    for round in 0..20 {
        let open = round % 3 != 0;
        let [a, b, c] = [0, 1, 2].map(|_| {
            let n = rng.usize(0..2000);
            measure(&samples(&mut rng, n), open)
        });
        assert_eq!(merge(&a, &b), merge(&b, &a), "round {round}");
        assert_eq!(merge(&merge(&a, &b), &c), merge(&a, &merge(&b, &c)), "round {round}");
    }
    // A closed-loop part beside an open-loop one keeps the open loop's figures.
    let o = measure(&samples(&mut rng, 100), true);
    let c = measure(&samples(&mut rng, 100), false);
    assert_eq!(merge(&o, &c), merge(&c, &o));
    assert_eq!(merge(&o, &c).open_loop, o.open_loop);
}

#[test]
fn merged_open_loop_figures_cover_every_part() {
    // Two ranks (or jobs) at 2000/s each: the merged target and achieved rates are the sums,
    // its lateness percentiles those of every part's I/Os, not the first part's.
    let mut rng = fastrand::Rng::with_seed(3);
    let mut s = samples(&mut rng, 4000);
    for (i, x) in s.iter_mut().enumerate() {
        (x.target_uiops, x.end_ns, x.gave_up, x.dir) = (0, 2_000_000_000, false, i % 2);
        // The second half (the second part) ran late, the first on time.
        x.lag = if i >= 2000 { 2_000_000 + i as u64 } else { 10 };
    }
    s[0].target_uiops = 2_000_000_000;
    s[2000].target_uiops = 2_000_000_000;
    let (a, b) = (measure(&s[..2000], true), measure(&s[2000..], true));
    let m = merge(&a, &b);
    let f = summarize(&m, &spec(true));
    let o = f.open_loop.as_ref().unwrap();
    assert_eq!(o.target_iops, 4000.0);
    let one = |m: &Measurement| summarize(m, &spec(true)).open_loop.unwrap();
    assert_eq!(o.achieved_iops, one(&a).achieved_iops + one(&b).achieved_iops);
    assert_eq!(o.late_ops, one(&a).late_ops + one(&b).late_ops);
    let mut lags = crate::hist::Histogram::new();
    s.iter().filter(|x| x.dir < 3).for_each(|x| lags.record(x.lag));
    assert_eq!(o.lag_ns, lags.summary(), "lateness over every part's I/Os");
    assert!(one(&a).kept_up && !one(&b).kept_up && !o.kept_up, "kept up only if every part did");
}

#[test]
fn a_merged_seconds_p99_is_exact() {
    // Part a: 200 fast I/Os in second 0; part b: 1 slow one. The p99 of all 201 is fast; the
    // larger of the parts' p99s (what seconds without histograms merged to) is slow.
    let mk = |lat: u64, n: usize| {
        let mut rng = fastrand::Rng::with_seed(1);
        let mut s = samples(&mut rng, n);
        s.iter_mut().for_each(|x| (x.lat, x.second, x.dir) = (lat, 0, 0));
        measure(&s, false)
    };
    let (fast, slow) = (10_000u64, 5_000_000u64);
    let m = merge(&mk(fast, 200), &mk(slow, 1));
    let p99 = summarize(&m, &spec(false)).series[0].lat_p99_ns;
    assert_eq!(bucket_of(p99), bucket_of(fast), "p99 of 200 fast and 1 slow I/O is fast: {p99}");
}

#[test]
fn pacing_spin_does_not_make_a_job_cpu_bound() {
    // A job that ran 99% of its window, 60 points of it spinning towards intended times: its
    // own pacing, not the target's limit.
    let out = crate::worker::JobOutput {
        window_ns: 1_000_000_000,
        cpu_usr_ns: 990_000_000,
        spin_ns: 600_000_000,
        ..Default::default()
    };
    let at = |iops| JobPlace {
        target_path: "null",
        target_index: 0,
        job_iops: iops,
        thresholds: 0,
        cores: 2,
        job: 0,
        end_reason: None,
    };
    let m = Measurement::of_job(&out, &at(Some(1000.0)));
    let c = summarize(&m, &spec(true)).cpu;
    assert!(!c.cpu_bound, "{c:?}");
    assert_eq!((c.runnable_pct, c.runnable_less_spin_pct), (99.0, 39.0));
    assert!((c.spin_pct - 60.0).abs() < 1e-9, "{c:?}");
    let busy = crate::worker::JobOutput { spin_ns: 0, ..out };
    let c = summarize(&Measurement::of_job(&busy, &at(None)), &spec(false)).cpu;
    assert!(c.cpu_bound && c.runnable_less_spin_pct == 99.0, "{c:?}");
}

#[test]
fn threads_beyond_the_cpus_waiting_for_each_other_are_no_busy_machine() {
    let job = |waited_pct: u64, job: u64| {
        let out = crate::worker::JobOutput {
            window_ns: 1_000_000_000,
            cpu_usr_ns: (100 - waited_pct) * 10_000_000,
            runq_wait_ns: waited_pct * 10_000_000,
            ..Default::default()
        };
        let at = JobPlace {
            target_path: "null",
            target_index: 0,
            job_iops: None,
            thresholds: 0,
            cores: 2,
            job,
            end_reason: None,
        };
        Measurement::of_job(&out, &at)
    };
    let of = |jobs: usize, waited: u64| {
        let parts: Vec<Measurement> = (0..jobs as u64).map(|j| job(waited, j)).collect();
        summarize(&crate::measurement::merge::merge_all(&parts).unwrap(), &spec(false)).cpu
    };
    // One thread on 2 CPUs waiting 30%: the machine was busy.
    let c = of(1, 30);
    assert!(c.cpu_starved && c.runq_wait_pct == 30.0, "{c:?}");
    // 8 threads on 2 CPUs wait for each other (75% if all CPU-bound): 66% is their own.
    let c = of(8, 66);
    assert!(!c.cpu_starved && c.runq_wait_pct == 66.0, "{c:?}");
    // 3 threads on 2 CPUs: a third their own; 60% is 27 points beyond it.
    assert!(of(3, 60).cpu_starved);
    assert!(!of(3, 50).cpu_starved);
}

#[test]
fn throughput_is_every_part_over_the_longest_window() {
    let mut rng = fastrand::Rng::with_seed(9);
    let mut s = samples(&mut rng, 3000);
    s.iter_mut().for_each(|x| x.end_ns = 1_000_000_000);
    s[0].end_ns = 2_000_000_000;
    let m = merge(&measure(&s[..1], false), &measure(&s[1..], false));
    let f = summarize(&m, &spec(false));
    assert_eq!(f.runtime_ns, 2_000_000_000);
    let ios = s.iter().filter(|x| x.dir < 3).count() as f64;
    assert_eq!(f.total.iops, ios / 2.0);
    for p in Pct::ALL {
        let mut h = crate::hist::Histogram::new();
        s.iter().filter(|x| x.dir < 3).for_each(|x| h.record(x.lat));
        assert_eq!(f.total.lat_ns.p(p), h.percentile(p.value()));
    }
}

#[test]
fn a_saved_measurement_reads_back_exactly() {
    let mut rng = fastrand::Rng::with_seed(11);
    for open in [false, true] {
        let mut m = measure(&samples(&mut rng, 5000), open);
        m.cpu.helper_ns = Some(123);
        let json = serde_json::to_string(&m).unwrap();
        let back: Measurement = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
    }
    // One target: its I/Os are the whole measurement's, saved once.
    let mut one = samples(&mut rng, 3000);
    one.iter_mut().for_each(|x| x.target = 0);
    let m = measure(&one, true);
    let json = serde_json::to_string(&m).unwrap();
    assert!(json.contains(r#""dirs":"""#), "the target's I/Os are not saved twice");
    assert_eq!(serde_json::from_str::<Measurement>(&json).unwrap(), m);
    // Saved before the ready counts were: no `series_ready`, the seconds' counts empty.
    let m = measure(&samples(&mut rng, 2000), true);
    let mut v: serde_json::Value = serde_json::to_value(&m).unwrap();
    assert!(v.as_object_mut().unwrap().remove("series_ready").is_some(), "an open-loop run's counts are saved");
    let old: Measurement = serde_json::from_value(v.clone()).unwrap();
    assert!(old.series.iter().all(|s| s.ready_over.is_empty()) && old.series.len() == m.series.len());
    // Counts for another number of seconds than the series has are refused.
    let short = Measurement { series: m.series[..1].to_vec(), ..m.clone() };
    v["series_ready"] = serde_json::to_value(&short).unwrap()["series_ready"].clone();
    let e = serde_json::from_value::<Measurement>(v).unwrap_err().to_string();
    assert!(e.contains("series_ready") && e.contains("seconds"), "{e}");
    let empty: Measurement = serde_json::from_str(&serde_json::to_string(&Measurement::default()).unwrap()).unwrap();
    assert_eq!(empty, Measurement::default());
    for n in 0..40usize {
        let b: Vec<u8> = (0..n).map(|_| rng.u8(..)).collect();
        assert_eq!(encoding::base64_roundtrip(&b), Some(b));
    }
}

#[test]
fn a_damaged_or_forged_measurement_is_refused_without_panicking() {
    let mut rng = fastrand::Rng::with_seed(13);
    // The packed fields of one measurement (a job's own, nested, are read by the same code).
    let m = measure_one(&samples(&mut rng, 500), true);
    let v: serde_json::Value = serde_json::to_value(&m).unwrap();
    let with = |field: &str, s: &str| {
        let mut v = v.clone();
        v[field] = serde_json::Value::String(s.into());
        serde_json::from_value::<Measurement>(v).map(|_| ()).unwrap_err().to_string()
    };
    // A bucket index past the last bucket; a length far past the data; not base64.
    // One second: 7 zero counters, lat_sum 0, one run of one bucket at index 20000 (of 7424).
    let out_of_range = [1u8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xa0, 0x9c, 0x01, 1, 1, 0, 0, 0];
    let e = with("series", &pack(&out_of_range));
    assert!(e.contains("series") && e.contains("out of range"), "{e}");
    let e = with("series", &pack(&[0xff, 0xff, 0xff, 0xff, 0x0f]));
    assert!(e.contains("more than it can hold"), "{e}");
    let e = with("dirs", "not*base64");
    assert!(e.contains("damaged or forged") && e.contains("dirs"), "{e}");
    let e = with("dirs", &b64(b"not deflated"));
    assert!(e.contains("not deflated"), "{e}");
    let e = with("dirs", &pack(&[0]));
    assert!(e.contains("ends in the middle"), "{e}");
    // Random bytes anywhere: refused or read, never a panic.
    for field in ["dirs", "series"] {
        let good = v[field].as_str().unwrap().to_string();
        let raw = unpack_raw(&good);
        for _ in 0..2000 {
            let mut b = raw.clone();
            for _ in 0..rng.usize(1..4) {
                let i = rng.usize(0..b.len());
                b[i] = rng.u8(..);
            }
            b.truncate(rng.usize(0..=b.len()));
            let mut v = v.clone();
            v[field] = serde_json::Value::String(pack(&b));
            let _ = serde_json::from_value::<Measurement>(v);
        }
    }
    // Priorities out of order, and one without I/Os: refused.
    // (Reads: priorities 5 then 3, each one I/O of 10 ns: one run of one bucket, then min, max,
    // sum, sum of squares; writes: none.)
    let e = with("clat_prio", &pack(&[2, 5, 1, 10, 1, 1, 10, 10, 10, 100, 3, 1, 10, 1, 1, 10, 10, 10, 100, 0]));
    assert!(e.contains("clat_prio") && e.contains("out of order"), "{e}");
    let e = with("clat_prio", &pack(&[1, 5, 0, 0]));
    assert!(e.contains("without I/Os"), "{e}");
    let mut wrong = v.clone();
    wrong["v"] = 9.into();
    let e = serde_json::from_value::<Measurement>(wrong).unwrap_err().to_string();
    assert!(e.contains("version is 9"), "{e}");
}

/// `raw` as a packed field: deflated, base64.
fn pack(raw: &[u8]) -> String {
    use std::io::Write;
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(raw).unwrap();
    b64(&z.finish().unwrap())
}

fn unpack_raw(s: &str) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(&decode(s)[..]).read_to_end(&mut out).unwrap();
    out
}

fn b64(b: &[u8]) -> String {
    // Written here again, so a forged field is built independently of the encoder.
    let mut s = String::new();
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for c in b.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            s.push(if k <= c.len() { A[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
    }
    s
}

fn decode(s: &str) -> Vec<u8> {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    for c in s.as_bytes().chunks(4) {
        let pad = c.iter().filter(|&&x| x == b'=').count();
        let n = c.iter().take(4 - pad).fold(0u32, |n, &x| n << 6 | A.iter().position(|&a| a == x).unwrap() as u32)
            << (6 * pad);
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
    }
    out
}

#[test]
fn merging_forged_measurements_at_the_limits_saturates_instead_of_overflowing() {
    // A saved measurement is input: a forged one may hold counts near u64::MAX. Merging it (a
    // report merges saved ranks and groups) must neither panic nor wrap to a small number.
    let mut rng = fastrand::Rng::with_seed(11);
    let mut big = measure(&samples(&mut rng, 50), true);
    big.jobs = u64::MAX - 1;
    big.read.bytes = u64::MAX - 3;
    big.cpu.usr_ns = u64::MAX;
    big.series.push(Second { read_ops: u64::MAX, bytes: u64::MAX, ..Default::default() });
    let m = merge(&big, &big);
    assert_eq!((m.jobs, m.read.bytes, m.cpu.usr_ns), (u64::MAX, u64::MAX, u64::MAX));
    let last = m.series.last().unwrap();
    assert_eq!((last.read_ops, last.bytes), (u64::MAX, u64::MAX));
    assert_eq!(merge(&m, &big), merge(&big, &m), "still commutative at the limit");
}

/// Rounds one after another (a steady-state window): windows and seconds follow each other,
/// every I/O counts once, and the IOPS of rounds of equal length is their average.
#[test]
fn consecutive_rounds_merge_as_one_run_over_both_windows() {
    let mut rng = fastrand::Rng::with_seed(38);
    for round in 0..20 {
        let open = round % 2 == 0;
        let parts: Vec<Measurement> = (0..3)
            .map(|_| {
                let n = rng.usize(1..2000);
                measure(&samples(&mut rng, n), open)
            })
            .collect();
        let (a, b, c) = (&parts[0], &parts[1], &parts[2]);
        let ab = merge::then(a, b);
        assert_eq!(merge::then(&ab, c), merge::then(a, &merge::then(b, c)), "round {round}: associative");
        assert_eq!(ab.window_ns, a.window_ns + b.window_ns);
        assert_eq!(ab.series.len(), a.series.len() + b.series.len());
        assert_eq!(ab.series[a.series.len()..], b.series[..], "b's seconds after a's");
        let concurrent = merge::merge(a, b);
        assert_eq!((&ab.read, &ab.write, &ab.errors), (&concurrent.read, &concurrent.write, &concurrent.errors));
        for t in &ab.targets {
            let w = |m: &Measurement| m.targets.iter().find(|x| x.path == t.path).map_or(0, |x| x.window_ns);
            assert_eq!(t.window_ns, w(a) + w(b), "round {round}: {}'s window", t.path);
        }
        for j in &ab.kinds.per_job.0 {
            let w = |m: &Measurement| m.kinds.per_job.0.iter().find(|x| x.at == j.at).map_or(0, |x| x.m.window_ns);
            assert_eq!(j.m.window_ns, w(a) + w(b), "round {round}: job {}'s window", j.at);
        }
        let ops = |m: &Measurement| m.read.lat.count() + m.write.lat.count() + m.trim.lat.count();
        let f = summarize(&ab, &spec(open));
        let want = (ops(a) + ops(b)) as f64 / ((a.window_ns + b.window_ns) as f64 / 1e9);
        assert!((f.total.iops - want).abs() <= want * 1e-9, "round {round}: {} vs {want}", f.total.iops);
    }
}
