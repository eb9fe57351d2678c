//! Fortran expressions as gdb's Fortran parser reads them (`f-exp.y`), for `print`,
//! `set var`, `display`, `ptype`/`whatis` and breakpoint conditions in Fortran frames.
//!
//! Grammar (lowest precedence first): assignment `=`; `.eqv.`/`.neqv.`; `.or.`; `.and.`;
//! `.not.`; comparisons (`==`/`.eq.`, `/=`/`.ne.`, `<`/`.lt.`, `<=`/`.le.`, `>`/`.gt.`,
//! `>=`/`.ge.`); `+ -` (also unary); `* /`; `**` (right associative); postfix: calls and
//! subscripts `a(i, j:k:s, :)`, components `a%b`. Primaries: names (`mod::name` too),
//! integers (`42`, `42_8`), reals (`1.5`, `1.5e3`, `1.5d0`), logicals (`.true.`),
//! complex literals `(1.0, -2.0)`, strings `'text'`, parentheses.

use cohort_dwarf::error::{DwarfError, Result};

/// A parsed Fortran expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(i128),
    /// A real literal; `double` for `d` exponents (`real(kind=8)`), else `real(kind=4)`.
    Real {
        value: f64,
        double: bool,
    },
    Logical(bool),
    Complex(Box<Expr>, Box<Expr>),
    Str(String),
    /// A name, possibly qualified (`mod::name`).
    Name(String),
    /// `base%name`.
    Component(Box<Expr>, String),
    /// `f(args)`: an array element or section, or an intrinsic call (decided when evaluated).
    Call(Box<Expr>, Vec<Arg>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Assign(Box<Expr>, Box<Expr>),
    /// A type (`integer*8`, `real(kind=8)`, `double precision`): what `ptype` and `whatis`
    /// show, the operand of `sizeof`; elsewhere an error.
    Type(FType),
    /// `(type) exp`.
    Cast(FType, Box<Expr>),
    /// `sizeof exp`, `sizeof(type)`.
    SizeOf(Box<Expr>),
}

/// One of gdb's Fortran type keywords, with its kind (`integer*8`, `real(kind=8)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FType {
    pub base: FBase,
    /// The kind written after it; `None` for the keyword's own (`integer_8` has 8).
    pub kind: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FBase {
    Integer,
    Real,
    Logical,
    Complex,
    Character,
}

/// gdb's Fortran type keywords (lower case only, as gdb has them): the base and its kind.
const TYPE_KEYWORDS: [(&str, FBase, Option<i64>); 19] = [
    ("character", FBase::Character, None),
    ("complex", FBase::Complex, None),
    ("complex_4", FBase::Complex, Some(4)),
    ("complex_8", FBase::Complex, Some(8)),
    ("complex_16", FBase::Complex, Some(16)),
    ("integer_1", FBase::Integer, Some(1)),
    ("integer_2", FBase::Integer, Some(2)),
    ("integer_4", FBase::Integer, Some(4)),
    ("integer", FBase::Integer, None),
    ("integer_8", FBase::Integer, Some(8)),
    ("logical_1", FBase::Logical, Some(1)),
    ("logical_2", FBase::Logical, Some(2)),
    ("logical", FBase::Logical, None),
    ("logical_4", FBase::Logical, Some(4)),
    ("logical_8", FBase::Logical, Some(8)),
    ("real", FBase::Real, None),
    ("real_4", FBase::Real, Some(4)),
    ("real_8", FBase::Real, Some(8)),
    ("real_16", FBase::Real, Some(16)),
];

/// One argument or subscript.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Value(Expr),
    /// `lo:hi:step`, each part optional.
    Range(Option<Expr>, Option<Expr>, Option<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    /// `*exp`: the pointer's target.
    Deref,
    /// `&exp`: the address of an object.
    Addr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Eqv,
    Neqv,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i128),
    Real(f64, bool),
    Logical(bool),
    Str(String),
    Name(String),
    /// `.and.`, `.eq.`…, and the symbolic operators: `+ - * / ** == /= < <= > >= = % ( ) , :`.
    Op(&'static str),
    End,
}

fn syntax(rest: &str) -> DwarfError {
    DwarfError::user(format!("A syntax error in expression, near `{rest}'."))
}

const DOT_OPS: [(&str, &str); 14] = [
    (".and.", ".and."),
    (".or.", ".or."),
    (".not.", ".not."),
    (".eqv.", ".eqv."),
    (".neqv.", ".neqv."),
    // gfortran's extension, gdb's too: `.neqv.` by another name.
    (".xor.", ".neqv."),
    (".eq.", "=="),
    (".ne.", "/="),
    (".lt.", "<"),
    (".le.", "<="),
    (".gt.", ">"),
    (".ge.", ">="),
    (".true.", ".true."),
    (".false.", ".false."),
];

const SYM_OPS: [&str; 19] = [
    "**", "==", "/=", "<=", ">=", "::", "+", "-", "*", "/", "<", ">", "=", "%", "(", ")", ",", ":",
    "&",
];

/// Tokens with the byte offset where each starts (for error messages).
fn lex(text: &str) -> Result<Vec<(Tok, usize)>> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    'outer: while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let rest = &text[i..];
        if c == b'.' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let lower = rest.to_ascii_lowercase();
            for (spelled, op) in DOT_OPS {
                if lower.starts_with(spelled) {
                    let mut end = i + spelled.len();
                    let tok = match op {
                        ".true." | ".false." => {
                            // An optional kind: `.true._1`.
                            if b.get(end) == Some(&b'_') {
                                end += 1;
                                while end < b.len() && b[end].is_ascii_alphanumeric() {
                                    end += 1;
                                }
                            }
                            Tok::Logical(op == ".true.")
                        }
                        _ => Tok::Op(op),
                    };
                    out.push((tok, i));
                    i = end;
                    continue 'outer;
                }
            }
            return Err(syntax(rest));
        }
        // gdb's base prefixes: `0x1f` (hexadecimal), `0t12` / `0d12` (decimal), `017` (octal).
        if c == b'0'
            && let Some((v, end)) = prefixed_int(b, i)
        {
            out.push((Tok::Int(v), i));
            i = end;
            continue;
        }
        if c.is_ascii_digit() || c == b'.' {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let mut real = false;
            let mut double = false;
            // A `.` that starts an operator (`1.eq.2`) is not a decimal point.
            if i < b.len()
                && b[i] == b'.'
                && !DOT_OPS
                    .iter()
                    .any(|(s, _)| text[i..].to_ascii_lowercase().starts_with(s))
            {
                real = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let mantissa_end = i;
            if i < b.len() && matches!(b[i], b'e' | b'E' | b'd' | b'D') {
                let mut j = i + 1;
                if j < b.len() && matches!(b[j], b'+' | b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    double = matches!(b[i], b'd' | b'D');
                    real = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let digits = &text[start..i];
            let tok = if real {
                let norm: String = digits
                    .chars()
                    .map(|c| if matches!(c, 'd' | 'D') { 'e' } else { c })
                    .collect();
                let v: f64 = norm.parse().map_err(|_| syntax(&text[start..]))?;
                Tok::Real(v, double)
            } else {
                let v: i128 = text[start..mantissa_end]
                    .parse()
                    .map_err(|_| syntax(&text[start..]))?;
                Tok::Int(v)
            };
            // A kind suffix: `42_8`, `1.5_8`.
            if i < b.len() && b[i] == b'_' {
                i += 1;
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
            }
            out.push((tok, start));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push((Tok::Name(text[start..i].to_string()), start));
            continue;
        }
        if c == b'\'' || c == b'"' {
            let start = i;
            i += 1;
            let mut s = String::new();
            loop {
                match b.get(i) {
                    None => return Err(DwarfError::user("Unterminated string in expression.")),
                    Some(&q) if q == c => {
                        // A doubled quote is one quote.
                        if b.get(i + 1) == Some(&c) {
                            s.push(c as char);
                            i += 2;
                            continue;
                        }
                        i += 1;
                        break;
                    }
                    Some(_) => {
                        let ch = text[i..].chars().next().unwrap_or(' ');
                        s.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            out.push((Tok::Str(s), start));
            continue;
        }
        for op in SYM_OPS {
            if rest.starts_with(op) {
                out.push((Tok::Op(op), i));
                i += op.len();
                continue 'outer;
            }
        }
        return Err(syntax(rest));
    }
    out.push((Tok::End, text.len()));
    Ok(out)
}

/// An integer with one of gdb's base prefixes at `b[i..]` (which starts with `0`): its value
/// and where it ends; `None` for a plain decimal (`0`, `0.5`, `0_8`).
fn prefixed_int(b: &[u8], i: usize) -> Option<(i128, usize)> {
    let (base, from) = match b.get(i + 1).map(u8::to_ascii_lowercase) {
        Some(b'x') => (16, i + 2),
        Some(b't' | b'd') => (10, i + 2),
        Some(c) if c.is_ascii_digit() => (8, i + 1),
        _ => return None,
    };
    let mut end = from;
    while end < b.len() && b[end].is_ascii_alphanumeric() {
        end += 1;
    }
    // `0d` followed by no digit, `0.5`, `0e1`: not prefixed numbers.
    if end == from || b.get(end) == Some(&b'.') && base == 8 {
        return None;
    }
    let text = std::str::from_utf8(&b[from..end]).ok()?;
    if base == 8 && text.bytes().any(|c| !c.is_ascii_digit()) {
        return None;
    }
    i128::from_str_radix(text, base).ok().map(|v| (v, end))
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

/// Parse a whole Fortran expression.
pub fn parse(text: &str) -> Result<Expr> {
    let toks = lex(text)?;
    let mut p = Parser { text, toks, pos: 0 };
    if matches!(p.peek(), Tok::End) {
        return Err(DwarfError::user(
            "Argument required (expression to compute).",
        ));
    }
    let e = p.assign()?;
    if !matches!(p.peek(), Tok::End) {
        return Err(p.error());
    }
    Ok(e)
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].0
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].0
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn error(&self) -> DwarfError {
        let at = self.toks[self.pos.min(self.toks.len() - 1)].1;
        syntax(&self.text[at..])
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn expect(&mut self, op: &str) -> Result<()> {
        if self.is_op(op) {
            self.bump();
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn assign(&mut self) -> Result<Expr> {
        let lhs = self.eqv()?;
        if self.is_op("=") {
            self.bump();
            let rhs = self.assign()?;
            return Ok(Expr::Assign(Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn binary_level(
        &mut self,
        ops: &[(&str, BinOp)],
        next: fn(&mut Self) -> Result<Expr>,
    ) -> Result<Expr> {
        let mut lhs = next(self)?;
        'again: loop {
            for (spelled, op) in ops {
                if self.is_op(spelled) {
                    self.bump();
                    let rhs = next(self)?;
                    lhs = Expr::Binary(*op, Box::new(lhs), Box::new(rhs));
                    continue 'again;
                }
            }
            return Ok(lhs);
        }
    }

    fn eqv(&mut self) -> Result<Expr> {
        self.binary_level(&[(".eqv.", BinOp::Eqv), (".neqv.", BinOp::Neqv)], Self::or)
    }

    fn or(&mut self) -> Result<Expr> {
        self.binary_level(&[(".or.", BinOp::Or)], Self::and)
    }

    fn and(&mut self) -> Result<Expr> {
        self.binary_level(&[(".and.", BinOp::And)], Self::not)
    }

    fn not(&mut self) -> Result<Expr> {
        if self.is_op(".not.") {
            self.bump();
            let e = self.not()?;
            return Ok(Expr::Unary(UnOp::Not, Box::new(e)));
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<Expr> {
        self.binary_level(
            &[
                ("==", BinOp::Eq),
                ("/=", BinOp::Ne),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            Self::additive,
        )
    }

    fn additive(&mut self) -> Result<Expr> {
        let first = if self.is_op("-") || self.is_op("+") {
            let neg = self.is_op("-");
            self.bump();
            let e = self.multiplicative()?;
            Expr::Unary(if neg { UnOp::Neg } else { UnOp::Plus }, Box::new(e))
        } else {
            self.multiplicative()?
        };
        let mut lhs = first;
        loop {
            let op = if self.is_op("+") {
                BinOp::Add
            } else if self.is_op("-") {
                BinOp::Sub
            } else {
                return Ok(lhs);
            };
            self.bump();
            let rhs = self.multiplicative()?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn multiplicative(&mut self) -> Result<Expr> {
        self.binary_level(&[("*", BinOp::Mul), ("/", BinOp::Div)], Self::power)
    }

    fn power(&mut self) -> Result<Expr> {
        let base = self.unary()?;
        if self.is_op("**") {
            self.bump();
            // Right associative; `2**-1` is allowed as in gfortran.
            let exp = if self.is_op("-") {
                self.bump();
                Expr::Unary(UnOp::Neg, Box::new(self.power()?))
            } else {
                self.power()?
            };
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    /// gdb's `UNARY` level, above `**`: `*p`, `&x`, `sizeof x`, `(type) x`.
    fn unary(&mut self) -> Result<Expr> {
        for (op, u) in [("*", UnOp::Deref), ("&", UnOp::Addr)] {
            if self.is_op(op) {
                self.bump();
                let e = self.unary()?;
                return Ok(Expr::Unary(u, Box::new(e)));
            }
        }
        if matches!(self.peek(), Tok::Name(n) if n.eq_ignore_ascii_case("sizeof")) {
            self.bump();
            if self.is_op("(") && self.type_at(1) {
                self.bump();
                let t = self.ftype()?;
                self.expect(")")?;
                return Ok(Expr::SizeOf(Box::new(Expr::Type(t))));
            }
            let e = self.unary()?;
            return Ok(Expr::SizeOf(Box::new(e)));
        }
        if self.is_op("(") && self.type_at(1) {
            self.bump();
            let t = self.ftype()?;
            self.expect(")")?;
            let e = self.unary()?;
            return Ok(Expr::Cast(t, Box::new(e)));
        }
        self.postfix()
    }

    /// Whether a type keyword starts `n` tokens ahead (`real(x)` is a call, not a type:
    /// only `real(kind=…)` is).
    fn type_at(&self, n: usize) -> bool {
        let Tok::Name(name) = self.peek_at(n) else {
            return false;
        };
        if name == "double" || name == "single" {
            return matches!(self.peek_at(n + 1), Tok::Name(m) if m == "precision" || m == "complex");
        }
        if !TYPE_KEYWORDS.iter().any(|(k, _, _)| k == name) {
            return false;
        }
        match self.peek_at(n + 1) {
            // `real(x)` is the intrinsic (gdb 13 takes the keyword and fails, see
            // tests/fortran/README.md); any other keyword before `(` is a type, as in gdb,
            // unless a kind follows.
            Tok::Op("(") if name == "real" => {
                matches!(self.peek_at(n + 2), Tok::Name(k) if k.eq_ignore_ascii_case("kind"))
                    && matches!(self.peek_at(n + 3), Tok::Op("="))
            }
            _ => true,
        }
    }

    /// A type at the current token ([`Parser::type_at`] said one starts): its keyword, then a
    /// kind as `*N` or `(kind=N)`.
    fn ftype(&mut self) -> Result<FType> {
        let Tok::Name(name) = self.bump() else {
            return Err(self.error());
        };
        let mut t = match name.as_str() {
            "double" | "single" => {
                let Tok::Name(second) = self.bump() else {
                    return Err(self.error());
                };
                let base = if second == "complex" {
                    FBase::Complex
                } else {
                    FBase::Real
                };
                let kind = (name == "double").then_some(8);
                FType { base, kind }
            }
            _ => {
                let (_, base, kind) = TYPE_KEYWORDS
                    .iter()
                    .find(|(k, _, _)| *k == name)
                    .ok_or_else(|| self.error())?;
                FType {
                    base: *base,
                    kind: *kind,
                }
            }
        };
        if self.is_op("*") && matches!(self.peek_at(1), Tok::Int(_)) {
            self.bump();
            if let Tok::Int(k) = self.bump() {
                t.kind = Some(i64::try_from(k).map_err(|_| self.error())?);
            }
        } else if self.is_op("(")
            && matches!(self.peek_at(1), Tok::Name(k) if k.eq_ignore_ascii_case("kind"))
        {
            self.bump();
            self.bump();
            self.expect("=")?;
            let Tok::Int(k) = self.bump() else {
                self.pos -= 1;
                return Err(self.error());
            };
            t.kind = Some(i64::try_from(k).map_err(|_| self.error())?);
            self.expect(")")?;
        }
        Ok(t)
    }

    fn postfix(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.is_op("%") {
                self.bump();
                match self.bump() {
                    Tok::Name(n) => e = Expr::Component(Box::new(e), n),
                    _ => {
                        self.pos -= 1;
                        return Err(self.error());
                    }
                }
            } else if self.is_op("(") {
                self.bump();
                if matches!(e, Expr::Type(_)) {
                    // gdb's grammar has no call of a type (`integer(k)`, `real*8(k)`).
                    return Err(self.error());
                }
                let args = self.args()?;
                e = Expr::Call(Box::new(e), args);
            } else {
                return Ok(e);
            }
        }
    }

    /// Arguments after `(`, through the closing `)`.
    fn args(&mut self) -> Result<Vec<Arg>> {
        let mut args = Vec::new();
        if self.is_op(")") {
            self.bump();
            return Ok(args);
        }
        loop {
            args.push(self.arg()?);
            if self.is_op(",") {
                self.bump();
                continue;
            }
            self.expect(")")?;
            return Ok(args);
        }
    }

    fn arg(&mut self) -> Result<Arg> {
        let ends = |p: &Self| p.is_op(",") || p.is_op(")") || p.is_op(":");
        let lo = if ends(self) { None } else { Some(self.eqv()?) };
        if !self.is_op(":") {
            return lo.map(Arg::Value).ok_or_else(|| self.error());
        }
        self.bump();
        let hi = if ends(self) { None } else { Some(self.eqv()?) };
        let step = if self.is_op(":") {
            self.bump();
            Some(self.eqv()?)
        } else {
            None
        };
        Ok(Arg::Range(lo, hi, step))
    }

    fn primary(&mut self) -> Result<Expr> {
        if self.type_at(0) {
            return Ok(Expr::Type(self.ftype()?));
        }
        let at = self.pos;
        match self.bump() {
            Tok::Int(v) => Ok(Expr::Int(v)),
            Tok::Real(value, double) => Ok(Expr::Real { value, double }),
            Tok::Logical(b) => Ok(Expr::Logical(b)),
            Tok::Str(s) => Ok(Expr::Str(s)),
            Tok::Name(n) => {
                let mut name = n;
                while self.is_op("::") {
                    if let Tok::Name(m) = self.peek_at(1).clone() {
                        self.bump();
                        self.bump();
                        name = format!("{name}::{m}");
                    } else {
                        break;
                    }
                }
                Ok(Expr::Name(name))
            }
            Tok::Op("(") => {
                let e = self.eqv()?;
                if self.is_op(",") {
                    // A complex literal `(re, im)`.
                    self.bump();
                    let im = self.eqv()?;
                    self.expect(")")?;
                    return Ok(Expr::Complex(Box::new(e), Box::new(im)));
                }
                self.expect(")")?;
                Ok(e)
            }
            _ => {
                self.pos = at;
                Err(self.error())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Expr {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn components_and_subscripts() {
        assert_eq!(
            p("swarm(3)%pos(2)"),
            Expr::Call(
                Box::new(Expr::Component(
                    Box::new(Expr::Call(
                        Box::new(Expr::Name("swarm".into())),
                        vec![Arg::Value(Expr::Int(3))]
                    )),
                    "pos".into()
                )),
                vec![Arg::Value(Expr::Int(2))]
            )
        );
        assert_eq!(
            p("grid(:,2)"),
            Expr::Call(
                Box::new(Expr::Name("grid".into())),
                vec![Arg::Range(None, None, None), Arg::Value(Expr::Int(2))]
            )
        );
        assert_eq!(
            p("a(1:5:2, :)"),
            Expr::Call(
                Box::new(Expr::Name("a".into())),
                vec![
                    Arg::Range(Some(Expr::Int(1)), Some(Expr::Int(5)), Some(Expr::Int(2))),
                    Arg::Range(None, None, None)
                ]
            )
        );
    }

    #[test]
    fn literals_and_operators() {
        assert_eq!(
            p("1.5d0"),
            Expr::Real {
                value: 1.5,
                double: true
            }
        );
        assert_eq!(
            p("2.5e1"),
            Expr::Real {
                value: 25.0,
                double: false
            }
        );
        assert_eq!(p(".TRUE."), Expr::Logical(true));
        assert_eq!(p("42_8"), Expr::Int(42));
        assert_eq!(
            p("(1.0,-2.0)"),
            Expr::Complex(
                Box::new(Expr::Real {
                    value: 1.0,
                    double: false
                }),
                Box::new(Expr::Unary(
                    UnOp::Neg,
                    Box::new(Expr::Real {
                        value: 2.0,
                        double: false
                    })
                ))
            )
        );
        assert_eq!(
            p("k .eq. 2 .and. .not. x"),
            Expr::Binary(
                BinOp::And,
                Box::new(Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Name("k".into())),
                    Box::new(Expr::Int(2))
                )),
                Box::new(Expr::Unary(UnOp::Not, Box::new(Expr::Name("x".into()))))
            )
        );
        assert_eq!(
            p("1.eq.2"),
            Expr::Binary(BinOp::Eq, Box::new(Expr::Int(1)), Box::new(Expr::Int(2)))
        );
        assert_eq!(
            p("2**3**2"),
            Expr::Binary(
                BinOp::Pow,
                Box::new(Expr::Int(2)),
                Box::new(Expr::Binary(
                    BinOp::Pow,
                    Box::new(Expr::Int(3)),
                    Box::new(Expr::Int(2))
                ))
            )
        );
        assert_eq!(
            p("particles::nsteps"),
            Expr::Name("particles::nsteps".into())
        );
        assert_eq!(p("'it''s'"), Expr::Str("it's".into()));
    }

    #[test]
    fn prefixes_types_and_unary_operators() {
        assert_eq!(p("0x1F"), Expr::Int(31));
        assert_eq!(p("010"), Expr::Int(8));
        assert_eq!(p("0t12"), Expr::Int(12));
        assert_eq!(p("0"), Expr::Int(0));
        assert_eq!(
            p("a .xor. b"),
            Expr::Binary(
                BinOp::Neqv,
                Box::new(Expr::Name("a".into())),
                Box::new(Expr::Name("b".into()))
            )
        );
        let int8 = FType {
            base: FBase::Integer,
            kind: Some(8),
        };
        assert_eq!(p("integer*8"), Expr::Type(int8));
        assert_eq!(p("integer(kind=8)"), Expr::Type(int8));
        assert_eq!(p("integer_8"), Expr::Type(int8));
        assert_eq!(
            p("double precision"),
            Expr::Type(FType {
                base: FBase::Real,
                kind: Some(8)
            })
        );
        assert_eq!(
            p("(integer*8) x"),
            Expr::Cast(int8, Box::new(Expr::Name("x".into())))
        );
        // `real(x)` stays a call (the intrinsic), not a type.
        assert_eq!(
            p("real(x)"),
            Expr::Call(
                Box::new(Expr::Name("real".into())),
                vec![Arg::Value(Expr::Name("x".into()))]
            )
        );
        assert_eq!(
            p("*p**2"),
            Expr::Binary(
                BinOp::Pow,
                Box::new(Expr::Unary(UnOp::Deref, Box::new(Expr::Name("p".into())))),
                Box::new(Expr::Int(2))
            )
        );
        assert_eq!(
            p("sizeof(real)"),
            Expr::SizeOf(Box::new(Expr::Type(FType {
                base: FBase::Real,
                kind: None
            })))
        );
        assert_eq!(
            p("&x"),
            Expr::Unary(UnOp::Addr, Box::new(Expr::Name("x".into())))
        );
    }

    #[test]
    fn errors_are_gdb_worded() {
        assert_eq!(
            parse("a(1,").unwrap_err().to_string(),
            "A syntax error in expression, near `'."
        );
        assert_eq!(
            parse("a .foo. b").unwrap_err().to_string(),
            "A syntax error in expression, near `.foo. b'."
        );
    }
}
