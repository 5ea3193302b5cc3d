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

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

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

/// The ACT storage workload's settings (ACT's defaults from [`Default`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActConfig {
    /// N: the load is N times 2000 reads and 1000 writes per second per target.
    pub scale: f64,
    /// Targets the load runs on; ACT's configured rates are totals over them.
    pub targets: u32,
    pub record_bytes: u32,
    pub large_block_op_bytes: u32,
    pub replication_factor: u32,
    pub update_pct: u32,
    pub defrag_lwm_pct: u32,
    pub commit_to_device: bool,
    pub report_interval_secs: u32,
    /// Stop when the schedule lags this far behind (0: never, as in ACT).
    pub max_lag_secs: u32,
}

impl Default for ActConfig {
    fn default() -> Self {
        ActConfig {
            scale: 1.0,
            targets: 1,
            record_bytes: 1536,
            large_block_op_bytes: 128 * 1024,
            replication_factor: 1,
            update_pct: 0,
            defrag_lwm_pct: 50,
            commit_to_device: false,
            report_interval_secs: 1,
            max_lag_secs: 10,
        }
    }
}

/// The derived load. Totals are over all targets, as ACT prints them; the rest is per target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActRates {
    /// The record rounded up to [`RBLOCK_SIZE`].
    pub record_stored_bytes: u64,
    /// ACT's `internal-read-reqs-per-sec` (all targets).
    pub internal_read_reqs_total: u64,
    /// ACT's `internal-write-reqs-per-sec` as ACT prints it: 0 unless commit-to-device.
    pub internal_write_reqs_total: u64,
    /// ACT's `large-block-reads-per-sec` (all targets).
    pub large_block_reads_total: f64,
    /// ACT's `large-block-writes-per-sec` (all targets).
    pub large_block_writes_total: f64,
    /// Small reads per second per target.
    pub read_iops: f64,
    /// Bytes per small read: the stored record rounded up to the minimum direct-I/O size.
    pub read_bytes: u64,
    pub large_block_read_iops: f64,
    pub large_block_write_iops: f64,
    pub large_block_bytes: u64,
    /// Individual record writes per second per target (commit-to-device only, else 0).
    pub commit_write_iops: f64,
    /// Bytes per commit write (0 unless commit-to-device).
    pub commit_write_bytes: u64,
}

impl ActConfig {
    /// Refuse what ACT refuses (and what drivelab cannot run), naming the value and the fix.
    pub fn validate(&self) -> Result<(), String> {
        self.check_scale()?;
        if self.targets == 0 {
            return Err("ACT needs at least one target: name a device or file".into());
        }
        self.check_sizes()?;
        if self.replication_factor == 0 {
            return Err("replication factor 0 writes nothing: use 1 (ACT's default) or more".into());
        }
        if self.update_pct > 100 {
            return Err(format!("update-pct {} is over 100: give a percentage from 0 to 100", self.update_pct));
        }
        if self.defrag_lwm_pct >= 100 {
            return Err(format!(
                "defrag-lwm-pct {} must be under 100 (defragmentation would never end): ACT's default is 50",
                self.defrag_lwm_pct
            ));
        }
        if self.report_interval_secs == 0 {
            return Err("report interval 0 s: give at least 1 s (ACT's default)".into());
        }
        Ok(())
    }

    fn check_scale(&self) -> Result<(), String> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(format!(
                "ACT scale {} must be above 0: N = 1 is 2000 reads and 1000 writes per second per target",
                self.scale
            ));
        }
        if self.read_reqs_per_sec() > u32::MAX as u64 {
            return Err(format!(
                "ACT scale {} gives {} reads/s in total, more than ACT's 32-bit rates hold: use a smaller N",
                self.scale,
                self.read_reqs_per_sec()
            ));
        }
        Ok(())
    }

    fn check_sizes(&self) -> Result<(), String> {
        if self.record_bytes == 0 {
            return Err("record size 0: give the stored record size in bytes (ACT's default is 1536)".into());
        }
        let lb = self.large_block_op_bytes;
        if !lb.is_power_of_two() || lb < 1024 {
            return Err(format!(
                "large-block size {lb} must be a power of two of at least 1024 bytes (ACT sets it in KiB): \
                 ACT's default is 131072"
            ));
        }
        if lb < self.record_bytes {
            return Err(format!(
                "large-block size {lb} is smaller than the record size {}: records are packed into large blocks",
                self.record_bytes
            ));
        }
        Ok(())
    }

    /// ACT's `read-reqs-per-sec`: small reads per second over all targets, whole.
    pub fn read_reqs_per_sec(&self) -> u64 {
        total_rate(READS_PER_N, self.scale, self.targets)
    }

    /// ACT's `write-reqs-per-sec`: writes per second over all targets, whole.
    pub fn write_reqs_per_sec(&self) -> u64 {
        total_rate(WRITES_PER_N, self.scale, self.targets)
    }

    /// The load ACT derives from this config, for targets whose minimum direct-I/O size is
    /// `min_op_bytes` (512 or 4096; 0 is taken as 1). Meant for a validated config; an invalid
    /// one gives meaningless (possibly infinite) rates, never a panic.
    pub fn derive(&self, min_op_bytes: u64) -> ActRates {
        let min_op = min_op_bytes.max(1);
        let (reads, writes) = (self.read_reqs_per_sec(), self.write_reqs_per_sec());
        let internal_reads = reads.saturating_add(writes.saturating_mul(self.update_pct as u64) / 100);
        let internal_writes = writes.saturating_mul(self.replication_factor as u64);
        let stored = round_up(self.record_bytes as u64, RBLOCK_SIZE);
        let records_per_block = self.large_block_op_bytes as u64 / stored.max(1);
        let original = internal_writes as f64 / records_per_block as f64;
        let amplification = 100.0 / (100.0 - self.defrag_lwm_pct as f64);
        let lb_reads = original * amplification;
        let lb_writes = if self.commit_to_device { original * (amplification - 1.0) } else { lb_reads };
        let commit_writes = if self.commit_to_device { internal_writes } else { 0 };
        let targets = self.targets as f64;
        ActRates {
            record_stored_bytes: stored,
            internal_read_reqs_total: internal_reads,
            internal_write_reqs_total: commit_writes,
            large_block_reads_total: lb_reads,
            large_block_writes_total: lb_writes,
            read_iops: internal_reads as f64 / targets,
            read_bytes: round_up(stored, min_op),
            large_block_read_iops: lb_reads / targets,
            large_block_write_iops: lb_writes / targets,
            large_block_bytes: self.large_block_op_bytes as u64,
            commit_write_iops: commit_writes as f64 / targets,
            commit_write_bytes: if self.commit_to_device { round_up(stored, min_op) } else { 0 },
        }
    }
}

fn total_rate(per_n: f64, scale: f64, targets: u32) -> u64 {
    (per_n * scale * targets as f64).round() as u64
}

fn round_up(value: u64, unit: u64) -> u64 {
    value.div_ceil(unit) * unit
}

/// An ACT latency histogram: power-of-two millisecond buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActHist {
    pub counts: [u64; ACT_BUCKETS],
}

impl ActHist {
    pub fn new() -> ActHist {
        ActHist::default()
    }

    /// ACT's bucket for a latency: 0 under 1 ms, else the position of the highest set bit of
    /// the whole milliseconds (1 ms -> 1, 2-3 ms -> 2, 4-7 ms -> 3, ...), at most 16.
    pub fn bucket_of(ns: u64) -> usize {
        let ms = ns / 1_000_000;
        let msb = (u64::BITS - ms.leading_zeros()) as usize;
        msb.min(ACT_BUCKETS - 1)
    }

    pub fn insert(&mut self, ns: u64) {
        self.counts[Self::bucket_of(ns)] += 1;
    }

    pub fn add(&mut self, other: &ActHist) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Percent of ops over each of [`THRESHOLDS_MS`] (those in buckets above 0..=6), as
    /// `act_latency.py` computes them: `(total - sum(counts[0..=b])) * 100 / total`. All 0 when
    /// the histogram is empty.
    pub fn over_pct(&self) -> [f64; 7] {
        let total = self.total();
        let mut over = [0.0; 7];
        if total == 0 {
            return over;
        }
        let mut at_or_below = 0;
        for (b, pct) in over.iter_mut().enumerate() {
            at_or_below += self.counts[b];
            *pct = (total - at_or_below) as f64 * 100.0 / total as f64;
        }
        over
    }
}

/// One line of the slice report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SliceRow {
    /// 1-based, as the script numbers slices.
    pub index: usize,
    /// Seconds since the start: the slice covers `start_s..end_s`.
    pub start_s: u64,
    pub end_s: u64,
    pub ops: u64,
    pub rate_per_s: f64,
    /// Percent of ops over 1, 2, 4, 8, 16, 32, 64 ms, unrounded (the script shows 2 decimals).
    pub over_pct: [f64; 7],
    /// Shorter than a slice: only reported when the run had no complete slice.
    pub partial: bool,
}

/// Cut per-second histograms (`per_second[i]` holds second i's ops, not cumulative counts) into
/// slices of `slice_secs` seconds (0 is taken as 1), as `act_latency.py` does: complete slices
/// only, the incomplete one at the end is ignored. Unlike the script, which then reports nothing,
/// a run shorter than one slice gets one slice marked `partial`, so short runs still report.
pub fn slices(per_second: &[ActHist], slice_secs: u32) -> Vec<SliceRow> {
    let len = slice_secs.max(1) as usize;
    if per_second.len() < len {
        return vec![slice_row(1, 0, per_second, true)];
    }
    per_second.chunks_exact(len).enumerate().map(|(i, secs)| slice_row(i + 1, i * len, secs, false)).collect()
}

fn slice_row(index: usize, start: usize, secs: &[ActHist], partial: bool) -> SliceRow {
    let mut sum = ActHist::new();
    secs.iter().for_each(|h| sum.add(h));
    let ops = sum.total();
    let rate_per_s = if secs.is_empty() { 0.0 } else { ops as f64 / secs.len() as f64 };
    SliceRow {
        index,
        start_s: start as u64,
        end_s: (start + secs.len()) as u64,
        ops,
        rate_per_s,
        over_pct: sum.over_pct(),
        partial,
    }
}

/// ACT's pass criteria: in every slice, fewer than these percentages of ops over 1, 8, 64 ms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActCriteria {
    pub over_1ms_pct: f64,
    pub over_8ms_pct: f64,
    pub over_64ms_pct: f64,
}

impl Default for ActCriteria {
    fn default() -> Self {
        ActCriteria { over_1ms_pct: 5.0, over_8ms_pct: 1.0, over_64ms_pct: 0.1 }
    }
}

impl ActCriteria {
    /// Each limit must be a percentage above 0 (nothing can be under 0%) and at most 100.
    pub fn validate(&self) -> Result<(), String> {
        for (_, ms, pct) in self.limits() {
            if !(pct > 0.0 && pct <= 100.0) {
                return Err(format!("the limit for ops over {ms} ms, {pct}%, must be above 0 and at most 100"));
            }
        }
        Ok(())
    }

    /// (index into [`THRESHOLDS_MS`], threshold ms, limit %) for each criterion.
    fn limits(&self) -> [(usize, u64, f64); 3] {
        [(0, 1, self.over_1ms_pct), (3, 8, self.over_8ms_pct), (6, 64, self.over_64ms_pct)]
    }
}

/// The judgement on a run's slices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActVerdict {
    pub pass: bool,
    /// The highest percentage over each threshold in any slice.
    pub worst: [f64; 7],
    /// Every violation: (slice index, "slice 3: 6.21% > 1 ms (limit 5%)").
    pub failing_slices: Vec<(usize, String)>,
}

/// Pass when every slice is strictly under every limit; a slice without ops, or no slices at
/// all, fails (no evidence is not a pass).
pub fn verdict(slices: &[SliceRow], c: &ActCriteria) -> ActVerdict {
    let mut worst = [0.0f64; 7];
    let mut failing_slices = Vec::new();
    for s in slices {
        for (w, &pct) in worst.iter_mut().zip(s.over_pct.iter()) {
            *w = w.max(pct);
        }
        failing_slices.extend(slice_failures(s, c).into_iter().map(|msg| (s.index, msg)));
    }
    if slices.is_empty() {
        failing_slices.push((0, "no slices: the run recorded nothing".to_string()));
    }
    ActVerdict { pass: failing_slices.is_empty(), worst, failing_slices }
}

fn slice_failures(s: &SliceRow, c: &ActCriteria) -> Vec<String> {
    if s.ops == 0 {
        return vec![format!("slice {}: no operations completed", s.index)];
    }
    c.limits()
        .iter()
        .filter_map(|&(b, ms, limit)| {
            let pct = s.over_pct[b];
            (pct >= limit || pct.is_nan()).then(|| format!("slice {}: {pct:.2}% > {ms} ms (limit {limit}%)", s.index))
        })
        .collect()
}

/// A target as ACT describes it at startup.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActLogTarget {
    /// Device or file name; its histograms are `<name>-reads` and `<name>-writes`.
    pub name: String,
    pub size_bytes: u64,
    pub min_op_bytes: u64,
}

/// Everything an ACT log says before the first interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActLogHeader {
    pub drivelab_version: String,
    /// In the order of [`ActLogSecond::target_reads`]; as many as `config.targets`.
    pub targets: Vec<ActLogTarget>,
    /// The load, including the report interval (`report_interval_secs`) and max lag.
    pub config: ActConfig,
    pub rates: ActRates,
    /// Threads (or in-flight I/Os) serving the small reads: ACT's `service-threads`.
    pub service_threads: u32,
    pub duration_secs: u64,
    /// The targets' I/O scheduler as found (drivelab does not change it, ACT sets `noop`).
    pub scheduler: String,
}

/// One second of a run, not cumulative: the ops that completed in that second.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ActLogSecond {
    /// Small reads on all targets.
    pub reads: ActHist,
    /// Small reads per target, in the order of [`ActLogHeader::targets`].
    pub target_reads: Vec<ActHist>,
    pub large_block_reads: ActHist,
    pub large_block_writes: ActHist,
    /// Commit writes on all targets (written only with commit-to-device).
    pub writes: ActHist,
    /// Commit writes per target (written only with commit-to-device).
    pub target_writes: Vec<ActHist>,
}

/// Writes an ACT 6.x log as the run goes: [`start`](Self::start) writes the header, then
/// [`second`](Self::second) takes each second and writes an interval block (cumulative counts, as
/// ACT prints them) whenever a report interval is complete.
pub struct ActLogWriter {
    names: Vec<String>,
    do_reads: bool,
    do_large_blocks: bool,
    do_commits: bool,
    interval: u64,
    seconds: u64,
    /// Seconds since the last interval block.
    pending: u64,
    cumulative: ActLogSecond,
}

impl ActLogWriter {
    /// Check the header and write it.
    pub fn start(w: &mut impl Write, header: &ActLogHeader) -> io::Result<ActLogWriter> {
        header.config.validate().map_err(invalid)?;
        if header.targets.len() != header.config.targets as usize {
            return Err(invalid(format!(
                "ACT log: {} targets named for a load on {}",
                header.targets.len(),
                header.config.targets
            )));
        }
        let c = &header.config;
        let mut writer = ActLogWriter {
            names: header.targets.iter().map(|t| t.name.clone()).collect(),
            do_reads: c.read_reqs_per_sec() != 0,
            do_large_blocks: c.write_reqs_per_sec() != 0,
            do_commits: c.commit_to_device && c.write_reqs_per_sec() != 0,
            interval: c.report_interval_secs as u64,
            seconds: 0,
            pending: 0,
            cumulative: ActLogSecond::default(),
        };
        writer.cumulative.target_reads = vec![ActHist::new(); writer.names.len()];
        writer.cumulative.target_writes = vec![ActHist::new(); writer.names.len()];
        write_preamble(w, header)?;
        writer.write_names(w)?;
        Ok(writer)
    }

    /// Add one second; write an interval block if it completes one.
    pub fn second(&mut self, w: &mut impl Write, s: &ActLogSecond) -> io::Result<()> {
        self.check_shape(s)?;
        let cum = &mut self.cumulative;
        cum.reads.add(&s.reads);
        cum.large_block_reads.add(&s.large_block_reads);
        cum.large_block_writes.add(&s.large_block_writes);
        cum.writes.add(&s.writes);
        cum.target_reads.iter_mut().zip(&s.target_reads).for_each(|(a, b)| a.add(b));
        cum.target_writes.iter_mut().zip(&s.target_writes).for_each(|(a, b)| a.add(b));
        self.seconds += 1;
        self.pending += 1;
        if self.pending == self.interval {
            self.pending = 0;
            self.write_interval(w)?;
        }
        Ok(())
    }

    fn check_shape(&self, s: &ActLogSecond) -> io::Result<()> {
        let n = self.names.len();
        let second = self.seconds + 1;
        if s.target_reads.len() != n {
            return Err(invalid(format!(
                "ACT log: second {second} has {} per-target read histograms for {n} targets",
                s.target_reads.len()
            )));
        }
        if self.do_commits && s.target_writes.len() != n {
            return Err(invalid(format!(
                "ACT log: second {second} has {} per-target write histograms for {n} targets",
                s.target_writes.len()
            )));
        }
        Ok(())
    }

    /// The histograms in ACT's order, with their names.
    fn histograms(&self) -> Vec<(String, &ActHist)> {
        let cum = &self.cumulative;
        let mut out = Vec::new();
        if self.do_reads {
            out.push(("reads".to_string(), &cum.reads));
            out.extend(self.names.iter().zip(&cum.target_reads).map(|(n, h)| (format!("{n}-reads"), h)));
        }
        if self.do_large_blocks {
            out.push(("large-block-reads".to_string(), &cum.large_block_reads));
            out.push(("large-block-writes".to_string(), &cum.large_block_writes));
        }
        if self.do_commits {
            out.push(("writes".to_string(), &cum.writes));
            out.extend(self.names.iter().zip(&cum.target_writes).map(|(n, h)| (format!("{n}-writes"), h)));
        }
        out
    }

    fn write_names(&self, w: &mut impl Write) -> io::Result<()> {
        writeln!(w, "HISTOGRAM NAMES")?;
        for (name, _) in self.histograms() {
            writeln!(w, "{name}")?;
        }
        writeln!(w)
    }

    fn write_interval(&self, w: &mut impl Write) -> io::Result<()> {
        writeln!(w, "after {} sec:", self.seconds)?;
        for (name, h) in self.histograms() {
            dump(w, &name, h)?;
        }
        writeln!(w)
    }
}

/// Write a whole ACT log at once: header, then one block per complete report interval (a
/// trailing incomplete interval is not written, as ACT would not have reported it yet).
pub fn write_act_log(w: &mut impl Write, header: &ActLogHeader, seconds: &[ActLogSecond]) -> io::Result<()> {
    let mut writer = ActLogWriter::start(w, header)?;
    for s in seconds {
        writer.second(w, s)?;
    }
    Ok(())
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Everything before HISTOGRAM NAMES: banner, configuration echo, derived rates, targets.
fn write_preamble(w: &mut impl Write, h: &ActLogHeader) -> io::Result<()> {
    writeln!(w, "drivelab {} writing ACT storage 6.x output", h.drivelab_version)?;
    writeln!(w)?;
    writeln!(w, "ACT version {ACT_VERSION}")?;
    writeln!(w, "Storage device IO test")?;
    writeln!(w, "Copyright 2020 by Aerospike. All rights reserved.")?;
    writeln!(w)?;
    write_config(w, h)?;
    write_derived(w, &h.rates)?;
    for t in &h.targets {
        writeln!(
            w,
            "{} size = {} bytes, {} large blocks, minimum IO size = {} bytes",
            t.name,
            t.size_bytes,
            t.size_bytes / h.rates.large_block_bytes.max(1),
            t.min_op_bytes
        )?;
    }
    writeln!(w)
}

fn write_config(w: &mut impl Write, h: &ActLogHeader) -> io::Result<()> {
    let c = &h.config;
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let names: Vec<&str> = h.targets.iter().map(|t| t.name.as_str()).collect();
    writeln!(w, "ACT-STORAGE CONFIGURATION")?;
    writeln!(w, "device-names: {}", names.join(" "))?;
    writeln!(w, "num-devices: {}", h.targets.len())?;
    writeln!(w, "service-threads: {}", h.service_threads)?;
    writeln!(w, "test-duration-sec: {}", h.duration_secs)?;
    writeln!(w, "report-interval-sec: {}", c.report_interval_secs)?;
    writeln!(w, "microsecond-histograms: no")?;
    writeln!(w, "read-reqs-per-sec: {}", c.read_reqs_per_sec())?;
    writeln!(w, "write-reqs-per-sec: {}", c.write_reqs_per_sec())?;
    writeln!(w, "record-bytes: {}", c.record_bytes)?;
    writeln!(w, "record-bytes-range-max: 0")?;
    writeln!(w, "large-block-op-kbytes: {}", c.large_block_op_bytes / 1024)?;
    writeln!(w, "replication-factor: {}", c.replication_factor)?;
    writeln!(w, "update-pct: {}", c.update_pct)?;
    writeln!(w, "defrag-lwm-pct: {}", c.defrag_lwm_pct)?;
    writeln!(w, "compress-pct: 100")?;
    writeln!(w, "disable-odsync: no")?;
    writeln!(w, "commit-to-device: {}", yes_no(c.commit_to_device))?;
    writeln!(w, "commit-min-bytes: 0")?;
    writeln!(w, "tomb-raider: no")?;
    writeln!(w, "tomb-raider-sleep-usec: 0")?;
    writeln!(w, "max-lag-sec: {}", c.max_lag_secs)?;
    writeln!(w, "scheduler-mode: {}", h.scheduler)?;
    writeln!(w)
}

fn write_derived(w: &mut impl Write, r: &ActRates) -> io::Result<()> {
    writeln!(w, "DERIVED CONFIGURATION")?;
    writeln!(w, "record-stored-bytes: {} ... {}", r.record_stored_bytes, r.record_stored_bytes)?;
    writeln!(w, "internal-read-reqs-per-sec: {}", r.internal_read_reqs_total)?;
    writeln!(w, "internal-write-reqs-per-sec: {}", r.internal_write_reqs_total)?;
    writeln!(w, "large-block-reads-per-sec: {:.2}", r.large_block_reads_total)?;
    writeln!(w, "large-block-writes-per-sec: {:.2}", r.large_block_writes_total)?;
    writeln!(w)
}

/// ACT's `histogram_dump`: `name (total total)`, then the non-zero buckets as ` (bb: count)`,
/// four to a line.
fn dump(w: &mut impl Write, name: &str, h: &ActHist) -> io::Result<()> {
    writeln!(w, "{name} ({} total)", h.total())?;
    let mut line = String::new();
    let nonzero = h.counts.iter().enumerate().filter(|(_, &c)| c != 0);
    for (k, (b, c)) in nonzero.enumerate() {
        line.push_str(&format!(" ({b:02}: {c:010})"));
        if k % 4 == 3 {
            writeln!(w, "{line}")?;
            line.clear();
        }
    }
    if !line.is_empty() {
        writeln!(w, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn hist(pairs: &[(usize, u64)]) -> ActHist {
        let mut h = ActHist::new();
        for &(b, c) in pairs {
            h.counts[b] = c;
        }
        h
    }

    #[test]
    fn one_x_on_one_target_is_2000_reads_and_23_5_large_blocks() {
        // Stored record 1536 (already a multiple of 16). 131072 / 1536 = 85.33 -> 85 records per
        // large block. 1000 writes/s / 85 = 11.7647 blocks/s, x 100 / (100 - 50) = 23.5294.
        let c = ActConfig::default();
        c.validate().unwrap();
        let r = c.derive(512);
        assert_eq!((c.read_reqs_per_sec(), c.write_reqs_per_sec()), (2000, 1000));
        assert_eq!((r.record_stored_bytes, r.read_bytes, r.large_block_bytes), (1536, 1536, 131072));
        assert!(close(r.read_iops, 2000.0), "{r:?}");
        assert!(close(r.large_block_read_iops, 1000.0 / 85.0 * 2.0), "{r:?}");
        assert!(close(r.large_block_write_iops, 1000.0 / 85.0 * 2.0), "{r:?}");
        assert_eq!(format!("{:.3}", r.large_block_read_iops), "23.529");
        assert_eq!((r.commit_write_iops, r.commit_write_bytes, r.internal_write_reqs_total), (0.0, 0, 0));
        // A 4096-byte minimum direct-I/O size makes each read one 4096-byte block.
        assert_eq!(c.derive(4096).read_bytes, 4096);
    }

    #[test]
    fn three_x_with_replication_updates_and_defrag_60() {
        // N = 3, replication 2, update-pct 10, defrag-lwm 60, one target:
        // reads 6000, writes 3000; internal reads 6000 + 3000 * 10 / 100 = 6300;
        // internal writes 2 * 3000 = 6000; 6000 / 85 = 70.588 blocks/s;
        // amplification 100 / (100 - 60) = 2.5; large blocks 70.588 * 2.5 = 176.47/s.
        let c =
            ActConfig { scale: 3.0, replication_factor: 2, update_pct: 10, defrag_lwm_pct: 60, ..Default::default() };
        c.validate().unwrap();
        let r = c.derive(512);
        assert_eq!(r.internal_read_reqs_total, 6300);
        assert!(close(r.read_iops, 6300.0), "{r:?}");
        assert!(close(r.large_block_read_iops, 6000.0 / 85.0 * 2.5), "{r:?}");
        assert!(close(r.large_block_write_iops, 6000.0 / 85.0 * 2.5), "{r:?}");
        assert_eq!(format!("{:.2}", r.large_block_reads_total), "176.47");
    }

    #[test]
    fn totals_cover_all_targets_and_rates_stay_per_target() {
        // N = 1 on 2 targets: ACT's config says 4000 reads and 2000 writes per second;
        // large blocks 2000 / 85 * 2 = 47.06/s in total, 23.53/s per target.
        let c = ActConfig { targets: 2, ..Default::default() };
        let r = c.derive(512);
        assert_eq!((c.read_reqs_per_sec(), c.write_reqs_per_sec()), (4000, 2000));
        assert_eq!(format!("{:.2}", r.large_block_reads_total), "47.06");
        assert!(close(r.read_iops, 2000.0) && close(r.large_block_read_iops, 2000.0 / 85.0), "{r:?}");
        // A fractional N for search refinement: 2.5 x 2000 = 5000 reads, 2500 writes.
        let half = ActConfig { scale: 2.5, ..Default::default() };
        assert_eq!((half.read_reqs_per_sec(), half.write_reqs_per_sec()), (5000, 2500));
        assert!(close(half.derive(512).large_block_read_iops, 2500.0 / 85.0 * 2.0));
    }

    #[test]
    fn commit_to_device_moves_original_writes_to_record_writes() {
        // Large-block writes carry only defrag's share: 1000 / 85 * (2 - 1) = 11.76/s; each of
        // the 1000 writes/s is written on its own, 1536 bytes (4096 at a 4096-byte minimum).
        let c = ActConfig { commit_to_device: true, ..Default::default() };
        let r = c.derive(512);
        assert!(close(r.large_block_read_iops, 1000.0 / 85.0 * 2.0), "{r:?}");
        assert!(close(r.large_block_write_iops, 1000.0 / 85.0), "{r:?}");
        assert_eq!((r.commit_write_iops, r.commit_write_bytes, r.internal_write_reqs_total), (1000.0, 1536, 1000));
        assert_eq!(c.derive(4096).commit_write_bytes, 4096);
    }

    #[test]
    fn odd_record_sizes_round_up_to_16_byte_blocks() {
        // 1000 bytes -> 63 blocks of 16 = 1008 stored; read 1024 at 512, 4096 at 4096.
        // 131072 / 1008 = 130.03 -> 130 records per block: 1000 / 130 * 2 = 15.38 blocks/s.
        let c = ActConfig { record_bytes: 1000, ..Default::default() };
        let r = c.derive(512);
        assert_eq!((r.record_stored_bytes, r.read_bytes, c.derive(4096).read_bytes), (1008, 1024, 4096));
        assert!(close(r.large_block_read_iops, 1000.0 / 130.0 * 2.0), "{r:?}");
    }

    #[test]
    fn invalid_configs_are_refused_with_the_fix() {
        let err = |c: ActConfig| c.validate().unwrap_err();
        let d = ActConfig::default;
        assert!(err(ActConfig { scale: 0.0, ..d() }).contains("above 0"));
        assert!(err(ActConfig { scale: 1e9, ..d() }).contains("smaller N"));
        assert!(err(ActConfig { large_block_op_bytes: 100_000, ..d() }).contains("power of two"));
        assert!(err(ActConfig { large_block_op_bytes: 1024, ..d() }).contains("smaller than the record size 1536"));
        assert!(err(ActConfig { defrag_lwm_pct: 100, ..d() }).contains("under 100"));
        assert!(err(ActConfig { replication_factor: 0, ..d() }).contains("use 1"));
        assert!(err(ActConfig { update_pct: 101, ..d() }).contains("over 100"));
        assert!(err(ActConfig { targets: 0, ..d() }).contains("at least one target"));
        // An invalid config still derives without panicking.
        let r = ActConfig { defrag_lwm_pct: 100, targets: 0, ..d() }.derive(0);
        assert!(r.large_block_read_iops.is_infinite() || r.large_block_read_iops.is_nan());
    }

    #[test]
    fn buckets_follow_acts_msb_rule() {
        // < 1 ms -> 0; 1 ms -> 1; 2..3 ms -> 2; 4..7 ms -> 3; 64 ms -> 7; huge -> 16.
        let ms = 1_000_000;
        let cases = [(0, 0), (999_999, 0), (ms, 1), (2 * ms - 1, 1), (2 * ms, 2), (3 * ms, 2), (4 * ms, 3)];
        for (ns, b) in cases.into_iter().chain([(7 * ms, 3), (64 * ms, 7), (u64::MAX, 16)]) {
            assert_eq!(ActHist::bucket_of(ns), b, "{ns} ns");
        }
        let mut h = ActHist::new();
        h.insert(5 * ms);
        h.add(&hist(&[(3, 2), (0, 1)]));
        assert_eq!((h.counts[3], h.counts[0], h.total()), (3, 1, 4));
    }

    /// 1000 ops: 940 under 1 ms; 30 in 1-2, 10 in 2-4, 9 in 4-8, 5 in 8-16, 2 in 16-32,
    /// 2 in 32-64, 2 in 64-128 ms.
    fn thousand_ops() -> ActHist {
        hist(&[(0, 940), (1, 30), (2, 10), (3, 9), (4, 5), (5, 2), (6, 2), (7, 2)])
    }

    #[test]
    fn slice_percentages_match_a_hand_count() {
        // Over 1 ms: 60 of 1000 = 6.00%; over 2: 30 = 3.00%; over 4: 20 = 2.00%; over 8: 11 =
        // 1.10%; over 16: 6 = 0.60%; over 32: 4 = 0.40%; over 64: 2 = 0.20%. Spread over two
        // seconds (600 + 400 ops) of a 2-second slice: 500 ops/s. Fails all three limits.
        let first = hist(&[(0, 560), (1, 20), (2, 10), (3, 5), (4, 3), (7, 2)]);
        let mut second = thousand_ops();
        first.counts.iter().enumerate().for_each(|(b, c)| second.counts[b] -= c);
        let rows = slices(&[first, second], 2);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.index, r.start_s, r.end_s, r.ops, r.partial), (1, 0, 2, 1000, false));
        assert!(close(r.rate_per_s, 500.0));
        let expect = [6.0, 3.0, 2.0, 1.1, 0.6, 0.4, 0.2];
        assert!(r.over_pct.iter().zip(expect).all(|(&a, b)| close(a, b)), "{:?}", r.over_pct);
        let v = verdict(&rows, &ActCriteria::default());
        assert!(!v.pass);
        let msgs: Vec<&str> = v.failing_slices.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "slice 1: 6.00% > 1 ms (limit 5%)",
                "slice 1: 1.10% > 8 ms (limit 1%)",
                "slice 1: 0.20% > 64 ms (limit 0.1%)"
            ]
        );
        assert!(close(v.worst[0], 6.0) && close(v.worst[6], 0.2));
    }

    #[test]
    fn exactly_at_a_limit_fails_and_just_under_passes() {
        // 50 of 1000 over 1 ms is exactly 5%: not under 5%. 49 of 1000 (4.9%) passes.
        let at = slices(&[hist(&[(0, 950), (1, 50)])], 1);
        assert!(close(at[0].over_pct[0], 5.0));
        let v = verdict(&at, &ActCriteria::default());
        assert_eq!(v.failing_slices, vec![(1, "slice 1: 5.00% > 1 ms (limit 5%)".to_string())]);
        let under = slices(&[hist(&[(0, 951), (1, 49)])], 1);
        assert!(verdict(&under, &ActCriteria::default()).pass);
    }

    #[test]
    fn every_slice_must_pass_and_the_worst_is_kept() {
        // Slice 1 (seconds 0-1): 0% over 1 ms. Slice 2 (seconds 2-3): 100 of 1000 = 10%.
        // Second 4 starts an incomplete slice and is ignored.
        let good = hist(&[(0, 500)]);
        let bad = hist(&[(0, 450), (1, 50)]);
        let rows = slices(&[good.clone(), good.clone(), bad.clone(), bad, good], 2);
        assert_eq!(rows.iter().map(|r| (r.index, r.start_s, r.end_s)).collect::<Vec<_>>(), [(1, 0, 2), (2, 2, 4)]);
        let v = verdict(&rows, &ActCriteria::default());
        assert!(!v.pass && close(v.worst[0], 10.0));
        assert_eq!(v.failing_slices.iter().map(|f| f.0).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn short_runs_report_one_partial_slice_and_empty_runs_fail() {
        // 3 seconds of 1000 ops with a 3600 s slice: one partial slice over 0..3 s, 1000 ops/s.
        let ok = hist(&[(0, 1000)]);
        let rows = slices(&[ok.clone(), ok.clone(), ok], 3600);
        assert_eq!(rows.len(), 1);
        assert!(rows[0].partial && rows[0].end_s == 3 && close(rows[0].rate_per_s, 1000.0), "{rows:?}");
        assert!(verdict(&rows, &ActCriteria::default()).pass);
        // Nothing recorded: one empty partial slice, which fails; no slices at all fails too.
        let empty = slices(&[], 3600);
        assert_eq!((empty.len(), empty[0].ops), (1, 0));
        let v = verdict(&empty, &ActCriteria::default());
        assert_eq!(v.failing_slices, vec![(1, "slice 1: no operations completed".to_string())]);
        assert!(!verdict(&[], &ActCriteria::default()).pass);
    }

    fn header(config: ActConfig) -> ActLogHeader {
        let targets = (0..config.targets)
            .map(|i| ActLogTarget { name: format!("/dev/loop{i}"), size_bytes: 1 << 30, min_op_bytes: 512 })
            .collect();
        ActLogHeader {
            drivelab_version: "0.1.0".into(),
            targets,
            rates: config.derive(512),
            config,
            service_threads: 4,
            duration_secs: 2,
            scheduler: "none".into(),
        }
    }

    fn render(header: &ActLogHeader, seconds: &[ActLogSecond]) -> String {
        let mut out = Vec::new();
        write_act_log(&mut out, header, seconds).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn act_log_matches_acts_format_line_by_line() {
        // Second 1: reads in buckets 0, 1, 3, 4, 5 (five non-zero: four on the first line, one
        // on the next); large-block writes empty. Second 2 adds 1 read in bucket 0 and 2 large
        // reads, so the second block shows cumulative totals 19 and 3.
        let s1 = ActLogSecond {
            reads: hist(&[(0, 5), (1, 3), (3, 1), (4, 2), (5, 7)]),
            target_reads: vec![hist(&[(0, 5), (1, 3), (3, 1), (4, 2), (5, 7)])],
            large_block_reads: hist(&[(0, 1)]),
            ..Default::default()
        };
        let s2 = ActLogSecond {
            reads: hist(&[(0, 1)]),
            target_reads: vec![hist(&[(0, 1)])],
            large_block_reads: hist(&[(0, 2)]),
            ..Default::default()
        };
        let expected = "\
drivelab 0.1.0 writing ACT storage 6.x output

ACT version 6.4
Storage device IO test
Copyright 2020 by Aerospike. All rights reserved.

ACT-STORAGE CONFIGURATION
device-names: /dev/loop0
num-devices: 1
service-threads: 4
test-duration-sec: 2
report-interval-sec: 1
microsecond-histograms: no
read-reqs-per-sec: 2000
write-reqs-per-sec: 1000
record-bytes: 1536
record-bytes-range-max: 0
large-block-op-kbytes: 128
replication-factor: 1
update-pct: 0
defrag-lwm-pct: 50
compress-pct: 100
disable-odsync: no
commit-to-device: no
commit-min-bytes: 0
tomb-raider: no
tomb-raider-sleep-usec: 0
max-lag-sec: 10
scheduler-mode: none

DERIVED CONFIGURATION
record-stored-bytes: 1536 ... 1536
internal-read-reqs-per-sec: 2000
internal-write-reqs-per-sec: 0
large-block-reads-per-sec: 23.53
large-block-writes-per-sec: 23.53

/dev/loop0 size = 1073741824 bytes, 8192 large blocks, minimum IO size = 512 bytes

HISTOGRAM NAMES
reads
/dev/loop0-reads
large-block-reads
large-block-writes

after 1 sec:
reads (18 total)
 (00: 0000000005) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
/dev/loop0-reads (18 total)
 (00: 0000000005) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
large-block-reads (1 total)
 (00: 0000000001)
large-block-writes (0 total)

after 2 sec:
reads (19 total)
 (00: 0000000006) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
/dev/loop0-reads (19 total)
 (00: 0000000006) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
large-block-reads (3 total)
 (00: 0000000003)
large-block-writes (0 total)

";
        let got = render(&header(ActConfig::default()), &[s1, s2]);
        for (i, (g, e)) in got.lines().zip(expected.lines()).enumerate() {
            assert_eq!(g, e, "line {}", i + 1);
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn act_log_reports_per_interval_and_names_commit_writes() {
        // Interval 2 s over 3 seconds: one block after 2 s with both seconds; the third second
        // completes no interval. Exactly four buckets fill one line with nothing after it.
        let config = ActConfig { targets: 2, commit_to_device: true, report_interval_secs: 2, ..Default::default() };
        let second = ActLogSecond {
            reads: hist(&[(0, 1), (2, 1), (4, 1), (6, 1)]),
            target_reads: vec![ActHist::new(), ActHist::new()],
            writes: hist(&[(1, 4)]),
            target_writes: vec![hist(&[(1, 4)]), ActHist::new()],
            ..Default::default()
        };
        let got = render(&header(config), &[second.clone(), second.clone(), second]);
        let names = "HISTOGRAM NAMES\nreads\n/dev/loop0-reads\n/dev/loop1-reads\nlarge-block-reads\n\
                     large-block-writes\nwrites\n/dev/loop0-writes\n/dev/loop1-writes\n\n";
        assert!(got.contains(names), "{got}");
        assert!(got.contains("internal-write-reqs-per-sec: 2000\nlarge-block-reads-per-sec: 47.06\n"), "{got}");
        assert!(got.contains("large-block-writes-per-sec: 23.53\n"), "{got}");
        let block = "after 2 sec:\nreads (8 total)\n (00: 0000000002) (02: 0000000002) (04: 0000000002) \
                     (06: 0000000002)\n/dev/loop0-reads (0 total)\n";
        assert!(got.contains(block), "{got}");
        assert!(got.contains("\nwrites (8 total)\n (01: 0000000008)\n/dev/loop0-writes (8 total)\n"), "{got}");
        assert!(got.ends_with("/dev/loop1-writes (0 total)\n\n") && !got.contains("after 3 sec"), "{got}");
    }

    #[test]
    fn act_log_refuses_mismatched_targets() {
        let mut h = header(ActConfig { targets: 2, ..Default::default() });
        let wrong = ActLogSecond { target_reads: vec![ActHist::new()], ..Default::default() };
        let mut out = Vec::new();
        let e = write_act_log(&mut out, &h, &[wrong]).unwrap_err();
        assert!(e.to_string().contains("1 per-target read histograms for 2 targets"), "{e}");
        h.targets.pop();
        let e = write_act_log(&mut Vec::new(), &h, &[]).unwrap_err();
        assert!(e.to_string().contains("1 targets named for a load on 2"), "{e}");
    }
}
