//! fio's shapes of a walk over the region (`rw=WORD:N`, `rw_sequencer`, `zonemode=strided`)
//! through `drivelab plan JOB.fio --no-prep`: each job writes a zeroed 256 KiB loop device, and the blocks
//! it wrote are the ones the option's definition gives — and, where fio is installed, the ones
//! fio 3.33 writes with the same job on another such device. (The exact offset sequences, read
//! back from fio's `write_iolog`, are the engine's unit tests in `gen/walk.rs`.)

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::{drivelab_in, need_loop, stderr, LoopDev, Scratch};

const KIB: usize = 1024;
const DEVICE: u64 = 256 * 1024;

/// The 4 KiB blocks of `path` holding anything but zeros.
fn written(path: &Path) -> BTreeSet<usize> {
    let data = std::fs::read(path).unwrap();
    data.chunks(4 * KIB).enumerate().filter(|(_, b)| b.iter().any(|&x| x != 0)).map(|(i, _)| i).collect()
}

/// The job file `body` (its options) writing `dev`.
fn job_file(dir: &Path, name: &str, dev: &str, body: &str) -> String {
    let path = dir.join(format!("{name}.fio"));
    let text = format!("[{name}]\nfilename={dev}\nioengine=psync\ndirect=1\nbs=4k\nsize=256k\n{body}\n");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// The blocks `tool` ("drivelab" or "fio") writes running `body` on a fresh zeroed device.
fn blocks_written(s: &Scratch, tool: &str, name: &str, body: &str) -> BTreeSet<usize> {
    let backing = s.0.join(format!("{tool}-{name}.img"));
    let dev = LoopDev::new(&backing, DEVICE, None);
    let file = job_file(&s.0, &format!("{tool}-{name}"), &dev.dev, body);
    let o = if tool == "fio" {
        std::process::Command::new("fio").args([&file, "--output=/dev/null"]).current_dir(&s.0).output().unwrap()
    } else {
        // `plan` with --no-prep: a written device is otherwise filled whole before the job.
        let res = format!("res-{name}");
        drivelab_in(&s.0, &["plan", &file, "--results", &res, "-q", "--no-prep", "--destroy", &dev.dev])
    };
    assert!(o.status.success(), "{tool} {name}: {}", stderr(&o));
    written(&backing)
}

fn fio_installed() -> bool {
    std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn holes_backwards_and_strided_zones_write_the_blocks_fio_writes() {
    need_loop!();
    let s = Scratch::new("fio-walk");
    let blocks = 64; // 256 KiB of 4 KiB blocks; size=256k moves 64 of them.
    let cases: Vec<(&str, &str, BTreeSet<usize>)> = vec![
        // 4 KiB written, 12 KiB skipped: every 4th block.
        ("holes", "rw=write:12k", (0..blocks).step_by(4).collect()),
        // The first block, then backwards from 12 KiB before the end (block 61), 8 KiB a step:
        // the odd ones below 62.
        ("backwards", "rw=write:-12k", std::iter::once(0).chain((1..blocks - 2).step_by(2)).collect()),
        // 16 KiB in each 64 KiB zone, 32 KiB skipped after it: zones at 0, 96 and 192 KiB.
        (
            "zones",
            "rw=write\nzonemode=strided\nzonesize=16k\nzonerange=64k\nzoneskip=32k",
            [0, 24, 48].iter().flat_map(|&z| z..z + 4).collect(),
        ),
    ];
    let fio = fio_installed();
    if !fio {
        common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)");
    }
    for (name, body, expect) in cases {
        let mine = blocks_written(&s, "drivelab", name, body);
        assert_eq!(mine, expect, "{name}: drivelab wrote blocks {mine:?}");
        if fio {
            let theirs = blocks_written(&s, "fio", name, body);
            assert_eq!(mine, theirs, "{name}: fio wrote blocks {theirs:?}");
        }
    }
}

#[test]
fn random_every_n_seeks_once_per_n_ios_and_identical_repeats_the_offset() {
    need_loop!();
    let s = Scratch::new("fio-walk-rand");
    // 16 random 4 KiB writes, a seek every 4: about 4 runs of contiguous blocks (fewer where
    // they touch, one more where a run reaches the end and seeks), where plain randwrite
    // scatters about 11 (16 draws of 64 blocks).
    let runs = |set: &BTreeSet<usize>| {
        let v: Vec<usize> = set.iter().copied().collect();
        v.windows(2).filter(|w| w[1] != w[0] + 1).count() + 1
    };
    let seq = blocks_written(&s, "drivelab", "every4", "rw=randwrite:4\nnorandommap\nio_size=64k");
    let plain = blocks_written(&s, "drivelab", "plain", "rw=randwrite\nnorandommap\nio_size=64k");
    assert!(runs(&seq) <= 6 && seq.len() >= 8, "a seek every 4 writes: {seq:?}");
    assert!(runs(&plain) > runs(&seq) + 2, "plain randwrite scatters: {plain:?} vs {seq:?}");
    let same = blocks_written(&s, "drivelab", "identical", "rw=randwrite:16\nrw_sequencer=identical\nio_size=256k");
    assert!(same.len() <= 4 && !same.is_empty(), "16 writes per offset, 4 offsets: {same:?}");
}
