//! fio's log files (`write_lat_log`, `write_bw_log`, `write_iops_log`, `write_hist_log`): what a
//! job records for them, only when its spec asks ([`IoLogSpec`] in `AccessSpec::io_log`, off by
//! default: a job without it pays one `Option` test per completion).
//!
//! Three kinds of records, each bounded ([`MAX_IO_ENTRIES`], [`MAX_WINDOWS`]):
//! - per I/O ([`IoEntry`], fio's logs without `log_avg_msec`): 40 bytes each, in preallocated
//!   chunks of [`CHUNK`] entries (one allocation per 65536 I/Os, none per I/O);
//! - per window of `log_avg_msec` and direction ([`WinStat`]): sums and maxima of lat, clat and
//!   slat, ops and bytes;
//! - per window of `log_hist_msec` and direction ([`HistWin`]): the window's clat histogram in
//!   fio's bucket layout ([`fio_bucket`], fio's `FIO_IO_U_PLAT`: 64 sub-buckets per power of two,
//!   [`FIO_BUCKETS`] buckets), saved sparse.
//!
//! Nothing is formatted here: the lab writes the files at the end of each point, in fio's names
//! and line format. Times are ns since the job's measurement started (fio's epoch, reset after
//! `ramp_time` as fio does).

mod record;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub(crate) use record::Recorder;

/// fio's latency histogram layout (stat.h): 64 sub-buckets per power of two ...
pub const FIO_BUCKET_BITS: u32 = 6;
/// ... 29 groups of them: 1856 buckets.
pub const FIO_BUCKETS: usize = 29 << FIO_BUCKET_BITS;
/// Per-I/O entries are stored in chunks of this many.
pub const CHUNK: usize = 1 << 16;
/// At most this many per-I/O entries for all the jobs of one spec on one target together (40
/// bytes each: 640 MiB); past it a job records no more and says how many it left out.
pub const MAX_IO_ENTRIES: u64 = 1 << 24;
/// At most this many windows (averaged or histogram) per job.
pub const MAX_WINDOWS: usize = 1 << 21;

/// What fio's logging options ask of a job. The engine reads `avg_ms`, `hist_ms` and whether
/// per-I/O or windowed figures are wanted; the rest says how the lab names and formats them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoLogSpec {
    /// `write_lat_log`: the prefix of the `_lat`, `_clat` and `_slat` logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<String>,
    /// `write_bw_log`: the prefix of the `_bw` log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bw: Option<String>,
    /// `write_iops_log`: the prefix of the `_iops` log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops: Option<String>,
    /// `write_hist_log`: the prefix of the `_clat_hist` log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hist: Option<String>,
    /// `write_iolog`: the file of the I/Os issued, in fio's iolog (version 3), which
    /// `read_iolog` (and drivelab's `replay`) plays back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iolog: Option<String>,
    /// `log_avg_msec`: 0 logs every I/O; otherwise one line per window and direction.
    #[serde(default)]
    pub avg_ms: u64,
    /// `log_hist_msec`: the histogram log's window (0: the log stays empty, as fio's).
    #[serde(default)]
    pub hist_ms: u64,
    /// `log_hist_coarseness`: 2^N of fio's buckets summed into one column.
    #[serde(default)]
    pub hist_coarseness: u32,
    /// `log_max_value`: with `avg_ms`, the window's largest value instead of its mean.
    #[serde(default)]
    pub max: bool,
    /// `log_offset`: an offset column.
    #[serde(default)]
    pub offset: bool,
    /// `log_prio`: the priority column in hex (fio's `0x%04x`), else fio's RT-class flag.
    #[serde(default)]
    pub prio: bool,
    /// `per_job_logs` (fio's default true): `.N` in every name, N the job's number.
    #[serde(default)]
    pub per_job: bool,
    /// fio's number of the job's first clone (fio numbers every job of a file from 1, clones
    /// included).
    #[serde(default)]
    pub first_job: u32,
    /// The clones are the targets (fio's default `NAME.N.0` files, one per clone), not the jobs
    /// sharing each target.
    #[serde(default)]
    pub clone_per_target: bool,
    /// With `iolog`: the job's files as the job named them (fio writes `d.dat`, `./j.0.0`,
    /// never a path of drivelab's making), in the order of its targets. Empty: their paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

impl IoLogSpec {
    /// Per-I/O or windowed lat/clat/slat/bw/iops figures are wanted.
    pub fn wants_ios(&self) -> bool {
        self.lat.is_some() || self.bw.is_some() || self.iops.is_some()
    }
    /// Per-I/O entries are recorded (no `log_avg_msec`, or an iolog of the I/Os).
    pub fn per_io(&self) -> bool {
        (self.wants_ios() && self.avg_ms == 0) || self.iolog.is_some()
    }
    /// Histogram windows are recorded.
    pub fn hists(&self) -> bool {
        self.hist.is_some() && self.hist_ms > 0
    }
}

/// One measured I/O (per-I/O logs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoEntry {
    /// Its completion, ns since measurement started.
    pub t_ns: u64,
    /// fio's lat: from just before the submit call.
    pub lat_ns: u64,
    pub offset: u64,
    /// The submit call (0 for a synchronous backend); clat = lat - slat.
    pub slat_ns: u32,
    pub len: u32,
    /// fio's ddir: 0 read, 1 write, 2 trim.
    pub dir: u8,
    /// Its I/O priority (ioprio: `class << 13 | level`), fio's log_prio column.
    pub prio: u16,
    /// Which of the job's files it went to (a file set's, in order; 0 for a job of one).
    pub file: u16,
}

impl IoEntry {
    pub fn clat_ns(&self) -> u64 {
        self.lat_ns - self.slat_ns as u64
    }
}

/// One direction's figures over one `log_avg_msec` window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WinStat {
    /// The window's end (the job's end for the last, partial one), ns since measurement started.
    pub end_ns: u64,
    /// The window's length in ns (shorter for the last).
    pub len_ns: u64,
    pub dir: u8,
    pub ios: u64,
    pub bytes: u64,
    pub lat_sum: u64,
    pub lat_max: u64,
    pub clat_sum: u64,
    pub clat_max: u64,
    pub slat_sum: u64,
    pub slat_max: u64,
}

/// One direction's clat histogram over one `log_hist_msec` window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HistWin {
    /// When the I/O that closed it completed, ns since measurement started (as fio).
    pub t_ns: u64,
    pub dir: u8,
    /// That I/O's size.
    pub bs: u32,
    /// (fio bucket, count), ascending.
    pub buckets: Vec<(u16, u32)>,
}

/// What one job recorded for the logs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobLog {
    /// The job's target (index in the run's targets) and its number among that target's jobs.
    pub target: usize,
    pub job: u64,
    /// The backend submits asynchronously: slat is measured (fio logs no slat for sync engines).
    pub slat: bool,
    pub ios: Vec<Vec<IoEntry>>,
    pub windows: Vec<WinStat>,
    pub hists: Vec<HistWin>,
    /// I/Os or windows not recorded past the bounds.
    pub dropped: u64,
    /// Measured time, ns.
    pub end_ns: u64,
}

impl JobLog {
    /// Every per-I/O entry, in completion order.
    pub fn entries(&self) -> impl Iterator<Item = &IoEntry> {
        self.ios.iter().flatten()
    }
}

/// A run's logs, each with the stream (a fio group's job, in order) it ran in; shared: cloning a
/// result does not copy them.
pub type Logs = Vec<(usize, Arc<JobLog>)>;

/// fio's bucket of a value (`plat_val_to_idx` in fio's stat.c, the same layout): values below
/// 128 have their own bucket; above, each power of two has 64 equal sub-buckets; the last
/// bucket takes everything beyond.
#[inline]
pub fn fio_bucket(v: u64) -> usize {
    let msb = 63 - (v | 1).leading_zeros();
    if msb <= FIO_BUCKET_BITS {
        return v as usize;
    }
    let shift = msb - FIO_BUCKET_BITS;
    let base = ((shift + 1) as usize) << FIO_BUCKET_BITS;
    let within = ((v >> shift) as usize) & ((1 << FIO_BUCKET_BITS) - 1);
    (base + within).min(FIO_BUCKETS - 1)
}

/// The smallest value of fio bucket `i` (for tests and readers).
pub fn fio_bucket_low(i: usize) -> u64 {
    if i < 2 << FIO_BUCKET_BITS {
        return i as u64;
    }
    let shift = (i >> FIO_BUCKET_BITS) as u32 - 1;
    let within = (i & ((1 << FIO_BUCKET_BITS) - 1)) as u64;
    ((1u64 << FIO_BUCKET_BITS) + within) << shift
}

#[cfg(test)]
mod tests;
