//! Where on a device a filesystem may start: where partitioning tools put partitions (fixed
//! offsets), and where the device's own partition tables say they are. The kernel's view is not
//! enough: a loop device attached without `-P` lists no partitions, and a table that was wiped
//! or overwritten leaves the filesystems behind it. Both the primary and the backup GPT are read
//! (either may be the one that survived), and the dos table's logical partitions through their
//! chain of extended boot records.

use std::io;

use super::{byte, bytes_at, u32_le, u64_le, Regions};

const MIB: u64 = 1 << 20;

/// At most this many partitions from the tables are looked at (a window at the start and the
/// last MiB of each), which bounds what a hostile or corrupt table can make drivelab read.
pub(crate) const MAX_PARTITIONS: usize = 16;
/// Links followed in a dos extended partition's chain of boot records.
const MAX_LOGICAL: usize = 64;

/// Where partitioning tools start partitions, inside a target of `size` bytes, ascending and 0
/// first: GPT's first usable sector (34 on 512-byte sectors, 6 on 4 KiB ones), the old dos
/// cylinder boundary (sector 63), every MiB of the first 64 MiB (parted, fdisk and sgdisk align
/// to 1 MiB; sector 2048 is 1 MiB) and each power of two MiB beyond.
pub(crate) fn fixed_starts(size: u64) -> Vec<u64> {
    let sectors = [0, 34 * 512, 6 * 4096, 63 * 512];
    let mibs = (1..=64).map(|n| n * MIB);
    let powers = (27..63).map(|shift| 1u64 << shift).take_while(|&p| p < size); // 128 MiB on
    sectors.into_iter().chain(mibs).chain(powers).filter(|&s| s == 0 || s < size).collect()
}

/// The partitions the target's tables list, `(start, length)` in bytes, each inside the target,
/// at most [`MAX_PARTITIONS`]. Reads what the head and tail did not hold (a dos extended
/// partition's boot records, a GPT entry array kept elsewhere) through `read`.
pub(super) fn partitions(
    r: &mut Regions,
    read: &mut impl FnMut(u64, u64) -> io::Result<Vec<u8>>,
) -> io::Result<Vec<(u64, u64)>> {
    let mut found = Vec::new();
    for sector in [512, 4096] {
        let backup = (r.size / sector).checked_sub(1).map(|last| last * sector);
        for header in [Some(sector), backup].into_iter().flatten() {
            found.extend(gpt(r, header, sector, read)?);
        }
    }
    found.extend(dos(r, read)?);
    let size = r.size;
    let mut inside: Vec<(u64, u64)> =
        found.into_iter().filter(|&(s, l)| s > 0 && l > 0 && s < size).map(|(s, l)| (s, l.min(size - s))).collect();
    inside.sort_unstable();
    inside.dedup();
    inside.truncate(MAX_PARTITIONS);
    Ok(inside)
}

/// The entries of the GPT whose header is at byte `header`, on sectors of `sector` bytes; none
/// when there is no header there or its fields make no sense.
fn gpt(
    r: &mut Regions,
    header: u64,
    sector: u64,
    read: &mut impl FnMut(u64, u64) -> io::Result<Vec<u8>>,
) -> io::Result<Vec<(u64, u64)>> {
    let Some(h) = r.slice(header, 92).filter(|h| bytes_at(h, 0, b"EFI PART")) else { return Ok(Vec::new()) };
    let (array_lba, count, entry) = (u64_le(h, 72), u64::from(u32_le(h, 80)), u64::from(u32_le(h, 84)));
    let array = array_lba.checked_mul(sector);
    let Some(array) = array.filter(|_| (128..=4096).contains(&entry) && entry % 8 == 0 && count * entry <= MIB) else {
        return Ok(Vec::new());
    };
    r.ensure(array, count * entry, read)?;
    let Some(bytes) = r.slice(array, (count * entry) as usize) else { return Ok(Vec::new()) };
    let used = bytes.chunks(entry as usize).filter(|e| e[..16].iter().any(|&b| b != 0));
    let spans = used.filter_map(|e| {
        let (first, last) = (u64_le(e, 32), u64_le(e, 40));
        let len = last.checked_sub(first)?.checked_add(1)?.checked_mul(sector)?;
        Some((first.checked_mul(sector)?, len))
    });
    Ok(spans.collect())
}

/// The dos partition table's primary partitions and the logical ones in its extended partition.
/// A first sector whose boot flags are not all 0 or 0x80 holds no dos table.
fn dos(r: &mut Regions, read: &mut impl FnMut(u64, u64) -> io::Result<Vec<u8>>) -> io::Result<Vec<(u64, u64)>> {
    let Some(mbr) = r.slice(0, 512).filter(|s| is_dos_sector(s)).map(<[u8]>::to_vec) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for i in 0..4 {
        let (ty, start, len) = entry(&mbr, i);
        match ty {
            0 | 0xEE => {}
            0x05 | 0x0F | 0x85 => out.extend(logical(r, start, read)?),
            _ => out.push((start, len)),
        }
    }
    Ok(out)
}

/// Whether a sector ends in 0x55AA and has boot flags of 0 or 0x80 only.
fn is_dos_sector(s: &[u8]) -> bool {
    bytes_at(s, 510, &[0x55, 0xAA]) && (0..4).all(|i| matches!(byte(s, 446 + 16 * i), 0 | 0x80))
}

/// The `i`th entry of a dos table: type, start and length in bytes (512-byte sectors).
fn entry(s: &[u8], i: usize) -> (u8, u64, u64) {
    let at = 446 + 16 * i;
    (byte(s, at + 4), u64::from(u32_le(s, at + 8)) * 512, u64::from(u32_le(s, at + 12)) * 512)
}

/// The logical partitions of the extended partition at byte `base`: each extended boot record
/// gives one partition (relative to itself) and the next record (relative to `base`).
fn logical(
    r: &mut Regions,
    base: u64,
    read: &mut impl FnMut(u64, u64) -> io::Result<Vec<u8>>,
) -> io::Result<Vec<(u64, u64)>> {
    let mut out = Vec::new();
    let mut at = base;
    for _ in 0..MAX_LOGICAL {
        if at == 0 || at >= r.size {
            break;
        }
        r.ensure(at, 512, read)?;
        let Some(ebr) = r.slice(at, 512).filter(|s| is_dos_sector(s)).map(<[u8]>::to_vec) else { break };
        let (ty, start, len) = entry(&ebr, 0);
        if ty != 0 {
            out.push((at + start, len));
        }
        let (next_ty, next, _) = entry(&ebr, 1);
        if next_ty == 0 || next == 0 {
            break;
        }
        at = base + next;
    }
    Ok(out)
}
