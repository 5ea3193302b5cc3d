//! The faulty drive as a block device: a loop device over its file, read and written with
//! O_DIRECT, each fault seen where it was put.

use std::os::unix::fs::{FileExt, OpenOptionsExt};

use super::*;

fn open(rig: &Rig, dsync: bool) -> std::fs::File {
    let flags = libc::O_DIRECT | if dsync { libc::O_DSYNC } else { 0 };
    std::fs::OpenOptions::new().read(true).write(true).custom_flags(flags).open(&rig.loop_dev).unwrap()
}

/// A 4 KiB aligned buffer filled with `byte`.
struct Block(Box<[u8]>, usize);

impl Block {
    fn new(byte: u8) -> Block {
        let raw = vec![byte; 8192].into_boxed_slice();
        let skip = (4096 - raw.as_ptr() as usize % 4096) % 4096;
        Block(raw, skip)
    }
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.0[self.1..self.1 + 4096]
    }
}

fn write(f: &std::fs::File, offset: u64, byte: u8) {
    f.write_all_at(Block::new(byte).bytes(), offset).unwrap();
}

fn read(f: &std::fs::File, offset: u64) -> std::io::Result<Vec<u8>> {
    let mut b = Block::new(0);
    f.read_exact_at(b.bytes(), offset)?;
    Ok(b.bytes().to_vec())
}

#[test]
fn each_fault_shows_where_it_was_put_on_the_block_device() {
    let Some(rig) = Rig::new(4 << 20, "faults") else { return };
    let f = open(&rig, false);
    write(&f, 0, 0x11);
    write(&f, 4096, 0x22);
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x11), "a healthy drive returns what was written");

    rig.drive().add(Fault::FlipOnRead { range: 4096 + 10..4096 + 11, mask: 0b101 });
    let got = read(&f, 4096).unwrap();
    assert_eq!((got[10], got[9], got[11]), (0x22 ^ 0b101, 0x22, 0x22), "one byte, two bits flipped");
    assert!(rig.drive().media(4096..8192).iter().all(|&b| b == 0x22), "the media itself is fine");
    rig.drive().clear_faults();

    rig.drive().add(Fault::Eio { range: 8192..12288 });
    let e = read(&f, 8192).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO), "{e}");
    assert!(read(&f, 0).is_ok(), "only the range fails");
    rig.drive().clear_faults();

    rig.drive().add(Fault::LoseWrites { range: 0..4096, after: 0 });
    write(&f, 0, 0x33);
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x11), "the write was acknowledged and lost");
    rig.drive().clear_faults();

    rig.drive().add(Fault::Misdirect { range: 0..4096, by: 12288 });
    write(&f, 0, 0x44);
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x11), "not where it was sent");
    assert!(read(&f, 12288).unwrap().iter().all(|&b| b == 0x44), "but 12 KiB further on");
    rig.drive().clear_faults();

    rig.drive().add(Fault::Tear { range: 4096..8192, keep: 512 });
    write(&f, 4096, 0x55);
    let got = read(&f, 4096).unwrap();
    assert!(got[..512].iter().all(|&b| b == 0x55) && got[512..].iter().all(|&b| b == 0x22), "first sector only");
}

#[test]
fn a_power_cut_drops_unflushed_writes_and_a_lying_drive_drops_flushed_ones() {
    let Some(rig) = Rig::new(4 << 20, "power") else { return };
    let f = open(&rig, false);
    write(&f, 0, 0x11);
    // Volatile cache: a plain write is lost in a power cut, a flushed one is not.
    rig.drive().set_cache(Cache::Volatile);
    write(&f, 0, 0x22);
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x22), "reads see the cache");
    rig.drive().power_cut();
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x11), "unflushed: lost");
    rig.drive().set_cache(Cache::Volatile);
    write(&f, 0, 0x33);
    f.sync_all().unwrap();
    rig.drive().power_cut();
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x33), "flushed: kept");
    // O_DSYNC writes through the loop device are flushed as they complete.
    rig.drive().set_cache(Cache::Volatile);
    let d = open(&rig, true);
    write(&d, 4096, 0x44);
    rig.drive().power_cut();
    assert!(read(&f, 4096).unwrap().iter().all(|&b| b == 0x44), "O_DSYNC: kept");
    // A drive that lies acknowledges the flush and keeps nothing.
    rig.drive().set_cache(Cache::Lying);
    write(&f, 0, 0x55);
    f.sync_all().unwrap();
    rig.drive().power_cut();
    assert!(read(&f, 0).unwrap().iter().all(|&b| b == 0x33), "flushed, and lost all the same");
}
