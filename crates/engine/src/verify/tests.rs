//! Every mismatch kind made on buffers, and the format's own properties.

use super::*;

const SEED: u64 = 0x5eed;

fn unit(len: usize, target: u32, offset: u64, generation: u64) -> Vec<u8> {
    let mut u = vec![0u8; len];
    stamp_unit(&mut u, SEED, target, offset, generation, 0);
    u
}

fn expect(offset: u64, generation: u64) -> Expected {
    Expected { target: 0, offset, generation, seed: SEED, zero_pct: 0 }
}

fn kind(found: &[u8], exp: &Expected) -> MismatchKind {
    classify(found, exp).expect_err("a mismatch").kind
}

#[test]
fn a_unit_written_is_the_unit_expected_at_every_size_and_compression() {
    for len in [512, 1024, 4096] {
        for zero_pct in [0u8, 50, 100] {
            let mut u = vec![0u8; len];
            let h = stamp_unit(&mut u, SEED, 3, 8192, 7, zero_pct);
            assert_eq!(Header::decode(&u), Some(h));
            assert_eq!(h.unit_len as usize, len);
            let exp = Expected { target: 3, offset: 8192, generation: 7, seed: SEED, zero_pct };
            assert_eq!(classify(&u, &exp), Ok(()), "{len} bytes, {zero_pct}% zeros");
            let zeros = u[HEADER_BYTES..].iter().filter(|&&b| b == 0).count();
            let payload = len - HEADER_BYTES;
            let want = payload * zero_pct as usize / 100;
            assert!(zeros >= want && zeros <= want + payload / 64, "{zeros} zeros of {payload}, {zero_pct}%");
        }
    }
}

#[test]
fn payloads_are_deterministic_and_any_input_changes_them() {
    let base = unit(4096, 0, 4096, 1);
    assert_eq!(base, unit(4096, 0, 4096, 1));
    for other in [unit(4096, 1, 4096, 1), unit(4096, 0, 8192, 1), unit(4096, 0, 4096, 2)] {
        let same = base[HEADER_BYTES..].chunks(8).zip(other[HEADER_BYTES..].chunks(8)).filter(|(a, b)| a == b).count();
        assert_eq!(same, 0, "no 8-byte word survives a change of target, offset or generation");
    }
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
    stamp_unit(&mut other, SEED + 1, 0, 0, 1, 0);
    assert_eq!(kind(&other, &expect(0, 1)), MismatchKind::Foreign);
}

#[test]
fn a_unit_written_for_another_place_is_misdirected_and_says_where() {
    let m = classify(&unit(4096, 0, 12288, 1), &expect(4096, 1)).unwrap_err();
    assert_eq!(m.kind, MismatchKind::Misdirected);
    assert_eq!(m.found.map(|h| h.offset), Some(12288));
    // Another target's unit at the same offset.
    assert_eq!(kind(&unit(4096, 2, 4096, 1), &expect(4096, 1)), MismatchKind::Misdirected);
}

#[test]
fn an_older_generation_is_a_lost_write_and_a_newer_one_is_ahead() {
    let m = classify(&unit(4096, 0, 4096, 3), &expect(4096, 5)).unwrap_err();
    assert_eq!((m.kind, m.found.map(|h| h.generation)), (MismatchKind::Stale, Some(3)));
    assert_eq!(kind(&unit(4096, 0, 4096, 6), &expect(4096, 5)), MismatchKind::Ahead);
}

#[test]
fn flipped_bits_are_counted_in_payload_and_header() {
    let mut u = unit(4096, 0, 4096, 2);
    u[1000] ^= 0b101;
    u[4000] ^= 0x80;
    let m = classify(&u, &expect(4096, 2)).unwrap_err();
    assert_eq!((m.kind, m.bits), (MismatchKind::BitFlip, 3));
    let d = m.first.expect("where it differs");
    assert_eq!(d.at, 1000);
    assert_eq!(d.found[0] ^ d.expected[0], 0b101);
    // One bit of the header: its CRC fails, the unit is otherwise the expected one.
    let mut u = unit(4096, 0, 4096, 2);
    u[17] ^= 1;
    let m = classify(&u, &expect(4096, 2)).unwrap_err();
    assert_eq!((m.kind, m.bits, m.found), (MismatchKind::BitFlip, 1, None));
}

#[test]
fn a_new_header_over_an_old_payload_is_torn() {
    // Generation 2's first 512-byte sector landed, the rest still holds generation 1.
    let mut u = unit(4096, 0, 4096, 1);
    u[..512].copy_from_slice(&unit(4096, 0, 4096, 2)[..512]);
    let m = classify(&u, &expect(4096, 2)).unwrap_err();
    assert_eq!(m.kind, MismatchKind::Torn);
    assert_eq!(m.first.map(|d| d.at), Some(512), "it differs from the sector that did not land");
    assert!(m.bits > 1000, "{} bits", m.bits);
}
