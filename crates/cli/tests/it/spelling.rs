//! A refusal names what the user wrote (issue #26): a region too large for its file is refused
//! naming the flag (`--span`) on the command line, the key (`span`) in a TOML plan, and the
//! option (`size=`) in a fio job file (whose `size` is drivelab's span) — never a flag the user
//! did not write. Each exits 2 before anything is measured.

use crate::common::{drivelab, stderr, Scratch};

/// A 512 KiB file (existing, so its size stands) and a region of 10 MiB asked of it.
fn small_file(s: &Scratch) -> String {
    let f = s.path("small.dat");
    std::fs::write(&f, vec![7u8; 512 << 10]).unwrap();
    f
}

fn refused(args: &[&str]) -> String {
    let o = drivelab(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("reaches past the end"), "{args:?}: {e}");
    e
}

#[test]
fn a_flag_is_named_as_a_flag() {
    let s = Scratch::new("spelling-flag");
    let f = small_file(&s);
    let e = refused(&["run", &f, "--rw", "read", "--span", "10m", "--time", "100ms"]);
    assert!(e.contains("--span 10485760: with --offset 0 reaches past the end") && e.contains("shrink --span"), "{e}");
}

#[test]
fn a_plan_key_is_named_as_the_plan_has_it() {
    let s = Scratch::new("spelling-plan");
    let f = small_file(&s);
    let plan = s.path("p.toml");
    std::fs::write(
        &plan,
        format!("targets = [\"{f}\"]\n[defaults]\nrw = \"read\"\nspan = \"10m\"\ntime = \"100ms\"\n"),
    )
    .unwrap();
    let e = refused(&["plan", &plan]);
    assert!(e.contains("span 10485760: with offset 0 reaches past the end") && e.contains("shrink span"), "{e}");
    assert!(!e.contains("--span") && !e.contains("--offset"), "no flag the plan's author did not write: {e}");
}

#[test]
fn a_fio_job_option_is_named_as_the_job_file_has_it() {
    let s = Scratch::new("spelling-fio");
    let f = small_file(&s);
    let job = s.path("j.fio");
    std::fs::write(&job, format!("[j]\nfilename={f}\nrw=read\nsize=10m\nruntime=1\n")).unwrap();
    for command in ["run", "plan"] {
        let e = refused(&[command, &job]);
        assert!(e.contains("size=10485760: with offset 0 reaches past the end") && e.contains("shrink size"), "{e}");
        assert!(!e.contains("span") && !e.contains("--"), "{command}: only the job's own options: {e}");
    }
    // The command line's --size stays a flag beside a job file.
    let o = drivelab(&["run", &job, "--size", "4KB"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--size '4KB'"), "{}", stderr(&o));
}
