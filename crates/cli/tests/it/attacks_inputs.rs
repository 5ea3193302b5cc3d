//! The input attacks of issue #24 (items 6, 8, 9 and 10), each made through the real binary:
//! a replay that ignored `--offset`/`--span`, trace numbers that wrapped past 2^64, tampered
//! generation maps and journals, and inputs that are not regular files (a FIFO, /dev/zero, a
//! symlink loop) or too large. Each test checks the victim's bytes and the exit code, and runs
//! the child under a hang detector (killed and failed after 60 s: not a timing assertion).

use crate::common;

use crate::common::{need_loop, LoopDev, Scratch};

/// drivelab's exit code and stderr; a run still going after 60 s is a hang: killed, and the
/// test fails naming it.
fn drivelab(s: &Scratch, args: &[&str]) -> (i32, String) {
    let mut cmd = crate::common::bin();
    cmd.current_dir(&s.0).args(args);
    crate::common::run_watched(cmd, &s.0, &format!("{args:?}"))
}

fn mkfifo(path: &str) {
    let c = std::ffi::CString::new(path).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {path}");
}

/// A fio v3 iolog of `n` 4 KiB writes at `first`, `first + 4096`, ...
fn writes(first: u64, n: u64) -> String {
    let mut t = String::from("fio version 3 iolog\n0 /x add\n");
    for k in 0..n {
        t += &format!("{} /x write {} 4096\n", k * 10, first + k * 4096);
    }
    t
}

/// Every byte of `data[range]` is `b`.
fn all(data: &[u8], range: std::ops::Range<usize>, b: u8) -> bool {
    data[range].iter().all(|&x| x == b)
}

/// The stamp drivelab writes at the start of each 4 KiB it writes: the offset it was written at.
fn stamp(data: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(data[at..at + 8].try_into().unwrap())
}

// ---- item 6: a replay honours --offset and --span ----

#[test]
fn a_replay_writes_inside_its_region_of_a_file_and_a_trace_that_does_not_fit_is_refused() {
    let s = Scratch::new("in-replay-region");
    let f = s.path("victim.dat");
    std::fs::write(&f, vec![0xAA; 4 << 20]).unwrap();
    let trace = s.path("w.iolog");
    std::fs::write(&trace, writes(0, 16)).unwrap();
    let (code, e) = drivelab(
        &s,
        &["run", &f, "--overwrite", "--replay", &trace, "--offset", "1m", "--span", "1m", "-q", "--results", "r"],
    );
    assert_eq!(code, 0, "{e}");
    let data = std::fs::read(&f).unwrap();
    assert!(all(&data, 0..1 << 20, 0xAA), "nothing before the region written");
    assert!(all(&data, (1 << 20) + 16 * 4096..4 << 20, 0xAA), "nothing after the trace's I/Os written");
    for k in 0..16 {
        let at = (1 << 20) + k * 4096;
        assert_eq!(stamp(&data, at), at as u64, "the trace's offset {} lands at {at}", k * 4096);
    }
    // An I/O that ends past the region: refused up front, naming it and the fix; nothing written.
    let far = s.path("far.iolog");
    std::fs::write(&far, writes(1 << 20, 1)).unwrap();
    let (code, e) = drivelab(
        &s,
        &["run", &f, "--overwrite", "--replay", &far, "--offset", "1m", "--span", "1m", "-q", "--results", "r"],
    );
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("I/O 1 of /x (a write of 4096 bytes at offset 1048576)"), "{e}");
    assert!(e.contains("--span") && e.contains("--offset"), "the fix: {e}");
    assert_eq!(std::fs::read(&f).unwrap(), data, "the refused replay wrote nothing");
    // Without --span the region is the rest of the target: a trace reaching past it is refused.
    let end = s.path("end.iolog");
    std::fs::write(&end, writes(3 << 20, 1)).unwrap();
    let (code, e) =
        drivelab(&s, &["run", &f, "--overwrite", "--replay", &end, "--offset", "1m", "-q", "--results", "r"]);
    assert_eq!(code, 2, "{e}");
    assert_eq!(std::fs::read(&f).unwrap(), data, "nothing written");
}

#[test]
fn a_replay_on_a_loop_device_leaves_everything_outside_its_region_untouched() {
    need_loop!();
    let s = Scratch::new("in-replay-loop");
    let lo = LoopDev::new(&s.0.join("lo.img"), 8 << 20, Some(0x55));
    let trace = s.path("w.iolog");
    std::fs::write(&trace, writes(0, 64)).unwrap();
    let args = ["run", &lo.dev, "--destroy", &lo.dev, "--replay", &trace, "--offset", "2m", "--span", "256k"];
    let (code, e) = drivelab(&s, &[&args[..], &["-q", "--results", "r"]].concat());
    assert_eq!(code, 0, "{e}");
    let img = std::fs::read(s.0.join("lo.img")).unwrap();
    assert!(all(&img, 0..2 << 20, 0x55), "nothing before the region");
    assert!(all(&img, (2 << 20) + (256 << 10)..8 << 20, 0x55), "nothing after the region");
    assert_eq!((stamp(&img, 2 << 20), stamp(&img, (2 << 20) + 63 * 4096)), (2 << 20, (2 << 20) + 63 * 4096));
    let far = s.path("far.iolog");
    std::fs::write(&far, writes(252 << 10, 2)).unwrap();
    let args = ["run", &lo.dev, "--destroy", &lo.dev, "--replay", &far, "--offset", "2m", "--span", "256k"];
    let (code, e) = drivelab(&s, &[&args[..], &["-q", "--results", "r"]].concat());
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("I/O 2 of /x"), "the first I/O that does not fit: {e}");
    assert_eq!(std::fs::read(s.0.join("lo.img")).unwrap(), img, "nothing written");
}

// ---- item 8: numbers past 2^64 are refused, never wrapped ----

#[test]
fn a_blkparse_sector_or_an_iolog_offset_past_2_64_is_refused_by_line_not_wrapped_to_byte_0() {
    let s = Scratch::new("in-wrap");
    let f = s.path("victim.dat");
    std::fs::write(&f, vec![0xAA; 1 << 20]).unwrap();
    let cases = [
        // 2^55 sectors × 512 = 2^64: wrapped to byte 0, and the write was replayed there.
        ("blk.txt", "  7,0  0  1  0.000000000  42  Q  WS 36028797018963968 + 8 [app]\n", "blk.txt:1: sector"),
        // 2^64 - 4096 + 8192 wraps: the "fits in the target" check passed.
        ("wrap.iolog", "fio version 3 iolog\n0 /x write 18446744073709547520 8192\n", "wrap.iolog:2:"),
        // A sector count of 2^32: 2 TiB in one I/O.
        ("count.txt", "  7,0  0  1  0.000000000  42  Q  WS 0 + 4294967296 [app]\n", "count.txt:1: a length"),
        // Times: 2^64 µs past what ns can hold; a blkparse time of 2^64 s.
        (
            "time.iolog",
            "fio version 3 iolog\n18446744073709552 /x write 0 4096\n",
            "time.iolog:2: 18446744073709552 µs",
        ),
        ("secs.txt", "  7,0  0  1  18446744073709551615.5  42  Q  WS 0 + 8 [app]\n", "secs.txt:1:"),
        ("neg.iolog", "fio version 3 iolog\n0 /x write -4096 4096\n", "neg.iolog:2: '-4096' is not an offset"),
        ("nan.iolog", "fio version 3 iolog\nNaN /x write 0 4096\n", "nan.iolog:2: 'NaN'"),
        ("utf.txt", "  7,0  0  1  0.12345678é  42  Q  WS 0 + 8 [app]\n", "utf.txt:1:"),
    ];
    for (name, text, says) in cases {
        let t = s.path(name);
        std::fs::write(&t, text).unwrap();
        let (code, e) = drivelab(&s, &["run", &f, "--overwrite", "--replay", &t, "-q", "--results", "r"]);
        assert_eq!(code, 2, "{name}: {e}");
        assert!(e.contains(says), "{name}: {e}");
        assert!(all(&std::fs::read(&f).unwrap(), 0..1 << 20, 0xAA), "{name}: nothing written");
    }
}

#[test]
fn job_file_and_region_numbers_past_2_64_are_refused() {
    let s = Scratch::new("in-wrap-job");
    let f = s.path("victim.dat");
    std::fs::write(&f, vec![0xAA; 1 << 20]).unwrap();
    for (opt, val) in [("offset", "18446744073709551615"), ("size", "18446744073709551615"), ("offset", "16e")] {
        let job = s.path("j.fio");
        std::fs::write(&job, format!("[j]\nfilename={f}\nrw=write\nbs=4k\n{opt}={val}\nruntime=1\n")).unwrap();
        let (code, e) = drivelab(&s, &["plan", &job, "--overwrite", "-q", "--results", "r"]);
        assert_eq!(code, 2, "{opt}={val}: {e}");
        assert!(all(&std::fs::read(&f).unwrap(), 0..1 << 20, 0xAA), "{opt}={val}: nothing written");
    }
    let (code, e) =
        drivelab(&s, &["run", &f, "--overwrite", "--rw", "write", "--offset", "512k", "--span", "16777215t", "-q"]);
    assert_eq!(code, 2, "{e}");
    // Two zones of 2^63 bytes: their sum wrapped to 0 (a panic here), under any region.
    let zones = "zoned_abs:50/8388608t:50/8388608t";
    let (code, e) = drivelab(&s, &["run", &f, "--overwrite", "--rw", "randwrite", "--distribution", zones, "-q"]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("shrink the zones"), "{e}");
    assert!(all(&std::fs::read(&f).unwrap(), 0..1 << 20, 0xAA), "nothing written");
}

// ---- item 10: inputs that are not regular files, or too large ----

#[test]
fn a_trace_or_read_iolog_that_is_a_fifo_a_device_or_too_large_is_refused_without_hanging() {
    let s = Scratch::new("in-trace-kinds");
    let f = s.path("victim.dat");
    std::fs::write(&f, vec![0xAA; 1 << 20]).unwrap();
    let fifo = s.path("fifo");
    mkfifo(&fifo);
    let big = s.path("big.iolog");
    std::fs::File::create(&big).unwrap().set_len((1 << 30) + 1).unwrap();
    let looped = s.path("loop.iolog");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    for (trace, says) in [
        ("/dev/zero", "is a character device"),
        (fifo.as_str(), "is a FIFO"),
        (s.0.to_str().unwrap(), "is a directory"),
        (big.as_str(), "over the 1 GiB limit for a trace"),
        (looped.as_str(), "symlink loop"),
    ] {
        let (code, e) = drivelab(&s, &["run", &f, "--overwrite", "--replay", trace, "-q", "--results", "r"]);
        assert_eq!(code, 2, "{trace}: {e}");
        assert!(e.contains(says) && e.contains(trace), "{trace}: {e}");
        let job = s.path("j.fio");
        std::fs::write(&job, format!("[j]\nfilename={f}\nread_iolog={trace}\n")).unwrap();
        let (code, e) = drivelab(&s, &["plan", &job, "--dry-run"]);
        assert_eq!(code, 2, "read_iolog={trace}, --dry-run: {e}");
        assert!(e.contains(says), "{trace}: {e}");
    }
    assert!(all(&std::fs::read(&f).unwrap(), 0..1 << 20, 0xAA), "nothing written");
}

#[test]
fn plan_and_job_files_and_results_json_that_are_not_regular_files_are_refused() {
    let s = Scratch::new("in-other-kinds");
    let fifo_toml = s.path("p.toml");
    mkfifo(&fifo_toml);
    let zero_fio = s.path("z.fio");
    std::os::unix::fs::symlink("/dev/zero", &zero_fio).unwrap();
    for p in [&fifo_toml, &zero_fio] {
        let (code, e) = drivelab(&s, &["plan", p, "--dry-run"]);
        assert_eq!(code, 2, "{p}: {e}");
        assert!(e.contains("regular file"), "{p}: {e}");
    }
    // A results directory: a point file that is a FIFO; run.json too large; run.json a loop.
    let (code, e) = drivelab(&s, &["run", "null", "--time", "100ms", "-q", "--results", "res"]);
    assert_eq!(code, 0, "{e}");
    let dir = std::fs::read_dir(s.0.join("res")).unwrap().next().unwrap().unwrap().path();
    let d = dir.to_str().unwrap();
    let point = std::fs::read_dir(dir.join("points")).unwrap().next().unwrap().unwrap().path();
    let saved = std::fs::read(&point).unwrap();
    std::fs::remove_file(&point).unwrap();
    mkfifo(point.to_str().unwrap());
    let (code, e) = drivelab(&s, &["report", d]);
    assert_eq!(code, 2, "a point file that is a FIFO: {e}");
    assert!(e.contains("FIFO"), "{e}");
    std::fs::remove_file(&point).unwrap();
    std::fs::write(&point, saved).unwrap();
    let run = dir.join("run.json");
    let manifest = std::fs::read(&run).unwrap();
    std::fs::OpenOptions::new().write(true).open(&run).unwrap().set_len(65 << 20).unwrap();
    let (code, e) = drivelab(&s, &["report", d]);
    assert_eq!(code, 2, "a huge run.json: {e}");
    assert!(e.contains("over the 64 MiB limit"), "{e}");
    std::fs::remove_file(&run).unwrap();
    std::os::unix::fs::symlink(&run, &run).unwrap();
    let (code, e) = drivelab(&s, &["verify", d]);
    assert_eq!(code, 2, "run.json a symlink loop: {e}");
    std::fs::remove_file(&run).unwrap();
    std::fs::write(&run, manifest).unwrap();
    let (code, e) = drivelab(&s, &["report", d]);
    assert_eq!(code, 0, "restored: {e}");
}

// ---- item 9: tampered generation maps and journals ----

/// A verifying write run on a 4 MiB file: the file, the results directory and its map file.
fn verified(s: &Scratch) -> (String, String, std::path::PathBuf) {
    let f = s.path("t.dat");
    let journal = s.path("journal");
    let args = ["run", &f, "--size", "4m", "--rw", "write", "--io-size", "1m", "--verify", "--journal", &journal];
    let (code, e) = drivelab(s, &[&args[..], &["-q", "--results", "res"]].concat());
    assert_eq!(code, 0, "{e}");
    let dir = std::fs::read_dir(s.0.join("res")).unwrap().next().unwrap().unwrap().path();
    let map = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "genmap"))
        .expect("a saved map");
    (f, dir.to_string_lossy().into_owned(), map)
}

#[test]
fn verify_refuses_a_tampered_map_without_aborting_hanging_or_reading_past_the_target() {
    let s = Scratch::new("in-genmap");
    let (f, dir, map) = verified(&s);
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 0, "untampered: {e}");
    let good = std::fs::read(&map).unwrap();
    let put = |bytes: &[u8]| {
        let _ = std::fs::remove_file(&map);
        std::fs::write(&map, bytes).unwrap();
    };
    let word = |at: usize, v: u64| {
        let mut b = good.clone();
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        b
    };
    // A unit count of 2^36: "memory allocation of 68719476736 bytes failed", exit 134.
    put(&word(24, 1 << 36));
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("declares 68719476736 units"), "{e}");
    // A map past the target's end (start moved to its last unit): refused, not 15,360 I/O errors.
    put(&word(16, 4 << 20));
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("past the end of the target (4194304 bytes)"), "{e}");
    // Cut short.
    put(&good[..good.len() - 1]);
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 2, "{e}");
    // A FIFO (hung forever), /dev/zero (grew without bound).
    let _ = std::fs::remove_file(&map);
    mkfifo(map.to_str().unwrap());
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("FIFO"), "{e}");
    let _ = std::fs::remove_file(&map);
    std::os::unix::fs::symlink("/dev/zero", &map).unwrap();
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("character device"), "{e}");
    put(&good);
    // The target shrank under its map: refused too.
    std::fs::OpenOptions::new().write(true).open(&f).unwrap().set_len(2 << 20).unwrap();
    let (code, e) = drivelab(&s, &["verify", &dir]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("past the end of the target"), "{e}");
}

#[test]
fn verify_journal_refuses_a_fifo_a_device_and_huge_declared_sizes() {
    let s = Scratch::new("in-journal");
    let (f, _, _) = verified(&s);
    let journal = s.path("journal");
    let (code, e) = drivelab(&s, &["verify", "--journal", &journal]);
    assert_eq!(code, 0, "untampered: {e}");
    let good = std::fs::read(&journal).unwrap();
    let fifo = s.path("jfifo");
    mkfifo(&fifo);
    for (j, says) in [(fifo.as_str(), "FIFO"), ("/dev/zero", "character device")] {
        let (code, e) = drivelab(&s, &["verify", "--journal", j, &f]);
        assert_eq!(code, 2, "{j}: {e}");
        assert!(e.contains(says), "{j}: {e}");
    }
    // The first frame (at byte 16) is the segment: its payload's unit count, at payload byte
    // 16 + 4 (targets) + 4 (id) + 4 (index) + 8 (start), set to 2^40 with the frame's CRCs made right again.
    let frame = 16;
    let payload = frame + 24;
    let mut b = good.clone();
    let at = payload + 16 + 4 + 4 + 4 + 8;
    b[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let len = u64::from_le_bytes(b[frame + 8..frame + 16].try_into().unwrap()) as usize;
    let crc = crc32c::crc32c(&b[payload..payload + len]);
    b[frame + 16..frame + 20].copy_from_slice(&crc.to_le_bytes());
    let hcrc = crc32c::crc32c(&b[frame..frame + 20]);
    b[frame + 20..frame + 24].copy_from_slice(&hcrc.to_le_bytes());
    let huge = s.path("huge-units");
    // A unit of 0 bytes (a division by zero in the replay).
    let mut z = good.clone();
    z[payload + 4..payload + 8].copy_from_slice(&0u32.to_le_bytes());
    let crc = crc32c::crc32c(&z[payload..payload + len]);
    z[frame + 16..frame + 20].copy_from_slice(&crc.to_le_bytes());
    let hcrc = crc32c::crc32c(&z[frame..frame + 20]);
    z[frame + 20..frame + 24].copy_from_slice(&hcrc.to_le_bytes());
    let zero = s.path("zero-unit");
    std::fs::write(&zero, &z).unwrap();
    let (code, e) = drivelab(&s, &["verify", "--journal", &zero]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("a unit of 0 bytes"), "{e}");
    std::fs::write(&huge, &b).unwrap();
    let (code, e) = drivelab(&s, &["verify", "--journal", &huge]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("past the end of the target"), "{e}");
    // A frame declaring 2^40 bytes of payload: a torn tail, nothing allocated for it.
    let mut b = good.clone();
    b[frame + 8..frame + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let hcrc = crc32c::crc32c(&b[frame..frame + 20]);
    b[frame + 20..frame + 24].copy_from_slice(&hcrc.to_le_bytes());
    let long = s.path("huge-frame");
    std::fs::write(&long, &b).unwrap();
    let (code, e) = drivelab(&s, &["verify", "--journal", &long]);
    assert!(code == 0 || code == 2, "no abort: {code} {e}");
    assert!(!e.contains("memory allocation"), "{e}");
}
