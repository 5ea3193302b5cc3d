//! The crash journal: written by the jobs' API, replayed record by record, and every verdict of
//! the judge made on a file whose units the test lays out by hand.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::*;

const SEED: u64 = 0x5eed;
const UNIT: u64 = 4096;
const UNITS: u64 = 16;

struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!("drivelab-journal-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        Tmp(p)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A journal of one target of 16 units, its segment begun; the job's side of it.
fn journal(tmp: &Tmp, durable_acks: bool) -> (Arc<Journal>, JobJournal) {
    let j = Arc::new(Journal::create(&tmp.0).unwrap());
    let map = GenerationMap::whole(UNITS * UNIT, UNIT).unwrap();
    let seg = Segment {
        seed: SEED,
        zero_pct: 0,
        unit: UNIT,
        durable_acks,
        targets: vec![SegmentTarget { path: "/dev/test", run_index: 3, map: &map }],
    };
    assert_eq!(j.begin(&seg).unwrap(), vec![0]);
    let job = JobJournal::new(j.clone(), 0, 0, UNITS * UNIT, 8);
    (j, job)
}

/// Write unit `u` (generation `g`) of the journal's target: intent, then ack if `acked`.
fn write(job: &mut JobJournal, u: u64, g: u8, acked: bool) {
    job.intent(u * UNIT, UNIT, g);
    job.flush_intents().unwrap();
    if acked {
        job.completed(u * UNIT, UNIT, true);
        job.flush_acks().unwrap();
    }
}

#[test]
fn a_replay_knows_each_units_newest_write_issued_acknowledged_and_durable() {
    let tmp = Tmp::new("replay");
    let (_j, mut job) = journal(&tmp, false);
    write(&mut job, 0, 1, true); // acked, made durable by the fsync below
    write(&mut job, 1, 1, true);
    job.durable().unwrap();
    write(&mut job, 1, 2, true); // acked after the fsync: not durable
    write(&mut job, 2, 1, false); // in flight
    job.intent(3 * UNIT, 2 * UNIT, 1); // one write of units 3 and 4, which failed
    job.flush_intents().unwrap();
    job.completed(3 * UNIT, 2 * UNIT, false);
    job.flush_acks().unwrap();
    let r = replay_file(&tmp.0, &mut |_, _| Ok(u64::MAX)).unwrap();
    assert_eq!((r.segments, r.records, r.ignored_tail_bytes), (1, 10, 0));
    let t = &r.targets[0];
    assert_eq!((t.path.as_str(), t.run_index, t.seed, t.unit), ("/dev/test", 3, SEED, UNIT));
    let u = &t.units;
    assert_eq!(&u.durable[..6], &[1, 1, 0, UNKNOWN, UNKNOWN, 0]);
    assert_eq!(&u.acked[..6], &[1, 2, 0, UNKNOWN, UNKNOWN, 0]);
    assert_eq!(&u.issued[..6], &[1, 2, 1, UNKNOWN, UNKNOWN, 0]);
    assert_eq!(&u.since[..6], &[0, 1, 1, 0, 0, 0]);
}

#[test]
fn with_o_dsync_an_ack_is_durable_and_the_journal_checks_itself() {
    let tmp = Tmp::new("dsync");
    let (_j, mut job) = journal(&tmp, true);
    write(&mut job, 5, 1, true);
    write(&mut job, 5, 2, true);
    let r = replay_file(&tmp.0, &mut |_, _| Ok(u64::MAX)).unwrap();
    let u = &r.targets[0].units;
    assert_eq!((u.durable[5], u.since[5]), (2, 0), "acked with O_DSYNC: durable");
    // A generation the replay does not give that unit: the journal disagrees with itself.
    write(&mut job, 5, 7, false);
    let e = replay_file(&tmp.0, &mut |_, _| Ok(u64::MAX)).unwrap_err();
    assert!(e.to_string().contains("journaled as generation 7, the replay makes it 3"), "{e}");
}

#[test]
fn a_frame_torn_by_the_crash_ends_the_journal_and_is_counted() {
    let tmp = Tmp::new("tail");
    let (_j, mut job) = journal(&tmp, true);
    write(&mut job, 0, 1, true);
    let whole = std::fs::metadata(&tmp.0).unwrap().len();
    // The start of another frame, cut short, then a frame whose payload is damaged.
    let f = std::fs::OpenOptions::new().append(true).open(&tmp.0).unwrap();
    use std::io::Write;
    (&f).write_all(b"dljf\x02\x00").unwrap();
    let r = replay_file(&tmp.0, &mut |_, _| Ok(u64::MAX)).unwrap();
    assert_eq!((r.records, r.ignored_tail_bytes), (2, 6));
    let bytes = std::fs::read(&tmp.0).unwrap();
    let mut damaged = bytes[..whole as usize].to_vec();
    let last = damaged.len() - 3;
    damaged[last] ^= 1;
    let r = replay(&damaged[..], damaged.len() as u64, &mut |_, _| Ok(u64::MAX)).unwrap();
    assert_eq!(r.records, 1, "the ack's frame fails its CRC: the intent is all that is left");
    assert_eq!(r.ignored_tail_bytes, 24 + 24);
    let e = replay(&b"not a journal at all"[..], 20, &mut |_, _| Ok(u64::MAX)).unwrap_err();
    assert!(matches!(e, JournalError::WrongMagic), "{e}");
    // A target smaller than the journal's map of it: refused by kind, in the words it always had.
    let e = replay(&bytes[..], bytes.len() as u64, &mut |_, _| Ok(UNIT)).unwrap_err();
    let JournalError::Segment { at: 16, inner } = &e else { panic!("{e:?}") };
    assert!(matches!(**inner, JournalError::PastTarget { size: 4096, .. }), "{e:?}");
    assert!(e.to_string().starts_with("segment at byte 16: "), "{e}");
    let tail = " to byte 65536: past the end of the target (4096 bytes); give the target it journaled";
    assert!(e.to_string().ends_with(tail), "{e}");
    let far = JournalError::PastTarget { path: "/x".into(), units: 1 << 60, unit: 4096, start: 0, end: None, size: 1 };
    assert_eq!(
        far.to_string(),
        "/x: its map covers 1152921504606846976 units of 4096 bytes from byte 0 beyond byte 2^64: past the end of \
         the target (1 bytes); give the target it journaled"
    );
}

/// A target file of 16 units, unit `u` holding what `lay[u]` says.
enum Lay {
    Zeros,
    Gen(u8),
    /// Generation `a`'s header over the first half of generation `b`'s payload.
    Torn(u8, u8),
}

fn target_file(tmp: &Tmp, lay: &[Lay]) -> std::fs::File {
    let f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&tmp.0).unwrap();
    f.set_len(UNITS * UNIT).unwrap();
    let format = UnitFormat::new(UNIT as usize, SEED, 0);
    for (u, l) in lay.iter().enumerate() {
        let at = u as u64 * UNIT;
        let mut buf = vec![0u8; UNIT as usize];
        match *l {
            Lay::Zeros => {}
            Lay::Gen(g) => {
                format.stamp(&mut buf, 3, at, g as u64);
            }
            Lay::Torn(a, b) => {
                format.stamp(&mut buf, 3, at, b as u64);
                let mut head = vec![0u8; UNIT as usize];
                format.stamp(&mut head, 3, at, a as u64);
                buf[2048..].copy_from_slice(&head[2048..]);
                buf[..HEADER_BYTES].copy_from_slice(&head[..HEADER_BYTES]);
            }
        }
        f.write_all_at(&buf, at).unwrap();
    }
    f
}

#[test]
fn the_judge_tells_lost_durable_writes_from_writes_that_were_not_yet_durable() {
    let jt = Tmp::new("judge-journal");
    let (_j, mut job) = journal(&jt, false);
    // Units 0-7: generation 1, made durable by an fsync.
    for u in 0..8 {
        write(&mut job, u, 1, true);
    }
    job.durable().unwrap();
    // Unit 4: then 2 in flight. Unit 5: 2 acked (not durable). Unit 6: 2 in flight (found
    // torn). Unit 7: 2 acked, 3 in flight.
    write(&mut job, 4, 2, false);
    write(&mut job, 5, 2, true);
    write(&mut job, 6, 2, false);
    write(&mut job, 7, 2, true);
    write(&mut job, 7, 3, false);
    // Unit 8: failed. Units 9, 10: in flight and acked, never durable.
    job.intent(8 * UNIT, UNIT, 1);
    job.completed(8 * UNIT, UNIT, false);
    job.flush_intents().unwrap();
    job.flush_acks().unwrap();
    write(&mut job, 9, 1, false);
    write(&mut job, 10, 1, true);
    let r = replay_file(&jt.0, &mut |_, _| Ok(u64::MAX)).unwrap();

    let ft = Tmp::new("judge-target");
    use Lay::*;
    let lay = [Gen(1), Zeros, Gen(0), Torn(1, 2), Gen(1), Gen(1), Torn(2, 1), Gen(2), Zeros, Zeros, Zeros];
    let f = target_file(&ft, &lay);
    let c = judge(&f, "/dev/test", &r.targets[0], &AtomicBool::new(false));
    // Units 0-7 had a durable write: 8 checked; 1 (zeros) and 2 (an older generation) lost, 3 (a
    // payload not its header's, nothing in flight) corrupt.
    assert_eq!(c.durable.checked_units, 8, "{c:?}");
    assert_eq!(c.durable.mismatches, 3, "{c:?}");
    assert_eq!(c.durable.first.iter().map(|m| m.offset_bytes / UNIT).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(c.durable.by_kind.get(&MismatchKind::NeverWritten), Some(&1));
    assert_eq!(c.durable.by_kind.get(&MismatchKind::Stale), Some(&1));
    assert_eq!(c.durable.by_kind.get(&MismatchKind::Torn), Some(&1));
    assert_eq!(c.failed(), 3);
    let n = &c.not_durable;
    // Unit 4: in flight, not landed. 5: acked, lost. 6: torn. 7: the acked 2 is there, the
    // in-flight 3 is not. 9: in flight, not landed; 10: acked, lost.
    assert_eq!(n.in_flight_not_landed_units, 3, "{c:?}");
    assert_eq!(n.acked_lost_units, 2, "{c:?}");
    assert_eq!(n.torn_units, 1, "{c:?}");
    assert_eq!(n.landed_units, 0, "{c:?}");
    assert_eq!(c.unjudged_units, 1, "unit 8: its write failed");

    // The same journal over a target where every newest write landed: nothing lost.
    let lay = [Gen(1), Gen(1), Gen(1), Gen(1), Gen(2), Gen(2), Gen(2), Gen(3), Zeros, Gen(1), Gen(1)];
    let f = target_file(&ft, &lay);
    let c = judge(&f, "/dev/test", &r.targets[0], &AtomicBool::new(false));
    assert_eq!((c.durable.checked_units, c.durable.mismatches), (8, 0), "{c:?}");
    assert_eq!(c.not_durable.landed_units, 6, "units 4, 5, 6, 7, 9, 10: {c:?}");
}

#[test]
fn a_journal_is_only_ever_a_new_file() {
    let tmp = Tmp::new("exists");
    std::fs::write(&tmp.0, b"something").unwrap();
    let e = Journal::create(&tmp.0).err().unwrap();
    assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&tmp.0).unwrap(), b"something");
}

#[test]
fn steps_count_writes_along_the_ring() {
    use super::replay::steps;
    assert_eq!(steps(0, 3), 3);
    assert_eq!(steps(UNKNOWN, 1), 1);
    assert_eq!(steps(5, 5), 0);
    assert_eq!(steps(253, 2), 3, "253 -> 254 -> 1 -> 2");
}
