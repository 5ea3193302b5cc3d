//! The built-in signature scan (`signatures/builtin`) on crafted buffers: every magic at the
//! offset it lives at is found with blkid's family, and look-alikes are not.
//!
//! One test per signature kind of the built-in scan, each building its own image.

use super::signatures::*;
use super::tests::{families, put, zeros};

/// The families found in a head of zeros with `bytes` at `off`.
fn found_with(off: usize, bytes: &[u8]) -> Vec<String> {
    let mut buf = zeros();
    put(&mut buf, off, bytes);
    families(&buf)
}

// ---- magics alone ------------------------------------------------------------------------

#[test]
fn each_magic_at_each_of_its_offsets() {
    let le = |v: u32| v.to_le_bytes().to_vec();
    let bcache = b"\xc6\x85\x73\xf6\x4e\x1a\x45\xca\x82\x65\xf5\x7f\x48\xba\x6d\x81";
    let bcachefs = b"\xc6\x85\x73\xf6\x66\xce\x90\xa9\xd9\x6a\x60\xcf\x80\x3d\xf7\xef";
    let mut cases: Vec<(usize, Vec<u8>, &str)> = vec![
        (1024, le(0xF2F5_2010), "f2fs"),
        (1024, le(0xE0F5_E1E2), "erofs"),
        (32, b"NXSB".to_vec(), "apfs"),
        (32768, b"JFS1".to_vec(), "jfs"),
        (65588, b"ReIsEr2Fs".to_vec(), "reiserfs"),
        (65588, b"ReIsEr3Fs".to_vec(), "reiserfs"),
        (65536, b"ReIsEr4".to_vec(), "reiser4"),
        (4120, bcache.to_vec(), "bcache"),
        (4120, bcachefs.to_vec(), "bcachefs"),
        (0, b"bluestore block device".to_vec(), "ceph_bluestore"),
        (4640, le(0x5a78_16f0), "hpt37x_raid_member"),
        (4640, le(0x5a78_16fd), "hpt37x_raid_member"),
        (0, b"LUKS\xba\xbe".to_vec(), "crypto_luks"),
    ];
    for off in [8212, 8244, 65588] {
        cases.push((off, b"ReIsErFs".to_vec(), "reiserfs"));
    }
    for off in [1024, 2048, 4096, 8192] {
        cases.push((off, b"OCFSV2".to_vec(), "ocfs2"));
    }
    for page in [4096, 8192, 16384, 32768, 65536] {
        cases.push((page - 10, b"SWAPSPACE2".to_vec(), "swap"));
        cases.push((page - 10, b"SWAP-SPACE".to_vec(), "swap"));
    }
    for (off, magic, family) in cases {
        assert_eq!(found_with(off, &magic), [family], "magic {magic:?} at {off}");
        assert!(found_with(off + 1, &magic).is_empty(), "magic {magic:?} at {} is nothing", off + 1);
    }
}

#[test]
fn names_are_blkids() {
    let mut swap = zeros();
    put(&mut swap, 4086, b"SWAPSPACE2");
    assert_eq!(scan_signatures(&swap), vec![sig("swap", "a swap signature")]);
    let mut f2fs = zeros();
    put(&mut f2fs, 1024, &0xF2F5_2010_u32.to_le_bytes());
    assert_eq!(scan_signatures(&f2fs), vec![sig("f2fs", "a f2fs filesystem")]);
    assert_eq!(scan_signatures(&f2fs), parse_blkid_export("TYPE=f2fs\nUSAGE=filesystem\n"));
}

#[test]
fn a_magic_at_two_of_its_offsets_is_one_finding() {
    let mut buf = zeros();
    put(&mut buf, 4086, b"SWAPSPACE2");
    put(&mut buf, 65526, b"SWAPSPACE2");
    assert_eq!(families(&buf), ["swap"]);
}

#[test]
fn ext_needs_a_block_size_the_kernel_accepts() {
    let mut buf = zeros();
    put(&mut buf, 1080, &[0x53, 0xEF]);
    put(&mut buf, 1024 + 24, &6u32.to_le_bytes()); // 64 KiB blocks
    assert_eq!(families(&buf), ["ext"]);
    put(&mut buf, 1024 + 24, &7u32.to_le_bytes());
    assert!(families(&buf).is_empty());
}

// ---- boot sectors: FAT, NTFS, exFAT, BitLocker and the dos MBR ----------------------------

/// A FAT boot sector as mkfs.fat writes it: FAT12/16 (`fat32` false) or FAT32.
fn fat_boot_sector(fat32: bool, fs_type: &[u8]) -> Vec<u8> {
    let mut buf = zeros();
    put(&mut buf, 0, &[0xEB, 0x3C, 0x90]);
    put(&mut buf, 3, b"mkfs.fat");
    put(&mut buf, 11, &512u16.to_le_bytes()); // bytes per sector
    buf[13] = 4; // sectors per cluster
    put(&mut buf, 14, &(if fat32 { 32u16 } else { 4 }).to_le_bytes()); // reserved sectors
    buf[16] = 2; // FATs
    buf[21] = 0xF8; // media
    if fat32 {
        put(&mut buf, 36, &1009u32.to_le_bytes()); // sectors per FAT (32-bit)
        buf[66] = 0x29;
        put(&mut buf, 82, fs_type);
    } else {
        put(&mut buf, 17, &512u16.to_le_bytes()); // root directory entries
        put(&mut buf, 22, &64u16.to_le_bytes()); // sectors per FAT
        buf[38] = 0x29;
        put(&mut buf, 54, fs_type);
    }
    // Boot code may put anything where an MBR has its partition entries.
    put(&mut buf, 446, &[0x0E, 0x1F, 0xBE, 0x5B, 0x7C, 0xAC, 0x22, 0xC0]);
    put(&mut buf, 510, &[0x55, 0xAA]);
    buf
}

#[test]
fn fat12_16_and_32_boot_sectors_are_vfat() {
    for fs_type in [&b"FAT12   "[..], b"FAT16   ", b"FAT     ", b"MSDOS   "] {
        let found = scan_signatures(&fat_boot_sector(false, fs_type));
        assert_eq!(found, vec![sig("vfat", "a vfat filesystem")], "{fs_type:?}");
    }
    for fs_type in [&b"FAT32   "[..], b"MSWIN4.1"] {
        assert_eq!(families(&fat_boot_sector(true, fs_type)), ["vfat"], "{fs_type:?}");
    }
}

#[test]
fn a_floppy_without_a_fat_type_is_vfat_by_its_jump_and_parameters() {
    let buf = fat_boot_sector(false, b"        ");
    assert_eq!(families(&buf), ["vfat"]);
    let mut no_jump = buf.clone();
    no_jump[0] = 0x33;
    assert!(families(&no_jump).is_empty());
}

#[test]
fn a_fat_type_without_sane_parameters_is_not_vfat() {
    let good = fat_boot_sector(false, b"FAT16   ");
    let breakages: [(usize, &[u8]); 6] = [
        (11, &[0x00, 0x01]), // 256-byte sectors
        (11, &[0x00, 0x20]), // 8 KiB sectors
        (13, &[3]),          // 3 sectors per cluster
        (14, &[0, 0]),       // no reserved sectors
        (16, &[0]),          // no FAT
        (21, &[0x12]),       // no such media byte
    ];
    for (off, bytes) in breakages {
        let mut buf = good.clone();
        put(&mut buf, off, bytes);
        assert!(!families(&buf).contains(&"vfat".to_string()), "{bytes:?} at {off}");
    }
    let mut typed_only = zeros();
    put(&mut typed_only, 54, b"FAT16   ");
    put(&mut typed_only, 510, &[0x55, 0xAA]);
    assert!(families(&typed_only).is_empty());
}

#[test]
fn os2s_pseudo_boot_sector_on_jfs_is_jfs_not_vfat() {
    let mut buf = fat_boot_sector(false, b"JFS     ");
    put(&mut buf, 32768, b"JFS1");
    assert_eq!(families(&buf), ["jfs"]);
}

/// A dos MBR: `code` at the start (boot code, or zeros as sfdisk leaves it), a disk signature
/// and one Linux partition from sector 2048.
fn dos_mbr(code: &[u8]) -> Vec<u8> {
    let mut buf = zeros();
    put(&mut buf, 0, code);
    put(&mut buf, 440, &0x1234_5678_u32.to_le_bytes());
    buf[446] = 0x80;
    buf[446 + 4] = 0x83;
    put(&mut buf, 446 + 8, &2048u32.to_le_bytes());
    put(&mut buf, 446 + 12, &32768u32.to_le_bytes());
    put(&mut buf, 510, &[0x55, 0xAA]);
    buf
}

#[test]
fn a_dos_partition_table_is_not_vfat() {
    let grub = [0xEB, 0x63, 0x90]; // GRUB's boot.img jumps over a (zeroed) parameter block
    let windows = [0x33, 0xC0, 0x8E, 0xD0, 0xBC, 0x00, 0x7C, 0x8E, 0xC0, 0x8E, 0xD8, 0xBE, 0x00, 0x7C];
    for code in [&[][..], &grub, &windows] {
        let mut mbr = dos_mbr(code);
        let found = scan_signatures(&mbr);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].family.as_str(), found[0].weak), ("pt", true));
        mbr[446 + 4] = 0x0C; // a FAT32 partition is still a partition
        assert_eq!(families(&mbr), ["pt"]);
    }
}

#[test]
fn a_bad_boot_flag_is_no_dos_partition_table() {
    let mut mbr = dos_mbr(&[]);
    mbr[446 + 16] = 0x12;
    assert!(scan_signatures(&mbr).is_empty());
}

#[test]
fn ntfs_exfat_and_bitlocker_boot_sectors() {
    let cases: [(&[u8], &str, &str); 3] = [
        (b"NTFS    ", "ntfs", "a ntfs filesystem"),
        (b"EXFAT   ", "exfat", "an exfat filesystem"),
        (b"-FVE-FS-", "bitlocker", "a BitLocker encrypted volume"),
    ];
    for (name, family, what) in cases {
        // Boot code and 0x55AA, as each of them has: not a dos partition table as well.
        let mut buf = fat_boot_sector(false, b"FAT16   ");
        put(&mut buf, 3, name);
        assert_eq!(scan_signatures(&buf), vec![sig(family, what)], "{family}");
    }
}

// ---- superblocks checked beyond their magic ----------------------------------------------

#[test]
fn hfs_plus_hfsx_and_hfs() {
    let volume_header = |magic: &[u8], version: u16, block: u32| {
        let mut buf = zeros();
        put(&mut buf, 1024, magic);
        put(&mut buf, 1026, &version.to_be_bytes());
        put(&mut buf, 1024 + 40, &block.to_be_bytes());
        families(&buf)
    };
    assert_eq!(volume_header(b"H+", 4, 4096), ["hfsplus"]);
    assert_eq!(volume_header(b"HX", 5, 512), ["hfsplus"]);
    assert!(volume_header(b"H+", 5, 4096).is_empty());
    assert!(volume_header(b"H+", 4, 0).is_empty());
    assert!(volume_header(b"H+", 4, 1536).is_empty());

    let mdb = |alloc: u32, embedded: &[u8]| {
        let mut buf = zeros();
        put(&mut buf, 1024, b"BD");
        put(&mut buf, 1024 + 20, &alloc.to_be_bytes());
        put(&mut buf, 1024 + 124, embedded);
        families(&buf)
    };
    assert_eq!(mdb(1024, b"\0\0"), ["hfs"]);
    assert_eq!(mdb(4096, b"H+"), ["hfsplus"]);
    assert!(mdb(0, b"\0\0").is_empty());
    assert!(mdb(1000, b"\0\0").is_empty());
}

#[test]
fn iso9660_and_udf() {
    let mut iso = zeros();
    put(&mut iso, 32768, b"\x01CD001\x01");
    put(&mut iso, 32768 + 2048, b"\xffCD001\x01");
    assert_eq!(scan_signatures(&iso), vec![sig("iso9660", "an iso9660 filesystem")]);

    let mut bridge = iso.clone();
    put(&mut bridge, 32768 + 4096, b"\x00BEA01\x01");
    put(&mut bridge, 32768 + 6144, b"\x00NSR03\x01");
    put(&mut bridge, 32768 + 8192, b"\x00TEA01\x01");
    assert_eq!(families(&bridge), ["udf"]);

    let mut udf = zeros();
    put(&mut udf, 32768, b"\x00BEA01\x01");
    put(&mut udf, 32768 + 2048, b"\x00NSR02\x01");
    assert_eq!(families(&udf), ["udf"]);

    // 4 KiB blocks: each descriptor takes a block.
    let mut udf4k = zeros();
    put(&mut udf4k, 32768, b"\x00BEA01\x01");
    put(&mut udf4k, 32768 + 4096, b"\x00NSR02\x01");
    assert_eq!(families(&udf4k), ["udf"]);

    // The sequence ends at an unknown descriptor: an NSR after it is not UDF's.
    let mut broken = zeros();
    put(&mut broken, 32768, b"\x00BEA01\x01");
    put(&mut broken, 32768 + 2048, b"\x00XXXXX\x01");
    put(&mut broken, 32768 + 6144, b"\x00NSR02\x01");
    assert!(families(&broken).is_empty());
}

#[test]
fn squashfs_and_its_old_versions() {
    let squash = |magic: &[u8], major: u16| {
        let mut buf = zeros();
        put(&mut buf, 0, magic);
        put(&mut buf, 28, &major.to_le_bytes());
        families(&buf)
    };
    assert_eq!(squash(b"hsqs", 4), ["squashfs"]);
    assert_eq!(squash(b"hsqs", 3), ["squashfs3"]);
    assert_eq!(squash(b"sqsh", 0x0300), ["squashfs3"]);
}

/// CRC-32 as the kernel's crc32_le computes it (no inversions), written out independently of
/// the scan's own.
fn crc32_le(seed: u32, data: &[u8]) -> u32 {
    let table: Vec<u32> =
        (0..256u32).map(|n| (0..8).fold(n, |c, _| if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 })).collect();
    data.iter().fold(seed, |c, &b| table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8))
}

#[test]
fn crc32_le_is_crc32_without_inversions() {
    assert_eq!(!crc32_le(!0, b"123456789"), 0xCBF4_3926); // zlib's check value
}

/// A NILFS2 superblock with a correct checksum.
fn nilfs2_superblock() -> Vec<u8> {
    let mut sb = vec![0u8; 1024];
    put(&mut sb, 0, &2u32.to_le_bytes()); // revision
    put(&mut sb, 6, &0x3434u16.to_le_bytes());
    put(&mut sb, 8, &1024u16.to_le_bytes()); // s_bytes
    put(&mut sb, 12, &0x1234_5678_u32.to_le_bytes()); // CRC seed
    put(&mut sb, 168, b"lab volume");
    let sum = crc32_le(0x1234_5678, &sb);
    put(&mut sb, 16, &sum.to_le_bytes());
    sb
}

#[test]
fn nilfs2_needs_its_checksum() {
    let mut buf = zeros();
    put(&mut buf, 1024, &nilfs2_superblock());
    assert_eq!(families(&buf), ["nilfs2"]);
    buf[1024 + 170] ^= 1;
    assert!(families(&buf).is_empty());
    let mut magic_only = zeros();
    put(&mut magic_only, 1024 + 6, &0x3434u16.to_le_bytes());
    assert!(families(&magic_only).is_empty());
}

#[test]
fn gfs_and_gfs2_by_their_formats() {
    let gfs = |format: u32, multihost: u32| {
        let mut buf = zeros();
        put(&mut buf, 65536, &0x0116_1970_u32.to_be_bytes());
        put(&mut buf, 65536 + 24, &format.to_be_bytes());
        put(&mut buf, 65536 + 28, &multihost.to_be_bytes());
        families(&buf)
    };
    assert_eq!(gfs(1309, 1401), ["gfs"]);
    assert_eq!(gfs(1801, 1900), ["gfs2"]);
    assert!(gfs(0, 0).is_empty());
}

// ---- structures at the end ---------------------------------------------------------------

/// A target of `size` zero bytes but for `placed` (`(offset, bytes)`), gathered as
/// `read_regions` gathers a target: what is read depends on what the target holds.
fn target_with(size: u64, placed: &[(u64, &[u8])]) -> Regions {
    Regions::gather(size, |off, len| {
        let mut buf = vec![0u8; len as usize];
        for &(at, bytes) in placed {
            for (i, &b) in bytes.iter().enumerate() {
                if let Some(slot) = (at + i as u64).checked_sub(off).and_then(|j| buf.get_mut(j as usize)) {
                    *slot = b;
                }
            }
        }
        Ok(buf)
    })
    .unwrap()
}

/// A target of `size` bytes of zeros.
fn zero_target(size: u64) -> Regions {
    target_with(size, &[])
}

/// A size no larger unit divides: 100 MiB, 3 sectors and 5 pages.
const ODD_SIZE: u64 = (100 << 20) + 3 * 512 + 5 * 4096;

/// What the scan finds in a zeroed target of `size` bytes with `bytes` at `abs`.
fn found_at(size: u64, abs: u64, bytes: &[u8]) -> Vec<Signature> {
    scan(&target_with(size, &[(abs, bytes)]))
}

/// `(family, what)` of each finding.
fn named(found: &[Signature]) -> Vec<(String, String)> {
    found.iter().map(|s| (s.family.clone(), s.what.clone())).collect()
}

#[test]
fn zeroed_targets_hold_nothing() {
    for size in [0, 1, 511, 4096, 65536, 1 << 20, ODD_SIZE] {
        assert!(scan(&zero_target(size)).is_empty(), "{size}");
    }
}

#[test]
fn md_0_90_and_1_0_at_the_end() {
    let magic = 0xa92b_4efc_u32;
    for size in [64 << 20, ODD_SIZE] {
        let v090 = (size & !(64 * 1024 - 1)) - 64 * 1024;
        let v10 = ((size / 512 - 16) & !7) * 512;
        let le = [magic.to_le_bytes(), 0u32.to_le_bytes()].concat();
        let be = [magic.to_be_bytes(), 0u32.to_be_bytes()].concat();
        let what090 = "a linux_raid_member RAID signature (md 0.90, at the end)";
        for sb in [&le, &be] {
            let found = found_at(size, v090, sb);
            assert_eq!(named(&found), [("linux_raid_member".into(), what090.into())], "{size}");
            assert!(found_at(size, v090 + 512, sb).is_empty());
        }
        let sb10 = [magic.to_le_bytes(), 1u32.to_le_bytes()].concat();
        let found = found_at(size, v10, &sb10);
        let what10 = "a linux_raid_member RAID signature (md 1.0, at the end)";
        assert_eq!(named(&found), [("linux_raid_member".into(), what10.into())], "{size}");
        assert!(found_at(size, v10 - 4096, &sb10).is_empty());
        assert!(found_at(size, v10, &magic.to_le_bytes()).is_empty(), "major version 0 is no 1.0 superblock");
    }
}

#[test]
fn backup_gpt_at_the_end() {
    for sector in [512, 4096] {
        let found = found_at(ODD_SIZE, ODD_SIZE / sector * sector - sector, b"EFI PART");
        assert_eq!(named(&found), [("pt".into(), "a partition table (gpt, its backup header at the end)".into())]);
    }
}

/// The sum-to-zero checksums of firmware RAID metadata, filled in by the tests as the formats
/// define them.
fn sum_u16(md: &[u8]) -> u16 {
    md.chunks(2).fold(0u16, |s, w| s.wrapping_add(u16::from_le_bytes([w[0], w[1]])))
}

fn sum_u32(md: &[u8]) -> u32 {
    md.chunks(4).fold(0u32, |s, w| s.wrapping_add(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
}

fn nvidia_metadata() -> Vec<u8> {
    let mut md = vec![0u8; 120];
    put(&mut md, 0, b"NVIDIA  ");
    put(&mut md, 8, &30u32.to_le_bytes());
    put(&mut md, 16, &100u16.to_le_bytes()); // version
    let checksum = 0u32.wrapping_sub(sum_u32(&md));
    put(&mut md, 12, &checksum.to_le_bytes());
    md
}

fn silicon_metadata() -> Vec<u8> {
    let mut md = vec![0u8; 512];
    put(&mut md, 0x60, &0x2F00_0000_u32.to_le_bytes());
    put(&mut md, 0x104, &[0x95, 0x06, 0x95, 0x10, 0x01, 0x00, 0x02, 0x00]); // ids, version 2.1
    md[0x116] = 1;
    let checksum = 0u16.wrapping_sub(sum_u16(&md[..0x13E]));
    put(&mut md, 0x13E, &checksum.to_le_bytes());
    md
}

fn via_metadata() -> Vec<u8> {
    let mut md = vec![0u8; 512];
    put(&mut md, 0, &[0x55, 0xAA, 2, 0x03, 0x00, 0x01]);
    md[50] = md[..50].iter().fold(0u8, |s, &b| s.wrapping_add(b));
    md
}

fn jmicron_metadata() -> Vec<u8> {
    let mut md = vec![0u8; 512];
    put(&mut md, 0, b"JM");
    put(&mut md, 2, &0x0001_u16.to_le_bytes());
    put(&mut md, 0x20, b"lab array");
    md[0x30] = 1; // RAID 1
    let checksum = 0u16.wrapping_sub(sum_u16(&md[..128]));
    put(&mut md, 4, &checksum.to_le_bytes());
    md
}

fn adaptec_metadata() -> Vec<u8> {
    let mut md = vec![0u8; 512];
    put(&mut md, 0, &0x37FC_4D1E_u32.to_be_bytes());
    put(&mut md, 256, b"DPTM");
    md
}

#[test]
fn firmware_raid_at_the_end() {
    let sectors_back = |n: u64, sector: u64| (ODD_SIZE / sector - n) * sector;
    let cases: Vec<(u64, Vec<u8>, &str, &str)> = vec![
        (sectors_back(2, 512), b"Intel Raid ISM Cfg Sig. 1.3.00".to_vec(), "isw_raid_member", "Intel IMSM"),
        (sectors_back(2, 4096), b"Intel Raid ISM Cfg Sig. 1.3.00".to_vec(), "isw_raid_member", "Intel IMSM"),
        (sectors_back(1, 512), 0xDE11_DE11_u32.to_be_bytes().to_vec(), "ddf_raid_member", "SNIA DDF"),
        (sectors_back(257, 512), 0xDE11_DE11_u32.to_be_bytes().to_vec(), "ddf_raid_member", "SNIA DDF"),
        (sectors_back(1, 512), b"$XIDE$".to_vec(), "lsi_mega_raid_member", "LSI MegaRAID"),
        (sectors_back(2, 512), nvidia_metadata(), "nvidia_raid_member", "NVIDIA MediaShield"),
        (sectors_back(63, 512), b"Promise Technology, Inc.".to_vec(), "promise_fasttrack_raid_member", ""),
        (sectors_back(951, 512), b"Promise Technology, Inc.".to_vec(), "promise_fasttrack_raid_member", ""),
        (sectors_back(1, 512), silicon_metadata(), "silicon_medley_raid_member", "Silicon Image Medley"),
        (sectors_back(1, 512), via_metadata(), "via_raid_member", "VIA VT-RAID"),
        (sectors_back(1, 512), jmicron_metadata(), "jmicron_raid_member", "JMicron"),
        (sectors_back(1, 512), adaptec_metadata(), "adaptec_raid_member", "Adaptec"),
        (sectors_back(11, 512), 0x5a78_16f3_u32.to_le_bytes().to_vec(), "hpt45x_raid_member", "HighPoint 45x"),
        (sectors_back(11, 512), 0x5a78_16fd_u32.to_le_bytes().to_vec(), "hpt45x_raid_member", "HighPoint 45x"),
    ];
    for (abs, md, family, detail) in cases {
        let found = found_at(ODD_SIZE, abs, &md);
        assert_eq!(found.len(), 1, "{family}: {found:?}");
        assert_eq!(found[0].family, family);
        assert!(found[0].what.contains(detail) && found[0].what.ends_with(", at the end)"), "{found:?}");
        assert!(found_at(ODD_SIZE, abs - 512, &md).is_empty(), "{family} a sector early");
    }
}

#[test]
fn firmware_raid_checksums_must_match() {
    let last = ODD_SIZE / 512 * 512 - 512;
    for (abs, mut md, byte) in [
        (last - 512, nvidia_metadata(), 20),
        (last, silicon_metadata(), 0x20),
        (last, via_metadata(), 10),
        (last, jmicron_metadata(), 0x22),
    ] {
        md[byte] ^= 0x40;
        assert!(found_at(ODD_SIZE, abs, &md).is_empty(), "{:?}", &md[..8]);
    }
}

#[test]
fn nilfs2_backup_superblock_at_the_end() {
    let found = found_at(ODD_SIZE, (ODD_SIZE / 512 - 8) * 512, &nilfs2_superblock());
    assert_eq!(named(&found), [("nilfs2".into(), "a nilfs2 filesystem (its backup superblock, at the end)".into())]);
}

#[test]
fn structures_at_the_end_of_tiny_targets_do_not_panic() {
    for size in [0, 1, 511, 512, 1024, 4095, 8192, 65535, 65536] {
        let mut r = zero_target(size);
        r.reads.iter_mut().for_each(|(_, buf)| buf.iter_mut().for_each(|b| *b = 0xA5));
        assert!(scan(&r).iter().all(|s| s.weak), "{size}");
    }
}

// ---- ZFS ---------------------------------------------------------------------------------

const KIB: u64 = 1024;

/// An uberblock's first fields: the magic and pool version 5000, in either byte order.
fn uberblock(little_endian: bool) -> Vec<u8> {
    let field = |v: u64| if little_endian { v.to_le_bytes() } else { v.to_be_bytes() };
    [field(0x00ba_b10c), field(5000), field(42)].concat()
}

#[test]
fn zfs_uberblocks_in_the_first_label() {
    for little_endian in [true, false] {
        for slot in [0, 5, 127] {
            let found = found_with(128 * 1024 + slot * 1024, &uberblock(little_endian));
            assert_eq!(found, ["zfs_member"], "slot {slot}");
        }
    }
    let mut buf = zeros();
    put(&mut buf, 128 * 1024, &uberblock(true));
    assert_eq!(scan_signatures(&buf), vec![sig("zfs_member", "a zfs_member signature")]);

    assert!(found_with(128 * 1024 + 512, &uberblock(true)).is_empty(), "not a slot's start");
    assert!(found_with(64 * 1024, &uberblock(true)).is_empty(), "not in the uberblock array");
    assert!(found_with(128 * 1024, &0x00ba_b10c_u64.to_le_bytes()).is_empty(), "no pool version");
}

#[test]
fn zfs_uberblocks_in_the_last_labels() {
    for size in [64 << 20, ODD_SIZE] {
        let end = size / (256 * KIB) * (256 * KIB);
        for label in [end - 512 * KIB, end - 256 * KIB] {
            let found = found_at(size, label + 128 * KIB + 3 * KIB, &uberblock(false));
            let what = "a zfs_member signature (its last labels, at the end)";
            assert_eq!(named(&found), [("zfs_member".into(), what.into())], "{size} {label}");
            assert!(found_at(size, label + 16 * KIB, &uberblock(false)).is_empty(), "in the nvlist half");
        }
    }
}

#[test]
fn zfs_on_a_partition_at_1_mib() {
    let found = found_at(ODD_SIZE, (1 << 20) + 128 * KIB, &uberblock(true));
    assert_eq!(named(&found), [("zfs_member".into(), "a zfs_member signature at offset 1 MiB".into())]);
}

/// One XDR nvpair: encoded size, decoded size, name length, the name padded to 4 bytes, then
/// `value` (its type, element count and data).
fn nvpair(name: &str, value: &[u8]) -> Vec<u8> {
    let mut name_bytes = name.as_bytes().to_vec();
    name_bytes.resize(name.len().div_ceil(4) * 4, 0);
    let size = (12 + name_bytes.len() + value.len()) as u32;
    [&size.to_be_bytes()[..], &size.to_be_bytes(), &(name.len() as u32).to_be_bytes(), &name_bytes, value].concat()
}

fn nv_u64(name: &str, v: u64) -> Vec<u8> {
    nvpair(name, &[&8u32.to_be_bytes()[..], &1u32.to_be_bytes(), &v.to_be_bytes()].concat())
}

fn nv_string(name: &str, v: &str) -> Vec<u8> {
    let mut text = v.as_bytes().to_vec();
    text.resize(v.len().div_ceil(4) * 4, 0);
    nvpair(name, &[&9u32.to_be_bytes()[..], &1u32.to_be_bytes(), &(v.len() as u32).to_be_bytes(), &text].concat())
}

/// A vdev label's configuration as `zpool create` writes it (XDR, the fields libblkid reads,
/// a nested vdev tree), with `state` and `txg`: the bytes that go 16 KiB into a label.
fn zfs_nvlist(state: u64, txg: u64, guid: u64) -> Vec<u8> {
    let header = [1u8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]; // XDR, little-endian host; nvlist version and flags
    let tree_header = nvpair("vdev_tree", &[&19u32.to_be_bytes()[..], &1u32.to_be_bytes(), &[0; 8]].concat());
    [
        &header[..],
        &nv_u64("version", 5000),
        &nv_string("name", "tank"),
        &nv_u64("state", state),
        &nv_u64("txg", txg),
        &nv_u64("pool_guid", 0x1234_5678),
        &nv_u64("top_guid", 0x4321),
        &nv_u64("guid", guid),
        &tree_header, // its pairs follow, then 8 zero bytes
        &nv_string("type", "disk"),
        &nv_u64("guid", 0),
        &[0; 8],
        &nv_u64("features_for_read", 0),
        &[0; 8],
    ]
    .concat()
}

#[test]
fn zfs_label_nvlists_as_libblkid_accepts_them() {
    let nv_at = |label: usize| label + 16 * 1024;
    for label in [0, 256 * 1024] {
        assert_eq!(found_with(nv_at(label), &zfs_nvlist(0, 4, 99)), ["zfs_member"], "label at {label}");
        assert_eq!(found_with(nv_at(label), &zfs_nvlist(3, 0, 99)), ["zfs_member"], "a spare has no txg");
        assert!(found_with(nv_at(label), &zfs_nvlist(0, 0, 99)).is_empty(), "no txg");
        assert!(found_with(nv_at(label), &zfs_nvlist(0, 4, 0)).is_empty(), "no guid");
        assert!(found_with(nv_at(label), &zfs_nvlist(8, 4, 99)).is_empty(), "no such state");
        let mut other_encoding = zfs_nvlist(0, 4, 99);
        other_encoding[0] = 0;
        assert!(found_with(nv_at(label), &other_encoding).is_empty(), "not XDR");
        let mut cut = zfs_nvlist(0, 4, 99);
        cut[12..16].copy_from_slice(&0xFFFF_u32.to_be_bytes()); // a pair longer than the list
        assert!(found_with(nv_at(label), &cut).is_empty(), "a malformed pair");
    }
    assert!(found_with(nv_at(128 * 1024), &zfs_nvlist(0, 4, 99)).is_empty(), "not a label's start");
}

/// A pool whose first label (L0) was overwritten — by a wipe of the first 256 KiB, or a
/// partition table — is still found by its second (L1, at 256 KiB), whichever part survived.
#[test]
fn zfs_l1_alone() {
    for (rel, bytes) in [(16 * KIB, zfs_nvlist(0, 7, 5)), (128 * KIB + 9 * KIB, uberblock(true))] {
        let found = found_at(ODD_SIZE, 256 * KIB + rel, &bytes);
        assert_eq!(named(&found), [("zfs_member".into(), "a zfs_member signature".into())], "{rel}");
        // At 16 MiB with no table, by its nvlist (the uberblocks of L1 are not read there).
        if rel == 16 * KIB {
            let found = found_at(ODD_SIZE, (16 << 20) + 256 * KIB + rel, &bytes);
            assert_eq!(named(&found), [("zfs_member".into(), "a zfs_member signature at offset 16 MiB".into())]);
        }
        // In a partition a table lists (at 16 MiB and 100 sectors).
        let first = (16 << 11) + 100;
        let (gpt, entry) = (gpt_header(2, 128), gpt_entry(first, first + 100_000));
        let found =
            scan(&target_with(ODD_SIZE, &[(512, &gpt), (1024, &entry), (first * 512 + 256 * KIB + rel, &bytes)]));
        let what = format!("a zfs_member signature at offset {} bytes", first * 512);
        assert!(named(&found).contains(&("zfs_member".into(), what)), "{found:?}");
    }
}

#[test]
fn zfs_l2_or_l3_alone_by_their_nvlists() {
    for size in [64 << 20, ODD_SIZE] {
        let end = size / (256 * KIB) * (256 * KIB);
        for label in [end - 512 * KIB, end - 256 * KIB] {
            let found = found_at(size, label + 16 * KIB, &zfs_nvlist(1, 9, 5));
            let what = "a zfs_member signature (its last labels, at the end)";
            assert_eq!(named(&found), [("zfs_member".into(), what.into())], "{size} {label}");
        }
    }
}

// ---- where filesystems start -------------------------------------------------------------

/// An ext2 superblock's magic and block size, to put 1 KiB into a filesystem.
fn ext_superblock() -> Vec<u8> {
    let mut sb = vec![0u8; 64];
    put(&mut sb, 56, &[0x53, 0xEF]);
    sb
}

/// A filesystem is found at every start partitioning tools use, said with its offset; not a
/// sector off one.
#[test]
fn filesystems_where_partitioning_tools_start_partitions() {
    const GIB: u64 = 1 << 30;
    let size = 3 * GIB + 4096;
    let mut starts = vec![34 * 512, 6 * 4096, 63 * 512];
    starts.extend((1..=64).map(|n| n << 20));
    starts.extend([128 << 20, 256 << 20, 512 << 20, GIB, 2 * GIB]);
    for start in starts {
        let found = found_at(size, start + 1024, &ext_superblock());
        let what = format!("an ext2 filesystem at offset {}", offset_words(start));
        assert_eq!(named(&found), [("ext".into(), what)], "at {start}");
    }
    for start in [(16 << 20) + 512, (100 << 20), 17 * 512] {
        assert!(found_at(size, start + 1024, &ext_superblock()).is_empty(), "{start} is no start");
    }
}

#[test]
fn what_the_scan_reads_is_bounded() {
    for size in [1 << 20, 100 << 20, 1 << 30, 1 << 44] {
        let r = zero_target(size);
        let total: u64 = r.reads.iter().map(|(_, b)| b.len() as u64).sum();
        let bound = HEAD_BYTES + TAIL_BYTES + GRID_WINDOW * fixed_starts(size).len() as u64;
        assert!(total <= bound && total <= 30 << 20, "{size}: {total} bytes read");
    }
    // A table listing more partitions than are looked at.
    let mut gpt = gpt_header(2, 128);
    let entries: Vec<u8> = (0..128u64).flat_map(|i| gpt_entry(100_000 + i * 1000, 100_000 + i * 1000 + 999)).collect();
    gpt.resize(512, 0);
    let r = target_with(1 << 30, &[(512, &gpt), (1024, &entries)]);
    assert_eq!(r.partitions.len(), MAX_PARTITIONS);
    let total: u64 = r.reads.iter().map(|(_, b)| b.len() as u64).sum();
    let bound = HEAD_BYTES
        + TAIL_BYTES
        + WINDOW * (fixed_starts(1 << 30).len() + MAX_PARTITIONS) as u64
        + TAIL_BYTES * MAX_PARTITIONS as u64;
    assert!(total <= bound, "{total}");
}

/// A GPT header listing `count` entries of 128 bytes from sector `array_lba`.
fn gpt_header(array_lba: u64, count: u32) -> Vec<u8> {
    let mut h = vec![0u8; 92];
    put(&mut h, 0, b"EFI PART");
    put(&mut h, 72, &array_lba.to_le_bytes());
    put(&mut h, 80, &count.to_le_bytes());
    put(&mut h, 84, &128u32.to_le_bytes());
    h
}

/// A used GPT entry from sector `first` to `last`.
fn gpt_entry(first: u64, last: u64) -> Vec<u8> {
    let mut e = vec![0u8; 128];
    put(&mut e, 0, b"\xaf\x3d\xc6\x0f\x83\x84\x72\x47\x8e\x79\x3d\x69\xd8\x47\x7d\xe4"); // Linux data
    put(&mut e, 32, &first.to_le_bytes());
    put(&mut e, 40, &last.to_le_bytes());
    e
}

/// A partition at an offset no tool would pick is found through the GPT that lists it — the
/// primary or, when that is gone, the backup at the end — and structures at its end too.
#[test]
fn filesystems_in_the_partitions_a_gpt_lists() {
    let size: u64 = 1 << 30;
    let (first, last) = (200_001u64, 1_000_000u64);
    let start = first * 512;
    let entry = gpt_entry(first, last);
    let what = format!("an ext2 filesystem at offset {start} bytes");
    let sb = ext_superblock();
    let primary = gpt_header(2, 128);
    let found = scan(&target_with(size, &[(512, &primary), (1024, &entry), (start + 1024, &sb)]));
    assert!(named(&found).contains(&("ext".into(), what.clone())), "{found:?}");

    let last_lba = size / 512 - 1;
    let backup = gpt_header(last_lba - 32, 128);
    let found =
        scan(&target_with(size, &[(last_lba * 512, &backup), ((last_lba - 32) * 512, &entry), (start + 1024, &sb)]));
    assert!(named(&found).contains(&("ext".into(), what)), "{found:?}");

    // md 1.0 at the partition's end.
    let part_len = (last - first + 1) * 512;
    let md = [0xa92b_4efc_u32.to_le_bytes(), 1u32.to_le_bytes()].concat();
    let at = start + ((part_len / 512 - 16) & !7) * 512;
    let found = scan(&target_with(size, &[(512, &primary), (1024, &entry), (at, &md)]));
    let what =
        format!("a linux_raid_member RAID signature (md 1.0, at the end of the partition at offset {start} bytes)");
    assert!(named(&found).contains(&("linux_raid_member".into(), what)), "{found:?}");
}

/// A dos table's primary and logical partitions (through the chain of extended boot records).
#[test]
fn filesystems_in_the_partitions_a_dos_table_lists() {
    let size: u64 = 1 << 30;
    let entry = |ty: u8, start: u32, len: u32| {
        [&[0u8, 0, 0, 0, ty, 0, 0, 0][..], &start.to_le_bytes(), &len.to_le_bytes()].concat()
    };
    let table = |entries: &[Vec<u8>]| {
        let mut s = vec![0u8; 512];
        for (i, e) in entries.iter().enumerate() {
            put(&mut s, 446 + 16 * i, e);
        }
        put(&mut s, 510, &[0x55, 0xAA]);
        s
    };
    let mbr = table(&[entry(0x83, 12_345, 50_000), entry(0x05, 300_000, 1_000_000)]);
    let ebr1 = table(&[entry(0x83, 63, 10_000), entry(0x05, 20_001, 50_000)]);
    let ebr2 = table(&[entry(0x83, 99, 10_000)]);
    let sb = ext_superblock();
    for fs in [12_345u64 * 512, (300_000 + 63) * 512, (300_000 + 20_001 + 99) * 512] {
        let what = format!("at offset {fs} bytes");
        let found = scan(&target_with(
            size,
            &[(0, &mbr), (300_000 * 512, &ebr1), ((300_000 + 20_001) * 512, &ebr2), (fs + 1024, &sb)],
        ));
        assert!(named(&found).contains(&("ext".into(), format!("an ext2 filesystem {what}"))), "{found:?}");
    }
}

/// Tables made to make the scan read without end, overflow or loop: bounded, no panic.
#[test]
fn hostile_partition_tables_are_bounded() {
    let size: u64 = 1 << 30;
    let total = |r: &Regions| r.reads.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
    // Entries at u64::MAX, an entry ending before it starts, a header claiming 2^32 entries.
    let mut entries = gpt_entry(u64::MAX, u64::MAX);
    entries.extend(gpt_entry(5000, 10));
    entries.extend(gpt_entry(u64::MAX / 512 - 1, u64::MAX / 512));
    for header in [gpt_header(2, 3), gpt_header(2, u32::MAX), gpt_header(u64::MAX, 3)] {
        let r = target_with(size, &[(512, &header), (1024, &entries)]);
        assert!(r.partitions.is_empty(), "{:?}", r.partitions);
        scan(&r);
    }
    // A chain of extended boot records that points back at itself.
    let entry = |ty: u8, start: u32, len: u32| {
        [&[0u8, 0, 0, 0, ty, 0, 0, 0][..], &start.to_le_bytes(), &len.to_le_bytes()].concat()
    };
    let mut mbr = vec![0u8; 512];
    put(&mut mbr, 446, &entry(0x05, 100_000, 1_000_000));
    put(&mut mbr, 510, &[0x55, 0xAA]);
    let mut ebr = vec![0u8; 512];
    put(&mut ebr, 446, &entry(0x83, 63, 100));
    put(&mut ebr, 462, &entry(0x05, 0xFFFF_FFFF, 1)); // far past the end: the chain ends
    put(&mut ebr, 510, &[0x55, 0xAA]);
    let mut looping = ebr.clone();
    put(&mut looping, 462, &entry(0x05, 7, 1));
    let mut second = ebr.clone();
    put(&mut second, 462, &entry(0x05, 7, 1)); // next = itself, for ever
    for chain in [&ebr, &looping] {
        let r = target_with(size, &[(0, &mbr), (100_000 * 512, chain), ((100_007) * 512, &second)]);
        assert!(r.partitions.len() <= MAX_PARTITIONS);
        assert!(total(&r) < 64 << 20, "{}", total(&r));
        scan(&r);
    }
}

// ---- VMFS, beyond the bytes read from any one start --------------------------------------

#[test]
fn vmfs_volume_and_filesystem_headers() {
    let volume = 0xc001_d00d_u32.to_le_bytes();
    let fs = 0x2fab_f15e_u32.to_le_bytes();
    let found = found_at(ODD_SIZE, 1 << 20, &volume);
    assert_eq!(named(&found), [("vmfs_volume_member".into(), "a VMFS_volume_member RAID signature".into())]);
    let found = found_at(ODD_SIZE, 2 << 20, &fs);
    assert_eq!(named(&found), [("vmfs".into(), "a VMFS filesystem".into())]);
    // A VMFS partition at 2 MiB: its filesystem header is at 4 MiB.
    let found = found_at(ODD_SIZE, 4 << 20, &fs);
    assert_eq!(named(&found), [("vmfs".into(), "a VMFS filesystem at offset 2 MiB".into())]);
    assert!(found_at(ODD_SIZE, (1 << 20) + 512, &volume).is_empty());
}

// ---- random bytes ------------------------------------------------------------------------

/// A target of `size` random bytes, gathered (so random partition tables are followed too).
fn random_target(rng: &mut fastrand::Rng, size: u64) -> Regions {
    Regions::gather(size, |_, len| {
        let mut buf = vec![0u8; len as usize];
        rng.fill(&mut buf);
        Ok(buf)
    })
    .unwrap()
}

/// Random bytes hold no strong signature at any start or end (a real signature's fields are
/// checked, not just a magic of a byte or two). Fewer targets than starts make this slow.
#[test]
fn random_bytes_hold_nothing_but_weak_guesses() {
    let mut rng = fastrand::Rng::with_seed(0x5EED_D15C);
    for i in 0..25 {
        let size = rng.u64(16 << 20..1 << 40) / 512 * 512;
        let strong: Vec<Signature> = scan(&random_target(&mut rng, size)).into_iter().filter(|s| !s.weak).collect();
        assert!(strong.is_empty(), "target {i} of {size} bytes: {strong:?}");
    }
}

#[test]
fn short_random_buffers_and_targets_do_not_panic() {
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..200 {
        let mut buf = vec![0u8; rng.usize(0..HEAD_BYTES as usize)];
        rng.fill(&mut buf);
        scan_signatures(&buf);
        let size = rng.u64(0..3 << 20);
        scan(&random_target(&mut rng, size));
    }
}
