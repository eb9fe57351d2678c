//! What printing and evaluation need from the program being debugged, as traits: the CLI
//! implements them over a live process and the selected frame; tests implement them over
//! buffers.

use crate::error::Result;
use crate::types::TypeRef;
use crate::value::{Lval, Value};

/// Read access to a program's memory and symbols: enough to print any value.
pub trait Target {
    /// Fill `buf` from `addr` (an error names the first unreadable address, in gdb's words
    /// `Cannot access memory at address 0x…`).
    fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<()>;

    /// Size of a pointer in bytes.
    fn ptr_size(&self) -> u64 {
        8
    }

    /// The symbol gdb would print in `<…>` after an address: `main`, `main+4`, `counter`,
    /// `arr+8`; `None` for stack and heap addresses.
    fn symbol_for(&self, addr: u64) -> Option<String>;

    /// The value of a C++ static data member by its qualified name (`geom::Shape::count`),
    /// for printing it in its class's objects; `None` when it is not found (printed
    /// `<optimized out>`).
    fn static_member(&self, _qualified: &str) -> Option<Value> {
        None
    }

    /// gdb's `value_full_object` on the polymorphic object at `addr`, as it runs when it
    /// follows a pointer to one: it names the object's dynamic class by its vtable's symbol
    /// and looks the class up, printing `warning: RTTI symbol not found for class '…'` when
    /// the debug information has no type of that name.
    fn full_object(&self, _addr: u64) {}

    /// A line gdb writes on stderr while printing a value (a libstdc++ printer's
    /// `Python Exception <class 'gdb.error'>: …`); the value goes on.
    fn print_error(&self, _line: &str) {}
}

/// Which entry of the value history an expression names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryRef {
    /// `$N`
    Absolute(usize),
    /// `$` (0), `$$` (1), `$$N` (N): counted back from the last entry.
    Relative(usize),
}

/// How `$_gdb_setting` converts a setting's value (gdb's `value_from_setting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    /// `on`/`off`: an `int` 1 or 0.
    Bool,
    /// An `unsigned int`; `unlimited` is 0.
    UInt,
    /// An `int`; `unlimited` is 0.
    Int,
    /// An `int`; `unlimited` is -1.
    ZUnlimited,
    /// The words, as a `char` array.
    Text,
}

/// Everything an expression can reach, at the selected frame.
pub trait EvalContext: Target {
    /// `$_gdb_setting(NAME)`: the setting `show NAME` shows, its kind and its value as
    /// `show` words it (`200`, `unlimited`, `off`); `None` when there is no such setting.
    fn gdb_setting(&self, _name: &str) -> Option<(SettingKind, String)> {
        None
    }

    /// `$_gdb_maint_setting(NAME)`: as [`EvalContext::gdb_setting`], for the setting
    /// `maintenance show NAME` shows.
    fn gdb_maint_setting(&self, _name: &str) -> Option<(SettingKind, String)> {
        None
    }

    /// The function name of the frame `up` frames older than the selected one, as Python's
    /// `Frame.name()` gives it (for `$_caller_is`): `Err` with gdb's message when no frame
    /// is selected, `Ok(None)` past the outermost frame, `Ok(Some(None))` for a frame with no
    /// function name.
    fn frame_name(&self, _up: usize) -> Result<Option<Option<String>>> {
        Err(crate::error::DwarfError::user(
            "No frame is currently selected.",
        ))
    }

    /// A value as `print` shows it with the current settings (Python's `str(value)`, for
    /// `$_as_string`).
    fn value_text(&self, _v: &Value) -> Option<String> {
        None
    }

    /// Whether a process runs (gdb's `target_has_execution`): without one, nothing can be
    /// allocated in the program.
    fn has_execution(&self) -> bool {
        true
    }

    /// A warning of the evaluation, in gdb's words without the `warning: ` prefix (`left
    /// shift count >= width of type`), shown on the spot.
    fn warning(&self, _msg: &str) {}

    /// Write `bytes` to where `lval` says (memory, a register of the selected frame or a
    /// bitfield).
    fn write(&self, lval: &Lval, bytes: &[u8]) -> Result<()>;

    /// A name as C scoping sees it from the selected frame: block locals innermost first, then
    /// parameters, then the file's statics, then globals of every loaded object, then
    /// functions. `Ok(None)` when nothing has that name (the caller words the error).
    fn lookup_variable(&self, name: &str) -> Result<Option<Value>>;

    /// `lookup_variable` in two parts, for a language that tries a name in several cases
    /// (Fortran): with `minimal`, the ELF symbol table alone (gdb's minimal symbols), else
    /// debug information alone; gdb tries every case in debug information first.
    /// How a global variable of the debug information spells `name` in another case (`Mixed`
    /// for `mixed`), for a case-insensitive language.
    fn spelled_nocase(&self, _name: &str) -> Option<String> {
        None
    }

    fn lookup_variable_part(&self, name: &str, minimal: bool) -> Result<Option<Value>> {
        match minimal {
            false => self.lookup_variable(name),
            true => Ok(None),
        }
    }

    /// gdb's `name@entry`: the value parameter `name` of the selected frame's function had
    /// on entry to it.
    fn entry_value(&self, name: &str) -> Result<Value> {
        Err(crate::error::DwarfError::user(format!(
            "@entry can be used only for function parameters, not for \"{name}\""
        )))
    }

    /// `'file.c'::name` or `function::name` (a static local of that function).
    fn lookup_scoped(&self, scope: &str, name: &str) -> Result<Option<Value>>;

    /// A type as C spells it: `int`, `unsigned long`, `struct item`, `union u`, `enum color`,
    /// `item_t`; `None` when unknown.
    fn lookup_type(&self, name: &str) -> Option<TypeRef>;

    /// Whether `name` is a local variable or parameter of the selected frame's scopes: in C it
    /// hides a type of the same name, so the parser need not look for one (a look-up that
    /// indexes the types of every object, libc's debug file included, the first time).
    fn is_local_variable(&self, _name: &str) -> bool {
        false
    }

    /// Whether `name` is a C++ namespace (`std`): gdb's words for a name not in it differ.
    fn is_namespace(&self, _name: &str) -> bool {
        false
    }

    /// `$pc`, `$sp`, `$fp`, `$rax`, `$eax`… at the selected frame; `Ok(None)` when not a
    /// register name (then it may be a convenience variable).
    fn register(&self, name: &str) -> Result<Option<Value>>;

    /// The name of DWARF register `dwarf` in the selected frame's architecture (`rbx`).
    fn register_name(&self, _dwarf: u16) -> Option<String> {
        None
    }

    /// An entry of the value history (`$`, `$N`, `$$N`).
    fn history(&self, which: HistoryRef) -> Result<Value>;

    /// A convenience variable `$name` (`None`: void, as gdb); an error for one of gdb's
    /// own that cannot be computed here (`$_probe_argc` without a frame).
    fn convenience(&self, name: &str) -> Result<Option<Value>>;

    /// `$name` was used in an expression: gdb creates the variable (void) the first time,
    /// and `show convenience` lists it from then on.
    fn touch_convenience(&self, _name: &str) {}

    /// Set a convenience variable.
    fn set_convenience(&self, name: &str, value: Value);

    /// With `set print object on`, the most-derived class of the polymorphic object at `addr`
    /// and the address of the whole object (`p->member` looks there); `None` otherwise.
    fn dynamic_object(&self, _addr: u64) -> Option<(TypeRef, u64)> {
        None
    }

    /// `ty` with its variable-length array bounds computed at the selected frame (gdb's
    /// `resolve_dynamic_type`, done when a pointer to a VLA is dereferenced). By default
    /// `ty` as it is.
    fn resolve_dynamic(&self, ty: &TypeRef) -> Result<TypeRef> {
        Ok(ty.clone())
    }

    /// `ty` (an array whose shape is a property of its object, see
    /// [`crate::types::TypeKind::DynArray`]) resolved for the object at `object`, at the
    /// selected frame: the resolved type and the address of its first element. By default
    /// `ty` as it is.
    fn resolve_object(&self, ty: &TypeRef, object: u64) -> Result<(TypeRef, u64)> {
        Ok((ty.clone(), object))
    }

    /// Call a function of the program (gdb's inferior call) and return the bytes of its
    /// return value (empty for `void`). The arguments are already converted to what the
    /// function takes.
    fn call_function(&self, _call: &FunctionCall) -> Result<Vec<u8>> {
        Err(crate::error::DwarfError::user(
            "You can't do that without a process to debug.",
        ))
    }

    /// The address of the code symbol `linkage` (a mangled name) in any loaded object.
    fn code_symbol(&self, _linkage: &str) -> Option<u64> {
        None
    }

    /// Every function called `name` (a C++ name may have overloads), as values of function
    /// type at their addresses; empty when there is none.
    fn lookup_functions(&self, name: &str) -> Result<Vec<Value>> {
        Ok(self.lookup_variable(name)?.into_iter().collect())
    }

    /// The functions called `name` declared in one of the namespaces `scopes` (`""` the
    /// global one), as [`EvalContext::lookup_functions`] gives them.
    fn lookup_functions_in(&self, name: &str, scopes: &[String]) -> Result<Vec<Value>> {
        if scopes.iter().any(|s| s.is_empty()) {
            self.lookup_functions(name)
        } else {
            Ok(Vec::new())
        }
    }

    /// Put `bytes` in the program's memory for the duration of an evaluation that calls a
    /// function (a string passed as `const char *`): their address.
    fn push_for_call(&self, _bytes: &[u8]) -> Result<u64> {
        Err(crate::error::DwarfError::user(
            "Attempt to take address of value not located in memory.",
        ))
    }

    /// The language expressions are evaluated in (the selected frame's): in C++,
    /// comparisons and logical operators give a `bool`. By default C.
    fn language(&self) -> crate::format::Language {
        crate::format::Language::C
    }
}

/// A call of a function of the program, as [`EvalContext::call_function`] gets it.
#[derive(Debug, Clone)]
pub struct FunctionCall {
    /// The function's name, for messages (`(crash) will be abandoned`).
    pub name: String,
    pub address: u64,
    /// Each argument: its type and bytes (`this` first for a member function).
    pub args: Vec<(TypeRef, Vec<u8>)>,
    pub ret: TypeRef,
}

/// One scalar of a value, as a calling convention sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbiScalar {
    Int,
    Float,
    /// x87 `long double`.
    X87,
}

/// The scalars `ty` is made of, (offset, size, kind) in offset order, for a calling
/// convention's classification; `None` when the value can only be passed in memory
/// (a bitfield, an array of unknown length, an unsupported type).
pub fn abi_scalars(ty: &TypeRef) -> Option<Vec<(u64, u64, AbiScalar)>> {
    if pass_by_reference(ty) {
        return None;
    }
    let mut out = Vec::new();
    scalars_into(ty, 0, &mut out, 0)?;
    out.sort_by_key(|p| p.0);
    Some(out)
}

/// The Itanium C++ ABI's "non-trivial for the purposes of calls": a class with a
/// user-provided copy or move constructor or destructor, virtual functions or virtual
/// bases, or a base or member that is such a class. It is passed by invisible reference
/// (the caller's copy made by its copy constructor) and returned through memory the caller
/// provides (gdb's `gnuv3_pass_by_reference`).
pub fn pass_by_reference(ty: &TypeRef) -> bool {
    non_trivial(ty, 0)
}

fn non_trivial(ty: &TypeRef, depth: usize) -> bool {
    use crate::types::TypeKind;
    if depth > 16 {
        return false;
    }
    let st = ty.strip();
    match &st.kind {
        TypeKind::Array { element, .. } => non_trivial(element, depth + 1),
        TypeKind::Aggregate { members, .. } => {
            let Some(cxx) = st.cxx.as_deref() else {
                return false;
            };
            let short = class_short_name(st.name.as_deref().unwrap_or(""));
            let special = cxx.methods.iter().any(|m| {
                m.is_virtual
                    || (!m.artificial
                        && (m.name.strip_prefix('~') == Some(short)
                            || (m.name == short && copy_or_move_ctor(m, short))))
            });
            special
                || !cxx.virtual_bases.is_empty()
                || members
                    .iter()
                    .filter(|m| !m.is_static)
                    .any(|m| non_trivial(m.ty.get(), depth + 1))
        }
        _ => false,
    }
}

/// `ns::Big<int>` → `Big`: the name constructors and destructors carry.
pub fn class_short_name(name: &str) -> &str {
    let base = name.split('<').next().unwrap_or(name);
    base.rsplit("::").next().unwrap_or(base)
}

/// Whether constructor `m` of class `short` takes one reference to its own class.
pub fn copy_or_move_ctor(m: &crate::types::Method, short: &str) -> bool {
    use crate::types::TypeKind;
    let [p] = m.params.as_slice() else {
        return false;
    };
    match &p.get().strip().kind {
        TypeKind::Reference(t) | TypeKind::RvalueReference(t) => t
            .get()
            .strip()
            .name
            .as_deref()
            .is_some_and(|n| class_short_name(n) == short),
        _ => false,
    }
}

fn scalars_into(
    ty: &TypeRef,
    base: u64,
    out: &mut Vec<(u64, u64, AbiScalar)>,
    depth: usize,
) -> Option<()> {
    use crate::types::{Bound, Encoding, TypeKind};
    if depth > 32 {
        return None;
    }
    let s = ty.strip();
    match &s.kind {
        TypeKind::Base(Encoding::Float) if s.size == 16 => out.push((base, 16, AbiScalar::X87)),
        TypeKind::Base(Encoding::Float) => out.push((base, s.size, AbiScalar::Float)),
        TypeKind::Base(Encoding::ComplexFloat) => {
            let half = s.size / 2;
            let k = if half == 16 {
                AbiScalar::X87
            } else {
                AbiScalar::Float
            };
            out.push((base, half, k));
            out.push((base + half, half, k));
        }
        TypeKind::Base(_)
        | TypeKind::Enum { .. }
        | TypeKind::Pointer(_)
        | TypeKind::Reference(_)
        | TypeKind::RvalueReference(_) => out.push((base, s.byte_size(), AbiScalar::Int)),
        TypeKind::Array {
            element,
            bound: Bound::Count(n),
        } => {
            let es = element.byte_size();
            for i in 0..*n {
                scalars_into(element, base + i * es, out, depth + 1)?;
            }
        }
        TypeKind::Aggregate { members, .. } => {
            for m in members {
                if m.is_static {
                    continue;
                }
                if m.bitfield.is_some() {
                    // A bitfield's storage unit is an integer.
                    let size = m.ty.get().byte_size();
                    out.push((base + m.offset, size.max(1), AbiScalar::Int));
                    continue;
                }
                scalars_into(m.ty.get(), base + m.offset, out, depth + 1)?;
            }
        }
        _ => return None,
    }
    Some(())
}
