//! io_uring backend tests: the submit loop's answers to the kernel, real rings, SQPOLL.

use super::*;
use crate::backend::files::Files;

fn err(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

#[test]
fn a_short_submit_resubmits_the_rest() {
    // The kernel takes 3 of 8, then 0 with EAGAIN, then EINTR, then 4, then EBUSY, then 1.
    let mut answers = vec![Ok(3), Err(err(libc::EAGAIN)), Err(err(libc::EINTR)), Ok(4), Err(err(libc::EBUSY)), Ok(1)];
    answers.reverse();
    // (calls asked for, rooms made, answers left)
    let mut st = (Vec::new(), 0, answers);
    submit_all(
        &mut st,
        8,
        |st, n| {
            st.0.push(n);
            st.2.pop().expect("no more calls than answers")
        },
        |st| {
            st.1 += 1;
            Ok(())
        },
    )
    .unwrap();
    let (asked, rooms, _) = st;
    assert_eq!(asked, vec![8, 5, 5, 5, 1, 1], "each call asks for what is still queued");
    assert_eq!(rooms, 2, "EAGAIN and EBUSY reap completions first, then retry");
}

#[test]
fn other_submit_errors_are_returned_and_endless_refusal_gives_up() {
    let e = submit_all(&mut (), 2, |_, _| Err(err(libc::EBADF)), |_| Ok(())).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EBADF));
    let mut rooms = 0u32;
    let e = submit_all(
        &mut rooms,
        2,
        |_, _| Err(err(libc::EAGAIN)),
        |r| {
            *r += 1;
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!((e.raw_os_error(), rooms), (Some(libc::EAGAIN), SUBMIT_RETRIES));
}

#[test]
fn a_real_ring_submits_and_completes_a_whole_batch() {
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let mut u = Uring::new(Files::new(vec![f]), 4, BufferPool::new(4, 4096), UringOptions::default(), 0).unwrap();
    let batch: Vec<Pending> = (0..4u32)
        .map(|i| Pending { slot: i, op: Op::Read, offset: i as u64 * 4096, len: 4096, prio: 0, file: 0, ranges: 1 })
        .collect();
    u.submit(&batch).unwrap();
    assert_eq!(u.inflight, 4);
    let mut done = 0;
    while done < 4 {
        u.wait(1).unwrap();
        u.reap(&mut |_, res| {
            assert_eq!(res, 4096);
            done += 1;
        });
    }
    assert_eq!(u.inflight, 0);
}

#[test]
fn dropping_a_ring_with_io_in_flight_waits_for_it_before_freeing_the_buffers() {
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let mut u = Uring::new(Files::new(vec![f]), 8, BufferPool::new(8, 4096), UringOptions::default(), 0).unwrap();
    let batch: Vec<Pending> = (0..8u32)
        .map(|i| Pending { slot: i, op: Op::Read, offset: i as u64 * 4096, len: 4096, prio: 0, file: 0, ranges: 1 })
        .collect();
    u.submit(&batch).unwrap();
    assert!(u.drain(), "every submitted read completes");
    assert_eq!(u.inflight, 0);
    u.submit(&batch).unwrap();
    drop(u); // drains before the pool goes: nothing reaped, nothing left in the kernel
}

#[test]
fn a_sqpoll_ring_submits_without_a_call_and_counts_its_thread() {
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let opts = UringOptions { sqpoll: true, ..Default::default() };
    let mut u = Uring::new(Files::new(vec![f]), 8, BufferPool::new(8, 4096), opts, 0).unwrap();
    assert!(u.sqpoll && u.facts.flags.contains(&"sqpoll".to_string()) && u.facts.refused.is_empty(), "{:?}", u.facts);
    let cpu0 = u.sq_thread_cpu_ns().expect("the SQPOLL thread's CPU is readable");
    for round in 0..100 {
        let batch: Vec<Pending> = (0..8u32)
            .map(|i| Pending { slot: i, op: Op::Read, offset: i as u64 * 4096, len: 4096, prio: 0, file: 0, ranges: 1 })
            .collect();
        u.submit(&batch).unwrap_or_else(|e| panic!("round {round}: {e}"));
        let mut done = 0;
        while done < 8 {
            u.wait(1).unwrap();
            u.reap(&mut |_, res| {
                assert_eq!(res, 4096);
                done += 1;
            });
        }
    }
    assert!(u.sq_thread_cpu_ns().unwrap() > cpu0, "the kernel thread did the submitting");
}

#[test]
fn what_the_kernel_refuses_is_dropped_and_named() {
    // Asking costs nothing where the kernel refuses: the ring is made without it, and says so.
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let opts = UringOptions { hipri: true, sqpoll: true, sqpoll_cpu: Some(u32::MAX) };
    let u = Uring::new(Files::new(vec![f]), 4, BufferPool::new(4, 4096), opts, 0).unwrap();
    assert!(!u.facts.flags.contains(&"sqpoll".to_string()), "no CPU u32::MAX: {:?}", u.facts);
    assert!(u.facts.refused.iter().any(|r| r.starts_with("sqpoll: ")), "{:?}", u.facts);
}

/// Eight 4 KiB reads of this test binary, one per slot.
fn eight_reads() -> Vec<Pending> {
    (0..8u32)
        .map(|i| Pending { slot: i, op: Op::Read, offset: i as u64 * 4096, len: 4096, prio: 0, file: 0, ranges: 1 })
        .collect()
}

#[test]
fn a_sqpoll_batch_whose_wake_up_fails_is_still_counted_in_flight_and_drained() {
    // The SQPOLL thread takes entries off the ring on its own: a failed wake-up call does not
    // take them back. Counted as not in flight, Drop would free buffers the kernel still fills.
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let opts = UringOptions { sqpoll: true, ..Default::default() };
    let mut u = Uring::new(Files::new(vec![f]), 8, BufferPool::new(8, 4096), opts, 0).unwrap();
    if !u.sqpoll {
        drivelab_testkit::skip("SQPOLL refused here");
        return;
    }
    u.fail_next_submit = Some(libc::EBUSY);
    let e = u.submit(&eight_reads()).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EBUSY), "the injected failure is returned");
    assert_eq!(u.inflight, 8, "what the kernel thread may take is in flight");
    // The thread was never woken: draining wakes it, and waits for every read.
    assert!(u.drain(), "every read of the batch completed");
    assert_eq!(u.inflight, 0);
    // Dropped with such a batch in flight: Drop drains it before the pool goes.
    u.fail_next_submit = Some(libc::EINVAL);
    assert!(u.submit(&eight_reads()).is_err());
    assert_eq!(u.inflight, 8);
    drop(u);
}

#[test]
fn a_refused_submit_leaves_nothing_counted_that_the_kernel_did_not_take() {
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let mut u = Uring::new(Files::new(vec![f]), 8, BufferPool::new(8, 4096), UringOptions::default(), 0).unwrap();
    u.fail_next_submit = Some(libc::EBADF);
    assert_eq!(u.submit(&eight_reads()).unwrap_err().raw_os_error(), Some(libc::EBADF));
    assert_eq!(u.inflight, 0, "the kernel took none");
    assert!(u.drain());
}

#[test]
fn a_batch_larger_than_the_ring_is_refused_before_any_entry_is_queued() {
    // All or nothing: an error leaves no entry half-queued for a later call to send unawares.
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let mut u = Uring::new(Files::new(vec![f]), 4, BufferPool::new(8, 4096), UringOptions::default(), 0).unwrap();
    assert!(u.submit(&eight_reads()).is_err(), "8 entries do not fit a ring of 4");
    assert_eq!((u.inflight, u.ring.submission().len()), (0, 0), "nothing queued, nothing in flight");
    u.submit(&eight_reads()[..4]).unwrap();
    assert_eq!(u.inflight, 4);
}

#[test]
fn ring_flags_are_named_as_the_result_lists_them() {
    let names: Vec<&str> =
        [RingFlag::CoopTaskrun, RingFlag::SingleIssuer, RingFlag::DeferTaskrun, RingFlag::Iopoll, RingFlag::Sqpoll]
            .iter()
            .map(|f| f.name())
            .collect();
    assert_eq!(names, ["coop_taskrun", "single_issuer", "defer_taskrun", "iopoll", "sqpoll"]);
}

/// The kernel's `io_uring_sqe`: opcode (byte 0), flags (1), ioprio (2..4, native endian).
fn sqe_ioprio(e: squeue::Entry) -> u16 {
    // SAFETY: `squeue::Entry` is `#[repr(C)]` around the kernel's 64-byte `io_uring_sqe`.
    let bytes: [u8; 64] = unsafe { std::mem::transmute(e) };
    u16::from_ne_bytes([bytes[2], bytes[3]])
}

#[test]
fn every_read_and_write_sqe_carries_the_ios_priority() {
    let mut buf = [0u8; 4096];
    for (fixed_file, fixed_buffers) in [(true, true), (true, false), (false, true), (false, false)] {
        for op in [Op::Read, Op::Write] {
            let p = Pending { slot: 0, op, offset: 0, len: 4096, prio: 0x6002, file: 0, ranges: 1 };
            assert_eq!(sqe_ioprio(sqe(fixed_file, fixed_buffers, 3, &p, buf.as_mut_ptr(), 0)), 0x6002, "{op:?}");
            let none = Pending { prio: 0, ..p };
            assert_eq!(sqe_ioprio(sqe(fixed_file, fixed_buffers, 3, &none, buf.as_mut_ptr(), 0)), 0);
        }
    }
}

/// The SQE's `rw_flags` (bytes 28..32, native endian).
fn sqe_rw_flags(e: squeue::Entry) -> u32 {
    // SAFETY: as `sqe_ioprio`'s.
    let bytes: [u8; 64] = unsafe { std::mem::transmute(e) };
    u32::from_ne_bytes([bytes[28], bytes[29], bytes[30], bytes[31]])
}

#[test]
fn atomic_writes_carry_rwf_atomic_and_reads_nothing() {
    let mut buf = [0u8; 4096];
    for (fixed_file, fixed_buffers) in [(true, true), (true, false), (false, true), (false, false)] {
        let w = Pending { slot: 0, op: Op::Write, offset: 0, len: 4096, prio: 0, file: 0, ranges: 1 };
        let atomic = libc::RWF_ATOMIC;
        assert_eq!(sqe_rw_flags(sqe(fixed_file, fixed_buffers, 3, &w, buf.as_mut_ptr(), atomic)), atomic as u32);
        assert_eq!(sqe_rw_flags(sqe(fixed_file, fixed_buffers, 3, &w, buf.as_mut_ptr(), 0)), 0);
        let r = Pending { op: Op::Read, ..w };
        assert_eq!(sqe_rw_flags(sqe(fixed_file, fixed_buffers, 3, &r, buf.as_mut_ptr(), atomic)), 0);
    }
}

#[test]
fn a_real_ring_completes_reads_at_the_idle_and_best_effort_priorities() {
    if available().is_err() {
        drivelab_testkit::skip("no io_uring here");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let mut u = Uring::new(Files::new(vec![f]), 4, BufferPool::new(4, 4096), UringOptions::default(), 0).unwrap();
    // The kernel checks an SQE's ioprio (a bad class is EINVAL): these two are taken.
    let batch: Vec<Pending> = (0..4u32)
        .map(|i| Pending {
            slot: i,
            op: Op::Read,
            offset: i as u64 * 4096,
            len: 4096,
            prio: [0x6000, 0x4007][i as usize % 2],
            file: 0,
            ranges: 1,
        })
        .collect();
    u.submit(&batch).unwrap();
    let mut done = Vec::new();
    while done.len() < 4 {
        u.wait(1).unwrap();
        u.reap(&mut |slot, res| done.push((slot, res)));
    }
    assert!(done.iter().all(|&(_, r)| r == 4096), "{done:?}");
    let bad = Pending { slot: 0, op: Op::Read, offset: 0, len: 4096, prio: 7 << 13, file: 0, ranges: 1 };
    u.submit(&[bad]).unwrap();
    let mut res = Vec::new();
    while res.is_empty() {
        u.wait(1).unwrap();
        u.reap(&mut |_, r| res.push(r));
    }
    assert_eq!(res, vec![-libc::EINVAL], "an unknown class is refused: the field reaches the kernel");
}
