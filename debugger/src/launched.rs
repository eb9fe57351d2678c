//! Where the ranks of a launched job are first shown (`cohort launch`): every launcher's ranks
//! stop at the same place in the program's own code. A rank the agent starts itself is run to
//! its main function as `start` does; a rank a launcher started and left stopped before its
//! main function (Slurm's `srun`) is run there the same way; a rank a launcher lets go only
//! inside `MPI_Init` (Open MPI's `mpirun`) is run until `MPI_Init` has returned to the program,
//! to the first line after the call.

use std::sync::Arc;

use cohort_dwarf::scopes;
use cohort_engine::{EngineError, Result};

use crate::debugger::Debugger;
use crate::stepping::StepKind;

/// Where [`Debugger::run_to_program_start`] left the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramStart {
    /// Stopped at its main function (main program in Fortran), as `start` leaves it.
    Main,
    /// At the first line after its call of `MPI_Init` (which had not returned).
    AfterMpiInit,
    /// Left where it was: in its own code already, or stopped where this cannot tell how to
    /// reach the program's code (or something else was reported on the way: a signal, its
    /// end).
    Unmoved,
}

/// A function of an MPI library's initialisation: `MPI_Init`, `MPI_Init_thread` and their
/// profiling (`PMPI_`) and Fortran (`mpi_init_`, `mpi_init_f08`) entry points.
fn is_mpi_init(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("mpi_init") || n.starts_with("pmpi_init")
}

impl Debugger {
    /// The function `start` stops in, as gdb's `main_name`: a Fortran main program (the
    /// function with `DW_AT_main_subprogram`, gfortran's `MAIN__` or flang's `_QQmain`) by its
    /// source name, else `main`.
    pub(crate) fn main_name(&self) -> String {
        let program = self
            .session
            .symbols()
            .main()
            .map(|m| (m.file.path.clone(), m.file.clone()));
        if let Some((path, file)) = program
            && let Some(d) = self.debug_file(&path)
        {
            for linkage in ["MAIN__", "_QQmain"] {
                if let Some(sym) = file.lookup_exact(linkage)
                    && let Ok(Some(f)) = scopes::function_at(&d, sym.addr)
                    && f.main_subprogram
                {
                    return f.name;
                }
            }
        }
        "main".to_string()
    }

    /// The source name of the Fortran main program containing `pc`, if it is in one.
    pub(crate) fn main_program_name_at(&self, pc: u64) -> Option<String> {
        let (d, bias) = self.debug_for(pc)?;
        scopes::function_at(&d, pc.wrapping_sub(bias))
            .ok()
            .flatten()
            .filter(|f| f.main_subprogram)
            .map(|f| f.name)
    }

    /// A rank its launcher started, just attached to: run it to where launched ranks are
    /// shown (see the module documentation), printing the stop as gdb would. Before its main
    /// function (stopped at its first instruction, `_start`) it goes there with a temporary
    /// breakpoint, as with `start`; inside `MPI_Init` (called from the program, whichever
    /// thread of the MPI library it waits for) it runs until the call has returned and its
    /// line is done. Elsewhere it stays.
    pub fn run_to_program_start(&mut self) -> Result<ProgramStart> {
        if !self.session.is_running() {
            return Err(EngineError::NotRunning);
        }
        self.invalidate_frames();
        let frames = self.frames(usize::MAX);
        let (user, at_start, in_init) = {
            let symbols = self.session.symbols();
            let Some(program) = symbols.main().map(|m| m.file.clone()) else {
                return Ok(ProgramStart::Unmoved);
            };
            let in_program = |pc: u64| {
                symbols
                    .object_containing(pc)
                    .is_some_and(|o| Arc::ptr_eq(&o.file, &program))
            };
            let name_at = |pc: u64| self.session.function_at(pc).0.unwrap_or_default();
            let user = frames.iter().position(|f| in_program(f.lookup_pc()));
            // Only a process at its very first instruction (in `_start`, of the dynamic linker
            // or the program) is known to be before main.
            let at_start = frames.first().is_some_and(|f| name_at(f.pc()) == "_start");
            let in_init = frames
                .iter()
                .take(user.unwrap_or(0))
                .any(|f| is_mpi_init(&name_at(f.lookup_pc())));
            (user, at_start, in_init)
        };
        match user {
            None => {
                if !at_start {
                    return Ok(ProgramStart::Unmoved);
                }
                // As `start`, but the breakpoint's address (where address-space randomisation
                // put the program in each rank) is not said.
                let main = self.main_name();
                let (_, said) = crate::output::capture(|| self.execute(&format!("tbreak {main}")));
                if !said.err.is_empty() {
                    crate::output::write_err(&said.err);
                    return Ok(ProgramStart::Unmoved);
                }
                self.execute("continue");
                Ok(ProgramStart::Main)
            }
            Some(0) => Ok(ProgramStart::Unmoved),
            Some(user) => {
                if !in_init {
                    return Ok(ProgramStart::Unmoved);
                }
                let (ret, callee_cfa) = (frames[user].pc(), frames[user - 1].cfa);
                if self.run_to(ret, callee_cfa)?.is_none() {
                    // Something else came first, and was reported.
                    return Ok(ProgramStart::Unmoved);
                }
                // The call's line may go on (its result stored): to the next line, as `next`
                // goes from there.
                let pc = self.frame0_pc();
                if self.line_range(pc).is_some_and(|(start, _)| start != pc)
                    && self.step_once(StepKind::Over)? == crate::stepping::Outcome::Reported
                {
                    return Ok(ProgramStart::Unmoved);
                }
                self.print_stop_frame();
                Ok(ProgramStart::AfterMpiInit)
            }
        }
    }
}
