//! fio's `startdelay=T` and `startdelay=A-B` (a bare number is seconds): the job starts that
//! long after its group, its runtime counted from then (the engine's `start_delay`). A range is
//! drawn once per job, as fio draws it per thread, from the job's `randseed` and its name, so a
//! run repeats exactly and jobs sharing a range still start apart.
//!
//! fio counts a delay from its own start; drivelab from the start of the job's group (a
//! point). For the jobs of the first group, and for every file of one group, that is the same.

use super::value::{time_ns, BareTime};

/// fio's default `randseed`.
const FIO_SEED: u64 = 0x89;

/// `T` or `A-B` as (low, high) ns.
pub fn parse(text: &str) -> Result<(u64, u64), String> {
    let one = |t: &str| time_ns(t, BareTime::Seconds);
    match text.split_once('-') {
        None => Ok(one(text).map(|t| (t, t))?),
        Some((a, b)) => {
            let (a, b) = (one(a)?, one(b)?);
            if a > b {
                return Err(format!("the range '{}' ends before it starts; write LOW-HIGH, e.g. 2-10", text.trim()));
            }
            Ok((a, b))
        }
    }
}

/// The delay of job `name` in `low..=high`: fixed for a job, its `randseed` (fio's default
/// when None) and its name.
pub fn pick((low, high): (u64, u64), seed: Option<u64>, name: &str) -> u64 {
    if low == high {
        return low;
    }
    let mut h = seed.unwrap_or(FIO_SEED) ^ 0x5eed_de1a_u64.rotate_left(17);
    for b in name.bytes() {
        h = mix(h ^ b as u64);
    }
    let span = (high - low) as u128 + 1;
    low + ((mix(h) as u128 * span) >> 64) as u64
}

/// splitmix64's finalizer: every bit of the input moves every bit of the output.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_seconds_or_a_range_drawn_once_per_job_and_seed() {
        assert_eq!(parse("4"), Ok((4_000_000_000, 4_000_000_000)));
        assert_eq!(parse("500ms-2s"), Ok((500_000_000, 2_000_000_000)));
        assert!(parse("5-2").unwrap_err().contains("ends before it starts"));
        assert!(parse("x").is_err());
        let r = parse("1-9").unwrap();
        let a = pick(r, None, "a");
        assert_eq!(a, pick(r, None, "a"), "the same job and seed: the same delay");
        assert!((r.0..=r.1).contains(&a));
        let draws: Vec<u64> = (0..50).map(|k| pick(r, Some(k), "a")).collect();
        assert!(draws.iter().all(|d| (r.0..=r.1).contains(d)));
        assert!(draws.iter().any(|&d| d != a), "another seed, another delay");
        assert_ne!(pick(r, None, "a"), pick(r, None, "b"), "jobs sharing a range start apart");
        assert_eq!(pick((7, 7), Some(1), "a"), 7);
    }
}
