//! The per-I/O priority draw (fio's `cmdprio_*`): each read or write gets the job's priority, or
//! with its entry's share one of the per-I/O ones for its direction and size, as fio 3.33's
//! cmdprio.c draws it (one draw 0..99 per I/O whose size has entries; the entries' shares taken
//! in order). Its own RNG, so turning priorities on leaves offsets, sizes and directions as they
//! were. Fixed arrays: no allocation per I/O.

use crate::spec::prio::{IoPrio, MAX_CMDPRIO};

use super::Op;

#[derive(Clone, Copy, Default)]
struct Entry {
    /// 0: every size.
    len: u32,
    pct: u32,
    ioprio: u16,
}

pub struct PrioDraw {
    rng: fastrand::Rng,
    job: u16,
    entries: [[Entry; MAX_CMDPRIO]; 2],
    n: [usize; 2],
}

impl PrioDraw {
    /// The draw for `prio` (None: every I/O at priority 0, the thread's own), seeded by `seed`.
    pub fn new(prio: Option<&IoPrio>, seed: u64) -> PrioDraw {
        let mut d = PrioDraw {
            rng: fastrand::Rng::with_seed(seed ^ 0x7072_696f_7072_696f),
            job: prio.map_or(0, |p| p.job),
            entries: [[Entry::default(); MAX_CMDPRIO]; 2],
            n: [0; 2],
        };
        for (dir, list) in prio.map(|p| &p.cmd[..]).unwrap_or(&[]).iter().enumerate() {
            // fio keeps only the entries with a share.
            for e in list.iter().filter(|e| e.pct > 0).take(MAX_CMDPRIO) {
                d.entries[dir][d.n[dir]] = Entry { len: e.bytes as u32, pct: e.pct as u32, ioprio: e.ioprio };
                d.n[dir] += 1;
            }
        }
        d
    }

    /// The priority of the next I/O of `op` and `len` bytes.
    #[inline]
    pub fn next(&mut self, op: Op, len: u32) -> u16 {
        let dir = match op {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => return self.job,
        };
        let n = self.n[dir];
        if n == 0 {
            return self.job;
        }
        let list = &self.entries[dir][..n];
        let total: u32 = list.iter().filter(|e| e.len == 0 || e.len == len).map(|e| e.pct).sum();
        if total == 0 {
            return self.job;
        }
        let r = self.rng.u32(0..100);
        if r >= total {
            return self.job;
        }
        let mut below = 0;
        for e in list.iter().filter(|e| e.len == 0 || e.len == len) {
            below += e.pct;
            if r < below {
                return e.ioprio;
            }
        }
        self.job
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::prio::parse_cmd;

    #[test]
    fn shares_per_direction_and_size_hold_and_the_rest_run_at_the_jobs_priority() {
        let p = IoPrio { job: 0x4007, cmd: parse_cmd("64k/25/1/1:64k/75/3/2:1m/0/1/0,1m/0/1/0").unwrap() };
        let mut d = PrioDraw::new(Some(&p), 1);
        let n = 100_000;
        let mut counts = std::collections::HashMap::new();
        for _ in 0..n {
            *counts.entry(d.next(Op::Read, 65536)).or_insert(0u32) += 1;
        }
        let rt = counts[&0x2001] as f64 / n as f64;
        assert!((rt - 0.25).abs() < 0.01, "25% real-time level 1, got {rt}");
        assert_eq!(counts[&0x2001] + counts[&0x6002], n as u32, "every 64k read has an entry");
        assert!((0..1000).all(|_| d.next(Op::Read, 1 << 20) == 0x4007), "0% entries: the job's");
        assert!((0..1000).all(|_| d.next(Op::Write, 1 << 20) == 0x4007));
        let mut none = PrioDraw::new(None, 1);
        assert_eq!(none.next(Op::Read, 4096), 0);
    }

    #[test]
    fn a_percentage_for_every_size_picks_that_share() {
        let p = IoPrio { job: 0x6000, cmd: parse_cmd("*/20/1/0").unwrap() };
        let mut d = PrioDraw::new(Some(&p), 7);
        let rt = (0..100_000).filter(|_| d.next(Op::Read, 131072) == 0x2000).count();
        assert!((rt as f64 / 1e5 - 0.2).abs() < 0.01, "{rt}");
    }
}
