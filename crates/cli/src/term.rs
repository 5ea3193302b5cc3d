//! How wide the screen is, and fitting lines into it. A line wider than the terminal wraps, which
//! breaks a table's columns and makes a live line (redrawn in place) scroll instead; an 80-column
//! pane (a tmux split, a laptop terminal) is common. So every line drivelab prints for people is
//! built to fit 80 columns, uses more only when the terminal says it is wider, and a line that
//! still does not fit (a long path, a long spec) is wrapped at a space ([`wrap`]) or, for a live
//! line, cut short ([`fit`]).
//!
//! The width comes from the terminal the line goes to (`TIOCGWINSZ`), else from `$COLUMNS`, else
//! 80: a file or a pipe has no width, and 80 is what a log, a mail or a review quotes. Warnings
//! and errors on stderr are the exception: wrapped on a terminal, or to `$COLUMNS` when it is set
//! (someone asked for that width), so that in a plain log each stays one line that `grep` finds
//! whole ([`warning_width`]).
//! Widths are counted in characters: everything drivelab writes (`·`, `│`, `µ`, `—`) is one
//! column wide.

/// Where a line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The width when nothing says otherwise.
pub const DEFAULT_WIDTH: usize = 80;

/// The width of the screen `stream` writes to.
pub fn width(stream: Stream) -> usize {
    terminal_width(stream).or_else(env_width).unwrap_or(DEFAULT_WIDTH)
}

/// The width of the terminal `stream` writes to; `None` when it is not a terminal.
pub fn terminal_width(stream: Stream) -> Option<usize> {
    tty_width(match stream {
        Stream::Stdout => libc::STDOUT_FILENO,
        Stream::Stderr => libc::STDERR_FILENO,
    })
}

/// The terminal's width, when `fd` is a terminal that knows it.
fn tty_width(fd: libc::c_int) -> Option<usize> {
    let mut ws = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which points at ours; on a
    // descriptor that is not a terminal it fails (ENOTTY) and writes nothing.
    let r = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

/// The width warnings and errors on stderr are wrapped at: the terminal's, else `$COLUMNS`'s;
/// None (one line each) in a log.
pub fn warning_width() -> Option<usize> {
    terminal_width(Stream::Stderr).or_else(env_width)
}

/// A warning or an error on stderr, wrapped at [`warning_width`] when there is one.
pub fn eprint_warning(line: &str) {
    match warning_width() {
        Some(w) => crate::output::stderr_line(&wrap(line, w)),
        None => crate::output::stderr_line(line),
    }
}

/// `$COLUMNS`, when it is a positive number.
fn env_width() -> Option<usize> {
    std::env::var("COLUMNS").ok()?.trim().parse().ok().filter(|&w| w > 0)
}

/// The columns `line` takes on a terminal.
pub fn columns(line: &str) -> usize {
    line.chars().count()
}

// Prose wrapping lives beside the tables' fitting (the report's text exporter wraps too).
pub use drivelab_report::fit::{wrap, wrap_under};

/// `line` cut to fit `width` columns less one (a line that fills the last column leaves the
/// cursor on the next line on some terminals, and a live line must stay on one), ending in `…`
/// when cut.
pub fn fit(line: &str, width: usize) -> String {
    let room = width.saturating_sub(1).max(1);
    if columns(line) <= room {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(room - 1).collect();
    cut.push('…');
    cut
}

/// `text` in at most `room` columns (at least 10), its start replaced by `…` when it does not fit:
/// the end of a path is the part that names the file.
pub fn keep_end(text: &str, room: usize) -> String {
    let n = columns(text);
    let room = room.max(10);
    if n <= room {
        return text.to_string();
    }
    let mut short = String::from("…");
    short.extend(text.chars().skip(n - (room - 1)));
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_wraps_at_spaces_with_its_continuation_indented() {
        let line = "  fixed rate 50.0k IOPS (uniform), achieved 49.9k IOPS; above: service time from submission";
        let w = wrap(line, 40);
        assert!(w.lines().all(|l| columns(l) <= 40), "{w}");
        assert!(w.lines().skip(1).all(|l| l.starts_with("      ") && !l.starts_with("       ")), "{w}");
        assert_eq!(w.split_whitespace().collect::<Vec<_>>(), line.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrap("  short · µs │", 80), "  short · µs │", "a line that fits is kept as it is");
        assert_eq!(wrap("a\n\nb", 80), "a\n\nb");
        // Aligned columns before the break stay aligned.
        let row = format!("  probe     12.3k IOPS  missed {}", "p99 1.00ms > 500.0µs, ".repeat(4));
        assert!(wrap(&row, 80).starts_with("  probe     12.3k IOPS  missed p99"), "{}", wrap(&row, 80));
        // A word wider than the line is left whole, on a line of its own.
        let long = format!("target {}: file", "/x".repeat(50));
        assert_eq!(wrap(&long, 40).lines().count(), 3);
    }

    #[test]
    fn a_live_line_is_cut_to_the_width_less_one_and_a_path_keeps_its_end() {
        assert_eq!(fit("0.5s elapsed · 12.3k IOPS", 80), "0.5s elapsed · 12.3k IOPS");
        let cut = fit(&"µ".repeat(100), 80);
        assert_eq!((columns(&cut), cut.ends_with('…')), (79, true));
        assert_eq!(keep_end("/dev/shm/a-long-directory/f.dat", 16), "…directory/f.dat");
        assert_eq!(keep_end("f.dat", 16), "f.dat");
    }
}
