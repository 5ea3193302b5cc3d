use super::in_use::*;
use super::signatures::*;
use super::*;

/// A zeroed head, as read from an empty device (shared with `builtin_tests`).
pub(super) fn zeros() -> Vec<u8> {
    vec![0u8; HEAD_BYTES as usize]
}

pub(super) fn put(buf: &mut [u8], off: usize, bytes: &[u8]) {
    buf[off..off + bytes.len()].copy_from_slice(bytes);
}

pub(super) fn families(buf: &[u8]) -> Vec<String> {
    scan_signatures(buf).into_iter().map(|s| s.family).collect()
}

#[test]
fn zeros_hold_nothing() {
    assert!(scan_signatures(&zeros()).is_empty());
}

#[test]
fn short_and_empty_buffers_do_not_panic() {
    assert!(scan_signatures(&[]).is_empty());
    assert!(scan_signatures(&[0xff; 100]).is_empty());
    let mut buf = vec![0u8; 1082];
    put(&mut buf, 1080, &[0x53, 0xEF]);
    assert_eq!(families(&buf), ["ext"]); // feature flags past the end read as zero
}

#[test]
fn ext_magic_and_version() {
    let mut buf = zeros();
    put(&mut buf, 1080, &[0x53, 0xEF]);
    assert_eq!(scan_signatures(&buf)[0].what, "an ext2 filesystem");
    put(&mut buf, 1024 + 0x5C, &4u32.to_le_bytes());
    assert_eq!(scan_signatures(&buf)[0].what, "an ext3 filesystem");
    put(&mut buf, 1024 + 0x60, &0x40u32.to_le_bytes()); // extents
    assert_eq!(scan_signatures(&buf), vec![sig("ext", "an ext4 filesystem")]);
}

#[test]
fn ext_magic_big_endian_is_not_ext() {
    let mut buf = zeros();
    put(&mut buf, 1080, &[0xEF, 0x53]);
    assert!(scan_signatures(&buf).is_empty());
}

#[test]
fn each_builtin_magic() {
    let md = 0xa92b_4efc_u32.to_le_bytes();
    let cases: [(usize, &[u8], &str); 9] = [
        (0, b"XFSB", "xfs"),
        (65600, b"_BHRfS_M", "btrfs"),
        (512, b"LABELONE", "lvm2_member"),
        (4096, &md, "linux_raid_member"),
        (0, &md, "linux_raid_member"),
        (4086, b"SWAPSPACE2", "swap"),
        (0, b"LUKS\xba\xbe", "crypto_luks"),
        (512, b"EFI PART", "pt"),
        (1080, &[0x53, 0xEF], "ext"),
    ];
    for (off, magic, family) in cases {
        let mut buf = zeros();
        put(&mut buf, off, magic);
        assert_eq!(families(&buf), [family], "magic {magic:?} at {off}");
    }
}

#[test]
fn btrfs_needs_the_whole_head() {
    let mut buf = zeros();
    put(&mut buf, 65600, b"_BHRfS_M");
    assert!(scan_signatures(&buf[..65604]).is_empty());
}

#[test]
fn mbr_needs_a_used_entry() {
    let mut buf = zeros();
    put(&mut buf, 510, &[0x55, 0xAA]);
    assert!(scan_signatures(&buf).is_empty());
    buf[450] = 0x83;
    let found = scan_signatures(&buf);
    assert_eq!(found.len(), 1);
    assert!(found[0].weak);
    assert_eq!(found[0].what, "a partition table (dos)");
}

#[test]
fn gpt_hides_its_protective_mbr() {
    let mut buf = zeros();
    put(&mut buf, 510, &[0x55, 0xAA]);
    buf[450] = 0xEE;
    put(&mut buf, 512, b"EFI PART");
    assert_eq!(scan_signatures(&buf), vec![sig("pt", "a partition table (gpt)")]);
}

#[test]
fn blkid_export_is_parsed() {
    let ext4 = "DEVNAME=/dev/loop3\nUUID=abc\nVERSION=1.0\nTYPE=ext4\nUSAGE=filesystem\n";
    assert_eq!(parse_blkid_export(ext4), vec![sig("ext", "an ext4 filesystem")]);
    let raid = "TYPE=linux_raid_member\nUSAGE=raid\n";
    assert_eq!(parse_blkid_export(raid)[0].what, "a linux_raid_member RAID signature");
    let lvm = "TYPE=LVM2_member\nUSAGE=raid\n";
    assert!(parse_blkid_export(lvm)[0].what.starts_with("an LVM2_member signature"));
    let gpt = "DEVNAME=/dev/loop3\nPTUUID=x\nPTTYPE=gpt\n";
    assert_eq!(parse_blkid_export(gpt), vec![sig("pt", "a partition table (gpt)")]);
    let luks = "TYPE=crypto_LUKS\nUSAGE=crypto\n";
    assert_eq!(parse_blkid_export(luks)[0].family, "crypto_luks");
    assert!(parse_blkid_export("DEVNAME=/dev/loop3\n").is_empty());
    assert!(parse_blkid_export("garbage without equals\n=\nTYPE=\n").is_empty());
}

#[test]
fn merge_reports_each_family_once() {
    let mut buf = zeros();
    put(&mut buf, 1080, &[0x53, 0xEF]);
    put(&mut buf, 1024 + 0x60, &0x40u32.to_le_bytes());
    let blkid = parse_blkid_export("TYPE=ext4\nUSAGE=filesystem\n");
    assert_eq!(merge(blkid.clone(), scan_signatures(&buf)), blkid);
    // blkid missing: our own finding stands.
    assert_eq!(merge(Vec::new(), scan_signatures(&buf)).len(), 1);
}

#[test]
fn weak_mbr_dropped_when_something_else_found() {
    let mut buf = zeros();
    put(&mut buf, 510, &[0x55, 0xAA]);
    buf[450] = 0x07;
    let blkid = parse_blkid_export("TYPE=ntfs\nUSAGE=filesystem\n");
    assert_eq!(merge(blkid.clone(), scan_signatures(&buf)), blkid);
    assert_eq!(merge(Vec::new(), scan_signatures(&buf)).len(), 1);
}

#[test]
fn swaps_lines() {
    let text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                /dev/vda2                               partition\t8388604\t\t0\t\t-2\n\
                /swap\\040file                          file\t\t1048572\t\t0\t\t-3\n";
    let swaps = parse_swaps(text);
    assert_eq!(swaps, [("/dev/vda2".to_string(), "partition".to_string()), ("/swap file".into(), "file".into())]);
}

#[test]
fn concern_message_shows_three_and_the_way_out() {
    let c: Vec<String> = (1..=5).map(|i| format!("concern {i}")).collect();
    let msg = concern_message(&c);
    assert_eq!(
        msg,
        "concern 1; concern 2; concern 3 (and 2 more); refusing to write (add --force as well to write anyway)"
    );
}

#[test]
fn not_named_explains_each_destroy() {
    let destroy = vec!["/nonexistent/drivelab-dev".to_string()];
    let msg = not_named("/dev/loop3", &destroy).to_string();
    assert!(
        msg.starts_with(
            "/dev/loop3 is a block device: writing destroys its data; to allow that, add --destroy /dev/loop3"
        ),
        "{msg}"
    );
    assert!(msg.contains("--destroy /nonexistent/drivelab-dev: cannot look at /nonexistent/drivelab-dev"), "{msg}");
    assert!(!not_named("/dev/loop3", &[]).to_string().contains('('));
    // Several devices, merged into one refusal naming them all.
    let both = not_named("/dev/loop3", &[]).merge_needs_destroy(not_named("/dev/loop4", &[])).ok().unwrap();
    assert_eq!(
        both.to_string(),
        "/dev/loop3 and /dev/loop4 are block devices: writing destroys their data; to allow that, add \
         --destroy /dev/loop3 --destroy /dev/loop4"
    );
}

#[test]
fn null_is_always_allowed() {
    let perm = Permission::default();
    assert!(check_write(&TargetInfo::null(), &perm).is_ok());
}

/// Holders (LVM, md, dm-crypt, bcache) are read from sysfs. This kernel has no device-mapper or
/// md to make a real one, so the check is run on a sysfs tree made here: the disk and one of
/// its partitions each held by something.
#[test]
fn holders_of_a_disk_or_its_partitions_are_concerns() {
    use super::device::{holder_concerns, partitions_in, Device};
    let root = std::env::temp_dir().join(format!("drivelab-fake-sysfs-{}", std::process::id()));
    let disk = root.join("block/sdz");
    let part = disk.join("sdz1");
    for d in [disk.join("holders/dm-3"), part.join("holders/md0")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(part.join("partition"), "1\n").unwrap();
    std::fs::write(part.join("dev"), "8:401\n").unwrap();
    let dev =
        Device { path: "/dev/sdz".into(), devno: (8, 400), sysdir: Some(disk.clone()), parts: partitions_in(&disk) };
    let concerns = holder_concerns(&dev);
    assert_eq!(
        concerns,
        vec![
            "/dev/sdz is in use by dm-3 (holders)".to_string(),
            "partition sdz1 of /dev/sdz is in use by md0 (holders)".to_string()
        ]
    );
    std::fs::remove_dir_all(disk.join("holders/dm-3")).unwrap();
    std::fs::remove_dir_all(part.join("holders/md0")).unwrap();
    assert!(holder_concerns(&dev).is_empty(), "empty holders directories are no concern");
    std::fs::remove_dir_all(&root).unwrap();
}
