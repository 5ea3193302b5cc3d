//! Access-spec fields by name: one parser for `drivelab run`'s flags and for plan files, so both
//! accept exactly the same keys and spellings (`bs = "4k:70,64k:30"` in a plan is `--bs
//! 4k:70,64k:30` on the command line) and give the same errors.
//!
//! fio's spellings of the same fields ([`Fio`]: `iodepth` for `qd`, `runtime` for `time`, ...)
//! are keys too, in plan files and (with dashes) as flags: each translates its value into
//! drivelab's ([`Fio::translate`]), where fio's meaning differs in a detail it is honoured (a
//! bare `runtime` number is seconds), and what has no drivelab equivalent is refused by name.
//!
//! Over 600 lines: it is the one parser of drivelab's keys, one arm per field, kept in one table on
//! purpose (a key parsed in two places would drift); its tests are beside it.

mod fio;

pub use fio::{check_fio_mix, check_fio_shares, split_filename, Fio};

use crate::error::Error;
use crate::spec::{
    AccessSpec, Arrivals, CpuPlacement, DataPattern, Distribution, EngineKind, PaceMode, Rate, RateScope, RateUnit,
    SyncMode, Think,
};
use crate::units::{parse_duration, parse_pct, parse_size};

/// A field of an access spec (plus the size of a new file), as errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Rw,
    Read,
    Random,
    Distribution,
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
    Pace,
    Hipri,
    Sqpoll,
    SqpollCpu,
    LatencySplit,
    Verify,
    VerifyAfter,
    VerifyUnit,
    Thinktime,
    ThinktimeSpin,
    ThinktimeBlocks,
    ThinktimeBlocksType,
    Replay,
    ReplayTiming,
    /// fio's `rw_sequencer`: what the I/Os between random ones of `rw=randread:N` do.
    RwSequencer,
    /// fio's `zonerange`, `zonesize`, `zoneskip` (`zonemode=strided`).
    ZoneRange,
    ZoneSize,
    ZoneSkip,
    /// fio's `buffer_pattern` (fio's syntax).
    BufferPattern,
    /// fio's `verify_pattern` (fio's syntax, `%o` included).
    VerifyPattern,
    /// fio's `ignore_error` (fio's syntax: READ,WRITE,VERIFY errno lists).
    IgnoreError,
    /// fio's `flow`, `flow_id`, `flow_sleep` (token flow between jobs).
    Flow,
    FlowId,
    FlowSleep,
    /// fio's `offset_increment`: each job of a target starts this much further in.
    OffsetIncrement,
    /// fio's dedupe options as one field (`spec/dedupe.rs`).
    Dedupe,
    /// fio's `zonemode=zbd`: emulated zones with write pointers (`spec/zbd.rs`).
    Zbd,
    /// fio's `startdelay`: the job starts this long after its group.
    StartDelay,
    /// fio's `number_ios`: the job ends after this many measured I/Os.
    NumberIos,
    /// Writes' block sizes when they differ from reads' (fio's `bs=R,W`, `bssplit=R,W`).
    WriteBs,
    /// The job's I/O priority (fio's `prioclass`/`prio`): `CLASS/LEVEL`.
    Prio,
    /// Per-I/O priorities (fio's `cmdprio_*`): `BS/PCT/CLASS/LEVEL` entries (`spec/prio.rs`).
    Cmdprio,
    /// fio's `fill_device`: ENOSPC/EDQUOT ends the job cleanly.
    FillDevice,
    /// fio's `latency_target`, `latency_window`, `latency_percentile`, `latency_run` (the
    /// highest queue depth that meets a latency target, searched while the job runs).
    LatencyTarget,
    LatencyWindow,
    LatencyPercentile,
    LatencyRun,
    /// Latency thresholds (set by lab, e.g. for ACT; not a key of plans or flags).
    Thresholds,
    /// The size of a file drivelab creates (a run option, not a spec field).
    Size,
    /// fio's spelling of one of the fields above, as the reader wrote it.
    Fio(Fio),
}

impl Field {
    /// Every field `apply` accepts, in the order `KEYS` lists them.
    pub const SETTABLE: [Field; 63] = [
        Field::Rw,
        Field::Read,
        Field::Random,
        Field::Distribution,
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
        Field::Pace,
        Field::Hipri,
        Field::Sqpoll,
        Field::SqpollCpu,
        Field::Verify,
        Field::VerifyAfter,
        Field::VerifyUnit,
        Field::Thinktime,
        Field::ThinktimeSpin,
        Field::ThinktimeBlocks,
        Field::ThinktimeBlocksType,
        Field::Replay,
        Field::ReplayTiming,
        Field::RwSequencer,
        Field::ZoneRange,
        Field::ZoneSize,
        Field::ZoneSkip,
        Field::BufferPattern,
        Field::VerifyPattern,
        Field::IgnoreError,
        Field::Flow,
        Field::FlowId,
        Field::FlowSleep,
        Field::OffsetIncrement,
        Field::Dedupe,
        Field::Zbd,
        Field::StartDelay,
        Field::NumberIos,
        Field::WriteBs,
        Field::Prio,
        Field::Cmdprio,
        Field::FillDevice,
        Field::LatencyTarget,
        Field::LatencyWindow,
        Field::LatencyPercentile,
        Field::LatencyRun,
        Field::LatencySplit,
    ];
    const ALL: [Field; 65] = {
        let mut all = [Field::Thresholds; 65];
        let mut i = 0;
        while i < Field::SETTABLE.len() {
            all[i] = Field::SETTABLE[i];
            i += 1;
        }
        all[64] = Field::Size;
        all
    };

    /// The key in plan files (and `apply`): `qd`, `io_size`.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Rw => "rw",
            Field::Read => "read",
            Field::Random => "random",
            Field::Distribution => "distribution",
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
            Field::Pace => "pace",
            Field::Hipri => "hipri",
            Field::Sqpoll => "sqpoll",
            Field::SqpollCpu => "sqpoll_cpu",
            Field::LatencySplit => "latency_split",
            Field::Verify => "verify",
            Field::VerifyAfter => "verify_after",
            Field::VerifyUnit => "verify_unit",
            Field::Thinktime => "thinktime",
            Field::ThinktimeSpin => "thinktime_spin",
            Field::ThinktimeBlocks => "thinktime_blocks",
            Field::ThinktimeBlocksType => "thinktime_blocks_type",
            Field::Replay => "replay",
            Field::ReplayTiming => "replay_timing",
            Field::RwSequencer => "rw_sequencer",
            Field::ZoneRange => "zone_range",
            Field::ZoneSize => "zone_size",
            Field::ZoneSkip => "zone_skip",
            Field::BufferPattern => "buffer_pattern",
            Field::VerifyPattern => "verify_pattern",
            Field::IgnoreError => "ignore_error",
            Field::Flow => "flow",
            Field::FlowId => "flow_id",
            Field::FlowSleep => "flow_sleep",
            Field::OffsetIncrement => "offset_increment",
            Field::Dedupe => "dedupe",
            Field::Zbd => "zbd",
            Field::StartDelay => "start_delay",
            Field::NumberIos => "number_ios",
            Field::WriteBs => "write_bs",
            Field::Prio => "prio",
            Field::Cmdprio => "cmdprio",
            Field::FillDevice => "fill_device",
            Field::LatencyTarget => "latency_target",
            Field::LatencyWindow => "latency_window",
            Field::LatencyPercentile => "latency_percentile",
            Field::LatencyRun => "latency_run",
            Field::Thresholds => "thresholds",
            Field::Size => "size",
            Field::Fio(f) => f.name(),
        }
    }

    /// The flag of `drivelab run`: `--qd`, `--io-size`.
    pub fn flag(self) -> String {
        match self {
            // fio's own flags keep its underscores (`--random_distribution`).
            Field::Fio(f) => format!("--{}", f.name()),
            _ => format!("--{}", self.name().replace('_', "-")),
        }
    }

    /// The settable field with this key (drivelab's own spelling).
    pub fn from_name(key: &str) -> Option<Field> {
        Field::SETTABLE.into_iter().find(|f| f.name() == key)
    }

    /// The field with this key, drivelab's or fio's spelling ([`is_key`]).
    pub fn from_key(key: &str) -> Option<Field> {
        Field::from_name(key).or_else(|| Fio::from_name(key).map(Field::Fio))
    }

    /// The drivelab field this one sets: itself, or for a fio spelling the field it stands for.
    pub const fn canonical(self) -> Field {
        match self {
            Field::Fio(f) => f.field(),
            other => other,
        }
    }

    /// Replace every `{key}` in `text` by the field's name, or with `cli` its flag.
    #[cfg(test)]
    pub(crate) fn render_refs(text: &str, cli: bool) -> String {
        Field::render_refs_by(text, |f| if cli { f.flag() } else { f.name().to_string() })
    }

    /// Replace every `{key}` in `text` by `name(field)` (as the reader spelled the field).
    pub(crate) fn render_refs_by(text: &str, name: impl Fn(Field) -> String) -> String {
        if !text.contains('{') {
            return text.to_string();
        }
        let mut out = text.to_string();
        for f in Field::ALL.into_iter().chain(Fio::ALL.map(Field::Fio)) {
            let marker = format!("{{{}}}", f.name());
            if out.contains(&marker) {
                out = out.replace(&marker, &name(f));
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
    let mut keys = [""; Field::SETTABLE.len()];
    let mut i = 0;
    while i < Field::SETTABLE.len() {
        keys[i] = Field::SETTABLE[i].name();
        i += 1;
    }
    keys
};

/// Is `key` a field key: drivelab's ([`KEYS`]) or fio's spelling of one ([`Fio`])?
pub fn is_key(key: &str) -> bool {
    Field::from_key(key).is_some()
}

/// The sentence listing every key, for refusals of an unknown one.
pub fn known_keys() -> String {
    let fio: Vec<&str> = Fio::ALL.iter().map(|f| f.name()).collect();
    format!("{} (or fio's {})", KEYS.join(", "), fio.join(", "))
}

fn inv(field: Field, e: String) -> Error {
    Error::spec(field, "", e)
}

fn number<T: std::str::FromStr>(field: Field, value: &str) -> Result<T, Error> {
    let v = value.trim();
    v.parse().map_err(|_| {
        let why =
            if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) { "too large" } else { "not a whole number" };
        Error::spec(field, format!("'{value}'"), why)
    })
}

/// A think time: a duration, or as in fio a bare number of microseconds.
fn think_ns(field: Field, v: &str) -> Result<u64, Error> {
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        let us: u64 = number(field, v)?;
        return Ok(us.saturating_mul(1000));
    }
    parse_duration(v).map(|d| d.as_nanos() as u64).map_err(|e| inv(field, e))
}

fn boolean(field: Field, value: &str) -> Result<bool, Error> {
    match value.trim() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(Error::spec(field, format!("'{value}'"), "give true or false")),
    }
}

/// Set one field from its text (drivelab's key or fio's). Unknown keys are refused with the
/// list of known ones.
pub fn apply(spec: &mut AccessSpec, key: &str, value: &str) -> Result<(), Error> {
    let Some(field) = Field::from_key(key) else {
        return Err(Error::invalid(format!("'{key}' is not an access-spec field: use one of {}", known_keys())));
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
        Field::Fio(fio) => {
            let canonical = fio.field();
            // A refusal of the translated value names what the reader wrote.
            return set(spec, canonical, &fio.translate(v)?).map_err(|e| match e {
                Error::Spec { field, value, fix } if field == canonical => {
                    Error::Spec { field: Field::Fio(fio), value, fix }
                }
                other => other,
            });
        }
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
        Field::Distribution => spec.distribution = Distribution::parse(v).map_err(|e| inv(field, e))?,
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
        Field::Pace => {
            spec.rate.get_or_insert_with(Rate::default).pace = PaceMode::from_name(v)
                .ok_or_else(|| Error::spec(field, format!("'{v}'"), "use auto, hybrid, sleep or spin"))?
        }
        Field::Hipri => spec.engine_opts.uring.hipri = boolean(field, v)?,
        Field::Sqpoll => spec.engine_opts.uring.sqpoll = boolean(field, v)?,
        Field::LatencySplit => spec.latency_split = boolean(field, v)?,
        Field::SqpollCpu => {
            spec.engine_opts.uring.sqpoll_cpu = Some(number(field, v)?);
            spec.engine_opts.uring.sqpoll = true;
        }
        Field::Verify => spec.verify = boolean(field, v)?,
        Field::VerifyAfter => {
            spec.verify_after = boolean(field, v)?;
            spec.verify |= spec.verify_after;
        }
        Field::VerifyUnit => {
            spec.verify_unit_bytes = Some(size(v)?);
            spec.verify = true;
        }
        Field::Thinktime => spec.think.get_or_insert_with(Think::default).ns = think_ns(field, v)?,
        Field::ThinktimeSpin => spec.think.get_or_insert_with(Think::default).spin_ns = think_ns(field, v)?,
        Field::ThinktimeBlocks => spec.think.get_or_insert_with(Think::default).blocks = number(field, v)?,
        Field::ThinktimeBlocksType => {
            spec.think.get_or_insert_with(Think::default).by_issue = match v {
                "complete" => false,
                "issue" => true,
                _ => return Err(Error::spec(field, format!("'{v}'"), "use complete (fio's default) or issue")),
            }
        }
        Field::Replay => {
            // Read now: what the trace does (writes? trims?) decides what the run may need
            // (--destroy), and a bad trace is refused before anything runs.
            let t = crate::replay::Trace::load(v).map_err(|e| crate::replay::refusal(field, e))?;
            spec.read_pct = t.read_pct();
            crate::replay::fit_buffers(spec, &t.files);
            let fast = spec.replay.as_ref().is_some_and(|r| r.fast);
            spec.replay = Some(crate::spec::Replay { path: v.to_string(), fast });
        }
        Field::ReplayTiming => {
            let fast = match v {
                "original" => false,
                "fast" => true,
                _ => return Err(Error::spec(field, format!("'{v}'"), "use original (the trace's times) or fast")),
            };
            match spec.replay.as_mut() {
                Some(r) => r.fast = fast,
                None => return Err(Error::spec(field, format!("'{v}'"), "give the trace with {replay} first")),
            }
        }
        Field::RwSequencer => {
            spec.random_repeat = match v {
                "sequential" => false,
                "identical" => true,
                _ => return Err(Error::spec(field, format!("'{v}'"), "use sequential (fio's default) or identical")),
            }
        }
        Field::ZoneRange => spec.zones.get_or_insert_with(Default::default).range_bytes = Some(size(v)?),
        Field::ZoneSize => spec.zones.get_or_insert_with(Default::default).size_bytes = size(v)?,
        Field::ZoneSkip => spec.zones.get_or_insert_with(Default::default).skip_bytes = size(v)?,
        Field::BufferPattern => {
            let bytes = crate::spec::buffer_pattern::parse(v).map_err(|e| Error::spec(field, format!("'{v}'"), e))?;
            spec.buffer_pattern_hex = Some(crate::spec::buffer_pattern::to_hex(&bytes));
        }
        Field::VerifyPattern => {
            crate::spec::verify_pattern::VerifyPattern::parse(v)
                .map_err(|e| Error::spec(field, format!("'{v}'"), e))?;
            spec.verify_pattern = Some(v.trim().to_string());
        }
        Field::IgnoreError => {
            let i = crate::spec::ignore_error::IgnoreErrors::parse(v)
                .map_err(|e| Error::spec(field, format!("'{v}'"), e))?;
            spec.ignore_errors = Some(i);
        }
        Field::Flow => spec.flow.get_or_insert_with(Default::default).weight = number(field, v)?,
        Field::FlowId => spec.flow.get_or_insert_with(Default::default).id = number(field, v)?,
        Field::FlowSleep => spec.flow.get_or_insert_with(Default::default).sleep_ns = duration_ns(v)?,
        Field::OffsetIncrement => spec.offset_increment_bytes = size(v)?,
        Field::Dedupe => {
            spec.dedupe = crate::spec::dedupe::Dedupe::parse(v).map_err(|e| Error::spec(field, format!("'{v}'"), e))?
        }
        Field::Zbd => {
            spec.zbd = Some(crate::spec::zbd::Zbd::parse(v).map_err(|e| Error::spec(field, format!("'{v}'"), e))?)
        }
        Field::StartDelay => spec.start_delay_ns = duration_ns(v)?,
        Field::NumberIos => spec.number_ios = Some(number(field, v)?),
        Field::WriteBs => {
            spec.bs_write = Some(AccessSpec::parse_bs(v).map_err(|e| match e {
                Error::Spec { value, fix, .. } => Error::spec(field, value, fix),
                other => other,
            })?)
        }
        Field::Prio => {
            let job = crate::spec::prio::parse_job(v).map_err(|e| Error::spec(field, format!("'{v}'"), e))?;
            spec.prio.get_or_insert_with(Default::default).job = job;
        }
        Field::Cmdprio => {
            let cmd = crate::spec::prio::parse_cmd(v).map_err(|e| Error::spec(field, format!("'{v}'"), e))?;
            spec.prio.get_or_insert_with(Default::default).cmd = cmd;
        }
        Field::FillDevice => spec.fill_device = boolean(field, v)?,
        // As in fio, a bare number is µs.
        Field::LatencyTarget => spec.lat_target.get_or_insert_with(Default::default).target_ns = think_ns(field, v)?,
        Field::LatencyWindow => spec.lat_target.get_or_insert_with(Default::default).window_ns = think_ns(field, v)?,
        Field::LatencyPercentile => {
            let p: f64 = v.parse().map_err(|_| Error::spec(field, format!("'{v}'"), "give a percentage, e.g. 99.9"))?;
            spec.lat_target.get_or_insert_with(Default::default).percentile = p;
        }
        Field::LatencyRun => spec.lat_target.get_or_insert_with(Default::default).run = boolean(field, v)?,
        Field::Thresholds | Field::Size => {
            return Err(Error::invalid(format!("'{field}' is not an access-spec field: use one of {}", known_keys())))
        }
    }
    Ok(())
}

/// A validated spec from defaults plus `pairs` applied in order. As on the command line, a spec
/// with `io_size` and no `time` runs until the bytes are done; with neither it runs 10 s. fio's
/// `rwmixread`/`rwmixwrite` need a mixed `rw` among the pairs (see [`check_fio_mix`]).
pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<AccessSpec, Error> {
    let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
    let spec = partial_from_pairs(pairs.iter().copied())?;
    check_fio_mix(&pairs)?;
    Ok(spec)
}

/// [`from_pairs`] for some of a spec's fields (a plan's `[defaults]`, one value of an axis):
/// every value and their combination checked, except what needs the rest of the spec (fio's
/// `rwmixread` with the `rw` it applies to).
pub fn partial_from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<AccessSpec, Error> {
    let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
    let mut spec = AccessSpec::default();
    let mut timed = false;
    for &(k, v) in &pairs {
        apply(&mut spec, k, v)?;
        timed |= Field::from_key(k).map(Field::canonical) == Some(Field::Time);
    }
    // io_size without a time, and a replay, run until their bytes are done.
    if !timed && (spec.io_size_bytes.is_some() || spec.replay.is_some()) {
        spec.time_ns = None;
    }
    spec.validate().map_err(|e| match e {
        // A refused value named as the reader wrote it: fio's spelling when that set it last.
        Error::Spec { field, value, fix } => {
            let last = pairs.iter().rev().filter_map(|(k, _)| Field::from_key(k)).find(|f| f.canonical() == field);
            Error::Spec { field: last.unwrap_or(field), value, fix }
        }
        other => other,
    })?;
    Ok(spec)
}

/// The size of a new file target (`--size`, a plan's `size`): a non-zero multiple of 4096 bytes.
pub fn parse_new_file_size(text: &str) -> Result<u64, Error> {
    let size = parse_size(text).map_err(|e| Error::spec(Field::Size, "", e))?;
    if size == 0 || size % 4096 != 0 {
        return Err(Error::spec(
            Field::Size,
            text.trim(),
            "a new file's size must be a non-zero multiple of 4096 bytes",
        ));
    }
    Ok(size)
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
            ("pace", "hybrid"),
            ("hipri", "true"),
            ("sqpoll", "true"),
            ("sqpoll_cpu", "0"),
            ("verify", "true"),
            ("verify_after", "true"),
            ("verify_unit", "512"),
            ("distribution", "zipf:1.2:0.25"),
            ("thinktime", "250"),
            ("thinktime_spin", "50us"),
            ("thinktime_blocks", "8"),
            ("thinktime_blocks_type", "issue"),
            ("replay", "TRACE"),
            ("replay_timing", "fast"),
            ("rw_sequencer", "identical"),
            ("zone_range", "64k"),
            ("zone_size", "16k"),
            ("zone_skip", "32k"),
            ("buffer_pattern", "0xdeadface\"ab\""),
            ("verify_pattern", "%o\"ab\""),
            ("ignore_error", "EIO,ENOSPC:5,EILSEQ"),
            ("flow", "8"),
            ("flow_id", "3"),
            ("flow_sleep", "1ms"),
            ("offset_increment", "1m"),
            ("dedupe", "50:working_set:20:global"),
            ("zbd", "1m,max_open=2"),
            ("start_delay", "250ms"),
            ("number_ios", "1000"),
            ("write_bs", "64k"),
            ("prio", "idle/3"),
            ("cmdprio", "4k/25/rt/1,*/10/2/0"),
            ("fill_device", "true"),
            ("latency_target", "500"),
            ("latency_window", "2s"),
            ("latency_percentile", "99.9"),
            ("latency_run", "true"),
            ("latency_split", "true"),
        ];
        assert_eq!(values.len(), KEYS.len());
        let mut s = AccessSpec::default();
        for (k, v) in values {
            if k.starts_with("replay") {
                continue; // below: a replay sets the mix and sizes from its trace
            }
            apply(&mut s, k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
        }
        let trace = std::env::temp_dir().join(format!("drivelab-fields-{}.iolog", std::process::id()));
        std::fs::write(&trace, "fio version 3 iolog\n0 /x read 0 4096\n5 /x write 8192 65536\n").unwrap();
        let mut r = AccessSpec::default();
        apply(&mut r, "replay", trace.to_str().unwrap()).unwrap();
        apply(&mut r, "replay_timing", "fast").unwrap();
        std::fs::remove_file(&trace).unwrap();
        assert_eq!((r.read_pct, r.bs[0].bytes), (50, 65536), "the trace's mix and its longest I/O");
        assert_eq!(r.replay.as_ref().map(|p| p.fast), Some(true));
        assert!(apply(&mut AccessSpec::default(), "replay_timing", "fast").is_err(), "timing without a trace");
        assert_eq!((s.read_pct, s.random_pct, s.qd, s.jobs, s.submit_batch), (70, 5, 32, 2, 4));
        assert_eq!((s.align_bytes, s.span_bytes, s.time_ns), (Some(512), Some(8 << 30), Some(180_000_000_000)));
        assert_eq!(s.sync, SyncMode::Fsync { every: 8 });
        assert_eq!(s.distribution, Distribution::Zipf { theta: 1.2, center: Some(0.25) });
        assert_eq!(s.distribution.to_string(), "zipf:1.2:0.25");
        assert_eq!(s.think, Some(Think { ns: 250_000, spin_ns: 50_000, blocks: 8, by_issue: true }), "fio: µs");
        let mut z = AccessSpec::default();
        apply(&mut z, "random_distribution", "zoned_abs=60/20g:40/100g").unwrap();
        assert_eq!(z.distribution.to_string(), "zoned_abs:60/20g:40/100g");
        // fio's rand-zones example: a zone without its share of the region takes what is left.
        apply(&mut z, "distribution", "zoned:50/5:30/15:20/").unwrap();
        assert_eq!(z.distribution.to_string(), "zoned:50/5:30/15:20/80");
        apply(&mut z, "distribution", "zoned:50/:50/").unwrap();
        assert_eq!(z.distribution.to_string(), "zoned:50/50:50/50");
        for (bad, says) in [
            ("zipf:-1", "must be above 0"),
            ("pareto:1.5", "between 0 and 1"),
            ("normal", "needs its deviation"),
            ("zoned:60/10:30/20", "add up to 90%"),
            ("zoned:50/60:50/60", "more than 100%"),
            ("zoned:60/10,40/90", "per-direction"),
            ("zipf:1.2:3", "outside 0..1"),
            ("lognormal:3", "not a distribution"),
        ] {
            let e = from_pairs([("distribution", bad)]).unwrap_err().cli_message();
            assert!(e.starts_with("--distribution") && e.contains(says), "{bad}: {e}");
        }
        let uring = crate::backend::uring::UringOptions { hipri: true, sqpoll: true, sqpoll_cpu: Some(0) };
        assert_eq!(s.engine_opts.uring, uring);
        assert!(s.random_repeat);
        assert_eq!(s.buffer_pattern_hex.as_deref(), Some("deadface6162"));
        let zones = crate::spec::StridedZones { size_bytes: 16384, range_bytes: Some(65536), skip_bytes: 32768 };
        assert_eq!(s.zones, Some(zones));
        assert!(s.direct && s.continue_on_error);
        let r = s.rate.unwrap();
        assert_eq!((r.per_s, r.unit, r.scope, r.arrivals), (2000.0, RateUnit::Iops, RateScope::Job, Arrivals::Poisson));
        assert_eq!(r.max_lag_ns, Some(10_000_000_000));
        assert_eq!(r.pace, PaceMode::Hybrid);
        assert_eq!((s.verify, s.verify_after, s.verify_unit_bytes), (true, true, Some(512)));
        assert_eq!(s.verify_pattern.as_deref(), Some("%o\"ab\""));
        assert_eq!(s.bs_write, Some(vec![crate::spec::BlockSize { bytes: 65536, pct: 100 }]));
        let p = s.prio.as_ref().unwrap();
        assert_eq!((p.job, p.cmd[0][0].ioprio, p.cmd[1][0].bytes), (0x6003, 0x2001, 0));
        let i = s.ignore_errors.as_ref().unwrap();
        assert_eq!(
            (i.read_errnos.clone(), i.write_errnos.clone(), i.verify_errnos.clone()),
            (vec![5], vec![28, 5], vec![84])
        );
        assert_eq!(s.flow, Some(crate::spec::flow::Flow { id: 3, weight: 8, sleep_ns: 1_000_000 }));
        assert_eq!((s.start_delay_ns, s.number_ios), (250_000_000, Some(1000)));
        let lt = crate::spec::lat_target::LatTarget {
            target_ns: 500_000,
            window_ns: 2_000_000_000,
            percentile: 99.9,
            run: true,
        };
        assert_eq!(s.lat_target, Some(lt), "fio: a bare latency_target is µs");
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

    #[test]
    fn fio_spellings_give_the_spec_of_drivelabs_own() {
        let same = |fio: &[(&str, &str)], own: &[(&str, &str)]| {
            let (a, b) = (from_pairs(fio.iter().copied()).unwrap(), from_pairs(own.iter().copied()).unwrap());
            assert_eq!(a, b, "{fio:?} vs {own:?}");
        };
        same(
            &[("iodepth", "16"), ("numjobs", "2"), ("blocksize", "64k")],
            &[("qd", "16"), ("jobs", "2"), ("bs", "64k")],
        );
        same(&[("runtime", "60")], &[("time", "60s")]);
        same(&[("runtime", "1m")], &[("time", "60s")]);
        same(&[("runtime", "250ms"), ("io_size", "1g")], &[("time", "250ms"), ("io_size", "1g")]);
        same(&[("ioengine", "io_uring")], &[("engine", "uring")]);
        same(&[("ioengine", "libaio")], &[("engine", "libaio")]);
        same(&[("ioengine", "sync")], &[("engine", "psync")]);
        same(&[("readwrite", "randrw"), ("rwmixread", "70")], &[("rw", "randrw"), ("read", "70")]);
        same(&[("rw", "readwrite"), ("rwmixwrite", "30")], &[("rw", "rw"), ("read", "70")]);
        same(&[("rw", "rw"), ("rwmixread", "70"), ("rwmixwrite", "30")], &[("rw", "rw"), ("read", "70")]);
        same(&[("direct", "0")], &[("buffered", "true")]);
        // io_size alone still ends the run by bytes; runtime counts as time.
        assert_eq!(from_pairs([("io_size", "1m"), ("runtime", "2")]).unwrap().time_ns, Some(2_000_000_000));
    }

    #[test]
    fn fio_spellings_refuse_what_fio_would_mean_otherwise() {
        let err = |pairs: &[(&str, &str)]| from_pairs(pairs.iter().copied()).unwrap_err();
        let e = err(&[("runtime", "1.5")]);
        assert!(matches!(e, Error::Spec { field: Field::Fio(Fio::Runtime), .. }), "{e:?}");
        assert!(e.cli_message().starts_with("--runtime '1.5': a bare number is whole seconds"), "{}", e.cli_message());
        let e = err(&[("iodepth", "0")]);
        assert!(e.cli_message().starts_with("--iodepth 0:"), "{}", e.cli_message());
        let e = err(&[("runtime", "abc")]);
        assert!(e.cli_message().starts_with("--runtime"), "{}", e.cli_message());
        let e = err(&[("ioengine", "posixaio")]).cli_message();
        assert!(e.contains("'posixaio'") && e.contains("io_uring, libaio, io_uring_cmd, psync"), "{e}");
        assert!(err(&[("ioengine", "null")]).to_string().contains("give the target null"));
        // rwmixread with a workload that is not mixed: fio ignores it, drivelab's read would not.
        let e = err(&[("rw", "randread"), ("rwmixread", "70")]).cli_message();
        assert!(e.starts_with("--rwmixread 70: fio applies it only to a mixed workload and --rw is randread"), "{e}");
        let e = err(&[("rwmixwrite", "30")]).cli_message();
        assert!(e.contains("no --rw is given") && e.contains("--read PCT"), "{e}");
        let e = err(&[("rw", "randrw"), ("rwmixread", "70"), ("rwmixwrite", "40")]).cli_message();
        assert!(e.contains("--rwmixwrite 40") && e.contains("--rwmixread 70") && e.contains("add up to 100"), "{e}");
        let e = err(&[("rw", "randrw"), ("rwmixread", "170")]).cli_message();
        assert!(e.starts_with("--rwmixread") && e.contains("outside 0..100"), "{e}");
        // fio's forms drivelab has no equivalent for.
        assert!(err(&[("blocksize", "4k,64k")]).to_string().contains("fio's READ,WRITE block sizes"));
        // fio's WORD:N: a count of I/Os after a random word, a size after a sequential one.
        assert_eq!(from_pairs([("rw", "randread:8")]).unwrap().random_every_ios, 8);
        assert_eq!(from_pairs([("rw", "read:-8k")]).unwrap().seq_skip_bytes, -8192);
        assert!(err(&[("rw", "randread:8k")]).to_string().contains("a count of I/Os"));
        assert!(err(&[("rw", "write:x")]).to_string().contains("the bytes skipped after each I/O"));
        let e = err(&[("rw", "write:6k"), ("bs", "4k")]).to_string();
        assert!(e.contains("a multiple of the alignment (4096 bytes)"), "{e}");
        assert_eq!(from_pairs([("rw", "randtrim")]).unwrap().trim, crate::spec::Trim::Only, "fio's trim words run");
        // Alone (a plan's [defaults]), rwmixread waits for the rw of its point.
        assert!(partial_from_pairs([("rwmixread", "70")]).is_ok());
    }

    #[test]
    fn fio_keys_are_keys_with_flags() {
        for f in Fio::ALL {
            assert!(is_key(f.name()) && !KEYS.contains(&f.name()));
            assert_eq!(Field::Fio(f).flag(), format!("--{}", f.name()));
            assert_eq!(Field::Fio(f).canonical(), f.field());
        }
        assert_eq!(Field::render_refs("{iodepth} or {qd}", true), "--iodepth or --qd");
        let e = apply(&mut AccessSpec::default(), "depth", "4").unwrap_err().to_string();
        assert!(e.contains("fio's iodepth"), "{e}");
    }

    #[test]
    fn fio_filename_lists_targets_with_colons() {
        assert_eq!(split_filename("a:b").unwrap(), ["a", "b"]);
        assert_eq!(split_filename("/dev/sdb").unwrap(), ["/dev/sdb"]);
        assert_eq!(split_filename(r"x\:y:z").unwrap(), ["x:y", "z"]);
        for bad in ["a::b", ":a", "a:", ""] {
            assert!(split_filename(bad).unwrap_err().to_string().contains("empty target"), "{bad}");
        }
        assert_eq!(parse_new_file_size("1g").unwrap(), 1 << 30);
        let e = parse_new_file_size("1000").unwrap_err();
        assert!(e.cli_message().starts_with("--size 1000: a new file's size must be"), "{}", e.cli_message());
    }
}
