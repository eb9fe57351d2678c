//! A cubin (CUDA device ELF, `EM_CUDA`) and its debug information: sections, kernels, DWARF
//! units, line tables both ways, variables with their PTX registers and address classes.
//!
//! A cubin straight from the compiler has every `.text.KERNEL` at address 0 and its debug
//! sections carry `R_CUDA_64` relocations against the kernels' symbols; [`Cubin::parse`] lays
//! the code sections out one after the other (in section order, each at its alignment) and
//! applies those relocations, so every address below is unique in the image. A relocated
//! image from the driver (`getElfImageByHandle(..., RELOCATED)`) already has its addresses
//! and is taken as it is.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use gimli::{EndianArcSlice, LittleEndian, Reader as _, Section as _};
use object::elf;
use object::read::elf::{FileHeader, Rela, SectionHeader, Sym};

use crate::error::{CudaError, Result};
use crate::frame::DebugFrame;
use crate::regmap::{RegisterMap, ptx_register_name};

type Reader = EndianArcSlice<LittleEndian>;

/// `EM_CUDA`.
pub const EM_CUDA: u16 = 190;
/// `R_CUDA_64`: a 64-bit absolute address.
const R_CUDA_64: u32 = 2;

/// `DW_AT_address_class` values of NVIDIA's DWARF (`ptxStorageKind` in `cudadebugger.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    Code,
    Register,
    SpecialRegister,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Surface,
    Texture,
    TexSampler,
    Generic,
    IParam,
    OParam,
    Frame,
    UniformRegister,
    Unknown(u64),
}

impl AddressClass {
    pub fn from_dwarf(v: u64) -> AddressClass {
        match v {
            1 => AddressClass::Code,
            2 => AddressClass::Register,
            3 => AddressClass::SpecialRegister,
            4 => AddressClass::Const,
            5 => AddressClass::Global,
            6 => AddressClass::Local,
            7 => AddressClass::Param,
            8 => AddressClass::Shared,
            9 => AddressClass::Surface,
            10 => AddressClass::Texture,
            11 => AddressClass::TexSampler,
            12 => AddressClass::Generic,
            13 => AddressClass::IParam,
            14 => AddressClass::OParam,
            15 => AddressClass::Frame,
            16 => AddressClass::UniformRegister,
            o => AddressClass::Unknown(o),
        }
    }

    /// The qualifier cuda-gdb prints (`@shared`, `@local`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            AddressClass::Code => "code",
            AddressClass::Register => "register",
            AddressClass::SpecialRegister => "sreg",
            AddressClass::Const => "constant",
            AddressClass::Global => "global",
            AddressClass::Local => "local",
            AddressClass::Param => "parameter",
            AddressClass::Shared => "shared",
            AddressClass::Surface => "surface",
            AddressClass::Texture => "texture",
            AddressClass::TexSampler => "texsampler",
            AddressClass::Generic => "generic",
            AddressClass::IParam => "iparam",
            AddressClass::OParam => "oparam",
            AddressClass::Frame => "frame",
            AddressClass::UniformRegister => "uniform register",
            AddressClass::Unknown(_) => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubinSection {
    pub index: usize,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    /// Address in the image (laid out for an unrelocated cubin).
    pub addr: u64,
    pub size: u64,
}

/// A device function from the ELF symbol table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub addr: u64,
    pub size: u64,
    /// A `__global__` kernel (`STO_CUDA_ENTRY`).
    pub entry: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitInfo {
    pub name: String,
    pub comp_dir: String,
    pub producer: String,
    pub language: u16,
    pub version: u16,
}

/// One row of a line table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRow {
    pub addr: u64,
    /// File name as in the line table (without directory).
    pub file: String,
    /// Directory and name.
    pub path: String,
    pub line: u32,
    /// The row ends a sequence (its address is one past the sequence).
    pub end_sequence: bool,
}

/// Where a variable is, decoded from its `DW_AT_location`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A PTX virtual register (its name, unpacked from `DW_OP_regx`).
    PtxRegister(String),
    /// An address in the variable's address class (`DW_OP_addr`).
    Address(u64),
    /// An offset from the frame base (`DW_OP_fbreg`, then `DW_OP_plus_uconst`).
    FrameOffset(i64),
    /// A location list: `[lo, hi)` → location.
    List(Vec<(u64, u64, Location)>),
    /// Optimised out (an empty expression or no location).
    None,
    /// An expression this crate does not evaluate (its first unsupported operation).
    Unsupported(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    Parameter,
    Local,
    Global,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub kind: VarKind,
    pub type_name: String,
    pub byte_size: Option<u64>,
    pub decl_line: Option<u64>,
    pub address_class: Option<AddressClass>,
    pub location: Location,
    /// The enclosing lexical block's `[low_pc, high_pc)`, if any.
    pub block: Option<(u64, u64)>,
}

/// A parsed cubin.
pub struct Cubin {
    sections: Vec<CubinSection>,
    functions: Vec<Function>,
    /// The SM version from `e_flags` (90 for sm_90).
    sm: u32,
    data: Arc<[u8]>,
    dwarf: gimli::Dwarf<Reader>,
    rows: Vec<LineRow>,
    regmap: RegisterMap,
    reg_types: BTreeMap<String, Vec<u8>>,
    frame: DebugFrame,
    relocated: bool,
}

fn err(m: impl Into<String>) -> CudaError {
    CudaError::Cubin(m.into())
}

impl Cubin {
    pub fn parse(data: &[u8]) -> Result<Cubin> {
        let e = LittleEndian;
        let oe = object::LittleEndian;
        let hdr = elf::FileHeader64::<object::LittleEndian>::parse(data)?;
        if hdr.e_machine(oe) != EM_CUDA {
            return Err(err(format!(
                "not a cubin: ELF machine {} (EM_CUDA is {EM_CUDA})",
                hdr.e_machine(oe)
            )));
        }
        // The SM is the low byte of e_flags up to ELF ABI version 7 (NVRTC 12.9: 0x5a055a),
        // the second byte from version 8 on (nvcc 13.0 as the driver relocates it: 0xf005a04).
        let flags = hdr.e_flags(oe);
        let sm = if hdr.e_ident().abi_version >= 8 {
            (flags >> 8) & 0xff
        } else {
            flags & 0xff
        };
        let table = hdr.sections(oe, data)?;
        let mut sections = Vec::new();
        for (i, s) in table.iter().enumerate() {
            let name = String::from_utf8_lossy(table.section_name(oe, s)?).into_owned();
            sections.push(CubinSection {
                index: i,
                name,
                sh_type: s.sh_type(oe),
                flags: s.sh_flags(oe),
                addr: s.sh_addr(oe),
                size: s.sh_size(oe),
            });
        }
        let exec = |s: &CubinSection| s.flags & elf::SHF_EXECINSTR as u64 != 0;
        let relocated = sections.iter().filter(|s| exec(s)).any(|s| s.addr != 0);
        if !relocated {
            let mut cursor = 0u64;
            for (i, s) in table.iter().enumerate() {
                if !exec(&sections[i]) {
                    continue;
                }
                let align = s.sh_addralign(oe).max(1);
                let bad = || err(format!("section {i}: alignment or size out of range"));
                cursor = cursor.div_ceil(align).checked_mul(align).ok_or_else(bad)?;
                sections[i].addr = cursor;
                cursor = cursor.checked_add(sections[i].size).ok_or_else(bad)?;
            }
        }
        // Symbols at their image addresses.
        let symtab = table.symbols(oe, data, elf::SHT_SYMTAB)?;
        let sym_addr = |idx: usize| -> Result<u64> {
            let sym = symtab.symbol(object::SymbolIndex(idx))?;
            let shndx = sym.st_shndx(oe) as usize;
            let base =
                if !relocated && shndx != 0 && shndx < sections.len() && exec(&sections[shndx]) {
                    sections[shndx].addr
                } else {
                    0
                };
            Ok(base.wrapping_add(sym.st_value(oe)))
        };
        let mut functions = Vec::new();
        for (i, sym) in symtab.iter().enumerate() {
            if sym.st_type() != elf::STT_FUNC {
                continue;
            }
            let name = String::from_utf8_lossy(symtab.symbol_name(oe, sym)?).into_owned();
            functions.push(Function {
                name,
                addr: sym_addr(i)?,
                size: sym.st_size(oe),
                // STO_CUDA_ENTRY (0x10) in st_other.
                entry: sym.st_other() & 0x10 != 0,
            });
        }
        functions.sort_by_key(|f| f.addr);
        // Debug sections, relocated.
        let mut debug: HashMap<String, Vec<u8>> = HashMap::new();
        for (i, s) in table.iter().enumerate() {
            let n = &sections[i].name;
            if n.starts_with(".debug_") || n.starts_with(".nv_debug") {
                debug.insert(n.clone(), s.data(oe, data)?.to_vec());
            }
        }
        if !relocated {
            for s in table.iter() {
                let Some((relas, _link)) = s.rela(oe, data)? else {
                    continue;
                };
                let target = s.sh_info(oe) as usize;
                let Some(tname) = sections.get(target).map(|t| t.name.clone()) else {
                    continue;
                };
                let Some(buf) = debug.get_mut(&tname) else {
                    continue;
                };
                for r in relas {
                    let ty = r.r_type(oe, false);
                    let off = r.r_offset(oe) as usize;
                    let value =
                        sym_addr(r.r_sym(oe, false) as usize)?.wrapping_add(r.r_addend(oe) as u64);
                    if ty != R_CUDA_64 {
                        return Err(err(format!(
                            "relocation type {ty} in {tname} at {off:#x} not supported"
                        )));
                    }
                    let dst = off
                        .checked_add(8)
                        .and_then(|e| buf.get_mut(off..e))
                        .ok_or_else(|| err(format!("relocation at {off:#x} outside {tname}")))?;
                    dst.copy_from_slice(&value.to_le_bytes());
                }
            }
        }
        let section = |id: gimli::SectionId| -> std::result::Result<Reader, gimli::Error> {
            let bytes: Arc<[u8]> = debug
                .get(id.name())
                .map(|v| Arc::from(v.as_slice()))
                .unwrap_or_else(|| Arc::from(&[][..]));
            Ok(EndianArcSlice::new(bytes, e))
        };
        let dwarf = gimli::Dwarf::load(section)?;
        let regmap = match debug.get(".nv_debug_info_reg_sass") {
            Some(d) => RegisterMap::parse(d)?,
            None => RegisterMap::default(),
        };
        let reg_types = match debug.get(".nv_debug_info_reg_type") {
            Some(d) => crate::regmap::parse_reg_types(d)?,
            None => BTreeMap::new(),
        };
        let frame = match debug.get(".debug_frame") {
            Some(d) => DebugFrame::parse(d)?,
            None => DebugFrame::default(),
        };
        let mut cubin = Cubin {
            sections,
            functions,
            sm,
            data: Arc::from(data),
            dwarf,
            rows: Vec::new(),
            regmap,
            reg_types,
            frame,
            relocated,
        };
        cubin.rows = cubin.read_lines()?;
        Ok(cubin)
    }

    pub fn data(&self) -> &[u8] {
        &self.data
    }
    pub fn sections(&self) -> &[CubinSection] {
        &self.sections
    }
    pub fn section(&self, name: &str) -> Option<&CubinSection> {
        self.sections.iter().find(|s| s.name == name)
    }
    /// The SM the code is for (90 for `sm_90`).
    pub fn sm(&self) -> u32 {
        self.sm
    }
    /// Whether the image came with its addresses (from the driver) or was laid out here.
    pub fn was_relocated(&self) -> bool {
        self.relocated
    }
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    pub fn function_at(&self, addr: u64) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.addr <= addr && addr < f.addr + f.size.max(1))
    }
    pub fn register_map(&self) -> &RegisterMap {
        &self.regmap
    }
    pub fn register_types(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.reg_types
    }
    pub fn debug_frame(&self) -> &DebugFrame {
        &self.frame
    }

    pub fn units(&self) -> Result<Vec<UnitInfo>> {
        let mut out = Vec::new();
        let mut it = self.dwarf.units();
        while let Some(h) = it.next()? {
            let unit = self.dwarf.unit(h)?;
            let mut entries = unit.entries();
            let Some((_, root)) = entries.next_dfs()? else {
                continue;
            };
            let s = |a| -> Result<String> {
                Ok(match root.attr_value(a)? {
                    Some(v) => self
                        .dwarf
                        .attr_string(&unit, v)
                        .map(|r| {
                            r.to_string_lossy()
                                .map(|c| c.into_owned())
                                .unwrap_or_default()
                        })
                        .unwrap_or_default(),
                    None => String::new(),
                })
            };
            let language = match root.attr_value(gimli::DW_AT_language)? {
                Some(gimli::AttributeValue::Language(l)) => l.0,
                Some(v) => v.udata_value().unwrap_or(0) as u16,
                None => 0,
            };
            out.push(UnitInfo {
                name: s(gimli::DW_AT_name)?,
                comp_dir: s(gimli::DW_AT_comp_dir)?,
                producer: s(gimli::DW_AT_producer)?,
                language,
                version: unit.header.version(),
            });
        }
        Ok(out)
    }

    fn line_string(&self, v: gimli::AttributeValue<Reader>) -> String {
        let r = match v {
            gimli::AttributeValue::String(r) => Some(r),
            gimli::AttributeValue::DebugStrRef(o) => self.dwarf.debug_str.get_str(o).ok(),
            gimli::AttributeValue::DebugLineStrRef(o) => self.dwarf.debug_line_str.get_str(o).ok(),
            _ => None,
        };
        r.and_then(|r| r.to_string_lossy().ok().map(|c| c.into_owned()))
            .unwrap_or_default()
    }

    /// Every line program of `.debug_line`, read in section order (a `-lineinfo` cubin has
    /// line programs but no `.debug_info` to point at them).
    fn read_lines(&self) -> Result<Vec<LineRow>> {
        let mut rows = Vec::new();
        let total = self.dwarf.debug_line.reader().len();
        let mut offset = 0usize;
        while offset < total {
            let program =
                self.dwarf
                    .debug_line
                    .program(gimli::DebugLineOffset(offset), 8, None, None)?;
            let header = program.header();
            let next =
                offset + header.format().initial_length_size() as usize + header.unit_length();
            let mut r = program.rows();
            while let Some((header, row)) = r.next_row()? {
                let (file, path) = match row.file(header) {
                    Some(f) => {
                        let name = self.line_string(f.path_name());
                        let dir = f
                            .directory(header)
                            .map(|d| self.line_string(d))
                            .unwrap_or_default();
                        let path = if dir.is_empty() || name.starts_with('/') {
                            name.clone()
                        } else {
                            format!("{dir}/{name}")
                        };
                        let base = name.rsplit('/').next().unwrap_or(&name).to_string();
                        (base, path)
                    }
                    None => (String::new(), String::new()),
                };
                rows.push(LineRow {
                    addr: row.address(),
                    file,
                    path,
                    line: row.line().map_or(0, |l| l.get() as u32),
                    end_sequence: row.end_sequence(),
                });
            }
            if next <= offset {
                break;
            }
            offset = next;
        }
        Ok(rows)
    }

    /// The line table rows, in table order (sequence by sequence).
    pub fn line_rows(&self) -> &[LineRow] {
        &self.rows
    }

    /// Address → (file, line): the last row at or before `addr` in the sequence holding it.
    pub fn find_line(&self, addr: u64) -> Option<(&str, u32)> {
        let mut best: Option<&LineRow> = None;
        let mut seq: Vec<&LineRow> = Vec::new();
        for r in &self.rows {
            if r.end_sequence {
                if let (Some(first), true) = (seq.first(), true)
                    && first.addr <= addr
                    && addr < r.addr
                {
                    best = seq.iter().rev().find(|x| x.addr <= addr).copied();
                }
                seq.clear();
            } else {
                seq.push(r);
            }
        }
        best.map(|r| (r.file.as_str(), r.line))
    }

    /// `FILE:LINE` → addresses, as gdb resolves a breakpoint: the rows of the line (or of the
    /// smallest later line that has rows, when it has none), the lowest address per function.
    pub fn line_addresses(&self, file: &str, line: u32) -> Vec<u64> {
        let matches = |r: &LineRow| {
            !r.end_sequence
                && (r.file == file || r.path == file || r.path.ends_with(&format!("/{file}")))
        };
        let best = self
            .rows
            .iter()
            .filter(|r| matches(r) && r.line >= line)
            .map(|r| r.line)
            .min();
        let Some(best) = best else {
            return Vec::new();
        };
        let mut per_fn: BTreeMap<u64, u64> = BTreeMap::new();
        for r in self.rows.iter().filter(|r| matches(r) && r.line == best) {
            let key = self.function_at(r.addr).map_or(r.addr, |f| f.addr);
            let e = per_fn.entry(key).or_insert(r.addr);
            *e = (*e).min(r.addr);
        }
        per_fn.into_values().collect()
    }

    /// `break FUNCTION`: the first row after the function's entry whose line differs from the
    /// entry's (gdb's prologue analysis by line table), or the entry itself.
    pub fn breakpoint_address(&self, function: &str) -> Option<u64> {
        let f = self.function(function)?;
        let end = f.addr + f.size;
        let rows: Vec<&LineRow> = self
            .rows
            .iter()
            .filter(|r| !r.end_sequence && r.addr >= f.addr && r.addr < end)
            .collect();
        let first = rows.iter().find(|r| r.addr == f.addr)?;
        Some(
            rows.iter()
                .find(|r| r.addr > f.addr && r.line != first.line)
                .map_or(f.addr, |r| r.addr),
        )
    }

    /// A linespec: `FUNCTION`, `FILE:LINE` or `*ADDR`.
    pub fn resolve(&self, spec: &str) -> Vec<u64> {
        if let Some(a) = spec.strip_prefix('*') {
            let a = a.trim();
            let v = a.strip_prefix("0x").map_or_else(
                || a.parse::<u64>().ok(),
                |h| u64::from_str_radix(h, 16).ok(),
            );
            return v.into_iter().collect();
        }
        if let Some((file, line)) = spec.rsplit_once(':')
            && let Ok(l) = line.trim().parse::<u32>()
        {
            return self.line_addresses(file.trim(), l);
        }
        self.breakpoint_address(spec.trim()).into_iter().collect()
    }

    /// The CUDA source line of `addr` as `FILE:LINE`.
    pub fn describe(&self, addr: u64) -> Option<String> {
        self.find_line(addr).map(|(f, l)| format!("{f}:{l}"))
    }

    /// Variables of the compilation units (file-scope `__shared__`, `__device__`, ...).
    pub fn globals(&self) -> Result<Vec<Variable>> {
        let mut out = Vec::new();
        let mut it = self.dwarf.units();
        while let Some(h) = it.next()? {
            let unit = self.dwarf.unit(h)?;
            let mut tree = unit.entries_tree(None)?;
            let root = tree.root()?;
            let mut children = root.children();
            while let Some(child) = children.next()? {
                if child.entry().tag() == gimli::DW_TAG_variable {
                    out.push(self.variable(&unit, child.entry(), VarKind::Global, None)?);
                }
            }
        }
        Ok(out)
    }

    /// Parameters and local variables of `function` (all its lexical blocks), in DIE order.
    pub fn variables(&self, function: &str) -> Result<Vec<Variable>> {
        let mut out = Vec::new();
        let mut it = self.dwarf.units();
        while let Some(h) = it.next()? {
            let unit = self.dwarf.unit(h)?;
            let mut tree = unit.entries_tree(None)?;
            let root = tree.root()?;
            let mut children = root.children();
            while let Some(child) = children.next()? {
                let e = child.entry();
                if e.tag() != gimli::DW_TAG_subprogram {
                    continue;
                }
                let name = self.name_of(&unit, e)?;
                let linkage = match e.attr_value(gimli::DW_AT_MIPS_linkage_name)? {
                    Some(v) => self.string(&unit, v),
                    None => String::new(),
                };
                if name != function && linkage != function {
                    continue;
                }
                self.collect(&unit, child, None, &mut out)?;
            }
        }
        Ok(out)
    }

    fn collect(
        &self,
        unit: &gimli::Unit<Reader>,
        node: gimli::EntriesTreeNode<Reader>,
        block: Option<(u64, u64)>,
        out: &mut Vec<Variable>,
    ) -> Result<()> {
        let mut children = node.children();
        while let Some(child) = children.next()? {
            let e = child.entry();
            match e.tag() {
                gimli::DW_TAG_formal_parameter => {
                    out.push(self.variable(unit, e, VarKind::Parameter, block)?)
                }
                gimli::DW_TAG_variable => {
                    out.push(self.variable(unit, e, VarKind::Local, block)?)
                }
                gimli::DW_TAG_lexical_block => {
                    let lo = match e.attr_value(gimli::DW_AT_low_pc)? {
                        Some(gimli::AttributeValue::Addr(a)) => Some(a),
                        _ => None,
                    };
                    let hi = match e.attr_value(gimli::DW_AT_high_pc)? {
                        Some(gimli::AttributeValue::Addr(a)) => Some(a),
                        Some(gimli::AttributeValue::Udata(n)) => lo.map(|l| l + n),
                        _ => None,
                    };
                    let b = lo.zip(hi).or(block);
                    self.collect(unit, child, b, out)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn string(&self, unit: &gimli::Unit<Reader>, v: gimli::AttributeValue<Reader>) -> String {
        self.dwarf
            .attr_string(unit, v)
            .ok()
            .and_then(|s| s.to_string_lossy().ok().map(|c| c.into_owned()))
            .unwrap_or_default()
    }

    fn name_of(
        &self,
        unit: &gimli::Unit<Reader>,
        e: &gimli::DebuggingInformationEntry<Reader>,
    ) -> Result<String> {
        Ok(match e.attr_value(gimli::DW_AT_name)? {
            Some(v) => self.string(unit, v),
            None => String::new(),
        })
    }

    fn variable(
        &self,
        unit: &gimli::Unit<Reader>,
        e: &gimli::DebuggingInformationEntry<Reader>,
        kind: VarKind,
        block: Option<(u64, u64)>,
    ) -> Result<Variable> {
        let name = self.name_of(unit, e)?;
        let (type_name, byte_size) = match e.attr_value(gimli::DW_AT_type)? {
            Some(gimli::AttributeValue::UnitRef(o)) => self.type_name(unit, o, 0)?,
            _ => ("void".into(), None),
        };
        let decl_line = e
            .attr_value(gimli::DW_AT_decl_line)?
            .and_then(|v| v.udata_value());
        let address_class = match e.attr_value(gimli::DW_AT_address_class)? {
            Some(gimli::AttributeValue::AddressClass(c)) => Some(AddressClass::from_dwarf(c.0)),
            Some(v) => v.udata_value().map(AddressClass::from_dwarf),
            None => None,
        };
        let location = match e.attr_value(gimli::DW_AT_location)? {
            Some(gimli::AttributeValue::Exprloc(x)) => decode_expr(&x.0.to_slice()?),
            Some(gimli::AttributeValue::Block(b)) => decode_expr(&b.to_slice()?),
            Some(gimli::AttributeValue::LocationListsRef(o)) => self.loclist(unit, o)?,
            Some(gimli::AttributeValue::SecOffset(o)) => {
                self.loclist(unit, gimli::LocationListsOffset(o))?
            }
            Some(v) => match v.udata_value() {
                // DWARF 2: a location list is a constant offset into .debug_loc.
                Some(o) => self.loclist(unit, gimli::LocationListsOffset(o as usize))?,
                None => Location::Unsupported(format!("{v:?}")),
            },
            None => Location::None,
        };
        Ok(Variable {
            name,
            kind,
            type_name,
            byte_size,
            decl_line,
            address_class,
            location,
            block,
        })
    }

    fn loclist(
        &self,
        unit: &gimli::Unit<Reader>,
        o: gimli::LocationListsOffset<usize>,
    ) -> Result<Location> {
        let mut it = self.dwarf.locations(unit, o)?;
        let mut v = Vec::new();
        while let Some(l) = it.next()? {
            v.push((
                l.range.begin,
                l.range.end,
                decode_expr(&l.data.0.to_slice()?),
            ));
        }
        Ok(Location::List(v))
    }

    fn type_name(
        &self,
        unit: &gimli::Unit<Reader>,
        off: gimli::UnitOffset<usize>,
        depth: u32,
    ) -> Result<(String, Option<u64>)> {
        if depth > 16 {
            return Ok(("<type too deep>".into(), None));
        }
        let e = unit.entry(off)?;
        let size = e
            .attr_value(gimli::DW_AT_byte_size)?
            .and_then(|v| v.udata_value());
        let inner = |s: &Self| -> Result<(String, Option<u64>)> {
            match e.attr_value(gimli::DW_AT_type)? {
                Some(gimli::AttributeValue::UnitRef(o)) => s.type_name(unit, o, depth + 1),
                _ => Ok(("void".into(), None)),
            }
        };
        Ok(match e.tag() {
            gimli::DW_TAG_pointer_type => {
                let (t, _) = inner(self)?;
                // NVIDIA's pointer types carry the space they point into; cuda-gdb prints it
                // (`int * @generic`).
                let class = match e.attr_value(gimli::DW_AT_address_class)? {
                    Some(gimli::AttributeValue::AddressClass(c)) => Some(c.0),
                    Some(v) => v.udata_value(),
                    None => None,
                };
                match class {
                    Some(c) => (
                        format!("{t} * @{}", AddressClass::from_dwarf(c).name()),
                        Some(8),
                    ),
                    None => (format!("{t} *"), Some(8)),
                }
            }
            gimli::DW_TAG_const_type => {
                let (t, s) = inner(self)?;
                (format!("const {t}"), s)
            }
            gimli::DW_TAG_volatile_type => {
                let (t, s) = inner(self)?;
                (format!("volatile {t}"), s)
            }
            gimli::DW_TAG_array_type => {
                let (t, s) = inner(self)?;
                let mut dims = Vec::new();
                let mut tree = unit.entries_tree(Some(off))?;
                let root = tree.root()?;
                let mut ch = root.children();
                while let Some(c) = ch.next()? {
                    let ce = c.entry();
                    if ce.tag() == gimli::DW_TAG_subrange_type {
                        let n = match ce.attr_value(gimli::DW_AT_count)? {
                            Some(v) => v.udata_value(),
                            None => ce
                                .attr_value(gimli::DW_AT_upper_bound)?
                                .and_then(|v| v.udata_value())
                                .map(|u| u + 1),
                        };
                        dims.push(n.unwrap_or(0));
                    }
                }
                let total = dims.iter().product::<u64>();
                let d: String = dims.iter().map(|n| format!("[{n}]")).collect();
                (format!("{t} {d}"), s.map(|s| s * total))
            }
            _ => {
                let n = self.name_of(unit, &e)?;
                (if n.is_empty() { "?".into() } else { n }, size)
            }
        })
    }
}

fn uleb(d: &[u8], p: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = *d.get(*p)?;
        *p += 1;
        if shift < 64 {
            v |= ((b & 0x7f) as u64) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
}

fn sleb(d: &[u8], p: &mut usize) -> Option<i64> {
    let mut v = 0i64;
    let mut shift = 0;
    loop {
        let b = *d.get(*p)?;
        *p += 1;
        if shift < 64 {
            v |= ((b & 0x7f) as i64) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            if shift < 64 && b & 0x40 != 0 {
                v |= -1i64 << shift;
            }
            return Some(v);
        }
    }
}

/// Decode the location expressions NVIDIA's compilers emit: `DW_OP_regx` with a packed PTX
/// register name (gimli's `Register` is 16-bit, so it cannot read these), `DW_OP_addr`,
/// `DW_OP_fbreg` followed by `DW_OP_nop`s and `DW_OP_plus_uconst`.
pub fn decode_expr(d: &[u8]) -> Location {
    if d.is_empty() {
        return Location::None;
    }
    let mut p = 0usize;
    let mut loc: Option<Location> = None;
    while p < d.len() {
        let op = d[p];
        p += 1;
        match op {
            0x03 => {
                let Some(b) = d.get(p..p + 8) else {
                    return Location::Unsupported("truncated DW_OP_addr".into());
                };
                p += 8;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                loc = Some(Location::Address(u64::from_le_bytes(a)));
            }
            0x90 => {
                let Some(r) = uleb(d, &mut p) else {
                    return Location::Unsupported("truncated DW_OP_regx".into());
                };
                loc = Some(match ptx_register_name(r) {
                    Some(n) => Location::PtxRegister(n),
                    None => Location::Unsupported(format!("DW_OP_regx {r:#x}")),
                });
            }
            0x91 => {
                let Some(o) = sleb(d, &mut p) else {
                    return Location::Unsupported("truncated DW_OP_fbreg".into());
                };
                loc = Some(Location::FrameOffset(o));
            }
            0x96 => {}
            0x23 => {
                let Some(n) = uleb(d, &mut p) else {
                    return Location::Unsupported("truncated DW_OP_plus_uconst".into());
                };
                loc = match loc {
                    Some(Location::FrameOffset(o)) => Some(Location::FrameOffset(o + n as i64)),
                    Some(Location::Address(a)) => Some(Location::Address(a.wrapping_add(n))),
                    _ => return Location::Unsupported("DW_OP_plus_uconst".into()),
                };
            }
            o => return Location::Unsupported(format!("DW_OP {o:#x}")),
        }
    }
    loc.unwrap_or(Location::None)
}
