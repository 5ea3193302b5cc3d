//! ZFS vdev labels. A pool's device carries four copies of its 256 KiB label: L0 at 0, L1 at
//! 256 KiB, L2 and L3 in the last 512 KiB of its size rounded down to 256 KiB. Any one copy is
//! enough for `zpool import` to find the pool, so each is looked at. A label holds, at 16 KiB,
//! the vdev's configuration as an XDR-encoded nvlist, and in its second half the uberblock ring.
//! A label counts when either shows: the nvlist as libblkid accepts it (a vdev guid, a pool state
//! and a transaction group), or one uberblock (libblkid looked for those before it read the
//! nvlist, and a label whose configuration was overwritten still has them).

use super::{blkid_type, u32_be, u64_be, u64_le, OTHER};
use crate::safety::signatures::Signature;

/// A vdev label's size.
pub(super) const LABEL: u64 = 256 * 1024;
/// Where a label's nvlist (its "vdev_phys", 112 KiB) and its uberblock ring start.
const NVLIST_AT: usize = 16 * 1024;
const NVLIST_LEN: usize = 112 * 1024;
const UBERBLOCKS_AT: usize = 128 * 1024;
const UBERBLOCKS_LEN: usize = 128 * 1024;

/// What blkid calls a ZFS pool's device.
pub(super) fn zfs_member() -> Signature {
    blkid_type("zfs_member", OTHER)
}

/// Whether `label` (the bytes from a label's start; fewer than 256 KiB near a target's end)
/// is a ZFS vdev label.
pub(super) fn is_label(label: &[u8]) -> bool {
    let part = |at: usize, len: usize| label.get(at..).map(|b| &b[..b.len().min(len)]);
    part(NVLIST_AT, NVLIST_LEN).is_some_and(names_a_vdev)
        || part(UBERBLOCKS_AT, UBERBLOCKS_LEN).is_some_and(has_uberblock)
}

/// nvpair value types (`data_type_t`): an unsigned 64-bit integer, and a nested nvlist.
const UINT64: u32 = 8;
const NVLIST: u32 = 19;
/// Pool states up to "potentially active"; a spare and an L2ARC device have no txg.
const LAST_STATE: u64 = 7;
const SPARE: u64 = 3;
const L2CACHE: u64 = 4;

/// Whether `nv` is a label's XDR nvlist as libblkid accepts it: the stream header says XDR
/// (encoding 1, endianness 0 or 1) and a non-empty first pair; walking the pairs (each: its
/// encoded size, decoded size, name length, name padded to 4 bytes, then type, element count
/// and value, all big-endian; a nested nvlist's pairs follow its own pair and end with 8 zero
/// bytes) finds at the top level a non-zero `guid`, a `state` of at most 7 and, unless the
/// device is a spare or a cache, a non-zero `txg`. A malformed pair ends the walk unaccepted.
fn names_a_vdev(nv: &[u8]) -> bool {
    if nv.len() < 16 || nv[0] != 1 || nv[1] > 1 || u32_be(nv, 12) == 0 {
        return false;
    }
    let (mut guid, mut state, mut txg) = (0u64, u64::MAX, 0u64);
    let mut depth = 0u32;
    let mut at = 12usize;
    while nv.len().saturating_sub(at) > 12 {
        let size = u32_be(nv, at) as usize;
        if size == 0 {
            if depth == 0 {
                break;
            }
            depth -= 1;
            at += 8;
            continue;
        }
        let name_len = u32_be(nv, at + 8) as usize;
        let name_room = (name_len + 3) & !3;
        if size > nv.len() - at || name_room + 16 > size {
            return false;
        }
        let value = at + 12 + name_room;
        let ty = u32_be(nv, value);
        match ty {
            0 => return false,
            NVLIST => {
                if size - 12 - name_room < 16 {
                    return false;
                }
                depth += 1;
                at = value + 16;
                continue;
            }
            UINT64 if depth == 0 && size - 12 - name_room >= 16 => {
                let v = u64_be(nv, value + 8);
                match &nv[at + 12..at + 12 + name_len] {
                    b"guid" => guid = v,
                    b"state" => state = v,
                    b"txg" => txg = v,
                    _ => {}
                }
                if accepted(guid, state, txg) {
                    return true; // also when only the list's first KiBs were read
                }
            }
            _ => {}
        }
        at += size;
    }
    false
}

/// libblkid's verdict on a label's fields: a vdev guid, a known pool state, and a transaction
/// group unless the device is a spare or a cache.
fn accepted(guid: u64, state: u64, txg: u64) -> bool {
    guid != 0 && state <= LAST_STATE && (txg > 0 || state == SPARE || state == L2CACHE)
}

/// Where the second label's nvlist starts, from the start of the pool's device, and how much of
/// it shows what [`names_a_vdev`] needs (the fields it reads come before the vdev tree): read at
/// each start whose window ends before it, so a pool whose L0 is gone is found there too.
pub(super) const L1_NVLIST_AT: u64 = LABEL + NVLIST_AT as u64;
pub(super) const NVLIST_HEAD: u64 = 8 * 1024;

/// Whether `nv`, the first bytes of L1's nvlist, names a vdev.
pub(super) fn l1_nvlist_head(nv: &[u8]) -> bool {
    names_a_vdev(nv)
}

/// Whether an uberblock ring holds an uberblock: slots of 1 KiB (or a larger power of two, on
/// disks with larger sectors, so every slot starts at a multiple of 1 KiB) whose first field is
/// the magic 0x00bab10c in the byte order of the host that wrote it, and whose second is a pool
/// version in the same order (1 to 28, or 5000 since feature flags).
fn has_uberblock(ring: &[u8]) -> bool {
    const MAGIC: u64 = 0x00ba_b10c;
    let versioned = |version: u64| (1..=5000).contains(&version);
    ring.chunks(1024).any(|slot| {
        (u64_le(slot, 0) == MAGIC && versioned(u64_le(slot, 8)))
            || (u64_be(slot, 0) == MAGIC && versioned(u64_be(slot, 8)))
    })
}
