//! I/O backends behind one small trait, fio-style: submit a batch, wait for a completion,
//! reap what completed. The worker loop is generic over the backend, so the
//! hot path is monomorphized: no dynamic dispatch, no allocation per I/O.
//!
//! Each backend owns the `BufferPool` (`pattern.rs`) its I/Os use (slot i is the buffer of the I/O with
//! `slot == i`) and the file it runs on, so neither can go away while the kernel may still use
//! them: an io_uring ring (a libaio context likewise) drains what is in flight in its `Drop`
//! before its buffers are freed. Only [`EngineKind`], [`EngineOptions`] (and each engine's
//! section of them), [`uring::available`] and [`uring::RingFacts`] are public, and `uring_cmd`'s
//! checks of a target and of the kernel (run before any I/O); the rest is the engine's own.
//!
//! Results follow io_uring's convention everywhere: bytes transferred, or `-errno`.
//!
//! This folder also owns what names a backend and what it is asked for: [`EngineKind`] (the
//! engines, by name) and [`EngineOptions`], each engine's own options (fio's
//! `ioengine_ops.options`), defined in that engine's file. A spec holds the two side by side
//! (`AccessSpec::engine` and `engine_opts`) rather than as one enum with data: the options are
//! checked against the engine once the whole spec is known ([`EngineOptions::check`]), so the
//! order an engine and its options are given in never matters and an option given for another
//! engine is refused, named, instead of silently dropped when the engine changes; and the saved
//! form stays flat (`"engine": "uring", "hipri": true`), as every saved result has it.

pub mod atomic;
pub(crate) mod files;
pub(crate) mod libaio;
pub(crate) mod look;
pub(crate) mod meta;
pub(crate) mod null;
pub(crate) mod posixaio;
pub(crate) mod psync;
pub(crate) mod trim;
pub mod uring;
pub mod uring_cmd;
pub(crate) mod uring_cmd_nvme;
pub(crate) use uring_cmd_nvme::{put_range, DSM_RANGE_BYTES};
pub use uring_cmd_nvme::{CmdOptions, WriteModeError, WriteOp, MAX_TRIM_RANGES};

use std::fs::File;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::gen::Op;
use crate::pattern::BufferPool;
use crate::target::TargetKind;

/// The I/O engine that carries the workload to a file or block device.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// io_uring: one ring per job, registered buffers and file, batched submit and reap.
    #[default]
    Uring,
    /// pread/pwrite, one I/O at a time per job.
    Psync,
    /// io_uring_cmd: NVMe reads and writes passed through an NVMe generic character device
    /// (/dev/ngXnY), fio's `ioengine=io_uring_cmd` with `cmd_type=nvme`.
    #[serde(rename = "uring_cmd")]
    UringCmd,
    /// Linux native AIO (io_submit/io_getevents), fio's `ioengine=libaio`: asynchronous with
    /// O_DIRECT only.
    Libaio,
    /// POSIX AIO (glibc's aio_read/aio_write on its own threads), fio's `ioengine=posixaio`.
    Posixaio,
    /// fio's metadata engines (`meta.rs`): each I/O creates (opens with O_CREAT, then closes),
    /// stats or deletes its file, timed; no data moves.
    #[serde(rename = "filecreate")]
    FileCreate,
    #[serde(rename = "filestat")]
    FileStat,
    #[serde(rename = "filedelete")]
    FileDelete,
    /// fio's directory engines (fio 3.34's): each I/O makes (mode 0700), stats or removes its
    /// directory; `dirstat` and `dirdelete` make the missing ones before the run, as fio does.
    #[serde(rename = "dircreate")]
    DirCreate,
    #[serde(rename = "dirstat")]
    DirStat,
    #[serde(rename = "dirdelete")]
    DirDelete,
}

impl EngineKind {
    /// Every engine, in the order `--engine`'s help lists them.
    pub const ALL: [EngineKind; 11] = [
        EngineKind::Uring,
        EngineKind::Psync,
        EngineKind::UringCmd,
        EngineKind::Libaio,
        EngineKind::Posixaio,
        EngineKind::FileCreate,
        EngineKind::FileStat,
        EngineKind::FileDelete,
        EngineKind::DirCreate,
        EngineKind::DirStat,
        EngineKind::DirDelete,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Uring => "uring",
            EngineKind::Psync => "psync",
            EngineKind::UringCmd => "uring_cmd",
            EngineKind::Libaio => "libaio",
            EngineKind::Posixaio => "posixaio",
            EngineKind::FileCreate => "filecreate",
            EngineKind::FileStat => "filestat",
            EngineKind::FileDelete => "filedelete",
            EngineKind::DirCreate => "dircreate",
            EngineKind::DirStat => "dirstat",
            EngineKind::DirDelete => "dirdelete",
        }
    }

    /// fio's metadata engines: each I/O is an operation on its file's name, not on data; the
    /// files are neither created nor opened before the run.
    pub fn is_meta(self) -> bool {
        matches!(self, EngineKind::FileCreate | EngineKind::FileStat | EngineKind::FileDelete) || self.is_dir()
    }

    /// fio's directory engines: each I/O is an operation on a directory's name.
    pub fn is_dir(self) -> bool {
        matches!(self, EngineKind::DirCreate | EngineKind::DirStat | EngineKind::DirDelete)
    }

    /// The metadata engines that change the file system: they create or remove names (dirstat
    /// makes its missing directories first).
    pub fn changes_names(self) -> bool {
        self.is_meta() && !matches!(self, EngineKind::FileStat)
    }

    /// The metadata engines that remove what is there.
    pub fn deletes(self) -> bool {
        matches!(self, EngineKind::FileDelete | EngineKind::DirDelete)
    }

    /// The engine that moves data for a run made on a point's behalf (preconditioning, verify's
    /// fill): the point's own, or psync for a metadata engine, which moves none.
    pub fn for_data(self) -> EngineKind {
        if self.is_meta() {
            EngineKind::Psync
        } else {
            self
        }
    }

    /// One I/O at a time, done by the submit call (psync and the metadata engines).
    pub fn is_sync(self) -> bool {
        self == EngineKind::Psync || self.is_meta()
    }

    /// Whether it sets a priority on each I/O (`cmdprio`: io_uring's SQE, libaio's iocb), not
    /// only the thread's.
    pub fn takes_io_prio(self) -> bool {
        matches!(self, EngineKind::Uring | EngineKind::Libaio)
    }

    /// The engine `name` names (also `io_uring` and `io_uring_cmd`).
    pub fn from_name(name: &str) -> Option<EngineKind> {
        let name = match name {
            "io_uring" => "uring",
            "io_uring_cmd" => "uring_cmd",
            _ => name,
        };
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Every engine's own options, as a spec carries them (see the module docs): one section per
/// engine that has options, defined in that engine's file and saved flat beside `engine`.
/// io_uring_cmd shares io_uring's (as fio's io_uring_cmd engine does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineOptions {
    /// io_uring's (and io_uring_cmd's): `hipri`, `sqpoll`, `sqpoll_cpu`.
    #[serde(flatten)]
    pub uring: uring::UringOptions,
    /// Every write with torn-write protection (RWF_ATOMIC, fio's `atomic`): all of it or none
    /// of it lands if power fails mid-write. psync, io_uring and libaio; O_DIRECT only; each
    /// target is checked before the run (`atomic::check`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub atomic: bool,
    /// How `filestat` and `dirstat` look at each name (fio's `stat_type`).
    #[serde(default, skip_serializing_if = "StatType::is_stat")]
    pub stat: StatType,
    /// io_uring_cmd's commands: `write_mode`, `deac`, `readfua`, `writefua`.
    #[serde(flatten)]
    pub cmd: uring_cmd_nvme::CmdOptions,
}

/// fio's `stat_type` of the stat engines: `stat` (follows a symbolic link, fio's default),
/// `lstat` (the link itself), `statx` (statx(2) with its basic fields, following).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StatType {
    #[default]
    Stat,
    Lstat,
    Statx,
}

impl StatType {
    pub fn name(self) -> &'static str {
        match self {
            StatType::Stat => "stat",
            StatType::Lstat => "lstat",
            StatType::Statx => "statx",
        }
    }

    pub fn from_name(name: &str) -> Option<StatType> {
        [StatType::Stat, StatType::Lstat, StatType::Statx].into_iter().find(|t| t.name() == name)
    }

    fn is_stat(&self) -> bool {
        *self == StatType::Stat
    }
}

impl EngineOptions {
    /// Refuse an option `engine` does not take (naming it and the engine that does), and an
    /// option that cannot work as given (`direct`: whether the spec asks for O_DIRECT).
    pub fn check(&self, engine: EngineKind, direct: bool) -> Result<(), Error> {
        self.uring.check(engine, direct)?;
        if self.stat != StatType::Stat && !matches!(engine, EngineKind::FileStat | EngineKind::DirStat) {
            let fix = format!("is how filestat and dirstat look at a name, and this runs {}", engine.name());
            return Err(Error::spec(crate::options::Field::StatType, self.stat.name(), fix));
        }
        if self.atomic {
            atomic::check_engine(engine, direct)?;
        }
        let c = &self.cmd;
        if engine != EngineKind::UringCmd {
            use crate::options::Field;
            let given = if c.write_mode != uring_cmd_nvme::CmdOptions::default().write_mode {
                Some((Field::WriteMode, c.write_mode_text()))
            } else if c.deac {
                Some((Field::Deac, "1".to_string()))
            } else if c.readfua {
                Some((Field::Readfua, "1".to_string()))
            } else if c.writefua {
                Some((Field::Writefua, "1".to_string()))
            } else {
                None
            };
            if let Some((field, value)) = given {
                let fix = format!(
                    "shapes the NVMe commands of io_uring_cmd (engine uring_cmd), and this runs {}: use {{engine}} \
                     uring_cmd on an NVMe generic device (/dev/ngXnY), or drop it",
                    engine.name()
                );
                return Err(Error::spec(field, value, fix));
            }
        }
        Ok(())
    }

    /// The `RWF_` flags every write carries (0: none).
    pub(crate) fn write_flags(&self) -> i32 {
        if self.atomic {
            libc::RWF_ATOMIC
        } else {
            0
        }
    }
}

/// What the run wires into a job's backend beside the spec's options (nothing a user gives):
/// the queue depth its buffers and ring are sized for, and the bits `--latency-split` has
/// io_uring carry in every SQE's user_data above the slot (0: none; `crate::split::user_data_tag`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Wiring {
    pub qd: u32,
    pub split_tag: u64,
}

/// What to do with a backend once it is built: generic over the backend, so the job loop it runs
/// is monomorphized for each (no dynamic dispatch on the hot path).
pub(crate) trait WithBackend {
    type Out;
    fn run<B: Backend>(self, backend: &mut B) -> Self::Out;
    /// The backend could not be set up (e.g. io_uring refused the ring).
    fn failed(self, why: String) -> Self::Out;
}

/// THE registry of backends: build the one `engine` names for a target of `kind` (the null
/// target always gets the null backend) with `opts` (its section of them) and `wiring`, and hand
/// it to `job`. A new backend is one file in this folder, its `mod` line, one arm here and its
/// [`EngineKind`] variant and name above (and, if it has options, their section in
/// [`EngineOptions`]).
pub(crate) fn with_backend<J: WithBackend>(
    engine: EngineKind,
    opts: &EngineOptions,
    wiring: Wiring,
    kind: TargetKind,
    files: Vec<File>,
    names: &[String],
    pool: BufferPool,
    job: J,
) -> J::Out {
    let Wiring { qd, split_tag } = wiring;
    if engine.is_meta() {
        return match meta::Meta::new(engine, names, pool).map(|m| m.with_stat(opts.stat)) {
            Ok(mut b) => job.run(&mut b),
            Err(e) => job.failed(format!("{}: {e}", engine.name())),
        };
    }
    if files.is_empty() || kind == TargetKind::Null {
        return job.run(&mut null::Null::new(qd, pool));
    }
    let file = files::Files::new(files);
    match engine {
        EngineKind::Psync => job.run(&mut psync::Psync::new(file, pool).with_write_flags(opts.write_flags())),
        // Dropping the ring drains what is still in flight before its buffers go.
        EngineKind::Uring => match uring::Uring::new(file, qd, pool, opts.uring, split_tag) {
            Ok(b) => job.run(&mut b.with_write_flags(opts.write_flags())),
            Err(e) => job.failed(format!("io_uring setup failed: {e}")),
        },
        EngineKind::UringCmd => match uring_cmd::UringCmd::new(file.into_first(), qd, pool, opts.uring, opts.cmd) {
            Ok(mut b) => job.run(&mut b),
            Err(e) => job.failed(format!("io_uring_cmd setup failed: {e}")),
        },
        // Dropping the context waits for what is still in flight before its buffers go.
        EngineKind::Libaio => match libaio::Libaio::new(file, qd, pool) {
            Ok(b) => job.run(&mut b.with_write_flags(opts.write_flags())),
            Err(e) => job.failed(format!("libaio setup failed: {e}")),
        },
        // Dropping it waits for what glibc's threads still have before its buffers go.
        EngineKind::Posixaio => job.run(&mut posixaio::PosixAio::new(file, qd, pool)),
        EngineKind::FileCreate
        | EngineKind::FileStat
        | EngineKind::FileDelete
        | EngineKind::DirCreate
        | EngineKind::DirStat
        | EngineKind::DirDelete => unreachable!("taken above"),
    }
}

/// fsync (or fdatasync when `data_only`) of a backend's file: every file backend's
/// [`Backend::fsync`].
pub(crate) fn sync_file(file: &File, data_only: bool) -> std::io::Result<()> {
    if data_only {
        file.sync_data()
    } else {
        file.sync_all()
    }
}

/// One I/O handed to a backend. `slot` identifies the I/O and its buffer (slot `slot` of the
/// backend's pool) until it completes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending {
    pub slot: u32,
    pub op: Op,
    pub offset: u64,
    pub len: u32,
    /// Its I/O priority (ioprio: `class << 13 | level`; 0: the thread's), for io_uring's SQE or
    /// libaio's iocb.
    pub prio: u16,
    /// Which of the job's files it goes to (`files::Files`; 0 for a job of one file).
    pub file: u32,
    /// A trim of several ranges (fio's `num_range`, io_uring_cmd only): how many, written into
    /// the slot's buffer by the worker (`uring_cmd_nvme::put_range`), `offset` the first's and
    /// `len` their sum. 1 (or 0): the one range `offset`, `len`.
    pub ranges: u16,
}

/// # Safety
///
/// Implementors give the kernel (or a system call) pointers into the buffers of the
/// `BufferPool` they own, for I/Os that may complete after `submit` returns. They must:
/// - only touch `p.len` bytes of the buffer of slot `p.slot` for an I/O `p` (use
///   [`BufferPool::io_ptr`], which checks both);
/// - keep the pool allocated and in place while any I/O they accepted may still access it:
///   their `Drop` must wait for everything in flight (or leak the pool) before freeing it;
/// - report each accepted I/O exactly once through `reap`.
///
/// The worker, for its part, writes only the buffers of slots whose I/O is not in flight (the
/// free list owns them) through [`Backend::pool_mut`].
pub(crate) unsafe trait Backend {
    /// True when `submit` performs the I/O itself (psync, null): latency is then stamped before
    /// `submit`. Otherwise (io_uring) it is stamped when `submit` returns, as fio does, so the
    /// submission system call is not counted as device latency (fio's clat).
    const SUBMIT_COMPLETES: bool;
    /// The buffers, for filling write data into free slots.
    fn pool_mut(&mut self) -> &mut BufferPool;
    /// Hand `batch` to the kernel (or perform it). On `Ok` every I/O of the batch is in flight
    /// (or done); on `Err` the job stops.
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()>;
    /// Return once at least `n` I/Os have completed and not been reaped (at once if they have).
    fn wait(&mut self, n: u32) -> std::io::Result<()>;
    /// Like `wait`, but return after `timeout_ns` even if fewer have completed (open-loop jobs
    /// must wake for their next intended issue time). Backends whose `submit` completes the I/O
    /// have nothing in flight and return at once.
    fn wait_timeout(&mut self, n: u32, timeout_ns: u64) -> std::io::Result<()> {
        let _ = (n, timeout_ns);
        Ok(())
    }
    /// Whether a completion can be taken now, without blocking (a ring that defers completion
    /// work is asked to run it). Used while spinning towards an open-loop job's next intended
    /// time, so a completion is stamped when it arrives, not when the spin ends.
    fn poll(&mut self) -> std::io::Result<bool> {
        Ok(true)
    }
    /// Hand every available completion to `f(slot, result)`.
    fn reap(&mut self, f: &mut impl FnMut(u32, i32));
    /// Make written data durable: fsync, or fdatasync when `data_only`; `Ok` at once where that
    /// means nothing.
    fn fsync(&mut self, data_only: bool) -> std::io::Result<()>;
    /// How the io_uring ring was set up, for the result (None for other backends).
    fn ring_facts(&self) -> Option<uring::RingFacts> {
        None
    }
    /// Whether the job looks for completions before it sleeps for them (`look.rs`): its CPU
    /// share holds that looking. None for a backend that does not wait for completions
    /// (psync's calls return with them, null's complete at once).
    fn looks_before_sleep(&self) -> Option<bool> {
        None
    }
    /// CPU time a kernel helper thread of this backend (io_uring's SQPOLL thread) has used so
    /// far, in ns; None when there is none.
    fn helper_cpu_ns(&self) -> Option<u64> {
        None
    }
}
