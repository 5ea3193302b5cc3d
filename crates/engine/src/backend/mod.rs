//! I/O backends behind one small trait, fio-style: submit a batch, wait for a completion,
//! reap what completed. The worker loop is generic over the backend, so the
//! hot path is monomorphized: no dynamic dispatch, no allocation per I/O.
//!
//! Each backend owns the [`BufferPool`] its I/Os use (slot i is the buffer of the I/O with
//! `slot == i`) and the file it runs on, so neither can go away while the kernel may still use
//! them: an io_uring ring drains what is in flight in its `Drop` before its buffers are freed.
//! Only [`uring::available`] and [`uring::RingFacts`] are public; the rest is the engine's own.
//!
//! Results follow io_uring's convention everywhere: bytes transferred, or `-errno`.

pub(crate) mod null;
pub(crate) mod psync;
pub mod uring;

use crate::gen::Op;
use crate::pattern::BufferPool;

/// One I/O handed to a backend. `slot` identifies the I/O and its buffer (slot `slot` of the
/// backend's pool) until it completes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending {
    pub slot: u32,
    pub op: Op,
    pub offset: u64,
    pub len: u32,
}

/// # Safety
///
/// Implementors give the kernel (or a system call) pointers into the buffers of the
/// [`BufferPool`] they own, for I/Os that may complete after `submit` returns. They must:
/// - only touch `p.len` bytes of the buffer of slot `p.slot` for an I/O `p` (use
///   [`BufferPool::io_ptr`], which checks both);
/// - keep the pool allocated and in place while any I/O they accepted may still access it:
///   their `Drop` must wait for everything in flight (or leak the pool) before freeing it;
/// - report each accepted I/O exactly once through `reap`.
///
/// The worker, for its part, writes only the buffers of slots whose I/O is not in flight (the
/// free list owns them) through [`Backend::pool_mut`].
pub(crate) unsafe trait Backend {
    /// True when `submit` performs the I/O itself (psync, null): latency is then stamped before
    /// `submit`. Otherwise (io_uring) it is stamped when `submit` returns, as fio does, so the
    /// submission system call is not counted as device latency (fio's clat).
    const SUBMIT_COMPLETES: bool;
    /// The buffers, for filling write data into free slots.
    fn pool_mut(&mut self) -> &mut BufferPool;
    /// Hand `batch` to the kernel (or perform it). On `Ok` every I/O of the batch is in flight
    /// (or done); on `Err` the job stops.
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()>;
    /// Return once at least `n` I/Os have completed and not been reaped (at once if they have).
    fn wait(&mut self, n: u32) -> std::io::Result<()>;
    /// Like `wait`, but return after `timeout_ns` even if fewer have completed (open-loop jobs
    /// must wake for their next intended issue time). Backends whose `submit` completes the I/O
    /// have nothing in flight and return at once.
    fn wait_timeout(&mut self, n: u32, timeout_ns: u64) -> std::io::Result<()> {
        let _ = (n, timeout_ns);
        Ok(())
    }
    /// Hand every available completion to `f(slot, result)`.
    fn reap(&mut self, f: &mut impl FnMut(u32, i32));
    /// Make written data durable (fsync); `Ok` at once where that means nothing.
    fn fsync(&mut self) -> std::io::Result<()>;
}
