//! Data verification (issue #13): the unit format, its checks and the map of what was written,
//! with no I/O (the worker stamps and checks inline; `sweep` re-reads a target).
//!
//! A drive that is fast but returns the wrong data is worse than a slow one, so every unit of
//! data drivelab writes with `verify` carries a [`Header`]: which target, which offset, which
//! write generation, the seed that made its payload, and a CRC32C of the payload
//! (hardware-accelerated where the CPU has it, via the `crc32c` crate), itself covered by a CRC.
//! The payload is made from (seed, target, offset, generation) by the job's [`UnitFormat`]
//! instead of stored, so a check needs nothing but what the reader expects — and, when it fails,
//! the check says *how* the data is wrong, because a lost write, a misdirected write, a torn
//! write and a flipped bit have different causes:
//!
//! | kind | what was found |
//! |---|---|
//! | `NeverWritten` | no header and all zeros where a write was acknowledged |
//! | `Foreign` | no header, not zeros: data drivelab did not write (or another run's) |
//! | `Misdirected` | a valid header for another offset or target |
//! | `Stale` | the right block, an older generation: a write that was lost |
//! | `Ahead` | a newer generation than acknowledged (an in-flight write that landed) |
//! | `Torn` | the expected header, but much of the payload is not the payload it describes |
//! | `BitFlip` | the expected block with a few bits wrong (counted), in the header or the payload |
//!
//! What was written is known from a [`GenerationMap`]: one byte per unit, the generation last
//! written (`map.rs`). What was written *and promised durable* is known from a [`Journal`]
//! (`journal.rs`), replayed after a crash (`replay.rs`) to judge what survived (`crash.rs`).
//!
//! Layout of a unit (little-endian; units are 512 bytes to 4 KiB, aligned):
//! `magic u32 | version u16 | header_len u16 | target u32 | unit_len u32 | offset u64 |
//! generation u64 | seed u64 | payload_crc u32 | header_crc u32` (48 bytes), then the payload.

mod classify;
mod crash;
mod format;
mod header;
mod journal;
#[cfg(test)]
mod journal_tests;
mod map;
mod replay;
mod sweep;
#[cfg(test)]
mod tests;

pub use classify::{first_difference, Difference, Expected, Mismatch, MismatchKind};
pub use crash::{judge, CrashChecks, NotDurable};
pub use format::UnitFormat;
pub use header::{Header, HEADER_BYTES, MAGIC, VERSION};
pub use journal::{JobJournal, Journal, Segment, SegmentTarget, FILE_MAGIC as JOURNAL_MAGIC};
pub use map::{compare_generations, next as next_generation, GenerationMap, MapError, UNKNOWN};
pub use replay::{replay, replay_file, JournalError, JournalTarget, Replayed, Units};
pub use sweep::sweep;
