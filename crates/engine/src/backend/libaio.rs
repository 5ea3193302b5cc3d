//! Linux native AIO, fio's `ioengine=libaio`: one AIO context per job (`io_setup` for `qd`
//! I/Os), a batch of control blocks handed over with one `io_submit`, completions taken with
//! `io_getevents` (at least as many as the job waits for, as many as are ready). Through the raw
//! system calls (`libc::syscall`) and the kernel's own `struct iocb` / `struct io_event`, not
//! through libaio.so or a crate: the crates that wrap AIO are unmaintained (or GPL, or need
//! bindgen), and the four calls fit in this one file.
//!
//! As in fio's libaio engine:
//! - a short `io_submit` submits the rest; EAGAIN (the context's slots or the kernel's memory run
//!   short) takes completions to make room, then retries (`uring::submit_all`, io_uring's loop);
//! - trims and fsyncs are system calls that return when done (`trim.rs`; fio's libaio does them
//!   synchronously too, and AIO has no discard); a trim's result is reaped with the completions;
//! - per-I/O priorities (`cmdprio`) ride on the control block (`IOCB_FLAG_IOPRIO`);
//! - results are the kernel's: bytes transferred or `-errno`, short ones included.
//!
//! AIO is asynchronous only with O_DIRECT: buffered I/O is done inside `io_submit`, so its time
//! shows as submission time (slat), not completion time. fio allows it and so does drivelab
//! (the guide says so).
//!
//! I/O on files and block devices cannot be cancelled (`io_cancel` refuses it), so `Drop` waits
//! for every I/O in flight, then `io_destroy` (which waits too), before the buffers are freed;
//! if neither could, the buffers are leaked rather than freed under the kernel.

use std::io;
use std::mem::ManuallyDrop;

use super::files::Files;

use super::look::Look;
use super::uring::submit_all;
use super::{Backend, Pending};
use crate::gen::Op;
use crate::pattern::BufferPool;

/// `aio_context_t`: the context's id (the address of its completion ring in our memory).
type AioContext = libc::c_ulong;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
/// `aio_reqprio` holds the I/O's priority (Linux 5.0+).
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct iocb` (linux/aio_abi.h): what one I/O is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Iocb {
    /// Handed back in the completion's `data`: the slot.
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event`: one completion.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

// The kernel's sizes: a layout mistake fails the build, not an I/O.
const _: () = assert!(std::mem::size_of::<Iocb>() == 64 && std::mem::size_of::<IoEvent>() == 32);

pub(crate) struct Libaio {
    ctx: AioContext,
    /// The `RWF_` flags of every write's iocb (`atomic`; 0: none).
    write_flags: i32,
    /// One control block per slot (slot i's I/O is `iocbs[i]`).
    iocbs: Box<[Iocb]>,
    /// The control blocks of the batch being submitted. Sized once (qd), never grows past it.
    queue: Vec<*mut Iocb>,
    /// Completions taken from the kernel and not reaped yet: `events[..ready]`. One per slot,
    /// so never short of room for what is in flight.
    events: Box<[IoEvent]>,
    ready: usize,
    /// Trims, done at submit, to hand out with the completions (at most one per slot).
    stash: Vec<(u32, i32)>,
    /// I/Os the kernel took whose completion we have not taken yet.
    inflight: usize,
    /// Freed in `Drop` once nothing is in flight, or leaked when that could not be made sure.
    pool: ManuallyDrop<BufferPool>,
    /// Trims are discards (a block device) or punched holes (a file).
    files: Files,
    /// Whether the job looks for completions before sleeping (a short queue), and how long they
    /// have lately taken (`look.rs`).
    look: Look,
}

impl Libaio {
    /// An AIO context for `qd` outstanding I/Os on `file`, slot i of `pool` the buffer of the
    /// I/O in slot i.
    /// Every write with these `RWF_` flags (`EngineOptions::write_flags`).
    pub fn with_write_flags(mut self, flags: i32) -> Libaio {
        self.write_flags = flags;
        self
    }

    pub fn new(files: Files, qd: u32, pool: BufferPool) -> io::Result<Libaio> {
        let mut ctx: AioContext = 0;
        // SAFETY: io_setup writes the new context's id into `ctx`, which lives through the call
        // and is 0 as the call requires.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, qd as libc::c_long, &mut ctx as *mut AioContext) };
        if r < 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EAGAIN) => io::Error::other(format!(
                    "io_setup for {qd} I/Os: {e}: the system's AIO requests (sysctl fs.aio-max-nr) are all taken; \
                     raise fs.aio-max-nr, or lower the queue depth or the jobs"
                )),
                Some(libc::ENOSYS) => io::Error::other("the kernel has no AIO (built without CONFIG_AIO)"),
                _ => e,
            });
        }
        let slots = qd as usize;
        Ok(Libaio {
            ctx,
            write_flags: 0,
            iocbs: vec![Iocb::default(); slots].into_boxed_slice(),
            queue: Vec::with_capacity(slots),
            events: vec![IoEvent::default(); slots].into_boxed_slice(),
            ready: 0,
            stash: Vec::with_capacity(slots),
            inflight: 0,
            pool: ManuallyDrop::new(pool),
            files,
            look: Look::new(qd, false),
        })
    }

    /// One `io_submit` of the last `n` control blocks of the queue: how many the kernel took.
    #[inline]
    fn submit_tail(&mut self, n: u32) -> io::Result<u32> {
        let start = self.queue.len() - n as usize;
        // SAFETY: `queue[start..]` holds `n` pointers to control blocks in `iocbs`, each filled
        // for an I/O into its own slot of our pool (which lives until Drop has drained every
        // accepted I/O); the kernel reads them during the call only.
        let r = unsafe {
            libc::syscall(libc::SYS_io_submit, self.ctx, n as libc::c_long, self.queue.as_mut_ptr().add(start))
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        self.inflight += r as usize;
        Ok(r as u32)
    }

    /// One `io_getevents` for at least `min` completions (fewer when `timeout_ns` passes or a
    /// signal comes), into the free part of `events`: how many came.
    fn get_events(&mut self, min: usize, timeout_ns: Option<u64>) -> io::Result<usize> {
        let room = self.events.len() - self.ready;
        let ts = timeout_ns.map(|ns| libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        });
        let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: the kernel writes at most `room` events from `events[ready]` on, which is
        // inside `events`; `tsp` is null or points at `ts`, alive through the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min.min(room) as libc::c_long,
                room as libc::c_long,
                self.events.as_mut_ptr().add(self.ready),
                tsp,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = r as usize;
        self.ready += n;
        self.inflight -= n;
        Ok(n)
    }

    /// Make room for a submit the kernel refused with EAGAIN: take the completions that come
    /// within 50 us (at least one when any is in flight; else only wait the 50 us).
    fn make_room(&mut self) -> io::Result<()> {
        if self.inflight == 0 || self.ready == self.events.len() {
            crate::clock::sleep_until(crate::clock::now_ns() + 50_000);
            return Ok(());
        }
        self.take_events(1, Some(50_000))
    }

    /// [`Libaio::get_events`] where a signal that interrupts the wait is no error: it took
    /// nothing, and the caller looks again.
    #[inline]
    fn take_events(&mut self, min: usize, timeout_ns: Option<u64>) -> io::Result<()> {
        match self.get_events(min, timeout_ns) {
            Err(e) if e.raw_os_error() != Some(libc::EINTR) => Err(e),
            _ => Ok(()),
        }
    }

    /// Completions taken and not reaped.
    #[inline]
    fn done(&self) -> usize {
        self.ready + self.stash.len()
    }

    /// Wait for every I/O in flight; false if the kernel failed first. What completes (and what
    /// had completed) is dropped unreported: the job is over.
    fn drain(&mut self) -> bool {
        self.stash.clear();
        while self.inflight > 0 {
            self.ready = 0;
            match self.get_events(self.inflight, None) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(_) => return false,
            }
        }
        self.ready = 0;
        true
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        let drained = self.drain();
        // SAFETY: our context, destroyed once, here; it returns when the kernel has finished
        // every I/O of the context (or fails, leaving `destroyed` false).
        let destroyed = unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) } == 0;
        if drained || destroyed {
            // SAFETY: nothing is in flight (drained, or the context is gone with its I/O), so
            // the kernel no longer uses the buffers; `pool` is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.pool) };
        }
        // Otherwise the pool is leaked: the kernel may still write into it.
    }
}

// SAFETY: control blocks point into our own pool (io_ptr checks slot and length); the pool lives
// until Drop has drained every accepted I/O (or is leaked); each completion is handed out once
// (`ready` is reset as `reap` hands them out).
unsafe impl Backend for Libaio {
    const SUBMIT_COMPLETES: bool = false;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    /// `inflight` counts what each `io_submit` took, as it takes it, because `Drop` waits for
    /// that many.
    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> io::Result<()> {
        self.queue.clear();
        for p in batch {
            if p.op == Op::Trim {
                self.stash.push((p.slot, self.files.trim_now(p.file, p.offset, p.len)));
                continue;
            }
            let buf = self.pool.io_ptr(p.slot, p.len);
            let cb = &mut self.iocbs[p.slot as usize];
            *cb = Iocb {
                aio_data: p.slot as u64,
                aio_lio_opcode: if p.op == Op::Read { IOCB_CMD_PREAD } else { IOCB_CMD_PWRITE },
                aio_fildes: self.files.fd(p.file) as u32,
                aio_buf: buf as u64,
                aio_nbytes: p.len as u64,
                aio_offset: p.offset as i64,
                aio_rw_flags: if p.op == Op::Write { self.write_flags } else { 0 },
                ..Iocb::default()
            };
            if p.prio != 0 {
                (cb.aio_flags, cb.aio_reqprio) = (IOCB_FLAG_IOPRIO, p.prio as i16);
            }
            self.queue.push(cb);
        }
        let n = self.queue.len() as u32;
        if n == 0 {
            return Ok(());
        }
        // A short submit leaves the rest unsubmitted: submit it too, so the whole batch is in
        // flight when this returns; an error returns with the rest never seen by the kernel.
        submit_all(self, n, Libaio::submit_tail, Libaio::make_room)
    }

    #[inline]
    fn wait(&mut self, n: u32) -> io::Result<()> {
        if self.done() >= n as usize || self.inflight == 0 {
            return Ok(());
        }
        // At a short queue, look first with io_getevents that never waits (`look.rs`).
        let mut look = self.look;
        let waited = look.wait(&crate::clock::Monotonic, |sleep| {
            if !sleep {
                self.take_events(0, Some(0))?;
            }
            while sleep && self.done() < n as usize && self.inflight > 0 {
                let want = (n as usize - self.done()).min(self.inflight);
                self.take_events(want, None)?;
            }
            Ok(self.done() >= n as usize || self.inflight == 0)
        });
        self.look = look;
        waited
    }

    fn wait_timeout(&mut self, n: u32, timeout_ns: u64) -> io::Result<()> {
        if self.done() >= n as usize || self.inflight == 0 {
            return Ok(());
        }
        let want = (n as usize - self.done()).min(self.inflight);
        self.take_events(want, Some(timeout_ns))
    }

    #[inline]
    fn poll(&mut self) -> io::Result<bool> {
        if self.done() == 0 && self.inflight > 0 {
            self.take_events(0, Some(0))?;
        }
        Ok(self.done() > 0)
    }

    #[inline]
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        for (slot, res) in self.stash.drain(..) {
            f(slot, res);
        }
        for e in &self.events[..self.ready] {
            // Bytes (at most an I/O's length, 1 GiB) or -errno: both fit.
            f(e.data as u32, e.res as i32);
        }
        self.ready = 0;
    }

    fn fsync(&mut self, data_only: bool) -> io::Result<()> {
        self.files.sync(data_only)
    }

    fn looks_before_sleep(&self) -> Option<bool> {
        Some(self.look.enabled())
    }
}

#[cfg(test)]
#[path = "libaio_tests.rs"]
mod tests;
