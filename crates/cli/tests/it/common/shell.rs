//! Shell helpers of the attack tests: run a command, require it, look for a tool, digest a
//! victim's bytes, and mounts and loop devices that are always undone on drop.

use std::path::Path;
use std::process::{Command, Output, Stdio};

pub fn sh(cmd: &str) -> Output {
    Command::new("sh").args(["-c", cmd]).output().expect("run sh")
}

/// Run `cmd`, fail the test if it fails; its standard output, trimmed.
pub fn must(cmd: &str) -> String {
    let o = sh(cmd);
    assert!(o.status.success(), "{cmd}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Is the command `name` installed?
pub fn tool(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A digest of every byte of a file or device (to prove nothing was written).
pub fn digest(path: &str) -> String {
    must(&format!("cksum < {path}"))
}

/// A loop device made by `losetup --find --show ARGS`; detached on drop.
pub struct Loop(pub String);
impl Loop {
    pub fn new(args: &str) -> Loop {
        Loop(must(&format!("losetup --find --show {args}")))
    }
}
impl Drop for Loop {
    fn drop(&mut self) {
        let _ = sh(&format!("losetup -d {}", self.0));
    }
}

/// A mount, unmounted on drop.
pub struct Mounted(pub String);
impl Mounted {
    pub fn new(dev: &str, dir: &str) -> Mounted {
        std::fs::create_dir_all(dir).unwrap();
        must(&format!("mount {dev} {dir}"));
        Mounted(dir.to_string())
    }
}
impl Drop for Mounted {
    fn drop(&mut self) {
        super::unmount(Path::new(&self.0));
    }
}
