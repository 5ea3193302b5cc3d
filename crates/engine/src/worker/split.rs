//! The worker's side of `--latency-split` (see `crate::split`): arm a slot's kernel record before
//! its SQE is submitted, cut the I/O into stages when its completion is reaped. Per I/O: a few
//! volatile loads and stores on the job's own records, five histogram adds and five sums; no
//! allocation (the per-second list grows once a second), no lock, no system call.

use crate::hist::{bucket_of, Histogram, BUCKETS};
use crate::measurement::split::{Split, SplitSecond};
use crate::split::{cut, Cut, JobTable, KernelStamps};

const SECOND: u64 = 1_000_000_000;

pub(super) struct SplitRec {
    /// The job's first record in the table (kept alive by `_table`) and how many it has.
    records: *mut KernelStamps,
    slots: u32,
    _table: JobTable,
    /// The next arm's sequence number.
    seq: u64,
    /// Summed stages per lat bucket (dense while running; sparse in the output).
    by_lat: Box<[[u64; 5]]>,
    pub(super) out: Split,
    /// Where the measurement started (the series counts seconds from it).
    pub(super) start: u64,
}

// SAFETY: the records belong to this job alone (its own slots of the table, which the `JobTable`
// keeps mapped); the job thread is their only user in this process.
unsafe impl Send for SplitRec {}

impl SplitRec {
    /// None when the table has no room for this job's `qd` slots.
    pub(super) fn new(t: JobTable, qd: u32) -> Option<SplitRec> {
        let (records, slots) = t.records()?;
        (qd <= slots).then(|| SplitRec {
            records,
            slots,
            _table: t,
            seq: 1,
            by_lat: vec![[0u64; 5]; BUCKETS].into_boxed_slice(),
            out: Split::default(),
            start: 0,
        })
    }

    fn record(&self, slot: u32) -> *mut KernelStamps {
        assert!(slot < self.slots, "slot {slot} outside the job's {} split records", self.slots);
        // SAFETY: `slot < slots`: one of this job's records.
        unsafe { self.records.add(slot as usize) }
    }

    /// Before `slot`'s SQE goes to the kernel: a clean record for this I/O.
    #[inline]
    pub(super) fn arm(&mut self, slot: u32) {
        let r = self.record(slot);
        self.seq += 1;
        let fresh = KernelStamps { seq: self.seq, ..Default::default() };
        // SAFETY: a record of this job, not in flight (its slot is being submitted), mapped for
        // the table's life; volatile because the kernel writes it too.
        unsafe { std::ptr::write_volatile(r, fresh) };
    }

    /// `slot`'s I/O, started at `before`, was reaped at `reaped`, with a lat of `reaped - before`.
    #[inline]
    pub(super) fn reaped(&mut self, slot: u32, before: u64, reaped: u64) {
        // SAFETY: as in `arm`; the kernel wrote its last stamp before it posted the completion
        // just reaped (x86's stores are seen in order).
        let k = unsafe { std::ptr::read_volatile(self.record(slot)) };
        let o = &mut self.out;
        o.ios += 1;
        match cut(before, &k, reaped) {
            Cut::Unmatched => o.unmatched += 1,
            Cut::Whole { ns, device, clamped } => {
                let lat = reaped - before;
                o.total.record(lat);
                let sums = &mut self.by_lat[bucket_of(lat)];
                for s in 0..5 {
                    o.stages[s].record(ns[s]);
                    sums[s] += ns[s];
                }
                o.without_device += u64::from(!device);
                o.io_wq += u64::from(k.punt != 0);
                o.clamped += u64::from(clamped);
                let sec = (reaped.saturating_sub(self.start) / SECOND) as usize;
                if sec >= o.series.len() {
                    o.series.resize(sec + 1, SplitSecond::default());
                }
                let second = &mut o.series[sec];
                second.ios += 1;
                for s in 0..5 {
                    second.sum_ns[s] += ns[s];
                }
            }
        }
    }

    /// Measurement starts (again) at `t`: what was counted before goes.
    pub(super) fn restart(&mut self, t: u64) {
        self.out = Split::default();
        self.by_lat.iter_mut().for_each(|s| *s = [0; 5]);
        self.start = t;
    }

    /// The job's split, with the kernel's lost events (of the whole table: the first job of the
    /// run reports them, so a merge counts them once).
    pub(super) fn finish(mut self, lost_events: bool) -> Split {
        self.out.by_lat = self
            .by_lat
            .iter()
            .enumerate()
            .filter(|(_, s)| s.iter().any(|&v| v > 0))
            .map(|(i, s)| (i as u16, *s))
            .collect();
        // A bucket whose I/Os all had 0 ns in every stage is impossible (lat > 0 there), but keep
        // the invariant the reader checks: every bucket with sums holds I/Os.
        let total: &Histogram = &self.out.total;
        debug_assert!(self.out.by_lat.iter().all(|(i, _)| total.nonempty().any(|(k, _)| k == *i as usize)));
        if lost_events {
            self.out.lost_events = self._table.table.lost_events();
        }
        self.out
    }
}
