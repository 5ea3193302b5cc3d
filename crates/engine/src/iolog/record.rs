//! The job's log recorder: called once per measured completion (only when the spec asks for
//! logs), it appends to preallocated storage; no formatting, no lock, no allocation per I/O.

use super::{
    fio_bucket, HistWin, IoEntry, IoLogSpec, JobLog, WinStat, CHUNK, FIO_BUCKETS, MAX_IO_ENTRIES, MAX_WINDOWS,
};

const DIRS: usize = 3;
const MS: u64 = 1_000_000;

/// One direction's sums over the current `log_avg_msec` window.
#[derive(Clone, Copy, Default)]
struct Acc {
    ios: u64,
    bytes: u64,
    lat: (u64, u64),
    clat: (u64, u64),
    slat: (u64, u64),
}

fn add(s: &mut (u64, u64), v: u64) {
    s.0 += v;
    s.1 = s.1.max(v);
}

pub(crate) struct Recorder {
    per_io: bool,
    avg_ns: u64,
    hist_ns: u64,
    /// Measurement start (fio's epoch): times are taken from here.
    origin: u64,
    /// Most per-I/O entries this job keeps.
    limit: u64,
    kept: u64,
    log: JobLog,
    acc: [Acc; DIRS],
    /// The current window's start and end, ns since `origin`.
    win: (u64, u64),
    /// Per direction: the clat histogram of the current window, and its end (0: not started).
    hist: Vec<[u32; FIO_BUCKETS]>,
    hist_end: [u64; DIRS],
}

impl Recorder {
    /// A recorder for `spec`, for one of `jobs` jobs sharing a target; `slat`: the backend
    /// submits asynchronously.
    pub(crate) fn new(spec: &IoLogSpec, jobs: u32, slat: bool) -> Recorder {
        let limit = (MAX_IO_ENTRIES / jobs.max(1) as u64).max(CHUNK as u64);
        let mut log = JobLog { slat, ..Default::default() };
        let per_io = spec.per_io();
        if per_io {
            log.ios.push(Vec::with_capacity(CHUNK));
        }
        let hist_ns = if spec.hists() { spec.hist_ms.saturating_mul(MS) } else { 0 };
        let avg_ns = if spec.wants_ios() { spec.avg_ms.saturating_mul(MS) } else { 0 };
        let hist = if hist_ns > 0 { vec![[0u32; FIO_BUCKETS]; DIRS] } else { Vec::new() };
        Recorder {
            per_io,
            avg_ns,
            hist_ns,
            origin: 0,
            limit,
            kept: 0,
            log,
            acc: [Acc::default(); DIRS],
            win: (0, avg_ns),
            hist,
            hist_end: [0; DIRS],
        }
    }

    /// Measurement starts at `t`: what came before (the ramp) is forgotten.
    pub(crate) fn start(&mut self, t: u64) {
        self.origin = t;
    }

    /// A measured I/O completed at `done`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn io(&mut self, dir: u8, len: u32, offset: u64, prio: u16, lat: u64, slat: u64, done: u64, file: u32) {
        let t = done.saturating_sub(self.origin);
        let d = dir as usize % DIRS;
        let clat = lat.saturating_sub(slat);
        if self.per_io {
            self.entry(IoEntry {
                t_ns: t,
                lat_ns: lat,
                offset,
                slat_ns: slat.min(u32::MAX as u64) as u32,
                len,
                dir,
                prio,
                file: file as u16,
            });
        }
        if self.avg_ns > 0 {
            if t >= self.win.1 {
                self.close_windows(t);
            }
            let a = &mut self.acc[d];
            a.ios += 1;
            a.bytes += len as u64;
            add(&mut a.lat, lat);
            add(&mut a.clat, clat);
            add(&mut a.slat, slat);
        }
        if self.hist_ns > 0 {
            self.hist[d][fio_bucket(clat)] += 1;
            if self.hist_end[d] == 0 {
                // fio's first window starts at the direction's first I/O.
                self.hist_end[d] = t.max(1) + self.hist_ns;
            } else if t >= self.hist_end[d] {
                self.close_hist(d, t, len);
            }
        }
    }

    #[inline]
    fn entry(&mut self, e: IoEntry) {
        if self.kept >= self.limit {
            self.log.dropped += 1;
            return;
        }
        let chunk = self.log.ios.last_mut().expect("a chunk is always there");
        if chunk.len() == CHUNK {
            self.log.ios.push(Vec::with_capacity(CHUNK));
        }
        self.log.ios.last_mut().expect("just pushed").push(e);
        self.kept += 1;
    }

    /// Close the current window at its end (and skip the empty ones up to `t`).
    #[cold]
    fn close_windows(&mut self, t: u64) {
        let (start, end) = self.win;
        self.flush_window(start, end);
        let skip = (t - end) / self.avg_ns;
        let start = end + skip * self.avg_ns;
        self.win = (start, start + self.avg_ns);
    }

    fn flush_window(&mut self, start: u64, end: u64) {
        for (d, a) in self.acc.iter_mut().enumerate() {
            if a.ios == 0 {
                continue;
            }
            if self.log.windows.len() >= MAX_WINDOWS {
                self.log.dropped += a.ios;
            } else {
                self.log.windows.push(WinStat {
                    end_ns: end,
                    len_ns: (end - start).max(1),
                    dir: d as u8,
                    ios: a.ios,
                    bytes: a.bytes,
                    lat_sum: a.lat.0,
                    lat_max: a.lat.1,
                    clat_sum: a.clat.0,
                    clat_max: a.clat.1,
                    slat_sum: a.slat.0,
                    slat_max: a.slat.1,
                });
            }
            *a = Acc::default();
        }
    }

    #[cold]
    fn close_hist(&mut self, d: usize, t: u64, bs: u32) {
        let h = &mut self.hist[d];
        let buckets: Vec<(u16, u32)> =
            h.iter().enumerate().filter(|(_, &n)| n > 0).map(|(i, &n)| (i as u16, n)).collect();
        h.fill(0);
        if self.log.hists.len() >= MAX_WINDOWS {
            self.log.dropped += buckets.iter().map(|b| b.1 as u64).sum::<u64>();
        } else {
            self.log.hists.push(HistWin { t_ns: t, dir: d as u8, bs, buckets });
        }
        // fio keeps its cadence: the next window ends one window after this one's end.
        let behind = (t - self.hist_end[d]) / self.hist_ns;
        self.hist_end[d] += (behind + 1) * self.hist_ns;
    }

    /// The job ended at `last` (its measured time `end_ns`): the last partial window closes (as
    /// fio's final log flush); a partial histogram window is dropped (as fio does).
    pub(crate) fn finish(mut self, end_ns: u64) -> JobLog {
        if self.avg_ns > 0 {
            let start = self.win.0.min(end_ns);
            self.flush_window(start, end_ns.max(start));
        }
        self.log.end_ns = end_ns;
        self.log
    }
}
