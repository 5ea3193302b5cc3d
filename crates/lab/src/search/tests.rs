use drivelab_engine::hist::Histogram;

use super::*;

/// Drive a search to the end with `pass`, returning the outcome.
fn drive(space: SearchSpace, mut pass: impl FnMut(f64, bool) -> bool) -> SearchOutcome {
    let mut s = HighestPassing::new(space).unwrap();
    for _ in 0..1000 {
        match s.next() {
            Step::Probe { value, confirm } => {
                let ok = pass(value, confirm);
                s.record(value, ok);
            }
            Step::Done(outcome) => return outcome,
        }
    }
    panic!("search did not finish: {:?}", s.probes());
}

fn qd_space() -> SearchSpace {
    SearchSpace {
        unit: Unit::Qd,
        min: 1.0,
        max: 256.0,
        start: 256.0,
        integer: true,
        rel_tol: 0.05,
        step_down: 0.5,
        max_probes: 30,
    }
}

fn values(o: &SearchOutcome) -> Vec<f64> {
    o.probes.iter().map(|p| p.0).collect()
}

/// No value probed twice, except a confirmation repeating an earlier probe.
fn assert_no_repeats(o: &SearchOutcome) {
    for (i, &(v, _, confirm)) in o.probes.iter().enumerate() {
        let earlier = o.probes[..i].iter().filter(|p| p.0 == v).count();
        assert!(earlier == 0 || (confirm && earlier == 1), "{v} repeated: {:?}", o.probes);
    }
}

#[test]
fn queue_depth_search_finds_the_highest_passing_depth_and_confirms_it() {
    // pass(qd) = qd <= 37 on 1..256 from 256, halving on failure:
    // 256 F, 128 F, 64 F, 32 P; bisect 32|64 -> 48 F, 32|48 -> 40 F, 32|40 -> 36 P,
    // 36|40 -> 38 F, 36|38 -> 37 P; 37 and 38 are adjacent -> confirm 37 P. 10 probes.
    let o = drive(qd_space(), |v, _| v <= 37.0);
    assert_eq!(values(&o), [256.0, 128.0, 64.0, 32.0, 48.0, 40.0, 36.0, 38.0, 37.0, 37.0]);
    assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(37.0), Some(38.0), true));
    assert_eq!(o.probes.last(), Some(&(37.0, true, true)));
    assert!(o.probes.len() <= 15);
    assert!(o.reason.contains("converged"), "{}", o.reason);
    assert_no_repeats(&o);
}

#[test]
fn act_scale_search_finds_the_highest_whole_n() {
    // pass(N) = N <= 11 on 1..48 from 48: 48 F, 24 F, 12 F, 6 P; bisect 6|12 -> 9 P,
    // 9|12 -> 10 P, 10|12 -> 11 P; 11|12 adjacent -> confirm 11.
    let space = SearchSpace { max: 48.0, start: 48.0, ..qd_space() };
    let o = drive(space, |n, _| n <= 11.0);
    assert_eq!(values(&o), [48.0, 24.0, 12.0, 6.0, 9.0, 10.0, 11.0, 11.0]);
    assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(11.0), Some(12.0), true));
}

#[test]
fn rate_search_converges_within_the_tolerance_of_the_threshold() {
    // pass(rate) = rate <= 9876.5 on 100..100000 from 50000 (a closed-loop maximum):
    // 50000 F, 25000 F, 12500 F, 6250 P; bisect -> 9375 P, 10937.5 F, 10156.25 F, 9765.625 P;
    // gap 10156.25 - 9765.625 = 390.6 <= 5% of 9765.625 (488.3) -> confirm 9765.625.
    let threshold = 9876.5;
    let space = SearchSpace {
        unit: Unit::Iops,
        min: 100.0,
        max: 100_000.0,
        start: 50_000.0,
        integer: false,
        rel_tol: 0.05,
        step_down: 0.5,
        max_probes: 30,
    };
    let o = drive(space, |r, _| r <= threshold);
    let (best, fail) = (o.best.unwrap(), o.lowest_fail.unwrap());
    assert_eq!((best, fail), (9765.625, 10156.25));
    assert!(best <= threshold && fail > threshold && fail - best <= 0.05 * best);
    assert!(o.confirmed && o.reason.starts_with("converged within 5%"), "{}", o.reason);
    assert_eq!(o.probes.len(), 9);
}

#[test]
fn a_passing_start_climbs_to_the_maximum() {
    // Everything passes on 10..500 from 100: 100, 200, 400, then 800 clamped to 500, which
    // passes; confirm 500.
    let space = SearchSpace { unit: Unit::Iops, min: 10.0, max: 500.0, start: 100.0, integer: false, ..qd_space() };
    let o = drive(space, |_, _| true);
    assert_eq!(values(&o), [100.0, 200.0, 400.0, 500.0, 500.0]);
    assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(500.0), None, true));
    assert_eq!(o.reason, "even the maximum 500 IOPS passes", "said with its unit (issue #38)");
}

#[test]
fn nothing_passing_ends_with_no_best_and_says_why() {
    // 256, 128, 64, 32, 16, 8, 4, 2, 1 all fail; 1 is the minimum.
    let o = drive(qd_space(), |_, _| false);
    assert_eq!(values(&o), [256.0, 128.0, 64.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0]);
    assert_eq!((o.best, o.lowest_fail, o.confirmed), (None, Some(1.0), false));
    assert_eq!(o.reason, "even the minimum qd 1 fails");
}

#[test]
fn a_failed_confirmation_continues_below_and_confirms_a_lower_value() {
    // As the qd search, but the first confirmation of 37 fails: 37 now counts as failing,
    // the highest pass below it is 36, adjacent, so 36 is confirmed instead.
    let mut flaked = false;
    let o = drive(qd_space(), |v, confirm| {
        if confirm && v == 37.0 && !flaked {
            flaked = true;
            return false;
        }
        v <= 37.0
    });
    assert_eq!(values(&o), [256.0, 128.0, 64.0, 32.0, 48.0, 40.0, 36.0, 38.0, 37.0, 37.0, 36.0]);
    assert_eq!(o.probes[9], (37.0, false, true));
    assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(36.0), Some(37.0), true));
    assert_no_repeats(&o);
}

#[test]
fn a_failed_confirmation_with_nothing_below_ends_with_none() {
    // On 1..4 from 4: 4 F, 2 F, 1 P; 1 and 2 adjacent -> confirm 1, which fails: the lowest
    // failing value is the minimum.
    let space = SearchSpace { max: 4.0, start: 4.0, ..qd_space() };
    let o = drive(space, |v, confirm| v <= 1.0 && !confirm);
    assert_eq!(values(&o), [4.0, 2.0, 1.0, 1.0]);
    assert_eq!((o.best, o.lowest_fail), (None, Some(1.0)));
    assert_eq!(o.reason, "even the minimum qd 1 fails");
}

#[test]
fn max_probes_stops_with_the_best_so_far() {
    // The qd search cut after 6 probes: 256 F, 128 F, 64 F, 32 P, 48 F, 40 F -> best 32.
    let o = drive(SearchSpace { max_probes: 6, ..qd_space() }, |v, _| v <= 37.0);
    assert_eq!(o.probes.len(), 6);
    assert_eq!((o.best, o.lowest_fail, o.confirmed), (Some(32.0), Some(40.0), false));
    assert!(o.reason.starts_with("max_probes reached (6 probes)"), "{}", o.reason);
}

#[test]
fn recording_after_the_end_changes_nothing() {
    let mut s = HighestPassing::new(SearchSpace { max_probes: 1, ..qd_space() }).unwrap();
    s.record(256.0, false);
    s.record(128.0, true);
    s.record(f64::NAN, true);
    assert_eq!(s.probes(), &[(256.0, false, false)]);
    assert!(matches!(s.next(), Step::Done(SearchOutcome { best: None, .. })));
}

#[test]
fn bad_spaces_are_refused_with_the_fix() {
    let bad = |s: SearchSpace| HighestPassing::new(s).unwrap_err();
    assert!(bad(SearchSpace { min: 0.0, ..qd_space() }).contains("above 0"));
    assert!(bad(SearchSpace { max: 0.5, ..qd_space() }).contains("below the minimum"));
    assert!(bad(SearchSpace { min: 1.2, max: 1.8, ..qd_space() }).contains("no whole number"));
    assert!(bad(SearchSpace { step_down: 1.0, ..qd_space() }).contains("between 0 and 1"));
    assert!(bad(SearchSpace { integer: false, rel_tol: 0.0, ..qd_space() }).contains("0.05"));
    assert!(bad(SearchSpace { max_probes: 0, ..qd_space() }).contains("at least 1"));
    assert!(bad(SearchSpace { start: f64::NAN, ..qd_space() }).contains("start"));
}

#[test]
fn objectives_parse_in_the_usual_spellings() {
    let o = parse_objective(" p99 < 1ms , p99.9<=5 ms,mean<200us,MAX<20ms").unwrap();
    let expect = [
        Clause { stat: Stat::Percentile(99.0), limit_ns: 1_000_000, inclusive: false },
        Clause { stat: Stat::Percentile(99.9), limit_ns: 5_000_000, inclusive: true },
        Clause { stat: Stat::Mean, limit_ns: 200_000, inclusive: false },
        Clause { stat: Stat::Max, limit_ns: 20_000_000, inclusive: false },
    ];
    assert_eq!(o.clauses, expect);
    assert_eq!(o.to_string(), "p99<1ms,p99.9<=5ms,mean<200us,max<20ms");
    assert_eq!(parse_objective(&o.to_string()).unwrap(), o);
    // 1.5 ms prints as 1.5ms, 1234567 ns as 1234.567us; both read back exactly.
    let odd = parse_objective("p50<1.5ms,p90<1234567ns").unwrap();
    assert_eq!(odd.to_string(), "p50<1.5ms,p90<1234.567us");
    assert_eq!(parse_objective(&odd.to_string()).unwrap(), odd);
}

#[test]
fn bad_objectives_name_the_clause_and_the_fix() {
    let err = |t: &str| parse_objective(t).unwrap_err().to_string();
    assert!(err("p99<1").contains("'p99<1'") && err("p99<1").contains("p99<1ms"), "{}", err("p99<1"));
    assert!(err("").contains("p99<1ms"));
    assert!(err("p99<1ms,").contains("empty criterion"));
    assert!(err("p99>1ms").contains("upper limits"));
    assert!(err("p99").contains("no limit"));
    assert!(err("q99<1ms").contains("unknown statistic 'q99'"));
    assert!(err("p101<1ms").contains("outside 0..100"));
    assert!(err("p0<1ms").contains("outside 0..100"));
    assert!(err("p99<1parsec").contains("unknown unit"));
    assert!(err("p99<0ms").contains("never be met"));
}

#[test]
fn evaluation_reads_the_histogram() {
    // 1000 samples of 1, 2, ..., 1000 µs. p99 = the 990th = 990 µs (within the 0.39% bucket
    // error, so under 994 µs); p99.9 = the 999th = 999 µs (over 995 µs even after the error);
    // mean = 500.5 µs exactly; max = 1000 µs exactly.
    let mut h = Histogram::new();
    for us in 1..=1000u64 {
        h.record(us * 1000);
    }
    let e = parse_objective("p99<1ms,p99.9<995us,mean<500us,max<1ms,max<=1ms").unwrap().evaluate(&h);
    let passes: Vec<bool> = e.clauses.iter().map(|c| c.pass).collect();
    assert_eq!(passes, [true, false, false, false, true]);
    assert!(!e.pass);
    assert!((986_139..994_000).contains(&e.clauses[0].measured_ns), "{:?}", e.clauses[0]);
    assert_eq!((e.clauses[2].measured_ns, e.clauses[3].measured_ns), (500_500, 1_000_000));
    assert_eq!(e.clauses[1].label, "p99.9<995us");
    assert!(e.to_string().contains("p99.9 ") && e.to_string().contains("FAIL"), "{e}");
    let empty = parse_objective("p99<1s").unwrap().evaluate(&Histogram::new());
    assert!(!empty.pass && !empty.clauses[0].pass);
}

/// Latencies of 1000 requests at `rate` on a device with `capacity` IOPS: service times
/// spread evenly over base..2*base, stretched by the queueing factor 1 / (1 - rate/capacity).
/// At or beyond capacity the queue grows without bound: every request takes an hour.
fn queue_model(rate: f64, capacity: f64, base_ns: f64) -> Histogram {
    let mut h = Histogram::new();
    let rho = rate / capacity;
    for i in 0..1000 {
        let service = base_ns * (1.0 + i as f64 / 1000.0);
        let latency = if rho < 1.0 { service / (1.0 - rho) } else { 3.6e12 };
        h.record(latency as u64);
    }
    h
}

#[test]
fn rate_search_on_synthetic_histograms_finds_where_p99_crosses_the_limit() {
    // Capacity 100k IOPS, base 100 µs. p99 is the 990th sample (i = 989): 198.9 µs / (1 - rho).
    // It reaches 1 ms at 1 - rho = 0.1989, rate = 80110 IOPS. The histogram reports within
    // 1/256, which moves the crossing to between 100000 * (1 - 0.1989 * (1 + 1/256)) = 80032
    // and 100000 * (1 - 0.1989 * (1 - 1/256)) = 80188. p99.9 (199.8 µs / (1 - rho) < 5 ms up
    // to rho = 0.96) does not bind.
    let (capacity, base) = (100_000.0, 100_000.0);
    let objective = parse_objective("p99<1ms,p99.9<5ms").unwrap();
    let space = SearchSpace {
        unit: Unit::Iops,
        min: 1.0,
        max: capacity,
        start: capacity,
        integer: false,
        rel_tol: 0.05,
        step_down: 0.5,
        max_probes: 20,
    };
    let o = drive(space, |rate, _| objective.evaluate(&queue_model(rate, capacity, base)).pass);
    let (best, fail) = (o.best.unwrap(), o.lowest_fail.unwrap());
    let crossing_lo = capacity * (1.0 - 0.1989 * (1.0 + 1.0 / 256.0));
    let crossing_hi = capacity * (1.0 - 0.1989 * (1.0 - 1.0 / 256.0));
    assert!(best < crossing_hi && fail >= crossing_lo, "best {best} fail {fail}");
    assert!(fail - best <= 0.05 * best && best >= crossing_lo / 1.05, "best {best} fail {fail}");
    assert!(o.confirmed, "{o:?}");
}

#[test]
fn a_clause_reads_as_its_figure_against_its_limit() {
    let o = parse_objective("p99<500us,max<1ms").unwrap();
    let judged = |ns: u64| {
        let mut h = Histogram::new();
        h.record_n(ns, 1000);
        o.evaluate(&h).clauses.iter().map(|c| c.compared()).collect::<Vec<_>>()
    };
    assert_eq!(judged(100), ["p99 100ns < 500.0µs", "max 100ns < 1.00ms"]);
    assert_eq!(judged(2_000_000)[1], "max 2.00ms > 1.00ms");
    assert_eq!(o.evaluate(&Histogram::new()).clauses[0].stat(), "p99");
}
