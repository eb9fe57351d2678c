//! `cohort cuda`: a CUDA program under Cohort's CUDA layer (cuda-backend: the driver's CUDBG
//! API, no cuda-gdb), driven by cuda-gdb's commands:
//!
//!     cohort cuda [--library LIBCUDA] [-batch] [-ex CMD]... [-x FILE] [--args] PROGRAM [ARGS...]
//!
//! The program is started and stopped when the CUDA driver initialises; then `break` (device
//! code: `FILE:LINE`, `KERNEL`), `run`/`continue`, `info cuda devices|kernels|blocks|threads`,
//! `cuda ...` focus, `print`, `stepi`, `delete`, `quit`. Commands from `-ex`/`-x` run first;
//! without `-batch` more are read from standard input.

use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};

pub fn cuda_main(argv: &[String]) -> anyhow::Result<i32> {
    let mut library: Option<PathBuf> = None;
    let mut batch = false;
    let mut cmds: Vec<String> = Vec::new();
    let mut program: Option<PathBuf> = None;
    let mut args: Vec<OsString> = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        let mut value = || {
            i += 1;
            argv.get(i)
                .cloned()
                .with_context(|| format!("option {a} needs an argument"))
        };
        match a {
            "--library" => library = Some(PathBuf::from(value()?)),
            "-batch" | "--batch" => batch = true,
            "-q" | "-quiet" | "-nx" | "--nx" => {}
            "-ex" | "--eval-command" => cmds.push(value()?),
            "-x" | "--command" => {
                let f = value()?;
                let text = std::fs::read_to_string(&f).with_context(|| f.clone())?;
                cmds.extend(
                    text.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && !l.starts_with('#'))
                        .map(String::from),
                );
            }
            "--args" | "--" => {
                i += 1;
                if let Some(p) = argv.get(i) {
                    program = Some(PathBuf::from(p));
                    args = argv[i + 1..].iter().map(OsString::from).collect();
                }
                break;
            }
            _ if a.starts_with('-') => bail!("unrecognized option '{a}'"),
            _ => {
                program = Some(PathBuf::from(a));
                args = argv[i + 1..].iter().map(OsString::from).collect();
                break;
            }
        }
        i += 1;
    }
    let Some(program) = program else {
        bail!(
            "usage: cohort cuda [--library LIBCUDA] [-batch] [-ex CMD]... [-x FILE] [--args] PROGRAM [ARGS...]"
        );
    };
    let mut r = cohort_cuda::runner::Runner::launch(&program, &args, &[], library.as_deref())
        .with_context(|| format!("starting {} under CUDA", program.display()))?;
    let stdout = std::io::stdout();
    let mut run = |line: &str| -> bool {
        let l = line.trim();
        if l.is_empty() {
            return true;
        }
        if matches!(l, "quit" | "q") {
            return false;
        }
        let mut out = stdout.lock();
        match r.command(l) {
            Ok(text) => {
                let _ = out.write_all(text.as_bytes());
            }
            Err(e) => {
                let _ = out.flush();
                eprintln!("{e}");
            }
        }
        let _ = out.flush();
        true
    };
    for c in &cmds {
        if !run(c) {
            return Ok(0);
        }
    }
    if !batch {
        let stdin = std::io::stdin();
        loop {
            print!("(cohort) ");
            let _ = std::io::stdout().flush();
            let mut line = String::new();
            match stdin.lock().read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if !run(&line) {
                        break;
                    }
                }
            }
        }
    }
    Ok(0)
}
