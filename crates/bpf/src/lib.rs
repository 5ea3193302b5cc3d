//! The kernel's side of `--latency-split` (see `drivelab_engine::split`): BPF programs on the
//! io_uring and block-layer tracepoints stamp each I/O into a table the job threads have mapped.
//!
//! Why libbpf-rs: libbpf is the kernel's own loader and the reference implementation of CO-RE
//! (the programs read kernel structures at the running kernel's offsets, from its BTF), and
//! libbpf-rs is its maintained Rust binding, kept by the libbpf maintainers. The programs are C,
//! compiled by clang at build time (the `bpf` feature). aya, the other choice, loads the same
//! object without a C library, but its CO-RE support is its own re-implementation and its
//! programs are usually written in Rust for a nightly compiler with bpf-linker; see
//! docs/ARCHITECTURE.md.
//!
//! Without the `bpf` feature this crate registers nothing, and the engine refuses
//! `--latency-split` saying how to get it.

#[cfg(feature = "bpf")]
mod loader;

/// Register this build's split provider with the engine (nothing without the `bpf` feature).
pub fn register() {
    #[cfg(feature = "bpf")]
    drivelab_engine::split::register(Box::new(loader::Bpf));
}
