//! The one reader of `/proc/self/mountinfo` (and the octal unescape `/proc/swaps` shares).
//!
//! Two questions need the mount table: is a device about to be written mounted (`safety`), and
//! which filesystem holds a file target (`sysinfo`). Both used to parse it themselves and got
//! escapes differently wrong, so there is one parser here, over bytes: a mount point may be any
//! byte string, not UTF-8.
//!
//! A line is `id parent major:minor root mount_point options [optional...] - fstype source
//! super_options` (proc(5)). The kernel escapes space, tab, newline and backslash in paths as
//! `\040`, `\011`, `\012` and `\134`; [`unescape`] turns every three-digit octal escape that
//! fits a byte back into that byte and leaves anything else (`\9`, `\04`, `\777`) as written.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// A device number (major, minor).
pub type DevNo = (u32, u32);

/// One line of mountinfo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Field 3 (`major:minor`): the device as the kernel sees it; an anonymous number for
    /// filesystems such as btrfs, whose real device only the source names.
    pub devno: DevNo,
    /// Field 4: the directory of the filesystem that is mounted here (`/` for a whole one).
    pub root: PathBuf,
    /// Field 5, unescaped.
    pub mount_point: PathBuf,
    /// Field 6, the per-mount options, split at commas and unescaped.
    pub options: Vec<String>,
    /// The optional fields between the options and the ` - ` separator (`shared:1`,
    /// `master:3`), in order; often none.
    pub optional: Vec<String>,
    /// The filesystem type after the separator (`ext4`, `tmpfs`).
    pub fstype: String,
    /// The mount source (`/dev/vda1`, `tmpfs`), unescaped; may be any bytes.
    pub source: OsString,
    /// The filesystem's own (super block) options, split at commas and unescaped.
    pub super_options: Vec<String>,
}

/// Undo mountinfo's octal escapes: a backslash followed by exactly three octal digits whose
/// value fits a byte becomes that byte; any other backslash is kept as written (so `\777`,
/// which is no byte, stays four characters rather than being truncated to one).
pub fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        if let Some(byte) = octal_escape(&field[i..]) {
            out.push(byte);
            i += 4;
        } else {
            out.push(field[i]);
            i += 1;
        }
    }
    out
}

/// The byte of an escape `\DDD` at the start of `s`, if it is one.
fn octal_escape(s: &[u8]) -> Option<u8> {
    let [b'\\', d @ ..] = s.get(..4)? else { return None };
    let mut value = 0u32;
    for &c in d {
        if !(b'0'..=b'7').contains(&c) {
            return None;
        }
        value = value * 8 + u32::from(c - b'0');
    }
    u8::try_from(value).ok()
}

/// [`unescape`] as text, for fields that are words rather than paths (lossy on bad UTF-8).
pub fn unescape_lossy(field: &[u8]) -> String {
    String::from_utf8_lossy(&unescape(field)).into_owned()
}

fn path(field: &[u8]) -> PathBuf {
    PathBuf::from(OsString::from_vec(unescape(field)))
}

fn list(field: &[u8]) -> Vec<String> {
    field.split(|&b| b == b',').filter(|o| !o.is_empty()).map(unescape_lossy).collect()
}

/// `major:minor`, as mountinfo's field 3 and sysfs `dev` attributes write a device number.
pub fn parse_devno(text: &str) -> Option<DevNo> {
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// One line of mountinfo; `None` when it is not one (too few fields, no separator, a bad
/// device number).
pub fn parse_line(line: &[u8]) -> Option<Mount> {
    let fields: Vec<&[u8]> = line.split(|&b| b == b' ' || b == b'\n').filter(|f| !f.is_empty()).collect();
    // Fields 1-6 are fixed; the optional ones run up to a lone "-".
    let sep = 6 + fields.get(6..)?.iter().position(|f| *f == b"-")?;
    let fstype = fields.get(sep + 1)?;
    Some(Mount {
        devno: parse_devno(std::str::from_utf8(fields[2]).ok()?)?,
        root: path(fields[3]),
        mount_point: path(fields[4]),
        options: list(fields[5]),
        optional: fields[6..sep].iter().map(|f| unescape_lossy(f)).collect(),
        fstype: unescape_lossy(fstype),
        source: fields.get(sep + 2).map_or_else(OsString::new, |s| OsString::from_vec(unescape(s))),
        super_options: fields.get(sep + 3).map_or_else(Vec::new, |s| list(s)),
    })
}

/// Every mount of a mountinfo text, in its order (later lines are mounted on top of earlier
/// ones); lines that are not mounts are skipped.
pub fn parse(text: &[u8]) -> Vec<Mount> {
    text.split(|&b| b == b'\n').filter_map(parse_line).collect()
}

/// The mounts this process sees (empty when `/proc` cannot be read).
pub fn read() -> Vec<Mount> {
    std::fs::read("/proc/self/mountinfo").map(|t| parse(&t)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn unescape_decodes_the_four_escapes_the_kernel_writes() {
        assert_eq!(unescape(br"/mnt/my\040disk"), b"/mnt/my disk");
        assert_eq!(unescape(br"a\011b\012c\134d"), b"a\tb\nc\\d");
        // `\134` is a backslash: what follows it is not read as another escape.
        assert_eq!(unescape(br"\134040"), br"\040");
        assert_eq!(unescape(br"\000"), b"\0");
    }

    #[test]
    fn unescape_keeps_malformed_escapes_literal() {
        assert_eq!(unescape(br"a\9b"), br"a\9b");
        assert_eq!(unescape(br"trailing\04"), br"trailing\04");
        assert_eq!(unescape(br"not\089octal"), br"not\089octal");
        assert_eq!(unescape(b"\\"), b"\\");
        assert_eq!(unescape(b""), b"");
    }

    #[test]
    fn unescape_keeps_values_over_255_instead_of_truncating() {
        // 0o777 = 511 is no byte; truncating it would have turned it into 0xff.
        assert_eq!(unescape(br"\777"), br"\777");
        assert_eq!(unescape(br"x\400y"), br"x\400y");
        assert_eq!(unescape(br"\377"), [0xff]);
    }

    #[test]
    fn unescape_passes_non_utf8_bytes_and_makes_them() {
        assert_eq!(unescape(b"/mnt/\xff\\040x"), b"/mnt/\xff x");
        assert_eq!(unescape(br"/mnt/caf\303\251"), "/mnt/café".as_bytes());
        assert_eq!(unescape(br"/mnt/\351t\351"), b"/mnt/\xe9t\xe9");
    }

    #[test]
    fn line_with_optional_fields_and_escapes() {
        let m = parse_line(
            br"60 27 8:1 /sub /mnt/my\040disk ro,noatime master:3 shared:4 - xfs /dev/sdb\0401 rw,attr2,noquota",
        )
        .unwrap();
        assert_eq!(m.devno, (8, 1));
        assert_eq!(m.root, PathBuf::from("/sub"));
        assert_eq!(m.mount_point, PathBuf::from("/mnt/my disk"));
        assert_eq!(m.options, ["ro", "noatime"]);
        assert_eq!(m.optional, ["master:3", "shared:4"]);
        assert_eq!(m.fstype, "xfs");
        assert_eq!(m.source, OsString::from("/dev/sdb 1"));
        assert_eq!(m.super_options, ["rw", "attr2", "noquota"]);
    }

    #[test]
    fn line_without_optional_fields() {
        let m = parse_line(b"22 27 0:21 / /proc rw,relatime - proc proc rw").unwrap();
        assert!(m.optional.is_empty());
        assert_eq!((m.fstype.as_str(), m.mount_point.as_os_str()), ("proc", OsStr::new("/proc")));
    }

    #[test]
    fn non_utf8_mount_point_survives() {
        let m = parse_line(b"61 27 8:2 / /mnt/\xe9t\\351 rw - ext4 /dev/sdc1 rw").unwrap();
        assert_eq!(m.mount_point.as_os_str().as_bytes(), b"/mnt/\xe9t\xe9");
    }

    #[test]
    fn an_optional_field_or_path_named_like_the_separator_is_not_it() {
        // A mount point "-" cannot be the separator: the separator is searched after field 6.
        let m = parse_line(b"1 2 3:4 / - rw shared:1 - ext4 /dev/x rw").unwrap();
        assert_eq!(m.mount_point, PathBuf::from("-"));
        assert_eq!(m.fstype, "ext4");
    }

    #[test]
    fn device_numbers() {
        assert_eq!(parse_devno("259:1"), Some((259, 1)));
        assert_eq!(parse_devno("259:1\n"), Some((259, 1)));
        assert_eq!(parse_devno("259"), None);
        assert_eq!(parse_devno(":"), None);
    }

    #[test]
    fn not_mount_lines() {
        assert_eq!(parse_line(b""), None);
        assert_eq!(parse_line(b"garbage"), None);
        assert_eq!(parse_line(b"38 35 x:y / /bad rw - ext4 /dev/x rw"), None);
        assert_eq!(parse_line(b"38 35 8:1 / /bad rw shared:1"), None);
        assert_eq!(parse_line(b"62 27 8:3 / /short -"), None);
        let m = parse_line(b"62 27 8:3 / /short rw - ext4").unwrap();
        assert_eq!((m.source.as_os_str(), m.super_options.len()), (OsStr::new(""), 0));
    }

    #[test]
    fn parse_keeps_order_and_skips_junk() {
        let text = b"22 27 0:21 / /proc rw - proc proc rw\ngarbage\n\n30 25 0:27 / /dev/shm rw - tmpfs tmpfs rw\n";
        let points: Vec<PathBuf> = parse(text).into_iter().map(|m| m.mount_point).collect();
        assert_eq!(points, [PathBuf::from("/proc"), PathBuf::from("/dev/shm")]);
    }

    #[test]
    fn this_process_has_a_root_mount() {
        assert!(read().iter().any(|m| m.mount_point.as_os_str() == "/"));
    }
}
