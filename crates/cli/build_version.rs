// What `drivelab --version` says: the package version, and the git commit it was built from
// when it was built in a git checkout. Included by build.rs, and by the binary's tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `git rev-parse ARGS` run in `dir`; `None` when git is missing, `dir` is not in a work tree
/// (a source tarball), or git fails in any way.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").current_dir(dir).arg("rev-parse").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The short commit `dir` is checked out at, if it is in a git work tree.
pub fn commit(dir: &Path) -> Option<String> {
    git(dir, &["--short", "HEAD"]).filter(|c| c.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The files whose change means another commit: HEAD, the branch it points to, packed refs.
pub fn commit_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { dir.join(p) }
    };
    if let Some(head) = git(dir, &["--git-path", "HEAD"]) {
        files.push(abs(head));
    }
    if let Some(branch) = git(dir, &["--symbolic-full-name", "HEAD"]).filter(|b| b.starts_with("refs/")) {
        if let Some(file) = git(dir, &["--git-path", &branch]) {
            files.push(abs(file));
        }
    }
    if let Some(packed) = git(dir, &["--git-path", "packed-refs"]) {
        files.push(abs(packed));
    }
    files.retain(|f| f.exists());
    files
}

/// `0.1.0 (commit a78971e)`, or `0.1.0` without a commit.
pub fn version_text(package: &str, commit: Option<&str>) -> String {
    match commit {
        Some(c) => format!("{package} (commit {c})"),
        None => package.to_string(),
    }
}
