//! (tests only) Ranks as threads of one process: a [`Transport`] over a mutex and a condition
//! variable, so the lab's MPI logic is tested without MPI.

use std::sync::{Arc, Condvar, Mutex};

use super::{StopLine, Transport};

struct Round {
    /// Which collective this is (each rank's count of calls so far).
    generation: u64,
    slots: Vec<Option<Vec<u8>>>,
    /// The last finished round's contributions, for the ranks still to collect them.
    done: Vec<Vec<u8>>,
}

struct World {
    size: usize,
    round: Mutex<Round>,
    changed: Condvar,
    /// The rank that said stop in the current measurement.
    stop: Mutex<Option<usize>>,
}

/// One rank's end of a world of threads.
pub struct LocalTransport {
    world: Arc<World>,
    rank: usize,
}

/// `size` transports, one per rank (each moved into its thread).
pub fn world(size: usize) -> Vec<LocalTransport> {
    let world = Arc::new(World {
        size,
        round: Mutex::new(Round { generation: 0, slots: vec![None; size], done: Vec::new() }),
        changed: Condvar::new(),
        stop: Mutex::new(None),
    });
    (0..size).map(|rank| LocalTransport { world: world.clone(), rank }).collect()
}

impl Transport for LocalTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.world.size
    }

    fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let w = &self.world;
        let mut round = w.round.lock().expect("a rank thread panicked");
        // A rank that comes back before the others took the last round's bytes waits.
        while round.slots[self.rank].is_some() {
            round = w.changed.wait(round).expect("a rank thread panicked");
        }
        let generation = round.generation;
        round.slots[self.rank] = Some(mine.to_vec());
        if round.slots.iter().all(Option::is_some) {
            round.done = round.slots.iter_mut().map(|s| s.take().expect("all present")).collect();
            round.generation += 1;
            w.changed.notify_all();
        } else {
            while round.generation == generation {
                round = w.changed.wait(round).expect("a rank thread panicked");
            }
        }
        round.done.clone()
    }

    fn barrier(&self) {
        self.all_gather(&[]);
    }

    fn with_stop_line(&self, measure: &mut dyn FnMut(&dyn StopLine)) {
        measure(self);
        // Every rank done; then the line is cleared before any rank measures again.
        self.barrier();
        if self.rank == 0 {
            *self.world.stop.lock().expect("a rank thread panicked") = None;
        }
        self.barrier();
    }
}

impl StopLine for LocalTransport {
    fn say(&self) {
        self.world.stop.lock().expect("a rank thread panicked").get_or_insert(self.rank);
    }

    fn heard(&self) -> Option<usize> {
        self.world.stop.lock().expect("a rank thread panicked").filter(|&r| r != self.rank)
    }
}
