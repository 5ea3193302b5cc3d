//! Parsing and printing of sizes and durations.
//!
//! Storage people write `4k`, `64KiB`, `1m`, `8g`; fio reads `4k` as 4096 and so do we. What we
//! refuse is what could mean two things: `4KB` (1000 or 1024?), a bare number of seconds, a
//! fraction of a byte. A refusal names the value and says what to write instead.

use std::time::Duration;

/// Why a size, time, number, yes-or-no or percentage was refused: the kind, with the text as
/// written and what the fix needs. Every message of the parsers is here, once; a caller that
/// wants text renders it (a `String` converts from it, for callers that build their own words).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("'{0}' is not a number")]
    NotNumber(String),
    #[error("'{0}' is too large")]
    TooLarge(String),
    #[error("empty size: write a number of bytes such as 4096 or 4k")]
    EmptySize,
    #[error("'{0}' is not a size: write a number with an optional unit, such as 4k or 1MiB")]
    NotSize(String),
    #[error("'{0}' is too large for a size in bytes")]
    SizeTooLarge(String),
    #[error("'{0}': sizes are whole numbers; write it in a smaller unit (e.g. 1536 instead of 1.5k)")]
    SizeFraction(String),
    /// fio's dialect: fio would read only the whole part.
    #[error("'{0}': fio reads only the whole part of a fraction; write it in a smaller unit")]
    FioFraction(String),
    #[error("'{text}' is ambiguous (1000 or 1024?): write {number}{prefix}iB for binary or the exact byte count")]
    AmbiguousSize { text: String, number: String, prefix: String },
    #[error("'{text}' has an unknown unit '{unit}': use k, m, g, t (or KiB, MiB, GiB, TiB), or plain bytes")]
    SizeUnit { text: String, unit: String },
    #[error("'{0}' is a percentage of the target; drivelab takes absolute sizes here: give bytes (e.g. 8g)")]
    ShareOfTarget(String),
    #[error("'{text}': '{unit}' is not a size unit; expected k, m, g, t, p (or kb, kib ...)")]
    FioSizeUnit { text: String, unit: String },
    #[error("'{0}' is not a duration: write e.g. 500ms, 10s, 3m or 1h")]
    NotDuration(String),
    #[error("'{text}' has no unit: write {number}s for seconds or {number}ms for milliseconds")]
    NoTimeUnit { text: String, number: String },
    #[error("'{text}' has an unknown unit '{unit}': use ns, us, ms, s, m, h or d")]
    TimeUnit { text: String, unit: String },
    #[error("'{0}' is too long a duration")]
    TooLong(String),
    #[error("'{text}': unexpected '{rest}' after the number")]
    Trailing { text: String, rest: String },
    #[error("'{0}' is not a whole number")]
    NotWhole(String),
    #[error("'{0}' is not a yes or no: give 1 or 0 (true or false)")]
    NotBool(String),
    /// `what` names the value, with a space after it (empty where the caller names it).
    #[error("{what}'{text}' is outside 0..100: give a percentage from 0 to 100")]
    PctRange { what: String, text: String },
    #[error("{what}'{text}' is not a whole percentage: give a number from 0 to 100")]
    NotPct { what: String, text: String },
    /// fio's bounds of an option (its `minval`/`maxval`).
    #[error("'{text}' is out of range: give {lo}..{hi}")]
    OutOfRange { text: String, lo: u64, hi: u64 },
    /// fio's booleans (a job file's `=1`/`=0`).
    #[error("'{0}' is not a boolean; expected 1 or 0")]
    NotFioBool(String),
}

impl From<ValueError> for String {
    fn from(e: ValueError) -> String {
        e.to_string()
    }
}

/// Whose rules a size or a time is read by: drivelab's own (flags, plan keys) or fio's (job
/// files, fio's command line, fio's JSON), which differ where fio keeps old habits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dialect {
    /// drivelab's: `k` is 1024 and so is `KiB`; `4KB` (1000 or 1024?) is refused; fractions of a
    /// unit are allowed in times (`1.5s`).
    #[default]
    Own,
    /// fio 3.x's (`parse.c`), under its `kb_base`.
    Fio(KbBase),
}

/// fio's `kb_base`: what `k` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KbBase {
    /// fio's default: k = 1024 — and, fio's compatibility rule ("opposite units"), KiB = 1000.
    #[default]
    Binary,
    /// k = 1000, KiB = 1024 (as the standards have them).
    Decimal,
}

/// The leading whole number of `t` (decimal, or in fio's forms hexadecimal when it contains
/// `0x`, as fio's strtoll does) and the rest.
fn leading_number(t: &str, dialect: Dialect) -> Result<(u64, &str), ValueError> {
    let hex = matches!(dialect, Dialect::Fio(_)) && (t.contains("0x") || t.contains("0X"));
    let body = if hex { t.trim_start_matches("0x").trim_start_matches("0X") } else { t };
    let end =
        body.find(|c: char| !(if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() })).unwrap_or(body.len());
    if end == 0 {
        return Err(ValueError::NotNumber(t.to_string()));
    }
    let v = u64::from_str_radix(&body[..end], if hex { 16 } else { 10 })
        .map_err(|_| ValueError::TooLarge(t.to_string()))?;
    Ok((v, &body[end..]))
}

/// Parse a size in bytes by drivelab's rules: `512`, `4k`, `4KiB`, `1m`, `8g`, `2t` (k = 1024).
pub fn parse_size(text: &str) -> Result<u64, ValueError> {
    parse_size_in(text, Dialect::Own)
}

/// THE size parser: a whole number and a unit, by `dialect`'s rules.
///
/// - drivelab's: binary multiples (`4k` = `4KiB` = 4096, `Ki`/`Mi` as Kubernetes writes them);
///   `4KB` is refused as ambiguous; a fraction is refused (`1536` for `1.5k`).
/// - fio's: under `kb_base=1024` (its default) `k`/`kb` are 1024 and `KiB` is 1000 (fio's
///   "opposite units"), under `kb_base=1000` the other way round; a unit is matched by its
///   first letters as fio does (`Mi` is `m`); hexadecimal with `0x`; `N%` (a share of the
///   target) and fractions are refused rather than guessed.
pub fn parse_size_in(text: &str, dialect: Dialect) -> Result<u64, ValueError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ValueError::EmptySize);
    }
    let (value, unit) = leading_number(t, dialect).map_err(|_| ValueError::NotSize(text.to_string()))?;
    let too_large = || ValueError::SizeTooLarge(text.to_string());
    if unit.starts_with('.') {
        return Err(match dialect {
            Dialect::Own => ValueError::SizeFraction(text.to_string()),
            Dialect::Fio(_) => ValueError::FioFraction(t.to_string()),
        });
    }
    let kb = match dialect {
        Dialect::Own => {
            let shift = match unit {
                "" | "b" | "B" => 0,
                "k" | "K" | "KiB" | "kiB" | "Ki" | "ki" => 10,
                "m" | "M" | "MiB" | "Mi" => 20,
                "g" | "G" | "GiB" | "Gi" => 30,
                "t" | "T" | "TiB" | "Ti" => 40,
                "p" | "P" | "PiB" | "Pi" => 50,
                "KB" | "kB" | "kb" | "Kb" | "MB" | "mb" | "Mb" | "GB" | "gb" | "Gb" | "TB" | "tb" | "Tb" => {
                    return Err(ValueError::AmbiguousSize {
                        text: text.to_string(),
                        number: t[..t.len() - unit.len()].to_string(),
                        prefix: unit[..1].to_ascii_uppercase(),
                    });
                }
                _ => return Err(ValueError::SizeUnit { text: text.to_string(), unit: unit.to_string() }),
            };
            return value.checked_mul(1u64 << shift).ok_or_else(too_large);
        }
        Dialect::Fio(kb) => kb,
    };
    let u = unit.trim().to_ascii_lowercase();
    if u.starts_with('%') {
        return Err(ValueError::ShareOfTarget(t.to_string()));
    }
    let (base, other): (u64, u64) = match kb {
        KbBase::Binary => (1024, 1000),
        KbBase::Decimal => (1000, 1024),
    };
    let powers = ["k", "m", "g", "t", "p"];
    let (mult, pow) = if u.is_empty() || u == "b" {
        (1, 0)
    } else if let Some(i) = powers.iter().position(|p| u == format!("{p}ib")) {
        (other, i as u32 + 1)
    } else if let Some(i) = powers.iter().position(|p| u == *p || u == format!("{p}b") || u == format!("{p}i")) {
        (base, i as u32 + 1)
    } else {
        return Err(ValueError::FioSizeUnit { text: t.to_string(), unit: unit.to_string() });
    };
    mult.checked_pow(pow).and_then(|m| value.checked_mul(m)).ok_or_else(too_large)
}

/// Parse a duration by drivelab's rules: `500ms`, `10s`, `3m`, `1h`, `1d`, `250us`, or with a
/// decimal point, `1.5s`. A bare number is refused: seconds or milliseconds is a guess we will
/// not make (an option whose bare numbers fio counts in a unit is read by [`parse_time`]).
pub fn parse_duration(text: &str) -> Result<Duration, ValueError> {
    time_ns(text, None, Dialect::Own).map(Duration::from_nanos)
}

/// THE time parser, for an option whose bare numbers count `bare` (fio's rule per option:
/// seconds for `runtime`, microseconds for `thinktime`), in `dialect`: nanoseconds.
/// Units: `ns`, `us`/`usec`/`µs`, `ms`/`msec`, `s`/`sec`, `m`/`min`, `h`, `d`. drivelab's
/// dialect takes fractions (`1.5s`); fio's refuses them (fio reads only the whole part).
pub fn parse_time(text: &str, bare: crate::options::Bare, dialect: Dialect) -> Result<u64, ValueError> {
    time_ns(text, Some(bare), dialect)
}

fn time_ns(text: &str, bare: Option<crate::options::Bare>, dialect: Dialect) -> Result<u64, ValueError> {
    use crate::options::Bare;
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let not = || ValueError::NotDuration(text.to_string());
    if num.is_empty() || num.matches('.').count() > 1 || num.ends_with('.') || num.starts_with('.') {
        return Err(not());
    }
    if num.contains('.') && matches!(dialect, Dialect::Fio(_)) {
        return Err(ValueError::FioFraction(t.to_string()));
    }
    let ns_per_unit: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "ns" | "nsec" => 1.0,
        "us" | "µs" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        "d" => 86_400e9,
        "" => match bare {
            Some(Bare::Seconds) => 1e9,
            Some(Bare::Micros) => 1e3,
            Some(Bare::Unit) | None => {
                return Err(ValueError::NoTimeUnit { text: text.to_string(), number: num.to_string() })
            }
        },
        _ => return Err(ValueError::TimeUnit { text: text.to_string(), unit: unit.to_string() }),
    };
    let value: f64 = num.parse().map_err(|_| not())?;
    let ns = value * ns_per_unit;
    if !(ns.is_finite()) || ns > 1e18 {
        return Err(ValueError::TooLong(text.to_string()));
    }
    Ok(ns.round() as u64)
}

/// A whole number with nothing after it.
pub fn parse_whole(text: &str) -> Result<u64, ValueError> {
    parse_whole_in(text, Dialect::Own)
}

/// A whole number with nothing after it, by `dialect`'s rules (fio's takes hexadecimal with
/// `0x`, as its strtoll does).
pub fn parse_whole_in(text: &str, dialect: Dialect) -> Result<u64, ValueError> {
    let t = text.trim();
    match leading_number(t, dialect) {
        Ok((v, "")) => Ok(v),
        Ok((_, rest)) if rest.starts_with('.') && matches!(dialect, Dialect::Fio(_)) => {
            Err(ValueError::FioFraction(t.to_string()))
        }
        Ok((_, rest)) => Err(ValueError::Trailing { text: t.to_string(), rest: rest.to_string() }),
        Err(e @ ValueError::TooLarge(_)) => Err(e),
        Err(_) => Err(ValueError::NotWhole(t.to_string())),
    }
}

/// A yes or no: `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`.
pub fn parse_bool(text: &str) -> Result<bool, ValueError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        other => Err(ValueError::NotBool(other.to_string())),
    }
}

/// `what` as a message's first word: followed by a space, or nothing.
fn named(what: &str) -> String {
    if what.is_empty() {
        String::new()
    } else {
        format!("{what} ")
    }
}

/// Parse a whole percentage 0..=100.
pub fn parse_pct(text: &str, what: &str) -> Result<u8, ValueError> {
    let t = text.trim().trim_end_matches('%');
    match t.parse::<u32>() {
        Ok(v) if v <= 100 => Ok(v as u8),
        Ok(_) => Err(ValueError::PctRange { what: named(what), text: text.to_string() }),
        Err(_) => Err(ValueError::NotPct { what: named(what), text: text.to_string() }),
    }
}

/// Format bytes the short way people read them: 4096 -> "4k", 1536 -> "1536", 1048576 -> "1m".
pub fn fmt_size(bytes: u64) -> String {
    for (shift, suffix) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        let unit = 1u64 << shift;
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{}", bytes / unit, suffix);
        }
    }
    bytes.to_string()
}

/// Format bytes as a sentence says them: "8 GiB", "64 MiB", else "N bytes" (titles, limits).
pub fn fmt_size_words(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b.is_multiple_of(1 << 30) => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b.is_multiple_of(1 << 20) => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

/// Bytes to one decimal in the largest binary unit they reach: "23.5 GiB", "1.0 PiB",
/// "512 bytes" (free space, sizes that are not round).
pub fn fmt_size_about(bytes: u64) -> String {
    for (shift, unit) in [(50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1u64 << shift {
            return format!("{:.1} {unit}", bytes as f64 / (1u64 << shift) as f64);
        }
    }
    format!("{bytes} bytes")
}

/// How a number is written. One formatter per concept ([`fmt_number`], [`fmt_latency`]) with
/// the place it is printed as a parameter, so the terminal, tables and charts scale and round
/// the same way and differ only where they mean to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A terminal line or summary: fixed decimals for each magnitude and no space before a
    /// unit (`245.3k`, `1.50ms`), so a line that updates in place keeps its width.
    Terminal,
    /// A table cell: no suffixes, whole numbers from 100, one decimal from 10, else two, never
    /// trimmed, so a column's figures line up (`329`, `96.0`, `5.68`).
    Cell,
    /// A chart label, tooltip or sentence of a report: about three significant digits,
    /// trailing zeros dropped, k/M suffixes, a space before a unit (`245k`, `1.5 ms`).
    Label,
}

/// A magnitude's scale: (from, divisor, suffix, decimals on a terminal), largest first.
type Step = (f64, f64, &'static str, usize);
const COUNT_STEPS: [Step; 4] = [(1e9, 1e9, "G", 2), (1e6, 1e6, "M", 2), (1e4, 1e3, "k", 1), (0.0, 1.0, "", 0)];
const TIME_STEPS: [Step; 4] = [(1e9, 1e9, "s", 2), (1e6, 1e6, "ms", 2), (1e3, 1e3, "µs", 1), (0.0, 1.0, "ns", 0)];

/// The first step whose `from` the magnitude `a` reaches (the last one below all).
fn step(a: f64, steps: &[Step]) -> Step {
    *steps.iter().find(|s| a >= s.0).unwrap_or(&steps[steps.len() - 1])
}

/// `v` with at most `max_decimals` decimals, trailing zeros (and a bare point) dropped:
/// `(2.50, 2)` -> `2.5`, `(3.0, 2)` -> `3`.
pub fn fmt_trimmed(v: f64, max_decimals: usize) -> String {
    let s = format!("{v:.max_decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// About three significant digits: none from 100, one from 10, else two; trimmed or not.
fn three_digits(v: f64, trim: bool) -> String {
    let a = v.abs();
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else {
        2
    };
    if trim {
        fmt_trimmed(v, decimals)
    } else {
        format!("{v:.decimals$}")
    }
}

/// A count, rate or other figure written for `style`: `245312.4` is `245.3k` on a terminal,
/// `245312` in a table cell and `245k` on a chart. Not a number (NaN, infinite): `—`.
pub fn fmt_number(v: f64, style: Style) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let a = v.abs();
    match style {
        Style::Terminal => {
            let (_, div, suffix, decimals) = step(a, &COUNT_STEPS);
            format!("{:.decimals$}{suffix}", v / div)
        }
        Style::Cell => three_digits(v, false),
        Style::Label if a == 0.0 => "0".into(),
        Style::Label if a >= 1e6 => format!("{}M", fmt_trimmed(v / 1e6, 2)),
        Style::Label if a >= 1e4 => format!("{:.0}k", v / 1e3),
        Style::Label if a >= 0.01 => three_digits(v, true),
        Style::Label => format!("{v:.1e}"),
    }
}

/// A latency (or any short duration) in nanoseconds in the unit that keeps it short (ns, µs,
/// ms, s): `1.50ms` on a terminal (fixed decimals: 0 for ns, 1 for µs, 2 for ms and s),
/// `1.5 ms` in tables and charts (three significant digits, trimmed). Not a number: `—`.
pub fn fmt_latency(ns: f64, style: Style) -> String {
    if !ns.is_finite() {
        return "—".into();
    }
    let (_, div, unit, fixed) = step(ns.abs(), &TIME_STEPS);
    let v = ns / div;
    match style {
        Style::Terminal => format!("{v:.fixed$}{unit}"),
        Style::Cell | Style::Label => format!("{} {unit}", three_digits(v, true)),
    }
}

/// [`fmt_latency`] for a terminal: `1.5µs`, `1.25ms`.
pub fn fmt_ns(ns: f64) -> String {
    fmt_latency(ns, Style::Terminal)
}

/// [`fmt_number`] for a terminal: `245.3k`, `1.23M`.
pub fn fmt_count(v: f64) -> String {
    fmt_number(v, Style::Terminal)
}

/// A duration written the way a user writes one, so that [`parse_duration`] reads it back
/// exactly: the largest of s, ms and us in which it needs at most `max_decimals` decimals, else
/// ns. Plan values use 0 (`1500ms`, `10s`), latency limits 3 (`1.5ms`, `200us`). 0 is `0s`.
pub fn fmt_duration(ns: u64, max_decimals: u32) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let ns = u128::from(ns);
    let width = max_decimals.min(9) as usize;
    let scale = 10u128.pow(width as u32);
    for (unit, suffix) in [(1_000_000_000u128, "s"), (1_000_000, "ms"), (1_000, "us")] {
        // The value in units of 10^-width of `unit`, if that is exact.
        let scaled = ns * scale / unit;
        if ns >= unit && scaled * unit == ns * scale {
            let (whole, frac) = (scaled / scale, scaled % scale);
            if frac == 0 {
                return format!("{whole}{suffix}");
            }
            let frac = format!("{frac:0width$}");
            return format!("{whole}.{}{suffix}", frac.trim_end_matches('0'));
        }
    }
    format!("{ns}ns")
}

/// A length of time as a clock reads, for estimates and elapsed times: `12.3s`, `3m05s`,
/// `1h02m`.
pub fn fmt_elapsed(ns: u64) -> String {
    let s = ns / 1_000_000_000;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", ns as f64 / 1e9)
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
        let e = parse_size("4KB").unwrap_err().to_string();
        assert!(e.contains("ambiguous") && e.contains("4KiB"), "{e}");
        assert!(parse_size("4x").unwrap_err().to_string().contains("unknown unit"));
        assert!(parse_size("1.5k").unwrap_err().to_string().contains("whole numbers"));
        assert!(parse_size("").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size("99999999999t").unwrap_err().to_string().contains("too large"));
    }

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("3m").unwrap(), Duration::from_secs(180));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("10").unwrap_err().to_string().contains("10s"));
        assert!(parse_duration("10 parsecs").is_err());
        assert!(parse_duration("1.2.3s").is_err());
    }

    #[test]
    fn percentages_stay_in_range() {
        assert_eq!(parse_pct("95", "read").unwrap(), 95);
        assert_eq!(parse_pct("100%", "read").unwrap(), 100);
        assert!(parse_pct("101", "read").unwrap_err().to_string().contains("outside 0..100"));
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

    #[test]
    fn one_number_formatter_three_places() {
        let all = |v: f64| [Style::Terminal, Style::Cell, Style::Label].map(|s| fmt_number(v, s));
        assert_eq!(all(245_312.4), ["245.3k", "245312", "245k"]);
        assert_eq!(all(1_234_567.0), ["1.23M", "1234567", "1.23M"]);
        assert_eq!(all(2_500_000_000.0), ["2.50G", "2500000000", "2500M"]);
        assert_eq!(all(329.4), ["329", "329", "329"]);
        assert_eq!(all(96.04), ["96", "96.0", "96"]);
        assert_eq!(all(5.678), ["6", "5.68", "5.68"]);
        assert_eq!(all(2.0), ["2", "2.00", "2"]);
        assert_eq!(all(0.0), ["0", "0.00", "0"]);
        assert_eq!(all(0.001), ["0", "0.00", "1.0e-3"]);
        assert_eq!(all(f64::NAN), ["—", "—", "—"]);
        assert_eq!(fmt_number(-12_345.0, Style::Label), "-12k");
    }

    #[test]
    fn one_latency_formatter() {
        let t = |ns: f64| fmt_latency(ns, Style::Terminal);
        let l = |ns: f64| fmt_latency(ns, Style::Label);
        assert_eq!([t(850.0), l(850.0)], ["850ns", "850 ns"]);
        assert_eq!([t(42_500.0), l(42_500.0)], ["42.5µs", "42.5 µs"]);
        assert_eq!([t(150_000.0), l(150_000.0)], ["150.0µs", "150 µs"]);
        assert_eq!([t(1_250_000.0), l(1_250_000.0)], ["1.25ms", "1.25 ms"]);
        assert_eq!([t(1_500_000.0), l(1_500_000.0)], ["1.50ms", "1.5 ms"]);
        assert_eq!([t(2_100_000_000.0), l(2_100_000_000.0)], ["2.10s", "2.1 s"]);
        assert_eq!(fmt_latency(f64::INFINITY, Style::Label), "—");
    }

    #[test]
    fn exact_durations_read_back() {
        assert_eq!(fmt_duration(10_000_000_000, 0), "10s");
        assert_eq!(fmt_duration(1_500_000_000, 0), "1500ms");
        assert_eq!(fmt_duration(1_500_000_000, 3), "1.5s");
        assert_eq!(fmt_duration(250_000, 0), "250us");
        assert_eq!(fmt_duration(1_234_500, 3), "1234.5us");
        assert_eq!(fmt_duration(3, 3), "3ns");
        assert_eq!(fmt_duration(0, 0), "0s");
        for ns in [1, 999, 1_000, 1_500, 200_000, 1_000_000, 1_500_000, 2_345_678, 1_000_000_000, 90_000_000_000] {
            for d in [0, 3] {
                let text = fmt_duration(ns, d);
                assert_eq!(parse_duration(&text).unwrap(), Duration::from_nanos(ns), "{ns} -> {text}");
            }
        }
    }

    #[test]
    fn elapsed_reads_like_a_clock() {
        assert_eq!(fmt_elapsed(12_340_000_000), "12.3s");
        assert_eq!(fmt_elapsed(185_000_000_000), "3m05s");
        assert_eq!(fmt_elapsed(3_720_000_000_000), "1h02m");
    }
}
