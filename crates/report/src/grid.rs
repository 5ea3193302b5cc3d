//! Rendering a grid of display strings (a header row, then rows; the first column is labels)
//! for a terminal, Markdown and CSV. Shared by plain tables and comparisons, so both read alike.

use drivelab_engine::units::{fmt_number, Style};

/// A title with its unit in parentheses: "Reads (MB/s)"; just the title when it names the unit
/// already as a word of its own ("Aggregate IOPS by number of drives", not "... (IOPS)"; but
/// "Drop from 100% to 95% ... (%)").
pub(crate) fn heading(title: &str, unit: &str) -> String {
    let named = title.split_whitespace().any(|w| w.trim_matches(|c| matches!(c, '(' | ')' | ',' | ':' | ';')) == unit);
    if title.is_empty() {
        format!("({unit})")
    } else if named {
        title.to_string()
    } else {
        format!("{title} ({unit})")
    }
}

/// A number the way tables show it: no decimals from 100 (or for a whole number of drives),
/// one from 10, else two; IOPS with thousands separators (245,312).
pub(crate) fn human(v: f64, unit: &str) -> String {
    let s = if unit == "drives" && v.fract() == 0.0 { format!("{v:.0}") } else { fmt_number(v, Style::Cell) };
    if unit == "IOPS" {
        group_thousands(&s)
    } else {
        s
    }
}

fn group_thousands(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest.split_once('.').map_or((rest, None), |(i, f)| (i, Some(f)));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// Left-aligned (labels, words) or right-aligned (numbers).
fn pad(s: &str, w: usize, left: bool) -> String {
    let fill = " ".repeat(w.saturating_sub(width(s)));
    if left {
        format!("{s}{fill}")
    } else {
        format!("{fill}{s}")
    }
}

fn widths(grid: &[Vec<String>], min: usize) -> Vec<usize> {
    let n = grid.first().map_or(0, Vec::len);
    (0..n).map(|i| grid.iter().map(|r| width(&r[i])).max().unwrap_or(0).max(min)).collect()
}

/// Column `i` is left-aligned: the first (labels), and those `words` marks.
fn is_left(i: usize, words: &[bool]) -> bool {
    i == 0 || words.get(i).copied().unwrap_or(false)
}

fn cells(row: &[String], widths: &[usize], words: &[bool]) -> Vec<String> {
    row.iter().zip(widths).enumerate().map(|(i, (c, &w))| pad(c, w, is_left(i, words))).collect()
}

/// The heading line, then aligned columns two spaces apart: labels left, numbers right.
pub(crate) fn text(heading: &str, grid: &[Vec<String>]) -> String {
    text_aligned(heading, grid, &[])
}

/// [`text`] with the columns `words` marks left-aligned too (paths, names, reasons). Fitted to
/// the width tables are printed at ([`crate::fit`]): the heading wrapped, the table reshaped.
pub(crate) fn text_aligned(heading: &str, grid: &[Vec<String>], words: &[bool]) -> String {
    let width = crate::fit::width();
    let heading = if heading.is_empty() { "\n".to_string() } else { wrap(heading, width) };
    heading + &crate::fit::table(grid, words, width)
}

/// `text` as Markdown shows it literally: every character CommonMark could read as markup (a
/// link's brackets, code, emphasis, a table's bar, a backslash itself) escaped with a backslash,
/// line breaks made spaces. A label is text from whoever made the results: `[x](javascript:..)`
/// in one was a live link in `report --format md` (`<` is made `&lt;` for the whole page).
pub(crate) fn md_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // A backslash escapes only the punctuation after it: `target \ qd` stays as it is.
            '\\' if chars.peek().is_some_and(|n| n.is_ascii_punctuation()) => out.push_str("\\\\"),
            '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '>' => {
                out.push('\\');
                out.push(c);
            }
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A GitHub Markdown table preceded by the heading in bold; numbers right-aligned.
pub(crate) fn markdown(heading: &str, grid: &[Vec<String>]) -> String {
    markdown_aligned(heading, grid, &[])
}

/// [`markdown`] with the columns `words` marks left-aligned too.
pub(crate) fn markdown_aligned(heading: &str, grid: &[Vec<String>], words: &[bool]) -> String {
    format!("**{}**\n\n", md_text(heading)) + &markdown_untitled(grid, words)
}

/// [`markdown_aligned`] without the heading: a table under a Markdown heading that says it.
pub(crate) fn markdown_untitled(grid: &[Vec<String>], words: &[bool]) -> String {
    let grid: Vec<Vec<String>> = grid.iter().map(|r| r.iter().map(|c| md_text(c)).collect()).collect();
    let w = widths(&grid, 3);
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = String::new();
    out.push_str(&line(cells(&grid[0], &w, words)));
    out.push_str(&line(
        w.iter()
            .enumerate()
            .map(|(i, &w)| if is_left(i, words) { "-".repeat(w) } else { format!("{}:", "-".repeat(w - 1)) })
            .collect(),
    ));
    for row in &grid[1..] {
        out.push_str(&line(cells(row, &w, words)));
    }
    out
}

/// A table rendered for a terminal, then its note (if any) wrapped at the tables' width.
pub(crate) fn text_with_note(table: String, note: Option<&str>) -> String {
    match note {
        None => table,
        Some(n) => table + &wrap(n, crate::fit::width()),
    }
}

/// A Markdown table, then its note (if any) in italics after a blank line.
pub(crate) fn markdown_with_note(table: String, note: Option<&str>) -> String {
    match note {
        None => table,
        Some(n) => format!("{table}\n*{}*\n", md_text(n)),
    }
}

/// `text` in lines of at most `cols` characters (a longer word on a line of its own), each
/// ending in "\n".
pub(crate) fn wrap(text: &str, cols: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && width(&line) + 1 + width(word) > cols {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// One CSV field, quoted per RFC 4180 where needed. A text that a spreadsheet would take as a
/// formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return, and not a number) is
/// written with a `'` first, as OWASP recommends: a label `=HYPERLINK(...)` from someone
/// else's results stays text. Numbers (`-3.5`, `-inf`) are left as they are.
pub(crate) fn csv_field(s: &str) -> String {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']) && s != "-" && s.trim().parse::<f64>().is_err();
    let s: std::borrow::Cow<str> = if formula { format!("'{s}").into() } else { s.into() };
    if s.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_name_the_unit_once() {
        assert_eq!(heading("Reads", "MB/s"), "Reads (MB/s)");
        assert_eq!(heading("Aggregate IOPS by number of drives", "IOPS"), "Aggregate IOPS by number of drives");
        assert_eq!(heading("drivelab CPU (% of one core)", "%"), "drivelab CPU (% of one core)");
        assert_eq!(heading("Drop from 100% to 95% sequential", "%"), "Drop from 100% to 95% sequential (%)");
        assert_eq!(heading("", "µs"), "(µs)");
    }

    #[test]
    fn notes_wrap_at_80_columns_for_a_terminal_and_keep_every_word() {
        let note = "the I/O calls alone: a write made durable by fsync also waits for its fsync (see the tables until durable and of the fsync alone)";
        let text = text_with_note("T\n".into(), Some(note));
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert!(lines.len() == 2 && lines.iter().all(|l| l.chars().count() <= 80), "{text}");
        assert_eq!(lines.join(" "), note);
        assert_eq!(markdown_with_note("T\n".into(), Some("a*b")), "T\n\n*a\\*b*\n");
        assert_eq!(text_with_note("T\n".into(), None), "T\n");
    }

    #[test]
    fn drive_counts_are_whole_numbers() {
        assert_eq!(human(2.0, "drives"), "2");
        assert_eq!(human(2.0, "MB/s"), "2.00");
        assert_eq!(human(245312.4, "IOPS"), "245,312");
    }
}
