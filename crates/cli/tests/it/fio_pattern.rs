//! fio's `buffer_pattern` through `drivelab run JOB.fio`: the file a sequential write job leaves
//! holds the pattern repeated from each block's start — byte for byte what fio 3.33 leaves with
//! the same job, where fio is installed — and a pattern with `verify` is refused (exit 2).

use crate::common;

use crate::common::{drivelab_in, stderr, Scratch};

const PATTERN: &str = "0xdeadface\"ab\"-12";
/// The pattern's bytes by fio's rules: hex in written order, the string, -12 as 4 LE bytes.
const BYTES: [u8; 10] = [0xde, 0xad, 0xfa, 0xce, b'a', b'b', 0xf4, 0xff, 0xff, 0xff];

fn job(dir: &std::path::Path, name: &str, extra: &str) -> String {
    let path = dir.join(format!("{name}.fio"));
    let text = format!("[{name}]\nfilename={name}.dat\nrw=write\nbs=4k\nsize=64k\nbuffer_pattern={PATTERN}\n{extra}");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_write_job_leaves_the_pattern_fio_leaves() {
    let s = Scratch::new("fio-pattern");
    let file = job(&s.0, "pat", "");
    let o = drivelab_in(&s.0, &["run", &file, "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mine = std::fs::read(s.0.join("pat.dat")).unwrap();
    let block: Vec<u8> = BYTES.iter().copied().cycle().take(4096).collect();
    assert_eq!(mine.len(), 65536);
    for (i, b) in mine.chunks(4096).enumerate() {
        assert!(b == &block[..], "block {i} does not hold the pattern from its start: {:02x?}", &b[..16]);
    }
    let fio_ok = std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    if !fio_ok {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
        return;
    }
    let theirs_dir = s.0.join("fio");
    std::fs::create_dir(&theirs_dir).unwrap();
    let file = job(&theirs_dir, "pat", "");
    let o = std::process::Command::new("fio")
        .args([&file, "--output=/dev/null"])
        .current_dir(&theirs_dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "fio: {}", String::from_utf8_lossy(&o.stderr));
    let theirs = std::fs::read(theirs_dir.join("pat.dat")).unwrap();
    assert!(mine == theirs, "drivelab's file differs from fio's");
}

#[test]
fn a_pattern_with_verify_or_a_file_piece_is_refused_with_nothing_written() {
    let s = Scratch::new("fio-pattern-refused");
    for (extra, says) in [("verify=crc32c\n", "verify"), ("", "not supported")] {
        let file = if says == "verify" {
            job(&s.0, "v", extra)
        } else {
            let p = s.0.join("f.fio");
            std::fs::write(&p, "[f]\nfilename=f.dat\nrw=write\nsize=64k\nbuffer_pattern='some.file'\n").unwrap();
            p.to_string_lossy().into_owned()
        };
        let o = drivelab_in(&s.0, &["run", &file, "--results", "res", "-q"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("buffer_pattern") && stderr(&o).contains(says), "{}", stderr(&o));
        assert!(!s.0.join("v.dat").exists() && !s.0.join("f.dat").exists(), "nothing created");
    }
}
