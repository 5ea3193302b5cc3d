//! Parsing and printing of sizes and durations.
//!
//! Storage people write `4k`, `64KiB`, `1m`, `8g`; fio reads `4k` as 4096 and so do we. What we
//! refuse is what could mean two things: `4KB` (1000 or 1024?), a bare number of seconds, a
//! fraction of a byte. A refusal names the value and says what to write instead.

use std::time::Duration;

/// Parse a size in bytes: `512`, `4k`, `4K`, `4KiB`, `1m`, `1MiB`, `8g`, `2t`.
/// Binary multiples only (k = 1024), as fio does.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty size: write a number of bytes such as 4096 or 4k".into());
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("'{text}' is not a size: write a number with an optional unit, such as 4k or 1MiB"));
    }
    let value: u64 = num.parse().map_err(|_| format!("'{text}' is too large for a size in bytes"))?;
    let shift = match unit {
        "" | "b" | "B" => 0,
        "k" | "K" | "KiB" | "kiB" | "Ki" => 10,
        "m" | "M" | "MiB" | "Mi" => 20,
        "g" | "G" | "GiB" | "Gi" => 30,
        "t" | "T" | "TiB" | "Ti" => 40,
        "KB" | "kB" | "kb" | "Kb" | "MB" | "mb" | "GB" | "gb" | "TB" | "tb" => {
            let p = &unit[..1].to_ascii_uppercase();
            return Err(format!(
                "'{text}' is ambiguous (1000 or 1024?): write {num}{p}iB for binary or the exact byte count"
            ));
        }
        _ if unit.starts_with('.') => {
            return Err(format!(
                "'{text}': sizes are whole numbers; write it in a smaller unit (e.g. 1536 instead of 1.5k)"
            ))
        }
        _ => {
            return Err(format!(
                "'{text}' has an unknown unit '{unit}': use k, m, g, t (or KiB, MiB, GiB, TiB), or plain bytes"
            ))
        }
    };
    value.checked_mul(1u64 << shift).ok_or_else(|| format!("'{text}' is too large for a size in bytes"))
}

/// Parse a duration: `500ms`, `10s`, `3m`, `1h`, `250us`, or with a decimal point, `1.5s`.
/// A bare number is refused: seconds or milliseconds is a guess we will not make.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() || num.matches('.').count() > 1 || num.ends_with('.') || num.starts_with('.') {
        return Err(format!("'{text}' is not a duration: write e.g. 500ms, 10s, 3m or 1h"));
    }
    let ns_per_unit: f64 = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        "" => return Err(format!("'{text}' has no unit: write {num}s for seconds or {num}ms for milliseconds")),
        _ => return Err(format!("'{text}' has an unknown unit '{unit}': use ns, us, ms, s, m or h")),
    };
    let value: f64 = num.parse().map_err(|_| format!("'{text}' is not a duration"))?;
    let ns = value * ns_per_unit;
    if !(ns.is_finite()) || ns > 1e18 {
        return Err(format!("'{text}' is too long a duration"));
    }
    Ok(Duration::from_nanos(ns.round() as u64))
}

/// Parse a whole percentage 0..=100.
pub fn parse_pct(text: &str, what: &str) -> Result<u8, String> {
    let t = text.trim().trim_end_matches('%');
    match t.parse::<u32>() {
        Ok(v) if v <= 100 => Ok(v as u8),
        Ok(_) => Err(format!("{what} '{text}' is outside 0..100: give a percentage from 0 to 100")),
        Err(_) => Err(format!("{what} '{text}' is not a whole percentage: give a number from 0 to 100")),
    }
}

/// Format bytes the short way people read them: 4096 -> "4k", 1536 -> "1536", 1048576 -> "1m".
pub fn fmt_size(bytes: u64) -> String {
    for (shift, suffix) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        let unit = 1u64 << shift;
        if bytes >= unit && bytes % unit == 0 {
            return format!("{}{}", bytes / unit, suffix);
        }
    }
    bytes.to_string()
}

/// Format a latency in nanoseconds with a unit that keeps three significant digits.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0}ns")
    } else if ns < 1e6 {
        format!("{:.1}µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2}ms", ns / 1e6)
    } else {
        format!("{:.2}s", ns / 1e9)
    }
}

/// Format a count with k/M suffix, 3 significant digits: 245312 -> "245k".
pub fn fmt_count(v: f64) -> String {
    if v >= 1e9 {
        format!("{:.2}G", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_binary_multiples_like_fio() {
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("8g").unwrap(), 8 << 30);
        assert_eq!(parse_size("2T").unwrap(), 2 << 40);
    }

    #[test]
    fn ambiguous_or_unknown_sizes_are_refused_with_the_fix() {
        let e = parse_size("4KB").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("4KiB"), "{e}");
        assert!(parse_size("4x").unwrap_err().contains("unknown unit"));
        assert!(parse_size("1.5k").unwrap_err().contains("whole numbers"));
        assert!(parse_size("").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size("99999999999t").unwrap_err().contains("too large"));
    }

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("3m").unwrap(), Duration::from_secs(180));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("10").unwrap_err().contains("10s"));
        assert!(parse_duration("10 parsecs").is_err());
        assert!(parse_duration("1.2.3s").is_err());
    }

    #[test]
    fn percentages_stay_in_range() {
        assert_eq!(parse_pct("95", "read").unwrap(), 95);
        assert_eq!(parse_pct("100%", "read").unwrap(), 100);
        assert!(parse_pct("101", "read").unwrap_err().contains("outside 0..100"));
        assert!(parse_pct("-1", "read").is_err());
    }

    #[test]
    fn formatting_is_short_and_exact() {
        assert_eq!(fmt_size(4096), "4k");
        assert_eq!(fmt_size(1536), "1536");
        assert_eq!(fmt_size(1 << 20), "1m");
        assert_eq!(fmt_ns(1500.0), "1.5µs");
        assert_eq!(fmt_count(245_312.0), "245.3k");
    }
}
