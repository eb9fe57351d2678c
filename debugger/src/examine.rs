//! Helpers of the `x` command: address expressions through the C evaluator, strings (`x/s`)
//! and floats (`x/f`).

use cohort_dwarf::expr;
use cohort_dwarf::format::FormatOptions;
use cohort_dwarf::value::{Lval, Value};
use cohort_engine::{EngineError, Result};

use crate::debugger::{Debugger, out};

/// gdb's `print elements` limit, which also bounds `x/s`.
const PRINT_MAX: usize = 200;

impl Debugger {
    /// The address an `x`/`info line *`/`list *` argument designates: a C expression in the
    /// selected frame (a pointer's or integer's value, an array's or function's address),
    /// else the debugger's own address syntax (ELF symbols, registers).
    pub(crate) fn address_of_expr(&mut self, text: &str) -> Result<u64> {
        let r = {
            let ctx = self.eval_ctx();
            expr::parse_in(text, &ctx).and_then(|e| expr::evaluate_address(&e, &ctx))
        };
        // A Fortran name in another case (`&q` for libm's `Q`) as Fortran's parser sees it.
        let r = match r {
            Err(e) if self.language() == cohort_dwarf::format::Language::Fortran => self
                .evaluate(text)
                .ok()
                .and_then(|v| expr::as_address(&v).ok())
                .ok_or(e),
            r => r,
        };
        match r {
            Ok(a) => Ok(a),
            Err(e) => self
                .eval_address(text)
                .map_err(|_| EngineError::Other(e.to_string())),
        }
    }

    /// `x/Ns ADDR`: `count` NUL-terminated strings; returns the next address.
    pub(crate) fn x_strings(&mut self, addr: u64, count: usize) -> Result<u64> {
        let mut at = addr;
        for _ in 0..count {
            let mut bytes = Vec::new();
            let mut terminated = false;
            while bytes.len() < PRINT_MAX {
                let mut b = [0u8; 1];
                if self
                    .session
                    .read_memory(at + bytes.len() as u64, &mut b)
                    .is_err()
                {
                    if bytes.is_empty() {
                        return Err(EngineError::Memory(at));
                    }
                    break;
                }
                if b[0] == 0 {
                    terminated = true;
                    break;
                }
                bytes.push(b[0]);
            }
            let mut text = cohort_dwarf::format::text::print_string(&bytes, false, 10, PRINT_MAX);
            if !terminated {
                text.push_str("...");
            }
            out(format!("{}:\t{text}", self.address_with_symbol(at)));
            at += bytes.len() as u64 + u64::from(terminated);
        }
        Ok(at)
    }

    /// One `x/f` unit of `size` bytes, printed as gdb prints a float of that size.
    pub(crate) fn x_float(&self, bytes: &[u8]) -> String {
        let name: &[&str] = match bytes.len() {
            4 => &["float"],
            8 => &["double"],
            16 | 10 => &["long", "double"],
            _ => return crate::format::unit(bytes, crate::format::XFormat::Decimal),
        };
        match cohort_dwarf::dietypes::c_base_type(name) {
            Some(ty) => {
                let v = Value::new(ty, bytes.to_vec(), Lval::None);
                self.format(&v, &FormatOptions::default())
            }
            None => crate::format::unit(bytes, crate::format::XFormat::Decimal),
        }
    }
}
