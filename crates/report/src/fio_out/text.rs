//! fio's way of writing numbers in its normal output (`num2str`: at most 4 digits, or 6 for a
//! latency line's min and max, and a unit prefix) and its latency unit choice.

/// `v` as fio's `num2str` with its 4 significant figures and a prefix of `base` (1000: k, M,
/// G...; 1024: Ki, Mi, Gi...), then `unit`: `77.3k`, `302MiB/s`, `64.0MiB`, `4096KiB`.
pub(super) fn human(v: f64, base: f64, unit: &str) -> String {
    num2str(v.max(0.0).round() as u64, 4, base == 1024.0, unit)
}

/// fio's `num2str` (lib/num2str.c): `num` divided by 1000 (or 1024) until it has at most
/// `maxlen` digits, then as many decimals as the remaining width allows (fio's `sig_figs`, 4, for
/// sizes, rates and IOPS; 6 for a latency line's min and max): 4096 bytes is `4096B`, 4 MiB is
/// `4096KiB`, 1.5 MiB `1536KiB`, 64 MiB `64.0MiB`.
pub(super) fn num2str(num: u64, maxlen: usize, pow2: bool, unit: &str) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const BIN: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if pow2 { BIN } else { SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let digits = |n: u64| n.to_string().len();
    let (mut num, mut post, mut modulo, mut carry) = (num, 0usize, None::<u64>, false);
    while post < prefixes.len() {
        if digits(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        modulo = Some(m);
        num /= thousand;
        carry = m >= thousand / 2;
        post += 1;
    }
    if post >= prefixes.len() {
        post = 0;
    }
    let Some(modulo) = modulo else { return format!("{num}{}{unit}", prefixes[post]) };
    let room = maxlen as i64 - digits(num) as i64;
    if room <= 1 {
        return format!("{}{}{unit}", num + u64::from(carry), prefixes[post]);
    }
    let decimals = (room - 1) as usize;
    let frac = format!("{:.decimals$}", modulo as f64 / thousand as f64);
    let num = if frac.starts_with('1') { num + 1 } else { num };
    format!("{num}.{}{}{unit}", &frac[2..], prefixes[post])
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
        // fio's num2str, as fio 3.33 prints them.
        assert_eq!(human(4096.0, 1024.0, "B"), "4096B");
        assert_eq!(human(4194304.0, 1024.0, "B"), "4096KiB");
        assert_eq!(human(16384.0, 1024.0, "B"), "16.0KiB");
        assert_eq!(human(1048576.0, 1024.0, "B"), "1024KiB");
        assert_eq!(human(2031616.0, 1024.0, "B"), "1984KiB");
        assert_eq!(human(4194304.0, 1000.0, "B"), "4194kB");
        assert_eq!(num2str(59629, 6, false, ""), "59629");
        assert_eq!(num2str(232777, 6, false, ""), "232777");
        assert_eq!(num2str(1_232_777, 6, false, ""), "1232.8k");
        assert_eq!(human(81_300_000.0, 1000.0, "B/s"), "81.3MB/s");
        assert_eq!(lat_unit(691, 7_912_500), ("nsec", 1));
        assert_eq!(lat_unit(80_000, 900_000), ("usec", 1000));
        assert_eq!(line_unit(80_000, 900_000, 999.0), ("nsec", 1));
        assert_eq!(line_unit(80_000, 900_000, 5000.0), ("usec", 1000));
    }
}
