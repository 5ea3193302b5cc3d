//! `drivelab --version`: the package version and the git commit it was built from (see
//! build.rs; outside a git checkout, the package version alone).

pub const VERSION: &str = env!("DRIVELAB_VERSION");

#[cfg(test)]
mod tests {
    mod build {
        #![allow(dead_code)]
        include!("../build_version.rs");
    }

    #[test]
    fn outside_git_the_version_is_the_package_version_alone() {
        // A directory that is in no git work tree (a source tarball unpacked), and one that
        // does not exist: no commit, no file to watch, the package version alone.
        let outside = std::env::temp_dir().join(format!("drivelab-no-git-{}", std::process::id()));
        std::fs::create_dir_all(&outside).unwrap();
        let (commit, files) = (build::commit(&outside), build::commit_files(&outside));
        let _ = std::fs::remove_dir_all(&outside);
        assert_eq!(commit, None, "{} is inside a git work tree", outside.display());
        assert!(files.is_empty(), "{files:?}");
        let gone = std::env::temp_dir().join("drivelab-no-such-dir");
        assert_eq!((build::commit(&gone), build::commit_files(&gone).len()), (None, 0));
        assert_eq!(build::version_text("0.1.0", None), "0.1.0");
        assert_eq!(build::version_text("0.1.0", Some("a78971e")), "0.1.0 (commit a78971e)");
    }

    #[test]
    fn in_git_the_version_names_the_commit() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let Some(commit) = build::commit(dir) else {
            drivelab_testkit::skip("not built in a git checkout (or git is missing)");
            return;
        };
        assert!(super::VERSION.starts_with(env!("CARGO_PKG_VERSION")), "{}", super::VERSION);
        if std::env::var("DRIVELAB_COMMIT").is_err() {
            assert!(super::VERSION.ends_with(&format!("(commit {commit})")), "{} vs {commit}", super::VERSION);
        }
    }
}
