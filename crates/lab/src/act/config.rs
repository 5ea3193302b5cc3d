//! The ACT workload's settings and the load ACT derives from them (`derive_configuration`).

use serde::{Deserialize, Serialize};

use super::{RBLOCK_SIZE, READS_PER_N, WRITES_PER_N};

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
