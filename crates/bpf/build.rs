//! With the `bpf` feature: compile src/bpf/split.bpf.c to BPF with clang (through libbpf-cargo,
//! which adds libbpf's headers) into OUT_DIR/split.bpf.o, which the crate embeds.

fn main() {
    println!("cargo:rerun-if-changed=src/bpf/split.bpf.c");
    #[cfg(feature = "bpf")]
    {
        let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let obj = out.join("split.bpf.o");
        libbpf_cargo::SkeletonBuilder::new()
            .source("src/bpf/split.bpf.c")
            .obj(&obj)
            .clang_args(["-Wall", "-Wno-unused-function"])
            .build()
            .unwrap_or_else(|e| panic!("compiling src/bpf/split.bpf.c (needs clang): {e:#}"));
    }
}
