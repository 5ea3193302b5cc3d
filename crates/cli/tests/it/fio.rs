//! fio's spellings (issue #11, item 14): each gives the spec drivelab's own flag gives, saved
//! the same; fio's details are honoured (a bare runtime is seconds, `--filename a:b` is two
//! targets), plan files take the same keys, and what would be ambiguous is refused.

use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, stderr, Scratch};

/// The one results directory under `base`.
fn the_results_dir(base: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(base).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.into_iter().next().unwrap()
}

/// The saved points of the results directory under `base`.
fn saved_points(base: &Path) -> Vec<serde_json::Value> {
    let points = the_results_dir(base).join("points");
    let mut files: Vec<PathBuf> = std::fs::read_dir(points).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.iter().map(|f| json(f)).collect()
}

/// Run `drivelab run` with `args` and `--results` in a new folder of `s`; its one point.
fn run_point(s: &Scratch, tag: &str, args: &[&str]) -> (serde_json::Value, String) {
    let base = s.path(tag);
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--results", &base, "-q"]);
    let o = drivelab(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let mut points = saved_points(Path::new(&base));
    assert_eq!(points.len(), 1);
    (points.remove(0), stderr(&o))
}

/// The spec a point ran (`result.spec`) and was planned with (`point.spec`): the same.
fn spec(point: &serde_json::Value) -> serde_json::Value {
    assert_eq!(point["result"]["spec"], point["point"]["spec"]);
    point["result"]["spec"].clone()
}

#[test]
fn fio_spellings_save_the_spec_of_drivelabs_own_flags() {
    let s = Scratch::new("fio-same-spec");
    // `--io-size 64k` ends every run at once on the null target; the specs still record time.
    let pairs: &[(&[&str], &[&str])] = &[
        (
            &[
                "--blocksize",
                "64k",
                "--iodepth",
                "8",
                "--numjobs",
                "2",
                "--readwrite",
                "randrw",
                "--rwmixread",
                "70",
                "--ioengine",
                "io_uring",
                "--direct=0",
                "--runtime",
                "2",
            ],
            &[
                "--bs",
                "64k",
                "--qd",
                "8",
                "--jobs",
                "2",
                "--rw",
                "randrw",
                "--read",
                "70",
                "--engine",
                "uring",
                "--buffered",
                "--time",
                "2s",
            ],
        ),
        (&["--rw", "readwrite", "--rwmixwrite", "30"], &["--rw", "rw", "--read", "70"]),
        (&["--rw", "rw", "--rwmixread", "60", "--rwmixwrite", "40"], &["--rw", "rw", "--read", "60"]),
        (&["--ioengine", "sync"], &["--engine", "psync"]),
        (&["--ioengine", "psync", "--direct", "0"], &["--engine", "psync", "--buffered"]),
        (&["--direct=1"], &["--direct"]),
        (&["--buffered", "--direct=1"], &[]),
        (&["--direct=1", "--buffered"], &["--buffered"]),
    ];
    for (i, (fio, own)) in pairs.iter().enumerate() {
        let with = |flags: &[&str]| {
            let mut v = vec!["null"];
            v.extend_from_slice(flags);
            v.extend_from_slice(&["--io-size", "64k"]);
            v.iter().map(|s| s.to_string()).collect::<Vec<String>>()
        };
        let (fio_args, own_args) = (with(fio), with(own));
        let a: Vec<&str> = fio_args.iter().map(String::as_str).collect();
        let b: Vec<&str> = own_args.iter().map(String::as_str).collect();
        let (fio_point, _) = run_point(&s, &format!("fio{i}"), &a);
        let (own_point, _) = run_point(&s, &format!("own{i}"), &b);
        assert_eq!(spec(&fio_point), spec(&own_point), "{fio:?} vs {own:?}");
    }
    // The first pair, checked field by field against what fio would run.
    let (p, _) = run_point(
        &s,
        "first",
        &[
            "null",
            "--blocksize",
            "64k",
            "--iodepth",
            "8",
            "--rwmixread",
            "70",
            "--readwrite",
            "randrw",
            "--direct=0",
            "--runtime",
            "2",
            "--io-size",
            "64k",
        ],
    );
    let sp = spec(&p);
    assert_eq!((sp["qd"].as_u64(), sp["read_pct"].as_u64(), sp["random_pct"].as_u64()), (Some(8), Some(70), Some(100)));
    assert_eq!((sp["bs"][0]["bytes"].as_u64(), sp["direct"].as_bool()), (Some(65536), Some(false)));
    // The record keeps what was written (plan files take the same keys).
    let fields = p["point"]["fields"].to_string();
    assert!(fields.contains(r#"["iodepth","8"]"#) && fields.contains(r#"["runtime","2"]"#), "{fields}");
}

#[test]
fn fio_runtime_number_is_seconds() {
    let s = Scratch::new("fio-runtime");
    let (fio, _) = run_point(&s, "fio", &["null", "--runtime", "3", "--io-size", "4k"]);
    let (own, _) = run_point(&s, "own", &["null", "--time", "3s", "--io-size", "4k"]);
    assert_eq!(spec(&fio)["time_ns"].as_u64(), Some(3_000_000_000));
    assert_eq!(spec(&fio), spec(&own));
    // With a unit it is a duration, as in fio; a bare fraction is refused, not rounded.
    let (ms, _) = run_point(&s, "ms", &["null", "--runtime", "250ms", "--io-size", "4k"]);
    assert_eq!(spec(&ms)["time_ns"].as_u64(), Some(250_000_000));
    let o = drivelab(&["run", "null", "--runtime", "1.5", "--results", &s.path("frac")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--runtime '1.5': fio reads only the whole part of a fraction"), "{}", stderr(&o));
    assert!(!Path::new(&s.path("frac")).exists());
}

#[test]
fn ioengine_libaio_runs_the_libaio_engine_with_nothing_to_say() {
    let s = Scratch::new("fio-libaio");
    let (fio, err) = run_point(&s, "fio", &["null", "--ioengine", "libaio", "--io-size", "4k"]);
    let (own, _) = run_point(&s, "own", &["null", "--engine", "libaio", "--io-size", "4k"]);
    assert_eq!(spec(&fio), spec(&own));
    assert_eq!(spec(&fio)["engine"], "libaio");
    assert!(!err.contains("libaio"), "no notice: {err}");
}

#[test]
fn fio_filename_with_a_colon_is_two_targets() {
    let s = Scratch::new("fio-filename");
    let (a, b) = (s.path("a.dat"), s.path("b.dat"));
    let list = format!("{a}:{b}");
    let base = s.path("r");
    let o = drivelab(&[
        "run",
        "--filename",
        &list,
        "--rw",
        "read",
        "--size",
        "1m",
        "--io-size",
        "64k",
        "--results",
        &base,
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = json(&the_results_dir(Path::new(&base)).join("run.json"));
    let targets: Vec<&str> = run["targets"].as_array().unwrap().iter().map(|t| t["path"].as_str().unwrap()).collect();
    assert_eq!(targets, [a.as_str(), b.as_str()]);
    let point = &saved_points(Path::new(&base))[0];
    assert_eq!(point["result"]["per_target"].as_array().map(Vec::len), Some(2));
    for f in [&a, &b] {
        assert_eq!(std::fs::metadata(f).unwrap().len(), 1 << 20, "{f} created at --size");
    }
    // The same run named the drivelab way saves the same targets and spec.
    let base2 = s.path("r2");
    let o = drivelab(&["run", &a, &b, "--rw", "read", "--io-size", "64k", "--results", &base2, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let own = &saved_points(Path::new(&base2))[0];
    assert_eq!(spec(point), spec(own));
    assert_eq!(point["point"]["targets"], own["point"]["targets"]);
}

#[test]
fn plan_files_take_fio_keys() {
    let s = Scratch::new("fio-plan");
    let (a, b) = (s.path("a.dat"), s.path("b.dat"));
    let fio = format!(
        "filename = \"{a}:{b}\"\nsize = \"2m\"\n[defaults]\nblocksize = \"8k\"\nruntime = 2\nio_size = \"64k\"\n\
         ioengine = \"io_uring\"\ndirect = 1\n[[step]]\nname = \"mix\"\nreadwrite = \"randrw\"\nrwmixwrite = 30\n\
         [step.matrix]\niodepth = [1, 4]\nnumjobs = [1, 2]\n"
    );
    let own = format!(
        "targets = [\"{a}\", \"{b}\"]\n[defaults]\nbs = \"8k\"\ntime = \"2s\"\nio_size = \"64k\"\nengine = \"uring\"\n\
         direct = true\n[[step]]\nname = \"mix\"\nrw = \"randrw\"\nread = 70\n[step.matrix]\nqd = [1, 4]\njobs = [1, 2]\n"
    );
    let run_plan = |name: &str, text: &str| -> Vec<serde_json::Value> {
        let file = s.path(&format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        let base = s.path(name);
        let o = drivelab(&["plan", &file, "--results", &base, "-q"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        saved_points(Path::new(&base))
    };
    let fio_points = run_plan("fio", &fio);
    // The plan's size made the new files (fio's size); the command line's --size would win.
    for f in [&a, &b] {
        assert_eq!(std::fs::metadata(f).unwrap().len(), 2 << 20, "{f}");
    }
    let own_points = run_plan("own", &own);
    assert_eq!(fio_points.len(), 8, "2 targets x 4 points");
    assert_eq!(fio_points.len(), own_points.len());
    for (f, o) in fio_points.iter().zip(&own_points) {
        assert_eq!(spec(f), spec(o), "{} vs {}", f["point"]["label"], o["point"]["label"]);
        assert_eq!(f["point"]["targets"], o["point"]["targets"]);
    }
    assert_eq!(spec(&fio_points[0])["time_ns"].as_u64(), Some(2_000_000_000), "runtime = 2 is two seconds");
}

#[test]
fn ambiguous_fio_spellings_are_refused_with_nothing_created() {
    let s = Scratch::new("fio-refused");
    let cases: &[(&[&str], &str)] = &[
        (&["run", "null", "--qd", "4", "--iodepth", "8"], "are the same option"),
        (&["run", "null", "--time", "1s", "--runtime", "2"], "are the same option"),
        (
            &["run", "null", "--rw", "randread", "--rwmixread", "70"],
            "--rwmixread 70: fio applies it only to a mixed workload",
        ),
        (&["run", "null", "--rwmixwrite", "30"], "no --rw is given"),
        (&["run", "null", "--rw", "randrw", "--rwmixread", "70", "--rwmixwrite", "40"], "do not add up to 100"),
        (&["run", "null", "--ioengine", "windowsaio"], "--ioengine 'windowsaio'"),
        (&["run", "null", "--blocksize", "4k,64k"], "fio's READ,WRITE block sizes"),
        (&["run", "null", "--rw", "randwrite:8k"], "after a random word, N is a count of I/Os"),
        (&["run", "null", "--filename", "null"], "--filename null and the targets null both name targets"),
        (&["run", "--filename", "a.dat::b.dat"], "names an empty target"),
        (&["run", "null", "--direct=maybe"], "--direct 'maybe': give true or false"),
    ];
    for (args, expected) in cases {
        let base = s.path("results");
        let mut all = args.to_vec();
        all.extend_from_slice(&["--results", &base]);
        let o = drivelab(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{args:?}: expected '{expected}' in {}", stderr(&o));
        assert!(!Path::new(&base).exists(), "{args:?} created results");
    }
    assert!(std::fs::read_dir(&s.0).unwrap().next().is_none(), "nothing created");
}

#[test]
fn end_fsync_runs_in_a_job_on_fios_command_line_and_as_a_run_flag() {
    let s = Scratch::new("fio-end-fsync");
    let f = s.path("w.dat");
    let o = drivelab(&[
        "fio",
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        &format!("--filename={f}"),
        "--end_fsync=1",
        "--output-format=json",
        "--results",
        &s.path("r1"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&String::from_utf8_lossy(&o.stdout)).unwrap();
    assert_eq!(v["jobs"][0]["sync"]["total_ios"], 0, "as fio: the end fsync is in no figure");
    let out = s.path("r.json");
    let o = drivelab(&[
        "run",
        &f,
        "--rw",
        "write",
        "--io-size",
        "1m",
        "--end-fsync",
        "--json",
        &out,
        "--results",
        &s.path("r2"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(Path::new(&out))["spec"]["end_fsync"], true);
}
