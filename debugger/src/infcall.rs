//! Functions of the program called from expressions (`print f(2.0)`, `call g()`,
//! `print obj.method()`): the engine runs the call ([`cohort_engine::process::CallRequest`]);
//! this module turns the evaluator's typed arguments into the calling convention's values
//! and reports a call that did not return as gdb does.
//!
//! A breakpoint inside the called function (its condition true, its ignore count used up)
//! ends the evaluation and leaves the thread there, below a dummy frame (`<function called
//! from gdb>` in a backtrace): when the function returns to it, the thread is put back as it
//! was before the call and stops silently (`Event::CallReturned`). The breakpoint's
//! commands do not run (`silent` hides the stop). A signal does the same, unless `set
//! unwindonsignal on`: then the thread is put back at once. gdb 13 does all this.

use std::cell::Cell;

use cohort_dwarf::context::{AbiScalar, FunctionCall, abi_scalars};
use cohort_dwarf::error::DwarfError;
use cohort_dwarf::types::{Encoding, TypeKind, TypeRef};
use cohort_engine::arch::{AbiValue, Scalar};
use cohort_engine::process::{CallRequest, CallStop};
use cohort_engine::signals::describe;

use crate::debugger::{Debugger, out};

fn user(msg: impl Into<String>) -> DwarfError {
    DwarfError::user(msg)
}

/// The calling convention's view of a value of type `ty` with `bytes`.
fn abi_value(ty: &TypeRef, mut bytes: Vec<u8>) -> AbiValue {
    let st = ty.strip();
    let int_sign = match &st.kind {
        TypeKind::Base(Encoding::Float | Encoding::ComplexFloat) => None,
        TypeKind::Base(e) => Some(matches!(e, Encoding::Signed | Encoding::SignedChar)),
        TypeKind::Enum { signed, .. } => Some(*signed),
        _ => None,
    };
    // Integer arguments narrower than 32 bits are widened by the caller (clang relies on
    // it; gcc does not mind).
    if let Some(signed) = int_sign
        && !bytes.is_empty()
        && bytes.len() < 4
    {
        let negative = signed && bytes.last().is_some_and(|b| b & 0x80 != 0);
        bytes.resize(4, if negative { 0xff } else { 0 });
    }
    match abi_scalars(ty) {
        Some(pieces) => {
            let align = pieces.iter().map(|p| p.1).max().unwrap_or(1).clamp(1, 16);
            let pieces = pieces
                .into_iter()
                .map(|(o, s, k)| {
                    let k = match k {
                        AbiScalar::Int => Scalar::Int,
                        AbiScalar::Float => Scalar::Float,
                        AbiScalar::X87 => Scalar::X87,
                    };
                    (o, s, k)
                })
                .collect();
            AbiValue {
                bytes,
                align,
                pieces,
                memory: false,
            }
        }
        None => AbiValue {
            bytes,
            align: 8,
            pieces: Vec::new(),
            memory: true,
        },
    }
}

/// The thread a call runs on and the program's entry point (the call returns there).
fn call_site(dbg: &Debugger) -> Result<(i32, u64), DwarfError> {
    let tid = dbg
        .session
        .current_thread()
        .ok_or_else(|| user("You can't do that without a process to debug."))?;
    let syms = dbg.session.symbols();
    let main = syms
        .objects()
        .next()
        .ok_or_else(|| user("You can't do that without a process to debug."))?;
    Ok((tid, main.bias.wrapping_add(main.file.entry())))
}

/// Copy `bytes` below the stack pointer of the current thread, under what an earlier call
/// of the same evaluation put there (`low`): their address.
pub(crate) fn push(
    dbg: &Debugger,
    low: &Cell<Option<u64>>,
    bytes: &[u8],
) -> Result<u64, DwarfError> {
    let p = dbg
        .session
        .process()
        .ok_or_else(|| user("You can't do that without a process to debug."))?;
    let sp = dbg.session.registers(false).map_err(engine_err)?.sp();
    let top = low
        .get()
        .unwrap_or_else(|| sp.wrapping_sub(p.arch().red_zone));
    let at = top.wrapping_sub(bytes.len() as u64) & !15;
    p.write_memory_shared(at, bytes).map_err(engine_err)?;
    low.set(Some(at));
    Ok(at)
}

fn engine_err(e: cohort_engine::EngineError) -> DwarfError {
    user(e.to_string())
}

/// gdb's words when another thread stops the program during a call.
const OTHER_THREAD: &str =
    "The program stopped in another thread while making a function call from GDB.";

/// gdb's last words on a call left where it stopped.
const SILENT: &str = "When the function is done executing, GDB will silently stop.";

/// Make the call; show a stop inside it as gdb does, and leave the thread there (a dummy
/// frame) or put it back.
pub(crate) fn call(
    dbg: &Debugger,
    low: &Cell<Option<u64>>,
    call: &FunctionCall,
) -> Result<Vec<u8>, DwarfError> {
    let (tid, return_addr) = call_site(dbg)?;
    let p = dbg
        .session
        .process()
        .ok_or_else(|| user("You can't do that without a process to debug."))?;
    let void = matches!(call.ret.strip().kind, TypeKind::Void);
    let req = CallRequest {
        func: call.address,
        args: call
            .args
            .iter()
            .map(|(t, b)| abi_value(t, b.clone()))
            .collect(),
        ret: (!void).then(|| abi_value(&call.ret, vec![0; call.ret.byte_size() as usize])),
        return_addr,
        stack_top: low.get(),
        // gdb's `unwind-on-terminating-exception` (on by default): a breakpoint on
        // std::terminate() during the call.
        terminate: if dbg.settings.on("unwind-on-terminating-exception") {
            dbg.session.symbols().lookup_minimal("_ZSt9terminatev")
        } else {
            None
        },
        others_run: dbg.settings.get("scheduler-locking") != "on",
    };
    let mut run = p.call_function(tid, &req).map_err(engine_err)?;
    // Each breakpoint there whose condition holds counts the hit; one with an ignore count
    // still to use up does not stop the call, nor does one whose condition is false (as
    // gdb). The hits are counted once the command is done (`Debugger::call_hits`).
    let mut stops: Vec<u32> = Vec::new();
    loop {
        let (pc, hit) = match run.stop {
            CallStop::Breakpoint(pc) => (pc, tid),
            CallStop::ThreadBreakpoint { tid: t, addr } => (addr, t),
            _ => break,
        };
        // The condition is the thread's that hit the breakpoint.
        dbg.session.switch_thread(hit);
        dbg.invalidate_frames();
        let ids: Vec<u32> = dbg
            .session
            .breakpoints_at(pc)
            .into_iter()
            .filter(|&id| dbg.condition_holds_now(id))
            .collect();
        stops = ids
            .iter()
            .copied()
            .filter(|&id| hit_stops(dbg, id))
            .collect();
        dbg.call_hits.borrow_mut().extend(ids);
        if !stops.is_empty() {
            break;
        }
        dbg.session.switch_thread(tid);
        dbg.invalidate_frames();
        run = p.call_resume(run).map_err(engine_err)?;
    }
    // gdb names the function by its symbol at the address: C++ with its parameters.
    let name = dbg
        .value_symbol(call.address)
        .unwrap_or_else(|| call.name.clone());
    let abandoned = format!(
        "Evaluation of the expression containing the function\n({name}) will be abandoned."
    );
    match run.stop.clone() {
        CallStop::Returned(mut bytes) => {
            p.call_restore(run).map_err(engine_err)?;
            bytes.truncate(call.ret.byte_size() as usize);
            Ok(bytes)
        }
        CallStop::Signal(sig) => {
            let (name, desc) = describe(sig.raw());
            let what = format!("received signal {name}, {desc}");
            out(format!(
                "{}.",
                stop_head(dbg, tid, &what, &format!("Program {what}"))
            ));
            dbg.invalidate_frames();
            show_stop(dbg);
            if dbg.settings.on("unwindonsignal") {
                p.call_restore(run).map_err(engine_err)?;
                dbg.invalidate_frames();
                return Err(user(format!(
                    "The program being debugged was signaled while in a function called from GDB.\n\
                     GDB has restored the context to what it was before the call.\n\
                     To change this behavior use \"set unwindonsignal off\".\n{abandoned}"
                )));
            }
            p.call_keep(run).map_err(engine_err)?;
            dbg.invalidate_frames();
            Err(user(format!(
                "The program being debugged was signaled while in a function called from GDB.\n\
                 GDB remains in the frame where the signal was received.\n\
                 To change this behavior use \"set unwindonsignal on\".\n{abandoned}\n{SILENT}"
            )))
        }
        CallStop::Breakpoint(pc) => {
            // gdb names the first breakpoint there that stops; a `silent` one shows nothing.
            dbg.invalidate_frames();
            let first = stops.first().copied().unwrap_or(0);
            let what = breakpoint_kind(dbg, first);
            let num = dbg.breakpoint_label(first, pc);
            dbg.invalidate_frames();
            if !dbg.breakpoint_silent(first) {
                out(format!(
                    "{}, {}",
                    stop_head(
                        dbg,
                        tid,
                        &format!("hit {what} {num}"),
                        &format!("{what} {num}")
                    ),
                    dbg.frame0_line()
                ));
                dbg.print_source_line_at(pc);
                dbg.call_stopped.set(true);
            }
            p.call_keep(run).map_err(engine_err)?;
            dbg.invalidate_frames();
            Err(user(format!(
                "The program being debugged stopped while in a function called from GDB.\n\
                 {abandoned}\n{SILENT}"
            )))
        }
        CallStop::ThreadBreakpoint { tid: hit, addr } => {
            // gdb switches to the thread that hit it, and leaves the call where it was.
            let first = stops.first().copied().unwrap_or(0);
            let what = breakpoint_kind(dbg, first);
            let num = dbg.breakpoint_label(first, addr);
            p.call_keep(run).map_err(engine_err)?;
            dbg.invalidate_frames();
            if !dbg.breakpoint_silent(first) {
                out(format!(
                    "{}hit {what} {num}, {}",
                    thread_head(dbg, hit),
                    dbg.frame0_line()
                ));
                dbg.print_source_line_at(addr);
                dbg.call_stopped.set(true);
            }
            Err(user(format!("{OTHER_THREAD}\n{abandoned}\n{SILENT}")))
        }
        CallStop::ThreadSignal { tid: hit, sig } => {
            let (sname, desc) = describe(sig.raw());
            dbg.session.switch_thread(hit);
            p.call_keep(run).map_err(engine_err)?;
            dbg.invalidate_frames();
            // gdb names the signal first, then the switch.
            let (num, name) = thread_name(dbg, hit);
            out(format!(
                "\nThread {num} \"{name}\" received signal {sname}, {desc}."
            ));
            let head = thread_head(dbg, hit);
            if let Some(switch) = head.strip_suffix(&format!("\nThread {num} \"{name}\" ")) {
                out(switch.trim_end_matches('\n'));
            }
            show_stop(dbg);
            Err(user(format!(
                "The program received a signal in another thread while\n\
                 making a function call from GDB.\n{abandoned}\n{SILENT}"
            )))
        }
        CallStop::Terminate => {
            p.call_restore(run).map_err(engine_err)?;
            dbg.invalidate_frames();
            Err(user(format!(
                "The program being debugged entered a std::terminate call, most likely\n\
                 caused by an unhandled C++ exception.  GDB blocked this call in order\n\
                 to prevent the program from being terminated, and has restored the\n\
                 context to its original state before the call.\n\
                 To change this behaviour use \"set unwind-on-terminating-exception off\".\n\
                 Evaluation of the expression containing the function ({name})\n\
                 will be abandoned."
            )))
        }
        CallStop::Exited(_) | CallStop::Killed(_) => {
            let _ = p.call_restore(run);
            Err(user(format!(
                "The program being debugged exited while in a function called from GDB.\n{abandoned}"
            )))
        }
    }
}

/// The head of a stop report in the calling thread `tid`: `\nThread 1 "name" THREADED` once
/// the program has had a second thread, else `\nPLAIN` (as gdb).
fn stop_head(dbg: &Debugger, tid: i32, threaded: &str, plain: &str) -> String {
    if dbg
        .session
        .process()
        .is_some_and(|p| p.highest_thread_num() > 1)
    {
        format!("{}{threaded}", thread_head(dbg, tid))
    } else {
        format!("\n{plain}")
    }
}

/// The head of a stop report in thread `tid`, another than the one reported last:
/// `[Switching to Thread …]` and `\nThread 2 "name" ` (the thread is then the one reported).
fn thread_head(dbg: &Debugger, tid: i32) -> String {
    let mut s = String::new();
    if dbg.last_tid.get() != Some(tid)
        && let Some(p) = dbg.session.process()
    {
        let pointer = p.thread_pointer(tid);
        s.push_str(&format!(
            "[Switching to {}]\n",
            crate::debugger::thread_target(pointer, tid, dbg.session.pid())
        ));
        dbg.last_tid.set(Some(tid));
    }
    let (num, name) = thread_name(dbg, tid);
    s.push_str(&format!("\nThread {num} \"{name}\" "));
    s
}

/// gdb's number and the name of thread `tid`.
fn thread_name(dbg: &Debugger, tid: i32) -> (usize, String) {
    dbg.session
        .process()
        .map(|p| (p.thread_num(tid).unwrap_or(1), p.thread_name(tid)))
        .unwrap_or((1, String::new()))
}

/// Whether a hit of breakpoint `id` now stops the program: its ignore count, less the hits
/// of this command not counted yet, is used up.
fn hit_stops(dbg: &Debugger, id: u32) -> bool {
    let pending = dbg.call_hits.borrow().iter().filter(|&&h| h == id).count() as u64;
    dbg.session
        .breakpoints()
        .iter()
        .find(|b| b.id == id)
        .is_some_and(|b| b.ignore <= pending)
}

/// The frame line and source line of the thread where it stopped inside the call.
fn show_stop(dbg: &Debugger) {
    out(dbg.frame0_line());
    if let Ok(regs) = dbg.session.registers(false) {
        dbg.print_source_line_at(regs.pc());
    }
    dbg.call_stopped.set(true);
}

/// How gdb names breakpoint `id` in a stop: `Temporary breakpoint` or `Breakpoint`.
fn breakpoint_kind(dbg: &Debugger, id: u32) -> &'static str {
    let temporary = dbg
        .session
        .breakpoints()
        .iter()
        .any(|b| b.id == id && b.temporary);
    if temporary {
        "Temporary breakpoint"
    } else {
        "Breakpoint"
    }
}
