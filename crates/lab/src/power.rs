//! Power readings during a point: a user command that prints watts (`--power-cmd`), run once
//! a second on its own thread while the point runs, averaged. Reviewers divide MB/s by it for
//! power efficiency (seed 003's MB/s/W).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use drivelab_engine::Error;

/// Run `cmd` with `sh -c` and read the first number it prints, in watts.
pub fn read_watts(cmd: &str) -> Result<f64, Error> {
    let out = std::process::Command::new("sh")
        .args(["-c", cmd])
        .output()
        .map_err(|e| Error::invalid(format!("--power-cmd '{cmd}' could not be run: {e}")))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::invalid(format!(
            "--power-cmd '{cmd}' failed ({}): give a command that prints watts",
            out.status
        )));
    }
    text.split_whitespace()
        .find_map(|w| w.trim_end_matches('W').parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w >= 0.0)
        .ok_or_else(|| Error::invalid(format!("--power-cmd '{cmd}' printed '{}', not a number of watts", text.trim())))
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
    fn the_sampler_averages_readings_while_it_runs() {
        let s = Sampler::start("echo 3");
        std::thread::sleep(Duration::from_millis(1200));
        assert_eq!(s.finish(), Some(3.0));
    }
}
