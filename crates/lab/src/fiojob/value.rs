//! fio's values as a job file gives them. Sizes, times and whole numbers are read by the one
//! parser of each (`drivelab_engine::units`) in fio's dialect — fio 3.x's `parse.c`: `kb_base`
//! and its "opposite units" (`KiB` is 1000 under the default), hexadecimal with `0x`, a bare
//! time counting the option's unit (seconds for `runtime`, microseconds for `thinktime`), `N%`
//! and fractions refused rather than guessed — so a job file, `drivelab fio` and the table's
//! fio spellings on drivelab's own command line read a value alike.
//!
//! Here: fio's lists — `bssplit` (`4k/70:64k/`) and CPU lists (`0-3,6`) in drivelab's
//! spelling — and its booleans and ranges.

pub use drivelab_engine::options::Bare as BareTime;
use drivelab_engine::spec::BlockSize;
pub use drivelab_engine::units::KbBase;
use drivelab_engine::units::{self, Dialect, ValueError};

/// A size in bytes by fio's rules under `kb` (the one size parser's fio dialect).
pub fn size(text: &str, kb: KbBase) -> Result<u64, ValueError> {
    units::parse_size_in(text, Dialect::Fio(kb))
}

/// A time in nanoseconds by fio's rules, a bare number counting `bare` (the one time parser's
/// fio dialect).
pub fn time_ns(text: &str, bare: BareTime) -> Result<u64, ValueError> {
    units::parse_time(text, bare, Dialect::Fio(KbBase::Binary))
}

/// A whole number with nothing after it (hexadecimal with `0x`, as fio's strtoll reads it).
pub fn whole(text: &str) -> Result<u64, ValueError> {
    units::parse_whole_in(text, Dialect::Fio(KbBase::Binary))
}

/// A whole number within `lo..=hi` (fio's `minval`/`maxval` for the option).
pub fn within(text: &str, lo: u64, hi: u64) -> Result<u64, ValueError> {
    let v = whole(text)?;
    if v < lo || v > hi {
        return Err(ValueError::OutOfRange { text: text.trim().to_string(), lo, hi });
    }
    Ok(v)
}

/// fio's booleans: a bare option, or `=1`/`=0` (`true`/`false`, `yes`/`no`, `on`/`off`).
pub fn boolean(value: Option<&str>) -> Result<bool, ValueError> {
    match value.map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(v) => match v.as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(ValueError::NotFioBool(v)),
        },
    }
}

/// fio's `bssplit` (`4k/70:64k/30`, a share left empty takes what is left): the sizes with
/// their shares.
pub fn bssplit(v: &str, kb: KbBase) -> Result<Vec<BlockSize>, String> {
    let mut parts: Vec<(u64, Option<u64>)> = Vec::new();
    for item in v.split(':').filter(|s| !s.trim().is_empty()) {
        let (b, pct) = match item.split_once('/') {
            Some((b, p)) if p.trim().is_empty() => (b, None),
            Some((b, p)) => (b, Some(whole(p)?)),
            None => (item, None),
        };
        parts.push((size(b.trim(), kb)?, pct));
    }
    let given = parts.iter().filter_map(|p| p.1).try_fold(0u64, |a, b| a.checked_add(b)).unwrap_or(u64::MAX);
    let open = parts.iter().filter(|p| p.1.is_none()).count() as u64;
    if given > 100 || (open == 0 && given != 100) {
        return Err(format!("the shares add up to {given}; they must add up to 100"));
    }
    let left = 100 - given;
    let (each, extra) = (left.checked_div(open).unwrap_or(0), left.checked_rem(open).unwrap_or(0));
    let mut first_open = true;
    Ok(parts
        .iter()
        .map(|&(bytes, p)| {
            let pct = p.unwrap_or_else(|| {
                let e = each + if first_open { extra } else { 0 };
                first_open = false;
                e
            });
            // At most 100: the shares were checked above.
            BlockSize { bytes, pct: pct.min(100) as u8 }
        })
        .collect())
}

/// fio's CPU list (`0-3,6`): the CPUs (`0,1,2,3,6`).
pub fn cpu_list(v: &str) -> Result<Vec<u32>, String> {
    let mut cpus = Vec::new();
    for part in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (whole(a)?, whole(b)?);
                if b < a || b - a > 4096 {
                    return Err(format!("'{part}' is not a range of CPUs"));
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(whole(part)?),
        }
    }
    cpus.into_iter().map(|c| u32::try_from(c).map_err(|_| format!("CPU {c} is not a CPU number"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_fios_kb_base_including_its_opposite_units() {
        let b = KbBase::Binary;
        assert_eq!(size("4k", b), Ok(4096));
        assert_eq!(size("4K", b), Ok(4096));
        assert_eq!(size("4kb", b), Ok(4096));
        assert_eq!(size("4KB", b), Ok(4096));
        assert_eq!(size("4KiB", b), Ok(4000), "fio's kb_base=1024 takes KiB as 1000");
        assert_eq!(size("10G", b), Ok(10 << 30));
        assert_eq!(size("1m", b), Ok(1 << 20));
        assert_eq!(size("512", b), Ok(512));
        assert_eq!(size("0x1000", b), Ok(4096));
        let d = KbBase::Decimal;
        assert_eq!(size("4k", d), Ok(4000));
        assert_eq!(size("4kB", d), Ok(4000));
        assert_eq!(size("4KiB", d), Ok(4096));
        assert_eq!(size("1MiB", d), Ok(1 << 20));
        assert!(size("50%", b).unwrap_err().to_string().contains("percentage"));
        assert!(size("1.5g", b).unwrap_err().to_string().contains("fraction"));
        assert!(size("4x", b).unwrap_err().to_string().contains("not a size unit"));
        assert!(size("k", b).is_err());
    }

    #[test]
    fn times_have_fios_units_and_bare_numbers_per_option() {
        assert_eq!(time_ns("900", BareTime::Seconds), Ok(900_000_000_000));
        assert_eq!(time_ns("2m", BareTime::Seconds), Ok(120_000_000_000));
        assert_eq!(time_ns("500ms", BareTime::Seconds), Ok(500_000_000));
        assert_eq!(time_ns("100", BareTime::Micros), Ok(100_000));
        assert_eq!(time_ns("1s", BareTime::Micros), Ok(1_000_000_000));
        assert!(time_ns("5w", BareTime::Seconds).is_err());
    }

    #[test]
    fn bssplit_shares_that_overflow_are_refused_not_wrapped_to_100() {
        let e = bssplit("4k/18446744073709551615:8k/101", KbBase::Binary).unwrap_err();
        assert!(e.contains("must add up to 100"), "{e}");
    }

    #[test]
    fn booleans_are_bare_or_one_and_zero() {
        assert_eq!(boolean(None), Ok(true));
        assert_eq!(boolean(Some("0")), Ok(false));
        assert_eq!(boolean(Some("1")), Ok(true));
        assert!(boolean(Some("maybe")).is_err());
    }

    #[test]
    fn cpu_lists_expand_ranges() {
        assert_eq!(cpu_list("0-3,6").unwrap(), vec![0, 1, 2, 3, 6]);
        assert!(cpu_list("3-1").is_err());
    }
}
