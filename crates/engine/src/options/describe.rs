//! A spec's workload written back as the option table's fields ([`describe`]): the inverse of
//! [`set`](super::set), in drivelab's own spelling (`qd`, `bs`, `span`, `time`, never fio's), each
//! value in the syntax `set` reads with drivelab's rules, so `partial_from_pairs(describe(&spec))`
//! is `spec` again. Only what differs from [`AccessSpec::default`] is written, field by field in
//! [`Field::SETTABLE`]'s order: the one derived view of a spec, for display and for pairing saved
//! points whatever spelling recorded them.
//!
//! Fields that go together are written as the setter needs them, no more:
//! - `rw`, `read`, `random` (and the trims, fio's `WORD:N` suffix): the `rw` word nearest the
//!   spec, with its `:N` where the spec skips bytes (`write:64k`) or draws a new offset every N
//!   I/Os (`randread:8`), then `read`/`random` where the word's shares are not the spec's
//!   (`rw=randrw read=70`). Nothing when the mix is the default's (randread).
//! - `buffered` is never written: it is `!direct`, written as `direct=false`.
//! - `verify` only where the others do not give it: `verify_after` and `verify_unit` turn it on,
//!   and a `verify_pattern` turns on both `verify` and (with writes) `verify_after` unless
//!   `verify` is given.
//! - `time` also when it is the default 10 s and the spec has an `io_size` or a replay (which
//!   otherwise run until their bytes are done); never when it is unset.
//! - `sqpoll` only without `sqpoll_cpu` (which turns it on); `replay_timing` only after
//!   `replay`; the rate's `rate_scope`, `arrivals`, `max_lag`, `pace` only with a `rate`, and
//!   `rate` whenever the spec has one; a think time's, a latency target's, strided zones', a
//!   flow's and the priorities' parts only with theirs, their first part written when it alone
//!   makes the part exist (`thinktime`, `latency_target`, `zone_size`, `flow`, `cmdprio`).
//! - `end_fsync`, drivelab's own key whose row has its own setter (not a [`Field`]), last.
//!
//! Not written, as no key sets them: `thresholds_ns` (set by lab), `round` (a repeated point's),
//! `io_log` (fio's log options, set by the job-file front end), and the rate's `aligned` and
//! `per_slot` (ACT's schedules). A spec that differs from another only there describes the same.
//!
//! What cannot come back the same, because no text `set` reads gives it (none is what `set`
//! makes, so a spec read from keys always comes back): a think time or latency target of 0
//! (dropped as in fio), a time unset without `io_size` or replay, both a sequential skip and a
//! random draw count (`rw` takes one suffix), a skip of -2^63 bytes, `sqpoll_cpu` without
//! `sqpoll`, durations over 2^53 ns (about 104 days) that are not an `f64`, bytes per second
//! that are not whole, a dedupe share of 0, a replay path with spaces at its ends, and the
//! values of [`job_text`](crate::spec::prio::job_text) and `IgnoreErrors::to_text` the parsers
//! never give.

use super::Field;
use crate::spec::prio::{cmd_text, job_text};
use crate::spec::{AccessSpec, Think};
use crate::units::{fmt_duration, fmt_size, parse_duration, parse_size};

/// drivelab's key of fio's `end_fsync` (a row with its own setter, not a [`Field`]).
const END_FSYNC: &str = "end_fsync";

/// A spec's workload as the option table's fields in drivelab's own spelling: each field whose value
/// differs from `AccessSpec::default()`, in `Field::SETTABLE` order, its value written so `set` reads
/// it back. The one derived view of a spec for display and for pairing saved points.
pub fn describe(spec: &AccessSpec) -> Vec<(&'static str, String)> {
    let default = AccessSpec::default();
    let ctx = Ctx { s: spec, d: &default, mix: Mix::of(spec, &default), verify: VerifyKeys::of(spec) };
    let mut out: Vec<(&'static str, String)> =
        Field::SETTABLE.into_iter().filter_map(|f| ctx.value(f).map(|v| (f.name(), v))).collect();
    if spec.end_fsync != default.end_fsync {
        out.push((END_FSYNC, boolean(spec.end_fsync)));
    }
    out
}

/// What [`describe`] reads a field's value from.
struct Ctx<'a> {
    s: &'a AccessSpec,
    d: &'a AccessSpec,
    mix: Mix,
    verify: VerifyKeys,
}

impl Ctx<'_> {
    /// `field`'s value as `set` reads it, or None when it is not written. A match on every
    /// field: a field added to the spec is a compile error here until it is written.
    fn value(&self, field: Field) -> Option<String> {
        let (s, d) = (self.s, self.d);
        let think = s.think.as_ref();
        let rate = s.rate.as_ref();
        let flow = s.flow.as_ref();
        let zones = s.zones.as_ref();
        let lat = s.lat_target.as_ref();
        let uring = &s.engine_opts.uring;
        match field {
            Field::Rw => self.mix.rw.clone(),
            Field::Read => self.mix.read.map(|p| p.to_string()),
            Field::Random => self.mix.random.map(|p| p.to_string()),
            Field::Distribution => changed(&s.distribution, &d.distribution, |x| x.to_string()),
            Field::Bs => changed(&s.bs, &d.bs, |b| AccessSpec::bs_to_text(b)),
            Field::Align => given(s.align_bytes, d.align_bytes, size),
            Field::Offset => changed(&s.offset_bytes, &d.offset_bytes, |b| size(*b)),
            Field::Span => given(s.span_bytes, d.span_bytes, size),
            Field::Qd => changed(&s.qd, &d.qd, u32::to_string),
            Field::Jobs => changed(&s.jobs, &d.jobs, u32::to_string),
            Field::Batch => changed(&s.submit_batch, &d.submit_batch, u32::to_string),
            Field::Time => {
                // io_size or a replay without a time given run until their bytes are done.
                let bytes_end = s.io_size_bytes.is_some() || s.replay.is_some();
                s.time_ns.filter(|_| s.time_ns != d.time_ns || bytes_end).map(duration)
            }
            Field::IoSize => given(s.io_size_bytes, d.io_size_bytes, size),
            Field::Ramp => changed(&s.ramp_ns, &d.ramp_ns, |ns| duration(*ns)),
            Field::Direct => changed(&s.direct, &d.direct, |b| boolean(*b)),
            // `!direct`: written as `direct`.
            Field::Buffered => None,
            Field::Sync => changed(&s.sync, &d.sync, |x| x.to_string()),
            Field::Data => changed(&s.data, &d.data, |x| x.to_string()),
            Field::Seed => changed(&s.seed, &d.seed, u64::to_string),
            Field::Engine => changed(&s.engine, &d.engine, |e| e.name().to_string()),
            Field::Cpus => changed(&s.cpus, &d.cpus, |x| x.to_string()),
            Field::ContinueOnError => changed(&s.continue_on_error, &d.continue_on_error, |b| boolean(*b)),
            Field::RandomMap => changed(&s.random_map, &d.random_map, |b| boolean(*b)),
            Field::BsMax => given(s.bs_max, d.bs_max, size),
            Field::Rate => rate.map(|r| r.per_s_text()),
            Field::RateScope => rate.filter(|r| r.scope != Default::default()).map(|r| r.scope.name().to_string()),
            Field::Arrivals => rate.filter(|r| r.arrivals != Default::default()).map(|r| r.arrivals.name().to_string()),
            Field::MaxLag => rate.and_then(|r| r.max_lag_ns).map(duration),
            Field::Pace => rate.filter(|r| r.pace != Default::default()).map(|r| r.pace.name().to_string()),
            Field::Hipri => changed(&uring.hipri, &d.engine_opts.uring.hipri, |b| boolean(*b)),
            // `sqpoll_cpu` turns it on.
            Field::Sqpoll => changed(&uring.sqpoll, &d.engine_opts.uring.sqpoll, |b| boolean(*b))
                .filter(|_| uring.sqpoll_cpu.is_none()),
            Field::SqpollCpu => given(uring.sqpoll_cpu, d.engine_opts.uring.sqpoll_cpu, |c| c.to_string()),
            Field::Atomic => changed(&s.engine_opts.atomic, &d.engine_opts.atomic, |b| boolean(*b)),
            Field::StatType => changed(&s.engine_opts.stat, &d.engine_opts.stat, |t| t.name().to_string()),
            Field::LatencySplit => changed(&s.latency_split, &d.latency_split, |b| boolean(*b)),
            Field::Verify => self.verify.verify.map(boolean),
            Field::VerifyAfter => self.verify.after.map(boolean),
            Field::VerifyUnit => given(s.verify_unit_bytes, d.verify_unit_bytes, size),
            // Written whenever there is a think time: it alone makes one (a think of 0 is none).
            Field::Thinktime => think.map(|t| duration(t.ns)),
            Field::ThinktimeSpin => {
                think.filter(|t| t.spin_ns != Think::default().spin_ns).map(|t| duration(t.spin_ns))
            }
            Field::ThinktimeBlocks => {
                think.filter(|t| t.blocks != Think::default().blocks).map(|t| t.blocks.to_string())
            }
            Field::ThinktimeBlocksType => {
                think.filter(|t| t.by_issue != Think::default().by_issue).map(|t| think_type(t.by_issue))
            }
            Field::Replay => s.replay.as_ref().map(|r| r.path.clone()),
            Field::ReplayTiming => s.replay.as_ref().filter(|r| r.fast).map(|_| "fast".to_string()),
            Field::RwSequencer => changed(&s.random_repeat, &d.random_repeat, |&identical| {
                if identical { "identical" } else { "sequential" }.to_string()
            }),
            Field::ZoneRange => zones.and_then(|z| z.range_bytes).map(size),
            // The zones' first part: written when it is set, or when nothing else makes the zones.
            Field::ZoneSize => zones
                .filter(|z| z.size_bytes != 0 || (z.range_bytes.is_none() && z.skip_bytes == 0))
                .map(|z| size(z.size_bytes)),
            Field::ZoneSkip => zones.filter(|z| z.skip_bytes != 0).map(|z| size(z.skip_bytes)),
            Field::BufferPattern => s.buffer_pattern_hex.as_ref().map(|hex| format!("0x{hex}")),
            Field::VerifyPattern => s.verify_pattern.clone(),
            Field::IgnoreError => s.ignore_errors.as_ref().map(|i| i.to_text()),
            // The flow's first part: written when it is set, or when nothing else makes the flow.
            Field::Flow => {
                flow.filter(|f| f.weight != 0 || (f.id == 0 && f.sleep_ns == 0)).map(|f| f.weight.to_string())
            }
            Field::FlowId => flow.filter(|f| f.id != 0).map(|f| f.id.to_string()),
            Field::FlowSleep => flow.filter(|f| f.sleep_ns != 0).map(|f| duration(f.sleep_ns)),
            Field::OffsetIncrement => changed(&s.offset_increment_bytes, &d.offset_increment_bytes, |b| size(*b)),
            Field::Dedupe => s.dedupe.map(|x| x.to_string()),
            Field::Zbd => s.zbd.map(|z| z.to_string()),
            Field::StartDelay => changed(&s.start_delay_ns, &d.start_delay_ns, |ns| duration(*ns)),
            Field::NumberIos => given(s.number_ios, d.number_ios, |n| n.to_string()),
            Field::VerifyBacklog => changed(&s.verify_backlog, &d.verify_backlog, |n| n.to_string()),
            Field::CompleteMin => changed(&s.complete_min, &d.complete_min, u32::to_string),
            Field::VerifyFound => changed(&s.verify_found, &d.verify_found, |b| boolean(*b)),
            Field::Fadvise => changed(&s.fadvise, &d.fadvise, |f| f.word().to_string()),
            Field::Invalidate => changed(&s.invalidate, &d.invalidate, |b| boolean(*b)),
            Field::WriteBs => s.bs_write.as_deref().map(AccessSpec::bs_to_text),
            Field::Prio => s.prio.as_ref().filter(|p| p.job != 0).map(|p| job_text(p.job)),
            // Per-I/O priorities, or (an empty list) what alone makes priorities with none set.
            Field::Cmdprio => s.prio.as_ref().filter(|p| p.per_io() || p.job == 0).map(|p| cmd_text(&p.cmd)),
            Field::FillDevice => changed(&s.fill_device, &d.fill_device, |b| boolean(*b)),
            // Written whenever there is a target: it alone makes one (a target of 0 is none).
            Field::LatencyTarget => lat.map(|l| duration(l.target_ns)),
            Field::LatencyWindow => lat.filter(|l| l.window_ns != 0).map(|l| duration(l.window_ns)),
            Field::LatencyPercentile => {
                let all = crate::spec::lat_target::LatTarget::default().percentile;
                lat.filter(|l| l.percentile != all).map(|l| format!("{}", l.percentile))
            }
            Field::LatencyRun => lat.filter(|l| l.run).map(|l| boolean(l.run)),
            Field::Sprandom => changed(&s.sprandom.on, &d.sprandom.on, |b| boolean(*b)),
            Field::SprOp => (s.sprandom.over_provisioning != d.sprandom.over_provisioning)
                .then(|| format!("{}", s.sprandom.over_provisioning)),
            Field::SprNumRegions => changed(&s.sprandom.regions, &d.sprandom.regions, u32::to_string),
            Field::WriteMode => {
                let c = &s.engine_opts.cmd;
                (c.write_mode != d.engine_opts.cmd.write_mode).then(|| c.write_mode_text())
            }
            Field::Deac => changed(&s.engine_opts.cmd.deac, &d.engine_opts.cmd.deac, |b| boolean(*b)),
            Field::Readfua => changed(&s.engine_opts.cmd.readfua, &d.engine_opts.cmd.readfua, |b| boolean(*b)),
            Field::Writefua => changed(&s.engine_opts.cmd.writefua, &d.engine_opts.cmd.writefua, |b| boolean(*b)),
            Field::NumRange => changed(&s.engine_opts.cmd.num_range, &d.engine_opts.cmd.num_range, u16::to_string),
            Field::SprCs => changed(&s.sprandom.cache_bytes, &d.sprandom.cache_bytes, |b| size(*b)),
            // Not keys: set by lab, a run option, a spelling of another field.
            Field::Thresholds | Field::Size | Field::As(_) => None,
        }
    }
}

/// `f(value)` of a value that is set and is not the default's.
fn given<T: PartialEq + Copy>(value: Option<T>, default: Option<T>, f: impl FnOnce(T) -> String) -> Option<String> {
    value.filter(|_| value != default).map(f)
}

/// `f(value)` when `value` is not the default's.
fn changed<T: PartialEq>(value: &T, default: &T, f: impl FnOnce(&T) -> String) -> Option<String> {
    (value != default).then(|| f(value))
}

fn boolean(b: bool) -> String {
    b.to_string()
}

fn think_type(by_issue: bool) -> String {
    if by_issue { "issue" } else { "complete" }.to_string()
}

/// Bytes as `set` reads them back: `fmt_size`'s short form where it is exact, else plain bytes.
fn size(bytes: u64) -> String {
    let short = fmt_size(bytes);
    if parse_size(&short).ok() == Some(bytes) {
        short
    } else {
        bytes.to_string()
    }
}

/// A duration as `set` reads it back: `fmt_duration` with up to 9 decimals (`1.5ms`, `250us`),
/// else whole nanoseconds, whichever the parser reads to the same nanoseconds (a duration that
/// is not an `f64`, past 2^53 ns, reads back as none does: written the first way).
fn duration(ns: u64) -> String {
    let short = fmt_duration(ns, 9);
    let exact = |t: &str| parse_duration(t).is_ok_and(|d| d.as_nanos() == u128::from(ns));
    if exact(&short) {
        return short;
    }
    let plain = format!("{ns}ns");
    if exact(&plain) {
        plain
    } else {
        short
    }
}

/// `rw`, `read` and `random` for the spec's mix, its trims and fio's `WORD:N`.
struct Mix {
    rw: Option<String>,
    read: Option<u8>,
    random: Option<u8>,
}

impl Mix {
    fn of(s: &AccessSpec, d: &AccessSpec) -> Mix {
        let key = |x: &AccessSpec| (x.read_pct, x.random_pct, x.trim, x.seq_skip_bytes, x.random_every_ios);
        if key(s) == key(d) {
            return Mix { rw: None, read: None, random: None };
        }
        // The suffix says which: a draw count needs a random word, a skip a sequential one
        // (both at once no word gives: the count is kept). Else the nearer.
        let random = if s.random_every_ios != 0 {
            true
        } else if s.seq_skip_bytes != 0 {
            false
        } else {
            s.random_pct >= 50
        };
        let (word, read) = match s.trim.word(random) {
            Some(w) => (w, 0),
            None => match (s.read_pct, random) {
                (100, false) => ("read", 100),
                (100, true) => ("randread", 100),
                (0, false) => ("write", 0),
                (0, true) => ("randwrite", 0),
                (_, false) => ("rw", 50),
                (_, true) => ("randrw", 50),
            },
        };
        let suffix = match (random, s.random_every_ios, s.seq_skip_bytes) {
            (true, n, _) if n != 0 => format!(":{n}"),
            (false, _, skip) if skip < 0 => format!(":-{}", size(skip.unsigned_abs())),
            (false, _, skip) if skip > 0 => format!(":{}", size(skip.unsigned_abs())),
            _ => String::new(),
        };
        let word_random = if random { 100 } else { 0 };
        // The word that is the default's own (randread) goes without saying.
        let default_word = key(d) == (read, word_random, s.trim, 0, 0) && suffix.is_empty();
        Mix {
            rw: (!default_word).then(|| format!("{word}{suffix}")),
            read: (s.read_pct != read).then_some(s.read_pct),
            random: (s.random_pct != word_random).then_some(s.random_pct),
        }
    }
}

/// `verify` and `verify_after` where the other keys do not give them.
struct VerifyKeys {
    verify: Option<bool>,
    after: Option<bool>,
}

impl VerifyKeys {
    fn of(s: &AccessSpec) -> VerifyKeys {
        if s.verify_pattern.is_some() {
            // A pattern without `verify` turns on verify, and verify_after for a spec that writes.
            if s.verify && s.verify_after == s.has_writes() {
                return VerifyKeys { verify: None, after: None };
            }
            return VerifyKeys { verify: Some(s.verify), after: s.verify_after.then_some(true) };
        }
        let implied = s.verify_after || s.verify_unit_bytes.is_some();
        VerifyKeys { verify: (s.verify && !implied).then_some(true), after: s.verify_after.then_some(true) }
    }
}
