//! The first sector of a device or partition: a filesystem's boot record (FAT, NTFS, exFAT,
//! BitLocker) or a partition table (GPT, dos). A boot record and a dos MBR both end in 0x55AA at
//! byte 510 and both hold bytes where the MBR's partition entries are, so, as libblkid does, a
//! sector that is a filesystem's boot record is not also guessed to be a dos partition table,
//! and a dos MBR's boot code is not taken for FAT unless its BIOS parameter block makes sense.

use super::{blkid_type, byte, bytes_at, u16_le, CRYPTO, FS};
use crate::safety::signatures::{sig, Signature};

/// What the first sectors of `buf` hold: a filesystem's boot record, a partition table, both
/// (a GPT header in the second sector is reported whatever the first holds), or neither.
pub(super) fn first_sector(buf: &[u8]) -> Vec<Signature> {
    let boot = boot_record(buf);
    let table = partition_table(buf).filter(|t| !(t.weak && boot.is_some()));
    boot.into_iter().chain(table).collect()
}

/// The filesystem whose boot record starts `buf`, if any. BitLocker, NTFS and exFAT name
/// themselves at byte 3 (where FAT keeps an OEM name); BitLocker's boot record also carries a
/// FAT-like parameter block, so it is looked for before FAT.
fn boot_record(buf: &[u8]) -> Option<Signature> {
    if bytes_at(buf, 3, b"-FVE-FS-") {
        Some(blkid_type("BitLocker", CRYPTO))
    } else if bytes_at(buf, 3, b"NTFS    ") {
        Some(blkid_type("ntfs", FS))
    } else if bytes_at(buf, 3, b"EXFAT   ") {
        Some(blkid_type("exfat", FS))
    } else {
        is_fat(buf).then(|| blkid_type("vfat", FS))
    }
}

/// FAT12/16's file system type (at byte 54) and FAT32's (at byte 82) as mkfs tools write them.
const FAT16_TYPES: [&[u8]; 4] = [b"FAT12   ", b"FAT16   ", b"FAT     ", b"MSDOS"];
const FAT32_TYPES: [&[u8]; 2] = [b"FAT32   ", b"MSWIN"];

/// A FAT boot sector: a FAT type string, or (old floppies have none) a jump instruction at byte
/// 0 and 0x55AA at 510 — and in both cases a BIOS parameter block that makes sense. OS/2 writes
/// a FAT-like pseudo boot sector on JFS and HPFS, which names them where FAT16 names itself.
fn is_fat(buf: &[u8]) -> bool {
    let typed = FAT16_TYPES.iter().any(|t| bytes_at(buf, 54, t)) || FAT32_TYPES.iter().any(|t| bytes_at(buf, 82, t));
    let jump = matches!(buf.first(), Some(0xEB | 0xE9)) && bytes_at(buf, 510, &[0x55, 0xAA]);
    let os2 = bytes_at(buf, 54, b"JFS     ") || bytes_at(buf, 54, b"HPFS    ");
    (typed || (jump && !os2)) && plausible_bpb(buf)
}

/// The BIOS parameter block fields every FAT has, as libblkid checks them: a power-of-two sector
/// size of 512 to 4096 bytes (byte 11), a power-of-two cluster size (13), reserved sectors (14),
/// at least one FAT (16) and a media byte of 0xF0 or 0xF8 to 0xFF (21). An MBR's boot code
/// (zeros there, or x86 instructions) fails this.
fn plausible_bpb(buf: &[u8]) -> bool {
    let sector = u16_le(buf, 11);
    let media = byte(buf, 21);
    sector.is_power_of_two()
        && (512..=4096).contains(&sector)
        && byte(buf, 13).is_power_of_two()
        && u16_le(buf, 14) != 0
        && byte(buf, 16) != 0
        && (media == 0xF0 || media >= 0xF8)
}

/// GPT, else an MBR with at least one used entry and every boot flag 0 or 0x80 (weak: a boot
/// sector looks much the same).
fn partition_table(buf: &[u8]) -> Option<Signature> {
    if bytes_at(buf, 512, b"EFI PART") {
        return Some(sig("pt", "a partition table (gpt)"));
    }
    let entry = |i: usize, field: usize| byte(buf, 446 + 16 * i + field);
    let used = (0..4).any(|i| entry(i, 4) != 0);
    let flags_valid = (0..4).all(|i| matches!(entry(i, 0), 0 | 0x80));
    (bytes_at(buf, 510, &[0x55, 0xAA]) && used && flags_valid)
        .then(|| Signature { weak: true, ..sig("pt", "a partition table (dos)") })
}
