//! The access specification: what one workload does, in the terms of both fio and Iometer.
//!
//! An `AccessSpec` is plain data (serde), checked once by [`AccessSpec::validate`] before anything
//! touches a target; checks that need the target (alignment against its logical block size, span
//! against its size) live in [`AccessSpec::check_against`]. Units are in the field names.
//!
//! Why this file stays near 700 lines: it is the one struct of a workload, each field with the
//! documentation of what it means, its default, and `validate` — the checks of how the fields go
//! together, which read best in one place. What has a job of its own is beside it: the rate
//! (`rate.rs`), distributions (`distribution.rs`), trims and replays (`source.rs`).
//!
//! `AccessSpec` is one struct whose fields, defaults and cross-field checks are read together; the parts that stand alone (stride, buffer patterns, flows, ...) are submodules.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Field};
use crate::units::fmt_size;

pub mod buffer_pattern;
pub mod dedupe;
mod distribution;
pub mod files;
pub mod flow;
pub mod ignore_error;
pub mod lat_target;
pub mod prio;
mod rate;
mod source;
pub mod sprandom;
mod stride;
mod stripe;
pub mod verify_pattern;
pub mod zbd;

/// A duration as a refusal shows it.
fn fmt_ns(ns: u64) -> String {
    format!("{}us", ns / 1000)
}
pub use distribution::{BandEdge, Distribution, DistributionError, Zone, ZoneSize};
pub use rate::{Arrivals, PaceMode, Rate, RateScope, RateUnit, HYBRID_SPIN_NS};
pub use source::{Replay, Trim};
pub use stride::StridedZones;

/// One entry of a block size split: `4k:70` is 4096 bytes for 70% of the I/Os.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct BlockSize {
    pub bytes: u64,
    pub pct: u8,
}

/// How writes reach stable storage.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase", tag = "mode")]
pub enum SyncMode {
    /// Plain writes; whatever the device's cache does.
    #[default]
    None,
    /// The target is opened with O_DSYNC: every write is durable when it completes.
    Dsync,
    /// An fsync after every `every` writes (issued once the writes before it have completed).
    Fsync { every: u32 },
    /// An fdatasync after every `every` writes (fio's `fdatasync=N`: the data and what reading
    /// it back needs, not every metadata change; etcd's write-ahead-log recipe measures these).
    Fdatasync { every: u32 },
}

impl SyncMode {
    /// Writes between two syncs (fsync or fdatasync); 0: none.
    pub fn every(self) -> u32 {
        match self {
            SyncMode::Fsync { every } | SyncMode::Fdatasync { every } => every,
            SyncMode::None | SyncMode::Dsync => 0,
        }
    }
}

/// As `sync`'s value (`none`, `dsync`, `fsync:N`, `fdatasync:N`): what
/// [`parse_sync`](crate::options::parse_sync) reads back.
impl std::fmt::Display for SyncMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SyncMode::None => f.write_str("none"),
            SyncMode::Dsync => f.write_str("dsync"),
            SyncMode::Fsync { every } => write!(f, "fsync:{every}"),
            SyncMode::Fdatasync { every } => write!(f, "fdatasync:{every}"),
        }
    }
}

/// What the write buffers hold.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum DataPattern {
    /// Incompressible random bytes, stamped per 4 KiB so no two blocks are identical.
    #[default]
    Random,
    /// All zeros (what compressing or zero-detecting controllers love).
    Zero,
    /// `pct` percent of every 4 KiB is zeros, the rest random: compresses to about (100-pct)%.
    Compress { pct: u8 },
}

/// As `data`'s value (`random`, `zero`, `compress:PCT`): what
/// [`parse_data`](crate::options::parse_data) reads back.
impl std::fmt::Display for DataPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataPattern::Random => f.write_str("random"),
            DataPattern::Zero => f.write_str("zero"),
            DataPattern::Compress { pct } => write!(f, "compress:{pct}"),
        }
    }
}

/// Where job threads run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum CpuPlacement {
    /// Job i is pinned to the i-th CPU this process may use (round robin): jobs never migrate,
    /// and several jobs are spread evenly, which JBOD and multi-job runs want.
    Spread,
    /// Leave placement to the scheduler (the default, as in fio).
    #[default]
    None,
    /// Job i is pinned to `list[i % len]`.
    List(Vec<u32>),
}

/// As `cpus`'s value (`spread`, `none`, `0,2`): what [`parse_cpus`](crate::options::parse_cpus)
/// reads back.
impl std::fmt::Display for CpuPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CpuPlacement::Spread => f.write_str("spread"),
            CpuPlacement::None => f.write_str("none"),
            CpuPlacement::List(cpus) => {
                let list: Vec<String> = cpus.iter().map(u32::to_string).collect();
                f.write_str(&list.join(","))
            }
        }
    }
}

/// The deepest queue a job may have: io_uring's largest ring (IORING_MAX_ENTRIES).
pub const MAX_QD: u32 = 32768;

/// The most blocks `verify_backlog` keeps to read back (16 bytes each, allocated once per job).
pub const MAX_VERIFY_BACKLOG: u64 = 1 << 20;

/// The engines and their own options are the backends' (`crate::backend`); a spec names one
/// and carries its options.
pub use crate::backend::{EngineKind, EngineOptions};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AccessSpec {
    /// Share of I/Os that are reads, 0..=100.
    pub read_pct: u8,
    /// Share of I/Os that go to a random offset; the others continue sequentially from the last.
    pub random_pct: u8,
    /// Where the random ones land: uniform, or skewed (zipf, pareto, normal, zoned; fio's
    /// `random_distribution`).
    #[serde(default, skip_serializing_if = "Distribution::is_uniform")]
    pub distribution: Distribution,
    /// Block sizes and their shares (shares add up to 100).
    pub bs: Vec<BlockSize>,
    /// Offsets are multiples of this (from the start of the region). None: the smallest block size.
    pub align_bytes: Option<u64>,
    /// Start of the region used.
    pub offset_bytes: u64,
    /// Length of the region used. None: from `offset_bytes` to the end of the target.
    pub span_bytes: Option<u64>,
    /// Outstanding I/Os per job.
    pub qd: u32,
    /// Jobs (threads) per target.
    pub jobs: u32,
    /// At most this many I/Os per submit call (fio's iodepth_batch_submit). io_uring plugs a
    /// call that submits 3 or more and dispatches them together at its end, which helps NVMe but
    /// delays the first I/Os of the batch (10% fewer IOPS on virtio and loop devices here); 2
    /// halves the submit calls of 1 while every I/O still reaches the device at once.
    #[serde(default = "default_submit_batch")]
    pub submit_batch: u32,
    /// fio's `iodepth_batch_complete_min`: the fewest completions a job waits for once it has
    /// submitted (never more than are in flight). 1: one, then every one there is (fio's
    /// default); 0: when the queue is not full, only those already there (fio's polling).
    #[serde(default = "one_u32", skip_serializing_if = "is_one_u32")]
    pub complete_min: u32,
    /// Measured duration; the run ends at whichever of time and io_size comes first.
    pub time_ns: Option<u64>,
    /// Bytes to transfer per job (measured part). Not a bound with `sprandom`: its pass is the
    /// job's bytes (fio sets io_size so).
    pub io_size_bytes: Option<u64>,
    /// Run this long before measuring; I/Os in the ramp are not counted.
    pub ramp_ns: u64,
    /// O_DIRECT (true) or through the page cache.
    pub direct: bool,
    pub sync: SyncMode,
    pub data: DataPattern,
    pub seed: u64,
    pub engine: EngineKind,
    /// The engine's own options (io_uring's `hipri`, `sqpoll`, `sqpoll_cpu`), defined by each
    /// engine in `crate::backend` and checked against `engine` by `validate`; saved flat, beside
    /// `engine` (`"hipri": true`), as before they were the engine's.
    #[serde(flatten)]
    pub engine_opts: EngineOptions,
    /// Keep going after an I/O error (errors are counted either way).
    pub continue_on_error: bool,
    #[serde(default)]
    pub cpus: CpuPlacement,
    /// Fixed-rate (open-loop) load; None: closed loop, `qd` I/Os always in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Response-time thresholds, ascending, at most [`MAX_THRESHOLDS`]: each second of the series
    /// counts the I/Os whose response time was at or over each (`over_threshold_counts`).
    /// Response time is from the intended issue time in open loop, the service time otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds_ns: Vec<u64>,
    /// Cut every I/O's lat into the stages it spent in drivelab, the kernel, the device and the
    /// completion path, from BPF stamps of the same I/O (`crate::split`; io_uring only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub latency_split: bool,
    /// Stamp every written unit with a header and check every read of a written unit as it
    /// completes (see `verify`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// With `verify`: re-read and check every written unit when the run ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_after: bool,
    /// A verifying job that reads checks what it finds: each unit the lab has no record of is
    /// checked by its own header (offset, size, payload CRC), and nothing is written first
    /// (fio's verify of a job that reads). Off: a region nothing is known of is written first,
    /// stamped, so every read is checked against what drivelab wrote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_found: bool,
    /// fio's `fadvise_hint`: what each file target's descriptor tells the kernel of the access
    /// pattern (`posix_fadvise` over the region when opened), which sets its readahead for
    /// buffered I/O. drivelab's default tells nothing; fio jobs' tells the job's pattern.
    #[serde(default, skip_serializing_if = "Fadvise::is_none")]
    pub fadvise: Fadvise,
    /// fio's `invalidate` (true by default, as fio): a buffered job's region is dropped from
    /// the page cache (`posix_fadvise` DONTNEED) as each target is opened, so what ran before
    /// (a new file's fill, an earlier point) leaves nothing cached to read. No effect with
    /// O_DIRECT. False in results saved before it existed (they were not invalidated).
    #[serde(default)]
    pub invalidate: bool,
    /// fio's random map: each uniform random I/O goes to a block not yet visited in this pass
    /// over the region, so a pass touches every block once (fio's default; its `norandommap`,
    /// and drivelab's own default, Iometer's: each offset drawn independently).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub random_map: bool,
    /// With `verify`: bytes per stamped unit (512..4096, a power of two dividing every block
    /// size, the alignment and the offset). None: the largest such, at most 4096.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_unit_bytes: Option<u64>,
    /// Think time (fio's thinktime): an application's pauses between bursts of I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    /// Trims (discards) instead of reads and writes: fio's trim, randtrim, trimwrite.
    #[serde(default, skip_serializing_if = "Trim::is_none")]
    pub trim: Trim,
    /// Replay a captured workload (fio iolog, blkparse output) instead of generating I/Os.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
    /// A repeated point's round (steady state, `--repeat`), from 0: mixed into the seed of where
    /// random I/Os land and of open-loop arrivals ([`AccessSpec::offset_seed`]), so every round
    /// draws new offsets instead of replaying the first round's; the data written (and verify's
    /// stamps) stay `seed`'s. 0 for a run of its own.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub round: u32,
    /// fio's log files (`write_lat_log`, ...): what each job records for them (off: nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_log: Option<Box<crate::iolog::IoLogSpec>>,
    /// Sequential I/Os skip this many bytes after each I/O (fio's `rw=write:64k`); negative
    /// walks backwards (`rw=read:-8k`), wrapping to the end of the region. 0: contiguous.
    #[serde(default, skip_serializing_if = "stride::is_zero_i64")]
    pub seq_skip_bytes: i64,
    /// Random I/Os draw a new offset only every this many I/Os (fio's `rw=randread:8`); the
    /// ones between continue sequentially, or with `random_repeat` repeat the offset. 0 or 1:
    /// every I/O.
    #[serde(default, skip_serializing_if = "stride::every_io")]
    pub random_every_ios: u32,
    /// With `random_every_ios`: repeat the last offset (fio's `rw_sequencer=identical`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub random_repeat: bool,
    /// fio's `zonemode=strided`: I/O in one zone of the region at a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<StridedZones>,
    /// fio's `buffer_pattern`: what every write holds, as hex, repeated from each I/O's start
    /// (`buffer_pattern.rs`). None: `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pattern_hex: Option<String>,
    /// fio's `verify_pattern` in fio's syntax (`verify_pattern.rs`): with `verify`, writes carry
    /// it and reads are checked against it, instead of drivelab's headers. None: headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_pattern: Option<String>,
    /// fio's `ignore_error`: the errnos each direction continues after (`ignore_error.rs`).
    /// None: an error stops the job unless `continue_on_error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_errors: Option<Box<ignore_error::IgnoreErrors>>,
    /// fio's token flow (`flow`, `flow_id`, `flow_sleep`: `flow.rs`). None: not in a flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<flow::Flow>,
    /// fio's job over several files (`files.rs`): how many targets each job runs over, and
    /// which file its next I/O goes to. The default: every target its own jobs.
    #[serde(default, skip_serializing_if = "files::FileSet::is_single")]
    pub files: files::FileSet,
    /// fio's `offset_increment`: job `j` of each target starts at `offset_bytes + j *` this
    /// (its region as long as `span_bytes`, or to the end of the target); with verify each job
    /// keeps to at most this many bytes, so every unit has one writer. 0: the jobs share the
    /// region.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub offset_increment_bytes: u64,
    /// fio's dedupe options (`dedupe.rs`): a share of writes repeats other writes' data. None:
    /// every block written is unique.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedupe: Option<dedupe::Dedupe>,
    /// fio's `zonemode=zbd` on a target that is not zoned: emulated zones (`zbd.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zbd: Option<zbd::Zbd>,
    /// fio's `startdelay`: the job starts this long after the others of its run; its time,
    /// ramp and rate schedule count from then, so its runtime excludes the delay.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub start_delay_ns: u64,
    /// fio's `number_ios`: the job ends once it has issued this many measured I/Os (or earlier
    /// by time or bytes). None: no such bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_ios: Option<u64>,
    /// fio's `verify_backlog`: with verify, every N blocks written are read back and checked
    /// before more are written (the reads count as reads, not against the job's bytes); what
    /// is left when the job's bytes are done is checked then. 0: checked as verify says.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub verify_backlog: u64,
    /// Writes' block sizes when they differ from reads' (fio's `bs=R,W`, `bssplit=R,W`); None:
    /// `bs` for every direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_write: Option<Vec<BlockSize>>,
    /// fio's `bsrange=MIN-MAX`: each I/O's size drawn from MIN (`bs`, one size) up to this, as
    /// fio 3.33 draws it (MIN plus a uniform share of MAX, rounded down to a multiple of MIN, at
    /// most MAX). None: the sizes of `bs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_max: Option<u64>,
    /// I/O priorities: the job's and per-I/O ones (fio's `prio`, `prioclass`, `cmdprio_*`;
    /// `prio.rs`). None: the thread's own, on every I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prio: Option<prio::IoPrio>,
    /// fio's `fill_device`: writes go on until the file system is full; a write failing with
    /// ENOSPC or EDQUOT (or short) ends the job cleanly, listed in the result's
    /// `continued_errors`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fill_device: bool,
    /// fio's latency target (`lat_target.rs`): the job searches for the highest queue depth, up
    /// to `qd`, that meets it. None: `qd` I/Os in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_target: Option<lat_target::LatTarget>,
    /// fio's `end_fsync`: the job fsyncs its target once its I/O is done (a writing job only),
    /// waited for and, as in fio, in no latency figure; a failure is the job's error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end_fsync: bool,
    /// fio's SPRandom (`sprandom.rs`): random writes that leave an SSD in its steady state
    /// after one pass over its physical capacity; the job ends when the pass is done.
    #[serde(default, skip_serializing_if = "sprandom::SpRandom::is_default")]
    pub sprandom: sprandom::SpRandom,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// fio's `thinktime`: after every `blocks` I/Os the job waits for every I/O in flight, then
/// stalls `ns` (its first `spin_ns` spinning, the rest asleep) before issuing more — so at most
/// `blocks` I/Os are in flight, whatever the queue depth, as fio runs it. Latency never includes
/// it; IOPS and MB/s do. `by_issue` is fio's `thinktime_blocks_type=issue`, kept for the record:
/// counting issued or completed I/Os comes to the same when no more than `blocks` are issued
/// between thinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Think {
    pub ns: u64,
    #[serde(default)]
    pub spin_ns: u64,
    pub blocks: u32,
    #[serde(default)]
    pub by_issue: bool,
}

impl Default for Think {
    fn default() -> Think {
        Think { ns: 0, spin_ns: 0, blocks: 1, by_issue: false }
    }
}

impl Default for AccessSpec {
    fn default() -> Self {
        AccessSpec {
            read_pct: 100,
            random_pct: 100,
            distribution: Distribution::Uniform,
            bs: vec![BlockSize { bytes: 4096, pct: 100 }],
            align_bytes: None,
            offset_bytes: 0,
            span_bytes: None,
            qd: 1,
            jobs: 1,
            submit_batch: 2,
            time_ns: Some(10_000_000_000),
            io_size_bytes: None,
            ramp_ns: 0,
            direct: true,
            sync: SyncMode::None,
            data: DataPattern::Random,
            seed: 0x5eed,
            engine: EngineKind::Uring,
            engine_opts: EngineOptions::default(),
            continue_on_error: false,
            cpus: CpuPlacement::None,
            rate: None,
            thresholds_ns: Vec::new(),
            latency_split: false,
            verify: false,
            verify_after: false,
            verify_found: false,
            fadvise: Fadvise::None,
            invalidate: true,
            random_map: false,
            verify_unit_bytes: None,
            think: None,
            trim: Trim::None,
            replay: None,
            round: 0,
            io_log: None,
            seq_skip_bytes: 0,
            random_every_ios: 0,
            random_repeat: false,
            zones: None,
            buffer_pattern_hex: None,
            verify_pattern: None,
            ignore_errors: None,
            flow: None,
            files: files::FileSet::default(),
            offset_increment_bytes: 0,
            dedupe: None,
            zbd: None,
            start_delay_ns: 0,
            number_ios: None,
            verify_backlog: 0,
            complete_min: 1,
            bs_write: None,
            bs_max: None,
            prio: None,
            fill_device: false,
            lat_target: None,
            end_fsync: false,
            sprandom: sprandom::SpRandom::default(),
        }
    }
}

/// fio's `fadvise_hint` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fadvise {
    /// No advice (fio's 0).
    #[default]
    None,
    /// Random for a job with random I/O, else sequential (fio's 1, its default).
    Pattern,
    Random,
    Sequential,
}

impl Fadvise {
    pub fn parse(text: &str) -> Option<Fadvise> {
        match text.trim() {
            "0" | "none" => Some(Fadvise::None),
            "1" | "pattern" => Some(Fadvise::Pattern),
            "random" => Some(Fadvise::Random),
            "sequential" => Some(Fadvise::Sequential),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Fadvise::None => "none",
            Fadvise::Pattern => "pattern",
            Fadvise::Random => "random",
            Fadvise::Sequential => "sequential",
        }
    }

    fn is_none(&self) -> bool {
        *self == Fadvise::None
    }

    /// The `posix_fadvise` advice for `spec`, if any.
    pub fn advice(self, spec: &AccessSpec) -> Option<i32> {
        match self {
            Fadvise::None => None,
            Fadvise::Pattern if spec.random_pct > 0 => Some(libc::POSIX_FADV_RANDOM),
            Fadvise::Pattern | Fadvise::Sequential => Some(libc::POSIX_FADV_SEQUENTIAL),
            Fadvise::Random => Some(libc::POSIX_FADV_RANDOM),
        }
    }
}

fn one_u32() -> u32 {
    1
}

fn is_one_u32(n: &u32) -> bool {
    *n == 1
}

/// What a saved spec without `submit_batch` gets: the same as [`AccessSpec::default`].
fn default_submit_batch() -> u32 {
    AccessSpec::default().submit_batch
}

/// Most response-time thresholds a spec may have (the worker keeps their counts in a fixed array).
pub const MAX_THRESHOLDS: usize = 16;

/// Most block sizes one split may have (the generator keeps them in a fixed array).
pub const MAX_BLOCK_SIZES: usize = 16;

impl AccessSpec {
    /// Set read/random shares from fio's `rw` words.
    pub fn set_rw(&mut self, rw: &str) -> Result<(), Error> {
        // fio's WORD:N (`stride.rs`).
        let (rw, suffix) = match rw.split_once(':') {
            Some((w, n)) => (w.trim(), Some(n)),
            None => (rw, None),
        };
        let (read, random, trim) = match rw {
            "read" => (100, 0, Trim::None),
            "write" => (0, 0, Trim::None),
            "randread" => (100, 100, Trim::None),
            "randwrite" => (0, 100, Trim::None),
            "randrw" => (50, 100, Trim::None),
            "rw" | "readwrite" => (50, 0, Trim::None),
            "trim" => (0, 0, Trim::Only),
            "randtrim" => (0, 100, Trim::Only),
            "trimwrite" => (0, 0, Trim::ThenWrite),
            "randtrimwrite" => (0, 100, Trim::ThenWrite),
            other => {
                let why = "not a workload: use read, write, randread, randwrite, randrw, rw (readwrite), trim, \
                           randtrim, trimwrite or randtrimwrite (each may end in fio's :N)";
                return Err(Error::spec(Field::Rw, format!("'{other}'"), why));
            }
        };
        self.read_pct = read;
        self.random_pct = random;
        self.trim = trim;
        self.seq_skip_bytes = 0;
        self.random_every_ios = 0;
        match suffix {
            Some(n) => self.set_rw_suffix(rw, n),
            None => Ok(()),
        }
    }

    /// Parse a block size or a split such as `4k:70,64k:30`.
    pub fn parse_bs(text: &str) -> Result<Vec<BlockSize>, Error> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() == 1 && !parts[0].contains(':') {
            let bytes = crate::units::parse_size(parts[0]).map_err(|e| Error::spec(Field::Bs, "", e))?;
            return Ok(vec![BlockSize { bytes, pct: 100 }]);
        }
        let mut out = Vec::new();
        if !text.contains(':') {
            return Err(Error::spec(
                Field::Bs,
                format!("'{text}'"),
                "fio's READ,WRITE block sizes have no equivalent here: give one size, or a split with shares \
                 such as 4k:70,64k:30",
            ));
        }
        for p in parts {
            let (size, pct) = p.split_once(':').ok_or_else(|| {
                Error::spec(Field::Bs, format!("'{text}'"), "in a split every entry needs a share, like 4k:70,64k:30")
            })?;
            let bytes = crate::units::parse_size(size).map_err(|e| Error::spec(Field::Bs, "", e))?;
            let pct = crate::units::parse_pct(pct, "share").map_err(|e| Error::spec(Field::Bs, "", e))?;
            out.push(BlockSize { bytes, pct });
        }
        Ok(out)
    }

    /// Block sizes as [`AccessSpec::parse_bs`] reads them back: one size (`4k`) when it is the
    /// only one and takes every I/O, else the split with every share (`4k:70,64k:30`). Sizes are
    /// exact (`fmt_size` writes a unit only where it divides the size).
    pub fn bs_to_text(bs: &[BlockSize]) -> String {
        if let [BlockSize { bytes, pct: 100 }] = bs {
            return fmt_size(*bytes);
        }
        bs.iter().map(|b| format!("{}:{}", fmt_size(b.bytes), b.pct)).collect::<Vec<_>>().join(",")
    }

    /// The seed of where random I/Os land and of open-loop arrivals: `seed` in round 0, mixed
    /// with the round after it (splitmix64's finalizer, so consecutive rounds are unrelated).
    pub fn offset_seed(&self) -> u64 {
        if self.round == 0 {
            return self.seed;
        }
        let mut z = self.seed ^ (self.round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The alignment offsets use.
    pub fn align(&self) -> u64 {
        self.align_bytes.unwrap_or_else(|| self.min_bs())
    }

    /// The grid sequential offsets stay on: the alignment, or with fio's `rw=WORD:N` skip and no
    /// alignment given, the finest grid both the block and the skip keep (fio does not round a
    /// sequential offset: 1 MiB blocks skipping 512 KiB start every 1.5 MiB, fio's t0007).
    pub fn seq_grid(&self) -> u64 {
        let a = self.align();
        match (self.align_bytes, self.seq_skip_bytes.unsigned_abs()) {
            (None, skip) if skip > 0 => gcd(a, skip),
            _ => a,
        }
    }
    pub fn min_bs(&self) -> u64 {
        self.all_bs().map(|b| b.bytes).min().unwrap_or(4096)
    }
    pub fn max_bs(&self) -> u64 {
        self.all_bs().map(|b| b.bytes).max().unwrap_or(4096).max(self.bs_max.unwrap_or(0))
    }
    /// Every block size of the spec: reads' (`bs`) and writes' (`bs_write`).
    pub fn all_bs(&self) -> impl Iterator<Item = &BlockSize> {
        self.bs.iter().chain(self.bs_write.iter().flatten())
    }
    /// The (first) block size of writes: `bs_write`'s, else `bs`'s.
    pub fn write_bs(&self) -> u64 {
        self.bs_write.as_deref().unwrap_or(&self.bs).first().map_or(4096, |b| b.bytes)
    }
    pub fn has_writes(&self) -> bool {
        self.read_pct < 100
    }
    pub fn has_reads(&self) -> bool {
        self.read_pct > 0
    }

    /// With `verify`: the unit every write is stamped in and every read checked in (see
    /// `verify_unit_bytes`); None when the spec does not verify.
    pub fn verify_unit(&self) -> Option<u64> {
        if !self.verify {
            return None;
        }
        if let Some(u) = self.verify_unit_bytes {
            return Some(u);
        }
        // A pattern repeats from each I/O's start in fio: one unit per block, when blocks have one size.
        if let (Some(_), [b]) = (&self.verify_pattern, self.bs.as_slice()) {
            if self.offset_bytes % b.bytes == 0 && self.align() % b.bytes == 0 {
                return Some(b.bytes);
            }
        }
        let mut every = self.bs.iter().map(|b| b.bytes).fold(self.align(), |a, b| a | b) | self.offset_bytes;
        every |= 4096;
        Some(1 << every.trailing_zeros())
    }

    /// With `verify`: the share of each payload that is zeros (`data`'s compressible share).
    pub fn verify_zero_pct(&self) -> u8 {
        match self.data {
            DataPattern::Compress { pct } => pct,
            _ => 0,
        }
    }

    /// Mean bytes per I/O over the block size split.
    pub fn mean_bs(&self) -> f64 {
        let mean = |bs: &[BlockSize]| bs.iter().map(|b| b.bytes as f64 * b.pct as f64 / 100.0).sum::<f64>();
        match &self.bs_write {
            None => mean(&self.bs),
            Some(w) => {
                let r = self.read_pct as f64 / 100.0;
                r * mean(&self.bs) + (1.0 - r) * mean(w)
            }
        }
    }

    /// I/Os per second each of `jobs_total` jobs must issue under `rate`, or None (closed loop).
    /// How many CPUs `jobs` jobs of this spec would keep spinning with hybrid pacing: each
    /// spins up to [`HYBRID_SPIN_NS`] before each of its wake-ups (one per I/O, or one per
    /// slot interval when aligned per-slot schedules issue together), at most one CPU a job.
    pub fn hybrid_spin_cpus(&self, jobs: u64, jobs_sharing_rate: u64) -> f64 {
        let Some(iops) = self.job_iops(jobs_sharing_rate) else { return 0.0 };
        let r = self.rate.unwrap_or_default();
        let wakeups = if r.per_slot && r.aligned { iops / self.qd.max(1) as f64 } else { iops };
        (wakeups * HYBRID_SPIN_NS as f64 / 1e9).min(1.0) * jobs as f64
    }

    pub fn job_iops(&self, jobs_total: u64) -> Option<f64> {
        let r = self.rate?;
        let iops = match r.unit {
            RateUnit::Iops => r.per_s,
            RateUnit::Bytes => r.per_s / self.mean_bs(),
        };
        Some(match r.scope {
            RateScope::Job => iops,
            RateScope::Total => iops / jobs_total.max(1) as f64,
        })
    }

    /// A short name people know: `randread 4k`, `read 70% random 5% 64k`, `4k:70,64k:30`.
    pub fn label(&self) -> String {
        if let Some(r) = &self.replay {
            let name = std::path::Path::new(&r.path).file_name().map(|n| n.to_string_lossy().into_owned());
            let timing = if r.fast { "as fast as possible" } else { "original timing" };
            return format!("replay {} ({timing}) qd{}", name.unwrap_or_default(), self.qd);
        }
        let trim_word = self.trim.word(self.random_pct > 0);
        let rw = match (self.read_pct, self.random_pct) {
            _ if self.trim_ranges() > 1 => format!("{} ({} ranges)", trim_word.unwrap_or_default(), self.trim_ranges()),
            _ if trim_word.is_some() => trim_word.unwrap_or_default().to_string(),
            (100, 0) => "read".to_string(),
            (0, 0) => "write".to_string(),
            (100, 100) => "randread".to_string(),
            (0, 100) => "randwrite".to_string(),
            (r, 100) => format!("randrw {r}% read"),
            (r, 0) => format!("rw {r}% read"),
            (r, x) => format!("{r}% read {x}% random"),
        };
        let bs: Vec<String> = if self.bs.len() == 1 {
            vec![fmt_size(self.bs[0].bytes)]
        } else {
            self.bs.iter().map(|b| format!("{}:{}", fmt_size(b.bytes), b.pct)).collect()
        };
        let skew = if self.sprandom.on {
            let s = &self.sprandom;
            format!(" sprandom (op {}, {} regions)", s.over_provisioning, s.regions)
        } else if self.random_pct > 0 && !self.distribution.is_uniform() {
            format!(" {}", self.distribution)
        } else {
            String::new()
        };
        format!("{rw}{skew} {} qd{} x{}", bs.join(","), self.qd, self.jobs)
    }

    /// Checks that need no target. Every error names the field, the value and the fix.
    /// A job over several files (fio's): what keeps to one file per job is refused, named.
    fn check_file_set(&self) -> Result<(), Error> {
        let n = self.files.per_job;
        let one = |field: Field, value: String, what: &str| {
            Err(Error::spec(
                field,
                value,
                format!(
                    "{what} keeps to one file per job, and this job runs over {n}: give each file its own job \
                     (a section each, or numjobs with filename_format)"
                ),
            ))
        };
        if self.verify {
            return one(Field::Verify, "on".into(), "verify");
        }
        if self.zbd.is_some() {
            return one(Field::Zbd, "zbd".into(), "zonemode=zbd");
        }
        if self.replay.is_some() {
            return one(Field::Replay, "a replay".into(), "a replayed trace");
        }
        if self.engine == EngineKind::UringCmd {
            return one(Field::Engine, "io_uring_cmd".into(), "io_uring_cmd");
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), Error> {
        let bad = |field: Field, value: String, fix: &str| Err(Error::spec(field, value, fix));
        if self.number_ios == Some(0) {
            return bad(Field::NumberIos, "0".into(), "give at least 1 (leave it out for no bound)");
        }
        if self.read_pct > 100 {
            return bad(Field::Read, format!("{}%", self.read_pct), "outside 0..100: give a percentage from 0 to 100");
        }
        if self.random_pct > 100 {
            return bad(
                Field::Random,
                format!("{}%", self.random_pct),
                "outside 0..100: give a percentage from 0 to 100",
            );
        }
        self.check_trims_and_replay()?;
        if self.engine.is_meta() && (self.verify || self.verify_found) {
            let fix =
                format!("ioengine {} moves no data, so there is nothing to verify: drop verify", self.engine.name());
            return bad(Field::Verify, "on".into(), &fix);
        }
        if self.files.per_job > 1 {
            self.check_file_set()?;
        }
        if self.qd == 0 {
            return bad(Field::Qd, "0".into(), "the queue depth must be at least 1");
        }
        if self.qd > MAX_QD {
            // io_uring's ring holds at most 32768 entries (IORING_MAX_ENTRIES) and drivelab's ring
            // is the queue depth rounded up to a power of two: refuse now, not at ring setup.
            return bad(
                Field::Qd,
                self.qd.to_string(),
                "at most 32768 outstanding I/Os per job (io_uring's ring limit): use {jobs} for more",
            );
        }
        if self.jobs == 0 {
            return bad(Field::Jobs, "0".into(), "at least one job per target is needed");
        }
        if self.jobs > 4096 {
            return bad(Field::Jobs, self.jobs.to_string(), "at most 4096 jobs per target");
        }
        if let CpuPlacement::List(l) = &self.cpus {
            let allowed = crate::affinity::allowed_cpus();
            if l.is_empty() {
                return bad(Field::Cpus, String::new(), "give CPU numbers such as 0,1 (or spread, or none)");
            }
            if let Some(c) = l.iter().find(|c| !allowed.contains(c)) {
                let fix = format!("CPU {c} is not one this process may use (allowed: {allowed:?})");
                return bad(Field::Cpus, c.to_string(), &fix);
            }
        }
        if self.submit_batch == 0 {
            return bad(Field::Batch, "0".into(), "at least one I/O per submit call");
        }
        self.engine_opts.check(self.engine, self.direct)?;
        if self.latency_split && self.engine != EngineKind::Uring {
            return bad(
                Field::LatencySplit,
                "on".into(),
                "follows io_uring's tracepoints: use --engine uring, or drop --latency-split",
            );
        }
        if self.latency_split {
            if let Some(why) = crate::split::unavailable() {
                return bad(Field::LatencySplit, "on".into(), &why);
            }
        }
        if self.latency_split && self.engine_opts.uring.hipri {
            return bad(Field::LatencySplit, "on".into(), "cannot follow polled I/O (--hipri): drop one of them");
        }
        if self.bs.is_empty() {
            return bad(Field::Bs, String::new(), "is empty: give a block size such as 4k");
        }
        if self.bs.len() > MAX_BLOCK_SIZES {
            let fix = format!(
                "a split of {} sizes: at most {MAX_BLOCK_SIZES}; merge sizes or drop the rarest",
                self.bs.len()
            );
            return bad(Field::Bs, self.bs_text(), &fix);
        }
        for b in &self.bs {
            if b.bytes == 0 {
                return bad(Field::Bs, "0".into(), "a block size must be at least 1 byte (512 for O_DIRECT)");
            }
            if b.bytes > 1 << 30 {
                return bad(Field::Bs, fmt_size(b.bytes), "at most 1g per I/O");
            }
        }
        let total: u32 = self.bs.iter().map(|b| b.pct as u32).sum();
        if total != 100 {
            let fix = format!("the split's shares add up to {total}%, not 100%: adjust them so they sum to 100");
            return bad(Field::Bs, self.bs_text(), &fix);
        }
        if let Some(0) = self.align_bytes {
            return bad(Field::Align, "0".into(), "alignment must be at least 1 byte");
        }
        if self.time_ns.is_none() && self.io_size_bytes.is_none() && self.replay.is_none() && !self.sprandom.on {
            return bad(
                Field::Time,
                String::new(),
                "and {io_size} are both unset: the run has no end; give one of them",
            );
        }
        if self.time_ns == Some(0) {
            return bad(Field::Time, "0".into(), "give a duration such as 10s");
        }
        if self.io_size_bytes == Some(0) {
            return bad(Field::IoSize, "0".into(), "give a size such as 1g");
        }
        if let SyncMode::Fsync { every: 0 } | SyncMode::Fdatasync { every: 0 } = self.sync {
            return bad(Field::Sync, "fsync:0".into(), "fsync after every N writes needs N >= 1");
        }
        if let DataPattern::Compress { pct } = self.data {
            if pct > 100 {
                return bad(Field::Data, format!("compress:{pct}"), "the compressible share must be 0..100");
            }
        }
        if self.engine.is_sync() && self.qd > 1 {
            let e = self.engine.name();
            let fix = format!("{e} does one I/O at a time; use {{jobs}} {} {{qd}} 1, or {{engine}} uring", self.qd);
            return bad(Field::Qd, format!("{} with {{engine}} {e}", self.qd), &fix);
        }
        if self.thresholds_ns.len() > MAX_THRESHOLDS {
            let fix = format!("{} latency thresholds, at most {MAX_THRESHOLDS}", self.thresholds_ns.len());
            return bad(Field::Thresholds, String::new(), &fix);
        }
        if self.thresholds_ns.windows(2).any(|w| w[0] >= w[1]) {
            return bad(
                Field::Thresholds,
                format!("{:?}", self.thresholds_ns),
                "give them in ascending order, each once",
            );
        }
        self.validate_bs_write_and_prio()?;
        self.validate_verify()?;
        self.validate_walk()?;
        self.validate_dedupe()?;
        self.validate_buffer_pattern()?;
        self.validate_verify_pattern()?;
        self.validate_zbd()?;
        if self.sprandom.on {
            self.sprandom.check()?;
        }
        if let Some(f) = self.flow {
            if f.weight > flow::MAX_WEIGHT {
                return Err(Error::spec(
                    Field::Flow,
                    f.weight.to_string(),
                    "give a weight from 0 to 1000 (fio's limit)",
                ));
            }
            // A rate and a flow both hold a job back, as in fio: an I/O issues when it is due
            // and the flow admits it (a flow that holds it makes it late: its lag says so). A
            // replay's I/Os have their own times and order.
            if f.weight > 0 && self.replay.is_some() {
                return Err(Error::spec(
                    Field::Flow,
                    f.weight.to_string(),
                    "a flow holds jobs back by their I/O counts, which a replay sets too: drop one of them",
                ));
            }
            if f.weight > 0 && self.rate.as_ref().is_some_and(|r| r.per_slot) {
                return Err(Error::spec(
                    Field::Flow,
                    f.weight.to_string(),
                    "a flow and a schedule of one stream per slot do not go together: drop the flow",
                ));
            }
        }
        if let Some(l) = &self.lat_target {
            l.validate()?;
        }
        if let Some(t) = self.think {
            if t.ns == 0 {
                return bad(Field::Thinktime, "0".into(), "{thinktime_spin}, {thinktime_blocks} and {thinktime_blocks_type} shape {thinktime}: give {thinktime} too, e.g. 1ms");
            }
            if t.blocks == 0 {
                return bad(Field::ThinktimeBlocks, "0".into(), "think after every N I/Os needs N >= 1");
            }
            if t.spin_ns > t.ns {
                return bad(
                    Field::ThinktimeSpin,
                    fmt_ns(t.spin_ns),
                    "the spinning part of {thinktime} cannot be longer than it",
                );
            }
            if self.rate.is_some() {
                return bad(
                    Field::Thinktime,
                    fmt_ns(t.ns),
                    "a fixed {rate} already decides when each I/O is issued: give one of them",
                );
            }
        }
        if let Some(r) = self.rate {
            if !(r.per_s.is_finite() && r.per_s > 0.0) {
                return bad(Field::Rate, r.per_s.to_string(), "give a positive rate such as 5000 (IOPS) or 200MiB/s");
            }
            if r.per_s > 1e9 {
                return bad(Field::Rate, r.per_s.to_string(), "at most 10^9 per second");
            }
            if r.max_lag_ns == Some(0) {
                return bad(Field::MaxLag, "0".into(), "give a duration such as 10s");
            }
        }
        Ok(())
    }

    /// fio's SPRandom: random writes of one block size over the one region the model splits;
    /// what would move a write elsewhere is refused. Checked with the target (not by
    /// `validate`), so a plan's `sprandom` key alone, checked before its `rw` is known, stands.
    fn check_sprandom(&self) -> Result<(), Error> {
        let refuse = |fix: &str| Err(Error::spec(Field::Sprandom, "1".to_string(), fix));
        if !self.has_writes() || self.random_pct != 100 {
            return refuse("writes at random offsets: give {rw} randwrite (or randrw)");
        }
        let writes = self.bs_write.as_deref().unwrap_or(&self.bs);
        if writes.len() != 1 || self.bs_max.is_some() {
            return refuse("writes blocks of one size (the drive's indirection unit, e.g. 4k): give one {bs}");
        }
        if self.align_bytes.is_some_and(|a| a != writes[0].bytes) {
            return refuse("writes whole blocks: drop {align} or make it the block size");
        }
        let other = if !self.distribution.is_uniform() {
            Some("a {distribution}")
        } else if self.zones.is_some() || self.zbd.is_some() {
            Some("zones")
        } else if self.trim != Trim::None || self.replay.is_some() {
            Some("trims or a replay")
        } else if self.files.per_job > 1 || self.offset_increment_bytes > 0 {
            Some("several files or regions per job (fio's SPRandom takes one file)")
        } else if self.random_every_ios > 1 || self.seq_skip_bytes != 0 {
            Some("a stride")
        } else {
            None
        };
        match other {
            Some(what) => refuse(&format!("places every write itself over one region: drop {what}")),
            None => Ok(()),
        }
    }

    /// Writes' own block sizes (as `bs`'s checks) and the priorities.
    fn validate_bs_write_and_prio(&self) -> Result<(), Error> {
        if let Some(max) = self.bs_max {
            let min = self.bs.first().map_or(0, |b| b.bytes);
            if self.bs.len() != 1 || self.bs_write.is_some() {
                return Err(Error::spec(
                    Field::BsMax,
                    fmt_size(max),
                    "a range of sizes starts at one {bs}: give one size",
                ));
            }
            if max < min || max > 1 << 30 {
                return Err(Error::spec(
                    Field::BsMax,
                    fmt_size(max),
                    format!("the largest size of the range is {} to 1g", fmt_size(min)),
                ));
            }
        }
        if let Some(w) = &self.bs_write {
            let text = || w.iter().map(|b| format!("{}:{}", fmt_size(b.bytes), b.pct)).collect::<Vec<_>>().join(",");
            let total: u32 = w.iter().map(|b| b.pct as u32).sum();
            if w.is_empty() || w.len() > MAX_BLOCK_SIZES || total != 100 {
                let fix = format!("give 1 to {MAX_BLOCK_SIZES} sizes whose shares add up to 100% (not {total}%)");
                return Err(Error::spec(Field::WriteBs, text(), fix));
            }
            if let Some(b) = w.iter().find(|b| b.bytes == 0 || b.bytes > 1 << 30) {
                return Err(Error::spec(Field::WriteBs, fmt_size(b.bytes), "a block size is 1 byte to 1g"));
            }
            if self.verify || self.replay.is_some() {
                return Err(Error::spec(
                    Field::WriteBs,
                    text(),
                    "writes' own sizes are not supported with {verify} or a {replay}: give one {bs}",
                ));
            }
        }
        if let Some(p) = &self.prio {
            prio::check(p).map_err(|e| Error::spec(Field::Cmdprio, String::new(), e.to_string()))?;
            if p.per_io() && !self.engine.takes_io_prio() {
                let can: Vec<&str> = EngineKind::ALL.iter().filter(|e| e.takes_io_prio()).map(|e| e.name()).collect();
                return Err(Error::spec(
                    Field::Cmdprio,
                    String::new(),
                    format!(
                        "per-I/O priorities are set on each I/O by the engine: use {{engine}} {}, not {}",
                        can.join(" or "),
                        self.engine.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `verify`'s checks: data that can carry a header, a unit that divides every I/O.
    fn validate_verify(&self) -> Result<(), Error> {
        let bad = |field: Field, value: String, fix: String| Err(Error::spec(field, value, fix));
        if !self.verify {
            if self.verify_after {
                return bad(Field::VerifyAfter, "on".into(), "re-reads what {verify} stamped: add {verify}".into());
            }
            if let Some(u) = self.verify_unit_bytes {
                return bad(Field::VerifyUnit, fmt_size(u), "is the unit of {verify}: add {verify}, or drop it".into());
            }
            return Ok(());
        }
        if self.verify_backlog > MAX_VERIFY_BACKLOG {
            return bad(
                Field::VerifyBacklog,
                self.verify_backlog.to_string(),
                format!("at most {MAX_VERIFY_BACKLOG} blocks are kept to read back: give fewer"),
            );
        }
        if self.data == DataPattern::Zero || self.data == (DataPattern::Compress { pct: 100 }) {
            return bad(
                Field::Data,
                "zero".into(),
                "all-zero data has no room for verify's headers: use random, or compress:PCT below 100".into(),
            );
        }
        if let Some(u) = self.verify_unit_bytes {
            if !u.is_power_of_two() || !(512..=4096).contains(&u) {
                return bad(Field::VerifyUnit, fmt_size(u), "give a power of two from 512 to 4k".into());
            }
        }
        let unit = self.verify_unit().unwrap_or(4096);
        if unit < 512 {
            return bad(
                Field::Bs,
                self.bs_text(),
                format!(
                    "{{verify}} stamps units of at least 512 bytes, and these I/Os (with {{align}} {} and {{offset}} {})                      fall on {unit}-byte boundaries: use sizes and alignment that are multiples of 512",
                    self.align(),
                    self.offset_bytes
                ),
            );
        }
        for (field, v) in self
            .bs
            .iter()
            .map(|b| (Field::Bs, b.bytes))
            .chain([(Field::Align, self.align()), (Field::Offset, self.offset_bytes)])
        {
            if v % unit != 0 {
                return bad(
                    field,
                    v.to_string(),
                    format!("is not a multiple of the {{verify_unit}} {unit}: every I/O must cover whole units"),
                );
            }
        }
        Ok(())
    }

    /// The block sizes as written: `4k` or `4k:70,64k:30`.
    fn bs_text(&self) -> String {
        if self.bs.len() == 1 {
            return fmt_size(self.bs[0].bytes);
        }
        self.bs.iter().map(|b| format!("{}:{}", fmt_size(b.bytes), b.pct)).collect::<Vec<_>>().join(",")
    }

    /// Checks against a target of `size` bytes with O_DIRECT alignment `dio_align` bytes.
    pub fn check_against(&self, target: &str, size: u64, dio_align: u64) -> Result<(u64, u64), Error> {
        let bad = |field: Field, value: String, fix: String| Err(Error::spec(field, value, fix));
        if self.offset_bytes >= size {
            let fix = format!("beyond the end of {target} ({size} bytes): give an offset below its size");
            return bad(Field::Offset, self.offset_bytes.to_string(), fix);
        }
        let span = self.span_bytes.unwrap_or(size - self.offset_bytes);
        if self.offset_bytes.checked_add(span).is_none_or(|end| end > size) {
            let fix = format!(
                "with {{offset}} {} reaches past the end of {target} ({size} bytes): shrink {{span}} to at most {}",
                self.offset_bytes,
                size - self.offset_bytes
            );
            return bad(Field::Span, span.to_string(), fix);
        }
        if span < self.max_bs() {
            let fix = format!(
                "the region on {target} is smaller than one {}-byte block: enlarge {{span}} or the target",
                self.max_bs()
            );
            return bad(Field::Span, format!("{span} bytes"), fix);
        }
        self.check_walk_against(target, span)?;
        self.check_increment(target, size, span, dio_align)?;
        if self.sprandom.on {
            self.check_sprandom()?;
            self.sprandom.layout(target, span, self.write_bs())?;
        }
        if let Distribution::Zoned(zones) = &self.distribution {
            // Saturating: zones of 2^63 bytes each must not add up to a wrapped 0.
            let bytes: u64 = zones
                .iter()
                .map(|z| if let ZoneSize::Bytes(b) = z.size { b } else { 0 })
                .fold(0u64, u64::saturating_add);
            if bytes > span {
                let fix = format!(
                    "its zones cover {bytes} bytes and the region on {target} is {span}: shrink the zones or give a \
                     larger region"
                );
                return bad(Field::Distribution, self.distribution.to_string(), fix);
            }
        }
        if self.direct {
            let not_multiple = |field: Field, v: u64| {
                let fix = format!(
                    "not a multiple of {target}'s O_DIRECT alignment ({dio_align} bytes): use a multiple of {dio_align}, or use {{buffered}}"
                );
                bad(field, v.to_string(), fix)
            };
            for b in self.all_bs() {
                if b.bytes % dio_align != 0 {
                    return not_multiple(Field::Bs, b.bytes);
                }
            }
            if !self.align().is_multiple_of(dio_align) {
                return not_multiple(Field::Align, self.align());
            }
            if !self.offset_bytes.is_multiple_of(dio_align) {
                return not_multiple(Field::Offset, self.offset_bytes);
            }
            if !self.seq_grid().is_multiple_of(dio_align) {
                return not_multiple(Field::Rw, self.seq_skip_bytes.unsigned_abs());
            }
        }
        Ok((self.offset_bytes, span))
    }
}

#[cfg(test)]
mod tests;

/// The greatest common divisor (`a` when `b` is 0).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
