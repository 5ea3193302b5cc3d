//! The one reader of a disk's facts in sysfs (`/sys/block/<disk>/...`).
//!
//! `probe` records a target's model, rotational flag and block sizes with every result, and the
//! lab records the drive (serial, firmware, transport, scheduler, queue limits...) in
//! `run.json`. Both come from [`DiskFacts::read`], so one drive has one model string in one
//! results directory, trimmed by one rule ([`trimmed`]: surrounding whitespace and NULs).
//!
//! Best effort and read-only: an attribute that is missing or odd becomes `None`, never an
//! error. The sysfs root is a parameter so tests can build a fake tree in a temporary directory.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Where sysfs is mounted.
pub const SYS: &str = "/sys";

/// One whole disk as listed in `/sys/block`: what `probe` saves with every result (model,
/// rotational, block sizes) and what `run.json` records about the drive, from one read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskFacts {
    /// Kernel name, e.g. `vda`, `loop0`, `nvme0n1`, `sda`.
    pub disk: String,
    /// `device/model`; where the disk has none, what it is: `loop on FILE` for a loop device,
    /// `virtio disk` for a virtio-blk one (see [`model_of`]).
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// How the disk is attached: `nvme`, `ata`, `scsi`, `usb`, `virtio`, `virtio-scsi`, `mmc`,
    /// `loop`, `zram`, `device-mapper`, `md`, ... (`None` when not recognised).
    pub transport: Option<String>,
    /// `queue/rotational`: true for spinning disks (virtual disks often claim true as well).
    pub rotational: Option<bool>,
    /// The active I/O scheduler: the `[bracketed]` word of `queue/scheduler`.
    pub scheduler: Option<String>,
    pub nr_requests: Option<u32>,
    pub max_sectors_kb: Option<u32>,
    pub logical_block_bytes: Option<u64>,
    pub physical_block_bytes: Option<u64>,
    /// `size` (always in 512-byte sectors) * 512.
    pub capacity_bytes: Option<u64>,
    /// `queue/write_cache`: "write back" or "write through".
    pub write_cache: Option<String>,
    /// For a loop device, the file behind it.
    pub loop_backing_file: Option<String>,
    /// `queue/minimum_io_size` and `queue/optimal_io_size` (0: not reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_io_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimal_io_bytes: Option<u64>,
    /// `queue/max_hw_sectors_kb`: the largest I/O the hardware takes (`max_sectors_kb` is the
    /// kernel's current cap, at most this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_hw_sectors_kb: Option<u32>,
    /// `queue/discard_max_bytes`: the largest discard (TRIM, UNMAP) it takes; 0 when it takes none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_max_bytes: Option<u64>,
    /// `queue/zoned`: `none`, `host-aware` or `host-managed` (SMR disks, ZNS namespaces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoned: Option<String>,
    /// `removable`: the medium can be taken out (USB sticks, card readers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removable: Option<bool>,
    /// `ro`: the kernel holds the disk read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// `queue/io_poll`: the driver has poll queues, so io_uring's IOPOLL (`--hipri`) can poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_poll: Option<bool>,
}

impl DiskFacts {
    /// Facts about the whole disk `disk` (a kernel name such as `vda` or `nvme0n1`, not a path
    /// and not a partition) under the sysfs root `sys`. `None` when `<sys>/block/<disk>` does
    /// not exist or `disk` is not a plain name.
    pub fn read(sys: &Path, disk: &str) -> Option<DiskFacts> {
        if disk.is_empty() || disk == "." || disk == ".." || disk.contains('/') || disk.contains('\0') {
            return None;
        }
        let dir = sys.join("block").join(disk);
        if !dir.exists() {
            return None;
        }
        let dev = dir.join("device");
        let queue = dir.join("queue");
        let transport = fs::canonicalize(&dir).ok().and_then(|p| transport_from_sysfs_path(&p.to_string_lossy()));
        let loop_backing_file = read_text(dir.join("loop/backing_file"))
            .map(|s| s.trim_end_matches(['\n', '\0']).to_string())
            .filter(|s| !s.is_empty());
        Some(DiskFacts {
            disk: disk.to_string(),
            model: model_of(attr(dev.join("model")), loop_backing_file.as_deref(), transport.as_deref()),
            vendor: attr(dev.join("vendor")),
            serial: attr(dev.join("serial"))
                .or_else(|| attr(dir.join("serial")))
                .or_else(|| fs::read(dev.join("vpd_pg80")).ok().and_then(|b| parse_vpd_pg80(&b))),
            firmware: attr(dev.join("firmware_rev")).or_else(|| attr(dev.join("rev"))),
            transport,
            rotational: attr(queue.join("rotational")).and_then(|s| parse_bool01(&s)),
            scheduler: read_text(queue.join("scheduler")).and_then(|s| parse_scheduler(&s)),
            nr_requests: attr_num(queue.join("nr_requests")),
            max_sectors_kb: attr_num(queue.join("max_sectors_kb")),
            logical_block_bytes: attr_num(queue.join("logical_block_size")),
            physical_block_bytes: attr_num(queue.join("physical_block_size")),
            capacity_bytes: attr_num::<u64>(dir.join("size")).and_then(|sectors| sectors.checked_mul(512)),
            write_cache: attr(queue.join("write_cache")),
            loop_backing_file,
            min_io_bytes: attr_num(queue.join("minimum_io_size")),
            optimal_io_bytes: attr_num(queue.join("optimal_io_size")),
            max_hw_sectors_kb: attr_num(queue.join("max_hw_sectors_kb")),
            discard_max_bytes: attr_num(queue.join("discard_max_bytes")),
            zoned: attr(queue.join("zoned")),
            removable: attr(dir.join("removable")).and_then(|s| parse_bool01(&s)),
            read_only: attr(dir.join("ro")).and_then(|s| parse_bool01(&s)),
            io_poll: attr(queue.join("io_poll")).and_then(|s| parse_bool01(&s)),
        })
    }
}

/// The temperature of disk `disk` in millidegrees Celsius, where the kernel reports one through
/// hwmon without root: NVMe controllers (`device/hwmonN`, or `device/nvmeN/hwmonN` behind a
/// multipath namespace) and SATA/SAS disks with the `drivetemp` driver
/// (`device/hwmon/hwmonN`). Read on demand only: asking may send the drive a command.
pub fn temperature_mc(sys: &Path, disk: &str) -> Option<i64> {
    if disk.is_empty() || disk == "." || disk == ".." || disk.contains('/') {
        return None;
    }
    let device = sys.join("block").join(disk).join("device");
    let hwmons = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        v.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("hwmon")));
        v.sort();
        v
    };
    let mut candidates = hwmons(&device);
    candidates.extend(hwmons(&device.join("hwmon")));
    let mut controllers: Vec<PathBuf> =
        fs::read_dir(&device).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    controllers.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("nvme")));
    controllers.sort();
    for c in controllers {
        candidates.extend(hwmons(&c));
    }
    candidates.iter().find_map(|h| attr_num::<i64>(h.join("temp1_input")))
}

/// The kernel name of the partition with this device number (`vda1`), or `None` when it is a
/// whole disk or unknown.
pub fn partition_of_devno(sys: &Path, major: u32, minor: u32) -> Option<String> {
    let link: PathBuf = fs::canonicalize(sys.join(format!("dev/block/{major}:{minor}"))).ok()?;
    if !link.join("partition").exists() {
        return None;
    }
    link.file_name()?.to_str().map(str::to_string)
}

/// The model string of a disk: its `device/model` attribute, else `loop on FILE` for a loop
/// device, else `virtio disk` for virtio-blk (which has no model attribute).
pub fn model_of(attribute: Option<String>, loop_backing_file: Option<&str>, transport: Option<&str>) -> Option<String> {
    attribute
        .or_else(|| loop_backing_file.map(|f| format!("loop on {f}")))
        .or_else(|| (transport == Some("virtio")).then(|| "virtio disk".to_string()))
}

/// The disk (not partition) behind a device number, by its kernel name, under the sysfs root
/// `sys`.
pub fn disk_of_devno(sys: &Path, major: u32, minor: u32) -> Option<String> {
    let link: PathBuf = fs::canonicalize(sys.join(format!("dev/block/{major}:{minor}"))).ok()?;
    let disk = if link.join("partition").exists() { link.parent()? } else { &link };
    disk.file_name()?.to_str().map(str::to_string)
}

// ---------------------------------------------------------------------------------------------
// Reading helpers: the one trimming rule.

/// A file's contents as text (invalid UTF-8 replaced), untrimmed; `None` if unreadable.
pub fn read_text(path: impl AsRef<Path>) -> Option<String> {
    fs::read(path).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A sysfs (or procfs) attribute without surrounding whitespace and NULs; `None` if unreadable
/// or empty.
pub fn attr(path: impl AsRef<Path>) -> Option<String> {
    read_text(path).and_then(|s| trimmed(&s))
}

/// An attribute parsed as a number.
pub fn attr_num<T: std::str::FromStr>(path: impl AsRef<Path>) -> Option<T> {
    attr(path)?.parse().ok()
}

/// `s` without surrounding whitespace and NULs; `None` when nothing is left.
pub fn trimmed(s: &str) -> Option<String> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!t.is_empty()).then(|| t.to_string())
}

fn parse_bool01(s: &str) -> Option<bool> {
    match s.trim() {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Pure parsers.

/// The active scheduler of `queue/scheduler`: "none [mq-deadline] kyber" -> "mq-deadline". A
/// file with a single unbracketed word (older kernels: "none") names that word.
fn parse_scheduler(text: &str) -> Option<String> {
    if let Some(start) = text.find('[') {
        let rest = &text[start + 1..];
        let end = rest.find(']')?;
        return trimmed(&rest[..end]);
    }
    let mut words = text.split_whitespace();
    match (words.next(), words.next()) {
        (Some(only), None) => Some(only.to_string()),
        _ => None,
    }
}

/// The unit serial number of a SCSI VPD page 0x80 (`device/vpd_pg80`).
fn parse_vpd_pg80(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 4 || bytes[1] != 0x80 {
        return None;
    }
    let len = usize::from(u16::from_be_bytes([bytes[2], bytes[3]]));
    let body = &bytes[4..bytes.len().min(4 + len)];
    let text: String = body.iter().filter(|b| b.is_ascii_graphic() || **b == b' ').map(|&b| char::from(b)).collect();
    trimmed(&text)
}

/// How a disk is attached, from the canonical path of `/sys/block/<disk>`, e.g.
/// `/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda` -> "virtio".
fn transport_from_sysfs_path(path: &str) -> Option<String> {
    if let Some(idx) = path.find("/virtual/block/") {
        let name = &path[idx + "/virtual/block/".len()..];
        let kind = [
            ("loop", "loop"),
            ("zram", "zram"),
            ("dm-", "device-mapper"),
            ("md", "md"),
            ("nbd", "nbd"),
            ("ram", "ram"),
            ("ublk", "ublk"),
            ("rbd", "rbd"),
        ]
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map_or("virtual", |(_, kind)| kind);
        return Some(kind.to_string());
    }
    let has = |s: &str| path.contains(s);
    let kind = if has("/usb") {
        "usb"
    } else if has("/nvme") {
        "nvme"
    } else if has("/virtio") {
        if has("/host") {
            "virtio-scsi"
        } else {
            "virtio"
        }
    } else if has("/ata") {
        "ata"
    } else if has("/mmc") {
        "mmc"
    } else if has("/session") {
        "iscsi"
    } else if has("/vbd-") {
        "xen"
    } else if has("/VMBUS") || has("/vmbus") {
        "hyperv-storvsc"
    } else if has("/host") && has("/target") {
        "scsi"
    } else {
        return None;
    };
    Some(kind.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_is_the_bracketed_word() {
        assert_eq!(parse_scheduler("none [mq-deadline] kyber\n").as_deref(), Some("mq-deadline"));
        assert_eq!(parse_scheduler("[none] mq-deadline kyber bfq \n").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("none\n").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("none kyber"), None);
        assert_eq!(parse_scheduler(""), None);
        assert_eq!(parse_scheduler("[]"), None);
        assert_eq!(parse_scheduler("none [mq-deadline"), None);
    }

    #[test]
    fn vpd_page_80_serial() {
        let mut page = vec![0x00, 0x80, 0x00, 0x0c];
        page.extend_from_slice(b"  WD-ABC123 ");
        assert_eq!(parse_vpd_pg80(&page).as_deref(), Some("WD-ABC123"));
        // Length beyond the buffer is clamped; wrong page code and short input give nothing.
        assert_eq!(parse_vpd_pg80(&[0, 0x80, 0xff, 0xff, b'X']).as_deref(), Some("X"));
        assert_eq!(parse_vpd_pg80(&[0, 0x83, 0, 1, b'X']), None);
        assert_eq!(parse_vpd_pg80(&[0, 0x80]), None);
        assert_eq!(parse_vpd_pg80(&[0, 0x80, 0, 0]), None);
    }

    #[test]
    fn transport_from_paths() {
        let t = |p: &str| transport_from_sysfs_path(p);
        assert_eq!(t("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda").as_deref(), Some("virtio"));
        assert_eq!(t("/sys/devices/virtual/block/loop0").as_deref(), Some("loop"));
        assert_eq!(t("/sys/devices/virtual/block/zram0").as_deref(), Some("zram"));
        assert_eq!(t("/sys/devices/virtual/block/dm-3").as_deref(), Some("device-mapper"));
        assert_eq!(t("/sys/devices/virtual/block/md127").as_deref(), Some("md"));
        assert_eq!(t("/sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1").as_deref(), Some("nvme"));
        assert_eq!(t("/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1").as_deref(), Some("nvme"));
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sda").as_deref(),
            Some("ata")
        );
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host4/target4:0:0/4:0:0:0/block/sdb").as_deref(),
            Some("usb")
        );
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:03.0/virtio0/host0/target0:0:0/0:0:0:0/block/sda").as_deref(),
            Some("virtio-scsi")
        );
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:1f.0/0000:03:00.0/host0/target0:2:0/0:2:0:0/block/sda").as_deref(),
            Some("scsi")
        );
        assert_eq!(
            t("/sys/devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0").as_deref(),
            Some("mmc")
        );
        assert_eq!(t("/sys/devices/somewhere/else"), None);
        assert_eq!(t(""), None);
    }

    /// A fake sysfs tree: `<root>/devices/<path>/block/<disk>` with `<root>/block/<disk>`
    /// linking to it, as the kernel lays it out.
    struct FakeSys(PathBuf);

    impl FakeSys {
        fn new(name: &str) -> FakeSys {
            let root = std::env::temp_dir().join(format!("drivelab-sysfs-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&root);
            fs::create_dir_all(root.join("block")).unwrap();
            FakeSys(root)
        }

        fn disk(&self, devpath: &str, disk: &str, attrs: &[(&str, &[u8])]) {
            let dir = self.0.join("devices").join(devpath).join("block").join(disk);
            for (name, value) in attrs {
                let file = dir.join(name);
                fs::create_dir_all(file.parent().unwrap()).unwrap();
                fs::write(file, value).unwrap();
            }
            std::os::unix::fs::symlink(&dir, self.0.join("block").join(disk)).unwrap();
        }
    }

    impl Drop for FakeSys {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_fake_tree_reads_every_fact_with_one_trimming_rule() {
        let sys = FakeSys::new("sata");
        sys.disk(
            "pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0",
            "sda",
            &[
                ("device/model", b"Samsung SSD 870 \0\n"),
                ("device/vendor", b"ATA     \n"),
                ("device/rev", b"1B6Q\n"),
                ("queue/rotational", b"0\n"),
                ("queue/scheduler", b"none [mq-deadline] kyber\n"),
                ("queue/nr_requests", b"64\n"),
                ("queue/max_sectors_kb", b"1280\n"),
                ("queue/logical_block_size", b"512\n"),
                ("queue/physical_block_size", b"4096\n"),
                ("queue/write_cache", b"write back\n"),
                ("size", b"1953525168\n"),
                ("serial", b"  S5Y1NX0R123  \n"),
                ("queue/minimum_io_size", b"4096\n"),
                ("queue/optimal_io_size", b"0\n"),
                ("queue/max_hw_sectors_kb", b"32767\n"),
                ("queue/discard_max_bytes", b"2147450880\n"),
                ("queue/zoned", b"none\n"),
                ("removable", b"0\n"),
                ("ro", b"0\n"),
                ("device/hwmon/hwmon3/temp1_input", b"38000\n"),
            ],
        );
        let d = DiskFacts::read(&sys.0, "sda").unwrap();
        assert_eq!(d.model.as_deref(), Some("Samsung SSD 870"));
        assert_eq!(d.vendor.as_deref(), Some("ATA"));
        assert_eq!(d.firmware.as_deref(), Some("1B6Q"));
        assert_eq!(d.serial.as_deref(), Some("S5Y1NX0R123"));
        assert_eq!(d.transport.as_deref(), Some("ata"));
        assert_eq!(d.rotational, Some(false));
        assert_eq!(d.scheduler.as_deref(), Some("mq-deadline"));
        assert_eq!((d.nr_requests, d.max_sectors_kb), (Some(64), Some(1280)));
        assert_eq!((d.logical_block_bytes, d.physical_block_bytes), (Some(512), Some(4096)));
        assert_eq!(d.capacity_bytes, Some(1953525168 * 512));
        assert_eq!(d.write_cache.as_deref(), Some("write back"));
        assert_eq!(d.loop_backing_file, None);
        assert_eq!((d.min_io_bytes, d.optimal_io_bytes, d.max_hw_sectors_kb), (Some(4096), Some(0), Some(32767)));
        assert_eq!((d.discard_max_bytes, d.zoned.as_deref()), (Some(2147450880), Some("none")));
        assert_eq!((d.removable, d.read_only), (Some(false), Some(false)));
        assert_eq!(temperature_mc(&sys.0, "sda"), Some(38000), "drivetemp's hwmon");
    }

    #[test]
    fn nvme_temperature_is_read_from_the_controllers_hwmon() {
        let sys = FakeSys::new("nvme-temp");
        sys.disk("pci0000:00/0000:00:04.0/nvme/nvme0", "nvme0n1", &[("device/hwmon2/temp1_input", b"41850\n")]);
        sys.disk(
            "virtual/nvme-subsystem/nvme-subsys1",
            "nvme1n1",
            &[("device/nvme1/hwmon4/temp1_input", b"-5000\n"), ("device/nvme1/hwmon4/name", b"nvme\n")],
        );
        sys.disk("pci0000:00/0000:00:02.0/virtio1", "vda", &[("queue/rotational", b"1\n")]);
        assert_eq!(temperature_mc(&sys.0, "nvme0n1"), Some(41850));
        assert_eq!(temperature_mc(&sys.0, "nvme1n1"), Some(-5000), "behind a multipath namespace");
        assert_eq!(temperature_mc(&sys.0, "vda"), None, "no hwmon: not readable");
        assert_eq!(temperature_mc(&sys.0, "../vda"), None);
        assert_eq!(temperature_mc(&sys.0, "nope"), None);
    }

    #[test]
    fn loop_and_virtio_disks_are_named_by_what_they_are() {
        let sys = FakeSys::new("virt");
        sys.disk("virtual", "loop3", &[("loop/backing_file", b"/dev/shm/x \n"), ("queue/rotational", b"1\n")]);
        sys.disk("pci0000:00/0000:00:02.0/virtio1", "vda", &[("queue/rotational", b"garbage\n")]);
        let l = DiskFacts::read(&sys.0, "loop3").unwrap();
        assert_eq!(l.loop_backing_file.as_deref(), Some("/dev/shm/x "));
        assert_eq!(l.model.as_deref(), Some("loop on /dev/shm/x "));
        assert_eq!((l.transport.as_deref(), l.rotational), (Some("loop"), Some(true)));
        let v = DiskFacts::read(&sys.0, "vda").unwrap();
        assert_eq!(
            (v.model.as_deref(), v.transport.as_deref(), v.rotational),
            (Some("virtio disk"), Some("virtio"), None)
        );
    }

    #[test]
    fn missing_or_bad_disk_names() {
        let sys = Path::new(SYS);
        assert_eq!(DiskFacts::read(sys, "no-such-disk"), None);
        assert_eq!(DiskFacts::read(sys, ""), None);
        assert_eq!(DiskFacts::read(sys, ".."), None);
        assert_eq!(DiskFacts::read(sys, "../block/vda"), None);
    }

    #[test]
    fn trimming_rule() {
        assert_eq!(trimmed(" a b \0\n").as_deref(), Some("a b"));
        assert_eq!(trimmed("\0\n \t"), None);
    }

    #[test]
    fn real_vda() {
        let Some(d) = DiskFacts::read(Path::new(SYS), "vda") else {
            drivelab_testkit::skip("/sys/block/vda does not exist on this machine");
            return;
        };
        println!("{d:?}");
        assert_eq!(d.disk, "vda");
        assert!(d.capacity_bytes.is_some_and(|c| c > 0));
        assert!(d.scheduler.is_some());
        assert!(d.logical_block_bytes.is_some());
        assert_eq!(d.transport.as_deref(), Some("virtio"));
    }

    #[test]
    fn real_loop_device() {
        let Some(d) = DiskFacts::read(Path::new(SYS), "loop0") else {
            drivelab_testkit::skip("/sys/block/loop0 does not exist on this machine");
            return;
        };
        assert_eq!(d.transport.as_deref(), Some("loop"));
    }
}
