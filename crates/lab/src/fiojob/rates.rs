//! fio's `rate=R,W,T` and `rate_iops=R,W,T`: a cap per direction (reads, writes, trims; one
//! value is every direction's, an empty field leaves that direction unpaced), and per job (each
//! numjobs clone has its own: drivelab's `rate_scope=job`).
//!
//! fio paces each direction on its own, so a mixed job delivers R reads and W writes a second
//! whatever `rwmixread` says (fio 3.33, randrw rwmixread=80 rate_iops=100,100: 100 of each a
//! second). drivelab's open loop keeps one schedule per job: it runs at R+W with R/(R+W) of the
//! I/Os reads, which delivers the same two rates. One direction paced while the other runs free
//! has no such form and is refused.

use drivelab_engine::spec::{Rate, RateScope, RateUnit};

use super::notice::Notice;
use super::value::{size, whole, KbBase};

/// One rate option as read: per direction (read, write, trim), bytes or I/Os a second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rates {
    pub bytes: bool,
    pub per_dir: [Option<u64>; 3],
}

/// Read `rate` (`bytes`) or `rate_iops` in fio's comma syntax.
pub fn parse(text: &str, bytes: bool, kb: KbBase) -> Result<Rates, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err("expected at most three values: READ,WRITE,TRIM".into());
    }
    let mut per_dir = [None; 3];
    for (k, p) in parts.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
        let v = if bytes { size(p, kb)? } else { whole(p)? };
        per_dir[k] = Some(v).filter(|&v| v > 0);
    }
    if parts.len() == 1 {
        per_dir = [per_dir[0]; 3];
    }
    Ok(Rates { bytes, per_dir })
}

/// What a job's rates come to: its rate (None: no direction paced), the share of reads when the
/// rates set the mix, and a notice then.
pub type Paced = (Option<Rate>, Option<u8>, Option<Notice>);

/// The rate of a job of fio's `rw` word paced by `r` (see [`Paced`]).
pub fn rate(r: &Rates, rw: &str) -> Result<Paced, String> {
    let [read, write, trim] = r.per_dir;
    let dirs: &[(&str, Option<u64>)] = match rw {
        "read" | "randread" => &[("read", read)],
        "write" | "randwrite" => &[("write", write)],
        "trim" | "randtrim" => &[("trim", trim)],
        "rw" | "randrw" => &[("read", read), ("write", write)],
        _ => &[("trim", trim), ("write", write)],
    };
    let given: Vec<u64> = dirs.iter().filter_map(|d| d.1).collect();
    if given.is_empty() {
        return Ok((None, None, None));
    }
    if given.len() < dirs.len() {
        let free: Vec<&str> = dirs.iter().filter(|d| d.1.is_none()).map(|d| d.0).collect();
        return Err(format!(
            "rw={rw} with {} paced and {} unpaced is not supported: drivelab paces a job as a whole; give \
             both directions a rate (e.g. R,W) or one value for all",
            dirs.iter().filter(|d| d.1.is_some()).map(|d| d.0).collect::<Vec<_>>().join(" and "),
            free.join(" and ")
        ));
    }
    let total = given.iter().fold(0u64, |a, &b| a.saturating_add(b));
    let unit = if r.bytes { "/s" } else { "" };
    let rate = Rate {
        per_s: total as f64,
        unit: if r.bytes { RateUnit::Bytes } else { RateUnit::Iops },
        scope: RateScope::Job,
        ..Rate::default()
    };
    let (mut read_pct, mut notice) = (None, None);
    if let [(_, Some(a)), (_, Some(b))] = dirs {
        if rw.ends_with("rw") {
            let pct = ((*a as u128 * 100 + total as u128 / 2) / total as u128) as u64;
            read_pct = Some(pct.min(100) as u8);
            notice = Some(Notice::RatePerDirection { reads: *a, writes: *b, total, unit, read_pct: pct });
        } else if a != b {
            return Err(format!("rw={rw} trims and writes every block once each: give trims and writes one rate"));
        }
    }
    Ok((Some(rate), read_pct, notice))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rate's total (with `/s` for bytes) and the share of reads it set.
    fn fields(r: &Rates, rw: &str) -> Result<(Option<String>, Option<u8>, Option<Notice>), String> {
        let (rate, read, notice) = rate(r, rw)?;
        assert!(rate.is_none_or(|r| r.scope == RateScope::Job), "each clone paced on its own");
        let unit = |r: &Rate| if r.unit == RateUnit::Bytes { "/s" } else { "" };
        Ok((rate.map(|r| format!("{}{}", r.per_s, unit(&r))), read, notice))
    }

    #[test]
    fn one_value_is_every_directions_and_commas_split_them() {
        let kb = KbBase::Binary;
        assert_eq!(parse("1m", true, kb).unwrap().per_dir, [Some(1 << 20); 3]);
        assert_eq!(parse("200,100", false, kb).unwrap().per_dir, [Some(200), Some(100), None]);
        assert_eq!(parse(",100", false, kb).unwrap().per_dir, [None, Some(100), None]);
        assert!(parse("1,2,3,4", false, kb).is_err());
        assert!(parse("x", false, kb).is_err());
    }

    #[test]
    fn a_mixed_job_runs_at_the_sum_with_the_rates_mix_and_one_sided_pacing_is_refused() {
        let kb = KbBase::Binary;
        // fio 3.33, randrw rate_iops=200,100: 400 reads and 201 writes in 2 s.
        let (r, read, n) = fields(&parse("200,100", false, kb).unwrap(), "randrw").unwrap();
        assert_eq!((r.as_deref(), read), (Some("300"), Some(67)));
        assert!(n.unwrap().to_string().contains("67% reads"));
        // One value on a mixed job: each direction's (fio: rate_iops=200 gives 200 + 200).
        let (r, read, _) = fields(&parse("300", true, kb).unwrap(), "randrw").unwrap();
        assert_eq!((r.as_deref(), read), (Some("600/s"), Some(50)));
        let (r, read, n) = fields(&parse("300,300,300", true, kb).unwrap(), "read").unwrap();
        assert_eq!((r.as_deref(), read, n), (Some("300/s"), None, None));
        let (r, _, _) = fields(&parse(",100", false, kb).unwrap(), "write").unwrap();
        assert_eq!(r.as_deref(), Some("100"));
        assert!(fields(&parse(",100", false, kb).unwrap(), "read").unwrap().0.is_none(), "reads unpaced");
        let e = fields(&parse(",100", false, kb).unwrap(), "randrw").unwrap_err();
        assert!(e.contains("write paced and read unpaced"), "{e}");
        assert!(fields(&parse("1,2,3", false, kb).unwrap(), "trimwrite").is_err());
        assert!(fields(&parse("2,2,2", false, kb).unwrap(), "trimwrite").is_ok());
    }
}
