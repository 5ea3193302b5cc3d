//! Shell completions complete values, not just flags (issue #26, item 4): `drivelab suite <TAB>`
//! offers the suites, `--rw <TAB>` fio's words, and a flag that takes a number or a duration
//! never offers file names. Read from the scripts `drivelab completions` prints.

use crate::common::{drivelab, stderr, stdout};

const RW: [&str; 7] = ["read", "write", "randread", "randwrite", "randrw", "rw", "readwrite"];

fn script(shell: &str) -> String {
    let o = drivelab(&["completions", shell]);
    assert!(o.status.success(), "completions {shell}: {}", stderr(&o));
    stdout(&o)
}

/// The body of bash's `case` arm for `label)` inside the function's block of subcommand `cmd`
/// (`drivelab__suite)`), up to its `;;`.
fn bash_arm<'a>(script: &'a str, cmd: &str, label: &str) -> &'a str {
    let block = script.split(&format!("\n        {cmd})\n")).nth(1).unwrap_or_else(|| panic!("no block {cmd}"));
    let block = block.split("\n        drivelab__").next().unwrap();
    let arm =
        block.split(&format!("\n                {label})\n")).nth(1).unwrap_or_else(|| panic!("{cmd}: no {label}"));
    arm.split(";;").next().unwrap()
}

#[test]
fn bash_completes_suite_names_and_rw_words_and_no_files_after_a_number_flag() {
    let s = script("bash");
    // `drivelab suite <TAB>`: the words offered at the suite's first argument.
    let suite = s.split("\n        drivelab__subcmd__suite)\n").nth(1).expect("suite's block");
    let opts = suite.lines().find(|l| l.trim_start().starts_with("opts=")).expect("suite's opts");
    for name in drivelab_lab::suites::SUITES.iter().map(|s| s.name) {
        assert!(opts.split(['"', ' ']).any(|w| w == name), "suite <TAB> does not offer {name}: {opts}");
    }
    // `run --rw <TAB>` and `qos --rw <TAB>`: fio's words, not file names.
    for cmd in ["drivelab__subcmd__run", "drivelab__subcmd__qos"] {
        let rw = bash_arm(&s, cmd, "--rw");
        assert!(!rw.contains("compgen -f"), "{cmd} --rw completes files: {rw}");
        for w in RW {
            assert!(rw.contains(&format!(" {w} ")) || rw.contains(&format!("\"{w} ")), "{cmd} --rw lacks {w}: {rw}");
        }
    }
    for (cmd, flag, word) in [
        ("drivelab__subcmd__run", "--distribution", "zipf:"),
        ("drivelab__subcmd__run", "--engine", "psync"),
        ("drivelab__subcmd__run", "--sync", "dsync"),
        ("drivelab__subcmd__run", "--pace", "hybrid"),
        ("drivelab__subcmd__report", "--format", "csv"),
        ("drivelab__subcmd__qos", "--by", "qd"),
        ("drivelab__subcmd__suite", "--pick", "median"),
    ] {
        let arm = bash_arm(&s, cmd, flag);
        assert!(arm.contains("compgen -W") && arm.contains(word), "{cmd} {flag} does not offer {word}: {arm}");
    }
    // Numbers, durations, sizes: nothing to complete, and never file names.
    for (cmd, flag) in [
        ("drivelab__subcmd__run", "--qd"),
        ("drivelab__subcmd__run", "--time"),
        ("drivelab__subcmd__run", "--bs"),
        ("drivelab__subcmd__suite", "--dql"),
        ("drivelab__subcmd__act", "--scale"),
    ] {
        let arm = bash_arm(&s, cmd, flag);
        assert!(!arm.contains("compgen -f"), "{cmd} {flag} completes file names: {arm}");
    }
    // Paths still complete as paths.
    assert!(bash_arm(&s, "drivelab__subcmd__run", "--json").contains("compgen -f"), "--json FILE completes files");
}

#[test]
fn zsh_completes_suite_names_and_rw_words_and_no_files_after_a_number_flag() {
    let s = script("zsh");
    let suite = s.split("(suite)\n").nth(1).expect("suite's arguments").split("\n;;").next().unwrap();
    let name =
        suite.lines().find(|l| l.contains("quick") && l.contains("iometer")).expect("the suite argument's values");
    for n in drivelab_lab::suites::SUITES.iter().map(|s| s.name) {
        assert!(name.contains(&format!(" {n} ")) || name.contains(&format!("({n} ")), "{n}: {name}");
    }
    let run = s.split("(run)\n").nth(1).expect("run's arguments").split("\n;;").next().unwrap();
    let rw = run.lines().find(|l| l.contains("'--rw=")).expect("--rw");
    for w in RW {
        assert!(
            rw.contains(&format!("({w} ")) || rw.contains(&format!(" {w} ")) || rw.contains(&format!(" {w})")),
            "{rw}"
        );
    }
    let qd = run.lines().find(|l| l.contains("'--qd=")).expect("--qd");
    assert!(!qd.contains("_default") && !qd.contains("_files"), "--qd completes files: {qd}");
    let json = run.lines().find(|l| l.contains("'--json=")).expect("--json");
    assert!(json.contains("_files"), "--json FILE completes files: {json}");
}

/// A value outside the words is still judged by drivelab, with its own clear error (exit 2).
#[test]
fn a_bad_word_is_refused_as_before() {
    let o = drivelab(&["run", "null", "--rw", "randomread", "--time", "100ms"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("--rw 'randomread'") && e.contains("randread"), "{e}");
    let o = drivelab(&["suite", "nosuch", "--dry-run"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("'nosuch' is not a suite"), "{}", stderr(&o));
}
