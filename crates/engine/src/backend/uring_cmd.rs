//! io_uring_cmd (fio's `ioengine=io_uring_cmd`, `cmd_type=nvme`): NVMe reads and writes passed
//! through an NVMe generic character device (`/dev/ngXnY`) as `IORING_OP_URING_CMD` entries,
//! bypassing the block layer. The ring is set up with `IORING_SETUP_SQE128 | IORING_SETUP_CQE32`
//! (a 128-byte SQE carries the 72-byte `struct nvme_uring_cmd`: `uring_cmd_nvme.rs`), one per
//! job thread like `uring.rs`, with the same asks (IOPOLL for `hipri`, SQPOLL for
//! `sqthread_poll`, each dropped with a note where the kernel refuses it) and the same
//! accounting (`inflight` counts an entry from the moment the kernel may take it; `Drop` drains
//! before the buffers go), and `uring.rs`'s submit loop (`submit_all`).
//!
//! Buffers are registered and used as fixed buffers (fio's `fixedbufs`,
//! `IORING_URING_CMD_FIXED`) where the kernel has them for commands (Linux 6.1); commands are
//! always non-vectored (fio's `nonvectored=1`, its default where the kernel can). A completion's
//! result is the NVMe status: 0 becomes the I/O's length, a positive status -EIO.
//!
//! fio's command options (`CmdOptions`): each write is a Write, Write Uncorrectable, Write
//! Zeroes or Verify by `write_mode`'s shares (the last three move no data and count their
//! length as written, as fio's), reads and writes carry FUA with `readfua`/`writefua`, Write
//! Zeroes deallocates with `deac`; a trim is a Dataset Management deallocate of one range, the
//! range written into the slot's own buffer.

use std::fs::File;
use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, RawFd};

use io_uring::{cqueue, opcode, squeue, types, IoUring};

use super::uring::{submit_all, RingFacts, RingFlag, UringOptions};
use super::uring_cmd_nvme::{
    flush, namespace_of, put_range, CmdOptions, Namespace, NvmeUringCmd, WriteOp, DSM_RANGE_BYTES, NVME_URING_CMD_IO,
};
use super::{Backend, Pending};
use crate::pattern::BufferPool;

pub use super::uring_cmd_nvme::{check_target, NvmeTargetError};

type Ring = IoUring<squeue::Entry128, cqueue::Entry32>;

const IORING_ENTER_GETEVENTS: u32 = 1;
/// How long an idle SQPOLL thread keeps polling before it sleeps (as `uring.rs`'s rings).
const SQPOLL_IDLE_MS: u32 = 1000;

/// The backend's result for a command's completion: the slot's length on NVMe status 0, -EIO
/// for an NVMe error status (positive), the negative errno as it is.
#[inline]
fn result_of(lens: &[u32], slot: u32, res: i32) -> i32 {
    match res {
        0 => lens.get(slot as usize).map_or(0, |&l| l as i32),
        r if r > 0 => -libc::EIO,
        r => r,
    }
}

/// Whether this kernel builds a ring of 128-byte SQEs and 32-byte CQEs (Linux 5.19+).
pub fn ring_available() -> Result<(), String> {
    Ring::builder().build(2).map(|_| ()).map_err(|e| ring_refusal(e.raw_os_error()))
}

/// Why a ring with SQE128 | CQE32 was refused, for the user.
fn ring_refusal(errno: Option<i32>) -> String {
    let why = match errno {
        Some(libc::EINVAL) => "this kernel's io_uring has no 128-byte submission entries (IORING_SETUP_SQE128 \
                               and CQE32 need Linux 5.19 or later)"
            .to_string(),
        Some(libc::ENOSYS) => "the kernel has no io_uring".to_string(),
        Some(libc::EPERM) => "io_uring is disabled (kernel.io_uring_disabled or seccomp)".to_string(),
        Some(e) => format!("io_uring refused the ring: {}", io::Error::from_raw_os_error(e)),
        None => "io_uring refused the ring".to_string(),
    };
    format!("ioengine io_uring_cmd (engine uring_cmd) cannot run here: {why}; use io_uring on the block device")
}

/// The kernel release is at least `major.minor` (uname).
fn kernel_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: all-zero bytes are a valid utsname; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: uname writes only into `u`.
    if unsafe { libc::uname(&mut u) } != 0 {
        return false;
    }
    // SAFETY: uname NUL-terminates `release`.
    let rel = unsafe { std::ffi::CStr::from_ptr(u.release.as_ptr()) }.to_string_lossy().into_owned();
    let mut parts = rel.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    let (a, b) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (a, b) >= (major, minor)
}

pub(crate) struct UringCmd {
    /// Closed in `Drop`, after everything in flight has completed.
    ring: ManuallyDrop<Ring>,
    /// Freed in `Drop` after the ring is closed, or leaked when in-flight I/O could not drain.
    pool: ManuallyDrop<BufferPool>,
    inflight: usize,
    /// Completions moved off the ring while making room for a refused submit, and trims
    /// answered at once; `reap` hands them out first. Sized once (qd).
    stash: Vec<(u32, i32)>,
    /// Each slot's I/O length (a command's success is reported as its length).
    lens: Vec<u32>,
    file: File,
    fd: RawFd,
    ns: Namespace,
    /// The commands' options, and the writes issued (which picks each one's command).
    cmd: CmdOptions,
    writes: u32,
    fixed_file: bool,
    fixed_buffers: bool,
    iopoll: bool,
    sqpoll: bool,
    facts: RingFacts,
}

/// A ring of SQE128/CQE32 entries with IOPOLL and SQPOLL as asked, each dropped (named in
/// `refused`) where the kernel refuses it.
fn build(entries: u32, opts: UringOptions, refused: &mut Vec<String>) -> io::Result<(Ring, bool, bool)> {
    let mut first_err: Option<io::Error> = None;
    for (iopoll, sqpoll) in [(opts.hipri, opts.sqpoll), (false, opts.sqpoll), (opts.hipri, false), (false, false)] {
        let mut b = Ring::builder();
        b.setup_cqsize(entries * 2);
        if iopoll {
            b.setup_iopoll();
        }
        if sqpoll {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(c) = opts.sqpoll_cpu {
                b.setup_sqpoll_cpu(c);
            }
        }
        match b.build(entries) {
            Ok(r) => {
                let why = first_err.as_ref().map(|e| e.to_string()).unwrap_or_default();
                for (asked, got, flag) in
                    [(opts.hipri, iopoll, RingFlag::Iopoll), (opts.sqpoll, sqpoll, RingFlag::Sqpoll)]
                {
                    if asked && !got {
                        refused.push(format!("{}: {why}", flag.name()));
                    }
                }
                return Ok((r, iopoll, sqpoll));
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| io::Error::other("no ring")))
}

impl UringCmd {
    /// A ring for `qd` outstanding commands on the generic character device `file`, its
    /// namespace found, every slot of `pool` registered.
    pub fn new(file: File, qd: u32, pool: BufferPool, opts: UringOptions, cmd: CmdOptions) -> io::Result<UringCmd> {
        let ns = namespace_of(&file)?;
        UringCmd::with_namespace(file, qd, pool, opts, ns, cmd)
    }

    /// [`UringCmd::new`] with the namespace given (tests: a file that is no NVMe device).
    fn with_namespace(
        file: File,
        qd: u32,
        pool: BufferPool,
        opts: UringOptions,
        ns: Namespace,
        cmd: CmdOptions,
    ) -> io::Result<UringCmd> {
        let fd = file.as_raw_fd();
        let entries = qd.next_power_of_two().max(2);
        let mut refused = Vec::new();
        let (ring, iopoll, sqpoll) =
            build(entries, opts, &mut refused).map_err(|e| io::Error::other(ring_refusal(e.raw_os_error())))?;
        let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
        let bufs = pool.iovecs();
        // SAFETY: the iovecs describe `pool`, which moves into the returned UringCmd (its heap
        // allocation does not move) and is freed only in Drop after the ring is drained and closed.
        let registered =
            bufs.len() <= u16::MAX as usize + 1 && unsafe { ring.submitter().register_buffers(&bufs) }.is_ok();
        // Commands take fixed buffers from Linux 6.1 (IORING_URING_CMD_FIXED).
        let fixed_buffers = registered && kernel_at_least(6, 1);
        let mut flags = vec!["sqe128".to_string(), "cqe32".to_string()];
        flags.extend(iopoll.then(|| RingFlag::Iopoll.name().to_string()));
        flags.extend(sqpoll.then(|| RingFlag::Sqpoll.name().to_string()));
        let facts = RingFacts { flags, fixed_file, fixed_buffers, registered_ring: false, refused };
        Ok(UringCmd {
            ring: ManuallyDrop::new(ring),
            pool: ManuallyDrop::new(pool),
            inflight: 0,
            stash: Vec::with_capacity(qd as usize),
            lens: vec![0; qd as usize],
            file,
            fd,
            ns,
            cmd,
            writes: 0,
            fixed_file,
            fixed_buffers,
            iopoll,
            sqpoll,
            facts,
        })
    }

    /// Make room for a refused submit: wait briefly for a completion and stash what completed.
    fn make_room(&mut self) -> io::Result<()> {
        if self.ring.completion().is_empty() {
            self.wait_raw(1, Some(50_000))?;
        }
        for cqe in self.ring.completion() {
            self.inflight -= 1;
            let slot = cqe.user_data() as u32;
            self.stash.push((slot, result_of(&self.lens, slot, cqe.result())));
        }
        Ok(())
    }

    /// Wait for `n` completions, at most `timeout_ns` when given; a timeout or a signal returns.
    fn wait_raw(&mut self, n: u32, timeout_ns: Option<u64>) -> io::Result<()> {
        let r = match timeout_ns {
            Some(ns) => {
                let ts = types::Timespec::new().sec(ns / 1_000_000_000).nsec((ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                self.ring.submitter().submit_with_args(n as usize, &args)
            }
            None => self.ring.submitter().submit_and_wait(n as usize),
        };
        match r {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Wait for every command in flight; false if the ring failed first.
    fn drain(&mut self) -> bool {
        self.stash.clear();
        while self.inflight > 0 {
            for _ in self.ring.completion() {
                self.inflight -= 1;
            }
            if self.inflight > 0 && self.wait_raw(1, None).is_err() {
                return false;
            }
        }
        true
    }

    /// The command of `p` (its buffer at `buf`, the slot's); None when it is not whole LBAs.
    #[inline]
    fn entry(&mut self, p: &Pending, buf: *mut u8) -> Option<squeue::Entry128> {
        let (nsid, shift) = (self.ns.nsid, self.ns.lba_shift);
        let (cmd, moves_data) = match p.op {
            crate::gen::Op::Read => {
                (NvmeUringCmd::io(None, &self.cmd, nsid, shift, p.offset, p.len, buf as u64)?, true)
            }
            crate::gen::Op::Write => {
                let w = self.cmd.write_op(self.writes);
                self.writes = self.writes.wrapping_add(1);
                (NvmeUringCmd::io(Some(w), &self.cmd, nsid, shift, p.offset, p.len, buf as u64)?, w == WriteOp::Write)
            }
            crate::gen::Op::Trim => {
                // A trim of one range: its range written here; of several (`p.ranges`, fio's
                // num_range): the worker wrote them into the slot's buffer.
                let n = usize::from(p.ranges.max(1));
                let ranges = self.pool.io_ptr(p.slot, (n * DSM_RANGE_BYTES) as u32) as *mut [u8; DSM_RANGE_BYTES];
                // SAFETY: io_ptr gives n * DSM_RANGE_BYTES bytes of this slot's buffer (it checks
                // the slot and length; a [u8; 16] has alignment 1), which no other I/O uses until
                // this one completes.
                let ranges = unsafe { std::slice::from_raw_parts_mut(ranges, n) };
                if n == 1 {
                    put_range(&mut ranges[0], p.offset, u64::from(p.len));
                }
                (NvmeUringCmd::trim(nsid, shift, ranges)?, true)
            }
        };
        let op = if self.fixed_file {
            opcode::UringCmd80::new(types::Fixed(0), NVME_URING_CMD_IO)
        } else {
            opcode::UringCmd80::new(types::Fd(self.fd), NVME_URING_CMD_IO)
        };
        let op = op.cmd(cmd.to_cmd80());
        let op = if self.fixed_buffers && moves_data { op.buf_index(Some(p.slot as u16)) } else { op };
        Some(op.build().user_data(p.slot as u64))
    }
}

impl Drop for UringCmd {
    fn drop(&mut self) {
        let drained = self.drain();
        // SAFETY: `ring` is dropped once, here, and not used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
        if drained {
            // SAFETY: nothing is in flight and the ring is closed: the kernel no longer uses the
            // buffers; `pool` is dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.pool) };
        }
    }
}

// SAFETY: as `Uring`: commands point into our own pool (io_ptr checks slot and length), which
// lives until Drop has drained every accepted command and closed the ring; each completion is
// handed out once.
unsafe impl Backend for UringCmd {
    const SUBMIT_COMPLETES: bool = false;

    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.pool
    }

    fn submit(&mut self, batch: &[Pending]) -> io::Result<()> {
        {
            let sq = self.ring.submission();
            if sq.capacity() - sq.len() < batch.len() {
                return Err(io::Error::other(format!(
                    "submission queue full: {} entries free",
                    sq.capacity() - sq.len()
                )));
            }
        }
        let mut queued = 0u32;
        for p in batch {
            if let Some(l) = self.lens.get_mut(p.slot as usize) {
                *l = p.len;
            }
            // A trim's length is the ranges' (its buffer holds the ranges, not data).
            let buf = if p.op == crate::gen::Op::Trim { std::ptr::null_mut() } else { self.pool.io_ptr(p.slot, p.len) };
            let Some(e) = self.entry(p, buf) else {
                // Not whole LBAs: refused at once.
                self.stash.push((p.slot, -libc::EINVAL));
                continue;
            };
            // SAFETY: the command's buffer is `p.len` bytes of slot `p.slot` of our pool, which
            // lives until Drop has drained the ring and which the worker leaves alone until this
            // slot's completion is reaped; the file is ours and stays open.
            if unsafe { self.ring.submission().push(&e) }.is_err() {
                return Err(io::Error::other("submission queue full"));
            }
            queued += 1;
        }
        if queued == 0 {
            return Ok(());
        }
        if self.sqpoll {
            // The kernel thread may take them as soon as they are in the ring.
            self.inflight += queued as usize;
            return self.ring.submit().map(|_| ());
        }
        submit_all(
            self,
            queued,
            |u, _| {
                let taken = u.ring.submit()? as u32;
                u.inflight += taken as usize;
                Ok(taken)
            },
            UringCmd::make_room,
        )
    }

    fn wait(&mut self, n: u32) -> io::Result<()> {
        let have = self.ring.completion().len() + self.stash.len();
        if have >= n as usize {
            return Ok(());
        }
        self.wait_raw(n - self.stash.len() as u32, None)
    }

    fn wait_timeout(&mut self, n: u32, timeout_ns: u64) -> io::Result<()> {
        if self.ring.completion().len() + self.stash.len() >= n as usize {
            return Ok(());
        }
        if self.iopoll {
            let deadline = crate::clock::now_ns().saturating_add(timeout_ns);
            while !self.poll()? && crate::clock::now_ns() < deadline {}
            return Ok(());
        }
        self.wait_raw(n - self.stash.len() as u32, Some(timeout_ns))
    }

    fn poll(&mut self) -> io::Result<bool> {
        if !self.ring.completion().is_empty() || !self.stash.is_empty() {
            return Ok(true);
        }
        // SAFETY: a plain io_uring_enter on our ring, no argument struct.
        match unsafe { self.ring.submitter().enter::<libc::sigset_t>(0, 0, IORING_ENTER_GETEVENTS, None) } {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            Err(e) => return Err(e),
        }
        Ok(!self.ring.completion().is_empty())
    }

    fn reap(&mut self, f: &mut impl FnMut(u32, i32)) {
        for (slot, res) in self.stash.drain(..) {
            f(slot, res);
        }
        for cqe in self.ring.completion() {
            self.inflight -= 1;
            let slot = cqe.user_data() as u32;
            f(slot, result_of(&self.lens, slot, cqe.result()));
        }
    }

    fn fsync(&mut self, _data_only: bool) -> io::Result<()> {
        // NVMe's flush makes everything written durable: data and metadata alike.
        flush(&self.file, self.ns.nsid)
    }

    fn ring_facts(&self) -> Option<RingFacts> {
        Some(self.facts.clone())
    }

    fn looks_before_sleep(&self) -> Option<bool> {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Op;

    #[test]
    fn a_refused_ring_says_why_and_what_to_use() {
        let m = ring_refusal(Some(libc::EINVAL));
        assert!(m.contains("no 128-byte submission entries") && m.contains("Linux 5.19"), "{m}");
        assert!(m.starts_with("ioengine io_uring_cmd (engine uring_cmd) cannot run here: "), "{m}");
        assert!(ring_refusal(Some(libc::EPERM)).contains("io_uring is disabled"));
    }

    #[test]
    fn an_nvme_status_is_an_io_error_and_success_the_length() {
        let lens = [4096, 512];
        assert_eq!([result_of(&lens, 0, 0), result_of(&lens, 1, 0)], [4096, 512]);
        assert_eq!(result_of(&lens, 0, 0x4002), -libc::EIO, "an NVMe status (positive)");
        assert_eq!(result_of(&lens, 0, -libc::EINVAL), -libc::EINVAL);
    }

    #[test]
    fn commands_go_through_a_sqe128_ring_and_each_completes_once() {
        // /dev/null takes uring_cmd (Linux 6.0+, for measuring passthrough's own cost) and
        // completes every command with status 0: each read comes back as its length, proving
        // the 128-byte entries were built, submitted, waited for and reaped (a kernel without it
        // answers -EOPNOTSUPP, which proves as much).
        if let Err(why) = ring_available() {
            drivelab_testkit::skip(&why);
            return;
        }
        let f = File::options().read(true).write(true).open("/dev/null").unwrap();
        let ns = Namespace { nsid: 1, lba_shift: 9 };
        let cmd = CmdOptions { write_mode: [50, 0, 50, 0], ..Default::default() };
        let mut u = UringCmd::with_namespace(f, 4, BufferPool::new(4, 4096), UringOptions::default(), ns, cmd).unwrap();
        assert_eq!(u.facts.flags[..2], ["sqe128", "cqe32"]);
        let batch: Vec<Pending> = (0..4u32)
            .map(|i| Pending {
                slot: i,
                op: [Op::Read, Op::Write, Op::Write, Op::Trim][i as usize],
                offset: i as u64 * 4096,
                len: 4096,
                prio: 0,
                file: 0,
                ranges: 1,
            })
            .collect();
        u.submit(&batch).unwrap();
        assert_eq!(u.inflight, 4, "a read, a Write, a Write Zeroes and a Dataset Management in the ring");
        assert_eq!(u.writes, 2);
        let mut got = Vec::new();
        while got.len() < 4 {
            u.wait(1).unwrap();
            u.reap(&mut |slot, res| got.push((slot, res)));
        }
        got.sort();
        let ok = if got[0].1 == -libc::EOPNOTSUPP { -libc::EOPNOTSUPP } else { 4096 };
        assert_eq!(got, [(0, ok), (1, ok), (2, ok), (3, ok)], "each completes once, as its length");
        assert_eq!(u.inflight, 0);
    }

    #[test]
    fn a_trim_of_several_ranges_sends_the_ranges_the_worker_wrote() {
        if let Err(why) = ring_available() {
            drivelab_testkit::skip(&why);
            return;
        }
        let f = File::options().read(true).write(true).open("/dev/null").unwrap();
        let ns = Namespace { nsid: 1, lba_shift: 12 };
        let cmd = CmdOptions { num_range: 3, ..Default::default() };
        let mut u = UringCmd::with_namespace(f, 2, BufferPool::new(2, 512), UringOptions::default(), ns, cmd).unwrap();
        // Three ranges of 4, 8 and 4 KiB: 16 KiB trimmed by one command whose slot holds 512
        // bytes (the ranges are in it, not the data).
        let ranges = [(40_960u64, 4096u64), (8192, 8192), (1 << 30, 4096)];
        for (i, &(off, len)) in ranges.iter().enumerate() {
            let entry = (&mut u.pool_mut().slot_mut(1)[i * 16..(i + 1) * 16]).try_into().unwrap();
            put_range(entry, off, len);
        }
        let trim = Pending { slot: 1, op: Op::Trim, offset: 40_960, len: 16_384, prio: 0, file: 0, ranges: 3 };
        u.submit(&[trim]).unwrap();
        let buf = u.pool_mut().slot_mut(1)[..48].to_vec();
        for (i, &(off, len)) in ranges.iter().enumerate() {
            let e = &buf[i * 16..(i + 1) * 16];
            assert_eq!(e[..4], [0; 4], "context attributes");
            assert_eq!(u32::from_le_bytes(e[4..8].try_into().unwrap()) as u64, len >> 12, "LBA count of range {i}");
            assert_eq!(u64::from_le_bytes(e[8..].try_into().unwrap()), off >> 12, "starting LBA of range {i}");
        }
        let mut got = Vec::new();
        while got.is_empty() {
            u.wait(1).unwrap();
            u.reap(&mut |slot, res| got.push((slot, res)));
        }
        let ok = if got[0].1 == -libc::EOPNOTSUPP { -libc::EOPNOTSUPP } else { 16_384 };
        assert_eq!(got, [(1, ok)], "one command, completing as the ranges' whole length");
        // A range not whole LBAs fails that trim alone, at once.
        put_range((&mut u.pool_mut().slot_mut(0)[16..32]).try_into().unwrap(), 512, 4096);
        put_range((&mut u.pool_mut().slot_mut(0)[..16]).try_into().unwrap(), 0, 4096);
        u.submit(&[Pending { slot: 0, ranges: 2, len: 8192, offset: 0, ..trim }]).unwrap();
        let mut got = Vec::new();
        u.reap(&mut |slot, res| got.push((slot, res)));
        assert_eq!(got, [(0, -libc::EINVAL)]);
    }
}
