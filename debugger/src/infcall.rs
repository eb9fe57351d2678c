//! Functions of the program called from expressions (`print f(2.0)`, `call g()`,
//! `print obj.method()`): the engine runs the call ([`cohort_engine::process::CallRequest`]);
//! this module turns the evaluator's typed arguments into the calling convention's values
//! and reports a call that did not return as gdb does.
//!
//! A breakpoint inside the called function ends the evaluation and leaves the thread there,
//! below a dummy frame (`<function called from gdb>` in a backtrace): when the function
//! returns to it, the thread is put back as it was before the call and stops silently
//! (`Event::CallReturned`). A signal does the same, unless `set unwindonsignal on`: then
//! the thread is put back at once. gdb 13 does both.

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
    };
    let mut run = p.call_function(tid, &req).map_err(engine_err)?;
    // A breakpoint inside whose condition is false does not stop the call (as gdb).
    while let CallStop::Breakpoint(pc) = run.stop {
        dbg.invalidate_frames();
        if dbg
            .session
            .breakpoints_at(pc)
            .into_iter()
            .any(|id| dbg.condition_holds_now(id))
        {
            break;
        }
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
            out(format!("\nProgram received signal {name}, {desc}."));
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
            // gdb names the first breakpoint there whose condition holds; each of them
            // counts the hit.
            dbg.invalidate_frames();
            let ids: Vec<u32> = dbg
                .session
                .breakpoints_at(pc)
                .into_iter()
                .filter(|&id| dbg.condition_holds_now(id))
                .collect();
            let first = ids.first().copied().unwrap_or(0);
            let temporary = dbg
                .session
                .breakpoints()
                .iter()
                .any(|b| b.id == first && b.temporary);
            let what = if temporary {
                "Temporary breakpoint"
            } else {
                "Breakpoint"
            };
            let num = dbg.breakpoint_label(first, pc);
            dbg.invalidate_frames();
            out(format!("\n{what} {num}, {}", dbg.frame0_line()));
            dbg.print_source_line_at(pc);
            dbg.call_hits.borrow_mut().extend(ids);
            p.call_keep(run).map_err(engine_err)?;
            dbg.invalidate_frames();
            Err(user(format!(
                "The program being debugged stopped while in a function called from GDB.\n\
                 {abandoned}\n{SILENT}"
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

/// The frame line and source line of the thread where it stopped inside the call.
fn show_stop(dbg: &Debugger) {
    out(dbg.frame0_line());
    if let Ok(regs) = dbg.session.registers(false) {
        dbg.print_source_line_at(regs.pc());
    }
}
