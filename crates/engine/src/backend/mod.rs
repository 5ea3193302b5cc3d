//! I/O backends behind one small trait, fio-style: queue a batch, submit it and wait for at
//! least N completions, reap what completed. The worker loop is generic over the backend, so the
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
    /// Submit `batch` (may be empty) and return once at least `wait` I/Os have completed
    /// (counting earlier, unreaped completions).
    fn submit_and_wait(&mut self, batch: &[Pending], wait: u32) -> std::io::Result<()>;
    /// Hand every available completion to `f(slot, result)`.
    fn reap(&mut self, f: &mut impl FnMut(u32, i32));
    /// Make written data durable (fsync); `Ok` at once where that means nothing.
    fn fsync(&mut self) -> std::io::Result<()>;
}
