//! drivelab's own state as hostile input (issue #39, items 1–3), through the real binary: the
//! record of written devices (`written-devices.json` in `DRIVELAB_STATE_DIR`) made a FIFO, a
//! symlink to /dev/zero, a 200 MB file, garbage, a directory; the state directory writable by
//! others; a forged record of another boot; the old `.lock` made a symlink. No run hangs (each
//! child is killed and the test failed after 60 s: a hang detector, not a timing bound), none
//! trusts what it cannot, none writes through a symlink, and a record that cannot be saved
//! never costs the measurement.

use crate::common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::common::{need_loop, LoopDev, Scratch};

/// The loop-device tests here one at a time (`losetup --find` races between them).
static LOOPS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// drivelab with its state in `state`: exit code and stderr + stdout; killed after 60 s.
fn dl(s: &Scratch, state: &Path, args: &[&str]) -> (i32, String) {
    let mut cmd = crate::common::bin();
    cmd.current_dir(&s.0).env("DRIVELAB_STATE_DIR", state).args(args);
    crate::common::run_watched(cmd, &s.0, &format!("{args:?}"))
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

/// A fresh state directory `name` under the scratch directory, private as drivelab makes it.
fn state(s: &Scratch, name: &str) -> PathBuf {
    let d = s.0.join(name);
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
    d
}

/// The number of results directories' points under `base`.
fn saved_points(base: &Path) -> usize {
    std::fs::read_dir(base)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| std::fs::read_dir(e.path().join("points")).ok())
                .map(|p| p.flatten().filter(|f| f.path().extension().is_some_and(|x| x == "json")).count())
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn a_hostile_record_of_written_devices_is_refused_as_input_never_waited_on_or_followed() {
    need_loop!();
    let _one = LOOPS.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("state-hostile");
    let lo = LoopDev::new(&s.0.join("d.img"), 8 << 20, None);
    let read = ["run", lo.dev.as_str(), "--rw", "read", "--time", "100ms", "-q"];

    // A FIFO: every run on a block device hung in the open before (read-only runs too).
    let fifo = state(&s, "fifo");
    mkfifo(&fifo.join("written-devices.json"));
    let (code, said) = dl(&s, &fifo, &read);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("written-devices.json is a FIFO, not a file: it is ignored"), "{said}");

    // A symlink to /dev/zero: read until memory ran out before.
    let zero = state(&s, "zero");
    std::os::unix::fs::symlink("/dev/zero", zero.join("written-devices.json")).unwrap();
    let (code, said) = dl(&s, &zero, &read);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("written-devices.json is a symlink: it is ignored"), "{said}");

    // 200 MB of garbage: read whole and silently taken as empty before.
    let big = state(&s, "big");
    let f = std::fs::File::create(big.join("written-devices.json")).unwrap();
    f.set_len(200 << 20).unwrap();
    let (code, said) = dl(&s, &big, &read);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("is 209715200 bytes, over the 4194304-byte limit"), "{said}");
    let garbage = state(&s, "garbage");
    std::fs::write(garbage.join("written-devices.json"), "{not json").unwrap();
    let (code, said) = dl(&s, &garbage, &read);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("is not drivelab's records"), "{said}");

    // The old lock file planted as a symlink: a write run made a root-owned file wherever it
    // pointed. Nothing is made there now, and the records are written (private) in its place.
    let locked = state(&s, "locked");
    let victim = s.0.join("victim");
    std::os::unix::fs::symlink(&victim, locked.join(".lock")).unwrap();
    let write = ["run", lo.dev.as_str(), "--rw", "write", "--time", "100ms", "--destroy", lo.dev.as_str(), "-q"];
    let (code, said) = dl(&s, &locked, &write);
    assert_eq!(code, 0, "{said}");
    assert!(std::fs::symlink_metadata(&victim).is_err(), "a file was made through the .lock symlink");
    let records = std::fs::metadata(locked.join("written-devices.json")).expect("the write is recorded");
    assert_eq!(records.mode() & 0o777, 0o600, "the records are private");
}

#[test]
fn a_state_directory_others_may_write_or_a_record_of_another_boot_is_not_trusted() {
    need_loop!();
    let _one = LOOPS.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("state-trust");
    let lo = LoopDev::new(&s.0.join("d.img"), 8 << 20, None);
    let plan = s.0.join("p.toml");
    std::fs::write(
        &plan,
        "[defaults]\ntime = \"100ms\"\nrw = \"randread\"\n\n[[step]]\nname = \"w\"\nrw = \"write\"\n",
    )
    .unwrap();
    let run_plan = |dir: &Path| {
        let results = s.0.join(format!("results-{}", dir.file_name().unwrap().to_string_lossy()));
        let args = ["plan", plan.to_str().unwrap(), lo.dev.as_str(), "--destroy", lo.dev.as_str(), "--results"];
        let mut args: Vec<&str> = args.to_vec();
        let r = results.to_string_lossy().into_owned();
        args.push(&r);
        dl(&s, dir, &args)
    };
    // A record claiming the device filled, with its real key.
    let meta = std::fs::metadata(&lo.dev).unwrap();
    let rdev = meta.rdev();
    let sys = format!("/sys/dev/block/{}:{}/diskseq", libc::major(rdev), libc::minor(rdev));
    let diskseq = std::fs::read_to_string(sys).ok().and_then(|t| t.trim().parse::<u64>().ok());
    let forged = |boot: Option<&str>| {
        serde_json::json!([{
            "key": {"rdev": rdev, "diskseq": diskseq, "size_bytes": 8u64 << 20},
            "path": lo.dev, "state": "filled", "by": "prep", "at_unix_ms": 1, "boot": boot,
        }])
        .to_string()
    };

    // Writable by everyone (umask 000 made it so before): neither read nor written.
    let open = state(&s, "open");
    std::fs::write(open.join("written-devices.json"), forged(None)).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (code, said) = run_plan(&open);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("may be written by others (mode 0777)"), "{said}");
    assert!(said.contains(&format!("prep: {} is filled first", lo.dev)), "the forged fill was believed:\n{said}");

    // A record of another boot (or of none): not this device, whatever its numbers.
    let other = state(&s, "other-boot");
    std::fs::write(other.join("written-devices.json"), forged(Some("00000000-0000-0000-0000-000000000000"))).unwrap();
    let (code, said) = run_plan(&other);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains(&format!("prep: {} is filled first", lo.dev)), "another boot's record was believed:\n{said}");
    // What that plan recorded is of this boot: the next plan knows the fill.
    let (code, said) = run_plan(&other);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("not filled again"), "{said}");
}

#[test]
fn a_record_that_cannot_be_saved_is_a_notice_and_the_measurement_is_kept() {
    need_loop!();
    let _one = LOOPS.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("state-unsaved");
    let lo = LoopDev::new(&s.0.join("d.img"), 8 << 20, None);
    // The records' name taken by a directory: the save fails (as on a full state filesystem).
    let st = state(&s, "st");
    std::fs::create_dir(st.join("written-devices.json")).unwrap();
    let results = s.0.join("results");
    let r = results.to_string_lossy().into_owned();
    let (code, said) =
        dl(&s, &st, &["run", &lo.dev, "--rw", "randwrite", "--time", "300ms", "--destroy", &lo.dev, "--results", &r]);
    assert_eq!(code, 0, "a finished measurement is not lost to its record:\n{said}");
    assert!(said.contains("IOPS"), "the summary is printed:\n{said}");
    assert!(
        said.contains(&format!("could not record in {}", st.join("written-devices.json").display())),
        "the notice names the file:\n{said}"
    );
    assert_eq!(saved_points(&results), 1, "the point is saved");
}
