//! The built-in scan on filesystems and volumes made by the real tools (mkfs.*, mkswap,
//! cryptsetup…), in files in /dev/shm: each is found with blkid's family, through
//! `read_regions` as a target is read, both as made and placed 1 MiB into a larger zeroed file
//! (a partition whose table was wiped). A tool that is not installed skips its case with a
//! message (`drivelab_testkit`), never silently.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::signatures::*;

/// Stand-ins in a case's arguments: the image's path, a directory of content to pack, a key
/// file.
const IMG: &str = "{img}";
const DIR: &str = "{dir}";
const KEY: &str = "{key}";

/// One tool run: `tool args…` makes an image of `size` bytes (0: the tool sizes it) that blkid
/// calls `family`.
struct Case {
    tool: &'static str,
    args: &'static [&'static str],
    size: u64,
    family: &'static str,
}

const MIB: u64 = 1 << 20;

const CASES: &[Case] = &[
    Case { tool: "mkfs.vfat", args: &[IMG], size: 64 * MIB, family: "vfat" },
    Case { tool: "mkfs.vfat", args: &["-F", "12", IMG], size: 4 * MIB, family: "vfat" },
    Case { tool: "mkfs.vfat", args: &["-F", "32", IMG], size: 64 * MIB, family: "vfat" },
    Case { tool: "mkfs.ntfs", args: &["-F", "-Q", "-q", IMG], size: 64 * MIB, family: "ntfs" },
    Case { tool: "mkfs.exfat", args: &[IMG], size: 64 * MIB, family: "exfat" },
    Case { tool: "mkfs.ext4", args: &["-q", "-F", IMG], size: 64 * MIB, family: "ext" },
    Case { tool: "mkfs.xfs", args: &["-q", "-f", IMG], size: 320 * MIB, family: "xfs" },
    Case { tool: "mkfs.btrfs", args: &["-q", "-f", IMG], size: 128 * MIB, family: "btrfs" },
    Case { tool: "mkswap", args: &[IMG], size: 64 * MIB, family: "swap" },
    Case { tool: "mkfs.f2fs", args: &["-q", "-f", IMG], size: 64 * MIB, family: "f2fs" },
    Case { tool: "mkfs.nilfs2", args: &["-q", "-f", IMG], size: 160 * MIB, family: "nilfs2" },
    Case { tool: "mkfs.jfs", args: &["-q", IMG], size: 64 * MIB, family: "jfs" },
    Case { tool: "mkfs.reiserfs", args: &["-q", "-f", IMG], size: 64 * MIB, family: "reiserfs" },
    Case { tool: "mkudffs", args: &[IMG], size: 64 * MIB, family: "udf" },
    Case { tool: "mksquashfs", args: &[DIR, IMG, "-noappend", "-quiet"], size: 0, family: "squashfs" },
    Case { tool: "mkfs.erofs", args: &[IMG, DIR], size: 0, family: "erofs" },
    Case {
        tool: "cryptsetup",
        args: &[
            "luksFormat",
            "--batch-mode",
            "--pbkdf",
            "pbkdf2",
            "--pbkdf-force-iterations",
            "1000",
            "--key-file",
            KEY,
            IMG,
        ],
        size: 64 * MIB,
        family: "crypto_luks",
    },
];

/// A tool by name, also in the sbin directories a non-login PATH may lack.
fn tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let dirs: Vec<&str> = path.split(':').chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"]).collect();
    dirs.into_iter().map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

/// Files and directories this test made, removed when it ends (a failing assertion too).
struct Scratch(Vec<PathBuf>);

impl Scratch {
    /// A fresh path for `tag` in /dev/shm (the temporary directory if there is none), removed
    /// with the scratch.
    fn path(&mut self, tag: &str) -> PathBuf {
        let dir = Path::new("/dev/shm");
        let dir = if dir.is_dir() { dir.to_path_buf() } else { std::env::temp_dir() };
        let path = dir.join(format!("drivelab-sigs-{}-{}-{tag}", std::process::id(), self.0.len()));
        self.0.push(path.clone());
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = fs::remove_file(p).or_else(|_| fs::remove_dir_all(p));
        }
    }
}

/// Makes the image of `case` at `img` with `program`; the tool's output when it fails.
fn make_image(program: &Path, case: &Case, img: &Path, dir: &Path, key: &Path) -> Result<(), String> {
    if case.size > 0 {
        File::create(img).and_then(|f| f.set_len(case.size)).map_err(|e| e.to_string())?;
    }
    let arg = |a: &&str| match *a {
        IMG => img.as_os_str().to_owned(),
        DIR => dir.as_os_str().to_owned(),
        KEY => key.as_os_str().to_owned(),
        other => other.into(),
    };
    let out = Command::new(program)
        .args(case.args.iter().map(arg))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// What the built-in scan finds in the file at `path`, read as a target is read.
fn scan_file(path: &Path) -> Vec<Signature> {
    let file = File::open(path).expect("open the image");
    let size = file.metadata().expect("stat the image").len();
    scan(&read_regions(&file, size).expect("read the image"))
}

/// A copy of `img` starting `at` bytes into the file `dst`, zeros before it; all-zero chunks
/// are skipped, so the copy stays as sparse as the image.
fn copy_at(img: &Path, dst: &Path, at: u64) {
    let mut src = File::open(img).expect("open the image");
    let len = src.metadata().expect("stat the image").len();
    let mut out = File::create(dst).expect("create the copy");
    out.set_len(at + len).expect("size the copy");
    let mut chunk = vec![0u8; 1 << 16];
    let mut off = 0;
    while off < len {
        let n = (len - off).min(chunk.len() as u64) as usize;
        src.read_exact(&mut chunk[..n]).expect("read the image");
        if chunk[..n].iter().any(|&b| b != 0) {
            out.seek(SeekFrom::Start(at + off)).and_then(|_| out.write_all(&chunk[..n])).expect("write the copy");
        }
        off += n as u64;
    }
}

#[test]
fn images_made_by_real_tools_are_found_as_made_and_at_1_mib() {
    let mut scratch = Scratch(Vec::new());
    let dir = scratch.path("content");
    fs::create_dir(&dir).expect("make the content directory");
    fs::write(dir.join("hello"), "drivelab\n").expect("write content");
    let key = scratch.path("key");
    fs::write(&key, "drivelab test key").expect("write the key");
    let mut ran = 0;
    for case in CASES {
        let name = format!("{} {}", case.tool, case.args.join(" "));
        let Some(program) = tool(case.tool) else {
            drivelab_testkit::skip_part(&name, &format!("{} is not installed", case.tool));
            continue;
        };
        let img = scratch.path("img");
        make_image(&program, case, &img, &dir, &key).unwrap_or_else(|e| panic!("{name} failed: {e}"));
        let found = scan_file(&img);
        assert!(found.iter().any(|s| s.family == case.family && !s.weak), "{name}: {found:?}");
        agrees_with_blkid(&name, &img, case.family);

        let moved = scratch.path("at-1mib");
        copy_at(&img, &moved, MIB);
        let found = scan_file(&moved);
        let at_1_mib = |s: &Signature| s.family == case.family && s.what.ends_with(" at offset 1 MiB");
        assert!(found.iter().any(at_1_mib), "{name} at 1 MiB: {found:?}");
        fs::remove_file(&img).and_then(|_| fs::remove_file(&moved)).expect("remove the images");
        ran += 1;
    }
    if ran == 0 {
        drivelab_testkit::skip("none of the mkfs tools is installed");
    }
}

/// When blkid is there and names what `img` holds, it names the family the scan found.
fn agrees_with_blkid(name: &str, img: &Path, family: &str) {
    let blkid = blkid_signatures(&img.to_string_lossy());
    let types: Vec<&str> = blkid.iter().filter(|s| s.family != "pt").map(|s| s.family.as_str()).collect();
    assert!(types.is_empty() || types == [family], "{name}: blkid says {blkid:?}");
}
