use super::*;
use drivelab_engine::spec::{EngineKind, SyncMode};

fn plan(text: &str, targets: &[&str], vars: &[&str]) -> Result<Plan, Error> {
    let targets: Vec<String> = targets.iter().map(|s| s.to_string()).collect();
    let vars: Vec<Var> = vars.iter().map(|v| parse_var(v).unwrap()).collect();
    parse(text, "job.fio", "job", Given { targets: &targets, vars: &vars, cap: Cap::default(), aux: None })
        .map(|f| f.plan)
}

const SSD_TEST: &str = "[global]\nbs=4k\nioengine=libaio\niodepth=4\nsize=10g\ndirect=1\nruntime=60\n\
directory=/mnt/ssd\nfilename=ssd.test.file\n\n[seq-read]\nrw=read\nstonewall\n\n[rand-read]\nrw=randread\n\
stonewall\n\n[seq-write]\nrw=write\nstonewall\n";

#[test]
fn stonewalled_jobs_are_points_in_order_with_fios_meaning() {
    let p = plan(SSD_TEST, &[], &[]).unwrap();
    let labels: Vec<&str> = p.points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["seq-read", "rand-read", "seq-write"]);
    let s = &p.points[1].spec;
    assert_eq!((s.read_pct, s.random_pct, s.qd, s.engine, s.direct), (100, 100, 4, EngineKind::Libaio, true));
    assert_eq!(s.bs[0].bytes, 4096);
    assert_eq!(s.span_bytes, Some(10 << 30));
    assert_eq!(s.time_ns, Some(60_000_000_000));
    assert_eq!(s.io_size_bytes, Some(10 << 30), "not time_based: the run ends after size bytes or runtime");
    assert_eq!(p.points[0].targets, vec!["/mnt/ssd/ssd.test.file"]);
    assert_eq!(p.points[2].spec.read_pct, 0);
    assert!(!p.notices().iter().any(|n| n.contains("libaio")), "libaio runs libaio: {:?}", p.notices());
}

#[test]
fn jobs_without_a_stonewall_run_together_as_one_point() {
    let text = "[global]\nioengine=libaio\nbuffered=0\nrw=randread\nbs=128k\nsize=512m\ndirectory=/data1\n\
[file1]\niodepth=4\n[file2]\niodepth=32\n[file3]\niodepth=8\n";
    let p = plan(text, &[], &[]).unwrap();
    assert_eq!(p.points.len(), 1);
    let pt = &p.points[0];
    assert_eq!(pt.label, "file1 + file2 + file3");
    assert_eq!(pt.spec.qd, 4);
    assert_eq!(pt.concurrent.iter().map(|c| c.spec.qd).collect::<Vec<_>>(), [32, 8]);
    assert_eq!(pt.concurrent[0].targets, vec!["/data1/file2.0.0"]);
    assert_eq!(pt.streams().len(), 3);
    assert_eq!(p.targets.len(), 3);
}

#[test]
fn a_later_global_section_applies_only_to_the_jobs_after_it() {
    let text = "[global]\nbs=4k\nsize=1m\n[a]\n[global]\nbs=64k\n[b]\nstonewall\n";
    let p = plan(text, &["null"], &[]).unwrap();
    assert_eq!(p.points[0].spec.bs[0].bytes, 4096);
    assert_eq!(p.points[1].spec.bs[0].bytes, 65536);
}

#[test]
fn command_line_targets_replace_the_files_and_clones_become_jobs() {
    let text = "[j]\nnumjobs=4\nsize=1m\nrw=randrw\nrwmixread=70\nioengine=io_uring\n";
    let p = plan(text, &["/dev/shm/x"], &[]).unwrap();
    let s = &p.points[0].spec;
    assert_eq!((s.jobs, s.read_pct), (4, 70));
    assert_eq!(p.points[0].targets, vec!["/dev/shm/x"]);
    let own = plan(text, &[], &[]).unwrap();
    assert_eq!(own.points[0].targets.len(), 4, "one file per clone: {:?}", own.points[0].targets);
    assert_eq!(own.points[0].spec.jobs, 1);
}

#[test]
fn variables_sweep_the_file_one_point_per_combination() {
    let text = "[seq]\nrw=read\nbs=${BS}\niodepth=${QD}\nioengine=io_uring\nsize=1m\n";
    let p = plan(text, &["null"], &["BS=4k,64k", "QD=1..4x2"]).unwrap();
    let labels: Vec<&str> = p.points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        ["seq BS=4k QD=1", "seq BS=4k QD=2", "seq BS=4k QD=4", "seq BS=64k QD=1", "seq BS=64k QD=2", "seq BS=64k QD=4"]
    );
    assert_eq!((p.points[5].spec.bs[0].bytes, p.points[5].spec.qd), (65536, 4));
    let slugs: HashSet<&str> = p.points.iter().map(|p| p.slug.as_str()).collect();
    assert_eq!(slugs.len(), 6);
}

#[test]
fn refusals_name_the_file_and_line() {
    let e = plan("[j]\nsize=1m\nrw=randread\nexec_prerun=ls\n", &["null"], &[]).unwrap_err().to_string();
    assert!(e.starts_with("job.fio:4: exec_prerun=ls"), "{e}");
    let e = plan("[j]\nsize=1m\nrwmixread=70\n", &["null"], &[]).unwrap_err().to_string();
    assert!(e.starts_with("job.fio:1: [j]") && e.contains("rwmixread"), "{e}");
    let e = plan("[global]\nbs=4k\n", &["null"], &[]).unwrap_err().to_string();
    assert!(e.contains("no job section"), "{e}");
    let e = plan("[j]\nfilename=/tmp/drivelab-surely-not-here.dat\n", &[], &[]).unwrap_err().to_string();
    assert!(e.contains("add size="), "{e}");
}

#[test]
fn sync_rate_and_think_options_reach_the_spec() {
    let text = "[global]\nrw=randwrite\nsize=1m\nfsync=8\nioengine=io_uring\nnorandommap\n\
[rated]\nrate_iops=500\nrate_process=poisson\n[thinking]\nstonewall\nthinktime=100\nthinktime_blocks=4\n";
    let p = plan(text, &["null"], &[]).unwrap();
    let s = &p.points[0].spec;
    assert_eq!(s.sync, SyncMode::Fsync { every: 8 });
    assert_eq!(s.rate.unwrap().per_s, 500.0);
    assert_eq!(s.rate.unwrap().arrivals, drivelab_engine::spec::Arrivals::Poisson);
    let t = p.points[1].spec.think.unwrap();
    assert_eq!((t.ns, t.blocks), (100_000, 4));
}

#[test]
fn var_ranges_and_lists() {
    assert_eq!(parse_var("QD=1..64x2").unwrap().values, ["1", "2", "4", "8", "16", "32", "64"]);
    assert_eq!(parse_var("BS=4k..16k x2").unwrap().values, ["4k", "8k", "16k"]);
    assert_eq!(parse_var("MIX=0..100+50").unwrap().values, ["0", "50", "100"]);
    assert_eq!(parse_var("BS=4k,8k").unwrap().values, ["4k", "8k"]);
    assert!(parse_var("BS").is_err());
    assert!(parse_var("QD=4..1x2").is_err());
    assert!(parse_var("a-b=1").is_err());
}

#[test]
fn points_keep_the_fio_options_as_given() {
    let text =
        "[global]\nbs=4k\ntime_based\nruntime=1\n[a]\nrw=randread\n[b]\nrw=randwrite\n[c]\nstonewall\nrw=write\n";
    let p = plan(text, &["/t"], &[]).unwrap();
    let f = p.points[0].fio.as_ref().unwrap();
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(f.global, vec![pair("bs", "4k"), pair("time_based", ""), pair("runtime", "1")]);
    assert_eq!(f.jobs, vec![vec![pair("rw", "randread")], vec![pair("rw", "randwrite")]]);
    assert!(!f.group_reporting());
    assert_eq!(p.points[1].fio.as_ref().unwrap().jobs, vec![vec![pair("stonewall", ""), pair("rw", "write")]]);
}

#[test]
fn allow_file_create_0_refuses_a_missing_file_and_takes_an_existing_one() {
    let missing = "[j]\nrw=read\nsize=1m\nallow_file_create=0\nfilename=/tmp/drivelab-surely-not-here.dat\n";
    let e = plan(missing, &[], &[]).unwrap_err().to_string();
    assert!(e.contains("allow_file_create=0 and /tmp/drivelab-surely-not-here.dat does not exist"), "{e}");
    let dir = std::env::temp_dir().join(format!("drivelab-afc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("there.dat");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let there = format!("[j]\nrw=read\nsize=1m\nallow_file_create=0\nfilename={}\n", f.display());
    let ok = plan(&there, &[], &[]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ok.unwrap().points.len(), 1);
}

#[test]
fn an_option_with_no_effect_still_has_its_value_checked_as_fio_checks_it() {
    // fio refuses each of these ("failed parsing"); read and changing nothing here, they were
    // taken whatever their value.
    for (line, says) in [
        ("clat_percentiles=xe", "not a boolean"),
        ("lat_percentiles=2", "not a boolean"),
        ("group_reporting=eh", "not a whole number"),
        ("openfiles=inf", "not a size"),
        ("unit_base=7", "'7' is not one of 0, 8, 1"),
        ("filesize=0", "below fio's minimum of 1"),
        ("verify=bogus", "not one of fio's verify methods"),
    ] {
        let e = plan(&format!("[j]\nsize=1m\n{line}\n"), &["null"], &[]).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(line.split('=').next().unwrap()) && e.contains(says), "{line}: {e}");
    }
    // What fio takes still runs: 0/1 (and drivelab's true/false), a flag bare or numbered, 1k.
    for line in [
        "clat_percentiles=0",
        "lat_percentiles=true",
        "group_reporting",
        "group_reporting=2",
        "openfiles=1k",
        "verify=crc32c-intel",
        "verify=0",
    ] {
        plan(&format!("[j]\nsize=1m\n{line}\n"), &["null"], &[]).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
}
