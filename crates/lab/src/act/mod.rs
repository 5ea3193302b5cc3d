//! Aerospike's ACT storage test (act_storage 6.x) as arithmetic: the load it derives, its
//! latency histograms, the slice report of its `act_latency.py`, the pass criteria, and its log
//! format. No I/O: `drivelab act` runs the load and feeds the numbers here.
//!
//! ACT is how Aerospike certifies SSDs, and buyers compare drives by its "N x" rating. Matching
//! it exactly matters more than improving on it, so this follows ACT's own code:
//!
//! - **Load.** At scale N each target gets 2000 x N small reads and 1000 x N writes per second.
//!   ACT's config holds totals over all devices (`read-reqs-per-sec: 2000 x N x devices`);
//!   drivelab states the load per target and keeps the target count for the totals.
//! - **Derivation** (ACT's `derive_configuration`): internal reads = reads + writes x
//!   update-pct / 100 (integer division); internal writes = replication-factor x writes; a record
//!   is stored in whole 16-byte blocks (ACT's `RBLOCK_SIZE`, 16 since ACT 4.x followed server
//!   4.2; it was 128 before); large blocks written per second = internal writes / (large-block
//!   bytes / stored record bytes, an *integer* division: 131072 / 1536 = 85); defragmentation
//!   multiplies that by 100 / (100 - defrag-lwm-pct), and large-block reads run at the result.
//!   Large-block writes run at the same rate, or, with commit-to-device, at original x
//!   (amplification - 1) while each internal write is also written on its own.
//! - **I/O shapes** (ACT's `discover_read_pattern`): a small read is the stored record rounded
//!   up to the device's minimum direct-I/O size (512 or 4096 bytes), at a random offset aligned to
//!   that size; a commit write has the same size and alignment; large-block reads and writes are
//!   `large_block_op_bytes` at random offsets aligned to their own size.
//! - **Histograms.** Bucket 0 holds latencies under 1 ms, bucket b >= 1 holds [2^(b-1), 2^b) ms.
//! - **Report.** `act_latency.py` cuts the run into slices (default one hour) and prints, per
//!   slice, the percentage of reads over 1, 2, 4, ... 64 ms. A drive passes when every slice has
//!   under 5% over 1 ms, under 1% over 8 ms and under 0.1% over 64 ms.
//!
//! ACT itself only takes whole N (its rates are integers); drivelab allows a fractional N such
//! as 2.5 for refining a search, and rounds the totals to whole requests per second as an ACT
//! config file would hold them.

mod config;
mod hist;
mod log;
#[cfg(test)]
mod tests;

pub use config::{ActConfig, ActRates};
pub use hist::{slices, verdict, ActCriteria, ActHist, ActVerdict, SliceRow};
pub use log::{write_act_log, ActLogHeader, ActLogSecond, ActLogTarget, ActLogWriter};

/// Small reads per second per target at N = 1.
pub const READS_PER_N: f64 = 2000.0;
/// Writes per second per target at N = 1.
pub const WRITES_PER_N: f64 = 1000.0;
/// ACT rounds a record's size up to whole blocks of this many bytes.
pub const RBLOCK_SIZE: u64 = 16;
/// The ACT version whose output format [`write_act_log`] writes.
pub const ACT_VERSION: &str = "6.4";
/// Buckets of an ACT histogram as `act_latency.py` reads them (labels 00..16).
pub const ACT_BUCKETS: usize = 17;
/// The thresholds a slice reports, in ms: percent of ops over each.
pub const THRESHOLDS_MS: [u64; 7] = [1, 2, 4, 8, 16, 32, 64];
