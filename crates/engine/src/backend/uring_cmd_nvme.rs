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

use serde::{Deserialize, Serialize};

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
pub(crate) const NVME_CMD_WRITE_UNCOR: u8 = 0x04;
pub(crate) const NVME_CMD_WRITE_ZEROES: u8 = 0x08;
pub(crate) const NVME_CMD_DSM: u8 = 0x09;
pub(crate) const NVME_CMD_VERIFY: u8 = 0x0c;
/// Command dword 12: Force Unit Access (reads and writes), Deallocate (Write Zeroes).
const CDW12_FUA: u32 = 1 << 30;
const CDW12_DEAC: u32 = 1 << 25;
/// Dataset Management's dword 11: Attribute – Deallocate.
const DSM_DEALLOCATE: u32 = 1 << 2;
/// One Dataset Management range: context attributes, LBA count (1-based), starting LBA.
pub(crate) const DSM_RANGE_BYTES: usize = 16;

/// What a write becomes on the wire (fio's `write_mode`): a Write, or a command that moves no
/// data — Write Uncorrectable (the LBAs read back as errors until written), Write Zeroes, or
/// Verify (the drive reads and checks the LBAs without returning them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOp {
    Write,
    Uncor,
    Zeroes,
    Verify,
}

impl WriteOp {
    pub const ALL: [WriteOp; 4] = [WriteOp::Write, WriteOp::Uncor, WriteOp::Zeroes, WriteOp::Verify];

    pub fn word(self) -> &'static str {
        match self {
            WriteOp::Write => "write",
            WriteOp::Uncor => "uncor",
            WriteOp::Zeroes => "zeroes",
            WriteOp::Verify => "verify",
        }
    }

    fn opcode(self) -> u8 {
        match self {
            WriteOp::Write => NVME_CMD_WRITE,
            WriteOp::Uncor => NVME_CMD_WRITE_UNCOR,
            WriteOp::Zeroes => NVME_CMD_WRITE_ZEROES,
            WriteOp::Verify => NVME_CMD_VERIFY,
        }
    }
}

/// Why a `write_mode` value is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteModeError {
    #[error("'{0}' is not a write mode: use write, uncor, zeroes or verify")]
    NotAMode(String),
    #[error(
        "zone_append needs a zoned namespace (zonemode=zbd on a ZNS drive), which drivelab's io_uring_cmd does \
         not drive: use write, uncor, zeroes or verify"
    )]
    ZoneAppend,
    #[error("'{0}' has no '/': give MODE/PCT")]
    NoShare(String),
    #[error("'{0}': the share is not a whole percentage")]
    NotAPercentage(String),
    #[error("'{0}' is given twice")]
    Twice(String),
    #[error("the shares add up to more than 100%")]
    Over100,
    #[error("the shares add up to {0}%, not 100%")]
    NotAHundred(u32),
}

/// io_uring_cmd's options of the commands themselves (fio's `write_mode`, `deac`, `readfua`,
/// `writefua`, `num_range`), saved flat beside `engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdOptions {
    /// Each write's command, as shares of 100 by [`WriteOp::ALL`]'s order (fio's `write_mode`:
    /// one word, or `write/60:zeroes/40`).
    #[serde(default = "all_writes", skip_serializing_if = "is_all_writes")]
    pub write_mode: [u8; 4],
    /// Write Zeroes deallocates the LBAs too (fio's `deac`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deac: bool,
    /// Reads and writes with Force Unit Access (fio's `readfua`, `writefua`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub readfua: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub writefua: bool,
    /// Ranges per trim (fio's `num_range`): each trim a Dataset Management of this many ranges,
    /// each drawn as the job's next offset (1..=[`MAX_TRIM_RANGES`]).
    #[serde(default = "one_range", skip_serializing_if = "is_one_range")]
    pub num_range: u16,
}

/// The most ranges one trim carries: fio's `MAX_TRIM_RANGE` (NVMe allows 256 per command).
pub const MAX_TRIM_RANGES: u16 = 256;

fn one_range() -> u16 {
    1
}

fn is_one_range(n: &u16) -> bool {
    *n == 1
}

fn all_writes() -> [u8; 4] {
    [100, 0, 0, 0]
}

fn is_all_writes(m: &[u8; 4]) -> bool {
    *m == all_writes()
}

impl Default for CmdOptions {
    fn default() -> CmdOptions {
        CmdOptions { write_mode: all_writes(), deac: false, readfua: false, writefua: false, num_range: 1 }
    }
}

impl CmdOptions {
    pub fn is_default(&self) -> bool {
        *self == CmdOptions::default()
    }

    /// fio's `write_mode`: `zeroes`, or shares `write/60:zeroes/30:uncor/10` adding up to 100.
    pub fn parse_write_mode(text: &str) -> Result<[u8; 4], WriteModeError> {
        let op = |w: &str| {
            let w = w.trim();
            WriteOp::ALL.into_iter().position(|o| o.word() == w).ok_or_else(|| match w {
                "zone_append" => WriteModeError::ZoneAppend,
                _ => WriteModeError::NotAMode(w.to_string()),
            })
        };
        let mut shares = [0u8; 4];
        if !text.contains('/') {
            shares[op(text)?] = 100;
            return Ok(shares);
        }
        let mut total = 0u32;
        for entry in text.split(':') {
            let (w, pct) = entry.split_once('/').ok_or_else(|| WriteModeError::NoShare(entry.to_string()))?;
            let pct: u32 = pct.trim().parse().map_err(|_| WriteModeError::NotAPercentage(entry.to_string()))?;
            let i = op(w)?;
            if shares[i] != 0 {
                return Err(WriteModeError::Twice(w.trim().to_string()));
            }
            total += pct;
            if total > 100 {
                return Err(WriteModeError::Over100);
            }
            shares[i] = pct as u8;
        }
        if total != 100 {
            return Err(WriteModeError::NotAHundred(total));
        }
        Ok(shares)
    }

    /// `write_mode` in fio's words: the one mode, or the shares.
    pub fn write_mode_text(&self) -> String {
        let given: Vec<(WriteOp, u8)> = WriteOp::ALL.into_iter().zip(self.write_mode).filter(|(_, p)| *p > 0).collect();
        match given.as_slice() {
            [(op, 100)] => op.word().to_string(),
            _ => given.iter().map(|(o, p)| format!("{}/{p}", o.word())).collect::<Vec<_>>().join(":"),
        }
    }

    /// The write command of the `n`th write: the shares exactly over every 100 writes, spread
    /// (write `n` takes the share its place `n * 37 mod 100` falls in; 37 is prime to 100).
    #[inline]
    pub(crate) fn write_op(&self, n: u32) -> WriteOp {
        let at = (n % 100 * 37 % 100) as u8;
        let mut below = 0u8;
        for (op, share) in WriteOp::ALL.into_iter().zip(self.write_mode) {
            below += share;
            if at < below {
                return op;
            }
        }
        WriteOp::Write
    }

    /// Whether a mix of modes was given (fio then puts FUA on Writes only).
    fn mixed(&self) -> bool {
        self.write_mode.iter().filter(|&&p| p > 0).count() > 1
    }
}

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
    /// A read (`write` None) or the write command `write` of `len` bytes at byte `offset`, with
    /// `opts`' flags; a Write moves the buffer at `addr`, the other write commands move no data
    /// (address and length 0, as the kernel expects). None when the I/O is not whole LBAs.
    #[inline]
    pub(crate) fn io(
        write: Option<WriteOp>,
        opts: &CmdOptions,
        nsid: u32,
        lba_shift: u32,
        offset: u64,
        len: u32,
        addr: u64,
    ) -> Option<NvmeUringCmd> {
        let mask = (1u64 << lba_shift) - 1;
        if len == 0 || offset & mask != 0 || len as u64 & mask != 0 {
            return None;
        }
        let slba = offset >> lba_shift;
        let mut cdw12 = (len >> lba_shift) - 1;
        let (opcode, moves_data) = match write {
            None => {
                cdw12 |= if opts.readfua { CDW12_FUA } else { 0 };
                (NVME_CMD_READ, true)
            }
            Some(w) => {
                // As fio: with a mix of modes only Writes carry FUA; one mode, every command.
                if opts.writefua && (w == WriteOp::Write || !opts.mixed()) {
                    cdw12 |= CDW12_FUA;
                }
                if w == WriteOp::Zeroes && opts.deac {
                    cdw12 |= CDW12_DEAC;
                }
                (w.opcode(), w == WriteOp::Write)
            }
        };
        Some(NvmeUringCmd {
            opcode,
            nsid,
            addr: if moves_data { addr } else { 0 },
            data_len: if moves_data { len } else { 0 },
            cdw10: slba as u32,
            cdw11: (slba >> 32) as u32,
            cdw12,
            ..Default::default()
        })
    }

    /// A Dataset Management deallocate (a trim) of the ranges in `ranges`: on entry each 16-byte
    /// entry holds a byte offset and a length (two little-endian u64, as [`put_range`] writes
    /// them); each is rewritten in place as NVMe's range (context attributes, LBA count, starting
    /// LBA), and the command points at them (kept until it completes). None when a range is not
    /// whole LBAs, is empty or longer than a range can say, or there are none or more than 256.
    #[inline]
    pub(crate) fn trim(nsid: u32, lba_shift: u32, ranges: &mut [[u8; DSM_RANGE_BYTES]]) -> Option<NvmeUringCmd> {
        if ranges.is_empty() || ranges.len() > MAX_TRIM_RANGES as usize {
            return None;
        }
        let mask = (1u64 << lba_shift) - 1;
        for r in ranges.iter_mut() {
            let offset = u64::from_le_bytes(r[..8].try_into().unwrap());
            let len = u64::from_le_bytes(r[8..].try_into().unwrap());
            if len == 0 || offset & mask != 0 || len & mask != 0 {
                return None;
            }
            let nlb = u32::try_from(len >> lba_shift).ok()?;
            r[..4].copy_from_slice(&0u32.to_le_bytes());
            r[4..8].copy_from_slice(&nlb.to_le_bytes());
            r[8..].copy_from_slice(&(offset >> lba_shift).to_le_bytes());
        }
        Some(NvmeUringCmd {
            opcode: NVME_CMD_DSM,
            nsid,
            addr: ranges.as_ptr() as u64,
            data_len: (ranges.len() * DSM_RANGE_BYTES) as u32,
            cdw10: ranges.len() as u32 - 1,
            cdw11: DSM_DEALLOCATE,
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

/// Write one trim range (`offset`, `len` in bytes) as [`NvmeUringCmd::trim`] reads it.
#[inline]
pub(crate) fn put_range(entry: &mut [u8; DSM_RANGE_BYTES], offset: u64, len: u64) {
    entry[..8].copy_from_slice(&offset.to_le_bytes());
    entry[8..].copy_from_slice(&len.to_le_bytes());
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
