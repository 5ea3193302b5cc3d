//! pread/pwrite, one I/O at a time: the baseline every storage engineer trusts, and the fallback
//! where io_uring is missing or forbidden. `submit` performs the call; `reap` hands back
//! its result.

use super::files::Files;
use super::{Backend, Pending};
use crate::gen::Op;
use crate::pattern::BufferPool;

pub(crate) struct Psync {
    files: Files,
    pool: BufferPool,
    done: Option<(u32, i32)>,
    /// The `RWF_` flags of every write (`atomic`: `pwritev2` then; 0: `pwrite`).
    write_flags: i32,
}

impl Psync {
    pub fn new(files: Files, pool: BufferPool) -> Psync {
        Psync { files, pool, done: None, write_flags: 0 }
    }

    /// Every write with these `RWF_` flags (`EngineOptions::write_flags`).
    pub fn with_write_flags(mut self, flags: i32) -> Psync {
        self.write_flags = flags;
        self
    }
}

// SAFETY: the only pointer into the pool is passed to a pread/pwrite that has returned before
// `submit` does; nothing is in flight afterwards.
unsafe impl Backend for Psync {
    const SUBMIT_COMPLETES: bool = true;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
        debug_assert!(batch.len() <= 1, "psync runs one I/O at a time");
        if let Some(p) = batch.first().filter(|p| p.op == Op::Trim) {
            self.done = Some((p.slot, self.files.trim_now(p.file, p.offset, p.len)));
            return Ok(());
        }
        if let Some(p) = batch.first() {
            let buf = self.pool.io_ptr(p.slot, p.len);
            let fd = self.files.fd(p.file);
            // SAFETY: `buf` points at `p.len` bytes of slot `p.slot` of our own pool (io_ptr
            // checks both), which nothing else uses during the call (`iov` describes the same
            // bytes and lives through it); `fd` is one of our open files.
            let r = unsafe {
                match p.op {
                    Op::Read => libc::pread(fd, buf as *mut libc::c_void, p.len as usize, p.offset as i64),
                    Op::Write if self.write_flags == 0 => {
                        libc::pwrite(fd, buf as *const libc::c_void, p.len as usize, p.offset as i64)
                    }
                    Op::Write => {
                        let iov = libc::iovec { iov_base: buf as *mut libc::c_void, iov_len: p.len as usize };
                        libc::pwritev2(fd, &iov, 1, p.offset as i64, self.write_flags)
                    }
                    Op::Trim => unreachable!("trims are done above"),
                }
            };
            let res =
                if r < 0 { -std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO) } else { r as i32 };
            self.done = Some((p.slot, res));
        }
        Ok(())
    }

    #[inline]
    fn wait(&mut self, _n: u32) -> std::io::Result<()> {
        Ok(())
    }

    #[inline]
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        if let Some((slot, res)) = self.done.take() {
            f(slot, res);
        }
    }

    fn fsync(&mut self, data_only: bool) -> std::io::Result<()> {
        self.files.sync(data_only)
    }
}
