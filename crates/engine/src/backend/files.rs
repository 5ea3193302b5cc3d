//! A job's open files: one for drivelab's jobs (each target its own jobs), several for fio's
//! job over a file set (`filename=a:b`, `nrfiles`), which issues each I/O to one of them
//! (`Pending::file`). Each backend owns its job's `Files`, so no descriptor can close while
//! the kernel may still use it.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};

/// One open file: its descriptor, and whether trims are discards (a block device) or punched
/// holes (a file).
struct Open {
    file: File,
    fd: RawFd,
    block: bool,
}

pub(crate) struct Files(Vec<Open>);

impl Files {
    /// The job's files, in the order its I/Os name them (`Pending::file`); at least one.
    pub fn new(files: Vec<File>) -> Files {
        debug_assert!(!files.is_empty(), "a backend runs on at least one file");
        Files(
            files
                .into_iter()
                .map(|file| Open { fd: file.as_raw_fd(), block: super::trim::is_block_device(&file), file })
                .collect(),
        )
    }

    /// The descriptor of file `i` (an index the job's queue gave: always one of ours).
    #[inline]
    pub fn fd(&self, i: u32) -> RawFd {
        self.0[i as usize].fd
    }

    /// Every descriptor, in order (io_uring registers them).
    pub fn fds(&self) -> Vec<RawFd> {
        self.0.iter().map(|o| o.fd).collect()
    }

    /// Whether file `i` is a block device.
    #[inline]
    pub fn block(&self, i: u32) -> bool {
        self.0[i as usize].block
    }

    /// Whether any file is a block device (io_uring trims those by a system call).
    pub fn any_block(&self) -> bool {
        self.0.iter().any(|o| o.block)
    }

    /// The first file, kept (io_uring_cmd runs on one character device: a job over a file set
    /// with it is refused before it runs).
    pub fn into_first(self) -> File {
        self.0.into_iter().next().expect("at least one file").file
    }

    /// Trim `len` bytes at `offset` of file `i` now (`trim::trim_now`).
    #[inline]
    pub fn trim_now(&self, i: u32, offset: u64, len: u32) -> i32 {
        let o = &self.0[i as usize];
        super::trim::trim_now(&o.file, o.block, offset, len)
    }

    /// fsync (fdatasync when `data_only`) every file, as fio's fsync of a job over several
    /// files syncs each; the first error is returned after all were tried.
    pub fn sync(&self, data_only: bool) -> std::io::Result<()> {
        let mut first = Ok(());
        for o in &self.0 {
            let r = super::sync_file(&o.file, data_only);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}
