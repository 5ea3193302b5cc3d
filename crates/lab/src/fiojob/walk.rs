//! fio's options that shape the walk over the region (the engine's `spec/stride.rs`): the `:N`
//! of `rw=WORD:N` (read by the `rw` arm through [`rw_suffix`]), `rw_sequencer`, and
//! `zonemode=strided` with `zonerange`, `zonesize`, `zoneskip`, and `zonemode=zbd` (zones
//! emulated with write pointers: the engine's `zbd` field) with its own options. Kept beside
//! `options.rs` so its table only gains one arm delegating here.

use drivelab_engine::spec::zbd::Zbd;
use drivelab_engine::spec::{AccessSpec, StridedZones};

use super::ini::Opt;
use super::value::{size, KbBase};

/// The options this module reads.
pub const KEYS: &[&str] = &[
    "rw_sequencer",
    "zonemode",
    "zonerange",
    "zonesize",
    "zoneskip",
    "zonecapacity",
    "max_open_zones",
    "job_max_open_zones",
    "read_beyond_wp",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "ignore_zone_limits",
];

/// What the walk's options set, given to the spec by [`Walk::set`].
#[derive(Default)]
pub struct Walk {
    /// `rw_sequencer=identical` (true) or `sequential`.
    sequencer: Option<bool>,
    /// `zonemode` as given: None (fio: strided when `zonesize` is given), Some(true) strided.
    strided: Option<bool>,
    range: Option<u64>,
    size: Option<u64>,
    skip: Option<u64>,
    /// `zonemode=zbd` was given (the last `zonemode` wins).
    zbd: bool,
    capacity: Option<u64>,
    max_open: Option<u32>,
    job_max_open: Option<u32>,
    read_beyond_wp: bool,
    reset_threshold: Option<f64>,
    reset_frequency: Option<f64>,
}

/// Why a zone or sequencer option was refused, by kind (the words once, here).
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("after {word}, N is a count of I/Os (a new random offset every N I/Os): '{n}' is not a whole number")]
    RandomCount { word: String, n: String },
    #[error(transparent)]
    Value(#[from] drivelab_engine::units::ValueError),
    #[error("the bytes skipped are too many: give at most 8 EiB")]
    SkipTooLarge,
    #[error("expected sequential or identical")]
    Sequencer,
    #[error("expected none, strided or zbd")]
    ZoneMode,
    #[error("expected a number of zones from 0 to {0}")]
    OpenZones(u32),
    #[error("expected 0 or 1")]
    Bool,
    #[error("expected a number from 0 to 1")]
    Share,
    #[error("zonemode=none and zonesize do not go together (as in fio)")]
    NoneWithSize,
    #[error("zonemode=strided needs zonesize (as in fio)")]
    StridedWithoutSize,
    #[error("zonemode=zbd on a file or a device that is not zoned emulates zones: it needs zonesize (as in fio)")]
    ZbdWithoutSize,
    #[error(transparent)]
    Zbd(#[from] drivelab_engine::spec::zbd::ZbdError),
}

/// The `:N` of fio's `rw=WORD:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwSuffix {
    /// After a random word: a new random offset every N I/Os (the spec's `random_every_ios`).
    EveryIos(u32),
    /// After a sequential word: bytes skipped after each I/O, backwards when negative (the
    /// spec's `seq_skip_bytes`).
    SkipBytes(i64),
}

impl RwSuffix {
    /// Give `spec` the suffix (after its `rw` is set, which clears both).
    pub fn set(self, spec: &mut AccessSpec) {
        match self {
            RwSuffix::EveryIos(n) => spec.random_every_ios = n,
            RwSuffix::SkipBytes(b) => spec.seq_skip_bytes = b,
        }
    }
}

/// The `:N` of fio's `rw=WORD:N`: for a random word a count of I/Os (fio's `atoi`), otherwise
/// bytes (fio's sizes, with `kb_base`; a leading `-` walks backwards).
pub fn rw_suffix(word: &str, n: &str, kb: KbBase) -> Result<RwSuffix, WalkError> {
    let n = n.trim();
    if word.starts_with("rand") {
        let count: u32 = n.parse().map_err(|_| WalkError::RandomCount { word: word.to_string(), n: n.to_string() })?;
        return Ok(RwSuffix::EveryIos(count));
    }
    let (negative, body) = match n.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, n),
    };
    let bytes = i64::try_from(size(body, kb)?).map_err(|_| WalkError::SkipTooLarge)?;
    Ok(RwSuffix::SkipBytes(if negative { -bytes } else { bytes }))
}

impl Walk {
    /// Read option `o` (one of [`KEYS`]) with its `value`.
    pub fn apply(&mut self, o: &Opt, value: &str, kb: KbBase) -> Result<(), WalkError> {
        let sz = |v: &str| size(v, kb);
        match o.key.as_str() {
            "rw_sequencer" => {
                self.sequencer = Some(match value {
                    "sequential" => false,
                    "identical" => true,
                    _ => return Err(WalkError::Sequencer),
                })
            }
            "zonemode" => {
                (self.strided, self.zbd) = match value {
                    "none" => (Some(false), false),
                    "strided" => (Some(true), false),
                    "zbd" => (None, true),
                    _ => return Err(WalkError::ZoneMode),
                }
            }
            "zonerange" => self.range = Some(sz(value)?),
            "zonesize" => self.size = Some(sz(value)?),
            "zoneskip" => self.skip = Some(sz(value)?),
            "zonecapacity" => self.capacity = Some(sz(value)?),
            "max_open_zones" => self.max_open = Some(open_zones(value)?),
            "job_max_open_zones" => self.job_max_open = Some(open_zones(value)?),
            "read_beyond_wp" => self.read_beyond_wp = fio_bool(value)?,
            "zone_reset_threshold" => self.reset_threshold = Some(share(value)?),
            "zone_reset_frequency" => self.reset_frequency = Some(share(value)?),
            // fio: only a host-managed device has limits of its own to ignore; emulated zones
            // have none (a real zoned device is refused).
            "ignore_zone_limits" => {
                fio_bool(value)?;
            }
            _ => unreachable!("walk::apply called for {}", o.key),
        }
        Ok(())
    }

    /// Give `spec` what these options set, checked together as fio checks them.
    pub fn set(&self, spec: &mut AccessSpec) -> Result<(), WalkError> {
        if let Some(identical) = self.sequencer {
            spec.random_repeat = identical;
        }
        if self.zbd {
            spec.zbd = Some(self.zbd()?);
            return Ok(());
        }
        let size = self.size.filter(|&s| s > 0);
        let strided = match (self.strided, size) {
            (Some(false), Some(_)) => return Err(WalkError::NoneWithSize),
            (Some(true), None) => return Err(WalkError::StridedWithoutSize),
            (Some(s), _) => s,
            // fio: a zonesize without zonemode is strided.
            (None, s) => s.is_some(),
        };
        if strided {
            let size = size.unwrap_or_default();
            // fio: zonerange defaults to zonesize.
            let range = Some(self.range.filter(|&r| r > 0).unwrap_or(size));
            spec.zones =
                Some(StridedZones { size_bytes: size, range_bytes: range, skip_bytes: self.skip.unwrap_or(0) });
        }
        Ok(())
    }
}

impl Walk {
    /// The emulated zones: `zonesize` and the zbd options (fio ignores `zonerange` here).
    fn zbd(&self) -> Result<Zbd, WalkError> {
        let zone_bytes = self.size.filter(|&s| s > 0).ok_or(WalkError::ZbdWithoutSize)?;
        let frequency = self.reset_frequency.filter(|&f| f > 0.0);
        let z = Zbd {
            zone_bytes,
            capacity_bytes: self.capacity.filter(|&c| c > 0),
            max_open: self.max_open.unwrap_or(0),
            job_max_open: self.job_max_open.unwrap_or(0),
            read_beyond_wp: self.read_beyond_wp,
            reset_threshold: frequency.map_or(0.0, |_| self.reset_threshold.unwrap_or(0.0)),
            reset_frequency: frequency.unwrap_or(0.0),
            skip_bytes: self.skip.unwrap_or(0),
        };
        z.check()?;
        Ok(z)
    }
}

/// fio's `max_open_zones`/`job_max_open_zones`: 0 to `ZBD_MAX_OPEN_ZONES`.
fn open_zones(v: &str) -> Result<u32, WalkError> {
    let max = drivelab_engine::spec::zbd::MAX_OPEN_ZONES;
    v.trim().parse::<u32>().ok().filter(|&n| n <= max).ok_or(WalkError::OpenZones(max))
}

/// fio's booleans.
fn fio_bool(v: &str) -> Result<bool, WalkError> {
    match v.trim() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(WalkError::Bool),
    }
}

/// fio's `zone_reset_threshold`/`zone_reset_frequency`: a share from 0 to 1 (fio reads one
/// value of its list here).
fn share(v: &str) -> Result<f64, WalkError> {
    v.trim().parse::<f64>().ok().filter(|f| (0.0..=1.0).contains(f)).ok_or(WalkError::Share)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiojob::options::translate;

    fn opts(text: &str) -> Vec<Opt> {
        text.lines()
            .enumerate()
            .map(|(i, l)| {
                let (k, v) = l.split_once('=').unwrap();
                Opt { key: k.into(), value: Some(v.into()), line: i + 1 }
            })
            .collect()
    }

    fn spec(text: &str) -> Result<AccessSpec, String> {
        translate("j", 1, &opts(text)).map(|j| j.spec).map_err(|e| format!("{}: {}", e.line, e.message))
    }

    #[test]
    fn rw_suffixes_with_fios_units() {
        assert_eq!(rw_suffix("read", "-8k", KbBase::Binary).unwrap(), RwSuffix::SkipBytes(-8192));
        assert_eq!(spec("rw=read:-8k").unwrap().seq_skip_bytes, -8192);
        assert_eq!(spec("kb_base=1000\nrw=write:64k").unwrap().seq_skip_bytes, 64000);
        let s = spec("rw=randread:8").unwrap();
        assert_eq!((s.random_every_ios, s.random_pct, s.read_pct), (8, 100, 100));
        // A later plain rw drops the suffix, as fio's rw callback resets it.
        assert_eq!(spec("rw=write:64k\nrw=write").unwrap().seq_skip_bytes, 0);
        let e = spec("size=1m\nrw=randread:8k").unwrap_err();
        assert!(e.starts_with("2: rw=randread:8k") && e.contains("count of I/Os"), "{e}");
        let e = spec("rw=bogus:4k").unwrap_err();
        assert!(e.contains("expected read"), "{e}");
    }

    #[test]
    fn zones_follow_fios_rules() {
        let z = spec("zonesize=256m\nzoneskip=2g").unwrap().zones.unwrap();
        assert_eq!((z.size_bytes, z.range_bytes, z.skip_bytes), (256 << 20, Some(256 << 20), 2 << 30));
        let z = spec("zonemode=strided\nzonesize=16k\nzonerange=64k").unwrap().zones.unwrap();
        assert_eq!(z.range_bytes, Some(65536));
        assert_eq!(spec("zonemode=none\nzonerange=64k").unwrap().zones, None, "no zones without zonesize");
        assert!(spec("zonemode=strided\nzonerange=64k").unwrap_err().contains("needs zonesize"));
        assert!(spec("zonemode=none\nzonesize=64k").unwrap_err().contains("do not go together"));
        assert!(spec("zonemode=zbd").unwrap_err().contains("it needs zonesize"));
        assert!(spec("rw=randread:4\nrw_sequencer=identical").unwrap().random_repeat);
        assert!(spec("rw_sequencer=backwards").unwrap_err().contains("sequential or identical"));
    }
}

#[cfg(test)]
mod zbd_tests {
    use super::*;
    use crate::fiojob::options::translate;

    fn zbd(text: &str) -> Result<Option<String>, String> {
        let opts: Vec<Opt> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let (k, v) = l.split_once('=').unwrap();
                Opt { key: k.into(), value: Some(v.into()), line: i + 1 }
            })
            .collect();
        // The emulated zones as the engine's `zbd` value reads them.
        translate("j", 1, &opts)
            .map(|j| j.spec.zbd.map(|z| z.to_string()))
            .map_err(|e| format!("{}: {}", e.line, e.message))
    }

    #[test]
    fn zbd_options_make_the_engines_zbd_field() {
        assert_eq!(zbd("zonemode=zbd\nzonesize=256M\nmax_open_zones=32").unwrap().as_deref(), Some("256m,max_open=32"));
        let all = "zonemode=zbd\nzonesize=1m\nzonecapacity=512k\nmax_open_zones=4\njob_max_open_zones=2\n\
                   read_beyond_wp=1\nzone_reset_threshold=0.5\nzone_reset_frequency=0.25\nzoneskip=2m\nzonerange=4m\n\
                   ignore_zone_limits=1";
        assert_eq!(
            zbd(all).unwrap().as_deref(),
            Some("1m,capacity=512k,max_open=4,job_max_open=2,read_beyond_wp,reset_threshold=0.5,reset_frequency=0.25,skip=2m")
        );
        // No strided zones with zbd, and strided zones without it.
        assert_eq!(zbd("zonesize=1m").unwrap(), None);
        assert!(zbd("zonemode=zbd").unwrap_err().contains("needs zonesize"));
        assert!(zbd("zonemode=zbd\nzonesize=1m\nzonecapacity=2m").unwrap_err().contains("larger than the zone size"));
        assert!(zbd("zonemode=zbd\nzonesize=1m\njob_max_open_zones=2").unwrap_err().contains("needs max_open"));
        assert!(zbd("max_open_zones=5000").unwrap_err().starts_with("1: max_open_zones=5000: expected a number"));
        assert!(zbd("zone_reset_frequency=2").unwrap_err().contains("from 0 to 1"));
        assert!(zbd("zonemode=bogus").unwrap_err().contains("none, strided or zbd"));
    }
}
