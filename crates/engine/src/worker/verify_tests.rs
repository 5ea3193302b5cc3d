//! Verification in the job loop, on a mock drive that stores data in memory and completes I/Os
//! out of order: overlapping I/Os are held, what is read is checked against what was written,
//! and a drive that corrupts a unit is caught at that unit.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::tests::ctx;
use super::*;
use crate::backend::Pending;
use crate::clock::now_ns;
use crate::pattern::BufferPool;
use crate::verify::{GenerationMap, MismatchKind, UnitFormat};

/// A RAM drive: I/Os are done at submit time into `media`, but completed (reported) only at
/// the next wait, newest first — so several are in flight and they complete out of order.
struct RamDrive {
    pool: BufferPool,
    media: Vec<u8>,
    done: Vec<(u32, i32)>,
    /// Reads of this byte come back with bit 0 flipped.
    flip_at: Option<u64>,
}

// SAFETY: touches only `p.len` bytes of slot `p.slot`'s buffer, inside `submit`.
unsafe impl Backend for RamDrive {
    const SUBMIT_COMPLETES: bool = false;
    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
        for p in batch {
            let (o, n) = (p.offset as usize, p.len as usize);
            let buf = &mut self.pool.slot_mut(p.slot as usize)[..n];
            match p.op {
                Op::Write => self.media[o..o + n].copy_from_slice(buf),
                Op::Trim => self.media[o..o + n].fill(0),
                Op::Read => {
                    buf.copy_from_slice(&self.media[o..o + n]);
                    if let Some(f) = self.flip_at.filter(|f| (o as u64..(o + n) as u64).contains(f)) {
                        buf[(f - o as u64) as usize] ^= 1;
                    }
                }
            }
            self.done.push((p.slot, p.len as i32));
        }
        Ok(())
    }
    fn wait(&mut self, _n: u32) -> std::io::Result<()> {
        Ok(())
    }
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        while let Some((slot, res)) = self.done.pop() {
            f(slot, res);
        }
    }
    fn fsync(&mut self, _data_only: bool) -> std::io::Result<()> {
        Ok(())
    }
}

const SPAN: u64 = 64 << 10;

fn verifying(read_pct: u8, qd: u32) -> (JobCtx, JobVerify) {
    let spec = AccessSpec {
        read_pct,
        qd,
        time_ns: None,
        io_size_bytes: Some(4 << 20),
        verify: true,
        bs: vec![crate::spec::BlockSize { bytes: 4096, pct: 50 }, crate::spec::BlockSize { bytes: 16384, pct: 50 }],
        ..Default::default()
    };
    let unit = spec.verify_unit().unwrap();
    assert_eq!(unit, 4096);
    let mut c = ctx(spec, None);
    c.span = SPAN;
    let map = GenerationMap::new(0, SPAN, unit).unwrap();
    let v = JobVerify {
        format: Arc::new(UnitFormat::new(unit as usize, 0x5eed, 0)),
        target: 0,
        region_start: 0,
        gens: map.slice(0, map.len()),
        serve_reads: false,
        journal: None,
        reads_only: false,
        check_found: false,
    };
    (c, v)
}

fn drive(qd: u32, flip_at: Option<u64>) -> RamDrive {
    RamDrive { pool: BufferPool::new(qd as usize, 16384), media: vec![0; SPAN as usize], done: Vec::new(), flip_at }
}

#[test]
fn overlapping_ios_are_held_and_every_read_finds_what_was_written() {
    let (c, v) = verifying(50, 16);
    let out = run_job(&c, &mut drive(16, None), now_ns(), Some(v));
    assert!(out.errors.is_empty() && !out.stopped_by_error);
    let v = out.verify.expect("verify output");
    assert_eq!(v.inline.mismatches, 0, "{:?}", v.inline.first);
    assert!(v.inline.checked_units > 100, "{}", v.inline.checked_units);
    // 16 I/Os in flight over 16 units of 4-16 KiB: overlaps are the rule, and each was held.
    assert!(v.held_ios > 10, "{} held", v.held_ios);
    assert!(v.gens.iter().any(|&g| g > 1), "units were rewritten: generations moved on");
}

#[test]
fn a_corrupt_read_is_caught_at_its_unit_and_stops_the_job() {
    let (c, v) = verifying(50, 4);
    let out = run_job(&c, &mut drive(4, Some(5 * 4096 + 100)), now_ns(), Some(v));
    let v = out.verify.expect("verify output");
    assert!(out.stopped_by_error, "wrong data stops the job");
    assert_eq!(v.inline.mismatches, 1);
    let m = &v.inline.first[0];
    assert_eq!((m.kind, m.offset_bytes, m.bits, m.differs_at_byte), (MismatchKind::BitFlip, 5 * 4096, 1, Some(100)));
}

#[test]
fn without_verify_nothing_is_held_or_checked() {
    let (c, _) = verifying(50, 16);
    let mut spec = (*c.spec).clone();
    spec.verify = false;
    let c = JobCtx { spec: Arc::new(spec), stop: Arc::new(AtomicBool::new(false)), ..c };
    let out = run_job(&c, &mut drive(16, Some(100)), now_ns(), None);
    assert!(out.verify.is_none() && !out.stopped_by_error);
}

#[test]
fn a_reading_job_checks_what_it_finds_by_each_units_own_header() {
    // fio's verify of a job that only reads: data another run stamped (its own seed, target id
    // and generations) passes; units of another size, or never written, do not.
    let (c, v) = verifying(100, 4);
    let v = JobVerify { reads_only: true, check_found: true, ..v };
    let mut d = drive(4, None);
    let theirs = UnitFormat::new(4096, 0xabcd, 0);
    for (k, u) in d.media.chunks_exact_mut(4096).enumerate() {
        theirs.stamp(u, 7, k as u64 * 4096, 3);
    }
    let run = |d: &mut RamDrive, v: JobVerify| run_job(&c, d, now_ns(), Some(v)).verify.expect("verify output");
    let out = run(&mut d, JobVerify { gens: v.gens.clone(), format: v.format.clone(), ..v });
    assert_eq!(out.inline.mismatches, 0, "{:?}", out.inline.first);
    assert!(out.inline.checked_units > 100 && out.unchecked_units == 0);
    let small = UnitFormat::new(512, 0xabcd, 0);
    for (k, u) in d.media.chunks_exact_mut(512).enumerate() {
        small.stamp(u, 7, k as u64 * 512, 1);
    }
    let (_, v) = verifying(100, 4);
    let out = run(&mut d, JobVerify { reads_only: true, check_found: true, ..v });
    assert!(out.inline.mismatches > 0, "512-byte units read as 4 KiB ones are wrong (fio's t0003)");
    let (_, v) = verifying(100, 4);
    let out = run(&mut drive(4, None), JobVerify { reads_only: true, check_found: true, ..v });
    assert!(out.inline.mismatches > 0, "never-written units are wrong");
}
