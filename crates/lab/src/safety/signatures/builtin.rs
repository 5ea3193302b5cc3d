//! drivelab's own look for signatures, independent of blkid: magic numbers at the offsets they
//! live at — the start of the device, the starts of common partitions (a wiped partition table
//! leaves the filesystem behind it), and the end (backup GPT, RAID superblocks kept at the end).
//! Pure functions of bytes already read, so every magic is unit-tested on crafted buffers.
//!
//! Names follow blkid: a finding's family is blkid's TYPE lowercased and its sentence is the one
//! blkid's TYPE and USAGE give (see [`blkid_type`]), so blkid's findings and ours deduplicate.
//! Offsets and magics are those of libblkid's probers (util-linux, `libblkid/src/superblocks`).

mod boot_sector;
mod end;
mod superblocks;

use super::{blkid_type, Signature};

/// Bytes read from the start of a device (and at each partition offset): enough for btrfs's
/// superblock at 64 KiB and for the uberblocks in the second half of ZFS's first 256 KiB label.
pub(crate) const HEAD_BYTES: u64 = 256 * 1024;
/// Bytes read from the end of a device.
pub(crate) const TAIL_BYTES: u64 = 1 << 20;
/// Where partitions commonly start (63 sectors, then 1, 2, 4 and 8 MiB): a partition table
/// wiped or never read leaves the filesystem behind it at one of these.
pub(crate) const PARTITION_OFFSETS: [u64; 5] = [63 * 512, 1 << 20, 2 << 20, 4 << 20, 8 << 20];

/// What the scan reads of a device or file of `size` bytes.
pub(crate) struct Regions {
    pub(crate) size: u64,
    /// The first [`HEAD_BYTES`] (fewer if the target is smaller).
    pub(crate) head: Vec<u8>,
    /// [`HEAD_BYTES`] at each of [`PARTITION_OFFSETS`] that lies inside the target.
    pub(crate) at: Vec<(u64, Vec<u8>)>,
    /// The last bytes: `tail[0]` is at byte `tail_start` and the buffer runs to `size`.
    pub(crate) tail_start: u64,
    pub(crate) tail: Vec<u8>,
}

impl Regions {
    /// The `len` bytes at byte `abs` of the target, from whichever region read all of them; None
    /// when none did. Structures at the end are found through this, wherever the target ends.
    pub(crate) fn slice(&self, abs: u64, len: usize) -> Option<&[u8]> {
        let starts = std::iter::once((0, &self.head))
            .chain(self.at.iter().map(|(off, buf)| (*off, buf)))
            .chain(std::iter::once((self.tail_start, &self.tail)));
        starts.into_iter().find_map(|(start, buf)| {
            let i = usize::try_from(abs.checked_sub(start)?).ok()?;
            buf.get(i..i.checked_add(len)?)
        })
    }
}

/// Everything the built-in scan finds in `r`.
pub(crate) fn scan(r: &Regions) -> Vec<Signature> {
    let mut out = scan_signatures(&r.head);
    for (off, buf) in &r.at {
        out.extend(scan_signatures(buf).into_iter().filter(|s| !s.weak).map(|s| at_offset(s, *off)));
    }
    out.extend(vmfs(r));
    out.extend(end::scan_end(r));
    out
}

/// `found`, said to be at byte `off` of the target when that is not its start.
fn at_offset(found: Signature, off: u64) -> Signature {
    if off == 0 {
        return found;
    }
    Signature { what: format!("{} at offset {}", found.what, offset_words(off)), ..found }
}

/// VMware VMFS keeps its volume header 1 MiB into the volume (magic 0xc001d00d) and its
/// filesystem header 2 MiB in (0x2fabf15e), both little-endian: past the bytes read from any one
/// start, so looked up in whichever region read them, from the start of the target and from
/// each partition offset.
fn vmfs(r: &Regions) -> Vec<Signature> {
    const HEADERS: [(u64, u32, &str, &str); 2] =
        [(1 << 20, 0xc001_d00d, "VMFS_volume_member", RAID), (2 << 20, 0x2fab_f15e, "VMFS", FS)];
    let mut out = Vec::new();
    for start in std::iter::once(0).chain(PARTITION_OFFSETS) {
        for (rel, magic, ty, usage) in HEADERS {
            if r.slice(start + rel, 4) == Some(&magic.to_le_bytes()[..]) {
                out.push(at_offset(blkid_type(ty, usage), start));
            }
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

/// The first finding of each family (a magic found at two of its offsets is one finding).
fn one_per_family(found: Vec<Signature>) -> Vec<Signature> {
    let mut out: Vec<Signature> = Vec::new();
    for s in found {
        if !out.iter().any(|o| o.family == s.family) {
            out.push(s);
        }
    }
    out
}
