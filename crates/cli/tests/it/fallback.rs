//! Where io_uring is unavailable, drivelab says so in one line and runs the workload with psync.
//!
//! io_uring is taken away from the drivelab child alone, never from the machine: a seccomp
//! filter installed between fork and exec makes `io_uring_setup` fail with EPERM (what
//! `kernel.io_uring_disabled` or a container's seccomp policy answer), so the run takes its
//! real fallback path while every other process keeps io_uring.

use crate::common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Output;

use crate::common::{json, scratch_cwd, stderr, Scratch};

/// `AUDIT_ARCH_X86_64` / `AUDIT_ARCH_AARCH64`: the filter answers only for this architecture's
/// system call numbers.
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;

/// A seccomp program: `io_uring_setup` fails with `errno`, every other call is allowed.
fn deny_io_uring_setup(errno: u16) -> [libc::sock_filter; 6] {
    let stmt = |code: u32, k: u32| libc::sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jeq = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    let load = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    let ret = libc::BPF_RET | libc::BPF_K;
    [
        stmt(load, 4), // seccomp_data.arch
        jeq(AUDIT_ARCH, 0, 3),
        stmt(load, 0), // seccomp_data.nr
        jeq(libc::SYS_io_uring_setup as u32, 0, 1),
        stmt(ret, libc::SECCOMP_RET_ERRNO | errno as u32),
        stmt(ret, libc::SECCOMP_RET_ALLOW),
    ]
}

/// drivelab with `args`, in a child whose `io_uring_setup` fails with EPERM.
fn drivelab_without_io_uring(args: &[&str]) -> Output {
    let filter = deny_io_uring_setup(libc::EPERM as u16);
    let mut cmd = crate::common::bin();
    cmd.current_dir(scratch_cwd()).args(args);
    // SAFETY: between fork and exec the closure only makes two prctl calls on data owned by the
    // closure (no allocation, no lock); the filter applies to the child alone and is inherited
    // by drivelab's threads.
    unsafe {
        cmd.pre_exec(move || {
            let prog = libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut libc::sock_filter };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog as *const libc::sock_fprog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("run drivelab under the seccomp filter")
}

#[test]
fn without_io_uring_the_run_falls_back_to_psync_with_a_notice() {
    let s = Scratch::new("fallback");
    let f = s.path("t");
    let out = s.path("r.json");
    let o = drivelab_without_io_uring(&["run", &f, "--size", "8m", "--qd", "4", "--time", "300ms", "--json", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().filter(|l| l.contains("falling back to psync")).count(), 1, "one notice: {err}");
    let v = json(Path::new(&out));
    assert_eq!(v["engine"]["backend"], "psync");
    assert_eq!(v["spec"]["qd"], 1);
    assert_eq!(v["spec"]["jobs"], 4, "qd 4 runs as 4 psync jobs");
    assert!(v["read"]["ops"].as_u64().unwrap() > 0);
    assert!(v["notices"][0].as_str().unwrap().contains("psync"));
}

#[test]
fn the_filter_takes_io_uring_from_the_child_alone() {
    // The same run without the filter uses io_uring (where this machine has it): the fallback
    // above is the filter's doing, and this process was never without io_uring.
    if drivelab_engine::backend::uring::available().is_err() {
        common::skip("no io_uring on this machine");
        return;
    }
    let s = Scratch::new("fallback-control");
    let (f, out) = (s.path("t"), s.path("r.json"));
    let o = common::drivelab(&["run", &f, "--size", "8m", "--qd", "4", "--time", "100ms", "--json", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("falling back to psync"), "{}", stderr(&o));
    assert_eq!(json(Path::new(&out))["engine"]["backend"], "uring");
}
