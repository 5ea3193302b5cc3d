//! io_uring: one ring per job thread, the target registered as a fixed file and every slot's
//! buffer registered once, a whole batch of SQEs pushed at once and submitted with one
//! `io_uring_enter` (its return checked: a short submit resubmits the rest; EAGAIN/EBUSY reap
//! completions into a stash and retry), a second one to wait only when no completion is ready
//! yet, and the completion queue drained in one pass. The slot index is the SQE's user_data, and each buffer stays owned by its slot until its
//! completion arrives (the worker drains all in-flight I/O before dropping the ring).
//!
//! How a job waits for completions (looking before sleeping at a short queue or on tmpfs) is in
//! `uring_wait.rs`, how the ring is built (flags asked for, typed, dropped where refused) in
//! `uring_setup.rs`; this file is the ring's submission and teardown, one job.
//!
//! Ring flags that cut kernel overhead (COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN) are asked for
//! and dropped one by one where the kernel refuses them; what was accepted is reported.
//!
//! Asked for ([`UringOptions`] in `uring_setup.rs`, fio's `hipri` and `sqthread_poll`): IOPOLL polls for completions
//! instead of taking interrupts (waiting then polls in the kernel, and a wait with a timeout
//! polls until the timeout); SQPOLL has a kernel thread take submissions off the ring (a submit is
//! a system call only when that thread has gone to sleep), and that thread's CPU time is read
//! from its CPU clock (schedstat where that is refused) so the result can count it. Either, refused by the kernel, is dropped with a
//! note in `RingFacts::refused`.

use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, RawFd};

use io_uring::{opcode, squeue, types, IoUring};

use super::files::Files;
use super::{Backend, Pending};
use crate::pattern::BufferPool;
pub use setup::{available, RingFlag, UringOptions};
use setup::{build_ring, register_ring_fd, sq_thread_of, Built};

// Kernel ABI values the io-uring crate keeps private.
const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
const IORING_ENTER_SQ_WAKEUP: u32 = 1 << 1;
const IORING_ENTER_EXT_ARG: u32 = 1 << 3;
const IORING_ENTER_REGISTERED_RING: u32 = 1 << 4;
pub(super) const IORING_REGISTER_RING_FDS: u32 = 20;
const IORING_UNREGISTER_RING_FDS: u32 = 21;

/// `struct io_uring_rsrc_update` (registering the ring's own fd).
#[repr(C)]
pub(super) struct RsrcUpdate {
    pub(super) offset: u32,
    pub(super) resv: u32,
    pub(super) data: u64,
}
use crate::gen::Op;

/// `struct io_uring_getevents_arg` (waiting with a timeout, Linux 5.11+).
#[repr(C)]
struct GetEventsArg {
    sigmask: u64,
    sigmask_sz: u32,
    min_wait_usec: u32,
    ts: u64,
}

/// `struct __kernel_timespec`.
#[repr(C)]
struct KernelTimespec {
    tv_sec: i64,
    tv_nsec: i64,
}

/// What the ring ended up with, for the result's engine facts.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct RingFacts {
    pub flags: Vec<String>,
    pub fixed_file: bool,
    pub fixed_buffers: bool,
    /// The ring's own fd is registered (io_uring_enter skips the fd lookup).
    #[serde(default)]
    pub registered_ring: bool,
    /// What was asked for and refused by the kernel, and why ("sqpoll: Operation not permitted").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
}

pub(crate) struct Uring {
    /// The `RWF_` flags of every write's SQE (`atomic`; 0: none).
    write_flags: i32,
    /// Closed in `Drop`, after everything in flight has completed.
    ring: ManuallyDrop<IoUring>,
    /// The buffers registered with the ring; freed in `Drop` after the ring is closed, or
    /// leaked when in-flight I/O could not be drained.
    pool: ManuallyDrop<BufferPool>,
    /// I/Os the kernel took whose completion we have not taken off the ring yet.
    inflight: usize,
    files: Files,
    fixed_file: bool,
    fixed_buffers: bool,
    /// What `io_uring_enter` is called with: the registered ring index (then `enter_flags` has
    /// IORING_ENTER_REGISTERED_RING, and the kernel skips the fd lookup) or the ring fd.
    enter_fd: i32,
    enter_flags: u32,
    /// Completions taken off the ring while making room for a submit that the kernel refused
    /// with EAGAIN/EBUSY; `reap` hands them out first. Sized once (qd), never grows past it.
    stash: Vec<(u32, i32)>,
    /// IOPOLL: completions are polled for, never signalled.
    iopoll: bool,
    /// SQPOLL: a kernel thread takes the submissions.
    sqpoll: bool,
    /// SQPOLL: that thread's task id (for its CPU time), when it could be found.
    sq_thread: Option<u32>,
    /// Whether the job looks for completions before sleeping (a short queue, or a file on
    /// tmpfs), and how long they have lately taken (`look.rs`, `uring_wait.rs`).
    look: super::look::Look,
    /// A file is a block device: its trims are discards, done by a system call in `submit` (the
    /// ring's discard needs Linux 6.12); a file's trims punch holes through the ring.
    any_block: bool,
    pub facts: RingFacts,
    /// Bits every SQE's user_data carries above its slot (`--latency-split`'s: `Wiring::split_tag`).
    tag: u64,
    /// Tests: the errno the next submit call fails with, instead of calling the kernel.
    #[cfg(test)]
    fail_next_submit: Option<i32>,
}

/// How often a submit refused with EAGAIN/EBUSY is retried before giving up (each retry first
/// waits for a completion, or 50 us when none is in flight).
const SUBMIT_RETRIES: u32 = 10_000;

/// Submit `to_submit` queued SQEs through `enter` (one `io_uring_enter`, returning how many the
/// kernel consumed) until all are consumed. A short count resubmits the rest; EAGAIN and EBUSY
/// (the kernel is short of memory or its completion queue is backed up) call `make_room`
/// (reap completions) and retry; EINTR retries at once. Any other error is returned — only
/// when nothing more of the batch was consumed, so the caller knows the rest is not in flight.
pub(super) fn submit_all<S>(
    state: &mut S,
    mut to_submit: u32,
    enter: impl Fn(&mut S, u32) -> io::Result<u32>,
    make_room: impl Fn(&mut S) -> io::Result<()>,
) -> io::Result<()> {
    let mut retries = 0u32;
    while to_submit > 0 {
        match enter(state, to_submit) {
            Ok(n) if n > 0 => to_submit -= n.min(to_submit),
            // Nothing consumed without an error: treat as busy.
            Ok(_) => {
                retries += 1;
                if retries > SUBMIT_RETRIES {
                    return Err(io::Error::other(format!("the kernel took none of {to_submit} queued I/Os")));
                }
                make_room(state)?;
            }
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EBUSY)) => {
                retries += 1;
                if retries > SUBMIT_RETRIES {
                    return Err(e);
                }
                make_room(state)?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Uring {
    /// A ring for `qd` outstanding I/Os on `file`, with every slot of `pool` registered (slot i
    /// = buffer i), every SQE's user_data carrying `tag` above its slot. Must be called on the
    /// thread that will submit (SINGLE_ISSUER).
    pub fn new(files: Files, qd: u32, pool: BufferPool, opts: UringOptions, tag: u64) -> io::Result<Uring> {
        let entries = qd.next_power_of_two().max(2);
        let built = build_ring(entries, opts)?;
        let (iopoll, sqpoll) = (built.has(RingFlag::Iopoll), built.has(RingFlag::Sqpoll));
        let Built { ring, flags, refused } = built;
        let flags = flags.into_iter().map(|f| f.name().to_string()).collect();
        let sq_thread = if sqpoll { sq_thread_of(ring.as_raw_fd()) } else { None };
        let fixed_file = ring.submitter().register_files(&files.fds()).is_ok();
        let bufs = pool.iovecs();
        // SAFETY: the iovecs describe `pool`, which moves into the returned Uring (its heap
        // allocation does not move) and is freed only in Uring's Drop after the ring is drained
        // and closed.
        let fixed_buffers =
            bufs.len() <= u16::MAX as usize + 1 && unsafe { ring.submitter().register_buffers(&bufs) }.is_ok();
        let (enter_fd, enter_flags) = match register_ring_fd(ring.as_raw_fd()) {
            Some(i) => (i, IORING_ENTER_REGISTERED_RING),
            None => (ring.as_raw_fd(), 0),
        };
        let stash = Vec::with_capacity(qd as usize);
        let any_block = files.any_block();
        // A regular file only: a device node on /dev (devtmpfs) reports tmpfs too.
        let look = super::look::Look::new(qd, !any_block && wait::on_tmpfs(files.fd(0)));
        let facts = RingFacts { flags, fixed_file, fixed_buffers, registered_ring: enter_flags != 0, refused };
        Ok(Uring {
            write_flags: 0,
            ring: ManuallyDrop::new(ring),
            pool: ManuallyDrop::new(pool),
            inflight: 0,
            files,
            fixed_file,
            fixed_buffers,
            enter_fd,
            enter_flags,
            stash,
            iopoll,
            sqpoll,
            sq_thread,
            look,
            any_block,
            facts,
            tag,
            #[cfg(test)]
            fail_next_submit: None,
        })
    }

    /// Every write with these `RWF_` flags (`EngineOptions::write_flags`).
    pub fn with_write_flags(mut self, flags: i32) -> Uring {
        self.write_flags = flags;
        self
    }

    /// SQPOLL: CPU time its kernel thread has used so far, in ns (None without SQPOLL, or when
    /// the thread could not be found).
    pub fn sq_thread_cpu_ns(&self) -> Option<u64> {
        let tid = self.sq_thread?;
        // The thread's CPU clock (it is a thread of this process): exact up to now, where
        // schedstat is brought up to date only at the scheduler's ticks while it runs.
        let clock = ((!(tid as libc::clockid_t)) << 3) | 6; // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes one timespec we own; an invalid clock id is an error return.
        if unsafe { libc::clock_gettime(clock, &mut ts) } == 0 {
            return Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
        }
        let text = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
        text.split_whitespace().next()?.parse().ok()
    }

    /// One io_uring_enter without an argument struct: what it returned (SQEs consumed), or the
    /// error (EINTR included).
    #[inline]
    fn enter_once(&self, to_submit: u32, min_complete: u32, flags: u32) -> io::Result<u32> {
        // SAFETY: `enter_fd` is this ring (registered index with the matching flag, or its
        // fd); no argument struct is passed. The SQ tail was published by the submission
        // queue's drop before this call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd,
                to_submit,
                min_complete,
                flags | self.enter_flags,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        if r >= 0 {
            Ok(r as u32)
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Room in the submission queue for `n` more entries, or an error with nothing pushed. Only
    /// a SQPOLL ring can be short of it (its kernel thread moves the head past a batch a moment
    /// after posting that batch's inline completions): wait for it, at most a second.
    fn room_for(&mut self, n: usize) -> io::Result<()> {
        let mut sq = self.ring.submission();
        let free = |sq: &squeue::SubmissionQueue<'_>| sq.capacity() - sq.len();
        if free(&sq) < n && self.sqpoll {
            let deadline = crate::clock::now_ns() + 1_000_000_000;
            while free(&sq) < n && crate::clock::now_ns() < deadline {
                std::hint::spin_loop();
                sq.sync();
            }
        }
        if free(&sq) < n {
            return Err(io::Error::other(format!("submission queue full: {} of {n} entries free", free(&sq))));
        }
        Ok(())
    }

    /// SQPOLL: wake the kernel thread if it sleeps (a system call only then).
    fn wake_sq_thread(&mut self) -> io::Result<()> {
        if let Some(e) = self.injected_failure() {
            return Err(e);
        }
        self.ring.submitter().submit().map(|_| ())
    }

    /// One io_uring_enter submitting `n` queued entries: how many the kernel took.
    #[inline]
    fn enter_submit(&mut self, n: u32) -> io::Result<u32> {
        if let Some(e) = self.injected_failure() {
            return Err(e);
        }
        self.enter_once(n, 0, 0)
    }

    /// Tests: a failure to inject into the next submit call (the kernel refusing it).
    #[inline(always)]
    fn injected_failure(&mut self) -> Option<io::Error> {
        #[cfg(test)]
        if let Some(errno) = self.fail_next_submit.take() {
            return Some(io::Error::from_raw_os_error(errno));
        }
        None
    }

    /// Make room for a refused submit: wait for one completion (or 50 us when there is none to
    /// wait for) and move what completed into the stash, freeing completion-queue entries.
    fn make_room(&mut self) -> io::Result<()> {
        if self.ring.completion().is_empty() {
            // Whether anything is in flight is the worker's business; a bounded wait works
            // either way.
            self.wait_timeout_raw(1, 50_000)?;
        }
        for cqe in self.ring.completion() {
            self.inflight -= 1;
            self.stash.push((cqe.user_data() as u32, cqe.result()));
        }
        Ok(())
    }

    /// io_uring_enter without an argument struct, retried on EINTR.
    #[inline]
    fn enter(&self, to_submit: u32, min_complete: u32, flags: u32) -> io::Result<()> {
        loop {
            match self.enter_once(to_submit, min_complete, flags) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

#[inline]
fn sqe(fixed_file: bool, fixed_buffers: bool, fd: RawFd, p: &Pending, buf: *mut u8, wflags: i32) -> squeue::Entry {
    // The kernel refuses an atomic write from a registered buffer (EINVAL: it takes one user
    // buffer, not a bvec), so such a write names its buffer by address.
    let fixed_buffers = fixed_buffers && !(wflags & libc::RWF_ATOMIC != 0 && p.op == Op::Write);
    let e = match (fixed_file, fixed_buffers, p.op) {
        (true, true, Op::Read) => opcode::ReadFixed::new(types::Fixed(p.file), buf, p.len, p.slot as u16)
            .offset(p.offset)
            .ioprio(p.prio)
            .build(),
        (true, true, Op::Write) => opcode::WriteFixed::new(types::Fixed(p.file), buf, p.len, p.slot as u16)
            .offset(p.offset)
            .ioprio(p.prio)
            .rw_flags(wflags)
            .build(),
        (true, false, Op::Read) => {
            opcode::Read::new(types::Fixed(p.file), buf, p.len).offset(p.offset).ioprio(p.prio).build()
        }
        (true, false, Op::Write) => opcode::Write::new(types::Fixed(p.file), buf, p.len)
            .offset(p.offset)
            .ioprio(p.prio)
            .rw_flags(wflags)
            .build(),
        (false, true, Op::Read) => {
            opcode::ReadFixed::new(types::Fd(fd), buf, p.len, p.slot as u16).offset(p.offset).ioprio(p.prio).build()
        }
        (false, true, Op::Write) => opcode::WriteFixed::new(types::Fd(fd), buf, p.len, p.slot as u16)
            .offset(p.offset)
            .ioprio(p.prio)
            .rw_flags(wflags)
            .build(),
        (false, false, Op::Read) => {
            opcode::Read::new(types::Fd(fd), buf, p.len).offset(p.offset).ioprio(p.prio).build()
        }
        (false, false, Op::Write) => {
            opcode::Write::new(types::Fd(fd), buf, p.len).offset(p.offset).ioprio(p.prio).rw_flags(wflags).build()
        }
        // A file's trim: its range punched out (a block device's is a discard, done in submit).
        (true, _, Op::Trim) => opcode::Fallocate::new(types::Fixed(p.file), p.len as u64)
            .offset(p.offset)
            .mode(super::trim::PUNCH_HOLE)
            .build(),
        (false, _, Op::Trim) => {
            opcode::Fallocate::new(types::Fd(fd), p.len as u64).offset(p.offset).mode(super::trim::PUNCH_HOLE).build()
        }
    };
    e.user_data(p.slot as u64)
}

impl Uring {
    /// Wait for every I/O still in flight; false if the ring failed first. A SQPOLL ring's
    /// thread is woken too, in case entries still wait in the ring for it (its wake-up call
    /// failed).
    fn drain(&mut self) -> bool {
        self.stash.clear();
        let wake = if self.sqpoll { IORING_ENTER_SQ_WAKEUP } else { 0 };
        while self.inflight > 0 {
            for _ in self.ring.completion() {
                self.inflight -= 1;
            }
            if self.inflight > 0 && self.enter(0, 1, IORING_ENTER_GETEVENTS | wake).is_err() {
                return false;
            }
        }
        true
    }
}

impl Drop for Uring {
    fn drop(&mut self) {
        let drained = self.drain();
        if self.enter_flags != 0 {
            let mut up = RsrcUpdate { offset: self.enter_fd as u32, resv: 0, data: 0 };
            // SAFETY: unregisters the index registered in `new`, on the same thread (the worker
            // creates and drops its ring); the ring itself is closed right after by IoUring.
            unsafe {
                libc::syscall(
                    libc::SYS_io_uring_register,
                    self.ring.as_raw_fd(),
                    IORING_UNREGISTER_RING_FDS,
                    &mut up as *mut RsrcUpdate,
                    1,
                )
            };
        }
        // SAFETY: `ring` is dropped once, here, and not used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
        if drained {
            // SAFETY: nothing is in flight and the ring that registered the buffers is closed,
            // so the kernel no longer uses them; `pool` is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.pool) };
        }
        // Otherwise the pool is leaked: the kernel may still write into it.
    }
}

// SAFETY: SQEs point into our own pool (io_ptr checks slot and length); the pool lives until
// Drop has drained every accepted I/O and closed the ring; each CQE is handed out once.
unsafe impl Backend for Uring {
    const SUBMIT_COMPLETES: bool = false;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    /// Every path keeps `inflight` exact, because `Drop` frees the buffers once it has drained
    /// that many: an entry is counted the moment the kernel may take it (for SQPOLL, once it is
    /// in the ring, whatever the wake-up call then says), and never before.
    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> io::Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        // All or nothing: room for the whole batch first, so no error leaves part of it queued.
        let ring_ios = if self.any_block {
            batch.iter().filter(|p| !(p.op == Op::Trim && self.files.block(p.file))).count()
        } else {
            batch.len()
        };
        self.room_for(ring_ios)?;
        let mut queued = 0u32;
        let mut pushed = Ok(());
        {
            let mut sq = self.ring.submission();
            for p in batch {
                if p.op == Op::Trim && self.any_block && self.files.block(p.file) {
                    // A discard now, reaped with the ring's completions (at most qd in the stash:
                    // one per slot).
                    self.stash.push((p.slot, self.files.trim_now(p.file, p.offset, p.len)));
                    continue;
                }
                let (fd, buf) = (self.files.fd(p.file), self.pool.io_ptr(p.slot, p.len));
                let e = sqe(self.fixed_file, self.fixed_buffers, fd, p, buf, self.write_flags);
                let e = if self.tag != 0 { e.user_data(p.slot as u64 | self.tag) } else { e };
                // SAFETY: the SQE's buffer is `p.len` bytes of slot `p.slot` of our pool, which
                // lives until Drop has drained the ring, and which the worker leaves alone until
                // this slot's completion is reaped; the file is ours and stays open.
                if unsafe { sq.push(&e) }.is_err() {
                    // Not after `room_for`; if it were, what was pushed is still accounted below.
                    pushed = Err(io::Error::other("submission queue full"));
                    break;
                }
                queued += 1;
            }
        }
        if queued == 0 {
            return pushed;
        }
        if self.sqpoll {
            // The kernel thread may take the entries as soon as they are in the ring, whether
            // or not the call that wakes it succeeds: they are in flight from here.
            self.inflight += queued as usize;
            let woken = self.wake_sq_thread();
            return pushed.and(woken);
        }
        // A short submit leaves the rest queued in the SQ ring: submit it too, so every I/O of
        // the batch is in flight when this returns (the worker counts them so). Each call's
        // count is added as it is taken; an error leaves the rest unconsumed (the kernel never
        // sees them).
        let submitted = submit_all(
            self,
            queued,
            |u, n| {
                let taken = u.enter_submit(n)?;
                u.inflight += taken as usize;
                Ok(taken)
            },
            Uring::make_room,
        );
        pushed.and(submitted)
    }

    /// Wait for `n` completions (at a short queue or on a tmpfs file looking for them first:
    /// `uring_wait.rs`).
    #[inline]
    fn wait(&mut self, n: u32) -> io::Result<()> {
        self.wait_for(n)
    }

    fn wait_timeout(&mut self, n: u32, timeout_ns: u64) -> io::Result<()> {
        if self.ring.completion().len() + self.stash.len() >= n as usize {
            return Ok(());
        }
        if self.iopoll {
            // A polled ring's wait ignores timeouts: poll until a completion or the time.
            let deadline = crate::clock::now_ns().saturating_add(timeout_ns);
            while !self.poll()? && crate::clock::now_ns() < deadline {}
            return Ok(());
        }
        self.wait_timeout_raw(n, timeout_ns)
    }

    #[inline]
    fn poll(&mut self) -> io::Result<bool> {
        if !self.ring.completion().is_empty() || !self.stash.is_empty() {
            return Ok(true);
        }
        match self.enter_once(0, 0, IORING_ENTER_GETEVENTS) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            Err(e) => return Err(e),
        }
        Ok(!self.ring.completion().is_empty())
    }

    #[inline]
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        for (slot, res) in self.stash.drain(..) {
            f(slot, res);
        }
        for cqe in self.ring.completion() {
            self.inflight -= 1;
            f(cqe.user_data() as u32, cqe.result());
        }
    }

    fn ring_facts(&self) -> Option<RingFacts> {
        Some(self.facts.clone())
    }

    fn looks_before_sleep(&self) -> Option<bool> {
        Some(self.look.enabled())
    }

    fn helper_cpu_ns(&self) -> Option<u64> {
        self.sq_thread_cpu_ns()
    }

    fn fsync(&mut self, data_only: bool) -> io::Result<()> {
        self.files.sync(data_only)
    }
}

impl Uring {
    /// Wait up to `timeout_ns` for `n` completions (EXT_ARG), without looking at the stash.
    fn wait_timeout_raw(&mut self, n: u32, timeout_ns: u64) -> io::Result<()> {
        let ts = KernelTimespec {
            tv_sec: (timeout_ns / 1_000_000_000) as i64,
            tv_nsec: (timeout_ns % 1_000_000_000) as i64,
        };
        let arg = GetEventsArg { sigmask: 0, sigmask_sz: 0, min_wait_usec: 0, ts: &ts as *const KernelTimespec as u64 };
        // SAFETY: `enter_fd` is this ring (see `enter`); `arg` and the timespec it points to
        // live until the call returns, and the size passed is that of the argument struct.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd,
                0u32,
                n,
                IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG | self.enter_flags,
                &arg as *const GetEventsArg,
                std::mem::size_of::<GetEventsArg>(),
            )
        };
        if r >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ETIME) | Some(libc::EINTR) => Ok(()),
            // A kernel without EXT_ARG (before 5.11): poll briefly instead of blocking past the
            // next intended issue time.
            Some(libc::EINVAL) => {
                crate::clock::sleep_until(crate::clock::now_ns() + timeout_ns.min(20_000));
                Ok(())
            }
            _ => Err(e),
        }
    }
}

#[path = "uring_setup.rs"]
mod setup;
#[cfg(test)]
#[path = "uring_tests.rs"]
mod tests;
#[path = "uring_wait.rs"]
mod wait;
