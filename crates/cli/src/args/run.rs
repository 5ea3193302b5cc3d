//! `drivelab run`'s flags: the access specification (drivelab's own spellings and fio's), the
//! output options, and their translation into engine fields (`fields()`), which a `run` point
//! records and `spec()` validates. Apart from `mod.rs` because these flags are the bulk of the
//! command line and change together.

use clap::Args;
use drivelab_engine::fields;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;

use super::{non_empty, SafetyArgs, FILENAME_HELP, FIO};

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Files, block devices (/dev/...), or `null`. Several targets run at once, one worker each.
    #[arg(required_unless_present = "filename", value_name = "TARGET")]
    pub targets: Vec<String>,

    /// fio's workload words: read, write, randread, randwrite, randrw, rw (or readwrite).
    #[arg(long, value_name = "WORDS", help_heading = "Access specification")]
    pub rw: Option<String>,
    /// Percent of I/Os that are reads (Iometer), 0..100. Overrides the mix of --rw.
    #[arg(long = "read", value_name = "PCT", help_heading = "Access specification")]
    pub read_pct: Option<String>,
    /// Percent of I/Os at random offsets (Iometer); the rest continue sequentially. 5 = "95% sequential".
    #[arg(long = "random", value_name = "PCT", help_heading = "Access specification")]
    pub random_pct: Option<String>,
    /// Where random I/Os land: random (uniform), zipf:THETA, pareto:H, normal:DEV, zoned:P/S:...
    /// (P% of I/Os to the next S% of the region), zoned_abs:P/SIZE:...; fio's
    /// random_distribution, with its optional center (zipf:1.2:0.25).
    #[arg(long, alias = "random_distribution", value_name = "DIST", help_heading = "Access specification")]
    pub distribution: Option<String>,
    /// Replay a captured workload instead of generating one: a fio iolog (write_iolog, versions
    /// 2 and 3) or blkparse's text output of a blktrace capture; one target per file or device
    /// of the trace. See docs/guide/run.md "Replay: --replay TRACE".
    #[arg(long, alias = "read_iolog", value_name = "TRACE", help_heading = "Access specification", value_parser = non_empty())]
    pub replay: Option<String>,
    /// With --replay: the trace's own times (original, default) or as fast as --qd allows (fast;
    /// fio's replay_no_stall).
    #[arg(long, value_name = "original|fast", requires = "replay", help_heading = "Access specification")]
    pub replay_timing: Option<String>,
    /// Think time (fio's thinktime): after every --thinktime-blocks I/Os, wait for those in
    /// flight, then stall this long before issuing more (a bare number is microseconds, as in fio).
    #[arg(long, value_name = "DUR", help_heading = "Access specification")]
    pub thinktime: Option<String>,
    /// The first part of --thinktime spent spinning instead of asleep (fio's thinktime_spin).
    #[arg(long, alias = "thinktime_spin", value_name = "DUR", help_heading = "Access specification")]
    pub thinktime_spin: Option<String>,
    /// Think after every N I/Os (default 1; fio's thinktime_blocks).
    #[arg(long, alias = "thinktime_blocks", value_name = "N", help_heading = "Access specification")]
    pub thinktime_blocks: Option<String>,
    /// Count --thinktime-blocks by I/Os completed (default, as fio) or issued.
    #[arg(long, alias = "thinktime_blocks_type", value_name = "complete|issue", help_heading = "Access specification")]
    pub thinktime_blocks_type: Option<String>,
    /// Block size, or a split such as 4k:70,64k:30.
    #[arg(long, default_value = "4k", value_name = "SIZE", help_heading = "Access specification")]
    pub bs: String,
    /// Offsets are multiples of this (default: the smallest block size); 512 allowed.
    #[arg(long, value_name = "SIZE", help_heading = "Access specification")]
    pub align: Option<String>,
    /// Start of the region used.
    #[arg(long, default_value = "0", value_name = "SIZE", help_heading = "Access specification")]
    pub offset: String,
    /// Length of the region used (default: to the end of the target).
    #[arg(long, value_name = "SIZE", help_heading = "Access specification")]
    pub span: Option<String>,
    /// Outstanding I/Os per job.
    #[arg(long, default_value_t = AccessSpec::default().qd, value_name = "N", help_heading = "Access specification")]
    pub qd: u32,
    /// Jobs (threads) per target.
    #[arg(long, default_value_t = AccessSpec::default().jobs, value_name = "N", help_heading = "Access specification")]
    pub jobs: u32,
    /// Measured duration (500ms, 10s, 3m). Default 10s unless --io-size is given.
    #[arg(long, value_name = "DUR", help_heading = "Access specification")]
    pub time: Option<String>,
    /// Bytes to transfer per job; the run ends at whichever of --time and --io-size comes first.
    #[arg(long, value_name = "SIZE", help_heading = "Access specification")]
    pub io_size: Option<String>,
    /// Run this long before measuring (not counted).
    #[arg(long, value_name = "DUR", help_heading = "Access specification")]
    pub ramp: Option<String>,
    /// Bypass the page cache with O_DIRECT (the default). fio's --direct=1 and --direct=0 (that
    /// is --buffered) work too; the last of --direct and --buffered counts.
    #[arg(
        long,
        value_name = "1|0",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "1",
        value_parser = ["1", "0"],
        hide_possible_values = true,
        overrides_with = "buffered",
        help_heading = "Access specification"
    )]
    pub direct: Option<String>,
    /// Go through the page cache instead of O_DIRECT (results are labelled buffered).
    #[arg(long, help_heading = "Access specification")]
    pub buffered: bool,
    /// none, dsync (O_DSYNC), or fsync:N (fsync after every N writes).
    #[arg(long, default_value = "none", value_name = "MODE", help_heading = "Access specification")]
    pub sync: String,
    /// Write data: random (incompressible), zero, or compress:PCT (PCT% zeros per 4 KiB).
    #[arg(long, default_value = "random", value_name = "KIND", help_heading = "Access specification")]
    pub data: String,
    /// Seed for offsets and data; the same seed repeats the same I/O sequence.
    #[arg(long, default_value_t = AccessSpec::default().seed, value_name = "N", help_heading = "Access specification")]
    pub seed: u64,

    /// Fixed-rate (open-loop) load: I/Os per second (5000, 5k) or bytes per second (200MiB/s).
    /// Latency is measured from each I/O's intended time (response) as well as from submission.
    #[arg(long, value_name = "RATE", help_heading = "Fixed rate (open loop)")]
    pub rate: Option<String>,
    /// Whom --rate is for: total (shared by every job on every target) or job.
    #[arg(long, value_name = "SCOPE", requires = "rate", help_heading = "Fixed rate (open loop)")]
    pub rate_scope: Option<String>,
    /// Intended issue times: uniform (evenly spaced) or poisson (exponential gaps).
    #[arg(long, value_name = "KIND", requires = "rate", help_heading = "Fixed rate (open loop)")]
    pub arrivals: Option<String>,
    /// Give up when the schedule falls this far behind (ACT's max-lag), e.g. 10s.
    #[arg(long, value_name = "DUR", requires = "rate", help_heading = "Fixed rate (open loop)")]
    pub max_lag: Option<String>,
    /// How each job waits for its next intended time: auto (default: hybrid while its spinning
    /// leaves a whole CPU free, else sleep), hybrid (sleep, then spin the last 100 µs; on
    /// time at the cost of CPU, reported as spin %), sleep (least CPU; late by a timer's
    /// wake-up), or spin.
    #[arg(long, value_name = "MODE", requires = "rate", help_heading = "Fixed rate (open loop)")]
    pub pace: Option<String>,

    /// I/O engine: uring (io_uring; falls back to psync where io_uring is unavailable), psync
    /// (pread/pwrite, one I/O at a time), uring_cmd (NVMe passthrough on /dev/ngXnY), or libaio
    /// (Linux native AIO, as fio's; asynchronous with O_DIRECT only).
    #[arg(long, default_value = "uring", value_name = "ENGINE", help_heading = "Engine")]
    pub engine: String,
    /// At most N I/Os per submit call (fio's iodepth_batch_submit). Up to 2, each I/O reaches the
    /// device at once; 3 or more are plugged and dispatched together (can help NVMe).
    #[arg(long, default_value_t = AccessSpec::default().submit_batch, value_name = "N", help_heading = "Engine")]
    pub batch: u32,
    /// Job threads' CPUs: none (the scheduler decides, like fio), spread (job i pinned to the i-th
    /// allowed CPU), or a list such as 0,2.
    #[arg(long, default_value = "none", value_name = "CPUS", help_heading = "Engine")]
    pub cpus: String,
    /// io_uring: poll for completions instead of interrupts (fio's --hipri; IOPOLL). Needs a
    /// device with poll queues (queue/io_poll = 1); elsewhere the run uses interrupts and says so.
    #[arg(long, help_heading = "Engine")]
    pub hipri: bool,
    /// io_uring: a kernel thread submits from the ring, no system call per submit (fio's
    /// --sqthread_poll; SQPOLL). Its CPU is counted in the result's sys CPU.
    #[arg(long, alias = "sqthread_poll", help_heading = "Engine")]
    pub sqpoll: bool,
    /// Cut every I/O's latency into where it went: drivelab, the kernel before the device, the
    /// device, the completion path, the reap (BPF stamps of each I/O; io_uring, root, a kernel
    /// with BTF, and a drivelab built with the `bpf` feature).
    #[arg(long, help_heading = "Engine")]
    pub latency_split: bool,
    /// The CPU the --sqpoll kernel thread is bound to (fio's --sqthread_poll_cpu).
    #[arg(long, alias = "sqthread_poll_cpu", value_name = "CPU", requires = "sqpoll", help_heading = "Engine")]
    pub sqpoll_cpu: Option<String>,
    /// Keep going after I/O errors and wrong data (they are counted either way, and the exit
    /// code is still 1).
    #[arg(long, help_heading = "Engine")]
    pub continue_on_error: bool,

    /// Stamp every written unit with a header (target, offset, generation, CRC32C) and check
    /// every read of a written unit as it completes; a wrong unit stops the run (exit 1).
    #[arg(long, help_heading = "Verification")]
    pub verify: bool,
    /// With --verify: re-read and check every written unit when the run ends (implies --verify).
    #[arg(long, help_heading = "Verification")]
    pub verify_after: bool,
    /// Bytes per stamped unit, 512 to 4k (default: the largest that divides every block size,
    /// the alignment and the offset, at most 4k). Implies --verify.
    #[arg(long, value_name = "SIZE", help_heading = "Verification")]
    pub verify_unit: Option<String>,

    #[arg(long, value_name = "A:B", help = FILENAME_HELP, help_heading = FIO)]
    pub filename: Option<String>,
    /// fio's --iodepth: --qd, outstanding I/Os per job.
    #[arg(long, value_name = "N", conflicts_with = "qd", help_heading = FIO)]
    pub iodepth: Option<String>,
    /// fio's --numjobs: --jobs, jobs per target (fio's one job shares its files; drivelab runs
    /// this many per target).
    #[arg(long, value_name = "N", conflicts_with = "jobs", help_heading = FIO)]
    pub numjobs: Option<String>,
    /// fio's --blocksize: --bs (fio's --bs is drivelab's too).
    #[arg(long, value_name = "SIZE", conflicts_with = "bs", help_heading = FIO)]
    pub blocksize: Option<String>,
    /// fio's --runtime: --time. A bare number is seconds, as in fio (60 = 60s); units work too.
    #[arg(long, value_name = "SECONDS", conflicts_with = "time", help_heading = FIO)]
    pub runtime: Option<String>,
    /// fio's --ioengine: io_uring, libaio, io_uring_cmd, psync or sync (runs psync).
    #[arg(long, value_name = "ENGINE", conflicts_with = "engine", help_heading = FIO)]
    pub ioengine: Option<String>,
    /// fio's --readwrite: --rw.
    #[arg(long, value_name = "WORDS", conflicts_with = "rw", help_heading = FIO)]
    pub readwrite: Option<String>,
    /// fio's --rwmixread: percent reads of a mixed --rw (randrw, rw, readwrite); with any other
    /// --rw it is refused, since fio ignores it there. --read sets the share for any --rw.
    #[arg(long, value_name = "PCT", conflicts_with = "read_pct", help_heading = FIO)]
    pub rwmixread: Option<String>,
    /// fio's --rwmixwrite: percent writes of a mixed --rw (--read is 100 minus it).
    #[arg(long, value_name = "PCT", conflicts_with = "read_pct", help_heading = FIO)]
    pub rwmixwrite: Option<String>,

    #[command(flatten)]
    pub safety: SafetyArgs,

    /// A command that prints the power draw in watts, run every second while measuring.
    #[arg(long, value_name = "CMD", help_heading = "Output", value_parser = non_empty())]
    pub power_cmd: Option<String>,
    /// Where the results directory is made (every run leaves one, to report and compare).
    #[arg(long, default_value = "results", value_name = "DIR", help_heading = "Output", value_parser = non_empty())]
    pub results: String,
    /// Save the full result as JSON here (must not exist yet; `-` for standard output).
    #[arg(long, value_name = "FILE", help_heading = "Output", value_parser = non_empty())]
    pub json: Option<String>,
    /// Only the answer on stdout (run: the summary; qos: the highest load); no live line, no
    /// probe lines. Warnings and errors still go to stderr.
    #[arg(long, short, help_heading = "Output")]
    pub quiet: bool,
    /// With a fio job file as the first target: give ${NAME} these values, one run per
    /// combination (NAME=4k,8k,64k or NAME=1..64x2). Repeatable.
    #[arg(long = "var", value_name = "NAME=VALUES", help_heading = "fio job files")]
    pub vars: Vec<String>,
    /// With a fio job file: run each job at most this long (ramp too; a job bound by size also
    /// ends here), e.g. 200ms. The result says the run was shortened.
    #[arg(long, value_name = "DUR", help_heading = "fio job files")]
    pub cap_time: Option<String>,
    /// With a fio job file: each job's region and bytes at most this (e.g. 16m).
    #[arg(long, value_name = "SIZE", help_heading = "fio job files")]
    pub cap_size: Option<String>,
    /// The access-spec flags given on the command line (`--qd`...), as clap saw them
    /// ([`RunArgs::note_given`]): a job file refuses them.
    #[arg(skip)]
    pub given_spec_flags: Vec<String>,
}

/// Flags of `run` that are not the access spec (the targets, where results go, safety's own).
const NOT_SPEC: [&str; 8] = ["targets", "power_cmd", "results", "json", "quiet", "vars", "cap_time", "cap_size"];

impl RunArgs {
    /// Record which access-spec flags `m` (run's matches) took from the command line, by clap's
    /// own account of each value's source (never by comparing with a default).
    pub fn note_given(&mut self, m: &clap::ArgMatches) {
        use clap::parser::ValueSource;
        let safety = SafetyArgs::augment_args(clap::Command::new("safety"));
        let cmd = RunArgs::augment_args(clap::Command::new("run"));
        self.given_spec_flags = cmd
            .get_arguments()
            .filter(|a| !NOT_SPEC.contains(&a.get_id().as_str()))
            .filter(|a| safety.get_arguments().all(|o| o.get_id() != a.get_id()))
            .filter(|a| m.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine))
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
    }
}

impl RunArgs {
    /// Build and validate the access spec these flags describe.
    pub fn spec(&self) -> Result<AccessSpec, Error> {
        let pairs = self.fields();
        fields::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// The flags as access-spec fields (the names plan files use), in the order they apply: the
    /// record of a `run` point, from which its spec is derived.
    /// fio's spellings are recorded as written (plan files take them too); each replaces the
    /// default of the field it stands for.
    pub fn fields(&self) -> Vec<(String, String)> {
        let (qd, jobs, batch, seed) =
            (self.qd.to_string(), self.jobs.to_string(), self.batch.to_string(), self.seed.to_string());
        fn either<'b>(
            own: (&'static str, &'b String),
            fio: (&'static str, &'b Option<String>),
        ) -> (&'static str, &'b str) {
            match fio.1 {
                Some(v) => (fio.0, v.as_str()),
                None => (own.0, own.1.as_str()),
            }
        }
        let mut pairs: Vec<(&str, &str)> = vec![
            either(("bs", &self.bs), ("blocksize", &self.blocksize)),
            ("offset", &self.offset),
            either(("qd", &qd), ("iodepth", &self.iodepth)),
            either(("jobs", &jobs), ("numjobs", &self.numjobs)),
            ("batch", &batch),
            ("sync", &self.sync),
            ("data", &self.data),
            ("seed", &seed),
            either(("engine", &self.engine), ("ioengine", &self.ioengine)),
            ("cpus", &self.cpus),
        ];
        let optional = [
            ("rw", &self.rw),
            ("readwrite", &self.readwrite),
            ("read", &self.read_pct),
            ("rwmixread", &self.rwmixread),
            ("rwmixwrite", &self.rwmixwrite),
            ("random", &self.random_pct),
            ("distribution", &self.distribution),
            ("thinktime", &self.thinktime),
            ("thinktime_spin", &self.thinktime_spin),
            ("thinktime_blocks", &self.thinktime_blocks),
            ("thinktime_blocks_type", &self.thinktime_blocks_type),
            ("align", &self.align),
            ("span", &self.span),
            ("time", &self.time),
            ("runtime", &self.runtime),
            ("io_size", &self.io_size),
            ("ramp", &self.ramp),
            ("rate", &self.rate),
            ("rate_scope", &self.rate_scope),
            ("arrivals", &self.arrivals),
            ("max_lag", &self.max_lag),
            ("pace", &self.pace),
            ("sqpoll_cpu", &self.sqpoll_cpu),
            ("verify_unit", &self.verify_unit),
            ("replay", &self.replay),
            ("replay_timing", &self.replay_timing),
        ];
        // --rw first: --read / --random override its mix.
        for (k, v) in optional {
            if let Some(v) = v {
                pairs.push((k, v));
            }
        }
        // --direct=0 is --buffered (the last of the two given counts: clap keeps only that one).
        if self.buffered || self.direct.as_deref() == Some("0") {
            pairs.push(("buffered", "true"));
        }
        if self.continue_on_error {
            pairs.push(("continue_on_error", "true"));
        }
        if self.hipri {
            pairs.push(("hipri", "true"));
        }
        if self.sqpoll {
            pairs.push(("sqpoll", "true"));
        }
        if self.latency_split {
            pairs.push(("latency_split", "true"));
        }
        if self.verify {
            pairs.push(("verify", "true"));
        }
        if self.verify_after {
            pairs.push(("verify_after", "true"));
        }
        pairs.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }
}
