//! Setting up an io_uring ring (see `uring.rs`): io_uring's own options (what a user asks a ring
//! for, [`UringOptions`], checked against the spec), the flags asked for and dropped one by one
//! where the kernel refuses them, typed (what the backend decides from) and named for the result;
//! the ring's own fd registered; the SQPOLL thread found.

use std::io;
use std::os::fd::RawFd;

use io_uring::IoUring;
use serde::{Deserialize, Serialize};

use super::{RsrcUpdate, IORING_REGISTER_RING_FDS};
use crate::backend::EngineKind;
use crate::error::{Error, Field};

/// io_uring's own options (fio's io_uring engine options; io_uring_cmd takes them too), saved
/// flat in a spec beside `engine`, under the names saved results have always had.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UringOptions {
    /// Poll for completions instead of taking interrupts (IORING_SETUP_IOPOLL, fio's `hipri`).
    /// Needs O_DIRECT and a device with poll queues; without them the run uses interrupts and
    /// says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hipri: bool,
    /// A kernel thread takes submissions off the ring (IORING_SETUP_SQPOLL, fio's
    /// `sqthread_poll`), so submitting needs no system call; its CPU is counted in the result.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sqpoll: bool,
    /// With `sqpoll`: the CPU its kernel thread is bound to (fio's `sqthread_poll_cpu`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqpoll_cpu: Option<u32>,
}

impl UringOptions {
    /// Refuse these options for an engine other than io_uring's two, `hipri` without O_DIRECT
    /// (io_uring_cmd bypasses the page cache anyway), and `sqpoll_cpu` without `sqpoll` or on a
    /// CPU this process may not use.
    pub(crate) fn check(&self, engine: EngineKind, direct: bool) -> Result<(), Error> {
        let uring = matches!(engine, EngineKind::Uring | EngineKind::UringCmd);
        if (self.hipri || self.sqpoll) && !uring {
            let field = if self.hipri { Field::Hipri } else { Field::Sqpoll };
            let fix = format!("is io_uring's, and this runs {}: use --engine uring, or drop it", engine.name());
            return Err(Error::spec(field, "on", fix));
        }
        if self.hipri && !direct && engine != EngineKind::UringCmd {
            return Err(Error::spec(Field::Hipri, "on", "polls O_DIRECT I/O only: drop --buffered, or drop --hipri"));
        }
        if let Some(cpu) = self.sqpoll_cpu {
            if !self.sqpoll {
                return Err(Error::spec(Field::SqpollCpu, cpu.to_string(), "places the --sqpoll thread: add --sqpoll"));
            }
            let allowed = crate::affinity::allowed_cpus();
            if !allowed.contains(&cpu) {
                let fix = format!("CPU {cpu} is not one this process may use (allowed: {allowed:?})");
                return Err(Error::spec(Field::SqpollCpu, cpu.to_string(), fix));
            }
        }
        Ok(())
    }
}

/// How long an idle SQPOLL thread keeps polling before it sleeps: 1 s keeps it awake across an
/// open loop's gaps (fio leaves the kernel's default).
pub(super) const SQPOLL_IDLE_MS: u32 = 1000;

/// Whether this kernel (and its seccomp policy) lets us create a ring at all.
pub fn available() -> Result<(), String> {
    IoUring::new(2).map(|_| ()).map_err(|e| match e.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel has no io_uring".to_string(),
        Some(libc::EPERM) => "io_uring is disabled (kernel.io_uring_disabled or seccomp)".to_string(),
        _ => format!("io_uring setup failed: {e}"),
    })
}

/// A ring flag drivelab asks for; its name is what `RingFacts::flags` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingFlag {
    CoopTaskrun,
    SingleIssuer,
    DeferTaskrun,
    Iopoll,
    Sqpoll,
}

impl RingFlag {
    pub fn name(self) -> &'static str {
        match self {
            RingFlag::CoopTaskrun => "coop_taskrun",
            RingFlag::SingleIssuer => "single_issuer",
            RingFlag::DeferTaskrun => "defer_taskrun",
            RingFlag::Iopoll => "iopoll",
            RingFlag::Sqpoll => "sqpoll",
        }
    }
}

/// A ring as built: the flags it has (typed: what the backend decides from), and what was asked
/// for and refused, with why.
pub(super) struct Built {
    pub(super) ring: IoUring,
    pub(super) flags: Vec<RingFlag>,
    pub(super) refused: Vec<String>,
}

impl Built {
    pub(super) fn has(&self, f: RingFlag) -> bool {
        self.flags.contains(&f)
    }
}

/// A ring with what `opts` asks for, each of IOPOLL and SQPOLL dropped (with a note) where the
/// kernel refuses it.
pub(super) fn build_ring(entries: u32, opts: UringOptions) -> io::Result<Built> {
    let mut refused = Vec::new();
    let mut tries = vec![(opts.hipri, opts.sqpoll)];
    for t in [(false, opts.sqpoll), (opts.hipri, false), (false, false)] {
        if !tries.contains(&t) {
            tries.push(t);
        }
    }
    let mut first_err = None;
    for (iopoll, sqpoll) in tries {
        match build_ring_with(entries, iopoll, sqpoll.then_some(opts.sqpoll_cpu)) {
            Ok((ring, mut flags)) => {
                for (asked, got, flag) in
                    [(opts.hipri, iopoll, RingFlag::Iopoll), (opts.sqpoll, sqpoll, RingFlag::Sqpoll)]
                {
                    if asked && !got {
                        let why = first_err.as_ref().map(|e: &io::Error| e.to_string()).unwrap_or_default();
                        refused.push(format!("{}: {why}", flag.name()));
                    }
                    if got {
                        flags.push(flag);
                    }
                }
                return Ok(Built { ring, flags, refused });
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| io::Error::other("no ring")))
}

fn build_ring_with(entries: u32, iopoll: bool, sqpoll: Option<Option<u32>>) -> io::Result<(IoUring, Vec<RingFlag>)> {
    const COOP: u8 = 1;
    const SINGLE: u8 = 2;
    const DEFER: u8 = 4;
    let attempts = [COOP | SINGLE | DEFER, COOP | SINGLE, COOP, 0];
    let mut last = None;
    for a in attempts {
        let mut b = IoUring::builder();
        b.setup_cqsize(entries * 2);
        if iopoll {
            b.setup_iopoll();
        }
        if let Some(cpu) = sqpoll {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(c) = cpu {
                b.setup_sqpoll_cpu(c);
            }
        }
        let mut flags = Vec::new();
        if a & COOP != 0 {
            b.setup_coop_taskrun();
            flags.push(RingFlag::CoopTaskrun);
        }
        if a & SINGLE != 0 {
            b.setup_single_issuer();
            flags.push(RingFlag::SingleIssuer);
        }
        if a & DEFER != 0 {
            b.setup_defer_taskrun();
            flags.push(RingFlag::DeferTaskrun);
        }
        match b.build(entries) {
            Ok(r) => return Ok((r, flags)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no ring")))
}

/// Register the ring's own fd for the calling thread; its index, or None where unsupported.
pub(super) fn register_ring_fd(ring_fd: RawFd) -> Option<i32> {
    let mut up = RsrcUpdate { offset: u32::MAX, resv: 0, data: ring_fd as u64 };
    // SAFETY: io_uring_register with a valid ring fd and one properly laid out rsrc update.
    let r = unsafe {
        libc::syscall(libc::SYS_io_uring_register, ring_fd, IORING_REGISTER_RING_FDS, &mut up as *mut RsrcUpdate, 1)
    };
    (r == 1).then_some(up.offset as i32)
}

/// The task id of a SQPOLL ring's kernel thread, from the ring's fdinfo (`SqThread:`).
pub(super) fn sq_thread_of(ring_fd: RawFd) -> Option<u32> {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{ring_fd}")).ok()?;
    info.lines().find_map(|l| l.strip_prefix("SqThread:")).and_then(|v| v.trim().parse().ok()).filter(|&t: &u32| t > 0)
}
