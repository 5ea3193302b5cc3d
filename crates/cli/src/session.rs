//! The job threads' own scheduling entity (issue #40).
//!
//! With the kernel's autogroup scheduling (`/proc/sys/kernel/sched_autogroup_enabled`, on in most
//! distributions) CPU time is shared first between sessions, then between the threads of each
//! session. fio runs every job in a forked process that calls `setsid()`, so a fio job is a group
//! of its own; drivelab's job threads, left in the session of the shell that started them, shared
//! one group with every CPU hog started from the same terminal and got a fraction of fio's share
//! on a busy machine (0.40–0.69x fio's IOPS beside 4 hogs: docs/PERFORMANCE.md).
//!
//! So before a command that measures starts its first thread, drivelab forks. The child starts a
//! session of its own and does the whole command, writing to the same standard output and error;
//! the parent stays in the shell's session and process group, where Ctrl-C, `kill`, `timeout` and
//! a closed terminal reach it, passes those signals on to the child (Ctrl-Z stops both, `fg`
//! resumes both) and ends as the child ended: its exit code, or its signal. The child dies with
//! the parent (`PR_SET_PDEATHSIG`): a parent killed outright takes the run with it, as the single
//! process it replaces would have died.
//!
//! Not forked: `--thread` (fio's `thread`: its jobs are threads of the process that started
//! them, sharing its session), a process that is already a session's leader (`setsid drivelab`, a
//! service), a rank under mpirun (the MPI runtime talks to the process it launched), and a process
//! that already runs a second thread (a fork copies only the calling thread). Which way the jobs
//! ran is in every result: `host.job_session` (`sysinfo::JobSession`), read from the process.

use std::sync::atomic::{AtomicBool, Ordering};

/// Signals the parent passes on to the child: the ones a terminal, a shell, `kill` and `timeout`
/// send to end or nudge a command (fio's SIGUSR1 asks for its status).
const FORWARDED: [libc::c_int; 7] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGUSR1, libc::SIGUSR2, libc::SIGALRM, libc::SIGWINCH];

/// Signals that end a process without a core dump: a child ended by one of these ends the parent
/// the same way, so a shell sees what it would have seen of one process.
const RERAISED: [libc::c_int; 8] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGKILL,
    libc::SIGPIPE,
    libc::SIGALRM,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Move the rest of this command into a child process in a session of its own, unless `shared`
/// (`--thread`) or one of the cases in the module's docs says otherwise. Returns in the process
/// that goes on with the command (the child, or this one when not forked); the parent never
/// returns. Only the first call does anything.
pub fn detach(shared: bool) {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) || shared || crate::mpi::launched() || !single_threaded() {
        return;
    }
    // SAFETY: getsid(0) and getpid() only read this process's ids.
    if unsafe { libc::getsid(0) == libc::getpid() } {
        return;
    }
    // Nothing buffered is written twice (by both processes).
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let _ = std::io::Write::flush(&mut std::io::stderr());
    // SAFETY: a zeroed sigset_t is a valid value to pass to sigemptyset, which initializes it;
    // sigaddset and sigaction (with a null new action) only read and write these locals, and
    // sigprocmask only changes this thread's mask (the only thread: checked above).
    let (set, old) = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigaddset(&mut set, libc::SIGTSTP);
        libc::sigaddset(&mut set, libc::SIGCONT);
        for sig in FORWARDED {
            // A signal ignored when drivelab started (`nohup`, a background job's SIGINT) stays
            // ignored: not caught here to be passed on.
            let mut now: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut now) == 0 && now.sa_sigaction != libc::SIG_IGN {
                libc::sigaddset(&mut set, sig);
            }
        }
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_BLOCK, &set, &mut old);
        (set, old)
    };
    // SAFETY: getpid reads this process's id; fork in a process of one thread (checked above)
    // leaves the child a full copy of it, with nothing half-held by another thread.
    let parent = unsafe { libc::getpid() };
    let pid = unsafe { libc::fork() };
    match pid {
        0 => {
            // SAFETY: setsid and prctl change only this (child) process; getppid reads its
            // parent's id; sigprocmask restores the mask the command started with.
            unsafe {
                libc::setsid();
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
                // The parent died before the line above: nobody waits for this run.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            }
        }
        -1 => {
            // No second process to be had: the command runs here (the result says the jobs
            // shared the session).
            // SAFETY: as above, restoring this thread's mask.
            unsafe { libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
        }
        child => wait_for(child, &set),
    }
}

/// The parent's whole life after the fork: pass signals on until the child ends, then end as it
/// did.
fn wait_for(child: libc::pid_t, set: &libc::sigset_t) -> ! {
    loop {
        // SAFETY: sigwaitinfo reads the set (blocked in this thread) and writes the info; kill,
        // raise and waitpid take plain values and a pointer to a local.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            match libc::sigwaitinfo(set, &mut info) {
                libc::SIGCHLD => {
                    let mut status = 0;
                    if libc::waitpid(child, &mut status, libc::WNOHANG) == child {
                        end_as(status);
                    }
                }
                // Ctrl-Z: the child stops with this process (it is in no terminal's foreground
                // to be stopped by the terminal itself); `fg` sends SIGCONT here, passed on.
                libc::SIGTSTP => {
                    libc::kill(child, libc::SIGSTOP);
                    libc::raise(libc::SIGSTOP);
                }
                -1 => {}
                sig => {
                    libc::kill(child, sig);
                }
            }
        }
    }
}

/// End this process as the child's `status` says it ended.
fn end_as(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        if RERAISED.contains(&sig) {
            // SAFETY: restoring the default action and unblocking `sig` changes only this
            // process, which is about to end by it.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                let mut one: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut one);
                libc::sigaddset(&mut one, sig);
                libc::sigprocmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
                libc::raise(sig);
            }
        }
        std::process::exit(128 + sig);
    }
    std::process::exit(libc::WEXITSTATUS(status));
}

/// Whether this process runs one thread (`/proc/self/task` has one entry): a fork copies only
/// the calling thread, so a second one (holding a lock, say) would be lost mid-step in the child.
fn single_threaded() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|d| d.count() == 1)
}
