//! Test fixtures: small C programs under `tests/fixtures`, compiled at test time with
//! `cc -g -O0` into `target/fixtures/`. Each fixture is built once per test run even when many
//! tests (and test binaries) ask for it concurrently.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

static LOCK: Mutex<()> = Mutex::new(());

/// Folder holding the fixture sources.
pub fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fixtures");
    std::fs::create_dir_all(&d).expect("create target/fixtures");
    d
}

/// Path of `tests/fixtures/NAME.c` compiled without debug information (`cc -O0`): at the
/// instruction level gdb's output for such a program is the oracle for cohort's.
pub fn program_nodebug(name: &str) -> PathBuf {
    let out = out_dir().join(format!("{name}-nodebug"));
    build(name, &out, &["-g0"])
}

fn build(name: &str, out: &Path, extra: &[&str]) -> PathBuf {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let src = source_dir().join(format!("{name}.c"));
    let fresh = match (std::fs::metadata(&src), std::fs::metadata(out)) {
        (Ok(s), Ok(o)) => o.modified().ok() >= s.modified().ok(),
        _ => false,
    };
    if !fresh {
        // Build under a unique name, then rename: other test binaries may build concurrently.
        let tmp = out.with_extension(tmp_extension());
        let st = Command::new("cc")
            .args(["-g", "-O0"])
            .args(extra)
            .arg("-o")
            .arg(&tmp)
            .arg(&src)
            .args(["-lpthread", "-ldl"])
            .status()
            .expect("run cc");
        assert!(st.success(), "compiling {name}.c failed");
        std::fs::rename(&tmp, out).expect("rename fixture");
    }
    out.to_path_buf()
}

/// Path of the compiled program `tests/fixtures/NAME.c`.
pub fn program(name: &str) -> PathBuf {
    let out = out_dir().join(name);
    build(name, &out, &[])
}

/// Path of the shared library built from `tests/fixtures/NAME.c` (as `libNAME.so`).
pub fn shared_library(name: &str) -> PathBuf {
    let out = out_dir().join(format!("lib{name}.so"));
    build(name, &out, &["-shared", "-fPIC"])
}

/// `libNAME-nodebug.so` built from `tests/fixtures/NAME.c` without debug information.
pub fn shared_library_nodebug(name: &str) -> PathBuf {
    let out = out_dir().join(format!("lib{name}-nodebug.so"));
    build(name, &out, &["-shared", "-fPIC", "-g0"])
}

/// Address of `sym` in the ELF file at `path` (link-time value, from `nm`), for tests that
/// check the engine below the symbol layer.
pub fn nm_address(path: &Path, sym: &str) -> u64 {
    let out = Command::new("nm").arg(path).output().expect("run nm");
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() == 3 && f[2] == sym {
            return u64::from_str_radix(f[0], 16).expect("nm address");
        }
    }
    panic!("{sym} not found in {}", path.display());
}

/// Folder holding the source-level differential cases (`tests/source`).
pub fn source_case_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("source")
}

/// One source-level differential case: a program built from `tests/source/NAME.c` and the
/// command script `tests/source/NAME.cmds`.
#[derive(Debug, Clone)]
pub struct SourceCase {
    /// The case's name (`NAME`).
    pub name: String,
    /// The built program, in `target/fixtures/source/`.
    pub program: PathBuf,
    /// Program arguments (the script's `#args:` line).
    pub args: Vec<String>,
    /// gdb commands, one per non-empty, non-comment line of the script.
    pub commands: Vec<String>,
    /// Commands gdb alone runs first (the `#gdb-sse-tdesc` header).
    pub gdb_prelude: Vec<String>,
    /// Hand-written output for commands where gdb is wrong (`#expect:` lines).
    pub expectations: Vec<Expectation>,
}

/// What a command must print where gdb 13 is wrong, written by hand in the script: the
/// `#expect:` (stdout) and `#expect-stderr:` lines after the command, one per output line,
/// and the `#reason:` that says why gdb's output is not the oracle there (required).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    /// The command's index in [`SourceCase::commands`].
    pub command: usize,
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
    pub reason: String,
}

/// The stdout marker before (`begin`) or after command `i`'s output.
fn stdout_marker(i: usize, begin: bool) -> String {
    format!("<<expect {i} {}>>\n", if begin { "begin" } else { "end" })
}

/// The command whose error (on stderr) marks the start or end of command `i`'s output.
fn stderr_marker_command(i: usize, begin: bool) -> String {
    format!("expect-{i}-{}", if begin { "begin" } else { "end" })
}

fn stderr_marker(i: usize, begin: bool) -> String {
    format!(
        "Undefined command: \"{}\".  Try \"help\".\n",
        stderr_marker_command(i, begin)
    )
}

/// `commands` with markers around each command that has an expectation: an `echo` on stdout
/// and an undefined command (its error) on stderr, before and after it.
pub fn commands_with_markers(commands: &[String], expectations: &[Expectation]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in commands.iter().enumerate() {
        let marked = expectations.iter().any(|e| e.command == i);
        if marked {
            out.push(format!(
                "echo {}",
                stdout_marker(i, true).replace('\n', "\\n")
            ));
            out.push(stderr_marker_command(i, true));
        }
        out.push(c.clone());
        if marked {
            out.push(format!(
                "echo {}",
                stdout_marker(i, false).replace('\n', "\\n")
            ));
            out.push(stderr_marker_command(i, false));
        }
    }
    out
}

/// Replace what the oracle printed for each expected command (between its markers) with the
/// expectation. An error when a marker is missing, or when gdb printed just what is expected
/// (the expectation is then stale: gdb is the oracle again).
pub fn apply_expectations(
    out: &str,
    err: &str,
    expectations: &[Expectation],
) -> Result<(String, String), String> {
    let splice = |text: &str, i: usize, lines: &[String], stream: &str| -> Result<String, String> {
        let (b, e) = match stream {
            "stdout" => (stdout_marker(i, true), stdout_marker(i, false)),
            _ => (stderr_marker(i, true), stderr_marker(i, false)),
        };
        let start = text
            .find(&b)
            .ok_or_else(|| format!("command {i}: no {stream} marker before it"))?
            + b.len();
        let end = start
            + text[start..]
                .find(&e)
                .ok_or_else(|| format!("command {i}: no {stream} marker after it"))?;
        let want: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Ok(format!("{}{want}{}", &text[..start], &text[end..]))
    };
    let mut o = out.to_string();
    let mut e = err.to_string();
    let mut stale = Vec::new();
    for x in expectations {
        let before = (o.clone(), e.clone());
        o = splice(&o, x.command, &x.stdout, "stdout")?;
        e = splice(&e, x.command, &x.stderr, "stderr")?;
        if (o.as_str(), e.as_str()) == (before.0.as_str(), before.1.as_str()) {
            stale.push(x.command);
        }
    }
    if !stale.is_empty() {
        return Err(format!(
            "gdb prints what the expectations of commands {stale:?} say: remove them"
        ));
    }
    Ok((o, e))
}

/// `text` without the markers of [`commands_with_markers`].
pub fn strip_markers(text: &str, expectations: &[Expectation]) -> String {
    let mut t = text.to_string();
    for x in expectations {
        for begin in [true, false] {
            t = t
                .replace(&stdout_marker(x.command, begin), "")
                .replace(&stderr_marker(x.command, begin), "");
        }
    }
    t
}

/// Reads `tests/source/NAME.cmds` and builds its program (once per test run).
///
/// The script's header lines set how the case is built and run:
/// - `#args: a b c` — program arguments (split on whitespace);
/// - `#cflags: -g -O2` — compiler flags, replacing the default `-g -O0`;
/// - `#strip: OPTIONS` — the program is a copy stripped with `strip OPTIONS` (no options:
///   `strip --strip-debug`);
/// - `#gdb-sse-tdesc` — gdb (the oracle) runs with the target description
///   `gdb-tdesc/amd64-sse.xml`, so that it can write registers (call functions) on CPUs
///   whose XSAVE area gdb 13 cannot write;
/// - `#compiler: clang++` — the compiler of the program's units (default `gcc`, or `g++`
///   for a `.cc` case);
/// - `#source: BASE` — the program is built from another case's sources (`BASE.cc`,
///   `BASE_b.c`, …), so one program can be a case per compiler and flags.
///
/// Sources: `NAME.c` (or `NAME.cc`, compiled with `g++`), an optional second unit `NAME_b.c`,
/// an optional unit without debug information `NAME_nodebug.c` (compiled `-g0 -O0`) and an
/// optional `libNAME.c` (and `libNAME_b.c`), built as `libNAME.so` (`libNAME_b.so`) next to
/// the program (the program dlopens `./libNAME.so`; the debugger runs in the program's
/// folder). Everything is compiled in `tests/source` with bare file names, so the debug
/// information names `NAME.c`.
pub fn source_case(name: &str) -> SourceCase {
    let dir = source_case_dir();
    let script_path = dir.join(format!("{name}.cmds"));
    let script = std::fs::read_to_string(&script_path)
        .unwrap_or_else(|e| panic!("read {}: {e}", script_path.display()));
    let mut args = Vec::new();
    let mut cflags: Vec<String> = vec!["-g".into(), "-O0".into()];
    let mut strip: Option<Vec<String>> = None;
    let mut commands = Vec::new();
    let mut gdb_prelude = Vec::new();
    let mut compiler: Option<String> = None;
    let mut base = name.to_string();
    let mut expectations: Vec<Expectation> = Vec::new();
    for line in script.lines() {
        let expect = |commands: &Vec<String>, expectations: &mut Vec<Expectation>| {
            let Some(command) = commands.len().checked_sub(1) else {
                panic!("{name}.cmds: an expectation before any command");
            };
            if expectations.last().is_none_or(|e| e.command != command) {
                expectations.push(Expectation {
                    command,
                    stdout: Vec::new(),
                    stderr: Vec::new(),
                    reason: String::new(),
                });
            }
        };
        let text = |rest: &str| rest.strip_prefix(' ').unwrap_or(rest).to_string();
        if let Some(rest) = line.strip_prefix("#expect:") {
            expect(&commands, &mut expectations);
            if let Some(x) = expectations.last_mut() {
                x.stdout.push(text(rest));
            }
        } else if let Some(rest) = line.strip_prefix("#expect-stderr:") {
            expect(&commands, &mut expectations);
            if let Some(x) = expectations.last_mut() {
                x.stderr.push(text(rest));
            }
        } else if let Some(rest) = line.strip_prefix("#reason:") {
            expect(&commands, &mut expectations);
            if let Some(x) = expectations.last_mut() {
                if !x.reason.is_empty() {
                    x.reason.push(' ');
                }
                x.reason.push_str(rest.trim());
            }
        } else if line.trim_end() == "#gdb-sse-tdesc" {
            gdb_prelude.push(format!(
                "set tdesc filename {}",
                dir.join("gdb-tdesc/amd64-sse.xml").display()
            ));
        } else if let Some(rest) = line.strip_prefix("#args:") {
            args = rest.split_whitespace().map(String::from).collect();
        } else if let Some(rest) = line.strip_prefix("#cflags:") {
            cflags = rest.split_whitespace().map(String::from).collect();
        } else if let Some(rest) = line.strip_prefix("#compiler:") {
            compiler = Some(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("#source:") {
            base = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("#strip") {
            let rest = rest.trim_start_matches(':');
            let mut opts: Vec<String> = rest.split_whitespace().map(String::from).collect();
            if opts.is_empty() {
                opts.push("--strip-debug".into());
            }
            strip = Some(opts);
        } else if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        } else {
            commands.push(line.trim_end().to_string());
        }
    }

    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fixtures/source");
    std::fs::create_dir_all(&out).expect("create target/fixtures/source");
    // A path without `..`: gdb prints it in some answers (`info symbol`, `info source`).
    let out = out
        .canonicalize()
        .expect("canonical target/fixtures/source");
    let cxx = dir.join(format!("{base}.cc")).exists();
    let main_src = if cxx {
        format!("{base}.cc")
    } else {
        format!("{base}.c")
    };
    let mut units = vec![main_src];
    let second = format!("{base}_b.c");
    if dir.join(&second).exists() {
        units.push(second);
    }
    // A unit without debug information: `NAME_nodebug.c`, or `NAME_nodebug.cc` for a C++
    // case (built by the case's compiler).
    let nodebug_cc = format!("{base}_nodebug.cc");
    let nodebug = if dir.join(&nodebug_cc).exists() {
        nodebug_cc
    } else {
        format!("{base}_nodebug.c")
    };
    let has_nodebug = dir.join(&nodebug).exists();
    // Libraries the program dlopens: `libNAME.c`, and a second one `libNAME_b.c`.
    // `libNAME.cc`: a C++ library (built by g++, whichever compiler builds the program, so
    // that the cases sharing it build the same library).
    let libs: Vec<String> = [format!("lib{base}"), format!("lib{base}_b")]
        .into_iter()
        .filter_map(|l| {
            ["c", "cc"]
                .iter()
                .map(|x| format!("{l}.{x}"))
                .find(|f| dir.join(f).exists())
        })
        .collect();

    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut inputs: Vec<PathBuf> = units.iter().map(|u| dir.join(u)).collect();
    inputs.push(script_path.clone());
    for l in &libs {
        inputs.push(dir.join(l));
    }
    if has_nodebug {
        inputs.push(dir.join(&nodebug));
    }
    let program = out.join(name);
    let newest_input = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max();
    let fresh = |p: &Path| match std::fs::metadata(p).and_then(|m| m.modified()) {
        Ok(t) => Some(t) >= newest_input,
        Err(_) => false,
    };
    for l in &libs {
        let (stem, cc) = match l.strip_suffix(".cc") {
            Some(stem) => (stem, "g++"),
            None => (l.strip_suffix(".c").unwrap_or(l), "gcc"),
        };
        let lib_out = out.join(format!("{stem}.so"));
        if !fresh(&lib_out) {
            let mut flags = cflags.clone();
            flags.extend(["-shared".into(), "-fPIC".into()]);
            compile(cc, &dir, &flags, std::slice::from_ref(l), &lib_out);
        }
    }
    if !fresh(&program) {
        if has_nodebug {
            let obj = out.join(format!("{name}_nodebug.o"));
            let flags: Vec<String> = ["-g0", "-O0", "-c"].map(String::from).to_vec();
            let cc = match nodebug.ends_with(".cc") {
                true => compiler.as_deref().unwrap_or("g++"),
                false => "gcc",
            };
            compile(cc, &dir, &flags, &[nodebug], &obj);
            units.push(obj.to_string_lossy().into_owned());
        }
        let compiler = compiler
            .as_deref()
            .unwrap_or(if cxx { "g++" } else { "gcc" });
        match &strip {
            None => compile(compiler, &dir, &cflags, &units, &program),
            Some(opts) => {
                let full = out.join(format!("{name}-unstripped"));
                compile(compiler, &dir, &cflags, &units, &full);
                let tmp = program.with_extension(tmp_extension());
                let st = Command::new("strip")
                    .args(opts)
                    .arg("-o")
                    .arg(&tmp)
                    .arg(&full)
                    .status()
                    .expect("run strip");
                assert!(st.success(), "strip {name} failed");
                std::fs::rename(&tmp, &program).expect("rename stripped program");
            }
        }
    }
    for x in &expectations {
        assert!(
            !x.reason.is_empty(),
            "{name}.cmds: the expectation for `{}` has no #reason: line (why gdb is wrong there)",
            commands[x.command]
        );
    }
    SourceCase {
        name: name.to_string(),
        program,
        args,
        commands,
        gdb_prelude,
        expectations,
    }
}

/// Compiles `units` (bare file names in `dir`) with `compiler` and `flags` into `out`, in `dir`.
fn compile(compiler: &str, dir: &Path, flags: &[String], units: &[String], out: &Path) {
    // Build under a unique name, then rename: other test binaries may build concurrently.
    let tmp = out.with_extension(tmp_extension());
    let mut c = Command::new(compiler);
    c.current_dir(dir)
        .args(flags)
        .arg("-o")
        .arg(&tmp)
        .args(units);
    if !flags.iter().any(|f| f == "-c") {
        c.args(["-lpthread", "-ldl"]);
    }
    let st = c.status().unwrap_or_else(|e| panic!("run {compiler}: {e}"));
    assert!(st.success(), "compiling {units:?} failed");
    std::fs::rename(&tmp, out).expect("rename built program");
}

/// What gdb (and cohort) print, with what varies from run to run taken out: gdb's
/// libthread_db banner lines and `[New Thread 0x… (LWP n)]` / `[Thread 0x… (LWP n) exited]`
/// / `[New LWP n]` (gdb's attach) lines are dropped (their order depends on scheduling), and the numbers after `process `
/// and `LWP ` become `N`.
pub fn normalize_gdb_output(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        if line.starts_with("[Thread debugging using libthread_db")
            || line.starts_with("Using host libthread_db library")
            || (line.starts_with("[New Thread ") && line.ends_with(")]"))
            || (line.starts_with("[New LWP ") && line.ends_with(']'))
            || (line.starts_with("[Thread ") && line.ends_with(" exited]"))
        {
            continue;
        }
        let mut l = line.to_string();
        for key in ["process ", "LWP "] {
            let mut res = String::new();
            let mut rest = l.as_str();
            while let Some(i) = rest.find(key) {
                res.push_str(&rest[..i + key.len()]);
                rest = &rest[i + key.len()..];
                let n = rest.chars().take_while(|c| c.is_ascii_digit()).count();
                if n > 0 {
                    res.push('N');
                }
                rest = &rest[n..];
            }
            res.push_str(rest);
            l = res;
        }
        // `info threads` pads its columns to the widest LWP number, which differs from run to
        // run: compare the table with single spaces.
        if is_thread_table_line(&l) {
            l = l
                .split(' ')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn is_thread_table_line(l: &str) -> bool {
    if l.trim_start().starts_with("Id   Target Id") {
        return true;
    }
    let mut c = l.chars();
    if !matches!(c.next(), Some('*' | ' ')) || c.next() != Some(' ') {
        return false;
    }
    let rest = c.as_str();
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && rest[digits..].trim_start().starts_with("Thread 0x")
}

/// `tests/fixtures/NAME.c` copied into its own folder (`target/fixture-dirs/TAG-NAME/`) and
/// compiled there as `cc -g -O0 -o NAME NAME.c` (relative names, as users build, so that the
/// debug information names `NAME.c`). Built once per test process: other tests of the process
/// may be running the program while a later one would rebuild it.
pub fn program_in_own_dir(name: &str, tag: &str) -> PathBuf {
    build_in_own_dir(&source_dir(), name, tag, "cc")
}

/// `tests/fixtures/NAME.f90` compiled with gfortran in its own folder, as
/// [`program_in_own_dir`] does.
pub fn fortran_program_in_own_dir(name: &str, tag: &str) -> PathBuf {
    build_in_own_dir(&source_dir(), name, tag, "gfortran")
}

/// `tests/mpi/NAME.c` (or `NAME.f90`) compiled with the MPI compiler wrapper `cc`
/// (`mpicc.openmpi`, `mpif90.mpich`, …, or a plain `cc` for the non-MPI ones) in its own
/// folder (`target/fixture-dirs/CC-NAME/`), as [`program_in_own_dir`] does.
pub fn mpi_program_in_own_dir(name: &str, cc: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("mpi");
    build_in_own_dir(&src, name, cc, cc)
}

fn build_in_own_dir(src_dir: &Path, name: &str, tag: &str, cc: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let dir = out_dir()
        .join("../fixture-dirs")
        .join(format!("{tag}-{name}"));
    std::fs::create_dir_all(&dir).expect("create the fixture's folder");
    let key = format!("{tag}-{name}");
    if built.contains(&key) {
        return dir.join(name);
    }
    built.push(key);
    let src = ["c", "f90"]
        .map(|ext| format!("{name}.{ext}"))
        .into_iter()
        .find(|f| src_dir.join(f).exists())
        .unwrap_or_else(|| format!("{name}.c"));
    std::fs::copy(src_dir.join(&src), dir.join(&src)).expect("copy the fixture");
    let st = Command::new(cc)
        .args(["-g", "-O0", "-o", name])
        .arg(&src)
        .current_dir(&dir)
        .status()
        .expect("run cc");
    assert!(st.success(), "compiling {name}.c failed");
    dir.canonicalize().unwrap_or(dir).join(name)
}

/// The one-host Slurm test cluster of `scripts/slurm-cluster.sh` (slurmctld and `nodes` slurmd
/// "nodes"), stopped when dropped. Clients need `SLURM_CONF` = [`SLURM_CONF`].
/// One test of a test binary at a time has it (the tests of a binary run in parallel, and
/// the cluster is one).
pub struct SlurmCluster {
    _one: std::sync::MutexGuard<'static, ()>,
}

/// Where the test cluster's configuration is.
pub const SLURM_CONF: &str = "/tmp/cohort-slurm/slurm.conf";

static SLURM_CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl SlurmCluster {
    pub fn start(nodes: u32) -> SlurmCluster {
        let one = SLURM_CLUSTER
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-cluster.sh");
        let st = Command::new(&script)
            .args(["start", &nodes.to_string()])
            .status()
            .expect("run scripts/slurm-cluster.sh");
        assert!(st.success(), "slurm-cluster.sh start failed");
        SlurmCluster { _one: one }
    }
}

impl Drop for SlurmCluster {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-cluster.sh");
        let _ = Command::new(script).arg("stop").status();
    }
}

/// Folder holding the Fortran cases (`tests/fortran`).
pub fn fortran_case_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fortran")
}

/// One Fortran case built by one compiler: `tests/fortran/NAME.f90` (and an optional second
/// unit `NAME_b.f90`, compiled first: it may define modules `NAME.f90` uses, and an optional
/// C unit `NAME_c.c`, for gfortran cases) with the script `tests/fortran/NAME.cmds`.
#[derive(Debug, Clone)]
pub struct FortranCase {
    /// The case's name (`NAME`).
    pub name: String,
    /// `gfortran` or `flang` (the compiler `flang-22`).
    pub compiler: String,
    /// The built program, in `target/fixtures/fortran/COMPILER/`.
    pub program: PathBuf,
    /// gdb commands, one per non-empty, non-comment line of the script.
    pub commands: Vec<String>,
    /// Environment for the debugger and the program (`# env: K=V ...`).
    pub env: Vec<(String, String)>,
    /// The hand-written expected output `NAME.COMPILER.expected` (stdout then stderr, as the
    /// harness joins them), when gdb is wrong for this case; `None`: gdb is the oracle.
    pub expected: Option<String>,
}

/// The compilers a Fortran case is for (its `# compilers:` header), in the order written.
pub fn fortran_case_compilers(name: &str) -> Vec<String> {
    let path = fortran_case_dir().join(format!("{name}.cmds"));
    let script =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    script
        .lines()
        .find_map(|l| l.strip_prefix("# compilers:"))
        .map(|r| r.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// Reads `tests/fortran/NAME.cmds` and builds `NAME` with `compiler` (`gfortran` or `flang`),
/// `-g -O0` plus the script's `# fflags:` (once per test process and only when a source is newer
/// than the program).
///
/// Header lines (comments for gdb): `# compilers: gfortran flang` (which compilers the case is
/// for; the build panics for another), `# fflags: -fopenmp`, `# env: OMP_NUM_THREADS=1`.
/// Sources are compiled in `tests/fortran` with bare file names (the debug information names
/// `NAME.f90`); module files go to the output folder.
pub fn fortran_case(name: &str, compiler: &str) -> FortranCase {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let dir = fortran_case_dir();
    let script_path = dir.join(format!("{name}.cmds"));
    let script = std::fs::read_to_string(&script_path)
        .unwrap_or_else(|e| panic!("read {}: {e}", script_path.display()));
    let mut fflags: Vec<String> = Vec::new();
    let mut env = Vec::new();
    let mut compilers: Vec<String> = Vec::new();
    let mut commands = Vec::new();
    for line in script.lines() {
        if let Some(rest) = line.strip_prefix("# compilers:") {
            compilers = rest.split_whitespace().map(String::from).collect();
        } else if let Some(rest) = line.strip_prefix("# fflags:") {
            fflags = rest.split_whitespace().map(String::from).collect();
        } else if let Some(rest) = line.strip_prefix("# env:") {
            for kv in rest.split_whitespace() {
                if let Some((k, v)) = kv.split_once('=') {
                    env.push((k.to_string(), v.to_string()));
                }
            }
        } else if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        } else {
            commands.push(line.trim_end().to_string());
        }
    }
    assert!(
        compilers.iter().any(|c| c == compiler),
        "case {name} is not for {compiler} (its # compilers: line says {compilers:?})"
    );
    let (driver, moddir_flag) = match compiler {
        "gfortran" => ("gfortran", "-J"),
        "flang" => ("flang-22", "-module-dir"),
        other => panic!("unknown Fortran compiler {other}"),
    };
    let out = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/fixtures/fortran")
        .join(compiler);
    std::fs::create_dir_all(&out).expect("create target/fixtures/fortran");
    let out = out.canonicalize().expect("canonical fixtures folder");
    let program = out.join(name);
    let mut units = Vec::new();
    // A C unit of the program (the gfortran driver compiles it with gcc).
    let c_unit = format!("{name}_c.c");
    if dir.join(&c_unit).exists() {
        units.push(c_unit);
    }
    let second = format!("{name}_b.f90");
    if dir.join(&second).exists() {
        units.push(second);
    }
    units.push(format!("{name}.f90"));
    let expected_path = dir.join(format!("{name}.{compiler}.expected"));
    let expected = std::fs::read_to_string(&expected_path).ok();

    let key = format!("{compiler}/{name}");
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.contains(&key) {
        let newest_input = units
            .iter()
            .map(|u| dir.join(u))
            .chain([script_path.clone()])
            .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
            .max();
        let fresh = match std::fs::metadata(&program).and_then(|m| m.modified()) {
            Ok(t) => Some(t) >= newest_input,
            Err(_) => false,
        };
        if !fresh {
            // Module files are per case: two cases may define modules of the same name.
            let moddir = out.join(format!("{name}.mod.d"));
            std::fs::create_dir_all(&moddir).expect("create the module folder");
            let mut flags: Vec<String> = vec!["-g".into(), "-O0".into()];
            flags.extend(fflags);
            flags.push(moddir_flag.into());
            flags.push(moddir.to_string_lossy().into_owned());
            let tmp = program.with_extension(tmp_extension());
            let st = Command::new(driver)
                .current_dir(&dir)
                .args(&flags)
                .arg("-o")
                .arg(&tmp)
                .args(&units)
                .status()
                .unwrap_or_else(|e| panic!("run {driver}: {e}"));
            assert!(st.success(), "compiling {units:?} with {driver} failed");
            std::fs::rename(&tmp, &program).expect("rename built program");
        }
        built.push(key);
    }
    FortranCase {
        name: name.to_string(),
        compiler: compiler.to_string(),
        program,
        commands,
        env,
        expected,
    }
}

/// Runs `tool -nx -batch -ex CMD… --args PROGRAM ARGS` in the program's folder with `env`
/// added, killing it after `limit`; returns normalised (stdout, stderr)
/// ([`normalize_gdb_output`]), with `<killed after Ns>` appended to stderr on a timeout.
pub fn run_debugger(
    tool: &str,
    program: &Path,
    args: &[String],
    commands: &[String],
    env: &[(String, String)],
    limit: std::time::Duration,
) -> (String, String) {
    let mut c = Command::new(tool);
    c.args(["-nx", "-batch"]);
    for x in commands {
        c.args(["-ex", x]);
    }
    c.arg("--args").arg(program).args(args);
    if let Some(d) = program.parent() {
        c.current_dir(d);
    }
    c.env_remove("LINES").env_remove("COLUMNS");
    for (k, v) in env {
        c.env(k, v);
    }
    let r = run_with_limit(c, limit);
    let out = normalize_gdb_output(&r.out);
    let mut err = normalize_gdb_output(&r.err);
    if r.status.is_none() {
        err.push_str(&format!("<killed after {}s>\n", limit.as_secs()));
    }
    (out, err)
}

/// What a command did: how it ended (`None`: killed after its time limit) and what it wrote.
#[derive(Debug)]
pub struct Ran {
    pub status: Option<std::process::ExitStatus>,
    pub out: String,
    pub err: String,
}

/// Runs `c` with standard input from `/dev/null` and its output collected, killing it after
/// `limit` (a command that hangs is a failure to report, not a test that never ends); a
/// command started as its own process group is killed with its whole group.
pub fn run_with_limit(mut c: Command, limit: std::time::Duration) -> Ran {
    use std::io::Read;
    use std::process::Stdio;
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap_or_else(|e| panic!("run {c:?}: {e}"));
    let mut so = child.stdout.take().expect("piped stdout");
    let mut se = child.stderr.take().expect("piped stderr");
    let ro = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let re = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().ok().flatten() {
            break Some(st);
        }
        if start.elapsed() > limit {
            // A command started as its own process group (`process_group(0)`) goes with
            // everything it started, which may hold the pipes open.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ran {
        status,
        out: String::from_utf8_lossy(&ro.join().unwrap_or_default()).into_owned(),
        err: String::from_utf8_lossy(&re.join().unwrap_or_default()).into_owned(),
    }
}

/// A line diff (longest common subsequence): `-` lines are `expected`'s, `+` lines `got`'s.
pub fn line_diff(expected: &str, got: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

/// A name for a temporary file next to a fixture being built: unique per process and per
/// test thread (tests of one binary build the same fixture at the same time).
pub fn tmp_extension() -> String {
    let t = std::thread::current();
    let name: String = t
        .name()
        .unwrap_or("main")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("tmp{}-{name}-{:?}", std::process::id(), t.id()).replace(['(', ')'], "")
}

/// A debugger driven at its prompt, as a person or a front end types to it: each command is
/// sent on standard input and its answer is everything up to the next prompt. Standard error
/// goes into the same pipe as standard output, so the two keep their order.
pub struct Interactive {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    prompt: String,
    /// What came after the last prompt (events printed after it), for the next answer.
    after: Vec<u8>,
}

impl Interactive {
    /// Start `cmd` with piped standard streams and wait (up to `limit`) for its first `prompt`.
    pub fn start(mut cmd: Command, prompt: &str, limit: std::time::Duration) -> Interactive {
        use std::io::Read;
        use std::process::Stdio;
        let (mut reader, writer) = std::io::pipe().expect("a pipe for the debugger's output");
        cmd.stdin(Stdio::piped())
            .stdout(writer.try_clone().expect("duplicate the pipe"))
            .stderr(writer);
        let child = cmd.spawn().expect("start the debugger");
        // The parent's copies of the write end went with `cmd`: the reader sees the end.
        drop(cmd);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut child = child;
        let stdin = child.stdin.take();
        let mut s = Interactive {
            child,
            stdin,
            rx,
            prompt: prompt.to_string(),
            after: Vec::new(),
        };
        if let Err(a) = s.until_prompt(limit) {
            panic!("no first prompt within {limit:?}: {a:?}");
        }
        s
    }

    /// Everything up to the next prompt; what follows it (a front end prints events after
    /// its prompt) starts the next answer.
    fn until_prompt(&mut self, limit: std::time::Duration) -> Result<String, String> {
        let deadline = std::time::Instant::now() + limit;
        let mut out = std::mem::take(&mut self.after);
        let p = self.prompt.as_bytes();
        loop {
            if let Some(i) = out.windows(p.len()).position(|w| w == p) {
                self.after = out.split_off(i + p.len());
                out.truncate(i);
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(b) => out.extend(b),
                Err(_) => return Err(String::from_utf8_lossy(&out).into_owned()),
            }
        }
    }

    /// Send `line` and wait for the answer (standard output and error, in order); `Err` with
    /// what came when the next prompt did not come within `limit`.
    pub fn command(&mut self, line: &str, limit: std::time::Duration) -> Result<String, String> {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("standard input open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write a command");
        stdin.flush().expect("flush a command");
        self.until_prompt(limit)
    }

    /// Close standard input (end of input) and wait up to `limit` for the debugger to exit.
    pub fn finish(mut self, limit: std::time::Duration) -> Option<std::process::ExitStatus> {
        self.stdin = None;
        let deadline = std::time::Instant::now() + limit;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Interactive {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod expectation_tests {
    use super::{Expectation, apply_expectations, commands_with_markers, strip_markers};

    fn exp(command: usize, stdout: &[&str], stderr: &[&str]) -> Expectation {
        Expectation {
            command,
            stdout: stdout.iter().map(|s| s.to_string()).collect(),
            stderr: stderr.iter().map(|s| s.to_string()).collect(),
            reason: "gdb is wrong".into(),
        }
    }

    #[test]
    fn markers_surround_only_the_expected_commands() {
        let cmds: Vec<String> = ["break 3", "run", "print x"].map(String::from).to_vec();
        assert_eq!(
            commands_with_markers(&cmds, &[exp(2, &["$1 = 1"], &[])]),
            [
                "break 3",
                "run",
                "echo <<expect 2 begin>>\\n",
                "expect-2-begin",
                "print x",
                "echo <<expect 2 end>>\\n",
                "expect-2-end",
            ]
        );
    }

    #[test]
    fn the_oracle_output_of_an_expected_command_is_replaced() {
        let undefined = |c: &str| format!("Undefined command: \"{c}\".  Try \"help\".\n");
        let out = "Breakpoint 1\n<<expect 1 begin>>\n$1 = 0x0x1\n<<expect 1 end>>\n$2 = 2\n";
        let err = format!(
            "{}warning: gdb's\n{}",
            undefined("expect-1-begin"),
            undefined("expect-1-end")
        );
        let x = [exp(1, &["$1 = 0x1"], &[])];
        let (o, e) = apply_expectations(out, &err, &x).unwrap();
        assert_eq!(strip_markers(&o, &x), "Breakpoint 1\n$1 = 0x1\n$2 = 2\n");
        assert_eq!(strip_markers(&e, &x), "");
        // Missing markers, and an expectation gdb now meets, are errors.
        assert!(apply_expectations("$1 = 0x0x1\n", &err, &x).is_err());
        let same = [exp(1, &["$1 = 0x0x1"], &["warning: gdb's"])];
        assert!(apply_expectations(out, &err, &same).is_err());
    }
}
