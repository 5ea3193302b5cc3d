//! Where the latency goes (`--latency-split`): each I/O's `lat` cut into the stages it spent in
//! drivelab, the kernel, the device and the completion path, from stamps the kernel takes for
//! that very I/O.
//!
//! Why this shape: the kernel's stamps come from BPF programs on the io_uring and block
//! tracepoints (crate `drivelab-bpf`), drivelab's own from the worker loop. Joining them per I/O
//! must cost nothing per I/O beyond a few loads and stores, so there is no ring buffer, no map
//! lookup and no system call: the kernel writes into a table this process has mapped (a BPF
//! array with `BPF_F_MMAPABLE`), one [`KernelStamps`] record per queue slot of each job, found
//! from the io_uring `user_data` (see [`user_data_tag`]). The worker arms a slot's record before
//! submitting into it and reads it back when it reaps the slot's completion: by then every stamp
//! of that I/O has been written, because the kernel writes the last one (`cqe`) before it posts
//! the completion the worker reaped.
//!
//! The engine knows nothing of BPF: a [`SplitProvider`] (registered once by the binary that has
//! one) hands it a [`SplitTable`] for a run.

mod stages;

use std::sync::{Arc, OnceLock};

pub use stages::{cut, Cut, Stages, STAGES};

/// One I/O's kernel stamps (CLOCK_MONOTONIC ns, 0: not seen), shared with the BPF programs: the
/// layout is theirs too (`crates/bpf/src/bpf/split.bpf.c`, `struct stamps`). 64 bytes, a cache
/// line each: the table starts on a page, so the CPU that completes one slot's block request
/// (another CPU than the job's, for a loop device or an interrupt elsewhere) never contends for a
/// line with the job thread arming a neighbouring slot (56-byte records did).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelStamps {
    /// Written by the worker when it arms the slot (the arm clears every stamp): which I/O of the
    /// slot the record is for, for anyone reading the table.
    pub seq: u64,
    /// io_uring took the SQE (`io_uring_submit_req`).
    pub accept: u64,
    /// io_uring handed it to an io-wq worker (`io_uring_queue_async_work`).
    pub punt: u64,
    /// Its first block request was dispatched to the driver (`block_rq_issue`).
    pub issue: u64,
    /// Its last block request completed (`block_rq_complete`).
    pub done: u64,
    /// Its completion was posted to the ring (`io_uring_complete`).
    pub cqe: u64,
    /// Block requests dispatched for it.
    pub rqs: u32,
    pub _pad: u32,
    pub _spare: u64,
}

/// `user_data` of a split run's SQEs: the slot in the low 32 bits (what every backend already
/// reads back as the slot); above it, this process's id (22 bits: Linux's pids are below 2^22)
/// and the job's number (10 bits), XORed with this mark. The process id is what lets the
/// kernel side tell this run's block requests from another process's (a second drivelab with
/// its own split, whose requests go through the same tracepoints): a request is found from its
/// bio, in whatever task completes it, so only its user_data can say whose it is. The mark keeps
/// the values user_data commonly holds (small numbers, user-space pointers) from looking like
/// ours.
pub const USER_DATA_MARK: u64 = 0xD1AB_0000;
/// The most jobs one split run may have (the job's number has 10 bits).
pub const MAX_JOBS: u32 = 1 << 10;

/// The bits a job's SQEs carry above the slot, in process `pid`.
pub fn user_data_tag_of(pid: u32, job: u32) -> u64 {
    let high = ((u64::from(pid) & 0x3F_FFFF) << 10 | u64::from(job & 0x3FF)) ^ USER_DATA_MARK;
    high << 32
}

/// The bits a job's SQEs carry above the slot, in this process.
pub fn user_data_tag(job: u32) -> u64 {
    user_data_tag_of(std::process::id(), job)
}

/// The kernel's side of a run: a table of `jobs × slots_per_job` records the kernel fills.
///
/// # Safety
///
/// Implementors promise that [`stamps`](SplitTable::stamps) points to `len()` records that stay
/// mapped, aligned and writable for the table's life, and that nothing but the kernel's BPF
/// programs and this process writes them.
pub unsafe trait SplitTable: Send + Sync {
    fn stamps(&self) -> *mut KernelStamps;
    fn len(&self) -> usize;
    fn slots_per_job(&self) -> u32;
    /// Kernel events about this run's I/Os that could not be matched (a request whose I/O's
    /// record had moved on), so far.
    fn lost_events(&self) -> u64;
    /// The BPF programs' own time on the I/Os they timed themselves (a sample: one I/O in 64,
    /// every program that stamped it) and how many I/Os that was; None when none was timed.
    fn kernel_cost(&self) -> Option<(u64, u64)> {
        None
    }
}

/// Makes the kernel side of a run (the BPF programs, attached for its life).
pub trait SplitProvider: Send + Sync {
    /// Why the split cannot run here (None: it can).
    fn unavailable(&self) -> Option<String>;
    /// Attach for a run of `jobs` jobs with up to `slots_per_job` I/Os in flight each.
    fn begin(&self, jobs: u32, slots_per_job: u32) -> Result<Arc<dyn SplitTable>, String>;
}

static PROVIDER: OnceLock<Box<dyn SplitProvider>> = OnceLock::new();

/// Register the process's provider (once; a second call is ignored).
pub fn register(p: Box<dyn SplitProvider>) {
    let _ = PROVIDER.set(p);
}

/// Why `--latency-split` cannot run in this process (None: it can).
pub fn unavailable() -> Option<String> {
    match PROVIDER.get() {
        None => Some(
            "this drivelab was built without BPF (with `--no-default-features`): rebuild it with its \
             default features, e.g. `cargo install --locked --path crates/cli`"
                .into(),
        ),
        Some(p) => p.unavailable(),
    }
}

pub(crate) fn begin(jobs: u32, slots_per_job: u32) -> Result<Arc<dyn SplitTable>, String> {
    if let Some(why) = unavailable() {
        return Err(why);
    }
    if jobs == 0 || jobs > MAX_JOBS {
        return Err(format!("{jobs} jobs: the split follows at most {MAX_JOBS}"));
    }
    PROVIDER.get().expect("checked above").begin(jobs, slots_per_job)
}

/// One job's part of the table.
#[derive(Clone)]
pub struct JobTable {
    pub table: Arc<dyn SplitTable>,
    /// The job's number in the table.
    pub job: u32,
}

impl JobTable {
    /// The job's first record and how many it has, checked against the table.
    pub(crate) fn records(&self) -> Option<(*mut KernelStamps, u32)> {
        let per = self.table.slots_per_job();
        let first = (self.job as usize).checked_mul(per as usize)?;
        if first.checked_add(per as usize)? > self.table.len() {
            return None;
        }
        // SAFETY: `first + per <= len()`: inside the table the trait promises.
        Some((unsafe { self.table.stamps().add(first) }, per))
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{AccessSpec, EngineKind};

    #[test]
    fn without_a_provider_the_split_is_refused_saying_how_to_get_it() {
        // The engine's own tests register no provider: as a build without the `bpf` feature.
        let why = super::unavailable().expect("no provider in the engine's tests");
        assert!(why.contains("without BPF") && why.contains("default features"), "{why}");
        let err = AccessSpec { latency_split: true, ..Default::default() }.validate().unwrap_err().to_string();
        assert!(err.contains("latency_split") && err.contains("default features"), "{err}");
    }

    #[test]
    fn the_split_follows_io_uring_only() {
        let spec = AccessSpec { latency_split: true, engine: EngineKind::Psync, ..Default::default() };
        let err = spec.validate().unwrap_err().to_string();
        assert!(err.contains("--engine uring"), "{err}");
    }

    #[test]
    fn a_jobs_sqes_carry_the_process_its_number_and_the_slot() {
        let ud = super::user_data_tag_of(4_194_303, 1023) | 17;
        let high = (ud >> 32) ^ super::USER_DATA_MARK;
        assert_eq!((high >> 10, high & 0x3FF, ud as u32), (4_194_303, 1023, 17));
        // Two processes' tags differ, whatever their jobs.
        assert_ne!(super::user_data_tag_of(100, 0) >> 32, super::user_data_tag_of(101, 0) >> 32);
        assert_ne!(super::user_data_tag_of(100, 5), super::user_data_tag_of(100, 6));
    }
}
