//! `--cap-time DUR` and `--cap-size SIZE`: a job file run shortened without editing it (fio's
//! examples ask for 10 GiB files and 15-minute runs; a smoke test or a first look wants less).
//! Each job's time (and ramp) is at most DUR and its region and bytes at most SIZE; a job bound
//! by size alone also ends after DUR. The capped values are the point's recorded fields, and the
//! result says it was shortened, so a capped run is never mistaken for the file's full run.

use drivelab_engine::Error;

use super::value::{size, time_ns, BareTime, KbBase};

/// What `--cap-time`/`--cap-size` allow each job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cap {
    pub time_ns: Option<u64>,
    pub bytes: Option<u64>,
}

impl Cap {
    /// Parse the flags as written (a bare time is seconds, sizes take fio's units, k = 1024).
    pub fn parse(time: Option<&str>, bytes: Option<&str>) -> Result<Cap, Error> {
        let time_ns = match time {
            Some(t) => match time_ns(t, BareTime::Seconds) {
                Ok(0) | Err(_) => {
                    return Err(Error::invalid(format!(
                        "--cap-time {t}: expected a time above zero such as 200ms or 2s"
                    )))
                }
                Ok(ns) => Some(ns),
            },
            None => None,
        };
        let bytes = match bytes {
            Some(b) => match size(b, KbBase::Binary) {
                Ok(v) if v >= 4096 => Some(v),
                _ => return Err(Error::invalid(format!("--cap-size {b}: expected a size of 4k or more such as 16m"))),
            },
            None => None,
        };
        Ok(Cap { time_ns, bytes })
    }

    pub fn is_none(&self) -> bool {
        self.time_ns.is_none() && self.bytes.is_none()
    }

    /// Shorten `spec`, a job's spec, to keep within the cap (unchanged when it already does).
    pub fn apply(&self, spec: &mut drivelab_engine::spec::AccessSpec) {
        if let Some(cap) = self.time_ns {
            if spec.time_ns.is_none_or(|t| t > cap) {
                spec.time_ns = Some(cap);
            }
            if spec.ramp_ns > cap {
                spec.ramp_ns = cap;
            }
        }
        if let Some(cap) = self.bytes {
            // Whole blocks of the largest size, so the region still holds one.
            let bs = spec.bs.iter().map(|b| b.bytes).max().unwrap_or(4096).max(1);
            let cap = (cap / bs).max(1) * bs;
            if spec.span_bytes.is_none_or(|s| s > cap) {
                spec.span_bytes = Some(cap);
            }
            if spec.io_size_bytes.is_some_and(|s| s > cap) {
                spec.io_size_bytes = Some(cap);
            }
            // zonemode=zbd: emulated zones within the capped region (capacity and skip with them).
            if let Some(mut z) = spec.zbd.filter(|z| z.zone_bytes > cap) {
                let ratio = z.capacity() as f64 / z.zone_bytes as f64;
                z.capacity_bytes = z.capacity_bytes.map(|_| ((cap as f64 * ratio) as u64 / bs).max(1) * bs);
                z.skip_bytes = z.skip_bytes / z.zone_bytes * cap;
                z.zone_bytes = cap;
                spec.zbd = Some(z);
            }
            // zonemode=strided: zones within the capped region (the skip between them stays).
            if let Some(z) = spec.zones.as_mut() {
                if z.range_bytes.is_some_and(|r| r > cap) || (z.range_bytes.is_none() && z.size_bytes > cap) {
                    z.range_bytes = Some(cap);
                }
                z.size_bytes = z.size_bytes.min(cap);
            }
        }
    }

    /// A job's start delay (fio's `startdelay`) under the cap when `longest`, the longest of its
    /// group, is over it: scaled by cap / longest, so the last job starts at the cap and the
    /// others in proportion, in the same order. None: unchanged.
    pub fn delay(&self, delay_ns: u64, longest_ns: u64) -> Option<u64> {
        let cap = self.time_ns.filter(|&c| longest_ns > c)?;
        Some((delay_ns as u128 * cap as u128 / longest_ns as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivelab_engine::options::from_pairs;
    use drivelab_engine::spec::AccessSpec;

    #[test]
    fn a_cap_shortens_only_what_exceeds_it() {
        let cap = Cap::parse(Some("200ms"), Some("1m")).unwrap();
        let long = from_pairs([("time", "900s"), ("ramp", "5s"), ("span", "10g"), ("bs", "256k")]).unwrap();
        let mut o = long.clone();
        cap.apply(&mut o);
        assert_eq!((o.time_ns, o.ramp_ns, o.span_bytes), (Some(200_000_000), 200_000_000, Some(1 << 20)));
        assert_eq!(AccessSpec { time_ns: long.time_ns, ramp_ns: long.ramp_ns, span_bytes: long.span_bytes, ..o }, long);
        let sized = from_pairs([("io_size", "64m"), ("span", "64m"), ("bs", "48k")]).unwrap();
        let mut o = sized.clone();
        cap.apply(&mut o);
        assert_eq!(o.time_ns, Some(200_000_000), "a size-bound job also ends at the cap");
        assert_eq!(o.io_size_bytes, Some(21 * 49152));
        let short = from_pairs([("time", "100ms"), ("span", "512k")]).unwrap();
        let mut o = short.clone();
        cap.apply(&mut o);
        assert_eq!(o, short);
        assert!(Cap::parse(Some("0"), None).is_err());
        assert!(Cap::parse(None, Some("1k")).is_err());
        assert!(Cap::parse(None, None).unwrap().is_none());
        // Start delays 0, 4 s and 124 s under 100 ms: 0, 3.2 ms and 100 ms, in order.
        let cap = Cap::parse(Some("100ms"), None).unwrap();
        let d: Vec<Option<u64>> = [0, 4, 124].iter().map(|s| cap.delay(s * 1_000_000_000, 124_000_000_000)).collect();
        assert_eq!(d, vec![Some(0), Some(3_225_806), Some(100_000_000)]);
        assert_eq!(cap.delay(50_000_000, 80_000_000), None, "within the cap: unchanged");
        assert_eq!(Cap::default().delay(5, 10), None);
    }
}
