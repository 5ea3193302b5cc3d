//! The kernel's I/O statistics of the disks under a run's targets, before and after it (fio's
//! `disk_util`): `/sys/block/DISK/stat` read when the jobs are about to start and when they have
//! ended, the differences kept with the time between. The disk is the target's own (a loop
//! device's, a disk's) or, for a partition or a file, the whole disk beneath
//! (`TargetInfo::disk`); a target with none (tmpfs, null) has no entry.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// One disk's activity over a run (fio's `disk_util` entry, with what its `util` is made from).
/// Ordered (name first) so that a merge of two readings of one disk keeps the same one whatever
/// the order (`measurement::kinds::Disks`).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DiskUtil {
    /// The disk's kernel name (`loop0`, `nvme0n1`).
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    /// Time the disk's reads and writes spent queued and in service, summed over them (ms).
    pub read_ticks_ms: u64,
    pub write_ticks_ms: u64,
    /// The weighted time I/Os spent in the queue (the stat file's `time_in_queue`, ms).
    pub in_queue_ms: u64,
    /// Time the disk had at least one I/O in flight (`io_ticks`, ms).
    pub busy_ms: u64,
    /// Time between the two reads of the stat file (ms).
    pub elapsed_ms: u64,
}

impl DiskUtil {
    /// fio's `util`: the share of the time the disk was busy, in % (at most 100).
    pub fn util_pct(&self) -> f64 {
        if self.elapsed_ms == 0 {
            return 0.0;
        }
        (self.busy_ms as f64 * 100.0 / self.elapsed_ms as f64).min(100.0)
    }

    /// `o` added (the same disk over another run, or another disk for a total).
    pub fn add(&mut self, o: &DiskUtil) {
        self.read_ios += o.read_ios;
        self.write_ios += o.write_ios;
        self.read_merges += o.read_merges;
        self.write_merges += o.write_merges;
        self.read_ticks_ms += o.read_ticks_ms;
        self.write_ticks_ms += o.write_ticks_ms;
        self.in_queue_ms += o.in_queue_ms;
        self.busy_ms += o.busy_ms;
        self.elapsed_ms += o.elapsed_ms;
    }
}

/// The stat files read before a run.
pub struct Snapshot {
    at: Instant,
    disks: Vec<(String, [u64; 11])>,
}

/// The first 11 fields of a stat file (reads: ios, merges, sectors, ticks; writes: the same;
/// in flight, io_ticks, time_in_queue).
fn parse(text: &str) -> Option<[u64; 11]> {
    let mut out = [0u64; 11];
    let mut words = text.split_whitespace();
    for v in out.iter_mut() {
        *v = words.next()?.parse().ok()?;
    }
    Some(out)
}

fn read(disk: &str) -> Option<[u64; 11]> {
    parse(&crate::sysfs::read_text(format!("/sys/block/{disk}/stat"))?)
}

impl Snapshot {
    /// Read the stat file of each of `disks` (once each; an unreadable one is left out).
    pub fn take<'a>(disks: impl IntoIterator<Item = &'a str>) -> Snapshot {
        let mut seen: Vec<(String, [u64; 11])> = Vec::new();
        for d in disks {
            if seen.iter().any(|(n, _)| n == d) {
                continue;
            }
            if let Some(f) = read(d) {
                seen.push((d.to_string(), f));
            }
        }
        Snapshot { at: Instant::now(), disks: seen }
    }

    /// What each disk did since the snapshot.
    pub fn since(&self) -> Vec<DiskUtil> {
        let elapsed_ms = self.at.elapsed().as_millis() as u64;
        self.disks.iter().filter_map(|(name, a)| read(name).map(|b| delta(name, a, &b, elapsed_ms))).collect()
    }
}

fn delta(name: &str, a: &[u64; 11], b: &[u64; 11], elapsed_ms: u64) -> DiskUtil {
    let d = |i: usize| b[i].saturating_sub(a[i]);
    DiskUtil {
        name: name.to_string(),
        read_ios: d(0),
        read_merges: d(1),
        read_ticks_ms: d(3),
        write_ios: d(4),
        write_merges: d(5),
        write_ticks_ms: d(7),
        busy_ms: d(9),
        in_queue_ms: d(10),
        elapsed_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stat_files_fields_by_position() {
        let a = parse("  100 2 800 50 10 1 80 20 0 60 70 0 0 0 0").unwrap();
        let b = parse("  150 2 1200 90 30 4 240 60 1 160 170 0 0 0 0").unwrap();
        let u = delta("loop0", &a, &b, 200);
        assert_eq!((u.read_ios, u.write_ios, u.read_merges, u.write_merges), (50, 20, 0, 3));
        assert_eq!((u.read_ticks_ms, u.write_ticks_ms, u.in_queue_ms, u.busy_ms), (40, 40, 100, 100));
        assert_eq!(u.util_pct(), 50.0);
        assert!(parse("1 2 3").is_none(), "a short file is no snapshot");
        let mut t = u.clone();
        t.add(&u);
        assert_eq!((t.read_ios, t.util_pct()), (100, 50.0));
    }
}
