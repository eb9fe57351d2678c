//! Type names as gdb's C type printer writes them (`c_print_type`, `c_type_print_base`,
//! `c_type_print_varspec_prefix`/`_suffix`, `c_type_print_modifier`, `c_type_print_args`).
//!
//! `show` follows gdb: `-1` for `whatis` and the `(type)` prefix of printed values (names
//! only, `struct {...}` for an unnamed struct), `1` for `ptype` (typedefs resolved at the top,
//! one level of struct/union/enum expanded, members printed with `show - 1`).
//!
//! Rules checked against gdb 13:
//! - `whatis g_sz3` → `size_t3` (one typedef level), `ptype g_sz3` → `unsigned long`.
//! - Declarator syntax: `int (*)(int)`, `int (*)[4]`, `int (*[2])(int)`,
//!   `char (*(*)(void))[3]`, `char *[3]`, `int [3][4]`.
//! - Qualifiers: before a named base (`const volatile int`, `const char *`), after the star of
//!   a pointer (`char * const`, `int * volatile`, `int * restrict`, `const int * const`).
//! - `ptype` of a pointer to a struct expands the struct: `struct point {\n    int x;\n...} *`.
//! - Members are indented 4 spaces per level, bitfields get ` : N`, an empty struct shows
//!   `    <no data fields>`, an anonymous struct member is expanded in place.
//! - Enums list enumerators with `= value` only where the value is not the previous plus one
//!   (`enum flags {FA = 1, FB, FC = 4}`, `enum e3 {N1 = -1, N2 = 5}`).
//! - C++ (`class`): the keyword is left out of names (`whatis gc` → `C`), `ptype` shows
//!   base classes (`class C : public B {`) and a `  public:` label.

use crate::types::{Access, AggregateKind, Bound, CxxInfo, Method, TypeKind, TypeRef};

/// const / volatile / restrict, which gdb keeps as flags on a type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Quals {
    pub c: bool,
    pub v: bool,
    pub r: bool,
}

/// A type as gdb sees it: qualifiers peeled into flags.
#[derive(Debug, Clone)]
pub(crate) struct TV {
    pub q: Quals,
    pub t: TypeRef,
}

pub(crate) fn view(ty: &TypeRef) -> TV {
    view_with(Quals::default(), ty)
}

fn view_with(mut q: Quals, ty: &TypeRef) -> TV {
    let mut t = ty.clone();
    loop {
        let next = match &t.kind {
            TypeKind::Const(i) => {
                q.c = true;
                i.get().clone()
            }
            TypeKind::Volatile(i) => {
                q.v = true;
                i.get().clone()
            }
            TypeKind::Restrict(i) => {
                q.r = true;
                i.get().clone()
            }
            _ => return TV { q, t },
        };
        t = next;
    }
}

impl TV {
    /// The name gdb's `type->name ()` gives: none for derived types.
    pub(crate) fn name(&self) -> Option<&str> {
        match &self.t.kind {
            TypeKind::Pointer(_)
            | TypeKind::Reference(_)
            | TypeKind::RvalueReference(_)
            | TypeKind::Array { .. } => None,
            // DWARF function types are unnamed; gdb's `<text variable, no debug info>` is not.
            TypeKind::Function { .. } => self.t.name.as_deref(),
            TypeKind::Void => Some(self.t.name.as_deref().unwrap_or("void")),
            _ => self.t.name.as_deref(),
        }
    }

    /// The target type of a pointer, reference, typedef, array (qualifiers of a qualified
    /// array apply to its elements, as in C) or function (its return type).
    pub(crate) fn target(&self) -> Option<TV> {
        match &self.t.kind {
            TypeKind::Pointer(l)
            | TypeKind::Reference(l)
            | TypeKind::RvalueReference(l)
            | TypeKind::Typedef(l) => Some(view(l.get())),
            TypeKind::Array { element, .. } => Some(view_with(self.q, element)),
            TypeKind::Function { ret, .. } => Some(match ret {
                Some(r) => view(r.get()),
                None => view(&crate::types::Type::void()),
            }),
            _ => None,
        }
    }

    /// gdb's `check_typedef`: typedefs resolved, qualifiers kept.
    pub(crate) fn check_typedef(&self) -> TV {
        let mut tv = self.clone();
        let mut depth = 0;
        while let TypeKind::Typedef(l) = &tv.t.kind {
            tv = view_with(tv.q, l.get());
            depth += 1;
            if depth > 64 {
                break;
            }
        }
        tv
    }

    /// Whether C puts a space between the base and the declarator (not before a vector's
    /// `__attribute__`).
    fn is_derived(&self) -> bool {
        match self.t.kind {
            TypeKind::Array { .. } => !self.t.vector,
            TypeKind::Pointer(_)
            | TypeKind::Reference(_)
            | TypeKind::RvalueReference(_)
            | TypeKind::Function { .. } => true,
            _ => false,
        }
    }
}

/// `c_type_print_modifier`.
fn modifiers(out: &mut String, q: Quals, pre_space: bool, post_space: bool, lang: Language) {
    let mut did = false;
    let restrict = match lang {
        Language::C => "restrict",
        Language::Cplus | Language::Fortran => "__restrict__",
    };
    for (on, word) in [(q.c, "const"), (q.v, "volatile"), (q.r, restrict)] {
        if on {
            if did || pre_space {
                out.push(' ');
            }
            out.push_str(word);
            did = true;
        }
    }
    if did && post_space {
        out.push(' ');
    }
}

/// `c_print_type`: `varstring` is the declared name (a member name in `ptype`), or empty.
pub(crate) fn print_type(
    out: &mut String,
    tv: &TV,
    varstring: &str,
    show: i32,
    level: usize,
    lang: Language,
) {
    let tv = if show > 0 {
        tv.check_typedef()
    } else {
        tv.clone()
    };
    print_base(out, &tv, show, level, lang);
    if !varstring.is_empty() || ((show > 0 || tv.name().is_none()) && tv.is_derived()) {
        out.push(' ');
    }
    prefix(out, &tv, show, false, !varstring.is_empty(), lang);
    out.push_str(varstring);
    suffix(out, &tv, show, false, lang);
}

fn keyword(kind: AggregateKind) -> &'static str {
    match kind {
        AggregateKind::Struct => "struct ",
        AggregateKind::Union => "union ",
        AggregateKind::Class => "class ",
    }
}

fn print_base(out: &mut String, tv: &TV, show: i32, level: usize, lang: Language) {
    // libstdc++'s type printers name a class (not a typedef of it) shortly, even for ptype.
    if lang == Language::Cplus && !RAW_NAMES.with(|r| r.get()) {
        let t = if show > 0 {
            tv.check_typedef()
        } else {
            tv.clone()
        };
        // (Template arguments inside a name keep their own names: `std::vector<double>`.)
        let saved = TEMPLATE_PARAMS.with(|p| std::mem::take(&mut *p.borrow_mut()));
        let recognized = recognize(&t.t);
        TEMPLATE_PARAMS.with(|p| *p.borrow_mut() = saved);
        if let Some(r) = recognized {
            modifiers(out, t.q, false, true, lang);
            out.push_str(&r);
            return;
        }
    }
    if show <= 0
        && let Some(name) = tv.name()
    {
        modifiers(out, tv.q, false, true, lang);
        if let Some(param) = template_param(name) {
            out.push_str(&param);
            return;
        }
        match &tv.t.kind {
            // C++ names classes, structs and enums without their keyword.
            TypeKind::Aggregate { kind, .. } if lang == Language::C => out.push_str(keyword(*kind)),
            TypeKind::Enum { .. } if lang == Language::C => out.push_str("enum "),
            _ => {}
        }
        if lang == Language::Cplus && !RAW_NAMES.with(|r| r.get()) {
            out.push_str(&canonical_name(name));
        } else {
            out.push_str(name);
        }
        return;
    }
    let tv = tv.check_typedef();
    if let TypeKind::Base(crate::types::Encoding::Flags(bits)) = &tv.t.kind {
        // gdb's `flag NAME {` with one `bool NAME @BIT;` line per bit.
        modifiers(out, tv.q, false, true, lang);
        out.push_str("flag ");
        out.push_str(tv.name().unwrap_or_default());
        if show > 0 {
            out.push_str(" {\n");
            for (bit, name) in bits.iter() {
                out.push_str(&" ".repeat(level + 4));
                out.push_str("bool");
                if !name.is_empty() {
                    out.push(' ');
                    out.push_str(name);
                }
                out.push_str(&format!(" @{bit};\n"));
            }
            out.push_str(&" ".repeat(level));
            out.push('}');
        }
        return;
    }
    match &tv.t.kind {
        TypeKind::Pointer(_)
        | TypeKind::Reference(_)
        | TypeKind::RvalueReference(_)
        | TypeKind::Array { .. }
        | TypeKind::Function { .. } => {
            if let Some(t) = tv.target() {
                print_base(out, &t, show, level, lang);
            }
        }
        TypeKind::Aggregate {
            kind,
            members,
            declaration,
        } => {
            modifiers(out, tv.q, false, true, lang);
            out.push_str(keyword(*kind));
            if let Some(name) = tv.name() {
                if lang == Language::Cplus && !RAW_NAMES.with(|r| r.get()) {
                    out.push_str(&canonical_name(name));
                } else {
                    out.push_str(name);
                }
                if show > 0 {
                    out.push(' ');
                }
            }
            let cxx = tv.t.cxx.as_deref();
            // gdb's `c_type_print_template_args`: `[with T = double] `.
            if show > 0
                && let Some(c) = cxx
                && !c.template_args.is_empty()
            {
                for (i, (n, t)) in c.template_args.iter().enumerate() {
                    out.push_str(if i == 0 { "[with " } else { ", " });
                    out.push_str(n);
                    out.push_str(" = ");
                    print_type(out, &view(t.get()), "", -1, 0, lang);
                }
                out.push_str("] ");
            }
            // The body names the class's type arguments by their parameters.
            let params = if show > 0
                && let Some(c) = cxx
            {
                let mut p: Vec<(String, String)> = c
                    .template_args
                    .iter()
                    .map(|(n, t)| (type_name_in(t.get(), lang), n.clone()))
                    .collect();
                // And its typedefs and its bases' by their short names (gdb's
                // `recursively_update_typedef_hash`).
                class_typedefs(&tv.t, &mut p, 0);
                p
            } else {
                Vec::new()
            };
            let pushed = params.len();
            TEMPLATE_PARAMS.with(|p| p.borrow_mut().extend(params));
            if show < 0 {
                if tv.name().is_none() {
                    out.push_str("{...}");
                }
            } else if show > 0 || tv.name().is_none() {
                let bases: Vec<_> = members
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.is_base)
                    .collect();
                for (n, (i, b)) in bases.iter().enumerate() {
                    out.push_str(if n == 0 { ": " } else { ", " });
                    let access = cxx
                        .and_then(|c| c.base_access.iter().find(|(j, _)| j == i))
                        .map_or(Access::Public, |(_, a)| *a);
                    out.push_str(match access {
                        Access::Public => "public ",
                        Access::Protected => "protected ",
                        Access::Private => "private ",
                    });
                    if cxx.is_some_and(|c| c.virtual_base(*i).is_some()) {
                        out.push_str("virtual ");
                    }
                    out.push_str(view(b.ty.get()).name().unwrap_or("(null)"));
                }
                if !bases.is_empty() {
                    out.push(' ');
                }
                out.push_str("{\n");
                if members.is_empty() && cxx.is_none_or(|c| c.methods.is_empty()) {
                    out.push_str(&" ".repeat(level + 4));
                    out.push_str(if *declaration {
                        "<incomplete type>\n"
                    } else {
                        "<no data fields>\n"
                    });
                }
                let need_label = match cxx {
                    Some(c) => need_access_label(*kind, c),
                    None => *kind == AggregateKind::Class,
                };
                let mut section: Option<Access> = None;
                for (i, m) in members.iter().enumerate() {
                    // gdb leaves out the bases and the vtable pointer (`_vptr.Shape`).
                    if m.is_base || m.name.as_deref().is_some_and(is_vptr_name) {
                        continue;
                    }
                    if need_label {
                        // Without C++ facts, class members are taken as public.
                        let a = cxx
                            .and_then(|c| c.member_access.get(i).copied())
                            .unwrap_or(Access::Public);
                        access_label(out, &mut section, a, level);
                    }
                    out.push_str(&" ".repeat(level + 4));
                    if m.is_static {
                        out.push_str("static ");
                    }
                    let name = m.name.as_deref().unwrap_or("");
                    print_type(out, &view(m.ty.get()), name, show - 1, level + 4, lang);
                    if let Some(bf) = m.bitfield
                        && !m.is_static
                    {
                        out.push_str(&format!(" : {}", bf.bit_size));
                    }
                    out.push_str(";\n");
                }
                if let Some(c) = cxx {
                    print_methods(out, tv.name(), c, &mut section, level, lang);
                    print_typedefs(
                        out,
                        c,
                        !members.is_empty(),
                        need_label,
                        &mut section,
                        show,
                        level,
                        lang,
                    );
                }
                out.push_str(&" ".repeat(level));
                out.push('}');
            }
            TEMPLATE_PARAMS.with(|p| {
                let mut p = p.borrow_mut();
                let keep = p.len().saturating_sub(pushed);
                p.truncate(keep);
            });
        }
        TypeKind::Enum {
            enumerators,
            underlying,
            ..
        } => {
            modifiers(out, tv.q, false, true, lang);
            out.push_str("enum ");
            // A C++ `enum class`: its enumerators are named with it (`phys::Bc::Wall`).
            if lang == Language::Cplus
                && let Some(name) = tv.name()
                && !enumerators.is_empty()
                && enumerators
                    .iter()
                    .all(|(e, _)| e.strip_prefix(name).is_some_and(|r| r.starts_with("::")))
            {
                out.push_str("class ");
            }
            if let Some(name) = tv.name() {
                out.push_str(name);
                if show > 0 {
                    out.push(' ');
                }
            }
            if show < 0 {
                if tv.name().is_none() {
                    out.push_str("{...}");
                }
            } else if show > 0 || tv.name().is_none() {
                // gdb's C++ enums show their underlying type when it has a name.
                if lang == Language::Cplus
                    && let Some(u) = underlying
                    && let Some(n) = &u.strip_typedefs().name
                {
                    out.push_str(&format!(": {n} "));
                }
                out.push('{');
                let mut last: i64 = 0;
                for (i, (name, val)) in enumerators.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(name);
                    if *val != last {
                        out.push_str(&format!(" = {val}"));
                        last = *val;
                    }
                    last = last.wrapping_add(1);
                }
                out.push('}');
            }
        }
        TypeKind::Error(msg) => match tv.name() {
            // gdb's `<data variable, no debug info>`.
            Some(name) => out.push_str(name),
            None => out.push_str(&format!("<error: {msg}>")),
        },
        _ => {
            modifiers(out, tv.q, false, true, lang);
            out.push_str(tv.name().unwrap_or("<unnamed type>"));
        }
    }
}

/// gdb's `need_access_label_p`: a class labels its members unless all are private; a struct
/// or union unless all are public.
/// gdb's test for the vtable pointer member (`_vptr.Shape`, `_vptr$Shape`).
fn is_vptr_name(n: &str) -> bool {
    n.strip_prefix("_vptr")
        .is_some_and(|r| r.starts_with('.') || r.starts_with('$'))
}

fn need_access_label(kind: AggregateKind, c: &CxxInfo) -> bool {
    let all = c
        .member_access
        .iter()
        .copied()
        .chain(c.methods.iter().map(|m| m.access));
    let mut all = all;
    if kind == AggregateKind::Class {
        all.any(|a| a != Access::Private)
    } else {
        all.any(|a| a != Access::Public)
    }
}

/// gdb's `output_access_specifier`: `  public:` when the section changes.
fn access_label(out: &mut String, section: &mut Option<Access>, a: Access, level: usize) {
    if *section == Some(a) {
        return;
    }
    *section = Some(a);
    out.push_str(&" ".repeat(level + 2));
    out.push_str(match a {
        Access::Public => "public:\n",
        Access::Protected => "protected:\n",
        Access::Private => "private:\n",
    });
}

/// The member functions of a C++ class in `ptype` (artificial ones left out), after a blank
/// line when the data members had an access label.
fn print_methods(
    out: &mut String,
    class: Option<&str>,
    c: &CxxInfo,
    section: &mut Option<Access>,
    level: usize,
    lang: Language,
) {
    let shown: Vec<&Method> = c.methods.iter().filter(|m| !m.artificial).collect();
    if !shown.is_empty() && section.is_some() {
        out.push('\n');
    }
    // gdb lists overloads together, in the order each name first appears.
    let mut names: Vec<&str> = Vec::new();
    for m in &shown {
        if !names.contains(&m.name.as_str()) {
            names.push(&m.name);
        }
    }
    for name in names {
        for m in shown.iter().filter(|m| m.name == name) {
            access_label(out, section, m.access, level);
            out.push_str(&" ".repeat(level + 4));
            if m.is_virtual {
                out.push_str("virtual ");
            } else if m.is_static {
                out.push_str("static ");
            }
            // Constructors, destructors and conversion operators have no return type.
            let ctor = class.is_some_and(|c| constructor_name(c) == m.name)
                || m.name.starts_with('~')
                || is_conversion_operator(&m.name);
            if !ctor {
                match &m.ret {
                    Some(r) => print_type(out, &view(r.get()), "", -1, 0, lang),
                    None => out.push_str("void"),
                }
                out.push(' ');
            }
            out.push_str(&m.name);
            out.push('(');
            for (i, p) in m.params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_type(out, &view(p.get()), "", 0, 0, lang);
            }
            if m.varargs {
                out.push_str(if m.params.is_empty() { "..." } else { ", ..." });
            } else if m.params.is_empty() && lang == Language::Cplus {
                out.push_str("void");
            }
            out.push(')');
            if m.is_const {
                out.push_str(" const");
            }
            if m.is_volatile {
                out.push_str(" volatile");
            }
            out.push_str(";\n");
        }
    }
}

/// The typedefs declared in class `t` and its bases: (typedef's full name, its name in the
/// class).
fn class_typedefs(t: &TypeRef, out: &mut Vec<(String, String)>, depth: usize) {
    let Some(c) = t.cxx.as_deref() else { return };
    for (n, ty, _) in &c.typedefs {
        if let Some(full) = ty.get().name.as_deref()
            && full != n
        {
            out.push((full.to_string(), n.clone()));
        }
    }
    if depth < 8
        && let TypeKind::Aggregate { members, .. } = &t.kind
    {
        for m in members.iter().filter(|m| m.is_base) {
            class_typedefs(&m.ty.get().strip(), out, depth + 1);
        }
    }
}

/// The typedefs declared in a C++ class, after its member functions, as gdb's
/// `c_type_print_base_struct_union` lists them.
#[allow(clippy::too_many_arguments)]
fn print_typedefs(
    out: &mut String,
    c: &CxxInfo,
    has_fields: bool,
    need_label: bool,
    section: &mut Option<Access>,
    show: i32,
    level: usize,
    lang: Language,
) {
    if c.typedefs.is_empty() {
        return;
    }
    if has_fields || !c.methods.is_empty() {
        out.push('\n');
    }
    for (name, ty, access) in &c.typedefs {
        if need_label {
            access_label(out, section, *access, level);
        }
        out.push_str(&" ".repeat(level + 4));
        out.push_str("typedef ");
        // The typedef's target, without the class's own typedef names (gdb's
        // `semi_local_flags`).
        let target = match &ty.get().kind {
            TypeKind::Typedef(t) => t.get().clone(),
            _ => ty.get().clone(),
        };
        let saved = TEMPLATE_PARAMS.with(|p| p.borrow().clone());
        TEMPLATE_PARAMS.with(|p| {
            p.borrow_mut()
                .retain(|(full, short)| !c.typedefs.iter().any(|(n, _, _)| n == short && full != n))
        });
        print_type(out, &view(&target), name, show - 1, level + 4, lang);
        TEMPLATE_PARAMS.with(|p| *p.borrow_mut() = saved);
        out.push_str(";\n");
    }
}

/// The name of the constructors of class `class` (`Field` for `mesh::Field<double, 3>`).
fn constructor_name(class: &str) -> &str {
    let base = class.split('<').next().unwrap_or(class);
    base.rsplit("::").next().unwrap_or(base)
}

/// gdb's `is_type_conversion_operator`: `operator bool`, `operator int *`, not `operator+`,
/// `operator new` or `operator delete`.
fn is_conversion_operator(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("operator") else {
        return false;
    };
    let Some(c) = rest.chars().next() else {
        return false;
    };
    if !(c == ' ' || c.is_ascii_alphabetic() || c == '_') {
        return false;
    }
    let rest = rest.trim_start();
    !["new", "delete"].iter().any(|k| {
        rest.strip_prefix(k)
            .is_some_and(|r| r.is_empty() || r.trim_start().starts_with('['))
    })
}

fn prefix(
    out: &mut String,
    tv: &TV,
    show: i32,
    passed_a_ptr: bool,
    need_post_space: bool,
    lang: Language,
) {
    if tv.name().is_some() && show <= 0 {
        return;
    }
    let target = tv.target();
    match &tv.t.kind {
        TypeKind::Pointer(_) => {
            if let Some(t) = &target {
                prefix(out, t, show, true, true, lang);
            }
            // A pointer to member: `int C::*`, `void (C::*)(C * const)`.
            if let Some(c) = &tv.t.member_of {
                out.push_str(view(c.get()).name().unwrap_or("?"));
                out.push_str("::");
            }
            out.push('*');
            modifiers(out, tv.q, true, need_post_space, lang);
        }
        TypeKind::Reference(_) | TypeKind::RvalueReference(_) => {
            if let Some(t) = &target {
                prefix(out, t, show, true, false, lang);
            }
            out.push_str(if matches!(tv.t.kind, TypeKind::Reference(_)) {
                "&"
            } else {
                "&&"
            });
            modifiers(out, tv.q, true, need_post_space, lang);
        }
        TypeKind::Function { .. } => {
            if let Some(t) = &target {
                prefix(out, t, show, false, false, lang);
            }
            if passed_a_ptr {
                out.push('(');
            }
        }
        TypeKind::Array { .. } => {
            if let Some(t) = &target {
                prefix(out, t, show, false, need_post_space, lang);
            }
            if passed_a_ptr {
                out.push('(');
            }
        }
        TypeKind::Typedef(_) => {
            if let Some(t) = &target {
                prefix(out, t, show, passed_a_ptr, false, lang);
            }
        }
        _ => {}
    }
}

fn suffix(out: &mut String, tv: &TV, show: i32, passed_a_ptr: bool, lang: Language) {
    if tv.name().is_some() && show <= 0 {
        return;
    }
    let target = tv.target();
    match &tv.t.kind {
        TypeKind::Array { bound, .. } => {
            if passed_a_ptr {
                out.push(')');
            }
            // gdb prints a vector's element count where GCC's attribute has its size.
            let vector = tv.t.vector;
            out.push_str(if vector {
                " __attribute__ ((vector_size("
            } else {
                "["
            });
            match bound {
                Bound::Count(n) => out.push_str(&n.to_string()),
                Bound::Dynamic(_) => out.push_str("variable length"),
                Bound::Unknown | Bound::Undefined => {}
            }
            out.push_str(if vector { ")))" } else { "]" });
            if let Some(t) = &target {
                suffix(out, t, show, false, lang);
            }
        }
        TypeKind::Pointer(_) | TypeKind::Reference(_) | TypeKind::RvalueReference(_) => {
            if let Some(t) = &target {
                suffix(out, t, show, true, lang);
            }
        }
        TypeKind::Function {
            params,
            varargs,
            prototyped,
            ..
        } => {
            if passed_a_ptr {
                out.push(')');
            }
            out.push('(');
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_type(out, &view(p.get()), "", 0, 0, lang);
            }
            if !params.is_empty() && *varargs {
                out.push_str(", ...");
            } else if params.is_empty() && (*prototyped || lang == Language::Cplus) {
                out.push_str("void");
            }
            out.push(')');
            if let Some(t) = &target {
                suffix(out, t, show, passed_a_ptr, lang);
            }
        }
        TypeKind::Typedef(_) => {
            if let Some(t) = &target {
                suffix(out, t, show, passed_a_ptr, lang);
            }
        }
        _ => {}
    }
}

/// The source language whose syntax type names follow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Language {
    #[default]
    C,
    /// C++: `S`, `E` rather than `struct S`, `enum E`; `__restrict__`; `f(void)` always.
    Cplus,
    /// Fortran: values and types are printed by the `cohort-fortran` crate; here (C syntax
    /// helpers) it reads as C++ (no `struct` keyword).
    Fortran,
}

impl Language {
    /// The language of a unit from its `DW_AT_language`.
    pub fn from_dw_lang(lang: gimli::DwLang) -> Language {
        use gimli::constants as dw;
        match lang {
            dw::DW_LANG_C_plus_plus
            | dw::DW_LANG_C_plus_plus_03
            | dw::DW_LANG_C_plus_plus_11
            | dw::DW_LANG_C_plus_plus_14 => Language::Cplus,
            dw::DW_LANG_Fortran77
            | dw::DW_LANG_Fortran90
            | dw::DW_LANG_Fortran95
            | dw::DW_LANG_Fortran03
            | dw::DW_LANG_Fortran08 => Language::Fortran,
            _ => Language::C,
        }
    }

    /// gdb's name for the language (`show language`).
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cplus => "c++",
            Language::Fortran => "fortran",
        }
    }
}

/// `whatis`: the type's name as C spells it.
pub fn type_name(ty: &TypeRef) -> String {
    type_name_in(ty, Language::C)
}

/// `whatis` in the syntax of `lang`.
pub fn type_name_in(ty: &TypeRef, lang: Language) -> String {
    let mut s = String::new();
    print_type(&mut s, &view(ty), "", -1, 0, lang);
    s
}

/// `ptype`: typedefs resolved and one level of struct/union/enum expanded.
pub fn ptype(ty: &TypeRef) -> String {
    ptype_in(ty, Language::C)
}

/// `ptype` in the syntax of `lang`.
pub fn ptype_in(ty: &TypeRef, lang: Language) -> String {
    let mut s = String::new();
    print_type(&mut s, &view(ty), "", 1, 0, lang);
    s
}

/// A declaration of `name` with this type, as in a `ptype` member line: `int (*fp)(int)`,
/// `char name[8]`.
pub fn declaration(ty: &TypeRef, name: &str, lang: Language) -> String {
    let mut s = String::new();
    print_type(&mut s, &view(ty), name, 0, 0, lang);
    s
}

thread_local! {
    /// Type printers off: names as gdb's `str(gdb.Type)` gives them to Python printers.
    static RAW_NAMES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Inside a template class's body in `ptype`: its type parameters by the name of their
    /// argument (`double` is `T`), as gdb's local typedefs (`add_template_parameters`).
    static TEMPLATE_PARAMS: std::cell::RefCell<Vec<(String, String)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// What the program's debug information has of `std::string`: 0 nothing, 1 the
    /// typedef, 2 the typedef and the class defined.
    static STRING_TYPEDEF: std::cell::Cell<u8> = const { std::cell::Cell::new(2) };
}

/// The template parameter a type called `name` stands for in the class body being printed.
fn template_param(name: &str) -> Option<String> {
    TEMPLATE_PARAMS.with(|p| {
        p.borrow()
            .iter()
            .rev()
            .find(|(arg, _)| arg == name)
            .map(|(_, param)| param.clone())
    })
}

/// Tell the type printers whether the program's debug information has the typedef
/// `std::__cxx11::string` (`std::string`), and whether the class it names is defined there:
/// libstdc++'s `FilteringTypePrinter` names the `char` string class `std::string` only when
/// `gdb.lookup_type` finds that typedef (a program that never names the type leaves it
/// out), and gdb's canonicalization of a name looks the class up as a symbol, which a
/// class only declared (clang's) has not.
pub fn set_string_typedef(typedef: bool, defined: bool) {
    STRING_TYPEDEF.with(|s| s.set(u8::from(typedef) + u8::from(typedef && defined)));
}

/// The `char` string class's name, as libstdc++'s type printer recognizes it; `by_name`:
/// found by its name (gdb's canonicalization), not handed over as a type.
fn is_std_string(name: &str, by_name: bool) -> bool {
    let n = squeezed(name);
    STRING_TYPEDEF.with(|s| s.get()) > u8::from(by_name)
        && (n == "std::__cxx11::basic_string<char,std::char_traits<char>,std::allocator<char>>"
            || n == "std::basic_string<char,std::char_traits<char>,std::allocator<char>>")
}

/// A C++ type's name without libstdc++'s type printers (what a Python printer's
/// `str(type)` gives: `std::vector<int, std::allocator<int> >`).
pub fn raw_type_name(ty: &TypeRef) -> String {
    let was = RAW_NAMES.with(|r| r.replace(true));
    let s = type_name_in(ty, Language::Cplus);
    RAW_NAMES.with(|r| r.set(was));
    s
}

/// The default template arguments libstdc++'s type printers leave out (`{0}` is the first
/// argument's name), by class template.
const DEFAULT_ARGS: &[(&str, &[(usize, &str)])] = &[
    ("std::unique_ptr", &[(1, "std::default_delete<{0}>")]),
    ("std::deque", &[(1, "std::allocator<{0}>")]),
    ("std::forward_list", &[(1, "std::allocator<{0}>")]),
    ("std::list", &[(1, "std::allocator<{0}>")]),
    ("std::__cxx11::list", &[(1, "std::allocator<{0}>")]),
    ("std::vector", &[(1, "std::allocator<{0}>")]),
    (
        "std::map",
        &[
            (2, "std::less<{0}>"),
            (3, "std::allocator<std::pair<{0} const, {1}>>"),
        ],
    ),
    (
        "std::multimap",
        &[
            (2, "std::less<{0}>"),
            (3, "std::allocator<std::pair<{0} const, {1}>>"),
        ],
    ),
    (
        "std::set",
        &[(1, "std::less<{0}>"), (2, "std::allocator<{0}>")],
    ),
    (
        "std::multiset",
        &[(1, "std::less<{0}>"), (2, "std::allocator<{0}>")],
    ),
    (
        "std::unordered_map",
        &[
            (2, "std::hash<{0}>"),
            (3, "std::equal_to<{0}>"),
            (4, "std::allocator<std::pair<{0} const, {1}>>"),
        ],
    ),
    (
        "std::unordered_multimap",
        &[
            (2, "std::hash<{0}>"),
            (3, "std::equal_to<{0}>"),
            (4, "std::allocator<std::pair<{0} const, {1}>>"),
        ],
    ),
    (
        "std::unordered_set",
        &[
            (1, "std::hash<{0}>"),
            (2, "std::equal_to<{0}>"),
            (3, "std::allocator<{0}>"),
        ],
    ),
    (
        "std::unordered_multiset",
        &[
            (1, "std::hash<{0}>"),
            (2, "std::equal_to<{0}>"),
            (3, "std::allocator<{0}>"),
        ],
    ),
];

/// A type name without blanks, for comparing `a<b<c> >` with `a<b<c>>`.
fn squeezed(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// libstdc++'s type printers (`TemplateTypePrinter`, `add_one_type_printer` for strings):
/// `std::string` for the `char` string class, `std::vector<int>` for a container whose
/// trailing template arguments are the defaults (the arguments themselves recognized in
/// turn); `None` for any other type.
pub fn recognize(ty: &TypeRef) -> Option<String> {
    let TypeKind::Aggregate { .. } = &ty.kind else {
        return None;
    };
    let name = ty.name.as_deref()?;
    if is_std_string(name, false) {
        return Some("std::string".into());
    }
    let template = name.get(..name.find('<')?)?;
    let (_, defaults) = DEFAULT_ARGS.iter().find(|(n, _)| *n == template)?;
    let args = &ty.cxx.as_deref()?.template_args;
    let names: Vec<String> = args.iter().map(|(_, t)| raw_type_name(t.get())).collect();
    let mut shown = Vec::new();
    let mut defaulted = false;
    for (i, (_, t)) in args.iter().enumerate() {
        match defaults.iter().find(|(k, _)| *k == i) {
            Some((_, d)) => {
                let mut want = d.to_string();
                for (k, n) in names.iter().enumerate() {
                    want = want.replace(&format!("{{{k}}}"), n);
                }
                if squeezed(&names[i]) != squeezed(&want) {
                    return None;
                }
                defaulted = true;
            }
            None if defaulted => return None,
            None => shown.push(recognized_subtype(t.get())),
        }
    }
    let shown_name = template.replace("std::__cxx11::", "std::");
    Some(format!("{shown_name}<{}>", shown.join(", ")))
}

/// A C++ name as gdb's `print_name_maybe_canonical` prints it: each class template
/// instantiation in it (the name itself, a scope of it, a template argument) that a libstdc++
/// type printer recognizes is replaced by the printer's name:
/// `__gnu_cxx::__normal_iterator<int*, std::vector<int> >::reference`. A name with nothing
/// recognized, or one this does not parse, is unchanged.
pub fn canonical_name(name: &str) -> String {
    if !name.contains('<') || name.contains("operator") {
        return name.to_string();
    }
    canonical_type_text(name).unwrap_or_else(|| name.to_string())
}

/// `s` split at `sep` outside of `<>`, `()` and `[]`; `None` when they do not balance.
fn split_top<'a>(s: &'a str, sep: &str) -> Option<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            _ if depth == 0 && s[i..].starts_with(sep) => {
                out.push(&s[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return None;
    }
    out.push(&s[start..]);
    Some(out)
}

/// A template argument or other type spelled in a name, canonicalized: its qualified-name
/// core (`const`, `*` and `&` around it kept as written); a value argument unchanged.
fn canonical_type_text(arg: &str) -> Option<String> {
    let t = arg.trim();
    let lead = if t.starts_with("const ") {
        "const "
    } else {
        ""
    };
    let t = &t[lead.len()..];
    let mut core = t;
    let mut tail_len = 0;
    loop {
        let c = core.trim_end();
        if let Some(c) = c.strip_suffix(['*', '&']) {
            core = c;
        } else if let Some(c) = c.strip_suffix(" const") {
            core = c;
        } else if let Some(c) = c.strip_suffix(" volatile") {
            core = c;
        } else {
            core = c;
            break;
        }
        tail_len = t.len() - core.len();
    }
    let tail = &t[t.len() - tail_len..];
    if !core.contains('<') {
        return Some(arg.trim().to_string());
    }
    let segments = split_top(core, "::")?;
    let mut out = String::new();
    let mut raw = String::new();
    for (i, seg) in segments.iter().enumerate() {
        if i > 0 {
            out.push_str("::");
            raw.push_str("::");
        }
        raw.push_str(seg);
        let Some(open) = seg.find('<') else {
            out.push_str(seg);
            continue;
        };
        let inner = seg[open + 1..].strip_suffix('>')?;
        let args = split_top(inner, ",")?;
        let raw_args: Vec<String> = args.iter().map(|a| a.trim().to_string()).collect();
        // gdb looks up (for the type printers) only a whole name ending in a template: a
        // class template in a scope has just its arguments canonicalized
        // (`std::vector<std::string, std::allocator<std::string> >::size_type`).
        if i + 1 == segments.len()
            && let Some(r) = recognize_text(&raw, &raw_args, true)
        {
            out = r;
            continue;
        }
        let shown: Vec<String> = raw_args
            .iter()
            .map(|a| canonical_type_text(a))
            .collect::<Option<_>>()?;
        out.push_str(&seg[..open]);
        out.push('<');
        out.push_str(&shown.join(", "));
        if out.ends_with('>') {
            out.push(' ');
        }
        out.push('>');
    }
    Some(format!("{lead}{out}{tail}"))
}

/// [`recognize`] on a class's name: `name` the whole name, `args` its last template
/// arguments as written; `by_name`: see [`is_std_string`].
fn recognize_text(name: &str, args: &[String], by_name: bool) -> Option<String> {
    if is_std_string(name, by_name) {
        return Some("std::string".into());
    }
    let template = name.get(..name.find('<')?)?;
    let (_, defaults) = DEFAULT_ARGS.iter().find(|(n, _)| *n == template)?;
    let mut shown = Vec::new();
    let mut defaulted = false;
    for (i, a) in args.iter().enumerate() {
        match defaults.iter().find(|(k, _)| *k == i) {
            Some((_, d)) => {
                let mut want = d.to_string();
                for (k, n) in args.iter().enumerate() {
                    want = want.replace(&format!("{{{k}}}"), n);
                }
                if squeezed(a) != squeezed(&want) {
                    return None;
                }
                defaulted = true;
            }
            None if defaulted => return None,
            None => shown.push(recognized_subtype_text(a)),
        }
    }
    let shown_name = template.replace("std::__cxx11::", "std::");
    Some(format!("{shown_name}<{}>", shown.join(", ")))
}

/// [`recognized_subtype`] on a template argument as written.
fn recognized_subtype_text(arg: &str) -> String {
    for suffix in ["&&", "*", "&"] {
        if let Some(t) = arg.strip_suffix(suffix) {
            return format!("{}{suffix}", recognized_subtype_text(t.trim_end()));
        }
    }
    if let (Some(open), true) = (arg.find('<'), arg.ends_with('>'))
        && !arg.ends_with(" const")
        && let Some(args) = split_top(&arg[open + 1..arg.len() - 1], ",")
    {
        let args: Vec<String> = args.iter().map(|a| a.trim().to_string()).collect();
        if let Some(r) = recognize_text(arg, &args, false) {
            return r;
        }
    }
    arg.to_string()
}

/// A template argument as the type printers show it: pointers and references to recognized
/// types recognized, anything else by its name.
fn recognized_subtype(ty: &TypeRef) -> String {
    match &ty.kind {
        TypeKind::Pointer(t) => format!("{}*", recognized_subtype(t.get())),
        TypeKind::Reference(t) => format!("{}&", recognized_subtype(t.get())),
        TypeKind::RvalueReference(t) => format!("{}&&", recognized_subtype(t.get())),
        // Python's `str(gdb.Type)`: the raw name.
        _ => recognize(ty).unwrap_or_else(|| raw_type_name(ty)),
    }
}
