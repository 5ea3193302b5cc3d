//! The CLI's integration tests, in one binary (as ripgrep's): each module is a file of tests
//! that run `drivelab` as a user would, sharing `common`'s helpers (scratch directories in
//! /dev/shm, loop devices always detached, skips counted by scripts/test). One binary links the
//! program's crates once instead of once per file, which is most of the suite's build time.
//!
//! Tiers: `scripts/test --fast` sets `DRIVELAB_TEST_TIER=fast`, and `common::full_tier` skips
//! (saying so) what needs root, devices or long runs; the full suite runs everything.

mod common;

mod access_patterns;
mod architecture;
mod attacks;
mod attacks_checks;
mod attacks_inputs;
mod attacks_outputs;
mod attacks_sigs;
mod attacks_stack;
mod attacks_state;
mod attacks_text;
mod browser;
mod compare;
mod completions;
mod delivery;
mod fallback;
mod fio;
mod fio_atomic;
mod fio_cmdline;
mod fio_coverage;
mod fio_delay;
mod fio_enospc;
mod fio_examples;
mod fio_files;
mod fio_flow;
mod fio_ignore_error;
mod fio_job_figures;
mod fio_jobctl;
mod fio_jobs;
mod fio_latency_target;
mod fio_logs;
mod fio_meta;
mod fio_output;
mod fio_pattern;
mod fio_plot;
mod fio_prio;
mod fio_results;
mod fio_sprandom;
mod fio_status;
mod fio_stop;
mod fio_stripe;
mod fio_verify_pattern;
mod fio_verify_state;
mod fio_walk;
mod fio_zbd;
mod guide;
mod help;
mod info;
mod journal;
mod latency_split;
mod measurement;
mod mpi;
mod newcomer;
mod plan;
mod prep;
mod qos;
mod refusals;
mod replay;
mod reports;
mod run;
mod screen;
mod session;
mod spelling;
mod split_report;
mod stdout;
mod suites;
mod surface;
mod tidy_csv;
mod trim;
mod uring_cmd;
mod verify;
mod width80;
