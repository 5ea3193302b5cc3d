//! Latency objectives and the search for the highest load that meets them, with no I/O.
//!
//! Datacenter buyers ask "how much load can this drive carry while p99 stays under 1 ms", not
//! "how fast is it". Answering takes a search: run a load, judge it, pick the next load. Three
//! commands search the same way — `drivelab qos` for a rate (IOPS, real-valued, starting at the
//! measured closed-loop maximum) and for a queue depth (whole numbers, 1..max), and `drivelab act
//! --search` for the highest passing ACT load N — so the search is one pure state machine,
//! [`HighestPassing`], that proposes values and is told whether they passed. That keeps it
//! testable with made-up pass functions and synthetic histograms, which is how it is tested here.
//!
//! The search assumes passing is monotone: low loads pass, high loads fail. It starts high, steps
//! down by a factor until something passes (or climbs if the start already passes), bisects
//! between the highest pass and the lowest failure until they are close, and then runs the best
//! value once more to confirm it, because one good run can be luck. A failed confirmation counts
//! as a failure at that value and the search goes on below it.
//!
//! An [`Objective`] is the user's criteria, such as `p99<1ms,p99.9<5ms`, judged on a
//! [`Histogram`](drivelab_engine::hist::Histogram). A histogram without samples fails: no evidence is not a pass.

mod highest;
mod objective;
#[cfg(test)]
mod tests;

pub use highest::{HighestPassing, SearchOutcome, SearchSpace, Step, Unit};
pub use objective::{parse_objective, Clause, ClauseResult, Evaluation, Objective, ObjectiveError, Stat};
