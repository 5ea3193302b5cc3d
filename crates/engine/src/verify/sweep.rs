//! Re-reading every unit a map says was written, and checking each (`verify_after`, and
//! `drivelab verify` of a saved map): sequential reads of up to 1 MiB over runs of written units.
//! A read that fails is retried unit by unit, so each unreadable unit is counted with its offset
//! and the rest of the chunk is still checked.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};

use super::classify::Expected;
use super::format::UnitFormat;
use super::map::{GenerationMap, UNKNOWN};
use crate::pattern::BufferPool;
use crate::result::{Checks, MismatchRecord};

/// Bytes per read of the sweep.
const CHUNK: u64 = 1 << 20;

/// Read back every unit of `map` written (not never-written, not unknown) from `file` (target
/// index `target` of the run that wrote it) and check it against `format`; stops early when
/// `stop` is set. Units that cannot be read are counted (`unreadable_units`), not fatal.
pub fn sweep(file: &File, map: &GenerationMap, format: &UnitFormat, target: u32, stop: &AtomicBool) -> Checks {
    let unit = map.unit();
    assert_eq!(unit as usize, format.unit(), "the map's unit and the format's");
    let per_chunk = (CHUNK / unit) as usize;
    let mut pool = BufferPool::new(1, CHUNK as usize);
    let gens = map.generations();
    let mut checks = Checks::default();
    let mut i = 0;
    while i < gens.len() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if matches!(gens[i], 0 | UNKNOWN) {
            i += 1;
            continue;
        }
        // A run of written units, at most a chunk.
        let first = i;
        while i < gens.len() && i - first < per_chunk && !matches!(gens[i], 0 | UNKNOWN) {
            i += 1;
        }
        let len = (i - first) * unit as usize;
        let buf = &mut pool.slot_mut(0)[..len];
        let at = map.offset(first);
        let whole = file.read_exact_at(buf, at).is_ok();
        for (k, found) in buf.chunks_exact_mut(unit as usize).enumerate() {
            let offset = at + k as u64 * unit;
            if !whole && file.read_exact_at(found, offset).is_err() {
                checks.unreadable_units += 1;
                if checks.first_unreadable_offsets_bytes.len() < Checks::KEEP {
                    checks.first_unreadable_offsets_bytes.push(offset);
                }
                continue;
            }
            let exp = Expected { target, offset, generation: gens[first + k] as u64 };
            checks.checked_units += 1;
            if let Err(m) = format.check(found, &exp) {
                checks.mismatches += 1;
                *checks.by_kind.entry(m.kind).or_default() += 1;
                if checks.first.len() < Checks::KEEP {
                    checks.first.push(MismatchRecord::new(&m, &exp, format.seed(), format.unit()));
                }
            }
        }
    }
    checks
}
