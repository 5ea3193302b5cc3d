//! Preconditioning: bring a drive to a known written state before measuring (SNIA PTS's
//! "workload independent preconditioning", ACT's prep): every target is written sequentially from
//! start to end, `passes` times, in 128 KiB blocks of incompressible data. A fresh or trimmed SSD
//! otherwise reports write speeds it will never show once full.

use drivelab_engine::spec::{AccessSpec, BlockSize, EngineKind};
use drivelab_engine::target::{self, TargetKind};
use drivelab_engine::Error;

use crate::execute::{Event, Lab, WriteWhy};

/// The spec of one pass (its `io_size` is set per target to the target's size).
pub fn pass_spec(engine: EngineKind, seed: u64) -> AccessSpec {
    let engine = engine.for_data();
    AccessSpec {
        read_pct: 0,
        random_pct: 0,
        bs: vec![BlockSize { bytes: 128 << 10, pct: 100 }],
        // psync does one I/O at a time (ACT's own prep writes synchronously too).
        qd: if engine == EngineKind::Psync { 1 } else { 16 },
        time_ns: None,
        io_size_bytes: Some(u64::MAX),
        engine,
        seed,
        ..Default::default()
    }
}

/// `spec` stamped for verification the way `like` (a verifying point of the plan) stamps: its
/// seed and unit (the data stays `spec`'s), so what the passes write is known to the points
/// after them that write the same data (and, with `--journal`, journaled). None when `spec`
/// cannot carry headers (zero data) or the unit does not divide its blocks.
pub fn verifying(spec: &AccessSpec, like: &AccessSpec) -> Option<AccessSpec> {
    let mut s = AccessSpec { verify: true, seed: like.seed, verify_unit_bytes: like.verify_unit(), ..spec.clone() };
    s.verify_after = false;
    s.validate().ok().map(|()| s)
}

/// Write every target whole, `passes` times, through the lab; with `like` (a verifying point
/// of the plan) every pass is stamped as it stamps (see [`verifying`]). `later_bytes`: what the
/// caller will write after this call in the same step (for the live line's time left). Returns
/// false when interrupted; an I/O error is an error (a drive that cannot be preconditioned
/// cannot be measured).
pub fn sequential(
    lab: &mut Lab,
    names: &[String],
    passes: u32,
    engine: EngineKind,
    like: Option<&AccessSpec>,
    why: WriteWhy,
    later_bytes: u64,
) -> Result<bool, Error> {
    let mut sized: Vec<(&String, u64)> = Vec::new();
    for name in names {
        let info = target::probe(name)?;
        if info.kind == TargetKind::Null {
            continue;
        }
        // A file that does not exist yet is created at the new-file size by the first pass.
        let size =
            if info.kind == TargetKind::File && !info.exists { lab.setup.new_file_size } else { info.size_bytes };
        sized.push((name, size.max(1)));
    }
    let mut after: u64 =
        sized.iter().map(|(_, s)| s.saturating_mul(passes as u64)).fold(later_bytes, |a, b| a.saturating_add(b));
    for (name, size) in sized {
        let base = pass_spec(engine, 0xf111);
        let mut spec = like.and_then(|l| verifying(&base, l)).unwrap_or(base);
        spec.io_size_bytes = Some(size);
        for pass in 1..=passes {
            after = after.saturating_sub(size);
            lab.emit(Event::Writing { why, target: name, pass, passes, bytes: size, after_bytes: after });
            if !spec.verify {
                spec.seed ^= pass as u64;
            }
            let r = lab.measure(&spec, std::slice::from_ref(name))?.result;
            if let Some(e) = r.errors.first() {
                return Err(Error::io(format!("preconditioning {name}"), std::io::Error::other(e.error.clone())));
            }
            if r.interrupted || lab.stopped() {
                return Ok(false);
            }
        }
    }
    Ok(true)
}
