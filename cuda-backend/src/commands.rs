//! cuda-gdb's CUDA commands on a [`CudaState`]: `info cuda devices|kernels|blocks|threads`,
//! focus queries and switches (`cuda kernel K block (x,y,z) thread (x,y,z)`,
//! `cuda device D sm S warp W lane L`, any subset), `print` of the focused thread's variables
//! and `stepi` of its warp. A front end gives each line to [`execute`] and handles it itself
//! when the answer is `None`.

use crate::cudbg::CuDim3;
use crate::error::{CudaError, Result};
use crate::state::CudaState;

/// One coordinate of a `cuda` command: its keyword and value, if given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Coords {
    pub kernel: Option<Option<u32>>,
    pub block: Option<Option<CuDim3>>,
    pub thread: Option<Option<CuDim3>>,
    pub device: Option<Option<u32>>,
    pub sm: Option<Option<u32>>,
    pub warp: Option<Option<u32>>,
    pub lane: Option<Option<u32>>,
}

fn bad(m: impl Into<String>) -> CudaError {
    CudaError::Focus(m.into())
}

/// Parse `(x,y,z)`, `(x,y)`, `(x)` or `x` at the start of `s`; returns the rest.
fn dim(s: &str) -> Result<(CuDim3, &str)> {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('(') {
        let end = rest
            .find(')')
            .ok_or_else(|| bad("Missing closing parenthesis."))?;
        let parts: Vec<&str> = rest[..end].split(',').map(str::trim).collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(bad(format!("Invalid coordinates: ({})", &rest[..end])));
        }
        let mut v = [0u32; 3];
        for (i, p) in parts.iter().enumerate() {
            v[i] = p
                .parse()
                .map_err(|_| bad(format!("Invalid coordinates: ({})", &rest[..end])))?;
        }
        return Ok((CuDim3::new(v[0], v[1], v[2]), &rest[end + 1..]));
    }
    let (n, rest) = number(s)?;
    Ok((CuDim3::new(n, 0, 0), rest))
}

fn number(s: &str) -> Result<(u32, &str)> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end]
        .parse()
        .map_err(|_| bad(format!("Invalid coordinate value: {s}")))?;
    Ok((n, &s[end..]))
}

fn starts_value(s: &str) -> bool {
    let s = s.trim_start();
    s.starts_with('(') || s.starts_with(|c: char| c.is_ascii_digit())
}

/// Parse the arguments of `cuda`.
pub fn parse_coords(args: &str) -> Result<Coords> {
    let mut c = Coords::default();
    let mut s = args.trim();
    while !s.is_empty() {
        let end = s
            .find(|c: char| c.is_whitespace() || c == '(')
            .unwrap_or(s.len());
        let word = &s[..end];
        let rest = &s[end..];
        macro_rules! scalar {
            ($f:ident) => {{
                if starts_value(rest) {
                    let (n, r) = number(rest)?;
                    c.$f = Some(Some(n));
                    s = r.trim_start();
                } else {
                    c.$f = Some(None);
                    s = rest.trim_start();
                }
            }};
        }
        macro_rules! vector {
            ($f:ident) => {{
                if starts_value(rest) {
                    let (d, r) = dim(rest)?;
                    c.$f = Some(Some(d));
                    s = r.trim_start();
                } else {
                    c.$f = Some(None);
                    s = rest.trim_start();
                }
            }};
        }
        match word {
            "kernel" => scalar!(kernel),
            "block" => vector!(block),
            "thread" => vector!(thread),
            "device" => scalar!(device),
            "sm" => scalar!(sm),
            "warp" => scalar!(warp),
            "lane" => scalar!(lane),
            w => return Err(bad(format!("Unrecognized argument(s): {w}{rest}"))),
        }
    }
    Ok(c)
}

/// Front-end state the commands keep between calls (gdb's value history).
#[derive(Debug, Default)]
pub struct History {
    values: u32,
}

/// Run `line` if it is a CUDA command; `Ok(None)` when it is not one.
pub fn execute(cuda: &mut CudaState, history: &mut History, line: &str) -> Result<Option<String>> {
    let line = line.trim();
    let (cmd, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let args = args.trim();
    match cmd {
        "info" => {
            let Some(what) = args.strip_prefix("cuda") else {
                return Ok(None);
            };
            Ok(Some(match what.trim() {
                "devices" => cuda.info_devices(),
                "kernels" => cuda.info_kernels(),
                "blocks" => cuda.info_blocks(),
                "threads" => cuda.info_threads(),
                other => {
                    return Err(bad(format!(
                        "Undefined info cuda command: \"{other}\".  Try \"help info cuda\"."
                    )));
                }
            }))
        }
        "cuda" => {
            let c = parse_coords(args)?;
            let logical = [c.kernel.is_some(), c.block.is_some(), c.thread.is_some()];
            let physical = [
                c.device.is_some(),
                c.sm.is_some(),
                c.warp.is_some(),
                c.lane.is_some(),
            ];
            let any_value = [
                c.kernel.flatten().is_some(),
                c.device.flatten().is_some(),
                c.sm.flatten().is_some(),
                c.warp.flatten().is_some(),
                c.lane.flatten().is_some(),
            ]
            .iter()
            .any(|b| *b)
                || c.block.flatten().is_some()
                || c.thread.flatten().is_some();
            if logical.iter().any(|b| *b) && physical.iter().any(|b| *b) && any_value {
                return Err(bad(
                    "Cannot mix logical and physical coordinates. CUDA focus unchanged.",
                ));
            }
            if !any_value {
                return Ok(Some(query(cuda, &c)?));
            }
            let text = if logical.iter().any(|b| *b) {
                cuda.focus_logical(c.kernel.flatten(), c.block.flatten(), c.thread.flatten())?
            } else {
                cuda.focus_physical(
                    c.device.flatten(),
                    c.sm.flatten(),
                    c.warp.flatten(),
                    c.lane.flatten(),
                )?
            };
            Ok(Some(text))
        }
        "print" | "p" => {
            let v = cuda.print(args)?;
            history.values += 1;
            Ok(Some(format!("${} = {v}\n", history.values)))
        }
        "stepi" | "si" => Ok(Some(cuda.step_warp()?)),
        "next" | "n" | "step" | "s" => Ok(Some(cuda.step_line()?)),
        "backtrace" | "bt" | "where" => Ok(Some(cuda.backtrace()?)),
        _ => Ok(None),
    }
}

/// `cuda kernel block thread` and the like without values: the focus's coordinates asked.
fn query(cuda: &CudaState, c: &Coords) -> Result<String> {
    let d = cuda.describe_focus()?;
    // "CUDA kernel K, grid G, block B, thread T, device D, sm S, warp W, lane L"
    let fields: Vec<(&str, &str)> = d
        .trim_start_matches("CUDA ")
        .split(", ")
        .filter_map(|p| p.split_once(' '))
        .collect();
    let get = |k: &str| fields.iter().find(|f| f.0 == k).map(|f| f.1).unwrap_or("?");
    let mut parts = Vec::new();
    for (asked, name) in [
        (c.kernel.is_some(), "kernel"),
        (c.block.is_some(), "block"),
        (c.thread.is_some(), "thread"),
        (c.device.is_some(), "device"),
        (c.sm.is_some(), "sm"),
        (c.warp.is_some(), "warp"),
        (c.lane.is_some(), "lane"),
    ] {
        if asked {
            parts.push(format!("{name} {}", get(name)));
        }
    }
    if parts.is_empty() {
        return Ok(format!("{}\n", d.trim_start_matches("CUDA ")));
    }
    Ok(format!("{}\n", parts.join(", ")))
}
