//! Run a CUDA program under Cohort's CUDA layer with a script of cuda-gdb commands, without
//! cuda-gdb: `cuda_batch [--library LIBCUDA] [-ex CMD]... [-x FILE] -- PROGRAM [ARGS...]`.
//! Prints a transcript: each command after `(cohort) ` and its output. Used by
//! scripts/gpu-check.sh on a machine with a GPU (the driver's libcuda.so.1 by default).
use std::ffi::OsString;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let mut library: Option<PathBuf> = None;
    let mut cmds: Vec<String> = Vec::new();
    let mut program: Option<PathBuf> = None;
    let mut prog_args: Vec<OsString> = Vec::new();
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--library") => library = args.next().map(PathBuf::from),
            Some("-ex") => cmds.push(
                args.next()
                    .ok_or("-ex needs a command")?
                    .to_string_lossy()
                    .into_owned(),
            ),
            Some("-x") => {
                let f = args.next().ok_or("-x needs a file")?;
                let text = std::fs::read_to_string(&f)?;
                cmds.extend(
                    text.lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(String::from),
                );
            }
            Some("--") => {
                program = args.next().map(PathBuf::from);
                prog_args = args.by_ref().collect();
            }
            _ => return Err(format!("unexpected argument {a:?}").into()),
        }
    }
    let program = program
        .ok_or("usage: cuda_batch [--library LIB] [-ex CMD]... [-x FILE] -- PROGRAM [ARGS...]")?;
    let mut r = cohort_cuda::runner::Runner::launch(&program, &prog_args, &[], library.as_deref())?;
    let lines: Vec<&str> = cmds.iter().map(String::as_str).collect();
    print!("{}", r.script(&lines));
    Ok(())
}
