//! Where a rank is, as data rather than words, for `diagnose` (issue 20): the innermost frame
//! of the user's program and the MPI call or library function it is inside (what
//! [`Debugger::state_summary`] says in words), and the line of a call site.

use crate::debugger::Debugger;
use crate::source::{mpi_call_name, public_name};

/// Where the current thread is in the user's terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserPlace {
    /// The function of the innermost frame of the user's program …
    pub function: Option<String>,
    /// … and its line, `file:line` (the file as frame lines name it).
    pub at: Option<String>,
    /// The MPI call the program is inside, as the frames show it (`MPI_Recv`).
    pub mpi_call: Option<String>,
    /// The library function the program called, when it is not an MPI call (`sleep`).
    pub lib_call: Option<String>,
}

impl Debugger {
    /// Where the current thread is in the user's terms; `None` without a process or frames.
    pub fn user_place(&self) -> Option<UserPlace> {
        self.session.pid()?;
        let frames = self.frames(64);
        let mut place = UserPlace::default();
        let mut lib: Option<String> = None;
        for (i, fr) in frames.iter().enumerate() {
            if self.in_user_object(fr) {
                place.function = self.frame_function(fr).0;
                place.at = self
                    .frame_src_line(fr)
                    .map(|l| format!("{}:{}", l.name, l.line));
                if i > 0 && place.mpi_call.is_none() {
                    place.lib_call = lib;
                }
                return Some(place);
            }
            let name = self.frame_function(fr).0;
            if let Some(m) = name.as_deref().and_then(mpi_call_name) {
                place.mpi_call = Some(m);
            }
            lib = name.as_deref().map(|n| public_name(n).to_string());
        }
        Some(place)
    }

    /// The line of the call whose return address is `ret`, `file:line`.
    pub fn call_site_place(&self, ret: u64) -> Option<String> {
        let l = self.line_at(ret.checked_sub(1)?)?;
        (l.line != 0).then(|| format!("{}:{}", l.name, l.line))
    }
}
