//! `drivelab info` (issue #11): a target's facts and the safety verdict — whether drivelab would
//! write it and which flags that would take — on a file, on null and on loop devices, as lines
//! and as JSON; and it never writes.

use crate::common;

use std::path::Path;

use crate::common::{drivelab, need_loop, stderr, stdout, LoopDev, Scratch};

/// `drivelab info --json ARGS`: the list, and the exit code.
fn info_json(args: &[&str]) -> (Vec<serde_json::Value>, Option<i32>) {
    let mut all = vec!["info", "--json"];
    all.extend_from_slice(args);
    let o = drivelab(&all);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)));
    (v.as_array().unwrap().clone(), o.status.code())
}

fn flags(report: &serde_json::Value) -> Vec<String> {
    report["write"]["flags"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string()).collect()
}

/// The file's bytes and modification time: what `info` must leave as they were.
fn snapshot(path: &str) -> (Vec<u8>, std::time::SystemTime) {
    (std::fs::read(path).unwrap(), std::fs::metadata(path).unwrap().modified().unwrap())
}

#[test]
fn info_on_files_says_what_they_are_and_which_flag_writing_takes() {
    let s = Scratch::new("info-files");
    let theirs = s.path("theirs.dat");
    std::fs::write(&theirs, vec![7u8; 64 << 10]).unwrap();
    let before = snapshot(&theirs);
    let ours = s.path("ours.dat");
    let o =
        drivelab(&["run", &ours, "--size", "1m", "--rw", "read", "--io-size", "4k", "-q", "--results", &s.path("r")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let new = s.path("new.dat");

    let (list, code) = info_json(&[&theirs, &ours, &new, "null"]);
    assert_eq!(code, Some(0));
    let [theirs_r, ours_r, new_r, null_r] = &list[..] else { panic!("{list:?}") };
    // Someone else's file: it is a file of 64 KiB on tmpfs, and writing it needs --overwrite.
    assert_eq!(theirs_r["target"]["kind"], "file");
    assert_eq!(theirs_r["target"]["size_bytes"], 65536);
    assert_eq!(theirs_r["file"]["filesystem"], "tmpfs");
    assert_eq!(theirs_r["write"]["verdict"], "needs_flags");
    assert_eq!(flags(theirs_r), ["--overwrite"]);
    assert!(theirs_r["write"]["reasons"][0].as_str().unwrap().contains("drivelab did not create it"));
    // drivelab's own file is written as named.
    assert_eq!(
        (ours_r["target"]["created_by_drivelab"].as_bool(), ours_r["target"]["size_bytes"].as_u64()),
        (Some(true), Some(1 << 20))
    );
    assert_eq!(ours_r["write"]["verdict"], "allowed");
    // A file that does not exist would be created, and info does not create it.
    assert_eq!(
        (new_r["target"]["exists"].as_bool(), new_r["write"]["verdict"].as_str()),
        (Some(false), Some("allowed"))
    );
    assert!(new_r["write"]["note"].as_str().unwrap().contains("would create it"));
    assert!(!Path::new(&new).exists());
    assert_eq!(
        (null_r["target"]["kind"].as_str(), null_r["write"]["verdict"].as_str()),
        (Some("null"), Some("allowed"))
    );

    // The same as lines for people.
    let o = drivelab(&["info", &theirs, "null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let head = format!("{theirs}: file, 64 KiB (65536 bytes)");
    for words in [
        &head,
        "filesystem   tmpfs",
        "write        needs --overwrite",
        "null: the null target",
        "write        yes, as named",
    ] {
        assert!(text.contains(words), "expected '{words}' in:\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 80), "wider than 80 columns:\n{text}");
    assert_eq!(snapshot(&theirs), before, "info changed the file");
}

#[test]
fn info_names_what_it_cannot_examine_and_reports_the_rest() {
    let (list, code) = info_json(&["null", "/nonexistent-dir/x.dat"]);
    assert_eq!(code, Some(2));
    assert_eq!(list[0]["write"]["verdict"], "allowed");
    assert_eq!(list[1]["path"], "/nonexistent-dir/x.dat");
    assert!(list[1]["error"].as_str().unwrap().contains("neither does its directory"), "{list:?}");
    let o = drivelab(&["info"]);
    assert_eq!(o.status.code(), Some(2), "no target is a usage error");
}

#[test]
fn info_on_loop_devices_gives_device_facts_and_the_flags_writing_takes() {
    need_loop!();
    let s = Scratch::new("info-loop");
    let backing = s.0.join("disk.img");
    let lo = LoopDev::new(&backing, 64 << 20, None);

    // An empty device: it is a loop device over its file, and writing it needs --destroy only.
    let (list, code) = info_json(&[&lo.dev]);
    assert_eq!(code, Some(0));
    let r = &list[0];
    assert_eq!((r["target"]["kind"].as_str(), r["target"]["size_bytes"].as_u64()), (Some("block"), Some(64 << 20)));
    let d = &r["device"];
    assert_eq!(d["transport"], "loop");
    assert_eq!(d["capacity_bytes"].as_u64(), Some(64 << 20));
    assert_eq!(d["logical_block_bytes"].as_u64(), Some(512));
    assert_eq!(d["loop_backing_file"].as_str(), Some(backing.to_str().unwrap()));
    assert!(d["scheduler"].is_string() && d["rotational"].is_boolean() && d["write_cache"].is_string(), "{d}");
    assert!(d["nr_requests"].is_u64() && d["max_sectors_kb"].is_u64(), "queue limits: {d}");
    assert!(r.get("temperature_c").is_some(), "the temperature is always answered, null where unreadable");
    assert_eq!(r["write"]["verdict"], "needs_flags");
    assert_eq!(flags(r), ["--destroy", lo.dev.as_str()]);

    // With ext4 on it: --destroy and --force, and why.
    let mk = std::process::Command::new("mkfs.ext4").args(["-q", "-F", &lo.dev]).output();
    if !mk.is_ok_and(|o| o.status.success()) {
        common::skip_part("ext4", "mkfs.ext4 is missing");
        return;
    }
    let before = std::fs::read(&backing).unwrap();
    let (list, _) = info_json(&[&lo.dev]);
    let r = &list[0];
    assert_eq!(r["write"]["verdict"], "needs_flags");
    assert_eq!(flags(r), ["--destroy", lo.dev.as_str(), "--force"]);
    let reasons = r["write"]["reasons"].to_string();
    assert!(reasons.contains("--destroy") && reasons.contains("ext4"), "{reasons}");
    let o = drivelab(&["info", &lo.dev]);
    let text = stdout(&o);
    assert!(text.contains(&format!("write        needs --destroy {} --force", lo.dev)), "{text}");
    assert!(text.contains("transport loop") && text.contains("ext4 filesystem"), "{text}");
    assert_eq!(std::fs::read(&backing).unwrap(), before, "info wrote to the device");
}
