//! How a sequential or random walk over the region is shaped beyond random %: fio's `rw=WORD:N`
//! suffix (holes or a backwards walk for sequential I/O, a new random offset only every N I/Os
//! for random I/O, with `rw_sequencer`) and fio's `zonemode=strided` (`zonerange`, `zonesize`,
//! `zoneskip`). Kept apart from `mod.rs` so the walk's options and their checks are read
//! together; the generator (`gen/walk.rs`) does the walking.

use serde::{Deserialize, Serialize};

use super::AccessSpec;
use crate::error::Error;
use crate::options::Field;
use crate::units::{fmt_size, parse_size};

/// fio's `zonemode=strided`: I/O stays in one zone of `range_bytes` until `size_bytes` have
/// moved there, then moves on by the zone's range plus `skip_bytes`, wrapping to the region's
/// start past its end. Random I/Os land anywhere in the current zone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StridedZones {
    /// Bytes moved in a zone before the next (fio's `zonesize`).
    pub size_bytes: u64,
    /// The zone's length (fio's `zonerange`); None: `size_bytes`, as in fio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_bytes: Option<u64>,
    /// Bytes skipped after a zone (fio's `zoneskip`).
    #[serde(default)]
    pub skip_bytes: u64,
}

impl StridedZones {
    /// The zone's length.
    pub fn range(&self) -> u64 {
        self.range_bytes.unwrap_or(self.size_bytes)
    }
}

/// `serde`'s skip test for an unset signed field.
pub(super) fn is_zero_i64(n: &i64) -> bool {
    *n == 0
}

/// `serde`'s skip test for `random_every_ios`: 0 and 1 both mean every I/O.
pub(super) fn every_io(n: &u32) -> bool {
    *n <= 1
}

impl AccessSpec {
    /// fio's `rw=WORD:N` suffix, `N` as written after the colon: for a random word a count of
    /// I/Os (a new random offset every N), otherwise bytes skipped after each sequential I/O
    /// (negative: backwards), e.g. `-8k`.
    pub(super) fn set_rw_suffix(&mut self, word: &str, n: &str) -> Result<(), Error> {
        let n = n.trim();
        let bad = |fix: &str| Error::spec(Field::Rw, format!("'{word}:{n}'"), fix);
        if self.random_pct > 0 {
            self.random_every_ios = n.parse().map_err(|_| {
                bad("after a random word, N is a count of I/Os: a new random offset every N I/Os (e.g. randread:8)")
            })?;
            return Ok(());
        }
        let (negative, size) = match n.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, n),
        };
        let bytes = parse_size(size).ok().filter(|&b| b <= i64::MAX as u64).ok_or_else(|| {
            bad("after a sequential word, N is the bytes skipped after each I/O, e.g. write:64k or read:-8k")
        })?;
        self.seq_skip_bytes = if negative { -(bytes as i64) } else { bytes as i64 };
        Ok(())
    }

    /// The walk's checks that need no target: a skip on the alignment grid, a zone that holds
    /// a block and moves some bytes.
    pub(super) fn validate_walk(&self) -> Result<(), Error> {
        let grid = self.seq_grid();
        if self.seq_skip_bytes.unsigned_abs() % grid != 0 {
            let value = format!("{} bytes skipped", self.seq_skip_bytes);
            let fix = format!("skip a multiple of the alignment ({grid} bytes) so every offset stays on the grid");
            return Err(Error::spec(Field::Rw, value, fix));
        }
        let align = self.align();
        if let Some(z) = self.zones {
            if z.size_bytes == 0 {
                return Err(Error::spec(Field::ZoneSize, "0", "give the bytes to move in each zone, e.g. 256m"));
            }
            for (field, v) in [(Field::ZoneRange, z.range()), (Field::ZoneSkip, z.skip_bytes)] {
                if v % align != 0 {
                    let fix =
                        format!("give a multiple of the alignment ({align} bytes) so every zone starts on the grid");
                    return Err(Error::spec(field, fmt_size(v), fix));
                }
            }
            if z.range() < self.max_bs() {
                let fix = format!("a zone must hold the largest block ({}): enlarge it", fmt_size(self.max_bs()));
                return Err(Error::spec(Field::ZoneRange, fmt_size(z.range()), fix));
            }
            if !self.distribution.is_uniform() {
                return Err(Error::spec(
                    Field::Distribution,
                    self.distribution.to_string(),
                    "strided zones draw random offsets uniformly in the zone: drop {distribution} or the zones",
                ));
            }
        }
        Ok(())
    }

    /// The walk's check against a region of `span` bytes on `target`.
    pub(super) fn check_walk_against(&self, target: &str, span: u64) -> Result<(), Error> {
        match self.zones {
            Some(z) if z.range() > span => {
                let fix = format!("the region on {target} is {span} bytes: give a {{zone_range}} of at most that");
                Err(Error::spec(Field::ZoneRange, fmt_size(z.range()), fix))
            }
            _ => Ok(()),
        }
    }
}
