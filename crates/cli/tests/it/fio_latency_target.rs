//! fio's latency target (`latency_target`, `latency_window`, `latency_percentile`) through
//! `drivelab run JOB.fio`, on a loop device throttled to a few hundred reads per second by the
//! block cgroup (v1 `blkio.throttle.read_iops_device`, or v2 `io.max`): there latency grows with
//! the queue depth, so a tight target is met only at low depths and a loose one at the job's
//! `iodepth`. The depth each search ends at is in drivelab's result (`latency_depth`) and in
//! fio's JSON keys with fio's units; the tight target's depth is below the loose one's, as
//! fio's own on the same device (printed beside, where fio is installed). Order only, never a
//! time bound.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{need_loop, results_dir, saved_points, stderr, stdout, LoopDev, Scratch};

/// Reads per second the device is held to.
const RIOPS: u32 = 400;

/// A block cgroup of this test that throttles reads of one device; removed on drop.
struct Throttle {
    dir: PathBuf,
}

impl Throttle {
    /// A cgroup throttling `dev` (MAJ:MIN) to `riops` reads per second, or why there is none.
    fn new(dev: &str, riops: u32) -> Result<Throttle, String> {
        let name = format!("drivelab-test-lat-{}", std::process::id());
        let v1 = Path::new("/sys/fs/cgroup/blkio");
        let v2 = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
            .into_iter()
            .map(Path::new)
            .find(|p| std::fs::read_to_string(p.join("cgroup.subtree_control")).is_ok_and(|c| c.contains("io")));
        let (dir, file, line) = if v1.join("blkio.throttle.read_iops_device").exists() {
            (v1.join(&name), "blkio.throttle.read_iops_device", format!("{dev} {riops}"))
        } else if let Some(root) = v2 {
            (root.join(&name), "io.max", format!("{dev} riops={riops}"))
        } else {
            return Err("no block cgroup controller (blkio v1, or io enabled in a v2 hierarchy)".into());
        };
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let t = Throttle { dir };
        std::fs::write(t.dir.join(file), line).map_err(|e| format!("{file}: {e}"))?;
        Ok(t)
    }

    /// `program args` run inside the cgroup (the shell joins it, then becomes the program).
    fn run(&self, cwd: &Path, program: &str, args: &[&str]) -> Output {
        let procs = self.dir.join("cgroup.procs");
        let script = format!("echo $$ > '{}' && exec \"$0\" \"$@\"", procs.display());
        Command::new("sh")
            .current_dir(cwd)
            .env("DRIVELAB_STATE_DIR", crate::common::state_home())
            .arg("-c")
            .arg(script)
            .arg(program)
            .args(args)
            .output()
            .unwrap()
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        // Its processes have ended; an empty cgroup is removed with rmdir.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

fn job(dir: &Path, dev: &str, target: &str) -> String {
    let text = format!(
        "[global]\nfilename={dev}\nbs=4k\nrw=randread\ndirect=1\nioengine=libaio\niodepth=32\ntime_based\nruntime=4\n\
         latency_window=100000\nlatency_percentile=90\n\n[search]\nlatency_target={target}\n"
    );
    let path = dir.join(format!("lat-{target}.fio"));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// drivelab's depth for `target`: (its result's `latency_depth`, fio's JSON entry written from it).
fn drivelab_depth(t: &Throttle, s: &Scratch, dev: &str, target: &str) -> (u64, serde_json::Value) {
    let base = s.0.join(format!("res-{target}"));
    let o = t.run(
        &s.0,
        env!("CARGO_BIN_EXE_drivelab"),
        &["run", &job(&s.0, dev, target), "--results", base.to_str().unwrap(), "-q"],
    );
    assert!(o.status.success(), "latency_target={target}: {}", stderr(&o));
    let dir = results_dir(&base);
    let p = &saved_points(&dir)[0];
    let depth = p["result"]["latency_depth"].as_u64().unwrap_or_else(|| panic!("latency_depth in the result: {p}"));
    let r = &p["result"];
    assert!(r["read"]["ops"].as_u64().unwrap() > 0 && r["errors"].as_array().unwrap().is_empty(), "{r}");
    let o = common::drivelab_in(&s.0, &["report", dir.to_str().unwrap(), "--fio-format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    (depth, doc["jobs"][0].clone())
}

/// fio's own depth for `target` on the same device, when fio is installed.
fn fio_depth(t: &Throttle, s: &Scratch, dev: &str, target: &str) -> Option<u64> {
    let o = t.run(&s.0, "fio", &[&job(&s.0, dev, target), "--output-format=json"]);
    if !o.status.success() {
        return None;
    }
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).ok()?;
    doc["jobs"][0]["latency_depth"].as_u64()
}

#[test]
fn a_tight_latency_target_ends_at_a_lower_depth_than_a_loose_one() {
    need_loop!();
    let s = Scratch::new("fio-lat-target");
    let backing = Path::new("/dev/shm").join(format!("drivelab-test-lat-{}.img", std::process::id()));
    let l = LoopDev::new(&backing, 64 << 20, None);
    let name = l.dev.trim_start_matches("/dev/");
    let majmin = std::fs::read_to_string(format!("/sys/block/{name}/dev")).unwrap().trim().to_string();
    let t = match Throttle::new(&majmin, RIOPS) {
        Ok(t) => t,
        Err(why) => return common::skip(&why),
    };
    // At ~400 reads/s an I/O waits about 2.5 ms per I/O queued ahead of it: 5 ms is met at
    // depth 1 or 2, 10 s at any depth.
    let (tight, tight_json) = drivelab_depth(&t, &s, &l.dev, "5ms");
    let (loose, loose_json) = drivelab_depth(&t, &s, &l.dev, "10s");
    assert!(tight < loose, "depth for 5 ms: {tight}, for 10 s: {loose}");
    assert_eq!(loose, 32, "a loose target reaches the job's iodepth");
    for (j, depth, target_ns) in [(&tight_json, tight, 5_000_000u64), (&loose_json, loose, 10_000_000_000)] {
        assert_eq!(j["latency_depth"].as_u64(), Some(depth), "{j}");
        assert_eq!(j["latency_target"].as_u64(), Some(target_ns), "fio's JSON: ns");
        assert_eq!(j["latency_window"].as_u64(), Some(100_000), "fio's JSON: µs");
        assert_eq!(j["latency_percentile"].as_f64(), Some(90.0));
    }
    match (fio_depth(&t, &s, &l.dev, "5ms"), fio_depth(&t, &s, &l.dev, "10s")) {
        (Some(ft), Some(fl)) => eprintln!("latency_depth 5 ms / 10 s: drivelab {tight} / {loose}, fio {ft} / {fl}"),
        _ => common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)"),
    }
}
