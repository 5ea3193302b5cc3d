//! I/O buffers and what write buffers hold.
//!
//! One page-aligned allocation per job, one slot per outstanding I/O (O_DIRECT needs aligned
//! memory; io_uring registers the whole pool once). Write data is filled once at start; before
//! each write only a 16-byte stamp per 4 KiB is changed — the absolute offset of that 4 KiB and a
//! tag — so no two blocks on the media are identical (dedupe can't cheat) and a test can read the
//! target back and prove each write landed where the generator said.

use std::alloc::{alloc_zeroed, dealloc, Layout};

use crate::spec::DataPattern;

/// Stamp granularity: one stamp at the start of every 4 KiB of a write (and at its offset 0).
pub const STAMP_EVERY: usize = 4096;
/// Tag in stamps written by workload writes.
pub const WRITE_TAG: u64 = 0xD1AB_0000_57A1_1EE5;
/// Tag in stamps written when drivelab fills a new file.
pub const FILL_TAG: u64 = 0xD1AB_0000_F111_F111;

/// Page-aligned, zeroed memory cut into equal slots.
pub(crate) struct BufferPool {
    ptr: *mut u8,
    layout: Layout,
    slot_bytes: usize,
    slots: usize,
}

// SAFETY: the pool owns its allocation exclusively; it is moved into one worker thread and only
// that thread (and the kernel, for I/Os that thread submitted) touches the memory.
unsafe impl Send for BufferPool {}

impl BufferPool {
    pub fn new(slots: usize, slot_bytes: usize) -> BufferPool {
        let slot_bytes = slot_bytes.div_ceil(4096) * 4096;
        let layout = Layout::from_size_align((slot_bytes * slots).max(4096), 4096).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        BufferPool { ptr, layout, slot_bytes, slots }
    }

    pub fn slot_bytes(&self) -> usize {
        self.slot_bytes
    }

    /// Raw pointer to slot `i` (for the kernel).
    pub fn slot_ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.slots);
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(i * self.slot_bytes) }
    }

    /// Where an I/O of `len` bytes in slot `slot` goes: checked to lie inside that slot.
    #[inline]
    pub fn io_ptr(&self, slot: u32, len: u32) -> *mut u8 {
        assert!(len as usize <= self.slot_bytes(), "an I/O of {len} bytes in a {}-byte slot", self.slot_bytes);
        self.slot_ptr(slot as usize)
    }

    /// Slot `i` as a slice; the caller must not hold it while the slot's I/O is in flight.
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        // SAFETY: in bounds as above; &mut self guarantees no other slice of ours aliases it.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), self.slot_bytes) }
    }

    /// iovecs covering each slot, for io_uring buffer registration.
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec { iov_base: self.slot_ptr(i) as *mut libc::c_void, iov_len: self.slot_bytes })
            .collect()
    }

    /// Fill every slot with `pattern`.
    pub fn fill(&mut self, pattern: DataPattern, seed: u64) {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0xF111);
        for i in 0..self.slots {
            fill(self.slot_mut(i), pattern, &mut rng);
        }
    }

    /// Fill every slot with `bytes` repeated from its start (fio's `buffer_pattern`).
    pub fn fill_repeating(&mut self, bytes: &[u8]) {
        for i in 0..self.slots {
            for (b, p) in self.slot_mut(i).iter_mut().zip(bytes.iter().cycle()) {
                *b = *p;
            }
        }
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout. A pool used for I/O is owned by its
        // backend, whose Drop drains every in-flight I/O first (or leaks the pool).
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Fill `buf` with the pattern's bytes.
pub(crate) fn fill(buf: &mut [u8], pattern: DataPattern, rng: &mut fastrand::Rng) {
    match pattern {
        DataPattern::Zero => buf.fill(0),
        DataPattern::Random => rng.fill(buf),
        DataPattern::Compress { pct } => {
            for chunk in buf.chunks_mut(STAMP_EVERY) {
                let random = chunk.len() * (100 - pct as usize) / 100;
                rng.fill(&mut chunk[..random]);
                chunk[random..].fill(0);
            }
        }
    }
}

/// Whether a pattern carries stamps (zeros stay zeros).
pub(crate) fn stamps(pattern: DataPattern) -> bool {
    match pattern {
        DataPattern::Zero => false,
        DataPattern::Compress { pct } => pct < 100,
        DataPattern::Random => true,
    }
}

/// Write the stamp `(offset of each 4 KiB, tag)` into the first 16 bytes of every 4 KiB.
#[inline]
pub fn stamp(buf: &mut [u8], offset: u64, tag: u64) {
    let mut at = 0usize;
    while at + 16 <= buf.len() {
        buf[at..at + 8].copy_from_slice(&(offset + at as u64).to_le_bytes());
        buf[at + 8..at + 16].copy_from_slice(&tag.to_le_bytes());
        at += STAMP_EVERY;
    }
}

/// Read a stamp back: `(offset, tag)` from the first 16 bytes of `buf`.
pub fn read_stamp(buf: &[u8]) -> (u64, u64) {
    let o = u64::from_le_bytes(buf[0..8].try_into().unwrap());
    let t = u64::from_le_bytes(buf[8..16].try_into().unwrap());
    (o, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_slots_are_page_aligned_and_disjoint() {
        let p = BufferPool::new(3, 6000);
        assert_eq!(p.slot_bytes(), 8192);
        for i in 0..3 {
            assert_eq!(p.slot_ptr(i) as usize % 4096, 0);
        }
        assert_eq!(p.slot_ptr(1) as usize - p.slot_ptr(0) as usize, 8192);
    }

    #[test]
    fn compressible_data_has_the_asked_zero_share() {
        let mut buf = vec![0xffu8; 64 * 1024];
        fill(&mut buf, DataPattern::Compress { pct: 50 }, &mut fastrand::Rng::with_seed(1));
        let zeros = buf.iter().filter(|&&b| b == 0).count() as f64 / buf.len() as f64;
        assert!((zeros - 0.5).abs() < 0.01, "{zeros}");
        fill(&mut buf, DataPattern::Random, &mut fastrand::Rng::with_seed(1));
        let zeros = buf.iter().filter(|&&b| b == 0).count() as f64 / buf.len() as f64;
        assert!(zeros < 0.01, "{zeros}");
    }

    #[test]
    fn stamps_name_each_4k_offset() {
        let mut buf = vec![0u8; 16384];
        stamp(&mut buf, 1 << 20, WRITE_TAG);
        for k in 0..4 {
            assert_eq!(read_stamp(&buf[k * 4096..]), ((1 << 20) + k as u64 * 4096, WRITE_TAG));
        }
        let mut small = vec![0u8; 512];
        stamp(&mut small, 512, WRITE_TAG);
        assert_eq!(read_stamp(&small), (512, WRITE_TAG));
    }
}
