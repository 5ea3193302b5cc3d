//! Queue: the slots (one per queue entry), the free list, the batch being built, what is in flight.

use super::flow::FlowGate;
use super::recorder::Recorder;
use super::schedule::Schedule;
use super::stamps::{stamp_after_submit, stamp_before_submit, Slot};
use super::verify::{JobVerify, Verifier};
use super::window::Window;
use super::JobCtx;
use crate::backend::{Backend, Pending};
use crate::clock::Clock;
use crate::gen::prio::PrioDraw;
use crate::gen::{Generator, Op};
use crate::pattern::{self, BufferPool, WRITE_TAG};

pub(super) struct Queue {
    /// The next I/O: the file's generator, one per file of the job (each its own position and
    /// random map, as fio keeps per file).
    pub(super) gens: Vec<Generator>,
    /// A job over several files: which one the next I/O goes to (fio's `file_service_type`).
    files: Option<super::files::FileChooser>,
    /// Each I/O's priority (the job's, or a per-I/O one: `spec.prio`).
    prio: PrioDraw,
    /// Writes carry stamps (offset, tag) per 4 KiB.
    pub(super) stamp_writes: bool,
    pub(super) slots: Vec<Slot>,
    pub(super) free: Vec<u32>,
    pub(super) batch: Vec<Pending>,
    pub(super) inflight: usize,
    /// Since when at least one slot has been free (valid while `free` is not empty): an I/O due
    /// earlier could not have been issued before then.
    pub(super) free_since: u64,
    /// I/Os per submit call (synchronous backends take the batch whole).
    pub(super) chunk: usize,
    /// With `verify`: stamps, checks and the map.
    pub(super) verify: Option<Verifier>,
    /// With `verify`: the slot of an I/O held until the in-flight I/O it overlaps completes;
    /// nothing else is issued meanwhile.
    held: Option<u32>,
    /// fio's flow: this job's gate, and whether the last `fill` was held back by it.
    flow: Option<FlowGate>,
    pub(super) flow_held: bool,
    /// fio's dedupe: each write's buffer made afresh, unique or repeating another's.
    dedupe: Option<super::dedupe::DedupeFill>,
    /// The generator has no next I/O (fio's `zonemode=zbd`): the job stops issuing.
    pub(super) exhausted: bool,
    /// fio's latency target: the depth search, fed by each completion (`lat_target.rs`).
    pub(super) lat: Option<super::lat_target::LatControl>,
    /// `--latency-split`: the job's kernel records and its split.
    pub(super) split: Option<super::split::SplitRec>,
    /// At most this many I/Os queued or in flight (the latency target's depth; else `qd`).
    pub(super) limit: usize,
    /// fio's `iodepth_batch_complete_min` (`spec.complete_min`).
    complete_min: u32,
    /// Ranges per trim (fio's `num_range`, io_uring_cmd's trims only; else 1).
    trim_ranges: u16,
}

impl Queue {
    pub(super) fn new<B: Backend>(ctx: &JobCtx, verify: Option<JobVerify>) -> Queue {
        let spec = &*ctx.spec;
        let qd = spec.qd as usize;
        Queue {
            gens: std::iter::once(
                Generator::new(spec, ctx.start, ctx.span, ctx.job)
                    .with_trace(ctx.trace.clone())
                    .with_zones(ctx.zones.clone().map(|t| crate::zbd::JobZones::new(t, spec, ctx.start, ctx.span))),
            )
            // A file set's other files (neither traces nor zones: `spec.files` refuses them),
            // each its own draw.
            .chain(ctx.more_files.iter().enumerate().map(|(i, &(start, span))| {
                Generator::new(spec, start, span, ctx.job ^ (i as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D))
            }))
            .collect(),
            files: (!ctx.more_files.is_empty()).then(|| {
                let spans = std::iter::once(ctx.span).chain(ctx.more_files.iter().map(|f| f.1)).collect();
                super::files::FileChooser::new(spec.files.service, spans, spec.offset_seed() ^ ctx.job)
            }),
            prio: PrioDraw::new(spec.prio.as_ref(), spec.offset_seed() ^ ctx.job.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            stamp_writes: spec.has_writes()
                && pattern::stamps(spec.data)
                && verify.is_none()
                && spec.buffer_pattern_hex.is_none()
                && spec.dedupe.is_none(),
            slots: vec![
                Slot {
                    op: Op::Read,
                    len: 0,
                    offset: 0,
                    prio: 0,
                    file: 0,
                    ranges: 1,
                    t_before: 0,
                    t_submit: 0,
                    t_intended: 0,
                    t_ready: 0,
                    t_freed: 0,
                    t_virtual: 0,
                    v_freed: 0,
                    busy: false,
                };
                qd
            ],
            free: (0..qd as u32).rev().collect(),
            batch: Vec::with_capacity(qd),
            inflight: 0,
            free_since: 0,
            chunk: if B::SUBMIT_COMPLETES { qd.max(1) } else { spec.submit_batch.max(1) as usize },
            verify: verify.map(|v| Verifier::new(v, qd)),
            held: None,
            flow: ctx
                .flow
                .clone()
                .zip(spec.flow)
                .map(|(g, f)| FlowGate::join(g, f.weight, f.sleep_ns, spec.start_delay_ns == 0)),
            flow_held: false,
            dedupe: spec.dedupe.filter(|_| spec.has_writes()).map(|d| super::dedupe::DedupeFill::new(ctx, d)),
            exhausted: false,
            lat: spec.lat_target.as_ref().map(|t| super::lat_target::LatControl::new(t, spec.qd, 0)),
            split: ctx.split.clone().and_then(|t| super::split::SplitRec::new(t, spec.qd)),
            limit: if spec.lat_target.is_some() { 1 } else { qd },
            complete_min: spec.complete_min,
            trim_ranges: spec.trim_ranges(),
        }
    }

    /// The completions to wait for after a submit, as fio's `wait_for_completions`: the job's
    /// `complete_min` but never more than are in flight; with 0, one when the queue is full,
    /// else none (the backend is asked, not waited on).
    pub(super) fn completions_wanted(&self) -> u32 {
        let inflight = self.inflight as u32;
        match self.complete_min {
            0 if self.inflight + self.batch.len() >= self.limit => 1.min(inflight),
            0 => 0,
            n => n.min(inflight).max(1),
        }
    }

    /// fio's flow held this job back with nothing in flight: wait before trying again.
    pub(super) fn flow_pause(&self) {
        if let Some(f) = &self.flow {
            f.pause();
        }
    }

    /// Nothing queued and nothing in flight.
    pub(super) fn idle(&self) -> bool {
        self.batch.is_empty() && self.inflight == 0
    }

    /// Fill free slots with the I/Os the schedule allows now. False when the window's byte
    /// budget is spent (the job stops issuing).
    #[inline]
    pub(super) fn fill(
        &mut self,
        sched: &mut Schedule,
        window: &mut Window,
        pool: &mut BufferPool,
        clock: &impl Clock,
    ) -> bool {
        let now = if sched.paced() { clock.now() } else { 0 };
        self.flow_held = false;
        if let Some(slot) = self.held {
            if Verifier::conflicts(&self.slots, slot as usize) {
                return true;
            }
            self.held = None;
            self.issue(slot, pool);
        }
        if sched.per_slot() {
            return self.fill_per_slot(now, sched, window, pool);
        }
        while let Some(&slot) = self.free.last() {
            if self.inflight + self.batch.len() >= self.limit {
                break;
            }
            if sched.sync_due() || sched.think_due() {
                break;
            }
            // The bytes are done: what verify_backlog holds is read back, then the job stops.
            if window.budget_spent() && !self.gens[0].backlog_flush() {
                return false;
            }
            if let Some(f) = self.flow.as_mut() {
                if !f.admit() {
                    self.flow_held = true;
                    break;
                }
            }
            let Some(t_intended) = sched.take(slot, now) else {
                if let Some(f) = self.flow.as_mut() {
                    f.unadmit();
                }
                break;
            };
            self.free.pop();
            // Any free slot could have taken it since one was free.
            if !self.start(slot, t_intended, t_intended.max(self.free_since), sched, window, pool) {
                break;
            }
        }
        !self.exhausted
    }

    /// `fill` with one schedule per slot: each free slot whose own next I/O is due issues it.
    fn fill_per_slot(&mut self, now: u64, sched: &mut Schedule, window: &mut Window, pool: &mut BufferPool) -> bool {
        let mut i = 0;
        while i < self.free.len() {
            if self.inflight + self.batch.len() >= self.limit {
                break;
            }
            if sched.sync_due() || sched.think_due() {
                break;
            }
            if window.budget_spent() {
                return false;
            }
            let slot = self.free[i];
            let Some(t_intended) = sched.take(slot, now) else {
                i += 1;
                continue;
            };
            self.free.swap_remove(i);
            // Only this slot could take it, once its previous I/O was done.
            let t_ready = t_intended.max(self.slots[slot as usize].t_freed);
            if !self.start(slot, t_intended, t_ready, sched, window, pool) {
                break;
            }
        }
        !self.exhausted
    }

    /// Put the job's next I/O into `slot` (off the free list) and the batch; false when it is
    /// held instead (it overlaps an I/O in flight: verify only).
    #[inline]
    fn start(
        &mut self,
        slot: u32,
        t_intended: u64,
        t_ready: u64,
        sched: &mut Schedule,
        window: &mut Window,
        pool: &mut BufferPool,
    ) -> bool {
        // fio's verify_backlog: a written block read back and checked goes first; it counts as
        // a read, not against the job's bytes or I/Os, its writes or its think time.
        // A file set's file for this I/O (verify's backlog, one file's only, is file 0's).
        let file = self.files.as_ref().map_or(0, |f| f.current());
        let gen = &mut self.gens[file as usize];
        let (io, read_back) = match gen.backlog_read() {
            Some(io) => (io, true),
            None => match gen.try_next_io() {
                Some(io) => (io, false),
                None => {
                    self.exhausted = true;
                    self.free.push(slot);
                    return false;
                }
            },
        };
        let prio = self.prio.next(io.op, io.len);
        if let Some(f) = self.files.as_mut() {
            f.issued(io.len);
        }
        let (mut len, mut ranges) = (io.len, 1);
        if !read_back {
            if io.op == Op::Write {
                sched.wrote();
            }
            sched.issued_one();
            window.issued(io.len);
            if io.op == Op::Trim && self.trim_ranges > 1 {
                (len, ranges) = self.more_ranges(slot, file, io, window, pool);
            }
        }
        let s = &mut self.slots[slot as usize];
        *s = Slot {
            op: io.op,
            len,
            offset: io.offset,
            prio,
            file,
            ranges,
            t_before: 0,
            t_submit: 0,
            t_intended,
            t_ready,
            t_freed: s.t_freed,
            t_virtual: t_intended.max(s.v_freed),
            v_freed: s.v_freed,
            busy: true,
        };
        if let Some(v) = self.verify.as_mut() {
            if Verifier::conflicts(&self.slots, slot as usize) {
                v.held();
                self.held = Some(slot);
                return false;
            }
        }
        self.issue(slot, pool);
        true
    }

    /// Stamp a write's data and queue the I/O of `slot` for the next submit.
    #[inline]
    fn issue(&mut self, slot: u32, pool: &mut BufferPool) {
        let s = &self.slots[slot as usize];
        if s.op == Op::Write {
            // The slot is off the free list: its buffer is ours until it is submitted.
            let buf = &mut pool.slot_mut(slot as usize)[..s.len as usize];
            if let Some(v) = self.verify.as_mut() {
                v.stamp_write(buf, s.offset);
            } else if let Some(d) = self.dedupe.as_mut() {
                d.fill(buf);
            } else if self.stamp_writes {
                pattern::stamp(buf, s.offset, WRITE_TAG);
            }
        }
        self.batch.push(Pending {
            slot,
            op: s.op,
            offset: s.offset,
            len: s.len,
            prio: s.prio,
            file: s.file,
            ranges: s.ranges,
        });
    }

    /// fio's `num_range`: the trim `first` in `slot`, to `file`, takes that file's next offsets
    /// as further ranges, up to `trim_ranges`, each counted as issued bytes (the job's budget
    /// ends it early, as does a generator that ends), all written into the slot's buffer for the
    /// backend. Its length and ranges; the I/O is one command, counted once.
    fn more_ranges(
        &mut self,
        slot: u32,
        file: u32,
        first: crate::gen::IoDesc,
        window: &mut Window,
        pool: &mut BufferPool,
    ) -> (u32, u16) {
        use crate::backend::{put_range, DSM_RANGE_BYTES};
        let file = file as usize;
        let buf = pool.slot_mut(slot as usize);
        let mut entries =
            buf.chunks_exact_mut(DSM_RANGE_BYTES).map(|c| <&mut [u8; DSM_RANGE_BYTES]>::try_from(c).unwrap());
        put_range(entries.next().expect("a slot holds num_range ranges"), first.offset, u64::from(first.len));
        let (mut len, mut n) = (first.len, 1u16);
        while n < self.trim_ranges && !window.budget_spent() {
            let Some(io) = self.gens[file].try_next_io() else {
                self.exhausted = true;
                break;
            };
            // The spec holds num_range x the largest block under 4 GiB (`spec.trim_ranges`).
            len += io.len;
            window.issued(io.len);
            if let Some(f) = self.files.as_mut() {
                f.issued(io.len);
            }
            put_range(entries.next().expect("a slot holds num_range ranges"), io.offset, u64::from(io.len));
            n += 1;
        }
        (len, n)
    }

    /// Hand the batch to the backend `chunk` I/Os per call (fio's iodepth_batch_submit),
    /// stamping each chunk's I/Os just before its call (lat) and when it returns (clat), and
    /// recording the call's own cost (slat) when measuring.
    #[inline]
    pub(super) fn submit<B: Backend>(
        &mut self,
        backend: &mut B,
        rec: &mut Recorder,
        measuring: bool,
        clock: &impl Clock,
    ) -> std::io::Result<()> {
        if measuring && !self.batch.is_empty() {
            // fio counts the I/Os of a commit at the depth they bring the job to.
            rec.out.depths.issued(self.batch.len(), self.inflight + self.batch.len());
        }
        for part in self.batch.chunks(self.chunk) {
            if measuring {
                rec.out.depths.submitted(part.len());
            }
            if let Some(sp) = self.split.as_mut() {
                part.iter().for_each(|p| sp.arm(p.slot));
            }
            let before = stamp_before_submit(clock);
            backend.submit(part)?;
            let t_submit = stamp_after_submit::<B>(before, clock);
            if measuring && !B::SUBMIT_COMPLETES {
                rec.submitted(t_submit - before, part.len() as u64);
            }
            for p in part {
                let s = &mut self.slots[p.slot as usize];
                s.t_before = before;
                s.t_submit = t_submit;
                if rec.paced && measuring {
                    rec.issued_late(s.lag_ns(), s.tool_lag_ns());
                }
            }
        }
        self.inflight += self.batch.len();
        self.batch.clear();
        Ok(())
    }

    /// Take every completion at `done`; true when an error stops the job.
    #[inline]
    pub(super) fn reap<B: Backend>(
        &mut self,
        backend: &mut B,
        done: u64,
        rec: &mut Recorder,
        measuring: bool,
        continue_on_error: bool,
    ) -> bool {
        let mut err_stop = false;
        let mut taken = 0usize;
        let (slots, free, inflight, free_since, verify, lat, split) = (
            &mut self.slots,
            &mut self.free,
            &mut self.inflight,
            &mut self.free_since,
            &mut self.verify,
            &mut self.lat,
            &mut self.split,
        );
        backend.reap(&mut |slot, res| {
            let s = &mut slots[slot as usize];
            s.t_freed = done;
            if s.t_intended > 0 {
                s.v_freed = s.t_virtual + s.lat_ns(done);
            }
            s.busy = false;
            // A trim done through the ring (a punched hole: IORING_OP_FALLOCATE) returns 0.
            let whole = res == s.len as i32 || (res == 0 && s.op == Op::Trim);
            if let Some(v) = verify.as_mut() {
                v.completed(slot, s, whole);
            }
            if whole {
                if let Some(l) = lat.as_mut() {
                    l.completed(s.lat_ns(done), s.op, s.offset);
                }
                if measuring {
                    rec.completed(s, done);
                    if let Some(sp) = split.as_mut() {
                        sp.reaped(slot, s.t_before, done);
                    }
                }
            } else {
                err_stop |= rec.failed(super::ErrorOp::Io(s.op), Some(s.file), s.offset, res, continue_on_error);
            }
            if free.is_empty() {
                *free_since = done;
            }
            free.push(slot);
            *inflight -= 1;
            taken += 1;
        });
        if measuring {
            rec.out.depths.reaped(taken);
        }
        err_stop
    }

    /// With `verify`: check the reads the last reap took (their slots are free but not yet
    /// reused) and journal its writes' acks; true when a wrong unit stops the job, an error when
    /// the journal cannot be written.
    #[inline]
    pub(super) fn after_reap(&mut self, pool: &mut BufferPool, continue_on_error: bool) -> std::io::Result<bool> {
        match self.verify.as_mut() {
            Some(v) => {
                v.journal_acks()?;
                Ok(v.check_reads(&self.slots, pool) > 0 && !continue_on_error)
            }
            None => Ok(false),
        }
    }

    /// With a journal: the batch's intents, durably, before it is submitted.
    #[inline]
    pub(super) fn journal_intents(&mut self) -> std::io::Result<()> {
        match self.verify.as_mut() {
            Some(v) => v.journal_intents(),
            None => Ok(()),
        }
    }

    /// With a journal: an fsync of the target completed (nothing in flight).
    pub(super) fn journal_durable(&mut self) -> std::io::Result<()> {
        match self.verify.as_mut() {
            Some(v) => v.journal_durable(),
            None => Ok(()),
        }
    }
}
