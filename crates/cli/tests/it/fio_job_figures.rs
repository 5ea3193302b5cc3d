//! fio's job figures that drivelab once wrote as 0, measured now: `ctx` (the job thread's
//! context switches), `majf`/`minf` (its page faults) and the three depth distributions
//! (`iodepth_level`, `iodepth_submit`, `iodepth_complete`), for an io_uring job at iodepth 8 on
//! a loop device over /dev/shm. Each is in drivelab's result (`thread_usage`, `iodepths`) and in
//! its fio JSON; the depth the job ran at is where fio 3.33 puts it on the same device.

use crate::common;

use std::path::Path;
use std::process::Command;

use crate::common::{drivelab_in, need_loop, results_dir, saved_points, stderr, stdout, LoopDev, Scratch};

const LEVEL_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];

fn job(dir: &Path, dev: &str) -> String {
    let text = format!(
        "[global]\nfilename={dev}\ndirect=1\nruntime=1\ntime_based\nsize=32m\n[rr8]\nrw=randread\nbs=4k\n\
         ioengine=io_uring\niodepth=8\n"
    );
    let path = dir.join("rr8.fio");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// The bucket of `obj` holding the most (fio's keys).
fn top(obj: &serde_json::Value, keys: &[&str]) -> String {
    let v = |k: &&str| obj[*k].as_f64().unwrap_or_else(|| panic!("{k} in {obj}"));
    keys.iter().max_by(|a, b| v(a).total_cmp(&v(b))).unwrap().to_string()
}

fn sum(obj: &serde_json::Value) -> f64 {
    obj.as_object().unwrap().values().map(|v| v.as_f64().unwrap()).sum()
}

#[test]
fn context_switches_faults_and_depth_distributions_are_measured() {
    need_loop!();
    let s = Scratch::new("fio-job-figures");
    let backing = Path::new("/dev/shm").join(format!("drivelab-test-figures-{}.img", std::process::id()));
    let l = LoopDev::new(&backing, 64 << 20, None);
    let file = job(&s.0, &l.dev);
    let base = s.0.join("res");
    let o = drivelab_in(&s.0, &["run", &file, "--results", base.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = results_dir(&base);
    let r = &saved_points(&dir)[0]["result"];
    let ops = r["read"]["ops"].as_u64().unwrap();
    let u = &r["thread_usage"];
    assert!(u["context_switches"].as_u64().unwrap() > 0, "a job waiting on a device switches: {u}");
    let issued: u64 = r["iodepths"]["issued_at_depth"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    // Every measured completion was issued in the measured part, but for the last few in flight.
    assert!(issued >= ops && issued <= ops + 8, "I/Os counted by depth {issued}, completed {ops}");

    let o = drivelab_in(&s.0, &["report", dir.to_str().unwrap(), "--fio-format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let j = &doc["jobs"][0];
    assert_eq!(j["ctx"], u["context_switches"]);
    assert_eq!((&j["majf"], &j["minf"]), (&u["major_faults"], &u["minor_faults"]));
    for k in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
        assert!((sum(&j[k]) - 100.0).abs() < 1.0, "{k} adds up to 100%: {}", j[k]);
    }
    let ours = top(&j["iodepth_level"], &LEVEL_KEYS);
    assert_eq!(ours, "8", "an iodepth=8 job runs at depth 8: {}", j["iodepth_level"]);
    let not_measured = doc["drivelab not measured"].to_string();
    assert!(!not_measured.contains("ctx") && !not_measured.contains("iodepth_level"), "{not_measured}");
    let normal = drivelab_in(&s.0, &["report", dir.to_str().unwrap(), "--fio-format", "normal"]);
    let text = stdout(&normal);
    let depths = text.lines().find(|l| l.trim_start().starts_with("IO depths")).expect("fio's IO depths line");
    let eight = format!(" 8={:.1}%", j["iodepth_level"]["8"].as_f64().unwrap());
    assert!(depths.contains(&eight), "{depths} (JSON: {eight})");
    assert!(text.contains(&format!("ctx={},", j["ctx"])), "{text}");

    let fio = Command::new("fio").args([&file, "--output-format=json"]).current_dir(&s.0).output();
    match fio {
        Ok(o) if o.status.success() => {
            let theirs: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
            let t = &theirs["jobs"][0];
            assert_eq!(top(&t["iodepth_level"], &LEVEL_KEYS), ours, "fio: {}", t["iodepth_level"]);
            eprintln!(
                "rr8 on {}: ctx drivelab {} fio {}; iodepth_level drivelab {} fio {}",
                l.dev, j["ctx"], t["ctx"], j["iodepth_level"], t["iodepth_level"]
            );
        }
        _ => common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)"),
    }
}
