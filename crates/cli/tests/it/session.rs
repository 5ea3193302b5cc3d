//! The job threads in a session of their own (issue #40): a measuring command forks, the child
//! starts a session and does the command, the parent passes signals on and ends as the child
//! did; `--thread` (fio's `thread`) keeps the jobs in drivelab's session. Every wait here is for
//! an event (a process appearing, stopping, ending), never a guessed time.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{json, results_dir, stderr, stdout, tree, Scratch};

/// A field of `/proc/PID/stat` after the command name (0: the state, 3: the session).
fn stat_field(pid: i32, n: usize) -> Option<String> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &text[text.rfind(')')? + 2..];
    after.split_whitespace().nth(n).map(str::to_string)
}

/// Wait (a minute at most: a watchdog) until `cond` holds.
fn until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(60);
    while !cond() {
        assert!(Instant::now() < end, "{what} (a watchdog)");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A long run on the null target, started in the background.
fn long_run(s: &Scratch, extra: &[&str]) -> Child {
    crate::common::bin()
        .args(["run", "null", "--time", "10m", "-q", "--results", &s.path("results")])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The forked child of `parent` once it runs its job thread.
fn job_process(parent: &Child) -> i32 {
    let mut job = 0;
    until("the job process never started its job thread", || {
        job = tree(parent.id()).get(1).copied().unwrap_or(0);
        job != 0
            && std::fs::read_dir(format!("/proc/{job}/task"))
                .into_iter()
                .flatten()
                .flatten()
                .any(|t| std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.starts_with("drivelab-s0t0j0")))
    });
    job
}

fn host(results: &Path) -> serde_json::Value {
    json(&results_dir(results).join("run.json"))["host"].clone()
}

#[test]
fn the_job_threads_run_in_a_session_of_their_own_and_the_result_says_which() {
    let s = Scratch::new("session-own");
    let child = long_run(&s, &[]);
    let job = job_process(&child);
    // The child leads a session of its own; the parent stays in the test's.
    let ours = stat_field(std::process::id() as i32, 3).unwrap();
    assert_eq!(stat_field(job, 3).as_deref(), Some(job.to_string().as_str()), "the job process leads its session");
    assert_eq!(stat_field(child.id() as i32, 3), Some(ours), "the parent stays in the caller's session");
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "Ctrl-C passed on: {}", stderr(&o));
    assert_eq!(host(&s.0.join("results"))["job_session"], "own");

    // --thread: one process, in the caller's session, and the result says so.
    let s = Scratch::new("session-shared");
    let o = crate::common::drivelab(&["run", "null", "--time", "100ms", "-q", "--thread", "--results", &s.path("r")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(host(&s.0.join("r"))["job_session"], "shared");
    let auto = std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled").map(|t| t.trim() == "1");
    if let Ok(a) = auto {
        assert_eq!(host(&s.0.join("r"))["autogroup"], a);
    }
}

#[test]
fn fios_thread_option_keeps_the_jobs_in_drivelabs_session_as_fio_keeps_threads() {
    for (extra, session, banner) in
        [(None, "own", "Starting 1 process"), (Some("--thread"), "shared", "Starting 1 thread")]
    {
        let s = Scratch::new(&format!("session-fio-{session}"));
        let mut cmd = crate::common::bin();
        cmd.current_dir(&s.0).args(["fio", "--name=j", "--ioengine=null", "--size=1m", "--results", &s.path("r")]);
        cmd.args(extra);
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains(banner), "{extra:?}: {}", stdout(&o));
        assert_eq!(host(&s.0.join("r"))["job_session"], session, "{extra:?}");
    }
}

#[test]
fn a_parent_killed_outright_takes_the_run_with_it() {
    let s = Scratch::new("session-kill");
    let mut child = long_run(&s, &[]);
    let job = job_process(&child);
    // SAFETY: pidfd_open takes a pid and flags; the descriptor is ours to poll and close.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, job, 0) } as i32;
    assert!(fd >= 0, "pidfd_open of the job process");
    // SAFETY: sending a signal to our own child (the parent only).
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    // The job process ends with it (its parent-death signal): its pidfd becomes readable.
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: poll reads and writes the one pollfd; close takes our own descriptor.
    let ready = unsafe {
        let n = libc::poll(&mut pfd, 1, 60_000);
        libc::close(fd);
        n
    };
    assert_eq!(ready, 1, "the job process outlived its killed parent (a minute: a watchdog)");
}

#[test]
fn ctrl_z_stops_both_processes_and_fg_resumes_both() {
    let s = Scratch::new("session-stop");
    let child = long_run(&s, &[]);
    let job = job_process(&child);
    let parent = child.id() as i32;
    let state = |pid: i32| stat_field(pid, 0).unwrap_or_default();
    // SAFETY: sending signals to our own child.
    unsafe { libc::kill(parent, libc::SIGTSTP) };
    until("Ctrl-Z did not stop both", || state(parent) == "T" && state(job) == "T");
    // SAFETY: as above.
    unsafe { libc::kill(parent, libc::SIGCONT) };
    until("fg did not resume both", || state(parent) != "T" && state(job) != "T");
    // SAFETY: as above.
    unsafe { libc::kill(parent, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "SIGTERM passed on, finished results kept: {}", stderr(&o));
    assert!(stderr(&o).contains("interrupted; finished results were kept"), "{}", stderr(&o));
}

#[test]
fn a_job_process_ended_by_a_signal_ends_its_parent_by_the_same_signal() {
    let s = Scratch::new("session-signal");
    let mut child = long_run(&s, &[]);
    let job = job_process(&child);
    // SAFETY: sending a signal to the job process our child forked.
    unsafe { libc::kill(job, libc::SIGKILL) };
    let status = child.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGKILL), "{status:?}");
}
