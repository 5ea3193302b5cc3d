//! `drivelab run` (and the no-argument default): check everything, then prepare targets, then
//! measure, then report. Every check that can refuse happens before the first byte is written.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use drivelab_engine::backend::uring;
use drivelab_engine::result::RunResult;
use drivelab_engine::spec::{AccessSpec, EngineKind};
use drivelab_engine::target::{self, TargetInfo, TargetKind};
use drivelab_engine::Error;
use drivelab_lab::safety::{check_write, Permission};

use crate::args::RunArgs;
use crate::{output, progress, summary};

/// How a finished run ends the process.
pub enum Outcome {
    Done,
    Interrupted,
    StoppedByError,
}

/// Install the Ctrl-C handler once; the flag it sets stops file creation and the run.
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let f = Arc::new(AtomicBool::new(false));
        let g = f.clone();
        let _ = ctrlc::set_handler(move || {
            if g.swap(true, Ordering::SeqCst) {
                // A second Ctrl-C: the user means it.
                std::process::exit(130);
            }
        });
        f
    })
    .clone()
}

pub fn run(args: &RunArgs) -> Result<Outcome, Error> {
    let mut spec = args.spec()?;
    let new_size = args.new_file_size()?;
    let mut notices = Vec::new();
    run_spec(&mut spec, args, new_size, &mut notices)
}

/// Everything after flag parsing; also used by the default job.
pub fn run_spec(
    spec: &mut AccessSpec,
    args: &RunArgs,
    new_size: u64,
    notices: &mut Vec<String>,
) -> Result<Outcome, Error> {
    if let Some(j) = args.json.as_deref() {
        output::check_json_path(j)?;
    }
    let mut infos = Vec::new();
    for t in &args.targets {
        let info = target::probe(t)?;
        if infos
            .iter()
            .any(|i: &TargetInfo| i.kind != TargetKind::Null && target::canonical(&i.path) == target::canonical(t))
        {
            return Err(Error::invalid(format!(
                "{t} is given twice: name each target once (use --jobs for more workers)"
            )));
        }
        infos.push(info);
    }
    choose_engine(spec, &infos, notices)?;
    check_buffer_memory(spec, infos.len())?;

    // Checks against each target (sizes, alignment) and permission to write, before any write.
    for info in &mut infos {
        if info.kind == TargetKind::File && !info.exists {
            info.size_bytes = new_size;
        }
        spec.check_against(&info.path, info.size_bytes, info.dio_align_bytes)?;
        if spec.has_writes() {
            check_write(info, &Permission { destroy: &args.destroy, force: args.force, overwrite: args.overwrite })?;
        }
        if info.kind == TargetKind::Block && !spec.direct {
            notices.push(format!("{}: buffered I/O on a block device measures the page cache too", info.path));
        }
    }

    let stop = stop_flag();
    let mut created = Vec::new();
    let mut opened = Vec::new();
    let result = (|| {
        for info in &mut infos {
            if info.kind == TargetKind::File && !info.exists {
                let show = !args.quiet;
                let mut bar = progress::Filling::new(&info.path, new_size, show);
                target::create_file(&info.path, new_size, spec.direct, &stop, &mut |n| bar.update(n))?;
                bar.finish();
                created.push(info.path.clone());
                *info = target::probe(&info.path)?;
            }
            opened.push(target::open(info, spec)?);
        }
        Ok::<_, Error>(())
    })();
    if let Err(e) = result {
        // A file we made for a run that cannot happen is not left behind.
        if e.is_invalid() {
            for p in &created {
                let _ = std::fs::remove_file(p);
            }
        }
        return Err(e);
    }
    if stop.load(Ordering::SeqCst) {
        return Ok(Outcome::Interrupted);
    }

    let mut display = progress::Live::new(!args.quiet);
    let mut result = drivelab_engine::run::run(spec, &opened, spec.engine, stop.clone(), &mut |p| display.update(p))?;
    display.finish();
    result.notices.extend(notices.iter().cloned());
    if !spec.direct {
        result.notices.push("buffered I/O: results include the page cache".into());
    }
    finish(&result, args)
}

/// I/O buffers are allocated up front (one slot of the largest block size per queue entry):
/// refuse a spec whose buffers would not fit comfortably in memory, rather than abort later.
fn check_buffer_memory(spec: &AccessSpec, targets: usize) -> Result<(), Error> {
    let slot = spec.max_bs().div_ceil(4096) * 4096;
    let need = (targets as u128) * (spec.jobs as u128) * (spec.qd as u128) * (slot as u128);
    // SAFETY: sysconf has no preconditions.
    let ram = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) as u128 * libc::sysconf(libc::_SC_PAGESIZE) as u128 };
    if ram > 0 && need > ram / 2 {
        return Err(Error::invalid(format!(
            "--qd {} x --bs {} x --jobs {} on {targets} target(s) needs {} MiB of I/O buffers, more than half of this \
             machine's {} MiB: lower --qd, --bs or --jobs",
            spec.qd,
            drivelab_engine::units::fmt_size(spec.max_bs()),
            spec.jobs,
            need >> 20,
            ram >> 20
        )));
    }
    Ok(())
}

/// Decide the backend: io_uring where it works, else psync with a notice.
fn choose_engine(spec: &mut AccessSpec, infos: &[TargetInfo], notices: &mut Vec<String>) -> Result<(), Error> {
    if spec.engine != EngineKind::Uring || infos.iter().all(|i| i.kind == TargetKind::Null) {
        return Ok(());
    }
    if let Err(why) = uring::available() {
        let mut note = format!("{why}; falling back to psync");
        if spec.qd > 1 {
            note += &format!(": qd {} runs as {} jobs x qd 1", spec.qd, spec.qd * spec.jobs);
            spec.jobs *= spec.qd;
            spec.qd = 1;
        }
        eprintln!("drivelab: {note}");
        notices.push(note);
        spec.engine = EngineKind::Psync;
        spec.validate()?;
    }
    Ok(())
}

fn finish(result: &RunResult, args: &RunArgs) -> Result<Outcome, Error> {
    if !args.quiet {
        print!("{}", summary::render(result));
    }
    if let Some(j) = args.json.as_deref() {
        output::write_json(j, result)?;
    }
    Ok(if result.interrupted {
        Outcome::Interrupted
    } else if result.stopped_by_error {
        Outcome::StoppedByError
    } else {
        Outcome::Done
    })
}
