use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn hist(pairs: &[(usize, u64)]) -> ActHist {
    let mut h = ActHist::new();
    for &(b, c) in pairs {
        h.counts[b] = c;
    }
    h
}

#[test]
fn one_x_on_one_target_is_2000_reads_and_23_5_large_blocks() {
    // Stored record 1536 (already a multiple of 16). 131072 / 1536 = 85.33 -> 85 records per
    // large block. 1000 writes/s / 85 = 11.7647 blocks/s, x 100 / (100 - 50) = 23.5294.
    let c = ActConfig::default();
    c.validate().unwrap();
    let r = c.derive(512);
    assert_eq!((c.read_reqs_per_sec(), c.write_reqs_per_sec()), (2000, 1000));
    assert_eq!((r.record_stored_bytes, r.read_bytes, r.large_block_bytes), (1536, 1536, 131072));
    assert!(close(r.read_iops, 2000.0), "{r:?}");
    assert!(close(r.large_block_read_iops, 1000.0 / 85.0 * 2.0), "{r:?}");
    assert!(close(r.large_block_write_iops, 1000.0 / 85.0 * 2.0), "{r:?}");
    assert_eq!(format!("{:.3}", r.large_block_read_iops), "23.529");
    assert_eq!((r.commit_write_iops, r.commit_write_bytes, r.internal_write_reqs_total), (0.0, 0, 0));
    // A 4096-byte minimum direct-I/O size makes each read one 4096-byte block.
    assert_eq!(c.derive(4096).read_bytes, 4096);
}

#[test]
fn three_x_with_replication_updates_and_defrag_60() {
    // N = 3, replication 2, update-pct 10, defrag-lwm 60, one target:
    // reads 6000, writes 3000; internal reads 6000 + 3000 * 10 / 100 = 6300;
    // internal writes 2 * 3000 = 6000; 6000 / 85 = 70.588 blocks/s;
    // amplification 100 / (100 - 60) = 2.5; large blocks 70.588 * 2.5 = 176.47/s.
    let c = ActConfig { scale: 3.0, replication_factor: 2, update_pct: 10, defrag_lwm_pct: 60, ..Default::default() };
    c.validate().unwrap();
    let r = c.derive(512);
    assert_eq!(r.internal_read_reqs_total, 6300);
    assert!(close(r.read_iops, 6300.0), "{r:?}");
    assert!(close(r.large_block_read_iops, 6000.0 / 85.0 * 2.5), "{r:?}");
    assert!(close(r.large_block_write_iops, 6000.0 / 85.0 * 2.5), "{r:?}");
    assert_eq!(format!("{:.2}", r.large_block_reads_total), "176.47");
}

#[test]
fn totals_cover_all_targets_and_rates_stay_per_target() {
    // N = 1 on 2 targets: ACT's config says 4000 reads and 2000 writes per second;
    // large blocks 2000 / 85 * 2 = 47.06/s in total, 23.53/s per target.
    let c = ActConfig { targets: 2, ..Default::default() };
    let r = c.derive(512);
    assert_eq!((c.read_reqs_per_sec(), c.write_reqs_per_sec()), (4000, 2000));
    assert_eq!(format!("{:.2}", r.large_block_reads_total), "47.06");
    assert!(close(r.read_iops, 2000.0) && close(r.large_block_read_iops, 2000.0 / 85.0), "{r:?}");
    // A fractional N for search refinement: 2.5 x 2000 = 5000 reads, 2500 writes.
    let half = ActConfig { scale: 2.5, ..Default::default() };
    assert_eq!((half.read_reqs_per_sec(), half.write_reqs_per_sec()), (5000, 2500));
    assert!(close(half.derive(512).large_block_read_iops, 2500.0 / 85.0 * 2.0));
}

#[test]
fn commit_to_device_moves_original_writes_to_record_writes() {
    // Large-block writes carry only defrag's share: 1000 / 85 * (2 - 1) = 11.76/s; each of
    // the 1000 writes/s is written on its own, 1536 bytes (4096 at a 4096-byte minimum).
    let c = ActConfig { commit_to_device: true, ..Default::default() };
    let r = c.derive(512);
    assert!(close(r.large_block_read_iops, 1000.0 / 85.0 * 2.0), "{r:?}");
    assert!(close(r.large_block_write_iops, 1000.0 / 85.0), "{r:?}");
    assert_eq!((r.commit_write_iops, r.commit_write_bytes, r.internal_write_reqs_total), (1000.0, 1536, 1000));
    assert_eq!(c.derive(4096).commit_write_bytes, 4096);
}

#[test]
fn odd_record_sizes_round_up_to_16_byte_blocks() {
    // 1000 bytes -> 63 blocks of 16 = 1008 stored; read 1024 at 512, 4096 at 4096.
    // 131072 / 1008 = 130.03 -> 130 records per block: 1000 / 130 * 2 = 15.38 blocks/s.
    let c = ActConfig { record_bytes: 1000, ..Default::default() };
    let r = c.derive(512);
    assert_eq!((r.record_stored_bytes, r.read_bytes, c.derive(4096).read_bytes), (1008, 1024, 4096));
    assert!(close(r.large_block_read_iops, 1000.0 / 130.0 * 2.0), "{r:?}");
}

#[test]
fn invalid_configs_are_refused_with_the_fix() {
    let err = |c: ActConfig| c.validate().unwrap_err();
    let d = ActConfig::default;
    assert!(err(ActConfig { scale: 0.0, ..d() }).contains("above 0"));
    assert!(err(ActConfig { scale: 1e9, ..d() }).contains("smaller N"));
    assert!(err(ActConfig { large_block_op_bytes: 100_000, ..d() }).contains("power of two"));
    assert!(err(ActConfig { large_block_op_bytes: 1024, ..d() }).contains("smaller than the record size 1536"));
    assert!(err(ActConfig { defrag_lwm_pct: 100, ..d() }).contains("under 100"));
    assert!(err(ActConfig { replication_factor: 0, ..d() }).contains("use 1"));
    assert!(err(ActConfig { update_pct: 101, ..d() }).contains("over 100"));
    assert!(err(ActConfig { targets: 0, ..d() }).contains("at least one target"));
    // An invalid config still derives without panicking.
    let r = ActConfig { defrag_lwm_pct: 100, targets: 0, ..d() }.derive(0);
    assert!(r.large_block_read_iops.is_infinite() || r.large_block_read_iops.is_nan());
}

#[test]
fn buckets_follow_acts_msb_rule() {
    // < 1 ms -> 0; 1 ms -> 1; 2..3 ms -> 2; 4..7 ms -> 3; 64 ms -> 7; huge -> 16.
    let ms = 1_000_000;
    let cases = [(0, 0), (999_999, 0), (ms, 1), (2 * ms - 1, 1), (2 * ms, 2), (3 * ms, 2), (4 * ms, 3)];
    for (ns, b) in cases.into_iter().chain([(7 * ms, 3), (64 * ms, 7), (u64::MAX, 16)]) {
        assert_eq!(ActHist::bucket_of(ns), b, "{ns} ns");
    }
    let mut h = ActHist::new();
    h.insert(5 * ms);
    h.add(&hist(&[(3, 2), (0, 1)]));
    assert_eq!((h.counts[3], h.counts[0], h.total()), (3, 1, 4));
}

/// 1000 ops: 940 under 1 ms; 30 in 1-2, 10 in 2-4, 9 in 4-8, 5 in 8-16, 2 in 16-32,
/// 2 in 32-64, 2 in 64-128 ms.
fn thousand_ops() -> ActHist {
    hist(&[(0, 940), (1, 30), (2, 10), (3, 9), (4, 5), (5, 2), (6, 2), (7, 2)])
}

#[test]
fn slice_percentages_match_a_hand_count() {
    // Over 1 ms: 60 of 1000 = 6.00%; over 2: 30 = 3.00%; over 4: 20 = 2.00%; over 8: 11 =
    // 1.10%; over 16: 6 = 0.60%; over 32: 4 = 0.40%; over 64: 2 = 0.20%. Spread over two
    // seconds (600 + 400 ops) of a 2-second slice: 500 ops/s. Fails all three limits.
    let first = hist(&[(0, 560), (1, 20), (2, 10), (3, 5), (4, 3), (7, 2)]);
    let mut second = thousand_ops();
    first.counts.iter().enumerate().for_each(|(b, c)| second.counts[b] -= c);
    let rows = slices(&[first, second], 2);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!((r.index, r.start_s, r.end_s, r.ops, r.partial), (1, 0, 2, 1000, false));
    assert!(close(r.rate_per_s, 500.0));
    let expect = [6.0, 3.0, 2.0, 1.1, 0.6, 0.4, 0.2];
    assert!(r.over_pct.iter().zip(expect).all(|(&a, b)| close(a, b)), "{:?}", r.over_pct);
    let v = verdict(&rows, &ActCriteria::default());
    assert!(!v.pass);
    let msgs: Vec<&str> = v.failing_slices.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(
        msgs,
        ["slice 1: 6.00% > 1 ms (limit 5%)", "slice 1: 1.10% > 8 ms (limit 1%)", "slice 1: 0.20% > 64 ms (limit 0.1%)"]
    );
    assert!(close(v.worst[0], 6.0) && close(v.worst[6], 0.2));
}

#[test]
fn exactly_at_a_limit_fails_and_just_under_passes() {
    // 50 of 1000 over 1 ms is exactly 5%: not under 5%. 49 of 1000 (4.9%) passes.
    let at = slices(&[hist(&[(0, 950), (1, 50)])], 1);
    assert!(close(at[0].over_pct[0], 5.0));
    let v = verdict(&at, &ActCriteria::default());
    assert_eq!(v.failing_slices, vec![(1, "slice 1: 5.00% > 1 ms (limit 5%)".to_string())]);
    let under = slices(&[hist(&[(0, 951), (1, 49)])], 1);
    assert!(verdict(&under, &ActCriteria::default()).pass);
}

#[test]
fn every_slice_must_pass_and_the_worst_is_kept() {
    // Slice 1 (seconds 0-1): 0% over 1 ms. Slice 2 (seconds 2-3): 100 of 1000 = 10%.
    // Second 4 starts an incomplete slice and is ignored.
    let good = hist(&[(0, 500)]);
    let bad = hist(&[(0, 450), (1, 50)]);
    let rows = slices(&[good.clone(), good.clone(), bad.clone(), bad, good], 2);
    assert_eq!(rows.iter().map(|r| (r.index, r.start_s, r.end_s)).collect::<Vec<_>>(), [(1, 0, 2), (2, 2, 4)]);
    let v = verdict(&rows, &ActCriteria::default());
    assert!(!v.pass && close(v.worst[0], 10.0));
    assert_eq!(v.failing_slices.iter().map(|f| f.0).collect::<Vec<_>>(), [2]);
}

#[test]
fn short_runs_report_one_partial_slice_and_empty_runs_fail() {
    // 3 seconds of 1000 ops with a 3600 s slice: one partial slice over 0..3 s, 1000 ops/s.
    let ok = hist(&[(0, 1000)]);
    let rows = slices(&[ok.clone(), ok.clone(), ok], 3600);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].partial && rows[0].end_s == 3 && close(rows[0].rate_per_s, 1000.0), "{rows:?}");
    assert!(verdict(&rows, &ActCriteria::default()).pass);
    // Nothing recorded: one empty partial slice, which fails; no slices at all fails too.
    let empty = slices(&[], 3600);
    assert_eq!((empty.len(), empty[0].ops), (1, 0));
    let v = verdict(&empty, &ActCriteria::default());
    assert_eq!(v.failing_slices, vec![(1, "slice 1: no operations completed".to_string())]);
    assert!(!verdict(&[], &ActCriteria::default()).pass);
}

fn header(config: ActConfig) -> ActLogHeader {
    let targets = (0..config.targets)
        .map(|i| ActLogTarget { name: format!("/dev/loop{i}"), size_bytes: 1 << 30, min_op_bytes: 512 })
        .collect();
    ActLogHeader {
        drivelab_version: "0.1.0".into(),
        targets,
        rates: config.derive(512),
        config,
        service_threads: 4,
        duration_secs: 2,
        scheduler: "none".into(),
    }
}

fn render(header: &ActLogHeader, seconds: &[ActLogSecond]) -> String {
    let mut out = Vec::new();
    write_act_log(&mut out, header, seconds).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn act_log_matches_acts_format_line_by_line() {
    // Second 1: reads in buckets 0, 1, 3, 4, 5 (five non-zero: four on the first line, one
    // on the next); large-block writes empty. Second 2 adds 1 read in bucket 0 and 2 large
    // reads, so the second block shows cumulative totals 19 and 3.
    let s1 = ActLogSecond {
        reads: hist(&[(0, 5), (1, 3), (3, 1), (4, 2), (5, 7)]),
        target_reads: vec![hist(&[(0, 5), (1, 3), (3, 1), (4, 2), (5, 7)])],
        large_block_reads: hist(&[(0, 1)]),
        ..Default::default()
    };
    let s2 = ActLogSecond {
        reads: hist(&[(0, 1)]),
        target_reads: vec![hist(&[(0, 1)])],
        large_block_reads: hist(&[(0, 2)]),
        ..Default::default()
    };
    let expected = "\
drivelab 0.1.0 writing ACT storage 6.x output

ACT version 6.4
Storage device IO test
Copyright 2020 by Aerospike. All rights reserved.

ACT-STORAGE CONFIGURATION
device-names: /dev/loop0
num-devices: 1
service-threads: 4
test-duration-sec: 2
report-interval-sec: 1
microsecond-histograms: no
read-reqs-per-sec: 2000
write-reqs-per-sec: 1000
record-bytes: 1536
record-bytes-range-max: 0
large-block-op-kbytes: 128
replication-factor: 1
update-pct: 0
defrag-lwm-pct: 50
compress-pct: 100
disable-odsync: no
commit-to-device: no
commit-min-bytes: 0
tomb-raider: no
tomb-raider-sleep-usec: 0
max-lag-sec: 10
scheduler-mode: none

DERIVED CONFIGURATION
record-stored-bytes: 1536 ... 1536
internal-read-reqs-per-sec: 2000
internal-write-reqs-per-sec: 0
large-block-reads-per-sec: 23.53
large-block-writes-per-sec: 23.53

/dev/loop0 size = 1073741824 bytes, 8192 large blocks, minimum IO size = 512 bytes

HISTOGRAM NAMES
reads
/dev/loop0-reads
large-block-reads
large-block-writes

after 1 sec:
reads (18 total)
 (00: 0000000005) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
/dev/loop0-reads (18 total)
 (00: 0000000005) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
large-block-reads (1 total)
 (00: 0000000001)
large-block-writes (0 total)

after 2 sec:
reads (19 total)
 (00: 0000000006) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
/dev/loop0-reads (19 total)
 (00: 0000000006) (01: 0000000003) (03: 0000000001) (04: 0000000002)
 (05: 0000000007)
large-block-reads (3 total)
 (00: 0000000003)
large-block-writes (0 total)

";
    let got = render(&header(ActConfig::default()), &[s1, s2]);
    for (i, (g, e)) in got.lines().zip(expected.lines()).enumerate() {
        assert_eq!(g, e, "line {}", i + 1);
    }
    assert_eq!(got, expected);
}

#[test]
fn act_log_reports_per_interval_and_names_commit_writes() {
    // Interval 2 s over 3 seconds: one block after 2 s with both seconds; the third second
    // completes no interval. Exactly four buckets fill one line with nothing after it.
    let config = ActConfig { targets: 2, commit_to_device: true, report_interval_secs: 2, ..Default::default() };
    let second = ActLogSecond {
        reads: hist(&[(0, 1), (2, 1), (4, 1), (6, 1)]),
        target_reads: vec![ActHist::new(), ActHist::new()],
        writes: hist(&[(1, 4)]),
        target_writes: vec![hist(&[(1, 4)]), ActHist::new()],
        ..Default::default()
    };
    let got = render(&header(config), &[second.clone(), second.clone(), second]);
    let names = "HISTOGRAM NAMES\nreads\n/dev/loop0-reads\n/dev/loop1-reads\nlarge-block-reads\n\
                 large-block-writes\nwrites\n/dev/loop0-writes\n/dev/loop1-writes\n\n";
    assert!(got.contains(names), "{got}");
    assert!(got.contains("internal-write-reqs-per-sec: 2000\nlarge-block-reads-per-sec: 47.06\n"), "{got}");
    assert!(got.contains("large-block-writes-per-sec: 23.53\n"), "{got}");
    let block = "after 2 sec:\nreads (8 total)\n (00: 0000000002) (02: 0000000002) (04: 0000000002) \
                 (06: 0000000002)\n/dev/loop0-reads (0 total)\n";
    assert!(got.contains(block), "{got}");
    assert!(got.contains("\nwrites (8 total)\n (01: 0000000008)\n/dev/loop0-writes (8 total)\n"), "{got}");
    assert!(got.ends_with("/dev/loop1-writes (0 total)\n\n") && !got.contains("after 3 sec"), "{got}");
}

#[test]
fn act_log_refuses_mismatched_targets() {
    let mut h = header(ActConfig { targets: 2, ..Default::default() });
    let wrong = ActLogSecond { target_reads: vec![ActHist::new()], ..Default::default() };
    let mut out = Vec::new();
    let e = write_act_log(&mut out, &h, &[wrong]).unwrap_err();
    assert!(e.to_string().contains("1 per-target read histograms for 2 targets"), "{e}");
    h.targets.pop();
    let e = write_act_log(&mut Vec::new(), &h, &[]).unwrap_err();
    assert!(e.to_string().contains("1 targets named for a load on 2"), "{e}");
}
