//! `cohort`: the command line of the Cohort debugger.
//!
//! The gdb-compatible invocation (`cohort [-q] [-nx] [-batch] [-ex CMD]... [-x FILE]
//! [--args] PROGRAM [ARGS...]` and `-p PID`) is parsed by hand: gdb's single-dash long options
//! (`-ex`, `-batch`) are not something clap parses (see docs/HANDWRITTEN.md).

mod cuda;
mod report;

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use cohort_engine::tracer::Tracer;

use cohort_debugger::{Debugger, Flow};

#[derive(Debug, Default)]
struct Options {
    batch: bool,
    commands: Vec<Cmd>,
    program: Option<PathBuf>,
    args: Vec<String>,
    /// `-p PID` as given: read as gdb's `attach` reads it (`Illegal process-id: foo.`).
    pid: Option<String>,
    /// `PROGRAM CORE` or `-c CORE`: a core file to examine (gdb's `core-file`).
    core: Option<PathBuf>,
    /// `--cuda-library PATH`: where the CUDA driver's debugger API is loaded from.
    cuda_library: Option<PathBuf>,
}

use cohort_session::parallel::{self, Cmd};

const USAGE: &str = "Usage: cohort [-q] [-nx] [-batch] [-ex CMD]... [-x FILE] [--cuda-library PATH] PROGRAM [CORE]\n       cohort [-q] [-nx] [-batch] [-ex CMD]... [-x FILE] [--cuda-library PATH] --args PROGRAM [ARGS...]\n       cohort [-q] [-nx] [-batch] [-ex CMD]... [--cuda-library PATH] -p PID";

/// The subcommands, as `cohort --help` lists them.
const SUBCOMMANDS: &str = "\nSubcommands (each takes --help):
  cohort launch    start a job of N ranks under the debugger (or examine a core per rank)
  cohort attach    attach to the ranks of a running MPI or Slurm job
  cohort offline   run a job unattended and write a report of its breakpoints and values
  cohort demo      a small parallel program under cohort, with its report
  cohort cuda      debug a CUDA program (cuda-gdb's command line)";

/// The usage of `cohort SUBCOMMAND --help`; None when it is not asked for.
fn subcommand_help(argv: &[String]) -> Option<String> {
    let (sub, rest) = argv.split_first()?;
    let usage = match sub.as_str() {
        "launch" => parallel::LAUNCH_USAGE,
        "attach" => parallel::ATTACH_USAGE,
        "offline" => report::OFFLINE_USAGE,
        "demo" => "Usage: cohort demo [-o REPORT.html]",
        "cuda" => cuda::CUDA_USAGE,
        _ => return None,
    };
    rest.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--help" || a == "-h")
        .then(|| usage.to_string())
}

fn parse_args(argv: &[String]) -> anyhow::Result<Options> {
    let mut o = Options::default();
    let mut i = 0;
    let mut rest_are_args = false;
    while i < argv.len() {
        let a = argv[i].as_str();
        let next = |i: usize| {
            argv.get(i + 1)
                .cloned()
                .with_context(|| format!("option '{a}' requires an argument\n{USAGE}"))
        };
        if o.program.is_some() && rest_are_args {
            o.args.push(a.to_string());
            i += 1;
            continue;
        }
        match a {
            "-batch" | "--batch" => o.batch = true,
            "--cuda-library" => {
                o.cuda_library = Some(PathBuf::from(next(i)?));
                i += 1;
            }
            "-q" | "-quiet" | "--quiet" | "-silent" | "-nx" | "--nx" | "-n" | "-nh" => {}
            "-ex" | "--ex" | "-eval-command" | "--eval-command" => {
                o.commands.push(Cmd::Line(next(i)?));
                i += 1;
            }
            "-x" | "--x" | "-command" | "--command" => {
                o.commands.push(Cmd::File(PathBuf::from(next(i)?)));
                i += 1;
            }
            "-c" | "-core" | "--core" => {
                o.core = Some(PathBuf::from(next(i)?));
                i += 1;
            }
            "-p" | "--pid" | "-pid" => {
                o.pid = Some(next(i)?);
                i += 1;
            }
            "--args" | "-args" => rest_are_args = true,
            "-h" | "--help" => {
                println!("{USAGE}\n{SUBCOMMANDS}");
                std::process::exit(0);
            }
            "--version" | "-version" => {
                println!("cohort {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            _ if a.starts_with('-') && o.program.is_none() => {
                bail!("unrecognized option '{a}'\n{USAGE}")
            }
            _ => {
                if o.program.is_none() {
                    o.program = Some(PathBuf::from(a));
                } else if !rest_are_args && o.pid.is_none() && a.parse::<i32>().is_ok() {
                    // gdb PROGRAM PID
                    o.pid = Some(a.to_string());
                } else if !rest_are_args && o.core.is_none() && o.pid.is_none() {
                    // gdb PROGRAM CORE
                    o.core = Some(PathBuf::from(a));
                } else {
                    o.args.push(a.to_string());
                }
            }
        }
        i += 1;
    }
    Ok(o)
}

/// `cohort gui ARGS`: the window, `cohort-gui` (installed next to `cohort`), with the same
/// arguments.
fn gui_main(args: &[String]) -> anyhow::Result<i32> {
    let me = std::env::current_exe().context("finding cohort's own path")?;
    let gui = me.with_file_name("cohort-gui");
    let gui = if gui.exists() {
        gui
    } else {
        PathBuf::from("cohort-gui")
    };
    let status = std::process::Command::new(&gui)
        .args(args)
        .status()
        .with_context(|| format!("starting {}", gui.display()))?;
    Ok(status.code().unwrap_or(1))
}

fn main() -> anyhow::Result<()> {
    // Logs only when asked for (`COHORT_LOG=cohort_cuda=trace`, say): the front end's own
    // output is gdb's, and a log line in it would change it.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("COHORT_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    // `--help` (or `-h`) before `--`: the subcommand's usage, on standard output.
    if let Some(usage) = subcommand_help(&argv) {
        println!("{usage}");
        std::process::exit(0);
    }
    // `cohort cuda ...` is the front end below with `--cuda-library` (cli/src/cuda.rs).
    if argv.first().map(String::as_str) == Some("cuda") {
        argv = match cuda::gdb_arguments(&argv[1..]) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{e:#}");
                std::process::exit(1);
            }
        };
    }
    type Sub = fn(&[String]) -> anyhow::Result<i32>;
    let sub: Option<Sub> = match argv.first().map(String::as_str) {
        Some("launch") => Some(parallel::launch_main),
        Some("offline") => Some(report::offline_main),
        Some("attach") => Some(parallel::attach_main),
        Some("demo") => Some(report::demo_main),
        Some("gui") => Some(gui_main),
        _ => None,
    };
    if let Some(f) = sub {
        match f(&argv[1..]) {
            Ok(code) => std::process::exit(code),
            Err(e) => {
                eprintln!("{e:#}");
                std::process::exit(1);
            }
        }
    }
    let mut opts = match parse_args(&argv) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e:#}");
            std::process::exit(1);
        }
    };
    let batch = opts.batch;
    let cuda_library = opts.cuda_library.clone();
    let tracer = Tracer::spawn("cohort-tracer", move || {
        let mut d = Debugger::new(batch);
        d.set_cuda_library(cuda_library);
        d
    })
    .context("starting the tracer thread")?;
    let tracer = std::rc::Rc::new(tracer);

    // Ctrl-C goes to the program (same terminal); the debugger itself must survive it.
    // SAFETY: installing SIG_IGN for SIGINT is a plain signal-disposition change.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }

    // As gdb: loading the program, attaching and then each `-ex`/`-x` in turn; in batch mode
    // the exit status is 1 when the last of them failed (docs/ARCHITECTURE.md).
    let program = opts.program.clone();
    let args = std::mem::take(&mut opts.args);
    let pid = opts.pid.clone();
    let core = opts.core.clone();
    let commands: Vec<Cmd> = std::mem::take(&mut opts.commands);
    // The whole start runs as one job on the tracer thread: no round trip between threads
    // per command (it matters for scripts that continue thousands of times).
    let (quit, ok) = tracer
        .call(move |d| {
            let mut ok = true;
            if let Some(prog) = program {
                d.session.args = args.into_iter().map(Into::into).collect();
                if let Err(e) = d.session.load_program(&prog) {
                    cohort_debugger::errln!("{e}");
                    ok = false;
                }
            }
            if let Some(core) = core {
                ok = d
                    .load_core(&core)
                    .map_err(|e| cohort_debugger::errln!("{e}"))
                    .is_ok();
            }
            if let Some(pid) = pid {
                ok = d
                    .cmd_attach(&pid)
                    .map_err(|e| cohort_debugger::errln!("{e}"))
                    .is_ok();
            }
            for c in commands {
                match run_cmd(d, c, batch) {
                    Some(Flow::Quit) => return (true, ok),
                    Some(Flow::Go) => ok = true,
                    None => ok = false,
                }
            }
            (false, ok)
        })
        .unwrap_or((true, false));
    if !batch && !quit {
        let run = |line: String| -> Flow {
            tracer
                .call(move |d| {
                    d.from_tty = true;
                    d.execute(&line)
                })
                .unwrap_or(Flow::Quit)
        };
        let stdin = std::io::stdin();
        let mut line = String::new();
        let mut last = String::new();
        // A terminal gets line editing, history and completion (src/terminal.rs).
        let mut term = (std::io::IsTerminal::is_terminal(&stdin)
            && std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .then(|| {
            let t = tracer.clone();
            cohort_session::terminal::Terminal::new(Box::new(move |text| {
                t.call(move |d| d.completions(&text)).unwrap_or_default()
            }))
            .ok()
        })
        .flatten();
        loop {
            // Inside a `define`, `while`, `if` or `commands` block gdb prompts with `>`.
            let prompt = tracer
                .call(|d| d.in_block().then(|| d.block_prompt()))
                .ok()
                .flatten();
            let block = prompt.is_some();
            line.clear();
            if let Some(t) = term.as_mut() {
                match t.read(prompt.as_deref().unwrap_or("(cohort) ")) {
                    cohort_session::terminal::Line::Text(l) => line = l,
                    cohort_session::terminal::Line::Interrupted => {
                        // gdb: Ctrl-C drops the line and prompts again.
                        println!("Quit");
                        continue;
                    }
                    cohort_session::terminal::Line::Eof => {
                        println!("quit");
                        if tracer.call(|d| d.history_save()).unwrap_or(false) {
                            t.save();
                        }
                        run("quit".into());
                        break;
                    }
                }
            } else {
                print!("{}", prompt.as_deref().unwrap_or("(cohort) "));
                let _ = std::io::stdout().flush();
            }
            match term
                .as_ref()
                .map_or_else(|| stdin.lock().read_line(&mut line), |_| Ok(1))
            {
                Ok(0) | Err(_) => {
                    // gdb quits at the end of its input; a terminal sees the word.
                    if std::io::IsTerminal::is_terminal(&stdin) {
                        println!("quit");
                    }
                    run("quit".into());
                    break;
                }
                Ok(_) => {}
            }
            let mut l = line.trim().to_string();
            // An empty line repeats the last command, as in gdb (not inside a block).
            if block {
            } else if l.is_empty() {
                l = last.clone();
            } else {
                last = l.clone();
            }
            if run(l) == Flow::Quit {
                if let Some(t) = term.as_mut()
                    && tracer.call(|d| d.history_save()).unwrap_or(false)
                {
                    t.save();
                }
                break;
            }
        }
    }
    let code = tracer
        .call(|d| {
            d.finish();
            d.quit_code
        })
        .ok()
        .flatten();
    // gdb: `quit N` exits with N; at the end of a batch run, 1 when the last command failed.
    std::process::exit(match code {
        Some(c) => c & 0xff,
        None if batch && !quit && !ok => 1,
        None => 0,
    })
}

/// Run one `-ex` command or `-x` script on the tracer thread; None when it failed (a script
/// stops at its first failing command, said as gdb says it).
fn run_cmd(d: &mut Debugger, c: Cmd, batch: bool) -> Option<Flow> {
    match c {
        // gdb reads comments in scripts and typed lines only: `-ex '# …'` is a command
        // without a name.
        Cmd::Line(l) if l.trim_start().starts_with('#') => {
            cohort_debugger::errln!("Undefined command: \"\".  Try \"help\".");
            None
        }
        Cmd::Line(l) => {
            d.from_tty = !batch;
            d.run_command(&l)
                .map_err(|e| cohort_debugger::errln!("{e}"))
                .ok()
        }
        Cmd::File(f) => {
            // As gdb's `-x FILE`: `source FILE`, typed by the user outside batch mode.
            d.from_tty = !batch;
            d.source_file(&f.display().to_string(), false)
                .map_err(|e| cohort_debugger::errln!("{e}"))
                .ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: &[&str]) -> Options {
        parse_args(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn gdb_style_arguments() {
        let o = p(&[
            "-nx", "-batch", "-ex", "run", "-ex", "bt", "--args", "prog", "-x", "1",
        ]);
        assert!(o.batch);
        assert_eq!(o.commands.len(), 2);
        assert_eq!(o.program, Some(PathBuf::from("prog")));
        assert_eq!(o.args, vec!["-x", "1"]);
        let o = p(&["-q", "-p", "123", "-x", "cmds"]);
        assert_eq!(o.pid.as_deref(), Some("123"));
        assert!(matches!(&o.commands[0], Cmd::File(f) if f == &PathBuf::from("cmds")));
        assert!(parse_args(&["-p".to_string()]).is_err());
        assert!(parse_args(&["--bogus".to_string()]).is_err());
    }

    #[test]
    fn program_and_core() {
        let o = p(&["-batch", "prog", "core.12"]);
        assert_eq!(o.core, Some(PathBuf::from("core.12")));
        assert!(o.args.is_empty() && o.pid.is_none());
        let o = p(&["-c", "core", "prog"]);
        assert_eq!(o.core, Some(PathBuf::from("core")));
        assert_eq!(o.program, Some(PathBuf::from("prog")));
        // `--args`: the second word is an argument, a number a PID.
        assert!(p(&["--args", "prog", "core"]).core.is_none());
        assert_eq!(p(&["prog", "77"]).pid.as_deref(), Some("77"));
    }
}
