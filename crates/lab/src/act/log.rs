//! Writing an ACT 6.x log (`act_storage`'s output) as the run goes, so ACT's own tools can read
//! drivelab's runs.

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use super::{ActConfig, ActHist, ActRates, ACT_VERSION};

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
