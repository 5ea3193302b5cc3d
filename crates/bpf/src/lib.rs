//! The kernel's side of `--latency-split` (see `drivelab_engine::split`): BPF programs on the
//! io_uring and block-layer tracepoints stamp each I/O into a table the job threads have mapped.
//!
//! Why libbpf-rs: libbpf is the kernel's own loader and the reference implementation of CO-RE
//! (the programs read kernel structures at the running kernel's offsets, from its BTF), and
//! libbpf-rs is its maintained Rust binding, kept by the libbpf maintainers. The programs are C
//! (src/bpf/split.bpf.c); aya, the other choice, loads the same
//! object without a C library, but its CO-RE support is its own re-implementation and its
//! programs are usually written in Rust for a nightly compiler with bpf-linker; see
//! docs/ARCHITECTURE.md.
//!
//! Why the compiled object is committed (src/bpf/split.bpf.o, embedded with `include_bytes!`):
//! building drivelab then needs no clang, as cilium/ebpf's `bpf2go` commits its objects. The
//! object is CO-RE (its BTF lets libbpf fit it to the running kernel), so one object serves every
//! kernel; it is little-endian BPF (`-target bpfel`), for x86-64 and arm64 alike. What keeps it
//! honest is tests/object.rs: where the project's clang is (CI), it rebuilds the object from the
//! source and fails if the bytes differ, naming `scripts/bpf-object` to regenerate it. The check
//! is a test, not a build step, because only the same clang makes the same bytes: a build that
//! compared would fail for every user with another clang.
//!
//! Why libbpf, libelf and zlib are linked statically, built from libbpf-sys's own copies (its
//! `vendored` feature): the binary then loads the programs on any Linux with BTF, with no BPF
//! library installed, and `cargo install` needs no -dev package. The price is the build: libelf
//! (elfutils) is built with its autotools, so building needs autoconf, automake, autopoint, flex,
//! bison and gawk besides gcc, make and pkg-config, and takes about 30 s more CPU than linking
//! Debian's libelf. No libbpf-sys feature set builds with gcc and make alone: linking the
//! system's libelf needs libelf-dev instead (and, static, a library path of its own). A loader
//! without C (aya) would need none of it; see above for why libbpf.
//!
//! The `bpf` feature is on by default; without it (`--no-default-features`) this crate
//! registers nothing, and the engine refuses `--latency-split` saying how to get it.

#[cfg(feature = "bpf")]
mod loader;

/// Register this build's split provider with the engine (nothing without the `bpf` feature).
pub fn register() {
    #[cfg(feature = "bpf")]
    drivelab_engine::split::register(Box::new(loader::Bpf));
}
