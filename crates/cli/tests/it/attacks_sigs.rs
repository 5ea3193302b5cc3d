//! Issue #24 item 5 through the binary: filesystems the signature scan did not read — ext4 at
//! 16 MiB and at sector 34 (after a GPT), a ZFS pool whose only label left is L1 — on loop
//! devices and regular files in /dev/shm. Each attack is tried with blkid (which probes only the
//! start, so finds none of them) and without (blkid hidden in a mount namespace: the built-in scan alone);
//! each must be refused with exit code 2, name what it found and where, leave every byte as it
//! was, and be reported by `info`.

use crate::common;

use std::os::unix::fs::FileExt;
use std::process::Output;

use crate::common::*;

const MIB: u64 = 1 << 20;

/// drivelab with `args`, with blkid or (`blkid` false) the built-in scan alone.
fn drivelab_with(blkid: bool, args: &[&str]) -> Output {
    if blkid {
        return crate::common::bin().current_dir(scratch_cwd()).args(args).output().unwrap();
    }
    drivelab_without_blkid(scratch_cwd(), args)
        .expect("a mount namespace to hide blkid in (the loop tests run as root)")
}

/// Attacks `target` (a device named with `--destroy`, or a file with `--overwrite`) with and
/// without blkid: refused, naming `what`, nothing written; `info` says the same.
fn refused_untouched(target: &str, device: bool, what: &str) {
    let before = digest(target);
    for blkid in [true, false] {
        let mut args = vec!["run", target, "--rw", "write", "--bs", "64k", "--time", "200ms", "-q"];
        if device {
            args.extend(["--destroy", target]);
        } else {
            args.push("--overwrite");
        }
        let o = drivelab_with(blkid, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "blkid {blkid}: {err}");
        assert!(err.contains(what), "blkid {blkid}: wanted {what:?} in: {err}");
        assert_eq!(digest(target), before, "blkid {blkid}: {target} was written");

        let o = drivelab_with(blkid, &["info", target]);
        // info wraps its lines to the terminal's width: compare words.
        let text = format!("{}{}", stdout(&o), stderr(&o)).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(what), "info, blkid {blkid}: wanted {what:?} in: {text}");
    }
}

#[test]
fn ext4_at_16_mib_and_at_sector_34_of_a_loop_device_is_refused() {
    need_loop!();
    if !tool("mkfs.ext4") {
        return skip("mkfs.ext4 is not installed");
    }
    let s = Scratch::new("sigs-ext4");
    for (offset, words) in [(16 * MIB, "16 MiB"), (34 * 512, "17408 bytes")] {
        let lo = LoopDev::new(&s.0.join("d.img"), 100 * MIB, None);
        must(&format!("mkfs.ext4 -q -F -E offset={offset} {} 80M", lo.dev));
        refused_untouched(&lo.dev, true, &format!("holds an ext4 filesystem at offset {words}"));
    }
}

#[test]
fn ext4_at_16_mib_of_a_regular_file_is_refused_even_with_overwrite() {
    if !tool("mkfs.ext4") {
        return skip("mkfs.ext4 is not installed");
    }
    let s = Scratch::new("sigs-ext4-file");
    let f = s.path("image");
    std::fs::File::create(&f).unwrap().set_len(100 * MIB).unwrap();
    must(&format!("mkfs.ext4 -q -F -E offset={} {f} 80M", 16 * MIB));
    refused_untouched(&f, false, "holds an ext4 filesystem at offset 16 MiB");
}

// ---- ZFS, by hand: no zfs tools are needed ---------------------------------------------------

/// One XDR nvpair (big-endian): encoded and decoded size, name length, name padded to 4 bytes,
/// then the value (type, element count, data).
fn nvpair(name: &str, value: &[u8]) -> Vec<u8> {
    let mut padded = name.as_bytes().to_vec();
    padded.resize(name.len().div_ceil(4) * 4, 0);
    let size = (12 + padded.len() + value.len()) as u32;
    [&size.to_be_bytes()[..], &size.to_be_bytes(), &(name.len() as u32).to_be_bytes(), &padded, value].concat()
}

fn nv_u64(name: &str, v: u64) -> Vec<u8> {
    nvpair(name, &[&8u32.to_be_bytes()[..], &1u32.to_be_bytes(), &v.to_be_bytes()].concat())
}

/// The configuration nvlist of an active pool's vdev label, as libblkid reads it: XDR, then a
/// guid, the pool state and the last transaction group.
fn zfs_nvlist() -> Vec<u8> {
    let header = [1u8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    [&header[..], &nv_u64("version", 5000), &nv_u64("state", 0), &nv_u64("txg", 4), &nv_u64("guid", 77), &[0; 8]]
        .concat()
}

/// An uberblock's magic and pool version, little-endian.
fn uberblock() -> Vec<u8> {
    [0x00ba_b10c_u64.to_le_bytes(), 5000u64.to_le_bytes(), 42u64.to_le_bytes()].concat()
}

/// Writes only ZFS's second label (L1, at 256 KiB) into `path`: its nvlist, or an uberblock in
/// its ring.
fn write_l1(path: &str, nvlist: bool) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let l1 = 256 * 1024;
    if nvlist {
        f.write_all_at(&zfs_nvlist(), l1 + 16 * 1024).unwrap();
    } else {
        f.write_all_at(&uberblock(), l1 + 128 * 1024 + 5 * 1024).unwrap();
    }
    f.sync_all().unwrap();
}

#[test]
fn a_zfs_pool_with_only_its_l1_label_left_is_refused_on_a_device_and_a_file() {
    let s = Scratch::new("sigs-zfs");
    for nvlist in [true, false] {
        let f = s.path("pool-file");
        std::fs::File::create(&f).unwrap().set_len(100 * MIB).unwrap();
        write_l1(&f, nvlist);
        refused_untouched(&f, false, "holds a zfs_member signature");
        std::fs::remove_file(&f).unwrap();
    }
    if let Some(why) = loop_unavailable() {
        return skip_part("on a loop device", &why);
    }
    for nvlist in [true, false] {
        let lo = LoopDev::new(&s.0.join("pool.img"), 100 * MIB, None);
        write_l1(&lo.dev, nvlist);
        refused_untouched(&lo.dev, true, "holds a zfs_member signature");
    }
}

/// A partition at an offset no tool would pick, listed only by the backup GPT at the end (the
/// primary wiped), on a loop device without `-P` (the kernel lists no partitions): `info` names
/// the filesystem in it, not only the table.
#[test]
fn a_filesystem_in_a_partition_only_the_backup_gpt_lists_is_named() {
    need_loop!();
    if !tool("mkfs.ext4") || !tool("sfdisk") {
        return skip("mkfs.ext4 or sfdisk is not installed");
    }
    let s = Scratch::new("sigs-gpt");
    let lo = LoopDev::new(&s.0.join("d.img"), 200 * MIB, None);
    let start = 100_001u64; // sectors: 48.8 MiB, on no MiB
    must(&format!("echo 'label: gpt\nstart={start}, size=100000' | sfdisk -q {} >/dev/null", lo.dev));
    must(&format!("mkfs.ext4 -q -F -E offset={} {} 40M", start * 512, lo.dev));
    must(&format!("dd if=/dev/zero of={} bs=512 count=34 conv=notrunc status=none", lo.dev));
    refused_untouched(&lo.dev, true, &format!("holds an ext4 filesystem at offset {} bytes", start * 512));
}
