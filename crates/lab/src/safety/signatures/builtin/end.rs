//! Structures kept at the end of a device: the backup GPT header, md RAID superblocks 0.90 and
//! 1.0, firmware RAID metadata (Intel IMSM, SNIA DDF and the older vendors' formats), ZFS's last
//! two labels and NILFS2's backup superblock. Each lies at an offset computed from the size of
//! the device, or of a partition, as libblkid computes it, and is read through [`Span::slice`]:
//! the 1 MiB read from the end holds all of them but Promise's farthest copy (3087 sectors back),
//! which is not looked for.

use super::superblocks::nilfs2_superblock;
use super::zfs::{is_label, zfs_member, LABEL};
use super::{blkid_type, byte, bytes_at, u16_le, u32_be, u32_le, Span, FS, RAID};
use crate::safety::signatures::{sig, Signature};

/// A look at a target's end for one kind of structure.
type Check = fn(Span) -> Option<Signature>;

const CHECKS: [Check; 15] = [
    backup_gpt,
    md_0_90,
    md_1_0,
    isw,
    ddf,
    lsi,
    nvidia,
    promise,
    silicon,
    via,
    jmicron,
    adaptec,
    hpt45x,
    zfs,
    nilfs2_backup,
];

/// Everything found at the end of the target `r`.
pub(super) fn scan_end(r: Span<'_>) -> Vec<Signature> {
    CHECKS.iter().filter_map(|check| check(r)).collect()
}

/// `len` bytes from the start of the sector `n` sectors of `sector` bytes before the end (1: the
/// last sector), if they were read.
fn sector_back<'a>(r: Span<'a>, n: u64, sector: u64, len: usize) -> Option<&'a [u8]> {
    let start = (r.size / sector).checked_sub(n)?.checked_mul(sector)?;
    r.slice(start, len)
}

/// `found`, said to be at the end: "… (`detail`, at the end)".
fn at_end(found: Signature, detail: &str) -> Signature {
    Signature { what: format!("{} ({detail}, at the end)", found.what), ..found }
}

/// A RAID signature blkid names `ty`, found at the end.
fn raid_at_end(ty: &str, detail: &str) -> Signature {
    at_end(blkid_type(ty, RAID), detail)
}

/// The backup GPT header, in the last sector (512 bytes or 4 KiB).
fn backup_gpt(r: Span<'_>) -> Option<Signature> {
    [512, 4096]
        .into_iter()
        .any(|sector| sector_back(r, 1, sector, 8) == Some(b"EFI PART"))
        .then(|| sig("pt", "a partition table (gpt, its backup header at the end)"))
}

const MD_MAGIC: u32 = 0xa92b_4efc;

/// md 0.90: the superblock is the last 64 KiB-aligned 64 KiB of the device, written in the
/// host's byte order (either is found), with major version 0 after the magic.
fn md_0_90(r: Span<'_>) -> Option<Signature> {
    let sb = r.slice((r.size & !0xFFFF).checked_sub(0x1_0000)?, 8)?;
    let le = u32_le(sb, 0) == MD_MAGIC && u32_le(sb, 4) == 0;
    let be = u32_be(sb, 0) == MD_MAGIC && u32_be(sb, 4) == 0;
    (le || be).then(|| raid_at_end("linux_raid_member", "md 0.90"))
}

/// md 1.0: the superblock is 8 to 12 KiB before the end, 4 KiB-aligned (mdadm: 16 sectors
/// back, rounded down to 8 sectors), little-endian, with major version 1 after the magic.
fn md_1_0(r: Span<'_>) -> Option<Signature> {
    let sb = r.slice(((r.size / 512).checked_sub(16)? & !7) * 512, 8)?;
    (u32_le(sb, 0) == MD_MAGIC && u32_le(sb, 4) == 1).then(|| raid_at_end("linux_raid_member", "md 1.0"))
}

/// Intel Matrix Storage (IMSM): its signature starts the second-to-last sector, of 512 bytes or
/// 4 KiB on a 4Kn disk.
fn isw(r: Span<'_>) -> Option<Signature> {
    const SIG: &[u8] = b"Intel Raid ISM Cfg Sig. ";
    [512, 4096]
        .into_iter()
        .any(|sector| sector_back(r, 2, sector, SIG.len()) == Some(SIG))
        .then(|| raid_at_end("isw_raid_member", "Intel IMSM"))
}

/// SNIA DDF: the anchor header, magic 0xDE11DE11 big-endian, in the last sector (or 257 sectors
/// back, where libblkid also looks).
fn ddf(r: Span<'_>) -> Option<Signature> {
    [1, 257]
        .into_iter()
        .any(|n| sector_back(r, n, 512, 4).is_some_and(|h| u32_be(h, 0) == 0xDE11_DE11))
        .then(|| raid_at_end("ddf_raid_member", "SNIA DDF"))
}

/// LSI MegaRAID: "$XIDE$" starts the last sector.
fn lsi(r: Span<'_>) -> Option<Signature> {
    (sector_back(r, 1, 512, 6) == Some(b"$XIDE$")).then(|| raid_at_end("lsi_mega_raid_member", "LSI MegaRAID"))
}

/// NVIDIA MediaShield: "NVIDIA  " starts the second-to-last sector, followed by the metadata's
/// size in 32-bit words (30); the 30 words sum to zero (the checksum makes them).
fn nvidia(r: Span<'_>) -> Option<Signature> {
    let md = sector_back(r, 2, 512, 120)?;
    let sum = (0..30).fold(0u32, |s, i| s.wrapping_add(u32_le(md, i * 4)));
    (bytes_at(md, 0, b"NVIDIA  ") && u32_le(md, 8) == 30 && sum == 0)
        .then(|| raid_at_end("nvidia_raid_member", "NVIDIA MediaShield"))
}

/// Promise FastTrack: its signature starts one of the sectors libblkid looks at, each a number
/// of sectors before the end.
fn promise(r: Span<'_>) -> Option<Signature> {
    const SIG: &[u8] = b"Promise Technology, Inc.";
    const BACK: [u64; 12] = [63, 255, 256, 16, 399, 591, 675, 735, 911, 974, 991, 951];
    BACK.into_iter()
        .any(|n| sector_back(r, n, 512, SIG.len()) == Some(SIG))
        .then(|| raid_at_end("promise_fasttrack_raid_member", "Promise FastTrack"))
}

/// Silicon Image Medley: in the last sector, magic 0x2F000000 at 0x60, a disk number below 8
/// at 0x116, and at 0x13E the checksum that makes the 16-bit words before it sum to zero.
fn silicon(r: Span<'_>) -> Option<Signature> {
    let md = sector_back(r, 1, 512, 512)?;
    let sum = (0..0x13E / 2).fold(0u16, |s, i| s.wrapping_add(u16_le(md, i * 2)));
    (u32_le(md, 0x60) == 0x2F00_0000 && byte(md, 0x116) < 8 && sum.wrapping_add(u16_le(md, 0x13E)) == 0)
        .then(|| raid_at_end("silicon_medley_raid_member", "Silicon Image Medley"))
}

/// VIA VT-RAID: the last sector starts with 0xAA55 (little-endian), a version of at most 2, and
/// byte 50 is the sum of the 50 bytes before it.
fn via(r: Span<'_>) -> Option<Signature> {
    let md = sector_back(r, 1, 512, 51)?;
    let sum = (0..50).fold(0u8, |s, i| s.wrapping_add(byte(md, i)));
    (u16_le(md, 0) == 0xAA55 && byte(md, 2) <= 2 && byte(md, 50) == sum)
        .then(|| raid_at_end("via_raid_member", "VIA VT-RAID"))
}

/// JMicron: "JM" starts the last sector; its 128 bytes of metadata sum (as 16-bit words) to 0
/// or 1, and the RAID level at 0x30 is at most 5.
fn jmicron(r: Span<'_>) -> Option<Signature> {
    let md = sector_back(r, 1, 512, 128)?;
    let sum = (0..64).fold(0u16, |s, i| s.wrapping_add(u16_le(md, i * 2)));
    (bytes_at(md, 0, b"JM") && sum <= 1 && byte(md, 0x30) <= 5).then(|| raid_at_end("jmicron_raid_member", "JMicron"))
}

/// Adaptec: the last sector starts with 0x37FC4D1E (big-endian) and has "DPTM" at 256.
fn adaptec(r: Span<'_>) -> Option<Signature> {
    let md = sector_back(r, 1, 512, 260)?;
    (u32_be(md, 0) == 0x37FC_4D1E && bytes_at(md, 256, b"DPTM")).then(|| raid_at_end("adaptec_raid_member", "Adaptec"))
}

/// HighPoint 45x: its magic (0x5a7816f3, or 0x5a7816fd for a broken array) starts the sector 11
/// sectors before the end.
fn hpt45x(r: Span<'_>) -> Option<Signature> {
    let magic = u32_le(sector_back(r, 11, 512, 4)?, 0);
    matches!(magic, 0x5a78_16f3 | 0x5a78_16fd).then(|| raid_at_end("hpt45x_raid_member", "HighPoint 45x"))
}

/// ZFS's last two vdev labels, L2 and L3: the last 512 KiB of the size rounded down to 256 KiB.
fn zfs(r: Span<'_>) -> Option<Signature> {
    let end = r.size / LABEL * LABEL;
    let label = |n: u64| end.checked_sub(n * LABEL).and_then(|start| r.slice(start, LABEL as usize));
    [2, 1].into_iter().any(|n| label(n).is_some_and(is_label)).then(|| at_end(zfs_member(), "its last labels"))
}

/// NILFS2's backup superblock, 8 sectors before the end.
fn nilfs2_backup(r: Span<'_>) -> Option<Signature> {
    sector_back(r, 8, 512, 1024)
        .is_some_and(nilfs2_superblock)
        .then(|| at_end(blkid_type("nilfs2", FS), "its backup superblock"))
}
