//! fio's `startdelay`, `number_ios`, `exit_what` and per-direction `rate`/`rate_iops` through
//! the binary, on the null target (issue #27, part "delay"): a delayed job's runtime excludes
//! its delay and `--cap-time` scales delays, saying so; `number_ios` ends a job after that many
//! I/Os; `exit_what` picks which jobs a job's end stops (and `all` leaves later groups out);
//! a mixed job paced 2:1 per direction delivers reads and writes 2:1, as fio does.

use crate::common::{drivelab_in, results_dir, stderr, stdout, Saved, Scratch};

/// Run job-file `text` in `s` with `extra` flags: (exit code, output, the saved results).
fn run(s: &Scratch, text: &str, extra: &[&str]) -> (Option<i32>, String, Option<Saved>) {
    let job = s.0.join("job.fio");
    std::fs::write(&job, text).unwrap();
    let mut args = vec!["run", job.to_str().unwrap(), "--results", "res"];
    args.extend_from_slice(extra);
    let o = drivelab_in(&s.0, &args);
    let res = s.0.join("res");
    let saved = res.is_dir().then(|| Saved::load(&results_dir(&res)));
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)), saved)
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_delayed_jobs_runtime_excludes_its_delay_and_a_cap_scales_delays_in_order() {
    let s = Scratch::new("fio-delay-start");
    let text = "[global]\nioengine=null\nsize=1g\ntime_based\nruntime=300ms\n[early]\n[late]\nstartdelay=900ms\n";
    let (code, out, saved) = run(&s, text, &[]);
    assert_eq!(code, Some(0), "{out}");
    let p = &saved.unwrap().points[0];
    let jobs = p["jobs"].as_array().unwrap();
    let (early, late) = (u(&jobs[0]["runtime_ns"]), u(&jobs[1]["runtime_ns"]));
    // Counted with its delay the late job's runtime would be 4x the early one's.
    assert!(late * 2 < early * 3, "late {late} ns, early {early} ns: the delay is not runtime");
    assert!(u(&jobs[1]["total"]["ops"]) > 0);
    assert_eq!(p["point"]["spec"]["start_delay_ns"], serde_json::Value::Null, "the first job has none");

    // Delays 0, 4 s and 8 s under --cap-time 100ms: 0, 50 ms and 100 ms, and the note says so.
    let s = Scratch::new("fio-delay-cap");
    let text = "[global]\nioengine=null\nsize=1g\n[a]\nstartdelay=0\n[b]\nstartdelay=4\n[c]\nstartdelay=8\n";
    let (code, out, saved) = run(&s, text, &["--cap-time", "100ms", "-q"]);
    assert_eq!(code, Some(0), "{out}");
    let saved = saved.unwrap();
    let p = &saved.points[0];
    let delays: Vec<&serde_json::Value> =
        p["point"]["concurrent"].as_array().unwrap().iter().map(|c| &c["spec"]["start_delay_ns"]).collect();
    assert_eq!(delays, [50_000_000, 100_000_000]);
    let run_json = saved.run.to_string();
    assert!(
        run_json.contains("start delays (startdelay) scaled by 100ms/8s"),
        "the shortened-run note says how: {run_json}"
    );
    assert!(p["jobs"].as_array().unwrap().iter().all(|j| u(&j["total"]["ops"]) > 0));
}

#[test]
fn number_ios_ends_the_job_after_that_many_ios() {
    let s = Scratch::new("fio-delay-nios");
    let (code, out, saved) = run(&s, "[j]\nioengine=null\nsize=1g\nnumber_ios=1000\nloops=2\n", &[]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(saved.unwrap().points[0]["result"]["total"]["ops"], 2000, "number_ios x loops, as fio");
}

/// The jobs' results of a point where [a] (exitall, `exit_what`) ends after 100 ms and [b]
/// (two clones, time_based 2 s) runs beside it.
fn exit_what(what: &str, b_group: &str) -> Vec<serde_json::Value> {
    let s = Scratch::new(&format!("fio-delay-exit-{what}"));
    let text = format!(
        "[global]\nioengine=null\nsize=1g\ntime_based\nexitall\n[a]\nruntime=100ms\nexit_what={what}\n\
         [b]\nruntime=2\nnumjobs=2\n{b_group}\n[after]\nstonewall\nruntime=100ms\n"
    );
    let (code, out, saved) = run(&s, &text, &["-q"]);
    assert_eq!(code, Some(0), "{out}");
    let points = saved.unwrap().points;
    if what == "all" {
        assert_eq!(points.len(), 1, "the group after [a] never runs");
        assert!(out.contains("exit_what=all in [a]") && out.contains("left out: [after]"), "{out}");
    } else {
        assert_eq!(points.len(), 2);
    }
    points[0]["jobs"].as_array().unwrap().clone()
}

#[test]
fn exit_what_sets_which_jobs_a_jobs_end_stops() {
    if !crate::common::full_tier() {
        return;
    }
    for what in ["stonewall", "all"] {
        let jobs = exit_what(what, "new_group=1");
        assert_eq!(jobs[1]["ended"], "exitall", "{what}: [b] in another fio group ends too");
        assert!(u(&jobs[1]["runtime_ns"]) < 10 * u(&jobs[0]["runtime_ns"]), "{what}");
    }
    // group: [b], a fio group of its own (new_group), runs on to its end.
    let jobs = exit_what("group", "new_group=1");
    assert!(jobs[1].get("ended").is_none(), "{}", jobs[1]);
    assert!(u(&jobs[1]["runtime_ns"]) > 10 * u(&jobs[0]["runtime_ns"]));
    // Without new_group the point is one fio group: [b] ends with [a].
    let jobs = exit_what("group", "");
    assert_eq!(jobs[1]["ended"], "exitall");
}

/// (reads, writes) of a randrw job on null paced by `rate`.
fn paced(s: &Scratch, rate: &str) -> (f64, f64, String) {
    let text = format!("[j]\nioengine=null\nsize=1g\nrw=randrw\ntime_based\nruntime=1\n{rate}\n");
    let (code, out, saved) = run(s, &text, &["-q"]);
    assert_eq!(code, Some(0), "{out}");
    let r = &saved.unwrap().points[0]["result"];
    (r["read"]["ops"].as_f64().unwrap(), r["write"]["ops"].as_f64().unwrap(), out)
}

#[test]
fn a_mixed_job_paced_per_direction_delivers_each_directions_rate() {
    let s = Scratch::new("fio-delay-rate");
    let (reads, writes, out) = paced(&s, "rate_iops=2000,1000\nrwmixread=90");
    let ratio = reads / writes;
    assert!((1.75..2.3).contains(&ratio), "{reads} reads, {writes} writes: not 2:1 ({out})");
    assert!(out.contains("67% reads"), "{out}");
    // One value: each direction's (fio: 1000 reads and 1000 writes a second).
    let s = Scratch::new("fio-delay-rate-one");
    let (reads, writes, _) = paced(&s, "rate_iops=1000");
    assert!((0.8..1.25).contains(&(reads / writes)), "{reads} reads, {writes} writes");
    // One direction paced, the other free: refused by line, exit 2.
    let s = Scratch::new("fio-delay-rate-free");
    let (code, out, _) = run(&s, "[j]\nioengine=null\nsize=1g\nrw=randrw\nrate_iops=,100\n", &[]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("job.fio:5: rate_iops=,100:") && out.contains("write paced and read unpaced"), "{out}");
}
