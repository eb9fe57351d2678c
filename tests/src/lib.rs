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
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
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
}

/// Reads `tests/source/NAME.cmds` and builds its program (once per test run).
///
/// The script's header lines set how the case is built and run:
/// - `#args: a b c` — program arguments (split on whitespace);
/// - `#cflags: -g -O2` — compiler flags, replacing the default `-g -O0`;
/// - `#strip: OPTIONS` — the program is a copy stripped with `strip OPTIONS` (no options:
///   `strip --strip-debug`).
///
/// Sources: `NAME.c` (or `NAME.cc`, compiled with `g++`), an optional second unit `NAME_b.c`,
/// an optional unit without debug information `NAME_nodebug.c` (compiled `-g0 -O0`) and an
/// optional `libNAME.c`, built as `libNAME.so` next to the program (the program
/// dlopens `./libNAME.so`; the debugger runs in the program's folder). Everything is compiled
/// in `tests/source` with bare file names, so the debug information names `NAME.c`.
pub fn source_case(name: &str) -> SourceCase {
    let dir = source_case_dir();
    let script_path = dir.join(format!("{name}.cmds"));
    let script = std::fs::read_to_string(&script_path)
        .unwrap_or_else(|e| panic!("read {}: {e}", script_path.display()));
    let mut args = Vec::new();
    let mut cflags: Vec<String> = vec!["-g".into(), "-O0".into()];
    let mut strip: Option<Vec<String>> = None;
    let mut commands = Vec::new();
    for line in script.lines() {
        if let Some(rest) = line.strip_prefix("#args:") {
            args = rest.split_whitespace().map(String::from).collect();
        } else if let Some(rest) = line.strip_prefix("#cflags:") {
            cflags = rest.split_whitespace().map(String::from).collect();
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
    let cxx = dir.join(format!("{name}.cc")).exists();
    let main_src = if cxx {
        format!("{name}.cc")
    } else {
        format!("{name}.c")
    };
    let mut units = vec![main_src];
    let second = format!("{name}_b.c");
    if dir.join(&second).exists() {
        units.push(second);
    }
    let nodebug = format!("{name}_nodebug.c");
    let has_nodebug = dir.join(&nodebug).exists();
    let lib_src = format!("lib{name}.c");
    let has_lib = dir.join(&lib_src).exists();

    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut inputs: Vec<PathBuf> = units.iter().map(|u| dir.join(u)).collect();
    inputs.push(script_path.clone());
    if has_lib {
        inputs.push(dir.join(&lib_src));
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
    let lib_out = out.join(format!("lib{name}.so"));
    if has_lib && !fresh(&lib_out) {
        let mut flags = cflags.clone();
        flags.extend(["-shared".into(), "-fPIC".into()]);
        compile("gcc", &dir, &flags, &[lib_src], &lib_out);
    }
    if !fresh(&program) {
        if has_nodebug {
            let obj = out.join(format!("{name}_nodebug.o"));
            let flags: Vec<String> = ["-g0", "-O0", "-c"].map(String::from).to_vec();
            compile("gcc", &dir, &flags, &[nodebug], &obj);
            units.push(obj.to_string_lossy().into_owned());
        }
        let compiler = if cxx { "g++" } else { "gcc" };
        match &strip {
            None => compile(compiler, &dir, &cflags, &units, &program),
            Some(opts) => {
                let full = out.join(format!("{name}-unstripped"));
                compile(compiler, &dir, &cflags, &units, &full);
                let tmp = program.with_extension(format!("tmp{}", std::process::id()));
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
    SourceCase {
        name: name.to_string(),
        program,
        args,
        commands,
    }
}

/// Compiles `units` (bare file names in `dir`) with `compiler` and `flags` into `out`, in `dir`.
fn compile(compiler: &str, dir: &Path, flags: &[String], units: &[String], out: &Path) {
    // Build under a unique name, then rename: other test binaries may build concurrently.
    let tmp = out.with_extension(format!("tmp{}", std::process::id()));
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
/// lines are dropped (their order depends on scheduling), and the numbers after `process `
/// and `LWP ` become `N`.
pub fn normalize_gdb_output(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        if line.starts_with("[Thread debugging using libthread_db")
            || line.starts_with("Using host libthread_db library")
            || (line.starts_with("[New Thread ") && line.ends_with(")]"))
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
    std::fs::copy(
        source_dir().join(format!("{name}.c")),
        dir.join(format!("{name}.c")),
    )
    .expect("copy the fixture");
    let st = Command::new("cc")
        .args(["-g", "-O0", "-o", name])
        .arg(format!("{name}.c"))
        .current_dir(&dir)
        .status()
        .expect("run cc");
    assert!(st.success(), "compiling {name}.c failed");
    dir.canonicalize().unwrap_or(dir).join(name)
}

/// The one-host Slurm test cluster of `scripts/slurm-cluster.sh` (slurmctld and `nodes` slurmd
/// "nodes"), stopped when dropped. Clients need `SLURM_CONF` = [`SLURM_CONF`].
pub struct SlurmCluster;

/// Where the test cluster's configuration is.
pub const SLURM_CONF: &str = "/tmp/cohort-slurm/slurm.conf";

impl SlurmCluster {
    pub fn start(nodes: u32) -> SlurmCluster {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-cluster.sh");
        let st = Command::new(&script)
            .args(["start", &nodes.to_string()])
            .status()
            .expect("run scripts/slurm-cluster.sh");
        assert!(st.success(), "slurm-cluster.sh start failed");
        SlurmCluster
    }
}

impl Drop for SlurmCluster {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-cluster.sh");
        let _ = Command::new(script).arg("stop").status();
    }
}
