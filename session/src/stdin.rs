//! Command lines from standard input for the parallel front end's command loop.
//!
//! tokio's `stdin()` reads on its blocking thread pool: every line wakes a pool thread, which
//! then wakes the runtime's thread, two hand-offs (and a thread's CPU) on the path of every
//! command. Where standard input can be polled (a terminal, a pipe, a socket), it is read on
//! the runtime's own thread instead, when epoll says it is readable. The descriptor is left
//! as it is (blocking): setting `O_NONBLOCK` would change it for every process sharing it
//! (the shell, on a terminal), so a read happens only after `poll` has said it will not block.
//! A regular file or `/dev/null` cannot be polled (epoll refuses them) and keeps tokio's
//! reader. The descriptor registered is a duplicate of 0 (`F_DUPFD_CLOEXEC`), this reader's
//! own.

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use nix::poll::{PollFd, PollFlags, PollTimeout};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

/// Lines of standard input, without their line ends.
pub(crate) enum StdinLines {
    Polled {
        fd: AsyncFd<OwnedFd>,
        buf: Vec<u8>,
        eof: bool,
    },
    Pool(Lines<BufReader<Stdin>>),
    /// A terminal: a thread edits the line (src/terminal.rs) when asked for one.
    Terminal {
        ask: std::sync::mpsc::Sender<()>,
        lines: tokio::sync::mpsc::UnboundedReceiver<Option<String>>,
        asked: bool,
    },
}

impl StdinLines {
    /// Lines from a terminal through the line editor (prompting with `(cohort) ` itself), or
    /// as `new` reads them where standard input or output is not a terminal.
    pub(crate) fn interactive() -> Self {
        use std::io::IsTerminal;
        if !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
            return Self::new();
        }
        let (ask, asks) = std::sync::mpsc::channel::<()>();
        let (send, lines) = tokio::sync::mpsc::unbounded_channel();
        let spawned = std::thread::Builder::new()
            .name("cohort-terminal".into())
            .spawn(move || {
                // Tab completes command and setting names (the ranks have the symbols).
                let names = cohort_debugger::Debugger::new(true);
                let Ok(mut term) =
                    crate::terminal::Terminal::new(Box::new(move |text| names.completions(&text)))
                else {
                    return;
                };
                let mut save = false;
                while asks.recv().is_ok() {
                    let line = match term.read("(cohort) ") {
                        crate::terminal::Line::Text(l) => Some(l),
                        crate::terminal::Line::Interrupted => Some(String::new()),
                        crate::terminal::Line::Eof => None,
                    };
                    // `set history save on|off` as the ranks see it.
                    match line
                        .as_deref()
                        .map(str::split_whitespace)
                        .map(Iterator::collect::<Vec<_>>)
                        .as_deref()
                    {
                        Some(["set", "history", "save", v]) => {
                            save = matches!(*v, "on" | "1" | "yes" | "enable")
                        }
                        Some(["set", "history", "save"]) => save = true,
                        _ => {}
                    }
                    let end = line.is_none()
                        || line
                            .as_deref()
                            .is_some_and(|l| matches!(l.trim(), "quit" | "q"));
                    if end && save {
                        term.save();
                    }
                    if send.send(line).is_err() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => StdinLines::Terminal {
                ask,
                lines,
                asked: false,
            },
            Err(_) => Self::new(),
        }
    }

    /// Whether the line editor prints the prompt (the caller does not).
    pub(crate) fn prompts(&self) -> bool {
        matches!(self, StdinLines::Terminal { .. })
    }

    pub(crate) fn new() -> Self {
        // A descriptor of our own for standard input, so that the registration's holds for as
        // long as it is registered.
        let own = io::stdin().as_fd().try_clone_to_owned();
        // SAFETY: `register` needs the descriptor open and the same until the `AsyncFd` is
        // dropped: it is the `OwnedFd` the `AsyncFd` owns, closed only when that is dropped.
        let reg = own.map(|fd| unsafe { AsyncFd::register(fd) });
        match reg {
            Ok(Ok(fd)) => StdinLines::Polled {
                fd,
                buf: Vec::new(),
                eof: false,
            },
            _ => StdinLines::Pool(BufReader::new(tokio::io::stdin()).lines()),
        }
    }

    /// The next line; `None` at the end of input. Cancel-safe (for `select!`): a line is
    /// taken from the buffer only when it is returned.
    pub(crate) async fn next_line(&mut self) -> io::Result<Option<String>> {
        let (fd, buf, eof) = match self {
            StdinLines::Pool(lines) => return lines.next_line().await,
            StdinLines::Terminal { ask, lines, asked } => {
                // Asked once per line: the caller may drop this future and call again.
                if !*asked {
                    *asked = ask.send(()).is_ok();
                }
                let l = lines.recv().await.flatten();
                *asked = false;
                return Ok(l);
            }
            StdinLines::Polled { fd, buf, eof } => (fd, buf, eof),
        };
        loop {
            if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = buf.drain(..=i).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
            }
            if *eof {
                if buf.is_empty() {
                    return Ok(None);
                }
                let line = String::from_utf8_lossy(buf).into_owned();
                buf.clear();
                return Ok(Some(line));
            }
            if readable_now(fd.get_ref())? {
                let mut chunk = [0u8; 16384];
                match nix::unistd::read(fd.get_ref().as_fd(), &mut chunk) {
                    Ok(0) => *eof = true,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => {}
                    Err(e) => return Err(e.into()),
                }
                continue;
            }
            // Nothing to read now: wait for epoll. Readiness is cleared first, so data that
            // comes after the check above wakes this wait.
            let mut guard = fd.readable().await?;
            guard.clear_ready();
        }
    }
}

/// Whether a read of `fd` returns at once (data, end of file or an error).
fn readable_now(fd: &OwnedFd) -> io::Result<bool> {
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
    loop {
        match nix::poll::poll(&mut fds, PollTimeout::ZERO) {
            Ok(0) => return Ok(false),
            Ok(_) => return Ok(fds[0].revents().is_some_and(|r| !r.is_empty())),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}
