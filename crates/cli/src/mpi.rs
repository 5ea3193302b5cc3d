//! drivelab under `mpirun` (issue #15): the lab's [`Transport`] over MPI (rsmpi on Open MPI),
//! built with `--features mpi`. Everything the ranks do together is in `drivelab_lab::ranks`;
//! this module only starts MPI, carries bytes, and ends MPI before the process exits.
//!
//! A rank waiting for the others (a slow rank still preparing, or still measuring an `--io-size`
//! run) must not spin a CPU its host's other ranks are measuring with, as MPI's blocking
//! collectives do: every collective first meets the others at a non-blocking barrier, tested
//! for 1 ms and then every 50 µs asleep, and only then runs, when every rank is there.
//!
//! Without the feature, a drivelab started by `mpirun` with more than one rank refuses to run
//! (N copies would each write their own results): the message says how to build it.

use std::cell::RefCell;
use std::rc::Rc;

use drivelab_engine::Error;
use drivelab_lab::ranks::{Ranks, Share};

thread_local! {
    /// Under `mpirun`: this process's ranks (set once at start, on the main thread, the only
    /// one that talks MPI); None when alone.
    static RANKS: RefCell<Option<Rc<Ranks>>> = const { RefCell::new(None) };
}

/// This process's place among MPI ranks, when started by `mpirun`.
pub fn ranks() -> Option<Rc<Ranks>> {
    RANKS.with(|r| r.borrow().clone())
}

/// This process writes results files (always, but for an MPI rank other than 0).
pub fn writes() -> bool {
    ranks().is_none_or(|r| r.is_writer())
}

/// How many ranks `mpirun` (Open MPI, MPICH/PMI) says it started, when it did.
/// Whether mpirun (or another MPI launcher) started this process.
pub fn launched() -> bool {
    launched_size().is_some()
}

fn launched_size() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// Start MPI when started by `mpirun` (collective: every rank learns every rank's host).
/// Commands that do not measure (report, compare, info...) never start it.
pub fn start(share: Share) -> Result<(), Error> {
    let ranks = match launched_size() {
        None => None,
        Some(size) => world(size, share)?,
    };
    RANKS.with(|r| *r.borrow_mut() = ranks);
    Ok(())
}

#[cfg(not(feature = "mpi"))]
fn world(size: usize, share: Share) -> Result<Option<Rc<Ranks>>, Error> {
    if size <= 1 && share == Share::Own {
        return Ok(None);
    }
    Err(Error::invalid(format!(
        "started by mpirun with {size} ranks, but this drivelab was built without MPI: build it with \
         `cargo build --release -p drivelab --features mpi` (needs Debian's libopenmpi-dev and libclang-dev), \
         or run it without mpirun"
    )))
}

#[cfg(feature = "mpi")]
fn world(_size: usize, share: Share) -> Result<Option<Rc<Ranks>>, Error> {
    let transport = wire::MpiTransport::start()?;
    Ok(Some(Rc::new(Ranks::new(Box::new(transport), share))))
}

/// End MPI (every rank must, or `mpirun` reports the job as failed): called before the process
/// exits.
pub fn finish() {
    #[cfg(feature = "mpi")]
    wire::finish();
}

#[cfg(feature = "mpi")]
mod wire {
    use std::cell::{Cell, RefCell};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use drivelab_engine::Error;
    use drivelab_lab::ranks::{StopLine, Transport};
    use mpi::datatype::PartitionMut;
    use mpi::request::{LocalScope, Request};
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;
    use mpi::Count;

    /// The universe, dropped (`MPI_Finalize`) by [`finish`].
    static UNIVERSE: Mutex<Option<mpi::environment::Universe>> = Mutex::new(None);

    pub struct MpiTransport {
        world: SimpleCommunicator,
    }

    impl MpiTransport {
        pub fn start() -> Result<MpiTransport, Error> {
            let Some(universe) = mpi::initialize() else {
                return Err(Error::invalid("MPI was already started in this process"));
            };
            let world = universe.world();
            *UNIVERSE.lock().unwrap_or_else(|e| e.into_inner()) = Some(universe);
            Ok(MpiTransport { world })
        }

        /// Wait until every rank is here without holding a CPU.
        fn meet(&self) {
            let mut req = self.world.immediate_barrier();
            let started = Instant::now();
            loop {
                match req.test() {
                    Ok(_) => return,
                    Err(r) => req = r,
                }
                if started.elapsed() > Duration::from_millis(1) {
                    std::thread::sleep(Duration::from_micros(50));
                } else {
                    std::hint::spin_loop();
                }
            }
        }
    }

    impl Transport for MpiTransport {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }

        fn size(&self) -> usize {
            self.world.size() as usize
        }

        fn all_gather(&self, mine: &[u8]) -> Vec<Vec<u8>> {
            self.meet();
            let size = self.size();
            let mut counts: Vec<Count> = vec![0; size];
            self.world.all_gather_into(&(mine.len() as Count), &mut counts[..]);
            let displs: Vec<Count> = counts
                .iter()
                .scan(0, |acc, &n| {
                    let at = *acc;
                    *acc += n;
                    Some(at)
                })
                .collect();
            let mut all = vec![0u8; counts.iter().map(|&n| n as usize).sum()];
            {
                let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
                self.world.all_gather_varcount_into(mine, &mut partition);
            }
            counts.iter().zip(&displs).map(|(&n, &at)| all[at as usize..(at + n) as usize].to_vec()).collect()
        }

        fn barrier(&self) {
            self.meet();
            // Every rank is here: the blocking barrier releases them as one.
            self.world.barrier();
        }

        fn with_stop_line(&self, measure: &mut dyn FnMut(&dyn StopLine)) {
            let me = self.world.rank();
            let mut slot: i32 = 0;
            mpi::request::scope(|scope| {
                let listen = self.world.any_process().immediate_receive_into_with_tag(scope, &mut slot, STOP_TAG);
                let line = MpiLine {
                    world: &self.world,
                    scope,
                    me: &me,
                    listen: RefCell::new(Some(listen)),
                    heard: Cell::new(None),
                    sends: RefCell::new(Vec::new()),
                };
                measure(&line);
                // Every rank done measuring: how many stops were sent to this one, so that each
                // is received here and none is left to be heard in the next measurement.
                let said = self.all_gather(&[u8::from(!line.sends.borrow().is_empty())]);
                let senders = said.iter().enumerate().filter(|&(r, b)| r != me as usize && b[0] == 1).count();
                let mut received = usize::from(line.heard.get().is_some());
                if let Some(listen) = line.listen.take() {
                    if senders > received {
                        listen.wait();
                        received += 1;
                    } else {
                        // Nothing was sent here: the receive can only be withdrawn.
                        listen.cancel();
                        listen.wait();
                    }
                }
                for _ in received..senders {
                    let _: (i32, _) = self.world.any_process().receive_with_tag(STOP_TAG);
                }
                for send in line.sends.take() {
                    send.wait();
                }
            });
        }
    }

    /// The tag of a stop; collectives run in a context of their own, so nothing else matches it.
    const STOP_TAG: i32 = 0x5709;

    /// One measurement's [`StopLine`]: a receive from any rank posted at its start, tested at
    /// each progress tick; a stop is a 4-byte message (the sender's rank) to every other rank.
    struct MpiLine<'a, 's> {
        world: &'a SimpleCommunicator,
        scope: &'s LocalScope<'a>,
        me: &'a i32,
        listen: RefCell<Option<Request<'a, i32, &'s LocalScope<'a>>>>,
        heard: Cell<Option<usize>>,
        sends: RefCell<Vec<Request<'a, i32, &'s LocalScope<'a>>>>,
    }

    impl StopLine for MpiLine<'_, '_> {
        fn say(&self) {
            let mut sends = self.sends.borrow_mut();
            if !sends.is_empty() || self.world.size() == 1 {
                return;
            }
            for rank in (0..self.world.size()).filter(|&r| r != *self.me) {
                sends.push(self.world.process_at_rank(rank).immediate_send_with_tag(self.scope, self.me, STOP_TAG));
            }
        }

        fn heard(&self) -> Option<usize> {
            if self.heard.get().is_none() {
                let pending = self.listen.take();
                match pending.map(Request::test) {
                    Some(Ok(status)) => self.heard.set(Some(status.source_rank() as usize)),
                    Some(Err(listen)) => *self.listen.borrow_mut() = Some(listen),
                    None => {}
                }
            }
            self.heard.get()
        }
    }

    pub fn finish() {
        drop(UNIVERSE.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}
