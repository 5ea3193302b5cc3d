//! The calling thread's I/O priority (`ioprio_set`/`ioprio_get` on `IOPRIO_WHO_PROCESS` with id
//! 0: the thread itself on Linux): how a job runs at fio's `prioclass`/`prio` whatever its engine
//! (psync's reads and writes take it from the thread; io_uring's SQEs carry it too).

/// `IOPRIO_WHO_PROCESS`: `who` is a thread id, 0 the caller.
const WHO_PROCESS: libc::c_long = 1;

/// Set the calling thread's I/O priority to `ioprio` (`class << 13 | level`).
pub fn set_thread(ioprio: u16) -> std::io::Result<()> {
    // SAFETY: ioprio_set takes three integers and touches no memory of ours.
    let r = unsafe { libc::syscall(libc::SYS_ioprio_set, WHO_PROCESS, 0 as libc::c_long, ioprio as libc::c_long) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The calling thread's I/O priority.
pub fn get_thread() -> std::io::Result<u16> {
    // SAFETY: ioprio_get takes two integers and touches no memory of ours.
    let r = unsafe { libc::syscall(libc::SYS_ioprio_get, WHO_PROCESS, 0 as libc::c_long) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(r as u16)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_thread_set_to_a_priority_reads_it_back_and_others_keep_theirs() {
        let before = super::get_thread().unwrap();
        let got = std::thread::spawn(|| {
            super::set_thread(crate::spec::prio::value(3, 0)).unwrap();
            super::get_thread().unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(got, 0x6000, "idle class, as set");
        assert_eq!(super::get_thread().unwrap(), before, "only the thread that set it");
    }
}
