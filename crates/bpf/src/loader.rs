//! Load, attach and map the split's BPF programs for one run.

use std::os::fd::{AsFd, AsRawFd};
use std::sync::Arc;

use drivelab_engine::split::{KernelStamps, SplitProvider, SplitTable};
use libbpf_rs::{Link, MapCore, MapFlags, Object, ObjectBuilder};

/// The compiled programs: bpf/split.bpf.c as clang made it, committed beside it (tests/object.rs
/// checks that it is).
const OBJECT: &[u8] = include_bytes!("bpf/split.bpf.o");

/// The size of the programs' `struct config` (split.bpf.c), their `cfg` in .rodata.
const CONFIG_LEN: usize = 48;

/// The provider the binary registers.
pub(crate) struct Bpf;

impl SplitProvider for Bpf {
    fn unavailable(&self) -> Option<String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Some("loading BPF programs needs root (CAP_BPF and CAP_PERFMON): run as root".into());
        }
        if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
            return Some("this kernel has no BTF (/sys/kernel/btf/vmlinux): it needs CONFIG_DEBUG_INFO_BTF=y".into());
        }
        None
    }

    fn begin(&self, jobs: u32, slots_per_job: u32) -> Result<Arc<dyn SplitTable>, String> {
        Table::load(jobs, slots_per_job).map(|t| Arc::new(t) as Arc<dyn SplitTable>)
    }
}

/// One run's programs, attached while it lives, and its stamp table, mapped.
struct Table {
    obj: Object,
    _links: Vec<Link>,
    map: *mut libc::c_void,
    map_len: usize,
    len: usize,
    slots_per_job: u32,
}

// SAFETY: the mapping is plain shared memory; the object and links are only dropped, never used
// from two threads at once (`lost_events` reads a map through its fd, which the kernel serializes).
unsafe impl Send for Table {}
unsafe impl Sync for Table {}

impl Table {
    fn load(jobs: u32, slots_per_job: u32) -> Result<Table, String> {
        let len =
            (jobs as usize).checked_mul(slots_per_job.max(1) as usize).filter(|&n| n <= 1 << 24).ok_or_else(|| {
                format!("{jobs} jobs of {slots_per_job} I/Os in flight: more than the split's 16M records")
            })?;
        // `struct config`: who we are, the table's shape, and the end_io functions of the
        // direct-I/O bios the programs follow back to their io_uring request. Written into the
        // object's .rodata before it loads: the verifier then knows every field as a constant.
        let ends =
            kallsyms(&["blkdev_bio_end_io_async", "blkdev_bio_end_io", "iomap_dio_bio_end_io", "bio_chain_endio"]);
        let cfg = {
            let mut b = [0u8; CONFIG_LEN];
            b[0..4].copy_from_slice(&std::process::id().to_ne_bytes());
            b[4..8].copy_from_slice(&slots_per_job.max(1).to_ne_bytes());
            b[8..12].copy_from_slice(&(len as u32).to_ne_bytes());
            for (k, a) in ends.iter().enumerate() {
                b[16 + 8 * k..24 + 8 * k].copy_from_slice(&a.to_ne_bytes());
            }
            b
        };
        let mut open =
            ObjectBuilder::default().open_memory(OBJECT).map_err(|e| format!("opening the BPF object: {e}"))?;
        let mut configured = false;
        for mut m in open.maps_mut() {
            if m.name() == "stamps" {
                m.set_max_entries(len as u32).map_err(|e| format!("sizing the stamp table: {e}"))?;
            } else if m.name().to_string_lossy().ends_with(".rodata") {
                // `cfg` is the section's only variable: its bytes are the section's first.
                let init = m.initial_value_mut().filter(|v| v.len() >= CONFIG_LEN);
                let init = init.ok_or("the BPF object's .rodata has no room for its configuration")?;
                init[..CONFIG_LEN].copy_from_slice(&cfg);
                configured = true;
            }
        }
        if !configured {
            return Err("the BPF object has no .rodata to configure".into());
        }
        let obj = open.load().map_err(|e| {
            format!("loading the BPF programs: {e} (the split needs Linux 6.1 or newer with BTF; `dmesg` may say more)")
        })?;
        let mut links = Vec::new();
        for p in obj.progs_mut() {
            let name = p.name().to_string_lossy().into_owned();
            links.push(p.attach().map_err(|e| format!("attaching the BPF program {name}: {e}"))?);
        }
        let stamps = map_named(&obj, "stamps")?;
        let fd = stamps.as_fd().as_raw_fd();
        let page = 4096usize;
        let map_len = (len * std::mem::size_of::<KernelStamps>()).div_ceil(page) * page;
        // SAFETY: mapping a BPF_F_MMAPABLE array map's fd: the kernel backs it with the map's
        // values (len records of 64 bytes, contiguous); unmapped in Drop.
        let map = unsafe {
            libc::mmap(std::ptr::null_mut(), map_len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
        };
        if map == libc::MAP_FAILED {
            return Err(format!("mapping the stamp table: {}", std::io::Error::last_os_error()));
        }
        Ok(Table { obj, _links: links, map, map_len, len, slots_per_job: slots_per_job.max(1) })
    }

    /// The counters map's values (lost, punts, sampled, sampled_ns).
    fn counters(&self) -> [u64; 4] {
        let Ok(m) = map_named(&self.obj, "counters") else { return [0; 4] };
        let Ok(Some(v)) = m.lookup(&0u32.to_ne_bytes(), MapFlags::ANY) else { return [0; 4] };
        std::array::from_fn(|k| {
            v.get(k * 8..k * 8 + 8).map_or(0, |b| u64::from_ne_bytes(b.try_into().unwrap_or([0; 8])))
        })
    }
}

impl Table {
    /// Each program's information from the kernel (its recursion misses).
    fn infos(&self) -> Vec<libbpf_sys::bpf_prog_info> {
        let mut out = Vec::new();
        for p in self.obj.progs() {
            // SAFETY: an all-zero bpf_prog_info is valid input; the kernel fills at most `len`.
            let mut info: libbpf_sys::bpf_prog_info = unsafe { std::mem::zeroed() };
            let mut len = std::mem::size_of::<libbpf_sys::bpf_prog_info>() as u32;
            // SAFETY: `info` and `len` are valid and writable; the fd is the program's own.
            if unsafe { libbpf_sys::bpf_prog_get_info_by_fd(p.as_fd().as_raw_fd(), &mut info, &mut len) } == 0 {
                out.push(info);
            }
        }
        out
    }
}

/// The addresses of kernel functions `names` (0 for one this kernel lacks), from /proc/kallsyms
/// (which shows them to root).
fn kallsyms(names: &[&str]) -> Vec<u64> {
    let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    let mut out = vec![0u64; names.len()];
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let (Some(addr), Some(_), Some(name)) = (f.next(), f.next(), f.next()) else { continue };
        if let Some(k) = names.iter().position(|n| *n == name) {
            if out[k] == 0 {
                out[k] = u64::from_str_radix(addr, 16).unwrap_or(0);
            }
        }
    }
    out
}

fn map_named<'a>(obj: &'a Object, name: &str) -> Result<libbpf_rs::Map<'a>, String> {
    obj.maps().find(|m| m.name() == name).ok_or_else(|| format!("the BPF object has no map {name}"))
}

// SAFETY: `map` is `len` records, mapped until Drop, written only by our BPF programs and the
// job threads (each its own slots).
unsafe impl SplitTable for Table {
    fn stamps(&self) -> *mut KernelStamps {
        self.map.cast()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn slots_per_job(&self) -> u32 {
        self.slots_per_job
    }
    /// Requests the programs could not match, plus every event the kernel did not run a program
    /// for because that program was already running on the CPU (it never nests one: a request
    /// completed in an interrupt while the same program ran for another is skipped and counted).
    fn lost_events(&self) -> u64 {
        let missed: u64 = self.infos().iter().map(|i| i.recursion_misses).sum();
        self.counters()[0] + missed
    }
    fn kernel_cost(&self) -> Option<(u64, u64)> {
        let [_, _, sampled, sampled_ns] = self.counters();
        (sampled > 0).then_some((sampled_ns, sampled))
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `load`, unmapped once; the links detach after.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}
