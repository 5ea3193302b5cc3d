//! How an io_uring job waits for completions. Where the kernel hands every I/O to its io-wq
//! workers (a tmpfs file), a job thread that sleeps at once makes the worker wake it for every
//! completion and then run dry (4k randread QD8 on /dev/shm: 0.25M IOPS, fio 0.7M); there, while
//! completions have lately come within [`SPIN_WAIT_MAX_NS`], the job first looks for them
//! without sleeping, for up to twice that recent wait (0.9M IOPS, less CPU per I/O). Not on
//! block devices: on a loop device over /dev/shm the looking took CPU from the loop device's
//! kernel worker on this 2-core machine (7% fewer IOPS at QD32).

use std::io;
use std::os::fd::RawFd;

use super::{Uring, IORING_ENTER_GETEVENTS};
use crate::backend::Backend;

/// Completions that come this soon after the job starts waiting are looked for before it
/// sleeps.
const SPIN_WAIT_MAX_NS: u64 = 20_000;

/// Whether `fd` is on tmpfs (`TMPFS_MAGIC`; a device node in devtmpfs is too: callers ask only
/// for regular files).
pub(super) fn on_tmpfs(fd: RawFd) -> bool {
    // SAFETY: all-zero bytes are a valid `statfs` (integers only).
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: fstatfs writes only into `s`, which lives through the call; `fd` is our open file.
    let ok = unsafe { libc::fstatfs(fd, &mut s) } == 0;
    ok && s.f_type == libc::TMPFS_MAGIC
}

impl Uring {
    /// Wait for `n` completions, on a tmpfs file looking for them first (see the module).
    #[inline]
    pub(super) fn wait_for(&mut self, n: u32) -> io::Result<()> {
        let ready = |u: &mut Uring| u.ring.completion().len() + u.stash.len() >= n as usize;
        if ready(self) {
            return Ok(());
        }
        let start = crate::clock::now_ns();
        if self.look_before_sleep && self.wait_avg_ns <= SPIN_WAIT_MAX_NS {
            let until = start + 2 * self.wait_avg_ns;
            loop {
                // A look that never sleeps (it runs the completion work that is due).
                if self.poll()? && ready(self) {
                    self.waited(crate::clock::now_ns() - start);
                    return Ok(());
                }
                if crate::clock::now_ns() >= until {
                    break;
                }
            }
        }
        self.enter(0, n, IORING_ENTER_GETEVENTS)?;
        self.waited(crate::clock::now_ns() - start);
        Ok(())
    }

    /// A wait for a completion took `ns`: fold it into the recent average (1/8 weight; the first
    /// one sets it).
    #[inline]
    fn waited(&mut self, ns: u64) {
        self.wait_avg_ns = if self.wait_avg_ns == u64::MAX { ns } else { (7 * self.wait_avg_ns + ns) / 8 };
    }
}
