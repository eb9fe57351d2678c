//! Where a command's output goes. On the terminal (`cohort PROGRAM`) it is written as it
//! comes; in agentd every rank's command output is captured into a buffer on the rank's tracer
//! thread, so that identical outputs of many ranks can be merged before anyone prints them.

use std::cell::RefCell;
use std::io::Write;

/// The text one command printed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Captured {
    pub out: String,
    pub err: String,
}

thread_local! {
    static CAPTURE: RefCell<Option<Captured>> = const { RefCell::new(None) };
    /// `set logging enabled on`: the log file, and whether output goes only there
    /// (`set logging redirect on`).
    static LOG: RefCell<Option<(std::fs::File, bool)>> = const { RefCell::new(None) };
}

/// Start (Some) or stop (None) copying this thread's output to a log file; `redirect`: to the
/// file only.
pub fn set_log(log: Option<(std::fs::File, bool)>) {
    LOG.with(|l| *l.borrow_mut() = log);
}

/// Copy `s` to the log file, if logging; true when the terminal should not get it.
fn log(s: &str) -> bool {
    LOG.with(|l| match &mut *l.borrow_mut() {
        Some((f, redirect)) => {
            let _ = f.write_all(s.as_bytes());
            *redirect
        }
        None => false,
    })
}

/// Run `f` with everything this thread prints captured instead of written.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Captured) {
    let prev = CAPTURE.with(|c| c.borrow_mut().replace(Captured::default()));
    let r = f();
    let got = CAPTURE.with(|c| std::mem::replace(&mut *c.borrow_mut(), prev));
    (r, got.unwrap_or_default())
}

/// Start capturing on this thread for good (a rank's thread in agentd): output accumulates
/// until [`take`].
pub fn capture_always() {
    CAPTURE.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(Captured::default());
        }
    });
}

/// Exchange this thread's capture with `slot`: agentd runs many ranks as coroutines on one
/// thread, and each has its own capture, swapped in while it runs.
pub fn swap_capture(slot: &mut Option<Captured>) {
    CAPTURE.with(|c| std::mem::swap(&mut *c.borrow_mut(), slot));
}

/// What was captured since the last call (empty when not capturing).
pub fn take() -> Captured {
    CAPTURE.with(|c| match &mut *c.borrow_mut() {
        Some(cap) => std::mem::take(cap),
        None => Captured::default(),
    })
}

/// Write to standard output (or the capture), flushed.
pub fn write_out(s: &str) {
    if log(s) {
        return;
    }
    let done = CAPTURE.with(|c| match &mut *c.borrow_mut() {
        Some(cap) => {
            cap.out.push_str(s);
            true
        }
        None => false,
    });
    if !done {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(s.as_bytes());
        let _ = o.flush();
    }
}

/// Write to standard error (or the capture). Standard output is flushed first, so that the
/// two interleave on a terminal as they were produced.
pub fn write_err(s: &str) {
    if log(s) {
        return;
    }
    let done = CAPTURE.with(|c| match &mut *c.borrow_mut() {
        Some(cap) => {
            cap.err.push_str(s);
            true
        }
        None => false,
    });
    if !done {
        let _ = std::io::stdout().flush();
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(s.as_bytes());
        let _ = e.flush();
    }
}

/// `print!` to the command's output.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::output::write_out(&format!($($t)*)) };
}

/// `eprintln!` to the command's error output.
#[macro_export]
macro_rules! errln {
    ($($t:tt)*) => {{ let mut s = format!($($t)*); s.push('\n'); $crate::output::write_err(&s) }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_nests_and_restores() {
        let ((), c) = capture(|| {
            write_out("a\n");
            let ((), inner) = capture(|| write_err("x\n"));
            assert_eq!(inner.err, "x\n");
            write_err("b\n");
        });
        assert_eq!(c.out, "a\n");
        assert_eq!(c.err, "b\n");
    }
}
