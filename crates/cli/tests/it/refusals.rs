//! Bad input and refusals: exit code 2, a message naming the value and the fix, no panic, and
//! nothing written (no file created, no byte changed, no result file).

use crate::common;

use std::path::Path;

use crate::common::{drivelab, need_loop, stderr, LoopDev, Scratch};

/// Run, expect exit 2 with `want` in the message, and that `must_not_exist` was not created.
fn refused(args: &[&str], want: &str, must_not_exist: Option<&str>) {
    let o = drivelab(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: expected exit 2, got {:?}: {err}", o.status.code());
    assert!(err.contains(want), "{args:?}: message lacks {want:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    // A refusal is all that is said: fio mode printed fio's opening lines ("Starting 1 process")
    // before its plan's checks refused.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(args[0] != "fio" || out.is_empty(), "{args:?}: stdout of a refused run: {out}");
    if let Some(p) = must_not_exist {
        assert!(!Path::new(p).exists(), "{p} was created by a refused run");
    }
}

#[test]
fn invalid_values_are_refused_before_anything_is_created() {
    let s = Scratch::new("bad");
    let f = s.path("never");
    let n = Some(f.as_str());
    refused(&["run", &f, "--qd", "0"], "--qd 0", n);
    // Deeper than io_uring's largest ring: refused now, not when the ring is set up mid-run.
    refused(&["run", &f, "--qd", "40000"], "io_uring's ring limit", n);
    // More job threads than the CPUs can run together: refused at once, not 81 s of start-up.
    let t = std::time::Instant::now();
    refused(&["run", &f, "--jobs", "4096", "--time", "500ms"], "cannot share one measured window", n);
    // Starting the threads took 81 s; a refusal takes milliseconds (40 s: a watchdog, not a bound).
    assert!(t.elapsed() < std::time::Duration::from_secs(40), "refused in {:?}", t.elapsed());
    // An output that cannot be written is found before measuring, not after.
    // (/proc takes no new files, even from root.)
    refused(&["run", "null", "--time", "100ms", "--json", "/proc/drivelab-r.json"], "cannot be written", None);
    refused(&["run", &f, "--jobs", "0"], "--jobs 0", n);
    // A new file bigger than its filesystem's free space: refused before a byte is written (fio
    // mode wrote until ENOSPC, then removed the file).
    refused(&["run", &f, "--size", "100t", "--time", "100ms"], "free: give a smaller --size", n);
    let fio_size = format!("--filename={f}");
    refused(&["fio", "--name=x", &fio_size, "--size=1p", "--rw=read"], "it would be 1.0 PiB", n);
    // Two ways to set a suite's time at once: refused, not one silently ignored.
    refused(&["suite", "quick", &f, "--time", "300ms", "--scale", "0.1"], "cannot be used with", n);
    // Negative numbers reach the option's own check, not clap's "use '-- -4'".
    refused(&["run", &f, "--qd", "-4"], "--qd '-4'", n);
    refused(&["run", &f, "--time", "-1s"], "--time '-1s' is not a duration", n);
    refused(&["run", &f, "--random", "-5"], "--random", n);
    refused(&["act", &f, "--scale", "-2"], "must be above 0", n);
    refused(&["run", &f, "--read", "101"], "outside 0..100", n);
    refused(&["run", &f, "--random=-5"], "--random", n);
    refused(&["run", &f, "--bs", "4KB"], "ambiguous", n);
    refused(&["run", &f, "--bs", "4q"], "unknown unit", n);
    refused(&["run", &f, "--time", "10"], "10s", n);
    refused(&["run", &f, "--bs", "1000"], "not a multiple", n);
    refused(&["run", &f, "--bs", "4k", "--offset", "100"], "--offset 100", n);
    refused(&["run", &f, "--size", "8m", "--span", "16m"], "past the end", n);
    refused(&["run", &f, "--engine", "psync", "--qd", "8"], "--jobs 8", n);
    refused(&["run", &f, "--engine", "aio"], "not an engine: use uring, libaio, posixaio, psync", n);
    refused(&["run", &f, "--batch", "0"], "--batch 0", n);
    refused(&["run", &f, "--cpus", "4096"], "CPU 4096", n);
    refused(&["run", "null", "--qd", "4096", "--bs", "1g"], "I/O buffers", None);
    refused(&["run", &f, "--cpus", "first"], "spread, none", n);
    refused(&["run", &f, "--rw", "randomread"], "randread", n);
    refused(&["run", &f, "--sync", "fsync:0"], "fsync:0", n);
    refused(&["run", &f, "--data", "compress:101"], "outside 0..100", n);
    refused(&["run", &f, "--bs", "4k:50,8k:40"], "add up to 90%", n);
    refused(&["run", &f, "--size", "1000"], "multiple of 4096", n);
    refused(&["run", &s.path("no/such/dir/f")], "does not exist", None);
    refused(&["run", "/dev/drivelab-no-such-device"], "does not exist", None);
    refused(&["run"], "TARGET", None);
    refused(&["run", "null", "--qd"], "--qd", None);
}

#[test]
fn existing_files_are_never_overwritten_without_permission() {
    let s = Scratch::new("overwrite");
    let f = s.path("precious");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    refused(&["run", &f, "--rw", "randwrite", "--time", "200ms"], "--overwrite", None);
    assert_eq!(std::fs::read(&f).unwrap(), vec![7u8; 1 << 20], "not a byte changed");
    // Reading it is fine, and --overwrite allows writing.
    let o = drivelab(&["run", &f, "--rw", "randread", "--time", "200ms", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = drivelab(&["run", &f, "--rw", "randwrite", "--time", "200ms", "--quiet", "--overwrite"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(std::fs::read(&f).unwrap(), vec![7u8; 1 << 20]);
    // A file drivelab created may be written again without --overwrite.
    let mine = s.path("mine");
    assert!(drivelab(&["run", &mine, "--size", "4m", "--time", "100ms", "--quiet"]).status.success());
    let o = drivelab(&["run", &mine, "--rw", "write", "--time", "100ms", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn results_are_never_written_over_an_existing_file() {
    let s = Scratch::new("json");
    let j = s.path("r.json");
    std::fs::write(&j, "keep me").unwrap();
    refused(&["run", "null", "--time", "100ms", "--json", &j], "never overwrites", None);
    assert_eq!(std::fs::read_to_string(&j).unwrap(), "keep me");
}

#[test]
fn block_devices_need_destroy_and_force_for_risky_ones() {
    need_loop!();
    let s = Scratch::new("blk");
    let lo = LoopDev::new(&s.0.join("backing"), 16 << 20, Some(0));
    refused(&["run", &lo.dev, "--rw", "write", "--time", "100ms"], "--destroy", None);
    refused(
        &["run", &lo.dev, "--rw", "write", "--time", "100ms", "--destroy", "/dev/loop-not-this-one"],
        "--destroy",
        None,
    );
    // Reads need no permission; a block size below the logical block size is refused.
    let o = drivelab(&["run", &lo.dev, "--time", "100ms", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    refused(&["run", &lo.dev, "--bs", "256"], "O_DIRECT alignment", None);
    // A filesystem on it: refused even with --destroy, unless --force.
    let mk = std::process::Command::new("mkfs.ext4").args(["-q", "-F", &lo.dev]).output();
    let Ok(mk) = mk else {
        common::skip_part("ext4", "mkfs.ext4 is missing");
        return;
    };
    assert!(mk.status.success());
    // Without any flag the way out it gives is the whole one: --destroy alone was refused again.
    let o = drivelab(&["run", &lo.dev, "--rw", "write", "--time", "100ms"]);
    let hint = format!("(/dev/{} holds an ext4 filesystem: --force as well)", &lo.dev[5..]);
    assert!(stderr(&o).contains(&hint), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("--destroy {} --force\n", lo.dev)), "{}", stderr(&o));
    refused(&["run", &lo.dev, "--rw", "write", "--time", "100ms", "--destroy", &lo.dev], "ext4", None);
    let o = drivelab(&["run", &lo.dev, "--rw", "write", "--time", "100ms", "--destroy", &lo.dev, "--force", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_filesystem_without_o_direct_gets_the_buffered_hint() {
    need_loop!(); // needs root to mount ramfs
    let s = Scratch::new("ramfs");
    let dir = s.0.join("ram");
    std::fs::create_dir_all(&dir).unwrap();
    if !std::process::Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(&dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
    {
        common::skip("cannot mount ramfs");
        return;
    }
    struct Umount<'a>(&'a Path);
    impl Drop for Umount<'_> {
        fn drop(&mut self) {
            common::unmount(self.0);
        }
    }
    let _u = Umount(&dir);
    let f = dir.join("f").to_string_lossy().into_owned();
    let o = drivelab(&["run", &f, "--size", "4m", "--time", "100ms"]);
    if o.status.success() {
        common::skip("this kernel's ramfs takes O_DIRECT");
        return;
    }
    refused(&["run", &f, "--size", "4m", "--time", "100ms"], "--buffered", Some(&f));
    let o = drivelab(&["run", &f, "--size", "4m", "--time", "100ms", "--buffered", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Inputs that used to exit 1 or say the wrong thing (issue #10, item 15): each is bad input,
/// exits 2, names the problem, and creates nothing (not even a results directory).
#[test]
fn odd_targets_and_paths_are_bad_input_and_create_nothing() {
    let s = Scratch::new("odd-inputs");
    let results = s.path("results");
    let res = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = extra.iter().map(|a| a.to_string()).collect();
        v.extend(["--results".to_string(), results.clone(), "--time".into(), "100ms".into()]);
        v
    };
    let run = |extra: &[&str], want: &str| {
        let args = res(extra);
        let args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
        refused(&args, want, Some(&results));
    };
    run(&["run", ""], "'' is not a target");
    let link = s.path("dangling");
    std::os::unix::fs::symlink("/nonexistent/target", &link).unwrap();
    run(&["run", &link], "a symbolic link to /nonexistent/target, which does not exist");
    let long = s.path(&"a".repeat(300));
    run(&["run", &long], "the name is too long");
    let o = drivelab(&["run", &long, "--results", &results]);
    assert!(stderr(&o).len() < 400, "a 300-byte name is not echoed whole: {}", stderr(&o));
    refused(&["plan", &s.0.to_string_lossy(), "null"], "is a directory", Some(&results));
    refused(&["plan", "--resume", &s.0.to_string_lossy()], "not a results directory", Some(&results));
}

/// A job file's name that is a FIFO was taken for a target, and --cap-time then said "give the
/// job file as the first target" (it was): the job file's reader says what it is, without waiting.
#[test]
fn a_job_file_that_is_a_fifo_is_named_as_one() {
    let s = Scratch::new("job-fifo");
    let fifo = s.path("j.fio");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    refused(&["run", &fifo, "--cap-time", "300ms"], "is a FIFO (a named pipe)", None);
    refused(&["run", &fifo], "is a FIFO (a named pipe)", None);
}

/// A value after a switch (`--thread 5KB`) became a target, and the target a new 1 GiB file.
#[test]
fn a_stray_value_after_a_switch_is_refused_not_made_a_new_file() {
    let s = Scratch::new("stray-value");
    let dir = s.0.clone();
    let stray = |args: &[&str], word: &str, want: &str| {
        let o = common::drivelab_in(&dir, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains(&format!("./{word}")), "{args:?}: the fix is named: {err}");
        assert!(!dir.join(word).exists(), "{args:?} created {word}");
    };
    stray(
        &["qos", "null", "--rw", "randread", "--objective", "p99<1ms", "--thread", "5KB"],
        "5KB",
        "5KB reads as a value (a size), not a target: it follows --thread, which takes no value",
    );
    stray(&["run", "--time", "100ms", "--thread", "yes", "null"], "yes", "a switch's value");
    stray(&["act", "--no-prep", "500ms"], "500ms", "(a duration)");
    stray(&["plan", "null", "50%"], "50%", "(a share)");
    stray(&["suite", "quick", "4k"], "4k", "a target is a file");
    // Named as a path, or already there, it is a target as before.
    std::fs::write(dir.join("8k"), vec![7u8; 8192]).unwrap();
    let o = common::drivelab_in(&dir, &["run", "8k", "--time", "100ms", "--bs", "4k", "--results", "r1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = common::drivelab_in(&dir, &["run", "./5KB", "--size", "1m", "--time", "100ms", "--results", "r2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(dir.join("5KB")).unwrap().len(), 1 << 20);
}

#[test]
fn a_read_only_target_is_refused_before_anything_is_created() {
    need_loop!();
    let s = Scratch::new("ro-target");
    let Some(fs) = common::TinyTmpfs::new(&s.0.join("ro"), "4m") else {
        common::skip("cannot mount a tmpfs");
        return;
    };
    let f = fs.0.join("t.dat");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    let remount = std::process::Command::new("mount").args(["-o", "remount,ro"]).arg(&fs.0).status().unwrap();
    assert!(remount.success());
    let results = s.path("results");
    let f = f.to_string_lossy().into_owned();
    let args = ["run", &f, "--rw", "randwrite", "--overwrite", "--buffered", "--time", "100ms", "--results", &results];
    refused(&args, "cannot be opened for writing", Some(&results));
    // Reading it is fine.
    let o = drivelab(&["run", &f, "--rw", "randread", "--buffered", "--time", "100ms", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&f).unwrap().iter().all(|&b| b == 7));
}

#[test]
fn a_precondition_without_permission_is_refused_before_a_results_directory_exists() {
    need_loop!();
    let s = Scratch::new("precond-perm");
    let d = LoopDev::new(&s.0.join("d.img"), 16 << 20, Some(0x44));
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n").unwrap();
    let results = s.path("results");
    refused(&["plan", &plan, &d.dev, "--precondition", "1", "--results", &results], "--destroy", Some(&results));
    assert!(std::fs::read(s.0.join("d.img")).unwrap().iter().all(|&b| b == 0x44), "nothing was written");
}

/// Issue #11, item 9: in a directory that cannot be written, every target and the results
/// location are checked before anything is created: the message names the directory and the
/// way out, and `--results` elsewhere is not left holding a half-made results directory.
#[test]
fn a_directory_that_cannot_be_written_is_named_before_anything_is_created() {
    need_loop!();
    let s = Scratch::new("ro-cwd");
    let Some(fs) = common::TinyTmpfs::new(&s.0.join("ro"), "1m") else {
        common::skip("cannot mount a tmpfs");
        return;
    };
    let remount = std::process::Command::new("mount").args(["-o", "remount,ro"]).arg(&fs.0).status().unwrap();
    assert!(remount.success());
    let in_ro = |args: &[&str]| common::drivelab_in(&fs.0, args);
    // No arguments: the default job's scratch file cannot be made here.
    let o = in_ro(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("drivelab-scratch.dat: its directory") && stderr(&o).contains("is not writable"),
        "{}",
        stderr(&o)
    );
    // Results elsewhere: still refused for the scratch file, and nothing is left there.
    let elsewhere = s.path("elsewhere");
    let o = in_ro(&["suite", "quick", "--results", &elsewhere]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!Path::new(&elsewhere).exists(), "a results directory was made for a run that cannot happen");
    // A run that needs no file here: the results location is named, with --results.
    let o = in_ro(&["run", "null", "--time", "100ms"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("cannot make the results directory under results") && err.contains("--results"), "{err}");
}

/// Issue #11, item 19: every device that needs `--destroy` is named in one refusal, with the
/// whole command to run — a JBOD suite on three drives takes one try, not three.
#[test]
fn every_device_that_needs_destroy_is_named_at_once_with_the_command() {
    need_loop!();
    let s = Scratch::new("destroy-all");
    let devs: Vec<LoopDev> = (0..3).map(|i| LoopDev::new(&s.0.join(format!("d{i}.img")), 32 << 20, None)).collect();
    let names: Vec<&str> = devs.iter().map(|d| d.dev.as_str()).collect();
    let results = s.path("results");
    let mut args = vec!["suite", "jbod"];
    args.extend(&names);
    args.extend(["--time", "100ms", "--results", &results]);
    let o = drivelab(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    let flags: Vec<String> = names.iter().map(|n| format!("--destroy {n}")).collect();
    assert!(err.contains(&format!("add {}", flags.join(" "))), "{err}");
    let command = err.lines().find_map(|l| l.strip_prefix("to run it so: ")).expect("the whole command");
    // The command it gives runs.
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    let o = drivelab(&words);
    assert!(o.status.success(), "{command}: {}", stderr(&o));
}

#[test]
fn the_jobs_of_a_group_are_capped_together_and_refused_before_any_file_is_looked_at() {
    let s = Scratch::new("jobcap");
    // 2,000 sections of one group: each within every cap alone, 2,000 threads together (it ran
    // them, 5.5 GB, exit 0).
    let mut text = String::from("[global]\nioengine=null\nsize=1m\n\n");
    for k in 0..2000 {
        text += &format!("[j{k}]\n");
    }
    let file = s.path("many.fio");
    std::fs::write(&file, text).unwrap();
    let t = std::time::Instant::now();
    refused(&["fio", &file], "2000 job threads at once", None);
    // 10,000 clones, a file each: refused only after minutes of probing their files before.
    let dir = s.path("clones");
    std::fs::create_dir(&dir).unwrap();
    let d = format!("--directory={dir}");
    refused(&["fio", "--name=x", &d, "--size=64k", "--numjobs=10000"], "10000 job threads on", None);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no clone's file was made");
    // A watchdog, not a bound: both took seconds to minutes; a refusal takes milliseconds.
    assert!(t.elapsed() < std::time::Duration::from_secs(40), "refused in {:?}", t.elapsed());
    // Groups that run one after another (stonewall) are capped one at a time.
    let mut text = String::from("[global]\nioengine=null\nsize=64k\nstonewall\n\n");
    for k in 0..200 {
        text += &format!("[j{k}]\n");
    }
    std::fs::write(&file, text).unwrap();
    let o = drivelab(&["fio", &file, "--output-format=terse", "--results", &s.path("r")]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A 100,000-character value was echoed whole in its refusal (drivelab's, fio mode's, clap's).
#[test]
fn a_huge_value_is_named_in_its_refusal_not_echoed_whole() {
    let v = "9".repeat(100_000);
    let cases: [Vec<String>; 4] = [
        vec!["run".into(), "null".into(), "--bs".into(), v.clone()],
        vec!["run".into(), "null".into(), "--time".into(), "10ms".into(), "--label".into(), v.clone()],
        vec!["fio".into(), "--name=x".into(), format!("--rw={v}")],
        vec!["run".into(), "null".into(), format!("--x{v}")],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
        let o = drivelab(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{}", &err[..err.len().min(400)]);
        assert!(err.len() < 1200, "{} bytes: {}", err.len(), &err[..400]);
        assert!(err.contains("999…(100"), "{err}");
    }
}

/// fio mode read a name that is not UTF-8 with U+FFFD in its place and made logs under that other
/// name (`--write_lat_log=\xffab` made `\u{fffd}ab_lat.1.log`).
#[test]
fn a_name_that_is_not_utf8_is_refused_in_fio_mode_not_replaced() {
    use std::os::unix::ffi::OsStrExt;
    let s = Scratch::new("not-utf8");
    let o = common::bin()
        .current_dir(&s.0)
        .args(["fio", "--name=x", "--filename=null", "--rw=read", "--size=1m"])
        .arg(std::ffi::OsStr::from_bytes(b"--write_lat_log=\xffab"))
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--write_lat_log=\\xffab is not UTF-8"), "{err}");
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_dir(&s.0).unwrap().count(), 0, "nothing made");
}
