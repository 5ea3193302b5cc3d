//! Saved points made up for tests: a point's numbers follow from one MB/s figure per target.

use drivelab_engine::hist::Histogram;
use drivelab_engine::result::{CpuStats, DirStats, EngineFacts, RunResult, TargetResult, ToolInfo};
use drivelab_engine::spec::AccessSpec;
use drivelab_lab::runner::{PointRecord, PointResult};

/// A direction moving `mb` MB/s: 256 IOPS per MB/s; no I/O when 0.
pub(crate) fn stats(mb: f64) -> DirStats {
    let mut lat = Histogram::new().summary();
    lat.mean = mb * 500.0;
    lat.percentiles.insert("p99".into(), (mb * 1000.0) as u64);
    DirStats {
        ops: if mb > 0.0 { 1 } else { 0 },
        bytes: 0,
        iops: mb * 256.0,
        bw_bytes_per_s: mb * 1e6,
        bw_mb_per_s: mb,
        bw_mib_per_s: mb * 1e6 / 1048576.0,
        lat_ns: lat,
    }
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
        point: PointRecord {
            index: 0,
            label: label.into(),
            slug: String::new(),
            step: step.into(),
            targets: targets.iter().map(|t| t.0.to_string()).collect(),
            fields: fields.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect(),
            estimate_ns: None,
        },
        result: RunResult {
            schema: 1,
            tool: ToolInfo { name: "drivelab".into(), version: "test".into() },
            started_unix_ms: 0,
            spec: AccessSpec::default(),
            engine: EngineFacts { backend: "null".into(), ring: None, job_cpus: Vec::new() },
            targets: Vec::new(),
            runtime_ns: 1_000_000_000,
            read: stats(sum),
            write: stats(0.0),
            total: stats(sum),
            sync: None,
            per_target,
            cpu: CpuStats {
                usr_pct: 10.0,
                sys_pct: 5.0,
                machine_pct: 7.5,
                busiest_job_pct: 15.0,
                ns_per_io: 0.0,
                cores: 2,
                runnable_pct: 0.0,
                cpu_bound: false,
            },
            qd_mean: 1.0,
            series: Vec::new(),
            errors: Vec::new(),
            interrupted: false,
            stopped_by_error: false,
            notices: Vec::new(),
            open_loop: None,
        },
    }
}
