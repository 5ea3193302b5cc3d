//! fio's options, one by one, into drivelab's access-spec fields: each supported option has one
//! arm here saying what it becomes; an option with no arm is refused by name and line, never
//! ignored. Options that change nothing about the I/O (reporting, fio's own bookkeeping) are
//! accepted and listed in a notice, so a reader sees they were read and had no effect.
//!
//! fio's defaults are the job's defaults, not drivelab's: a job without `rw` reads sequentially,
//! without `ioengine` runs psync, without `direct` goes through the page cache, without `bs`
//! moves 4 KiB.
//!
//! The names, kinds and effects are the engine's option table's (`drivelab_engine::options`);
//! here are the arms of the options that need a job's context (rules across options, defaults
//! fio gives a job); options with logic of their own delegate to submodules (logs, jobctl, walk,
//! watch, onerror).

use drivelab_engine::options::{Effect, Field, Kind, NOT_SUPPORTED};
use drivelab_engine::spec::flow::Flow;
use drivelab_engine::spec::ignore_error::IgnoreErrors;
use drivelab_engine::spec::lat_target::LatTarget;
use drivelab_engine::spec::{
    AccessSpec, Arrivals, BlockSize, CpuPlacement, DataPattern, EngineKind, Replay, SyncMode, Think,
};

use super::ini::{LineError, Opt};
use super::notice::Notice;
use super::value::{boolean, bssplit, cpu_list, size, time_ns, whole, within, BareTime, KbBase};

/// A job section with the options that apply to it (the `[global]` ones before it, then its
/// own), translated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Job {
    pub name: String,
    /// What fio's job line says of it (`NAME: (g=0): rw=..., bs=..., ioengine=..., iodepth=N`).
    pub banner: Banner,
    /// The section's line.
    pub line: usize,
    /// The job's workload, typed: what the options set, fio's defaults for the rest. What
    /// depends on the targets (a part of a shared one, one pass over it) is set once they are
    /// known (`mod.rs`'s `resolve`), then the spec is validated.
    pub spec: AccessSpec,
    /// `runtime` was given: a job bound by bytes also ends at it.
    pub runtime_given: bool,
    /// Files or devices from `filename`/`directory` (or fio's default `NAME.N.0` files); empty
    /// for `ioengine=null` (the null target). Targets on the command line replace these.
    pub targets: Vec<String>,
    /// The job's clones (`numjobs`) each have their own file: one target per clone, one job
    /// each. Otherwise the clones share the targets (drivelab's `jobs`).
    pub file_per_clone: bool,
    /// `ioengine=null`.
    pub null: bool,
    /// `size`: the region's length, a new file's size and (not time_based) the bytes to move.
    pub size: Option<u64>,
    /// fio would do one pass over the whole target (no size, no io_size, not time_based): the
    /// bytes to move are the target's size, known once it is probed.
    pub whole_target: bool,
    /// `stonewall`/`wait_for_previous`: the job waits for the ones before it.
    pub stonewall: bool,
    /// What runs a little differently from fio, to tell the user.
    pub notices: Vec<Notice>,
    /// Options read that change nothing here (reporting, fio's bookkeeping).
    pub no_effect: Vec<String>,
    /// fio's log files (`write_lat_log`, ...; see `logs`), job numbers not yet given.
    pub io_log: Option<drivelab_engine::iolog::IoLogSpec>,
    /// `exitall`: the job's group ends when its first job ends (see `jobctl`).
    pub exitall: bool,
    /// `wait_for`: the job whose end this one starts after (see `waitfor`).
    pub wait_for: Option<String>,
    /// `allow_file_create=0`: every file the job uses must exist already (fio refuses otherwise).
    pub existing_only: bool,
    /// fio's `ioscheduler`: the I/O scheduler the job wants on the disk under each target.
    pub ioscheduler: Option<String>,
    /// `offset_increment=P%`, resolved once the target's size is known (`stripe.rs`).
    pub increment_pct: Option<super::stripe::IncrementPct>,
    /// `exit_what=all` (with `exitall`: the groups after this job's never run).
    pub exit_what_all: bool,
    /// fio's verify state files of the job (`vstate.rs`): written when it ends, or read to
    /// bound what `verify_only` checks.
    pub verify_state: VerifyStateUse,
    /// `unlink=1`: the job's files are deleted when its group ends (`runner`).
    pub unlink: bool,
}

/// What a job does with fio's verify state files (`vstate.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerifyStateUse {
    /// Neither: the job does not write with verify, or `verify_state_save=0`.
    #[default]
    None,
    /// `verify_state_save` (fio's default) on a job that writes with verify: each clone's
    /// state is written when the job ends.
    Save,
    /// `verify_only` with `verify_state_load`: each clone checks the writes its state counts.
    Load,
}

/// What each option set, before the fields are made.
#[derive(Default)]
struct Draft {
    name: Option<String>,
    rw: Option<String>,
    /// `rwmixread`/`rwmixwrite` as written (checked against `rw` as a whole) and the share of
    /// reads each gives.
    mix: Vec<(String, String, u8)>,
    random_pct: Option<u8>,
    bs: Option<Vec<BlockSize>>,
    /// `bsrange`'s MAX when above its MIN (`bs`).
    bs_max: Option<u64>,
    align: Option<u64>,
    qd: Option<u64>,
    batch: Option<u64>,
    size: Option<u64>,
    io_size: Option<u64>,
    offset: Option<u64>,
    runtime_ns: Option<u64>,
    time_based: bool,
    ramp_ns: Option<u64>,
    direct: Option<bool>,
    engine: Option<&'static str>,
    engine_written: String,
    arrivals: Option<Arrivals>,
    sync: Option<SyncMode>,
    data: Option<DataPattern>,
    norandommap: bool,
    /// `random_generator=lfsr`: fio's LFSR visits every block once per pass, map or not.
    lfsr: bool,
    /// `random_generator` and `norandommap` were named (SPRandom sets them only when not).
    generator_named: bool,
    norandommap_named: bool,
    /// `serialize_overlap=1`: checked against the depth and verify when the job is made.
    serialize_overlap: Option<Opt>,
    /// `iodepth_batch_complete_max`, checked against the depth when the job is made.
    complete_max: Option<(u64, Opt)>,
    seed: Option<u64>,
    /// `thinktime` (above 0: fio thinks only then), `thinktime_spin`, `thinktime_blocks`,
    /// `thinktime_blocks_type`.
    think: Think,
    think_blocks_type: Option<bool>,
    replay: Option<String>,
    replay_fast: bool,
    cpus: Option<Vec<u32>>,
    verify: bool,
    do_verify: bool,
    continue_on_error: bool,
    numjobs: Option<u64>,
    filename: Option<String>,
    directory: Option<String>,
    /// fio's `nrfiles`: files per job (named by `filename_format`) when no filename is given.
    nrfiles: Option<u64>,
    /// fio's `opendir`: every regular file below it, one job over them all.
    opendir: Option<String>,
    /// fio's `filesize`: each file's size (`size` is then the job's total).
    filesize: Option<u64>,
    stonewall: bool,
    /// fio's `thread`: the jobs stay in the session that started them (`Plan::thread`).
    thread: bool,
    loops: Option<u64>,
    notices: Vec<Notice>,
    no_effect: Vec<String>,
    logs: super::logs::LogDraft,
    ctl: super::jobctl::Ctl,
    /// The `:N` of `rw=WORD:N` (`walk::rw_suffix`).
    rw_n: Option<super::walk::RwSuffix>,
    /// `rw_sequencer` and strided zones (`walk.rs`).
    walk: super::walk::Walk,
    /// `wait_for`: the job this one starts after.
    wait_for: Option<String>,
    /// `verify_pattern`, in fio's syntax (the engine's field reads it).
    verify_pattern: Option<String>,
    /// `verify` was given (fio's verify_pattern turns verify on only when it was not).
    verify_named: bool,
    /// `verify_backlog`: blocks written between read-backs (0: none).
    verify_backlog: u64,
    /// `verify_interval` in bytes: drivelab's `verify_unit`.
    verify_interval: Option<u64>,
    /// `verify_only`: the job's writes are not made, but read back and checked.
    verify_only: bool,
    /// `unlink`: the job's files are deleted when its group ends.
    unlink: bool,
    /// `verify_state_save` (fio's default: on), `verify_state_load`.
    state_save: bool,
    state_load: bool,
    /// `ignore_error` with `continue_on_error`, resolved (`onerror.rs`).
    ignore_error: Option<IgnoreErrors>,
    /// `flow`, `flow_id`, `flow_sleep`.
    flow: Option<Flow>,
    /// `allow_file_create` (fio's default: true).
    allow_file_create: Option<bool>,
    ioscheduler: Option<String>,
    /// fio's `filename_format` (default `$jobname.$jobnum.$filenum`).
    filename_format: Option<String>,
    /// `offset_increment`, dedupe, `verify_dump` (`stripe.rs`).
    stripe: super::stripe::Stripe,
    /// `startdelay` as (low, high) ns (`delay.rs`).
    start_delay: Option<(u64, u64)>,
    /// `number_ios`.
    number_ios: Option<u64>,
    /// `rate`/`rate_iops` per direction, with the option that gave them (`rates.rs`).
    rates: Option<(super::rates::Rates, Opt)>,
    /// `prio`, `prioclass`, `cmdprio_*` (`prio.rs`).
    prio: super::prio::PrioDraft,
    /// Writes' block sizes when `bs`/`bssplit` gave their own (drivelab's `write_bs`).
    bs_write: Option<Vec<BlockSize>>,
    /// `bs`'s trim size and the smallest of its three: a trim job's blocks (a trimwrite
    /// writes what it trimmed) on fio's grid, the smallest size.
    bs_trim: Option<(u64, u64)>,
    /// `fill_device`/`fill_fs` (`errs.rs`).
    fill_device: bool,
    /// `latency_target`, `latency_window`, `latency_percentile`, `latency_run` (fio's search
    /// runs only with a target above 0).
    lat: LatTarget,
    /// Options that set a field of the spec with no rule of fio's job reader around them: the
    /// field as the user spelt it and the text, read once by the spec's one setter
    /// (`options::set`, fio's rules for fio's spelling) when the spec is made, in file order.
    passed: Vec<(Field, String, usize)>,
}

fn bad(o: &Opt, why: impl std::fmt::Display) -> LineError {
    let written = match &o.value {
        Some(v) => format!("{}={v}", o.key),
        None => o.key.clone(),
    };
    LineError { line: o.line, message: format!("{written}: {why}") }
}

/// fio's zone units: `size`, `io_size`, `offset`, `offset_increment` and `zoneskip` given as
/// `Nz` count zones of the job's `zonesize` (fio's `FIO_OPT_STR_VAL_ZONE`); each is rewritten to
/// its bytes before it is read. Without a `zonesize` there is no zone to count: refused.
fn in_zones(opts: &[Opt], kb: KbBase) -> Result<std::borrow::Cow<'_, [Opt]>, LineError> {
    const ZONED: [&str; 5] = ["size", "io_size", "offset", "offset_increment", "zoneskip"];
    let zones_of = |o: &Opt| {
        let n = o.value.as_deref().map(str::trim).and_then(|v| v.strip_suffix('z'))?;
        n.parse::<u64>().ok().filter(|_| ZONED.contains(&o.key.as_str()))
    };
    if !opts.iter().any(|o| zones_of(o).is_some()) {
        return Ok(std::borrow::Cow::Borrowed(opts));
    }
    let zone = opts.iter().rev().find(|o| o.key == "zonesize").and_then(|o| o.value.as_deref());
    let mut out = opts.to_vec();
    for o in out.iter_mut() {
        let Some(n) = zones_of(o) else { continue };
        let Some(zone) = zone else {
            return Err(bad(
                o,
                format!("{n}z counts zones; give zonesize= (with zonemode=strided or zbd) for their size"),
            ));
        };
        let bytes = size(zone.trim(), kb).map_err(|e| bad(o, format!("zonesize={zone}: {e}")))?;
        let total = n.checked_mul(bytes).ok_or_else(|| bad(o, format!("{n}z of {zone} is too large")))?;
        o.value = Some(total.to_string());
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// fio's `kb_base` among `opts` (fio reads it before the options it affects).
fn kb_base(opts: &[Opt]) -> Result<KbBase, LineError> {
    match opts.iter().rev().find(|o| o.key == "kb_base") {
        None => Ok(KbBase::Binary),
        Some(o) => match o.value.as_deref().map(str::trim) {
            Some("1024") => Ok(KbBase::Binary),
            Some("1000") => Ok(KbBase::Decimal),
            _ => Err(bad(o, "kb_base is 1024 or 1000")),
        },
    }
}

/// Translate job `name`'s options (global ones first, then its own, in order).
pub fn translate(name: &str, line: usize, opts: &[Opt]) -> Result<Job, LineError> {
    let kb = kb_base(opts)?;
    let mut d = Draft { do_verify: true, state_save: true, ..Draft::default() };
    let opts = &*in_zones(opts, kb)?;
    for o in opts {
        apply(&mut d, o, kb)?;
    }
    if let Some(o) = opts.iter().rev().find(|o| o.key == "ignore_error") {
        let coe = opts.iter().rev().find(|o| o.key == "continue_on_error").and_then(|o| o.value.as_deref());
        let text = o.value.as_deref().unwrap_or("");
        d.ignore_error = Some(super::onerror::resolve(text, coe.map(str::trim)).map_err(|e| bad(o, e))?);
        d.continue_on_error = false;
    }
    if let Some(o) = opts.iter().rev().find(|o| o.key == "verify_pattern") {
        // fio: verify_pattern turns verify on (options.c), unless verify was given.
        d.verify |= !d.verify_named;
        if !d.verify {
            return Err(bad(o, "with verify=none nothing checks the pattern: drop verify=none (or give buffer_pattern for the written data alone)"));
        }
        d.notices.retain(|n| !matches!(n, Notice::VerifyOwnHeader { .. }));
        Notice::VerifyPattern.push_to(&mut d.notices);
    }
    let ctl = std::mem::take(&mut d.ctl);
    let (delay, rates, arrivals, seed) = (d.start_delay.take(), d.rates.take(), d.arrivals, d.seed);
    let number_ios = d.number_ios.take().map(|n| n.saturating_mul(d.loops.unwrap_or(1)));
    let rw = d.rw.clone().unwrap_or_else(|| "read".into());
    let state = (d.verify_only, d.state_save, d.state_load);
    let mut job = finish(name, line, d)?;
    super::jobctl::merge(ctl, &mut job);
    if let Some(ns) = delay.map(|r| super::delay::pick(r, seed, &job.name)).filter(|&ns| ns > 0) {
        job.spec.start_delay_ns = ns;
    }
    // fio: a trimwrite's trim and write of a block are two I/Os.
    if let Some(n) = number_ios.map(|n| if rw.contains("trimwrite") { n.saturating_mul(2) } else { n }) {
        job.spec.number_ios = Some(n);
    }
    if let Some((r, o)) = rates {
        let (rate, read_pct, notice) = super::rates::rate(&r, &rw).map_err(|e| bad(&o, e))?;
        if let Some(mut rate) = rate {
            rate.arrivals = arrivals.unwrap_or(rate.arrivals);
            job.spec.rate = Some(rate);
        }
        if let Some(p) = read_pct {
            job.spec.read_pct = p;
        }
        job.notices.extend(notice);
    }
    verify_only(&mut job, &rw, state, opts)?;
    Ok(job)
}

/// fio's `verify_only` (the job's writes are not made: each block they would write is read
/// back and checked by its header, in the order they would be written — the same offsets, as
/// the same seed draws them) and which verify state files the job writes or reads
/// (`vstate.rs`). `state` is (verify_only, verify_state_save, verify_state_load).
fn verify_only(job: &mut Job, rw: &str, state: (bool, bool, bool), opts: &[Opt]) -> Result<(), LineError> {
    let (only, save, load) = state;
    let at = |key: &str| opts.iter().rev().find(|o| o.key == key).expect("the option was read");
    let spec = &mut job.spec;
    if load && !only {
        return Err(bad(
            at("verify_state_load"),
            "verify_state_load bounds what verify_only checks to the writes a state file counts: give verify_only too",
        ));
    }
    if !only {
        if save && spec.verify && spec.has_writes() {
            job.verify_state = VerifyStateUse::Save;
        }
        return Ok(());
    }
    let o = at("verify_only");
    if !spec.verify {
        return Err(bad(o, "verify_only checks what a verifying writer wrote: give its verify= too"));
    }
    if !matches!(rw.split(':').next().unwrap_or(""), "write" | "randwrite") {
        return Err(bad(
            o,
            format!(
                "verify_only reads back what a job that only writes wrote; rw={rw} reads or trims too: give the \
                 writer's rw=write or rw=randwrite"
            ),
        ));
    }
    // The writer's blocks, read: its sizes and offsets, nothing written, each block checked by
    // its own header as it completes (fio checks the header of each, not its write's number).
    spec.read_pct = 100;
    if let Some(w) = spec.bs_write.take() {
        spec.bs = w;
    }
    (spec.verify_after, spec.verify_backlog, spec.fill_device) = (false, 0, false);
    spec.verify_found = spec.verify_pattern.is_none();
    job.verify_state = if load { VerifyStateUse::Load } else { VerifyStateUse::None };
    Ok(())
}

fn apply(d: &mut Draft, o: &Opt, kb: KbBase) -> Result<(), LineError> {
    let value = o.value.as_deref().map(str::trim);
    let need = || value.filter(|v| !v.is_empty()).ok_or_else(|| bad(o, "needs a value (key=value)"));
    let sz = |v: &str| size(v, kb).map_err(|e| bad(o, e));
    let num = |v: &str| whole(v).map_err(|e| bad(o, e));
    // fio's minval/maxval: a value fio itself refuses is refused here, never clamped.
    let range = |v: &str, lo: u64, hi: u64| within(v, lo, hi).map_err(|e| bad(o, e));
    let pct = |v: &str| range(v, 0, 100);
    let flag = || boolean(value).map_err(|e| bad(o, e));
    let one_direction = |v: &str| -> Result<(), LineError> {
        if v.contains(',') {
            return Err(bad(o, "separate read,write values are not supported; give one value for both"));
        }
        Ok(())
    };
    // The one table says what the option is (fio's name for an alias) and whether it runs here.
    let Some(opt) = drivelab_engine::options::by_fio(o.key.as_str()) else {
        return Err(bad(o, unsupported(&o.key, NOT_SUPPORTED)));
    };
    match opt.effect {
        Effect::NoEffect(_) => {
            // Read and changing nothing, but a value fio refuses is refused (a typo is said):
            // a switch's 0/1 (drivelab also takes true/false), a flag's or a number's digits.
            match opt.kind {
                Kind::Bool => drop(flag()?),
                Kind::Flag if boolean(value).is_err() => {
                    num(need()?)?;
                }
                Kind::Int => drop(sz(need()?)?),
                // One of fio's words for it (`unit_base`: 0, 8 or 1; fio refuses `7`).
                Kind::Text if !opt.words.is_empty() => {
                    let v = need()?;
                    if !opt.words.contains(&v) {
                        return Err(bad(o, format!("'{v}' is not one of {}", opt.words.join(", "))));
                    }
                }
                _ => {}
            }
            if !d.no_effect.contains(&o.key) {
                d.no_effect.push(o.key.clone());
            }
            return Ok(());
        }
        Effect::Refused(why) => return Err(bad(o, unsupported(&o.key, why))),
        Effect::Checked(_) => {
            if !d.no_effect.contains(&o.key) {
                d.no_effect.push(o.key.clone());
            }
        }
        Effect::Spec(_) | Effect::Set(_) | Effect::Job => {}
    }
    let key = opt.name();
    match key {
        "name" => d.name = Some(need()?.to_string()),
        "rw" => {
            let v = need()?;
            let w =
                match v {
                    "read" | "write" | "randread" | "randwrite" | "randrw" => v,
                    "rw" | "readwrite" => "rw",
                    "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => v,
                    w if w.contains(':') => {
                        let (word, n) = w.split_once(':').unwrap_or((w, ""));
                        let word = word.trim();
                        // The word itself is checked as a plain one.
                        apply(d, &Opt { value: Some(word.into()), ..o.clone() }, kb)?;
                        d.rw_n = Some(super::walk::rw_suffix(word, n, kb).map_err(|e| bad(o, e))?);
                        return Ok(());
                    }
                    _ => return Err(bad(
                        o,
                        "expected read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite \
                         or randtrimwrite",
                    )),
                };
            d.rw = Some(w.to_string());
            d.rw_n = None;
        }
        "rwmixread" | "rwmixwrite" => {
            let v = need()?;
            one_direction(v)?;
            let share = pct(v)? as u8;
            d.mix.push((key.to_string(), v.to_string(), if key == "rwmixread" { share } else { 100 - share }))
        }
        "percentage_random" => {
            let v = need()?;
            one_direction(v)?;
            d.random_pct = Some(pct(v)? as u8);
        }
        "bs" => {
            let v = need()?;
            let sizes: Vec<&str> = v.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
            let first = sizes.first().ok_or_else(|| bad(o, "needs a block size"))?;
            let b = sz(first)?;
            // fio's READ,WRITE[,TRIM]: an empty one is fio's default (4k); one not given takes
            // the one before it (fio 3.33: bs=4k,8k trims 8k).
            let each: Vec<&str> = v.split(',').map(str::trim).collect();
            let dir = |i: usize| match each.get(i) {
                Some(s) if !s.is_empty() => sz(s),
                Some(_) => Ok(4096),
                None => Ok(b),
            };
            let (r, w) = (dir(0)?, if each.len() > 1 { dir(1)? } else { b });
            let t = if each.len() > 2 { dir(2)? } else { w };
            d.bs = Some(vec![BlockSize { bytes: r, pct: 100 }]);
            d.bs_write = (w != r).then(|| vec![BlockSize { bytes: w, pct: 100 }]);
            d.bs_trim = Some((t, r.min(w).min(t)));
            d.bs_max = None;
        }
        "bsrange" => {
            let v = need()?;
            one_direction(v)?;
            // fio's range: MIN-MAX or MIN:MAX. As fio's range reader, each side is the size it
            // starts with (`512/25:1k:25` is 512 to 1k, fio's t0023).
            let (a, b) = v.split_once(['-', ':']).ok_or_else(|| bad(o, "expected MIN-MAX, e.g. 1k-4k"))?;
            let lead = |t: &str| -> String { t.trim().chars().take_while(|c| c.is_ascii_alphanumeric()).collect() };
            let (a, b) = (sz(&lead(a))?, sz(&lead(b))?);
            if a > b {
                return Err(bad(o, "the smallest size comes first: MIN-MAX"));
            }
            d.bs = Some(vec![BlockSize { bytes: a, pct: 100 }]);
            d.bs_write = None;
            d.bs_trim = None;
            d.bs_max = (a != b).then_some(b);
        }
        "bssplit" => {
            let v = need()?;
            // fio's READS,WRITES: a writes' split of its own (an empty one: the reads').
            let (r, w) = v.split_once(',').unwrap_or((v, ""));
            if w.contains(',') {
                return Err(bad(o, "a trim split of its own is not supported; give READS,WRITES"));
            }
            let reads = bssplit(r, kb).map_err(|e| bad(o, e))?;
            let writes = if w.trim().is_empty() { reads.clone() } else { bssplit(w, kb).map_err(|e| bad(o, e))? };
            d.bs_write = (writes != reads).then_some(writes);
            d.bs_trim = None;
            d.bs = Some(reads);
            d.bs_max = None;
        }
        "blockalign" => {
            let v = need()?;
            one_direction(v)?;
            d.align = Some(sz(v)?);
        }
        "iodepth" => d.qd = Some(range(need()?, 1, 65536)?),
        "iodepth_batch" => d.batch = Some(num(need()?)?),
        "size" => d.size = Some(sz(need()?)?),
        "filesize" => match sz(need()?)? {
            // fio's minval 1 ("min value out of range"); it was refused as an io_size of 0.
            0 => return Err(bad(o, "0 is below fio's minimum of 1: give each file's size, such as 1g")),
            n => d.filesize = Some(n),
        },
        "io_size" => d.io_size = Some(sz(need()?)?),
        "offset" => d.offset = Some(sz(need()?)?),
        "runtime" => d.runtime_ns = Some(time_ns(need()?, BareTime::Seconds).map_err(|e| bad(o, e))?),
        "time_based" => d.time_based = flag()?,
        "ramp_time" => d.ramp_ns = Some(time_ns(need()?, BareTime::Seconds).map_err(|e| bad(o, e))?),
        "loops" => d.loops = Some(range(need()?, 1, u32::MAX.into())?),
        "startdelay" => d.start_delay = Some(super::delay::parse(need()?).map_err(|e| bad(o, e))?),
        "direct" => d.direct = Some(flag()?),
        "buffered" => d.direct = Some(!flag()?),
        "ioengine" => {
            let v = need()?;
            d.engine_written = v.to_string();
            d.engine = Some(match v {
                // fio's synchronous engines, one I/O per call: read/write (sync), readv/
                // writev (vsync), preadv/pwritev (pvsync, pvsync2) run as pread/pwrite.
                "sync" | "pvsync" | "vsync" | "pvsync2" => "psync",
                "null" => "null",
                // drivelab's engines by their names.
                _ => match EngineKind::from_name(v) {
                    Some(e) => e.name(),
                    None => {
                        return Err(bad(
                            o,
                            "drivelab runs io_uring, libaio, posixaio, io_uring_cmd, psync, sync, vsync, pvsync, \
                             pvsync2 (the four as psync), null and the metadata engines filecreate, filestat, \
                             filedelete",
                        ))
                    }
                },
            });
        }
        "rate" | "rate_iops" => {
            let r = super::rates::parse(need()?, key == "rate", kb).map_err(|e| bad(o, e))?;
            d.rates = Some((r, o.clone()));
        }
        "rate_process" => {
            d.arrivals = Some(match need()? {
                "linear" => Arrivals::Uniform,
                "poisson" => Arrivals::Poisson,
                _ => return Err(bad(o, "expected linear or poisson")),
            })
        }
        "io_submit_mode" => {
            if !matches!(need()?, "inline" | "offload") {
                return Err(bad(o, "expected inline or offload"));
            }
            // drivelab's open loop always issues at the intended times, whatever completes:
            // what fio's offload gives; inline changes nothing without a rate.
        }
        "sync" => match need()? {
            "0" | "none" => {}
            "1" | "sync" => {
                d.sync = Some(SyncMode::Dsync);
                Notice::SyncAsDsync.push_to(&mut d.notices);
            }
            "dsync" => d.sync = Some(SyncMode::Dsync),
            _ => return Err(bad(o, "expected 0, 1, none, sync or dsync")),
        },
        "fsync" | "fdatasync" => {
            let every = range(need()?, 0, u32::MAX.into())? as u32;
            if every > 0 {
                d.sync = Some(if key == "fsync" { SyncMode::Fsync { every } } else { SyncMode::Fdatasync { every } });
            }
        }
        "buffer_compress_percentage" => {
            let pct = pct(need()?)? as u8;
            d.data = (pct > 0).then_some(DataPattern::Compress { pct });
        }
        "buffer_compress_chunk" => {
            Notice::CompressChunk.push_to(&mut d.notices);
        }
        "zero_buffers" => {
            if flag()? {
                d.data = Some(DataPattern::Zero);
            }
        }
        "norandommap" => {
            d.norandommap = flag()?;
            d.norandommap_named = true;
        }
        "random_generator" => {
            d.generator_named = true;
            d.lfsr = match need()? {
                "lfsr" => true,
                "tausworthe" | "tausworthe64" => false,
                _ => return Err(bad(o, "expected tausworthe, lfsr or tausworthe64")),
            }
        }
        "randseed" => d.seed = Some(num(need()?)?),
        "read_iolog" => d.replay = Some(need()?.to_string()),
        "replay_no_stall" => d.replay_fast = flag()?,
        "thinktime" | "thinktime_spin" => {
            let ns = time_ns(need()?, BareTime::Micros).map_err(|e| bad(o, e))?;
            *if key == "thinktime" { &mut d.think.ns } else { &mut d.think.spin_ns } = ns;
        }
        "thinktime_blocks" => d.think.blocks = range(need()?, 0, u32::MAX.into())? as u32,
        "thinktime_blocks_type" => {
            d.think_blocks_type = Some(match need()? {
                "complete" => false,
                "issue" => true,
                _ => return Err(bad(o, "expected complete (fio's default) or issue")),
            })
        }
        "cpus_allowed" => d.cpus = Some(cpu_list(need()?).map_err(|e| bad(o, e))?),
        "verify" => {
            let v = need()?;
            // fio's methods (3.33's, and 3.42's `pattern_hdr`); drivelab checks with its own
            // header whichever is named, but a name fio does not know is a typo to say.
            const METHODS: &[&str] = &[
                "0",
                "none",
                "md5",
                "crc64",
                "crc32",
                "crc32c-intel",
                "crc32c",
                "crc16",
                "crc7",
                "sha1",
                "sha256",
                "sha512",
                "sha3-224",
                "sha3-256",
                "sha3-384",
                "sha3-512",
                "xxhash",
                "meta",
                "pattern",
                "pattern_hdr",
                "null",
            ];
            if !METHODS.iter().any(|m| m.eq_ignore_ascii_case(v)) {
                return Err(bad(
                    o,
                    format!("'{v}' is not one of fio's verify methods: give one of {}", METHODS.join(", ")),
                ));
            }
            d.verify_named = true;
            d.verify = !matches!(v, "0" | "none");
            if d.verify {
                Notice::VerifyOwnHeader { method: v.to_string() }.push_to(&mut d.notices);
            }
        }
        "do_verify" => d.do_verify = flag()?,
        "verify_only" => d.verify_only = flag()?,
        "unlink" => d.unlink = flag()?,
        "unlink_each_loop" => {
            if flag()? {
                return Err(bad(
                    o,
                    "deleting the job's files between its loops is not in drivelab: give unlink=1 \
                                   (deleted when the job's group ends), or loops=1",
                ));
            }
        }
        "verify_state_save" => d.state_save = flag()?,
        "verify_state_load" => d.state_load = flag()?,
        "iodepth_batch_complete_max" => d.complete_max = Some((num(need()?)?, o.clone())),
        "serialize_overlap" => d.serialize_overlap = Some(o.clone()).filter(|_| matches!(value, None | Some("1"))),
        // drivelab checks every read as it completes and stops at the first wrong block.
        "verify_async" | "verify_fatal" => {}
        "verify_backlog" => d.verify_backlog = num(need()?)?,
        "continue_on_error" => d.continue_on_error = !matches!(need()?, "none" | "0"),
        "numjobs" => d.numjobs = Some(range(need()?, 1, 65536)?),
        "filename" => d.filename = Some(need()?.to_string()),
        "directory" => {
            let v = need()?;
            if v.contains(':') {
                return Err(bad(
                    o,
                    "several directories are not supported; give one (or name the files with filename)",
                ));
            }
            d.directory = Some(v.to_string());
        }
        "nrfiles" => d.nrfiles = Some(range(need()?, 1, MAX_FILES_PER_JOB)?),
        "opendir" => d.opendir = Some(need()?.to_string()),
        "stonewall" => d.stonewall = flag()?,
        "thread" => d.thread = flag()?,
        k if super::logs::is_key(k) => super::logs::apply(&mut d.logs, o).map_err(|e| bad(o, e))?,
        _ if super::jobctl::apply(&mut d.ctl, o).transpose()?.is_some() => {}
        k if super::walk::KEYS.contains(&k) => d.walk.apply(o, need()?, kb).map_err(|e| bad(o, e))?,
        "wait_for" => d.wait_for = Some(need()?.to_string()),
        "cmd_type" => {
            if need()? != "nvme" {
                return Err(bad(o, "io_uring_cmd passes NVMe commands only (cmd_type=nvme, fio's only type)"));
            }
        }
        "nonvectored" => {
            if num(need()?)? == 0 {
                Notice::NonVectored.push_to(&mut d.notices);
            }
        }
        _ if super::watch::check(key, o.value.as_deref()).transpose().map_err(|e| bad(o, e))?.is_some() => {}
        "verify_pattern" => d.verify_pattern = Some(need()?.to_string()),
        "verify_interval" => d.verify_interval = Some(sz(need()?)?),
        "ignore_error" => {
            need()?;
        }
        "flow" => d.flow.get_or_insert_with(Flow::default).weight = range(need()?, 0, 1000)? as u32,
        "flow_id" => d.flow.get_or_insert_with(Flow::default).id = range(need()?, 0, u32::MAX.into())? as u32,
        "flow_sleep" => {
            d.flow.get_or_insert_with(Flow::default).sleep_ns =
                time_ns(need()?, BareTime::Micros).map_err(|e| bad(o, e))?
        }
        // fio 3.33 reads it and does nothing (FIO_OPT_SOFT_DEPRECATED).
        "flow_watermark" => d.no_effect.push(key.into()),
        "allow_file_create" => d.allow_file_create = Some(flag()?),
        "ioscheduler" => d.ioscheduler = Some(need()?.to_string()),
        "filename_format" => d.filename_format = Some(need()?.to_string()),
        "allow_mounted_write" => {
            flag()?;
        }
        k if super::stripe::KEYS.contains(&k) => {
            let v = if k == "dedupe_global" || k == "verify_dump" { value.unwrap_or("1") } else { need()? };
            d.stripe.apply(o, v, kb).map_err(|e| bad(o, e))?
        }
        "number_ios" => d.number_ios = Some(num(need()?)?).filter(|&n| n > 0),
        k if super::prio::is_key(k) => super::prio::apply(&mut d.prio, k, need()?, kb).map_err(|e| bad(o, e))?,
        _ if super::errs::apply(&mut d.fill_device, &mut d.no_effect, key, value)
            .transpose()
            .map_err(|e| bad(o, e))?
            .is_some() => {}
        "latency_target" => d.lat.target_ns = time_ns(need()?, BareTime::Micros).map_err(|e| bad(o, e))?,
        "latency_window" => d.lat.window_ns = time_ns(need()?, BareTime::Micros).map_err(|e| bad(o, e))?,
        "latency_percentile" => {
            let p = need()?.parse::<f64>().ok().filter(|p| (0.0..=100.0).contains(p));
            d.lat.percentile = p.ok_or_else(|| bad(o, "give a percentage from 0 to 100 (fio's range), e.g. 99.9"))?;
        }
        "latency_run" => d.lat.run = flag()?,
        // Reporting options: checked as fio checks them; fio's formats read them back.
        "percentile_list" => {
            super::reporting::PercentileList::parse(need()?).map_err(|e| bad(o, e))?;
        }
        "unified_rw_reporting" => {
            super::reporting::Unified::parse(need()?).map_err(|e| bad(o, e))?;
        }
        // An option that sets a field of the spec, with nothing of fio's job rules around it: the
        // spec's own setter, as every front end (a new row of the table needs nothing here).
        _ if matches!(opt.effect, Effect::Spec(_) | Effect::Set(_)) => {
            let v = match (value, opt.kind) {
                (None, drivelab_engine::options::Kind::Bool | drivelab_engine::options::Kind::Flag) => "1",
                _ => need()?,
            };
            let field = Field::from_key(&o.key).ok_or_else(|| bad(o, "the option table has no field for it"))?;
            d.passed.push((field, v.to_string(), o.line));
        }
        // A row that shapes a job has its arm above (the table's test holds them together); one
        // without is a row added without its effect.
        _ => return Err(bad(o, unsupported(key, "the option table lists it, but fio's job reader has no arm for it"))),
    }
    Ok(())
}

/// Why an option drivelab does not run is refused (`why`, from the table), and what to do.
fn unsupported(key: &str, why: &str) -> String {
    format!("option '{key}' is not supported: {why}")
}

fn finish(section: &str, line: usize, d: Draft) -> Result<Job, LineError> {
    let err = |m: String| LineError { line, message: format!("[{section}]: {m}") };
    let name = d.name.clone().unwrap_or_else(|| section.to_string());
    let null = d.engine == Some("null");
    let numjobs = d.numjobs.unwrap_or(1);
    let files = job_files(&d, section, null, numjobs).map_err(err)?;
    let engine = match d.engine {
        Some("null") | None => EngineKind::Psync,
        Some(e) => EngineKind::from_name(e).ok_or_else(|| err(format!("no engine {e}")))?,
    };
    // fio's defaults where drivelab's differ; what the options set replaces them below.
    let mut spec = AccessSpec { engine, direct: false, ..AccessSpec::default() };
    let mut notices = d.notices;
    let rw = d.rw.clone().unwrap_or_else(|| "read".into());
    spec.set_rw(&rw).map_err(|e| err(e.to_string()))?;
    if let Some(n) = d.rw_n {
        n.set(&mut spec);
    }
    if !d.mix.is_empty() {
        // fio applies rwmixread/rwmixwrite to a mixed workload only (`check_fio_mix` says so).
        let mut pairs: Vec<(&str, &str)> = vec![("rw", rw.as_str())];
        pairs.extend(d.mix.iter().map(|(k, v, _)| (k.as_str(), v.as_str())));
        drivelab_engine::options::check_fio_mix(&pairs)
            .map_err(|e| err(e.written_as(drivelab_engine::Spelling::FioJob).to_string()))?;
        spec.read_pct = d.mix.last().map_or(spec.read_pct, |m| m.2);
    }
    let some_random = rw.starts_with("rand") || (rw == "rw" && d.random_pct.is_some_and(|r| r != 0));
    if let Some(r) = d.random_pct {
        if rw.starts_with("rand") || rw == "rw" {
            spec.random_pct = r;
        }
    }
    if let Some(bs) = d.bs {
        spec.bs = bs;
    }
    match (rw.contains("trim"), d.bs_trim) {
        // A trim job moves blocks of the trim size (a trimwrite's writes follow its trims).
        (true, Some((t, smallest))) => {
            spec.bs = vec![BlockSize { bytes: t, pct: 100 }];
            if smallest < t && d.align.is_none() {
                spec.align_bytes = Some(smallest);
            }
        }
        (true, None) if d.bs_write.is_some() => {
            return Err(err("writes' own block sizes are not supported with trims; give one bs".into()));
        }
        _ => spec.bs_write = d.bs_write,
    }
    spec.bs_max = d.bs_max;
    spec.align_bytes = d.align.or(spec.align_bytes);
    let qd = d.qd.unwrap_or(1);
    if let Some((max, o)) = &d.complete_max {
        if *max < qd {
            return Err(bad(
                o,
                format!(
                    "drivelab takes every completion there is at once; a cap below iodepth={qd} is not supported: give \
                     {qd} or more, or drop it"
                ),
            ));
        }
    }
    let sync_engine = engine.is_sync();
    if let Some(o) = &d.serialize_overlap {
        let effective_qd = if sync_engine { 1 } else { qd };
        if effective_qd > 1 && !d.verify {
            return Err(bad(
                o,
                format!(
                    "drivelab serializes overlapping I/Os only with verify; at iodepth={qd} give verify=, or \
                     iodepth=1, or drop serialize_overlap"
                ),
            ));
        }
        Notice::SerializeOverlapMoot.push_to(&mut notices);
    }
    let depth = |n: u64| u32::try_from(n).map_err(|_| err(format!("iodepth={n} is too deep")));
    let depth_capped = sync_engine && qd > 1;
    if depth_capped {
        let engine = if d.engine.is_some() { d.engine_written.clone() } else { "psync (fio's default)".into() };
        Notice::SyncEngineDepth { engine, qd }.push_to(&mut notices);
        spec.qd = 1;
    } else {
        spec.qd = depth(qd)?;
    }
    // Batches are the asynchronous engines' (a synchronous one does one I/O per call); one
    // above the depth submits what the depth allows, whoever reads it (fio caps it).
    if let Some(b) = d.batch.filter(|&b| b > 0 && !sync_engine) {
        spec.submit_batch = u32::try_from(b).unwrap_or(u32::MAX);
    }
    // NVMe passthrough bypasses the page cache whatever `direct` says, as O_DIRECT does.
    spec.direct = d.direct.unwrap_or(false) || engine == EngineKind::UringCmd;
    if let Some(o) = d.offset {
        spec.offset_bytes = o;
    }
    // A job over several files: `size` is its total, each file an equal part (fio's `size /
    // nrfiles`), unless `filesize` gives each file's; with `filesize` alone the total is every
    // file's.
    let per = u64::from(files.per_job);
    let (region, total) = match (d.filesize, d.size) {
        (Some(f), s) => (Some(f), s.or(Some(f.saturating_mul(per)))),
        (None, Some(s)) => (Some(s / per), Some(s)),
        (None, None) => (None, None),
    };
    // fio's metadata engines: one operation per file and pass, counted as one block (fio also
    // counts filesize/bs blocks that move nothing: the same when filesize is bs, as in fio's
    // examples); nothing is laid out.
    let (region, total) = match engine.is_meta() {
        true => (Some(spec.max_bs()), Some(spec.max_bs().saturating_mul(per))),
        false => (region, total),
    };
    if files.per_job > 1 {
        spec.files.per_job = files.per_job;
    }
    spec.span_bytes = region;
    let loops = d.loops.unwrap_or(1);
    let mut whole_target = false;
    if d.time_based {
        let Some(t) = d.runtime_ns else {
            return Err(err("time_based without runtime would run until stopped; give runtime=".into()));
        };
        spec.time_ns = Some(t);
    } else {
        match d.io_size.or(total) {
            Some(b) => {
                // A sequential pass that skips (`rw=read:512k`) ends at the region's end, as
                // fio's does: fewer bytes than the region per pass.
                let pass = match (d.io_size, region, spec.bs.as_slice()) {
                    (None, Some(region), [one]) if !some_random && spec.seq_skip_bytes > 0 => {
                        let (bs, skip) = (one.bytes, spec.seq_skip_bytes as u64);
                        per * region.checked_sub(bs).map_or(0, |room| (room / (bs + skip) + 1) * bs)
                    }
                    // fio ends each file where its next block would not fit: whole blocks of
                    // each file (`size=100k bs=64k` moves 64 KiB, `size=1m` over 3 files at
                    // 64 KiB 960 KiB).
                    (None, Some(region), [one]) if spec.bs_max.is_none() && one.bytes > 0 => {
                        b.min(per.saturating_mul(region / one.bytes * one.bytes))
                    }
                    _ => b,
                };
                // fio's trimwrite trims and writes each block: both count, twice the bytes.
                let pairs = if rw.contains("trimwrite") { 2 } else { 1 };
                spec.io_size_bytes = Some(pass.saturating_mul(loops).saturating_mul(pairs))
            }
            // A replay ends with its trace.
            None => whole_target = d.replay.is_none(),
        }
        // Bytes (or a trace) bound the job, and a runtime too when given; a job bound by
        // neither yet (one pass over a target not probed) keeps the default until it is.
        if spec.io_size_bytes.is_some() || d.replay.is_some() || d.runtime_ns.is_some() {
            spec.time_ns = d.runtime_ns;
        }
    }
    spec.ramp_ns = d.ramp_ns.unwrap_or(0);
    spec.sync = d.sync.unwrap_or_default();
    spec.data = d.data.unwrap_or_default();
    if let Some(s) = d.seed {
        spec.seed = s;
    }
    if let Some(path) = d.replay.clone() {
        spec.replay = Some(Replay { path, fast: d.replay_fast });
    }
    // fio thinks only with a thinktime above zero; its other think options shape that.
    if d.think.ns > 0 {
        spec.think = Some(Think { by_issue: d.think_blocks_type.unwrap_or(false), ..d.think });
    }
    if let Some(c) = d.cpus {
        spec.cpus = CpuPlacement::List(c);
    }
    let writes = rw != "read" && rw != "randread" && !rw.ends_with("trim");
    spec.verify = d.verify;
    // fio checks what a reading job finds; it writes nothing first (a verify_pattern is checked
    // against every read anyway).
    spec.verify_found = d.verify && d.verify_pattern.is_none();
    // fio's default fadvise_hint=1 (an option given replaces it, through the setter).
    spec.fadvise = drivelab_engine::spec::Fadvise::Pattern;
    // With verify_backlog the written blocks are read back while the job writes, the rest
    // when its bytes are done (fio's do_verify with a backlog): nothing is left for after.
    spec.verify_backlog = d.verify_backlog;
    spec.verify_after = d.verify && writes && d.do_verify && spec.verify_backlog == 0;
    spec.continue_on_error = d.continue_on_error;
    // fio's random map, unless norandommap: a pass visits every block once.
    spec.random_map = some_random && (!d.norandommap || d.lfsr);
    let JobFiles { targets, file_per_clone, .. } = files;
    if !file_per_clone {
        spec.jobs = u32::try_from(numjobs).map_err(|_| err(format!("numjobs={numjobs} is too many")))?;
    }
    let io_log = super::logs::finish(d.logs, &name, 0, file_per_clone);
    d.walk.set(&mut spec).map_err(|e| err(e.to_string()))?;
    let has_pattern = d.verify_pattern.is_some();
    if let (Some(p), true) = (&d.verify_pattern, d.verify) {
        // The pattern's one reading (fio's syntax).
        drivelab_engine::options::set(&mut spec, Field::VerifyPattern, p)
            .map_err(|e| err(e.written_as(drivelab_engine::Spelling::FioJob).to_string()))?;
    }
    spec.ignore_errors = d.ignore_error.map(Box::new);
    spec.flow = d.flow;
    spec.prio = super::prio::finish(&d.prio, engine).map_err(err)?;
    if d.lat.target_ns > 0 {
        spec.lat_target = Some(d.lat);
    }
    // The options with no rule of the job reader's around them, read once each, in file order.
    for (field, text, at) in &d.passed {
        drivelab_engine::options::set(&mut spec, *field, text).map_err(|e| LineError {
            line: *at,
            message: format!("[{section}]: {}", e.written_as(drivelab_engine::Spelling::FioJob)),
        })?;
    }
    // fio's SPRandom takes fio's LFSR and no random map (the generator draws so whatever the
    // spec's random map), with fio's line saying it, unless the job names them otherwise,
    // which fio refuses.
    let mut sprandom_sets = (false, false);
    if spec.sprandom.on {
        if !(writes && some_random) {
            return Err(err("sprandom requires random write, random_generator=lfsr, norandommap=1".into()));
        }
        if d.generator_named && !d.lfsr {
            return Err(err("sprandom requires random_generator=lfsr".into()));
        }
        if d.norandommap_named && !d.norandommap {
            return Err(err("sprandom requires norandommap=1".into()));
        }
        sprandom_sets = (!d.generator_named, !d.norandommap_named);
    }
    if let (Some(u), true) = (d.verify_interval, d.verify) {
        // drivelab's own header checks at most every 4 KiB: a coarser fio interval is checked
        // more finely (the same data, more headers). A pattern restarts at each interval, so
        // there the interval is the data: kept, and refused by the spec if it cannot be.
        if u > 4096 && !has_pattern {
            Notice::VerifyIntervalFiner { interval: u }.push_to(&mut notices);
        } else {
            spec.verify_unit_bytes = Some(u);
        }
    }
    let increment_pct = d.stripe.set(&mut spec, numjobs, file_per_clone).map_err(err)?;
    if d.stripe.dump && d.verify {
        Notice::VerifyDump.push_to(&mut notices);
    }
    if d.fill_device {
        if writes {
            spec.fill_device = true;
        } else {
            Notice::FillReads.push_to(&mut notices);
        }
    }
    if rw.contains("trim") {
        Notice::TrimFiles.push_to(&mut notices);
    }
    let range = |b: &[BlockSize]| {
        let lo = b.iter().map(|b| b.bytes).min().unwrap_or(4096);
        (lo, b.iter().map(|b| b.bytes).max().unwrap_or(lo))
    };
    let read = match spec.bs_max {
        Some(max) => (range(&spec.bs).0, max),
        None => range(&spec.bs),
    };
    let write = spec.bs_write.as_deref().map_or(read, range);
    let writes_only = !matches!(rw.split(':').next().unwrap_or(""), "read" | "randread" | "rw" | "randrw");
    let verify_writes = d.verify && writes && d.do_verify;
    let says = Says {
        writers_overlap: verify_writes
            && d.numjobs.unwrap_or(1) > 1
            && (d.filename.is_some()
                || d.filename_format
                    .as_deref()
                    .is_some_and(|f| !(f.contains("$jobname") && f.contains("$jobnum") && f.contains("$filenum")))),
        verify_never_starts: verify_writes
            && writes_only
            && d.runtime_ns.is_some()
            && d.time_based
            && d.verify_backlog == 0,
        depth_capped,
        sprandom_sets_lfsr: sprandom_sets.0,
        sprandom_sets_norandommap: sprandom_sets.1,
    };
    let banner = Banner {
        rw: rw.split(':').next().unwrap_or("read").to_string(),
        bs: [read, write, d.bs_trim.map_or(write, |(t, _)| (t, t))],
        engine: if d.engine.is_some() { d.engine_written.clone() } else { "psync".into() },
        iodepth: d.qd.unwrap_or(1),
        thread: d.thread,
        says,
    };
    Ok(Job {
        name,
        banner,
        line,
        spec,
        runtime_given: d.runtime_ns.is_some(),
        targets,
        file_per_clone,
        null,
        size: region.filter(|_| !engine.is_meta()),
        whole_target,
        stonewall: d.stonewall,
        notices,
        no_effect: d.no_effect,
        io_log,
        exitall: false,
        wait_for: d.wait_for,
        existing_only: d.allow_file_create == Some(false),
        ioscheduler: d.ioscheduler.clone(),
        increment_pct,
        exit_what_all: false,
        verify_state: VerifyStateUse::None,
        unlink: d.unlink,
    })
}

/// A clone's file name by fio's `filename_format`: `$jobname` (the section), `$jobnum` (the
/// clone), `$filenum` (0: one file per job); anything else as written.
fn file_name(format: &str, section: &str, clone: u64, file: u64) -> String {
    format.replace("$jobname", section).replace("$jobnum", &clone.to_string()).replace("$filenum", &file.to_string())
}

/// The most files one job runs over (`nrfiles`, `filename=a:b:...`, `opendir`): each is a
/// target drivelab checks, claims and opens.
pub const MAX_FILES_PER_JOB: u64 = 1024;

/// The most files one job section names with its clones (`numjobs` x `nrfiles`).
const MAX_FILES_PER_SECTION: u64 = 65536;

/// A job's files: its targets, whether each clone has its own, and how many each job runs over.
struct JobFiles {
    targets: Vec<String>,
    file_per_clone: bool,
    per_job: u32,
}

/// The files of a job as fio names them: `filename`'s list (in `directory`), every regular
/// file below `opendir`, or `nrfiles` names by `filename_format` for each clone — shared by
/// the clones when their names are alike, one set per clone when they differ.
fn job_files(d: &Draft, section: &str, null: bool, numjobs: u64) -> Result<JobFiles, String> {
    let one_set = |targets: Vec<String>| {
        if targets.len() as u64 > MAX_FILES_PER_JOB {
            return Err(format!(
                "{} files in one job; drivelab runs at most {MAX_FILES_PER_JOB} files per job: split the job",
                targets.len()
            ));
        }
        let per_job = targets.len().max(1) as u32;
        Ok(JobFiles { targets, file_per_clone: false, per_job })
    };
    if null {
        return Ok(JobFiles { targets: Vec::new(), file_per_clone: false, per_job: 1 });
    }
    if let Some(f) = &d.filename {
        let list = drivelab_engine::options::split_filename(f).map_err(|e| e.to_string())?;
        return one_set(list.into_iter().map(|t| in_dir(d.directory.as_deref(), &t)).collect());
    }
    if let Some(dir) = &d.opendir {
        return one_set(super::opendir::files_below(dir).map_err(|e| e.to_string())?);
    }
    // fio names a job's files after its section (not a `name=` inside it).
    let format = d.filename_format.as_deref().unwrap_or("$jobname.$jobnum.$filenum");
    let nrfiles = d.nrfiles.unwrap_or(1);
    // Bounded before any name is made: each file is a target drivelab checks and opens.
    if numjobs.saturating_mul(nrfiles) > MAX_FILES_PER_SECTION {
        return Err(format!(
            "numjobs={numjobs} with nrfiles={nrfiles} names {} files; drivelab runs at most {MAX_FILES_PER_SECTION} \
             per job section: fewer clones or files",
            numjobs.saturating_mul(nrfiles)
        ));
    }
    let sets: Vec<Vec<String>> = (0..numjobs)
        .map(|k| (0..nrfiles).map(|f| in_dir(d.directory.as_deref(), &file_name(format, section, k, f))).collect())
        .collect();
    match sets.iter().skip(1).filter(|s| **s == sets[0]).count() {
        // Clones whose names are the same files share them, as in fio.
        n if n + 1 == sets.len() && sets.len() > 1 => one_set(sets[0].clone()),
        0 => {
            let mut one = one_set(sets[0].clone())?;
            one.file_per_clone = true;
            one.targets = sets.concat();
            Ok(one)
        }
        _ => Err(format!(
            "filename_format={format} names some of the {numjobs} clones' files alike and others apart; \
             drivelab runs clones on files of their own or all on the same: use $jobnum or leave it out"
        )),
    }
}

/// What fio's normal output says of a job before it runs, as the job was written: its `rw`,
/// the smallest and largest block of each direction (read, write, trim), its `ioengine` and
/// `iodepth` (before a synchronous engine caps it), and whether it runs as a thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Banner {
    pub rw: String,
    pub bs: [(u64, u64); 3],
    pub engine: String,
    pub iodepth: u64,
    pub thread: bool,
    /// fio's own lines on stdout for the job, in any output format: its warnings as its
    /// options are read, and a note as each clone starts.
    pub says: Says,
}

/// What fio says on stdout of a job, whatever the output format (fio's `log_info`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Says {
    /// "fio: multiple writers may overwrite blocks ...": a verifying writer with clones on
    /// shared files.
    pub writers_overlap: bool,
    /// "fio: verification read phase will never start ...": a time_based verifying writer.
    pub verify_never_starts: bool,
    /// "note: both iodepth >= 1 and synchronous I/O engine ...": each clone, as it starts.
    pub depth_capped: bool,
    /// "fio: sprandom sets random_generator=lfsr" and "... norandommap=1": an SPRandom job
    /// that did not name them.
    pub sprandom_sets_lfsr: bool,
    pub sprandom_sets_norandommap: bool,
}

/// `file` in fio's `directory`, unless it is a path of its own.
fn in_dir(dir: Option<&str>, file: &str) -> String {
    match dir {
        Some(d) if !file.starts_with('/') => format!("{}/{file}", d.trim_end_matches('/')),
        _ => file.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(text: &str) -> Vec<Opt> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| match l.split_once('=') {
                Some((k, v)) => Opt { key: k.into(), value: Some(v.into()), line: i + 1 },
                None => Opt { key: l.into(), value: None, line: i + 1 },
            })
            .collect()
    }

    fn bs(sizes: &[(u64, u8)]) -> Vec<BlockSize> {
        sizes.iter().map(|&(bytes, pct)| BlockSize { bytes, pct }).collect()
    }

    #[test]
    fn fios_defaults_are_the_jobs_defaults() {
        let j = translate("j", 1, &opts("size=1m")).unwrap();
        let s = &j.spec;
        assert_eq!((s.read_pct, s.random_pct), (100, 0), "rw=read");
        assert_eq!((s.engine, s.direct, s.qd), (EngineKind::Psync, false, 1));
        assert_eq!(s.bs, bs(&[(4096, 100)]));
        assert_eq!((s.io_size_bytes, s.span_bytes, s.time_ns), (Some(1 << 20), Some(1 << 20), None));
        assert_eq!(j.targets, vec!["j.0.0"]);
        s.validate().unwrap();
    }

    #[test]
    fn a_time_based_job_runs_for_its_runtime_and_others_until_size_is_moved() {
        let j = translate("j", 1, &opts("size=10G\ntime_based\nruntime=900\nramp_time=5")).unwrap();
        assert_eq!((j.spec.time_ns, j.spec.ramp_ns), (Some(900_000_000_000), 5_000_000_000));
        assert_eq!(j.spec.io_size_bytes, None);
        let j = translate("j", 1, &opts("size=64m\nruntime=2\nloops=3")).unwrap();
        assert_eq!(j.spec.io_size_bytes, Some((3 * 64) << 20));
        assert_eq!(j.spec.time_ns, Some(2_000_000_000));
        let j = translate("j", 1, &opts("filename=/dev/sdz")).unwrap();
        assert!(j.whole_target && !j.runtime_given);
        let e = translate("j", 7, &opts("time_based")).unwrap_err();
        assert!(e.message.contains("runtime"), "{}", e.message);
    }

    #[test]
    fn block_sizes_splits_and_ranges() {
        let j = translate("j", 1, &opts("bssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10")).unwrap();
        let split = [(512, 10), (1024, 5), (2048, 5), (4096, 60), (8192, 2), (16384, 4), (32768, 4), (65536, 10)];
        assert_eq!(j.spec.bs, bs(&split));
        let j = translate("j", 1, &opts("bssplit=4k/50:64k/")).unwrap();
        assert_eq!(j.spec.bs, bs(&[(4096, 50), (65536, 50)]));
        let j = translate("j", 1, &opts("bsrange=4k-4k")).unwrap();
        assert_eq!((j.spec.bs.clone(), j.spec.bs_max), (bs(&[(4096, 100)]), None));
        // fio's READ,WRITE: writes' own sizes (an empty one: fio's default, 4k).
        let j = translate("j", 1, &opts("bs=4k,64k")).unwrap();
        assert_eq!((j.spec.bs, j.spec.bs_write), (bs(&[(4096, 100)]), Some(bs(&[(65536, 100)]))));
        let j = translate("j", 1, &opts("bs=,8k")).unwrap();
        assert_eq!((j.spec.bs, j.spec.bs_write), (bs(&[(4096, 100)]), Some(bs(&[(8192, 100)]))));
        assert_eq!(translate("j", 1, &opts("bs=8k,8k")).unwrap().spec.bs_write, None);
        let j = translate("j", 1, &opts("bssplit=64k/40:1024k/60,1024k/100")).unwrap();
        assert_eq!(j.spec.bs, bs(&[(65536, 40), (1 << 20, 60)]));
        assert_eq!(j.spec.bs_write, Some(bs(&[(1 << 20, 100)])));
        assert_eq!(translate("j", 1, &opts("bssplit=4k/50:8k/50,")).unwrap().spec.bs_write, None);
        assert!(translate("j", 1, &opts("bssplit=4k,8k,16k")).unwrap_err().message.contains("trim"));
        // A trim job's blocks are the trim size (one not given: the writes'), on the smallest's grid.
        let j = translate("j", 1, &opts("rw=trimwrite\nbs=4k,4k,8k")).unwrap();
        assert_eq!(
            (j.spec.bs.clone(), j.spec.bs_write.clone(), j.spec.align_bytes),
            (bs(&[(8192, 100)]), None, Some(4096))
        );
        assert_eq!(translate("j", 1, &opts("rw=randtrim\nbs=4k,8k")).unwrap().spec.bs, bs(&[(8192, 100)]));
        // fio's range reader takes the size each side starts with (fio's t0023).
        let j = translate("j", 1, &opts("bsrange=512/25:1k:25:2k:25:4k/25")).unwrap();
        assert_eq!((j.spec.bs, j.spec.bs_max), (bs(&[(512, 100)]), Some(1024)));
        let j = translate("j", 1, &opts("bsrange=1k-4k")).unwrap();
        assert_eq!((j.spec.bs, j.spec.bs_max), (bs(&[(1024, 100)]), Some(4096)));
        let j = translate("j", 1, &opts("bsrange=512:1M")).unwrap();
        assert_eq!((j.spec.bs, j.spec.bs_max), (bs(&[(512, 100)]), Some(1 << 20)));
        assert!(translate("j", 1, &opts("bsrange=64k-4k")).is_err());
        let j = translate("j", 1, &opts("kb_base=1000\nbs=4k")).unwrap();
        assert_eq!(j.spec.bs, bs(&[(4000, 100)]));
    }

    #[test]
    fn nrfiles_name_each_clones_files_and_are_bounded_before_any_is_named() {
        let j = translate("j", 1, &opts("nrfiles=2\nnumjobs=2\nsize=1m")).unwrap();
        assert_eq!(j.targets, ["j.0.0", "j.0.1", "j.1.0", "j.1.1"]);
        assert_eq!((j.spec.files.per_job, j.spec.span_bytes, j.file_per_clone), (2, Some(512 << 10), true));
        let shared = translate("j", 1, &opts("nrfiles=3\nnumjobs=2\nfilename_format=f.$filenum")).unwrap();
        assert_eq!((shared.targets.len(), shared.spec.jobs, shared.file_per_clone), (3, 2, false));
        // Refused before 67 million names are made.
        let e = translate("j", 1, &opts("nrfiles=1024\nnumjobs=65536")).unwrap_err().message;
        assert!(e.contains("at most 65536"), "{e}");
    }

    #[test]
    fn engines_depths_and_files() {
        let j = translate("j", 1, &opts("ioengine=libaio\niodepth=16\nnumjobs=4\nfilename=/a:/b")).unwrap();
        assert_eq!((j.spec.engine, j.spec.qd, j.spec.jobs), (EngineKind::Libaio, 16, 4));
        assert_eq!(j.targets, vec!["/a", "/b"]);
        assert!(!j.notices.iter().any(|n| n.to_string().contains("libaio")), "libaio runs libaio: {:?}", j.notices);
        // fio's iodepth_batch is an asynchronous engine's: libaio's too.
        let j = translate(
            "j",
            1,
            &opts(
                "ioengine=libaio
iodepth=16
iodepth_batch=8",
            ),
        )
        .unwrap();
        assert_eq!(j.spec.submit_batch, 8);
        // Google Cloud's fio lines: a completion cap at or above the depth is what drivelab does.
        let gcp = "ioengine=libaio\niodepth=64\niodepth_batch_submit=64\niodepth_batch_complete_max=64";
        assert_eq!(translate("j", 1, &opts(gcp)).unwrap().spec.qd, 64);
        let e = translate("j", 1, &opts("ioengine=libaio\niodepth=64\niodepth_batch_complete_max=8")).unwrap_err();
        assert!(e.message.contains("iodepth_batch_complete_max=8") && e.message.contains("64"), "{}", e.message);
        // fio's reaping minimum (ccollicutt's fio_tests.sh: iodepth_batch_complete=16).
        assert_eq!(translate("j", 1, &opts("iodepth_batch_complete=16")).unwrap().spec.complete_min, 16);
        assert_eq!(translate("j", 1, &opts("iodepth_batch_complete_min=0")).unwrap().spec.complete_min, 0);
        assert!(translate("j", 1, &opts("iodepth_batch_complete_min=-1")).is_err());
        let j = translate("j", 1, &opts("iodepth=8\nnumjobs=2\ndirectory=/data")).unwrap();
        assert_eq!(j.spec.qd, 1, "psync runs at depth 1");
        assert_eq!(j.targets, vec!["/data/j.0.0", "/data/j.1.0"]);
        assert!(j.file_per_clone);
        // fio's zone units: N zones of zonesize.
        let j = translate("j", 1, &opts("zonemode=strided\nzonesize=64k\nzonerange=128k\nsize=4z\noffset=1z")).unwrap();
        assert_eq!((j.size, j.spec.offset_bytes), (Some(4 << 16), 1 << 16));
        assert!(translate("j", 1, &opts("size=4z")).unwrap_err().message.contains("zonesize"));
        // fio's filename_format (Virtuozzo's guide: __testfile'$jobnum'); a name= inside the
        // section names the job, not its files (kubestr's job file).
        let j = translate("j", 1, &opts("numjobs=2\nname=other\nfilename_format=__testfile'$jobnum'")).unwrap();
        assert_eq!(
            (j.targets.as_slice(), j.file_per_clone),
            (&["__testfile'0'".to_string(), "__testfile'1'".into()][..], true)
        );
        let j = translate("j", 1, &opts("numjobs=3\nfilename_format=shared.$filenum")).unwrap();
        assert_eq!((j.targets.as_slice(), j.file_per_clone, j.spec.jobs), (&["shared.0".to_string()][..], false, 3));
        let j = translate("j", 1, &opts("numjobs=2\nname=other")).unwrap();
        assert_eq!(j.targets, vec!["j.0.0", "j.1.0"]);
        let j = translate("j", 1, &opts("ioengine=null\nsize=1g")).unwrap();
        assert!(j.null && j.targets.is_empty());
    }

    #[test]
    fn rates_syncs_data_and_verify() {
        use drivelab_engine::spec::{RateScope, RateUnit};
        let j = translate("j", 1, &opts("rate_iops=50\nrate_process=poisson\nsize=1m")).unwrap();
        let r = j.spec.rate.unwrap();
        assert_eq!((r.per_s, r.unit, r.scope, r.arrivals), (50.0, RateUnit::Iops, RateScope::Job, Arrivals::Poisson));
        let j = translate("j", 1, &opts("rate=1250\nsize=1m")).unwrap();
        assert_eq!(
            j.spec.rate.map(|r| (r.per_s, r.unit, r.arrivals)),
            Some((1250.0, RateUnit::Bytes, Arrivals::Uniform))
        );
        let j = translate("j", 1, &opts("fsync=4\nbuffer_compress_percentage=50\nsize=1m")).unwrap();
        assert_eq!((j.spec.sync, j.spec.data), (SyncMode::Fsync { every: 4 }, DataPattern::Compress { pct: 50 }));
        let j = translate("j", 1, &opts("rw=randwrite\nverify=crc32c\nsize=1m\nnorandommap")).unwrap();
        assert!(j.spec.verify && j.spec.verify_after);
        assert!(!j.spec.random_map, "norandommap: independent draws");
        // fio's t0004: a 1 MiB verify_interval is checked every 4 KiB or less by drivelab's header.
        let j = translate("j", 1, &opts("rw=write\nverify=md5\nverify_interval=1M\nsize=1m")).unwrap();
        assert_eq!(j.spec.verify_unit_bytes, None);
        assert!(j.notices.contains(&Notice::VerifyIntervalFiner { interval: 1 << 20 }));
        let j = translate("j", 1, &opts("rw=write\nverify_pattern=0xaa\nverify_interval=1M\nsize=1m")).unwrap();
        assert_eq!(j.spec.verify_unit_bytes, Some(1 << 20), "a pattern restarts at each interval: kept");
        assert_eq!(j.spec.verify_pattern.as_deref(), Some("0xaa"));
        let j = translate("j", 1, &opts("rw=randread\nsize=1m")).unwrap();
        assert!(j.spec.random_map, "fio's random map by default");
        let j = translate("j", 1, &opts("rw=randread\nsize=1m\nnorandommap\nrandom_generator=lfsr")).unwrap();
        assert!(j.spec.random_map, "fio's LFSR visits every block once per pass");
    }

    #[test]
    fn what_drivelab_does_not_do_is_refused_by_name_and_line() {
        let e = translate("j", 1, &opts("size=1m\nlatency_percentile=101")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("latency_percentile=101") && e.message.contains("0 to 100"), "{}", e.message);
        let j =
            translate("j", 1, &opts("latency_target=500000\nlatency_window=5000000\nlatency_percentile=99.9")).unwrap();
        let l = j.spec.lat_target.unwrap();
        assert_eq!(l.target_ns, 500_000_000, "a bare number is µs, as in fio");
        assert_eq!((l.window_ns, l.percentile), (5_000_000_000, 99.9));
        let j = translate("j", 1, &opts("latency_target=0\nlatency_window=1s")).unwrap();
        assert_eq!(j.spec.lat_target, None, "fio searches only with a target above 0");
        let e = translate("j", 1, &opts("rw=read:x")).unwrap_err();
        assert!(e.message.contains("rw=read:x") && e.message.contains("'x'"), "{}", e.message);
        let e = translate("j", 1, &opts("size=1m\nexec_prerun=ls")).unwrap_err();
        assert!(e.message.contains("exec_prerun") && e.message.contains("not supported"));
        let j = translate("j", 1, &opts("size=1m\ngroup_reporting\ndescription=x")).unwrap();
        assert_eq!(j.no_effect, vec!["group_reporting", "description"]);
    }
}
