//! ACT's issue model as drivelab streams: who issues which I/O when.
//!
//! ACT 6 (`act_storage.c`) issues every I/O synchronously from threads that pace themselves:
//!
//! - **Service threads** (`service-threads`, default 5 per online CPU) each do one small read at a
//!   time (`pread` of the record rounded up to the device's minimum direct-I/O size) at
//!   `(internal reads + internal writes) / service-threads` per second, an *integer* division.
//!   A thread's k-th request is due `k / rate` after the run's start: every thread counts from the
//!   same instant, so the threads issue together. A thread that is late issues at once and is
//!   never charged for being late (it times each I/O from just before its `pread`).
//! - **One large-block read thread and one large-block write thread per device**, each at the
//!   derived large-block rate divided by the number of devices, paced the same way.
//!
//! drivelab builds exactly that from its engine. With `--engine psync` (the default: ACT times a
//! read in the thread that issued it, its wake-up included, and so does psync) they are threads,
//! one job each with one `pread` at a time, exactly as ACT's. With io_uring, a target's service
//! threads are the slots of one job's queue, each slot keeping its own schedule at the thread's
//! rate and issuing only once its previous I/O is done ([`Rate::per_slot`]), all schedules
//! aligned at the shared start ([`Rate::aligned`]): the same I/Os at the same times, issued by
//! one thread per stream that wakes once for the ten reads ACT's ten threads issue together, so
//! drivelab's own lateness stays in microseconds on a small machine, but the reaping thread's
//! time of a read leaves out the wake-up ACT's threads include (docs/ACT.md). Each I/O is measured
//! both ways: from just before its submit call (the service time ACT judges: fio's `lat`) and
//! from its intended time (the response time, which also charges a thread's lateness).
//!
//! Where the two still differ, and why (also in docs/ACT.md):
//! - ACT's service threads pick a device at random for each request; drivelab gives each target
//!   its share of the threads (`threads / targets`, the first targets one more when it does not
//!   divide, at least one each). The totals are ACT's; per device they agree on average.
//! - With commit-to-device, ACT's threads mix reads and record writes at random; drivelab gives
//!   reads and writes their share of the threads in proportion to their rates, at the same
//!   per-thread rate.

use drivelab_engine::spec::{AccessSpec, BlockSize, DataPattern, EngineKind, Rate, RateScope, SyncMode};
use drivelab_engine::Error;

use super::{act_thresholds_ns, ActOptions, Role};
use crate::act::ActRates;

/// ACT's default number of service threads: 5 per online CPU (`/sys/devices/system/cpu/online`,
/// as ACT counts them), or 5 per CPU this process may use when that list cannot be read.
pub fn default_service_threads() -> u32 {
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").ok().and_then(|s| count_cpu_list(&s));
    let cpus = online.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1));
    5 * cpus.max(1)
}

/// The number of CPUs in a kernel CPU list such as `0-3,8,10-11`.
fn count_cpu_list(list: &str) -> Option<u32> {
    let mut n = 0;
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => b.trim().parse::<u32>().ok()?.checked_sub(a.trim().parse::<u32>().ok()?)? + 1,
            None => {
                part.trim().parse::<u32>().ok()?;
                1
            }
        };
    }
    Some(n)
}

/// How the service threads share the load: each thread's rate (ACT's integer
/// `total / threads`), and how many threads read and how many write records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceThreads {
    pub per_thread_per_s: u64,
    pub readers: u32,
    pub writers: u32,
}

/// Why ACT's service threads cannot share the load: the words defined once, each kind with
/// its numbers, so a caller can match (or downcast from [`Error::Refused`]) the kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum ThreadsError {
    #[error("--service-threads 0: give at least 1 (ACT's default is 5 per CPU)")]
    Zero,
    #[error(
        "{total} requests/s over {threads} service threads is under 1 per thread (ACT: \"load config too \
             small\"): give fewer --service-threads or a higher N"
    )]
    LoadTooSmall { total: u64, threads: u32 },
    #[error("--service-threads 1 with commit-to-device: reads and record writes need a thread each, give 2 or more")]
    OneWithWrites,
    /// `drivelab act` with no service or no large-block threads.
    #[error("--service-threads and --large-block-threads must be at least 1")]
    NoThreads,
}

impl From<ThreadsError> for Error {
    fn from(e: ThreadsError) -> Error {
        Error::refused(e)
    }
}

/// The service threads' shares for `rates` over all targets, refused as ACT refuses a load too
/// small to give every thread a request per second.
pub fn service_threads(rates: &ActRates, threads: u32) -> Result<ServiceThreads, Error> {
    let (reads, writes) = (rates.internal_read_reqs_total, rates.internal_write_reqs_total);
    let total = reads + writes;
    if threads == 0 {
        return Err(ThreadsError::Zero.into());
    }
    let per_thread_per_s = total / threads as u64;
    if per_thread_per_s == 0 {
        return Err(ThreadsError::LoadTooSmall { total, threads }.into());
    }
    if writes == 0 {
        return Ok(ServiceThreads { per_thread_per_s, readers: threads, writers: 0 });
    }
    if threads < 2 {
        return Err(ThreadsError::OneWithWrites.into());
    }
    let readers = ((threads as u64 * reads + total / 2) / total).clamp(1, threads as u64 - 1) as u32;
    Ok(ServiceThreads { per_thread_per_s, readers, writers: threads - readers })
}

/// Target `t`'s share of `threads` spread over `targets`: the first `threads % targets` targets
/// get one more; every target at least one.
pub fn share(threads: u32, targets: usize, t: usize) -> u32 {
    let targets = targets.max(1) as u32;
    let extra = (t as u32) < threads % targets;
    (threads / targets + extra as u32).max(1)
}

/// One stream: `threads` of one I/O at a time, each at `per_thread_per_s`.
struct StreamShape {
    bytes: u64,
    align: u64,
    write: bool,
    threads: u32,
    per_thread_per_s: f64,
    seed: u64,
}

fn stream_spec(opts: &ActOptions, s: StreamShape) -> AccessSpec {
    // psync: a job per thread; io_uring: a slot per thread, each on its own schedule.
    let (jobs, qd) = if opts.engine == EngineKind::Psync { (s.threads, 1) } else { (1, s.threads) };
    AccessSpec {
        read_pct: if s.write { 0 } else { 100 },
        random_pct: 100,
        bs: vec![BlockSize { bytes: s.bytes, pct: 100 }],
        align_bytes: Some(s.align),
        qd,
        jobs,
        time_ns: Some(opts.time_ns),
        direct: true,
        sync: if opts.dsync { SyncMode::Dsync } else { SyncMode::None },
        data: DataPattern::Random,
        seed: s.seed,
        engine: opts.engine,
        latency_split: opts.latency_split,
        rate: Some(Rate {
            per_s: s.per_thread_per_s * qd as f64,
            scope: RateScope::Job,
            max_lag_ns: Some(opts.max_lag_ns),
            pace: opts.pace,
            aligned: true,
            per_slot: true,
            ..Default::default()
        }),
        thresholds_ns: act_thresholds_ns(),
        ..Default::default()
    }
}

/// The specs of every stream on every target: (role, target index, spec).
pub fn streams(opts: &ActOptions, rates: &ActRates, min_op: u64, targets: usize) -> Result<Vec<StreamPlan>, Error> {
    let svc = service_threads(rates, opts.service_threads)?;
    let per_thread = svc.per_thread_per_s as f64;
    let lb_threads = opts.large_block_threads.max(1);
    let lb = rates.large_block_bytes;
    let mut out = Vec::new();
    for t in 0..targets {
        let seed = opts.seed ^ (t as u64) << 20;
        let shape = |bytes, align, write, threads, per_thread_per_s, k: u64| StreamShape {
            bytes,
            align,
            write,
            threads,
            per_thread_per_s,
            seed: seed ^ k,
        };
        let readers = share(svc.readers, targets, t);
        out.push((Role::Reads, t, stream_spec(opts, shape(rates.read_bytes, min_op, false, readers, per_thread, 1))));
        // ACT's large-block threads: one per device at the device's share of the rate.
        let lb_job = |iops: f64| iops / lb_threads as f64;
        if rates.large_block_read_iops > 0.0 {
            let s = shape(lb, lb, false, lb_threads, lb_job(rates.large_block_read_iops), 2);
            out.push((Role::LargeBlockReads, t, stream_spec(opts, s)));
        }
        if rates.large_block_write_iops > 0.0 {
            let s = shape(lb, lb, true, lb_threads, lb_job(rates.large_block_write_iops), 3);
            out.push((Role::LargeBlockWrites, t, stream_spec(opts, s)));
        }
        if svc.writers > 0 {
            let s = shape(rates.commit_write_bytes, min_op, true, share(svc.writers, targets, t), per_thread, 4);
            out.push((Role::Writes, t, stream_spec(opts, s)));
        }
    }
    Ok(out)
}

/// The smallest O_DIRECT I/O every target accepts (ACT's min-op-bytes: 512 or 4096).
pub fn min_op_bytes(names: &[String]) -> Result<u64, Error> {
    let infos = crate::prepare::probe_all(names)?;
    Ok(infos.iter().map(|i| i.dio_align_bytes.max(512)).max().unwrap_or(512))
}

/// One stream of a load: what it does, the index of its target, its spec.
pub type StreamPlan = (Role, usize, AccessSpec);

/// The load's rates on its targets and its streams, after checking the config.
pub fn plan(opts: &ActOptions) -> Result<(ActRates, Vec<StreamPlan>), Error> {
    opts.config.validate().map_err(Error::invalid)?;
    opts.criteria.validate().map_err(Error::invalid)?;
    let min_op = min_op_bytes(&opts.targets)?;
    let rates = opts.config.derive(min_op);
    let streams = streams(opts, &rates, min_op, opts.targets.len())?;
    Ok((rates, streams))
}

/// The streams of a load on one target, for tests elsewhere.
#[cfg(test)]
pub fn plan_for_tests(opts: &ActOptions, rates: &ActRates) -> Vec<StreamPlan> {
    streams(opts, rates, 512, 1).expect("a valid load")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::act::ActConfig;

    fn rates(scale: f64, targets: u32, commit: bool) -> ActRates {
        ActConfig { scale, targets, commit_to_device: commit, ..ActConfig::default() }.derive(512)
    }

    #[test]
    fn service_threads_take_acts_integer_share_of_the_requests() {
        // 10x on one drive: 20000 reads/s over 10 threads = 2000 each; over 7 threads ACT's
        // integer division gives 2857 each (19999 in all).
        let r = rates(10.0, 1, false);
        assert_eq!(
            service_threads(&r, 10).unwrap(),
            ServiceThreads { per_thread_per_s: 2000, readers: 10, writers: 0 }
        );
        assert_eq!(service_threads(&r, 7).unwrap().per_thread_per_s, 2857);
        // ACT refuses a load under one request per thread and second.
        let e = service_threads(&rates(1.0, 1, false), 4000).unwrap_err().to_string();
        assert!(e.contains("2000 requests/s over 4000 service threads") && e.contains("--service-threads"), "{e}");
    }

    #[test]
    fn commit_writes_get_their_share_of_the_threads() {
        // 1x with commit-to-device: 2000 reads and 1000 record writes a second; 3000/10 = 300
        // per thread; 2/3 of 10 threads read (7), 3 write.
        let s = service_threads(&rates(1.0, 1, true), 10).unwrap();
        assert_eq!(s, ServiceThreads { per_thread_per_s: 300, readers: 7, writers: 3 });
        assert!(service_threads(&rates(1.0, 1, true), 1).is_err());
    }

    #[test]
    fn threads_are_shared_over_targets_and_every_target_gets_one() {
        assert_eq!((0..3).map(|t| share(10, 3, t)).collect::<Vec<_>>(), vec![4, 3, 3]);
        assert_eq!((0..4).map(|t| share(2, 4, t)).collect::<Vec<_>>(), vec![1, 1, 1, 1]);
    }

    #[test]
    fn cpu_lists_are_counted_as_act_counts_online_cpus() {
        assert_eq!(count_cpu_list("0-3,8,10-11\n"), Some(7));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("x"), None);
    }

    #[test]
    fn the_streams_are_acts_threads() {
        // psync: ten jobs of one pread at a time, 2000/s each, aligned.
        let opts = ActOptions { service_threads: 10, engine: EngineKind::Psync, ..ActOptions::for_tests() };
        let r = rates(10.0, 1, false);
        let s = streams(&opts, &r, 512, 1).unwrap();
        let reads = &s[0].2;
        assert_eq!((s[0].0, reads.jobs, reads.qd), (Role::Reads, 10, 1));
        let rate = reads.rate.unwrap();
        assert_eq!((rate.per_s, rate.scope, rate.aligned), (2000.0, RateScope::Job, true));
        // One large-block reader and one writer at ACT's derived rate (20000/85 x 2 = 235.3/s).
        let lb: Vec<_> = s[1..].iter().map(|(role, _, spec)| (*role, spec.jobs, spec.qd)).collect();
        assert_eq!(lb, vec![(Role::LargeBlockReads, 1, 1), (Role::LargeBlockWrites, 1, 1)]);
        assert!((s[1].2.rate.unwrap().per_s - 10000.0 / 85.0 * 2.0).abs() < 1e-9);
        // io_uring: the same ten threads as ten slots of one job, each on its own schedule.
        let opts = ActOptions { engine: EngineKind::Uring, ..opts };
        let s = streams(&opts, &r, 512, 1).unwrap();
        let (reads, rate) = (&s[0].2, s[0].2.rate.unwrap());
        assert_eq!((reads.jobs, reads.qd, rate.per_s, rate.per_slot, rate.aligned), (1, 10, 20000.0, true, true));
    }
}
