//! Access specs: validation, labels, saved forms, auto pacing.

use super::*;

fn err(spec: &AccessSpec) -> String {
    spec.validate().unwrap_err().to_string()
}

#[test]
fn fio_words_map_to_read_and_random_shares() {
    let mut s = AccessSpec::default();
    for (rw, r, x) in [("read", 100, 0), ("write", 0, 0), ("randrw", 50, 100), ("rw", 50, 0)] {
        s.set_rw(rw).unwrap();
        assert_eq!((s.read_pct, s.random_pct), (r, x), "{rw}");
    }
    let e = s.set_rw("randomread").unwrap_err();
    assert!(matches!(e, Error::Spec { field: Field::Rw, .. }) && e.to_string().contains("randread"), "{e}");
}

#[test]
fn block_size_splits_parse_and_must_sum_to_100() {
    let bs = AccessSpec::parse_bs("4k:70,64k:30").unwrap();
    assert_eq!(bs, vec![BlockSize { bytes: 4096, pct: 70 }, BlockSize { bytes: 65536, pct: 30 }]);
    let s = AccessSpec { bs: AccessSpec::parse_bs("4k:70,64k:20").unwrap(), ..Default::default() };
    assert!(err(&s).contains("add up to 90%") && err(&s).starts_with("bs 4k:70,64k:20:"), "{}", err(&s));
    assert!(AccessSpec::parse_bs("4k:70,64k").is_err());
}

#[test]
fn zero_depth_jobs_and_sizes_are_refused_naming_the_field() {
    let field = |s: AccessSpec| match s.validate().unwrap_err() {
        Error::Spec { field, .. } => field,
        e => panic!("{e:?}"),
    };
    assert!(err(&AccessSpec { qd: 0, ..Default::default() }).starts_with("qd 0:"));
    assert!(AccessSpec { qd: MAX_QD, ..Default::default() }.validate().is_ok());
    assert!(err(&AccessSpec { qd: MAX_QD + 1, ..Default::default() }).contains("io_uring's ring limit"));
    assert_eq!(field(AccessSpec { qd: 0, ..Default::default() }), Field::Qd);
    assert!(err(&AccessSpec { jobs: 0, ..Default::default() }).starts_with("jobs 0:"));
    assert!(err(&AccessSpec { bs: vec![BlockSize { bytes: 0, pct: 100 }], ..Default::default() }).starts_with("bs 0:"));
    assert!(err(&AccessSpec { read_pct: 101, ..Default::default() }).contains("outside 0..100"));
    let psync = AccessSpec { engine: EngineKind::Psync, qd: 8, ..Default::default() }.validate().unwrap_err();
    assert!(psync.to_string().contains("use jobs 8 qd 1, or engine uring"), "{psync}");
    assert!(psync.cli_message().starts_with("--qd 8 with --engine psync: psync"), "{}", psync.cli_message());
    assert!(psync.cli_message().contains("--jobs 8 --qd 1"), "{}", psync.cli_message());
    assert!(err(&AccessSpec { time_ns: None, io_size_bytes: None, ..Default::default() }).contains("no end"));
    assert!(!err(&AccessSpec { submit_batch: batch_zero(), ..Default::default() }).contains("--"));
}

fn batch_zero() -> u32 {
    0
}

#[test]
fn a_saved_spec_without_submit_batch_gets_the_default_batch() {
    let mut v = serde_json::to_value(AccessSpec::default()).unwrap();
    v.as_object_mut().unwrap().remove("submit_batch");
    let json = serde_json::to_string(&v).unwrap();
    assert!(!json.contains("submit_batch"));
    let s: AccessSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(s.submit_batch, AccessSpec::default().submit_batch);
    assert_eq!(s.submit_batch, 2);
}

#[test]
fn a_split_of_more_sizes_than_the_generator_keeps_is_refused() {
    let split = |n: u64| -> Vec<BlockSize> {
        // n sizes whose shares add up to 100.
        (0..n).map(|i| BlockSize { bytes: 4096 * (i + 1), pct: (100 / n + (i < 100 % n) as u64) as u8 }).collect()
    };
    let ok = AccessSpec { bs: split(MAX_BLOCK_SIZES as u64), ..Default::default() };
    assert!(ok.validate().is_ok());
    let s = AccessSpec { bs: split(MAX_BLOCK_SIZES as u64 + 1), ..Default::default() };
    let e = err(&s);
    assert!(e.contains("17 sizes") && e.contains("at most 16"), "{e}");
}

#[test]
fn latency_thresholds_are_ascending_and_at_most_16() {
    let ok = AccessSpec { thresholds_ns: (1..=16).map(|i| i * 1_000_000).collect(), ..Default::default() };
    assert!(ok.validate().is_ok());
    let many = AccessSpec { thresholds_ns: (1..=17).collect(), ..Default::default() };
    assert!(err(&many).contains("at most 16"));
    let unsorted = AccessSpec { thresholds_ns: vec![2_000_000, 1_000_000], ..Default::default() };
    assert!(err(&unsorted).contains("ascending"));
    // Not written when empty, so saved specs stay as they were.
    assert!(!serde_json::to_string(&AccessSpec::default()).unwrap().contains("thresholds"));
}

#[test]
fn target_checks_name_the_alignment_and_the_fix() {
    let s = AccessSpec { bs: vec![BlockSize { bytes: 1000, pct: 100 }], ..Default::default() };
    let e = s.check_against("/dev/loop0", 1 << 30, 512).unwrap_err();
    let (plan, cli) = (e.to_string(), e.cli_message());
    assert!(plan.starts_with("bs 1000:") && plan.contains("512") && plan.contains("use buffered"), "{plan}");
    assert!(cli.starts_with("--bs 1000:") && cli.contains("use --buffered"), "{cli}");
    let s = AccessSpec { offset_bytes: 100, ..Default::default() };
    assert!(s.check_against("f", 1 << 30, 512).unwrap_err().cli_message().contains("--offset 100"));
    let s = AccessSpec { span_bytes: Some(2 << 30), ..Default::default() };
    assert!(s.check_against("f", 1 << 30, 512).unwrap_err().to_string().contains("past the end"));
    let s = AccessSpec { align_bytes: Some(512), ..Default::default() };
    assert_eq!(s.check_against("f", 1 << 30, 512).unwrap(), (0, 1 << 30));
    let s = AccessSpec { bs: vec![BlockSize { bytes: 1000, pct: 100 }], direct: false, ..Default::default() };
    assert!(s.check_against("f", 1 << 20, 4096).is_ok());
}

fn paced(per_s: f64, qd: u32, per_slot: bool) -> AccessSpec {
    AccessSpec {
        qd,
        rate: Some(Rate { per_s, per_slot, aligned: per_slot, ..Default::default() }),
        ..Default::default()
    }
}

#[test]
fn auto_pacing_spins_only_while_a_whole_cpu_stays_free() {
    // 20k IOPS: a wake-up every 50 µs, a 100 µs spin each: a whole CPU.
    let fast = paced(20_000.0, 1, false).hybrid_spin_cpus(1, 1);
    assert_eq!(fast, 1.0);
    assert_eq!(PaceMode::Auto.resolve(fast, 2), PaceMode::Hybrid);
    assert_eq!(PaceMode::Auto.resolve(2.0 * fast, 2), PaceMode::Sleep, "two such jobs on 2 CPUs");
    // ACT at 10x: ten aligned slots at 20000/s wake 2000 times a second (0.2 CPU), plus two
    // large-block streams at 235/s (0.024 each): hybrid on 2 CPUs, sleep on 1.
    let act = paced(20_000.0, 10, true).hybrid_spin_cpus(1, 1) + 2.0 * paced(235.3, 1, true).hybrid_spin_cpus(1, 1);
    assert!((act - 0.247).abs() < 0.001, "{act}");
    assert_eq!(PaceMode::Auto.resolve(act, 2), PaceMode::Hybrid);
    assert_eq!(PaceMode::Auto.resolve(act, 1), PaceMode::Sleep);
    assert_eq!(PaceMode::Spin.resolve(5.0, 1), PaceMode::Spin, "a mode asked for is kept");
    assert_eq!(paced(0.0, 1, false).hybrid_spin_cpus(4, 4), 0.0);
    assert_eq!(AccessSpec::default().hybrid_spin_cpus(4, 4), 0.0, "closed loop does not spin");
}

#[test]
fn verify_units_divide_every_io_and_need_data_with_room_for_a_header() {
    let v = |bs: &str, align: Option<u64>, offset: u64| AccessSpec {
        verify: true,
        bs: AccessSpec::parse_bs(bs).unwrap(),
        align_bytes: align,
        offset_bytes: offset,
        ..Default::default()
    };
    assert_eq!(v("4k", None, 0).verify_unit(), Some(4096));
    assert_eq!(v("64k:50,1m:50", None, 0).verify_unit(), Some(4096), "at most 4 KiB");
    assert_eq!(v("4k", Some(512), 0).verify_unit(), Some(512), "512-byte aligned 4 KiB I/Os: 512-byte units");
    assert_eq!(v("8k", None, 1024).verify_unit(), Some(1024));
    assert_eq!(AccessSpec::default().verify_unit(), None, "no verify, no unit");
    assert!(err(&v("4k", Some(256), 0)).contains("at least 512"), "{}", err(&v("4k", Some(256), 0)));
    let zero = AccessSpec { data: DataPattern::Zero, ..v("4k", None, 0) };
    assert!(err(&zero).starts_with("data zero") && err(&zero).contains("no room"), "{}", err(&zero));
    let big = AccessSpec { verify_unit_bytes: Some(8192), ..v("8k", None, 0) };
    assert!(err(&big).contains("power of two from 512 to 4k"), "{}", err(&big));
    let odd = AccessSpec { verify_unit_bytes: Some(4096), ..v("4k", Some(512), 0) };
    assert!(err(&odd).contains("not a multiple of the verify_unit 4096"), "{}", err(&odd));
    let after = AccessSpec { verify_after: true, ..Default::default() };
    assert!(err(&after).contains("add verify"), "{}", err(&after));
    assert_eq!(v("4k", None, 0).verify_zero_pct(), 0);
    assert_eq!(AccessSpec { data: DataPattern::Compress { pct: 30 }, ..v("4k", None, 0) }.verify_zero_pct(), 30);
}

#[test]
fn engine_options_keep_their_saved_form_flat_beside_the_engine() {
    // As every saved result has it: top-level keys, absent when off.
    let json = r#"{"read_pct":100,"random_pct":100,"bs":[{"bytes":4096,"pct":100}],"align_bytes":null,
        "offset_bytes":0,"span_bytes":null,"qd":8,"jobs":1,"time_ns":1000000000,"io_size_bytes":null,
        "ramp_ns":0,"direct":true,"sync":{"mode":"none"},"data":{"kind":"random"},"seed":1,
        "engine":"uring","continue_on_error":false,"hipri":true,"sqpoll":true,"sqpoll_cpu":1}"#;
    let s: AccessSpec = serde_json::from_str(json).unwrap();
    let uring = crate::backend::uring::UringOptions { hipri: true, sqpoll: true, sqpoll_cpu: Some(1) };
    assert_eq!((s.engine, s.engine_opts.uring), (EngineKind::Uring, uring));
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(
        (&v["engine"], &v["hipri"], &v["sqpoll"], &v["sqpoll_cpu"]),
        (&"uring".into(), &true.into(), &true.into(), &1.into())
    );
    assert!(v.get("engine_opts").is_none() && v.get("uring").is_none(), "{v}");
    let plain = serde_json::to_value(AccessSpec::default()).unwrap();
    assert!(["hipri", "sqpoll", "sqpoll_cpu"].iter().all(|k| plain.get(k).is_none()), "{plain}");
    let back: AccessSpec = serde_json::from_value(plain).unwrap();
    assert_eq!(back, AccessSpec::default());
}

#[test]
fn an_engine_option_for_another_engine_is_refused_naming_both() {
    let uring = |hipri, sqpoll, sqpoll_cpu| EngineOptions {
        uring: crate::backend::uring::UringOptions { hipri, sqpoll, sqpoll_cpu },
        atomic: false,
        stat: Default::default(),
        cmd: Default::default(),
    };
    let psync = AccessSpec { engine: EngineKind::Psync, engine_opts: uring(true, false, None), ..Default::default() };
    // io_uring_cmd's command options, with any other engine.
    let mut zeroes = AccessSpec { engine: EngineKind::Uring, ..Default::default() };
    zeroes.engine_opts.cmd.write_mode = [0, 0, 100, 0];
    let e = zeroes.validate().unwrap_err();
    assert!(matches!(e, Error::Spec { field: Field::WriteMode, .. }), "{e:?}");
    assert!(
        e.cli_message().starts_with("--write-mode zeroes: shapes the NVMe commands of io_uring_cmd"),
        "{}",
        e.cli_message()
    );
    let fua = AccessSpec {
        engine_opts: EngineOptions {
            cmd: crate::backend::CmdOptions { writefua: true, ..Default::default() },
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(matches!(fua.validate().unwrap_err(), Error::Spec { field: Field::Writefua, .. }));
    let e = psync.validate().unwrap_err();
    assert!(matches!(e, Error::Spec { field: Field::Hipri, .. }), "{e:?}");
    assert!(e.cli_message().starts_with("--hipri on: is io_uring's, and this runs psync"), "{}", e.cli_message());
    let sq = AccessSpec { engine: EngineKind::Psync, engine_opts: uring(false, true, None), ..Default::default() };
    assert!(err(&sq).starts_with("sqpoll on: is io_uring's"), "{}", err(&sq));
    let buffered = AccessSpec { direct: false, engine_opts: uring(true, false, None), ..Default::default() };
    assert!(err(&buffered).contains("polls O_DIRECT I/O only"), "{}", err(&buffered));
    let cpu = AccessSpec { engine_opts: uring(false, false, Some(0)), ..Default::default() };
    assert!(err(&cpu).contains("add --sqpoll"), "{}", err(&cpu));
    assert!(AccessSpec { engine_opts: uring(true, true, None), ..Default::default() }.validate().is_ok());
}

#[test]
fn written_values_read_back_through_their_parsers() {
    use crate::options::{parse_cpus, parse_data, parse_rate, parse_sync};
    for bs in ["4k", "1536", "4k:70,64k:30", "512:100", "4k:70"] {
        let parsed = AccessSpec::parse_bs(bs).unwrap();
        assert_eq!(AccessSpec::parse_bs(&AccessSpec::bs_to_text(&parsed)).unwrap(), parsed, "{bs}");
    }
    assert_eq!(AccessSpec::bs_to_text(&AccessSpec::parse_bs("4k:100").unwrap()), "4k");
    for sync in ["none", "dsync", "fsync", "fsync:8", "fdatasync:3"] {
        let s = parse_sync(sync).unwrap();
        assert_eq!(parse_sync(&s.to_string()).unwrap(), s, "{sync}");
    }
    for data in ["random", "zero", "compress:50"] {
        let d = parse_data(data).unwrap();
        assert_eq!(parse_data(&d.to_string()).unwrap(), d, "{data}");
    }
    for cpus in ["spread", "none", "0", "0,2,5"] {
        let c = parse_cpus(cpus).unwrap();
        assert_eq!(parse_cpus(&c.to_string()).unwrap(), c, "{cpus}");
    }
    for rate in ["5000", "2.5k", "0.125", "1m iops", "200MiB/s", "1536/s"] {
        let (per_s, unit) = parse_rate(rate).unwrap();
        let text = Rate { per_s, unit, ..Rate::default() }.per_s_text();
        assert_eq!(parse_rate(&text).unwrap(), (per_s, unit), "{rate}: {text}");
    }
    // A hot band's edges in bytes: bare digits would be a percent.
    for band in ["hotband:512b/1m", "hotband:1536b/1g", "hotband:40/60"] {
        let d = Distribution::parse(band).unwrap();
        assert_eq!(Distribution::parse(&d.to_string()).unwrap(), d, "{band}: {d}");
    }
}

#[test]
fn fadvise_tells_the_kernel_fios_advice_for_the_pattern() {
    use super::Fadvise;
    let random = AccessSpec { random_pct: 100, ..Default::default() };
    let seq = AccessSpec { random_pct: 0, ..Default::default() };
    assert_eq!(Fadvise::Pattern.advice(&random), Some(libc::POSIX_FADV_RANDOM));
    assert_eq!(Fadvise::Pattern.advice(&seq), Some(libc::POSIX_FADV_SEQUENTIAL));
    assert_eq!(Fadvise::Random.advice(&seq), Some(libc::POSIX_FADV_RANDOM));
    assert_eq!(Fadvise::None.advice(&random), None, "drivelab's default tells nothing");
    assert_eq!(Fadvise::parse("1"), Some(Fadvise::Pattern));
    assert_eq!(Fadvise::parse("0"), Some(Fadvise::None));
    assert_eq!(Fadvise::parse("normal"), None, "fio 3.33 takes 0, 1, random, sequential");
}
