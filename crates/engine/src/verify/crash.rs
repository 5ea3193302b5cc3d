//! After a crash: every unit a journal says was written, read back and judged against what the
//! drive promised. A unit whose newest write was durable (acknowledged with O_DSYNC, or covered
//! by a completed fsync) must hold that write, or a later one that was in flight; anything else
//! is a durable write lost — the failure a power-loss-protection claim must never show. A unit
//! whose newest write was not yet durable may hold it or an older one: that is reported, as
//! information, and never called lost.
//!
//! | verdict | the unit's newest write | what is found |
//! |---|---|---|
//! | `durable.checked` ok | durable | it, or a later (in-flight) write of the unit, intact |
//! | `durable.mismatches` | durable | anything else: lost (stale, never_written), torn, corrupt |
//! | `not_durable.landed` | acknowledged or in flight | it, intact |
//! | `not_durable.acked_lost` | acknowledged, not yet durable | an older write, or nothing durable |
//! | `not_durable.in_flight_not_landed` | in flight | an older write, or nothing durable |
//! | `not_durable.torn` | not durable | torn (part of a write that was under way) |
//! | `unjudged` | failed, or nothing durable and nothing found | — |

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::classify::{Expected, MismatchKind};
use super::format::UnitFormat;
use super::header::Header;
use super::map::UNKNOWN;
use super::replay::{steps, JournalTarget};
use crate::pattern::BufferPool;
use crate::result::{Checks, MismatchRecord};

/// Bytes per read of the judge's pass.
const CHUNK: u64 = 1 << 20;

/// Units whose newest write was not durable when the journal ends, by what was found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotDurable {
    /// The newest write is there, intact.
    pub landed_units: u64,
    /// The newest write was acknowledged (not yet made durable by a flush) and is not there.
    pub acked_lost_units: u64,
    /// The newest write was in flight and is not there.
    pub in_flight_not_landed_units: u64,
    /// Torn: part of a write that was under way.
    pub torn_units: u64,
}

/// What a target holds after a crash, against its journal.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrashChecks {
    /// The path read (the journal's, or the one given in its place).
    pub target: String,
    pub unit_bytes: u64,
    /// Units whose newest write was durable: checked, and every one not there is a mismatch
    /// (a durable write lost, or corrupt).
    pub durable: Checks,
    pub not_durable: NotDurable,
    /// Units whose last write failed, or that never held a durable write and hold none now.
    pub unjudged_units: u64,
}

impl CrashChecks {
    /// Durable writes lost or corrupt, and durable units unreadable.
    pub fn failed(&self) -> u64 {
        self.durable.failed()
    }
}

/// Read every unit `t` says was written from `file` (read as `path`) and judge it; stops early
/// when `stop` is set.
pub fn judge(file: &File, path: &str, t: &JournalTarget, stop: &AtomicBool) -> CrashChecks {
    let unit = t.unit;
    let format = UnitFormat::new(unit as usize, t.seed, t.zero_pct);
    let mut out = CrashChecks { target: path.to_string(), unit_bytes: unit, ..Default::default() };
    let mut pool = BufferPool::new(1, CHUNK as usize);
    let issued = &t.units.issued;
    let per_chunk = (CHUNK / unit) as usize;
    let mut i = 0;
    while i < issued.len() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if issued[i] == 0 {
            i += 1;
            continue;
        }
        let first = i;
        while i < issued.len() && i - first < per_chunk && issued[i] != 0 {
            i += 1;
        }
        let at = t.start + first as u64 * unit;
        let buf = &mut pool.slot_mut(0)[..(i - first) * unit as usize];
        let whole = file.read_exact_at(buf, at).is_ok();
        for (k, found) in buf.chunks_exact_mut(unit as usize).enumerate() {
            let offset = at + k as u64 * unit;
            let readable = whole || file.read_exact_at(found, offset).is_ok();
            judge_unit(&mut out, &format, t, first + k, offset, readable.then_some(&*found));
        }
    }
    out
}

/// Judge unit `u` at `offset` (`found`: its bytes, None when unreadable).
fn judge_unit(
    out: &mut CrashChecks,
    format: &UnitFormat,
    t: &JournalTarget,
    u: usize,
    offset: u64,
    found: Option<&[u8]>,
) {
    let s = &t.units;
    let (durable, acked, issued, since) = (s.durable[u], s.acked[u], s.issued[u], s.since[u]);
    let durable_known = !matches!(durable, 0 | UNKNOWN);
    if issued == UNKNOWN || (!durable_known && found.is_none()) {
        out.unjudged_units += 1;
        return;
    }
    let Some(found) = found else {
        out.durable.unreadable_units += 1;
        if out.durable.first_unreadable_offsets_bytes.len() < Checks::KEEP {
            out.durable.first_unreadable_offsets_bytes.push(offset);
        }
        return;
    };
    if durable_known {
        out.durable.checked_units += 1;
    }
    let expect = |g: u8| Expected { target: t.run_index, offset, generation: g as u64 };
    // The generation found, when the unit is intact (a whole write of this unit by this target).
    let intact = Header::decode(found)
        .and_then(|h| u8::try_from(h.generation).ok())
        .filter(|&g| g != 0 && g != UNKNOWN && format.matches(found, &expect(g)));
    let newest_durable = since == 0;
    // Where on the chain of writes from the durable one to the newest the found one is.
    let position = intact.map(|g| steps(durable, g)).filter(|&p| since == 255 || p <= since);
    match (intact, position) {
        (Some(g), _) if g == issued => {
            if !newest_durable {
                out.not_durable.landed_units += 1;
            }
        }
        (Some(_), Some(p)) => newest_missing(out, durable, acked, issued, Some(p)),
        _ if !newest_durable && torn(format, found, &expect(issued), durable_known.then(|| expect(durable))) => {
            out.not_durable.torn_units += 1
        }
        _ if !durable_known => newest_missing(out, durable, acked, issued, None),
        _ => {
            let exp = expect(durable);
            let Err(m) = format.check(found, &exp) else {
                unreachable!("an intact unit of the durable generation is on the chain")
            };
            let c = &mut out.durable;
            c.mismatches += 1;
            *c.by_kind.entry(m.kind).or_default() += 1;
            if c.first.len() < Checks::KEEP {
                let mut r = MismatchRecord::new(&m, &exp, t.seed, t.unit as usize);
                r.target = out.target.clone();
                c.first.push(r);
            }
        }
    }
}

/// The unit's newest write (not durable) is not there; what is there is at chain position
/// `found` (None: nothing on the chain). Lost acknowledged writes are told from writes that were
/// only in flight.
fn newest_missing(out: &mut CrashChecks, durable: u8, acked: u8, issued: u8, found: Option<u8>) {
    let acked_kept = match (matches!(acked, 0 | UNKNOWN), found) {
        (true, _) => true,
        (false, Some(p)) => p >= steps(durable, acked),
        (false, None) => false,
    };
    if acked == issued || !acked_kept {
        out.not_durable.acked_lost_units += 1;
    } else {
        out.not_durable.in_flight_not_landed_units += 1;
    }
}

/// Whether `found` is torn between the newest write and the durable one (header of one, much of
/// the payload not its own).
fn torn(format: &UnitFormat, found: &[u8], newest: &Expected, durable: Option<Expected>) -> bool {
    let is_torn = |e: &Expected| matches!(format.check(found, e), Err(m) if m.kind == MismatchKind::Torn);
    is_torn(newest) || durable.is_some_and(|d| is_torn(&d))
}
