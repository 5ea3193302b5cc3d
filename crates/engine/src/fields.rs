//! Access-spec fields by name: one parser for `drivelab run`'s flags and for plan files, so both
//! accept exactly the same keys and spellings (`bs = "4k:70,64k:30"` in a plan is `--bs
//! 4k:70,64k:30` on the command line) and give the same errors.

use crate::error::Error;
use crate::spec::{AccessSpec, Arrivals, CpuPlacement, DataPattern, EngineKind, Rate, RateScope, RateUnit, SyncMode};
use crate::units::{parse_duration, parse_pct, parse_size};

/// A field of an access spec (plus the size of a new file), as errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Rw,
    Read,
    Random,
    Bs,
    Align,
    Offset,
    Span,
    Qd,
    Jobs,
    Batch,
    Time,
    IoSize,
    Ramp,
    Direct,
    Buffered,
    Sync,
    Data,
    Seed,
    Engine,
    Cpus,
    ContinueOnError,
    Rate,
    RateScope,
    Arrivals,
    MaxLag,
    /// Latency thresholds (set by lab, e.g. for ACT; not a key of plans or flags).
    Thresholds,
    /// The size of a file drivelab creates (a run option, not a spec field).
    Size,
}

impl Field {
    /// Every field `apply` accepts, in the order `KEYS` lists them.
    pub const SETTABLE: [Field; 25] = [
        Field::Rw,
        Field::Read,
        Field::Random,
        Field::Bs,
        Field::Align,
        Field::Offset,
        Field::Span,
        Field::Qd,
        Field::Jobs,
        Field::Batch,
        Field::Time,
        Field::IoSize,
        Field::Ramp,
        Field::Direct,
        Field::Buffered,
        Field::Sync,
        Field::Data,
        Field::Seed,
        Field::Engine,
        Field::Cpus,
        Field::ContinueOnError,
        Field::Rate,
        Field::RateScope,
        Field::Arrivals,
        Field::MaxLag,
    ];
    const ALL: [Field; 27] = {
        let mut all = [Field::Thresholds; 27];
        let mut i = 0;
        while i < 25 {
            all[i] = Field::SETTABLE[i];
            i += 1;
        }
        all[26] = Field::Size;
        all
    };

    /// The key in plan files (and `apply`): `qd`, `io_size`.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Rw => "rw",
            Field::Read => "read",
            Field::Random => "random",
            Field::Bs => "bs",
            Field::Align => "align",
            Field::Offset => "offset",
            Field::Span => "span",
            Field::Qd => "qd",
            Field::Jobs => "jobs",
            Field::Batch => "batch",
            Field::Time => "time",
            Field::IoSize => "io_size",
            Field::Ramp => "ramp",
            Field::Direct => "direct",
            Field::Buffered => "buffered",
            Field::Sync => "sync",
            Field::Data => "data",
            Field::Seed => "seed",
            Field::Engine => "engine",
            Field::Cpus => "cpus",
            Field::ContinueOnError => "continue_on_error",
            Field::Rate => "rate",
            Field::RateScope => "rate_scope",
            Field::Arrivals => "arrivals",
            Field::MaxLag => "max_lag",
            Field::Thresholds => "thresholds",
            Field::Size => "size",
        }
    }

    /// The flag of `drivelab run`: `--qd`, `--io-size`.
    pub fn flag(self) -> String {
        format!("--{}", self.name().replace('_', "-"))
    }

    /// The settable field with this key.
    pub fn from_name(key: &str) -> Option<Field> {
        Field::SETTABLE.into_iter().find(|f| f.name() == key)
    }

    /// Replace every `{key}` in `text` by the field's name, or with `cli` its flag.
    pub(crate) fn render_refs(text: &str, cli: bool) -> String {
        if !text.contains('{') {
            return text.to_string();
        }
        let mut out = text.to_string();
        for f in Field::ALL {
            let marker = format!("{{{}}}", f.name());
            if out.contains(&marker) {
                out = out.replace(&marker, &if cli { f.flag() } else { f.name().to_string() });
            }
        }
        out
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every key `apply` accepts: the flag names of `drivelab run` without the dashes.
pub const KEYS: &[&str] = &{
    let mut keys = [""; 25];
    let mut i = 0;
    while i < 25 {
        keys[i] = Field::SETTABLE[i].name();
        i += 1;
    }
    keys
};

fn inv(field: Field, e: String) -> Error {
    Error::spec(field, "", e)
}

fn number<T: std::str::FromStr>(field: Field, value: &str) -> Result<T, Error> {
    value.trim().parse().map_err(|_| Error::spec(field, format!("'{value}'"), "not a whole number"))
}

fn boolean(field: Field, value: &str) -> Result<bool, Error> {
    match value.trim() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(Error::spec(field, format!("'{value}'"), "give true or false")),
    }
}

/// Set one field from its text. Unknown keys are refused with the list of known ones.
pub fn apply(spec: &mut AccessSpec, key: &str, value: &str) -> Result<(), Error> {
    let Some(field) = Field::from_name(key) else {
        return Err(Error::invalid(format!("'{key}' is not an access-spec field: use one of {}", KEYS.join(", "))));
    };
    set(spec, field, value)
}

/// Set `field` from its text.
pub fn set(spec: &mut AccessSpec, field: Field, value: &str) -> Result<(), Error> {
    let v = value.trim();
    let size = |v: &str| parse_size(v).map_err(|e| inv(field, e));
    let duration_ns = |v: &str| parse_duration(v).map(|d| d.as_nanos() as u64).map_err(|e| inv(field, e));
    let pct = |v: &str| parse_pct(v, "").map_err(|e| inv(field, e.trim_start().to_string()));
    match field {
        Field::Rw => spec.set_rw(v)?,
        Field::Read => spec.read_pct = pct(v)?,
        Field::Random => spec.random_pct = pct(v)?,
        Field::Bs => spec.bs = AccessSpec::parse_bs(v)?,
        Field::Align => spec.align_bytes = Some(size(v)?),
        Field::Offset => spec.offset_bytes = size(v)?,
        Field::Span => spec.span_bytes = Some(size(v)?),
        Field::Qd => spec.qd = number(field, v)?,
        Field::Jobs => spec.jobs = number(field, v)?,
        Field::Batch => spec.submit_batch = number(field, v)?,
        Field::Time => spec.time_ns = Some(duration_ns(v)?),
        Field::IoSize => spec.io_size_bytes = Some(size(v)?),
        Field::Ramp => spec.ramp_ns = duration_ns(v)?,
        Field::Direct => spec.direct = boolean(field, v)?,
        Field::Buffered => spec.direct = !boolean(field, v)?,
        Field::Sync => spec.sync = parse_sync(v)?,
        Field::Data => spec.data = parse_data(v)?,
        Field::Seed => spec.seed = number(field, v)?,
        Field::Engine => spec.engine = parse_engine(v)?,
        Field::Cpus => spec.cpus = parse_cpus(v)?,
        Field::ContinueOnError => spec.continue_on_error = boolean(field, v)?,
        Field::Rate => {
            let (per_s, unit) = parse_rate(v)?;
            let r = spec.rate.get_or_insert_with(Rate::default);
            (r.per_s, r.unit) = (per_s, unit);
        }
        Field::RateScope => {
            spec.rate.get_or_insert_with(Rate::default).scope = match v {
                "total" => RateScope::Total,
                "job" => RateScope::Job,
                _ => return Err(Error::spec(field, format!("'{v}'"), "use total or job")),
            }
        }
        Field::Arrivals => {
            spec.rate.get_or_insert_with(Rate::default).arrivals = match v {
                "uniform" => Arrivals::Uniform,
                "poisson" => Arrivals::Poisson,
                _ => return Err(Error::spec(field, format!("'{v}'"), "use uniform or poisson")),
            }
        }
        Field::MaxLag => spec.rate.get_or_insert_with(Rate::default).max_lag_ns = Some(duration_ns(v)?),
        Field::Thresholds | Field::Size => {
            return Err(Error::invalid(format!(
                "'{field}' is not an access-spec field: use one of {}",
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
        let bytes = parse_size(size).map_err(|e| Error::spec(Field::Rate, format!("'{text}'"), e))?;
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
        _ => Err(Error::spec(
            Field::Rate,
            format!("'{text}'"),
            "not a rate: give I/Os per second (5000, 5k, 5000iops) or bytes per second (200MiB/s)",
        )),
    }
}

pub fn parse_engine(text: &str) -> Result<EngineKind, Error> {
    EngineKind::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = EngineKind::ALL.iter().map(|e| e.name()).collect();
        Error::spec(Field::Engine, format!("'{text}'"), format!("not an engine: use {}", names.join(" or ")))
    })
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
            .map_err(|_| Error::spec(Field::Cpus, format!("'{text}'"), "use spread, none, or CPU numbers such as 0,2")),
    }
}

pub fn parse_sync(text: &str) -> Result<SyncMode, Error> {
    match text {
        "none" => Ok(SyncMode::None),
        "dsync" => Ok(SyncMode::Dsync),
        t if t.starts_with("fsync") => {
            let n = t.strip_prefix("fsync").unwrap_or_default().strip_prefix(':').unwrap_or("1");
            let every = n.parse::<u32>().map_err(|_| {
                Error::spec(Field::Sync, format!("'{text}'"), "write fsync:N with N a whole number, e.g. fsync:1")
            })?;
            Ok(SyncMode::Fsync { every })
        }
        _ => Err(Error::spec(Field::Sync, format!("'{text}'"), "not a sync mode: use none, dsync or fsync:N")),
    }
}

pub fn parse_data(text: &str) -> Result<DataPattern, Error> {
    match text {
        "random" => Ok(DataPattern::Random),
        "zero" | "zeros" => Ok(DataPattern::Zero),
        t if t.starts_with("compress:") => {
            let pct = parse_pct(&t["compress:".len()..], "compress").map_err(|e| Error::spec(Field::Data, "", e))?;
            Ok(DataPattern::Compress { pct })
        }
        _ => Err(Error::spec(Field::Data, format!("'{text}'"), "not a data pattern: use random, zero or compress:PCT")),
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
    fn every_settable_field_is_a_key_with_a_flag() {
        assert_eq!(KEYS.len(), Field::SETTABLE.len());
        for f in Field::SETTABLE {
            assert_eq!(Field::from_name(f.name()), Some(f));
            assert_eq!(f.flag(), format!("--{}", f.name().replace('_', "-")));
        }
        assert_eq!(Field::IoSize.flag(), "--io-size");
        assert_eq!(Field::render_refs("use {jobs} 8 {qd} 1", true), "use --jobs 8 --qd 1");
        assert_eq!(Field::render_refs("use {jobs} 8 {qd} 1", false), "use jobs 8 qd 1");
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
        let e = from_pairs([("qd", "0")]).unwrap_err();
        assert!(matches!(e, Error::Spec { field: Field::Qd, .. }), "{e:?}");
        assert!(e.to_string().starts_with("qd 0:") && e.cli_message().starts_with("--qd 0:"), "{e}");
    }
}
