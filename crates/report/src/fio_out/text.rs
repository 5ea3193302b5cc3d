//! fio's way of writing numbers in its normal output (`num2str`: three significant digits and
//! a unit prefix) and its latency unit choice.

/// `v` with three significant digits and a prefix of `base` (1000: k, M, G...; 1024: Ki, Mi,
/// Gi...), then `unit`: `77.3k`, `302MiB/s`, `64.0MiB`.
pub(super) fn human(v: f64, base: f64, unit: &str) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const BIN: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if base == 1024.0 { BIN } else { SI };
    let (mut v, mut i) = (v.max(0.0), 0);
    while v >= 999.5 && i + 1 < prefixes.len() {
        v /= base;
        i += 1;
    }
    let digits = if i == 0 || v >= 99.95 {
        0
    } else if v >= 9.995 {
        1
    } else {
        2
    };
    let digits = if i > 0 && digits == 2 && v.fract() == 0.0 { 1 } else { digits };
    format!("{v:.digits$}{}{unit}", prefixes[i])
}

/// fio's unit for a percentile list: `msec`, `usec` or `nsec` and its divisor, from the
/// smallest and largest value (stat.c `show_clat_percentiles`).
pub(super) fn lat_unit(min: u64, max: u64) -> (&'static str, u64) {
    if min > 2_000_000 && max > 99_999_999 {
        ("msec", 1_000_000)
    } else if min > 2000 && max > 99_999 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

/// fio's unit for a `slat`/`clat`/`lat` line: as [`lat_unit`], and only when the deviation is
/// large too (stat.h `nsec_to_msec`, `nsec_to_usec`).
pub(super) fn line_unit(min: u64, max: u64, dev: f64) -> (&'static str, u64) {
    if min > 2_000_000 && max > 99_999_999 && dev > 1e6 {
        ("msec", 1_000_000)
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_fio_writes_them() {
        assert_eq!(human(77_300.0, 1000.0, ""), "77.3k");
        assert_eq!(human(302.0 * 1048576.0, 1024.0, "B/s"), "302MiB/s");
        assert_eq!(human(64.0 * 1048576.0, 1024.0, "B"), "64.0MiB");
        assert_eq!(human(67.1e6, 1000.0, "B"), "67.1MB");
        assert_eq!(human(196.0, 1000.0, ""), "196");
        assert_eq!(lat_unit(691, 7_912_500), ("nsec", 1));
        assert_eq!(lat_unit(80_000, 900_000), ("usec", 1000));
        assert_eq!(line_unit(80_000, 900_000, 999.0), ("nsec", 1));
        assert_eq!(line_unit(80_000, 900_000, 5000.0), ("usec", 1000));
    }
}
