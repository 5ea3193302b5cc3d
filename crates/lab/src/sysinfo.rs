//! Facts about the host and the target that every results directory records in `run.json`.
//!
//! A throughput or latency number is only comparable with another when you know what produced
//! it: the same drive model behaves differently with another firmware revision, I/O scheduler,
//! queue depth limit or write-cache mode, and the same test differs between a kernel, a
//! filesystem, a virtual machine and bare metal. Storage reviewers ask for these facts first, so
//! drivelab collects them itself rather than relying on whoever ran the benchmark to write them
//! down: which machine (CPU, cores, memory, clocksource, hypervisor), which kernel and
//! distribution, which exact drive (model, serial, firmware, transport, scheduler and queue
//! limits) and, for a file target, which filesystem and mount options.
//!
//! Everything here is best effort and read-only: a fact that cannot be read (a missing sysfs
//! attribute, a container without `/sys`, odd contents) becomes `None` rather than an error,
//! and nothing here panics on unexpected input. The parsers are small pure functions over the
//! text of the kernel's files so they can be tested on literal inputs.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use drivelab_engine::sysfs::{self, attr, read_text, trimmed};

use crate::mounts::{self, Mount};

/// The machine a run happened on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFacts {
    /// `/proc/sys/kernel/hostname` ("unknown" when unreadable).
    pub hostname: String,
    /// Kernel release, as `uname -r` prints it ("unknown" when unreadable).
    pub kernel: String,
    /// `PRETTY_NAME` from `/etc/os-release` (or `/usr/lib/os-release`).
    pub os: Option<String>,
    /// `model name` from `/proc/cpuinfo` (or its equivalent on non-x86 machines).
    pub cpu_model: Option<String>,
    /// Logical CPUs online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1.
    pub cores_online: u32,
    /// Total usable memory (`MemTotal` of `/proc/meminfo`), 0 when unknown.
    pub memory_bytes: u64,
    /// The current clocksource (`tsc`, `kvm-clock`, `hpet`, ...): it decides what timing costs.
    pub clocksource: Option<String>,
    /// The hypervisor, best effort: e.g. "KVM", "KVM (QEMU)", "VMware", "Hyper-V", "Xen", or
    /// "unknown hypervisor" when the CPU says it is virtualized but not by whom. `None` when no
    /// sign of virtualization was found (bare metal, or a hypervisor that hides itself).
    pub virtualization: Option<String>,
    /// `/proc/loadavg`'s 1, 5 and 15 minute load averages when the run started (`4.12 3.80
    /// 2.10`): on a busy machine the figures hold drivelab's waits for a CPU (issue #40). Absent
    /// in results saved before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_avg: Option<String>,
    /// Where drivelab's job threads ran for the kernel's scheduler: in a session of their own
    /// (as fio's job processes) or in the session drivelab was started in (`--thread`, fio's
    /// `thread`, a rank under mpirun). Absent in results saved before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_session: Option<JobSession>,
    /// Whether the kernel shares the CPUs between sessions first (autogroup scheduling,
    /// `/proc/sys/kernel/sched_autogroup_enabled`): only then does `job_session` change the
    /// jobs' share of a busy machine. None when unreadable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autogroup: Option<bool>,
}

/// Where drivelab's job threads ran (issue #40): with autogroup scheduling a session is a group
/// that gets its share of the CPUs whatever number of threads the other sessions run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobSession {
    /// A session of their own (drivelab's default; fio's job processes call `setsid()` too).
    Own,
    /// The session drivelab was started in, shared with whatever else runs there.
    Shared,
}

impl JobSession {
    /// This process's: its own session when it leads one.
    pub fn of_this_process() -> JobSession {
        // SAFETY: getsid(0) and getpid() only read this process's ids.
        match unsafe { libc::getsid(0) == libc::getpid() } {
            true => JobSession::Own,
            false => JobSession::Shared,
        }
    }

    /// For a report's host line.
    pub fn words(self) -> &'static str {
        match self {
            JobSession::Own => "job threads in a session of their own",
            JobSession::Shared => "job threads in the session drivelab was started in (--thread)",
        }
    }
}

impl HostFacts {
    /// A host nothing is known of (results read from another tool's output, such as fio's JSON,
    /// which records no host facts).
    pub fn unknown() -> HostFacts {
        HostFacts {
            hostname: "unknown".into(),
            kernel: "unknown".into(),
            os: None,
            cpu_model: None,
            cores_online: 0,
            memory_bytes: 0,
            clocksource: None,
            virtualization: None,
            load_avg: None,
            job_session: None,
            autogroup: None,
        }
    }

    /// Nothing is known of the host ([`HostFacts::unknown`]): reports say so instead of listing
    /// unknowns.
    pub fn is_unknown(&self) -> bool {
        *self == HostFacts::unknown()
    }
}

/// One block device: the engine's [`DiskFacts`], read by the same sysfs reader `probe` uses,
/// so a drive has one model string in `run.json` and in every result.
pub use drivelab_engine::sysfs::DiskFacts as DeviceFacts;

/// The filesystem a file target lives on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Filesystem type, e.g. `ext4`, `xfs`, `tmpfs`.
    pub filesystem: String,
    pub mount_point: String,
    /// Mount source, e.g. `/dev/vda` or `tmpfs`.
    pub source: String,
    /// The per-mount options followed by the filesystem's own (super block) options that add
    /// something, e.g. `rw,relatime,discard,errors=remount-ro`.
    pub mount_options: String,
}

/// Facts about the machine this process runs on.
/// This host's name (`/proc/sys/kernel/hostname`, its UTS namespace's), "unknown" when unreadable.
pub fn hostname() -> String {
    attr("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into())
}

pub fn host() -> HostFacts {
    let cpuinfo = read_text("/proc/cpuinfo").unwrap_or_default();
    let dmi = |name: &str| attr(Path::new("/sys/class/dmi/id").join(name));
    let virtualization = detect_virtualization(&VirtSigns {
        hypervisor_flag: cpuinfo_has_hypervisor_flag(&cpuinfo),
        xen_type: attr("/sys/hypervisor/type"),
        sys_vendor: dmi("sys_vendor"),
        product_name: dmi("product_name"),
        available_clocksources: attr("/sys/devices/system/clocksource/clocksource0/available_clocksource"),
    });
    HostFacts {
        hostname: hostname(),
        kernel: attr("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
        os: read_text("/etc/os-release")
            .or_else(|| read_text("/usr/lib/os-release"))
            .and_then(|t| parse_os_release(&t)),
        cpu_model: parse_cpu_model(&cpuinfo),
        cores_online: cores_online(),
        memory_bytes: read_text("/proc/meminfo").and_then(|t| parse_meminfo(&t)).unwrap_or(0),
        clocksource: attr("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        virtualization,
        load_avg: read_text("/proc/loadavg").and_then(|t| parse_loadavg(&t)),
        job_session: Some(JobSession::of_this_process()),
        autogroup: attr("/proc/sys/kernel/sched_autogroup_enabled").map(|v| v == "1"),
    }
}

/// The three load averages of `/proc/loadavg` (`0.52 0.58 0.59 1/467 12345`), as it says them;
/// None unless all three are numbers.
fn parse_loadavg(text: &str) -> Option<String> {
    let three: Vec<&str> = text.split_whitespace().take(3).collect();
    let numbers = three.len() == 3 && three.iter().all(|v| v.parse::<f64>().is_ok_and(|x| x.is_finite() && x >= 0.0));
    numbers.then(|| three.join(" "))
}

/// Facts about the whole disk `disk` (a kernel name such as `vda` or `nvme0n1`, not a path and
/// not a partition). `None` when `/sys/block/<disk>` does not exist.
pub fn device(disk: &str) -> Option<DeviceFacts> {
    DeviceFacts::read(Path::new(sysfs::SYS), disk)
}

/// The mount that contains `path`: the longest mount point of `/proc/self/mountinfo` that is a
/// prefix of the canonicalized path (the last one mounted when several are stacked on the same
/// point). A path that does not exist yet is looked up through its nearest existing ancestor.
pub fn file_facts(path: &Path) -> Option<FileFacts> {
    let resolved = resolve_existing(path)?;
    find_mount(&mounts::read(), &resolved)
}

// ---------------------------------------------------------------------------------------------
// Reading helpers.

fn cores_online() -> u32 {
    // SAFETY: sysconf only reads a system parameter; it takes no pointers and has no
    // preconditions. It returns -1 on error, which is handled below.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n >= 1 {
        return u32::try_from(n).unwrap_or(u32::MAX);
    }
    std::thread::available_parallelism().map(|n| u32::try_from(n.get()).unwrap_or(u32::MAX)).unwrap_or(1)
}

/// `path` canonicalized, or if it does not exist, its nearest existing ancestor canonicalized.
fn resolve_existing(path: &Path) -> Option<PathBuf> {
    for ancestor in path.ancestors() {
        let candidate = if ancestor.as_os_str().is_empty() { Path::new(".") } else { ancestor };
        if let Ok(p) = fs::canonicalize(candidate) {
            return Some(p);
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Pure parsers.

/// `PRETTY_NAME` of an os-release file, else `NAME` and `VERSION` joined.
fn parse_os_release(text: &str) -> Option<String> {
    if let Some(pretty) = os_release_field(text, "PRETTY_NAME") {
        return Some(pretty);
    }
    let name = os_release_field(text, "NAME")?;
    Some(match os_release_field(text, "VERSION") {
        Some(version) => format!("{name} {version}"),
        None => name,
    })
}

/// One `KEY=value` of an os-release file, unquoted (shell-like: "..." with backslash escapes,
/// '...' literal). `None` if absent or empty.
fn os_release_field(text: &str, key: &str) -> Option<String> {
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else { continue };
        if k.trim() == key {
            found = Some(unquote_shell(v.trim()));
        }
    }
    found.and_then(|v| trimmed(&v))
}

fn unquote_shell(v: &str) -> String {
    if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        return v[1..v.len() - 1].to_string();
    }
    let inner = if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') { &v[1..v.len() - 1] } else { v };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `MemTotal` of /proc/meminfo in bytes ("MemTotal: 16 kB" -> 16384).
fn parse_meminfo(text: &str) -> Option<u64> {
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else { continue };
        if key.trim() != "MemTotal" {
            continue;
        }
        let mut words = value.split_whitespace();
        let n: u64 = words.next()?.parse().ok()?;
        return match words.next() {
            None => Some(n),
            Some(unit) if unit.eq_ignore_ascii_case("kb") => n.checked_mul(1024),
            Some(unit) if unit.eq_ignore_ascii_case("mb") => n.checked_mul(1024 * 1024),
            Some(_) => None,
        };
    }
    None
}

/// The `key: value` pairs of /proc/cpuinfo (keys trimmed), in order.
fn cpuinfo_fields(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|line| line.split_once(':')).map(|(k, v)| (k.trim(), v.trim()))
}

/// The CPU model of /proc/cpuinfo: `model name` on x86, otherwise the closest equivalent other
/// architectures provide.
fn parse_cpu_model(text: &str) -> Option<String> {
    for key in ["model name", "cpu model", "Processor", "cpu", "Model"] {
        if let Some(v) = cpuinfo_fields(text).find(|(k, _)| *k == key).and_then(|(_, v)| trimmed(v)) {
            return Some(v);
        }
    }
    None
}

/// Does the CPU say it runs under a hypervisor (the x86 `hypervisor` flag)?
fn cpuinfo_has_hypervisor_flag(text: &str) -> bool {
    cpuinfo_fields(text).any(|(k, v)| k == "flags" && v.split_whitespace().any(|f| f == "hypervisor"))
}

/// What the system shows about a hypervisor; see [`detect_virtualization`].
#[derive(Debug, Default)]
struct VirtSigns {
    hypervisor_flag: bool,
    /// `/sys/hypervisor/type` (Xen guests: "xen").
    xen_type: Option<String>,
    /// `/sys/class/dmi/id/sys_vendor`.
    sys_vendor: Option<String>,
    /// `/sys/class/dmi/id/product_name`.
    product_name: Option<String>,
    /// `available_clocksource`: paravirtual clocks exist only under their hypervisor.
    available_clocksources: Option<String>,
}

/// The hypervisor's name, combining the hypervisor itself (from its paravirtual clock or
/// `/sys/hypervisor`) with the platform DMI names (QEMU, VMware, a cloud), e.g. "KVM (QEMU)".
fn detect_virtualization(s: &VirtSigns) -> Option<String> {
    let clocks = s.available_clocksources.as_deref().unwrap_or("");
    let hypervisor = if clocks.split_whitespace().any(|c| c == "kvm-clock") {
        Some("KVM")
    } else if clocks.split_whitespace().any(|c| c.starts_with("hyperv")) {
        Some("Hyper-V")
    } else if s.xen_type.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("xen"))
        || clocks.split_whitespace().any(|c| c == "xen")
    {
        Some("Xen")
    } else {
        None
    };
    let vendor = s.sys_vendor.as_deref().unwrap_or("");
    let product = s.product_name.as_deref().unwrap_or("");
    // (name, is_cloud): a cloud vendor also sells bare-metal machines, so it alone proves nothing.
    let platform = if vendor.contains("QEMU") || product.contains("QEMU") {
        Some(("QEMU", false))
    } else if vendor.contains("VMware") || product.contains("VMware") {
        Some(("VMware", false))
    } else if vendor.contains("innotek") || product.contains("VirtualBox") {
        Some(("VirtualBox", false))
    } else if vendor.contains("Microsoft") && product.contains("Virtual Machine") {
        Some(("Hyper-V", false))
    } else if vendor.contains("Parallels") || product.contains("Parallels") {
        Some(("Parallels", false))
    } else if vendor.eq_ignore_ascii_case("bhyve") || product.eq_ignore_ascii_case("bhyve") {
        Some(("bhyve", false))
    } else if vendor.contains("Xen") || product.contains("HVM domU") {
        Some(("Xen", false))
    } else if product == "KVM" || vendor == "KVM" {
        Some(("KVM", false))
    } else if vendor.contains("Amazon EC2") {
        Some(("Amazon EC2", true))
    } else if product.contains("Google Compute Engine") {
        Some(("Google Compute Engine", true))
    } else if product.contains("OpenStack") {
        Some(("OpenStack", true))
    } else {
        None
    };
    let virtual_signs = s.hypervisor_flag || hypervisor.is_some();
    match (hypervisor, platform) {
        (Some(h), Some((p, _))) if h != p => Some(format!("{h} ({p})")),
        (Some(h), _) => Some(h.to_string()),
        (None, Some((p, false))) => Some(p.to_string()),
        (None, Some((p, true))) if virtual_signs => Some(p.to_string()),
        _ if s.hypervisor_flag => Some("unknown hypervisor".to_string()),
        _ => None,
    }
}

/// The mount of `mounts` containing the absolute `path`: the longest mount point that is a
/// component-wise prefix; among equal ones the last (it is the one stacked on top).
fn find_mount(mounts: &[Mount], path: &Path) -> Option<FileFacts> {
    let mut best: Option<&Mount> = None;
    for m in mounts {
        if !path.starts_with(&m.mount_point) {
            continue;
        }
        let depth = m.mount_point.components().count();
        let on_top = match best {
            Some(b) => depth >= b.mount_point.components().count(),
            None => true,
        };
        if on_top {
            best = Some(m);
        }
    }
    best.map(file_facts_of)
}

/// A mount as [`FileFacts`]: the per-mount options followed by the super block options that
/// add something (not `rw`/`ro`, not already there).
fn file_facts_of(m: &Mount) -> FileFacts {
    let mut options = m.options.clone();
    for o in &m.super_options {
        if o != "rw" && o != "ro" && !options.contains(o) {
            options.push(o.clone());
        }
    }
    FileFacts {
        filesystem: m.fstype.clone(),
        mount_point: m.mount_point.to_string_lossy().into_owned(),
        source: m.source.to_string_lossy().into_owned(),
        mount_options: options.join(","),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_averages_are_read_as_the_kernel_says_them_and_garbage_is_none() {
        assert_eq!(parse_loadavg("4.12 3.80 2.10 5/467 12345\n").as_deref(), Some("4.12 3.80 2.10"));
        assert_eq!(parse_loadavg("0.00 0.01 0.05 1/80 9"), Some("0.00 0.01 0.05".into()));
        for bad in ["", "1.0 2.0", "a b c 1/2 3", "1 -2 3", "\u{1b}[2J 1 2", "nan 1 2"] {
            assert_eq!(parse_loadavg(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn os_release_pretty_name_and_fallbacks() {
        let text =
            "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n";
        assert_eq!(parse_os_release(text).as_deref(), Some("Debian GNU/Linux 12 (bookworm)"));
        assert_eq!(parse_os_release("PRETTY_NAME='Single \"quoted\"'").as_deref(), Some("Single \"quoted\""));
        assert_eq!(parse_os_release("PRETTY_NAME=\"A \\\"b\\\" \\$c\"").as_deref(), Some("A \"b\" $c"));
        assert_eq!(parse_os_release("PRETTY_NAME=Unquoted").as_deref(), Some("Unquoted"));
        assert_eq!(parse_os_release("NAME=Alpine\nVERSION=3.19\n").as_deref(), Some("Alpine 3.19"));
        assert_eq!(parse_os_release("NAME=Alpine\n").as_deref(), Some("Alpine"));
        assert_eq!(parse_os_release("PRETTY_NAME=\"\"\nNAME=X").as_deref(), Some("X"));
        assert_eq!(parse_os_release("garbage\n=\n\"\n"), None);
        assert_eq!(parse_os_release(""), None);
    }

    #[test]
    fn meminfo_total_in_bytes() {
        let text = "MemTotal:       24684096 kB\nMemFree:        1000 kB\n";
        assert_eq!(parse_meminfo(text), Some(24684096 * 1024));
        assert_eq!(parse_meminfo("MemFree: 1 kB\nMemTotal: 2 kB\n"), Some(2048));
        assert_eq!(parse_meminfo("MemTotal: 512\n"), Some(512));
        assert_eq!(parse_meminfo("MemTotal: lots kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: 99999999999999999 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal:\n"), None);
        assert_eq!(parse_meminfo(""), None);
    }

    #[test]
    fn cpuinfo_model_and_hypervisor_flag() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu vme hypervisor lahf_lm\n";
        assert_eq!(parse_cpu_model(x86).as_deref(), Some("AMD EPYC 7B13"));
        assert!(cpuinfo_has_hypervisor_flag(x86));
        let metal = "model name\t: Intel(R) Xeon(R)\nflags\t\t: fpu vme hypervisorish\n";
        assert!(!cpuinfo_has_hypervisor_flag(metal));
        assert_eq!(
            parse_cpu_model("processor : 0\nBogoMIPS : 50\nModel : Raspberry Pi 4\n").as_deref(),
            Some("Raspberry Pi 4")
        );
        assert_eq!(parse_cpu_model("processor : 0\nmodel name :   \n"), None);
        assert_eq!(parse_cpu_model(""), None);
        assert!(!cpuinfo_has_hypervisor_flag(""));
    }

    #[test]
    fn virtualization_from_signs() {
        let s = |flag: bool, vendor: &str, product: &str, clocks: &str| VirtSigns {
            hypervisor_flag: flag,
            xen_type: None,
            sys_vendor: trimmed(vendor),
            product_name: trimmed(product),
            available_clocksources: trimmed(clocks),
        };
        assert_eq!(detect_virtualization(&s(true, "", "", "tsc kvm-clock ")).as_deref(), Some("KVM"));
        assert_eq!(
            detect_virtualization(&s(true, "QEMU", "Standard PC", "kvm-clock tsc")).as_deref(),
            Some("KVM (QEMU)")
        );
        assert_eq!(detect_virtualization(&s(true, "QEMU", "Standard PC", "tsc")).as_deref(), Some("QEMU"));
        assert_eq!(detect_virtualization(&s(true, "VMware, Inc.", "VMware7,1", "tsc")).as_deref(), Some("VMware"));
        assert_eq!(
            detect_virtualization(&s(true, "Microsoft Corporation", "Virtual Machine", "hyperv_clocksource_tsc_page"))
                .as_deref(),
            Some("Hyper-V")
        );
        assert_eq!(
            detect_virtualization(&s(true, "Amazon EC2", "m6i.large", "kvm-clock")).as_deref(),
            Some("KVM (Amazon EC2)")
        );
        // A bare-metal cloud machine is not virtualized.
        assert_eq!(detect_virtualization(&s(false, "Amazon EC2", "m5.metal", "tsc hpet")), None);
        assert_eq!(detect_virtualization(&s(true, "", "", "tsc")).as_deref(), Some("unknown hypervisor"));
        assert_eq!(detect_virtualization(&s(false, "Dell Inc.", "PowerEdge R750", "tsc hpet acpi_pm")), None);
        assert_eq!(detect_virtualization(&VirtSigns::default()), None);
        let xen = VirtSigns { xen_type: Some("xen".into()), ..VirtSigns::default() };
        assert_eq!(detect_virtualization(&xen).as_deref(), Some("Xen"));
    }

    const MOUNTINFO: &[u8] = b"\
22 27 0:21 / /proc rw,relatime - proc proc rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=123k,mode=755
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1000k
27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard,errors=remount-ro
30 25 0:27 / /dev/shm rw,nosuid - tmpfs tmpfs rw,size=2000k
60 27 8:1 / /mnt/my\\040disk ro,noatime master:3 shared:4 - xfs /dev/sdb\\0401 rw,attr2,noquota
61 27 8:2 / /mnt/my rw - ext4 /dev/sdc1 rw
malformed line here
62 27 8:3 / /short -
";

    #[test]
    fn mount_lookup() {
        let m = mounts::parse(MOUNTINFO);
        let root = find_mount(&m, Path::new("/home/user/file")).unwrap();
        assert_eq!(root.filesystem, "ext4");
        assert_eq!(root.mount_point, "/");
        assert_eq!(root.source, "/dev/vda");
        assert_eq!(root.mount_options, "rw,relatime,discard,errors=remount-ro");

        // Stacked mounts: the last one on the same point wins.
        let shm = find_mount(&m, Path::new("/dev/shm/x")).unwrap();
        assert_eq!((shm.filesystem.as_str(), shm.mount_point.as_str()), ("tmpfs", "/dev/shm"));
        assert_eq!(shm.mount_options, "rw,nosuid,size=2000k");
        assert_eq!(find_mount(&m, Path::new("/dev/shm")).unwrap().mount_point, "/dev/shm");
        assert_eq!(find_mount(&m, Path::new("/dev/shmem")).unwrap().mount_point, "/dev");

        // Escaped spaces, optional fields, and component-wise (not string) prefixes.
        let disk = find_mount(&m, Path::new("/mnt/my disk/data")).unwrap();
        assert_eq!(disk.mount_point, "/mnt/my disk");
        assert_eq!(disk.source, "/dev/sdb 1");
        assert_eq!(disk.filesystem, "xfs");
        assert_eq!(disk.mount_options, "ro,noatime,attr2,noquota");
        assert_eq!(find_mount(&m, Path::new("/mnt/my/data")).unwrap().source, "/dev/sdc1");
        assert_eq!(find_mount(&m, Path::new("/mnt/mydisk")).unwrap().mount_point, "/");
        assert_eq!(find_mount(&m, Path::new("/short/x")).unwrap().mount_point, "/");

        assert!(find_mount(&[], Path::new("/")).is_none());
        assert!(find_mount(&mounts::parse(b"garbage\n- - -\n"), Path::new("/")).is_none());
    }

    #[test]
    fn real_host() {
        let h = host();
        println!("{h:?}");
        assert!(!h.kernel.is_empty() && h.kernel != "unknown");
        assert!(!h.hostname.is_empty());
        assert!(h.cores_online >= 1);
        assert!(h.memory_bytes > 0);
    }

    #[test]
    fn the_engine_probe_and_run_json_name_a_drive_alike() {
        // A file's target facts come from the disk under its filesystem: the engine's probe
        // saves them with every result, `device` writes them into run.json.
        for path in [std::env::temp_dir().join("drivelab-sysinfo-probe"), "/dev/vda".into(), "/dev/loop0".into()] {
            let Ok(info) = drivelab_engine::target::probe(&path.to_string_lossy()) else { continue };
            let Some(disk) = info.disk.as_deref() else { continue };
            let d = device(disk).expect("the probed disk is in sysfs");
            assert_eq!(d.model, info.model, "{path:?}");
            assert_eq!(d.rotational, info.rotational, "{path:?}");
            assert_eq!(d.logical_block_bytes, Some(info.logical_block_bytes), "{path:?}");
        }
    }

    #[test]
    fn real_dev_shm() {
        let f = file_facts(Path::new("/dev/shm")).expect("/dev/shm is mounted");
        println!("{f:?}");
        assert_eq!(f.filesystem, "tmpfs");
        assert_eq!(f.mount_point, "/dev/shm");

        let missing = Path::new("/dev/shm").join(format!("drivelab-sysinfo-missing-{}", std::process::id()));
        assert!(!missing.exists());
        let f = file_facts(&missing.join("deeper/still")).expect("parent is on /dev/shm");
        assert_eq!(f.filesystem, "tmpfs");
        assert_eq!(f.mount_point, "/dev/shm");
        let f = file_facts(&missing).expect("parent is on /dev/shm");
        assert_eq!(f.mount_point, "/dev/shm");
    }

    #[test]
    fn real_root() {
        let f = file_facts(Path::new("/")).expect("/ is mounted");
        assert_eq!(f.mount_point, "/");
    }
}
