//! The name index of one binary: functions, global variables and types by name, and the
//! function containing a pc. Built on first query by walking only the top-level DIEs of each
//! unit (children of the unit, and of namespaces and classes), skipping subtrees through
//! `DW_AT_sibling`; types are not built.
//!
//! What needs a unit's whole DIE tree (inlined copies of functions, lexical blocks, whether the
//! unit has location lists) is gathered per unit, once, the first time it is asked for
//! ([`UnitFacts`]).

use std::collections::HashMap;
use std::path::PathBuf;

use gimli::{AttributeValue, DwTag, Unit, UnitOffset, constants};

use crate::R;
use crate::error::{DwarfError, Result};
use crate::loader::DebugFile;

/// One function: an out-of-line copy (`DW_TAG_subprogram` with code) or an inlined copy
/// (`DW_TAG_inlined_subroutine`). All addresses are link-time addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionEntry {
    pub name: String,
    /// Borrowed from the mapped `.debug_str` (which lives as long as the process): a large
    /// C++ program's mangled names are most of its strings.
    pub linkage_name: Option<&'static str>,
    pub unit: usize,
    /// The DIE of this copy (the subprogram, or the inlined subroutine).
    pub offset: UnitOffset,
    /// The abstract DIE (`DW_AT_abstract_origin`) of a concrete or inlined copy.
    pub origin: Option<UnitOffset>,
    /// Code ranges in the order the DWARF lists them (the first one's start is the entry pc,
    /// as gdb takes it). Empty for a function without code.
    pub ranges: Vec<(u64, u64)>,
    /// Declaration file (its number in the unit's line program: [`DebugFile::decl_path`]
    /// gives its path; kept as a number so that indexing reads no line table) and line.
    pub decl_file: Option<u64>,
    pub decl_line: u32,
    /// `DW_AT_external`: visible outside its unit.
    pub external: bool,
    /// `DW_AT_inline` on the function (or its abstract origin): the compiler inlined it
    /// somewhere, or it was declared inline.
    pub inline: bool,
    /// This entry is an inlined copy (`DW_TAG_inlined_subroutine`).
    pub inlined_copy: bool,
}

impl FunctionEntry {
    /// Address gdb treats as the function's start (`BLOCK_ENTRY_PC`).
    pub fn entry_pc(&self) -> Option<u64> {
        self.ranges.first().map(|r| r.0)
    }

    /// Lowest address of the code.
    pub fn low_pc(&self) -> Option<u64> {
        self.ranges.iter().map(|r| r.0).min()
    }

    /// One past the highest address of the code.
    pub fn high_pc(&self) -> Option<u64> {
        self.ranges.iter().map(|r| r.1).max()
    }

    pub fn contains(&self, pc: u64) -> bool {
        self.ranges.iter().any(|r| r.0 <= pc && pc < r.1)
    }
}

/// A global or file-static variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableEntry {
    /// Borrowed from the mapped sections where it can be.
    pub name: std::borrow::Cow<'static, str>,
    pub linkage_name: Option<&'static str>,
    pub unit: usize,
    pub offset: UnitOffset,
    /// See [`FunctionEntry::decl_file`].
    pub decl_file: Option<u64>,
    pub decl_line: u32,
    pub external: bool,
}

/// A named type DIE at the top level of a unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeEntry {
    /// Borrowed from the mapped sections where it can be (half a million types in a large C++
    /// program).
    pub name: std::borrow::Cow<'static, str>,
    /// `DW_TAG_structure_type`, `union_type`, `enumeration_type`, `typedef` or `base_type`.
    pub tag: DwTag,
    pub unit: usize,
    pub offset: UnitOffset,
    /// See [`FunctionEntry::decl_file`].
    pub decl_file: Option<u64>,
    pub decl_line: u32,
}

/// Entries of one source file for `info functions/variables/types`, as gdb groups them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileGroup<T> {
    /// The file as gdb prints it in `File foo.c:` (the name the unit records).
    pub file: String,
    pub entries: Vec<T>,
}

/// The name index of a [`DebugFile`].
#[derive(Default)]
pub struct NameIndex {
    functions: Vec<Func>,
    /// The code ranges after the first of functions that have several ([`Func::more`]).
    more_ranges: Vec<Box<[(u64, u64)]>>,
    function_names: Names,
    /// Abstract functions (`DW_AT_inline`, no code) by name: (unit, DIE).
    abstract_functions: HashMap<String, Vec<(usize, UnitOffset)>>,
    variables: Vec<VariableEntry>,
    variable_names: Names,
    types: Vec<TypeEntry>,
    type_names: Names,
    /// (low, high, function) for every code range of every out-of-line function, by low.
    by_address: Vec<(u64, u64, usize)>,
    /// C++ scope (`ns::Class`) of every subprogram DIE declared inside a class, struct or
    /// namespace: (unit, DIE) → scope.
    /// Sorted by DIE ((unit << 40) | offset): DIEs are met in that order, and a sorted vector
    /// costs a third of a hash map's memory for the million members of a large C++ program.
    scopes: Vec<(u64, u32)>,
    /// The distinct scopes `scopes` refers to (a class's members share its scope's string).
    scope_names: Vec<Box<str>>,
    /// While building: scope by the hash of its name (`scope_names` holds the name once), and
    /// the rare scope whose hash another already has.
    scope_ids: HashMap<u64, u32>,
    scope_clashes: HashMap<Box<str>, u32>,
    last_scope: Option<u32>,
}

/// "None" in the 32-bit fields of [`Func`].
const NONE32: u32 = u32::MAX;

/// A function as the index keeps it, about 100 bytes: its qualified name as an interned scope
/// and its own name borrowed from the mapped sections (a large C++ program's qualified names,
/// each a copy of its class's templated name, took more memory than all the rest of the
/// index). [`FunctionEntry`] is built from it when asked for.
struct Func {
    /// `DW_AT_name` (through origin / specification).
    name: std::borrow::Cow<'static, str>,
    linkage_name: Option<&'static str>,
    /// The first code range (the entry pc's).
    first: (u64, u64),
    /// Index in [`NameIndex::more_ranges`] of the other ranges, `NONE32` when there are none.
    more: u32,
    /// Index in [`NameIndex::scope_names`], `NONE32` at the top level.
    scope: u32,
    /// Unit and DIE ([`scope_key`]).
    die: u64,
    /// `DW_AT_abstract_origin`'s offset, `u64::MAX` when none.
    origin: u64,
    /// `NONE32` when none.
    decl_file: u32,
    decl_line: u32,
    external: bool,
    inline: bool,
}

/// How much `.debug_info` an index walks before the pages it touched are released.
const WALK_RELEASE: usize = 32 << 20;

/// A DIE as one number: its unit above its offset (offsets stay under 2^40).
fn scope_key(ui: usize, off: UnitOffset) -> u64 {
    ((ui as u64) << 40) | (off.0 as u64 & ((1 << 40) - 1))
}

impl NameIndex {
    /// Record that DIE `off` of unit `ui` is declared in `scope`.
    fn set_scope(&mut self, ui: usize, off: UnitOffset, scope: &str) {
        // The members of one class come one after another with the same scope: comparing is
        // cheaper than hashing its (long, templated) name again.
        let id = match self.last_scope {
            Some(id)
                if self
                    .scope_names
                    .get(id as usize)
                    .is_some_and(|l| **l == *scope) =>
            {
                id
            }
            _ => {
                let id = self.scope_id(scope);
                self.last_scope = Some(id);
                id
            }
        };
        let key = scope_key(ui, off);
        match self.scopes.last() {
            Some(last) if last.0 >= key => match self.scopes.binary_search_by_key(&key, |e| e.0) {
                Ok(i) => self.scopes[i].1 = id,
                Err(i) => self.scopes.insert(i, (key, id)),
            },
            _ => self.scopes.push((key, id)),
        }
    }

    /// The number of scope `scope`, interned now if it is new.
    fn scope_id(&mut self, scope: &str) -> u32 {
        let h = Names::hash(scope);
        let next = u32::try_from(self.scope_names.len()).unwrap_or(NONE32);
        match self.scope_ids.get(&h) {
            Some(&id)
                if self
                    .scope_names
                    .get(id as usize)
                    .is_some_and(|n| **n == *scope) =>
            {
                id
            }
            Some(_) => {
                if let Some(&id) = self.scope_clashes.get(scope) {
                    return id;
                }
                self.scope_names.push(scope.into());
                self.scope_clashes.insert(scope.into(), next);
                next
            }
            None => {
                self.scope_names.push(scope.into());
                self.scope_ids.insert(h, next);
                next
            }
        }
    }

    /// The number of the scope DIE `off` of unit `ui` is declared in.
    fn scope_id_of(&self, ui: usize, off: UnitOffset) -> Option<u32> {
        let key = scope_key(ui, off);
        let i = self.scopes.binary_search_by_key(&key, |e| e.0).ok()?;
        self.scopes.get(i).map(|e| e.1)
    }

    /// The qualified name of function `f`.
    fn func_name(&self, f: &Func) -> String {
        match self.scope_names.get(f.scope as usize) {
            Some(s) => format!("{s}::{}", f.name),
            None => f.name.to_string(),
        }
    }

    /// Function `i` as callers see it.
    fn entry(&self, i: usize) -> Option<FunctionEntry> {
        let f = self.functions.get(i)?;
        let mut ranges = vec![f.first];
        if let Some(more) = self.more_ranges.get(f.more as usize) {
            ranges.extend_from_slice(more);
        }
        let mask = (1u64 << 40) - 1;
        Some(FunctionEntry {
            name: self.func_name(f),
            linkage_name: f.linkage_name,
            unit: (f.die >> 40) as usize,
            offset: UnitOffset((f.die & mask) as usize),
            origin: (f.origin != u64::MAX).then_some(UnitOffset(f.origin as usize)),
            ranges,
            decl_file: (f.decl_file != NONE32).then_some(u64::from(f.decl_file)),
            decl_line: f.decl_line,
            external: f.external,
            inline: f.inline,
            inlined_copy: false,
        })
    }

    /// Whether function `i`'s name of kind `kind` ([`function_key`]) is `name`.
    fn function_is(&self, i: usize, kind: u8, name: &str) -> bool {
        let Some(f) = self.functions.get(i) else {
            return false;
        };
        if kind == 2 && f.linkage_name != Some(name) {
            return false;
        }
        let q = self.func_name(f);
        function_key(&q, f.linkage_name, kind) == Some(name)
    }

    /// The scope DIE `off` of unit `ui` is declared in.
    fn scope_of(&self, ui: usize, off: UnitOffset) -> Option<&str> {
        let id = self.scope_id_of(ui, off)?;
        self.scope_names.get(id as usize).map(|s| &**s)
    }
}

/// Names to entries without copies of the names: (hash of a name, entry, which of the entry's
/// names) sorted, each hit checked against the entry itself. An index of a large C++ program
/// has about a million keys (every function by its qualified, unqualified, template-less and
/// linkage names): as strings they took more memory than everything else in it.
#[derive(Default)]
struct Names {
    keys: Vec<(u64, u32, u8)>,
}

impl Names {
    fn hash(name: &str) -> u64 {
        cohort_engine::symbols::name_hash(name)
    }

    fn add(&mut self, name: &str, entry: usize, kind: u8) {
        if let Ok(e) = u32::try_from(entry) {
            self.keys.push((Self::hash(name), e, kind));
        }
    }

    fn seal(&mut self) {
        self.keys.sort_unstable();
        self.keys.shrink_to_fit();
    }

    /// The entries, in order, with a name `name`: `is` says whether entry `i`'s name of kind
    /// `kind` really is `name` (not another with the same hash).
    fn get<'a>(
        &'a self,
        name: &str,
        is: impl Fn(usize, u8) -> bool + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        let h = Self::hash(name);
        let from = self.keys.partition_point(|k| k.0 < h);
        self.keys[from..]
            .iter()
            .take_while(move |k| k.0 == h)
            .filter(move |k| is(k.1 as usize, k.2))
            .map(|k| k.1 as usize)
    }
}

/// How many names [`function_key`] gives a function.
const FUNCTION_KEYS: u8 = 5;

/// A function's names `break` finds it by: 0 its (qualified) name; 1 without its scope
/// (`break add` finds `Counter::add`, as gdb's wild matching does); 2 its linkage name; 3 and
/// 4 without template arguments, with and without its scope (`break twice` finds `twice<int>`
/// and `twice<double>`, as gdb 13 does). `None` where that name is the same as an earlier one.
fn function_key<'a>(name: &'a str, linkage_name: Option<&'a str>, kind: u8) -> Option<&'a str> {
    match kind {
        0 => Some(name),
        1 => unqualified(name).filter(|b| *b != name),
        2 => linkage_name.filter(|l| *l != name),
        3 => without_template_args(name),
        4 => without_template_args(name).and_then(|p| unqualified(p).filter(|b| *b != p)),
        _ => None,
    }
}

/// One block of a unit's code: a function, an inlined copy, or a lexical block that gdb keeps
/// (one with symbols of its own).
#[derive(Debug, Clone)]
pub struct BlockInfo {
    pub ranges: Vec<(u64, u64)>,
    pub depth: u32,
    pub kind: BlockKind,
    /// The block's DIE.
    pub offset: UnitOffset,
    /// Index of the enclosing block in [`UnitFacts::blocks`].
    pub parent: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    /// An out-of-line function.
    Function,
    /// An inlined copy of the function whose abstract DIE is `origin`.
    Inlined {
        origin: UnitOffset,
        /// The call site (`DW_AT_call_file`/`DW_AT_call_line`): gdb's line for the inlined
        /// function's symbol.
        call_line: u32,
        call_file: Option<PathBuf>,
    },
    Lexical,
}

/// What one walk over a whole unit tells.
#[derive(Debug, Default)]
pub struct UnitFacts {
    /// `DW_AT_producer` of the unit.
    pub producer: String,
    /// Some variable, parameter or frame base has a location list (gdb's `has_loclist`).
    pub has_loclist: bool,
    /// Blocks in DIE order (parents before children).
    pub blocks: Vec<BlockInfo>,
    /// The unit's error, when its DIEs could not be read.
    pub error: Option<String>,
}

impl UnitFacts {
    /// gdb's `locations_valid`: GCC ≥ 4.5 code with location lists, where gdb trusts the
    /// function's first address and does not skip a prologue.
    pub fn locations_valid(&self) -> bool {
        self.has_loclist && producer_is_gcc_ge_4_5(&self.producer)
    }

    /// Innermost block containing `pc`.
    pub fn block_for_pc(&self, pc: u64) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, b) in self.blocks.iter().enumerate() {
            if b.ranges.iter().any(|r| r.0 <= pc && pc < r.1)
                && best.is_none_or(|j| self.blocks.get(j).is_none_or(|bj| b.depth > bj.depth))
            {
                best = Some(i);
            }
        }
        best
    }

    /// Innermost function block (out-of-line or inlined) at or above block `b`.
    pub fn containing_function(&self, mut b: usize) -> Option<usize> {
        loop {
            let blk = self.blocks.get(b)?;
            if blk.kind != BlockKind::Lexical {
                return Some(b);
            }
            b = blk.parent?;
        }
    }
}

/// GNU producers from 4.5 on (`GNU C17 12.2.0 …`); not clang.
fn producer_is_gcc_ge_4_5(producer: &str) -> bool {
    if !producer.starts_with("GNU ") || producer.contains("clang") {
        return false;
    }
    // The version is the first word that starts with a digit.
    let Some(ver) = producer
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
    else {
        return false;
    };
    let mut it = ver.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let major = it.next().unwrap_or(0);
    let minor = it.next().unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
}

/// Attributes of a DIE that the index reads, its origin and specification merged in.
#[derive(Default)]
struct DieFacts {
    /// Borrowed from the mapped sections where it is valid UTF-8 (no copy per DIE walked).
    name: Option<std::borrow::Cow<'static, str>>,
    linkage_name: Option<&'static str>,
    decl_file: Option<u64>,
    decl_line: u32,
    external: bool,
    declaration: bool,
    inline: bool,
    origin: Option<UnitOffset>,
    /// The DIEs reached through `DW_AT_abstract_origin` / `DW_AT_specification`, in order.
    chain: Vec<UnitOffset>,
}

impl DebugFile {
    fn attr_str(&self, unit: &Unit<R>, v: AttributeValue<R>) -> Option<String> {
        self.dwarf
            .attr_string(unit, v)
            .ok()
            .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
    }

    /// Name, linkage name, declaration and flags of a DIE, following `DW_AT_abstract_origin`
    /// and `DW_AT_specification` (within the unit) for what the DIE itself lacks.
    fn die_facts(&self, unit: &Unit<R>, off: UnitOffset, depth: u32) -> DieFacts {
        let mut f = DieFacts::default();
        let Ok(entry) = unit.entry(off) else {
            return f;
        };
        let mut follow = None;
        let mut attrs = entry.attrs();
        while let Ok(Some(a)) = attrs.next() {
            match a.name() {
                constants::DW_AT_name => {
                    f.name = self
                        .dwarf
                        .attr_string(unit, a.value())
                        .ok()
                        .map(|s| String::from_utf8_lossy(s.slice()))
                }
                constants::DW_AT_linkage_name | constants::DW_AT_MIPS_linkage_name => {
                    f.linkage_name = self
                        .dwarf
                        .attr_string(unit, a.value())
                        .ok()
                        .and_then(|s| std::str::from_utf8(s.slice()).ok())
                }
                constants::DW_AT_decl_file => f.decl_file = a.udata_value(),
                constants::DW_AT_decl_line => {
                    f.decl_line = a.udata_value().unwrap_or(0).try_into().unwrap_or(0)
                }
                constants::DW_AT_external => f.external = flag(&a.value()),
                constants::DW_AT_declaration => f.declaration = flag(&a.value()),
                constants::DW_AT_inline => {
                    f.inline = matches!(a.value(), AttributeValue::Inline(i)
                        if i == constants::DW_INL_inlined || i == constants::DW_INL_declared_inlined)
                }
                constants::DW_AT_abstract_origin => {
                    if let AttributeValue::UnitRef(o) = a.value() {
                        f.origin = Some(o);
                        follow = Some(o);
                    }
                }
                constants::DW_AT_specification => {
                    if let AttributeValue::UnitRef(o) = a.value() {
                        follow = follow.or(Some(o));
                    }
                }
                _ => {}
            }
        }
        if let Some(o) = follow
            && depth < 4
        {
            let g = self.die_facts(unit, o, depth + 1);
            f.chain.push(o);
            f.chain.extend(g.chain);
            f.name = f.name.or(g.name);
            f.linkage_name = f.linkage_name.or(g.linkage_name);
            if f.decl_file.is_none() {
                f.decl_file = g.decl_file;
                f.decl_line = g.decl_line;
            }
            f.external |= g.external;
            f.inline |= g.inline;
        }
        f
    }

    /// Full path of file `index` of unit `ui`'s line program.
    pub fn decl_path(&self, ui: usize, index: Option<u64>) -> Option<PathBuf> {
        let lines = self.unit_lines(ui).ok()?;
        lines.file_by_index(index?).map(|s| s.full.clone())
    }

    fn die_code_ranges(&self, unit: &Unit<R>, off: UnitOffset) -> Vec<(u64, u64)> {
        let Ok(entry) = unit.entry(off) else {
            return Vec::new();
        };
        self.entry_ranges(unit, &entry)
    }

    /// The name index, built now if it was not yet.
    pub fn name_index(&self) -> &NameIndex {
        self.index.get_or_init(|| self.build_index())
    }

    fn build_index(&self) -> NameIndex {
        let mut ix = NameIndex::default();
        let mut walked = 0usize;
        for ui in 0..self.units.len() {
            let Ok(unit) = self.unit(ui) else { continue };
            if let Err(e) = self.index_unit(&mut ix, ui, unit) {
                tracing::warn!("{}: unit {ui}: {e}", self.dwarf_path.display());
            }
            walked += unit.header.length_including_self();
            if walked > WALK_RELEASE {
                self.release_walked_pages();
                walked = 0;
            }
        }

        ix.scope_ids = HashMap::new();
        ix.scope_clashes = HashMap::new();
        ix.functions.shrink_to_fit();
        ix.scopes.shrink_to_fit();
        ix.scope_names.shrink_to_fit();
        let mut keys = std::mem::take(&mut ix.function_names);
        let mut by_address = Vec::new();
        for (i, f) in ix.functions.iter().enumerate() {
            if i % 65536 == 65535 {
                self.release_walked_pages();
            }
            let name = ix.func_name(f);
            for kind in 0..FUNCTION_KEYS {
                if let Some(k) = function_key(&name, f.linkage_name, kind) {
                    keys.add(k, i, kind);
                }
            }
            by_address.push((f.first.0, f.first.1, i));
            if let Some(more) = ix.more_ranges.get(f.more as usize) {
                by_address.extend(more.iter().map(|r| (r.0, r.1, i)));
            }
        }
        ix.function_names = keys;
        ix.by_address = by_address;
        ix.function_names.seal();
        ix.by_address.sort_unstable();
        for (i, v) in ix.variables.iter().enumerate() {
            ix.variable_names.add(&v.name, i, 0);
        }
        ix.variable_names.seal();
        for (i, t) in ix.types.iter().enumerate() {
            // (The names are read from `.debug_str` again.)
            if i % 65536 == 65535 {
                self.release_walked_pages();
            }
            ix.type_names.add(&t.name, i, 0);
        }
        ix.type_names.seal();
        // (After the keys: hashing the linkage names reads them from `.debug_str` again.)
        if walked > 0 {
            self.release_walked_pages();
        }
        ix
    }

    fn index_unit(&self, ix: &mut NameIndex, ui: usize, unit: &Unit<R>) -> Result<()> {
        let mut tree = unit.entries_tree(None)?;
        let root = tree.root()?;
        self.index_children(ix, ui, unit, root, 0, "")
    }

    /// The C++ name of subprogram `off`: its name qualified with the scope of its declaration
    /// (found through its origin / specification chain), else with the scope it is in.
    /// A function local to another (a member of a local class, clang's lambda) is named as
    /// gdb demangles its linkage name: `main::$_0::operator()`, `f(int)::Local::get`.
    fn qualify(ix: &NameIndex, ui: usize, off: UnitOffset, f: &DieFacts, name: String) -> String {
        if let Some(local) = Self::local_name(f) {
            return local;
        }
        match ix.scope_names.get(Self::scope_for(ix, ui, off, f) as usize) {
            Some(s) => format!("{s}::{name}"),
            None => name,
        }
    }

    /// The name gdb gives a function local to another (a member of a local class, clang's
    /// lambda): its demangled linkage name.
    fn local_name(f: &DieFacts) -> Option<String> {
        f.linkage_name
            .filter(|l| l.starts_with("_ZZ"))
            .and_then(crate::demangle::local_function_name)
    }

    /// The scope (its number, `NONE32` at the top level) of subprogram `off`'s declaration.
    fn scope_for(ix: &NameIndex, ui: usize, off: UnitOffset, f: &DieFacts) -> u32 {
        f.chain
            .iter()
            .rev()
            .chain(std::iter::once(&off))
            .find_map(|o| ix.scope_id_of(ui, *o))
            .unwrap_or(NONE32)
    }

    /// The C++ scope (`ns::Class`) a type, variable or static member DIE is declared in,
    /// through its `DW_AT_specification` for a definition outside its class; `None` at the
    /// top level.
    pub fn die_scope(&self, ui: usize, off: UnitOffset) -> Option<String> {
        let ix = self.name_index();
        if let Some(s) = ix.scope_of(ui, off) {
            return Some(s.to_string());
        }
        let unit = self.unit(ui).ok()?;
        let f = self.die_facts(unit, off, 0);
        f.chain
            .iter()
            .find_map(|o| ix.scope_of(ui, *o).map(str::to_string))
    }

    /// The name gdb gives function DIE `off` of unit `ui`: in C++, qualified with its class
    /// or namespace (`Counter::add`); `None` when the DIE has no name.
    pub fn function_qualified_name(&self, ui: usize, off: UnitOffset) -> Option<String> {
        let unit = self.unit(ui).ok()?;
        let f = self.die_facts(unit, off, 0);
        let name = f.name.clone()?.into_owned();
        Some(Self::qualify(self.name_index(), ui, off, &f, name))
    }

    /// Index subprogram `off` (in C++ `scope`): its qualified name, `None` when it has none or
    /// is a declaration.
    fn index_subprogram(
        &self,
        ix: &mut NameIndex,
        ui: usize,
        unit: &Unit<R>,
        off: UnitOffset,
        scope: &str,
    ) -> Option<String> {
        let f = self.die_facts(unit, off, 0);
        f.name.as_ref()?;
        if !scope.is_empty() {
            ix.set_scope(ui, off, scope);
        }
        if f.declaration {
            return None;
        }
        let (scope, base) = match Self::local_name(&f) {
            // Kept as its scope and last name, like the others (`main::$_0` and `operator()`).
            Some(local) => {
                let last = unqualified(&local).unwrap_or(&local);
                let scope_text = local[..local.len() - last.len()].trim_end_matches("::");
                let scope = if scope_text.is_empty() {
                    NONE32
                } else {
                    ix.scope_id(scope_text)
                };
                let base = match f.name.clone() {
                    Some(n) if n == last => n,
                    _ => std::borrow::Cow::Owned(last.to_string()),
                };
                (scope, base)
            }
            None => (Self::scope_for(ix, ui, off, &f), f.name.clone()?),
        };
        let name = match ix.scope_names.get(scope as usize) {
            Some(s) => format!("{s}::{base}"),
            None => base.to_string(),
        };
        let ranges = self.die_code_ranges(unit, off);
        let Some(&first) = ranges.first() else {
            if f.inline {
                if let Some(base) = unqualified(&name) {
                    ix.abstract_functions
                        .entry(base.to_string())
                        .or_default()
                        .push((ui, off));
                }
                ix.abstract_functions
                    .entry(name.clone())
                    .or_default()
                    .push((ui, off));
            }
            return Some(name);
        };
        let more = if ranges.len() > 1 {
            ix.more_ranges.push(ranges[1..].into());
            u32::try_from(ix.more_ranges.len() - 1).unwrap_or(NONE32)
        } else {
            NONE32
        };
        ix.functions.push(Func {
            name: base,
            linkage_name: f.linkage_name,
            first,
            more,
            scope,
            die: scope_key(ui, off),
            origin: f.origin.map_or(u64::MAX, |o| o.0 as u64),
            decl_file: f
                .decl_file
                .and_then(|d| u32::try_from(d).ok())
                .filter(|d| *d != NONE32)
                .unwrap_or(NONE32),
            decl_line: f.decl_line,
            external: f.external,
            inline: f.inline,
        });
        Some(name)
    }

    /// The internal procedures of Fortran procedure `host` (its nested subprograms, and
    /// theirs), named `host::inner`.
    fn index_internal_procedures(
        &self,
        ix: &mut NameIndex,
        ui: usize,
        unit: &Unit<R>,
        node: gimli::EntriesTreeNode<'_, '_, '_, R>,
        depth: u32,
        host: &str,
    ) -> Result<()> {
        let mut children = node.children();
        while let Some(child) = children.next()? {
            if child.entry().tag() != constants::DW_TAG_subprogram {
                continue;
            }
            let off = child.entry().offset();
            if let Some(name) = self.index_subprogram(ix, ui, unit, off, host)
                && depth < 16
            {
                self.index_internal_procedures(ix, ui, unit, child, depth + 1, &name)?;
            }
        }
        Ok(())
    }

    /// C++: the member functions with code of classes local to a function (a lambda's
    /// `operator()`, a member of its closure type), in the function's body or its blocks.
    fn index_local_functions(
        &self,
        ix: &mut NameIndex,
        ui: usize,
        unit: &Unit<R>,
        node: gimli::EntriesTreeNode<'_, '_, '_, R>,
        depth: u32,
    ) -> Result<()> {
        let mut children = node.children();
        while let Some(child) = children.next()? {
            match child.entry().tag() {
                constants::DW_TAG_structure_type
                | constants::DW_TAG_class_type
                | constants::DW_TAG_union_type => {
                    let mut members = child.children();
                    while let Some(m) = members.next()? {
                        if m.entry().tag() == constants::DW_TAG_subprogram {
                            let off = m.entry().offset();
                            self.index_subprogram(ix, ui, unit, off, "");
                            if depth < 16 {
                                self.index_local_functions(ix, ui, unit, m, depth + 1)?;
                            }
                        }
                    }
                }
                constants::DW_TAG_lexical_block if depth < 16 => {
                    self.index_local_functions(ix, ui, unit, child, depth + 1)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn index_children(
        &self,
        ix: &mut NameIndex,
        ui: usize,
        unit: &Unit<R>,
        node: gimli::EntriesTreeNode<'_, '_, '_, R>,
        depth: u32,
        scope: &str,
    ) -> Result<()> {
        let mut children = node.children();
        let mut unit_lang = None;
        while let Some(child) = children.next()? {
            let entry = child.entry();
            let tag = entry.tag();
            let off = entry.offset();
            match tag {
                constants::DW_TAG_subprogram => {
                    let name = self.index_subprogram(ix, ui, unit, off, scope);
                    // Fortran internal procedures (`contains` inside a procedure) are nested
                    // subprograms: `outer::inner`, found also as `inner` (as gdb names them).
                    let lang =
                        *unit_lang.get_or_insert_with(|| crate::scopes::unit_language(self, ui));
                    if let Some(name) = name
                        && depth < 16
                        && lang == crate::format::Language::Fortran
                    {
                        self.index_internal_procedures(ix, ui, unit, child, depth + 1, &name)?;
                    } else if lang == crate::format::Language::Cplus && depth < 16 {
                        self.index_local_functions(ix, ui, unit, child, depth + 1)?;
                    }
                }
                // Fortran module parameters (`DW_TAG_constant`) are listed with the variables.
                constants::DW_TAG_variable | constants::DW_TAG_constant => {
                    if !scope.is_empty() {
                        ix.set_scope(ui, off, scope);
                    }
                    let f = self.die_facts(unit, off, 0);
                    let Some(name) = f.name else { continue };
                    if f.declaration {
                        continue;
                    }
                    ix.variables.push(VariableEntry {
                        name,
                        linkage_name: f.linkage_name,
                        unit: ui,
                        offset: off,
                        decl_file: f.decl_file,
                        decl_line: f.decl_line,
                        external: f.external,
                    });
                }
                constants::DW_TAG_structure_type
                | constants::DW_TAG_union_type
                | constants::DW_TAG_enumeration_type
                | constants::DW_TAG_class_type
                | constants::DW_TAG_typedef
                | constants::DW_TAG_base_type => {
                    if !scope.is_empty() {
                        ix.set_scope(ui, off, scope);
                    }
                    let f = self.die_facts(unit, off, 0);
                    // gdb's `determine_prefix`: an unnamed class gives its members no prefix
                    // at all (`go`, not `(anonymous namespace)::go`).
                    let inner = match (&f.name, scope) {
                        (Some(n), "") => n.to_string(),
                        (Some(n), s) => format!("{s}::{n}"),
                        (None, _) => String::new(),
                    };
                    if let Some(name) = f.name
                        && !f.declaration
                    {
                        ix.types.push(TypeEntry {
                            name,
                            tag,
                            unit: ui,
                            offset: off,
                            decl_file: f.decl_file,
                            decl_line: f.decl_line,
                        });
                    }
                    if matches!(
                        tag,
                        constants::DW_TAG_structure_type | constants::DW_TAG_class_type
                    ) && depth < 16
                    {
                        self.index_children(ix, ui, unit, child, depth + 1, &inner)?;
                    }
                }
                // A C++ static data member's declaration (DWARF 4): its class is the scope of
                // the variable that defines it.
                constants::DW_TAG_member if !scope.is_empty() => {
                    ix.set_scope(ui, off, scope);
                }
                constants::DW_TAG_namespace | constants::DW_TAG_module if depth < 16 => {
                    let f = self.die_facts(unit, off, 0);
                    let n = f
                        .name
                        .map_or_else(|| "(anonymous namespace)".to_string(), |n| n.into_owned());
                    let inner = if scope.is_empty() {
                        n
                    } else {
                        format!("{scope}::{n}")
                    };
                    self.index_children(ix, ui, unit, child, depth + 1, &inner)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Out-of-line copies of functions called `name` (or with that linkage name), and every
    /// inlined copy of a function of that name, sorted by entry address.
    pub fn functions_named(&self, name: &str) -> Vec<FunctionEntry> {
        let ix = self.name_index();
        let mut out: Vec<FunctionEntry> = ix
            .function_names
            .get(name, |i, kind| ix.function_is(i, kind, name))
            .filter_map(|i| ix.entry(i))
            .collect();
        // Abstract DIEs with this name: their inlined copies.
        let mut origins: Vec<(usize, UnitOffset)> =
            ix.abstract_functions.get(name).cloned().unwrap_or_default();
        for f in &out {
            if f.inline {
                origins.push((f.unit, f.origin.unwrap_or(f.offset)));
            }
        }
        origins.sort_unstable_by_key(|o| (o.0, o.1.0));
        origins.dedup();
        for (ui, origin) in origins {
            let qualified = self
                .function_qualified_name(ui, origin)
                .unwrap_or_else(|| name.to_string());
            out.extend(self.inlined_copies(ui, origin, &qualified));
        }
        out.sort_by_key(|f| (f.entry_pc(), f.inlined_copy));
        out
    }

    /// Every inlined copy in unit `ui` of the abstract function `origin`.
    fn inlined_copies(&self, ui: usize, origin: UnitOffset, name: &str) -> Vec<FunctionEntry> {
        let facts = self.unit_facts(ui);
        let Ok(unit) = self.unit(ui) else {
            return Vec::new();
        };
        let f = self.die_facts(unit, origin, 0);
        facts
            .blocks
            .iter()
            .filter_map(|b| match &b.kind {
                BlockKind::Inlined { origin: o, .. } if *o == origin => Some(FunctionEntry {
                    name: name.to_string(),
                    linkage_name: f.linkage_name,
                    unit: ui,
                    offset: b.offset,
                    origin: Some(origin),
                    ranges: b.ranges.clone(),
                    decl_file: f.decl_file,
                    decl_line: f.decl_line,
                    external: f.external,
                    inline: true,
                    inlined_copy: true,
                }),
                _ => None,
            })
            .collect()
    }

    /// Global and file-static variables called `name`.
    /// The spelling of a top-level variable whose name equals `name` but for case (Fortran's
    /// `mixed` for a C unit's `Mixed`), by a scan of the names: only for a name no exact
    /// spelling found.
    pub fn variable_spelled_nocase(&self, name: &str) -> Option<String> {
        let ix = self.name_index();
        ix.variables
            .iter()
            .find(|v| v.name.eq_ignore_ascii_case(name))
            .map(|v| v.name.to_string())
    }

    pub fn variables_named(&self, name: &str) -> Vec<VariableEntry> {
        let ix = self.name_index();
        ix.variable_names
            .get(name, |i, _| {
                ix.variables.get(i).is_some_and(|v| v.name == name)
            })
            .filter_map(|i| ix.variables.get(i).cloned())
            .collect()
    }

    /// Type DIEs called `name` (struct/union/enum tags and typedef/base type names).
    pub fn types_named(&self, name: &str) -> Vec<TypeEntry> {
        let ix = self.name_index();
        ix.type_names
            .get(name, |i, _| ix.types.get(i).is_some_and(|t| t.name == name))
            .filter_map(|i| ix.types.get(i).cloned())
            .collect()
    }

    /// Sizes of the name index, for measurements: (what, entries, bytes of strings).
    pub fn index_stats(&self) -> Vec<(&'static str, usize, usize)> {
        let ix = self.name_index();
        let keys = |m: &Names| -> (usize, usize) { (m.keys.len(), m.keys.capacity() * 16) };
        let (fk, fb) = keys(&ix.function_names);
        let (tk, tb) = keys(&ix.type_names);
        vec![
            (
                "functions",
                ix.functions.len(),
                ix.functions.capacity() * std::mem::size_of::<Func>()
                    + ix.functions
                        .iter()
                        .map(|f| match f.name {
                            std::borrow::Cow::Owned(ref n) => n.len(),
                            std::borrow::Cow::Borrowed(_) => 0,
                        })
                        .sum::<usize>()
                    + ix.more_ranges.iter().map(|r| r.len() * 16).sum::<usize>(),
            ),
            ("function_names", fk, fb),
            (
                "types",
                ix.types.len(),
                ix.types.iter().map(|t| t.name.len()).sum(),
            ),
            ("type_names", tk, tb),
            (
                "scopes",
                ix.scopes.len(),
                ix.scope_names.iter().map(|v| v.len()).sum(),
            ),
            ("abstract", ix.abstract_functions.len(), 0),
        ]
    }

    /// All out-of-line functions (each built as it is met: the index keeps them smaller).
    pub fn all_functions(&self) -> impl Iterator<Item = FunctionEntry> + '_ {
        let ix = self.name_index();
        (0..ix.functions.len()).filter_map(|i| ix.entry(i))
    }

    /// How many out-of-line functions the index has.
    pub fn function_count(&self) -> usize {
        self.name_index().functions.len()
    }

    /// All global and file-static variables.
    pub fn all_variables(&self) -> &[VariableEntry] {
        &self.name_index().variables
    }

    /// All named top-level types.
    pub fn all_types(&self) -> &[TypeEntry] {
        &self.name_index().types
    }

    /// The out-of-line function whose code contains `pc` (never an inlined copy).
    pub fn function_containing(&self, pc: u64) -> Option<FunctionEntry> {
        let ix = self.name_index();
        let i = ix.by_address.partition_point(|r| r.0 <= pc);
        ix.by_address[..i]
            .iter()
            .rev()
            .take(16)
            .find(|r| pc < r.1)
            .and_then(|r| ix.entry(r.2))
    }

    /// Functions whose name `matches`, grouped by file as `info functions REGEX` lists them:
    /// files sorted by name; within a file, external ones first, each part sorted by name.
    pub fn functions_by_file(
        &self,
        matches: impl Fn(&str) -> bool,
    ) -> Vec<FileGroup<FunctionEntry>> {
        // Names tested before entries are built: most are not asked for.
        let ix = self.name_index();
        let items = ix.functions.iter().enumerate().filter_map(|(i, f)| {
            let name = ix.func_name(f);
            matches(&name).then(|| {
                let e = ix.entry(i)?;
                Some((self.unit_display_name(e.unit), (!f.external, name), e))
            })?
        });
        group(items)
    }

    /// Variables grouped like `info variables REGEX`.
    pub fn variables_by_file(
        &self,
        matches: impl Fn(&str) -> bool,
    ) -> Vec<FileGroup<VariableEntry>> {
        self.by_file(self.all_variables(), matches, |v| {
            (&v.name, v.external, v.unit)
        })
    }

    /// Types grouped like `info types REGEX`.
    pub fn types_by_file(&self, matches: impl Fn(&str) -> bool) -> Vec<FileGroup<TypeEntry>> {
        self.by_file(self.all_types(), matches, |t| (&t.name, true, t.unit))
    }

    /// The entries whose name `matches`, grouped by file: `facts` gives an entry's name,
    /// whether it is external (those come first in their file) and its unit.
    fn by_file<T: Clone>(
        &self,
        all: &[T],
        matches: impl Fn(&str) -> bool,
        facts: impl Fn(&T) -> (&str, bool, usize),
    ) -> Vec<FileGroup<T>> {
        let items = all.iter().filter_map(|e| {
            let (name, external, unit) = facts(e);
            matches(name).then(|| {
                let key = (!external, name.to_string());
                (self.unit_display_name(unit), key, e.clone())
            })
        });
        group(items)
    }

    /// The unit's `DW_AT_name` as gdb prints it for the unit's primary file.
    pub fn unit_display_name(&self, ui: usize) -> String {
        self.unit_lines(ui)
            .ok()
            .and_then(|l| l.subfiles.first().map(|s| s.name.clone()))
            .unwrap_or_default()
    }

    /// Facts of unit `ui` that need its whole DIE tree, gathered once.
    pub fn unit_facts(&self, ui: usize) -> &UnitFacts {
        static EMPTY: std::sync::LazyLock<UnitFacts> = std::sync::LazyLock::new(UnitFacts::default);
        match self.unit_facts.get(ui) {
            Some(cell) => cell.get_or_init(|| {
                let mut facts = UnitFacts::default();
                match self.unit(ui) {
                    Ok(unit) => {
                        if let Err(e) = self.walk_unit(unit, &mut facts) {
                            facts.error = Some(e.to_string());
                        }
                    }
                    Err(e) => facts.error = Some(e.to_string()),
                }
                facts
            }),
            None => &EMPTY,
        }
    }

    fn walk_unit(&self, unit: &Unit<R>, facts: &mut UnitFacts) -> Result<()> {
        let ui = self
            .units
            .iter()
            .position(|u| u.header.offset() == unit.header.offset())
            .ok_or_else(|| DwarfError::Malformed("unit not found".into()))?;
        let mut cursor = unit.entries();
        let mut depth: isize = 0;
        // Stack of (depth, block index) of open blocks.
        let mut open: Vec<(isize, usize)> = Vec::new();
        // Lexical blocks wait until a named child shows they have symbols: (depth, block).
        let mut pending: Vec<(isize, BlockInfo)> = Vec::new();
        while let Some((delta, entry)) = cursor.next_dfs()? {
            depth += delta;
            while open.last().is_some_and(|o| o.0 >= depth) {
                open.pop();
            }
            pending.retain(|p| p.0 < depth);
            let tag = entry.tag();
            if depth == 0 {
                if let Some(p) = entry.attr_value(constants::DW_AT_producer).ok().flatten() {
                    facts.producer = self.attr_str(unit, p).unwrap_or_default();
                }
                continue;
            }
            let off = entry.offset();
            match tag {
                constants::DW_TAG_subprogram
                | constants::DW_TAG_inlined_subroutine
                | constants::DW_TAG_lexical_block => {
                    let ranges = self.die_code_ranges(unit, off);
                    if tag == constants::DW_TAG_subprogram
                        && let Some(fb) = entry.attr(constants::DW_AT_frame_base).ok().flatten()
                        && is_loclist(&fb.value())
                    {
                        facts.has_loclist = true;
                    }
                    if ranges.is_empty() {
                        continue;
                    }
                    let kind = match tag {
                        constants::DW_TAG_subprogram => BlockKind::Function,
                        constants::DW_TAG_inlined_subroutine => {
                            let origin = match entry
                                .attr_value(constants::DW_AT_abstract_origin)
                                .ok()
                                .flatten()
                            {
                                Some(AttributeValue::UnitRef(o)) => o,
                                _ => continue,
                            };
                            let udata = |at| {
                                entry
                                    .attr(at)
                                    .ok()
                                    .flatten()
                                    .and_then(|a: gimli::Attribute<R>| a.udata_value())
                            };
                            BlockKind::Inlined {
                                origin,
                                call_line: udata(constants::DW_AT_call_line)
                                    .and_then(|l| u32::try_from(l).ok())
                                    .unwrap_or(0),
                                call_file: self.decl_path(ui, udata(constants::DW_AT_call_file)),
                            }
                        }
                        _ => BlockKind::Lexical,
                    };
                    let block = BlockInfo {
                        ranges,
                        depth: depth as u32,
                        kind,
                        offset: off,
                        parent: None,
                    };
                    if block.kind == BlockKind::Lexical {
                        pending.push((depth, block));
                    } else {
                        self_push(facts, &mut open, depth, block);
                    }
                }
                constants::DW_TAG_variable | constants::DW_TAG_formal_parameter => {
                    if let Some(l) = entry.attr(constants::DW_AT_location).ok().flatten()
                        && is_loclist(&l.value())
                    {
                        facts.has_loclist = true;
                    }
                    if entry.attr(constants::DW_AT_name).ok().flatten().is_some()
                        || entry
                            .attr(constants::DW_AT_abstract_origin)
                            .ok()
                            .flatten()
                            .is_some()
                    {
                        promote_pending(facts, &mut open, &mut pending, depth);
                    }
                }
                _ => {
                    if entry.attr(constants::DW_AT_name).ok().flatten().is_some() {
                        promote_pending(facts, &mut open, &mut pending, depth);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Push a kept block, its parent being the innermost open block.
fn self_push(
    facts: &mut UnitFacts,
    open: &mut Vec<(isize, usize)>,
    depth: isize,
    mut block: BlockInfo,
) {
    // Lexical blocks still pending above this one are kept only if they get symbols; an inlined
    // copy or function inside one does not make gdb keep it.
    block.parent = open.last().map(|o| o.1);
    facts.blocks.push(block);
    open.push((depth, facts.blocks.len() - 1));
}

/// A named DIE at `depth`: the pending lexical block directly containing it has symbols, so
/// gdb keeps it (and the pending blocks around it are kept as parents only when they have
/// symbols of their own).
fn promote_pending(
    facts: &mut UnitFacts,
    open: &mut Vec<(isize, usize)>,
    pending: &mut Vec<(isize, BlockInfo)>,
    depth: isize,
) {
    if let Some(pos) = pending.iter().rposition(|p| p.0 == depth - 1) {
        let (d, block) = pending.remove(pos);
        // Children of this block seen before (nested kept blocks) keep their parent; gdb's
        // blocks nest by address, which is what matters for the lookups here.
        self_push(facts, open, d, block);
        open.sort_by_key(|o| o.0);
    }
}

/// A function template's name without its final template arguments (`twice<int>` →
/// `twice`); `None` for other names and operators.
pub fn without_template_args(name: &str) -> Option<&str> {
    if !name.ends_with('>') || unqualified(name).unwrap_or(name).starts_with("operator") {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return name.get(..i).filter(|n| !n.is_empty());
                }
            }
            _ => {}
        }
    }
    None
}

/// The last component of a C++ qualified name (`add` of `Counter::add`), `None` when the name
/// has no scope. `::` inside template arguments or a parameter list does not count.
pub fn unqualified(name: &str) -> Option<&str> {
    let mut depth = 0i32;
    let mut cut = None;
    let b = name.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        // `operator<`, `operator()`: the rest is the operator's name.
        if depth == 0 && name.get(i..).is_some_and(|r| r.starts_with("operator")) {
            break;
        }
        match c {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => cut = Some(i + 2),
            _ => {}
        }
    }
    cut.and_then(|i| name.get(i..))
}

fn flag(v: &AttributeValue<R>) -> bool {
    matches!(v, AttributeValue::Flag(true))
}

fn is_loclist(v: &AttributeValue<R>) -> bool {
    matches!(
        v,
        AttributeValue::LocationListsRef(_)
            | AttributeValue::DebugLocListsIndex(_)
            | AttributeValue::SecOffset(_)
    )
}

/// Group by file (sorted), entries sorted by `key` (static-ness, name) within a file.
fn group<T: Clone>(items: impl Iterator<Item = (String, (bool, String), T)>) -> Vec<FileGroup<T>> {
    let mut v: Vec<(String, (bool, String), T)> = items.collect();
    v.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let mut out: Vec<FileGroup<T>> = Vec::new();
    for (file, _, e) in v {
        match out.last_mut() {
            Some(g) if g.file == file => g.entries.push(e),
            _ => out.push(FileGroup {
                file,
                entries: vec![e],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{unqualified, without_template_args};

    #[test]
    fn template_names() {
        assert_eq!(without_template_args("twice<int>"), Some("twice"));
        assert_eq!(
            without_template_args("ns::f<std::pair<int, int> >"),
            Some("ns::f")
        );
        assert_eq!(without_template_args("A::operator>"), None);
        assert_eq!(without_template_args("main"), None);
    }

    #[test]
    fn unqualified_names() {
        assert_eq!(unqualified("Counter::add"), Some("add"));
        assert_eq!(unqualified("ns::C::f"), Some("f"));
        assert_eq!(unqualified("main"), None);
        assert_eq!(unqualified("f<a::b>"), None);
        assert_eq!(unqualified("C::operator<"), Some("operator<"));
        assert_eq!(unqualified("operator::"), None);
    }
}
