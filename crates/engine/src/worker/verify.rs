//! Verification inside the job loop: stamp every unit a write carries, check every unit a read
//! brings back, and keep overlapping I/Os apart so what a read must find is always known.
//!
//! The job owns a copy of the generation map over its own region (jobs on one target split it,
//! so each unit has one writer). A write's units get their next generation when it is issued;
//! a read is checked when it completes against the generations then in the map — which no
//! write can have changed meanwhile, because an I/O that overlaps an in-flight write (or a write
//! that overlaps any in-flight I/O) is held until that I/O completes (fio's serialize_overlap).
//! A write that fails leaves its units [`UNKNOWN`]: not checked until written again.
//!
//! Per I/O this costs one XOR pass per written unit and one compare pass per read unit, and a
//! scan of the queue's slots for overlaps; nothing is allocated unless a unit is wrong.

use std::sync::Arc;

use super::stamps::Slot;
use crate::gen::Op;
use crate::pattern::BufferPool;
use crate::result::{Checks, MismatchRecord};
use crate::verify::{next_generation, Expected, JobJournal, MismatchKind, UnitFormat, UNKNOWN};

/// What a job verifies with: the format, which target it is, and its region's generations.
pub struct JobVerify {
    pub format: Arc<UnitFormat>,
    /// The target's index in the run (written into every header).
    pub target: u32,
    /// The byte offset of `gens[0]`'s unit on the target.
    pub region_start: u64,
    /// The job's copy of the generation map over its region.
    pub gens: Vec<u8>,
    /// The target stores nothing (null): a read "returns" the unit a perfect drive would hold
    /// (the map's generation, 0 where never written), made here before it is checked.
    pub serve_reads: bool,
    /// With `--journal`: every write's intent, ack or failure, and every completed fsync.
    pub journal: Option<JobJournal>,
    /// The job only reads: with fio's `verify_pattern`, every unit it reads is checked against
    /// the pattern, whoever wrote it (fio verifies every read of a job that does not write); a
    /// job that writes too checks only what the lab knows it wrote, as fio checks only its own
    /// writes.
    pub reads_only: bool,
    /// `spec.verify_found` on a job that only reads: a unit the lab has no record of is checked
    /// by its own header.
    pub check_found: bool,
}

/// What a job's verification counted, and its map copy back.
#[derive(Default)]
pub struct VerifyOutput {
    pub gens: Vec<u8>,
    pub written_units: u64,
    pub unchecked_units: u64,
    pub held_ios: u64,
    pub inline: Checks,
    /// Writes issued (fio's `numberio` of a job's verify state).
    pub writes_issued: u64,
    /// The offsets of the job's last writes completed whole, at most its depth, oldest first
    /// (fio's verify state: what a later `verify_state_load` may check of the writes that were
    /// in flight last).
    pub last_writes: Vec<u64>,
}

pub(super) struct Verifier {
    v: JobVerify,
    shift: u32,
    unit: usize,
    out: VerifyOutput,
    /// Slots of reads completed whole, to check once the reap pass is over.
    to_check: Vec<u32>,
    /// The last writes completed whole: a ring of the job's depth, `next` the oldest once full.
    last: Vec<u64>,
    next: usize,
    depth: usize,
}

impl Verifier {
    pub(super) fn new(v: JobVerify, qd: usize) -> Verifier {
        let unit = v.format.unit();
        Verifier {
            shift: unit.trailing_zeros(),
            unit,
            v,
            out: VerifyOutput::default(),
            to_check: Vec::with_capacity(qd),
            last: Vec::with_capacity(qd.max(1)),
            next: 0,
            depth: qd.max(1),
        }
    }

    #[inline(always)]
    fn index(&self, offset: u64) -> usize {
        ((offset - self.v.region_start) >> self.shift) as usize
    }

    /// Whether `io` (in slot `me`) overlaps an I/O in flight that it must not pass: any write,
    /// or for a write, any I/O at all.
    #[inline]
    pub(super) fn conflicts(slots: &[Slot], me: usize) -> bool {
        let io = &slots[me];
        let (a, b) = (io.offset, io.offset + io.len as u64);
        slots.iter().enumerate().any(|(i, s)| {
            i != me
                && s.busy
                && (s.op == Op::Write || io.op == Op::Write)
                && s.offset < b
                && a < s.offset + s.len as u64
        })
    }

    /// Stamp a write's units into its buffer, each with its next generation.
    #[inline]
    pub(super) fn stamp_write(&mut self, buf: &mut [u8], offset: u64) {
        let first = self.index(offset);
        if let Some(j) = self.v.journal.as_mut() {
            j.intent(offset, buf.len() as u64, next_generation(self.v.gens[first]));
        }
        for (k, unit) in buf.chunks_exact_mut(self.unit).enumerate() {
            let g = next_generation(self.v.gens[first + k]);
            self.v.gens[first + k] = g;
            self.v.format.stamp(unit, self.v.target, offset + (k * self.unit) as u64, g as u64);
        }
        self.out.written_units += (buf.len() / self.unit) as u64;
        self.out.writes_issued += 1;
    }

    /// An I/O of `s` completed with `ok` (whole): a read is queued for its check; a failed
    /// write leaves its units unknown.
    #[inline]
    pub(super) fn completed(&mut self, slot: u32, s: &Slot, ok: bool) {
        if let (Op::Write, Some(j)) = (s.op, self.v.journal.as_mut()) {
            j.completed(s.offset, s.len as u64, ok);
        }
        match (s.op, ok) {
            (Op::Read, true) => self.to_check.push(slot),
            (Op::Write, true) => {
                if self.last.len() < self.depth {
                    self.last.push(s.offset);
                } else {
                    self.last[self.next] = s.offset;
                    self.next = (self.next + 1) % self.last.len();
                }
            }
            (Op::Write, false) => {
                let first = self.index(s.offset);
                let n = s.len as usize / self.unit;
                self.v.gens[first..first + n].fill(UNKNOWN);
            }
            _ => {}
        }
    }

    /// With a journal: the intents of the batch about to be submitted, durably.
    pub(super) fn journal_intents(&mut self) -> std::io::Result<()> {
        self.v.journal.as_mut().map_or(Ok(()), |j| j.flush_intents())
    }

    /// With a journal: the acks and failures of the last reap pass.
    pub(super) fn journal_acks(&mut self) -> std::io::Result<()> {
        self.v.journal.as_mut().map_or(Ok(()), |j| j.flush_acks())
    }

    /// With a journal: an fsync completed with nothing in flight.
    pub(super) fn journal_durable(&mut self) -> std::io::Result<()> {
        self.v.journal.as_mut().map_or(Ok(()), |j| j.durable())
    }

    /// An I/O was held for an overlap.
    pub(super) fn held(&mut self) {
        self.out.held_ios += 1;
    }

    /// Check the reads completed in the last reap pass; the number of wrong units.
    pub(super) fn check_reads(&mut self, slots: &[Slot], pool: &mut BufferPool) -> u64 {
        let mut wrong = 0;
        for k in 0..self.to_check.len() {
            let slot = self.to_check[k];
            let s = &slots[slot as usize];
            let buf = &mut pool.slot_mut(slot as usize)[..s.len as usize];
            wrong += self.check_units(buf, s.offset);
        }
        self.to_check.clear();
        wrong
    }

    fn check_units(&mut self, buf: &mut [u8], offset: u64) -> u64 {
        let first = self.index(offset);
        let mut wrong = 0;
        for (k, found) in buf.chunks_exact_mut(self.unit).enumerate() {
            let g = self.v.gens[first + k];
            let exp = Expected { target: self.v.target, offset: offset + (k * self.unit) as u64, generation: g as u64 };
            if self.v.serve_reads {
                self.v.format.stamp(found, exp.target, exp.offset, exp.generation);
            } else if g == 0 && self.v.check_found && !self.v.format.is_pattern() {
                // A job that only reads, over units the lab has no record of writing: each is
                // checked by its own header, as fio checks every block such a job reads.
                self.out.inline.checked_units += 1;
                if !self.v.format.self_consistent(found, exp.offset) {
                    let m = self.v.format.check(found, &exp).expect_err("a unit that is not whole");
                    self.record(m.kind, MismatchRecord::new(&m, &exp, self.v.format.seed(), self.unit));
                    wrong += 1;
                }
                continue;
            } else if (g == 0 && !(self.v.format.is_pattern() && self.v.reads_only)) || g == UNKNOWN {
                self.out.unchecked_units += 1;
                continue;
            }
            self.out.inline.checked_units += 1;
            if !self.v.format.matches(found, &exp) {
                let m = self.v.format.check(found, &exp).expect_err("a unit that did not match");
                self.record(m.kind, MismatchRecord::new(&m, &exp, self.v.format.seed(), self.unit));
                wrong += 1;
            }
        }
        wrong
    }

    fn record(&mut self, kind: MismatchKind, r: MismatchRecord) {
        let c = &mut self.out.inline;
        c.mismatches += 1;
        *c.by_kind.entry(kind).or_default() += 1;
        if c.first.len() < Checks::KEEP {
            c.first.push(r);
        }
    }

    pub(super) fn finish(mut self) -> VerifyOutput {
        self.out.gens = std::mem::take(&mut self.v.gens);
        self.last.rotate_left(self.next);
        self.out.last_writes = self.last;
        self.out
    }
}
