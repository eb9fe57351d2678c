//! gdb's convenience functions, called as `$_isvoid(x)`: those built into gdb 13
//! (`$_isvoid`, `$_creal`, `$_cimag`) and those its Python library adds (`$_strlen`,
//! `$_streq`, `$_memeq`, `$_regex`, `$_caller_is`, `$_caller_matches`, `$_any_caller_is`,
//! `$_any_caller_matches`, `$_as_string`), in gdb's words. A convenience variable of the same name
//! (`set $_isvoid = 1`) hides the function, as in gdb.

use super::{Cls, Ev, V, classify, user};
use crate::context::SettingKind;
use crate::error::Result;
use crate::expr::parser::Expr;
use crate::types::{Encoding, Type, TypeKind, TypeRef};

/// The names of the convenience functions cohort knows.
pub(crate) const INTERNAL_FUNCTIONS: &[&str] = &[
    "_isvoid",
    "_creal",
    "_cimag",
    "_gdb_setting",
    "_gdb_setting_str",
    "_gdb_maint_setting",
    "_gdb_maint_setting_str",
    "_strlen",
    "_streq",
    "_memeq",
    "_regex",
    "_caller_is",
    "_caller_matches",
    "_any_caller_is",
    "_any_caller_matches",
    "_as_string",
];

/// The type of a convenience function's value: `whatis $_isvoid` says
/// `type = <internal function>`; the value's bytes are the function's name.
pub(crate) fn internal_function_type() -> TypeRef {
    static T: std::sync::OnceLock<TypeRef> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        Type::new(
            Some("<internal function>".into()),
            0,
            TypeKind::Error("internal function".into()),
        )
    })
    .clone()
}

/// The function a value of [`internal_function_type`] names.
pub(crate) fn internal_function_name(ty: &TypeRef, bytes: &[u8]) -> Option<String> {
    std::sync::Arc::ptr_eq(ty, &internal_function_type())
        .then(|| String::from_utf8_lossy(bytes).into_owned())
}

/// An error raised inside one of gdb's Python functions, as gdb reports it.
fn python_error(class: &str, msg: &str) -> crate::error::DwarfError {
    user(format!(
        "Python Exception <class '{class}'>: {msg}\nError occurred in Python: {msg}"
    ))
}

impl Ev<'_> {
    /// `$NAME(args)` where `NAME` is a convenience function and no convenience variable or
    /// register has that name; `None` otherwise.
    pub(super) fn internal_call(&self, name: &str, args: &[Expr]) -> Result<Option<V>> {
        let name = match self.ctx.convenience(name)? {
            // `set $f = $_isvoid`: `$f(x)`.
            Some(v) => match internal_function_name(&v.ty, &v.bytes) {
                Some(n) => n,
                None => return Ok(None),
            },
            None if INTERNAL_FUNCTIONS.contains(&name) && self.ctx.register(name)?.is_none() => {
                name.to_string()
            }
            None => return Ok(None),
        };
        let name = name.as_str();
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.coerce_ref(self.eval(a)?)?);
        }
        // gdb does not call the function without side effects (`whatis`): an `int`.
        if !self.side {
            return Ok(Some(self.int(0)));
        }
        // The Python functions' `invoke` parameters, as Python words a wrong count (the
        // last `optional` of them have defaults).
        let count_opt = |class: &str, params: &[&str], optional: usize| -> Result<()> {
            let (n, got) = (params.len(), values.len());
            let required = n - optional;
            let msg = if got < required {
                let missing: Vec<String> = params[got..required]
                    .iter()
                    .map(|p| format!("'{p}'"))
                    .collect();
                let list = match missing.as_slice() {
                    [one] => one.clone(),
                    [rest @ .., last] if rest.len() == 1 => format!("{} and {last}", rest[0]),
                    [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
                    [] => String::new(),
                };
                format!(
                    "{class}.invoke() missing {} required positional argument{}: {list}",
                    required - got,
                    if required - got == 1 { "" } else { "s" }
                )
            } else if got > n {
                let takes = match optional {
                    0 => format!("{}", n + 1),
                    _ => format!("from {} to {}", required + 1, n + 1),
                };
                format!(
                    "{class}.invoke() takes {takes} positional arguments but {} were given",
                    got + 1
                )
            } else {
                return Ok(());
            };
            Err(python_error("TypeError", &msg))
        };
        let count = |class: &str, params: &[&str]| count_opt(class, params, 0);
        let v = match name {
            "_isvoid" => {
                let [v] = values.as_slice() else {
                    return Err(user("You must provide one argument for $_isvoid."));
                };
                let void = matches!(v.ty.strip().kind, TypeKind::Void);
                self.int(void as i128)
            }
            "_creal" | "_cimag" => {
                let [v] = values.as_slice() else {
                    return Err(user(format!("You must provide one argument for ${name}.")));
                };
                self.complex_part(v.clone(), name == "_cimag")?
            }
            "_gdb_setting"
            | "_gdb_setting_str"
            | "_gdb_maint_setting"
            | "_gdb_maint_setting_str" => {
                let v = match values.as_slice() {
                    [] => return Err(user(format!("You must provide an argument to ${name}"))),
                    [v] => v.clone(),
                    _ => {
                        return Err(user(format!(
                            "You can only provide one argument to ${name}"
                        )));
                    }
                };
                let is_string = matches!(&v.ty.strip().kind,
                    TypeKind::Array { element, .. } if element.strip().size == 1);
                if !is_string {
                    return Err(user(format!("First argument of ${name} must be a string.")));
                }
                let mut v = v;
                let b = self.bytes(&mut v)?;
                let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                let setting = String::from_utf8_lossy(&b[..n]).into_owned();
                let found = if name.starts_with("_gdb_maint") {
                    self.ctx.gdb_maint_setting(&setting)
                } else {
                    self.ctx.gdb_setting(&setting)
                };
                // (gdb 13 says 'show' for the maintenance ones too.)
                let Some((kind, text)) = found else {
                    return Err(user(format!(
                        "First argument of ${name} must be a valid setting of the 'show' command."
                    )));
                };
                let b = super::builtins();
                let unlimited = text == "unlimited";
                let num = || text.parse::<i128>().unwrap_or(0);
                match (name, kind) {
                    ("_gdb_setting_str" | "_gdb_maint_setting_str", _) | (_, SettingKind::Text) => {
                        self.char_array(&text)
                    }
                    (_, SettingKind::Bool) => self.int((text == "on") as i128),
                    (_, SettingKind::UInt) => {
                        self.int_value(&b.uint, if unlimited { 0 } else { num() })
                    }
                    (_, SettingKind::Int) => self.int(if unlimited { 0 } else { num() }),
                    (_, SettingKind::ZUnlimited) => self.int(if unlimited { -1 } else { num() }),
                }
            }
            "_strlen" => {
                count("_StrLen", &["a"])?;
                let s = self.c_string(values[0].clone())?;
                self.int(s.len() as i128)
            }
            "_streq" => {
                count("_StrEq", &["a", "b"])?;
                let a = self.c_string(values[0].clone())?;
                let b = self.c_string(values[1].clone())?;
                self.py_bool(a == b)
            }
            "_memeq" => {
                count("_MemEq", &["a", "b", "length"])?;
                let mut n = values[2].clone();
                let len = match classify(&n.ty) {
                    Cls::Int { .. } => self.int_of(&mut n)?,
                    Cls::Float(_) => crate::extfloat::quad_to_int(self.float_of(&mut n)?),
                    _ => return Err(python_error("gdb.error", "Cannot convert value to long.")),
                };
                if len < 0 {
                    return Err(python_error("ValueError", "length must be non-negative"));
                }
                if len == 0 {
                    return Ok(Some(self.py_bool(true)));
                }
                let a = self.address_of_arg(values[0].clone())?;
                let b = self.address_of_arg(values[1].clone())?;
                let len = usize::try_from(len).unwrap_or(usize::MAX);
                if len as u64 > super::MAX_VALUE_SIZE {
                    return Err(python_error(
                        "gdb.error",
                        &format!("value requires {len} bytes, which is more than max-value-size"),
                    ));
                }
                let mut x = vec![0u8; len];
                let mut y = vec![0u8; len];
                for (at, buf) in [(a, &mut x), (b, &mut y)] {
                    self.ctx
                        .read_memory(at, buf)
                        .map_err(|e| python_error("gdb.MemoryError", &e.to_string()))?;
                }
                self.py_bool(x == y)
            }
            "_regex" => {
                count("_RegEx", &["string", "regex"])?;
                let s = self.c_string(values[0].clone())?;
                let r = self.c_string(values[1].clone())?;
                let (s, r) = (String::from_utf8_lossy(&s), String::from_utf8_lossy(&r));
                // Python's `re.match`: anchored at the start only.
                let re = regex::Regex::new(&format!("^(?:{r})"))
                    .map_err(|e| python_error("re.error", &e.to_string()))?;
                self.py_bool(re.is_match(&s))
            }
            "_caller_is" | "_caller_matches" | "_any_caller_is" | "_any_caller_matches" => {
                let class = match name {
                    "_caller_is" => "CallerIs",
                    "_caller_matches" => "CallerMatches",
                    "_any_caller_is" => "AnyCallerIs",
                    _ => "AnyCallerMatches",
                };
                count_opt(class, &["name", "nframes"], 1)?;
                self.py_bool(self.caller_test(name, &values)?)
            }
            "_as_string" => {
                count("_AsString", &["val"])?;
                let text = self
                    .ctx
                    .value_text(&super::to_value(values[0].clone()))
                    .unwrap_or_default();
                self.char_array(&text)
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// gdb's Python `$_caller_is`, `$_caller_matches`, `$_any_caller_is` and
    /// `$_any_caller_matches` (gdb/python/lib/gdb/function/caller_is.py): the function name
    /// of the frame NFRAMES (default 1) older than the selected one, or of any frame up to
    /// it, equal to NAME or matched at its start by the regular expression NAME.
    fn caller_test(&self, name: &str, values: &[V]) -> Result<bool> {
        let nframes = match values.get(1) {
            Some(n) => {
                let mut n = n.clone();
                match classify(&n.ty) {
                    Cls::Int { .. } => self.int_of(&mut n)?,
                    Cls::Float(_) => crate::extfloat::quad_to_int(self.float_of(&mut n)?),
                    _ => return Err(python_error("gdb.error", "Cannot convert value to long.")),
                }
            }
            None => 1,
        };
        if nframes < 0 {
            return Err(python_error("ValueError", "nframes must be >= 0"));
        }
        let wanted = String::from_utf8_lossy(&self.c_string(values[0].clone())?).into_owned();
        let regex = name.ends_with("_matches");
        let re = if regex {
            Some(
                regex::Regex::new(&format!("^(?:{wanted})"))
                    .map_err(|e| python_error("re.error", &e.to_string()))?,
            )
        } else {
            None
        };
        let matches = |frame: Option<String>| -> Result<bool> {
            match (&re, frame) {
                (Some(re), Some(f)) => Ok(re.is_match(&f)),
                (Some(_), None) => Err(python_error(
                    "TypeError",
                    "expected string or bytes-like object, got 'NoneType'",
                )),
                (None, f) => Ok(f.as_deref() == Some(wanted.as_str())),
            }
        };
        // The selected frame must exist even for NFRAMES 0.
        let here = self
            .ctx
            .frame_name(0)
            .map_err(|e| python_error("gdb.error", &e.to_string()))?;
        let nframes = usize::try_from(nframes).unwrap_or(usize::MAX);
        if name.starts_with("_any") {
            let mut frame = here;
            for up in 0..=nframes {
                let Some(f) = frame else { return Ok(false) };
                if matches(f)? {
                    return Ok(true);
                }
                frame = self.ctx.frame_name(up + 1).unwrap_or(None);
            }
            return Ok(false);
        }
        match self.ctx.frame_name(nframes).unwrap_or(None) {
            Some(f) => matches(f),
            None => Ok(false),
        }
    }

    /// A Python `bool` a convenience function returns, as gdb converts it: the language's
    /// boolean type (`bool` in C++, `int` in C).
    fn py_bool(&self, b: bool) -> V {
        if self.ctx.language() == crate::format::Language::Cplus {
            return V::new(super::builtins().bool_.clone(), vec![b as u8]);
        }
        self.int(b as i128)
    }

    /// gdb's `value_cstring`: the characters, without a terminating null.
    fn char_array(&self, text: &str) -> V {
        // gdb's `str_value_from_setting`: an empty text is one NUL character.
        let bytes = if text.is_empty() {
            vec![0]
        } else {
            text.as_bytes().to_vec()
        };
        let ty = Type::array_of(super::builtins().char.clone(), bytes.len() as u64);
        V::new(ty, bytes)
    }

    /// `$_creal`/`$_cimag`: a part of a complex value, of the part's float type.
    fn complex_part(&self, mut v: V, imag: bool) -> Result<V> {
        let t = v.ty.strip();
        if !matches!(t.kind, TypeKind::Base(Encoding::ComplexFloat)) {
            return Err(user("expected a complex number"));
        }
        let half = (t.size / 2) as usize;
        let name = match t.name.as_deref().map(|n| n.trim_start_matches("complex ")) {
            Some(n @ ("float" | "double" | "long double")) => n.to_string(),
            _ => match half {
                4 => "float".to_string(),
                8 => "double".to_string(),
                _ => "long double".to_string(),
            },
        };
        let part = Type::base(&name, half as u64, Encoding::Float);
        let bytes = self.bytes(&mut v)?;
        let from = if imag { half } else { 0 };
        let b = bytes.get(from..from + half).unwrap_or(&[]).to_vec();
        Ok(V::new(part, b))
    }

    /// gdb's `Value.string()` for a Python convenience function: the characters of a
    /// `char` array (to its first null) or those a `char *` points to.
    fn c_string(&self, v: V) -> Result<Vec<u8>> {
        let t = v.ty.strip();
        let wrong = || {
            python_error(
                "gdb.error",
                &format!(
                    "Trying to read string with inappropriate type `{}'.",
                    super::type_name(&v.ty)
                ),
            )
        };
        let one_byte_char = |e: &crate::types::TypeRef| {
            let e = e.strip();
            e.size == 1 && matches!(e.kind, TypeKind::Base(_))
        };
        match &t.kind {
            TypeKind::Array { element, .. } if one_byte_char(element) => {
                let mut v = v.clone();
                let b = self.bytes(&mut v)?;
                let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                Ok(b[..n].to_vec())
            }
            TypeKind::Pointer(p) if one_byte_char(p.get()) => {
                let mut v = v.clone();
                let mut addr = self.int_of(&mut v)? as u64;
                let mut out = Vec::new();
                loop {
                    let mut chunk = [0u8; 64];
                    let n = (64 - (addr % 64)) as usize;
                    self.ctx
                        .read_memory(addr, &mut chunk[..n])
                        .map_err(|e| python_error("gdb.MemoryError", &e.to_string()))?;
                    if let Some(z) = chunk[..n].iter().position(|&c| c == 0) {
                        out.extend_from_slice(&chunk[..z]);
                        return Ok(out);
                    }
                    out.extend_from_slice(&chunk[..n]);
                    addr += n as u64;
                    if out.len() as u64 > super::MAX_VALUE_SIZE {
                        return Ok(out);
                    }
                }
            }
            _ => Err(wrong()),
        }
    }

    /// An argument of `$_memeq` as an address (a pointer, an array, an integer).
    fn address_of_arg(&self, v: V) -> Result<u64> {
        let mut v = match classify(&v.ty) {
            Cls::Array(_) => self.decay(v)?,
            _ => v,
        };
        match classify(&v.ty) {
            Cls::Ptr(_) | Cls::Int { .. } => Ok(self.int_of(&mut v)? as u64),
            _ => Err(python_error("gdb.error", "Invalid reinterpret_cast")),
        }
    }
}
