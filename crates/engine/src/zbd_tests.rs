//! Emulated zones: writes at write pointers of at most `max_open` open zones, full zones reset,
//! reads below write pointers, and a read job on empty zones ending (fio 3.33's rules).

use std::sync::Arc;

use super::*;
use crate::gen::{Generator, IoDesc};
use crate::spec::{AccessSpec, BlockSize};

const MB: u64 = 1 << 20;

fn spec(rw: &str, bs: u64, zbd: &str) -> AccessSpec {
    let mut s = AccessSpec { bs: vec![BlockSize { bytes: bs, pct: 100 }], ..Default::default() };
    s.set_rw(rw).unwrap();
    s.zbd = Some(Zbd::parse(zbd).unwrap());
    s.validate().unwrap();
    s
}

fn generator(s: &AccessSpec, table: &Arc<ZoneTable>, start: u64, span: u64, job: u64) -> Generator {
    Generator::new(s, start, span, job).with_zones(Some(JobZones::new(table.clone(), s, start, span)))
}

/// Zones written but not full.
fn partial(t: &ZoneTable, cap: u64) -> usize {
    t.write_pointers().iter().filter(|&&w| w > 0 && w < cap).count()
}

#[test]
fn sequential_writes_fill_zones_in_order_from_their_starts() {
    let s = spec("write", 64 << 10, "1m");
    let t = Arc::new(ZoneTable::new(&s.zbd.unwrap(), 16 * MB));
    let mut g = generator(&s, &t, 0, 16 * MB, 0);
    for k in 0..128u64 {
        let io = g.try_next_io().unwrap();
        assert_eq!((io.op, io.offset, io.len), (Op::Write, k * (64 << 10), 64 << 10));
    }
    let wps = t.write_pointers();
    assert_eq!(&wps[..8], &[MB; 8], "8 MiB of writes fill the first 8 zones");
    assert!(wps[8..].iter().all(|&w| w == 0));
    assert_eq!(t.resets(), 0);
    // A new job starts on the full zone 0: it is reset and written again.
    let mut g = generator(&s, &t, 0, 8 * MB, 0);
    assert_eq!((g.try_next_io().unwrap().offset, t.resets()), (0, 1));
    assert_eq!(t.write_pointers()[0], 64 << 10);
}

#[test]
fn random_writes_go_to_write_pointers_of_at_most_max_open_zones() {
    let s = spec("randwrite", 64 << 10, "1m,max_open=2");
    let t = Arc::new(ZoneTable::new(&s.zbd.unwrap(), 16 * MB));
    let mut g = generator(&s, &t, 0, 16 * MB, 7);
    let mut touched = std::collections::BTreeSet::new();
    for _ in 0..1000 {
        let before = t.write_pointers();
        let io = g.try_next_io().unwrap();
        let z = (io.offset / MB) as usize;
        // At the write pointer, or at the start of a full zone being reset.
        let wp = if before[z] == MB { 0 } else { before[z] };
        assert_eq!(io.offset, z as u64 * MB + wp, "{io:?} not at zone {z}'s write pointer {}", before[z]);
        assert!(partial(&t, MB) <= 2, "more than 2 zones partly written: {:?}", t.write_pointers());
        touched.insert(z);
    }
    assert!(touched.len() > 4, "random writes open zones all over the target: {touched:?}");
    assert!(t.resets() > 0, "full zones chosen again are reset");
    // Without a limit, every zone a random offset falls in is written.
    let s = spec("randwrite", 64 << 10, "1m");
    let t = Arc::new(ZoneTable::new(&s.zbd.unwrap(), 16 * MB));
    let mut g = generator(&s, &t, 0, 16 * MB, 7);
    for _ in 0..64 {
        g.try_next_io().unwrap();
    }
    assert!(partial(&t, MB) > 2, "no open limit: {:?}", t.write_pointers());
}

#[test]
fn jobs_sharing_a_table_keep_the_open_limit_and_contiguous_zones() {
    let s = spec("randwrite", 64 << 10, "1m,capacity=768k,max_open=3");
    let t = Arc::new(ZoneTable::new(&s.zbd.unwrap(), 32 * MB));
    let ios: Vec<Vec<IoDesc>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4)
            .map(|j| {
                let (s, t) = (&s, &t);
                sc.spawn(move || {
                    let mut g = generator(s, t, 0, 32 * MB, j);
                    (0..2000).map(|_| g.try_next_io().unwrap()).collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let cap = 768 << 10;
    for io in ios.iter().flatten() {
        assert!(io.offset % MB + io.len as u64 <= cap, "{io:?} beyond the zone capacity");
    }
    assert!(partial(&t, cap) <= 3, "{:?}", t.write_pointers());
    assert!(t.open.load(Relaxed) <= 3);
    let with_data: u64 = t.write_pointers().iter().sum();
    assert_eq!(t.with_data.load(Relaxed), with_data, "bytes with data follow the write pointers");
}

#[test]
fn reads_stay_below_write_pointers_and_end_on_empty_zones() {
    let w = spec("write", 64 << 10, "1m");
    let t = Arc::new(ZoneTable::new(&w.zbd.unwrap(), 8 * MB));
    // Fresh zones: a read job has nothing to read and ends at once (fio's io_u_eof).
    for rw in ["read", "randread"] {
        let r = spec(rw, 64 << 10, "1m");
        assert_eq!(generator(&r, &t, 0, 8 * MB, 0).try_next_io(), None, "{rw}");
    }
    // 1.5 zones written: zone 0 whole, zone 1 up to 512k.
    let mut g = generator(&w, &t, 0, 8 * MB, 0);
    for _ in 0..24 {
        g.try_next_io().unwrap();
    }
    let r = spec("read", 256 << 10, "1m");
    let mut g = generator(&r, &t, 0, 8 * MB, 0);
    let offs: Vec<u64> = (0..6).map(|_| g.try_next_io().unwrap().offset).collect();
    let k = 256 << 10;
    assert_eq!(offs, [0, k, 2 * k, 3 * k, 4 * k, 5 * k], "sequential reads up to zone 1's write pointer");
    assert_eq!(g.try_next_io(), None, "past zone 1's write pointer no zone holds data");
    let r = spec("randread", 64 << 10, "1m");
    let mut g = generator(&r, &t, 0, 8 * MB, 3);
    for _ in 0..1000 {
        let io = g.try_next_io().unwrap();
        let wp = t.write_pointers()[(io.offset / MB) as usize];
        assert!(io.offset % MB + io.len as u64 <= wp, "{io:?} beyond the write pointer {wp}");
    }
    // read_beyond_wp: reads go where they were drawn.
    let r = spec("randread", 64 << 10, "1m,read_beyond_wp");
    let mut g = generator(&r, &t, 0, 8 * MB, 3);
    assert!((0..200).any(|_| g.try_next_io().unwrap().offset >= 2 * MB));
}

#[test]
fn a_mixed_job_writes_first_on_empty_zones() {
    let s = spec("randrw", 64 << 10, "1m,max_open=1");
    let t = Arc::new(ZoneTable::new(&s.zbd.unwrap(), 8 * MB));
    let mut g = generator(&s, &t, 0, 8 * MB, 1);
    let first = g.try_next_io().unwrap();
    assert_eq!((first.op, first.offset % MB), (Op::Write, 0));
    let ops: Vec<Op> = (0..200).map(|_| g.try_next_io().unwrap().op).collect();
    assert!(ops.contains(&Op::Read) && ops.contains(&Op::Write));
}

#[test]
fn threshold_resets_come_every_1_over_frequency_writes_above_the_threshold() {
    let s = spec("write", 64 << 10, "1m,reset_threshold=0,reset_frequency=0.25");
    let t = Arc::new(ZoneTable::new(&s.zbd.unwrap(), 8 * MB));
    let mut g = generator(&s, &t, 0, 8 * MB, 0);
    for _ in 0..16 {
        g.try_next_io().unwrap();
    }
    // Every 4th write resets its zone first: zone 0 never holds more than 4 blocks.
    assert!(t.write_pointers()[0] <= 4 * (64 << 10), "{:?}", t.write_pointers());
    assert!(t.resets() >= 3, "{}", t.resets());
}

#[test]
fn a_really_zoned_device_is_refused_and_a_conventional_one_is_not() {
    let sys = std::env::temp_dir().join(format!("drivelab-zbd-sys-{}", std::process::id()));
    for (disk, model) in [("sdz", "host-managed"), ("sdy", "host-aware"), ("sdx", "none")] {
        let q = sys.join("block").join(disk).join("queue");
        std::fs::create_dir_all(&q).unwrap();
        std::fs::write(q.join("zoned"), format!("{model}\n")).unwrap();
    }
    let e = refuse_zoned(&sys, "sdz", "/dev/sdz").unwrap_err().to_string();
    assert!(e.contains("/dev/sdz is a zoned block device") && e.contains("host-managed"), "{e}");
    assert!(refuse_zoned(&sys, "sdy", "/dev/sdy").unwrap_err().to_string().contains("host-aware"));
    assert!(refuse_zoned(&sys, "sdx", "/dev/sdx").is_ok());
    assert!(refuse_zoned(&sys, "nope", "/dev/nope").is_ok(), "no sysfs entry: not zoned");
    std::fs::remove_dir_all(&sys).unwrap();
}

#[test]
fn the_plan_refuses_what_fio_refuses() {
    let s = spec("write", 64 << 10, "4m");
    let e = s.check_zbd_against("f", 2 * MB, 512, 0, 2 * MB).unwrap_err().to_string();
    assert!(e.contains("smaller than one zone"), "{e}");
    let e = s.check_zbd_against("f", 16 * MB, 512, MB, 6 * MB).unwrap_err().to_string();
    assert!(e.contains("holds no whole zone"), "{e}");
    assert!(s.check_zbd_against("f", 16 * MB, 512, 0, 4 * MB).is_ok());
    let r = spec("read", 64 << 10, "4m");
    assert!(r.check_zbd_against("f", 16 * MB, 512, MB, MB).is_ok(), "a read job need not hold a whole zone");
    let mut big = AccessSpec { bs: vec![BlockSize { bytes: 2 * MB, pct: 100 }], ..Default::default() };
    big.zbd = Some(Zbd::parse("1m").unwrap());
    assert!(big.validate().unwrap_err().to_string().contains("larger than a zone"));
}
