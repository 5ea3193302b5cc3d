//! Power readings during a point: a user command that prints watts (`--power-cmd`), run once
//! a second on its own thread while the point runs, averaged. Reviewers divide MB/s by it for
//! power efficiency (seed 003's MB/s/W).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use drivelab_engine::Error;

/// Why `--power-cmd` gave no reading: the words defined once, each kind with the command, so a
/// caller can match (or downcast from [`Error::Refused`]) the kind. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum PowerError {
    #[error("--power-cmd '{cmd}' could not be run: {error}")]
    NotRun { cmd: String, error: std::io::Error },
    #[error("--power-cmd '{cmd}' printed no reading within {} s: give a command that prints watts and exits",
            .limit.as_secs_f64())]
    TimedOut { cmd: String, limit: Duration },
    #[error("--power-cmd '{cmd}' failed ({status}): give a command that prints watts")]
    Failed { cmd: String, status: std::process::ExitStatus },
    /// What the command printed (trimmed), which holds no number of watts.
    #[error("--power-cmd '{cmd}' printed '{printed}', not a number of watts")]
    NotWatts { cmd: String, printed: String },
}

impl From<PowerError> for Error {
    fn from(e: PowerError) -> Error {
        Error::refused(e)
    }
}

/// How long a power command may take to print its reading before it is killed (a meter that
/// hangs must not hang the run).
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Run `cmd` with `sh -c` and read the first number it prints, in watts; give up after
/// [`TIMEOUT`].
pub fn read_watts(cmd: &str) -> Result<f64, Error> {
    read_watts_within(cmd, TIMEOUT)
}

/// [`read_watts`] with its own time limit. The command runs in a process group of its own, so
/// on a timeout everything it started is killed and nothing is left holding its output.
pub fn read_watts_within(cmd: &str, limit: Duration) -> Result<f64, Error> {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new("sh")
        .args(["-c", cmd])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|error| PowerError::NotRun { cmd: cmd.to_string(), error })?;
    let end = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                // SAFETY: kill(2) on the process group this child leads (made by process_group(0)).
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                return Err(PowerError::TimedOut { cmd: cmd.to_string(), limit }.into());
            }
        }
    };
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut text);
    }
    if !status.success() {
        return Err(PowerError::Failed { cmd: cmd.to_string(), status }.into());
    }
    text.split_whitespace()
        .find_map(|w| w.trim_end_matches('W').parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w >= 0.0)
        .ok_or_else(|| PowerError::NotWatts { cmd: cmd.to_string(), printed: text.trim().to_string() }.into())
}

/// Samples `read_watts` every second until `finish`.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<f64>>,
}

impl Sampler {
    pub fn start(cmd: &str) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, cmd) = (stop.clone(), cmd.to_string());
        let handle = std::thread::spawn(move || {
            let mut readings = Vec::new();
            while !flag.load(Ordering::SeqCst) {
                let next = Instant::now() + Duration::from_secs(1);
                if let Ok(w) = read_watts(&cmd) {
                    readings.push(w);
                }
                while Instant::now() < next && !flag.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            readings
        });
        Sampler { stop, handle }
    }

    /// Stop sampling; the average of the readings, if there were any.
    pub fn finish(self) -> Option<f64> {
        self.stop.store(true, Ordering::SeqCst);
        let readings = self.handle.join().ok()?;
        (!readings.is_empty()).then(|| readings.iter().sum::<f64>() / readings.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watts_are_the_first_number_printed() {
        assert_eq!(read_watts("echo 4.5").unwrap(), 4.5);
        assert_eq!(read_watts("echo 'power: 7.25W'").unwrap(), 7.25);
        assert!(read_watts("echo none").unwrap_err().to_string().contains("not a number"));
        assert!(read_watts("exit 3").unwrap_err().to_string().contains("failed"));
    }

    #[test]
    fn a_power_command_that_hangs_is_killed_and_refused() {
        let t = Instant::now();
        let e = read_watts_within("sleep 30; echo 5", Duration::from_millis(300)).unwrap_err();
        assert!(e.is_invalid() && e.to_string().contains("no reading within 0.3 s"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(3), "gave up in {:?}", t.elapsed());
        // A command that backgrounds a child holding the pipe does not hang the read either.
        let e = read_watts_within("(sleep 30 &); sleep 30", Duration::from_millis(300)).unwrap_err();
        assert!(e.to_string().contains("no reading"), "{e}");
    }

    #[test]
    fn the_sampler_averages_readings_while_it_runs() {
        let s = Sampler::start("echo 3");
        std::thread::sleep(Duration::from_millis(1200));
        assert_eq!(s.finish(), Some(3.0));
    }
}
