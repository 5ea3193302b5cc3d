//! The faulty drive as a block device: a loop device over its file, read and written with
//! O_DIRECT, each fault seen where it was put.

use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::process::Command;

use super::*;

/// A mounted drive with a loop device over it; both undone on drop.
struct Rig {
    dev: Option<FaultDev>,
    loop_dev: String,
    dir: PathBuf,
}

impl Rig {
    fn new(name: &str) -> Option<Rig> {
        let skip = drivelab_engine::test_skip::skip;
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            skip("needs root (FUSE mount and loop devices)");
            return None;
        }
        if !Path::new("/dev/fuse").exists() {
            skip("no /dev/fuse");
            return None;
        }
        let dir = PathBuf::from(format!("/dev/shm/drivelab-faultdev-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dev = FaultDev::mount(&dir, 4 << 20).expect("mount the faulty drive");
        let out = Command::new("losetup").args(["--find", "--show"]).arg(dev.file()).output().unwrap();
        assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
        let loop_dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        Some(Rig { dev: Some(dev), loop_dev, dir })
    }

    fn drive(&self) -> &FaultDev {
        self.dev.as_ref().unwrap()
    }

    fn open(&self, dsync: bool) -> std::fs::File {
        let flags = libc::O_DIRECT | if dsync { libc::O_DSYNC } else { 0 };
        std::fs::OpenOptions::new().read(true).write(true).custom_flags(flags).open(&self.loop_dev).unwrap()
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.loop_dev).status();
        // The loop device lets go of the file a moment after it is detached; the drive cannot be
        // unmounted before.
        let backing = format!("/sys/block/{}/loop/backing_file", self.loop_dev.trim_start_matches("/dev/"));
        for _ in 0..200 {
            if !Path::new(&backing).exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(self.dev.take());
        let _ = std::fs::remove_dir(&self.dir);
    }
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
    let Some(rig) = Rig::new("faults") else { return };
    let f = rig.open(false);
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

    rig.drive().add(Fault::LoseWrites { range: 0..4096 });
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
    let Some(rig) = Rig::new("power") else { return };
    let f = rig.open(false);
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
    let d = rig.open(true);
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
