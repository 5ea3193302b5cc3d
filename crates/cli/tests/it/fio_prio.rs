//! fio's I/O priorities through `drivelab run JOB.fio`: `prio`/`prioclass`, `cmdprio_bssplit`
//! (per direction and block size, with per-entry class and level), `bssplit` per direction and
//! `log_prio`, read back from fio's latency log: each I/O's size, direction and priority; and the
//! same job's shares under fio 3.33 itself where fio is installed.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use crate::common::{drivelab_in, stderr, Scratch};

/// cmdprio-bssplit.fio's advanced job, small sizes: of the 4 KiB reads 25% real-time level 1,
/// 75% idle level 2; the rest (16 KiB reads, every write, 16 KiB) best-effort 7. norandommap:
/// fio would otherwise shorten I/Os to fit its map's last free blocks (8k, 12k reads).
const JOB: &str =
    "[global]\nfilename=prio.dat\nnorandommap\nsize=8m\nio_size=24m\nrw=randrw\nioengine=io_uring\niodepth=8\n\
write_lat_log=p\nlog_prio=1\nprioclass=2\nprio=7\n\n[adv]\nbssplit=4k/40:16k/60,16k/100\n\
cmdprio_bssplit=4k/25/1/1:4k/75/3/2:16k/0,16k/0\n";

/// (direction, block size, priority) → I/Os, from a `_lat` log.
fn counts(log: &Path) -> HashMap<(u8, u64, String), u64> {
    let mut c = HashMap::new();
    for line in std::fs::read_to_string(log).unwrap().lines() {
        let f: Vec<&str> = line.split(", ").collect();
        assert_eq!(f.len(), 5, "TIME, VALUE, DDIR, BS, PRIO: {line}");
        *c.entry((f[2].parse().unwrap(), f[3].parse().unwrap(), f[4].to_string())).or_insert(0) += 1;
    }
    c
}

fn get(c: &HashMap<(u8, u64, String), u64>, dir: u8, bs: u64, prio: &str) -> u64 {
    c.get(&(dir, bs, prio.to_string())).copied().unwrap_or(0)
}

/// The share of 4 KiB reads at real-time level 1, checking every other I/O's priority.
fn rt_share(c: &HashMap<(u8, u64, String), u64>) -> f64 {
    let (rt, idle) = (get(c, 0, 4096, "0x2001"), get(c, 0, 4096, "0x6002"));
    let total: u64 = c.values().sum();
    let default = get(c, 0, 16384, "0x4007") + get(c, 1, 16384, "0x4007");
    assert_eq!(rt + idle + default, total, "no other size or priority: {c:?}");
    assert!(get(c, 1, 16384, "0x4007") > 0 && get(c, 0, 16384, "0x4007") > 0, "{c:?}");
    rt as f64 / (rt + idle) as f64
}

#[test]
fn per_io_priorities_follow_direction_and_size_as_fios() {
    let s = Scratch::new("fio-prio");
    std::fs::write(s.0.join("prio.fio"), JOB).unwrap();
    let o = drivelab_in(&s.0, &["run", "prio.fio", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ours = rt_share(&counts(&s.0.join("p_lat.1.log")));
    assert!((0.15..0.35).contains(&ours), "25% of 4k reads real-time: {ours:.3}");

    std::fs::create_dir(s.0.join("fio")).unwrap();
    std::fs::write(s.0.join("fio/prio.fio"), JOB).unwrap();
    let fio =
        std::process::Command::new("fio").args(["prio.fio", "--output=fio.txt"]).current_dir(s.0.join("fio")).output();
    match fio {
        Ok(o) if o.status.success() => {
            let theirs = rt_share(&counts(&s.0.join("fio/p_lat.1.log")));
            assert!((ours - theirs).abs() < 0.1, "drivelab {ours:.3}, fio {theirs:.3}");
            eprintln!("real-time share of 4k reads: drivelab {ours:.3}, fio {theirs:.3}");
        }
        _ => common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)"),
    }
}

#[test]
fn without_log_prio_the_column_flags_real_time_ios_and_sync_engines_refuse_cmdprio() {
    let s = Scratch::new("fio-prio-flag");
    let job = "[j]\nfilename=f.dat\nsize=4m\nrw=randread\nioengine=io_uring\nwrite_lat_log=q\ncmdprio_percentage=50\n";
    std::fs::write(s.0.join("j.fio"), job).unwrap();
    let o = drivelab_in(&s.0, &["run", "j.fio", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = counts(&s.0.join("q_lat.1.log"));
    let (rt, other) = (get(&c, 0, 4096, "1"), get(&c, 0, 4096, "0"));
    assert_eq!(rt + other, c.values().sum::<u64>());
    let share = rt as f64 / (rt + other) as f64;
    assert!((0.4..0.6).contains(&share), "half of the reads real-time (class 1 by default): {share:.3}");

    std::fs::write(s.0.join("sync.fio"), job.replace("io_uring", "psync")).unwrap();
    let o = drivelab_in(&s.0, &["run", "sync.fio", "--results", "res2", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("ioengine=io_uring"), "{}", stderr(&o));
}
