//! The committed BPF object, src/bpf/split.bpf.o, is what clang makes of src/bpf/split.bpf.c.
//!
//! Why a committed object: the crate embeds it (`include_bytes!`), so building drivelab needs no
//! clang (cilium/ebpf's `bpf2go` commits its objects the same way). Why this check is a test and
//! not a build step: a BPF object is byte-for-byte reproducible only with the same clang, so a
//! build that compared would fail for anyone with another clang; the test compares where the
//! project's clang is (CI installs Debian 12's, [`CLANG`]) and skips, saying why, elsewhere.
//!
//! The one definition of how the object is made is [`build`]: libbpf's own headers (the ones
//! libbpf-sys vendors, so a libbpf upgrade that changes them shows here), fixed clang flags with
//! the source and header directories mapped to fixed names (clang writes the source's path into
//! the object's BTF line info), then libbpf's BPF linker, which drops the DWARF (full of paths)
//! and keeps the BTF and BTF.ext CO-RE needs — what libbpf-cargo does for its skeletons.
//!
//! To regenerate after changing the source (or libbpf-sys): `scripts/bpf-object`, which runs
//! this test with `DRIVELAB_BPF_OBJECT=write`, then commit both files.
#![cfg(feature = "bpf")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// The clang the committed object was made with: `clang --version`'s first line on Debian 12
/// (`apt-get install clang`), as CI has it. Another clang makes different bytes.
const CLANG: &str = "Debian clang version 14.0.6";

/// The source, beside its object (relative to the crate).
const SOURCE: &str = "src/bpf/split.bpf.c";
const OBJECT: &str = "src/bpf/split.bpf.o";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one build, removed on drop (unique in the process: tests run at once).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("drivelab-bpf-object-{}-{n}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("make a temporary directory");
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Why the object cannot be checked here (None: it can): clang missing, or another clang.
fn clang_unavailable() -> Option<String> {
    let out = match Command::new("clang").arg("--version").output() {
        Ok(o) if o.status.success() => o,
        _ => return Some(format!("clang is not installed (the committed object is {CLANG}'s)")),
    };
    let version = String::from_utf8_lossy(&out.stdout);
    let first = version.lines().next().unwrap_or("").trim();
    (!first.starts_with(CLANG)).then(|| {
        format!(
            "clang here is `{first}`; the committed object is {CLANG}'s (Debian 12), and another \
             clang makes other bytes"
        )
    })
}

/// Compile `dir/split.bpf.c` into `out`, the way the committed object is made.
fn build(dir: &Path, out: &Path) -> Result<(), String> {
    let tmp = TempDir::new("build");
    let headers = tmp.0.join("include");
    std::fs::create_dir_all(headers.join("bpf")).map_err(|e| e.to_string())?;
    for (name, text) in libbpf_sys::API_HEADERS {
        std::fs::write(headers.join("bpf").join(name), text).map_err(|e| e.to_string())?;
    }
    let unlinked = tmp.0.join("split.unlinked.o");
    let o = Command::new("clang")
        .current_dir(dir)
        .args(["-g", "-O2", "-target", "bpfel", "-fno-stack-protector", "-Wall", "-Wno-unused-function", "-Werror"])
        .arg(format!("-fdebug-prefix-map={}=.", dir.display()))
        .arg(format!("-fdebug-prefix-map={}=libbpf", headers.display()))
        .arg("-I")
        .arg(&headers)
        .args(["-c", "split.bpf.c", "-o"])
        .arg(&unlinked)
        .output()
        .map_err(|e| format!("running clang: {e}"))?;
    if !o.status.success() {
        return Err(format!("clang failed: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let mut linker = libbpf_rs::Linker::new(out).map_err(|e| format!("libbpf's linker: {e}"))?;
    linker.add_file(&unlinked).map_err(|e| format!("libbpf's linker: {e}"))?;
    linker.link().map_err(|e| format!("libbpf's linker: {e}"))
}

#[test]
fn the_committed_object_is_what_clang_makes_of_the_source() {
    if let Some(why) = clang_unavailable() {
        drivelab_testkit::skip(&why);
        return;
    }
    let src_dir = crate_dir().join(SOURCE).parent().expect("src/bpf").to_path_buf();
    let committed = crate_dir().join(OBJECT);
    if std::env::var_os("DRIVELAB_BPF_OBJECT").is_some_and(|v| v == "write") {
        build(&src_dir, &committed).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("wrote {}", committed.display());
        return;
    }
    let tmp = TempDir::new("check");
    let rebuilt = tmp.0.join("split.bpf.o");
    build(&src_dir, &rebuilt).unwrap_or_else(|e| panic!("{e}"));
    let want = std::fs::read(&rebuilt).expect("read the rebuilt object");
    let have = std::fs::read(&committed).unwrap_or_default();
    assert!(
        want == have,
        "crates/bpf/{OBJECT} ({} bytes) is not what {CLANG} makes of crates/bpf/{SOURCE} ({} \
         bytes): the source (or libbpf-sys's headers) changed without the object. Regenerate it \
         with scripts/bpf-object and commit both.",
        have.len(),
        want.len()
    );
}

#[test]
fn the_object_does_not_depend_on_where_the_source_is() {
    if let Some(why) = clang_unavailable() {
        drivelab_testkit::skip(&why);
        return;
    }
    // The same source built from two directories of different names and depths: the same bytes
    // (no path of this machine's lands in the object), and the BTF CO-RE needs is there.
    let text = std::fs::read(crate_dir().join(SOURCE)).expect("read the source");
    let (a, b) = (TempDir::new("a"), TempDir::new("bb"));
    let b_src = b.0.join("deeper/still");
    std::fs::create_dir_all(&b_src).expect("make a directory");
    let mut objects = Vec::new();
    for dir in [a.0.clone(), b_src] {
        std::fs::write(dir.join("split.bpf.c"), &text).expect("copy the source");
        let out = dir.join("split.bpf.o");
        build(&dir, &out).unwrap_or_else(|e| panic!("{e}"));
        objects.push(std::fs::read(&out).expect("read the object"));
    }
    assert!(objects[0] == objects[1], "two builds of one source in two directories differ");
    let o = &objects[0];
    let has = |name: &[u8]| o.windows(name.len()).any(|w| w == name);
    assert!(has(b".BTF\0") && has(b".BTF.ext\0"), "the object lost its BTF (CO-RE needs .BTF and .BTF.ext)");
    assert!(!has(b".debug_info"), "the object kept its DWARF (it names paths)");
    let tmp = std::env::temp_dir();
    assert!(!has(tmp.to_string_lossy().as_bytes()), "the object names the build's directory");
}
