//! Superblocks near the start of a filesystem whose magic alone is too short or too shared to
//! tell what they are: each is checked further the way libblkid checks it, or told apart from
//! its relatives by a version or format field. NILFS2's check serves the look at the end too,
//! where its backup is.

use super::zfs::{is_label, zfs_member, LABEL};
use super::{blkid_type, bytes_at, u16_be, u16_le, u32_be, u32_le, FS};
use crate::safety::signatures::{sig, Signature};

/// A look at the bytes from the start of a device or partition for one kind of superblock.
type Check = fn(&[u8]) -> Option<Signature>;

/// Every check here.
pub(super) const CHECKS: [Check; 7] = [ext, hfs, optical, squashfs, nilfs2, gfs, zfs];

/// ext2/3/4: the magic 0xEF53 at 1080 and, since two bytes turn up by chance, a block size the
/// kernel accepts (`s_log_block_size` at 1048 at most 6: 1 to 64 KiB).
fn ext(buf: &[u8]) -> Option<Signature> {
    (bytes_at(buf, 1080, &[0x53, 0xEF]) && u32_le(buf, 1024 + 24) <= 6)
        .then(|| sig("ext", format!("an {} filesystem", ext_version(buf))))
}

/// ext2, ext3 or ext4, from the superblock's feature flags (superblock at 1024).
fn ext_version(buf: &[u8]) -> &'static str {
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

/// Apple's HFS family at 1024 (big-endian): an HFS+ ("H+", version 4) or HFSX ("HX", version 5)
/// volume header with a power-of-two block size of at least 512; or an HFS master directory
/// block ("BD") with a whole number of sectors per allocation block, which is HFS+ when it wraps
/// one (the embedded volume's signature at 124).
fn hfs(buf: &[u8]) -> Option<Signature> {
    const AT: usize = 1024;
    let plus = |magic: &[u8], version: u16| bytes_at(buf, AT, magic) && u16_be(buf, AT + 2) == version;
    if plus(b"H+", 4) || plus(b"HX", 5) {
        let block = u32_be(buf, AT + 40);
        return (block >= 512 && block.is_power_of_two()).then(|| blkid_type("hfsplus", FS));
    }
    let alloc = u32_be(buf, AT + 20);
    if !bytes_at(buf, AT, b"BD") || alloc == 0 || alloc & 511 != 0 {
        return None;
    }
    let wraps_plus = bytes_at(buf, AT + 124, b"H+") || bytes_at(buf, AT + 124, b"HX");
    Some(blkid_type(if wraps_plus { "hfsplus" } else { "hfs" }, FS))
}

/// ISO 9660 and UDF both start their volume recognition sequence at 32 KiB. UDF's names an
/// NSR02 or NSR03 descriptor; one that names none but starts with CD001 (the primary volume
/// descriptor, identifier at 32769) is ISO 9660. A UDF bridge disc has both and is reported as
/// UDF, as blkid reports it.
fn optical(buf: &[u8]) -> Option<Signature> {
    if [2048, 4096].into_iter().any(|len| udf_sequence(buf, len)) {
        Some(blkid_type("udf", FS))
    } else if bytes_at(buf, 32769, b"CD001") {
        Some(blkid_type("iso9660", FS))
    } else {
        None
    }
}

/// Whether the volume recognition sequence, in descriptors of `len` bytes (2048, or the block
/// size above that), names UDF before it ends (ECMA-167: at the first descriptor it does not
/// know; libblkid looks at 64 at most).
fn udf_sequence(buf: &[u8], len: usize) -> bool {
    const OTHERS: [&[u8]; 5] = [b"BEA01", b"BOOT2", b"CD001", b"CDW02", b"TEA01"];
    for id in (0..64).map(|i| 32768 + i * len + 1) {
        if bytes_at(buf, id, b"NSR02") || bytes_at(buf, id, b"NSR03") {
            return true;
        }
        if !OTHERS.iter().any(|other| bytes_at(buf, id, other)) {
            return false;
        }
    }
    false
}

/// SquashFS at 0: version 4 ("hsqs", little-endian, major version at 28), or an older one,
/// which blkid names squashfs3 ("hsqs" before version 4, or big-endian "sqsh").
fn squashfs(buf: &[u8]) -> Option<Signature> {
    if bytes_at(buf, 0, b"hsqs") {
        Some(blkid_type(if u16_le(buf, 28) >= 4 { "squashfs" } else { "squashfs3" }, FS))
    } else {
        bytes_at(buf, 0, b"sqsh").then(|| blkid_type("squashfs3", FS))
    }
}

/// NILFS2's primary superblock, at 1024 (its backup is near the end).
fn nilfs2(buf: &[u8]) -> Option<Signature> {
    buf.get(1024..).is_some_and(nilfs2_superblock).then(|| blkid_type("nilfs2", FS))
}

/// Whether `sb` starts with a NILFS2 superblock. Its magic, 0x3434 at 6, is two bytes, so its
/// CRC-32 must match too, as libblkid checks: seeded with `s_crc_seed` (at 12), over the first
/// `s_bytes` (at 8) bytes with the checksum field `s_sum` (at 16) taken as zeros.
pub(super) fn nilfs2_superblock(sb: &[u8]) -> bool {
    const SUM: usize = 16;
    let bytes = usize::from(u16_le(sb, 8));
    if u16_le(sb, 6) != 0x3434 || !(SUM + 4..=1024).contains(&bytes) {
        return false;
    }
    let Some(sb) = sb.get(..bytes) else { return false };
    let crc = crc32(u32_le(sb, 12), &sb[..SUM]);
    let crc = crc32(crc, &[0; 4]);
    crc32(crc, &sb[SUM + 4..]) == u32_le(sb, SUM)
}

/// CRC-32 (reflected polynomial 0xEDB88320) continued from `crc`, without the inversions zlib
/// adds before and after: the Linux kernel's `crc32_le`, which NILFS2 uses.
pub(super) fn crc32(mut crc: u32, data: &[u8]) -> u32 {
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    crc
}

/// GFS and GFS2 share the metadata magic 0x01161970 at 64 KiB (big-endian) and are told apart
/// by the superblock's format numbers (filesystem at +24, multihost at +28).
fn gfs(buf: &[u8]) -> Option<Signature> {
    const AT: usize = 65536;
    if u32_be(buf, AT) != 0x0116_1970 {
        return None;
    }
    let (format, multihost) = (u32_be(buf, AT + 24), u32_be(buf, AT + 28));
    if format == 1309 && multihost == 1401 {
        Some(blkid_type("gfs", FS))
    } else if (1800..1900).contains(&format) && (1900..2000).contains(&multihost) {
        Some(blkid_type("gfs2", FS))
    } else {
        None
    }
}

/// ZFS's first two vdev labels, L0 and L1, which start a pool's device (L2 and L3 end it).
fn zfs(buf: &[u8]) -> Option<Signature> {
    [0, LABEL as usize].into_iter().any(|at| buf.get(at..).is_some_and(is_label)).then(zfs_member)
}
