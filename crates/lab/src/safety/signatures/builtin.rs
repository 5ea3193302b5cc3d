//! drivelab's own look for signatures, independent of blkid: magic numbers at the offsets they
//! live at — the start of the device, the starts of common partitions (a wiped partition table
//! leaves the filesystem behind it), and the end (backup GPT, RAID superblocks kept at the end).
//! Pure functions of bytes already read, so every magic is unit-tested on crafted buffers.

use super::{lvm_what, sig, Signature};

/// Bytes read from the start of a device: enough for btrfs's superblock at 64 KiB.
pub(crate) const HEAD_BYTES: u64 = 68 * 1024;
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

/// Everything the built-in scan finds in `r`.
pub(crate) fn scan(r: &Regions) -> Vec<Signature> {
    let mut out = scan_signatures(&r.head);
    for (off, buf) in &r.at {
        for s in scan_signatures(buf).into_iter().filter(|s| !s.weak) {
            out.push(Signature { what: format!("{} at offset {}", s.what, offset_words(*off)), ..s });
        }
    }
    out.extend(scan_tail(r));
    out
}

/// An offset as a reader says it: `1 MiB`, or `32256 bytes`.
pub(crate) fn offset_words(off: u64) -> String {
    if off >= 1 << 20 && off % (1 << 20) == 0 {
        format!("{} MiB", off >> 20)
    } else {
        format!("{off} bytes")
    }
}

/// Structures kept at the end of a device.
fn scan_tail(r: &Regions) -> Vec<Signature> {
    let mut out = Vec::new();
    let at_end = |back: u64, magic: &[u8]| {
        r.size
            .checked_sub(back)
            .and_then(|abs| abs.checked_sub(r.tail_start))
            .is_some_and(|i| bytes_at(&r.tail, i as usize, magic))
    };
    if at_end(512, b"EFI PART") || at_end(4096, b"EFI PART") {
        out.push(sig("pt", "a partition table (gpt, its backup header at the end)"));
    }
    out
}

pub(crate) fn bytes_at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    buf.get(off..off + magic.len()) == Some(magic)
}

pub(crate) fn u32_le(buf: &[u8], off: usize) -> u32 {
    buf.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Our own look at the first bytes of a device, independent of blkid.
pub(crate) fn scan_signatures(buf: &[u8]) -> Vec<Signature> {
    const MD_MAGIC: [u8; 4] = 0xa92b_4efc_u32.to_le_bytes();
    let mut out = Vec::new();
    if bytes_at(buf, 1080, &[0x53, 0xEF]) {
        out.push(sig("ext", format!("an {} filesystem", ext_version(buf))));
    }
    if bytes_at(buf, 0, b"XFSB") {
        out.push(sig("xfs", "an xfs filesystem"));
    }
    if bytes_at(buf, 65600, b"_BHRfS_M") {
        out.push(sig("btrfs", "a btrfs filesystem"));
    }
    if (0..4).any(|s| bytes_at(buf, s * 512, b"LABELONE")) {
        out.push(sig("lvm2_member", lvm_what()));
    }
    if bytes_at(buf, 4096, &MD_MAGIC) || bytes_at(buf, 0, &MD_MAGIC) {
        out.push(sig("linux_raid_member", "a linux_raid_member RAID signature"));
    }
    if [4086, 65526].iter().any(|&o| bytes_at(buf, o, b"SWAPSPACE2") || bytes_at(buf, o, b"SWAP-SPACE")) {
        out.push(sig("swap", "a swap signature"));
    }
    if bytes_at(buf, 0, b"LUKS\xba\xbe") {
        out.push(sig("crypto_luks", "a crypto_LUKS encrypted volume"));
    }
    out.extend(partition_table(buf));
    out
}

/// GPT, else an MBR with at least one used entry (weak: a boot sector looks much the same).
pub(crate) fn partition_table(buf: &[u8]) -> Option<Signature> {
    if bytes_at(buf, 512, b"EFI PART") {
        return Some(sig("pt", "a partition table (gpt)"));
    }
    let used = [450, 466, 482, 498].iter().any(|&o| buf.get(o).is_some_and(|&t| t != 0));
    (bytes_at(buf, 510, &[0x55, 0xAA]) && used)
        .then(|| Signature { weak: true, ..sig("pt", "a partition table (dos)") })
}

/// ext2, ext3 or ext4, from the superblock's feature flags (superblock at 1024).
pub(crate) fn ext_version(buf: &[u8]) -> &'static str {
    const HAS_JOURNAL: u32 = 0x4;
    const EXT3_INCOMPAT: u32 = 0x2 | 0x4 | 0x8 | 0x10;
    const EXT3_RO_COMPAT: u32 = 0x1 | 0x2 | 0x4;
    let compat = u32_le(buf, 1024 + 0x5C);
    let incompat = u32_le(buf, 1024 + 0x60);
    let ro_compat = u32_le(buf, 1024 + 0x64);
    if incompat & !EXT3_INCOMPAT != 0 || ro_compat & !EXT3_RO_COMPAT != 0 {
        "ext4"
    } else if compat & HAS_JOURNAL != 0 {
        "ext3"
    } else {
        "ext2"
    }
}
