//! fio's `dedupe_percentage`, `dedupe_mode`, `dedupe_working_set_percentage` and
//! `dedupe_global` as one field, `dedupe = "PCT[:repeat|:working_set[:WS]][:global]"`: the share
//! of writes whose data repeats data the job (or, global, any job of the run) writes elsewhere,
//! so a deduplicating target stores less. Without it every block drivelab writes is unique
//! (stamped); with it writes carry fio-like buffers made from seeds (`worker/dedupe.rs`).

use serde::{Deserialize, Serialize};

use super::{AccessSpec, DataPattern};
use crate::error::Error;
use crate::options::Field;

/// Which earlier (or later) data a deduplicated write repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeMode {
    /// fio's `repeat`: the buffer the job's next unique write holds.
    Repeat,
    /// fio's `working_set`: one of the first `working_set_pct`% of the region's blocks' worth of
    /// unique buffers, drawn uniformly.
    WorkingSet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dedupe {
    /// Share of writes (1..=100) whose data repeats another's.
    pub pct: u8,
    pub mode: DedupeMode,
    /// `working_set`: the working set, as a share of the job's region (fio's default 5).
    pub working_set_pct: u8,
    /// fio's `dedupe_global`: the working set spans every job of the run (each contributes its
    /// first buffers), so jobs deduplicate against each other.
    pub global: bool,
}

/// fio's default `dedupe_working_set_percentage`.
pub const DEFAULT_WORKING_SET_PCT: u8 = 5;

impl Dedupe {
    /// Parse `PCT[:repeat|:working_set[:WS]][:global]`.
    pub fn parse(text: &str) -> Result<Option<Dedupe>, String> {
        let mut parts = text.split(':').map(str::trim);
        let pct: u8 = match parts.next().unwrap_or("").parse() {
            Ok(p) if p <= 100 => p,
            _ => return Err(format!("'{text}': the duplicate share is a percentage 0..100 first")),
        };
        let mut d = Dedupe { pct, mode: DedupeMode::Repeat, working_set_pct: DEFAULT_WORKING_SET_PCT, global: false };
        let rest: Vec<&str> = parts.collect();
        let mut i = 0;
        while i < rest.len() {
            match rest[i] {
                "repeat" => d.mode = DedupeMode::Repeat,
                "working_set" => {
                    d.mode = DedupeMode::WorkingSet;
                    if let Some(ws) = rest.get(i + 1).and_then(|w| w.parse::<u8>().ok()) {
                        if ws > 100 {
                            return Err(format!("'{text}': the working set is a percentage 0..100"));
                        }
                        d.working_set_pct = ws;
                        i += 1;
                    }
                }
                "global" => d.global = true,
                w => {
                    return Err(format!(
                        "'{text}': '{w}' is not repeat, working_set[:PCT] or global (e.g. 50:working_set:20:global)"
                    ))
                }
            }
            i += 1;
        }
        Ok((pct > 0).then_some(d))
    }
}

impl std::fmt::Display for Dedupe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.pct)?;
        match self.mode {
            // A working set given and then `repeat` (the parser keeps both): written so it reads
            // back the same.
            DedupeMode::Repeat if self.working_set_pct != DEFAULT_WORKING_SET_PCT => {
                write!(f, ":working_set:{}:repeat", self.working_set_pct)?
            }
            DedupeMode::Repeat => write!(f, ":repeat")?,
            DedupeMode::WorkingSet => write!(f, ":working_set:{}", self.working_set_pct)?,
        }
        if self.global {
            write!(f, ":global")?;
        }
        Ok(())
    }
}

impl AccessSpec {
    /// Dedupe makes its own buffers: not with verify's headers, a pattern, or all-zero data.
    pub(super) fn validate_dedupe(&self) -> Result<(), Error> {
        let Some(d) = self.dedupe else { return Ok(()) };
        let bad = |fix: &str| Err(Error::spec(Field::Dedupe, d.to_string(), fix));
        if d.pct > 100 || d.working_set_pct > 100 {
            return bad("percentages are 0..100");
        }
        if self.verify {
            return bad("verify's headers make every block unique: drop {verify} or the dedupe share");
        }
        if self.buffer_pattern_hex.is_some() {
            return bad("every write holds the pattern already: drop {buffer_pattern}");
        }
        if self.data == DataPattern::Zero || self.data == (DataPattern::Compress { pct: 100 }) {
            return bad("all-zero data is one block repeated: use random data, or compress below 100");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_reads_fios_four_options_as_one() {
        let d = Dedupe::parse("50:working_set:20:global").unwrap().unwrap();
        assert_eq!(d, Dedupe { pct: 50, mode: DedupeMode::WorkingSet, working_set_pct: 20, global: true });
        assert_eq!(d.to_string(), "50:working_set:20:global");
        let d = Dedupe::parse("30").unwrap().unwrap();
        assert_eq!((d.mode, d.global), (DedupeMode::Repeat, false));
        assert_eq!(Dedupe::parse("10:working_set").unwrap().unwrap().working_set_pct, 5, "fio's default");
        for text in ["30", "30:repeat:global", "40:working_set:10:repeat", "10:working_set"] {
            let d = Dedupe::parse(text).unwrap();
            assert_eq!(Dedupe::parse(&d.unwrap().to_string()).unwrap(), d, "{text}");
        }
        assert_eq!(Dedupe::parse("0:repeat").unwrap(), None, "0: no dedupe, as in fio");
        for bad in ["101", "x", "50:often", "50:working_set:200"] {
            assert!(Dedupe::parse(bad).is_err(), "{bad}");
        }
    }
}
