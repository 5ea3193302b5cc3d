//! Where a spec's I/Os come from besides the generator's reads and writes: trims (fio's trim
//! words) and a replayed trace, with the checks of what cannot go with them.

use serde::{Deserialize, Serialize};

use super::AccessSpec;
use crate::error::Error;
use crate::options::Field;

/// A captured workload to replay (see `crate::replay`): its file and how fast.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replay {
    pub path: String,
    /// As fast as the queue depth allows (fio's `replay_no_stall`); false: the original timing.
    #[serde(default)]
    pub fast: bool,
}

/// Trims (fio's `trim`, `randtrim`, `trimwrite`, `randtrimwrite`): a discard on a block device
/// (BLKDISCARD), a punched hole in a file. They destroy data: a target is trimmed only where it
/// may be written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trim {
    /// Reads and writes.
    #[default]
    None,
    /// Every I/O a trim.
    Only,
    /// A trim, then a write of the same blocks, and so on (fio's trimwrite).
    ThenWrite,
}

impl Trim {
    pub fn is_none(&self) -> bool {
        *self == Trim::None
    }
}

impl Trim {
    /// fio's word for these trims: sequential or random.
    pub fn word(self, random: bool) -> Option<&'static str> {
        match (self, random) {
            (Trim::Only, false) => Some("trim"),
            (Trim::Only, true) => Some("randtrim"),
            (Trim::ThenWrite, false) => Some("trimwrite"),
            (Trim::ThenWrite, true) => Some("randtrimwrite"),
            (Trim::None, _) => None,
        }
    }
}

impl AccessSpec {
    /// What cannot go with trims or a replay, refused by field with the fix.
    pub(super) fn check_trims_and_replay(&self) -> Result<(), Error> {
        let bad = |field: Field, value: String, fix: &str| Err(Error::spec(field, value, fix));
        if !self.trim.is_none() && self.read_pct > 0 {
            return bad(
                Field::Read,
                format!("{}%", self.read_pct),
                "a trim workload has no reads: give {rw} trim, randtrim, trimwrite or randtrimwrite alone",
            );
        }
        if let Some(r) = &self.replay {
            let refuse = |field: Field, what: &str| Err(Error::spec(field, format!("with --replay {}", r.path), what));
            if self.jobs > 1 {
                return refuse(Field::Jobs, "a replay runs the trace once, in one job per target: drop {jobs}");
            }
            if self.verify {
                return refuse(
                    Field::Verify,
                    "a trace's writes carry no headers to check: verify a generated workload",
                );
            }
            if !self.trim.is_none() {
                return refuse(Field::Rw, "the trace says what each I/O is: drop {rw}");
            }
            if self.rate.is_some() {
                return refuse(Field::Rate, "the trace's own times pace it (or --replay-timing fast): drop {rate}");
            }
        }
        if !self.trim.is_none() && self.rate.is_some() {
            return bad(
                Field::Rate,
                "with trims".into(),
                "trims run closed loop (as many as --qd allows): drop the rate, or give a read or write workload",
            );
        }
        let ranges = self.engine_opts.cmd.num_range;
        if ranges > 1 && !self.trim.is_none() {
            self.check_trim_ranges(ranges)?;
        }
        if !self.trim.is_none() && self.verify {
            return bad(
                Field::Verify,
                "with trims".into(),
                "a trimmed block's content is not defined (zeros on some drives, the old data on others), so it \
                 cannot be checked: verify a read or write workload",
            );
        }
        Ok(())
    }

    /// fio's `num_range` above 1 with trims: io_uring_cmd's Dataset Management only, trims
    /// alone, one command's ranges under 4 GiB, and no iolog (one line per I/O cannot say several
    /// ranges).
    fn check_trim_ranges(&self, ranges: u16) -> Result<(), Error> {
        let bad = |field: Field, value: String, fix: String| Err(Error::spec(field, value, fix));
        if self.engine != crate::backend::EngineKind::UringCmd {
            let fix = format!(
                "several ranges in one trim are io_uring_cmd's (an NVMe Dataset Management), and this runs {}: use \
                 {{engine}} uring_cmd on an NVMe generic device (/dev/ngXnY), or give 1",
                self.engine.name()
            );
            return bad(Field::NumRange, ranges.to_string(), fix);
        }
        if self.trim == Trim::ThenWrite {
            let fix = "trimwrite writes each trimmed range next, one range at a time (fio refuses it too): give \
                       {rw} trim or randtrim, or num_range 1";
            return bad(Field::NumRange, ranges.to_string(), fix.into());
        }
        if u64::from(ranges) * self.max_bs() > u64::from(u32::MAX) {
            let fix = format!(
                "{ranges} ranges of up to {} are one trim of 4 GiB or more: give fewer ranges or a smaller {{bs}}",
                crate::units::fmt_size(self.max_bs())
            );
            return bad(Field::NumRange, ranges.to_string(), fix);
        }
        if self.io_log.as_ref().is_some_and(|l| l.iolog.is_some()) {
            let fix =
                "write_iolog writes one offset per I/O and a trim of several ranges has several: drop one of them";
            return bad(Field::NumRange, ranges.to_string(), fix.into());
        }
        Ok(())
    }

    /// Ranges per trim the worker gathers (fio's `num_range` for io_uring_cmd's trims; else 1).
    pub fn trim_ranges(&self) -> u16 {
        if self.trim == Trim::Only && self.engine == crate::backend::EngineKind::UringCmd {
            self.engine_opts.cmd.num_range.max(1)
        } else {
            1
        }
    }
}
