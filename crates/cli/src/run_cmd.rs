//! `drivelab run` (and the no-argument default): prepare the targets (`lab::prepare` does every
//! check that can refuse before the first byte is written), measure, report.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use drivelab_engine::result::RunResult;
use drivelab_engine::spec::AccessSpec;
use drivelab_engine::Error;
use drivelab_lab::prepare::prepare;

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
    let new_size = args.safety.new_file_size()?;
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
    let stop = stop_flag();
    let perm = args.safety.permission();
    let mut filling: Option<progress::Filling> = None;
    let prepared = prepare(spec, &args.targets, new_size, &perm, &stop, &mut |path, done, total| {
        filling.get_or_insert_with(|| progress::Filling::new(path, total, !args.quiet)).update(done)
    });
    if let Some(f) = filling {
        f.finish();
    }
    let prepared = prepared?;
    for n in &prepared.notices {
        eprintln!("drivelab: {n}");
    }
    notices.extend(prepared.notices.iter().cloned());
    *spec = prepared.spec.clone();
    if stop.load(Ordering::SeqCst) {
        return Ok(Outcome::Interrupted);
    }

    let mut display = progress::Live::new(!args.quiet);
    let mut result =
        drivelab_engine::run::run(spec, &prepared.targets, spec.engine, stop.clone(), &mut |p| display.update(p))?;
    display.finish();
    result.notices.extend(notices.iter().cloned());
    if !spec.direct {
        result.notices.push("buffered I/O: results include the page cache".into());
    }
    finish(&result, args)
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
