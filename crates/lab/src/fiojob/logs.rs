//! fio's logging options (`write_lat_log`, `write_bw_log`, `write_iops_log`, `write_hist_log`
//! and the options that shape them) into the spec's [`IoLogSpec`]: the jobs record what the
//! logs need and `crate::fiologs` writes them in fio's names and format after each point.

use drivelab_engine::iolog::IoLogSpec;
use drivelab_engine::spec::AccessSpec;

use super::ini::Opt;
use super::options::Job;
use super::value::{boolean, within};

/// What the logging options said, before the job's name is known.
#[derive(Clone, Debug, Default)]
pub struct LogDraft {
    /// Prefixes as written (`Some("")`: the job's name).
    lat: Option<String>,
    bw: Option<String>,
    iops: Option<String>,
    hist: Option<String>,
    iolog: Option<String>,
    avg_ms: u64,
    hist_ms: u64,
    coarseness: u32,
    max: bool,
    offset: bool,
    prio: bool,
    shared: bool,
}

/// Is `key` one of fio's logging options?
pub fn is_key(key: &str) -> bool {
    matches!(
        key,
        "write_lat_log"
            | "write_bw_log"
            | "write_iops_log"
            | "write_hist_log"
            | "write_iolog"
            | "log_avg_msec"
            | "log_hist_msec"
            | "log_hist_coarseness"
            | "log_max_value"
            | "per_job_logs"
            | "log_offset"
            | "log_prio"
            | "log_compression"
            | "log_store_compressed"
            | "log_unix_epoch"
            | "log_alternate_epoch"
    )
}

/// Apply logging option `o` (one [`is_key`] accepts); why it is refused otherwise.
pub fn apply(d: &mut LogDraft, o: &Opt) -> Result<(), String> {
    let value = o.value.as_deref().map(str::trim);
    let prefix = || value.unwrap_or("").to_string();
    let flag = || boolean(value);
    let int = |hi: u64| -> Result<u64, String> {
        let v = value.filter(|v| !v.is_empty()).ok_or("needs a value (key=value)")?;
        Ok(within(v, 0, hi)?)
    };
    match o.key.as_str() {
        "write_lat_log" => d.lat = Some(prefix()),
        "write_bw_log" => d.bw = Some(prefix()),
        "write_iops_log" => d.iops = Some(prefix()),
        "write_hist_log" => d.hist = Some(prefix()),
        "write_iolog" => {
            let path = prefix();
            if path.is_empty() {
                return Err("needs the file to write the I/Os to (write_iolog=FILE)".into());
            }
            d.iolog = Some(path);
        }
        "log_avg_msec" => d.avg_ms = int(u32::MAX.into())?,
        "log_hist_msec" => d.hist_ms = int(u32::MAX.into())?,
        // fio's coarseness goes to 6: 64 buckets summed into one.
        "log_hist_coarseness" => d.coarseness = int(6)? as u32,
        "log_max_value" => d.max = flag()?,
        "per_job_logs" => d.shared = !flag()?,
        "log_offset" => d.offset = flag()?,
        "log_prio" => d.prio = flag()?,
        "log_compression" | "log_store_compressed" => {
            let off = match o.key.as_str() {
                "log_compression" => value.is_none_or(|v| v.is_empty() || v == "0"),
                _ => !flag()?,
            };
            if !off {
                return Err("compressed logs are not supported: drivelab writes plain-text logs; remove it".into());
            }
        }
        "log_unix_epoch" | "log_alternate_epoch" => {
            if flag()? {
                return Err("drivelab's log times are ms since the job started (fio's default); remove it".into());
            }
        }
        other => return Err(format!("'{other}' is not a logging option")),
    }
    Ok(())
}

/// The spec of job `name` (its first clone numbered `first_job` by fio), or None when it
/// writes no log. `clone_per_target`: each clone has its own file.
pub fn finish(d: LogDraft, name: &str, first_job: u32, clone_per_target: bool) -> Option<IoLogSpec> {
    let named = |p: Option<String>| p.map(|p| if p.is_empty() { name.to_string() } else { p });
    let spec = IoLogSpec {
        lat: named(d.lat),
        bw: named(d.bw),
        iops: named(d.iops),
        hist: named(d.hist),
        iolog: d.iolog,
        avg_ms: d.avg_ms,
        hist_ms: d.hist_ms,
        hist_coarseness: d.coarseness,
        max: d.max,
        offset: d.offset,
        prio: d.prio,
        per_job: !d.shared,
        first_job,
        clone_per_target,
        names: Vec::new(),
    };
    (spec.wants_ios() || spec.hist.is_some() || spec.iolog.is_some()).then_some(spec)
}

/// Give job `job`'s logs (if any) fio's job numbers, from `next` on: one per clone (its targets
/// when each clone has its own file, `own_files`, else its jobs per target); an iolog keeps the
/// `targets` as named.
pub fn number(spec: &mut AccessSpec, job: &Job, own_files: bool, targets: &[String], next: &mut u32) {
    let per_target = job.file_per_clone && own_files;
    let clones = if per_target { (targets.len() / spec.files.each()) as u32 } else { spec.jobs };
    if let Some(mut l) = job.io_log.clone() {
        l.first_job = *next;
        l.clone_per_target = per_target;
        if l.iolog.is_some() {
            l.names = targets.to_vec();
        }
        spec.io_log = Some(Box::new(l));
    }
    *next = next.saturating_add(clones);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(k: &str, v: Option<&str>) -> Opt {
        Opt { key: k.into(), value: v.map(String::from), line: 1 }
    }

    #[test]
    fn prefixes_default_to_the_jobs_name_and_options_shape_the_spec() {
        let mut d = LogDraft::default();
        for (k, v) in [
            ("write_lat_log", None),
            ("write_bw_log", Some("bwp")),
            ("log_avg_msec", Some("250")),
            ("log_max_value", Some("1")),
            ("per_job_logs", Some("0")),
            ("log_offset", None),
            ("log_hist_coarseness", Some("2")),
        ] {
            apply(&mut d, &opt(k, v)).unwrap();
        }
        let s = finish(d, "job1", 3, true).unwrap();
        assert_eq!((s.lat.as_deref(), s.bw.as_deref(), s.iops.as_deref()), (Some("job1"), Some("bwp"), None));
        assert_eq!((s.avg_ms, s.max, s.per_job, s.offset, s.hist_coarseness), (250, true, false, true, 2));
        assert_eq!((s.first_job, s.clone_per_target), (3, true));
        assert!(finish(LogDraft::default(), "j", 1, false).is_none(), "no write_*_log: no logs");
    }

    #[test]
    fn what_fio_refuses_or_drivelab_cannot_do_is_refused() {
        let mut d = LogDraft::default();
        assert!(apply(&mut d, &opt("log_hist_coarseness", Some("7"))).is_err());
        assert!(apply(&mut d, &opt("log_avg_msec", Some("x"))).is_err());
        let e = apply(&mut d, &opt("log_compression", Some("4k"))).unwrap_err();
        assert!(e.contains("compressed"), "{e}");
        assert!(apply(&mut d, &opt("log_store_compressed", Some("1"))).is_err());
        assert!(apply(&mut d, &opt("log_store_compressed", Some("0"))).is_ok());
        assert!(apply(&mut d, &opt("log_unix_epoch", Some("1"))).is_err());
    }
}
