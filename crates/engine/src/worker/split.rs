//! The worker's side of `--latency-split` (see `crate::split`): arm a slot's kernel record before
//! its SQE is submitted, cut the I/O into stages when its completion is reaped. Per I/O: a few
//! volatile loads and stores on the job's own records, five histogram adds and five sums; no
//! allocation (the per-second list grows once a second), no lock, no system call.

use crate::hist::{bucket_of, BUCKETS};
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

    /// The job's split (the run adds the table's own figures to one job's: see `run`).
    pub(super) fn finish(mut self) -> Split {
        self.out.by_lat = self
            .by_lat
            .iter()
            .enumerate()
            .filter(|(_, s)| s.iter().any(|&v| v > 0))
            .map(|(i, s)| (i as u16, *s))
            .collect();
        self.out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::split::{SplitTable, STAGES};

    /// A table in plain memory, written by the test as the kernel would.
    struct Memory(Box<[std::cell::UnsafeCell<KernelStamps>]>, u32);
    // SAFETY: the test writes one record at a time from its own thread.
    unsafe impl Sync for Memory {}
    // SAFETY: `stamps` points to `len()` records owned by the box for the table's life.
    unsafe impl SplitTable for Memory {
        fn stamps(&self) -> *mut KernelStamps {
            self.0.as_ptr() as *mut KernelStamps
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn slots_per_job(&self) -> u32 {
            self.1
        }
        fn lost_events(&self) -> u64 {
            9
        }
    }

    fn table(jobs: u32, slots: u32) -> Arc<Memory> {
        Arc::new(Memory((0..jobs * slots).map(|_| Default::default()).collect(), slots))
    }

    fn kernel_writes(t: &Memory, idx: usize, f: impl FnOnce(&mut KernelStamps)) {
        // SAFETY: the test is the only user of the record now.
        f(unsafe { &mut *t.0[idx].get() })
    }

    #[test]
    fn an_io_is_cut_from_its_own_record_and_arming_clears_the_last_ios_stamps() {
        let t = table(2, 4);
        let mut rec = SplitRec::new(JobTable { table: t.clone(), job: 1 }, 4).unwrap();
        rec.start = 1_000;
        rec.arm(2);
        // Job 1's slot 2 is record 1 * 4 + 2.
        kernel_writes(&t, 6, |k| (k.accept, k.issue, k.done, k.cqe) = (1_100, 1_300, 5_300, 5_400));
        rec.reaped(2, 1_000, 6_000);
        // Armed again: the old stamps are gone, so an I/O the kernel never saw is unmatched.
        rec.arm(2);
        rec.reaped(2, 7_000, 8_000);
        let out = rec.finish();
        assert_eq!((out.ios, out.unmatched, out.total.count()), (2, 1, 1));
        let means: Vec<u64> = out.stages.iter().map(|h| h.max()).collect();
        assert_eq!(means, [100, 200, 4_000, 100, 600], "{STAGES:?}");
        assert_eq!(out.by_lat, vec![(bucket_of(5_000) as u16, [100, 200, 4_000, 100, 600])]);
        assert_eq!(out.series.len(), 1);
    }

    #[test]
    fn a_job_with_more_slots_than_the_table_gives_it_gets_no_split() {
        let t = table(2, 4);
        assert!(SplitRec::new(JobTable { table: t.clone(), job: 1 }, 8).is_none());
        assert!(SplitRec::new(JobTable { table: t, job: 2 }, 4).is_none(), "job 2 is past the table");
    }
}
