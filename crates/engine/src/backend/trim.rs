//! Trims, done as fio does them: a block device's range discarded (`BLKDISCARD`), a file's range
//! punched out (`fallocate(PUNCH_HOLE | KEEP_SIZE)`), both by a system call that returns when
//! the kernel has done it. io_uring has an asynchronous discard only from Linux 6.12 (a
//! `URING_CMD`), so its backend trims block devices with this call too, like fio's io_uring
//! engine; a file's hole is punched through the ring (`IORING_OP_FALLOCATE`).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;

/// `_IO(0x12, 119)`: discard a byte range `[start, len]` of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// `fallocate`'s mode for a trim of a file: punch a hole, keep the size.
pub(crate) const PUNCH_HOLE: i32 = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;

/// Whether `file` is a block device (trims are discards) rather than a file (punched holes).
pub(crate) fn is_block_device(file: &File) -> bool {
    file.metadata().map(|m| m.file_type().is_block_device()).unwrap_or(false)
}

/// Trim `len` bytes at `offset` of `file` now: `len` when done, else `-errno` (io_uring's
/// convention, as every backend reports results).
pub(crate) fn trim_now(file: &File, block: bool, offset: u64, len: u32) -> i32 {
    let fd = file.as_raw_fd();
    let r = if block {
        let range: [u64; 2] = [offset, len as u64];
        // SAFETY: BLKDISCARD reads two u64s (start, length) from the pointer, which points at
        // `range`, alive for the call; `fd` is our open block device.
        unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) }
    } else {
        // SAFETY: fallocate takes no pointers; `fd` is our open file.
        unsafe { libc::fallocate(fd, PUNCH_HOLE, offset as libc::off_t, len as libc::off_t) }
    };
    if r < 0 {
        -std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
    } else {
        len as i32
    }
}
