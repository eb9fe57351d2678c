//! Types from DWARF DIEs: every C type the compilers write, built into the shared model of
//! [`crate::types`], cached per DIE for the life of the binary, plus the small DIE helpers the
//! scope and location code share.
//!
//! Entry points: [`types`] (the per-binary type builder, a [`TypeSource`]), [`type_of`] and
//! [`lookup_type`] (a type as C spells it).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, Weak};

use gimli::{AttributeValue, DwAt, DwTag, UnitOffset, constants as dw};

use crate::R;
use crate::error::{DwarfError, Result};
use crate::loader::DebugFile;
use crate::types::{
    Access, AggregateKind, ArraySpec, Bitfield, Bound, BoundSpec, CxxInfo, DieRef, DimSpec,
    DynamicBound, Encoding, EncodingInfo, LazyType, Member, Method, Type, TypeKind, TypeRef,
    TypeSource,
};

// ---------------------------------------------------------------------------------------------
// DIE helpers (shared with `scopes` and `location`)
// ---------------------------------------------------------------------------------------------

/// One DIE read out of its unit: tag, attributes (owned: they borrow only `'static` section
/// bytes) and, when read as a tree, its children.
#[derive(Debug, Clone)]
pub struct Die {
    /// Index of the unit in [`DebugFile::units`].
    pub unit: usize,
    pub offset: UnitOffset<usize>,
    pub tag: DwTag,
    pub attrs: Vec<(DwAt, AttributeValue<R>)>,
    pub children: Vec<Die>,
}

impl Die {
    pub fn attr(&self, at: DwAt) -> Option<&AttributeValue<R>> {
        self.attrs.iter().find(|(a, _)| *a == at).map(|(_, v)| v)
    }

    pub fn has(&self, at: DwAt) -> bool {
        self.attr(at).is_some()
    }

    /// A flag attribute (`DW_AT_declaration`, `DW_AT_external`, …).
    pub fn flag(&self, at: DwAt) -> bool {
        matches!(self.attr(at), Some(AttributeValue::Flag(true)))
    }

    /// An unsigned constant (typed constants such as `DW_AT_encoding`, `DW_AT_language` and
    /// file indices included).
    pub fn udata(&self, at: DwAt) -> Option<u64> {
        match self.attr(at)? {
            AttributeValue::Encoding(e) => Some(e.0 as u64),
            AttributeValue::Language(l) => Some(l.0 as u64),
            AttributeValue::FileIndex(i) => Some(*i),
            AttributeValue::Accessibility(a) => Some(a.0 as u64),
            AttributeValue::Inline(i) => Some(i.0 as u64),
            AttributeValue::Virtuality(v) => Some(v.0 as u64),
            v => v.udata_value(),
        }
    }

    pub fn sdata(&self, at: DwAt) -> Option<i64> {
        self.attr(at).and_then(|v| v.sdata_value())
    }

    /// The DIE this one's reference attribute names.
    pub fn reference(&self, file: &DebugFile, at: DwAt) -> Option<DieRef> {
        let v = self.attr(at)?;
        attr_die_ref(file, self.unit, v)
    }

    pub fn die_ref(&self, file: &DebugFile) -> Option<DieRef> {
        let unit = file.unit(self.unit).ok()?;
        self.offset.to_debug_info_offset(&unit.header).map(DieRef)
    }

    /// `DW_AT_name` as a string.
    pub fn name(&self, file: &DebugFile) -> Option<String> {
        self.string(file, dw::DW_AT_name)
    }

    pub fn string(&self, file: &DebugFile, at: DwAt) -> Option<String> {
        let v = self.attr(at)?;
        let unit = file.unit(self.unit).ok()?;
        let s = file.dwarf.attr_string(unit, *v).ok()?;
        Some(s.to_string_lossy().into_owned())
    }

    /// Encoding of this DIE's unit.
    pub fn encoding(&self, file: &DebugFile) -> Option<gimli::Encoding> {
        file.unit(self.unit).ok().map(|u| u.encoding())
    }
}

/// A reference attribute as a `.debug_info` offset.
pub fn attr_die_ref(file: &DebugFile, unit: usize, v: &AttributeValue<R>) -> Option<DieRef> {
    match v {
        AttributeValue::UnitRef(off) => {
            let u = file.unit(unit).ok()?;
            off.to_debug_info_offset(&u.header).map(DieRef)
        }
        AttributeValue::DebugInfoRef(off) => Some(DieRef(*off)),
        _ => None,
    }
}

/// Unit index and unit-relative offset of a DIE.
pub fn locate(file: &DebugFile, die: DieRef) -> Result<(usize, UnitOffset<usize>)> {
    let ui = file
        .unit_index_for_offset(die.0)
        .ok_or_else(|| DwarfError::Malformed(format!("no unit holds DIE {:#x}", die.0.0)))?;
    let unit = file.unit(ui)?;
    let off = die
        .0
        .to_unit_offset(&unit.header)
        .ok_or_else(|| DwarfError::Malformed(format!("DIE {:#x} outside its unit", die.0.0)))?;
    Ok((ui, off))
}

fn collect_attrs(
    entry: &gimli::DebuggingInformationEntry<'_, '_, R>,
) -> Result<Vec<(DwAt, AttributeValue<R>)>> {
    let mut out = Vec::new();
    let mut it = entry.attrs();
    while let Some(a) = it.next()? {
        out.push((a.name(), a.value()));
    }
    Ok(out)
}

/// The DIE at `die`, without children.
pub fn read_die(file: &DebugFile, die: DieRef) -> Result<Die> {
    let (ui, off) = locate(file, die)?;
    read_die_at(file, ui, off)
}

pub fn read_die_at(file: &DebugFile, ui: usize, off: UnitOffset<usize>) -> Result<Die> {
    let unit = file.unit(ui)?;
    let entry = unit.entry(off)?;
    Ok(Die {
        unit: ui,
        offset: off,
        tag: entry.tag(),
        attrs: collect_attrs(&entry)?,
        children: Vec::new(),
    })
}

/// The DIE at `die` with its children down to `depth` levels (1: direct children only).
pub fn read_tree(file: &DebugFile, die: DieRef, depth: usize) -> Result<Die> {
    let (ui, off) = locate(file, die)?;
    read_tree_at(file, ui, Some(off), depth)
}

/// The tree at `off` of unit `ui` (`None`: the unit's root DIE).
pub fn read_tree_at(
    file: &DebugFile,
    ui: usize,
    off: Option<UnitOffset<usize>>,
    depth: usize,
) -> Result<Die> {
    let unit = file.unit(ui)?;
    let mut tree = unit.entries_tree(off)?;
    let root = tree.root()?;
    read_node(ui, root, depth)
}

fn read_node(ui: usize, node: gimli::EntriesTreeNode<'_, '_, '_, R>, depth: usize) -> Result<Die> {
    let entry = node.entry();
    let mut die = Die {
        unit: ui,
        offset: entry.offset(),
        tag: entry.tag(),
        attrs: collect_attrs(entry)?,
        children: Vec::new(),
    };
    if depth > 0 {
        let mut children = node.children();
        while let Some(child) = children.next()? {
            die.children.push(read_node(ui, child, depth - 1)?);
        }
    }
    Ok(die)
}

/// `die` with the attributes of its `DW_AT_abstract_origin` / `DW_AT_specification` chain
/// filled in where it has none of its own (name, type, declaration coordinates…).
pub fn with_origin(file: &DebugFile, die: &Die) -> Die {
    let mut out = die.clone();
    let mut cur = die.clone();
    for _ in 0..4 {
        let next = cur
            .reference(file, dw::DW_AT_abstract_origin)
            .or_else(|| cur.reference(file, dw::DW_AT_specification));
        let Some(r) = next else { break };
        let Ok(origin) = read_die(file, r) else { break };
        for (a, v) in &origin.attrs {
            if *a == dw::DW_AT_sibling || *a == dw::DW_AT_declaration {
                continue;
            }
            if !out.has(*a) {
                // A reference in the origin is relative to the origin's unit: store it as a
                // section offset so that it stays meaningful here.
                let v = match v {
                    AttributeValue::UnitRef(_) => match attr_die_ref(file, origin.unit, v) {
                        Some(d) => AttributeValue::DebugInfoRef(d.0),
                        None => continue,
                    },
                    other => *other,
                };
                out.attrs.push((*a, v));
            }
        }
        cur = origin;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Name index of the top-level DIEs of every unit
// ---------------------------------------------------------------------------------------------

/// Which C name space a type name lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeNs {
    Struct,
    Union,
    Class,
    Enum,
    /// typedefs and base types
    Ordinary,
}

/// One named top-level DIE.
#[derive(Debug, Clone, Copy)]
pub struct Named {
    pub die: DieRef,
    pub unit: usize,
    pub declaration: bool,
    /// `DW_AT_external` (globals and global functions).
    pub external: bool,
}

/// Names of the top-level DIEs of all units (built by walking each unit once).
#[derive(Debug, Default)]
pub struct TopIndex {
    pub types: HashMap<(TypeNs, String), Vec<Named>>,
    pub variables: HashMap<String, Vec<Named>>,
    pub functions: HashMap<String, Vec<Named>>,
    /// Fortran: every DIE indexed from inside a `DW_TAG_module`, with the module's name.
    pub module_members: HashMap<DieRef, String>,
    /// Fortran modules (`DW_TAG_module` at the top of a unit), definitions and declarations,
    /// in unit order.
    pub modules: Vec<ModuleDie>,
    /// C++ namespaces by qualified name (`std`, `std::__detail`).
    pub namespaces: std::collections::HashSet<String>,
}

/// A `DW_TAG_module`.
#[derive(Debug, Clone)]
pub struct ModuleDie {
    pub name: String,
    pub die: DieRef,
    pub unit: usize,
    pub decl_line: u64,
    /// A module used in this unit but defined in another (`DW_AT_declaration`).
    pub declaration: bool,
}

impl TopIndex {
    fn build(file: &DebugFile) -> TopIndex {
        let mut idx = TopIndex::default();
        for ui in 0..file.units.len() {
            let Ok(root) = read_tree_at(file, ui, None, 1) else {
                continue;
            };
            if default_lower_bound(file, ui) == 1 {
                fortran_procedure_types(file, ui, &root, &mut idx);
            }
            // Fortran modules: their variables, types and procedures by plain name (as a
            // `use` makes them visible) and as `module::name` (only modules are read a level
            // deeper: C units stay one level).
            let modules: Vec<(Die, Option<String>)> = root
                .children
                .iter()
                .filter(|d| d.tag == dw::DW_TAG_module)
                .filter_map(|d| {
                    let m = d.name(file);
                    let full = read_tree_at(file, ui, Some(d.offset), 1).ok()?;
                    Some((full, m))
                })
                .collect();
            for (m, name) in &modules {
                if let (Some(name), Some(die)) = (name, m.die_ref(file)) {
                    idx.modules.push(ModuleDie {
                        name: name.clone(),
                        die,
                        unit: ui,
                        decl_line: m.udata(dw::DW_AT_decl_line).unwrap_or(0),
                        declaration: m.flag(dw::DW_AT_declaration),
                    });
                }
            }
            // C++ namespaces: their variables, types and functions as `ns::name` only.
            let mut namespaces: Vec<(Die, String)> = Vec::new();
            let mut todo: Vec<(UnitOffset<usize>, String)> = root
                .children
                .iter()
                .filter(|d| d.tag == dw::DW_TAG_namespace)
                .map(|d| {
                    let n = d
                        .name(file)
                        .unwrap_or_else(|| "(anonymous namespace)".into());
                    (d.offset, n)
                })
                .collect();
            while let Some((off, ns)) = todo.pop() {
                if namespaces.len() > 100_000 {
                    break;
                }
                let Ok(full) = read_tree_at(file, ui, Some(off), 1) else {
                    continue;
                };
                for c in &full.children {
                    if c.tag == dw::DW_TAG_namespace && ns.matches("::").count() < 16 {
                        let n = c
                            .name(file)
                            .unwrap_or_else(|| "(anonymous namespace)".into());
                        todo.push((c.offset, format!("{ns}::{n}")));
                    }
                }
                idx.namespaces.insert(ns.clone());
                namespaces.push((full, ns));
            }
            let mut entries: Vec<(&Die, Option<String>, Option<&Die>)> = Vec::new();
            for d in &root.children {
                if d.tag != dw::DW_TAG_module {
                    entries.push((d, None, None));
                }
            }
            for (m, name) in &modules {
                entries.extend(m.children.iter().map(|c| (c, name.clone(), None)));
            }
            for (n, name) in &namespaces {
                entries.extend(n.children.iter().map(|c| (c, Some(name.clone()), Some(n))));
            }
            for (d, module, parent_ns) in entries {
                let in_namespace = parent_ns.is_some();
                let ns = match d.tag {
                    dw::DW_TAG_structure_type => Some(TypeNs::Struct),
                    dw::DW_TAG_union_type => Some(TypeNs::Union),
                    dw::DW_TAG_class_type => Some(TypeNs::Class),
                    dw::DW_TAG_enumeration_type => Some(TypeNs::Enum),
                    dw::DW_TAG_typedef | dw::DW_TAG_base_type => Some(TypeNs::Ordinary),
                    _ => None,
                };
                // Fortran parameters (`DW_TAG_constant`) are variables with a value.
                let is_var = d.tag == dw::DW_TAG_variable
                    || (d.tag == dw::DW_TAG_constant && module.is_some());
                let is_fn = d.tag == dw::DW_TAG_subprogram;
                if ns.is_none() && !is_var && !is_fn {
                    continue;
                }
                // Definitions of declared things (`int x;` completing `extern int x;`) carry
                // their name on the declaration.
                let full = with_origin(file, d);
                let Some(name) = full.name(file) else {
                    continue;
                };
                let Some(die) = d.die_ref(file) else { continue };
                let named = Named {
                    die,
                    unit: ui,
                    declaration: d.flag(dw::DW_AT_declaration),
                    external: full.flag(dw::DW_AT_external),
                };
                if let Some(m) = &module
                    && !in_namespace
                {
                    idx.module_members.insert(die, m.clone());
                }
                let names = match &module {
                    // clang defines a namespace's class's static member in the namespace
                    // (`phys::Solver::nsolvers`, its declaration in the class).
                    Some(m) if in_namespace && is_var && d.has(dw::DW_AT_specification) => {
                        match parent_ns.and_then(|n| enclosing_class(file, n, d)) {
                            Some(c) => vec![format!("{m}::{c}::{name}")],
                            None => vec![format!("{m}::{name}")],
                        }
                    }
                    Some(m) if in_namespace => vec![format!("{m}::{name}")],
                    Some(m) => vec![format!("{m}::{name}"), name],
                    // A C++ static data member defined outside its class, or a namespace's
                    // variable defined outside it (g++): only as `Class::member`, as gdb
                    // (the function's scopes and `using namespace` find it by bare name).
                    None if is_var && full.has(dw::DW_AT_specification) => {
                        match file.die_scope(ui, d.offset) {
                            Some(s) => vec![format!("{s}::{name}")],
                            None => vec![name],
                        }
                    }
                    // A C++ member function (or a namespace's function) defined outside its
                    // class: only as `Class::name`, as gdb (a constructor is no `Config`).
                    None if is_fn && d.has(dw::DW_AT_specification) => {
                        match file.die_scope(ui, d.offset) {
                            Some(s) => vec![format!("{s}::{name}")],
                            None => vec![name],
                        }
                    }
                    None => vec![name],
                };
                for name in names {
                    if let Some(ns) = ns {
                        // A C++ template class by its canonical name too (what gdb looks up:
                        // clang's `std::pair<const int, int>` as `std::pair<int const, int>`).
                        if name.contains('<') && is_cplus_unit(file, ui) {
                            let canonical = crate::canon::canonical_cxx_name(&name);
                            if canonical != name {
                                let c = canonical.into_owned();
                                idx.types.entry((ns, c)).or_default().push(named);
                            }
                        }
                        idx.types.entry((ns, name)).or_default().push(named);
                    } else if is_var {
                        idx.variables.entry(name).or_default().push(named);
                    } else {
                        idx.functions.entry(name).or_default().push(named);
                    }
                }
            }
        }
        idx
    }

    /// The definition of a type named `name` (a declaration only when there is nothing else).
    pub fn type_die(&self, ns: TypeNs, name: &str) -> Option<Named> {
        let v = self.types.get(&(ns, name.to_string()))?;
        v.iter().find(|n| !n.declaration).or(v.first()).copied()
    }
}

// ---------------------------------------------------------------------------------------------
// The type builder
// ---------------------------------------------------------------------------------------------

/// Types of one binary, built from its DIEs on demand and cached per DIE.
pub struct FileTypes {
    pub file: Arc<DebugFile>,
    cache: Mutex<HashMap<DieRef, TypeRef>>,
    index: OnceLock<TopIndex>,
    me: Weak<FileTypes>,
    /// Functions read by `scopes::function_at`, by DIE (every rank steps in the same few).
    pub(crate) functions: Mutex<HashMap<DieRef, crate::scopes::Function>>,
}

static REGISTRY: LazyLock<Mutex<HashMap<usize, Arc<FileTypes>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The type builder of `file` (one per binary for the whole run).
pub fn types(file: &Arc<DebugFile>) -> Arc<FileTypes> {
    let key = Arc::as_ptr(file) as usize;
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    reg.entry(key)
        .or_insert_with(|| {
            Arc::new_cyclic(|me| FileTypes {
                file: file.clone(),
                cache: Mutex::new(HashMap::new()),
                index: OnceLock::new(),
                me: me.clone(),
                functions: Mutex::new(HashMap::new()),
            })
        })
        .clone()
}

/// The type of the DIE `die` of `file`.
pub fn type_of(file: &Arc<DebugFile>, die: DieRef) -> TypeRef {
    types(file).type_at(die)
}

/// The top-level name index of `file`.
pub fn top_index(file: &Arc<DebugFile>) -> Arc<FileTypes> {
    types(file)
}

/// A type as C spells it (`int`, `unsigned long`, `struct item`, `union u`, `enum color`,
/// `item_t`, with trailing `*`s for pointers).
pub fn lookup_type(file: &Arc<DebugFile>, name: &str) -> Option<TypeRef> {
    types(file).lookup(name)
}

/// Whether `name` (`std`, `phys::detail`) is a C++ namespace of `file`.
pub fn is_namespace(file: &Arc<DebugFile>, name: &str) -> bool {
    types(file).index().namespaces.contains(name)
}

/// The name of the class among `ns`'s children whose member declaration the definition `d`
/// (`DW_AT_specification`) completes: DIEs are laid out in tree order, so that declaration
/// lies between the class's offset and its next sibling's.
fn enclosing_class(file: &DebugFile, ns: &Die, d: &Die) -> Option<String> {
    let AttributeValue::UnitRef(target) = d.attr(dw::DW_AT_specification)? else {
        return None;
    };
    let kids = &ns.children;
    let i = kids
        .iter()
        .position(|c| c.offset.0 > target.0)?
        .checked_sub(1)?;
    let c = &kids[i];
    matches!(
        c.tag,
        dw::DW_TAG_structure_type | dw::DW_TAG_class_type | dw::DW_TAG_union_type
    )
    .then(|| c.name(file))
    .flatten()
}

thread_local! {
    static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

const MAX_DEPTH: u32 = 256;

impl FileTypes {
    /// The definition of the class, struct or union `name` in another loaded binary.
    fn definition_elsewhere(&self, ns: TypeNs, name: &str) -> Option<TypeRef> {
        // C++ declares and defines a class with either keyword.
        let kinds: &[TypeNs] = match ns {
            TypeNs::Struct | TypeNs::Class => &[TypeNs::Struct, TypeNs::Class],
            _ => &[TypeNs::Union],
        };
        crate::loader::loaded_files()
            .iter()
            .filter(|f| !Arc::ptr_eq(f, &self.file))
            .find_map(|f| {
                let ft = types(f);
                kinds.iter().find_map(|k| {
                    let def = ft.index().type_die(*k, name)?;
                    (!def.declaration).then(|| ft.type_at(def.die))
                })
            })
    }
}

impl TypeSource for FileTypes {
    fn type_at(&self, die: DieRef) -> TypeRef {
        if let Some(t) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&die)
        {
            return t.clone();
        }
        let depth = DEPTH.with(|d| {
            let v = d.get() + 1;
            d.set(v);
            v
        });
        let t = if depth > MAX_DEPTH {
            Type::error("type nesting too deep")
        } else {
            match self.build(die) {
                Ok(t) => t,
                Err(e) => Type::error(e.to_string()),
            }
        };
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        // A declaration without a definition is looked up again next time: a library
        // loaded since may define it.
        if matches!(
            t.kind,
            TypeKind::Aggregate {
                declaration: true,
                ..
            }
        ) {
            return t;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.entry(die).or_insert(t).clone()
    }
}

fn base_encoding(ate: u64) -> Encoding {
    match gimli::DwAte(ate as u8) {
        dw::DW_ATE_signed => Encoding::Signed,
        dw::DW_ATE_signed_char => Encoding::SignedChar,
        dw::DW_ATE_unsigned_char => Encoding::UnsignedChar,
        dw::DW_ATE_boolean => Encoding::Boolean,
        dw::DW_ATE_float | dw::DW_ATE_decimal_float => Encoding::Float,
        dw::DW_ATE_complex_float => Encoding::ComplexFloat,
        dw::DW_ATE_UTF => Encoding::Utf,
        _ => Encoding::Unsigned,
    }
}

/// A constant attribute as a signed value: data forms are read as `signed` says.
/// gdb's canonical spelling of gcc's base type names (`long unsigned int` is shown as
/// `unsigned long`); `None` for a name kept as it is.
fn canonical_base_name(n: &str) -> Option<&'static str> {
    Some(match n {
        "long int" => "long",
        "long unsigned int" => "unsigned long",
        "short int" => "short",
        "short unsigned int" => "unsigned short",
        "long long int" => "long long",
        "long long unsigned int" => "unsigned long long",
        _ => return None,
    })
}

fn const_i64(v: &AttributeValue<R>, signed: bool) -> Option<i64> {
    Some(match *v {
        AttributeValue::Sdata(i) => i,
        AttributeValue::Udata(u) => u as i64,
        AttributeValue::Data1(b) if signed => b as i8 as i64,
        AttributeValue::Data1(b) => b as i64,
        AttributeValue::Data2(b) if signed => b as i16 as i64,
        AttributeValue::Data2(b) => b as i64,
        AttributeValue::Data4(b) if signed => b as i32 as i64,
        AttributeValue::Data4(b) => b as i64,
        AttributeValue::Data8(b) => b as i64,
        _ => return None,
    })
}

/// `DW_AT_data_member_location` as a byte offset (constant or `DW_OP_plus_uconst N`).
fn member_location(v: &AttributeValue<R>, enc: gimli::Encoding) -> Option<u64> {
    if let Some(u) = v.udata_value() {
        return Some(u);
    }
    let expr = v.exprloc_value()?;
    let mut eval = expr.evaluation(enc);
    eval.set_initial_value(0);
    match eval.evaluate().ok()? {
        gimli::EvaluationResult::Complete => {}
        _ => return None,
    }
    match eval.result().first()?.location {
        gimli::Location::Address { address } => Some(address),
        _ => None,
    }
}

fn encoding_info(enc: gimli::Encoding) -> EncodingInfo {
    EncodingInfo {
        address_size: enc.address_size,
        version: enc.version,
        dwarf64: enc.format == gimli::Format::Dwarf64,
    }
}

impl FileTypes {
    fn source(&self) -> Option<Arc<dyn TypeSource>> {
        self.me.upgrade().map(|a| a as Arc<dyn TypeSource>)
    }

    fn lazy(&self, die: Option<DieRef>) -> LazyType {
        match (die, self.source()) {
            (None, _) => LazyType::ready(Type::void()),
            (Some(d), Some(src)) => LazyType::deferred(src, d),
            (Some(d), None) => LazyType::ready(self.type_at(d)),
        }
    }

    fn target(&self, die: &Die) -> TypeRef {
        match die.reference(&self.file, dw::DW_AT_type) {
            Some(d) => self.type_at(d),
            None => Type::void(),
        }
    }

    /// Index of the top-level names of the binary.
    pub fn index(&self) -> &TopIndex {
        self.index.get_or_init(|| TopIndex::build(&self.file))
    }

    fn build(&self, at: DieRef) -> Result<TypeRef> {
        let file = &*self.file;
        let die = read_tree(file, at, 1)?;
        let enc = die
            .encoding(file)
            .ok_or_else(|| DwarfError::Malformed("unit without encoding".into()))?;
        let mut name = die.name(file);
        // C++: a class, enum or typedef is named with its namespace and class
        // (`geom::Shape`), as gdb names it.
        if matches!(
            die.tag,
            dw::DW_TAG_typedef
                | dw::DW_TAG_structure_type
                | dw::DW_TAG_union_type
                | dw::DW_TAG_class_type
                | dw::DW_TAG_enumeration_type
        ) && let Some(n) = &name
            && is_cplus_unit(file, die.unit)
            && let Some(scope) = file.die_scope(die.unit, die.offset)
        {
            name = Some(format!("{scope}::{n}"));
        }
        let size = die.udata(dw::DW_AT_byte_size);
        let ptr_size = enc.address_size as u64;
        let t = match die.tag {
            dw::DW_TAG_base_type => {
                let e = base_encoding(die.udata(dw::DW_AT_encoding).unwrap_or(0));
                let name = name.map(|n| canonical_base_name(&n).map_or(n, str::to_string));
                Type::new(name, size.unwrap_or(0), TypeKind::Base(e))
            }
            dw::DW_TAG_unspecified_type => Type::new(name, 0, TypeKind::Void),
            dw::DW_TAG_ptr_to_member_type => {
                let target = self.lazy(die.reference(file, dw::DW_AT_type));
                let class = self.lazy(die.reference(file, dw::DW_AT_containing_type));
                // The Itanium ABI's sizes (DWARF gives none): a member function pointer is
                // a function address (or vtable offset + 1) and a `this` adjustment.
                let method = matches!(target.get().kind, TypeKind::Function { .. });
                let size = size.unwrap_or(if method { 2 * ptr_size } else { ptr_size });
                Type::member_pointer(target, class, size)
            }
            dw::DW_TAG_pointer_type => {
                let target = self.lazy(die.reference(file, dw::DW_AT_type));
                Type::new(None, size.unwrap_or(ptr_size), TypeKind::Pointer(target))
            }
            dw::DW_TAG_reference_type => {
                let target = self.lazy(die.reference(file, dw::DW_AT_type));
                Type::new(None, size.unwrap_or(ptr_size), TypeKind::Reference(target))
            }
            dw::DW_TAG_rvalue_reference_type => {
                let target = self.lazy(die.reference(file, dw::DW_AT_type));
                Type::new(
                    None,
                    size.unwrap_or(ptr_size),
                    TypeKind::RvalueReference(target),
                )
            }
            dw::DW_TAG_const_type | dw::DW_TAG_volatile_type | dw::DW_TAG_restrict_type => {
                let inner = self.target(&die);
                let sz = inner.byte_size();
                let l = LazyType::ready(inner);
                let kind = match die.tag {
                    dw::DW_TAG_const_type => TypeKind::Const(l),
                    dw::DW_TAG_volatile_type => TypeKind::Volatile(l),
                    _ => TypeKind::Restrict(l),
                };
                Type::new(None, sz, kind)
            }
            // `_Atomic T` and friends: what the bits are is T.
            dw::DW_TAG_atomic_type | dw::DW_TAG_immutable_type | dw::DW_TAG_packed_type => {
                self.target(&die)
            }
            dw::DW_TAG_typedef => {
                let target = die.reference(file, dw::DW_AT_type);
                // Size through the typedef when it is cheap and safe to know now: the target
                // is built only on first use (it may be a struct still being built).
                Type::new(
                    cxx_canonical(file, &die, name),
                    0,
                    TypeKind::Typedef(self.lazy(target)),
                )
            }
            dw::DW_TAG_structure_type | dw::DW_TAG_union_type | dw::DW_TAG_class_type => {
                self.aggregate(&die, name, size, enc)?
            }
            dw::DW_TAG_enumeration_type => self.enumeration(&die, name, size)?,
            dw::DW_TAG_array_type if default_lower_bound(file, die.unit) != 0 => {
                self.dyn_array(&die, enc)
            }
            dw::DW_TAG_array_type => self.array(&die, enc)?,
            dw::DW_TAG_string_type => self.string_type(&die, enc, size),
            dw::DW_TAG_subroutine_type | dw::DW_TAG_subprogram => {
                let full = with_origin(file, &die);
                let ret = full
                    .reference(file, dw::DW_AT_type)
                    .map(|d| self.lazy(Some(d)));
                let mut params = Vec::new();
                let mut varargs = false;
                for c in &die.children {
                    match c.tag {
                        // gdb makes C++'s `this` const where GCC does not (GCC PR 43053):
                        // `int (C::*)(C * const, int)`.
                        dw::DW_TAG_formal_parameter
                            if c.flag(dw::DW_AT_artificial) && is_cplus_unit(file, die.unit) =>
                        {
                            let t = match c.reference(file, dw::DW_AT_type) {
                                Some(r) => self.type_at(r),
                                None => Type::error("parameter without type"),
                            };
                            let t = if matches!(t.kind, TypeKind::Const(_)) {
                                t
                            } else {
                                Type::new(None, t.size, TypeKind::Const(LazyType::ready(t)))
                            };
                            params.push(LazyType::ready(t));
                        }
                        dw::DW_TAG_formal_parameter => {
                            let c = with_origin(file, c);
                            params.push(self.lazy(c.reference(file, dw::DW_AT_type)));
                        }
                        dw::DW_TAG_unspecified_parameters => varargs = true,
                        _ => {}
                    }
                }
                Type::new(
                    None,
                    0,
                    TypeKind::Function {
                        ret,
                        params,
                        varargs,
                        // gdb's `prototyped_function_p`: a function of a language
                        // without unprototyped ones (an assembler unit's) is prototyped,
                        // `void (void)`.
                        prototyped: full.flag(dw::DW_AT_prototyped)
                            || is_assembler_unit(file, die.unit),
                    },
                )
            }
            // A variable, member or parameter: its type.
            dw::DW_TAG_variable
            | dw::DW_TAG_constant
            | dw::DW_TAG_formal_parameter
            | dw::DW_TAG_member => {
                let full = with_origin(file, &die);
                match full.reference(file, dw::DW_AT_type) {
                    Some(d) => self.type_at(d),
                    None => Type::error("variable without type"),
                }
            }
            t => Type::error(format!("unsupported type DIE {t}")),
        };
        Ok(t)
    }

    fn aggregate(
        &self,
        die: &Die,
        name: Option<String>,
        size: Option<u64>,
        enc: gimli::Encoding,
    ) -> Result<TypeRef> {
        let file = &*self.file;
        let (kind, ns) = match die.tag {
            dw::DW_TAG_structure_type => (AggregateKind::Struct, TypeNs::Struct),
            dw::DW_TAG_union_type => (AggregateKind::Union, TypeNs::Union),
            _ => (AggregateKind::Class, TypeNs::Class),
        };
        let declaration = die.flag(dw::DW_AT_declaration);
        if declaration {
            if let Some(n) = &name
                && let Some(def) = self.index().type_die(ns, n)
            {
                let here = die.die_ref(file);
                if !def.declaration && Some(def.die) != here {
                    return Ok(self.type_at(def.die));
                }
            }
            // gdb's `check_typedef` looks for the definition in every objfile: a type only
            // declared here may be defined in a shared library (or the program).
            if let Some(n) = &name
                && let Some(t) = self.definition_elsewhere(ns, n)
            {
                return Ok(t);
            }
            return Ok(Type::new(
                cxx_canonical(file, die, name),
                0,
                TypeKind::Aggregate {
                    kind,
                    members: Vec::new(),
                    declaration: true,
                },
            ));
        }
        let cplus = is_cplus_unit(file, die.unit);
        // (The name as gdb shows it; the look-up above took the DWARF's.)
        let name = cxx_canonical(file, die, name);
        // DWARF's default access: private in a class, public in a struct or union.
        let default_access = if kind == AggregateKind::Class {
            Access::Private
        } else {
            Access::Public
        };
        let mut cxx = CxxInfo::default();
        let mut members = Vec::new();
        // The largest `DW_AT_alignment` of a member: flang-22 gives a derived type its size
        // without the tail padding (`byte_size 28` for `real(8) :: pos(3); integer :: id`,
        // laid out 32 bytes apart in arrays); a size is a multiple of its alignment.
        let mut align = 1u64;
        for c in &die.children {
            if c.tag == dw::DW_TAG_member
                && let Some(a) = c.udata(dw::DW_AT_alignment)
            {
                align = align.max(a);
            }
            if cplus && c.tag == dw::DW_TAG_template_type_parameter {
                if let (Some(n), Some(t)) = (c.name(file), c.reference(file, dw::DW_AT_type)) {
                    cxx.template_args.push((n, self.lazy(Some(t))));
                }
                continue;
            }
            if cplus && c.tag == dw::DW_TAG_typedef {
                if let (Some(n), Some(r)) = (c.name(file), c.die_ref(file)) {
                    cxx.typedefs
                        .push((n, self.lazy(Some(r)), access(c, default_access)));
                }
                continue;
            }
            if cplus && c.tag == dw::DW_TAG_subprogram {
                if let Some(m) = self.method(c, default_access) {
                    cxx.methods.push(m);
                }
                continue;
            }
            let is_base = c.tag == dw::DW_TAG_inheritance;
            let is_static_var = c.tag == dw::DW_TAG_variable;
            if c.tag != dw::DW_TAG_member && !is_base && !is_static_var {
                continue;
            }
            let ty_die = c.reference(file, dw::DW_AT_type);
            let is_static = is_static_var
                || (c.flag(dw::DW_AT_declaration) && !c.has(dw::DW_AT_data_member_location));
            // A static member may be of the class itself (`struct S { static S inst; }`): its
            // type is built when it is first used, not while the class is (which recursed
            // until "type nesting too deep" and lost the whole class). Its constant value,
            // if any, needs its size now (an integer or enum, never the class).
            if is_static && !c.has(dw::DW_AT_const_value) && ty_die.is_some() {
                members.push(Member {
                    name: c.name(file),
                    ty: self.lazy(ty_die),
                    offset: 0,
                    bitfield: None,
                    is_static,
                    is_base,
                });
                cxx.member_access.push(access(c, default_access));
                continue;
            }
            let mty = match ty_die {
                Some(d) => self.type_at(d),
                None => Type::error("member without type"),
            };
            let mut offset = c
                .attr(dw::DW_AT_data_member_location)
                .and_then(|v| member_location(v, enc))
                .unwrap_or(0);
            let bit_size = c.udata(dw::DW_AT_bit_size);
            let mut bitfield = None;
            if let Some(bits) = bit_size {
                let bit_offset = if let Some(dbo) = c.udata(dw::DW_AT_data_bit_offset) {
                    dbo
                } else {
                    // DWARF 2-4: DW_AT_bit_offset counts from the most significant bit of the
                    // storage unit of DW_AT_byte_size bytes at the member location.
                    let storage = c
                        .udata(dw::DW_AT_byte_size)
                        .unwrap_or_else(|| mty.byte_size());
                    let bo = c.udata(dw::DW_AT_bit_offset).unwrap_or(0);
                    (offset * 8 + storage * 8).saturating_sub(bo + bits)
                };
                let unit_bytes = mty.byte_size().max(1);
                offset = bit_offset / 8 / unit_bytes * unit_bytes;
                bitfield = Some(Bitfield {
                    bit_offset,
                    bit_size: bits,
                });
            }
            // A virtual base is where the object's vtable says: keep its expression.
            if is_base
                && c.udata(dw::DW_AT_virtuality).is_some_and(|v| v != 0)
                && let Some(e) = c
                    .attr(dw::DW_AT_data_member_location)
                    .and_then(|v| v.exprloc_value())
            {
                cxx.virtual_bases
                    .push((members.len(), e.0.slice().to_vec()));
            }
            if is_base {
                cxx.base_access
                    .push((members.len(), access(c, default_access)));
            }
            if is_static
                && let Some(v) = c.attr(dw::DW_AT_const_value)
                && let Ok(b) = crate::location::const_bytes(file, c.unit, v, mty.byte_size())
            {
                cxx.static_consts.push((members.len(), b));
            }
            members.push(Member {
                name: c.name(file),
                ty: LazyType::ready(mty),
                offset,
                bitfield,
                is_static,
                is_base,
            });
            // gdb's dwarf2_add_field: an artificial member (the vtable pointer) is private.
            cxx.member_access.push(
                if c.tag == dw::DW_TAG_member && c.flag(dw::DW_AT_artificial) {
                    Access::Private
                } else {
                    access(c, default_access)
                },
            );
        }
        let kind = TypeKind::Aggregate {
            kind,
            members,
            declaration: false,
        };
        let size = size.map(|s| s.div_ceil(align) * align);
        Ok(if cplus {
            Type::new_cxx(name, size.unwrap_or(0), kind, cxx)
        } else {
            Type::new(name, size.unwrap_or(0), kind)
        })
    }

    /// A member function declaration (`DW_TAG_subprogram` child of a class).
    fn method(&self, c: &Die, default_access: Access) -> Option<Method> {
        let file = &*self.file;
        let name = c.name(file)?;
        let tree = read_tree(file, c.die_ref(file)?, 1).ok()?;
        let mut params = Vec::new();
        let mut varargs = false;
        let (mut is_const, mut is_volatile) = (false, false);
        let mut is_static = true;
        for (i, p) in tree.children.iter().enumerate() {
            match p.tag {
                dw::DW_TAG_formal_parameter if i == 0 && p.flag(dw::DW_AT_artificial) => {
                    // `this`: its pointee's qualifiers are the method's. Read from the
                    // DIEs: the class itself is being built.
                    is_static = false;
                    let mut d = p.reference(file, dw::DW_AT_type);
                    let mut past_pointer = false;
                    for _ in 0..8 {
                        let Some(die) = d.and_then(|r| read_die(file, r).ok()) else {
                            break;
                        };
                        match die.tag {
                            dw::DW_TAG_const_type if past_pointer => is_const = true,
                            dw::DW_TAG_volatile_type if past_pointer => is_volatile = true,
                            dw::DW_TAG_const_type | dw::DW_TAG_volatile_type => {}
                            dw::DW_TAG_pointer_type if !past_pointer => past_pointer = true,
                            _ => break,
                        }
                        d = die.reference(file, dw::DW_AT_type);
                    }
                }
                // gdb leaves out artificial parameters (a destructor's `__in_chrg`).
                dw::DW_TAG_formal_parameter if p.flag(dw::DW_AT_artificial) => {}
                dw::DW_TAG_formal_parameter => {
                    params.push(self.lazy(p.reference(file, dw::DW_AT_type)));
                }
                dw::DW_TAG_unspecified_parameters => varargs = true,
                _ => {}
            }
        }
        if c.has(dw::DW_AT_object_pointer) {
            is_static = false;
        }
        let ret = c
            .reference(file, dw::DW_AT_type)
            .map(|d| self.lazy(Some(d)));
        Some(Method {
            name,
            ret,
            params,
            varargs,
            is_const,
            is_volatile,
            is_static,
            // gdb's dwarf2_add_member_fn: virtual when the vtable slot is given (GCC gives
            // none for a virtual destructor, which gdb then shows without `virtual`).
            is_virtual: c.has(dw::DW_AT_vtable_elem_location),
            vtable_slot: match c.attr(dw::DW_AT_vtable_elem_location) {
                // `DW_OP_constu N`.
                Some(AttributeValue::Exprloc(e)) => {
                    let mut r = e.0;
                    match gimli::Reader::read_u8(&mut r) {
                        Ok(0x10) => gimli::Reader::read_uleb128(&mut r).ok(),
                        _ => None,
                    }
                }
                Some(v) => v.udata_value(),
                None => None,
            },
            artificial: c.flag(dw::DW_AT_artificial),
            access: access(c, default_access),
            linkage_name: c.string(file, dw::DW_AT_linkage_name),
        })
    }

    fn enumeration(&self, die: &Die, name: Option<String>, size: Option<u64>) -> Result<TypeRef> {
        let file = &*self.file;
        if die.flag(dw::DW_AT_declaration)
            && let Some(n) = &name
            && let Some(def) = self.index().type_die(TypeNs::Enum, n)
            && !def.declaration
            && Some(def.die) != die.die_ref(file)
        {
            return Ok(self.type_at(def.die));
        }
        let underlying = die.reference(file, dw::DW_AT_type).map(|d| self.type_at(d));
        let mut signed = match &underlying {
            Some(u) => u.is_signed(),
            None => die.udata(dw::DW_AT_encoding).is_some_and(|e| {
                matches!(base_encoding(e), Encoding::Signed | Encoding::SignedChar)
            }),
        };
        if underlying.is_none()
            && die.children.iter().any(|c| {
                matches!(c.attr(dw::DW_AT_const_value), Some(AttributeValue::Sdata(i)) if *i < 0)
            })
        {
            signed = true;
        }
        let mut enumerators = Vec::new();
        // C++: the enumerators of an `enum class` are named with the enum
        // (`phys::Bc::Wall`), those of a plain enum with the enum's scope (`phys::Green`).
        let prefix = if die.flag(dw::DW_AT_enum_class) {
            name.clone()
        } else if is_cplus_unit(file, die.unit) {
            file.die_scope(die.unit, die.offset)
        } else {
            None
        };
        for c in &die.children {
            if c.tag != dw::DW_TAG_enumerator {
                continue;
            }
            let (Some(n), Some(v)) = (c.name(file), c.attr(dw::DW_AT_const_value)) else {
                continue;
            };
            let n = match &prefix {
                Some(p) => format!("{p}::{n}"),
                None => n,
            };
            if let Some(v) = const_i64(v, signed) {
                enumerators.push((n, v));
            }
        }
        let size = size
            .or_else(|| underlying.as_ref().map(|u| u.byte_size()))
            .unwrap_or(4);
        Ok(Type::new(
            name,
            size,
            TypeKind::Enum {
                underlying,
                enumerators,
                signed,
                declaration: die.flag(dw::DW_AT_declaration),
            },
        ))
    }

    fn array(&self, die: &Die, enc: gimli::Encoding) -> Result<TypeRef> {
        let file = &*self.file;
        let element = self.target(die);
        let lang_lower = default_lower_bound(file, die.unit);
        let mut bounds = Vec::new();
        for c in &die.children {
            match c.tag {
                dw::DW_TAG_subrange_type => bounds.push(self.bound(c, enc, lang_lower)),
                dw::DW_TAG_enumeration_type => {
                    let t = self.type_at(c.die_ref(file).ok_or_else(|| {
                        DwarfError::Malformed("enumeration index outside its unit".into())
                    })?);
                    let n = match &t.kind {
                        TypeKind::Enum { enumerators, .. } => enumerators.len() as u64,
                        _ => 0,
                    };
                    bounds.push(Bound::Count(n));
                }
                _ => {}
            }
        }
        if bounds.is_empty() {
            bounds.push(Bound::Unknown);
        }
        // A GCC vector (one dimension of a known count).
        if die.flag(dw::DW_AT_GNU_vector)
            && let [Bound::Count(n)] = bounds.as_slice()
        {
            return Ok(Type::vector_of(element, *n));
        }
        let mut t = element;
        for b in bounds.into_iter().rev() {
            let size = match &b {
                Bound::Count(n) => t.byte_size().saturating_mul(*n),
                _ => 0,
            };
            t = Type::new(
                None,
                size,
                TypeKind::Array {
                    element: t,
                    bound: b,
                },
            );
        }
        Ok(t)
    }

    /// A property of an array (a bound, a stride, `DW_AT_data_location`…) as DWARF gives it.
    fn spec(&self, d: &Die, at: DwAt, enc: gimli::Encoding, signed: bool) -> Option<BoundSpec> {
        let v = d.attr(at)?;
        if let Some(n) = const_i64(v, signed) {
            return Some(BoundSpec::Const(n));
        }
        if let Some(e) = v.exprloc_value() {
            return Some(BoundSpec::Expr {
                expr: e.0.slice().to_vec(),
                encoding: encoding_info(enc),
            });
        }
        attr_die_ref(&self.file, d.unit, v).map(BoundSpec::Variable)
    }

    /// An array of a language whose arrays have lower bounds and descriptors (Fortran): every
    /// dimension kept in source order with its properties, resolved per object.
    fn dyn_array(&self, die: &Die, enc: gimli::Encoding) -> TypeRef {
        let file = &*self.file;
        let element = self.target(die);
        let mut dims = Vec::new();
        let mut generic = None;
        for c in &die.children {
            if c.tag == dw::DW_TAG_generic_subrange {
                generic = Some(DimSpec {
                    lower: self.spec(c, dw::DW_AT_lower_bound, enc, true),
                    upper: self.spec(c, dw::DW_AT_upper_bound, enc, true),
                    count: self.spec(c, dw::DW_AT_count, enc, false),
                    byte_stride: self.spec(c, dw::DW_AT_byte_stride, enc, true),
                });
                continue;
            }
            if c.tag != dw::DW_TAG_subrange_type {
                continue;
            }
            let signed = c
                .reference(file, dw::DW_AT_type)
                .is_none_or(|d| self.type_at(d).is_signed());
            let byte_stride = self
                .spec(c, dw::DW_AT_byte_stride, enc, true)
                .or_else(|| match self.spec(c, dw::DW_AT_bit_stride, enc, true) {
                    Some(BoundSpec::Const(b)) => Some(BoundSpec::Const(b / 8)),
                    other => other,
                });
            dims.push(DimSpec {
                lower: self.spec(c, dw::DW_AT_lower_bound, enc, signed),
                upper: self.spec(c, dw::DW_AT_upper_bound, enc, signed),
                count: self.spec(c, dw::DW_AT_count, enc, false),
                byte_stride,
            });
        }
        let spec = ArraySpec {
            element,
            dims,
            default_lower: default_lower_bound(file, die.unit),
            column_major: die
                .udata(dw::DW_AT_ordering)
                .is_none_or(|o| o == u64::from(dw::DW_ORD_col_major.0)),
            data_location: self.spec(die, dw::DW_AT_data_location, enc, false),
            allocated: self.spec(die, dw::DW_AT_allocated, enc, false),
            associated: self.spec(die, dw::DW_AT_associated, enc, false),
            rank: self.spec(die, dw::DW_AT_rank, enc, false),
            generic,
        };
        // The size of the object itself: the descriptor's when the data is elsewhere, the
        // elements' when every bound is constant.
        let size = die.udata(dw::DW_AT_byte_size).unwrap_or_else(|| {
            if spec.data_location.is_some() {
                return 0;
            }
            let mut n = spec.element.byte_size();
            for d in &spec.dims {
                let lower = match &d.lower {
                    Some(BoundSpec::Const(l)) => *l,
                    None => spec.default_lower,
                    _ => return 0,
                };
                let count = match (&d.count, &d.upper) {
                    (Some(BoundSpec::Const(c)), _) => *c,
                    (None, Some(BoundSpec::Const(u))) => u - lower + 1,
                    _ => return 0,
                };
                n = n.saturating_mul(count.max(0) as u64);
            }
            n
        });
        Type::new(None, size, TypeKind::DynArray(Box::new(spec)))
    }

    /// `DW_TAG_string_type` (Fortran `character(len=…)`): an array of characters, its length
    /// constant (`DW_AT_byte_size`) or known at run time (`DW_AT_string_length`).
    fn string_type(&self, die: &Die, enc: gimli::Encoding, size: Option<u64>) -> TypeRef {
        let file = &*self.file;
        let kind = die
            .reference(file, dw::DW_AT_type)
            .map(|d| self.type_at(d))
            .filter(|t| t.byte_size() > 0);
        // No element type: `DW_AT_encoding` `DW_ATE_UCS` is `character(kind=4)` (flang).
        let ucs = die.udata(dw::DW_AT_encoding) == Some(u64::from(dw::DW_ATE_UCS.0));
        let element = kind.unwrap_or_else(|| {
            if ucs {
                Type::base("character(kind=4)", 4, Encoding::UnsignedChar)
            } else {
                Type::base("character(kind=1)", 1, Encoding::UnsignedChar)
            }
        });
        let data_location = self.spec(die, dw::DW_AT_data_location, enc, false);
        if let Some(len) = self.spec(die, dw::DW_AT_string_length, enc, false) {
            return Type::new(
                None,
                0,
                TypeKind::DynString {
                    element,
                    length: len,
                    data_location,
                },
            );
        }
        let n = size.unwrap_or(0) / element.byte_size().max(1);
        Type::new(
            None,
            size.unwrap_or(0),
            TypeKind::DynString {
                element,
                length: BoundSpec::Const(n as i64),
                data_location,
            },
        )
    }

    fn bound(&self, c: &Die, enc: gimli::Encoding, lang_lower: i64) -> Bound {
        let file = &*self.file;
        // Like gdb, a `DW_FORM_dataN` bound is sign-extended only when the index type is
        // signed (gcc writes C's `char a[250]` upper bound 249 as data1, index `sizetype`).
        let signed = c
            .reference(file, dw::DW_AT_type)
            .is_none_or(|d| self.type_at(d).is_signed());
        let lower = c
            .attr(dw::DW_AT_lower_bound)
            .and_then(|v| const_i64(v, signed))
            .unwrap_or(lang_lower);
        let dynamic = |v: &AttributeValue<R>, is_count: bool| -> Option<Bound> {
            if let Some(e) = v.exprloc_value() {
                return Some(Bound::Dynamic(DynamicBound::Expr {
                    expr: e.0.slice().to_vec(),
                    encoding: encoding_info(enc),
                    is_count,
                }));
            }
            attr_die_ref(file, c.unit, v)
                .map(|die| Bound::Dynamic(DynamicBound::Variable { die, is_count }))
        };
        if let Some(v) = c.attr(dw::DW_AT_count) {
            if let Some(n) = const_i64(v, false) {
                return Bound::Count(n.max(0) as u64);
            }
            return dynamic(v, true).unwrap_or(Bound::Unknown);
        }
        if let Some(v) = c.attr(dw::DW_AT_upper_bound) {
            if let Some(u) = const_i64(v, signed) {
                // gcc writes `int a[0]` as upper bound -1 (data8 all ones).
                let n = u.saturating_sub(lower).saturating_add(1);
                return Bound::Count(n.max(0) as u64);
            }
            return dynamic(v, false).unwrap_or(Bound::Unknown);
        }
        Bound::Unknown
    }

    /// A type as C spells it; see [`lookup_type`].
    pub fn lookup(&self, spelled: &str) -> Option<TypeRef> {
        let s = spelled.trim();
        if let Some(inner) = s.strip_suffix('*') {
            let t = self.lookup(inner)?;
            return Some(Type::pointer_to(t, 8));
        }
        let words: Vec<&str> = s.split_whitespace().collect();
        let (ns, rest) = match words.first() {
            Some(&"struct") => (TypeNs::Struct, &words[1..]),
            Some(&"union") => (TypeNs::Union, &words[1..]),
            Some(&"enum") => (TypeNs::Enum, &words[1..]),
            Some(&"class") => (TypeNs::Class, &words[1..]),
            _ => (TypeNs::Ordinary, &words[..]),
        };
        if ns == TypeNs::Ordinary
            && let Some(t) = c_base_type(rest)
        {
            return Some(t);
        }
        // A C++ template name has spaces of its own (`std::map<int, double>`).
        let joined;
        let name = match rest {
            [name] => *name,
            [first, ..] if first.contains('<') => {
                joined = rest.join(" ");
                joined.as_str()
            }
            _ => return None,
        };
        let canonical = crate::canon::canonical_cxx_name(name);
        let named = self
            .index()
            .type_die(ns, name)
            .or_else(|| self.index().type_die(ns, &canonical))
            .or_else(|| {
                // C++ writes `struct x` as a class and vice versa.
                match ns {
                    TypeNs::Struct => self.index().type_die(TypeNs::Class, name),
                    TypeNs::Class => self.index().type_die(TypeNs::Struct, name),
                    _ => None,
                }
            });
        match named {
            Some(n) => Some(self.type_at(n.die)),
            None => self.nested_type_die(name, 0).map(|d| self.type_at(d)),
        }
    }

    /// A type declared inside a class (`Outer::size_type`, `Outer::Inner`): found among the
    /// members of the class that names its scope.
    fn nested_type_die(&self, name: &str, depth: usize) -> Option<DieRef> {
        if depth > 8 {
            return None;
        }
        // The last `::` outside template arguments.
        let mut level = 0i32;
        let mut split = None;
        let b = name.as_bytes();
        for i in 0..b.len() {
            match b[i] {
                b'<' => level += 1,
                b'>' => level -= 1,
                b':' if level == 0 && b.get(i + 1) == Some(&b':') => split = Some(i),
                _ => {}
            }
        }
        let i = split?;
        let (scope, member) = (&name[..i], &name[i + 2..]);
        let class = [TypeNs::Struct, TypeNs::Class, TypeNs::Union]
            .iter()
            .find_map(|ns| self.index().type_die(*ns, scope))
            .map(|n| n.die)
            .or_else(|| self.nested_type_die(scope, depth + 1))?;
        let (ui, off) = locate(&self.file, class).ok()?;
        let tree = read_tree_at(&self.file, ui, Some(off), 1).ok()?;
        tree.children
            .iter()
            .filter(|c| {
                matches!(
                    c.tag,
                    dw::DW_TAG_typedef
                        | dw::DW_TAG_structure_type
                        | dw::DW_TAG_class_type
                        | dw::DW_TAG_union_type
                        | dw::DW_TAG_enumeration_type
                )
            })
            .find(|c| c.name(&self.file).as_deref() == Some(member))
            .and_then(|c| c.die_ref(&self.file))
    }
}

/// `DW_AT_accessibility` of a member, or the default of its aggregate.
fn access(c: &Die, default: Access) -> Access {
    match c
        .udata(dw::DW_AT_accessibility)
        .map(|a| gimli::DwAccess(a as u8))
    {
        Some(dw::DW_ACCESS_public) => Access::Public,
        Some(dw::DW_ACCESS_protected) => Access::Protected,
        Some(dw::DW_ACCESS_private) => Access::Private,
        _ => default,
    }
}

/// A C++ class or typedef name as gdb shows it (`crate::canon`): template arguments in
/// its canonical spelling (clang's `std::pair<const int, int>` is `std::pair<int const,
/// int>`).
fn cxx_canonical(file: &DebugFile, die: &Die, name: Option<String>) -> Option<String> {
    match name {
        Some(n) if n.contains('<') && is_cplus_unit(file, die.unit) => {
            Some(crate::canon::canonical_cxx_name(&n).into_owned())
        }
        n => n,
    }
}

/// Whether unit `ui` is C++ (`DW_AT_language` of its root).
pub fn is_cplus_unit(file: &DebugFile, ui: usize) -> bool {
    let Ok(root) = read_tree_at(file, ui, None, 0) else {
        return false;
    };
    matches!(
        root.udata(dw::DW_AT_language)
            .map(|l| gimli::DwLang(l as u16)),
        Some(
            dw::DW_LANG_C_plus_plus
                | dw::DW_LANG_C_plus_plus_03
                | dw::DW_LANG_C_plus_plus_11
                | dw::DW_LANG_C_plus_plus_14
        )
    )
}

/// Derived types declared in a Fortran procedure (flang-22 puts a module's types used by the
/// main program inside the program's DIE): by name, as gdb finds them from that scope.
fn fortran_procedure_types(file: &DebugFile, ui: usize, root: &Die, idx: &mut TopIndex) {
    for p in root
        .children
        .iter()
        .filter(|d| d.tag == dw::DW_TAG_subprogram)
    {
        let Ok(full) = read_tree_at(file, ui, Some(p.offset), 1) else {
            continue;
        };
        for d in full
            .children
            .iter()
            .filter(|d| d.tag == dw::DW_TAG_structure_type)
        {
            let (Some(name), Some(die)) = (d.name(file), d.die_ref(file)) else {
                continue;
            };
            idx.types
                .entry((TypeNs::Struct, name))
                .or_default()
                .push(Named {
                    die,
                    unit: ui,
                    declaration: d.flag(dw::DW_AT_declaration),
                    external: false,
                });
        }
    }
}

/// Lower bound of arrays in the unit's language (0 for C, 1 for Fortran).
/// Whether unit `ui` is assembler source (`DW_LANG_Mips_Assembler`, as GNU as writes it).
fn is_assembler_unit(file: &DebugFile, ui: usize) -> bool {
    read_tree_at(file, ui, None, 0).is_ok_and(|root| {
        root.udata(dw::DW_AT_language) == Some(u64::from(dw::DW_LANG_Mips_Assembler.0))
    })
}

fn default_lower_bound(file: &DebugFile, ui: usize) -> i64 {
    let Ok(root) = read_tree_at(file, ui, None, 0) else {
        return 0;
    };
    match root
        .udata(dw::DW_AT_language)
        .map(|l| gimli::DwLang(l as u16))
    {
        Some(
            dw::DW_LANG_Fortran77
            | dw::DW_LANG_Fortran90
            | dw::DW_LANG_Fortran95
            | dw::DW_LANG_Fortran03
            | dw::DW_LANG_Fortran08
            | dw::DW_LANG_Ada83
            | dw::DW_LANG_Ada95
            | dw::DW_LANG_Pascal83
            | dw::DW_LANG_Modula2
            | dw::DW_LANG_Cobol74
            | dw::DW_LANG_Cobol85,
        ) => 1,
        _ => 0,
    }
}

/// The builtin C type named by keywords (`unsigned long`, `short int`, `long double`…), named
/// as gdb names it; `None` when the words are not such a spelling.
pub fn c_base_type(words: &[&str]) -> Option<TypeRef> {
    if words.is_empty() {
        return None;
    }
    let (mut signed, mut unsigned, mut short, mut long) = (false, false, false, 0);
    let mut base: Option<&str> = None;
    for w in words {
        match *w {
            "signed" => signed = true,
            "unsigned" => unsigned = true,
            "short" => short = true,
            "long" => long += 1,
            "int" | "char" | "float" | "double" => {
                if base.is_some() {
                    return None;
                }
                base = Some(w);
            }
            _ => return None,
        }
    }
    if signed && unsigned || short && long > 0 || long > 2 {
        return None;
    }
    let t = match base {
        Some("char") if !short && long == 0 => {
            if unsigned {
                Type::base("unsigned char", 1, Encoding::UnsignedChar)
            } else if signed {
                Type::base("signed char", 1, Encoding::SignedChar)
            } else {
                Type::base("char", 1, Encoding::SignedChar)
            }
        }
        Some("float") if !short && long == 0 && !signed && !unsigned => {
            Type::base("float", 4, Encoding::Float)
        }
        Some("double") if !short && !signed && !unsigned && long <= 1 => {
            if long == 1 {
                Type::base("long double", 16, Encoding::Float)
            } else {
                Type::base("double", 8, Encoding::Float)
            }
        }
        None | Some("int") => {
            let (n, size) = if short {
                ("short", 2)
            } else if long == 2 {
                ("long long", 8)
            } else if long == 1 {
                ("long", 8)
            } else {
                ("int", 4)
            };
            if unsigned {
                Type::base(&format!("unsigned {n}"), size, Encoding::Unsigned)
            } else {
                Type::base(n, size, Encoding::Signed)
            }
        }
        _ => return None,
    };
    Some(t)
}
