//! Gives the binary `DRIVELAB_VERSION`: the package version and, when built in a git checkout,
//! the commit (`git rev-parse --short HEAD`). Outside git (a source tarball), or without git, it
//! is the package version alone; `DRIVELAB_COMMIT` set in the environment names the commit
//! instead (for packagers building from a tarball).

include!("build_version.rs");

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build_version.rs");
    println!("cargo:rerun-if-env-changed=DRIVELAB_COMMIT");
    let given = std::env::var("DRIVELAB_COMMIT").ok().filter(|c| !c.trim().is_empty());
    let commit = given.or_else(|| {
        for file in commit_files(&dir) {
            println!("cargo:rerun-if-changed={}", file.display());
        }
        commit(&dir)
    });
    let package = std::env::var("CARGO_PKG_VERSION").expect("cargo sets it");
    println!("cargo:rustc-env=DRIVELAB_VERSION={}", version_text(&package, commit.as_deref()));
}
