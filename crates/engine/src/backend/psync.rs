//! pread/pwrite, one I/O at a time: the baseline every storage engineer trusts, and the fallback
//! where io_uring is missing or forbidden. `submit` performs the call; `reap` hands back
//! its result.

use std::os::fd::{AsRawFd, RawFd};

use super::{Backend, Pending};
use crate::gen::Op;

pub struct Psync {
    fd: RawFd,
    done: Option<(u32, i32)>,
}

impl Psync {
    pub fn new(file: &std::fs::File) -> Psync {
        Psync { fd: file.as_raw_fd(), done: None }
    }
}

impl Backend for Psync {
    const SUBMIT_COMPLETES: bool = true;

    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
        debug_assert!(batch.len() <= 1, "psync runs one I/O at a time");
        if let Some(p) = batch.first() {
            // SAFETY: `p.buf` points at the slot's buffer of at least `p.len` bytes, owned by the
            // worker and not used elsewhere until this call returns; `fd` outlives the backend.
            let r = unsafe {
                match p.op {
                    Op::Read => libc::pread(self.fd, p.buf as *mut libc::c_void, p.len as usize, p.offset as i64),
                    Op::Write => libc::pwrite(self.fd, p.buf as *const libc::c_void, p.len as usize, p.offset as i64),
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

    fn fsync(&mut self) -> std::io::Result<()> {
        // SAFETY: plain syscall on an fd we keep open.
        if unsafe { libc::fsync(self.fd) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}
