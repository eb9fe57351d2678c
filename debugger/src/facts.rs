//! A rank's state as facts (not text): what the agent tree carries up in typed form for the
//! GUI and the session library (`cohort_wire::RankState`).

/// Where a stopped program is: the innermost frame of the program's own code (a frame in a
/// system or MPI library is described by the program's line that called it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopFacts {
    /// The function of that frame, as frame lines name it.
    pub function: Option<String>,
    /// Its file as gdb names it in frame lines, and its full path (to read it).
    pub file: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    /// The pc of frame 0.
    pub pc: u64,
    /// Stopped at the address of a breakpoint.
    pub at_breakpoint: bool,
    /// The MPI call the program is in (`MPI_Recv`), if any.
    pub mpi_call: Option<String>,
}

/// A rank's program: not started, stopped, or ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateFacts {
    NotStarted,
    Stopped(StopFacts),
    /// Exited with this code.
    Exited(i32),
    /// Ended by this signal (its name, `SIGSEGV`).
    Killed(String),
}

impl crate::Debugger {
    /// The program's state as facts (see [`StateFacts`]).
    pub fn state_facts(&self) -> StateFacts {
        if self.session.pid().is_none() {
            return match self.exit_status {
                Some(st) if st & 0x7f == 0 => StateFacts::Exited((st >> 8) & 0xff),
                Some(st) => {
                    let (name, _) = cohort_engine::signals::describe(st & 0x7f);
                    StateFacts::Killed(name.to_string())
                }
                None => StateFacts::NotStarted,
            };
        }
        StateFacts::Stopped(self.stop_facts())
    }
}

/// A location of a breakpoint, as facts (the window's source margin: the agent's typed
/// `:breakpoints`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakpointFacts {
    /// Its number, as `info breakpoints` gives it.
    pub number: u32,
    /// The file as gdb names it, its full path and the line; none while it is pending (or
    /// at an address without a line).
    pub file: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub enabled: bool,
    /// `tbreak`'s: deleted when hit.
    pub temporary: bool,
}

impl crate::Debugger {
    /// The breakpoints (not watchpoints nor catchpoints), a location each (one of several
    /// locations of an inlined function each its own), in number order.
    pub fn breakpoint_facts(&self) -> Vec<BreakpointFacts> {
        use cohort_engine::session::BpKind;
        let mut v = Vec::new();
        for b in self.session.breakpoints() {
            if !matches!(b.kind, BpKind::Software) || self.script.catchpoints.contains_key(&b.id) {
                continue;
            }
            let mut addrs = b.addrs.clone();
            addrs.sort_unstable();
            let one = |file, path, line| BreakpointFacts {
                number: b.id,
                file,
                path,
                line,
                enabled: b.enabled,
                temporary: b.temporary,
            };
            if addrs.is_empty() {
                v.push(one(None, None, None));
            }
            for a in addrs {
                let place = self
                    .bp_places
                    .borrow_mut()
                    .entry((b.id, a))
                    .or_insert_with(|| {
                        let path = self.line_at(a).map(|l| l.file.display().to_string());
                        self.breakpoint_line(&b.spec, a)
                            .map(|(name, line)| (name, path, line))
                    })
                    .clone();
                match place {
                    Some((name, path, line)) => v.push(one(Some(name), path, Some(line))),
                    None => v.push(one(None, None, None)),
                }
            }
        }
        v.sort_by_key(|b| b.number);
        v
    }
}
