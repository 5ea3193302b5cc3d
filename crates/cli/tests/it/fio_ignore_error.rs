//! fio's `ignore_error` through `drivelab plan JOB.fio DEV`, on a device that fails one block with EIO
//! (`drivelab-faultdev`): a job that lists EIO for writes goes past the failed block (the error
//! counted in `continued_errors`, as fio's `total_err`, and not a failure); a job that lists another errno stops at it, as with
//! no list at all.

use crate::common;

use std::path::Path;

use crate::common::{drivelab_in, need_loop, stderr, Saved, Scratch};
use drivelab_faultdev::{Fault, Rig};

/// The failed block: 600 KiB into the second MiB (drivelab's signature scan reads the first MiB
/// and the MiB boundaries before a write, and refuses a device it cannot read there).
const E: u64 = (1 << 20) + 600 * 1024;

/// `drivelab plan JOB.fio DEV` writing the second MiB in 4k blocks with `ignore`: exit code, the point's
/// result.
fn write_with(s: &Scratch, dev: &str, ignore: &str, tag: &str) -> (Option<i32>, serde_json::Value, String) {
    let res = format!("res-{tag}");
    let file = s.0.join(format!("{tag}.fio"));
    let text = format!("[w]\nrw=write\nbs=4k\noffset=1m\nsize=1m\nioengine=psync\ndirect=1\nignore_error={ignore}\n");
    std::fs::write(&file, text).unwrap();
    let args = ["plan", file.to_str().unwrap(), dev, "--destroy", dev, "--no-prep", "--results", &res];
    let o = drivelab_in(&s.0, &args);
    let saved = saved(&s.0.join(&res));
    let r = saved.points.first().map(|p| p["result"].clone()).unwrap_or_default();
    (o.status.code(), r, stderr(&o))
}

#[test]
fn listed_errnos_continue_and_others_stop_the_job() {
    need_loop!();
    let Some(rig) = Rig::new(4 << 20, "ignore-error") else { return };
    let s = Scratch::new("fio-ignore-error");
    rig.drive().add(Fault::Eio { range: E..E + 4096 });

    let (code, r, text) = write_with(&s, &rig.loop_dev, ",EIO", "eio");
    assert_eq!(code, Some(0), "a listed error is not a failure (fio: err=0): {text}");
    assert!(r["errors"].as_array().unwrap().is_empty(), "{r}");
    let c = &r["continued_errors"][0];
    assert_eq!((c["errno"].as_i64(), c["count"].as_u64()), (Some(5), Some(1)), "counted apart: {r} {text}");
    assert_eq!(c["first_offset_bytes"], E, "{r}");
    let went_on = r["write"]["ops"].as_u64().unwrap();
    assert_eq!(went_on, 255, "every other block was written: {}", r["write"]);

    let (code, r, text) = write_with(&s, &rig.loop_dev, ",ENOSPC", "enospc");
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(r["errors"][0]["errno"], 5, "{r}");
    let stopped = r["write"]["ops"].as_u64().unwrap();
    assert_eq!(stopped, 150, "stopped at the failed block, 600 KiB in: {}", r["write"]);
}

#[test]
fn an_unknown_errno_name_is_refused_naming_the_fix() {
    let s = Scratch::new("fio-ignore-error-bad");
    let o = drivelab_in(
        &s.0,
        &["fio", "--name=w", "--rw=write", "--size=64k", "--filename=f.dat", "--ignore_error=,EWHAT"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("EWHAT") && stderr(&o).contains("number"), "{}", stderr(&o));
    assert!(!s.0.join("f.dat").exists(), "nothing created");
}

/// The results directory drivelab made under `res`, loaded.
fn saved(res: &Path) -> Saved {
    match std::fs::read_dir(res).ok().and_then(|mut d| d.next()).and_then(|e| e.ok()) {
        Some(e) => Saved::load(&e.path()),
        None => Saved { run: Default::default(), points: Vec::new(), probes: Vec::new(), outcome: Default::default() },
    }
}
