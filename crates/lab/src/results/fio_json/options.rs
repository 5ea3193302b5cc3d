//! A fio job's options (its `[global]` ones, then its own) as a drivelab access spec, the fields
//! behind it and the targets it ran on, as far as they map; what does not map is named.
//!
//! The spec starts from fio's defaults, not drivelab's (`rw=read`, `bs=4k`, `iodepth=1`,
//! buffered, psync), so it says what fio ran. The fields are the options given that are
//! access-spec keys in fio's spelling (`iodepth`, `rw`, `bs`...), as drivelab records the fields
//! of a point, and go through the engine's one translation of fio's words
//! ([`drivelab_engine::fields`]). A few options set the spec without being fields (`size`,
//! `io_size`, `fsync`, `sync`, `ramp_time`, `percentage_random`); options that only shape
//! fio's reporting are passed over; the rest are listed as not translated.

use drivelab_engine::options::{self as fields, split_filename};
use drivelab_engine::spec::{AccessSpec, BlockSize, EngineKind, SyncMode};
use drivelab_engine::units::{parse_duration, parse_pct, parse_size};

use super::doc::Options;

/// What a job ran, in drivelab's words.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The options that are access-spec keys, as given (fio's spelling).
    pub fields: Vec<(String, String)>,
    pub spec: AccessSpec,
    /// Where it ran: `null` for fio's null engine, else its files.
    pub targets: Vec<String>,
    /// fio's ioengine as fio names it (`psync`, fio's default, when not given).
    pub engine: String,
    /// `key=value (why)` of each option given that drivelab's spec does not hold.
    pub untranslated: Vec<String>,
}

/// Options whose meaning is drivelab's field of the same key (fio's spelling), translated by
/// the engine's fields.
const FIELDS: [&str; 18] = [
    "rw",
    "readwrite",
    "bs",
    "blocksize",
    "iodepth",
    "numjobs",
    "runtime",
    "ioengine",
    "random_distribution",
    "direct",
    "buffered",
    "offset",
    "thinktime",
    "thinktime_spin",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "hipri",
    "rwmixread",
];

/// Options that name the job or its files, or shape fio's reporting, not the workload.
const NOT_WORKLOAD: [&str; 17] = [
    "name",
    "filename",
    "directory",
    "filename_format",
    "description",
    "group_reporting",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "lat_percentiles",
    "clat_percentiles",
    "slat_percentiles",
    "percentile_list",
    "time_based",
    "unified_rw_reporting",
    "per_job_logs",
    "log_avg_msec",
];

/// fio's defaults, where they differ from drivelab's.
fn fio_defaults() -> AccessSpec {
    AccessSpec {
        read_pct: 100,
        random_pct: 0,
        bs: vec![BlockSize { bytes: 4096, pct: 100 }],
        qd: 1,
        jobs: 1,
        submit_batch: 1,
        time_ns: None,
        direct: false,
        engine: EngineKind::Psync,
        ..AccessSpec::default()
    }
}

/// A fio time: a bare number is seconds.
fn seconds_ns(v: &str) -> Result<u64, String> {
    let v = v.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse::<u64>().map(|s| s.saturating_mul(1_000_000_000)).map_err(|e| e.to_string());
    }
    parse_duration(v).map(|d| d.as_nanos() as u64)
}

/// The rw word's mix is fio's mixed workload (where `rwmixread` applies).
fn is_mixed(rw: Option<&str>) -> bool {
    matches!(rw.map(str::trim), Some("rw" | "readwrite" | "randrw"))
}

/// Why fio's `value` for `key` is not translated, if it is one drivelab's parser would read
/// differently.
fn differs(key: &str, value: &str) -> Option<&'static str> {
    match key {
        "rw" | "readwrite" if value.contains(':') => Some("fio's WORD:N skips bytes after each I/O"),
        "bs" | "blocksize" if value.contains(',') => Some("fio's sizes for reads,writes differ"),
        "bs" | "blocksize" if value.contains('-') => Some("a range of sizes"),
        _ => None,
    }
}

/// The workload of job `jobname` (its `clone`-th job of that name in its group, for fio's own
/// file names).
pub fn workload(global: &Options, job: &Options, jobname: &str, clone: usize) -> Workload {
    let all: Vec<&(String, String)> = global.0.iter().chain(&job.0).collect();
    let last = |key: &str| all.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let engine = last("ioengine").unwrap_or("psync").trim().to_string();
    let mut w =
        Workload { fields: Vec::new(), spec: fio_defaults(), targets: Vec::new(), engine, untranslated: Vec::new() };
    let rw = last("rw").or_else(|| last("readwrite"));
    let mut size = None;
    let mut io_size = None;
    let mut random = None;
    // fio applies rwmixread/rwmixwrite to the mix of the final rw, wherever they were given.
    let is_mix = |k: &str| k == "rwmixread" || k == "rwmixwrite";
    let in_order = all.iter().filter(|(k, _)| !is_mix(k)).chain(all.iter().filter(|(k, _)| is_mix(k)));
    for (k, v) in in_order {
        let (k, v) = (k.as_str(), v.trim());
        let set = |spec: &mut AccessSpec| fields::apply(spec, k, v).map_err(|e| e.to_string());
        let done = match k {
            "ioengine" if v == "null" => Ok(false),
            "rwmixread" | "rwmixwrite" if !is_mixed(rw) => {
                Err(format!("fio ignores it for rw={}", rw.unwrap_or("read (fio's default)")))
            }
            "rwmixwrite" => set(&mut w.spec).map(|_| true),
            k if FIELDS.contains(&k) => match differs(k, v) {
                Some(why) => Err(why.to_string()),
                None => set(&mut w.spec).map(|_| true),
            },
            "size" => parse_size(v).map(|b| size = Some(b)).map(|_| false),
            "io_size" | "io_limit" => parse_size(v).map(|b| io_size = Some(b)).map(|_| false),
            "fsync" => v.parse::<u32>().map_err(|e| e.to_string()).map(|n| {
                w.spec.sync = if n > 0 { SyncMode::Fsync { every: n } } else { SyncMode::None };
                false
            }),
            "sync" => match v {
                "1" | "sync" | "dsync" => Ok(SyncMode::Dsync),
                "0" | "none" => Ok(SyncMode::None),
                _ => Err("not O_SYNC or O_DSYNC".to_string()),
            }
            .map(|m| {
                w.spec.sync = m;
                false
            }),
            "ramp_time" => seconds_ns(v).map(|ns| w.spec.ramp_ns = ns).map(|_| false),
            "percentage_random" => parse_pct(v, "").map(|p| random = Some(p)).map(|_| false),
            k if NOT_WORKLOAD.contains(&k) => Ok(false),
            _ => Err("no drivelab equivalent".to_string()),
        };
        match done {
            Ok(true) => w.fields.push((k.to_string(), v.to_string())),
            Ok(false) => {}
            Err(why) => w.untranslated.push(format!("{k}={v} ({why})")),
        }
    }
    // fio's null engine has no page cache, whatever `direct` says: run as drivelab's null target.
    if w.engine == "null" {
        w.spec.direct = true;
    }
    if let Some(p) = random.filter(|_| w.spec.random_pct == 100) {
        w.spec.random_pct = p;
    }
    w.spec.span_bytes = size;
    // Without a runtime fio moves `io_size` (default: `size`) bytes per job.
    if w.spec.time_ns.is_none() {
        w.spec.io_size_bytes = io_size.or(size);
    }
    w.targets = targets(&w.engine, last("filename"), last("directory"), jobname, clone);
    w
}

/// Where a job ran: `null`, its `filename` list (under `directory`), or the file fio names
/// itself (`jobname.N.0`).
fn targets(engine: &str, filename: Option<&str>, directory: Option<&str>, jobname: &str, clone: usize) -> Vec<String> {
    if engine == "null" {
        return vec!["null".into()];
    }
    let names = match filename {
        Some(f) => split_filename(f).unwrap_or_else(|_| vec![f.to_string()]),
        None => vec![format!("{jobname}.{clone}.0")],
    };
    names
        .into_iter()
        .map(|n| match directory {
            Some(d) if !n.starts_with('/') => format!("{}/{n}", d.trim_end_matches('/')),
            _ => n,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> Options {
        Options(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn a_job_is_fios_defaults_then_its_global_then_its_own_options() {
        let global = opts(&[("ioengine", "io_uring"), ("bs", "4k"), ("rwmixread", "70"), ("size", "64m")]);
        let w = workload(&global, &opts(&[("rw", "randrw"), ("iodepth", "8"), ("direct", "1")]), "a", 0);
        let s = &w.spec;
        assert_eq!((s.read_pct, s.random_pct, s.qd, s.jobs, s.direct), (70, 100, 8, 1, true));
        assert_eq!((s.engine, s.span_bytes, s.io_size_bytes), (EngineKind::Uring, Some(64 << 20), Some(64 << 20)));
        assert_eq!(w.targets, ["a.0.0"], "fio names the file itself");
        let keys: Vec<&str> = w.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ioengine", "bs", "rw", "iodepth", "direct", "rwmixread"], "the mix after the rw");
        assert!(w.untranslated.is_empty(), "{:?}", w.untranslated);

        let w = workload(&opts(&[]), &opts(&[]), "b", 2);
        let s = &w.spec;
        assert_eq!(
            (s.read_pct, s.random_pct, s.direct, s.engine),
            (100, 0, false, EngineKind::Psync),
            "fio's defaults"
        );
        assert_eq!((w.engine.as_str(), w.targets.as_slice()), ("psync", ["b.2.0".to_string()].as_slice()));
    }

    #[test]
    fn what_drivelab_would_read_otherwise_is_named_not_translated() {
        let w = workload(
            &opts(&[("ioengine", "null"), ("rwmixread", "70")]),
            &opts(&[("rw", "randread:8"), ("bs", "4k,64k"), ("rate", "10m"), ("runtime", "2")]),
            "j",
            0,
        );
        assert_eq!(w.targets, ["null"]);
        assert_eq!(w.spec.time_ns, Some(2_000_000_000));
        let said = w.untranslated.join("; ");
        for key in ["rwmixread=70 (fio ignores it", "rw=randread:8", "bs=4k,64k", "rate=10m (no drivelab"] {
            assert!(said.contains(key), "{key}: {said}");
        }
        assert_eq!(w.spec.read_pct, 100, "rwmixread left alone for a read-only rw");
        let w = workload(&opts(&[]), &opts(&[("filename", "/dev/a:/dev/b"), ("fsync", "4")]), "j", 0);
        assert_eq!(w.targets, ["/dev/a", "/dev/b"]);
        assert_eq!(w.spec.sync, SyncMode::Fsync { every: 4 });
    }
}
