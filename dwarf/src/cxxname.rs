//! C++ function names with their parameter lists, as gdb 13 names a function's symbol
//! (`f(double)`, `A::f(int) const`, `twice<int>(int)`, `main(int, char**)`): the demangler's
//! spelling of the parameter types (`char const*`, `std::vector<double, std::allocator<double>
//! > const&`, `int (*)(int)`), without the return type. gdb shows these in `info breakpoints`
//! and matches `break f(double)` against them.

use std::sync::Arc;

use gimli::constants as dw;

use crate::dietypes::{self, Die};
use crate::loader::DebugFile;
use crate::types::{DieRef, TypeKind, TypeRef};

/// gdb's name of the C++ function at DIE `die` (a subprogram, or an inlined copy) whose
/// qualified name is `qualified`: `qualified(PARAMS)[ const]`. `None` when the unit is not
/// C++ or the DIE cannot be read.
pub fn physname(file: &Arc<DebugFile>, die: DieRef, qualified: &str) -> Option<String> {
    let (params, quals, linkage) = parameters(file, die)?;
    // gdb's `dwarf2_physname`: the demangled linkage name where there is one (its spelling:
    // `std::function<int (double, char)>`, where the DWARF's names say `int(double, char)`).
    if linkage
        && let Ok(tree) = dietypes::read_tree(file, die, 0)
        && let Some(l) = dietypes::with_origin(file, &tree)
            .string(file, dw::DW_AT_linkage_name)
            .or_else(|| {
                dietypes::with_origin(file, &tree).string(file, dw::DW_AT_MIPS_linkage_name)
            })
        && let Some(p) = crate::demangle::demangle_physname(&l)
    {
        return Some(p);
    }
    // gdb's `dwarf2_compute_name` for a function without one: each parameter's type as its
    // C++ type printer writes it (`const std::_Any_data &`, a lambda's closure
    // `struct {...}`). It shows only where gdb cannot parse the name (a lambda in it); other
    // names keep the demangler's spelling (see `physname_from`).
    if !linkage && gdb_cannot_parse(qualified) {
        let list: Vec<&str> = params.iter().map(|p| p.2.as_str()).collect();
        return Some(format!("{qualified}({}){quals}", list.join(", ")));
    }
    Some(physname_from(qualified, &params, &quals, linkage))
}

/// [`physname`] from the function's [`parameters`].
fn physname_from(
    qualified: &str,
    params: &[(String, String, String)],
    quals: &str,
    linkage: bool,
) -> String {
    // gdb demangles the linkage name: parameter types without their top-level qualifiers and
    // without typedefs. A function without one (main, extern "C", GCC's static functions) is
    // named from the DWARF, typedefs kept (`std::string`, `size_t`).
    let list: Vec<&str> = params
        .iter()
        .map(|(bare, kept, _)| {
            if linkage {
                bare.as_str()
            } else {
                kept.as_str()
            }
        })
        .collect();
    format!("{qualified}({}){quals}", list.join(", "))
}

/// Each parameter's (demangled, typedefs kept, C++ type printer) spellings, the qualifiers,
/// the linkage flag.
type Parameters = (Vec<(String, String, String)>, String, bool);

/// The parameter types of function DIE `die`, each as the demangler spells it (typedefs
/// replaced) and with its typedefs kept; the method's qualifiers (` const`); whether the
/// function has a linkage name. `None` when the unit is not C++ or the DIE cannot be read.
fn parameters(file: &Arc<DebugFile>, die: DieRef) -> Option<Parameters> {
    let tree = dietypes::read_tree(file, die, 1).ok()?;
    if !dietypes::is_cplus_unit(file, tree.unit) {
        return None;
    }
    // The parameters are on the concrete DIE; an inlined copy or a concrete out-of-line copy
    // may list none of its own (then the abstract DIE's are the ones).
    let mut params: Vec<Die> = tree
        .children
        .iter()
        .filter(|c| {
            c.tag == dw::DW_TAG_formal_parameter || c.tag == dw::DW_TAG_unspecified_parameters
        })
        .map(|c| dietypes::with_origin(file, c))
        .collect();
    let linkage = dietypes::with_origin(file, &tree).has(dw::DW_AT_linkage_name)
        || dietypes::with_origin(file, &tree).has(dw::DW_AT_MIPS_linkage_name);
    if params.is_empty()
        && let Some(o) = tree
            .reference(file, dw::DW_AT_abstract_origin)
            .or_else(|| tree.reference(file, dw::DW_AT_specification))
        && let Ok(t) = dietypes::read_tree(file, o, 1)
    {
        params = t
            .children
            .iter()
            .filter(|c| {
                c.tag == dw::DW_TAG_formal_parameter || c.tag == dw::DW_TAG_unspecified_parameters
            })
            .map(|c| dietypes::with_origin(file, c))
            .collect();
    }
    let mut list = Vec::new();
    let mut quals = String::new();
    for p in &params {
        if p.tag == dw::DW_TAG_unspecified_parameters {
            list.push(("...".to_string(), "...".to_string(), "...".to_string()));
            continue;
        }
        let ty = match p.reference(file, dw::DW_AT_type) {
            Some(r) => dietypes::type_of(file, r),
            None => continue,
        };
        if p.flag(dw::DW_AT_artificial) {
            // `this`: the method's qualifiers are its pointee's.
            if let Some(t) = ty.strip_typedefs().pointee() {
                let mut t = t;
                loop {
                    match &t.kind {
                        TypeKind::Const(n) => {
                            quals.push_str(" const");
                            t = n.get().clone();
                        }
                        TypeKind::Volatile(n) => {
                            quals.push_str(" volatile");
                            t = n.get().clone();
                        }
                        _ => break,
                    }
                }
            }
            continue;
        }
        let top = top_unqualified(&ty);
        list.push((
            demangled_type(&top, true),
            demangled_type(&top, false),
            crate::format::raw_type_name(&ty),
        ));
    }
    Some((list, quals, linkage))
}

/// `break FUNCTION(PARAMS)`: the locations of the functions whose gdb name
/// ([`physname`]) is `spec` (blanks aside); `None` when `spec` has no parameter list. A
/// return type before the name is ignored (`'int twice<int>(int)'`).
pub fn locations_for_signature(
    file: &Arc<DebugFile>,
    spec: &str,
) -> Option<Vec<crate::lines::LineMatch>> {
    let open = top_level_paren(spec)?;
    let base = spec.get(..open)?.trim();
    let mut funcs = file.functions_named(base);
    let mut wanted = squeeze(spec);
    if funcs.is_empty()
        && let Some(sp) = last_top_level_space(base)
    {
        let name = base.get(sp + 1..)?.trim();
        funcs = file.functions_named(name);
        wanted = squeeze(&format!("{name}{}", spec.get(open..)?));
    }
    let mut out: Vec<_> = funcs
        .iter()
        .filter(|f| {
            let Ok(u) = file.unit(f.unit) else {
                return false;
            };
            let Some(r) = f.offset.to_debug_info_offset(&u.header) else {
                return false;
            };
            // `break set(int)` finds `A::set(int)`, as gdb's wild matching does.
            signature_matches(file, DieRef(r), &f.name, &wanted)
        })
        .filter_map(|f| file.breakpoint_location_for_function(f))
        .collect();
    out.sort_by_key(|m| m.address);
    out.dedup_by_key(|m| m.address);
    Some(out)
}

/// Whether function DIE `die` named `qualified` is what `wanted` (a squeezed
/// `NAME(PARAMS)[ QUALS]`) names. gdb replaces the typedefs of the parameter list before it
/// compares (`cp_canonicalize_string_no_typedefs`): a parameter matches written as the
/// demangler writes it or with the typedefs the DWARF names (`size_t`, `std::string`).
fn signature_matches(file: &Arc<DebugFile>, die: DieRef, qualified: &str, wanted: &str) -> bool {
    let Some((params, quals, linkage)) = parameters(file, die) else {
        return false;
    };
    let name_matches = |n: &str| n == wanted || n.ends_with(&format!("::{wanted}"));
    if name_matches(&squeeze(&physname_from(
        qualified, &params, &quals, linkage,
    ))) {
        return true;
    }
    // Parameter by parameter, either spelling.
    let Some(open) = top_level_paren(wanted) else {
        return false;
    };
    let Some(close) = matching_paren(wanted, open) else {
        return false;
    };
    let (Some(w_name), Some(w_params), Some(w_quals)) = (
        wanted.get(..open),
        wanted.get(open + 1..close),
        wanted.get(close + 1..),
    ) else {
        return false;
    };
    let q = squeeze(qualified);
    let w_list = split_top_level(w_params);
    let w_list: Vec<&str> = match w_list.as_slice() {
        [v] if *v == "void" || v.is_empty() => Vec::new(),
        _ => w_list,
    };
    (q == w_name || q.ends_with(&format!("::{w_name}")))
        && squeeze(&quals) == w_quals
        && w_list.len() == params.len()
        && w_list
            .iter()
            .zip(&params)
            .all(|(w, (bare, kept, _))| *w == squeeze(bare) || *w == squeeze(kept))
}

/// The `)` that closes the `(` at `open`.
fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at its commas outside `<>` and `()`.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Where the parameter list of `spec` opens: the first `(` outside template arguments, not
/// part of an `operator()` name.
fn top_level_paren(spec: &str) -> Option<usize> {
    let mut depth = 0i32;
    let b = spec.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if depth == 0 && spec.get(i..).is_some_and(|r| r.starts_with("operator()")) {
            i += "operator()".len();
            continue;
        }
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn last_top_level_space(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut last = None;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ' ' if depth == 0 => last = Some(i),
            _ => {}
        }
    }
    last
}

fn top_unqualified(ty: &TypeRef) -> TypeRef {
    let mut t = ty.clone();
    loop {
        match &t.kind {
            TypeKind::Const(n) | TypeKind::Volatile(n) => t = n.get().clone(),
            _ => return t,
        }
    }
}

/// A type as the demangler spells it: qualifiers after what they qualify, `*` and `&` without
/// a space (`char const*`, `double const&`, `int (*)(int)`).
pub fn demangled_type(ty: &TypeRef, strip_typedefs: bool) -> String {
    let (head, tail) = parts(ty, strip_typedefs);
    format!("{head}{tail}")
}

/// The type split around where a declarator goes (`int (*`, `)(int)`).
fn parts(ty: &TypeRef, strip_typedefs: bool) -> (String, String) {
    match &ty.kind {
        TypeKind::Typedef(t) if strip_typedefs => parts(t.get(), strip_typedefs),
        TypeKind::Pointer(t) => declarator(t.get(), "*", strip_typedefs),
        TypeKind::Reference(t) => declarator(t.get(), "&", strip_typedefs),
        TypeKind::RvalueReference(t) => declarator(t.get(), "&&", strip_typedefs),
        TypeKind::Const(t) => {
            let (h, tl) = parts(t.get(), strip_typedefs);
            (format!("{h} const"), tl)
        }
        TypeKind::Volatile(t) => {
            let (h, tl) = parts(t.get(), strip_typedefs);
            (format!("{h} volatile"), tl)
        }
        TypeKind::Restrict(t) => {
            let (h, tl) = parts(t.get(), strip_typedefs);
            (format!("{h} restrict"), tl)
        }
        TypeKind::Function {
            ret,
            params,
            varargs,
            ..
        } => {
            let r = ret
                .as_ref()
                .map(|r| demangled_type(r.get(), strip_typedefs))
                .unwrap_or_else(|| "void".into());
            let mut ps: Vec<String> = params
                .iter()
                .map(|p| demangled_type(&top_unqualified(p.get()), strip_typedefs))
                .collect();
            if *varargs {
                ps.push("...".into());
            }
            (format!("{r} "), format!("({})", ps.join(", ")))
        }
        TypeKind::Array { element, bound } => {
            let n = match bound {
                crate::types::Bound::Count(n) => n.to_string(),
                _ => String::new(),
            };
            let (h, tl) = parts(element, strip_typedefs);
            (format!("{h} "), format!("[{n}]{tl}"))
        }
        TypeKind::Void => ("void".into(), String::new()),
        _ => (ty.name.clone().unwrap_or_default(), String::new()),
    }
}

/// `T*` / `T&`, or `R (*)(P)` / `T (&) [N]` where the pointee needs parentheses.
fn declarator(target: &TypeRef, op: &str, strip_typedefs: bool) -> (String, String) {
    let (h, tl) = parts(target, strip_typedefs);
    if tl.is_empty() {
        (format!("{h}{op}"), String::new())
    } else if let Some(rest) = h.strip_suffix(' ') {
        (format!("{rest} ({op}"), format!("){tl}"))
    } else {
        (format!("{h}({op}"), format!("){tl}"))
    }
}

/// A name with blanks only where C++ needs them (between two identifier characters), for
/// comparing `f(int,int)` with `f(int, int)` as gdb's `strncmp_iw` does.
pub fn squeeze(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space
            && let Some(p) = out.chars().last()
            && (p.is_alphanumeric() || p == '_')
            && (c.is_alphanumeric() || c == '_')
        {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{squeeze, top_level_paren};

    #[test]
    fn parameter_lists() {
        assert_eq!(top_level_paren("f(double)"), Some(1));
        assert_eq!(top_level_paren("A::f"), None);
        assert_eq!(top_level_paren("t<int(*)(int)>(int)"), Some(14));
        assert_eq!(top_level_paren("L::operator()(int) const"), Some(13));
    }

    #[test]
    fn squeeze_keeps_needed_blanks() {
        assert_eq!(squeeze("f(int,int)"), "f(int,int)");
        assert_eq!(squeeze("f(int, int)"), "f(int,int)");
        assert_eq!(
            squeeze("A::f(unsigned  long) const"),
            "A::f(unsigned long)const"
        );
        assert_eq!(squeeze("f(char const *)"), "f(char const*)");
    }
}

/// Whether gdb 13's C++ name parser (`cp_demangled_name_to_comp`) fails on the demangled name
/// `name`, as it does on a function type given as a template argument
/// (`std::function<void ()>`; a pointer or reference to one, `W<int (*)(int)>`, it reads).
pub fn gdb_cannot_parse(name: &str) -> bool {
    // Names only gdb's DWARF reader makes: a lambda's (`main()::<lambda(int)>`), an unnamed
    // type's (`{lambda(int)#1}`, `{unnamed type#1}`, `struct {...}`).
    if name.contains("<lambda") || name.contains('{') {
        return true;
    }
    let b = name.as_bytes();
    let mut angle = 0i32;
    for i in 0..b.len() {
        match b[i] {
            b'<' => angle += 1,
            b'>' => angle -= 1,
            b'(' if angle > 0
                && i > 0
                && b[i - 1] == b' '
                && !matches!(b.get(i + 1), Some(b'*' | b'&')) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// gdb's `cp_remove_params`: a physname without its parameter list and the method's
/// qualifiers (`W<int>::m(int) const` → `W<int>::m`, `operator()(int)` → `operator()`);
/// `None` when it does not end in a parameter list.
pub fn without_params(name: &str) -> Option<String> {
    let mut s = name.trim_end();
    while let Some(t) = [" const", " volatile", " &&", " &"]
        .iter()
        .find_map(|q| s.strip_suffix(q))
    {
        s = t;
    }
    if !s.ends_with(')') {
        return None;
    }
    let b = s.as_bytes();
    let mut depth = 0i32;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    let head = s[..i].trim_end();
                    return (!head.is_empty()).then(|| head.to_string());
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod parse_tests {
    use super::{gdb_cannot_parse, without_params};

    #[test]
    fn parameters_removed() {
        assert_eq!(
            without_params("W<int>::m(int) const").as_deref(),
            Some("W<int>::m")
        );
        assert_eq!(
            without_params("operator()(int) const").as_deref(),
            Some("operator()")
        );
        assert_eq!(
            without_params("ns::f(void (*)(int), int)").as_deref(),
            Some("ns::f")
        );
        assert_eq!(without_params("main").as_deref(), None);
    }

    #[test]
    fn function_types_as_template_arguments() {
        assert!(gdb_cannot_parse(
            "a6(std::function<int (double, char)> const&)"
        ));
        assert!(gdb_cannot_parse("b5(void (*)(std::function<void ()>))"));
        assert!(!gdb_cannot_parse("W<int (*)(int)>::m(int (*)(int)) const"));
        assert!(!gdb_cannot_parse(
            "W<void (&)(int)>::m(void (&)(int)) const"
        ));
        assert!(!gdb_cannot_parse("b3(std::array<int, 3ul> const&)"));
        assert!(!gdb_cannot_parse("(anonymous namespace)::a3()"));
    }
}
