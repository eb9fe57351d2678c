//! `cohort cuda`: an alias of the gdb-compatible front end for CUDA programs (kept for
//! `scripts/gpu-check.sh` and cuda-gdb habits):
//!
//!     cohort cuda [--library LIBCUDA] [-batch] [-ex CMD]... [-x FILE] [--args] PROGRAM [ARGS...]
//!
//! is `cohort [--cuda-library LIBCUDA] [-batch] [-ex CMD]... [-x FILE] --args PROGRAM [ARGS...]`:
//! the same command loop (host and device commands, see cohort-debugger's `cuda` module), which
//! makes the handshake with the driver's debugger API when the program's CUDA driver
//! initialises. Only a program is required here.

use anyhow::bail;

pub const CUDA_USAGE: &str = "usage: cohort cuda [--library LIBCUDA] [-batch] [-ex CMD]... [-x FILE] [--args] PROGRAM [ARGS...]";

/// The arguments of `cohort cuda` as the gdb-compatible front end's.
pub fn gdb_arguments(argv: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "--library" | "--cuda-library" | "-ex" | "--eval-command" | "-x" | "--command" => {
                let Some(v) = argv.get(i + 1) else {
                    bail!("option {a} needs an argument\n{CUDA_USAGE}");
                };
                let name = if a == "--library" {
                    "--cuda-library"
                } else {
                    a
                };
                out.extend([name.to_string(), v.clone()]);
                i += 2;
            }
            "--args" | "--" => {
                if i + 1 >= argv.len() {
                    break;
                }
                out.push("--args".into());
                out.extend(argv[i + 1..].iter().cloned());
                return Ok(out);
            }
            _ if a.starts_with('-') => {
                out.push(a.to_string());
                i += 1;
            }
            _ => {
                out.push("--args".into());
                out.extend(argv[i..].iter().cloned());
                return Ok(out);
            }
        }
    }
    bail!("{CUDA_USAGE}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(a: &[&str]) -> Vec<String> {
        a.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn library_becomes_cuda_library_and_the_program_its_args() {
        assert_eq!(
            gdb_arguments(&s(&[
                "--library",
                "L",
                "-batch",
                "-x",
                "f",
                "prog",
                "-x",
                "1"
            ]))
            .unwrap(),
            s(&[
                "--cuda-library",
                "L",
                "-batch",
                "-x",
                "f",
                "--args",
                "prog",
                "-x",
                "1"
            ])
        );
        assert_eq!(
            gdb_arguments(&s(&["-ex", "run", "--args", "prog"])).unwrap(),
            s(&["-ex", "run", "--args", "prog"])
        );
        assert_eq!(
            gdb_arguments(&s(&["-batch"])).unwrap_err().to_string(),
            CUDA_USAGE
        );
        assert!(gdb_arguments(&s(&["--library"])).is_err());
    }
}
