//! The one setter of the access spec's fields ([`set`]): the effect of every option of the table
//! that sets the spec, whichever front end read it (`run`'s flags, plan keys, and — through
//! the same table — fio's spellings of them). A value is parsed once, by its option's
//! [`Kind`](super::Kind) where it is a scalar, and never turned back into text.

use super::{by_key, check_fio_mix, Field, KEYS};
use crate::error::Error;
use crate::spec::{
    AccessSpec, Arrivals, CpuPlacement, DataPattern, Distribution, EngineKind, PaceMode, Rate, RateScope, RateUnit,
    SyncMode, Think,
};
use crate::units::{parse_duration, parse_pct, parse_size, Dialect};

/// The sentence listing every key, for refusals of an unknown one.
pub fn known_keys() -> String {
    let fio: Vec<&str> =
        super::OPTIONS.iter().filter(|o| o.in_own() && o.own.is_none()).filter_map(|o| o.fio_name()).collect();
    let fio_of_own: Vec<&str> = super::OPTIONS
        .iter()
        .filter(|o| o.own.is_some() && o.in_own())
        .flat_map(|o| o.fio.iter().copied())
        .filter(|n| !KEYS.contains(n))
        .collect();
    format!("{} (or fio's {})", KEYS.join(", "), fio_of_own.iter().chain(&fio).copied().collect::<Vec<_>>().join(", "))
}

fn inv(field: Field, e: impl Into<String>) -> Error {
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
    crate::units::parse_bool(value).map_err(|_| Error::spec(field, format!("'{value}'"), "give true or false"))
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
    set_in(spec, field, value, Dialect::Own)
}

/// [`set`] by `dialect`'s rules for sizes and times: fio's spelling of an option is read by
/// fio's rules (`--runtime 1.5` is refused as fio would; `--time 1.5s` is 1.5 s).
fn set_in(spec: &mut AccessSpec, field: Field, value: &str, dialect: Dialect) -> Result<(), Error> {
    let v = value.trim();
    let size = |v: &str| crate::units::parse_size_in(v, dialect).map_err(|e| inv(field, e));
    let duration_ns = |v: &str| parse_duration(v).map(|d| d.as_nanos() as u64).map_err(|e| inv(field, e));
    // An option whose kind is a time takes a bare number in its unit (fio's `runtime=60`).
    // drivelab's own spelling of it (`time` for fio's `runtime`) keeps drivelab's rule: a unit.
    let time_ns = |v: &str| match super::of_field(field) {
        Some(o @ super::Opt { kind: super::Kind::Time(bare), .. }) => {
            let own_rule = dialect == Dialect::Own && o.fio_name() != o.own;
            let bare = if own_rule { super::Bare::Unit } else { *bare };
            crate::units::parse_time(v, bare, dialect).map_err(|e| inv(field, e))
        }
        _ => duration_ns(v),
    };
    let pct = |v: &str| parse_pct(v, "").map_err(|e| inv(field, e));
    match field {
        Field::As(name) => {
            let opt = by_key(name).ok_or_else(|| Error::invalid(format!("'{name}' is not an access-spec field")))?;
            // An option with a setter of its own (its row's): the value by the spelling's rules.
            if let super::Effect::Set(setter) = opt.effect {
                let dialect = if opt.own == Some(name) { dialect } else { Dialect::Fio(crate::units::KbBase::Binary) };
                return setter(spec, v, dialect).map_err(|why| Error::spec(field, format!("'{v}'"), why));
            }
            let canonical = field.canonical();
            let translated;
            let v = match opt.fio_name() {
                // fio's share of writes: drivelab's share of reads is the rest.
                Some("rwmixwrite") => {
                    let pct = parse_pct(v, "").map_err(|e| Error::spec(field, "", e))?;
                    translated = (100 - pct).to_string();
                    translated.as_str()
                }
                Some("ioengine") if v == "null" => {
                    return Err(Error::spec(
                        field,
                        format!("'{v}'"),
                        "drivelab has no null engine: give the target null (I/Os complete at once)",
                    ))
                }
                _ => v,
            };
            // A refusal of the value names what the reader wrote.
            return set_in(spec, canonical, v, Dialect::Fio(crate::units::KbBase::Binary)).map_err(|e| match e {
                Error::Spec { field: f, value, fix } if f == canonical => Error::Spec { field, value, fix },
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
        Field::Time => spec.time_ns = Some(time_ns(v)?),
        Field::IoSize => spec.io_size_bytes = Some(size(v)?),
        Field::Ramp => spec.ramp_ns = time_ns(v)?,
        Field::Direct => spec.direct = boolean(field, v)?,
        Field::Buffered => spec.direct = !boolean(field, v)?,
        Field::Sync => spec.sync = parse_sync(v)?,
        Field::Data => spec.data = parse_data(v)?,
        Field::Distribution => spec.distribution = Distribution::parse(v).map_err(|e| inv(field, e.to_string()))?,
        Field::Seed => spec.seed = number(field, v)?,
        Field::Engine => spec.engine = parse_engine(v)?,
        Field::Cpus => spec.cpus = parse_cpus(v)?,
        // fio's words too: none (0) or an error class (read, write, io, verify, all; 1).
        Field::RandomMap => spec.random_map = boolean(field, v)?,
        Field::BsMax => spec.bs_max = Some(size(v)?),
        Field::ContinueOnError => {
            spec.continue_on_error = match v {
                "none" => false,
                "read" | "write" | "io" | "verify" | "all" => true,
                _ => boolean(field, v)?,
            }
        }
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
        Field::Atomic => spec.engine_opts.atomic = boolean(field, v)?,
        Field::StatType => {
            spec.engine_opts.stat = crate::backend::StatType::from_name(v)
                .ok_or_else(|| Error::spec(field, format!("'{v}'"), "use stat, lstat or statx"))?
        }
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
            // The trace is named, not read: parsing does no I/O. What it does (writes? trims?)
            // is read when the run is checked (`replay::resolve`), before anything runs.
            if v.is_empty() {
                return Err(Error::spec(field, "", "give the trace's path"));
            }
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
                .map_err(|e| Error::spec(field, format!("'{v}'"), e.to_string()))?;
            spec.verify_pattern = Some(v.trim().to_string());
        }
        Field::IgnoreError => {
            let i = crate::spec::ignore_error::IgnoreErrors::parse(v)
                .map_err(|e| Error::spec(field, format!("'{v}'"), e.to_string()))?;
            spec.ignore_errors = Some(Box::new(i));
        }
        Field::Flow => spec.flow.get_or_insert_with(Default::default).weight = number(field, v)?,
        Field::FlowId => spec.flow.get_or_insert_with(Default::default).id = number(field, v)?,
        Field::FlowSleep => spec.flow.get_or_insert_with(Default::default).sleep_ns = time_ns(v)?,
        Field::OffsetIncrement => spec.offset_increment_bytes = size(v)?,
        Field::Dedupe => {
            spec.dedupe = crate::spec::dedupe::Dedupe::parse(v).map_err(|e| Error::spec(field, format!("'{v}'"), e))?
        }
        Field::Zbd => {
            let zbd =
                crate::spec::zbd::Zbd::parse(v).map_err(|e| Error::spec(field, format!("'{v}'"), e.to_string()))?;
            spec.zbd = Some(zbd);
        }
        Field::StartDelay => spec.start_delay_ns = duration_ns(v)?,
        Field::NumberIos => spec.number_ios = Some(number(field, v)?),
        Field::VerifyBacklog => spec.verify_backlog = number(field, v)?,
        Field::CompleteMin => spec.complete_min = number(field, v)?,
        Field::VerifyFound => spec.verify_found = boolean(field, v)?,
        Field::Invalidate => spec.invalidate = boolean(field, v)?,
        Field::Fadvise => {
            spec.fadvise = crate::spec::Fadvise::parse(v).ok_or_else(|| {
                Error::spec(field, format!("'{v}'"), "give 0 (none), 1 (the job's pattern), random or sequential")
            })?
        }
        Field::WriteBs => {
            spec.bs_write = Some(AccessSpec::parse_bs(v).map_err(|e| match e {
                Error::Spec { value, fix, .. } => Error::spec(field, value, fix),
                other => other,
            })?)
        }
        Field::Prio => {
            let job =
                crate::spec::prio::parse_job(v).map_err(|e| Error::spec(field, format!("'{v}'"), e.to_string()))?;
            spec.prio.get_or_insert_with(Default::default).job = job;
        }
        Field::Cmdprio => {
            let cmd =
                crate::spec::prio::parse_cmd(v).map_err(|e| Error::spec(field, format!("'{v}'"), e.to_string()))?;
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
        Field::Sprandom => spec.sprandom.on = boolean(field, v)?,
        Field::SprOp => {
            let op: f64 =
                v.trim().parse().map_err(|_| Error::spec(field, format!("'{v}'"), "give a share, e.g. 0.15"))?;
            spec.sprandom.over_provisioning = op;
            spec.sprandom.check().map_err(|_| {
                Error::spec(
                    field,
                    format!("'{v}'"),
                    "not a share between 0 and 1: give the drive's over-provisioning, e.g. 0.07 or 0.28",
                )
            })?;
        }
        Field::SprNumRegions => {
            spec.sprandom.regions = number(field, v)?;
            if spec.sprandom.regions == 0 || spec.sprandom.regions > crate::spec::sprandom::MAX_REGIONS {
                let fix = format!("outside 1..{}: give e.g. 100", crate::spec::sprandom::MAX_REGIONS);
                return Err(Error::spec(field, v.to_string(), fix));
            }
        }
        Field::SprCs => spec.sprandom.cache_bytes = size(v)?,
        Field::WriteMode => {
            spec.engine_opts.cmd.write_mode = crate::backend::CmdOptions::parse_write_mode(v)
                .map_err(|e| Error::spec(field, format!("'{v}'"), e.to_string()))?
        }
        Field::Deac => spec.engine_opts.cmd.deac = boolean(field, v)?,
        Field::Readfua => spec.engine_opts.cmd.readfua = boolean(field, v)?,
        Field::Writefua => spec.engine_opts.cmd.writefua = boolean(field, v)?,
        Field::NumRange => {
            let max = crate::backend::MAX_TRIM_RANGES;
            spec.engine_opts.cmd.num_range = match number::<u16>(field, v) {
                Ok(n) if (1..=max).contains(&n) => n,
                _ => return Err(Error::spec(field, format!("'{v}'"), format!("not a count of ranges 1..{max}"))),
            };
        }
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
    // `rw` first, whatever the order given: `read`/`random` override its mix (drivelab's), and
    // fio's `rwmixread`/`rwmixwrite` apply to the final `rw`'s mix wherever they stand (fio's).
    let rank = |k: &str| match Field::from_key(k) {
        Some(f) if f.canonical() == Field::Rw => 0,
        _ => 1,
    };
    let mut ordered = pairs.clone();
    ordered.sort_by_key(|(k, _)| rank(k));
    let mut spec = AccessSpec::default();
    let mut timed = false;
    for &(k, v) in &ordered {
        apply(&mut spec, k, v)?;
        timed |= Field::from_key(k).map(Field::canonical) == Some(Field::Time);
    }
    // io_size without a time, a replay and SPRandom's pass run until their bytes are done.
    if !timed && (spec.io_size_bytes.is_some() || spec.replay.is_some() || spec.sprandom.on) {
        spec.time_ns = None;
    }
    // As fio: a verify_pattern turns verify on (checking after the writes too, fio's do_verify)
    // unless verify was given.
    let verify_given = pairs.iter().any(|(k, _)| Field::from_key(k).map(Field::canonical) == Some(Field::Verify));
    if spec.verify_pattern.is_some() && !verify_given {
        spec.verify = true;
        spec.verify_after = spec.has_writes();
    }
    // fio's spelling, fio's meaning: `ioengine=psync` (or sync) runs one I/O at a time, so a
    // deeper iodepth runs at depth 1, as in fio (`notices` says so); drivelab's `engine psync`
    // with a deeper `qd` is refused by `validate`, which says how to get that many I/Os.
    let last_engine =
        pairs.iter().rev().find_map(|(k, _)| Field::from_key(k).filter(|f| f.canonical() == Field::Engine));
    if matches!(last_engine, Some(Field::As(_))) && spec.engine == EngineKind::Psync && spec.qd > 1 {
        spec.qd = 1;
    }
    // As fio: the options that shape a think time or a latency target do nothing without it.
    if spec.think.is_some_and(|t| t.ns == 0) {
        spec.think = None;
    }
    if spec.lat_target.is_some_and(|l| l.target_ns == 0) {
        spec.lat_target = None;
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

/// An engine by drivelab's name or fio's (`io_uring`, `libaio`, `sync`, `psync`, `pvsync`).
pub fn parse_engine(text: &str) -> Result<EngineKind, Error> {
    let name = match text.trim() {
        // fio's synchronous engines: one I/O at a time with pread/pwrite (or their vectored forms).
        "sync" | "pvsync" | "pvsync2" => "psync",
        other => other,
    };
    EngineKind::from_name(name).ok_or_else(|| {
        Error::spec(
            Field::Engine,
            format!("'{text}'"),
            "not an engine: use uring, libaio, posixaio, psync, uring_cmd (or fio's io_uring, io_uring_cmd, sync, \
             pvsync)",
        )
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
        t if t.starts_with("fsync") || t.starts_with("fdatasync") => {
            let (word, rest) =
                if let Some(r) = t.strip_prefix("fdatasync") { ("fdatasync", r) } else { ("fsync", &t[5..]) };
            let n = rest.strip_prefix(':').unwrap_or(if rest.is_empty() { "1" } else { rest });
            let every = n.parse::<u32>().map_err(|_| {
                Error::spec(
                    Field::Sync,
                    format!("'{text}'"),
                    format!("write {word}:N with N a whole number, e.g. {word}:1"),
                )
            })?;
            Ok(if word == "fsync" { SyncMode::Fsync { every } } else { SyncMode::Fdatasync { every } })
        }
        _ => Err(Error::spec(
            Field::Sync,
            format!("'{text}'"),
            "not a sync mode: use none, dsync, fsync:N or fdatasync:N",
        )),
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
