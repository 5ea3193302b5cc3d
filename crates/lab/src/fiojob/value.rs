//! fio's own rules for numbers, sizes and times, as fio 3.x parses them (`parse.c`), so a job
//! file means to drivelab exactly what it means to fio:
//!
//! - A size is a whole number (decimal, or hexadecimal when it contains `0x`) and a unit. With
//!   fio's default `kb_base=1024`, `k`, `kb`, `K`, `KB` are 1024 and — fio's compatibility rule
//!   — `KiB` is 1000 ("opposite units"); with `kb_base=1000`, `k`/`kB` are 1000 and `KiB` 1024.
//!   The same for m, g, t, p. `4k` is 4096 either way only under the default.
//! - A time with a unit (`us`, `ms`, `s`, `m`, `h`, `d`) is that; a bare number is seconds for
//!   options counted in seconds (`runtime`, `ramp_time`) and microseconds for the others
//!   (`thinktime`).
//! - `N%` is a percentage, which drivelab refuses where fio would take it as a share of the
//!   target.
//!
//! - fio's lists: `bssplit` (`4k/70:64k/`) and CPU lists (`0-3,6`) in drivelab's spelling.
//!
//! Anything fio would read differently from its face value (a fraction, trailing text) is
//! refused here instead of guessed.

/// fio's `kb_base`: what `k` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KbBase {
    /// fio's default: k = 1024 (and KiB = 1000).
    Binary,
    /// k = 1000, KiB = 1024.
    Decimal,
}

/// The leading whole number of `text` (decimal, or hex when `0x` appears, as fio's strtoll
/// does) and the rest.
fn number(text: &str) -> Result<(u64, &str), String> {
    let t = text.trim();
    let hex = t.contains("0x") || t.contains("0X");
    let body = if hex { t.trim_start_matches("0x").trim_start_matches("0X") } else { t };
    let end =
        body.find(|c: char| !(if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() })).unwrap_or(body.len());
    if end == 0 {
        return Err(format!("'{t}' is not a number"));
    }
    let v = u64::from_str_radix(&body[..end], if hex { 16 } else { 10 }).map_err(|_| format!("'{t}' is too large"))?;
    let rest = &body[end..];
    if rest.starts_with('.') {
        return Err(format!("'{t}': fio reads only the whole part of a fraction; write it in a smaller unit"));
    }
    Ok((v, rest))
}

/// A size in bytes, by fio's rules under `kb`.
pub fn size(text: &str, kb: KbBase) -> Result<u64, String> {
    let (v, unit) = number(text)?;
    let u = unit.trim().to_ascii_lowercase();
    if u.starts_with('%') {
        return Err(format!(
            "'{}' is a percentage of the target; drivelab takes absolute sizes here: give bytes (e.g. 8g)",
            text.trim()
        ));
    }
    let base: u64 = match kb {
        KbBase::Binary => 1024,
        KbBase::Decimal => 1000,
    };
    let other: u64 = if base == 1024 { 1000 } else { 1024 };
    let powers = ["k", "m", "g", "t", "p"];
    let (mult, pow) = if u.is_empty() {
        (1, 0)
    } else if let Some(i) = powers.iter().position(|p| u == format!("{p}ib")) {
        (other, i as u32 + 1)
    } else if let Some(i) = powers.iter().position(|p| u == *p || u == format!("{p}b")) {
        (base, i as u32 + 1)
    } else if u == "b" {
        (1, 0)
    } else {
        return Err(format!("'{}': '{unit}' is not a size unit; expected k, m, g, t, p (or kb, kib ...)", text.trim()));
    };
    mult.checked_pow(pow).and_then(|m| v.checked_mul(m)).ok_or_else(|| format!("'{}' is too large", text.trim()))
}

/// What a bare number of a time option counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BareTime {
    Seconds,
    Micros,
}

/// A time in nanoseconds by fio's rules.
pub fn time_ns(text: &str, bare: BareTime) -> Result<u64, String> {
    let (v, unit) = number(text)?;
    let us: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" => match bare {
            BareTime::Seconds => 1_000_000,
            BareTime::Micros => 1,
        },
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        other => return Err(format!("'{}': '{other}' is not a time unit; expected us, ms, s, m, h or d", text.trim())),
    };
    v.checked_mul(us).and_then(|x| x.checked_mul(1000)).ok_or_else(|| format!("'{}' is too long", text.trim()))
}

/// A whole number with nothing after it.
pub fn whole(text: &str) -> Result<u64, String> {
    match number(text)? {
        (v, "") => Ok(v),
        (_, rest) => Err(format!("'{}': unexpected '{rest}' after the number", text.trim())),
    }
}

/// A whole number within `lo..=hi` (fio's `minval`/`maxval` for the option).
pub fn within(text: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let v = whole(text)?;
    if v < lo || v > hi {
        return Err(format!("'{}' is out of range: give {lo}..{hi}", text.trim()));
    }
    Ok(v)
}

/// fio's booleans: a bare option, or `=1`/`=0` (`true`/`false`, `yes`/`no`, `on`/`off`).
pub fn boolean(value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(v) => match v.as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(format!("'{v}' is not a boolean; expected 1 or 0")),
        },
    }
}

/// fio's `bssplit` (`4k/70:64k/30`, a share left empty takes what is left) as drivelab's split
/// (`4096:70,65536:30`).
pub fn bssplit(v: &str, kb: KbBase) -> Result<String, String> {
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
    let out: Vec<String> = parts
        .iter()
        .map(|&(b, p)| {
            let pct = p.unwrap_or_else(|| {
                let e = each + if first_open { extra } else { 0 };
                first_open = false;
                e
            });
            format!("{b}:{pct}")
        })
        .collect();
    Ok(out.join(","))
}

/// fio's CPU list (`0-3,6`) as drivelab's (`0,1,2,3,6`).
pub fn cpu_list(v: &str) -> Result<String, String> {
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
    Ok(cpus.iter().map(u64::to_string).collect::<Vec<_>>().join(","))
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
        assert!(size("50%", b).unwrap_err().contains("percentage"));
        assert!(size("1.5g", b).unwrap_err().contains("fraction"));
        assert!(size("4x", b).unwrap_err().contains("not a size unit"));
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
        assert_eq!(cpu_list("0-3,6").unwrap(), "0,1,2,3,6");
        assert!(cpu_list("3-1").is_err());
    }
}
