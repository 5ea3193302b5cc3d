//! The NVMe passthrough encoding, byte by byte against the kernel's layout of
//! `struct nvme_uring_cmd` (include/uapi/linux/nvme_ioctl.h), and the targets it refuses.

use super::*;

/// The kernel's offsets, written out here (not taken from the struct): opcode 0, flags 1,
/// rsvd1 2, nsid 4, cdw2 8, cdw3 12, metadata 16, addr 24, metadata_len 32, data_len 36,
/// cdw10 40, cdw11 44, cdw12 48, cdw13 52, cdw14 56, cdw15 60, timeout_ms 64, rsvd2 68; 72 bytes.
fn put(b: &mut [u8; 80], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

#[test]
fn a_read_is_laid_out_as_the_kernel_reads_it() {
    // 8 KiB at byte 0x1234_5678_9000 of namespace 3, 4 KiB LBAs: slba 0x1_2345_6789, nlb-1 = 1.
    let addr = 0x7f00_dead_b000u64;
    let cmd = NvmeUringCmd::io(None, &CmdOptions::default(), 3, 12, 0x1234_5678_9000, 8192, addr).unwrap();
    let mut want = [0u8; 80];
    want[0] = 0x02; // nvme_cmd_read
    put(&mut want, 4, &3u32.to_le_bytes());
    put(&mut want, 24, &addr.to_le_bytes());
    put(&mut want, 36, &8192u32.to_le_bytes());
    put(&mut want, 40, &0x2345_6789u32.to_le_bytes());
    put(&mut want, 44, &0x1u32.to_le_bytes());
    put(&mut want, 48, &1u32.to_le_bytes());
    assert_eq!(cmd.to_cmd80(), want);
}

#[test]
fn every_field_lands_at_its_kernel_offset() {
    let cmd = NvmeUringCmd {
        opcode: 0x11,
        flags: 0x22,
        rsvd1: 0x3344,
        nsid: 0x5566_7788,
        cdw2: 0x0102_0304,
        cdw3: 0x0506_0708,
        metadata: 0x1112_1314_1516_1718,
        addr: 0x2122_2324_2526_2728,
        metadata_len: 0x3132_3334,
        data_len: 0x4142_4344,
        cdw10: 0x5152_5354,
        cdw11: 0x6162_6364,
        cdw12: 0x7172_7374,
        cdw13: 0x8182_8384,
        cdw14: 0x9192_9394,
        cdw15: 0xa1a2_a3a4,
        timeout_ms: 0xb1b2_b3b4,
        rsvd2: 0xc1c2_c3c4,
    };
    let mut want = [0u8; 80];
    want[0] = 0x11;
    want[1] = 0x22;
    put(&mut want, 2, &0x3344u16.to_le_bytes());
    put(&mut want, 4, &0x5566_7788u32.to_le_bytes());
    put(&mut want, 8, &0x0102_0304u32.to_le_bytes());
    put(&mut want, 12, &0x0506_0708u32.to_le_bytes());
    put(&mut want, 16, &0x1112_1314_1516_1718u64.to_le_bytes());
    put(&mut want, 24, &0x2122_2324_2526_2728u64.to_le_bytes());
    put(&mut want, 32, &0x3132_3334u32.to_le_bytes());
    put(&mut want, 36, &0x4142_4344u32.to_le_bytes());
    put(&mut want, 40, &0x5152_5354u32.to_le_bytes());
    put(&mut want, 44, &0x6162_6364u32.to_le_bytes());
    put(&mut want, 48, &0x7172_7374u32.to_le_bytes());
    put(&mut want, 52, &0x8182_8384u32.to_le_bytes());
    put(&mut want, 56, &0x9192_9394u32.to_le_bytes());
    put(&mut want, 60, &0xa1a2_a3a4u32.to_le_bytes());
    put(&mut want, 64, &0xb1b2_b3b4u32.to_le_bytes());
    put(&mut want, 68, &0xc1c2_c3c4u32.to_le_bytes());
    assert_eq!(cmd.to_cmd80(), want, "bytes 72..80 stay zero");
}

#[test]
fn a_write_of_one_lba_says_zero_based_nlb_and_its_opcode() {
    let d = CmdOptions::default();
    let cmd = NvmeUringCmd::io(Some(WriteOp::Write), &d, 1, 9, 512 * 7, 512, 0x1000).unwrap();
    assert_eq!((cmd.opcode, cmd.nsid, cmd.cdw10, cmd.cdw11, cmd.cdw12, cmd.data_len), (0x01, 1, 7, 0, 0, 512));
}

#[test]
fn partial_lbas_are_not_encoded() {
    let d = CmdOptions::default();
    assert_eq!(NvmeUringCmd::io(None, &d, 1, 12, 512, 4096, 0), None, "offset inside an LBA");
    assert_eq!(NvmeUringCmd::io(None, &d, 1, 12, 0, 512, 0), None, "length inside an LBA");
    let mut r = [[0u8; 16]];
    put_range(&mut r[0], 512, 4096);
    assert_eq!(NvmeUringCmd::trim(1, 12, &mut r), None);
}

#[test]
fn write_commands_that_move_no_data_carry_no_buffer_and_their_flags() {
    // NVMe 2.0 NVM command set: Write Uncorrectable 04h, Write Zeroes 08h (DEAC: CDW12 bit
    // 25), Verify 0Ch; FUA is CDW12 bit 30 of Read, Write, Write Zeroes and Verify.
    let o = CmdOptions { deac: true, readfua: true, writefua: true, ..Default::default() };
    let at = |w| NvmeUringCmd::io(w, &o, 2, 12, 1 << 20, 16384, 0xabc000).unwrap();
    let z = at(Some(WriteOp::Zeroes));
    assert_eq!((z.opcode, z.addr, z.data_len, z.cdw10, z.cdw12), (0x08, 0, 0, 256, 3 | 1 << 25 | 1 << 30));
    let u = at(Some(WriteOp::Uncor));
    assert_eq!((u.opcode, u.addr, u.data_len, u.cdw12), (0x04, 0, 0, 3 | 1 << 30));
    let v = at(Some(WriteOp::Verify));
    assert_eq!((v.opcode, v.addr, v.data_len, v.cdw12), (0x0c, 0, 0, 3 | 1 << 30));
    let w = at(Some(WriteOp::Write));
    assert_eq!((w.opcode, w.addr, w.data_len, w.cdw12), (0x01, 0xabc000, 16384, 3 | 1 << 30));
    let r = at(None);
    assert_eq!((r.opcode, r.addr, r.data_len, r.cdw12), (0x02, 0xabc000, 16384, 3 | 1 << 30));
    // With shares, as fio: FUA on the Writes only; DEAC stays Write Zeroes'.
    let mix = CmdOptions { write_mode: [50, 0, 50, 0], ..o };
    let z = NvmeUringCmd::io(Some(WriteOp::Zeroes), &mix, 2, 12, 0, 4096, 1).unwrap();
    assert_eq!(z.cdw12, 1 << 25);
    assert_eq!(NvmeUringCmd::io(Some(WriteOp::Write), &mix, 2, 12, 0, 4096, 1).unwrap().cdw12, 1 << 30);
    let plain = NvmeUringCmd::io(Some(WriteOp::Zeroes), &CmdOptions::default(), 2, 12, 0, 4096, 1).unwrap();
    assert_eq!(plain.cdw12, 0);
}

#[test]
fn a_trim_is_deallocate_ranges_the_command_points_at() {
    // Dataset Management 09h: CDW10 = ranges - 1, CDW11 bit 2 = Attribute Deallocate; each
    // 16-byte range holds context attributes, the LBA count (1-based) and the starting LBA.
    let mut range = [[0xffu8; 16]];
    put_range(&mut range[0], 512 * 1000, 8192);
    let cmd = NvmeUringCmd::trim(5, 9, &mut range).unwrap();
    assert_eq!((cmd.opcode, cmd.nsid, cmd.cdw10, cmd.cdw11, cmd.data_len), (0x09, 5, 0, 1 << 2, 16));
    assert_eq!(cmd.addr, range.as_ptr() as u64);
    let mut want = [0u8; 16];
    want[4..8].copy_from_slice(&16u32.to_le_bytes());
    want[8..].copy_from_slice(&1000u64.to_le_bytes());
    assert_eq!(range[0], want);
    // fio's num_range: 256 ranges in one command, NR = 255, 4 KiB of ranges.
    let mut ranges = [[0u8; 16]; 256];
    for (i, r) in ranges.iter_mut().enumerate() {
        put_range(r, (i as u64) << 20, 4096 * (i as u64 + 1));
    }
    let cmd = NvmeUringCmd::trim(1, 12, &mut ranges).unwrap();
    assert_eq!((cmd.cdw10, cmd.data_len), (255, 4096));
    assert_eq!(ranges[255][4..8], 256u32.to_le_bytes());
    assert_eq!(ranges[255][8..], (255u64 << 8).to_le_bytes());
    // Refused: none, more than 256, an empty range, one not whole LBAs, an LBA count over u32.
    assert_eq!(NvmeUringCmd::trim(1, 12, &mut []), None);
    assert_eq!(NvmeUringCmd::trim(1, 12, &mut [[0u8; 16]; 257]), None);
    for (off, len) in [(0, 0), (512, 4096), (0, 4097), (0, 1u64 << 45)] {
        let mut r = [[0u8; 16]];
        put_range(&mut r[0], off, len);
        assert_eq!(NvmeUringCmd::trim(1, 12, &mut r), None, "{off} {len}");
    }
}

#[test]
fn write_mode_reads_as_fio_writes_it_and_its_shares_are_exact() {
    let p = CmdOptions::parse_write_mode;
    assert_eq!(p("zeroes"), Ok([0, 0, 100, 0]));
    assert_eq!(p("write/60:zeroes/30:uncor/10"), Ok([60, 10, 30, 0]));
    for (bad, says) in [
        ("erase", "not a write mode"),
        ("zone_append", "zoned namespace"),
        ("write/60:zeroes/30", "add up to 90%"),
        ("write/60:zeroes/50", "more than 100%"),
        ("write/50:write/50", "twice"),
        ("write:zeroes", "not a write mode"),
        ("write:zeroes/100", "no '/'"),
        ("write/x:zeroes/50", "whole percentage"),
    ] {
        let e = p(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    let o = CmdOptions { write_mode: [60, 10, 30, 0], ..Default::default() };
    assert_eq!(o.write_mode_text(), "write/60:uncor/10:zeroes/30");
    assert_eq!(CmdOptions { write_mode: [0, 0, 0, 100], ..o }.write_mode_text(), "verify");
    let mut n = [0; 4];
    for i in 0..1000 {
        n[WriteOp::ALL.iter().position(|w| *w == o.write_op(i)).unwrap()] += 1;
    }
    assert_eq!(n, [600, 100, 300, 0]);
    // Spread, not in runs: no 10 writes in a row are of one kind.
    let kinds: Vec<WriteOp> = (0..100).map(|i| o.write_op(i)).collect();
    assert!(kinds.windows(10).all(|w| w.iter().any(|k| *k != w[0])));
}

#[test]
fn ioctl_numbers_are_the_kernels() {
    // _IOWR('N', 0x80, 72 bytes): dir 3 << 30, size 72 << 16, 'N' << 8, nr.
    assert_eq!(NVME_URING_CMD_IO, 0xC048_4E80);
    assert_eq!(NVME_IOCTL_IO_CMD, 0xC048_4E43);
    assert_eq!(NVME_IOCTL_ID, 0x4E40);
}

#[test]
fn generic_character_devices_are_named_ng_x_n_y() {
    assert_eq!(block_name_of("ng0n1").as_deref(), Some("nvme0n1"));
    assert_eq!(block_name_of("ng12n3").as_deref(), Some("nvme12n3"));
    for bad in ["nvme0n1", "ng0", "ngxn1", "ng0n", "ng0n1p1", "sda"] {
        assert_eq!(block_name_of(bad), None, "{bad}");
    }
}

#[test]
fn files_block_devices_and_other_character_devices_are_refused_with_why() {
    let dir = std::env::temp_dir().join(format!("drivelab-uring-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("data");
    std::fs::write(&file, b"x").unwrap();
    let e = check_target_in(&dir, file.to_str().unwrap()).unwrap_err();
    assert!(matches!(e, NvmeTargetError::RegularFile { .. }), "{e}");
    let e = e.to_string();
    assert!(e.contains("is a regular file, not an NVMe generic character device (/dev/ngXnY)"), "{e}");
    let e = check_target_in(&dir, "/dev/null").unwrap_err().to_string();
    assert!(e.contains("a character device not named ngXnY"), "{e}");
    // A character device named ngXnY whose namespace sysfs does not know.
    let fake = dir.join("ng9n9");
    let made = std::ffi::CString::new(fake.to_str().unwrap()).unwrap();
    // SAFETY: mknod with a valid C string; /dev/null's numbers (1, 3).
    if unsafe { libc::mknod(made.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) } == 0 {
        let e = check_target_in(&dir, fake.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("without a namespace") && e.contains("nvme9n9/queue/logical_block_size"), "{e}");
        // With the sysfs file it describes a namespace.
        std::fs::create_dir_all(dir.join("block/nvme9n9/queue")).unwrap();
        std::fs::write(dir.join("block/nvme9n9/queue/logical_block_size"), "4096\n").unwrap();
        assert_eq!(check_target_in(&dir, fake.to_str().unwrap()).ok(), Some(("nvme9n9".to_string(), 4096)));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_engine_is_named_uring_cmd_and_takes_fios_name() {
    use crate::spec::EngineKind;
    assert_eq!(EngineKind::from_name("io_uring_cmd"), Some(EngineKind::UringCmd));
    assert_eq!(EngineKind::from_name("uring_cmd"), Some(EngineKind::UringCmd));
    assert_eq!(EngineKind::UringCmd.name(), "uring_cmd");
    assert_eq!(serde_json::to_string(&EngineKind::UringCmd).unwrap(), "\"uring_cmd\"");
}
