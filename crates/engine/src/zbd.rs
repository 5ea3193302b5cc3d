//! The runtime of fio's `zonemode=zbd` on a target that is not zoned (`spec/zbd.rs`): zones
//! EMULATED as fio 3.33 emulates them (`zbd.c`: `init_zone_info`, `zbd_adjust_block`,
//! `zbd_convert_to_open_zone`, `zbd_find_zone`), as facts, not code. Every zone starts empty;
//! a write goes to the write pointer of an open zone (opening the zone of its offset while the
//! open limit allows, else one already open), resets a full zone first, and closes the zone when
//! it reaches the capacity; a read stays below the write pointer of its zone or the nearest zone
//! holding data, and with none the job ends (fio's `io_u_eof`): on fresh zones a read job moves
//! nothing, as fio's does.
//!
//! One [`ZoneTable`] per target is shared by every job on it, as fio shares `zbd_info`: one
//! atomic word per zone (its write pointer, and an open bit), a fixed array of open-zone slots
//! and a few counters. A write reserves its range with one compare-and-swap at issue time (fio
//! moves the write pointer when the I/O is queued); a write that fills a zone closes it then.
//! No lock and no allocation per I/O.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::AcqRel, Ordering::Acquire, Ordering::Relaxed};
use std::sync::Arc;

use crate::error::Error;
use crate::gen::Op;
use crate::spec::zbd::{whole_zones, Zbd};
use crate::spec::AccessSpec;

/// The open bit of a zone's word; the rest is its write pointer (bytes from the zone's start).
const OPEN: u64 = 1 << 63;
const WP: u64 = OPEN - 1;
/// A free open-zone slot.
const FREE: u32 = u32::MAX;

/// The emulated zones of one target, shared by its jobs.
pub struct ZoneTable {
    zone: u64,
    cap: u64,
    max_open: u32,
    /// Per zone: its write pointer (bytes written from its start), with [`OPEN`].
    zones: Box<[AtomicU64]>,
    /// The open zones' indices, [`FREE`] where none (`max_open` slots).
    slots: Box<[AtomicU32]>,
    open: AtomicU32,
    /// Bytes below the write pointers (fio's `sectors_with_data`).
    with_data: AtomicU64,
    /// Writes to go before the next threshold reset (fio's `write_cnt`), and its start value.
    write_cnt: AtomicU64,
    write_every: u64,
    resets: AtomicU64,
}

impl ZoneTable {
    /// The zones of a target of `size` bytes (the last one may be cut short, as in fio).
    pub fn new(z: &Zbd, size: u64) -> ZoneTable {
        let n = size.div_ceil(z.zone_bytes).max(1) as usize;
        // fio: write_cnt = min(1 / zone_reset_frequency, UINT_MAX), UINT_MAX when 0.
        let every = if z.reset_frequency > 0.0 { (1.0 / z.reset_frequency).min(u32::MAX as f64) as u64 } else { 0 };
        ZoneTable {
            zone: z.zone_bytes,
            cap: z.capacity(),
            max_open: z.max_open,
            zones: (0..n).map(|_| AtomicU64::new(0)).collect(),
            slots: (0..z.max_open).map(|_| AtomicU32::new(FREE)).collect(),
            open: AtomicU32::new(0),
            with_data: AtomicU64::new(0),
            write_cnt: AtomicU64::new(every.max(1)),
            write_every: every,
            resets: AtomicU64::new(0),
        }
    }

    /// Zones reset so far (fio's `nr_zone_resets`, its status line's "zone resets").
    pub fn resets(&self) -> u64 {
        self.resets.load(Relaxed)
    }

    /// Each zone's write pointer (bytes from its start), for tests and reports.
    pub fn write_pointers(&self) -> Vec<u64> {
        self.zones.iter().map(|z| z.load(Relaxed) & WP).collect()
    }

    fn wp(&self, z: u64) -> u64 {
        self.zones[z as usize].load(Acquire) & WP
    }

    /// fio's `zbd_dec_and_reset_write_cnt`: true every `write_every`-th call.
    fn count_down(&self) -> bool {
        let prev =
            self.write_cnt.fetch_update(AcqRel, Acquire, |c| Some(if c <= 1 { self.write_every } else { c - 1 }));
        prev.is_ok_and(|c| c <= 1)
    }

    /// Take zone `z` out of the open slots (its write reached the capacity).
    fn close(&self, z: u64) {
        for s in self.slots.iter() {
            if s.compare_exchange(z as u32, FREE, AcqRel, Acquire).is_ok() {
                break;
            }
        }
        self.open.fetch_sub(1, AcqRel);
    }
}

/// One job's view of its target's zones.
pub struct JobZones {
    table: Arc<ZoneTable>,
    /// The job's zones: `[first, end)`.
    first: u64,
    end: u64,
    region_start: u64,
    region_len: u64,
    min_bs: u64,
    random: bool,
    mixed: bool,
    read_beyond_wp: bool,
    job_max_open: u32,
    job_open: u32,
    /// Threshold resets: the bytes with data above which they happen (None: none).
    reset_above: Option<u64>,
    skip: u64,
}

impl JobZones {
    /// Job zones over `[start, start + span)` of `table` for `spec` (which has `zbd`). A job
    /// that writes works in the whole zones of its region (fio rounds the region in; the plan
    /// refused a region without one); a read-only job in the zones its region touches.
    pub fn new(table: Arc<ZoneTable>, spec: &AccessSpec, start: u64, span: u64) -> JobZones {
        let z = spec.zbd.unwrap_or_default();
        let zone = table.zone;
        let (first, end) = match whole_zones(zone, start, span).filter(|_| spec.has_writes()) {
            Some(r) => r,
            None => (start / zone, ((start + span) / zone).max(start / zone + 1)),
        };
        let end = end.min(table.zones.len() as u64);
        JobZones {
            first,
            end: end.max(first + 1),
            region_start: start,
            region_len: span.max(1),
            min_bs: spec.min_bs().max(1),
            random: spec.random_pct > 0,
            mixed: spec.read_pct > 0 && spec.read_pct < 100,
            read_beyond_wp: z.read_beyond_wp,
            job_max_open: z.job_max_open,
            job_open: 0,
            reset_above: (z.reset_frequency > 0.0).then_some((span as f64 * z.reset_threshold) as u64),
            skip: z.skip_bytes,
            table,
        }
    }

    /// fio's `zbd_adjust_ddir`: a mixed job's read becomes a write while no zone holds data.
    #[inline]
    pub fn direction(&self, op: Op) -> Op {
        if op == Op::Read && self.mixed && !self.read_beyond_wp && self.table.with_data.load(Relaxed) == 0 {
            return Op::Write;
        }
        op
    }

    /// Where an I/O the generator chose at `offset` for `len` bytes goes, and its length; None:
    /// the job can do no more (fio's `io_u_eof`).
    #[inline]
    pub fn adjust(&mut self, op: Op, offset: u64, len: u64) -> Option<(u64, u64)> {
        match op {
            Op::Read => self.read(offset, len),
            Op::Write => self.write(offset, len),
            Op::Trim => Some((offset, len)),
        }
    }

    /// Where a sequential job goes after the I/O `[offset, offset + len)`: on in its zone, or
    /// past a full zone (and `skip`), as fio's `setup_zbd_zone_mode` moves `last_pos`.
    #[inline]
    pub fn next_seq(&self, op: Op, offset: u64, len: u64) -> u64 {
        let t = &*self.table;
        let z = offset / t.zone;
        let (zs, after) = (z * t.zone, offset + len);
        let done = match op {
            Op::Write => after >= zs + t.cap,
            _ => after >= zs + t.zone || (!self.read_beyond_wp && self.skip > 0 && after >= zs + t.wp(z)),
        };
        if done && (self.skip > 0 || op == Op::Write) {
            zs + t.zone + self.skip
        } else {
            after
        }
    }

    fn zone_of(&self, offset: u64) -> u64 {
        (offset / self.table.zone).clamp(self.first, self.end - 1)
    }

    fn read(&mut self, o: u64, len: u64) -> Option<(u64, u64)> {
        if self.read_beyond_wp {
            return Some((o, len));
        }
        let t = &*self.table;
        let zb = self.zone_of(o);
        let (mut z, mut range, mut off) = (zb, t.wp(zb), o);
        if range < self.min_bs || (!self.random && o + self.min_bs > zb * t.zone + range) {
            z = self.find(zb)?;
            range = t.wp(z);
            if !self.random {
                off = z * t.zone;
            }
        }
        let zs = z * t.zone;
        if range <= len {
            off = zs;
        } else if self.random {
            off = zs + (o.saturating_sub(zb * t.zone) % (range - len)) / self.min_bs * self.min_bs;
        }
        let n = len.min((zs + range).saturating_sub(off)) / self.min_bs * self.min_bs;
        (n > 0).then_some((off, n))
    }

    /// fio's `zbd_find_zone`: the next zone holding a block of data; for a random job also the
    /// previous ones, nearest first.
    fn find(&self, zb: u64) -> Option<u64> {
        let t = &*self.table;
        let mut k = 1;
        loop {
            let up = zb + k;
            let down = zb.checked_sub(k).filter(|&d| d >= self.first && self.random);
            if up >= self.end && down.is_none() {
                return None;
            }
            if up < self.end && t.wp(up) >= self.min_bs {
                return Some(up);
            }
            if up >= self.end && !self.random {
                return None;
            }
            if let Some(d) = down.filter(|&d| t.wp(d) >= self.min_bs) {
                return Some(d);
            }
            k += 1;
        }
    }

    fn write(&mut self, o: u64, len: u64) -> Option<(u64, u64)> {
        // A zone chosen may be filled and closed by another job before this one reserves its
        // range: choose again (a few times; a zone is then free or open).
        for _ in 0..64 {
            let zb = self.zone_of(o);
            let z = if self.try_open(zb) { zb } else { self.convert(o, zb)? };
            if let Some(r) = self.reserve(z, len) {
                return Some(r);
            }
        }
        None
    }

    /// fio's `zbd_open_zone`: true when `z` is open (or may be, with no limit).
    fn try_open(&mut self, z: u64) -> bool {
        let t = &*self.table;
        if t.max_open == 0 {
            return true;
        }
        let word = &t.zones[z as usize];
        let s = word.load(Acquire);
        if s & OPEN != 0 {
            return s & WP < t.cap;
        }
        if self.job_max_open > 0 && self.job_open >= self.job_max_open {
            return false;
        }
        if t.open.fetch_add(1, AcqRel) >= t.max_open {
            t.open.fetch_sub(1, AcqRel);
            return false;
        }
        // The count was taken first and a closer frees its slot before giving its count back:
        // a free slot is there. The slot is taken before the zone shows open, so a job that
        // fills and closes the zone always finds a slot to free.
        'place: loop {
            for s in t.slots.iter() {
                if s.compare_exchange(FREE, z as u32, AcqRel, Acquire).is_ok() {
                    break 'place;
                }
            }
            std::hint::spin_loop();
        }
        if let Err(now) = word.fetch_update(AcqRel, Acquire, |s| (s & OPEN == 0).then_some(s | OPEN)) {
            // Another job opened it meanwhile: give back the slot and the count.
            t.close(z);
            return now & WP < t.cap;
        }
        self.job_open += 1;
        true
    }

    /// fio's `zbd_convert_to_open_zone`: an open zone of the job's with room (a quasi-random one
    /// from the offset, as fio picks), else the next zone that can be opened, else any open
    /// zone with room.
    fn convert(&mut self, o: u64, zb: u64) -> Option<u64> {
        let t = Arc::clone(&self.table);
        let slots = t.slots.len() as u64;
        let (first, end) = (self.first, self.end);
        let mine = move |z: u32| z != FREE && (first..end).contains(&(z as u64));
        let mut start = zb;
        if slots > 0 && t.open.load(Acquire) > 0 {
            let k = ((o.saturating_sub(self.region_start) as u128 * slots as u128) / self.region_len as u128) as u64;
            for i in 0..slots {
                let z = t.slots[((k + i) % slots) as usize].load(Acquire);
                if mine(z) {
                    if t.wp(z as u64) + self.min_bs <= t.cap {
                        return Some(z as u64);
                    }
                    start = z as u64;
                    break;
                }
            }
        }
        // The zones after `start`, wrapping in the job's zones.
        let n = self.end - self.first;
        for i in 1..=n {
            let z = self.first + (start - self.first + i) % n;
            if t.zones[z as usize].load(Acquire) & OPEN == 0 && self.try_open(z) {
                return Some(z);
            }
        }
        t.slots
            .iter()
            .map(|s| s.load(Acquire))
            .find(|&z| mine(z) && t.wp(z as u64) + self.min_bs <= t.cap)
            .map(u64::from)
    }

    /// Reserve `len` bytes (at most) at the write pointer of open zone `z`, resetting it first
    /// when full (or on a threshold reset). None: `z` was closed meanwhile.
    fn reserve(&mut self, z: u64, len: u64) -> Option<(u64, u64)> {
        let t = &*self.table;
        let threshold = self.reset_above.is_some_and(|above| t.with_data.load(Relaxed) >= above) && t.count_down();
        let word = &t.zones[z as usize];
        let mut s = word.load(Acquire);
        loop {
            if t.max_open > 0 && s & OPEN == 0 {
                return None;
            }
            let wp = s & WP;
            let reset = threshold || wp + self.min_bs > t.cap;
            let base = if reset { 0 } else { wp };
            let n = len.min(t.cap - base) / self.min_bs * self.min_bs;
            let closes = t.max_open > 0 && base + n >= t.cap;
            let new = (base + n) | if closes { 0 } else { s & OPEN };
            match word.compare_exchange_weak(s, new, AcqRel, Acquire) {
                Ok(_) => {
                    if reset && wp > 0 {
                        t.resets.fetch_add(1, Relaxed);
                        t.with_data.fetch_sub(wp, Relaxed);
                    }
                    t.with_data.fetch_add(n, Relaxed);
                    if closes {
                        t.close(z);
                        self.job_open = self.job_open.saturating_sub(1);
                    }
                    return Some((z * t.zone + base, n));
                }
                Err(now) => s = now,
            }
        }
    }
}

/// The plan's checks of `spec`'s zbd zones on target `info` with region `[start, start + span)`:
/// a really zoned device is refused (only emulated zones are run), then fio's checks of the
/// emulated zones against the target (`AccessSpec::check_zbd_against`).
pub fn check_target(spec: &AccessSpec, info: &crate::target::TargetInfo, start: u64, span: u64) -> Result<(), Error> {
    if spec.zbd.is_none() {
        return Ok(());
    }
    if let (crate::target::TargetKind::Block, Some(disk)) = (info.kind, info.disk.as_deref()) {
        refuse_zoned(std::path::Path::new(crate::sysfs::SYS), disk, &info.path)?;
    }
    spec.check_zbd_against(&info.path, info.size_bytes, info.dio_align_bytes, start, span)
}

/// Refuse `disk` (under the sysfs root `sys`) when its `queue/zoned` says it is zoned: its zones
/// and write pointers are the device's, which drivelab does not read or reset (fio's
/// `blkzoned_*`); emulation is for devices whose `queue/zoned` is `none`.
pub fn refuse_zoned(sys: &std::path::Path, disk: &str, path: &str) -> Result<(), Error> {
    let zoned = crate::sysfs::DiskFacts::read(sys, disk).and_then(|f| f.zoned);
    match zoned.as_deref() {
        Some(model @ ("host-managed" | "host-aware")) => Err(Error::invalid(format!(
            "{path} is a zoned block device ({disk}: queue/zoned is {model}): drivelab emulates zones \
             (zonemode=zbd) only on files and devices that are not zoned, and does not drive real zones; run this \
             job with fio on {path}, or give a file or a conventional device"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "zbd_tests.rs"]
mod tests;
