//! Ranks as threads ([`super::local`]) running real I/O on small files: what crosses ranks, the
//! exact merge, refusals that stop every rank before a byte is written, and each rank's share of
//! a total rate and of a split region. The same code runs under MPI (crates/cli/tests/it/mpi.rs).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use drivelab_engine::hist::{Histogram, Pct};
use drivelab_engine::options as fields;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;

use super::merge::merge_ranks;
use super::{local, RankPart, Ranks, Share};
use crate::execute::{Event, Lab, Measured, Setup};
use crate::safety::Permission;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("drivelab-ranks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `f` on each of `n` ranks (threads), each with its own lab; their returns in rank order.
fn on_ranks<T: Send>(n: usize, share: Share, f: impl Fn(&mut Lab) -> T + Sync) -> Vec<T> {
    let world = local::world(n);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = world
            .into_iter()
            .map(|t| {
                s.spawn(move || {
                    let ranks = std::rc::Rc::new(Ranks::new(Box::new(t), share));
                    let mut sink = |_: Event| {};
                    let setup = Setup {
                        new_file_size: 4 << 20,
                        size_asked: false,
                        perm: Permission { shared: share.shared(), ..Permission::default() },
                        power_cmd: None,
                        stop: Arc::new(AtomicBool::new(false)),
                        journal: None,
                        ranks: Some(ranks),
                        status_every_ns: 0,
                        names: Default::default(),
                    };
                    let mut lab = Lab::new(setup, &mut sink);
                    f(&mut lab)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a rank panicked")).collect()
    })
}

fn spec(pairs: &[(&str, &str)]) -> AccessSpec {
    fields::from_pairs(pairs.iter().copied()).unwrap()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn every_rank_gets_the_same_merge_and_its_percentiles_are_those_of_every_io() {
    let dir = scratch("merge");
    let target = path(&dir, "t{rank}.dat");
    let spec = spec(&[("rw", "randread"), ("qd", "4"), ("time", "300ms")]);
    let runs: Vec<Measured> = on_ranks(3, Share::Own, |lab| lab.measure(&spec, std::slice::from_ref(&target)).unwrap());
    // Every rank decided on the same bytes: the same merged result everywhere.
    for m in &runs[1..] {
        assert_eq!(m.result.total.ops, runs[0].result.total.ops);
        assert_eq!(m.result.total.lat_ns.histogram.buckets, runs[0].result.total.lat_ns.histogram.buckets);
    }
    let m = &runs[0];
    let parts: &[RankPart] = &m.ranks;
    assert_eq!(parts.iter().map(|p| p.rank).collect::<Vec<_>>(), [0, 1, 2]);
    // I/Os and bytes summed over the ranks.
    let ops: u64 = parts.iter().map(|p| p.results[0].total.ops).sum();
    assert!(ops > 0);
    assert_eq!(m.result.total.ops, ops);
    assert_eq!(m.result.total.bytes, parts.iter().map(|p| p.results[0].total.bytes).sum::<u64>());
    // One histogram fed every rank's I/Os (each bucket's value, as many times as it was seen)
    // has the merged histogram's percentiles.
    let mut all = Histogram::new();
    for p in parts {
        for &[low, count] in &p.results[0].total.lat_ns.histogram.buckets {
            all.record_n(low, count);
        }
    }
    let lo = parts.iter().map(|p| p.results[0].total.lat_ns.min).min().unwrap();
    let hi = parts.iter().map(|p| p.results[0].total.lat_ns.max).max().unwrap();
    all.set_extremes(lo, hi);
    for pct in [Pct::P50, Pct::P99, Pct::P99_9] {
        assert_eq!(m.result.total.lat_ns.p(pct), all.summary().p(pct), "{pct:?}");
    }
    assert_eq!((m.result.total.lat_ns.min, m.result.total.lat_ns.max), (lo, hi));
    // Each rank's targets are its own, named by rank and host.
    let host = crate::sysinfo::hostname();
    let names: Vec<&str> = m.result.per_target.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(names, (0..3).map(|r| format!("r{r}@{host}:{}", path(&dir, &format!("t{r}.dat")))).collect::<Vec<_>>());
    assert!(m.result.notices[0].starts_with("3 ranks ran this together"), "{:?}", m.result.notices);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merged_rates_are_over_the_longest_window_and_a_rank_that_ran_long_is_named() {
    let dir = scratch("windows");
    let target = path(&dir, "t{rank}.dat");
    let spec = spec(&[("rw", "randread"), ("qd", "2"), ("time", "200ms")]);
    let runs: Vec<Measured> = on_ranks(2, Share::Own, |lab| lab.measure(&spec, std::slice::from_ref(&target)).unwrap());
    let mut parts: Vec<RankPart> = runs[0].ranks.clone();
    // Rank 1 descheduled at its end: its window a fifth longer than rank 0's.
    let long = parts[0].results[0].runtime_ns * 6 / 5;
    parts[1].results[0].runtime_ns = long;
    parts[1].results[0].measurement.as_mut().expect("a rank's measurement").window_ns = long;
    let merged = &merge_ranks(&parts, std::slice::from_ref(&spec))[0];
    let ops: u64 = parts.iter().map(|p| p.results[0].total.ops).sum();
    assert_eq!(merged.runtime_ns, long);
    assert!((merged.total.iops - ops as f64 / (long as f64 / 1e9)).abs() < 1e-6 * merged.total.iops);
    let said = merged.notices.iter().find(|n| n.contains("rank 1 (") && n.contains("over the longest window"));
    assert!(said.is_some(), "the long rank is named: {:?}", merged.notices);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_refusal_on_rank_2_stops_every_rank_before_anything_is_written() {
    let dir = scratch("refusal");
    // Ranks 0 and 1 would create their files; rank 2's exists and is not drivelab's.
    std::fs::write(dir.join("t2.dat"), vec![7u8; 1 << 20]).unwrap();
    let target = path(&dir, "t{rank}.dat");
    let results = dir.join("results");
    let plan = crate::plan::Plan::single(spec(&[("rw", "randwrite"), ("time", "200ms")]), vec![target]);
    let ends: Vec<Result<_, Error>> = on_ranks(3, Share::Own, |lab| {
        crate::runner::start(lab, &results, crate::results::Kind::Run, vec![], &plan, &Default::default())
            .map(|(_, o)| o.finished)
    });
    for e in &ends {
        let e = e.as_ref().expect_err("every rank refuses");
        assert!(e.is_invalid());
        let msg = e.cli_message();
        assert!(msg.starts_with(&format!("rank 2 ({})", crate::sysinfo::hostname())), "{msg}");
        assert!(msg.contains("t2.dat exists and drivelab did not create it"), "{msg}");
    }
    assert!(!dir.join("t0.dat").exists() && !dir.join("t1.dat").exists(), "a rank created its file");
    assert_eq!(std::fs::read(dir.join("t2.dat")).unwrap(), vec![7u8; 1 << 20]);
    assert!(!results.exists(), "a results directory was made");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_ranks_of_one_host_may_not_both_own_one_target() {
    let dir = scratch("same");
    let target = path(&dir, "one.dat");
    let spec = spec(&[("rw", "randwrite"), ("time", "100ms")]);
    let ends: Vec<Result<(), Error>> = on_ranks(2, Share::Own, |lab| {
        let checked = lab.check(&spec, std::slice::from_ref(&target)).map(|_| ());
        lab.agree(checked)
    });
    for e in ends {
        let msg = e.unwrap_err().cli_message();
        assert!(msg.contains("rank 0") && msg.contains("rank 1") && msg.contains("--share split"), "{msg}");
    }
    assert!(!Path::new(&target).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_total_rate_is_divided_among_ranks_and_a_job_rate_is_not() {
    let total = spec(&[("rw", "randread"), ("rate", "3000"), ("time", "1s")]);
    let per_job = spec(&[("rw", "randread"), ("rate", "3000"), ("rate_scope", "job"), ("time", "1s")]);
    let got: Vec<(f64, f64)> = on_ranks(3, Share::Own, |lab| {
        let r = lab.ranks().unwrap();
        let a = r.rank_spec(&total, 1 << 20).unwrap().rate.unwrap().per_s;
        let b = r.rank_spec(&per_job, 1 << 20).unwrap().rate.unwrap().per_s;
        (a, b)
    });
    assert_eq!(got, vec![(1000.0, 3000.0); 3]);
}

#[test]
fn a_split_region_gives_each_rank_its_own_whole_blocks() {
    let s = spec(&[("rw", "randwrite"), ("bs", "64k"), ("offset", "1m"), ("time", "1s")]);
    let got: Vec<(u64, u64)> = on_ranks(3, Share::Split, |lab| {
        let r = lab.ranks().unwrap().rank_spec(&s, 11 << 20).unwrap();
        (r.offset_bytes, r.span_bytes.unwrap())
    });
    // 10 MiB after the offset, in thirds rounded down to 64 KiB blocks.
    let seg = (10 << 20) / 3 / 65536 * 65536;
    assert_eq!(got, (0..3).map(|k| ((1 << 20) + k * seg, seg)).collect::<Vec<_>>());
}

#[test]
fn ranks_sharing_one_new_file_each_write_their_own_segment() {
    let dir = scratch("split");
    let target = path(&dir, "shared.dat");
    let spec = spec(&[("rw", "randwrite"), ("bs", "4k"), ("time", "200ms")]);
    let runs: Vec<Measured> =
        on_ranks(3, Share::Split, |lab| lab.measure(&spec, std::slice::from_ref(&target)).unwrap());
    let parts = &runs[0].ranks;
    let regions: Vec<(u64, Option<u64>)> =
        parts.iter().map(|p| (p.results[0].spec.offset_bytes, p.results[0].spec.span_bytes)).collect();
    let seg = (4 << 20) / 3 / 4096 * 4096;
    assert_eq!(regions, (0..3).map(|k| (k * seg, Some(seg))).collect::<Vec<_>>());
    assert!(parts.iter().all(|p| p.results[0].total.ops > 0 && p.results[0].errors.is_empty()));
    // The merged result carries the region as asked: the whole file.
    assert_eq!((runs[0].result.spec.offset_bytes, runs[0].result.spec.span_bytes), (0, None));
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 4 << 20);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stop_said_on_one_rank_is_heard_by_the_others_and_gone_by_the_next_measurement() {
    let world = local::world(3);
    let heard: Vec<[Option<usize>; 2]> = std::thread::scope(|s| {
        let handles: Vec<_> = world
            .into_iter()
            .map(|t| {
                s.spawn(move || {
                    let ranks = Ranks::new(Box::new(t), Share::Own);
                    let first = ranks.while_measuring(|line| {
                        if ranks.rank() == 1 {
                            line.say();
                            line.say();
                            return line.heard();
                        }
                        let waited = std::time::Instant::now();
                        while line.heard().is_none() && waited.elapsed().as_secs() < 10 {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                        line.heard()
                    });
                    let second = ranks.while_measuring(|line| line.heard());
                    [first, second]
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a rank panicked")).collect()
    });
    assert_eq!(heard, [[Some(1), None], [None, None], [Some(1), None]]);
}

#[test]
fn a_run_stopped_by_another_ranks_error_is_not_interrupted_and_says_who() {
    use super::halt::Halt;
    use drivelab_engine::run::Progress;
    struct Heard(Option<usize>, std::cell::Cell<bool>);
    impl super::StopLine for Heard {
        fn say(&self) {
            self.1.set(true);
        }
        fn heard(&self) -> Option<usize> {
            self.0
        }
    }
    let tick = |stopped_by_error| Progress {
        cpu_wait_pct: None,
        elapsed_ns: 0,
        remaining_ns: None,
        iops: 0.0,
        bw_bytes_per_s: 0.0,
        p99_ns: 0,
        ramping: false,
        stopped_by_error,
        ops: 0,
        bytes: 0,
        clat_sum_ns: 0,
        streams_done: 0,
        stream_jobs: Vec::new(),
        status: None,
    };
    let dir = scratch("halt");
    let target = path(&dir, "t.dat");
    let user = Arc::new(AtomicBool::new(false));
    let runs = on_ranks(1, Share::Own, |lab| {
        lab.measure(&spec(&[("rw", "randread"), ("time", "50ms")]), std::slice::from_ref(&target)).unwrap()
    });
    let mut interrupted = runs[0].result.clone();
    interrupted.interrupted = true;

    // Rank 2's stop heard: the engine's flag set, the result not interrupted, rank 2 named.
    let line = Heard(Some(2), Default::default());
    let mut halt = Halt::new(&line, user.clone());
    halt.tick(&tick(false));
    assert!(halt.flag().load(std::sync::atomic::Ordering::SeqCst), "the engine is told to stop");
    let mut ran = Ok(vec![interrupted.clone()]);
    halt.finish(&mut ran, |r| format!("rank {r} (n3)"));
    let r = &ran.unwrap()[0];
    assert!(!r.interrupted);
    assert!(r.notices.iter().any(|n| n == "stopped early with every rank: rank 2 (n3) stopped on an I/O error"));
    assert!(!line.1.get(), "nothing failed here: nothing said");

    // Ctrl-C as well: interrupted it stays.
    user.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut ran = Ok(vec![interrupted.clone()]);
    Halt::new(&line, user.clone()).finish(&mut ran, |r| r.to_string());
    assert!(ran.unwrap()[0].interrupted);

    // This rank's own error is said, during the run or after it.
    let quiet = Heard(None, Default::default());
    Halt::new(&quiet, Arc::new(AtomicBool::new(false))).tick(&tick(true));
    assert!(quiet.1.get());
    let quiet = Heard(None, Default::default());
    let mut failed = runs[0].result.clone();
    failed.stopped_by_error = true;
    Halt::new(&quiet, Arc::new(AtomicBool::new(false))).finish(&mut Ok(vec![failed]), |r| r.to_string());
    assert!(quiet.1.get());
    let _ = std::fs::remove_dir_all(&dir);
}
