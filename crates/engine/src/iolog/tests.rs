use super::*;

const MS: u64 = 1_000_000;

fn spec(avg_ms: u64, hist_ms: u64) -> IoLogSpec {
    IoLogSpec {
        lat: Some("p".into()),
        hist: Some("p".into()),
        avg_ms,
        hist_ms,
        per_job: true,
        first_job: 1,
        ..Default::default()
    }
}

#[test]
fn fio_buckets_follow_fios_layout() {
    // Below 128 ns every value is its own bucket; then 64 sub-buckets per power of two.
    for v in 0..128 {
        assert_eq!(fio_bucket(v), v as usize);
    }
    assert_eq!(fio_bucket(128), 128);
    assert_eq!(fio_bucket(129), 128);
    assert_eq!(fio_bucket(130), 129);
    assert_eq!(fio_bucket(255), 191);
    assert_eq!(fio_bucket(256), 192);
    assert_eq!(fio_bucket(1000), 256 + 61);
    assert_eq!(fio_bucket(u64::MAX), FIO_BUCKETS - 1);
    assert_eq!(FIO_BUCKETS, 1856);
    // Every bucket's lowest value falls in it, and values between two lows in the first.
    for i in 0..FIO_BUCKETS - 1 {
        let (lo, next) = (fio_bucket_low(i), fio_bucket_low(i + 1));
        assert!(lo < next, "{i}");
        assert_eq!(fio_bucket(lo), i);
        assert_eq!(fio_bucket(next - 1), i);
    }
}

#[test]
fn every_io_is_an_entry_in_order_until_the_bound() {
    let s = IoLogSpec { avg_ms: 0, hist: None, ..spec(0, 0) };
    let mut r = Recorder::new(&s, 1, true);
    r.start(1000);
    r.io(0, 4096, 8192, 0, 500, 100, 1000 + 5 * MS, 0);
    r.io(1, 512, 0, 0, 700, 0, 1000 + 6 * MS, 0);
    let log = r.finish(7 * MS);
    let e: Vec<&IoEntry> = log.entries().collect();
    assert_eq!(e.len(), 2);
    assert_eq!((e[0].t_ns, e[0].lat_ns, e[0].clat_ns(), e[0].slat_ns, e[0].offset), (5 * MS, 500, 400, 100, 8192));
    assert_eq!((e[1].dir, e[1].len), (1, 512));
    assert!(log.windows.is_empty() && log.hists.is_empty());

    // Past the bound (here: MAX_IO_ENTRIES shared by that many jobs, at least one chunk) the
    // entries are counted, not kept, and chunks never exceed their capacity.
    let jobs = (MAX_IO_ENTRIES / CHUNK as u64) as u32;
    let mut r = Recorder::new(&s, jobs, false);
    for k in 0..(CHUNK as u64 + 10) {
        r.io(0, 4096, 0, 0, 10, 0, k, 0);
    }
    let log = r.finish(1);
    assert_eq!(log.entries().count(), CHUNK);
    assert_eq!(log.dropped, 10);
    assert!(log.ios.iter().all(|c| c.len() <= CHUNK));
}

#[test]
fn windows_sum_each_direction_and_close_at_their_ends() {
    let s = IoLogSpec { hist: None, ..spec(10, 0) };
    let mut r = Recorder::new(&s, 1, true);
    r.start(0);
    r.io(0, 4096, 0, 0, 100, 10, 2 * MS, 0);
    r.io(0, 4096, 0, 0, 300, 30, 3 * MS, 0);
    r.io(1, 8192, 0, 0, 1000, 0, 4 * MS, 0);
    // Nothing in 10..20 ms: no line for it; 25 ms opens 20..30.
    r.io(0, 4096, 0, 0, 50, 0, 25 * MS, 0);
    let log = r.finish(27 * MS);
    let w = &log.windows;
    assert_eq!(w.len(), 3, "{w:?}");
    assert_eq!(
        (w[0].end_ns, w[0].dir, w[0].ios, w[0].lat_sum, w[0].lat_max, w[0].slat_sum),
        (10 * MS, 0, 2, 400, 300, 40)
    );
    assert_eq!((w[0].clat_sum, w[0].clat_max, w[0].bytes, w[0].len_ns), (360, 270, 8192, 10 * MS));
    assert_eq!((w[1].end_ns, w[1].dir, w[1].ios, w[1].bytes), (10 * MS, 1, 1, 8192));
    // The last, partial window ends with the job.
    assert_eq!((w[2].end_ns, w[2].len_ns, w[2].ios), (27 * MS, 7 * MS, 1));
    assert!(log.entries().next().is_none());
}

#[test]
fn histogram_windows_start_at_the_first_io_and_drop_the_partial_last() {
    let s = IoLogSpec { lat: None, ..spec(0, 10) };
    let mut r = Recorder::new(&s, 1, false);
    r.start(0);
    r.io(0, 4096, 0, 0, 100, 0, 3 * MS, 0);
    r.io(0, 4096, 0, 0, 1000, 0, 8 * MS, 0);
    r.io(0, 512, 0, 0, 1000, 0, 13 * MS, 0); // closes 3..13
    r.io(1, 4096, 0, 0, 5, 0, 14 * MS, 0);
    r.io(0, 4096, 0, 0, 5, 0, 15 * MS, 0); // partial: dropped
    let log = r.finish(16 * MS);
    assert_eq!(log.hists.len(), 1, "{:?}", log.hists);
    let h = &log.hists[0];
    assert_eq!((h.t_ns, h.dir, h.bs), (13 * MS, 0, 512));
    assert_eq!(h.buckets, vec![(100, 1), (fio_bucket(1000) as u16, 2)]);
    assert!(log.entries().next().is_none() && log.windows.is_empty());
}
