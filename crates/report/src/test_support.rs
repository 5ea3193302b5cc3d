//! Saved points made up for tests: a point's numbers follow from one MB/s figure per target,
//! so a test can say what every table cell and chart mark must show without running anything.

use drivelab_engine::hist::Histogram;
use drivelab_engine::result::{CpuStats, DirStats, EngineFacts, RunResult, SeriesPoint, TargetResult, ToolInfo};
use drivelab_engine::spec::AccessSpec;
use drivelab_lab::plan::{Plan, Point};
use drivelab_lab::results::{Kind, Manifest, PointResult, Setup};
use drivelab_lab::sysinfo::HostFacts;

/// A direction moving `mb` MB/s: 256 IOPS per MB/s; no I/O when 0.
pub(crate) fn stats(mb: f64) -> DirStats {
    let mut lat = Histogram::new().summary();
    lat.mean = mb * 500.0;
    lat.percentiles.insert("p99", (mb * 1000.0) as u64);
    DirStats {
        ops: if mb > 0.0 { 1 } else { 0 },
        bytes: 0,
        iops: mb * 256.0,
        bw_bytes_per_s: mb * 1e6,
        bw_mb_per_s: mb,
        bw_mib_per_s: mb * 1e6 / 1048576.0,
        lat_ns: lat,
        clat_ns: None,
    }
}

/// The spec a point of these `fields` saves (`rw` first, as the plan reader takes it); a key
/// that is no field of the spec's (a test's own label) is left out.
pub(crate) fn spec_of(fields: &[(&str, &str)]) -> AccessSpec {
    let mut spec = AccessSpec::default();
    let rw_first = fields.iter().filter(|(k, _)| *k == "rw").chain(fields.iter().filter(|(k, _)| *k != "rw"));
    for (k, v) in rw_first {
        let _ = drivelab_engine::options::apply(&mut spec, k, v);
    }
    spec
}

/// A saved point labelled `label` of `step` with `fields` that moved `mb` MB/s on each target.
pub(crate) fn point(label: &str, step: &str, fields: &[(&str, &str)], targets: &[(&str, f64)]) -> PointResult {
    let sum: f64 = targets.iter().map(|t| t.1).sum();
    let per_target = targets
        .iter()
        .map(|&(path, mb)| TargetResult { path: path.into(), read: stats(mb), write: stats(0.0), total: stats(mb) })
        .collect();
    PointResult {
        schema: 1,
        power_w: None,
        steady: None,
        repeats: None,
        ranks: Vec::new(),
        prep: Vec::new(),
        jobs: Vec::new(),
        point: Point {
            index: 0,
            spec: spec_of(fields),
            label: label.into(),
            slug: String::new(),
            step: step.into(),
            targets: targets.iter().map(|t| t.0.to_string()).collect(),
            fields: fields.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect(),
            estimate_ns: None,
            concurrent: Vec::new(),
            fio: None,
            names: Vec::new(),
        },
        result: RunResult {
            schema: 1,
            tool: ToolInfo { name: "drivelab".into(), version: "test".into() },
            started_unix_ms: 0,
            spec: AccessSpec::default(),
            engine: EngineFacts { backend: "null".into(), ring: None, looks_before_sleep: None, job_cpus: Vec::new() },
            targets: Vec::new(),
            runtime_ns: 1_000_000_000,
            read: stats(sum),
            write: stats(0.0),
            total: stats(sum),
            trim: None,
            sync: None,
            per_target,
            cpu: CpuStats {
                usr_pct: 10.0,
                sys_pct: 5.0,
                sqpoll_pct: None,
                machine_pct: 7.5,
                busiest_job_pct: 15.0,
                ns_per_io: 0.0,
                cores: 2,
                runnable_pct: 0.0,
                cpu_bound: false,
                spin_pct: 0.0,
                runnable_less_spin_pct: 0.0,
                runq_wait_pct: 0.0,
                cpu_starved: false,
            },
            qd_mean: 1.0,
            series: Vec::new(),
            errors: Vec::new(),
            continued_errors: Vec::new(),
            interrupted: false,
            stopped_by_error: false,
            notices: Vec::new(),
            open_loop: None,
            slat_ns: None,
            verify_maps: Vec::new(),
            measurement: None,
            io_logs: Vec::new(),
            verify_writes: Vec::new(),
            latency_split: None,
            kinds: Default::default(),
            clones: Vec::new(),
        },
    }
}

/// `p` as if each of its targets had been one MPI rank's on `host`: each target a rank, its row
/// named `r<rank>@<host>:<path>`, each rank's part holding that target alone.
pub(crate) fn ranked(mut p: PointResult, host: &str) -> PointResult {
    use drivelab_lab::ranks::{merge::rank_target, RankPart, StartSync};
    let own = p.result.per_target.clone();
    for (rank, t) in p.result.per_target.iter_mut().enumerate() {
        t.path = rank_target(rank, host, &t.path);
    }
    p.ranks = own
        .into_iter()
        .enumerate()
        .map(|(rank, t)| {
            let mut r = p.result.clone();
            (r.read, r.write, r.total) = (t.read.clone(), t.write.clone(), t.total.clone());
            r.per_target = vec![t];
            RankPart { rank, host: host.into(), results: vec![r], power_w: None, start: StartSync::default() }
        })
        .collect();
    p
}

/// A results directory of `kind` ("run", "plan", "suite:bsqd") holding `points` and no probes.
pub(crate) fn results(kind: &str, points: Vec<PointResult>) -> drivelab_lab::results::Results {
    drivelab_lab::results::Results {
        dir: std::path::PathBuf::from("/results/x"),
        manifest: manifest(kind, &points),
        points,
        probes: Vec::new(),
        outcome: None,
        details: Default::default(),
    }
}

/// The manifest of a results directory of `kind` ("suite:bsqd", "plan") holding `points`.
pub(crate) fn manifest(kind: &str, points: &[PointResult]) -> Manifest {
    let mut targets: Vec<String> = Vec::new();
    for t in points.iter().flat_map(|p| p.point.targets.iter()) {
        if !targets.contains(t) {
            targets.push(t.clone());
        }
    }
    Manifest {
        schema: 2,
        tool: ToolInfo { name: "drivelab".into(), version: "test".into() },
        kind: kind.parse::<Kind>().expect("a results kind"),
        command_line: vec!["drivelab".into(), "suite".into(), kind.trim_start_matches("suite:").into()],
        started_unix_ms: 0,
        host: HostFacts {
            hostname: "h".into(),
            kernel: "k".into(),
            os: None,
            cpu_model: None,
            cores_online: 2,
            memory_bytes: 0,
            clocksource: None,
            virtualization: None,
            load_avg: Some("4.12 3.80 2.10".into()),
            job_session: Some(drivelab_lab::sysinfo::JobSession::Own),
            autogroup: Some(true),
        },
        targets: Vec::new(),
        ranks: None,
        setup: Setup::Plan(Plan {
            name: kind.trim_start_matches("suite:").into(),
            targets,
            together: false,
            repeat: 1,
            pause_ns: 0,
            precondition: None,
            points: points.iter().map(|p| p.point.clone()).collect(),
            source_notices: Vec::new(),
            thread: false,
        }),
    }
}

/// `secs` whole seconds of series: second `i` (from 0) has `iops(i)` IOPS and `p99_ns(i)` p99.
pub(crate) fn series(secs: usize, iops: impl Fn(usize) -> f64, p99_ns: impl Fn(usize) -> u64) -> Vec<SeriesPoint> {
    (0..secs)
        .map(|i| SeriesPoint {
            t_s: (i + 1) as f64,
            dur_ns: 1_000_000_000,
            iops: iops(i),
            read_iops: iops(i),
            write_iops: 0.0,
            bw_bytes_per_s: iops(i) * 4096.0,
            lat_mean_ns: p99_ns(i) as f64 / 2.0,
            lat_p99_ns: p99_ns(i),
            resp_p99_ns: None,
            lag_max_ns: None,
            tool_lag_max_ns: None,
            ops: iops(i).round() as u64,
            over_threshold_counts: Vec::new(),
            lat_over_threshold_counts: Vec::new(),
            ready_over_threshold_counts: Vec::new(),
            resp_pow2_ms: None,
        })
        .collect()
}

/// The bsqd suite on `targets` one after another (rw x bs 512..1m x qd 1..128: 192 points per
/// target), each point `secs` seconds long with a series whose shape differs from point to
/// point (so a chart showing another point's series is caught). Point `n` (from 1) moved
/// `n` MB/s.
pub(crate) fn bsqd_points(targets: &[&str], secs: usize) -> Vec<PointResult> {
    let mut out = Vec::new();
    for t in targets {
        for rw in ["randread", "randwrite"] {
            for b in 0..12 {
                let bs = drivelab_engine::units::fmt_size(512 << b);
                for q in 0..8 {
                    let qd = (1u32 << q).to_string();
                    let n = out.len() + 1;
                    let label = format!("rw={rw} bs={bs} qd={qd} on {t}");
                    let mut p = point(&label, "", &[("rw", rw), ("bs", &bs), ("qd", &qd)], &[(t, n as f64)]);
                    p.point.index = n;
                    let base = p.result.total.iops;
                    p.result.series = series(
                        secs,
                        |i| base * (1.0 + 0.3 * ((i * (n % 7 + 1)) as f64 * 0.37).sin()),
                        |i| 1000 * (n as u64 + 1) + 37 * ((i * n) % 50) as u64,
                    );
                    out.push(p);
                }
            }
        }
    }
    out
}

/// A `--latency-split` of 1000 I/Os whose p50 and p99 (and p99.9, p99 doubled) are cut into
/// `p50` and `p99` ns per stage (tool, kernel, device, completion, reap), with 3 seconds of
/// the p50's stages; `unmatched` I/Os were not cut.
pub(crate) fn split(p50: [u64; 5], p99: [u64; 5], unmatched: u64) -> drivelab_engine::result::LatencySplitStats {
    use drivelab_engine::result::{LatencySplitStats, SplitAt, SplitSecondStats, StageStats};
    use drivelab_engine::split::{Stages, STAGES};
    let at = |name: &str, ns: [u64; 5], ios: u64| {
        let sum: u64 = ns.iter().sum();
        SplitAt {
            percentile: name.into(),
            lat_ns: sum,
            bucket_ios: ios,
            stage_ns: Stages::from_array(ns),
            share_pct: Stages::from_array(ns.map(|v| 100.0 * v as f64 / sum.max(1) as f64)),
            sum_ns: sum,
        }
    };
    let total: u64 = p50.iter().sum();
    LatencySplitStats {
        ios: 1000 + unmatched,
        cut: 1000,
        without_device: 0,
        unmatched,
        clamped: 7,
        lost_events: 0,
        io_wq: 0,
        bpf_ns: 0,
        bpf_ns_per_io: 0.0,
        stages: STAGES
            .iter()
            .zip(p50)
            .map(|(s, ns)| StageStats {
                stage: s.to_string(),
                lat_ns: Histogram::new().summary(),
                mean_ns: ns as f64,
                share_pct: 100.0 * ns as f64 / total.max(1) as f64,
            })
            .collect(),
        at: vec![at("p50", p50, 500), at("p99", p99, 10), at("p99.9", p99.map(|v| v * 2), 1)],
        series: (0..3).map(|_| SplitSecondStats { ios: 333, mean_ns: Stages::from_array(p50) }).collect(),
    }
}
