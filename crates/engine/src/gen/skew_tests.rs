//! Skewed distributions against theory: the share of I/Os that land in the hottest 1% and 10%
//! of blocks, measured over a million draws, against the law each model defines.

use super::skew::{pareto_table, scatter_for_test, zipf_table, Skew};
use crate::spec::Distribution;

const DRAWS: usize = 1_000_000;

fn skew(d: &str, n: u64) -> Skew {
    Skew::new(&Distribution::parse(d).unwrap(), n, 4096, 7)
}

/// Hits per block over `DRAWS` draws of `d` over `n` blocks.
fn hits(d: &str, n: u64) -> Vec<u32> {
    let skew = skew(d, n);
    let mut rng = fastrand::Rng::with_seed(11);
    let mut hits = vec![0u32; n as usize];
    for _ in 0..DRAWS {
        let b = skew.block(&mut rng, false).expect("a skewed distribution draws its own block");
        assert!(b < n, "block {b} outside {n}");
        hits[b as usize] += 1;
    }
    hits
}

/// Shares of all draws of `d` over `n` blocks that landed on the hottest `fractions` of the
/// blocks: those of the most popular ranks (values, for normal), in `order` of popularity.
/// (Sorting blocks by their measured hits would pick the luckiest of the many lukewarm ones and
/// overstate the share.)
fn hot_shares(d: &str, n: u64, order: impl Fn(u64) -> u64, fractions: &[f64]) -> Vec<f64> {
    let s = skew(d, n);
    let h = hits(d, n);
    fractions
        .iter()
        .map(|f| (0..(f * n as f64) as u64).map(|k| h[s.place(order(k)) as usize] as f64).sum::<f64>() / DRAWS as f64)
        .collect()
}

/// Popularity order of fio's normal: values outward from the middle.
fn middle_out(n: u64) -> impl Fn(u64) -> u64 {
    move |k| if k % 2 == 0 { n / 2 + k / 2 } else { n / 2 - k.div_ceil(2) }
}

fn close(measured: &[f64], theory: &[f64], tol: f64, what: &str) {
    eprintln!("{what}: hottest 1%, 10% of blocks: measured {measured:.4?}, theory {theory:.4?}");
    for (m, t) in measured.iter().zip(theory) {
        assert!((m - t).abs() <= tol, "{what}: measured {measured:?}, theory {theory:?}");
    }
}

#[test]
fn zipf_hot_sets_match_the_law() {
    for theta in [0.8, 1.0, 1.2] {
        let n = 100_000u64;
        let h = |k: u64| (1..=k).map(|r| (r as f64).powf(-theta)).sum::<f64>();
        let theory = [h(n / 100) / h(n), h(n / 10) / h(n)];
        let measured = hot_shares(&format!("zipf:{theta}"), n, |k| k, &[0.01, 0.1]);
        close(&measured, &theory, 0.005, &format!("zipf:{theta}"));
    }
}

#[test]
fn fio_pareto_hot_sets_match_its_law() {
    // fio: rank = (n−1)·u^p, p = ln h / ln(1−h): the share of ranks below k is (k/(n−1))^(1/p).
    for h in [0.2f64, 0.5] {
        let n = 100_000u64;
        let p: f64 = h.ln() / (1.0 - h).ln();
        let share = |f: f64| (f * n as f64 / (n - 1) as f64).powf(1.0 / p);
        let measured = hot_shares(&format!("pareto:{h}"), n, |k| k, &[0.01, 0.1]);
        close(&measured, &[share(0.01), share(0.1)], 0.005, "pareto");
    }
}

/// erf, Abramowitz and Stegun 7.1.26 (error under 1.5e−7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592)
            * t
            * (-x * x).exp();
    y.copysign(x)
}

#[test]
fn fio_normal_is_a_bell_of_a_twelfth_of_the_region() {
    // With no deviation, fio's normal is the mean of 12 uniform draws: nearly Gaussian with a
    // standard deviation of n/12, so the hottest fraction f of blocks (the middle) gets
    // erf(6f/√2) of the I/Os.
    let theory = [erf(6.0 * 0.01 / 2f64.sqrt()), erf(6.0 * 0.1 / 2f64.sqrt())];
    let n = 100_000;
    close(&hot_shares("normal:0", n, middle_out(n), &[0.01, 0.1]), &theory, 0.005, "normal:0");
    // A deviation spreads it: less in the hot set.
    let wide = hot_shares("normal:40", n, middle_out(n), &[0.1]);
    assert!(wide[0] < theory[1] - 0.05, "{wide:?}");
}

#[test]
fn zones_get_their_share_of_the_io_in_their_part_of_the_region() {
    let n = 10_000u64;
    let h = hits("zoned:60/10:30/20:10/70", n);
    let part = |a: u64, b: u64| h[a as usize..b as usize].iter().map(|&x| x as f64).sum::<f64>() / DRAWS as f64;
    close(&[part(0, 1000), part(1000, 3000), part(3000, n)], &[0.6, 0.3, 0.1], 0.005, "zoned");
    // zoned_abs in bytes: 4096-byte blocks, the first 40 MiB (10240 blocks of 20000).
    let h = hits("zoned_abs:80/40m:20/38m", 20_000);
    let hot = h[..10240].iter().map(|&x| x as f64).sum::<f64>() / DRAWS as f64;
    assert!((hot - 0.8).abs() < 0.005, "{hot}");
}

#[test]
fn ranks_are_spread_one_to_a_block() {
    for n in [1u64, 2, 3, 1000, 4096, 4097, 100_000] {
        let mut seen = vec![false; n as usize];
        for v in 0..n {
            let b = scatter_for_test(v, n, n / 3) as usize;
            assert!(!seen[b], "n {n}: two ranks on block {b}");
            seen[b] = true;
        }
    }
    // Spread: the 100 hottest of 100k ranks are not packed together.
    let blocks: Vec<u64> = (0..100).map(|v| scatter_for_test(v, 100_000, 0)).collect();
    let (lo, hi) = (blocks.iter().min().unwrap(), blocks.iter().max().unwrap());
    assert!(hi - lo > 50_000, "{lo}..{hi}");
}

#[test]
fn a_center_puts_the_most_popular_block_there() {
    let h = hits("zipf:1.2:0.25", 1000);
    let top = h.iter().enumerate().max_by_key(|&(_, &c)| c).unwrap().0;
    assert_eq!(top, 250);
}

#[test]
fn tables_rise_from_the_first_block_to_the_last() {
    for t in [zipf_table(1.2, 1 << 30), zipf_table(0.5, 3), pareto_table(0.2, 1 << 40), zipf_table(1.0, 5 << 20)] {
        assert_eq!(t.len(), 4097);
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "monotone");
    }
    // Ranks beyond the exact sum (2^20) come from the integral and join it smoothly: the
    // quantile table over 4 Mi ranks agrees with a direct sum where both apply.
    let big = zipf_table(0.9, 4 << 20);
    let n = 4u64 << 20;
    let total: f64 = (1..=n).map(|r| (r as f64).powf(-0.9)).sum();
    let mut below = 0.0;
    let mut checked = 0;
    for r in 1..=n {
        below += (r as f64).powf(-0.9);
        // At rank r the CDF is below/total; the table's quantile there is at rank ≈ r.
        let q = below / total;
        let i = (q * 4096.0) as usize;
        if r % 500_000 == 0 && i < 4096 {
            let pos = (big[i] >> 16) as f64;
            assert!((pos - r as f64).abs() / r as f64 <= 0.01, "rank {r}: quantile {i} at {pos}");
            checked += 1;
        }
    }
    assert!(checked >= 5);
}

/// vdbench's hot band: the share of draws in the first 1% and 10% of the band (and the band's
/// confinement) against its curve, wrapped over the band as the sampler wraps it.
#[test]
fn a_hot_band_stays_in_its_band_and_follows_vdbenchs_curve() {
    use super::skew::hotband_cdf;
    // A 40..60% band of 2,000,000 4 KiB blocks (an 8.2 GB region, a 1.6 GB band).
    let n = 2_000_000u64;
    let s = skew("hotband:40/60", n);
    let (first, band) = (800_000u64, 400_000u64);
    let mut rng = fastrand::Rng::with_seed(5);
    let mut in_1 = 0u64;
    let mut in_10 = 0u64;
    for _ in 0..DRAWS {
        let b = s.block(&mut rng, false).unwrap();
        assert!((first..first + band).contains(&b), "block {b} outside the band");
        in_1 += (b < first + band / 100) as u64;
        in_10 += (b < first + band / 10) as u64;
    }
    // Theory: the curve's probability of landing in [k·B, k·B + x) summed over the wraps k.
    let band_bytes = band as f64 * 4096.0;
    let share = |x: f64| -> f64 {
        let mut p = 0.0;
        let mut k = 0.0;
        while k * band_bytes < 1.1e16 {
            p += hotband_cdf(k * band_bytes + x) - hotband_cdf(k * band_bytes);
            k += 1.0;
        }
        p
    };
    let (t1, t10) = (share(band_bytes / 100.0), share(band_bytes / 10.0));
    let (m1, m10) = (in_1 as f64 / DRAWS as f64, in_10 as f64 / DRAWS as f64);
    eprintln!(
        "hotband:40/60 of 8.2 GB: first 1% of the band {m1:.4} (curve {t1:.4}), first 10% {m10:.4} (curve {t10:.4})"
    );
    assert!((m1 - t1).abs() < 0.003, "first 1%: measured {m1}, curve {t1}");
    assert!((m10 - t10).abs() < 0.004, "first 10%: measured {m10}, curve {t10}");
    // The curve puts 8.7% in its first 16 MB: here the band's first 1% gets ~9%.
    assert!(t1 > 0.08 && t10 > 0.2, "the band's start is hot: {t1} {t10}");
    // A band past the end wraps to the start; writes step 1% of the band on.
    let w = skew("hotband:90/110", n);
    let mut rng = fastrand::Rng::with_seed(6);
    for _ in 0..10_000 {
        let b = w.block(&mut rng, true).unwrap();
        assert!(!(200_000..1_800_000).contains(&b), "block {b} outside the wrapped band");
    }
}
