//! Access-spec fields by name: one parser for `drivelab run`'s flags and for plan files, so both
//! accept exactly the same keys and spellings (`bs = "4k:70,64k:30"` in a plan is `--bs
//! 4k:70,64k:30` on the command line) and give the same errors.

use crate::error::Error;
use crate::spec::{AccessSpec, Arrivals, CpuPlacement, DataPattern, EngineKind, Rate, RateScope, RateUnit, SyncMode};
use crate::units::{parse_duration, parse_pct, parse_size};

/// Every key `apply` accepts: the flag names of `drivelab run` without the dashes.
pub const KEYS: &[&str] = &[
    "rw",
    "read",
    "random",
    "bs",
    "align",
    "offset",
    "span",
    "qd",
    "jobs",
    "batch",
    "time",
    "io_size",
    "ramp",
    "direct",
    "buffered",
    "sync",
    "data",
    "seed",
    "engine",
    "cpus",
    "continue_on_error",
    "rate",
    "rate_scope",
    "arrivals",
    "max_lag",
];

fn inv(key: &str, e: String) -> Error {
    Error::invalid(format!("{} {e}", flag(key)))
}

fn flag(key: &str) -> String {
    format!("--{}", key.replace('_', "-"))
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, Error> {
    value.trim().parse().map_err(|_| Error::invalid(format!("{} '{value}' is not a whole number", flag(key))))
}

fn boolean(key: &str, value: &str) -> Result<bool, Error> {
    match value.trim() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(Error::invalid(format!("{} '{value}' is not true or false", flag(key)))),
    }
}

/// Set one field from its text. Unknown keys are refused with the list of known ones.
pub fn apply(spec: &mut AccessSpec, key: &str, value: &str) -> Result<(), Error> {
    let v = value.trim();
    match key {
        "rw" => spec.set_rw(v)?,
        "read" => spec.read_pct = parse_pct(v, "--read").map_err(Error::invalid)?,
        "random" => spec.random_pct = parse_pct(v, "--random").map_err(Error::invalid)?,
        "bs" => spec.bs = AccessSpec::parse_bs(v)?,
        "align" => spec.align_bytes = Some(parse_size(v).map_err(|e| inv(key, e))?),
        "offset" => spec.offset_bytes = parse_size(v).map_err(|e| inv(key, e))?,
        "span" => spec.span_bytes = Some(parse_size(v).map_err(|e| inv(key, e))?),
        "qd" => spec.qd = number(key, v)?,
        "jobs" => spec.jobs = number(key, v)?,
        "batch" => spec.submit_batch = number(key, v)?,
        "time" => spec.time_ns = Some(parse_duration(v).map_err(|e| inv(key, e))?.as_nanos() as u64),
        "io_size" => spec.io_size_bytes = Some(parse_size(v).map_err(|e| inv(key, e))?),
        "ramp" => spec.ramp_ns = parse_duration(v).map_err(|e| inv(key, e))?.as_nanos() as u64,
        "direct" => spec.direct = boolean(key, v)?,
        "buffered" => spec.direct = !boolean(key, v)?,
        "sync" => spec.sync = parse_sync(v)?,
        "data" => spec.data = parse_data(v)?,
        "seed" => spec.seed = number(key, v)?,
        "engine" => spec.engine = parse_engine(v)?,
        "cpus" => spec.cpus = parse_cpus(v)?,
        "continue_on_error" => spec.continue_on_error = boolean(key, v)?,
        "rate" => {
            let (per_s, unit) = parse_rate(v)?;
            let r = spec.rate.get_or_insert_with(Rate::default);
            (r.per_s, r.unit) = (per_s, unit);
        }
        "rate_scope" => {
            spec.rate.get_or_insert_with(Rate::default).scope = match v {
                "total" => RateScope::Total,
                "job" => RateScope::Job,
                _ => return Err(Error::invalid(format!("--rate-scope '{v}': use total or job"))),
            }
        }
        "arrivals" => {
            spec.rate.get_or_insert_with(Rate::default).arrivals = match v {
                "uniform" => Arrivals::Uniform,
                "poisson" => Arrivals::Poisson,
                _ => return Err(Error::invalid(format!("--arrivals '{v}': use uniform or poisson"))),
            }
        }
        "max_lag" => {
            spec.rate.get_or_insert_with(Rate::default).max_lag_ns =
                Some(parse_duration(v).map_err(|e| inv(key, e))?.as_nanos() as u64)
        }
        other => {
            return Err(Error::invalid(format!(
                "'{other}' is not an access-spec field: use one of {}",
                KEYS.join(", ")
            )))
        }
    }
    Ok(())
}

/// A validated spec from defaults plus `pairs` applied in order. As on the command line, a spec
/// with `io_size` and no `time` runs until the bytes are done; with neither it runs 10 s.
pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<AccessSpec, Error> {
    let mut spec = AccessSpec::default();
    let mut timed = false;
    for (k, v) in pairs {
        apply(&mut spec, k, v)?;
        timed |= k == "time";
    }
    if !timed && spec.io_size_bytes.is_some() {
        spec.time_ns = None;
    }
    spec.validate()?;
    Ok(spec)
}

/// `5000`, `5000iops` or `5k` (I/Os per second), or a size per second: `200MiB/s`, `1g/s`.
pub fn parse_rate(text: &str) -> Result<(f64, RateUnit), Error> {
    let t = text.trim();
    if let Some(size) = t.strip_suffix("/s") {
        let bytes = parse_size(size).map_err(|e| Error::invalid(format!("--rate '{text}': {e}")))?;
        return Ok((bytes as f64, RateUnit::Bytes));
    }
    let n = t.strip_suffix("iops").unwrap_or(t).trim();
    let (num, mult) = match n.strip_suffix('k') {
        Some(x) => (x, 1e3),
        None => match n.strip_suffix('m') {
            Some(x) => (x, 1e6),
            None => (n, 1.0),
        },
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok((v * mult, RateUnit::Iops)),
        _ => Err(Error::invalid(format!(
            "--rate '{text}' is not a rate: give I/Os per second (5000, 5k, 5000iops) or bytes per second (200MiB/s)"
        ))),
    }
}

pub fn parse_engine(text: &str) -> Result<EngineKind, Error> {
    match text {
        "uring" | "io_uring" => Ok(EngineKind::Uring),
        "psync" => Ok(EngineKind::Psync),
        other => Err(Error::invalid(format!("--engine '{other}' is not an engine: use uring or psync"))),
    }
}

pub fn parse_cpus(text: &str) -> Result<CpuPlacement, Error> {
    match text {
        "spread" => Ok(CpuPlacement::Spread),
        "none" => Ok(CpuPlacement::None),
        list => list
            .split(',')
            .map(|c| c.trim().parse::<u32>())
            .collect::<Result<Vec<_>, _>>()
            .map(CpuPlacement::List)
            .map_err(|_| Error::invalid(format!("--cpus '{text}': use spread, none, or CPU numbers such as 0,2"))),
    }
}

pub fn parse_sync(text: &str) -> Result<SyncMode, Error> {
    match text {
        "none" => Ok(SyncMode::None),
        "dsync" => Ok(SyncMode::Dsync),
        t if t.starts_with("fsync") => {
            let n = t.strip_prefix("fsync").unwrap_or_default().strip_prefix(':').unwrap_or("1");
            let every = n.parse::<u32>().map_err(|_| {
                Error::invalid(format!("--sync '{text}': write fsync:N with N a whole number, e.g. fsync:1"))
            })?;
            Ok(SyncMode::Fsync { every })
        }
        _ => Err(Error::invalid(format!("--sync '{text}' is not a sync mode: use none, dsync or fsync:N"))),
    }
}

pub fn parse_data(text: &str) -> Result<DataPattern, Error> {
    match text {
        "random" => Ok(DataPattern::Random),
        "zero" | "zeros" => Ok(DataPattern::Zero),
        t if t.starts_with("compress:") => {
            let pct = parse_pct(&t["compress:".len()..], "--data compress").map_err(Error::invalid)?;
            Ok(DataPattern::Compress { pct })
        }
        _ => Err(Error::invalid(format!("--data '{text}' is not a data pattern: use random, zero or compress:PCT"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_accepted_with_its_usual_spelling() {
        let values = [
            ("rw", "randrw"),
            ("read", "70"),
            ("random", "5"),
            ("bs", "4k:70,64k:30"),
            ("align", "512"),
            ("offset", "1m"),
            ("span", "8g"),
            ("qd", "32"),
            ("jobs", "2"),
            ("batch", "4"),
            ("time", "3m"),
            ("io_size", "1g"),
            ("ramp", "10s"),
            ("direct", "true"),
            ("buffered", "false"),
            ("sync", "fsync:8"),
            ("data", "compress:50"),
            ("seed", "7"),
            ("engine", "psync"),
            ("cpus", "0"),
            ("continue_on_error", "true"),
            ("rate", "2k"),
            ("rate_scope", "job"),
            ("arrivals", "poisson"),
            ("max_lag", "10s"),
        ];
        assert_eq!(values.len(), KEYS.len());
        let mut s = AccessSpec::default();
        for (k, v) in values {
            apply(&mut s, k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
        }
        assert_eq!((s.read_pct, s.random_pct, s.qd, s.jobs, s.submit_batch), (70, 5, 32, 2, 4));
        assert_eq!((s.align_bytes, s.span_bytes, s.time_ns), (Some(512), Some(8 << 30), Some(180_000_000_000)));
        assert_eq!(s.sync, SyncMode::Fsync { every: 8 });
        assert!(s.direct && s.continue_on_error);
        let r = s.rate.unwrap();
        assert_eq!((r.per_s, r.unit, r.scope, r.arrivals), (2000.0, RateUnit::Iops, RateScope::Job, Arrivals::Poisson));
        assert_eq!(r.max_lag_ns, Some(10_000_000_000));
    }

    #[test]
    fn rates_are_iops_or_bytes_per_second() {
        assert_eq!(parse_rate("5000").unwrap(), (5000.0, RateUnit::Iops));
        assert_eq!(parse_rate("2.5k").unwrap(), (2500.0, RateUnit::Iops));
        assert_eq!(parse_rate("1m iops").unwrap(), (1e6, RateUnit::Iops));
        assert_eq!(parse_rate("1m/s").unwrap(), (1048576.0, RateUnit::Bytes));
        for bad in ["fast", "0", "-5", "5 per s"] {
            let e = parse_rate(bad).unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("200MiB/s"), "{e}");
        }
        // 4,096,000 bytes/s of 4 KiB I/Os shared by 2 jobs.
        let s = from_pairs([("rate", "4096000/s"), ("bs", "4k")]).unwrap();
        assert_eq!(s.job_iops(2), Some(500.0));
    }

    #[test]
    fn unknown_keys_list_the_known_ones() {
        let e = apply(&mut AccessSpec::default(), "depth", "4").unwrap_err().to_string();
        assert!(e.contains("'depth'") && e.contains("qd"), "{e}");
    }

    #[test]
    fn io_size_without_time_runs_until_the_bytes_are_done() {
        let s = from_pairs([("io_size", "1m")]).unwrap();
        assert_eq!((s.time_ns, s.io_size_bytes), (None, Some(1 << 20)));
        let s = from_pairs([("io_size", "1m"), ("time", "1s")]).unwrap();
        assert_eq!(s.time_ns, Some(1_000_000_000));
        assert_eq!(from_pairs([]).unwrap().time_ns, Some(10_000_000_000));
        assert!(from_pairs([("qd", "0")]).unwrap_err().to_string().contains("--qd 0"));
    }
}
