//! fio's verify state files (`verify_state_save`, `verify_state_load`, `--aux-path`): what a
//! verifying writer wrote, so that a later `verify_only` run checks exactly that — the writes of
//! a run that was interrupted, ended by its runtime or by a crash test's trigger, and not the
//! blocks it never reached.
//!
//! fio writes one file per job (each `numjobs` clone its own) when a job that writes with
//! `verify` ends, named `local-NAME-INDEX-verify.state` (NAME with `/` as `.`, INDEX the job's
//! number in the file from 0) in the current directory, or in `--aux-path`. drivelab writes the
//! same files in fio 3.33's format (verify-state.h, version 3), so fio's `t/verify-state`
//! prints them: a header (`version`, `size`, the CRC32C of what follows), then the job's
//! `thread_io_list` — its writes issued (`numberio`), its depth and files, its name, and the
//! offsets of its last writes completed, at most its depth per file. The random generator's
//! state fio keeps there is fio's own; drivelab writes zeros (nothing reads it to decide).
//!
//! drivelab writes the state after the job's writes in flight have completed, so every write
//! it counts completed: a `verify_only` run with `verify_state_load` checks all `numberio` of
//! them. A state file fio wrote loads too, but fio's blocks carry fio's headers, which drivelab
//! does not read (its checks find them foreign).
//!
//! Every state file is hostile input: read only as a regular file of at most
//! [`Input::VERIFY_STATE`] bytes, its version, size and CRC checked. An existing file is
//! replaced (as fio does, so a re-run works) only when it is a verify state file itself;
//! anything else under the name is refused before the run.

use std::path::{Path, PathBuf};

use drivelab_engine::input::Input;
use drivelab_engine::Error;

/// fio's `VSTATE_HDR_VERSION`.
const VERSION: u64 = 3;
/// The header: version, size, crc (each u64).
const HEADER: usize = 24;
/// `struct thread_io_list` before its completions: no_comps u64, depth u32, nofiles u32,
/// numberio u64, index u64, rand (use64 u64 and a 48-byte union), name[64].
const LIST: usize = 8 + 4 + 4 + 8 + 8 + 56 + 64;
/// Bytes of the name field.
const NAME: usize = 64;

/// fio's `fio_crc32c`: CRC32C started at all ones and not inverted at the end (the crate's is
/// the standard's, inverted), widened to the header's u64.
fn fio_crc32c(bytes: &[u8]) -> u64 {
    u64::from(!crc32c::crc32c(bytes))
}

/// One job's verify state (fio's `thread_io_list`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyState {
    pub depth: u32,
    pub nofiles: u32,
    /// Writes issued.
    pub numberio: u64,
    /// The job's number in the file, from 0.
    pub index: u64,
    pub name: String,
    /// Completed writes: (file number, offset).
    pub comps: Vec<(u64, u64)>,
}

/// Why a state file cannot be read, with its path.
#[derive(Debug, thiserror::Error)]
pub enum VStateError {
    #[error("{path}: {len} bytes, too short for a verify state file (fio's holds at least {min})")]
    Short { path: String, len: usize, min: usize },
    #[error("{path}: verify state version {found}, expected fio 3.33's {VERSION}")]
    Version { path: String, found: u64 },
    #[error("{path}: the header says {said} bytes, the file holds {held} after it")]
    Size { path: String, said: u64, held: usize },
    #[error("{path}: the verify state is corrupt (its CRC32C does not match)")]
    Crc { path: String },
    #[error("{path}: {what}")]
    Bad { path: String, what: String },
    #[error("{path}: the directory {dir} for fio's verify state files {is}; make it, or give verify_state_save=0")]
    NoDirectory { path: String, dir: String, is: &'static str },
    #[error("{path}: the verify state file's name is longer than a file name may be; give the job a shorter name")]
    NameTooLong { path: String },
    #[error(
        "{path} exists and is not a verify state file: fio would overwrite it, and drivelab replaces only a verify \
         state file; move it away, give --aux-path DIR, or verify_state_save=0"
    )]
    NotAState { path: String },
}

impl From<VStateError> for Error {
    fn from(e: VStateError) -> Error {
        Error::refused(e)
    }
}

/// The file of job `name` number `index` (from 0): `local-NAME-INDEX-verify.state`, in `aux`
/// when given (fio's `--aux-path`), else in the current directory.
pub fn path(aux: Option<&str>, name: &str, index: u64) -> PathBuf {
    let file = format!("local-{}-{index}-verify.state", name.replace('/', "."));
    match aux {
        Some(dir) => Path::new(dir).join(file),
        None => PathBuf::from(file),
    }
}

impl VerifyState {
    /// The file's bytes: the header, then the list.
    pub fn encode(&self) -> Vec<u8> {
        let slots = self.depth as usize * self.nofiles as usize;
        let mut list = Vec::with_capacity(LIST + slots * 16);
        list.extend_from_slice(&(self.comps.len() as u64).to_le_bytes());
        list.extend_from_slice(&self.depth.to_le_bytes());
        list.extend_from_slice(&self.nofiles.to_le_bytes());
        list.extend_from_slice(&self.numberio.to_le_bytes());
        list.extend_from_slice(&self.index.to_le_bytes());
        list.extend_from_slice(&[0u8; 56]);
        let mut name = [0u8; NAME];
        let n = self.name.len().min(NAME - 1);
        name[..n].copy_from_slice(&self.name.as_bytes()[..n]);
        list.extend_from_slice(&name);
        for &(file, offset) in self.comps.iter().take(slots) {
            list.extend_from_slice(&file.to_le_bytes());
            list.extend_from_slice(&offset.to_le_bytes());
        }
        list.resize(LIST + slots * 16, 0);
        let mut out = Vec::with_capacity(HEADER + list.len());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(list.len() as u64).to_le_bytes());
        out.extend_from_slice(&fio_crc32c(&list).to_le_bytes());
        out.extend_from_slice(&list);
        out
    }

    /// A state file's bytes, every field checked (`path` names it in errors).
    pub fn decode(bytes: &[u8], path: &str) -> Result<VerifyState, VStateError> {
        let path = path.to_string();
        if bytes.len() < HEADER + LIST {
            return Err(VStateError::Short { path, len: bytes.len(), min: HEADER + LIST });
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (version, size, crc) = (u64_at(0), u64_at(8), u64_at(16));
        if version != VERSION {
            return Err(VStateError::Version { path, found: version });
        }
        let list = &bytes[HEADER..];
        if size != list.len() as u64 {
            return Err(VStateError::Size { path, said: size, held: list.len() });
        }
        if fio_crc32c(list) != crc {
            return Err(VStateError::Crc { path });
        }
        let at = HEADER;
        let (no_comps, depth, nofiles) = (u64_at(at), u32_at(at + 8), u32_at(at + 12));
        let slots = depth as u64 * nofiles as u64;
        if (LIST as u64).checked_add(slots.saturating_mul(16)) != Some(size) {
            return Err(VStateError::Bad {
                path,
                what: format!("depth {depth} × {nofiles} files does not fit its {size} bytes"),
            });
        }
        if no_comps > slots {
            return Err(VStateError::Bad { path, what: format!("{no_comps} completions, room for {slots}") });
        }
        let raw = &bytes[at + 88..at + 88 + NAME];
        let end = raw
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| VStateError::Bad { path: path.clone(), what: "its job name is not terminated".into() })?;
        let name = std::str::from_utf8(&raw[..end])
            .map_err(|_| VStateError::Bad { path: path.clone(), what: "its job name is not UTF-8".into() })?
            .to_string();
        let comps = (0..no_comps as usize)
            .map(|i| {
                let c = at + LIST + i * 16;
                (u64_at(c), u64_at(c + 8))
            })
            .collect();
        Ok(VerifyState { depth, nofiles, numberio: u64_at(at + 16), index: u64_at(at + 24), name, comps })
    }

    /// Read `path`: a regular file, bounded, then checked.
    pub fn load(path: &Path) -> Result<VerifyState, Error> {
        let bytes = Input::VERIFY_STATE.read(path)?;
        Ok(VerifyState::decode(&bytes, &path.display().to_string())?)
    }
}

/// Before the run: `path` may be written — nothing is there, or a verify state file (fio
/// replaces it; so does drivelab, but nothing else). Its directory must exist.
pub fn check_writable(path: &Path) -> Result<(), Error> {
    let shown = path.display().to_string();
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        // There but not a directory (a file, or a link to one) is said so, not "not there".
        let is = if std::fs::symlink_metadata(dir).is_ok() { "is not a directory" } else { "is not there" };
        return Err(VStateError::NoDirectory { path: shown, dir: dir.display().to_string(), is }.into());
    }
    if path.file_name().is_some_and(|n| n.len() > crate::store::NAME_MAX) {
        return Err(VStateError::NameTooLong { path: shown }.into());
    }
    match path.symlink_metadata() {
        Err(_) => Ok(()),
        Ok(m) if m.file_type().is_file() && VerifyState::load(path).is_ok() => Ok(()),
        Ok(_) => Err(VStateError::NotAState { path: shown }.into()),
    }
}

/// Write `state` to `path` (checked by [`check_writable`] before the run): whole or not at all,
/// never through a symlink, replacing only a verify state file.
pub fn write(path: &Path, state: &VerifyState) -> Result<(), Error> {
    check_writable(path)?;
    let not_a_name = || crate::store::StoreError::NotAFileName { path: path.to_path_buf() };
    let (dir, name) = crate::store::split(path).ok_or_else(not_a_name)?;
    crate::store::split(path).ok_or_else(|| VStateError::NameTooLong { path: path.display().to_string() })?;
    crate::store::Dir::open(dir)?.replace(name, &state.encode())
}

/// The verify state files of point `p`'s verifying writers (`FioOptions::verify_states`), from
/// what each job wrote (`RunResult::verify_writes`): one per clone, a clone's jobs on several
/// files (targets given on the command line) one file of several.
pub fn write_point(p: &crate::plan::Point, r: &drivelab_engine::result::RunResult) -> Result<(), Error> {
    let Some(fio) = &p.fio else { return Ok(()) };
    for f in &fio.verify_states {
        let mut clones: std::collections::BTreeMap<u64, VerifyState> = std::collections::BTreeMap::new();
        for (_, w) in r.verify_writes.iter().filter(|(stream, _)| *stream == f.stream) {
            let clone = if f.per_target { (w.target / f.per_job_targets.max(1)) as u64 } else { w.job };
            let index = f.first_index + clone;
            let s = clones.entry(clone).or_insert_with(|| VerifyState {
                depth: w.depth,
                nofiles: 0,
                numberio: 0,
                index,
                name: f.name.clone(),
                comps: Vec::new(),
            });
            let file = u64::from(s.nofiles);
            s.nofiles += 1;
            s.numberio = s.numberio.saturating_add(w.issued);
            s.comps.extend(w.last_offsets_bytes.iter().map(|&o| (file, o)));
        }
        for s in clones.values() {
            write(&path(f.dir.as_deref(), &f.name, s.index), s)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.33's own file of `fio --name=x --filename=f.dat --size=1m --rw=write
    /// --verify=crc32c` (psync, depth 1), byte for byte.
    const FIO_WRITTEN: &str =
        "0300000000000000a800000000000000df9d183900000000010000000000000001000000010000000001000000000000\
        000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
        000000000000000000000000000000007800000000000000000000000000000000000000000000000000000000000000\
        0000000000000000000000000000000000000000000000000000000000000000000000000000000000f00f0000000000";

    fn fio_written() -> Vec<u8> {
        let hex: String = FIO_WRITTEN.split_whitespace().collect();
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn reads_fios_file_and_writes_it_back_byte_for_byte() {
        let bytes = fio_written();
        assert_eq!(bytes.len(), 192, "fio's file of one job at depth 1 over one file");
        let s = VerifyState::decode(&bytes, "f").unwrap();
        assert_eq!((s.depth, s.nofiles, s.numberio, s.index), (1, 1, 256, 0));
        assert_eq!((s.name.as_str(), s.comps.as_slice()), ("x", &[(0, 0xf_f000)][..]));
        assert_eq!(s.encode(), bytes);
    }

    #[test]
    fn hostile_files_are_refused_by_what_is_wrong() {
        let good = fio_written();
        let err = |b: &[u8]| VerifyState::decode(b, "f").unwrap_err();
        assert!(matches!(err(&good[..100]), VStateError::Short { .. }));
        let mut v = good.clone();
        v[0] = 2;
        assert!(matches!(err(&v), VStateError::Version { found: 2, .. }));
        let mut c = good.clone();
        c[HEADER + 20] ^= 1;
        assert!(matches!(err(&c), VStateError::Crc { .. }));
        let mut long = good.clone();
        long.push(0);
        assert!(matches!(err(&long), VStateError::Size { .. }));
        // A depth the bytes do not hold, with a CRC that matches: refused, not read past.
        let mut list = good[HEADER..].to_vec();
        list[8] = 200;
        let mut forged = good[..HEADER].to_vec();
        forged[16..24].copy_from_slice(&fio_crc32c(&list).to_le_bytes());
        forged.extend_from_slice(&list);
        assert!(matches!(err(&forged), VStateError::Bad { .. }), "{}", err(&forged));
    }

    #[test]
    fn names_are_fios() {
        assert_eq!(path(None, "a/b", 3), PathBuf::from("local-a.b-3-verify.state"));
        assert_eq!(path(Some("/tmp/aux"), "x", 0), PathBuf::from("/tmp/aux/local-x-0-verify.state"));
    }
}
