//! drivelab's I/O engine: everything needed to run one access specification against targets
//! and measure it exactly — and nothing else (no CLI, no result files, no formatting for humans).
//!
//! Data flows one way: [`spec::AccessSpec`] -> [`target`] -> [`run::run`] (threads running
//! [`worker::run_job`] on a [`backend::Backend`]) -> [`result::RunResult`].

pub mod affinity;
pub mod backend;
pub mod clock;
pub mod error;
pub mod fields;
pub mod gen;
pub mod hist;
pub mod pace;
pub mod pattern;
pub mod result;
pub mod run;
pub mod spec;
pub mod sysfs;
pub mod target;
pub mod units;
pub mod worker;

pub use error::Error;
