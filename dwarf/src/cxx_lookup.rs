//! C++ name lookup from a stopped function, as gdb's `cp_lookup_symbol_nonlocal` does it: a
//! name is looked up in the function's classes and namespaces (innermost first), then at the
//! top level, then in the namespaces that `using namespace` directives import into the blocks
//! around the pc and into the unit.

use std::sync::Arc;

use gimli::constants as dw;

use crate::dietypes::{self, read_die, read_tree_at};
use crate::loader::DebugFile;
use crate::scopes::Function;

/// Where a bare C++ name is looked for, besides the top level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CxxLookup {
    /// The scopes of the function (`mesh::Field<double, 3>`, then `mesh`), innermost first;
    /// tried before the top level.
    pub scopes: Vec<String>,
    /// Namespaces imported by `using namespace` in the blocks around the pc, the function, its
    /// namespaces and the unit, innermost first; tried after the top level.
    pub imports: Vec<String>,
}

/// The lookup scopes of `function` stopped at source line `line` (of its selected frame),
/// inside the lexical block `innermost` (or the function itself).
///
/// As gdb 13, a `using namespace` directive counts only when its `DW_AT_decl_line` is not
/// after `line` (g++ gives a directive inside a block the function's last line, so gdb never
/// applies those but on that line).
pub fn cxx_lookup(
    file: &Arc<DebugFile>,
    function: &Function,
    innermost: crate::types::DieRef,
    line: Option<u64>,
) -> CxxLookup {
    let mut out = CxxLookup::default();
    let Ok((ui, off)) = dietypes::locate(file, function.die) else {
        return out;
    };
    if let Some(scope) = file.die_scope(ui, off) {
        let parts = crate::demangle::split_scope(&scope);
        for n in (1..=parts.len()).rev() {
            out.scopes.push(parts[..n].join("::"));
        }
    }
    let Ok((bui, boff)) = dietypes::locate(file, innermost) else {
        return out;
    };
    // The DIEs from the unit's root down to the innermost block, read one level deep each.
    let mut chain = crate::fortran_names::ancestors(file, bui, boff).unwrap_or_default();
    chain.reverse();
    let mut holders: Vec<Option<gimli::UnitOffset>> = chain.into_iter().map(Some).collect();
    holders.push(None);
    for h in holders {
        let Ok(d) = read_tree_at(file, bui, h, 1) else {
            continue;
        };
        for c in &d.children {
            if c.tag != dw::DW_TAG_imported_module {
                continue;
            }
            if let (Some(l), Some(at)) = (line, c.udata(dw::DW_AT_decl_line))
                && at > l
            {
                continue;
            }
            let Some(target) = c.reference(file, dw::DW_AT_import) else {
                continue;
            };
            let Ok(ns) = read_die(file, target) else {
                continue;
            };
            if ns.tag != dw::DW_TAG_namespace {
                continue;
            }
            let name = ns
                .name(file)
                .unwrap_or_else(|| "(anonymous namespace)".into());
            let full = match file.die_scope(ns.unit, ns.offset) {
                Some(s) => format!("{s}::{name}"),
                None => name,
            };
            if !out.imports.contains(&full) {
                out.imports.push(full);
            }
        }
    }
    // gdb's `cp_scan_for_anonymous_namespaces`: an anonymous namespace is imported into the
    // namespace around it, whatever the line.
    let anon: Vec<String> = out
        .scopes
        .iter()
        .map(|s| format!("{s}::(anonymous namespace)"))
        .chain(std::iter::once("(anonymous namespace)".to_string()))
        .collect();
    for a in anon {
        if !out.imports.contains(&a) {
            out.imports.push(a);
        }
    }
    out
}
