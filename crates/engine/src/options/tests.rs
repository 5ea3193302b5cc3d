//! The option table's rules, pinned: every key with its usual spelling, fio's spellings giving
//! drivelab's spec, refusals naming what the reader wrote.

use super::*;
use crate::error::Error;
use crate::spec::{AccessSpec, Arrivals, Distribution, PaceMode, RateScope, RateUnit, SyncMode, Think};

/// A value in its usual spelling for every key of `KEYS` (a field added to `Field::SETTABLE`
/// needs one here, or this does not compile).
const SAMPLES: [(&str, &str); Field::SETTABLE.len()] = [
    ("rw", "randrw"),
    ("read", "70"),
    ("random", "5"),
    ("bs", "4k:70,64k:30"),
    ("align", "512"),
    ("offset", "1m"),
    ("span", "8g"),
    ("qd", "32"),
    ("jobs", "2"),
    ("batch", "4"),
    ("time", "3m"),
    ("io_size", "1g"),
    ("ramp", "10s"),
    ("direct", "true"),
    ("buffered", "false"),
    ("sync", "fsync:8"),
    ("data", "compress:50"),
    ("seed", "7"),
    ("engine", "psync"),
    ("cpus", "0"),
    ("continue_on_error", "true"),
    ("random_map", "true"),
    ("bs_max", "64k"),
    ("rate", "2k"),
    ("rate_scope", "job"),
    ("arrivals", "poisson"),
    ("max_lag", "10s"),
    ("pace", "hybrid"),
    ("hipri", "true"),
    ("sqpoll", "true"),
    ("sqpoll_cpu", "0"),
    ("atomic", "true"),
    ("stat_type", "lstat"),
    ("verify", "true"),
    ("verify_after", "true"),
    ("verify_unit", "512"),
    ("distribution", "zipf:1.2:0.25"),
    ("thinktime", "250"),
    ("thinktime_spin", "50us"),
    ("thinktime_blocks", "8"),
    ("thinktime_blocks_type", "issue"),
    ("replay", "TRACE"),
    ("replay_timing", "fast"),
    ("rw_sequencer", "identical"),
    ("zone_range", "64k"),
    ("zone_size", "16k"),
    ("zone_skip", "32k"),
    ("buffer_pattern", "0xdeadface\"ab\""),
    ("verify_pattern", "%o\"ab\""),
    ("ignore_error", "EIO,ENOSPC:5,EILSEQ"),
    ("flow", "8"),
    ("flow_id", "3"),
    ("flow_sleep", "1ms"),
    ("offset_increment", "1m"),
    ("dedupe", "50:working_set:20:global"),
    ("zbd", "1m,max_open=2"),
    ("start_delay", "250ms"),
    ("number_ios", "1000"),
    ("verify_backlog", "32"),
    ("complete_min", "4"),
    ("verify_found", "true"),
    ("fadvise", "random"),
    ("invalidate", "false"),
    ("write_bs", "64k"),
    ("prio", "idle/3"),
    ("cmdprio", "4k/25/rt/1,*/10/2/0"),
    ("fill_device", "true"),
    ("latency_target", "500"),
    ("latency_window", "2s"),
    ("latency_percentile", "99.9"),
    ("latency_run", "true"),
    ("latency_split", "true"),
    ("sprandom", "1"),
    ("spr_op", "0.28"),
    ("spr_num_regions", "400"),
    ("spr_cs", "64k"),
    ("write_mode", "write/60:zeroes/40"),
    ("deac", "true"),
    ("readfua", "true"),
    ("writefua", "true"),
    ("num_range", "4"),
];

#[test]
fn every_key_is_accepted_with_its_usual_spelling() {
    let values = SAMPLES;
    assert_eq!(values.len(), KEYS.len());
    let mut s = AccessSpec::default();
    for (k, v) in values {
        if k.starts_with("replay") {
            continue; // below: a replay sets the mix and sizes from its trace
        }
        apply(&mut s, k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
    }
    let trace = std::env::temp_dir().join(format!("drivelab-fields-{}.iolog", std::process::id()));
    std::fs::write(&trace, "fio version 3 iolog\n0 /x read 0 4096\n5 /x write 8192 65536\n").unwrap();
    let mut r = AccessSpec::default();
    apply(&mut r, "replay", trace.to_str().unwrap()).unwrap();
    apply(&mut r, "replay_timing", "fast").unwrap();
    // Parsing named the trace and read nothing; the run's check reads it.
    assert_eq!((r.read_pct, r.bs[0].bytes), (100, 4096), "parsing does no I/O");
    crate::replay::resolve(&mut r).unwrap();
    std::fs::remove_file(&trace).unwrap();
    assert_eq!((r.read_pct, r.bs[0].bytes), (50, 65536), "the trace's mix and its longest I/O");
    let mut gone = r.clone();
    assert!(crate::replay::resolve(&mut gone).is_err(), "a trace that is not there is refused at the check");
    assert_eq!(r.replay.as_ref().map(|p| p.fast), Some(true));
    assert!(apply(&mut AccessSpec::default(), "replay_timing", "fast").is_err(), "timing without a trace");
    assert_eq!((s.read_pct, s.random_pct, s.qd, s.jobs, s.submit_batch), (70, 5, 32, 2, 4));
    assert_eq!((s.align_bytes, s.span_bytes, s.time_ns), (Some(512), Some(8 << 30), Some(180_000_000_000)));
    assert_eq!(s.sync, SyncMode::Fsync { every: 8 });
    let spr =
        crate::spec::sprandom::SpRandom { on: true, over_provisioning: 0.28, regions: 400, cache_bytes: 64 << 10 };
    assert_eq!(s.sprandom, spr);
    assert_eq!(s.distribution, Distribution::Zipf { theta: 1.2, center: Some(0.25) });
    assert_eq!(s.distribution.to_string(), "zipf:1.2:0.25");
    assert_eq!(s.think, Some(Think { ns: 250_000, spin_ns: 50_000, blocks: 8, by_issue: true }), "fio: µs");
    let mut z = AccessSpec::default();
    apply(&mut z, "random_distribution", "zoned_abs=60/20g:40/100g").unwrap();
    assert_eq!(z.distribution.to_string(), "zoned_abs:60/20g:40/100g");
    // fio's rand-zones example: a zone without its share of the region takes what is left.
    apply(&mut z, "distribution", "zoned:50/5:30/15:20/").unwrap();
    assert_eq!(z.distribution.to_string(), "zoned:50/5:30/15:20/80");
    apply(&mut z, "distribution", "zoned:50/:50/").unwrap();
    assert_eq!(z.distribution.to_string(), "zoned:50/50:50/50");
    for (bad, says) in [
        ("zipf:-1", "must be above 0"),
        ("pareto:1.5", "between 0 and 1"),
        ("normal", "needs its deviation"),
        ("zoned:60/10:30/20", "add up to 90%"),
        ("zoned:50/60:50/60", "more than 100%"),
        ("zoned:60/10,40/90", "per-direction"),
        ("zipf:1.2:3", "outside 0..1"),
        ("lognormal:3", "not a distribution"),
    ] {
        let e = from_pairs([("distribution", bad)]).unwrap_err().cli_message();
        assert!(e.starts_with("--distribution") && e.contains(says), "{bad}: {e}");
    }
    let uring = crate::backend::uring::UringOptions { hipri: true, sqpoll: true, sqpoll_cpu: Some(0) };
    assert_eq!(s.engine_opts.uring, uring);
    assert!(s.random_repeat);
    assert_eq!(s.buffer_pattern_hex.as_deref(), Some("deadface6162"));
    let zones = crate::spec::StridedZones { size_bytes: 16384, range_bytes: Some(65536), skip_bytes: 32768 };
    assert_eq!(s.zones, Some(zones));
    assert!(s.direct && s.continue_on_error);
    let r = s.rate.unwrap();
    assert_eq!((r.per_s, r.unit, r.scope, r.arrivals), (2000.0, RateUnit::Iops, RateScope::Job, Arrivals::Poisson));
    assert_eq!(r.max_lag_ns, Some(10_000_000_000));
    assert_eq!(r.pace, PaceMode::Hybrid);
    assert_eq!((s.verify, s.verify_after, s.verify_unit_bytes), (true, true, Some(512)));
    assert_eq!(s.verify_pattern.as_deref(), Some("%o\"ab\""));
    assert_eq!(s.bs_write, Some(vec![crate::spec::BlockSize { bytes: 65536, pct: 100 }]));
    let p = s.prio.as_ref().unwrap();
    assert_eq!((p.job, p.cmd[0][0].ioprio, p.cmd[1][0].bytes), (0x6003, 0x2001, 0));
    let i = s.ignore_errors.as_ref().unwrap();
    assert_eq!(
        (i.read_errnos.clone(), i.write_errnos.clone(), i.verify_errnos.clone()),
        (vec![5], vec![28, 5], vec![84])
    );
    assert_eq!(s.flow, Some(crate::spec::flow::Flow { id: 3, weight: 8, sleep_ns: 1_000_000 }));
    assert_eq!((s.start_delay_ns, s.number_ios), (250_000_000, Some(1000)));
    let lt = crate::spec::lat_target::LatTarget {
        target_ns: 500_000,
        window_ns: 2_000_000_000,
        percentile: 99.9,
        run: true,
    };
    assert_eq!(s.lat_target, Some(lt), "fio: a bare latency_target is µs");
}

#[test]
fn rates_are_iops_or_bytes_per_second() {
    assert_eq!(parse_rate("5000").unwrap(), (5000.0, RateUnit::Iops));
    assert_eq!(parse_rate("2.5k").unwrap(), (2500.0, RateUnit::Iops));
    assert_eq!(parse_rate("1m iops").unwrap(), (1e6, RateUnit::Iops));
    assert_eq!(parse_rate("1m/s").unwrap(), (1048576.0, RateUnit::Bytes));
    for bad in ["fast", "0", "-5", "5 per s"] {
        let e = parse_rate(bad).unwrap_err().to_string();
        assert!(e.contains(bad) && e.contains("200MiB/s"), "{e}");
    }
    // 4,096,000 bytes/s of 4 KiB I/Os shared by 2 jobs.
    let s = from_pairs([("rate", "4096000/s"), ("bs", "4k")]).unwrap();
    assert_eq!(s.job_iops(2), Some(500.0));
}

#[test]
fn every_settable_field_is_a_key_with_a_flag() {
    assert_eq!(KEYS.len(), Field::SETTABLE.len());
    for f in Field::SETTABLE {
        assert_eq!(Field::from_name(f.name()), Some(f));
        assert_eq!(f.flag(), format!("--{}", f.name().replace('_', "-")));
    }
    assert_eq!(Field::IoSize.flag(), "--io-size");
    assert_eq!(Field::render_refs("use {jobs} 8 {qd} 1", true), "use --jobs 8 --qd 1");
    assert_eq!(Field::render_refs("use {jobs} 8 {qd} 1", false), "use jobs 8 qd 1");
}

#[test]
fn unknown_keys_list_the_known_ones() {
    let e = apply(&mut AccessSpec::default(), "depth", "4").unwrap_err().to_string();
    assert!(e.contains("'depth'") && e.contains("qd"), "{e}");
}

#[test]
fn io_size_without_time_runs_until_the_bytes_are_done() {
    let s = from_pairs([("io_size", "1m")]).unwrap();
    assert_eq!((s.time_ns, s.io_size_bytes), (None, Some(1 << 20)));
    let s = from_pairs([("io_size", "1m"), ("time", "1s")]).unwrap();
    assert_eq!(s.time_ns, Some(1_000_000_000));
    assert_eq!(from_pairs([]).unwrap().time_ns, Some(10_000_000_000));
    let e = from_pairs([("qd", "0")]).unwrap_err();
    assert!(matches!(e, Error::Spec { field: Field::Qd, .. }), "{e:?}");
    assert!(e.to_string().starts_with("qd 0:") && e.cli_message().starts_with("--qd 0:"), "{e}");
}

#[test]
fn fio_spellings_give_the_spec_of_drivelabs_own() {
    let same = |fio: &[(&str, &str)], own: &[(&str, &str)]| {
        let (a, b) = (from_pairs(fio.iter().copied()).unwrap(), from_pairs(own.iter().copied()).unwrap());
        assert_eq!(a, b, "{fio:?} vs {own:?}");
    };
    same(&[("iodepth", "16"), ("numjobs", "2"), ("blocksize", "64k")], &[("qd", "16"), ("jobs", "2"), ("bs", "64k")]);
    same(&[("runtime", "60")], &[("time", "60s")]);
    same(&[("runtime", "1m")], &[("time", "60s")]);
    same(&[("runtime", "250ms"), ("io_size", "1g")], &[("time", "250ms"), ("io_size", "1g")]);
    same(&[("ioengine", "io_uring")], &[("engine", "uring")]);
    same(&[("ioengine", "libaio")], &[("engine", "libaio")]);
    same(&[("ioengine", "sync")], &[("engine", "psync")]);
    same(&[("readwrite", "randrw"), ("rwmixread", "70")], &[("rw", "randrw"), ("read", "70")]);
    same(&[("rw", "readwrite"), ("rwmixwrite", "30")], &[("rw", "rw"), ("read", "70")]);
    same(&[("rw", "rw"), ("rwmixread", "70"), ("rwmixwrite", "30")], &[("rw", "rw"), ("read", "70")]);
    same(&[("direct", "0")], &[("buffered", "true")]);
    // io_size alone still ends the run by bytes; runtime counts as time.
    assert_eq!(from_pairs([("io_size", "1m"), ("runtime", "2")]).unwrap().time_ns, Some(2_000_000_000));
}

#[test]
fn fio_spellings_refuse_what_fio_would_mean_otherwise() {
    let err = |pairs: &[(&str, &str)]| from_pairs(pairs.iter().copied()).unwrap_err();
    let e = err(&[("runtime", "1.5")]);
    assert!(matches!(e, Error::Spec { field: Field::As("runtime"), .. }), "{e:?}");
    // fio's spelling is read by fio's rules (fio would take the whole part): refused, not guessed.
    assert!(e.cli_message().starts_with("--runtime '1.5': fio reads only the whole part"), "{}", e.cli_message());
    // drivelab's own spelling takes the fraction, and both take fio's units (`d`).
    assert_eq!(from_pairs([("time", "1.5s")]).unwrap().time_ns, Some(1_500_000_000));
    assert_eq!(from_pairs([("runtime", "1d")]).unwrap().time_ns, from_pairs([("time", "1d")]).unwrap().time_ns);
    assert_eq!(from_pairs([("ioengine", "pvsync")]).unwrap().engine, crate::spec::EngineKind::Psync);
    let e = err(&[("iodepth", "0")]);
    assert!(e.cli_message().starts_with("--iodepth 0:"), "{}", e.cli_message());
    let e = err(&[("runtime", "abc")]);
    assert!(e.cli_message().starts_with("--runtime"), "{}", e.cli_message());
    assert_eq!(from_pairs([("ioengine", "posixaio")]).unwrap().engine, crate::spec::EngineKind::Posixaio);
    let e = err(&[("ioengine", "windowsaio")]).cli_message();
    assert!(e.contains("'windowsaio'") && e.contains("uring, libaio, posixaio, psync"), "{e}");
    assert!(err(&[("ioengine", "null")]).to_string().contains("give the target null"));
    // rwmixread with a workload that is not mixed: fio ignores it, drivelab's read would not.
    let e = err(&[("rw", "randread"), ("rwmixread", "70")]).cli_message();
    assert!(e.starts_with("--rwmixread 70: fio applies it only to a mixed workload and --rw is randread"), "{e}");
    let e = err(&[("rwmixwrite", "30")]).cli_message();
    assert!(e.contains("no --rw is given") && e.contains("--read PCT"), "{e}");
    let e = err(&[("rw", "randrw"), ("rwmixread", "70"), ("rwmixwrite", "40")]).cli_message();
    assert!(e.contains("--rwmixwrite 40") && e.contains("--rwmixread 70") && e.contains("add up to 100"), "{e}");
    let e = err(&[("rw", "randrw"), ("rwmixread", "170")]).cli_message();
    assert!(e.starts_with("--rwmixread") && e.contains("outside 0..100"), "{e}");
    // fio's forms drivelab has no equivalent for.
    assert!(err(&[("blocksize", "4k,64k")]).to_string().contains("fio's READ,WRITE block sizes"));
    // fio's WORD:N: a count of I/Os after a random word, a size after a sequential one.
    assert_eq!(from_pairs([("rw", "randread:8")]).unwrap().random_every_ios, 8);
    assert_eq!(from_pairs([("rw", "read:-8k")]).unwrap().seq_skip_bytes, -8192);
    assert!(err(&[("rw", "randread:8k")]).to_string().contains("a count of I/Os"));
    assert!(err(&[("rw", "write:x")]).to_string().contains("the bytes skipped after each I/O"));
    // fio does not round a sequential offset: 4k blocks skipping 6k start every 10k (on a 2k
    // grid); an alignment given keeps its grid.
    assert_eq!(from_pairs([("rw", "write:6k"), ("bs", "4k")]).unwrap().seq_grid(), 2048);
    let e = err(&[("rw", "write:6k"), ("bs", "4k"), ("align", "4k")]).to_string();
    assert!(e.contains("a multiple of the alignment (4096 bytes)"), "{e}");
    assert_eq!(from_pairs([("rw", "randtrim")]).unwrap().trim, crate::spec::Trim::Only, "fio's trim words run");
    // Alone (a plan's [defaults]), rwmixread waits for the rw of its point.
    assert!(partial_from_pairs([("rwmixread", "70")]).is_ok());
}

#[test]
fn fio_keys_are_keys_with_flags_and_notices() {
    for o in OPTIONS.iter().filter(|o| o.in_own()) {
        for &name in o.fio.iter().filter(|n| !KEYS.contains(n)) {
            assert!(is_key(name), "{name}");
            assert_eq!(Field::As(name).flag(), format!("--{name}"));
            // A row with its own setter stands for itself.
            let want = o.field().or(o.own.filter(|own| *own == name).map(Field::As)).unwrap_or(Field::As(name));
            assert_eq!(Field::from_key(name).map(Field::canonical), Some(want), "{name}");
        }
    }
    assert_eq!(Field::render_refs("{iodepth} or {qd}", true), "--iodepth or --qd");
    assert_eq!(notices([("ioengine", "psync"), ("iodepth", "4"), ("ioengine", "sync")]).len(), 1, "once");
    assert!(notices([("ioengine", "io_uring"), ("iodepth", "4")]).is_empty());
    assert!(notices([("engine", "psync"), ("qd", "4")]).is_empty(), "drivelab's own spelling is refused instead");
    let e = apply(&mut AccessSpec::default(), "depth", "4").unwrap_err().to_string();
    assert!(e.contains("fio's") && e.contains("iodepth"), "{e}");
}

#[test]
fn fio_filename_lists_targets_with_colons() {
    assert_eq!(split_filename("a:b").unwrap(), ["a", "b"]);
    assert_eq!(split_filename("/dev/sdb").unwrap(), ["/dev/sdb"]);
    assert_eq!(split_filename(r"x\:y:z").unwrap(), ["x:y", "z"]);
    for bad in ["a::b", ":a", "a:", ""] {
        assert!(split_filename(bad).unwrap_err().to_string().contains("empty target"), "{bad}");
    }
    assert_eq!(parse_new_file_size("1g").unwrap(), 1 << 30);
    let e = parse_new_file_size("1000").unwrap_err();
    assert!(e.cli_message().starts_with("--size 1000: a new file's size must be"), "{}", e.cli_message());
}

/// docs/guide/fio-options.md is the table printed: its rows are `guide_table()`'s, so the guide
/// and what drivelab does cannot drift. `DRIVELAB_BLESS=1` writes the table into the guide.
#[test]
fn the_fio_options_guide_is_the_table_printed() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/fio-options.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("| option (aliases) |").expect("the guide's table");
    let end = text[start..].find("\n\n").map_or(text.len(), |e| start + e + 1);
    let want = guide_table();
    if std::env::var_os("DRIVELAB_BLESS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &text[..start], &text[end..])).unwrap();
        return;
    }
    assert!(
        text[start..end] == want,
        "docs/guide/fio-options.md's table is not the option table's: rerun with DRIVELAB_BLESS=1 \
         (cargo test -p drivelab-engine the_fio_options_guide) and read the diff"
    );
    // Every row says what drivelab does.
    for o in OPTIONS.iter().filter(|o| !o.fio.is_empty()) {
        let words = match o.effect {
            Effect::Spec(_) | Effect::Set(_) | Effect::Job => o.fio_note,
            Effect::Checked(w) | Effect::NoEffect(w) | Effect::Refused(w) => w,
        };
        assert!(!words.is_empty(), "{}: the guide would say nothing of it", o.name());
    }
}

#[test]
fn sync_modes_read_fsync_and_fdatasync_every_n_writes() {
    use crate::spec::SyncMode;
    assert_eq!(super::set::parse_sync("fsync:4").unwrap(), SyncMode::Fsync { every: 4 });
    assert_eq!(super::set::parse_sync("fdatasync:1").unwrap(), SyncMode::Fdatasync { every: 1 });
    assert_eq!(super::set::parse_sync("fdatasync").unwrap(), SyncMode::Fdatasync { every: 1 });
    assert_eq!(SyncMode::Fdatasync { every: 3 }.every(), 3);
    let e = super::set::parse_sync("fdatasync:x").unwrap_err().to_string();
    assert!(e.contains("fdatasync:N"), "{e}");
}

/// Keys a sample needs beside it to make a spec it shapes (a rate's parts need a rate, ...).
fn companions(key: &str) -> &'static [(&'static str, &'static str)] {
    match key {
        "rate_scope" | "arrivals" | "max_lag" | "pace" => &[("rate", "2k")],
        "thinktime_spin" | "thinktime_blocks" | "thinktime_blocks_type" => &[("thinktime", "1ms")],
        "latency_window" | "latency_percentile" | "latency_run" => &[("latency_target", "10ms")],
        "replay_timing" => &[("replay", "TRACE")],
        "zone_range" | "zone_skip" => &[("zone_size", "16k")],
        "stat_type" => &[("engine", "filestat")],
        "sprandom" => &[("rw", "randwrite")],
        "write_mode" | "deac" | "readfua" | "writefua" => &[("engine", "uring_cmd")],
        "num_range" => &[("engine", "uring_cmd"), ("rw", "randtrim")],
        _ => &[],
    }
}

/// Specs of several keys that shape each other: mixes, rates, fio's suffixes, the parts of zbd,
/// dedupe, priorities, latency targets, think times, flows, zones, verify, io_uring, syncs.
const COMBINED: &[&[(&str, &str)]] = &[
    &[("rw", "randrw"), ("read", "70"), ("bs", "4k:70,64k:30")],
    &[("rw", "rw"), ("read", "70"), ("random", "5")],
    &[("read", "0")],
    &[("random", "80")],
    &[("rw", "randread:8"), ("rw_sequencer", "identical")],
    &[("rw", "randrw:4"), ("read", "30"), ("random", "50")],
    &[("rw", "randread:1")],
    &[("rw", "write:64k")],
    &[("rw", "read:-8k"), ("random", "20")],
    &[("rw", "randtrim")],
    &[("engine", "uring_cmd"), ("rw", "randtrim"), ("num_range", "256"), ("bs", "1m")],
    &[("rw", "randwrite"), ("sprandom", "1"), ("spr_op", "0.07"), ("spr_num_regions", "50"), ("spr_cs", "1m")],
    &[("rw", "trimwrite"), ("bs", "64k")],
    &[("rw", "randtrimwrite:16")],
    &[("rate", "200m/s"), ("arrivals", "poisson"), ("rate_scope", "job"), ("max_lag", "1.5s"), ("pace", "spin")],
    &[("rate", "2.5k"), ("arrivals", "poisson")],
    &[("rate", "0.5")],
    &[("rate", "1536/s"), ("rw", "write")],
    &[("zbd", "256m,capacity=192m,max_open=4,job_max_open=2,read_beyond_wp,reset_threshold=0.5,reset_frequency=0.25,skip=512m"), ("rw", "write")],
    &[("zbd", "1m,reset_threshold=0.5")],
    &[("dedupe", "30"), ("rw", "randwrite")],
    &[("dedupe", "40:working_set:10:repeat")],
    &[("prio", "rt/2"), ("cmdprio", "64k/25/1/1:64k/75/3/2,1m/100/2/0"), ("bs", "64k:50,1m:50")],
    &[("cmdprio", "*/20/idle/0")],
    &[("cmdprio", ",8k/5/be/1")],
    &[("cmdprio", "")],
    &[("latency_target", "10ms"), ("latency_window", "500ms"), ("latency_percentile", "99.99"), ("latency_run", "true"), ("qd", "64")],
    &[("thinktime", "1500us"), ("thinktime_spin", "250"), ("thinktime_blocks", "4"), ("thinktime_blocks_type", "issue")],
    &[("flow", "100"), ("flow_id", "2"), ("flow_sleep", "20us")],
    &[("flow_id", "5")],
    &[("flow", "0")],
    &[("zone_size", "64m"), ("zone_range", "256m"), ("zone_skip", "1g"), ("rw", "read")],
    &[("rw", "randrw"), ("bs", "4k"), ("write_bs", "16k:50,64k:50")],
    &[("verify_unit", "512"), ("verify_pattern", "0xdeadbeef%o"), ("rw", "write")],
    &[("verify", "true"), ("verify_pattern", "\"ab\""), ("rw", "randrw")],
    &[("verify", "true"), ("verify_after", "true"), ("verify_pattern", "0x55"), ("rw", "randrw")],
    &[("verify_pattern", "0x55")],
    &[("verify_after", "true"), ("rw", "write")],
    &[("verify", "true"), ("rw", "randrw"), ("verify_unit", "1k")],
    &[("ioengine", "io_uring"), ("hipri", "1"), ("sqthread_poll_cpu", "0")],
    &[("engine", "uring_cmd"), ("hipri", "true"), ("sqpoll", "true")],
    &[("engine", "libaio"), ("qd", "32"), ("batch", "8")],
    &[("sync", "fdatasync:4"), ("rw", "write")],
    &[("sync", "fsync"), ("rw", "randwrite")],
    &[("sync", "dsync"), ("rw", "write"), ("end_fsync", "true")],
    &[("data", "zero"), ("cpus", "spread"), ("buffered", "true")],
    &[("io_size", "1g")],
    &[("io_size", "1g"), ("time", "10s")],
    &[("replay", "TRACE"), ("time", "10s")],
    &[("time", "1.5s"), ("ramp", "250ms"), ("start_delay", "1234567ns"), ("max_lag", "3us"), ("rate", "5000")],
    &[("distribution", "hotband:512b/1m")],
    &[("distribution", "hotband:90/110")],
    &[("distribution", "zoned_abs:60/20g:40/100g")],
    &[("distribution", "zoned:50/5:30/15:20/")],
    &[("distribution", "pareto:0.3"), ("random", "60")],
    &[("distribution", "normal:12.5:0.5")],
    &[("ignore_error", ",ENOSPC")],
    &[("offset", "1536"), ("align", "512"), ("bs", "512"), ("span", "1000000")],
];

/// `pairs` read as a plan reads them, described, and read again: the same spec. Returns the
/// description.
fn round_trip(pairs: &[(&str, &str)]) -> Vec<(&'static str, String)> {
    let spec = partial_from_pairs(pairs.iter().copied()).unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
    let text = describe(&spec);
    let again = partial_from_pairs(text.iter().map(|(k, v)| (*k, v.as_str())))
        .unwrap_or_else(|e| panic!("{pairs:?} described as {text:?}: {e}"));
    assert_eq!(again, spec, "{pairs:?} described as {text:?}");
    text
}

#[test]
fn the_default_spec_describes_as_nothing() {
    assert!(describe(&AccessSpec::default()).is_empty());
}

/// Every key's sample (with what it needs beside it) and the combined specs read back the same
/// from their description, which uses drivelab's own keys only, each once, in `SETTABLE`'s order
/// — and every field but `buffered` (written as `direct`) is written by some of them, so a field
/// `describe` forgets fails here.
#[test]
fn descriptions_read_back_as_the_same_spec() {
    let mut written: std::collections::HashSet<&str> = Default::default();
    let check = |pairs: &[(&str, &str)]| -> Vec<&'static str> {
        let text = round_trip(pairs);
        let order: Vec<usize> = text
            .iter()
            .map(|(k, _)| {
                let f = Field::from_key(k).unwrap_or_else(|| panic!("{pairs:?}: '{k}' is not a key"));
                assert!(by_own(k).is_some(), "{pairs:?}: '{k}' is not drivelab's own spelling");
                Field::SETTABLE.iter().position(|s| *s == f).unwrap_or(Field::SETTABLE.len())
            })
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{pairs:?}: {text:?} is not in SETTABLE's order, each once");
        text.iter().map(|(k, _)| *k).collect()
    };
    for (key, value) in SAMPLES {
        if key == "latency_split" {
            if let Some(why) = crate::split::unavailable() {
                // Refused by validate here (no BPF): the setter and describe still meet.
                let mut s = AccessSpec::default();
                apply(&mut s, key, value).unwrap();
                assert_eq!(describe(&s), [("latency_split", "true".to_string())], "{why}");
                written.insert(key);
                continue;
            }
        }
        let mut pairs = companions(key).to_vec();
        pairs.push((key, value));
        written.extend(check(&pairs));
    }
    for pairs in COMBINED {
        written.extend(check(pairs));
    }
    for f in Field::SETTABLE.into_iter().filter(|f| *f != Field::Buffered) {
        assert!(written.contains(f.name()), "describe never wrote {f}: give it an arm and a sample");
    }
}

#[test]
fn descriptions_read_as_people_write_them() {
    let text = |pairs: &[(&str, &str)]| -> Vec<String> {
        round_trip(pairs).into_iter().map(|(k, v)| format!("{k}={v}")).collect()
    };
    assert_eq!(text(&[("rw", "randrw"), ("rwmixread", "70")]), ["rw=randrw", "read=70"]);
    assert_eq!(text(&[("readwrite", "randread"), ("iodepth", "8"), ("blocksize", "65536")]), ["bs=64k", "qd=8"]);
    assert_eq!(text(&[("rw", "randread:8")]), ["rw=randread:8"]);
    assert_eq!(text(&[("rw", "read:-8k")]), ["rw=read:-8k"]);
    assert_eq!(text(&[("random", "80")]), ["random=80"], "randread's read share goes without saying");
    assert_eq!(text(&[("runtime", "60"), ("ramp_time", "1500ms")]), ["time=60s", "ramp=1.5s"]);
    assert_eq!(text(&[("buffered", "true")]), ["direct=false"]);
    assert_eq!(text(&[("sqpoll_cpu", "0")]), ["sqpoll_cpu=0"], "it turns sqpoll on");
    assert_eq!(text(&[("verify_unit", "1k")]), ["verify_unit=1k"], "it turns verify on");
    assert_eq!(text(&[("rate", "200m/s"), ("arrivals", "poisson")]), ["rate=200m/s", "arrivals=poisson"]);
    assert_eq!(text(&[("thinktime", "250")]), ["thinktime=250us"], "fio's bare µs");
    assert_eq!(text(&[("buffer_pattern", "\"ab\"")]), ["buffer_pattern=0x6162"]);
    assert_eq!(text(&[("ioengine", "sync"), ("end_fsync", "1")]), ["engine=psync", "end_fsync=true"]);
}

#[test]
fn num_range_is_io_uring_cmd_trims_of_up_to_256_ranges_under_4_gib() {
    let spec = |pairs: &[(&str, &str)]| super::set::from_pairs(pairs.iter().copied());
    let s = spec(&[("engine", "uring_cmd"), ("rw", "randtrim"), ("num_range", "16")]).unwrap();
    assert_eq!((s.engine_opts.cmd.num_range, s.trim_ranges()), (16, 16));
    assert!(s.label().starts_with("randtrim (16 ranges) 4k"), "{}", s.label());
    // Without trims it shapes nothing, as in fio (which reads it and sends no trim).
    let r = spec(&[("engine", "uring_cmd"), ("rw", "randread"), ("num_range", "16")]).unwrap();
    assert_eq!(r.trim_ranges(), 1);
    for (pairs, says) in [
        (&[("engine", "uring"), ("rw", "randtrim"), ("num_range", "2")][..], "io_uring_cmd's"),
        (&[("engine", "uring_cmd"), ("rw", "trimwrite"), ("num_range", "2")][..], "trimwrite writes each"),
        (&[("engine", "uring_cmd"), ("rw", "randtrim"), ("num_range", "256"), ("bs", "16m")][..], "4 GiB or more"),
        (&[("engine", "uring_cmd"), ("rw", "randtrim"), ("num_range", "0")][..], "1..256"),
        (&[("engine", "uring_cmd"), ("rw", "randtrim"), ("num_range", "257")][..], "1..256"),
        (&[("engine", "uring_cmd"), ("rw", "randtrim"), ("num_range", "x")][..], "1..256"),
    ] {
        let e = spec(pairs).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("num_range") && e.contains(says), "{pairs:?}: {e}");
    }
}
