//! Every mismatch kind made on buffers, and the format's own properties.

use super::*;

const SEED: u64 = 0x5eed;

fn unit(len: usize, target: u32, offset: u64, generation: u64) -> Vec<u8> {
    let mut u = vec![0u8; len];
    UnitFormat::new(len, SEED, 0).stamp(&mut u, target, offset, generation);
    u
}

fn expect(offset: u64, generation: u64) -> Expected {
    Expected { target: 0, offset, generation }
}

fn check(found: &[u8], exp: &Expected) -> Result<(), Mismatch> {
    UnitFormat::new(found.len(), SEED, 0).check(found, exp)
}

fn kind(found: &[u8], exp: &Expected) -> MismatchKind {
    check(found, exp).expect_err("a mismatch").kind
}

#[test]
fn a_unit_written_is_the_unit_expected_at_every_size_and_compression() {
    for len in [512, 1024, 4096] {
        for zero_pct in [0u8, 50, 100] {
            let f = UnitFormat::new(len, SEED, zero_pct);
            let mut u = vec![0u8; len];
            let h = f.stamp(&mut u, 3, 8192, 7);
            assert_eq!(Header::decode(&u), Some(h));
            assert_eq!(h.unit_len as usize, len);
            assert_eq!(h.payload_crc, crc32c::crc32c(&u[HEADER_BYTES..]), "the CRC from the tables is the CRC");
            let exp = Expected { target: 3, offset: 8192, generation: 7 };
            assert_eq!(f.check(&u, &exp), Ok(()), "{len} bytes, {zero_pct}% zeros");
            let zeros = u[HEADER_BYTES..].iter().filter(|&&b| b == 0).count();
            let payload = len - HEADER_BYTES;
            let want = payload * zero_pct as usize / 100;
            assert!(zeros + 8 >= want && zeros <= want + payload / 64, "{zeros} zeros of {payload}, {zero_pct}%");
        }
    }
}

#[test]
fn the_payload_crc_holds_for_every_key() {
    let f = UnitFormat::new(4096, 77, 25);
    let mut u = vec![0u8; 4096];
    for (t, off, g) in [(0, 0, 1), (1, 4096, 2), (9, 1 << 40, 254), (u32::MAX, u64::MAX - 4095, 3)] {
        let h = f.stamp(&mut u, t, off, g);
        assert_eq!(h.payload_crc, crc32c::crc32c(&u[HEADER_BYTES..]));
    }
}

#[test]
fn payloads_are_deterministic_and_any_input_changes_every_word() {
    let base = unit(4096, 0, 4096, 1);
    assert_eq!(base, unit(4096, 0, 4096, 1));
    for other in [unit(4096, 1, 4096, 1), unit(4096, 0, 8192, 1), unit(4096, 0, 4096, 2)] {
        let same = base[HEADER_BYTES..].chunks(8).zip(other[HEADER_BYTES..].chunks(8)).filter(|(a, b)| a == b).count();
        assert_eq!(same, 0, "no 8-byte word survives a change of target, offset or generation");
    }
    // Another seed changes every word too.
    let mut u = vec![0u8; 4096];
    UnitFormat::new(4096, SEED + 1, 0).stamp(&mut u, 0, 4096, 1);
    let same = base[HEADER_BYTES..].chunks(8).zip(u[HEADER_BYTES..].chunks(8)).filter(|(a, b)| a == b).count();
    assert_eq!(same, 0);
}

#[test]
fn zeros_where_a_write_was_acknowledged_were_never_written() {
    assert_eq!(kind(&vec![0u8; 4096], &expect(0, 1)), MismatchKind::NeverWritten);
}

#[test]
fn data_drivelab_did_not_write_is_foreign() {
    let mut junk = vec![0u8; 4096];
    fastrand::Rng::with_seed(9).fill(&mut junk);
    assert_eq!(kind(&junk, &expect(0, 1)), MismatchKind::Foreign);
    // Another run's unit (another seed) at the right place is not this run's data either.
    let mut other = vec![0u8; 4096];
    UnitFormat::new(4096, SEED + 1, 0).stamp(&mut other, 0, 0, 1);
    assert_eq!(kind(&other, &expect(0, 1)), MismatchKind::Foreign);
}

#[test]
fn a_unit_written_for_another_place_is_misdirected_and_says_where() {
    let m = check(&unit(4096, 0, 12288, 1), &expect(4096, 1)).unwrap_err();
    assert_eq!(m.kind, MismatchKind::Misdirected);
    assert_eq!(m.found.map(|h| h.offset), Some(12288));
    // Another target's unit at the same offset.
    assert_eq!(kind(&unit(4096, 2, 4096, 1), &expect(4096, 1)), MismatchKind::Misdirected);
}

#[test]
fn an_older_generation_is_a_lost_write_and_a_newer_one_is_ahead() {
    let m = check(&unit(4096, 0, 4096, 3), &expect(4096, 5)).unwrap_err();
    assert_eq!((m.kind, m.found.map(|h| h.generation)), (MismatchKind::Stale, Some(3)));
    assert_eq!(kind(&unit(4096, 0, 4096, 6), &expect(4096, 5)), MismatchKind::Ahead);
}

#[test]
fn flipped_bits_are_counted_in_payload_and_header() {
    let mut u = unit(4096, 0, 4096, 2);
    u[1000] ^= 0b101;
    u[4000] ^= 0x80;
    let m = check(&u, &expect(4096, 2)).unwrap_err();
    assert_eq!((m.kind, m.bits), (MismatchKind::BitFlip, 3));
    let d = m.first.expect("where it differs");
    assert_eq!(d.at, 1000);
    assert_eq!(d.found[0] ^ d.expected[0], 0b101);
    // One bit of the header: its CRC fails, the unit is otherwise the expected one.
    let mut u = unit(4096, 0, 4096, 2);
    u[17] ^= 1;
    let m = check(&u, &expect(4096, 2)).unwrap_err();
    assert_eq!((m.kind, m.bits, m.found), (MismatchKind::BitFlip, 1, None));
}

#[test]
fn a_new_header_over_an_old_payload_is_torn() {
    // Generation 2's first 512-byte sector landed, the rest still holds generation 1.
    let mut u = unit(4096, 0, 4096, 1);
    u[..512].copy_from_slice(&unit(4096, 0, 4096, 2)[..512]);
    let m = check(&u, &expect(4096, 2)).unwrap_err();
    assert_eq!(m.kind, MismatchKind::Torn);
    assert_eq!(m.first.map(|d| d.at), Some(512), "it differs from the sector that did not land");
    assert!(m.bits > 1000, "{} bits", m.bits);
}

#[test]
fn a_sweep_reads_back_what_the_map_says_and_names_each_wrong_unit() {
    use std::io::Write;
    use std::sync::atomic::AtomicBool;
    let dir = std::env::temp_dir().join(format!("drivelab-sweep-{}", std::process::id()));
    let f = UnitFormat::new(4096, SEED, 0);
    let mut map = GenerationMap::new(0, 64 << 10, 4096).unwrap();
    let mut data = vec![0u8; 64 << 10];
    for i in [0usize, 1, 2, 5, 9, 15] {
        let g = map.next_generation(i);
        f.stamp(&mut data[i * 4096..(i + 1) * 4096], 0, i as u64 * 4096, g as u64);
    }
    data[9 * 4096 + 100] ^= 0x10; // a bit flip in unit 9
    data[5 * 4096..6 * 4096].fill(0); // unit 5 lost
    std::fs::File::create(&dir).unwrap().write_all(&data).unwrap();
    let file = std::fs::File::open(&dir).unwrap();
    let c = sweep(&file, &map, &f, 0, &AtomicBool::new(false));
    std::fs::remove_file(&dir).unwrap();
    assert_eq!((c.checked_units, c.mismatches), (6, 2));
    assert_eq!(c.by_kind.get(&MismatchKind::BitFlip), Some(&1));
    assert_eq!(c.by_kind.get(&MismatchKind::NeverWritten), Some(&1));
    let offsets: Vec<u64> = c.first.iter().map(|r| r.offset_bytes).collect();
    assert_eq!(offsets, vec![5 * 4096, 9 * 4096]);
}
