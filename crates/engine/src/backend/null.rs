//! The null backend: every I/O completes at once with its full length. It measures drivelab
//! itself (generator, histogram, bookkeeping) with no kernel in the way, like fio's null engine.

use super::{Backend, Pending};
use crate::pattern::BufferPool;

pub(crate) struct Null {
    done: Vec<(u32, i32)>,
    pool: BufferPool,
}

impl Null {
    pub fn new(qd: u32, pool: BufferPool) -> Null {
        Null { done: Vec::with_capacity(qd as usize), pool }
    }
}

// SAFETY: no pointer into the pool is ever handed out; nothing is in flight after `submit`.
unsafe impl Backend for Null {
    const SUBMIT_COMPLETES: bool = true;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    #[inline]
    fn submit(&mut self, batch: &[Pending]) -> std::io::Result<()> {
        self.done.extend(batch.iter().map(|p| (p.slot, p.len as i32)));
        Ok(())
    }

    #[inline]
    fn wait(&mut self, _n: u32) -> std::io::Result<()> {
        Ok(())
    }

    #[inline]
    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        for &(slot, res) in &self.done {
            f(slot, res);
        }
        self.done.clear();
    }

    fn fsync(&mut self, _data_only: bool) -> std::io::Result<()> {
        Ok(())
    }
}
