//! What users of other tools expect around the commands (issue #11): `--version` with the
//! commit, shell completions and a man page generated from the clap definitions.

mod common;

use common::{drivelab, stderr, stdout};

#[test]
fn version_names_the_commit_it_was_built_from() {
    let o = drivelab(&["--version"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o);
    assert!(line.starts_with(&format!("drivelab {}", env!("CARGO_PKG_VERSION"))), "{line}");
    let head = std::process::Command::new("git")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(commit) if std::env::var_os("DRIVELAB_COMMIT").is_none() => {
            assert_eq!(line.trim(), format!("drivelab {} (commit {commit})", env!("CARGO_PKG_VERSION")))
        }
        _ => common::skip_part("the commit", "not built in a git checkout (or git is missing)"),
    }
}
