//! NVMe passthrough for `uring_cmd` (fio's `ioengine=io_uring_cmd`, `cmd_type=nvme`): the
//! kernel's `struct nvme_uring_cmd` (include/uapi/linux/nvme_ioctl.h) that rides in the second
//! half of a 128-byte SQE, its ioctl numbers, and which targets can carry it — an NVMe generic
//! character device `/dev/ngXnY`, whose namespace id comes from `NVME_IOCTL_ID` and whose LBA
//! size from sysfs (`/sys/block/nvmeXnY/queue/logical_block_size`). Kept apart from the ring
//! (`uring_cmd.rs`) so the encoding can be checked byte by byte without a device.
//!
//! Why a target cannot carry the commands is an [`NvmeTargetError`]: the words a user reads are
//! written once, there, and a caller can match the kind.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::gen::Op;

/// `_IOWR(type, nr, size)` of Linux's generic ioctl encoding (x86, arm, riscv).
const fn iowr(ty: u8, nr: u8, size: usize) -> u32 {
    (3 << 30) | ((size as u32) << 16) | ((ty as u32) << 8) | nr as u32
}

/// `NVME_IOCTL_ID`: `_IO('N', 0x40)`, the namespace id of the device the fd is open on.
pub(crate) const NVME_IOCTL_ID: u32 = ((b'N' as u32) << 8) | 0x40;
/// `NVME_IOCTL_IO_CMD`: `_IOWR('N', 0x43, struct nvme_passthru_cmd)` (a flush, synchronously).
pub(crate) const NVME_IOCTL_IO_CMD: u32 = iowr(b'N', 0x43, 72);
/// `NVME_URING_CMD_IO`: `_IOWR('N', 0x80, struct nvme_uring_cmd)`, the SQE's `cmd_op` for a
/// non-vectored command (`addr`/`data_len` name one buffer).
pub(crate) const NVME_URING_CMD_IO: u32 = iowr(b'N', 0x80, std::mem::size_of::<NvmeUringCmd>());

/// NVMe I/O command set opcodes.
pub(crate) const NVME_CMD_FLUSH: u8 = 0x00;
pub(crate) const NVME_CMD_WRITE: u8 = 0x01;
pub(crate) const NVME_CMD_READ: u8 = 0x02;

/// `struct nvme_uring_cmd` (72 bytes). `struct nvme_passthru_cmd` has the same layout (its
/// `result` where this has `rsvd2`), so a flush through `NVME_IOCTL_IO_CMD` uses it too.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NvmeUringCmd {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    pub rsvd2: u32,
}

const _: () = assert!(std::mem::size_of::<NvmeUringCmd>() == 72);

impl NvmeUringCmd {
    /// A read or write of `len` bytes at byte `offset` of namespace `nsid` (LBAs of
    /// `1 << lba_shift` bytes) into or from the buffer at `addr`. None when the I/O is not whole
    /// LBAs, or is not a read or write.
    #[inline]
    pub(crate) fn rw(op: Op, nsid: u32, lba_shift: u32, offset: u64, len: u32, addr: u64) -> Option<NvmeUringCmd> {
        let opcode = match op {
            Op::Read => NVME_CMD_READ,
            Op::Write => NVME_CMD_WRITE,
            Op::Trim => return None,
        };
        let mask = (1u64 << lba_shift) - 1;
        if len == 0 || offset & mask != 0 || len as u64 & mask != 0 {
            return None;
        }
        let slba = offset >> lba_shift;
        let nlb = (len >> lba_shift) - 1;
        Some(NvmeUringCmd {
            opcode,
            nsid,
            addr,
            data_len: len,
            cdw10: slba as u32,
            cdw11: (slba >> 32) as u32,
            cdw12: nlb,
            ..Default::default()
        })
    }

    /// The 80 bytes of an SQE128's command area: this struct, then 8 zero bytes.
    #[inline]
    pub(crate) fn to_cmd80(self) -> [u8; 80] {
        let mut out = [0u8; 80];
        // SAFETY: NvmeUringCmd is repr(C), 72 bytes of integers with no padding (its fields are
        // laid end to end at their natural alignment), so all its bytes are initialized.
        let bytes: [u8; 72] = unsafe { std::mem::transmute(self) };
        out[..72].copy_from_slice(&bytes);
        out
    }
}

/// A namespace as the backend addresses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Namespace {
    pub nsid: u32,
    pub lba_shift: u32,
}

/// `ngXnY` → `nvmeXnY` (the block device of the same namespace), or None for any other name.
pub fn block_name_of(char_name: &str) -> Option<String> {
    let rest = char_name.strip_prefix("ng")?;
    let (ctrl, ns) = rest.split_once('n')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(ctrl) && digits(ns)).then(|| format!("nvme{ctrl}n{ns}"))
}

/// What every refusal of a target for io_uring_cmd ends with: what it needs, and the fix.
const NOT_GENERIC: &str =
    "not an NVMe generic character device (/dev/ngXnY): ioengine io_uring_cmd (engine uring_cmd) \
                           passes NVMe commands through one; use io_uring (engine uring) for files and block devices";

/// Why a target cannot carry NVMe commands through io_uring_cmd (the user named the wrong
/// target: it becomes an [`crate::Error::Invalid`] with the same words), or why sysfs does not
/// give its namespace's LBA size. `path` is the target, `file` the sysfs file read.
#[derive(Debug, thiserror::Error)]
pub enum NvmeTargetError {
    #[error("{path} is not readable ({source}), {}", NOT_GENERIC)]
    Unreadable { path: String, source: io::Error },
    #[error("{path} is a regular file, {}", NOT_GENERIC)]
    RegularFile { path: String },
    #[error("{path} is a block device, {}", NOT_GENERIC)]
    BlockDevice { path: String },
    #[error("{path} is neither a file nor a device, {}", NOT_GENERIC)]
    NotAFileOrDevice { path: String },
    #[error("{path} is a character device not named ngXnY, {}", NOT_GENERIC)]
    NotNamedNg { path: String },
    /// Named ngXnY, but sysfs does not describe its namespace: `inner` says how.
    #[error("{path} is a character device without a namespace: {inner}, {}", NOT_GENERIC)]
    NoNamespace { path: String, inner: Box<NvmeTargetError> },
    #[error("cannot read {}: {source}", file.display())]
    SysfsUnreadable { file: PathBuf, source: io::Error },
    #[error("{} holds '{text}', not a size", file.display())]
    SysfsNotASize { file: PathBuf, text: String },
    #[error("{} holds {bytes}, not a power of two of 512 or more", file.display())]
    SysfsBadSize { file: PathBuf, bytes: u32 },
}

impl From<NvmeTargetError> for crate::Error {
    fn from(e: NvmeTargetError) -> crate::Error {
        crate::Error::invalid(e.to_string())
    }
}

/// The LBA size sysfs gives for block device `disk` under `sys` (normally `/sys`).
fn lba_bytes(sys: &Path, disk: &str) -> Result<u32, NvmeTargetError> {
    let file = sys.join("block").join(disk).join("queue/logical_block_size");
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(source) => return Err(NvmeTargetError::SysfsUnreadable { file, source }),
    };
    let Ok(bytes) = text.trim().parse::<u32>() else {
        return Err(NvmeTargetError::SysfsNotASize { file, text: text.trim().to_string() });
    };
    if !bytes.is_power_of_two() || bytes < 512 {
        return Err(NvmeTargetError::SysfsBadSize { file, bytes });
    }
    Ok(bytes)
}

/// Why `path` cannot carry NVMe commands through io_uring_cmd, or the namespace's block
/// device name (`nvmeXnY`) and LBA size in bytes. Looks only at the name, the inode and sysfs:
/// no I/O, so it runs before anything else.
pub fn check_target(path: &str) -> Result<(String, u32), NvmeTargetError> {
    check_target_in(Path::new(crate::sysfs::SYS), path)
}

fn check_target_in(sys: &Path, path: &str) -> Result<(String, u32), NvmeTargetError> {
    let owned = || path.to_string();
    let meta = std::fs::metadata(path).map_err(|source| NvmeTargetError::Unreadable { path: owned(), source })?;
    let ft = meta.file_type();
    if ft.is_file() {
        return Err(NvmeTargetError::RegularFile { path: owned() });
    }
    if ft.is_block_device() {
        return Err(NvmeTargetError::BlockDevice { path: owned() });
    }
    if !ft.is_char_device() {
        return Err(NvmeTargetError::NotAFileOrDevice { path: owned() });
    }
    let name = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let disk = block_name_of(&name).ok_or_else(|| NvmeTargetError::NotNamedNg { path: owned() })?;
    let lba = lba_bytes(sys, &disk).map_err(|e| NvmeTargetError::NoNamespace { path: owned(), inner: Box::new(e) })?;
    Ok((disk, lba))
}

/// The namespace behind an open generic character device: its id (`NVME_IOCTL_ID`) and LBA
/// size (sysfs, found through the path the fd was opened by).
pub(crate) fn namespace_of(file: &File) -> io::Result<Namespace> {
    let fd = file.as_raw_fd();
    let path = std::fs::read_link(format!("/proc/self/fd/{fd}"))?;
    let (_, lba) = check_target(&path.to_string_lossy()).map_err(io::Error::other)?;
    // SAFETY: NVME_IOCTL_ID takes no argument and returns the namespace id (or -1 with errno).
    let nsid = unsafe { libc::ioctl(fd, NVME_IOCTL_ID as _) };
    if nsid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Namespace { nsid: nsid as u32, lba_shift: lba.trailing_zeros() })
}

/// An NVMe flush of namespace `nsid`, synchronously (`fsync` on the character device is not one).
pub(crate) fn flush(file: &File, nsid: u32) -> io::Result<()> {
    let mut cmd = NvmeUringCmd { opcode: NVME_CMD_FLUSH, nsid, ..Default::default() };
    // SAFETY: NVME_IOCTL_IO_CMD reads and writes one `struct nvme_passthru_cmd`, whose layout
    // NvmeUringCmd has; it lives through the call and carries no buffer.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_IO_CMD as _, &mut cmd as *mut NvmeUringCmd) };
    match r {
        0 => Ok(()),
        r if r < 0 => Err(io::Error::last_os_error()),
        status => Err(io::Error::other(format!("NVMe flush failed with status {status:#x}"))),
    }
}

#[cfg(test)]
#[path = "uring_cmd_tests.rs"]
mod tests;
