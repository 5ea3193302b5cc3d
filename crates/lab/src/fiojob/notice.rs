//! What a fio job file (or command line) is told about how drivelab reads it, as values: each
//! kind of notice is a variant with its data, so a job's list is deduplicated by value and a
//! notice is withdrawn by its kind (`verify_pattern` withdraws `verify=`'s), never by matching
//! text. The words are written once, here, and only when the plan is made
//! ([`Plan::source_notices`](crate::plan::Plan) keeps the text the user reads and the result
//! saves).

use std::fmt;

use drivelab_engine::units::{fmt_duration, fmt_size};

/// One thing the user is told about a job file's reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// `sync=1` (O_SYNC) runs as O_DSYNC.
    SyncAsDsync,
    /// `buffer_compress_chunk` is read; drivelab's chunk is 4 KiB.
    CompressChunk,
    /// `verify=METHOD`: drivelab's own header and CRC32C, whatever the method.
    VerifyOwnHeader { method: String },
    /// `verify_pattern`: fio's verify=pattern (withdraws [`Notice::VerifyOwnHeader`]).
    VerifyPattern,
    /// `verify_dump`: no dump files; the result holds the failed check.
    VerifyDump,
    /// `nonvectored=0`: every I/O has one buffer anyway.
    NonVectored,
    /// A synchronous engine with `iodepth` over 1 runs at depth 1, as in fio.
    SyncEngineDepth { engine: String, qd: u64 },
    /// `verify_interval` above 4 KiB without a pattern: drivelab's headers every 4 KiB or less.
    VerifyIntervalFiner { interval: u64 },
    /// `serialize_overlap` at depth 1 (nothing of a job can overlap) or with verify (drivelab
    /// serializes overlapping I/Os then anyway).
    SerializeOverlapMoot,
    /// `fill_device` on a job that does not write.
    FillReads,
    /// What a trim is on each kind of target.
    TrimFiles,
    /// `numa_mem_policy` on a one-node host.
    NumaMemPolicy { policy: String },
    /// `rate=R,W` on a mixed job: one rate with the read share of the two.
    RatePerDirection { reads: u64, writes: u64, total: u64, unit: &'static str, read_pct: u64 },
    /// The job file's files on the targets given, one each.
    FilesOnTargets { pairs: Vec<(String, String)> },
    /// The job file's files on one target: each its own part.
    FilesShareTarget { names: Vec<String>, part_bytes: u64, target: String },
    /// `--cap-size` scaled a job's `offset_increment` down to fit.
    CapIncrement { job: String, jobs: u64, from: u64, increment: u64, was: u64, cap: u64, span: u64, verify: bool },
    /// `--cap-time` / `--cap-size`: a shortened run; `scaled_delay` is the longest start delay
    /// scaled, when one was.
    Capped { time_ns: Option<u64>, bytes: Option<u64>, scaled_delay: Option<u64> },
    /// `exit_what=all` ended the file's later groups before they started.
    ExitWhatAll { by: String, left_out: Vec<String> },
    /// Options read that change nothing here.
    NoEffect { options: Vec<String> },
    /// `--eta=WORD` with a word fio reads as auto.
    EtaWord { shown: String, word: String },
    /// `ioscheduler=WANT` on a disk running another scheduler, which drivelab does not switch.
    SchedulerKept { disk: String, now: String, want: String },
}

impl Notice {
    /// Added to `list` unless it is already there.
    /// Whether the figures differ from what fio measures with the same job (not only how they
    /// are reached): `drivelab fio` says these on stderr even under fio's contract, where every
    /// other notice is saved with the results only.
    pub fn differs_from_fio(&self) -> bool {
        // What drivelab runs differently from fio. A notice that says the figures are not fio's
        // goes here, and reaches stderr under fio's contract.
        matches!(self, Notice::SchedulerKept { .. })
    }

    pub fn push_to(self, list: &mut Vec<Notice>) {
        if !list.contains(&self) {
            list.push(self);
        }
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::SyncAsDsync => f.write_str("sync=1 (O_SYNC) runs as O_DSYNC: the data is durable on return, as with O_SYNC"),
            Notice::CompressChunk => f.write_str("buffer_compress_chunk: drivelab makes each 4 KiB the given percent zeros"),
            Notice::VerifyOwnHeader { method } => write!(
                f,
                "verify={method}: drivelab checks every block with its own header and CRC32C (docs/guide/verify.md, \
                 \"Data verification\")"
            ),
            Notice::VerifyPattern => f.write_str(
                "verify_pattern: writes carry the pattern and reads are checked against it, with no header (fio's \
                 verify=pattern), whatever method verify names",
            ),
            Notice::VerifyDump => f.write_str(
                "verify_dump: drivelab writes no dump files; a failed check is in the result (its offset, what was \
                 expected and found, the bits that differ)",
            ),
            Notice::NonVectored => f.write_str("nonvectored=0: drivelab issues every I/O with one buffer (non-vectored)"),
            Notice::VerifyIntervalFiner { interval } => write!(
                f,
                "verify_interval={interval}: drivelab's own header checks every block at most every 4 KiB, finer than \
                 fio's interval (the same data checked, with more headers)"
            ),
            Notice::SerializeOverlapMoot => f.write_str(
                "serialize_overlap: at iodepth=1, or with verify (which serializes overlapping I/Os), no two I/Os of \
                 a job overlap in flight",
            ),
            Notice::SyncEngineDepth { engine, qd } => write!(
                f,
                "ioengine {engine}: a synchronous engine runs one I/O at a time, so iodepth={qd} runs at depth 1, as in fio"
            ),
            Notice::FillReads => f.write_str(
                "fill_device with a job that does not write: fio fills the file system before it reads; drivelab \
                 reads the target as it is (fill it with a writing job first)",
            ),
            Notice::TrimFiles => f.write_str(
                "trims: drivelab discards on a block device and punches a hole (fallocate PUNCH_HOLE|KEEP_SIZE) in a \
                 regular file; fio 3.33 discards (BLKDISCARD) on every target, so its trims of a regular file fail \
                 with ENOTTY (err=25)",
            ),
            Notice::NumaMemPolicy { policy } => write!(
                f,
                "numa_mem_policy={policy}: this host's memory is one NUMA node, so every policy places the buffers \
                 where the default does"
            ),
            Notice::RatePerDirection { reads, writes, total, unit, read_pct } => write!(
                f,
                "rate per direction ({reads} reads, {writes} writes): drivelab paces the job at {total}{unit} with \
                 {read_pct}% reads, the two rates fio delivers (rwmixread gives way to them, as in fio)"
            ),
            Notice::FilesOnTargets { pairs } => {
                let on: Vec<String> = pairs.iter().map(|(n, t)| format!("{n} on {t}")).collect();
                write!(f, "the job file names {} files: {}", pairs.len(), on.join(", "))
            }
            Notice::FilesShareTarget { names, part_bytes, target } => {
                let at: Vec<String> = names
                    .iter()
                    .enumerate()
                    .map(|(k, n)| format!("{n} at {}", fmt_size(k as u64 * part_bytes)))
                    .collect();
                write!(
                    f,
                    "the job file names {} files and one target was given: each file has its own {} of {target} \
                     ({}), as apart as on its own file; give {} targets to run each file on its own",
                    names.len(),
                    fmt_size(*part_bytes),
                    at.join(", "),
                    names.len()
                )
            }
            Notice::CapIncrement { job, jobs, from, increment, was, cap, span, verify } => write!(
                f,
                "--cap-size: [{job}]'s {jobs} jobs start every {increment} bytes from offset {from} \
                 (offset_increment {was} scaled down to fit {cap} bytes), each over {span} bytes{}",
                if *verify { format!(" (with verify, the {increment} bytes up to the next job's start)") } else { String::new() }
            ),
            Notice::Capped { time_ns, bytes, scaled_delay } => {
                let mut parts = Vec::new();
                if let Some(t) = time_ns {
                    parts.push(format!("--cap-time {}", fmt_duration(*t, 9)));
                }
                if let Some(b) = bytes {
                    parts.push(format!("--cap-size {b}"));
                }
                write!(
                    f,
                    "{}: shortened run: every job's time, ramp, region and bytes are at most these (the fields show \
                     what ran); its figures are not those of the job file's full run",
                    parts.join(" ")
                )?;
                if let Some(longest) = scaled_delay {
                    let cap = fmt_duration(time_ns.unwrap_or(0), 9);
                    write!(
                        f,
                        "; start delays (startdelay) scaled by {cap}/{}: the last job starts {cap} after its group, \
                         the others in proportion and in the same order",
                        fmt_duration(*longest, 9)
                    )?;
                }
                Ok(())
            }
            Notice::ExitWhatAll { by, left_out } => write!(
                f,
                "exit_what=all in [{by}]: fio ends every job when it ends and the jobs of later groups never start; \
                 left out: {}",
                left_out.join(", ")
            ),
            Notice::NoEffect { options } => write!(
                f,
                "{}: read, no effect in drivelab (see docs/guide/fio.md \"fio job files: drivelab run JOB.fio, \
                 drivelab plan JOB.fio\")",
                options.join(", ")
            ),
            Notice::EtaWord { shown, word } => {
                write!(f, "{shown}: '{word}' is read as auto, as fio reads it (always, never, auto)")
            }
            Notice::SchedulerKept { disk, now, want } => write!(
                f,
                "ioscheduler={want}: {disk} ran its {now} I/O scheduler: drivelab does not switch a whole \
                 device's scheduler, which every user of the disk shares (fio switches it and leaves it so); \
                 to measure with {want}, run `echo {want} > /sys/block/{disk}/queue/scheduler` first"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_is_added_once_and_withdrawn_by_kind() {
        let mut list = Vec::new();
        Notice::VerifyOwnHeader { method: "crc32c".into() }.push_to(&mut list);
        Notice::VerifyDump.push_to(&mut list);
        Notice::VerifyDump.push_to(&mut list);
        assert_eq!(list.len(), 2);
        list.retain(|n| !matches!(n, Notice::VerifyOwnHeader { .. }));
        assert_eq!(list, [Notice::VerifyDump]);
    }

    #[test]
    fn the_cap_notice_says_what_was_scaled() {
        let n = Notice::Capped { time_ns: Some(2_000_000_000), bytes: None, scaled_delay: Some(4_000_000_000) };
        let s = n.to_string();
        assert!(s.starts_with("--cap-time 2s: shortened run"), "{s}");
        assert!(s.contains("scaled by 2s/4s"), "{s}");
    }
}
