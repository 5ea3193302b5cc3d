//! POSIX AIO, fio's `ioengine=posixaio`: glibc's `aio_read`/`aio_write` (done by glibc's own
//! helper threads with pread/pwrite), completions found by asking each I/O in flight
//! `aio_error` and waited for with `aio_suspend`, as fio's posixaio engine does. Its figures are
//! glibc's AIO's: a hand-off to a thread per I/O and a wake-up per completion, far slower than
//! io_uring or libaio, which is what a fio user running posixaio measures.
//!
//! One control block per slot, in place for the backend's life; the I/Os in flight are a list
//! of slots (at most the depth, allocated once), so neither submit nor reap allocates. Trims and
//! fsyncs are system calls that return when done, as with libaio (`trim.rs`).
//!
//! glibc's threads write into our buffers until `aio_error` says an I/O is done, and
//! `aio_cancel` cannot stop an I/O a thread has started: `Drop` waits for every I/O in flight
//! before the buffers are freed, and leaks them if it could not.

use std::io;
use std::mem::ManuallyDrop;

use super::files::Files;

use super::{Backend, Pending};
use crate::gen::Op;
use crate::pattern::BufferPool;

pub(crate) struct PosixAio {
    /// One control block per slot (slot i's I/O is `cbs[i]`), never moved.
    cbs: Box<[libc::aiocb]>,
    /// The slots whose I/O glibc has (not yet found done).
    inflight: Vec<u32>,
    /// Pointers to `inflight`'s control blocks, for `aio_suspend` (sized once: the depth).
    waiting: Vec<*const libc::aiocb>,
    /// Completions found and not reaped: (slot, bytes or -errno).
    done: Vec<(u32, i32)>,
    /// Freed in `Drop` once nothing is in flight, or leaked when that could not be made sure.
    pool: ManuallyDrop<BufferPool>,
    /// Trims are discards (a block device) or punched holes (a file).
    files: Files,
}

impl PosixAio {
    /// Control blocks for `qd` outstanding I/Os on `file`, slot i of `pool` the buffer of the
    /// I/O in slot i.
    pub fn new(files: Files, qd: u32, pool: BufferPool) -> PosixAio {
        let slots = qd as usize;
        // SAFETY: `aiocb` is a plain C struct for which all-zero bytes are a valid (unused)
        // value; every field an I/O needs is set in `submit`.
        let blank: libc::aiocb = unsafe { std::mem::zeroed() };
        PosixAio {
            cbs: vec![blank; slots].into_boxed_slice(),
            inflight: Vec::with_capacity(slots),
            waiting: Vec::with_capacity(slots),
            done: Vec::with_capacity(slots),
            pool: ManuallyDrop::new(pool),
            files,
        }
    }

    /// Move the I/Os glibc has finished from `inflight` to `done`: how many moved.
    fn collect(&mut self) -> usize {
        let before = self.done.len();
        let mut i = 0;
        while i < self.inflight.len() {
            let slot = self.inflight[i];
            let cb = &mut self.cbs[slot as usize];
            // SAFETY: `cb` is the control block of an I/O glibc accepted and we have not yet
            // found finished; it stays in place (a boxed slice) through the call.
            let err = unsafe { libc::aio_error(cb) };
            if err == libc::EINPROGRESS {
                i += 1;
                continue;
            }
            let res = if err == 0 {
                // SAFETY: the I/O is finished (aio_error is not EINPROGRESS); aio_return is
                // called once for it, as POSIX requires, here.
                let n = unsafe { libc::aio_return(cb) };
                // Bytes of one I/O (at most 1 GiB) or -1: both fit.
                if n < 0 {
                    -io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
                } else {
                    n as i32
                }
            } else {
                // SAFETY: as above; aio_return releases glibc's record of the failed I/O.
                unsafe { libc::aio_return(cb) };
                -err
            };
            self.done.push((slot, res));
            self.inflight.swap_remove(i);
        }
        self.done.len() - before
    }

    /// Sleep in `aio_suspend` until one I/O in flight finishes (or `timeout_ns`, or a signal).
    fn suspend(&mut self, timeout_ns: Option<u64>) -> io::Result<()> {
        self.waiting.clear();
        self.waiting.extend(self.inflight.iter().map(|&s| &self.cbs[s as usize] as *const libc::aiocb));
        let ts = timeout_ns.map(|ns| libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        });
        let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `waiting` holds `waiting.len()` pointers to control blocks of I/Os in flight
        // (alive in `cbs`), read by glibc during the call only; `tsp` is null or points at `ts`.
        let r = unsafe { libc::aio_suspend(self.waiting.as_ptr(), self.waiting.len() as libc::c_int, tsp) };
        if r != 0 {
            let e = io::Error::last_os_error();
            // A timeout (EAGAIN) or a signal (EINTR) returns with nothing more done.
            if !matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EINTR)) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Wait for every I/O in flight; false if glibc failed first. What completes is dropped
    /// unreported: the job is over.
    fn drain(&mut self) -> bool {
        while !self.inflight.is_empty() {
            self.collect();
            if !self.inflight.is_empty() && self.suspend(None).is_err() {
                return false;
            }
        }
        self.done.clear();
        true
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        if self.drain() {
            // SAFETY: nothing is in flight, so glibc's threads no longer use the buffers; `pool`
            // is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.pool) };
        }
        // Otherwise the pool is leaked: a helper thread may still write into it.
    }
}

// SAFETY: control blocks point into our own pool (io_ptr checks slot and length); the pool lives
// until Drop has drained every accepted I/O (or is leaked); each completion is moved to `done`
// once (its slot leaves `inflight`) and handed out once (`done` is drained by `reap`).
unsafe impl Backend for PosixAio {
    const SUBMIT_COMPLETES: bool = false;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> io::Result<()> {
        for p in batch {
            if p.op == Op::Trim {
                self.done.push((p.slot, self.files.trim_now(p.file, p.offset, p.len)));
                continue;
            }
            let buf = self.pool.io_ptr(p.slot, p.len);
            {
                let cb = &mut self.cbs[p.slot as usize];
                cb.aio_fildes = self.files.fd(p.file);
                cb.aio_buf = buf.cast();
                cb.aio_nbytes = p.len as usize;
                cb.aio_offset = p.offset as libc::off_t;
                cb.aio_reqprio = 0;
                cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
            }
            loop {
                let cb: *mut libc::aiocb = &mut self.cbs[p.slot as usize];
                // SAFETY: `cb` is slot `p.slot`'s control block (not in flight: the worker hands
                // a slot over only when it is free), filled for an I/O into that slot's buffer
                // of our pool, which outlives the I/O (Drop drains); it stays in place.
                let r = unsafe {
                    if p.op == Op::Read {
                        libc::aio_read(cb)
                    } else {
                        libc::aio_write(cb)
                    }
                };
                if r == 0 {
                    self.inflight.push(p.slot);
                    break;
                }
                let e = io::Error::last_os_error();
                // glibc's queue is full: wait for one of ours to finish, then try again.
                if e.raw_os_error() == Some(libc::EAGAIN) && !self.inflight.is_empty() {
                    self.collect();
                    if self.done.is_empty() {
                        self.suspend(Some(50_000))?;
                    }
                    continue;
                }
                return Err(e);
            }
        }
        Ok(())
    }

    #[inline]
    fn wait(&mut self, n: u32) -> io::Result<()> {
        loop {
            self.collect();
            if self.done.len() >= n as usize || self.inflight.is_empty() {
                return Ok(());
            }
            self.suspend(None)?;
        }
    }

    fn wait_timeout(&mut self, n: u32, timeout_ns: u64) -> io::Result<()> {
        self.collect();
        if self.done.len() >= n as usize || self.inflight.is_empty() {
            return Ok(());
        }
        self.suspend(Some(timeout_ns))?;
        self.collect();
        Ok(())
    }

    #[inline]
    fn poll(&mut self) -> io::Result<bool> {
        if self.done.is_empty() {
            self.collect();
        }
        Ok(!self.done.is_empty())
    }

    #[inline]
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        for (slot, res) in self.done.drain(..) {
            f(slot, res);
        }
    }

    fn fsync(&mut self, data_only: bool) -> io::Result<()> {
        self.files.sync(data_only)
    }

    /// aio_suspend sleeps at once, at every depth.
    fn looks_before_sleep(&self) -> Option<bool> {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::BufferPool;
    use std::fs::File;
    use std::io::Write;

    fn scratch(bytes: &[u8]) -> (std::path::PathBuf, File) {
        let path = std::env::temp_dir().join(format!("drivelab-posixaio-{}-{}", std::process::id(), bytes.len()));
        let mut f = File::create(&path).unwrap();
        f.write_all(bytes).unwrap();
        let f = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        (path, f)
    }

    #[test]
    fn reads_and_writes_complete_with_their_bytes_and_errors_as_errno() {
        let data: Vec<u8> = (0..64 * 1024).map(|i| (i % 251) as u8).collect();
        let (path, file) = scratch(&data);
        let mut b = PosixAio::new(crate::backend::files::Files::new(vec![file]), 4, BufferPool::new(4, 4096));
        let batch: Vec<Pending> = (0..4u32)
            .map(|i| Pending {
                slot: i,
                op: Op::Read,
                offset: u64::from(i) * 4096,
                len: 4096,
                prio: 0,
                file: 0,
                ranges: 1,
            })
            .collect();
        b.submit(&batch).unwrap();
        b.wait(4).unwrap();
        let mut got = Vec::new();
        b.reap(&mut |slot, res| got.push((slot, res)));
        got.sort();
        assert_eq!(got, (0..4).map(|s| (s, 4096)).collect::<Vec<_>>());
        for s in 0..4u32 {
            let at = s as usize * 4096;
            assert_eq!(&b.pool_mut().slot_mut(s as usize)[..4096], &data[at..at + 4096], "slot {s} holds its block");
        }
        // A read at the end of the file is short; past it, 0 bytes.
        b.submit(&[Pending { slot: 0, op: Op::Read, offset: 62 * 1024, len: 4096, prio: 0, file: 0, ranges: 1 }])
            .unwrap();
        b.submit(&[Pending { slot: 1, op: Op::Read, offset: 1 << 30, len: 4096, prio: 0, file: 0, ranges: 1 }])
            .unwrap();
        b.wait(2).unwrap();
        let mut got = Vec::new();
        b.reap(&mut |slot, res| got.push((slot, res)));
        got.sort();
        assert_eq!(got, vec![(0, 2048), (1, 0)]);
        // A write lands.
        b.pool_mut().slot_mut(2)[..4096].fill(0xab);
        b.submit(&[Pending { slot: 2, op: Op::Write, offset: 8192, len: 4096, prio: 0, file: 0, ranges: 1 }]).unwrap();
        b.wait(1).unwrap();
        b.reap(&mut |_, res| assert_eq!(res, 4096));
        b.fsync(true).unwrap();
        drop(b);
        assert!(std::fs::read(&path).unwrap()[8192..12288].iter().all(|&x| x == 0xab));
        // A descriptor opened read-only: a write fails with EBADF, as a result.
        let ro = File::open(&path).unwrap();
        let mut b = PosixAio::new(crate::backend::files::Files::new(vec![ro]), 1, BufferPool::new(1, 4096));
        b.submit(&[Pending { slot: 0, op: Op::Write, offset: 0, len: 4096, prio: 0, file: 0, ranges: 1 }]).unwrap();
        b.wait(1).unwrap();
        b.reap(&mut |_, res| assert_eq!(res, -libc::EBADF));
        std::fs::remove_file(&path).unwrap();
    }
}
