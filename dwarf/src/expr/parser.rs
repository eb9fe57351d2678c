//! Recursive-descent parser for gdb's C expressions, producing an [`Expr`] tree that is
//! evaluated many times without reparsing.

use super::lexer::{FloatLit, IntLit, Tok, Token, tokenize};
use crate::error::{DwarfError, Result};

/// A parsed C expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(u64, IntLit),
    Float(f64, FloatLit),
    Char(u32, bool),
    /// A string literal (bytes without the terminating NUL).
    Str(Vec<u8>),
    /// A name resolved through the context (variable, function, enumerator, or a type name
    /// where the context has no variable of that name).
    Name(String),
    /// `scope::name`, `'file.c'::name`.
    Scoped(String, String),
    /// `$`, `$$`, `$N`, `$$N`, `$reg`, `$conv`.
    Dollar(Dollar),
    /// A type used where an expression is expected (`whatis struct item`, `sizeof(int)`).
    Type(TypeName),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `&&` (true) / `||` (false), short-circuit.
    Logical(bool, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `l = r` (None) or `l op= r`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    /// `e.name` (false) or `e->name` (true).
    Member(Box<Expr>, String, bool),
    Call(Box<Expr>, Vec<Expr>),
    Cast(TypeName, Box<Expr>),
    /// gdb's `left@count`.
    At(Box<Expr>, Box<Expr>),
    /// gdb's `name@entry`: a parameter's value on entry to the selected frame's function.
    EntryValue(String),
    SizeOf(Box<Expr>),
    AlignOf(Box<Expr>),
    /// gdb's `{TYPE} ADDR`: the object of that type at that address.
    MemVal(TypeName, Box<Expr>),
    /// gdb's `{a, b, c}`: an array of the values (or, under a cast, of the cast's type).
    Array(Vec<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Dollar {
    History(crate::context::HistoryRef),
    /// A register or a convenience variable (which one is decided at evaluation).
    Var(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    Compl,
    Deref,
    Addr,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
        }
    }
}

/// The base of a type name as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseType {
    /// A C keyword type, canonical gdb spelling (`int`, `unsigned long`, `char`, `void`…).
    Builtin(&'static str),
    Struct(String),
    Union(String),
    Enum(String),
    /// A typedef name.
    Named(String),
}

/// One step of an abstract declarator, applied innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Declarator {
    Pointer,
    Const,
    Volatile,
    Array(Option<u64>),
    /// A function with these parameter types (`None`: unprototyped `()`).
    Function(Option<Vec<TypeName>>),
}

/// A type as C spells it (`struct item *`, `unsigned long`, `int (*)[3]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeName {
    pub base: BaseType,
    pub base_const: bool,
    pub base_volatile: bool,
    /// Declarator steps, applied to the base in order.
    pub decl: Vec<Declarator>,
}

/// Tells the parser whether an identifier names a type (gdb's parser asks the symbol table).
pub type TypeOracle<'a> = &'a dyn Fn(&str) -> bool;

pub struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    oracle: Option<TypeOracle<'a>>,
}

const TYPE_KEYWORDS: &[&str] = &[
    "int", "char", "short", "long", "unsigned", "signed", "float", "double", "void", "_Bool",
    "struct", "union", "enum", "const", "volatile",
];

impl<'a> Parser<'a> {
    pub fn new(text: &'a str, oracle: Option<TypeOracle<'a>>) -> Result<Self> {
        Ok(Parser {
            text,
            toks: tokenize(text)?,
            pos: 0,
            oracle,
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn syntax_error(&self) -> DwarfError {
        let start = self.toks[self.pos.min(self.toks.len() - 1)].start;
        let rest = self.text.get(start..).unwrap_or("");
        DwarfError::user(format!("A syntax error in expression, near `{rest}'."))
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    /// A whole expression; junk after it is an error.
    pub fn parse_all(&mut self) -> Result<Expr> {
        if matches!(self.peek(), Tok::Eof) {
            // `print` with no expression shows the last history entry.
            return Ok(Expr::Dollar(Dollar::History(
                crate::context::HistoryRef::Relative(0),
            )));
        }
        let e = self.comma()?;
        match self.peek() {
            Tok::Eof => Ok(e),
            Tok::Punct(")" | "]" | "}") => Err(DwarfError::user("Junk after end of expression.")),
            _ => Err(self.syntax_error()),
        }
    }

    /// A whole type name; `None` when the text is not exactly one.
    pub fn parse_type_all(&mut self) -> Option<TypeName> {
        let t = self.type_name().ok()??;
        matches!(self.peek(), Tok::Eof).then_some(t)
    }

    fn comma(&mut self) -> Result<Expr> {
        let mut e = self.assign()?;
        while self.eat(",") {
            let r = self.assign()?;
            e = Expr::Comma(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn assign(&mut self) -> Result<Expr> {
        let l = self.ternary()?;
        let op = match self.peek() {
            Tok::Punct("=") => None,
            Tok::Punct("+=") => Some(BinOp::Add),
            Tok::Punct("-=") => Some(BinOp::Sub),
            Tok::Punct("*=") => Some(BinOp::Mul),
            Tok::Punct("/=") => Some(BinOp::Div),
            Tok::Punct("%=") => Some(BinOp::Rem),
            Tok::Punct("<<=") => Some(BinOp::Shl),
            Tok::Punct(">>=") => Some(BinOp::Shr),
            Tok::Punct("&=") => Some(BinOp::BitAnd),
            Tok::Punct("|=") => Some(BinOp::BitOr),
            Tok::Punct("^=") => Some(BinOp::BitXor),
            _ => return Ok(l),
        };
        self.bump();
        let r = self.assign()?;
        Ok(Expr::Assign(op, Box::new(l), Box::new(r)))
    }

    fn ternary(&mut self) -> Result<Expr> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let t = self.comma()?;
            self.expect(":")?;
            let f = self.ternary()?;
            return Ok(Expr::Ternary(Box::new(c), Box::new(t), Box::new(f)));
        }
        Ok(c)
    }

    /// Binary operators by precedence level (0 = `||`, lowest), then gdb's `@` above `*`.
    fn binary(&mut self, level: usize) -> Result<Expr> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", "<=", ">", ">="],
            &["<<", ">>"],
            &["@"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level >= LEVELS.len() {
            return self.unary();
        }
        let mut l = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Tok::Punct(p) if LEVELS[level].contains(p) => *p,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.binary(level + 1)?;
            l = match op {
                "||" => Expr::Logical(false, Box::new(l), Box::new(r)),
                "&&" => Expr::Logical(true, Box::new(l), Box::new(r)),
                "@" => Expr::At(Box::new(l), Box::new(r)),
                _ => Expr::Binary(bin_op(op), Box::new(l), Box::new(r)),
            };
        }
    }

    fn unary(&mut self) -> Result<Expr> {
        let op = match self.peek() {
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::Compl),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::Addr),
            Tok::Punct("++") => Some(UnOp::PreInc),
            Tok::Punct("--") => Some(UnOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.unary()?;
            return Ok(Expr::Unary(op, Box::new(e)));
        }
        if let Tok::Ident(k) = self.peek()
            && matches!(k.as_str(), "sizeof" | "_Alignof")
        {
            let size = k == "sizeof";
            self.bump();
            let e = if self.is_punct("(") {
                let save = self.pos;
                self.bump();
                // `sizeof(x)` with `x` not known as a type is an expression (the evaluator
                // still accepts a type name there).
                let bare_unknown = matches!(self.peek(), Tok::Ident(n)
                        if !TYPE_KEYWORDS.contains(&n.as_str())
                            && !self.oracle.is_some_and(|o| o(n)))
                    && matches!(self.peek_at(1), Tok::Punct(")"));
                let t = if bare_unknown {
                    None
                } else {
                    self.type_name()?
                };
                match t {
                    Some(t) if self.eat(")") => Expr::Type(t),
                    _ => {
                        self.pos = save;
                        self.unary()?
                    }
                }
            } else {
                self.unary()?
            };
            return Ok(if size {
                Expr::SizeOf(Box::new(e))
            } else {
                Expr::AlignOf(Box::new(e))
            });
        }
        // `{TYPE} ADDR` (a brace that does not start a type is an array literal).
        if self.is_punct("{") {
            let save = self.pos;
            self.bump();
            if let Some(t) = self.type_name()?
                && self.eat("}")
            {
                let e = self.unary()?;
                return Ok(Expr::MemVal(t, Box::new(e)));
            }
            self.pos = save;
        }
        if self.is_punct("(") {
            let save = self.pos;
            self.bump();
            if let Some(t) = self.cast_type()? {
                let e = self.unary()?;
                return Ok(Expr::Cast(t, Box::new(e)));
            }
            self.pos = save;
        }
        self.postfix()
    }

    /// After `(`: a type name followed by `)` that makes this a cast; `None` (position
    /// unspecified) when it is not one.
    fn cast_type(&mut self) -> Result<Option<TypeName>> {
        let bare_ident =
            matches!(self.peek(), Tok::Ident(_)) && matches!(self.peek_at(1), Tok::Punct(")"));
        let Some(t) = self.type_name()? else {
            return Ok(None);
        };
        if !self.eat(")") {
            return Ok(None);
        }
        if bare_ident && let BaseType::Named(n) = &t.base {
            let known = self.oracle.is_some_and(|o| o(n));
            // `(x) - 1` is a subtraction unless `x` is known to be a type; `(x) y` can only be a
            // cast.
            let operand_follows = match self.peek() {
                Tok::Int(..)
                | Tok::Float(..)
                | Tok::Char(..)
                | Tok::Str(_)
                | Tok::Ident(_)
                | Tok::QuotedName(_)
                | Tok::Dollar(_) => true,
                Tok::Punct(p) => matches!(*p, "!" | "~" | "{"),
                Tok::Entry | Tok::Eof => false,
            };
            if !known && !operand_follows {
                return Ok(None);
            }
        }
        Ok(Some(t))
    }

    /// A type name at the current position, if one starts here. An error only where a type was
    /// certainly meant (`struct` without a tag).
    fn type_name(&mut self) -> Result<Option<TypeName>> {
        let save = self.pos;
        let mut words: Vec<&'static str> = Vec::new();
        let mut base: Option<BaseType> = None;
        let mut is_const = false;
        let mut is_volatile = false;
        while let Tok::Ident(w) = self.peek().clone() {
            match w.as_str() {
                "const" => is_const = true,
                "volatile" => is_volatile = true,
                "struct" | "union" | "enum" if base.is_none() && words.is_empty() => {
                    self.bump();
                    let Tok::Ident(tag) = self.peek().clone() else {
                        return Err(self.syntax_error());
                    };
                    base = Some(match w.as_str() {
                        "struct" => BaseType::Struct(tag),
                        "union" => BaseType::Union(tag),
                        _ => BaseType::Enum(tag),
                    });
                }
                "int" | "char" | "short" | "long" | "unsigned" | "signed" | "float" | "double"
                | "void" | "_Bool"
                    if base.is_none() =>
                {
                    words.push(keyword(&w));
                }
                _ if base.is_none() && words.is_empty() && !TYPE_KEYWORDS.contains(&w.as_str()) => {
                    if matches!(w.as_str(), "sizeof" | "_Alignof") {
                        break;
                    }
                    // C++: a class by its qualified or template name (`phys::Box<double>`).
                    if let Some((full, end)) = self.cxx_name_at(self.pos)
                        && self.oracle.is_some_and(|o| o(&full))
                    {
                        base = Some(BaseType::Named(full));
                        self.pos = end - 1;
                        self.bump();
                        continue;
                    }
                    // A typedef name: accepted when the oracle says so, or when what follows
                    // can only be a declarator (checked by the caller for the bare case).
                    let known = self.oracle.is_some_and(|o| o(&w));
                    let declarator_follows = matches!(self.peek_at(1), Tok::Punct(")"))
                        || (matches!(self.peek_at(1), Tok::Punct("*"))
                            && self.pointer_declarator_ahead(self.pos + 1));
                    if !known && !declarator_follows {
                        break;
                    }
                    base = Some(BaseType::Named(w));
                }
                _ => break,
            }
            self.bump();
        }
        if base.is_none() {
            if words.is_empty() {
                self.pos = save;
                return Ok(None);
            }
            match canonical(&words) {
                Some(k) => base = Some(BaseType::Builtin(k)),
                None => return Err(self.syntax_error()),
            }
        }
        let Some(base) = base else {
            self.pos = save;
            return Ok(None);
        };
        let mut decl = Vec::new();
        self.abstract_declarator(&mut decl)?;
        Ok(Some(TypeName {
            base,
            base_const: is_const,
            base_volatile: is_volatile,
            decl,
        }))
    }

    /// A C++ qualified or template name at token `i` (`phys::Solver`, `phys::Box<double>`,
    /// `std::vector<int, std::allocator<int> >`) spelled as DWARF names it, and the index of
    /// the token after it; `None` for a plain name.
    fn cxx_name_at(&self, mut i: usize) -> Option<(String, usize)> {
        let tok = |i: usize| self.toks.get(i).map(|t| &t.tok);
        let mut out = String::new();
        let mut qualified = false;
        loop {
            let Some(Tok::Ident(w)) = tok(i) else {
                return None;
            };
            out.push_str(w);
            i += 1;
            if let Some(Tok::Punct("<")) = tok(i) {
                let (args, j) = self.template_args_at(i)?;
                out.push_str(&args);
                i = j;
                qualified = true;
            }
            if let (Some(Tok::Punct("::")), Some(Tok::Ident(_))) = (tok(i), tok(i + 1)) {
                out.push_str("::");
                i += 1;
                qualified = true;
                continue;
            }
            break;
        }
        qualified.then_some((out, i))
    }

    /// Whether the first `<` between tokens `i` and `end` adjoins the name before it
    /// (`map<int>`, not `a < b`), as gdb's lexer requires of a template argument list.
    fn template_adjoins(&self, i: usize, end: usize) -> bool {
        (i + 1..end)
            .find(|&j| matches!(self.toks[j].tok, Tok::Punct("<")))
            .is_some_and(|j| {
                let (prev, t) = (&self.toks[j - 1], &self.toks[j]);
                matches!(&prev.tok, Tok::Ident(w) if prev.start + w.len() == t.start)
            })
    }

    /// A template name no type has (`std::map<int, double>`, gdb knows the type by its full
    /// name only): a name in its scope, which the evaluation does not find (`No symbol
    /// "map<int, double>" in namespace "std".`); a scope with template arguments that is no
    /// type is an error here, in gdb's lexer's words.
    fn unknown_template_name(&self, full: &str) -> Result<Expr> {
        let parts = split_scope(full);
        for k in 1..parts.len().saturating_sub(1) {
            if parts[k].contains('<') {
                let prefix = parts[..=k].join("::");
                if !self.oracle.is_some_and(|o| o(&prefix)) {
                    return Err(DwarfError::user(format!(
                        "No type \"{}\" within class or namespace \"{}\".",
                        parts[k],
                        parts[..k].join("::")
                    )));
                }
            }
        }
        Ok(match full.rsplit_once("::").filter(|_| parts.len() > 1) {
            Some(_) => {
                let last = parts.last().copied().unwrap_or(full);
                Expr::Scoped(parts[..parts.len() - 1].join("::"), last.to_string())
            }
            None => Expr::Name(full.to_string()),
        })
    }

    /// The template argument list at token `i` (a `<`), spelled as g++ names it
    /// (`<double, std::allocator<double> >`), and the index after its `>`.
    fn template_args_at(&self, mut i: usize) -> Option<(String, usize)> {
        let mut depth = 0i32;
        let mut out = String::new();
        let mut after_word = false;
        loop {
            let t = &self.toks.get(i)?.tok;
            i += 1;
            let closers = match t {
                Tok::Punct(">") => 1,
                Tok::Punct(">>") => 2,
                _ => 0,
            };
            if closers > 0 {
                for _ in 0..closers {
                    if out.ends_with('>') {
                        out.push(' ');
                    }
                    out.push('>');
                    depth -= 1;
                }
                if depth < 0 {
                    return None;
                }
                if depth == 0 {
                    return Some((out, i));
                }
                after_word = false;
                continue;
            }
            match t {
                Tok::Punct("<") => {
                    depth += 1;
                    out.push('<');
                    after_word = false;
                }
                Tok::Punct(",") => {
                    out.push_str(", ");
                    after_word = false;
                }
                Tok::Punct(p @ ("*" | "&" | "::")) => {
                    out.push_str(p);
                    after_word = false;
                }
                Tok::Ident(w) => {
                    if after_word {
                        out.push(' ');
                    }
                    out.push_str(w);
                    after_word = true;
                }
                Tok::Int(v, _) => {
                    out.push_str(&v.to_string());
                    after_word = true;
                }
                _ => return None,
            }
        }
    }

    /// Whether the tokens from `i` are `*`s (and qualifiers) closed by `)`: `x *)` is a type.
    fn pointer_declarator_ahead(&self, mut i: usize) -> bool {
        while let Some(t) = self.toks.get(i) {
            match &t.tok {
                Tok::Punct("*") => {}
                Tok::Ident(w) if w == "const" || w == "volatile" => {}
                Tok::Punct(")") => return true,
                _ => return false,
            }
            i += 1;
        }
        false
    }

    /// `* const * ( * ) [3] (int)`: pushes steps applied innermost (nearest the base) first.
    fn abstract_declarator(&mut self, out: &mut Vec<Declarator>) -> Result<()> {
        while self.eat("*") {
            out.push(Declarator::Pointer);
            loop {
                match self.peek() {
                    Tok::Ident(w) if w == "const" => out.push(Declarator::Const),
                    Tok::Ident(w) if w == "volatile" => out.push(Declarator::Volatile),
                    _ => break,
                }
                self.bump();
            }
        }
        // A parenthesized inner declarator: `(*)`, `(*)[3]`.
        let mut inner = Vec::new();
        if self.is_punct("(") && matches!(self.peek_at(1), Tok::Punct("*")) {
            self.bump();
            self.abstract_declarator(&mut inner)?;
            self.expect(")")?;
        }
        // Suffixes: arrays and function parameter lists; the leftmost binds closest to the
        // base's side of the inner declarator, so they are collected then applied in reverse.
        let mut suffixes = Vec::new();
        loop {
            if self.is_punct("[") {
                self.bump();
                let n = match self.peek() {
                    Tok::Int(v, _) => {
                        let v = *v;
                        self.bump();
                        Some(v)
                    }
                    _ => None,
                };
                self.expect("]")?;
                suffixes.push(Declarator::Array(n));
            } else if self.is_punct("(") && (!inner.is_empty() || !suffixes.is_empty()) {
                self.bump();
                suffixes.push(Declarator::Function(self.params()?));
            } else {
                break;
            }
        }
        out.extend(suffixes.into_iter().rev());
        out.extend(inner);
        Ok(())
    }

    fn params(&mut self) -> Result<Option<Vec<TypeName>>> {
        if self.eat(")") {
            return Ok(None);
        }
        let mut ps = Vec::new();
        loop {
            match self.type_name()? {
                Some(t) => ps.push(t),
                None => return Err(self.syntax_error()),
            }
            if self.eat(")") {
                break;
            }
            self.expect(",")?;
        }
        if ps.len() == 1 && ps[0].base == BaseType::Builtin("void") && ps[0].decl.is_empty() {
            ps.clear();
        }
        Ok(Some(ps))
    }

    fn postfix(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            match self.peek() {
                Tok::Punct("[") => {
                    self.bump();
                    let i = self.comma()?;
                    self.expect("]")?;
                    e = Expr::Index(Box::new(e), Box::new(i));
                }
                Tok::Punct(p @ ("." | "->")) => {
                    let arrow = *p == "->";
                    self.bump();
                    let Tok::Ident(name) = self.peek().clone() else {
                        return Err(self.syntax_error());
                    };
                    self.bump();
                    // `it.operator*()`: a member operator by its name.
                    if name == "operator"
                        && let Tok::Punct(op) = self.peek().clone()
                    {
                        self.bump();
                        let op = match op {
                            "(" if self.eat(")") => "()",
                            "[" if self.eat("]") => "[]",
                            "(" | "[" => return Err(self.syntax_error()),
                            _ => op,
                        };
                        e = Expr::Member(Box::new(e), format!("operator{op}"), arrow);
                        continue;
                    }
                    if name == "operator" {
                        return Err(self.syntax_error());
                    }
                    // `d.Base::x`: a member of a base class, by its qualified name.
                    let mut name = name;
                    while self.is_punct("::")
                        && let Some(Tok::Ident(k)) =
                            self.toks.get(self.pos + 1).map(|t| t.tok.clone())
                    {
                        self.pos += 2;
                        name = format!("{name}::{k}");
                    }
                    e = Expr::Member(Box::new(e), name, arrow);
                }
                Tok::Punct("(") => {
                    self.bump();
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.assign()?);
                            if self.eat(")") {
                                break;
                            }
                            self.expect(",")?;
                        }
                    }
                    e = Expr::Call(Box::new(e), args);
                }
                Tok::Punct("++") => {
                    self.bump();
                    e = Expr::Unary(UnOp::PostInc, Box::new(e));
                }
                Tok::Punct("--") => {
                    self.bump();
                    e = Expr::Unary(UnOp::PostDec, Box::new(e));
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary(&mut self) -> Result<Expr> {
        match self.peek().clone() {
            Tok::Int(v, k) => {
                self.bump();
                Ok(Expr::Int(v, k))
            }
            Tok::Float(v, k) => {
                self.bump();
                Ok(Expr::Float(v, k))
            }
            Tok::Char(v, w) => {
                self.bump();
                Ok(Expr::Char(v, w))
            }
            Tok::Str(s) => {
                self.bump();
                Ok(Expr::Str(s))
            }
            Tok::Dollar(s) => {
                self.bump();
                Ok(Expr::Dollar(dollar(&s)))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.comma()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("{") => {
                self.bump();
                let mut items = Vec::new();
                if !self.eat("}") {
                    loop {
                        items.push(self.assign()?);
                        if self.eat("}") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ok(Expr::Array(items))
            }
            Tok::Punct("::") => {
                self.bump();
                match self.peek().clone() {
                    Tok::Ident(n) => {
                        self.bump();
                        // `::x`: the top level only (no local, class or namespace `x`).
                        Ok(Expr::Name(format!("::{n}")))
                    }
                    _ => Err(self.syntax_error()),
                }
            }
            Tok::QuotedName(n) | Tok::Ident(n) => {
                // C++: a template class in expression position (`ptype phys::Box<double>`,
                // `sizeof(Box<int>)`).
                if let Some((full, _)) = self.cxx_name_at(self.pos)
                    && full.contains('<')
                    && self.oracle.is_some_and(|o| o(&full))
                {
                    return match self.type_name()? {
                        Some(t) => Ok(Expr::Type(t)),
                        None => Err(self.syntax_error()),
                    };
                }
                // gdb's lexer takes a template argument list adjoining a name into the name
                // (`std::map<int, double>`, a type gdb knows only by its full name): an
                // unknown name, not a comparison.
                if let Some((full, end)) = self.cxx_name_at(self.pos)
                    && full.contains('<')
                    && self.template_adjoins(self.pos, end)
                {
                    self.pos = end;
                    return self.unknown_template_name(&full);
                }
                if let Tok::Ident(w) = self.peek()
                    && TYPE_KEYWORDS.contains(&w.as_str())
                {
                    return match self.type_name()? {
                        Some(t) => Ok(Expr::Type(t)),
                        None => Err(self.syntax_error()),
                    };
                }
                self.bump();
                if self.eat("::") {
                    return match self.peek().clone() {
                        Tok::Ident(m) => {
                            self.bump();
                            // `'file.c'::function::name`: the scope is `file.c::function`.
                            let mut scope = n;
                            let mut name = m;
                            while self.is_punct("::")
                                && let Some(Tok::Ident(k)) =
                                    self.toks.get(self.pos + 1).map(|t| t.tok.clone())
                            {
                                self.pos += 2;
                                scope = format!("{scope}::{name}");
                                name = k;
                            }
                            Ok(Expr::Scoped(scope, name))
                        }
                        _ => Err(self.syntax_error()),
                    };
                }
                if self.oracle.is_some_and(|o| o(&n)) && !self.is_punct("(") {
                    // A typedef name used as an expression (`whatis item_t`, `item_t *`).
                    self.pos -= 1;
                    if let Some(t) = self.type_name()? {
                        return Ok(Expr::Type(t));
                    }
                    self.bump();
                }
                if matches!(self.peek(), Tok::Entry) {
                    self.bump();
                    return Ok(Expr::EntryValue(n));
                }
                Ok(Expr::Name(n))
            }
            Tok::Punct("@")
                if self.pos == 0 || matches!(self.toks[self.pos - 1].tok, Tok::Punct("(")) =>
            {
                // gdb's grammar takes a leading `@` and fails on the token after it.
                self.bump();
                Err(self.syntax_error())
            }
            _ => Err(self.syntax_error()),
        }
    }
}

fn bin_op(p: &str) -> BinOp {
    match p {
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "&" => BinOp::BitAnd,
        "^" => BinOp::BitXor,
        _ => BinOp::BitOr,
    }
}

fn keyword(w: &str) -> &'static str {
    match w {
        "int" => "int",
        "char" => "char",
        "short" => "short",
        "long" => "long",
        "unsigned" => "unsigned",
        "signed" => "signed",
        "float" => "float",
        "double" => "double",
        "void" => "void",
        _ => "_Bool",
    }
}

/// gdb's name for a combination of C type keywords (`unsigned` → `unsigned int`,
/// `long unsigned int` → `unsigned long`).
fn canonical(words: &[&str]) -> Option<&'static str> {
    let count = |k: &str| words.iter().filter(|w| **w == k).count();
    let (uns, sig, long, short) = (
        count("unsigned"),
        count("signed"),
        count("long"),
        count("short"),
    );
    let (int, chr, flt, dbl, void, b) = (
        count("int"),
        count("char"),
        count("float"),
        count("double"),
        count("void"),
        count("_Bool"),
    );
    if uns + sig > 1 || int > 1 || chr + flt + dbl + void + b > 1 || long > 2 || short > 1 {
        return None;
    }
    if (short > 0 && long > 0) || (chr + flt + dbl + void + b > 0 && int > 0) {
        return None;
    }
    if void > 0 || b > 0 || flt > 0 {
        if uns + sig + long + short > 0 {
            return None;
        }
        return Some(if void > 0 {
            "void"
        } else if b > 0 {
            "_Bool"
        } else {
            "float"
        });
    }
    if dbl > 0 {
        return match (uns + sig + short, long) {
            (0, 0) => Some("double"),
            (0, 1) => Some("long double"),
            _ => None,
        };
    }
    if chr > 0 {
        if long + short > 0 {
            return None;
        }
        return Some(if uns > 0 {
            "unsigned char"
        } else if sig > 0 {
            "signed char"
        } else {
            "char"
        });
    }
    Some(match (uns > 0, short, long) {
        (false, 1, _) => "short",
        (true, 1, _) => "unsigned short",
        (false, _, 0) => "int",
        (true, _, 0) => "unsigned int",
        (false, _, 1) => "long",
        (true, _, 1) => "unsigned long",
        (false, _, _) => "long long",
        (true, _, _) => "unsigned long long",
    })
}

fn dollar(s: &str) -> Dollar {
    use crate::context::HistoryRef;
    if s.is_empty() {
        return Dollar::History(HistoryRef::Relative(0));
    }
    if let Some(rest) = s.strip_prefix('$') {
        if rest.is_empty() {
            return Dollar::History(HistoryRef::Relative(1));
        }
        if let Ok(n) = rest.parse::<usize>() {
            return Dollar::History(HistoryRef::Relative(n));
        }
        return Dollar::Var(s.to_string());
    }
    if s.bytes().all(|c| c.is_ascii_digit()) {
        return match s.parse::<usize>() {
            Ok(0) => Dollar::History(HistoryRef::Relative(0)),
            Ok(n) => Dollar::History(HistoryRef::Absolute(n)),
            Err(_) => Dollar::Var(s.to_string()),
        };
    }
    Dollar::Var(s.to_string())
}

/// `A syntax error …` positions and the rest: parse the whole of `text`.
pub fn parse_expr(text: &str, oracle: Option<TypeOracle<'_>>) -> Result<Expr> {
    Parser::new(text, oracle)?.parse_all()
}

/// A type name filling all of `text`.
pub fn parse_type_name(text: &str, oracle: Option<TypeOracle<'_>>) -> Option<TypeName> {
    Parser::new(text, oracle).ok()?.parse_type_all()
}

use crate::demangle::split_scope;
