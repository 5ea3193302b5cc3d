//! I/O backends behind one small trait, fio-style: submit a batch, wait for a completion,
//! reap what completed. The worker loop is generic over the backend, so the
//! hot path is monomorphized: no dynamic dispatch, no allocation per I/O.
//!
//! Results follow io_uring's convention everywhere: bytes transferred, or `-errno`.

pub mod null;
pub mod psync;
pub mod uring;

use crate::gen::Op;

/// One I/O handed to a backend. `slot` identifies the I/O and its buffer until it completes.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub slot: u32,
    pub op: Op,
    pub offset: u64,
    pub len: u32,
    pub buf: *mut u8,
}

pub trait Backend {
    /// True when `submit` performs the I/O itself (psync, null): latency is then stamped before
    /// `submit`. Otherwise (io_uring) it is stamped when `submit` returns, as fio does, so the
    /// submission system call is not counted as device latency (fio's clat).
    const SUBMIT_COMPLETES: bool;
    /// Hand `batch` to the kernel (or perform it).
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
