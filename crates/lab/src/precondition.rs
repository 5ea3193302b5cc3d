//! Preconditioning: bring a drive to a known written state before measuring (SNIA PTS's
//! "workload independent preconditioning", ACT's prep): every target is written sequentially from
//! start to end, `passes` times, in 128 KiB blocks of incompressible data. A fresh or trimmed SSD
//! otherwise reports write speeds it will never show once full.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use drivelab_engine::run::Progress;
use drivelab_engine::spec::{AccessSpec, BlockSize, EngineKind};
use drivelab_engine::target::TargetKind;
use drivelab_engine::Error;

use crate::prepare::prepare;
use crate::safety::Permission;

/// The spec of one pass (its `io_size` is set per target to the target's size).
pub fn pass_spec(engine: EngineKind, seed: u64) -> AccessSpec {
    AccessSpec {
        read_pct: 0,
        random_pct: 0,
        bs: vec![BlockSize { bytes: 128 << 10, pct: 100 }],
        qd: 16,
        time_ns: None,
        io_size_bytes: Some(u64::MAX),
        engine,
        seed,
        ..Default::default()
    }
}

/// Write every target whole, `passes` times. Returns false when interrupted.
#[allow(clippy::too_many_arguments)]
pub fn sequential(
    names: &[String],
    passes: u32,
    engine: EngineKind,
    perm: &Permission,
    new_file_size: u64,
    stop: &Arc<AtomicBool>,
    on_pass: &mut dyn FnMut(&str, u32),
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<bool, Error> {
    let spec = pass_spec(engine, 0xf111);
    let prepared = prepare(&spec, names, new_file_size, perm, stop, &mut |_, _, _| {})?;
    for t in &prepared.targets {
        if t.info.kind == TargetKind::Null {
            continue;
        }
        for pass in 1..=passes {
            on_pass(&t.info.path, pass);
            let mut one = prepared.spec.clone();
            one.io_size_bytes = Some(t.span);
            one.seed ^= pass as u64;
            let r = drivelab_engine::run::run(&one, std::slice::from_ref(t), one.engine, stop.clone(), on_progress)?;
            if r.interrupted {
                return Ok(false);
            }
            if let Some(e) = r.errors.first() {
                return Err(Error::io(
                    format!("preconditioning {}", t.info.path),
                    std::io::Error::other(e.error.clone()),
                ));
            }
        }
    }
    Ok(true)
}
