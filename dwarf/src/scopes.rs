//! Scopes and variables: which function (and which inlined calls and lexical blocks) contain a
//! pc, their parameters and locals in gdb's order, and variables by name as C scoping finds
//! them (block locals, parameters, file statics, globals, `'file.c'::x`, `function::x`).
//!
//! All addresses here are link-time; callers subtract the load bias first.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, LazyLock, Mutex};

use gimli::{AttributeValue, constants as dw};

use crate::R;
use crate::dietypes::{self, Die, read_tree, read_tree_at, with_origin};
use crate::error::Result;
use crate::loader::DebugFile;
use crate::types::{DieRef, Type, TypeRef};

/// What kind of variable a [`Variable`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// A formal parameter of a function.
    Param,
    /// An automatic local (of a function or one of its blocks).
    Local,
    /// A `static` local of a function (lives at a fixed address).
    StaticLocal,
    /// An external (global) variable.
    Global,
    /// A file-level `static`.
    FileStatic,
}

/// A variable as the debugger sees it: enough to make its value at a frame.
#[derive(Debug, Clone)]
pub struct Variable {
    pub name: String,
    pub ty: TypeRef,
    /// The DIE of this variable (the concrete one, for inlined and out-of-line instances).
    pub die: DieRef,
    /// Unit index of the DIE in the `DebugFile`.
    pub unit: usize,
    pub kind: VarKind,
    /// `DW_AT_location` (an expression or a location list), as read.
    pub location: Option<AttributeValue<R>>,
    /// `DW_AT_const_value`, when the compiler gave the value instead of a location.
    pub const_value: Option<AttributeValue<R>>,
    /// `DW_AT_frame_base` of the function whose frame holds this variable.
    pub frame_base: Option<AttributeValue<R>>,
    pub decl_line: Option<u64>,
    pub artificial: bool,
}

/// A function (a `DW_TAG_subprogram` or, for inlined frames, a `DW_TAG_inlined_subroutine`).
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub linkage_name: Option<String>,
    /// The concrete DIE (subprogram or inlined subroutine).
    pub die: DieRef,
    pub unit: usize,
    /// Lowest address of the code (the entry pc for a contiguous function).
    pub low_pc: u64,
    /// One past the highest address.
    pub high_pc: u64,
    /// Entry pc (`DW_AT_entry_pc`, else `low_pc`).
    pub entry_pc: u64,
    /// All code ranges (a function split in hot/cold parts has several).
    pub ranges: Vec<Range<u64>>,
    pub decl_file: Option<String>,
    pub decl_line: Option<u64>,
    /// `None` for a `void` function.
    pub ret: Option<TypeRef>,
    pub external: bool,
    /// `DW_AT_main_subprogram` (a Fortran main program).
    pub main_subprogram: bool,
    pub frame_base: Option<AttributeValue<R>>,
}

impl Function {
    /// gdb's `block::entry_pc`: the start of a contiguous block, else of its first range in
    /// `DW_AT_ranges` order (`DW_AT_entry_pc` is not used).
    pub fn block_entry_pc(&self) -> u64 {
        match self.ranges.as_slice() {
            [first, _, ..] => first.start,
            _ => self.low_pc,
        }
    }

    pub fn contains(&self, pc: u64) -> bool {
        self.ranges.iter().any(|r| r.contains(&pc))
    }
}

/// A lexical block containing the pc, with its own variables (declaration order).
#[derive(Debug, Clone)]
pub struct Block {
    pub die: DieRef,
    pub ranges: Vec<Range<u64>>,
    pub variables: Vec<Variable>,
}

/// One frame as gdb shows it: a real function or one inlined call inside it.
#[derive(Debug, Clone)]
pub struct FrameScope {
    pub function: Function,
    /// An inlined call (gdb shows it as a frame of its own).
    pub inlined: bool,
    /// For an inlined call: where it was called from (file and line in the caller).
    pub call_file: Option<String>,
    pub call_line: Option<u64>,
    /// `DW_AT_call_file` as a line-program file index of the function's unit.
    pub call_file_index: Option<u64>,
    pub params: Vec<Variable>,
    /// The function's own top-level locals (declaration order).
    pub body_locals: Vec<Variable>,
    /// Lexical blocks containing the pc, outermost first.
    pub blocks: Vec<Block>,
    /// Fortran common blocks (`DW_TAG_common_block`) of the function, in DIE order; their
    /// members are also in `body_locals`.
    pub commons: Vec<CommonBlock>,
    /// Fortran parameters whose value the DWARF gives as bytes (`real(kind=8), parameter`):
    /// found by name, not listed by `info locals` (as gdb).
    pub constants: Vec<Variable>,
}

/// A Fortran common block seen from one function: its name and its members, in order.
#[derive(Debug, Clone)]
pub struct CommonBlock {
    pub name: String,
    pub members: Vec<Variable>,
}

impl FrameScope {
    /// Locals in gdb's `info locals` order: the innermost block's variables in declaration
    /// order, then each enclosing block's, then the function body's; static locals included.
    pub fn locals(&self) -> Vec<&Variable> {
        let mut out: Vec<&Variable> = Vec::new();
        for b in self.blocks.iter().rev() {
            out.extend(b.variables.iter());
        }
        out.extend(self.body_locals.iter());
        out
    }

    /// A name as C scoping sees it inside this frame: block locals innermost first, then the
    /// function's locals, then its parameters.
    pub fn lookup(&self, name: &str) -> Option<&Variable> {
        for b in self.blocks.iter().rev() {
            if let Some(v) = b.variables.iter().find(|v| v.name == name) {
                return Some(v);
            }
        }
        self.body_locals
            .iter()
            .find(|v| v.name == name)
            .or_else(|| self.params.iter().find(|v| v.name == name))
            .or_else(|| self.constants.iter().find(|v| v.name == name))
    }
}

/// Everything that contains a pc: frames innermost first (`frames[0]` is the innermost inlined
/// call, the last is the real function).
#[derive(Debug, Clone)]
pub struct Scope {
    pub frames: Vec<FrameScope>,
}

impl Scope {
    /// The real (out-of-line) function.
    pub fn function(&self) -> Option<&Function> {
        self.frames.last().map(|f| &f.function)
    }

    pub fn innermost(&self) -> Option<&FrameScope> {
        self.frames.first()
    }
}

// ---------------------------------------------------------------------------------------------
// Per-unit function lists
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct FuncEntry {
    die: DieRef,
    ranges: Vec<Range<u64>>,
}

/// A unit's functions (in DIE order) and their ranges sorted by start, for finding the
/// function of a pc without looking at every function (every stop of every rank asks).
#[derive(Debug, Default)]
struct UnitFuncs {
    dies: Vec<DieRef>,
    /// (start, end, index in `dies`), by start, then by DIE order.
    spans: Vec<(u64, u64, usize)>,
    /// `reach[i]`: the largest end among `spans[..=i]`.
    reach: Vec<u64>,
}

impl UnitFuncs {
    fn new(entries: Vec<FuncEntry>) -> UnitFuncs {
        let mut spans: Vec<(u64, u64, usize)> = entries
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.ranges.iter().map(move |r| (r.start, r.end, i)))
            .filter(|(start, end, _)| start < end)
            .collect();
        spans.sort_unstable_by_key(|&(start, _, i)| (start, i));
        let reach = spans
            .iter()
            .scan(0u64, |m, &(_, end, _)| {
                *m = (*m).max(end);
                Some(*m)
            })
            .collect();
        UnitFuncs {
            dies: entries.iter().map(|f| f.die).collect(),
            spans,
            reach,
        }
    }

    /// The function whose range containing `pc` starts last; of equal starts, the last in
    /// DIE order (gdb's block look-up: an assembler's aliases such as `__clone3`,
    /// `__GI___clone3` and `clone3` share one range).
    fn die_at(&self, pc: u64) -> Option<DieRef> {
        let n = self.spans.partition_point(|&(start, _, _)| start <= pc);
        for i in (0..n).rev() {
            if self.reach.get(i).is_none_or(|&r| r <= pc) {
                // Nothing starting here or before reaches the pc.
                return None;
            }
            let (_, end, e) = self.spans[i];
            if pc < end {
                return self.dies.get(e).copied();
            }
        }
        None
    }
}

type FuncCache = HashMap<(usize, usize), Arc<UnitFuncs>>;

static FUNCS: LazyLock<Mutex<FuncCache>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Code ranges of a DIE (low/high pc or `DW_AT_ranges`), link-time.
pub fn die_ranges(file: &DebugFile, die: &Die) -> Vec<Range<u64>> {
    let Ok(unit) = file.unit(die.unit) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(v) = die.attr(dw::DW_AT_ranges) {
        if let Ok(Some(mut it)) = file.dwarf.attr_ranges(unit, *v) {
            while let Ok(Some(r)) = it.next() {
                if r.end > r.begin {
                    out.push(r.begin..r.end);
                }
            }
        }
        return out;
    }
    let low = die
        .attr(dw::DW_AT_low_pc)
        .and_then(|v| file.dwarf.attr_address(unit, *v).ok().flatten());
    let Some(low) = low else { return out };
    let high = match die.attr(dw::DW_AT_high_pc) {
        Some(AttributeValue::Udata(n)) => Some(low.saturating_add(*n)),
        Some(v) => match file.dwarf.attr_address(unit, *v) {
            Ok(Some(a)) => Some(a),
            _ => v.udata_value().map(|n| low.saturating_add(n)),
        },
        None => Some(low.saturating_add(1)),
    };
    if let Some(high) = high
        && high > low
    {
        out.push(low..high);
    }
    out
}

fn unit_functions(file: &Arc<DebugFile>, ui: usize) -> Arc<UnitFuncs> {
    let key = (Arc::as_ptr(file) as usize, ui);
    if let Some(v) = FUNCS.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return v.clone();
    }
    let mut out = Vec::new();
    if let Ok(root) = read_tree_at(file, ui, None, 3) {
        let fortran = unit_language(file, ui) == crate::format::Language::Fortran;
        collect_functions(file, &root.children, fortran, &mut out);
        // C++: functions defined inside a function, such as a lambda's `operator()` (a
        // member of a closure class local to the function, maybe in a block of it): every
        // subprogram with code of the unit's tree is one.
        if dietypes::is_cplus_unit(file, ui)
            && let Ok(unit) = file.unit(ui)
        {
            let known: std::collections::HashSet<DieRef> = out.iter().map(|f| f.die).collect();
            for b in &file.unit_facts(ui).blocks {
                if b.kind != crate::index::BlockKind::Function {
                    continue;
                }
                let Some(die) = b.offset.to_debug_info_offset(&unit.header).map(DieRef) else {
                    continue;
                };
                if !known.contains(&die) {
                    out.push(FuncEntry {
                        die,
                        ranges: b.ranges.iter().map(|r| r.0..r.1).collect(),
                    });
                }
            }
        }
    }
    let v = Arc::new(UnitFuncs::new(out));
    FUNCS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, v.clone());
    v
}

/// `fortran`: the unit is Fortran, whose internal procedures are subprograms nested in their
/// host's (their code is outside the host's ranges).
fn collect_functions(file: &DebugFile, dies: &[Die], fortran: bool, out: &mut Vec<FuncEntry>) {
    for d in dies {
        match d.tag {
            dw::DW_TAG_subprogram => {
                if d.flag(dw::DW_AT_declaration) {
                    continue;
                }
                let ranges = die_ranges(file, d);
                let Some(die) = d.die_ref(file) else { continue };
                out.push(FuncEntry { die, ranges });
                if fortran {
                    collect_functions(file, &d.children, fortran, out);
                }
            }
            dw::DW_TAG_namespace
            | dw::DW_TAG_module
            | dw::DW_TAG_structure_type
            | dw::DW_TAG_class_type => collect_functions(file, &d.children, fortran, out),
            // gfortran nests an outlined OpenMP region (`MAIN__._omp_fn.0`) in a lexical
            // block of the procedure it comes from.
            dw::DW_TAG_lexical_block if fortran => {
                collect_functions(file, &d.children, fortran, out)
            }
            _ => {}
        }
    }
}

/// Name of entry `index` of the unit's line-table file list (as the compiler wrote it).
pub fn file_name(file: &DebugFile, ui: usize, index: u64) -> Option<String> {
    let unit = file.unit(ui).ok()?;
    let lp = unit.line_program.as_ref()?;
    let header = lp.header();
    let entry = header.file(index)?;
    let name = file.dwarf.attr_string(unit, entry.path_name()).ok()?;
    Some(name.to_string_lossy().into_owned())
}

/// Name of a unit (its `DW_AT_name`, usually the source file as given to the compiler).
pub fn unit_name(file: &DebugFile, ui: usize) -> Option<String> {
    read_tree_at(file, ui, None, 0).ok()?.name(file)
}

// ---------------------------------------------------------------------------------------------
// Building functions, frames and variables
// ---------------------------------------------------------------------------------------------

fn make_function(
    file: &Arc<DebugFile>,
    d: &Die,
    frame_base: Option<AttributeValue<R>>,
) -> Function {
    let full = with_origin(file, d);
    let ranges = die_ranges(file, d);
    let low_pc = ranges.iter().map(|r| r.start).min().unwrap_or(0);
    let high_pc = ranges.iter().map(|r| r.end).max().unwrap_or(0);
    let entry_pc = d
        .attr(dw::DW_AT_entry_pc)
        .and_then(|v| match v {
            // DWARF 5 allows the entry pc as an offset from low_pc.
            AttributeValue::Udata(n) => Some(low_pc.saturating_add(*n)),
            v => file
                .unit(d.unit)
                .ok()
                .and_then(|u| file.dwarf.attr_address(u, *v).ok().flatten()),
        })
        .unwrap_or(low_pc);
    let ret = full
        .reference(file, dw::DW_AT_type)
        .map(|t| dietypes::type_of(file, t));
    let decl_file = full
        .udata(dw::DW_AT_decl_file)
        .and_then(|i| file_name(file, d.unit, i));
    Function {
        // C++: qualified with its class or namespace (`Counter::add`).
        name: file
            .function_qualified_name(d.unit, d.offset)
            .or_else(|| full.name(file))
            .unwrap_or_else(|| "??".into()),
        linkage_name: full
            .string(file, dw::DW_AT_linkage_name)
            .or_else(|| full.string(file, dw::DW_AT_MIPS_linkage_name)),
        die: d.die_ref(file).unwrap_or(DieRef(gimli::DebugInfoOffset(0))),
        unit: d.unit,
        low_pc,
        high_pc,
        entry_pc,
        ranges,
        decl_file,
        decl_line: full.udata(dw::DW_AT_decl_line),
        ret,
        external: full.flag(dw::DW_AT_external),
        main_subprogram: d.flag(dw::DW_AT_main_subprogram),
        frame_base,
    }
}

fn is_static_location(v: Option<&AttributeValue<R>>) -> bool {
    match v.and_then(|v| v.exprloc_value()) {
        Some(e) => matches!(
            e.0.slice().first(),
            Some(&0x03) | Some(&0xa1) | Some(&0xfb) // DW_OP_addr, DW_OP_addrx, GNU_addr_index
        ),
        None => false,
    }
}

/// A variable from its DIE (`kind` is refined: a local with a fixed address is a static local).
pub fn make_variable(
    file: &Arc<DebugFile>,
    d: &Die,
    kind: VarKind,
    frame_base: Option<AttributeValue<R>>,
) -> Option<Variable> {
    let full = with_origin(file, d);
    let name = full.name(file)?;
    let ty = match full.reference(file, dw::DW_AT_type) {
        Some(t) => dietypes::type_of(file, t),
        None => Type::error("variable without type"),
    };
    let location = d.attr(dw::DW_AT_location).cloned();
    let kind = match kind {
        VarKind::Local if is_static_location(location.as_ref()) => VarKind::StaticLocal,
        k => k,
    };
    Some(Variable {
        name,
        ty,
        die: d.die_ref(file)?,
        unit: d.unit,
        kind,
        location,
        const_value: d.attr(dw::DW_AT_const_value).cloned(),
        frame_base,
        decl_line: full.udata(dw::DW_AT_decl_line),
        artificial: full.flag(dw::DW_AT_artificial),
    })
}

/// The variable an array bound refers to (`DW_AT_upper_bound: <DIE>`): also a nameless
/// artificial one, as gfortran emits for runtime-sized explicit-shape dummies.
pub fn make_bound_variable(
    file: &Arc<DebugFile>,
    d: &Die,
    frame_base: Option<AttributeValue<R>>,
) -> Option<Variable> {
    if let Some(v) = make_variable(file, d, VarKind::Local, frame_base) {
        return Some(v);
    }
    let ty = match d.reference(file, dw::DW_AT_type) {
        Some(t) => dietypes::type_of(file, t),
        None => Type::error("variable without type"),
    };
    let location = d.attr(dw::DW_AT_location).cloned();
    Some(Variable {
        name: String::new(),
        ty,
        die: d.die_ref(file)?,
        unit: d.unit,
        kind: VarKind::Local,
        location,
        const_value: d.attr(dw::DW_AT_const_value).cloned(),
        frame_base,
        decl_line: None,
        artificial: d.flag(dw::DW_AT_artificial),
    })
}

/// Variables declared directly in `d` (not in nested blocks), declaration order.
fn own_variables(
    file: &Arc<DebugFile>,
    d: &Die,
    fb: &Option<AttributeValue<R>>,
) -> (Vec<Variable>, Vec<Variable>) {
    let mut params = Vec::new();
    let mut locals = Vec::new();
    for c in &d.children {
        match c.tag {
            dw::DW_TAG_formal_parameter => {
                if let Some(v) = make_variable(file, c, VarKind::Param, *fb) {
                    params.push(v);
                }
            }
            dw::DW_TAG_variable => {
                // `extern int x;` inside a function names a global, not a local.
                if c.flag(dw::DW_AT_declaration) && !c.has(dw::DW_AT_location) {
                    continue;
                }
                if let Some(v) = make_variable(file, c, VarKind::Local, *fb) {
                    locals.push(v);
                }
            }
            // Fortran parameters with an integer value are locals (`info locals` lists them,
            // as gdb's LOC_CONST symbols); those given as bytes are in `FrameScope::constants`.
            dw::DW_TAG_constant if !const_bytes(c) => {
                if let Some(v) = make_variable(file, c, VarKind::Local, *fb) {
                    locals.push(v);
                }
            }
            // Fortran: the members of a common block are variables of the scope (as gdb
            // enters them in the block).
            dw::DW_TAG_common_block => {
                locals.extend(common_block(file, c, fb).members);
            }
            _ => {}
        }
    }
    // As gdb does: variables of the abstract instance (an inlined or out-of-line copy's
    // DW_AT_abstract_origin) that no direct child of the concrete DIE stands for are variables
    // of this scope too, without a location (`<optimized out>`); so are those of an abstract
    // lexical block that no concrete block stands for, and of the blocks in it (gdb reads a
    // block without code addresses as part of the scope around it).
    if let Some(origin) = d.reference(file, dw::DW_AT_abstract_origin)
        && let Ok(abs) = read_tree(file, origin, ABSTRACT_DEPTH)
    {
        let covered: Vec<DieRef> = d
            .children
            .iter()
            .filter_map(|c| c.reference(file, dw::DW_AT_abstract_origin))
            .collect();
        for c in &abs.children {
            let Some(r) = c.die_ref(file) else { continue };
            if covered.contains(&r) {
                continue;
            }
            let kind = match c.tag {
                dw::DW_TAG_formal_parameter => VarKind::Param,
                dw::DW_TAG_variable if !c.flag(dw::DW_AT_declaration) => VarKind::Local,
                dw::DW_TAG_lexical_block => {
                    abstract_block_variables(file, c, fb, &mut locals);
                    continue;
                }
                _ => continue,
            };
            if let Some(v) = make_variable(file, c, kind, *fb) {
                if kind == VarKind::Param {
                    params.push(v);
                } else {
                    locals.push(v);
                }
            }
        }
    }
    (params, locals)
}

/// How deep an abstract instance's blocks are read for the variables a concrete copy lacks.
const ABSTRACT_DEPTH: usize = 32;

/// The variables of the abstract lexical block `b` and of the blocks in it, in declaration
/// order (gdb's `read_lexical_block_scope` for a block without code addresses).
fn abstract_block_variables(
    file: &Arc<DebugFile>,
    b: &Die,
    fb: &Option<AttributeValue<R>>,
    out: &mut Vec<Variable>,
) {
    for c in &b.children {
        match c.tag {
            dw::DW_TAG_variable if !c.flag(dw::DW_AT_declaration) => {
                if let Some(v) = make_variable(file, c, VarKind::Local, *fb) {
                    out.push(v);
                }
            }
            dw::DW_TAG_lexical_block => abstract_block_variables(file, c, fb, out),
            _ => {}
        }
    }
}

/// A `DW_TAG_constant` whose value is a block of bytes (gdb's LOC_CONST_BYTES: found by name,
/// not listed by `info locals`).
fn const_bytes(c: &Die) -> bool {
    matches!(
        c.attr(dw::DW_AT_const_value),
        Some(AttributeValue::Block(_))
    )
}

/// The common block DIE `c` and its member variables.
fn common_block(file: &Arc<DebugFile>, c: &Die, fb: &Option<AttributeValue<R>>) -> CommonBlock {
    CommonBlock {
        name: c.name(file).unwrap_or_default(),
        members: c
            .children
            .iter()
            .filter(|m| m.tag == dw::DW_TAG_variable)
            .filter_map(|m| make_variable(file, m, VarKind::Local, *fb))
            .collect(),
    }
}

/// Walk down from the function DIE `d` toward `pc`, pushing frames (outermost first) into
/// `frames`.
fn descend(
    file: &Arc<DebugFile>,
    d: &Die,
    pc: u64,
    fb: &Option<AttributeValue<R>>,
    frames: &mut Vec<FrameScope>,
) {
    let (params, body_locals) = own_variables(file, d, fb);
    let commons = d
        .children
        .iter()
        .filter(|c| c.tag == dw::DW_TAG_common_block)
        .map(|c| common_block(file, c, fb))
        .collect();
    let constants = d
        .children
        .iter()
        .filter(|c| c.tag == dw::DW_TAG_constant && const_bytes(c))
        .filter_map(|c| make_variable(file, c, VarKind::Local, *fb))
        .collect();
    frames.push(FrameScope {
        function: make_function(file, d, *fb),
        inlined: d.tag == dw::DW_TAG_inlined_subroutine,
        call_file: d
            .udata(dw::DW_AT_call_file)
            .and_then(|i| file_name(file, d.unit, i)),
        call_line: d.udata(dw::DW_AT_call_line),
        call_file_index: d.udata(dw::DW_AT_call_file),
        params,
        body_locals,
        blocks: Vec::new(),
        commons,
        constants,
    });
    let frame_idx = frames.len() - 1;
    let mut cur = d;
    loop {
        let next = cur.children.iter().find(|c| {
            matches!(
                c.tag,
                dw::DW_TAG_lexical_block | dw::DW_TAG_inlined_subroutine
            ) && die_ranges(file, c).iter().any(|r| r.contains(&pc))
        });
        let Some(next) = next else { break };
        if next.tag == dw::DW_TAG_inlined_subroutine {
            descend(file, next, pc, fb, frames);
            return;
        }
        let (_, vars) = own_variables(file, next, fb);
        if let (Some(f), Some(die)) = (frames.get_mut(frame_idx), next.die_ref(file)) {
            f.blocks.push(Block {
                die,
                ranges: die_ranges(file, next),
                variables: vars,
            });
        }
        cur = next;
    }
}

/// The function containing the link-time `pc`, with its inlined calls and lexical blocks.
/// `Ok(None)` when no DWARF function covers `pc`.
pub fn scope_at(file: &Arc<DebugFile>, pc: u64) -> Result<Option<Scope>> {
    let Some(die) = function_die_at(file, pc) else {
        return Ok(None);
    };
    let d = read_tree(file, die, usize::MAX)?;
    let fb = d.attr(dw::DW_AT_frame_base).cloned();
    let mut frames = Vec::new();
    descend(file, &d, pc, &fb, &mut frames);
    frames.reverse();
    Ok(Some(Scope { frames }))
}

fn function_die_at(file: &Arc<DebugFile>, pc: u64) -> Option<DieRef> {
    // The unit comes from the address ranges (`.debug_aranges`, else the units' own ranges,
    // see `DebugFile::unit_for_pc`); a pc outside every unit has no DWARF function.
    let ui = file.unit_for_pc(pc)?;
    unit_functions(file, ui).die_at(pc)
}

/// The real function containing `pc` (no inlined frames), cheaply.
pub fn function_at(file: &Arc<DebugFile>, pc: u64) -> Result<Option<Function>> {
    match function_die_at(file, pc) {
        Some(die) => with_function(file, die, Function::clone).map(Some),
        None => Ok(None),
    }
}

/// Whether the function containing `pc` is a main program (`DW_AT_main_subprogram`: a
/// Fortran `program`), without copying the function (every unwind asks, at each stop).
pub fn main_subprogram_at(file: &Arc<DebugFile>, pc: u64) -> bool {
    function_die_at(file, pc)
        .is_some_and(|die| with_function(file, die, |f| f.main_subprogram).unwrap_or(false))
}

/// `look` at the function of subprogram `die`, read once per file and kept.
fn with_function<T>(
    file: &Arc<DebugFile>,
    die: DieRef,
    look: impl FnOnce(&Function) -> T,
) -> Result<T> {
    let types = dietypes::types(file);
    if let Some(got) = types
        .functions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&die)
    {
        return Ok(look(got));
    }
    let d = read_tree(file, die, 1)?;
    let fb = d.attr(dw::DW_AT_frame_base).cloned();
    let func = make_function(file, &d, fb);
    let out = look(&func);
    types
        .functions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(die, func);
    Ok(out)
}

/// A function by name (a global definition first, then a file-static one).
pub fn function_by_name(file: &Arc<DebugFile>, name: &str) -> Result<Option<Function>> {
    let types = dietypes::types(file);
    let idx = types.index();
    let Some(list) = idx.functions.get(name) else {
        return Ok(None);
    };
    // A global definition first (the last of equals, as before); a function only inlined (an
    // abstract instance, no code of its own) is no symbol for gdb.
    let mut defs: Vec<_> = list.iter().filter(|n| !n.declaration).collect();
    defs.reverse();
    defs.sort_by_key(|n| std::cmp::Reverse(n.external));
    for n in defs {
        let d = read_tree(file, n.die, 1)?;
        let fb = d.attr(dw::DW_AT_frame_base).cloned();
        let f = make_function(file, &d, fb);
        if !f.ranges.is_empty() || f.low_pc != 0 {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// The parameters of `function` (declaration order), e.g. for `bt` lines.
pub fn function_params(file: &Arc<DebugFile>, function: &Function) -> Result<Vec<Variable>> {
    let d = read_tree(file, function.die, 1)?;
    Ok(own_variables(file, &d, &function.frame_base).0)
}

/// A global or file-static variable by name. File statics of unit `prefer_unit` (the unit of
/// the selected frame) come first, then external definitions, then any other unit's statics.
pub fn lookup_global(
    file: &Arc<DebugFile>,
    name: &str,
    prefer_unit: Option<usize>,
) -> Result<Option<Variable>> {
    let types = dietypes::types(file);
    let idx = types.index();
    let Some(list) = idx.variables.get(name) else {
        return Ok(None);
    };
    // A definition has a location (or a constant); a declaration does not.
    let defs: Vec<_> = list.iter().filter(|n| !n.declaration).collect();
    let pick = defs
        .iter()
        .find(|n| Some(n.unit) == prefer_unit && !n.external)
        .or_else(|| defs.iter().find(|n| n.external))
        .or_else(|| defs.first());
    let Some(n) = pick else { return Ok(None) };
    let d = dietypes::read_die(file, n.die)?;
    let kind = if n.external {
        VarKind::Global
    } else {
        VarKind::FileStatic
    };
    Ok(make_variable(file, &d, kind, None))
}

/// `'file.c'::name`: a global or static of the unit whose source file is `source` (matched on
/// the whole name or its last path components).
pub fn lookup_in_file(file: &Arc<DebugFile>, source: &str, name: &str) -> Result<Option<Variable>> {
    for ui in 0..file.units.len() {
        let Some(uname) = unit_name(file, ui) else {
            continue;
        };
        if !path_matches(&uname, source) {
            continue;
        }
        let root = read_tree_at(file, ui, None, 1)?;
        for d in &root.children {
            if d.tag != dw::DW_TAG_variable || d.flag(dw::DW_AT_declaration) {
                continue;
            }
            let full = with_origin(file, d);
            if full.name(file).as_deref() == Some(name) {
                let kind = if full.flag(dw::DW_AT_external) {
                    VarKind::Global
                } else {
                    VarKind::FileStatic
                };
                return Ok(make_variable(file, d, kind, None));
            }
        }
    }
    Ok(None)
}

fn path_matches(unit_name: &str, wanted: &str) -> bool {
    unit_name == wanted
        || unit_name
            .strip_suffix(wanted)
            .is_some_and(|p| p.ends_with('/'))
}

/// `function::name`: a variable of `function` by name, at any block depth (a static local
/// usually; gdb also accepts others and then needs the frame).
pub fn lookup_in_function(
    file: &Arc<DebugFile>,
    function: &str,
    name: &str,
) -> Result<Option<Variable>> {
    let Some(f) = function_by_name(file, function)? else {
        return Ok(None);
    };
    let d = read_tree(file, f.die, usize::MAX)?;
    Ok(find_nested(file, &d, name, &f.frame_base))
}

fn find_nested(
    file: &Arc<DebugFile>,
    d: &Die,
    name: &str,
    fb: &Option<AttributeValue<R>>,
) -> Option<Variable> {
    let (params, locals) = own_variables(file, d, fb);
    if let Some(v) = locals.into_iter().chain(params).find(|v| v.name == name) {
        return Some(v);
    }
    d.children
        .iter()
        .filter(|c| c.tag == dw::DW_TAG_lexical_block)
        .find_map(|c| find_nested(file, c, name, fb))
}

/// What a call site calls (gdb's `call_site_target`).
#[derive(Debug, Clone)]
pub enum CallTarget {
    /// A function defined in this file, by its link-time entry address.
    Address(u64),
    /// A function declared here and defined elsewhere: its linkage name (or name), found by
    /// symbol.
    Name(String),
    /// `DW_AT_call_target`: an expression giving the address in the caller's frame (an
    /// indirect call).
    Expr(gimli::Expression<R>),
    /// The DWARF does not say (gdb: "DW_AT_call_target is not specified"): no
    /// `DW_AT_call_origin`, or one whose DIE has no address (the abstract instance of a
    /// function that is also inlined).
    Unspecified,
}

/// A parameter at a call site: where the callee receives it, and the caller's expressions
/// for its value and (for a reference) the value it points to.
#[derive(Debug, Clone)]
pub struct CallSiteParam {
    /// `DW_AT_location`: a register (`DW_OP_regN`, `DW_OP_regx`).
    pub location: gimli::Expression<R>,
    /// `DW_AT_call_value`.
    pub value: Option<gimli::Expression<R>>,
    /// `DW_AT_call_data_value`.
    pub data_value: Option<gimli::Expression<R>>,
}

/// A call site in the function containing `return_pc` (link-time): the `DW_TAG_call_site` whose
/// return address is `return_pc`, with what it calls and its parameters. Used for
/// `DW_OP_entry_value` and tail-call frames.
#[derive(Debug, Clone)]
pub struct CallSite {
    pub unit: usize,
    /// Link-time address after the call instruction (after the jump for a tail call).
    pub return_pc: u64,
    pub target: CallTarget,
    /// `DW_AT_call_tail_call`: a jump that leaves no return address.
    pub tail_call: bool,
    pub params: Vec<CallSiteParam>,
    /// The caller's frame base (the value expressions may use `DW_OP_fbreg`).
    pub frame_base: Option<AttributeValue<R>>,
}

/// The call site whose return address is the link-time `return_pc`, in the function that
/// contains the call.
pub fn call_site(file: &Arc<DebugFile>, return_pc: u64) -> Result<Option<CallSite>> {
    Ok(call_sites(file, return_pc.saturating_sub(1))?
        .iter()
        .find(|s| s.return_pc == return_pc)
        .cloned())
}

/// Every call site of the function containing the link-time `pc` (inlined calls' included),
/// in DIE order.
pub fn call_sites(file: &Arc<DebugFile>, pc: u64) -> Result<Arc<Vec<CallSite>>> {
    let Some(die) = function_die_at(file, pc) else {
        return Ok(Arc::new(Vec::new()));
    };
    // Read once per function: entry values and tail-call frames ask at every stop.
    let key = (Arc::as_ptr(file) as usize, die);
    if let Some(v) = CALL_SITES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
    {
        return Ok(v.clone());
    }
    let d = read_tree(file, die, usize::MAX)?;
    let fb = d.attr(dw::DW_AT_frame_base).cloned();
    let mut out = Vec::new();
    collect_call_sites(file, &d, &fb, &mut out);
    let v = Arc::new(out);
    let mut cache = CALL_SITES.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= 4096 {
        cache.clear();
    }
    cache.insert(key, v.clone());
    Ok(v)
}

/// The call sites of functions by (file, function DIE); files stay loaded (see
/// [`dietypes::types`]), so their addresses stay theirs.
static CALL_SITES: LazyLock<Mutex<CallSiteCache>> = LazyLock::new(|| Mutex::new(HashMap::new()));

type CallSiteCache = HashMap<(usize, DieRef), Arc<Vec<CallSite>>>;

fn collect_call_sites(
    file: &Arc<DebugFile>,
    d: &Die,
    fb: &Option<AttributeValue<R>>,
    out: &mut Vec<CallSite>,
) {
    let Ok(unit) = file.unit(d.unit) else { return };
    for c in &d.children {
        match c.tag {
            dw::DW_TAG_call_site | dw::DW_TAG_GNU_call_site => {
                let ret = c
                    .attr(dw::DW_AT_call_return_pc)
                    .or_else(|| c.attr(dw::DW_AT_low_pc))
                    .and_then(|v| file.dwarf.attr_address(unit, *v).ok().flatten());
                let Some(return_pc) = ret else { continue };
                let params = c
                    .children
                    .iter()
                    .filter(|p| {
                        p.tag == dw::DW_TAG_call_site_parameter
                            || p.tag == dw::DW_TAG_GNU_call_site_parameter
                    })
                    .filter_map(|p| {
                        let expr = |a: dw::DwAt, gnu: dw::DwAt| {
                            p.attr(a)
                                .or_else(|| p.attr(gnu))
                                .and_then(|v| v.exprloc_value())
                        };
                        Some(CallSiteParam {
                            location: p.attr(dw::DW_AT_location)?.exprloc_value()?,
                            value: expr(dw::DW_AT_call_value, dw::DW_AT_GNU_call_site_value),
                            data_value: expr(
                                dw::DW_AT_call_data_value,
                                dw::DW_AT_GNU_call_site_data_value,
                            ),
                        })
                    })
                    .collect();
                out.push(CallSite {
                    unit: d.unit,
                    return_pc,
                    target: call_target(file, c),
                    tail_call: c.flag(dw::DW_AT_call_tail_call) || c.flag(dw::DW_AT_GNU_tail_call),
                    params,
                    frame_base: *fb,
                });
            }
            dw::DW_TAG_lexical_block | dw::DW_TAG_inlined_subroutine => {
                collect_call_sites(file, c, fb, out);
            }
            _ => {}
        }
    }
}

/// What call site `c` calls, as gdb's `read_call_site_scope` reads it.
fn call_target(file: &Arc<DebugFile>, c: &Die) -> CallTarget {
    if let Some(e) = c
        .attr(dw::DW_AT_call_target)
        .or_else(|| c.attr(dw::DW_AT_GNU_call_site_target))
        .and_then(|v| v.exprloc_value())
    {
        return CallTarget::Expr(e);
    }
    let Some(t) = c
        .reference(file, dw::DW_AT_call_origin)
        .or_else(|| c.reference(file, dw::DW_AT_abstract_origin))
        .and_then(|r| dietypes::read_die(file, r).ok())
    else {
        return CallTarget::Unspecified;
    };
    if t.flag(dw::DW_AT_declaration) {
        return match t
            .string(file, dw::DW_AT_linkage_name)
            .or_else(|| t.string(file, dw::DW_AT_MIPS_linkage_name))
            .or_else(|| t.name(file))
        {
            Some(n) => CallTarget::Name(n),
            None => CallTarget::Unspecified,
        };
    }
    // gdb takes the DIE's lowest address.
    match die_ranges(file, &t).iter().map(|r| r.start).min() {
        Some(a) => CallTarget::Address(a),
        None => CallTarget::Unspecified,
    }
}

/// The link-time entry of the function a call target names in `file`: an address, or a
/// declaration's name defined in this file; `None` for other targets.
pub fn call_target_address(file: &Arc<DebugFile>, t: &CallTarget) -> Option<u64> {
    match t {
        CallTarget::Address(a) => Some(*a),
        CallTarget::Name(n) => function_by_name(file, n)
            .ok()
            .flatten()
            .map(|f| f.block_entry_pc())
            // A linkage name (glibc's `__GI___futex_abstimed_wait_cancelable64`, declared in
            // one unit and defined in another), as gdb finds it by its minimal symbol.
            .or_else(|| {
                file.functions_named(n)
                    .iter()
                    .filter(|f| !f.inlined_copy && f.linkage_name == Some(n.as_str()))
                    .find_map(|f| f.entry_pc())
            }),
        CallTarget::Expr(_) | CallTarget::Unspecified => None,
    }
}

/// The name gdb gives a function in frame lines: in C, its linkage name when the DWARF has one
/// (gdb keeps C symbol names in linkage form: glibc's `__GI___libc_read`), else its name.
pub fn frame_function_name(file: &Arc<DebugFile>, f: &Function) -> String {
    match &f.linkage_name {
        Some(l) if unit_is_c(file, f.unit) => l.clone(),
        // gdb prints a C++ function's name without its parameters, unless its C++ name
        // parser cannot read the physname (`cp_remove_params` fails): then the whole
        // physname (`a6(std::function<int (double, char)> const&)`).
        l if crate::format::Language::Cplus == unit_language(file, f.unit) => {
            match crate::cxxname::physname(file, f.die, &f.name) {
                Some(p) if crate::cxxname::gdb_cannot_parse(&p) => p,
                // The physname's spelling (`W<std::array<char, 2ul> >::m`).
                Some(p) if l.is_some() => {
                    crate::cxxname::without_params(&p).unwrap_or_else(|| f.name.clone())
                }
                _ => f.name.clone(),
            }
        }
        _ => f.name.clone(),
    }
}

/// Whether unit `ui` is C (of any standard).
pub fn unit_is_c(file: &DebugFile, ui: usize) -> bool {
    let Ok(root) = read_tree_at(file, ui, None, 0) else {
        return false;
    };
    matches!(
        root.udata(dw::DW_AT_language)
            .map(|l| gimli::DwLang(l as u16)),
        Some(dw::DW_LANG_C89 | dw::DW_LANG_C | dw::DW_LANG_C99 | dw::DW_LANG_C11 | dw::DW_LANG_C17)
    )
}

/// The language of unit `ui` (its `DW_AT_language`), as printing and parsing choose it.
pub fn unit_language(file: &DebugFile, ui: usize) -> crate::format::Language {
    let Ok(root) = read_tree_at(file, ui, None, 0) else {
        return crate::format::Language::C;
    };
    match root.udata(dw::DW_AT_language) {
        Some(l) => crate::format::Language::from_dw_lang(gimli::DwLang(l as u16)),
        None => crate::format::Language::C,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule `UnitFuncs::die_at` implements, by looking at every function. (A function
    /// whose own ranges overlap, which compilers do not emit, counts with the later start.)
    fn linear(entries: &[FuncEntry], pc: u64) -> Option<DieRef> {
        entries
            .iter()
            .filter_map(|f| {
                f.ranges
                    .iter()
                    .filter(|r| r.contains(&pc))
                    .map(|r| r.start)
                    .max()
                    .map(|start| (start, f))
            })
            .max_by_key(|(start, _)| *start)
            .map(|(_, f)| f.die)
    }

    fn entry(n: usize, ranges: &[(u64, u64)]) -> FuncEntry {
        FuncEntry {
            die: DieRef(gimli::DebugInfoOffset(n)),
            ranges: ranges.iter().map(|&(a, b)| a..b).collect(),
        }
    }

    #[test]
    fn the_function_of_a_pc_is_found_as_by_looking_at_every_function() {
        // Aliases on one range (the last in DIE order wins), a function in two pieces, an
        // empty range, a range inside a longer one, and gaps.
        let fixed = vec![
            entry(1, &[(0x100, 0x200)]),
            entry(2, &[(0x100, 0x200)]),
            entry(3, &[(0x300, 0x340), (0x500, 0x520)]),
            entry(4, &[(0x400, 0x400)]),
            entry(5, &[(0x180, 0x190)]),
            entry(6, &[(0x600, 0x700)]),
        ];
        let u = UnitFuncs::new(fixed.clone());
        for pc in (0..0x800).step_by(4) {
            assert_eq!(u.die_at(pc), linear(&fixed, pc), "pc {pc:#x}");
        }
        assert_eq!(u.die_at(0x150), Some(DieRef(gimli::DebugInfoOffset(2))));
        assert_eq!(u.die_at(0x185), Some(DieRef(gimli::DebugInfoOffset(5))));
        assert_eq!(u.die_at(0x510), Some(DieRef(gimli::DebugInfoOffset(3))));
        assert_eq!(u.die_at(0x400), None);

        // Many units of random functions (a fixed sequence: the test always sees the same).
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200 {
            let n = (next() % 30) as usize;
            let entries: Vec<FuncEntry> = (0..n)
                .map(|i| {
                    let pieces = 1 + (next() % 2) as usize;
                    let ranges: Vec<(u64, u64)> = (0..pieces)
                        .map(|_| {
                            let a = next() % 0x1000;
                            (a, a + next() % 0x200)
                        })
                        .collect();
                    entry(i, &ranges)
                })
                .collect();
            let u = UnitFuncs::new(entries.clone());
            for pc in (0..0x1300).step_by(7) {
                assert_eq!(
                    u.die_at(pc),
                    linear(&entries, pc),
                    "pc {pc:#x} in {entries:?}"
                );
            }
        }
    }
}
