//! Preconditioning: bring a drive to a known written state before measuring (SNIA PTS's
//! "workload independent preconditioning", ACT's prep): every target is written sequentially from
//! start to end, `passes` times, in 128 KiB blocks of incompressible data. A fresh or trimmed SSD
//! otherwise reports write speeds it will never show once full.

use drivelab_engine::spec::{AccessSpec, BlockSize, EngineKind};
use drivelab_engine::target::{self, TargetKind};
use drivelab_engine::Error;

use crate::execute::{Event, Lab};

/// The spec of one pass (its `io_size` is set per target to the target's size).
pub fn pass_spec(engine: EngineKind, seed: u64) -> AccessSpec {
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

/// Write every target whole, `passes` times, through the lab. Returns false when interrupted;
/// an I/O error is an error (a drive that cannot be preconditioned cannot be measured).
pub fn sequential(lab: &mut Lab, names: &[String], passes: u32, engine: EngineKind) -> Result<bool, Error> {
    for name in names {
        let mut spec = pass_spec(engine, 0xf111);
        let info = target::probe(name)?;
        if info.kind == TargetKind::Null {
            continue;
        }
        // A file that does not exist yet is created at the new-file size by the first pass.
        let size =
            if info.kind == TargetKind::File && !info.exists { lab.setup.new_file_size } else { info.size_bytes };
        spec.io_size_bytes = Some(size.max(1));
        for pass in 1..=passes {
            lab.emit(Event::Precondition { target: name, pass, passes });
            spec.seed ^= pass as u64;
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
