//! fio's `offset_increment` and dedupe options through `drivelab run JOB.fio`: the clones of a
//! job write where fio's clones write (the blocks a job leaves on a zeroed file, compared with
//! the blocks fio leaves with the same job where fio is installed), a clone past the end is
//! refused as fio refuses it, `--cap-size` shrinks fio's cross-stripe example into the cap and
//! says how, and the files a dedupe job writes hold the share of duplicate 4 KiB blocks (and of
//! zeros) that fio's files hold with the same job.

use crate::common;

use std::collections::HashSet;
use std::path::Path;

use crate::common::{drivelab_in, results_dir, saved_points, stderr, Scratch};

fn fio_installed() -> bool {
    std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn fio_in(dir: &Path, file: &str) -> std::process::Output {
    std::process::Command::new("fio").args([file, "--output=/dev/null"]).current_dir(dir).output().unwrap()
}

/// The 16 KiB blocks of `path` that are not all zeros, by index.
fn written(path: &Path) -> Vec<u64> {
    let data = std::fs::read(path).unwrap();
    data.chunks(16384).enumerate().filter(|(_, b)| b.iter().any(|&x| x != 0)).map(|(i, _)| i as u64).collect()
}

const STRIPED: &str = "[global]\nfilename=t.dat\nrw=write\nbs=16k\nio_size=32k\nnumjobs=4\n[j]\n";

/// Run `job` (written to `dir/job.fio`) with drivelab over a zeroed 4 MiB `t.dat`: its exit.
fn drivelab_job(dir: &Path, job: &str) -> std::process::Output {
    std::fs::write(dir.join("t.dat"), vec![0u8; 4 << 20]).unwrap();
    std::fs::write(dir.join("job.fio"), job).unwrap();
    drivelab_in(dir, &["run", "job.fio", "--overwrite", "--results", "res", "-q"])
}

#[test]
fn each_clone_starts_one_increment_further_as_in_fio() {
    let s = Scratch::new("fio-stripe-inc");
    for (extra, starts) in [
        // 120k + k * 1m: fio does not round a byte increment.
        (
            "offset=120k\noffset_increment=1m\n",
            [120u64 << 10, (1 << 20) + (120 << 10), (2 << 20) + (120 << 10), (3 << 20) + (120 << 10)],
        ),
        // 25% of 4 MiB; fio rounds each start up to the block size: 128k + k * 1m.
        (
            "offset=120k\noffset_increment=25%\n",
            [128 << 10, (1 << 20) + (128 << 10), (2 << 20) + (128 << 10), (3 << 20) + (128 << 10)],
        ),
    ] {
        let job = STRIPED.replace("[j]\n", &format!("{extra}[j]\n"));
        let o = drivelab_job(&s.0, &job);
        assert!(o.status.success(), "{extra}: {}", stderr(&o));
        let _ = std::fs::remove_dir_all(s.0.join("res"));
        let mine = written(&s.0.join("t.dat"));
        // Two 16 KiB blocks from each clone's start (byte starts land mid-block: three blocks).
        let want: HashSet<u64> = starts.iter().flat_map(|&b| (b / 16384)..(b + 32768).div_ceil(16384)).collect();
        assert_eq!(mine.iter().copied().collect::<HashSet<_>>(), want, "{extra}");
        if !fio_installed() {
            common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
            continue;
        }
        std::fs::write(s.0.join("t.dat"), vec![0u8; 4 << 20]).unwrap();
        let f = fio_in(&s.0, "job.fio");
        assert!(f.status.success(), "fio: {}", String::from_utf8_lossy(&f.stderr));
        assert_eq!(written(&s.0.join("t.dat")), mine, "{extra}: fio's clones wrote other blocks");
    }
}

#[test]
fn a_clone_past_the_end_is_refused_as_fio_refuses_it() {
    let s = Scratch::new("fio-stripe-end");
    let job = STRIPED.replace("numjobs=4", "numjobs=6").replace("[j]\n", "offset=120k\noffset_increment=1m\n[j]\n");
    let o = drivelab_job(&s.0, &job);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("offset_increment") && err.contains("job 5") && err.contains("at most"), "{err}");
    assert!(!s.0.join("res").exists(), "nothing ran");
    if fio_installed() {
        let f = fio_in(&s.0, "job.fio");
        assert!(String::from_utf8_lossy(&f.stderr).contains("valid offset"), "fio refuses it too");
    }
}

#[test]
fn the_cap_shrinks_fios_cross_stripe_layout_into_the_capped_region_and_says_how() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio-src/fio-3.33/examples/cross-stripe-verify.fio");
    if !file.is_file() {
        common::skip("fio 3.33's source is not downloaded: run scripts/fio-src");
        return;
    }
    let s = Scratch::new("fio-stripe-cap");
    std::fs::write(s.0.join("t.dat"), vec![0u8; 4 << 20]).unwrap();
    let args = [
        "run",
        file.to_str().unwrap(),
        "t.dat",
        "--overwrite",
        "--cap-time",
        "1s",
        "--cap-size",
        "1m",
        "--results",
        "res",
        "-q",
    ];
    let o = drivelab_in(&s.0, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = results_dir(&s.0.join("res"));
    let run = std::fs::read_to_string(dir.join("run.json")).unwrap();
    assert!(run.contains("[write-verify]'s 30 jobs start every 32768 bytes from offset 122880"), "{run}");
    let p = &saved_points(&dir)[0];
    let spec = &p["point"]["spec"];
    assert_eq!((spec["offset_increment_bytes"].as_u64(), spec["span_bytes"].as_u64()), (Some(32768), Some(98304)));
    let r = &p["result"];
    assert!(r["errors"].as_array().unwrap().is_empty(), "{}", r["errors"]);
    // verify=crc32c with verify_backlog=1: each written unit is read back and checked before the
    // clone's next write, each clone's own: every unit written is checked, none wrong.
    let inline = &r["verify"]["inline"];
    assert!(inline["checked_units"].as_u64() >= Some(30 * 4), "{}", r["verify"]);
    assert_eq!(inline["checked_units"], r["verify"]["written_units"], "{}", r["verify"]);
    assert_eq!(inline["mismatches"].as_u64(), Some(0), "{}", r["verify"]);
    // Each of the 30 clones writes its 16 KiB at 120k + k * 32k (the next is 128k on: past its
    // slice, so it wraps); nothing lands outside [120k, 120k + 1m).
    let blocks: Vec<u64> = {
        let data = std::fs::read(s.0.join("t.dat")).unwrap();
        data.chunks(8192).enumerate().filter(|(_, b)| b.iter().any(|&x| x != 0)).map(|(i, _)| i as u64 * 8192).collect()
    };
    let want: Vec<u64> = (0..30u64).flat_map(|k| [(120 << 10) + k * 32768, (128 << 10) + k * 32768]).collect();
    assert_eq!(blocks, want);
}

/// Share of 4 KiB blocks of `data` that repeat an earlier one.
fn duplicate_share(data: &[u8]) -> f64 {
    let blocks: Vec<&[u8]> = data.chunks(4096).collect();
    let distinct: HashSet<&[u8]> = blocks.iter().copied().collect();
    1.0 - distinct.len() as f64 / blocks.len() as f64
}

fn zero_share(data: &[u8]) -> f64 {
    data.iter().filter(|&&b| b == 0).count() as f64 / data.len() as f64
}

/// fio's dedupe-global example, 8 MiB per file.
const DEDUPE: &str = "[global]\nioengine=libaio\niodepth=16\nsize=8m\ndedupe_mode=working_set\ndedupe_global=1\n\
                      dedupe_percentage=50\nblocksize=4k\nrw=write\nbuffer_compress_percentage=50\n\
                      dedupe_working_set_percentage=50\n[a]\nfilename=a.dat\n[b]\nfilename=b.dat\n";

/// (a's duplicate share, b's, both files together, the zero share of a).
fn dedupe_figures(dir: &Path) -> (f64, f64, f64, f64) {
    let a = std::fs::read(dir.join("a.dat")).unwrap();
    let b = std::fs::read(dir.join("b.dat")).unwrap();
    let both: Vec<u8> = a.iter().chain(&b).copied().collect();
    (duplicate_share(&a), duplicate_share(&b), duplicate_share(&both), zero_share(&a))
}

#[test]
fn dedupe_jobs_write_the_duplicate_share_fio_writes() {
    let s = Scratch::new("fio-stripe-dedupe");
    std::fs::write(s.0.join("d.fio"), DEDUPE).unwrap();
    let o = drivelab_in(&s.0, &["run", "d.fio", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b, both, zeros) = dedupe_figures(&s.0);
    // Each file alone: half its blocks repeat, some from the other file (fio's example: 34%);
    // the two together: half of all blocks are duplicates.
    for (what, got, want) in [("a", a, 0.34), ("b", b, 0.34), ("both", both, 0.50), ("zeros", zeros, 0.50)] {
        assert!((got - want).abs() < 0.04, "{what}: {got:.3}, expected about {want}");
    }
    if !fio_installed() {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
        return;
    }
    let theirs = s.0.join("fio");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("d.fio"), DEDUPE).unwrap();
    let f = fio_in(&theirs, "d.fio");
    assert!(f.status.success(), "fio: {}", String::from_utf8_lossy(&f.stderr));
    let (fa, fb, fboth, fzeros) = dedupe_figures(&theirs);
    // 2048 blocks a file: one share's sampling spread is about 0.01; 0.04 is four of them.
    for (what, mine, fios) in [("a", a, fa), ("b", b, fb), ("both", both, fboth), ("zeros", zeros, fzeros)] {
        assert!((mine - fios).abs() < 0.04, "{what}: drivelab {mine:.3}, fio {fios:.3}");
    }
}

#[test]
fn without_dedupe_no_block_repeats_and_dedupe_with_verify_is_refused() {
    let s = Scratch::new("fio-stripe-nodedupe");
    let plain = DEDUPE.replace("dedupe_percentage=50", "dedupe_percentage=0");
    std::fs::write(s.0.join("d.fio"), plain).unwrap();
    let o = drivelab_in(&s.0, &["run", "d.fio", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, _, both, _) = dedupe_figures(&s.0);
    assert_eq!((a, both), (0.0, 0.0));
    std::fs::write(s.0.join("v.fio"), DEDUPE.replace("[a]", "verify=crc32c\n[a]").replace("a.dat", "va.dat")).unwrap();
    let o = drivelab_in(&s.0, &["run", "v.fio", "--results", "res2", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("dedupe") && stderr(&o).contains("verify"), "{}", stderr(&o));
    assert!(!s.0.join("va.dat").exists(), "nothing created");
}

#[test]
fn run_json_keeps_the_fields() {
    let s = Scratch::new("fio-stripe-fields");
    std::fs::write(s.0.join("d.fio"), DEDUPE.replace("size=8m", "size=256k")).unwrap();
    let o = drivelab_in(&s.0, &["run", "d.fio", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = &saved_points(&results_dir(&s.0.join("res")))[0];
    let d = &p["point"]["spec"]["dedupe"];
    assert_eq!(
        (d["pct"].as_u64(), d["mode"].as_str(), d["global"].as_bool()),
        (Some(50), Some("working_set"), Some(true))
    );
}

#[test]
fn repeat_mode_writes_the_duplicate_share_fio_writes() {
    let job = "[a]\nfilename=a.dat\nsize=8m\nbs=4k\nrw=write\ndedupe_percentage=30\n";
    let s = Scratch::new("fio-stripe-repeat");
    std::fs::write(s.0.join("r.fio"), job).unwrap();
    let o = drivelab_in(&s.0, &["run", "r.fio", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mine = duplicate_share(&std::fs::read(s.0.join("a.dat")).unwrap());
    // fio's default mode, repeat: 30% of the writes repeat the next unique write's data.
    assert!((mine - 0.30).abs() < 0.04, "{mine:.3}");
    if !fio_installed() {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
        return;
    }
    let theirs = s.0.join("fio");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("r.fio"), job).unwrap();
    let f = fio_in(&theirs, "r.fio");
    assert!(f.status.success(), "fio: {}", String::from_utf8_lossy(&f.stderr));
    let fios = duplicate_share(&std::fs::read(theirs.join("a.dat")).unwrap());
    assert!((mine - fios).abs() < 0.04, "drivelab {mine:.3}, fio {fios:.3}");
}
