//! What users of other tools expect around the commands (issue #11): `--version` with the
//! commit, shell completions and a man page generated from the clap definitions.

use crate::common;

use crate::common::{drivelab, stderr, stdout};

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

/// The commands `drivelab --help` lists, `completions` and `man` among them.
fn commands() -> Vec<String> {
    let names = common::commands();
    assert!(names.iter().any(|n| n == "completions") && names.iter().any(|n| n == "man"), "{names:?}");
    names
}

#[test]
fn bash_completions_name_every_command_and_flag() {
    let o = drivelab(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = stdout(&o);
    assert!(script.contains("_drivelab()") && script.contains("complete -F _drivelab"), "{script}");
    for c in commands() {
        assert!(script.contains(&format!("drivelab,{c})")), "the script does not complete `drivelab {c}`");
    }
    for flag in ["--iodepth", "--destroy", "--objective", "--steady"] {
        assert!(script.contains(flag), "{flag}");
    }
    // It is a bash script bash reads.
    match std::process::Command::new("bash").arg("-n").stdin(std::process::Stdio::piped()).spawn() {
        Ok(mut bash) => {
            use std::io::Write;
            bash.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
            assert!(bash.wait().unwrap().success(), "bash -n refused the script");
        }
        Err(_) => common::skip_part("bash -n", "bash is not installed"),
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = drivelab(&["completions", shell]);
        assert!(o.status.success() && stdout(&o).contains("suite"), "{shell}: {}", stderr(&o));
    }
    let o = drivelab(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value 'tcsh'"), "{}", stderr(&o));
}

#[test]
fn man_prints_roff_pages_for_drivelab_and_each_command() {
    let o = drivelab(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH drivelab 1"), "{page}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH SUBCOMMANDS", ".SH VERSION"] {
        assert!(page.contains(section), "{section} missing: {page}");
    }
    assert!(page.contains("runs the quick suite"), "the description is the --help text");
    for c in commands() {
        assert!(page.contains(&format!("drivelab\\-{c}(1)")), "the page does not list drivelab-{c}(1)");
        let o = drivelab(&["man", &c]);
        assert!(o.status.success(), "man {c}: {}", stderr(&o));
        assert!(stdout(&o).contains(&format!(".TH drivelab-{c} 1")), "man {c}: {}", stdout(&o));
    }
    assert!(stdout(&drivelab(&["man", "run"])).contains("\\-\\-iodepth"));
    let o = drivelab(&["man", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("man nope: drivelab has no such command"), "{}", stderr(&o));
    // groff reads it as a man page.
    match std::process::Command::new("groff")
        .args(["-man", "-Tutf8"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(mut groff) => {
            use std::io::Write;
            groff.stdin.take().unwrap().write_all(page.as_bytes()).unwrap();
            let out = groff.wait_with_output().unwrap();
            assert!(out.status.success());
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("drivelab(1)"),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        Err(_) => common::skip_part("groff", "groff is not installed"),
    }
}
