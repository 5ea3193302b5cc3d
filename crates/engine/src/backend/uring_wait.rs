//! How an io_uring job waits for completions. A job thread that sleeps whenever no completion
//! is ready pays a wake-up for every one it sleeps for, and so does whoever completes the I/O
//! (the loop device's kernel worker, io_uring's io-wq workers, an interrupt handler): the send of
//! a wake-up to a halted virtual CPU and the switch back. Where completions come fast and the
//! job's queue is short, that wake-up is the device's idle time and the job's pace: so while
//! completions have lately come within [`SPIN_WAIT_MAX_NS`], the job first looks for them
//! without sleeping, for up to twice that recent wait, then sleeps. It does so:
//!
//! - on a file on tmpfs, whose I/Os the kernel hands to io-wq workers (4k randread QD8 on
//!   /dev/shm: 0.25M IOPS sleeping at once, fio 0.7M; looking first 0.9M, less CPU per I/O);
//! - at a queue depth of at most [`LOOK_MAX_DEPTH`], on anything: 4k randread on a loop device
//!   over /dev/shm, 2 cores, medians of 4 alternating pairs (issue #40): QD4 77k IOPS sleeping,
//!   232k looking (fio 89k); QD8 161–167k, 254–263k (fio 183–203k); QD16 219k, 265k (fio 245k);
//!   beside 4 CPU hogs at QD8 70k, 94k (fio 83k): a thread that sleeps less often also waits
//!   less often for a CPU to be given back. Four jobs at QD8 on 2 cores: 305k, 302k (looks
//!   that find nothing make the average wait too long to look again).
//!
//! Not deeper: at QD32 on the same loop device the device stays busy through the job's
//! wake-up, and a sleeping job gathers several completions per wake-up; looking took CPU from
//! the loop device's worker (272k against 288k, and 174k against 192k beside 4 hogs). On a
//! device whose completions take longer than [`SPIN_WAIT_MAX_NS`] (this machine's virtio disk:
//! 25 µs and more) nothing changes: the job sleeps at once, as fio's does.

use std::io;
use std::os::fd::RawFd;

use super::{Uring, IORING_ENTER_GETEVENTS};
use crate::backend::Backend;

/// Completions that come this soon after the job starts waiting are looked for before it
/// sleeps.
const SPIN_WAIT_MAX_NS: u64 = 20_000;

/// The deepest queue at which a job looks for completions before sleeping (see the module).
pub(super) const LOOK_MAX_DEPTH: u32 = 16;

/// Whether a job of queue depth `qd` looks for completions before it sleeps: at a short queue,
/// or on a tmpfs file (see the module).
pub(super) fn looks_before_sleep(qd: u32, regular_on_tmpfs: bool) -> bool {
    qd <= LOOK_MAX_DEPTH || regular_on_tmpfs
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_queue_or_a_tmpfs_file_looks_before_sleeping_a_deep_queue_elsewhere_does_not() {
        // The measured rule (see the module): a deep queue on a device sleeps at once, as fio's
        // job does; a short one, or any depth on tmpfs, looks first.
        for qd in [1, 4, 8, LOOK_MAX_DEPTH] {
            assert!(looks_before_sleep(qd, false), "QD{qd} on a device");
        }
        for qd in [LOOK_MAX_DEPTH + 1, 32, 128] {
            assert!(!looks_before_sleep(qd, false), "QD{qd} on a device");
            assert!(looks_before_sleep(qd, true), "QD{qd} on tmpfs");
        }
    }
}
