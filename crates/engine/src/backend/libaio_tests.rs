//! libaio backend tests: real AIO contexts on an O_DIRECT file in /dev/shm — writes and reads
//! land where asked, results (whole, short, failed) come back as the kernel gave them, trims and
//! priorities, and the drain before the buffers go.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;

use super::*;
use crate::backend::files::Files;
use std::fs::File;

/// A scratch file of `bytes` (all `fill`) in /dev/shm, opened read-write with O_DIRECT; None (the
/// test is skipped) where the file system refuses O_DIRECT.
fn direct_file(name: &str, bytes: usize, fill: u8) -> Option<(File, std::path::PathBuf)> {
    let shm = std::path::Path::new("/dev/shm");
    direct_file_in(if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() }, name, bytes, fill)
}

fn direct_file_in(dir: std::path::PathBuf, name: &str, bytes: usize, fill: u8) -> Option<(File, std::path::PathBuf)> {
    let path = dir.join(format!("drivelab-libaio-{name}-{}", std::process::id()));
    std::fs::write(&path, vec![fill; bytes]).unwrap();
    match std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_DIRECT).open(&path) {
        Ok(f) => Some((f, path)),
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            drivelab_testkit::skip(&format!("no O_DIRECT on {}: {e}", path.display()));
            None
        }
    }
}

fn io(slot: u32, op: Op, offset: u64, len: u32) -> Pending {
    Pending { slot, op, offset, len, prio: 0, file: 0, ranges: 1 }
}

/// Wait for and reap `n` completions: (slot, result) in the order they came.
fn complete(b: &mut Libaio, n: usize) -> Vec<(u32, i32)> {
    let mut got = Vec::new();
    while got.len() < n {
        b.wait(1).unwrap();
        b.reap(&mut |slot, res| got.push((slot, res)));
    }
    got.sort();
    got
}

#[test]
fn a_batch_of_writes_lands_where_asked_and_reads_read_it_back() {
    let Some((f, path)) = direct_file("rw", 64 << 10, 0) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 8, BufferPool::new(8, 4096)).unwrap();
    // Slot i writes 4 KiB of byte i+1 at block 15-i: every slot lands somewhere else.
    for i in 0..8 {
        b.pool_mut().slot_mut(i).fill(i as u8 + 1);
    }
    let writes: Vec<Pending> = (0..8u32).map(|i| io(i, Op::Write, (15 - i as u64) * 4096, 4096)).collect();
    b.submit(&writes).unwrap();
    assert_eq!(b.inflight + b.done(), 8, "the whole batch is in flight");
    assert_eq!(complete(&mut b, 8), (0..8).map(|i| (i, 4096)).collect::<Vec<_>>());
    assert_eq!(b.inflight, 0);
    let mut on_disk = Vec::new();
    std::fs::File::open(&path).unwrap().read_to_end(&mut on_disk).unwrap();
    for i in 0..8usize {
        let block = &on_disk[(15 - i) * 4096..(16 - i) * 4096];
        assert!(block.iter().all(|&x| x == i as u8 + 1), "block {} holds slot {i}'s data", 15 - i);
    }
    assert!(on_disk[..8 * 4096].iter().all(|&x| x == 0), "nothing written elsewhere");
    // Read them back into other slots: slot i reads block 8+i, written by slot 7-i.
    for i in 0..8 {
        b.pool_mut().slot_mut(i).fill(0xEE);
    }
    let reads: Vec<Pending> = (0..8u32).map(|i| io(i, Op::Read, (8 + i as u64) * 4096, 4096)).collect();
    b.submit(&reads).unwrap();
    assert_eq!(complete(&mut b, 8), (0..8).map(|i| (i, 4096)).collect::<Vec<_>>());
    for i in 0..8usize {
        assert!(b.pool_mut().slot_mut(i).iter().all(|&x| x == 8 - i as u8), "slot {i} read block {}", 8 + i);
    }
    drop(b);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn short_completions_come_back_as_the_bytes_the_kernel_moved() {
    let Some((f, path)) = direct_file("short", 16 << 10, 7) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 4, BufferPool::new(4, 8192)).unwrap();
    // 8 KiB from the last 4 KiB of the file: short, 4096 bytes; at the end: 0.
    b.submit(&[io(0, Op::Read, 12 << 10, 8192), io(1, Op::Read, 16 << 10, 4096)]).unwrap();
    assert_eq!(complete(&mut b, 2), [(0, 4096), (1, 0)]);
    drop(b);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_failed_io_completes_with_its_errno() {
    // A misaligned O_DIRECT read on a file system that checks alignment (ext4, xfs: not tmpfs)
    // is submitted, then fails in the kernel: -EINVAL in its completion.
    let Some((f, path)) = direct_file_in(std::env::temp_dir(), "einval", 16 << 10, 0) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 2, BufferPool::new(2, 4096)).unwrap();
    b.submit(&[io(0, Op::Read, 100, 4096), io(1, Op::Read, 4096, 4096)]).unwrap();
    let got = complete(&mut b, 2);
    drop(b);
    std::fs::remove_file(path).unwrap();
    if got[0].1 == 4096 {
        drivelab_testkit::skip("the temporary directory's file system takes misaligned O_DIRECT I/O");
        return;
    }
    assert_eq!(got, [(0, -libc::EINVAL), (1, 4096)]);
}

#[test]
fn a_submit_the_kernel_refuses_is_an_error_with_nothing_in_flight() {
    let Some((_, path)) = direct_file("ro", 16 << 10, 0) else { return };
    // Writes to a file opened read-only: io_submit refuses the first one (EBADF).
    let ro = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(&path).unwrap();
    let mut b = Libaio::new(Files::new(vec![ro]), 4, BufferPool::new(4, 4096)).unwrap();
    let e = b.submit(&[io(0, Op::Write, 0, 4096), io(1, Op::Write, 4096, 4096)]).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EBADF), "{e}");
    assert_eq!((b.inflight, b.done()), (0, 0));
    drop(b);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn trims_punch_holes_and_are_reaped_with_the_completions() {
    let Some((f, path)) = direct_file("trim", 16 << 10, 0xAB) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 4, BufferPool::new(4, 4096)).unwrap();
    b.submit(&[io(0, Op::Trim, 4096, 4096), io(1, Op::Read, 0, 4096)]).unwrap();
    assert_eq!(complete(&mut b, 2), [(0, 4096), (1, 4096)]);
    let mut on_disk = Vec::new();
    let mut plain = std::fs::File::open(&path).unwrap();
    plain.read_to_end(&mut on_disk).unwrap();
    assert!(on_disk[4096..8192].iter().all(|&x| x == 0), "the trimmed block reads as zeros");
    assert!(on_disk[..4096].iter().chain(&on_disk[8192..]).all(|&x| x == 0xAB), "the rest is untouched");
    drop(b);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn an_io_with_its_own_priority_completes() {
    let Some((f, path)) = direct_file("prio", 16 << 10, 0) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 2, BufferPool::new(2, 4096)).unwrap();
    // Best effort, level 3: IOCB_FLAG_IOPRIO with aio_reqprio (a kernel without it says EINVAL).
    let p = Pending { prio: (2 << 13) | 3, ..io(0, Op::Read, 0, 4096) };
    b.submit(&[p, io(1, Op::Read, 4096, 4096)]).unwrap();
    assert_eq!(b.iocbs[0].aio_flags, IOCB_FLAG_IOPRIO);
    assert_eq!((b.iocbs[0].aio_reqprio, b.iocbs[1].aio_flags), ((2 << 13) | 3, 0));
    assert_eq!(complete(&mut b, 2), [(0, 4096), (1, 4096)]);
    drop(b);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn poll_and_a_timed_wait_find_completions_without_blocking_for_them() {
    let Some((f, path)) = direct_file("poll", 16 << 10, 0) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 4, BufferPool::new(4, 4096)).unwrap();
    assert!(!b.poll().unwrap(), "nothing in flight, nothing to take");
    b.wait_timeout(1, 1_000).unwrap();
    b.submit(&[io(0, Op::Read, 0, 4096), io(1, Op::Read, 4096, 4096)]).unwrap();
    while !b.poll().unwrap() {}
    b.wait_timeout(2, u64::MAX / 4).unwrap();
    assert_eq!(b.done(), 2);
    assert_eq!(complete(&mut b, 2), [(0, 4096), (1, 4096)]);
    drop(b);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn dropping_with_io_in_flight_waits_for_it_before_freeing_the_buffers() {
    let Some((f, path)) = direct_file("drop", 64 << 10, 0x5A) else { return };
    let mut b = Libaio::new(Files::new(vec![f]), 16, BufferPool::new(16, 4096)).unwrap();
    let batch: Vec<Pending> = (0..16u32).map(|i| io(i, Op::Read, i as u64 * 4096, 4096)).collect();
    b.submit(&batch).unwrap();
    assert!(b.drain(), "every submitted read completes");
    assert_eq!((b.inflight, b.done()), (0, 0));
    b.submit(&batch).unwrap();
    assert_eq!(b.inflight + b.done(), 16);
    drop(b); // drains before the pool goes: nothing reaped, nothing left in the kernel
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_context_the_system_cannot_give_is_a_clear_error() {
    // One request more than the system allows (sysctl fs.aio-max-nr, read, never changed).
    let max: u32 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr").unwrap().trim().parse().unwrap();
    if max >= 1 << 22 {
        drivelab_testkit::skip("fs.aio-max-nr is raised past what one context may ask for");
        return;
    }
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let Err(e) = Libaio::new(Files::new(vec![f]), max + 1, BufferPool::new(1, 4096)) else {
        panic!("a context past fs.aio-max-nr")
    };
    assert!(e.to_string().contains("raise fs.aio-max-nr, or lower the queue depth or the jobs"), "{e}");
}
