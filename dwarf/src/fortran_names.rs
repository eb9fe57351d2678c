//! What a Fortran procedure sees by name: `use` statements as the compilers record them.
//!
//! - gfortran: `use m` is a `DW_TAG_imported_module` (its `DW_AT_import` names a
//!   `DW_TAG_module`, often a declaration standing for the module of another unit);
//!   `use m, only: a => b` is a `DW_TAG_imported_declaration` named `a` whose import is the
//!   variable `b` inside a declared module `m`. Entities of an `only:` list that the program
//!   does not reference get no DIE at all.
//! - flang-22: a `DW_TAG_imported_module` for every `use` (`only:` lists and renames are not
//!   recorded).
//!
//! The scopes searched are the procedure's own DIE, its hosts (an internal procedure's host
//! procedure) and the module it belongs to.

use std::sync::Arc;

use gimli::{UnitOffset, constants as dw};

use crate::dietypes::{self, read_die, read_tree_at};
use crate::loader::DebugFile;
use crate::types::DieRef;

/// The names a use statement makes visible in one procedure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Visibility {
    /// (local name, module, name in the module): `use m, only: local => name` (and, with the
    /// same name twice, an only-list entry).
    pub renames: Vec<(String, String, String)>,
    /// Modules whose names are visible by plain name, the procedure's own module first.
    pub modules: Vec<String>,
}

impl Visibility {
    /// The qualified names (`module::name`) that plain `name` may stand for, in the order
    /// to try them: a rename's target, then `name` in each visible module that does not
    /// rename it away.
    pub fn candidates(&self, name: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .renames
            .iter()
            .filter(|(local, _, _)| local == name)
            .map(|(_, m, orig)| format!("{m}::{orig}"))
            .collect();
        for m in &self.modules {
            let renamed_away = self
                .renames
                .iter()
                .any(|(local, rm, orig)| rm == m && orig == name && local != name);
            let q = format!("{m}::{name}");
            if !renamed_away && !out.contains(&q) {
                out.push(q);
            }
        }
        out
    }

    /// `name` is the original name of an entity renamed in this scope (`use m, only: a => name`),
    /// so it is not visible by that name.
    pub fn renamed_away(&self, name: &str) -> bool {
        self.renames
            .iter()
            .any(|(local, _, orig)| orig == name && local != name)
    }
}

/// The offsets of the DIEs enclosing `target` in unit `ui` (outermost first, the unit's root
/// excluded), `target` last; `None` when the unit does not hold it.
pub(crate) fn ancestors(
    file: &DebugFile,
    ui: usize,
    target: UnitOffset,
) -> Option<Vec<UnitOffset>> {
    let unit = file.unit(ui).ok()?;
    let mut cursor = unit.entries();
    let mut stack: Vec<UnitOffset> = Vec::new();
    let mut depth: isize = 0;
    while let Ok(Some((delta, entry))) = cursor.next_dfs() {
        depth += delta;
        if depth < 0 {
            return None;
        }
        stack.truncate(depth as usize);
        stack.push(entry.offset());
        if entry.offset() == target {
            // Drop the unit's root.
            return Some(stack.split_off(1.min(stack.len())));
        }
    }
    None
}

/// What procedure `function` (a subprogram DIE) sees through `use`, from its own DIE, its
/// hosts and its module.
pub fn visibility(file: &Arc<DebugFile>, function: DieRef) -> Visibility {
    let mut vis = Visibility::default();
    let Ok((ui, off)) = dietypes::locate(file, function) else {
        return vis;
    };
    let Some(chain) = ancestors(file, ui, off) else {
        return vis;
    };
    let types = dietypes::types(file);
    let idx = types.index();
    let mut used: Vec<String> = Vec::new();
    // Innermost scope first: an internal procedure's own `use` before its host's.
    for o in chain.iter().rev() {
        let Ok(d) = read_tree_at(file, ui, Some(*o), 1) else {
            continue;
        };
        if d.tag == dw::DW_TAG_module {
            if let Some(n) = d.name(file)
                && !vis.modules.contains(&n)
            {
                vis.modules.push(n);
            }
        } else if d.tag != dw::DW_TAG_subprogram {
            continue;
        }
        for c in &d.children {
            let Some(target) = c.reference(file, dw::DW_AT_import) else {
                continue;
            };
            match c.tag {
                dw::DW_TAG_imported_module => {
                    if let Ok(m) = read_die(file, target)
                        && let Some(n) = m.name(file)
                        && !used.contains(&n)
                    {
                        used.push(n);
                    }
                }
                dw::DW_TAG_imported_declaration => {
                    let Ok(t) = read_die(file, target) else {
                        continue;
                    };
                    let Some(orig) = t.name(file) else { continue };
                    let Some(module) = idx.module_members.get(&target) else {
                        continue;
                    };
                    let local = c.name(file).unwrap_or_else(|| orig.clone());
                    vis.renames.push((local, module.clone(), orig));
                    // The rest of an `only:` list is not recorded when unreferenced: the
                    // module's other names stay reachable.
                    if !used.contains(module) {
                        used.push(module.clone());
                    }
                }
                _ => {}
            }
        }
    }
    for m in used {
        if !vis.modules.contains(&m) {
            vis.modules.push(m);
        }
    }
    vis
}

/// Host association: variable `name` of a scope enclosing procedure `function` (an internal
/// procedure's host, or the procedure an OpenMP region was outlined from: gfortran nests the
/// `*._omp_fn.N` subprogram in a lexical block of its origin), innermost first. Gives the
/// host subprogram's DIE (its frame holds the variable) and the variable.
pub fn host_variable(
    file: &Arc<DebugFile>,
    function: DieRef,
    name: &str,
) -> Option<(DieRef, crate::scopes::Variable)> {
    let (ui, off) = dietypes::locate(file, function).ok()?;
    let chain = ancestors(file, ui, off)?;
    let dies: Vec<dietypes::Die> = chain
        .iter()
        .filter_map(|o| read_tree_at(file, ui, Some(*o), 1).ok())
        .collect();
    if dies.len() != chain.len() {
        return None;
    }
    for i in (0..dies.len().saturating_sub(1)).rev() {
        let d = &dies[i];
        if !matches!(d.tag, dw::DW_TAG_subprogram | dw::DW_TAG_lexical_block) {
            continue;
        }
        let Some(host) = dies[..=i]
            .iter()
            .rev()
            .find(|h| h.tag == dw::DW_TAG_subprogram)
        else {
            continue;
        };
        let fb = host.attr(dw::DW_AT_frame_base).copied();
        for c in &d.children {
            let kind = match c.tag {
                dw::DW_TAG_formal_parameter => crate::scopes::VarKind::Param,
                dw::DW_TAG_variable | dw::DW_TAG_constant if !c.flag(dw::DW_AT_declaration) => {
                    crate::scopes::VarKind::Local
                }
                _ => continue,
            };
            if c.name(file).as_deref() != Some(name) {
                continue;
            }
            let v = crate::scopes::make_variable(file, c, kind, fb)?;
            return Some((host.die_ref(file)?, v));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::Visibility;

    #[test]
    fn renames_hide_the_original_name() {
        let v = Visibility {
            renames: vec![("lvl".into(), "settings".into(), "level".into())],
            modules: vec!["geometry".into(), "settings".into()],
        };
        assert_eq!(
            v.candidates("lvl"),
            vec![
                "settings::level".to_string(),
                "geometry::lvl".into(),
                "settings::lvl".into()
            ]
        );
        assert_eq!(v.candidates("level"), vec!["geometry::level".to_string()]);
        assert_eq!(
            v.candidates("mode"),
            vec!["geometry::mode".to_string(), "settings::mode".into()]
        );
        assert!(v.renamed_away("level"));
        assert!(!v.renamed_away("lvl"));
    }
}
