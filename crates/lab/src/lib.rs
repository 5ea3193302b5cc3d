//! drivelab's lab layer: it decides what to run and whether it is safe to run it.
//!
//! The engine measures whatever it is given; this crate stands between the user's command and
//! the engine. [`safety`] is the gate every write passes through: it refuses to touch a file
//! drivelab did not create, a block device the user did not name with `--destroy`, or a named
//! device that is mounted, in use or holds data, unless the user says so explicitly.

pub mod act;
pub mod act_cert;
pub mod act_run;
pub mod delivery;
pub mod devprep;
pub mod execute;
pub mod fiojob;
pub mod fiologs;
pub mod info;
pub mod mounts;
pub mod names;
pub mod plan;
pub mod power;
pub mod precondition;
pub mod prepare;
pub mod qos;
pub mod ranks;
pub mod repeat;
pub mod results;
pub mod resume;
pub mod runner;
pub mod safety;
pub mod search;
pub mod steady;
pub mod store;
pub mod suites;
pub mod sysinfo;
pub mod verify;
pub mod written;

#[cfg(test)]
mod front_ends_tests;
