//! What drivelab shows on a terminal, seen through a real pty (util-linux `script`) the size of
//! an 80-column pane: every line fits, the live line has no figure before there is one, rates are
//! in one unit (MB/s), and qos probe lines say whether the objective was met or missed, or that
//! the probe was not judged.

use crate::common;

use std::path::Path;
use std::process::Command;

use crate::common::{skip, stdout, Saved, Scratch};

/// What a reader of an 80-column terminal sees while `drivelab args` runs in `dir`: its stdout
/// and stderr as drawn, one entry per line drawn (a live line redrawn in place gives one entry
/// per drawing), ANSI sequences removed. `None` when there is no `script` to make a pty.
fn on_terminal(dir: &Path, cols: u16, args: &[&str]) -> Option<(Option<i32>, Vec<String>)> {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_drivelab"))
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let inner = format!("stty cols {cols} rows 40; exec {}", quoted.join(" "));
    let o = Command::new("script")
        .env("XDG_DATA_HOME", crate::common::data_home())
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(dir)
        .env_remove("COLUMNS")
        .output();
    let o = match o {
        Ok(o) => o,
        Err(_) => return None,
    };
    Some((o.status.code(), drawn_lines(&String::from_utf8_lossy(&o.stdout))))
}

/// Terminal output as the lines drawn: split at newlines and carriage returns, escape sequences
/// (`ESC [ ... letter`) removed.
fn drawn_lines(raw: &str) -> Vec<String> {
    let mut plain = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain.split(['\n', '\r']).filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

fn too_wide(lines: &[String], cols: usize) -> Vec<String> {
    lines.iter().filter(|l| l.chars().count() > cols).cloned().collect()
}

fn need_script() -> bool {
    if Command::new("script").arg("--version").output().is_err() {
        skip("util-linux `script` is not installed (it makes the pty)");
        return false;
    }
    true
}

#[test]
fn every_line_of_run_plan_suite_qos_and_act_fits_80_columns() {
    if !crate::common::full_tier() {
        return;
    }
    if !need_script() {
        return;
    }
    let s = Scratch::new("screen80");
    std::fs::write(s.0.join("p.toml"), "[defaults]\ntime = \"200ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let runs: Vec<Vec<&str>> = vec![
        // Every row of the summary: read, write, total, fsync, response time, the schedule.
        vec!["run", "f.dat", "--size", "16m", "--rw", "randrw", "--rate", "5k", "--sync", "fsync:4", "--time", "1s"],
        // Several targets (per-target lines) and the CPU-bound line.
        vec!["run", "null", "null", "--time", "500ms"],
        vec!["plan", "p.toml", "null", "--steady", "--steady-rounds", "6", "--results", "r"],
        vec!["suite", "quick", "f.dat", "--time", "100ms", "--results", "r"],
        vec![
            "qos",
            "f.dat",
            "--by",
            "qd",
            "--max-qd",
            "4",
            "--objective",
            "p99<10s,p99.9<20s,max<30s",
            "--time",
            "200ms",
        ],
        vec!["act", "f.dat", "--time", "2s", "--slice", "1s", "--results", "r"],
    ];
    for args in &runs {
        let Some((code, lines)) = on_terminal(&s.0, 80, args) else {
            skip("`script` could not run");
            return;
        };
        assert!(code.is_some_and(|c| c != 1 && c != 2), "drivelab {args:?}: {code:?}\n{}", lines.join("\n"));
        assert!(lines.len() > 3, "drivelab {args:?} printed: {lines:?}");
        // A suite's tables too (issue #26: fitted to the terminal, reshaped where too wide).
        let wide = too_wide(&lines, 80);
        assert!(wide.is_empty(), "drivelab {args:?}: lines over 80 columns:\n{}", wide.join("\n"));
    }
}

#[test]
fn a_wider_terminal_gets_the_wide_table_and_a_narrow_one_the_80_column_one() {
    if !need_script() {
        return;
    }
    let s = Scratch::new("screen-wide");
    let args = ["run", "null", "--time", "300ms"];
    let heading = |cols: u16| -> String {
        let (_, lines) = on_terminal(&s.0, cols, &args).expect("script ran above");
        lines.into_iter().find(|l| l.contains("IOPS") && l.contains('│')).expect("the table's heading")
    };
    let (narrow, wide) = (heading(80), heading(132));
    assert!(!narrow.contains("ops ") && !narrow.contains("min"), "{narrow}");
    let cells: Vec<&str> = wide.split_whitespace().collect();
    assert_eq!(cells, ["ops", "IOPS", "MB/s", "│", "min", "mean", "p50", "p99", "p99.9", "max"], "{wide}");
    // Not a terminal: 80 columns (or $COLUMNS).
    let o = crate::common::bin().args(args).current_dir(&s.0).env("COLUMNS", "132").output();
    let text = stdout(&o.unwrap());
    assert!(text.lines().any(|l| l.contains("min") && l.contains('│')), "$COLUMNS is honoured:\n{text}");
    let o = crate::common::bin().args(args).current_dir(&s.0).env_remove("COLUMNS").output();
    let text = stdout(&o.unwrap());
    assert!(too_wide(&text.lines().map(String::from).collect::<Vec<_>>(), 80).is_empty(), "{text}");
}

#[test]
fn the_live_line_shows_no_p99_before_there_is_one_and_every_rate_is_in_mb_per_s() {
    if !crate::common::full_tier() {
        return;
    }
    if !need_script() {
        return;
    }
    let s = Scratch::new("screen-live");
    let Some((code, lines)) = on_terminal(&s.0, 80, &["run", "f.dat", "--size", "16m", "--qd", "4", "--time", "2s"])
    else {
        skip("`script` could not run");
        return;
    };
    assert_eq!(code, Some(0), "{}", lines.join("\n"));
    let live: Vec<&String> = lines.iter().filter(|l| l.contains(" elapsed")).collect();
    assert!(!live.is_empty(), "the live line was drawn: {lines:?}");
    assert!(live.iter().all(|l| l.contains(" MB/s") && !l.contains("p99 0ns")), "{live:?}");
    let screen = lines.join("\n");
    assert!(screen.contains("MB/s") && !screen.contains("MiB/s") && !screen.contains("GiB/s"), "one unit:\n{screen}");
}

/// Issue #26, item 4: a plan's live line says where the whole plan is and its ETA.
#[test]
fn a_plans_live_line_shows_the_point_of_the_plan_and_an_eta() {
    if !crate::common::full_tier() {
        return;
    }
    if !need_script() {
        return;
    }
    let s = Scratch::new("screen-eta");
    std::fs::write(s.0.join("p.toml"), "[defaults]\ntime = \"1s\"\n[matrix]\nqd = [1, 2, 3]\n").unwrap();
    let Some((code, lines)) = on_terminal(&s.0, 80, &["plan", "p.toml", "null", "--results", "r"]) else {
        skip("`script` could not run");
        return;
    };
    assert_eq!(code, Some(0), "{}", lines.join("\n"));
    let live: Vec<&String> = lines.iter().filter(|l| l.contains(" elapsed")).collect();
    for k in 1..=3 {
        assert!(live.iter().any(|l| l.starts_with(&format!("point {k}/3, ETA "))), "point {k}: {live:?}");
    }
    // The ETA counts the points still to run: more at the first point than at the last.
    let eta = |k: usize| -> f64 {
        let l = live.iter().find(|l| l.starts_with(&format!("point {k}/3, ETA "))).unwrap();
        let t = l.split(", ETA ").nth(1).unwrap().split(' ').next().unwrap();
        t.trim_end_matches('s').parse::<f64>().unwrap_or(f64::MAX)
    };
    assert!(eta(1) > eta(3), "{live:?}");
}

/// The probe lines of a qos run's stdout, in order, each joined with the lines it wrapped onto.
fn probe_lines(out: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut open = false;
    for l in out.lines() {
        if l.starts_with("  probe ") || l.starts_with("  confirm ") {
            lines.push(l.to_string());
            open = true;
        } else if open && l.starts_with("      ") {
            let last = lines.last_mut().expect("open");
            last.push(' ');
            last.push_str(l.trim_start());
        } else {
            open = false;
        }
    }
    lines
}

#[test]
fn qos_probe_lines_say_met_or_missed_with_figure_and_limit_or_not_judged() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("screen-qos");
    let f = s.path("f.dat");
    let qos = |target: &str, by: &[&str], objective: &str, results: &str| {
        // --judge-busy: the lines' words are tested here, whatever else the machine runs.
        let mut args =
            vec!["qos", target, "--size", "16m", "--objective", objective, "--time", "300ms", "--judge-busy"];
        args.extend_from_slice(by);
        args.extend_from_slice(&["--results", results]);
        common::drivelab(&args)
    };
    // Closed loop on null: every clause met, each figure under its limit.
    let o = qos("null", &["--by", "qd", "--max-qd", "2"], "p99<10s,max<20s", &s.path("met"));
    let out = stdout(&o);
    let lines = probe_lines(&out);
    assert!(!lines.is_empty(), "{out}");
    for l in &lines {
        let verdict = l.split_once("  met    ").map(|(_, v)| v).unwrap_or_else(|| panic!("met: {l}"));
        let parts: Vec<&str> = verdict.split(", ").collect();
        assert!(parts[0].starts_with("p99 ") && parts[0].ends_with(" < 10.00s"), "{l}");
        assert!(parts[1].starts_with("max ") && parts[1].ends_with(" < 20.00s"), "{l}");
    }
    // A limit no drive meets: missed, the figure over the limit.
    let o = qos(&f, &["--by", "qd", "--max-qd", "2"], "p99<1ns", &s.path("missed"));
    let out = stdout(&o);
    let lines = probe_lines(&out);
    assert!(!lines.is_empty(), "{out}");
    assert!(lines.iter().all(|l| l.contains("  missed p99 ") && l.ends_with(" > 1ns")), "{out}");
    // By rate on null: whichever way each probe went, its line says it as its record does, and a
    // probe whose schedule slipped with the objective met is "not judged", with how late it ran.
    let results = s.path("rate");
    let o = qos("null", &["--by", "rate"], "p99<10s", &results);
    let out = stdout(&o);
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let saved = Saved::load(&dir);
    let probes: Vec<&serde_json::Value> = saved.probes.iter().filter(|p| p["role"] != "saturation").collect();
    let lines = probe_lines(&out);
    assert_eq!(lines.len(), probes.len(), "a line per probe:\n{out}");
    for (l, p) in lines.iter().zip(probes) {
        let q = &p["data"]["qos"];
        let why = p["why"].as_str().unwrap();
        if p["pass"] == true {
            assert!(l.contains("  met    p99 ") && l.ends_with(" < 10.00s"), "{l}");
        } else if q["fell_behind"] == true && q["evaluation"]["pass"] == true {
            assert!(why.starts_with("not judged: drivelab fell behind its schedule ("), "{why}");
            assert!(why.contains("% of I/Os over ") && why.contains(" late)"), "{why}");
            assert!(l.ends_with(why), "the line says why as the record does: {l}");
        } else if q["evaluation"]["pass"] == true {
            // Met, on schedule, but under 99% of the rate done: not delivered, never a pass.
            assert!(why.contains("not delivered") && l.ends_with(why), "{l} / {why}");
        } else {
            assert!(why.starts_with("missed p99 ") && l.ends_with(why), "{l} / {why}");
        }
    }
}
