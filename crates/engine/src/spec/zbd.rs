//! fio's `zonemode=zbd` on a target that is not zoned (a file, or a block device whose
//! `queue/zoned` is `none`): fio EMULATES zones there, and so does drivelab (`crate::zbd` runs
//! them). The target is cut into zones of `zone_bytes` from its first byte, each with a write
//! pointer that starts at the zone's start (empty); writes go to the write pointer of an open
//! zone, reads stay below it. One field, `zbd`, carries every option in one value so the spec
//! gains one key: `SIZE[,capacity=SIZE][,max_open=N][,job_max_open=N][,read_beyond_wp]
//! [,reset_threshold=F][,reset_frequency=F][,skip=SIZE]`.
//!
//! What is wrong with the value is a [`ZbdError`]: the words a user reads are written once,
//! there, and a caller can match the kind.

use serde::{Deserialize, Serialize};

use super::{AccessSpec, Trim};
use crate::error::Error;
use crate::options::Field;
use crate::units::{fmt_size, parse_size};

/// fio's `ZBD_MAX_OPEN_ZONES`: the most zones `max_open_zones` may keep open.
pub const MAX_OPEN_ZONES: u32 = 4096;

/// Why a `zbd` value does not parse, or its options do not go together (as fio refuses them).
/// Each kind carries the part, the value and the limit it names; a size's own error is kept as
/// its text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ZbdError {
    /// A size does not parse: `part` is which ("the zone size", "capacity", "skip"), `why` the
    /// size parser's words.
    #[error("{part}: {why}")]
    Size { part: &'static str, why: String },
    #[error("{key} needs a value ({key}=...)")]
    NeedsValue { key: String },
    #[error("{key}={value}: expected a whole number")]
    Count { key: String, value: String },
    #[error("{key}={value}: expected a number from 0 to 1")]
    Share { key: String, value: String },
    #[error("read_beyond_wp={value}: expected 0 or 1")]
    ReadBeyondWp { value: String },
    #[error(
        "unknown part '{key}': use SIZE[,capacity=SIZE][,max_open=N][,job_max_open=N][,read_beyond_wp]\
         [,reset_threshold=F][,reset_frequency=F][,skip=SIZE]"
    )]
    UnknownPart { key: String },
    #[error("the zone size must be at least 512 bytes (as in fio)")]
    ZoneTooSmall { zone: u64 },
    #[error("capacity {capacity} is larger than the zone size {zone} (as fio refuses): give at most the zone size")]
    CapacityOverZone { capacity: u64, zone: u64 },
    #[error("capacity 0: give a capacity of at least one block")]
    CapacityZero,
    /// `max_open` or `job_max_open` (`open`, the larger) past [`MAX_OPEN_ZONES`].
    #[error("at most {} open zones (fio's limit)", MAX_OPEN_ZONES)]
    OpenZones { open: u32 },
    #[error("job_max_open needs max_open (fio: job_max_open_zones cannot be used without a global open zones limit)")]
    JobMaxOpenAlone,
    #[error("skip {skip} is not a multiple of the zone size {zone} (as fio refuses)")]
    Skip { skip: u64, zone: u64 },
}

/// fio's zone options under `zonemode=zbd`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Zbd {
    /// fio's `zonesize`: zones cut from the target's first byte.
    pub zone_bytes: u64,
    /// fio's `zonecapacity`: the writable bytes of each zone. None: the zone size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_bytes: Option<u64>,
    /// fio's `max_open_zones`: zones written at once by all jobs on the target (0: no limit).
    #[serde(default)]
    pub max_open: u32,
    /// fio's `job_max_open_zones`: zones one job opens at once (0: no limit of its own).
    #[serde(default)]
    pub job_max_open: u32,
    /// fio's `read_beyond_wp`: reads may go past the write pointer.
    #[serde(default)]
    pub read_beyond_wp: bool,
    /// fio's `zone_reset_threshold`: share (0..1) of the region holding data above which zones
    /// are reset every `1/reset_frequency` writes.
    #[serde(default)]
    pub reset_threshold: f64,
    /// fio's `zone_reset_frequency` (0..1; 0: no such resets).
    #[serde(default)]
    pub reset_frequency: f64,
    /// fio's `zoneskip` under zbd: bytes skipped after each zone by a sequential job.
    #[serde(default)]
    pub skip_bytes: u64,
}

impl Zbd {
    /// The writable bytes of each zone.
    pub fn capacity(&self) -> u64 {
        self.capacity_bytes.unwrap_or(self.zone_bytes)
    }

    /// Parse the field's value (see the module's docs); the error says what is wrong.
    pub fn parse(v: &str) -> Result<Zbd, ZbdError> {
        let size_of =
            |part: &'static str, s: &str| parse_size(s).map_err(|e| ZbdError::Size { part, why: e.to_string() });
        let mut parts = v.split(',').map(str::trim);
        let size = parts.next().unwrap_or_default();
        let mut z = Zbd { zone_bytes: size_of("the zone size", size)?, ..Zbd::default() };
        for p in parts {
            let (k, val) = p.split_once('=').map_or((p, None), |(k, v)| (k.trim(), Some(v.trim())));
            let need = || val.ok_or_else(|| ZbdError::NeedsValue { key: k.to_string() });
            let count =
                |s: &str| s.parse::<u32>().map_err(|_| ZbdError::Count { key: k.to_string(), value: s.to_string() });
            let share = |s: &str| match s.parse::<f64>() {
                Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
                _ => Err(ZbdError::Share { key: k.to_string(), value: s.to_string() }),
            };
            match k {
                "capacity" => z.capacity_bytes = Some(size_of("capacity", need()?)?),
                "max_open" => z.max_open = count(need()?)?,
                "job_max_open" => z.job_max_open = count(need()?)?,
                "read_beyond_wp" => {
                    z.read_beyond_wp = match val {
                        None | Some("1") | Some("true") => true,
                        Some("0") | Some("false") => false,
                        Some(o) => return Err(ZbdError::ReadBeyondWp { value: o.to_string() }),
                    }
                }
                "reset_threshold" => z.reset_threshold = share(need()?)?,
                "reset_frequency" => z.reset_frequency = share(need()?)?,
                "skip" => z.skip_bytes = size_of("skip", need()?)?,
                _ => return Err(ZbdError::UnknownPart { key: k.to_string() }),
            }
        }
        z.check()?;
        Ok(z)
    }

    /// fio's checks of the options together (`init_zone_info`, `zbd_setup_files`).
    pub fn check(&self) -> Result<(), ZbdError> {
        let zone = self.zone_bytes;
        if zone < 512 {
            return Err(ZbdError::ZoneTooSmall { zone });
        }
        if self.capacity() > zone {
            return Err(ZbdError::CapacityOverZone { capacity: self.capacity(), zone });
        }
        if self.capacity() == 0 {
            return Err(ZbdError::CapacityZero);
        }
        if self.max_open > MAX_OPEN_ZONES || self.job_max_open > MAX_OPEN_ZONES {
            return Err(ZbdError::OpenZones { open: self.max_open.max(self.job_max_open) });
        }
        if self.job_max_open > 0 && self.max_open == 0 {
            return Err(ZbdError::JobMaxOpenAlone);
        }
        if !self.skip_bytes.is_multiple_of(zone) {
            return Err(ZbdError::Skip { skip: self.skip_bytes, zone });
        }
        Ok(())
    }
}

impl AccessSpec {
    /// What fio refuses with `zonemode=zbd`, and what drivelab does not emulate with it.
    pub(super) fn validate_zbd(&self) -> Result<(), Error> {
        let Some(z) = self.zbd else { return Ok(()) };
        let bad = |fix: String| Err(Error::spec(Field::Zbd, z.to_string(), fix));
        if let Err(e) = z.check() {
            return bad(e.to_string());
        }
        if self.zones.is_some() {
            return bad(
                "zbd zones and strided zones ({zone_size}) do not go together (fio's zonemode is one of them)".into()
            );
        }
        if self.max_bs() > z.zone_bytes {
            return bad(format!(
                "a {}-byte block is larger than a zone (fio: I/O buflen exceeds zone size): use smaller blocks",
                self.max_bs()
            ));
        }
        if z.capacity() < self.max_bs() {
            return bad(format!(
                "a zone's capacity is smaller than a {}-byte block (fio: zone capacity smaller than the block size)",
                self.max_bs()
            ));
        }
        if self.trim != Trim::None || self.verify || self.replay.is_some() {
            return bad("trims, {verify} and replays are not emulated with zbd zones: drop them or drop {zbd}".into());
        }
        Ok(())
    }

    /// fio's checks of the region against the emulated zones of a `size`-byte target
    /// (`init_zone_info`, `zbd_zone_align_file_sizes`): the target holds a zone, zones fall on
    /// the O_DIRECT grid, and a job that writes has at least one whole zone in its region
    /// (`start`, `span`; fio rounds the region in to zone boundaries, as the generator does).
    pub fn check_zbd_against(
        &self,
        target: &str,
        size: u64,
        dio_align: u64,
        start: u64,
        span: u64,
    ) -> Result<(), Error> {
        let Some(z) = self.zbd else { return Ok(()) };
        let bad = |fix: String| Err(Error::spec(Field::Zbd, z.to_string(), fix));
        if size < z.zone_bytes {
            return bad(format!(
                "{target} ({size} bytes) is smaller than one zone (as fio refuses): use smaller zones"
            ));
        }
        if self.direct && (!z.zone_bytes.is_multiple_of(dio_align) || !z.capacity().is_multiple_of(dio_align)) {
            return bad(format!("zones must be multiples of {target}'s O_DIRECT alignment ({dio_align} bytes)"));
        }
        if self.has_writes() && whole_zones(z.zone_bytes, start, span).is_none() {
            return bad(format!(
                "the region on {target} ({span} bytes from {start}) holds no whole zone to write (fio: io_size must \
                 be at least one zone): enlarge {{span}} or use smaller zones"
            ));
        }
        Ok(())
    }
}

/// The whole zones of `zone` bytes in `[start, start + span)`: the first and one past the last
/// (fio rounds a writing job's region in to zone boundaries). None: not one whole zone.
pub fn whole_zones(zone: u64, start: u64, span: u64) -> Option<(u64, u64)> {
    let first = start.div_ceil(zone);
    let end = (start + span) / zone;
    (end > first).then_some((first, end))
}

impl std::fmt::Display for Zbd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&fmt_size(self.zone_bytes))?;
        if let Some(c) = self.capacity_bytes {
            write!(f, ",capacity={}", fmt_size(c))?;
        }
        if self.max_open > 0 {
            write!(f, ",max_open={}", self.max_open)?;
        }
        if self.job_max_open > 0 {
            write!(f, ",job_max_open={}", self.job_max_open)?;
        }
        if self.read_beyond_wp {
            f.write_str(",read_beyond_wp")?;
        }
        // Each on its own: the parser takes either alone, and a threshold without a frequency
        // must read back as given.
        if self.reset_threshold != 0.0 {
            write!(f, ",reset_threshold={}", self.reset_threshold)?;
        }
        if self.reset_frequency != 0.0 {
            write!(f, ",reset_frequency={}", self.reset_frequency)?;
        }
        if self.skip_bytes > 0 {
            write!(f, ",skip={}", fmt_size(self.skip_bytes))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_reads_back_as_written_and_bad_parts_are_named() {
        let z = Zbd::parse("1m,capacity=768k,max_open=2,job_max_open=1,read_beyond_wp,skip=2m").unwrap();
        assert_eq!(
            (z.zone_bytes, z.capacity(), z.max_open, z.job_max_open, z.read_beyond_wp, z.skip_bytes),
            (1 << 20, 768 << 10, 2, 1, true, 2 << 20)
        );
        assert_eq!(Zbd::parse(&z.to_string()).unwrap(), z);
        let r = Zbd::parse("256m,reset_threshold=0.5,reset_frequency=0.25").unwrap();
        assert_eq!((r.reset_threshold, r.reset_frequency, r.capacity()), (0.5, 0.25, 256 << 20));
        assert_eq!(Zbd::parse(&r.to_string()).unwrap(), r);
        assert_eq!(r.to_string(), "256m,reset_threshold=0.5,reset_frequency=0.25");
        let t = Zbd::parse("64k,reset_threshold=0.75").unwrap();
        assert_eq!(Zbd::parse(&t.to_string()).unwrap(), t, "a threshold alone reads back");
        for (bad, words) in [
            ("256", "at least 512"),
            ("1m,capacity=2m", "larger than the zone size"),
            ("1m,job_max_open=2", "needs max_open"),
            ("1m,max_open=5000", "at most 4096"),
            ("1m,reset_frequency=2", "from 0 to 1"),
            ("1m,skip=512k", "not a multiple"),
            ("1m,open=2", "unknown part 'open'"),
            ("1m,max_open", "needs a value"),
        ] {
            let e = Zbd::parse(bad).unwrap_err().to_string();
            assert!(e.contains(words), "{bad}: {e}");
        }
    }
}
