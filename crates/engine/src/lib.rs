//! drivelab's I/O engine: everything needed to run one access specification against targets
//! and measure it exactly — and nothing else (no CLI, no result files, no formatting for humans).
//!
//! Data flows one way: [`spec::AccessSpec`] -> [`target`] -> [`run::run`] (threads running the
//! worker loop on a backend) -> [`result::RunResult`].
//!
//! # Public API
//! What lab, report and cli use: [`spec`] and [`fields`] (what to run, parsed and validated),
//! [`units`], [`target`] (probe, create, open), [`run`] (run one spec or several streams, with
//! progress), [`result`] and [`hist`] (what a run produced, as saved), [`error`], and for
//! verifying written data, [`gen`] (the I/O sequence) and [`pattern`]'s stamps.
//! [`backend::uring::available`] tells whether io_uring can be used here.
//!
//! Everything else — the worker loop, the backends and their unsafe trait, the buffer pool,
//! the pacing schedule, the clock and CPU pinning — is the engine's own (`pub(crate)`).

pub(crate) mod affinity;
pub mod backend;
pub mod clock;
pub mod diskstat;
pub mod error;
pub mod gen;
pub mod hist;
pub mod input;
pub mod iolog;
pub mod ioprio;
pub mod measurement;
pub mod merge;
pub mod options;
pub(crate) mod pace;
pub mod pattern;
pub mod printable;
pub mod replay;
pub mod result;
pub mod run;
pub mod spec;
pub mod split;
pub mod sysfs;
pub mod target;
pub mod units;
pub mod usage;
pub mod verify;
pub(crate) mod worker;
pub mod zbd;

pub use error::{Error, Spelling};
