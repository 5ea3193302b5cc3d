//! drivelab's own look for signatures, independent of blkid (which looks only at the start of
//! what it is given): magic numbers at the offsets they live at from every place a filesystem
//! may start — the start of the device, where partitioning tools start partitions (sectors 34 and
//! 63, every MiB of the first 64 MiB, each power of two MiB beyond), and where the dos and GPT
//! tables on the device say partitions start, listed or not by the kernel (a loop device without
//! `-P` shows none; a wiped table leaves the filesystems behind it) — and at the end of the
//! device and of each partition (backup GPT, RAID superblocks, ZFS's last labels).
//! [`Regions::gather`] decides what to read and is bounded; the checks are pure functions of the
//! bytes read, so every magic is unit-tested on crafted buffers.
//!
//! Names follow blkid: a finding's family is blkid's TYPE lowercased and its sentence is the one
//! blkid's TYPE and USAGE give (see [`blkid_type`]), so blkid's findings and ours deduplicate.
//! Offsets and magics are those of libblkid's probers (util-linux, `libblkid/src/superblocks`).

mod boot_sector;
mod end;
mod starts;
mod superblocks;
mod zfs;

use std::io;

use super::{blkid_type, Signature};

#[cfg_attr(not(test), allow(unused_imports))]
pub(crate) use starts::{fixed_starts, MAX_PARTITIONS};

/// Bytes looked at from the start of the device and of each partition a table lists: btrfs's
/// superblock at 64 KiB, ISO 9660 and UDF's descriptors from 32 KiB, and ZFS's first two vdev
/// labels (L0 and L1, 256 KiB each, the uberblocks in each one's second half).
pub(crate) const WINDOW: u64 = 512 * 1024;
/// Bytes looked at from each of the fixed starts past the first MiB (where no table says a
/// partition is): all of the above but ZFS's L1, of which only the first 8 KiB of its nvlist
/// are read there, in the same read (its whole would double what is read).
pub(crate) const GRID_WINDOW: u64 = zfs::L1_NVLIST_AT + zfs::NVLIST_HEAD;
/// Bytes read from the start of a device: the window of each start within its first 512 KiB
/// (sectors 34 and 63, 4Kn's sector 6), and every GPT entry array that follows its header.
pub(crate) const HEAD_BYTES: u64 = 1 << 20;
/// Bytes read from the end of a device (and of each partition a partition table lists).
pub(crate) const TAIL_BYTES: u64 = 1 << 20;

/// What the scan read of a device or file of `size` bytes, and where it looked for what.
pub(crate) struct Regions {
    pub(crate) size: u64,
    /// Every read, `(its first byte, the bytes)`: the first [`HEAD_BYTES`], the last
    /// [`TAIL_BYTES`], a window at each start not already read, the end of each partition.
    pub(crate) reads: Vec<(u64, Vec<u8>)>,
    /// Where a filesystem or volume may start, ascending, 0 first: [`fixed_starts`] and the
    /// partitions' starts.
    pub(crate) starts: Vec<u64>,
    /// The partitions the partition tables list (dos, with its logical partitions, and GPT's
    /// primary and backup arrays), `(start, length)` in bytes, at most [`MAX_PARTITIONS`].
    pub(crate) partitions: Vec<(u64, u64)>,
}

impl Regions {
    /// Reads what the scan needs of a target of `size` bytes through `read(offset, length)`
    /// (which returns fewer bytes only at the target's end): its start and end, the partition
    /// tables there, then a window at every start and the end of every partition: at most
    /// `HEAD_BYTES + TAIL_BYTES + GRID_WINDOW × fixed starts + (WINDOW + TAIL_BYTES) ×
    /// MAX_PARTITIONS` bytes, in one read each — about 20 MiB on a disk of a few partitions.
    pub(crate) fn gather(size: u64, mut read: impl FnMut(u64, u64) -> io::Result<Vec<u8>>) -> io::Result<Regions> {
        let mut r = Regions { size, reads: Vec::new(), starts: Vec::new(), partitions: Vec::new() };
        r.reads.push((0, read(0, HEAD_BYTES.min(size))?));
        let tail_start = size.saturating_sub(TAIL_BYTES) / 4096 * 4096;
        r.reads.push((tail_start, read(tail_start, size - tail_start)?));
        r.partitions = starts::partitions(&mut r, &mut read)?;
        let mut all = fixed_starts(size);
        all.extend(r.partitions.iter().map(|p| p.0));
        all.sort_unstable();
        all.dedup();
        r.starts = all;
        for start in r.starts.clone() {
            let listed = start < HEAD_BYTES || r.partitions.iter().any(|p| p.0 == start);
            r.ensure(start, if listed { WINDOW } else { GRID_WINDOW }, &mut read)?;
            r.ensure(start + zfs::L1_NVLIST_AT, zfs::NVLIST_HEAD, &mut read)?;
        }
        for (start, len) in r.partitions.clone() {
            let from = (len.saturating_sub(TAIL_BYTES)) / 4096 * 4096;
            r.ensure(start + from, len - from, &mut read)?;
        }
        Ok(r)
    }

    /// Reads `len` bytes at `abs` (fewer at the end of the target) unless one read holds them.
    fn ensure(&mut self, abs: u64, len: u64, read: &mut impl FnMut(u64, u64) -> io::Result<Vec<u8>>) -> io::Result<()> {
        let len = len.min(self.size.saturating_sub(abs));
        if len > 0 && self.slice(abs, len as usize).is_none() {
            self.reads.push((abs, read(abs, len)?));
        }
        Ok(())
    }

    /// The `len` bytes at byte `abs` of the target, from whichever read holds all of them; None
    /// when none does. Structures at the end are found through this, wherever the target ends.
    pub(crate) fn slice(&self, abs: u64, len: usize) -> Option<&[u8]> {
        self.reads.iter().find_map(|(start, buf)| {
            let i = usize::try_from(abs.checked_sub(*start)?).ok()?;
            buf.get(i..i.checked_add(len)?)
        })
    }

    /// The bytes looked at from `start`: a [`WINDOW`] or a [`GRID_WINDOW`], whichever was read
    /// (fewer near the end of the target).
    pub(crate) fn window(&self, start: u64) -> Option<&[u8]> {
        let left = self.size.checked_sub(start)?;
        [WINDOW, GRID_WINDOW].into_iter().find_map(|len| self.slice(start, len.min(left) as usize))
    }

    /// The whole target, as a span whose end is looked at.
    fn whole(&self) -> Span<'_> {
        Span { r: self, start: 0, size: self.size }
    }
}

/// A stretch of the target — all of it, or one partition — whose end is looked at: offsets are
/// from its start.
#[derive(Clone, Copy)]
pub(crate) struct Span<'a> {
    r: &'a Regions,
    start: u64,
    pub(crate) size: u64,
}

impl<'a> Span<'a> {
    /// The `len` bytes at byte `rel` of the span, if they were read.
    pub(crate) fn slice(&self, rel: u64, len: usize) -> Option<&'a [u8]> {
        self.r.slice(self.start.checked_add(rel)?, len)
    }
}

/// Everything the built-in scan finds in `r`: at each start (a bare MBR-like sector counts only
/// at the target's own start), VMFS's headers past each window, at the end of the target and at
/// the end of each partition. One finding per family, the first unless a later one is not weak.
pub(crate) fn scan(r: &Regions) -> Vec<Signature> {
    let mut out = Vec::new();
    for &start in &r.starts {
        if let Some(buf) = r.window(start) {
            let found = scan_signatures(buf).into_iter().filter(|s| start == 0 || !s.weak);
            out.extend(found.map(|s| at_offset(s, start)));
        }
        out.extend(vmfs(r, start));
        if r.slice(start + zfs::L1_NVLIST_AT, zfs::NVLIST_HEAD as usize).is_some_and(zfs::l1_nvlist_head) {
            out.push(at_offset(zfs::zfs_member(), start));
        }
    }
    out.extend(end::scan_end(r.whole()));
    for &(start, size) in &r.partitions {
        let found = end::scan_end(Span { r, start, size });
        let place = format!(", at the end of the partition at offset {})", offset_words(start));
        out.extend(found.into_iter().map(|s| Signature { what: s.what.replace(", at the end)", &place), ..s }));
    }
    one_per_family(out)
}

/// `found`, said to be at byte `off` of the target when that is not its start.
fn at_offset(found: Signature, off: u64) -> Signature {
    if off == 0 {
        return found;
    }
    Signature { what: format!("{} at offset {}", found.what, offset_words(off)), ..found }
}

/// VMware VMFS keeps its volume header 1 MiB into the volume (magic 0xc001d00d) and its
/// filesystem header 2 MiB in (0x2fabf15e), both little-endian: past the window read from a
/// start, so looked up in whichever read holds them (the windows at the 1 MiB starts do).
fn vmfs(r: &Regions, start: u64) -> Vec<Signature> {
    const HEADERS: [(u64, u32, &str, &str); 2] =
        [(1 << 20, 0xc001_d00d, "VMFS_volume_member", RAID), (2 << 20, 0x2fab_f15e, "VMFS", FS)];
    let mut out = Vec::new();
    for (rel, magic, ty, usage) in HEADERS {
        if r.slice(start + rel, 4) == Some(&magic.to_le_bytes()[..]) {
            out.push(at_offset(blkid_type(ty, usage), start));
        }
    }
    out
}

/// An offset as a reader says it: `1 MiB`, or `32256 bytes`.
pub(crate) fn offset_words(off: u64) -> String {
    if off >= 1 << 20 && off.is_multiple_of(1 << 20) {
        format!("{} MiB", off >> 20)
    } else {
        format!("{off} bytes")
    }
}

/// Whether `magic` is at `off` in `buf` (false when `buf` is too short).
pub(crate) fn bytes_at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    off.checked_add(magic.len()).and_then(|end| buf.get(off..end)) == Some(magic)
}

/// The `N` bytes at `off`, if `buf` holds them.
fn array<const N: usize>(buf: &[u8], off: usize) -> Option<[u8; N]> {
    buf.get(off..off.checked_add(N)?)?.try_into().ok()
}

/// Fields: one byte, or little- or big-endian integers; a field past the end of `buf` reads as
/// zero.
pub(crate) fn byte(buf: &[u8], off: usize) -> u8 {
    buf.get(off).copied().unwrap_or(0)
}

pub(crate) fn u16_le(buf: &[u8], off: usize) -> u16 {
    array(buf, off).map_or(0, u16::from_le_bytes)
}

pub(crate) fn u16_be(buf: &[u8], off: usize) -> u16 {
    array(buf, off).map_or(0, u16::from_be_bytes)
}

pub(crate) fn u32_le(buf: &[u8], off: usize) -> u32 {
    array(buf, off).map_or(0, u32::from_le_bytes)
}

pub(crate) fn u32_be(buf: &[u8], off: usize) -> u32 {
    array(buf, off).map_or(0, u32::from_be_bytes)
}

pub(crate) fn u64_le(buf: &[u8], off: usize) -> u64 {
    array(buf, off).map_or(0, u64::from_le_bytes)
}

pub(crate) fn u64_be(buf: &[u8], off: usize) -> u64 {
    array(buf, off).map_or(0, u64::from_be_bytes)
}

/// blkid's USAGE values, which decide the sentence a TYPE is reported with.
const FS: &str = "filesystem";
const RAID: &str = "raid";
const CRYPTO: &str = "crypto";
const OTHER: &str = "other";

/// A signature that is a magic string alone: `bytes` at any of `offs` (from the start of the
/// device or partition) means blkid's TYPE `ty` with USAGE `usage`.
struct Magic {
    offs: &'static [usize],
    bytes: &'static [u8],
    ty: &'static str,
    usage: &'static str,
}

const MD_MAGIC: [u8; 4] = 0xa92b_4efc_u32.to_le_bytes();
/// Swap's magic ends its first page: 4, 8, 16, 32 or 64 KiB pages.
const SWAP_MAGIC_OFFS: &[usize] = &[4086, 8182, 16374, 32758, 65526];
const BCACHE_MAGIC: [u8; 16] = *b"\xc6\x85\x73\xf6\x4e\x1a\x45\xca\x82\x65\xf5\x7f\x48\xba\x6d\x81";
const BCACHEFS_MAGIC: [u8; 16] = *b"\xc6\x85\x73\xf6\x66\xce\x90\xa9\xd9\x6a\x60\xcf\x80\x3d\xf7\xef";

/// Signatures told by their magic alone, each at the offsets libblkid looks at.
const MAGICS: &[Magic] = &[
    Magic { offs: &[0], bytes: b"XFSB", ty: "xfs", usage: FS },
    Magic { offs: &[65600], bytes: b"_BHRfS_M", ty: "btrfs", usage: FS },
    // LVM2's label may be in any of the first four sectors.
    Magic { offs: &[0, 512, 1024, 1536], bytes: b"LABELONE", ty: "LVM2_member", usage: RAID },
    // md 1.1 at the start, 1.2 at 4 KiB (0.90 and 1.0 are at the end).
    Magic { offs: &[0, 4096], bytes: &MD_MAGIC, ty: "linux_raid_member", usage: RAID },
    Magic { offs: SWAP_MAGIC_OFFS, bytes: b"SWAPSPACE2", ty: "swap", usage: OTHER },
    Magic { offs: SWAP_MAGIC_OFFS, bytes: b"SWAP-SPACE", ty: "swap", usage: OTHER },
    Magic { offs: &[0], bytes: b"LUKS\xba\xbe", ty: "crypto_LUKS", usage: CRYPTO },
    // The superblock's magic, little-endian, at 1 KiB.
    Magic { offs: &[1024], bytes: &0xF2F5_2010_u32.to_le_bytes(), ty: "f2fs", usage: FS },
    Magic { offs: &[1024], bytes: &0xE0F5_E1E2_u32.to_le_bytes(), ty: "erofs", usage: FS },
    // The APFS container superblock's magic, after its 32-byte object header.
    Magic { offs: &[32], bytes: b"NXSB", ty: "apfs", usage: FS },
    Magic { offs: &[32768], bytes: b"JFS1", ty: "jfs", usage: FS },
    // ReiserFS 3.6 at 64 KiB + 52; 3.5 at 8 KiB + 52 (libblkid also looks at 8 KiB + 20).
    Magic { offs: &[65588], bytes: b"ReIsEr2Fs", ty: "reiserfs", usage: FS },
    Magic { offs: &[65588], bytes: b"ReIsEr3Fs", ty: "reiserfs", usage: FS },
    Magic { offs: &[8212, 8244, 65588], bytes: b"ReIsErFs", ty: "reiserfs", usage: FS },
    Magic { offs: &[65536], bytes: b"ReIsEr4", ty: "reiser4", usage: FS },
    // OCFS2's superblock is its third block, for block sizes of 512 bytes to 4 KiB.
    Magic { offs: &[1024, 2048, 4096, 8192], bytes: b"OCFSV2", ty: "ocfs2", usage: FS },
    // bcache's superblock at 4 KiB has its magic at 24; bcachefs's has its own there (early
    // bcachefs used bcache's, and is reported as bcache).
    Magic { offs: &[4120], bytes: &BCACHE_MAGIC, ty: "bcache", usage: OTHER },
    Magic { offs: &[4120], bytes: &BCACHEFS_MAGIC, ty: "bcachefs", usage: FS },
    Magic { offs: &[0], bytes: b"bluestore block device", ty: "ceph_bluestore", usage: OTHER },
    // HighPoint 37x RAID metadata at 4 KiB + 544 (HighPoint 45x keeps its own at the end).
    Magic { offs: &[4640], bytes: &0x5a78_16f0_u32.to_le_bytes(), ty: "hpt37x_raid_member", usage: RAID },
    Magic { offs: &[4640], bytes: &0x5a78_16fd_u32.to_le_bytes(), ty: "hpt37x_raid_member", usage: RAID },
];

/// Our own look at the first bytes of a device or partition, independent of blkid.
pub(crate) fn scan_signatures(buf: &[u8]) -> Vec<Signature> {
    let mut out: Vec<Signature> = superblocks::CHECKS.iter().filter_map(|check| check(buf)).collect();
    let found = MAGICS.iter().filter(|m| m.offs.iter().any(|&off| bytes_at(buf, off, m.bytes)));
    out.extend(found.map(|m| blkid_type(m.ty, m.usage)));
    out.extend(boot_sector::first_sector(buf));
    one_per_family(out)
}

/// The first finding of each family (a magic found at two of its offsets, or a filesystem's
/// backup superblocks, are one finding), unless a later one is not weak and it is.
fn one_per_family(found: Vec<Signature>) -> Vec<Signature> {
    let mut out: Vec<Signature> = Vec::new();
    for s in found {
        match out.iter_mut().find(|o| o.family == s.family) {
            Some(o) if o.weak && !s.weak => *o = s,
            Some(_) => {}
            None => out.push(s),
        }
    }
    out
}
