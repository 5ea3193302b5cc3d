//! The fields of an access spec as errors name them ([`Field`]): validation speaks of fields,
//! never of flags, and each front end names a field the way its reader spelt it (a plan's
//! `qd`, `run`'s `--qd`, a job file's `iodepth=`). [`Field::As`] is an option of the table
//! under the name the reader used, standing for the field its row sets.

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
    RandomMap,
    BsMax,
    Rate,
    RateScope,
    Arrivals,
    MaxLag,
    Pace,
    Hipri,
    Sqpoll,
    SqpollCpu,
    Atomic,
    StatType,
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
    /// fio's `verify_backlog`: written blocks are read back and checked every N writes.
    VerifyBacklog,
    /// fio's `iodepth_batch_complete_min`: the fewest completions waited for after a submit.
    CompleteMin,
    /// A verifying job that reads checks the data it finds by each unit's own header (fio's).
    VerifyFound,
    /// fio's `fadvise_hint`: the access pattern told to the kernel for a file's page cache.
    Fadvise,
    /// fio's `invalidate`: a buffered job's region dropped from the page cache before it runs.
    Invalidate,
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
    /// fio's SPRandom (`sprandom`, `spr_op`, `spr_num_regions`, `spr_cs`).
    Sprandom,
    SprOp,
    SprNumRegions,
    SprCs,
    /// io_uring_cmd's commands (fio's `write_mode`, `deac`, `readfua`, `writefua`,
    /// `num_range`).
    WriteMode,
    Deac,
    Readfua,
    Writefua,
    NumRange,
    /// Latency thresholds (set by lab, e.g. for ACT; not a key of plans or flags).
    Thresholds,
    /// The size of a file drivelab creates (a run option, not a spec field).
    Size,
    /// An option of the table as the reader spelt it (fio's `iodepth` for `qd`, `rwmixread`):
    /// errors name it so, and it stands for the field its row sets ([`Field::canonical`]).
    As(&'static str),
}

impl Field {
    /// Every field `apply` accepts, in the order `KEYS` lists them.
    pub const SETTABLE: [Field; 81] = [
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
        Field::RandomMap,
        Field::BsMax,
        Field::Rate,
        Field::RateScope,
        Field::Arrivals,
        Field::MaxLag,
        Field::Pace,
        Field::Hipri,
        Field::Sqpoll,
        Field::SqpollCpu,
        Field::Atomic,
        Field::StatType,
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
        Field::VerifyBacklog,
        Field::CompleteMin,
        Field::VerifyFound,
        Field::Fadvise,
        Field::Invalidate,
        Field::WriteBs,
        Field::Prio,
        Field::Cmdprio,
        Field::FillDevice,
        Field::LatencyTarget,
        Field::LatencyWindow,
        Field::LatencyPercentile,
        Field::LatencyRun,
        Field::LatencySplit,
        Field::Sprandom,
        Field::SprOp,
        Field::SprNumRegions,
        Field::SprCs,
        Field::WriteMode,
        Field::Deac,
        Field::Readfua,
        Field::Writefua,
        Field::NumRange,
    ];
    /// Every settable field and `Size` (the fields a `{key}` in a message can name).
    const ALL: [Field; Field::SETTABLE.len() + 1] = {
        let mut all = [Field::Size; Field::SETTABLE.len() + 1];
        let mut i = 0;
        while i < Field::SETTABLE.len() {
            all[i] = Field::SETTABLE[i];
            i += 1;
        }
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
            Field::RandomMap => "random_map",
            Field::BsMax => "bs_max",
            Field::Rate => "rate",
            Field::RateScope => "rate_scope",
            Field::Arrivals => "arrivals",
            Field::MaxLag => "max_lag",
            Field::Pace => "pace",
            Field::Hipri => "hipri",
            Field::Sqpoll => "sqpoll",
            Field::SqpollCpu => "sqpoll_cpu",
            Field::Atomic => "atomic",
            Field::StatType => "stat_type",
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
            Field::VerifyBacklog => "verify_backlog",
            Field::CompleteMin => "complete_min",
            Field::VerifyFound => "verify_found",
            Field::Fadvise => "fadvise",
            Field::Invalidate => "invalidate",
            Field::WriteBs => "write_bs",
            Field::Prio => "prio",
            Field::Cmdprio => "cmdprio",
            Field::FillDevice => "fill_device",
            Field::LatencyTarget => "latency_target",
            Field::LatencyWindow => "latency_window",
            Field::LatencyPercentile => "latency_percentile",
            Field::LatencyRun => "latency_run",
            Field::Sprandom => "sprandom",
            Field::SprOp => "spr_op",
            Field::SprNumRegions => "spr_num_regions",
            Field::SprCs => "spr_cs",
            Field::WriteMode => "write_mode",
            Field::Deac => "deac",
            Field::Readfua => "readfua",
            Field::Writefua => "writefua",
            Field::NumRange => "num_range",
            Field::Thresholds => "thresholds",
            Field::Size => "size",
            Field::As(name) => name,
        }
    }

    /// The flag of `drivelab run`: `--qd`, `--io-size`.
    pub fn flag(self) -> String {
        match self {
            // fio's own flags keep its underscores (`--random_distribution`).
            Field::As(name) => format!("--{name}"),
            _ => format!("--{}", self.name().replace('_', "-")),
        }
    }

    /// The settable field with this key (drivelab's own spelling).
    pub fn from_name(key: &str) -> Option<Field> {
        Field::SETTABLE.into_iter().find(|f| f.name() == key)
    }

    /// The field with this key, drivelab's or fio's spelling ([`is_key`]): drivelab's own
    /// field, or [`Field::As`] the table's name for a fio spelling.
    pub fn from_key(key: &str) -> Option<Field> {
        let opt = super::by_key(key)?;
        match opt.own {
            Some(own) if own == key => Field::from_name(key).or(Some(Field::As(own))),
            _ => opt.fio.iter().find(|n| **n == key).map(|n| Field::As(n)),
        }
    }

    /// The drivelab field this one sets: itself, or for a spelling of the table the field its
    /// row sets.
    pub fn canonical(self) -> Field {
        match self {
            Field::As(name) => super::by_key(name).and_then(|o| o.field()).map_or(self, |f| f.canonical()),
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
        let fio = super::OPTIONS.iter().filter(|o| o.in_own()).flat_map(|o| o.fio.iter().map(|n| Field::As(n)));
        for f in Field::ALL.into_iter().chain(fio) {
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

/// Is `key` a field key: drivelab's ([`KEYS`]) or fio's spelling of one (in the table)?
pub fn is_key(key: &str) -> bool {
    Field::from_key(key).is_some()
}
