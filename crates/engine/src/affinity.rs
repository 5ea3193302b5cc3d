//! Pinning job threads to CPUs on request (`--cpus`): repeatable placement for multi-job and
//! JBOD runs. The default leaves placement to the scheduler, as fio does; on this project's
//! 2-core VM pinning one job showed no gain beyond run-to-run noise.

use crate::spec::CpuPlacement;

/// CPUs this process may run on, ascending.
pub fn allowed_cpus() -> Vec<u32> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set for sched_getaffinity to fill.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; `set` is valid and its size is passed.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r != 0 {
        return Vec::new();
    }
    // SAFETY: CPU_ISSET only reads the set; i is below CPU_SETSIZE.
    (0..libc::CPU_SETSIZE as usize).filter(|&i| unsafe { libc::CPU_ISSET(i, &set) }).map(|i| i as u32).collect()
}

/// The CPU job number `job` (counting over all targets) should run on, if any.
pub fn cpu_for_job(placement: &CpuPlacement, allowed: &[u32], job: usize) -> Option<u32> {
    match placement {
        CpuPlacement::None => None,
        CpuPlacement::Spread if allowed.is_empty() => None,
        CpuPlacement::Spread => Some(allowed[job % allowed.len()]),
        CpuPlacement::List(l) => l.get(job % l.len().max(1)).copied(),
    }
}

/// Pin the calling thread to `cpu`. Failure (e.g. a cpuset that changed since the spec was
/// checked) leaves it unpinned.
pub fn pin_current_thread(cpu: u32) -> std::io::Result<()> {
    if cpu as usize >= libc::CPU_SETSIZE as usize {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: CPU_SET writes one bit of the set; cpu is below CPU_SETSIZE (checked above).
    unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    // SAFETY: pid 0 is the calling thread; `set` is valid and its size is passed.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Pin the calling thread (job `job`) to `cpu` when asked: the CPU the result records for it —
/// only one it was pinned to — or, when pinning failed, None and a notice saying so.
pub fn pin_job(job: usize, cpu: Option<u32>) -> (Option<u32>, Option<String>) {
    match cpu.map(|c| (c, pin_current_thread(c))) {
        None => (None, None),
        Some((c, Ok(()))) => (Some(c), None),
        Some((c, Err(e))) => {
            (None, Some(format!("job {job} could not be pinned to CPU {c} ({e}); it ran where the scheduler put it")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_goes_round_robin_over_allowed_cpus() {
        let allowed = [2, 3, 5];
        let got: Vec<_> = (0..5).map(|j| cpu_for_job(&CpuPlacement::Spread, &allowed, j)).collect();
        assert_eq!(got, vec![Some(2), Some(3), Some(5), Some(2), Some(3)]);
        assert_eq!(cpu_for_job(&CpuPlacement::None, &allowed, 0), None);
        assert_eq!(cpu_for_job(&CpuPlacement::List(vec![7]), &allowed, 3), Some(7));
    }

    #[test]
    fn a_pinned_thread_reports_that_cpu_only() {
        let cpu = allowed_cpus()[0];
        std::thread::spawn(move || {
            assert!(pin_current_thread(cpu).is_ok());
            assert_eq!(allowed_cpus(), vec![cpu]);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_job_is_recorded_as_pinned_only_when_it_was() {
        let all = allowed_cpus();
        let cpu = all[0];
        // A CPU this process may not use (or past what a cpu set holds): refused.
        let beyond = (0..1024).rev().find(|c| !all.contains(c)).expect("fewer than 1024 CPUs");
        std::thread::spawn(move || {
            assert_eq!(pin_job(0, None), (None, None), "not asked: not pinned, nothing to say");
            assert_eq!(pin_job(1, Some(cpu)), (Some(cpu), None));
            for bad in [beyond, u32::MAX] {
                let (pinned, notice) = pin_job(2, Some(bad));
                assert_eq!(pinned, None, "CPU {bad} was refused, not pinned");
                let notice = notice.expect("a notice");
                assert!(notice.contains(&format!("job 2 could not be pinned to CPU {bad}")), "{notice}");
            }
            assert_eq!(allowed_cpus(), vec![cpu], "a refused pin leaves the last one");
        })
        .join()
        .unwrap();
    }
}
