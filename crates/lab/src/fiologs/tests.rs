use drivelab_engine::iolog::{HistWin, IoEntry, IoLogSpec, JobLog, WinStat};

use super::*;

fn log_spec() -> IoLogSpec {
    IoLogSpec {
        lat: Some("p".into()),
        bw: Some("p".into()),
        iops: Some("q".into()),
        hist: Some("p".into()),
        hist_ms: 100,
        per_job: true,
        first_job: 3,
        ..Default::default()
    }
}

fn point(l: IoLogSpec, jobs: u32) -> Point {
    let spec = AccessSpec { jobs, io_log: Some(Box::new(l)), ..Default::default() };
    Point {
        index: 1,
        label: "j".into(),
        slug: "j".into(),
        step: "j".into(),
        targets: vec!["/tmp/x".into()],
        fields: Vec::new(),
        spec,
        estimate_ns: None,
        concurrent: Vec::new(),
        fio: None,
        names: Vec::new(),
    }
}

fn lines(kind: Kind, l: &IoLogSpec, logs: &[&JobLog]) -> Vec<String> {
    let mut s = String::new();
    render(&mut s, kind, l, logs);
    s.lines().map(String::from).collect()
}

#[test]
fn names_are_fios_with_the_job_number_of_each_clone() {
    let names: Vec<String> = files(&point(log_spec(), 2)).into_iter().map(|f| f.name).collect();
    for n in ["p_lat.3.log", "p_lat.4.log", "p_clat.3.log", "p_slat.4.log", "p_bw.3.log", "q_iops.4.log"] {
        assert!(names.contains(&n.to_string()), "{n} in {names:?}");
    }
    assert!(names.contains(&"p_clat_hist.3.log".to_string()));
    assert_eq!(names.len(), 12);
    let shared = files(&point(IoLogSpec { per_job: false, ..log_spec() }, 2));
    assert!(shared.iter().any(|f| f.name == "p_lat.log" && f.clones.len() == 2));
}

#[test]
fn per_io_lines_carry_fios_columns_and_units() {
    let e = IoEntry { t_ns: 2_500_000, lat_ns: 3000, offset: 8192, slat_ns: 1000, len: 4096, dir: 1, prio: 0, file: 0 };
    let log = JobLog { slat: true, ios: vec![vec![e]], ..Default::default() };
    let l = log_spec();
    assert_eq!(lines(Kind::Lat, &l, &[&log]), vec!["2, 3000, 1, 4096, 0"]);
    assert_eq!(lines(Kind::Clat, &l, &[&log]), vec!["2, 2000, 1, 4096, 0"]);
    assert_eq!(lines(Kind::Slat, &l, &[&log]), vec!["2, 1000, 1, 4096, 0"]);
    // fio's per-I/O bw: bytes × 10^6 / clat ns.
    assert_eq!(lines(Kind::Bw, &l, &[&log]), vec!["2, 2048000, 1, 4096, 0"]);
    assert_eq!(lines(Kind::Iops, &l, &[&log]), vec!["2, 1, 1, 4096, 0"]);
    let wide = IoLogSpec { offset: true, prio: true, ..l.clone() };
    assert_eq!(lines(Kind::Lat, &wide, &[&log]), vec!["2, 3000, 1, 4096, 8192, 0x0000"]);
    // The I/O's priority: in hex with log_prio, else fio's real-time flag.
    let rt = JobLog { ios: vec![vec![IoEntry { prio: 0x2001, ..e }]], ..log.clone() };
    assert_eq!(lines(Kind::Lat, &wide, &[&rt]), vec!["2, 3000, 1, 4096, 8192, 0x2001"]);
    assert_eq!(lines(Kind::Lat, &l, &[&rt]), vec!["2, 3000, 1, 4096, 1"]);
    let idle = JobLog { ios: vec![vec![IoEntry { prio: 0x6000, ..e }]], ..log.clone() };
    assert_eq!(lines(Kind::Lat, &l, &[&idle]), vec!["2, 3000, 1, 4096, 0"]);
    // A synchronous backend measures no slat: fio leaves that log empty.
    let sync = JobLog { slat: false, ..log.clone() };
    assert!(lines(Kind::Slat, &l, &[&sync]).is_empty());
    // Two targets of one clone: merged by time.
    let early = JobLog { ios: vec![vec![IoEntry { t_ns: 1_000_000, ..e }]], ..log.clone() };
    let t: Vec<String> = lines(Kind::Lat, &l, &[&log, &early]).iter().map(|s| s[..1].to_string()).collect();
    assert_eq!(t, vec!["1", "2"]);
}

#[test]
fn windows_give_means_or_maxima_and_rates_per_second() {
    let w = WinStat {
        end_ns: 500_000_000,
        len_ns: 500_000_000,
        dir: 0,
        ios: 3,
        bytes: 3 * 4096,
        lat_sum: 10,
        lat_max: 6,
        clat_sum: 9,
        clat_max: 5,
        slat_sum: 1,
        slat_max: 1,
    };
    let log = JobLog { slat: true, windows: vec![w], ..Default::default() };
    let l = IoLogSpec { avg_ms: 500, ..log_spec() };
    assert_eq!(lines(Kind::Lat, &l, &[&log]), vec!["500, 3, 0, 0, 0"], "mean rounded as fio (10/3)");
    assert_eq!(lines(Kind::Lat, &IoLogSpec { max: true, ..l.clone() }, &[&log]), vec!["500, 6, 0, 0, 0"]);
    assert_eq!(lines(Kind::Bw, &l, &[&log]), vec!["500, 24, 0, 0, 0"], "KiB/s");
    assert_eq!(lines(Kind::Iops, &l, &[&log]), vec!["500, 6, 0, 0, 0"], "per second");
}

#[test]
fn histogram_lines_have_fios_buckets_summed_by_coarseness() {
    let h = HistWin { t_ns: 100_000_000, dir: 1, bs: 4096, buckets: vec![(0, 2), (1, 3), (1855, 1)] };
    let log = JobLog { hists: vec![h], ..Default::default() };
    let l = log_spec();
    let full = lines(Kind::Hist, &l, &[&log]);
    let cols: Vec<&str> = full[0].split(", ").collect();
    assert_eq!(cols.len(), 3 + 1856);
    assert_eq!(&cols[..6], &["100", "1", "4096", "2", "3", "0"]);
    assert_eq!(cols[3 + 1855], "1");
    let coarse = lines(Kind::Hist, &IoLogSpec { hist_coarseness: 2, ..l }, &[&log]);
    let cols: Vec<&str> = coarse[0].split(", ").collect();
    assert_eq!(cols.len(), 3 + 464);
    assert_eq!((cols[3], cols[3 + 463]), ("5", "1"));
}
