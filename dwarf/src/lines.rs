//! Line tables as gdb 13 builds and reads them: one table per source file of a unit ("subfile"),
//! built from the unit's line program with gdb's rules (end markers of line 0 where the file
//! changes, rows with line 0 dropped, stable sort by address), and gdb's lookups over them:
//! `find_pc_line` (pc → line and its range), `break FILE:LINE` and `break FUNCTION`
//! (prologue skipping) — all on link-time addresses.

use std::path::{Component, Path, PathBuf};

use gimli::Unit;

use crate::R;
use crate::error::{DwarfError, Result};
use crate::index::{BlockKind, FunctionEntry};
use crate::loader::DebugFile;

/// One row of a file's line table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRow {
    pub address: u64,
    /// 0: an end marker (no line information from here).
    pub line: u32,
    pub column: u32,
    pub is_stmt: bool,
    pub prologue_end: bool,
}

/// The rows of one source file within one unit (gdb's symtab).
#[derive(Debug, Clone)]
pub struct Subfile {
    /// The file as gdb displays it (`where_a.c`, `/usr/include/x86_64-linux-gnu/bits/stdio2.h`).
    pub name: String,
    /// Full path: comp_dir + dir + name, lexically normalised.
    pub full: PathBuf,
    /// Sorted by address (end markers first among rows at the same address).
    pub rows: Vec<LineRow>,
}

/// The line tables of one unit.
#[derive(Debug, Clone, Default)]
pub struct UnitLines {
    /// The unit's primary file first.
    pub subfiles: Vec<Subfile>,
    /// Line-program file index → subfile.
    file_map: Vec<Option<usize>>,
    /// One past the unit's highest address with a row.
    end: u64,
}

impl UnitLines {
    /// The subfile of line-program file `index` (as `DW_AT_decl_file` numbers them).
    pub fn file_by_index(&self, index: u64) -> Option<&Subfile> {
        let i = (*self.file_map.get(usize::try_from(index).ok()?)?)?;
        self.subfiles.get(i)
    }
}

/// A unit's files from its line-program header (see `DebugFile::unit_files`).
#[derive(Debug, Default)]
struct UnitFiles {
    /// (display name, full path), the unit's primary file first.
    files: Vec<(String, PathBuf)>,
    /// Line-program file index → `files`.
    file_map: Vec<Option<usize>>,
}

/// Last component of a file name → the units that have a file so named.
pub(crate) type FileIndex = std::collections::HashMap<std::ffi::OsString, Vec<usize>>;

/// The last component of `p` when it is a name (not `.`, `..` or the root).
fn last_name(p: &Path) -> Option<&std::ffi::OsStr> {
    match p.components().next_back()? {
        Component::Normal(n) => Some(n),
        _ => None,
    }
}

/// What gdb's `find_pc_line` gives for a pc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineInfo {
    /// Full path of the file.
    pub file: PathBuf,
    /// The file as gdb displays it.
    pub name: String,
    pub line: u32,
    pub column: u32,
    /// Start of the row's range (gdb's `sal.pc`).
    pub address: u64,
    /// End of the row's range (gdb's `sal.end`).
    pub end: u64,
    pub is_stmt: bool,
    pub unit: usize,
}

/// One location of `break FILE:LINE` / `break FUNCTION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMatch {
    pub address: u64,
    /// The line gdb reports (the requested one, or the next line with code).
    pub actual_line: u32,
    /// Full path and display name of the file.
    pub file: PathBuf,
    pub name: String,
    /// Innermost function (inlined copies included) containing the address.
    pub function: Option<String>,
}

/// Lexical normalisation of a path (`a/./b/../c` → `a/c`), as gdb shows unit paths.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// What `info source` says of a unit's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFileInfo {
    pub comp_dir: Option<String>,
    /// The language as gdb names it (`c`, `c++`, `fortran`, `asm`, `minimal`).
    pub language: &'static str,
    pub producer: Option<String>,
    pub dwarf_version: u16,
}

/// gdb's name of a `DW_AT_language`.
fn language_name(lang: gimli::DwLang) -> &'static str {
    use gimli::constants as c;
    match lang {
        c::DW_LANG_C89 | c::DW_LANG_C99 | c::DW_LANG_C11 | c::DW_LANG_C17 | c::DW_LANG_C => "c",
        c::DW_LANG_C_plus_plus
        | c::DW_LANG_C_plus_plus_03
        | c::DW_LANG_C_plus_plus_11
        | c::DW_LANG_C_plus_plus_14 => "c++",
        c::DW_LANG_Fortran77
        | c::DW_LANG_Fortran90
        | c::DW_LANG_Fortran95
        | c::DW_LANG_Fortran03
        | c::DW_LANG_Fortran08 => "fortran",
        c::DW_LANG_Mips_Assembler => "asm",
        c::DW_LANG_Rust => "rust",
        c::DW_LANG_Go => "go",
        c::DW_LANG_Ada83 | c::DW_LANG_Ada95 => "ada",
        _ => "minimal",
    }
}

impl DebugFile {
    fn attr_path(&self, unit: &Unit<R>, v: gimli::AttributeValue<R>) -> Option<String> {
        self.dwarf
            .attr_string(unit, v)
            .ok()
            .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
    }

    /// `info source` facts for the unit whose file `full` is (its primary file preferred).
    pub fn source_file_info(&self, full: &Path) -> Option<SourceFileInfo> {
        let has = |ui: usize, primary: bool| {
            self.unit_lines(ui).is_ok_and(|l| {
                let mut it = l.subfiles.iter();
                if primary {
                    it.next().is_some_and(|s| s.full == full)
                } else {
                    it.any(|s| s.full == full)
                }
            })
        };
        let n = self.lines.len();
        let ui = (0..n)
            .find(|&u| has(u, true))
            .or_else(|| (0..n).find(|&u| has(u, false)))?;
        let unit = self.unit(ui).ok()?;
        let mut entries = unit.entries();
        let (_, root) = entries.next_dfs().ok()??;
        let text = |at| {
            root.attr_value(at)
                .ok()
                .flatten()
                .and_then(|v| self.attr_path(unit, v))
        };
        let language = match root.attr_value(gimli::constants::DW_AT_language) {
            Ok(Some(gimli::AttributeValue::Language(l))) => language_name(l),
            _ => "minimal",
        };
        Some(SourceFileInfo {
            comp_dir: text(gimli::constants::DW_AT_comp_dir),
            language,
            producer: text(gimli::constants::DW_AT_producer),
            dwarf_version: unit.header.version(),
        })
    }

    /// How many units have had their line rows decoded so far (tests check that a look-up
    /// left an object's rows alone).
    pub fn line_tables_read(&self) -> usize {
        self.lines.iter().filter(|c| c.get().is_some()).count()
    }

    /// Line tables of unit `ui`, built on first use.
    pub fn unit_lines(&self, ui: usize) -> Result<&UnitLines> {
        let cell = self
            .lines
            .get(ui)
            .ok_or_else(|| DwarfError::Malformed(format!("no unit {ui}")))?;
        cell.get_or_init(|| self.build_lines(ui).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| DwarfError::Malformed(e.clone()))
    }

    /// Unit `ui`'s source files as gdb makes its symtabs: the unit's own file (`DW_AT_name`)
    /// first, then each file of its line program's header, by full path without duplicates;
    /// and the map from line-program file index to that list. Read from the unit's root and
    /// the header alone: no line rows are decoded.
    fn unit_files(&self, ui: usize) -> Result<UnitFiles> {
        let unit = self.unit(ui)?;
        let comp_dir = unit
            .comp_dir
            .map(|d| String::from_utf8_lossy(d.slice()).into_owned())
            .unwrap_or_default();
        let unit_name = unit
            .name
            .map(|d| String::from_utf8_lossy(d.slice()).into_owned())
            .unwrap_or_default();
        let full_of = |name: &str| -> PathBuf {
            if Path::new(name).is_absolute() {
                normalize(Path::new(name))
            } else {
                normalize(&Path::new(&comp_dir).join(name))
            }
        };
        let mut out = UnitFiles::default();
        if !unit_name.is_empty() {
            out.files.push((unit_name.clone(), full_of(&unit_name)));
        }
        let Some(program) = unit.line_program.as_ref() else {
            return Ok(out);
        };
        let header = program.header();
        let version = header.version();
        // Map every file entry to a subfile, by full path.
        let first = if version >= 5 { 0 } else { 1 };
        let count = header.file_names().len() as u64;
        out.file_map = vec![None; (count + first) as usize];
        for fi in first..count + first {
            let Some(fe) = header.file(fi) else { continue };
            let Some(fname) = self.attr_path(unit, fe.path_name()) else {
                continue;
            };
            let di = fe.directory_index();
            let dir = if version >= 5 || di != 0 {
                header.directory(di).and_then(|d| self.attr_path(unit, d))
            } else {
                None
            };
            let name = match dir {
                Some(d) if !Path::new(&fname).is_absolute() && !d.is_empty() => {
                    format!("{d}/{fname}")
                }
                _ => fname,
            };
            let full = full_of(&name);
            // Both normalised: equal as paths when equal as bytes (a path's `==` compares
            // component by component, a cost for each file of each unit).
            let idx = match out
                .files
                .iter()
                .position(|s| s.1.as_os_str() == full.as_os_str())
            {
                Some(i) => i,
                None => {
                    out.files.push((name, full));
                    out.files.len() - 1
                }
            };
            if let Some(slot) = out.file_map.get_mut(fi as usize) {
                *slot = Some(idx);
            }
        }
        Ok(out)
    }

    /// Units by the last component of their files' names (display name and full path): built
    /// once from the line-program headers, so that a file name is found without decoding any
    /// unit's rows.
    fn file_index(&self) -> &FileIndex {
        self.file_index.get_or_init(|| {
            let mut by_name: FileIndex = std::collections::HashMap::new();
            for ui in 0..self.units.len() {
                let Ok(files) = self.unit_files(ui) else {
                    continue;
                };
                for (name, full) in &files.files {
                    for key in [last_name(Path::new(name)), last_name(full)]
                        .into_iter()
                        .flatten()
                    {
                        let v = by_name.entry(key.to_os_string()).or_default();
                        if v.last() != Some(&ui) {
                            v.push(ui);
                        }
                    }
                }
            }
            by_name
        })
    }

    /// The (unit, subfile) pairs whose file `search` names (gdb's `compare_filenames_for_search`),
    /// by unit; only units that have a file of that name are looked at.
    fn files_named(&self, search: &str) -> Vec<(usize, usize)> {
        let key = if Path::new(search).is_absolute() {
            last_name(&normalize(Path::new(search))).map(|k| k.to_os_string())
        } else {
            last_name(Path::new(search)).map(|k| k.to_os_string())
        };
        let units: Vec<usize> = match key {
            Some(k) => self.file_index().get(&k).cloned().unwrap_or_default(),
            // `.`, `..`: no file name to look up by.
            None => (0..self.units.len()).collect(),
        };
        let mut out = Vec::new();
        for ui in units {
            let Ok(files) = self.unit_files(ui) else {
                continue;
            };
            for (si, (name, full)) in files.files.iter().enumerate() {
                if file_matches(name, full, search) {
                    out.push((ui, si));
                }
            }
        }
        out
    }

    /// Whether some unit has a source file that `search` names (no line rows are decoded).
    pub fn has_source_file(&self, search: &str) -> bool {
        !self.files_named(search).is_empty()
    }

    fn build_lines(&self, ui: usize) -> Result<UnitLines> {
        let unit = self.unit(ui)?;
        let files = self.unit_files(ui)?;
        let mut out = UnitLines {
            subfiles: files
                .files
                .into_iter()
                .map(|(name, full)| Subfile {
                    name,
                    full,
                    rows: Vec::new(),
                })
                .collect(),
            ..UnitLines::default()
        };
        let file_map = files.file_map;
        let Some(program) = unit.line_program.clone() else {
            return Ok(out);
        };
        let unit_low = self
            .unit_code_ranges(unit)
            .iter()
            .map(|r| r.0)
            .min()
            .unwrap_or(0);

        // gdb's line state machine (dwarf2/read.c, lnp_state_machine::record_line).
        let mut rows = program.rows();
        let mut last_subfile: Option<usize> = None;
        let mut last_line: u32 = 0;
        let mut last_address: Option<u64> = None;
        // gdb's m_stmt_at_address: an is_stmt row was seen at `last_address`.
        let mut stmt_at_address = false;
        let mut nonzero_disc = false;
        let mut recording = true;
        let mut seq_start = true;
        let mut row_line_prev: u32 = 0;
        while let Some((_, row)) = rows.next_row()? {
            let addr = row.address();
            if seq_start {
                // A sequence at address 0 in a unit that has no code there: a function the
                // linker dropped.
                recording = !(addr == 0 && unit_low > 0);
                seq_start = false;
            }
            let line: u32 = row
                .line()
                .map(|l| u32::try_from(l.get()).unwrap_or(u32::MAX))
                .unwrap_or(0);
            if line != row_line_prev {
                nonzero_disc = row.discriminator() != 0;
            } else {
                nonzero_disc |= row.discriminator() != 0;
            }
            row_line_prev = line;
            let end_sequence = row.end_sequence();
            let cur = file_map.get(row.file_index() as usize).copied().flatten();
            if let Some(cur) = cur
                && recording
            {
                let file_changed = last_subfile != Some(cur);
                let is_stmt = row.is_stmt();
                let ignore = (file_changed
                    && !end_sequence
                    && last_address == Some(addr)
                    && !is_stmt
                    && stmt_at_address)
                    || (!end_sequence && line == 0);
                if (file_changed && !ignore) || end_sequence {
                    if let Some(ls) = last_subfile {
                        finish_line(&mut out.subfiles, ls, addr);
                    }
                    out.end = out.end.max(addr);
                }
                if !end_sequence && !ignore {
                    if file_changed || line != last_line || !nonzero_disc {
                        let column = match row.column() {
                            gimli::ColumnType::LeftEdge => 0,
                            gimli::ColumnType::Column(c) => {
                                u32::try_from(c.get()).unwrap_or(u32::MAX)
                            }
                        };
                        if let Some(s) = out.subfiles.get_mut(cur) {
                            s.rows.push(LineRow {
                                address: addr,
                                line,
                                column,
                                is_stmt,
                                prologue_end: row.prologue_end(),
                            });
                        }
                    }
                    last_subfile = Some(cur);
                    last_line = line;
                }
            }
            if last_address != Some(addr) {
                stmt_at_address = false;
            }
            stmt_at_address |= row.is_stmt();
            last_address = Some(addr);
            if end_sequence {
                last_subfile = None;
                last_line = 0;
                last_address = None;
                stmt_at_address = false;
                nonzero_disc = false;
                row_line_prev = 0;
                seq_start = true;
            }
        }
        for s in &mut out.subfiles {
            // Stable: rows at one address keep their order, end markers first.
            s.rows
                .sort_by_key(|r| (r.address, if r.line == 0 { 0u8 } else { 1 }));
        }
        out.file_map = file_map;
        Ok(out)
    }

    /// gdb's `find_pc_line (pc, 0)`: the row for `pc` and its range, `None` where there is no
    /// line information (outside any unit, or in a range marked with line 0).
    pub fn find_line(&self, pc: u64) -> Option<LineInfo> {
        let ui = self.unit_for_pc(pc)?;
        let lines = self.unit_lines(ui).ok()?;
        let mut best: Option<(usize, usize)> = None; // (subfile, row)
        let mut best_end: u64 = 0;
        let mut alt: Option<u64> = None;
        for (si, s) in lines.subfiles.iter().enumerate() {
            let rows = &s.rows;
            let Some(first) = rows.first() else { continue };
            if first.address > pc && alt.is_none_or(|a| first.address < a) {
                alt = Some(first.address);
            }
            let item = rows.partition_point(|r| r.address <= pc);
            if item > 0 {
                let prev = item - 1;
                let pa = rows[prev].address;
                let better = match best {
                    None => true,
                    Some((bs, br)) => {
                        let b = lines.subfiles[bs].rows[br];
                        pa > b.address || (pa == b.address && b.line == 0 && rows[prev].line != 0)
                    }
                };
                if better {
                    let mut b = prev;
                    if !rows[b].is_stmt {
                        let mut tmp = b;
                        while tmp > 0
                            && rows[tmp - 1].address == rows[tmp].address
                            && rows[tmp - 1].line != 0
                            && !rows[tmp].is_stmt
                        {
                            tmp -= 1;
                        }
                        if rows[tmp].is_stmt {
                            b = tmp;
                        }
                    }
                    best = Some((si, b));
                    if best_end <= rows[b].address {
                        best_end = 0;
                    }
                }
            }
            if let Some((bs, br)) = best {
                let ba = lines.subfiles[bs].rows[br].address;
                if let Some(next) = rows.get(item)
                    && next.address > ba
                    && (best_end == 0 || best_end > next.address)
                {
                    best_end = next.address;
                }
            }
        }
        let (bs, br) = best?;
        let s = &lines.subfiles[bs];
        let row = s.rows[br];
        if row.line == 0 {
            return None;
        }
        let end = if best_end != 0 && alt.is_none_or(|a| best_end < a) {
            best_end
        } else if let Some(a) = alt {
            a
        } else {
            lines.end
        };
        Some(LineInfo {
            file: s.full.clone(),
            name: s.name.clone(),
            line: row.line,
            column: row.column,
            address: row.address,
            end,
            is_stmt: row.is_stmt,
            unit: ui,
        })
    }

    /// The address range `sal.pc..sal.end` of the line-table entry containing `pc`.
    pub fn line_range(&self, pc: u64) -> Option<(u64, u64)> {
        self.find_line(pc).map(|l| (l.address, l.end))
    }

    /// Every source file of every unit: (display name, full path), sorted by full path,
    /// without duplicates.
    pub fn source_files(&self) -> Vec<(String, PathBuf)> {
        let mut out: Vec<(String, PathBuf)> = Vec::new();
        for ui in 0..self.units.len() {
            if let Ok(f) = self.unit_files(ui) {
                out.extend(f.files);
            }
        }
        out.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        out.dedup_by(|a, b| a.1 == b.1);
        out
    }

    /// The line of a function's first address (what `list FUNCTION` centres on).
    pub fn function_start_line(&self, f: &FunctionEntry) -> Option<LineInfo> {
        self.find_line(f.entry_pc()?)
    }

    /// Whether gdb trusts unit `ui`'s locations (GCC ≥ 4.5 with location lists): then it
    /// breaks at a function's first address instead of after its prologue.
    fn locations_valid(&self, ui: usize) -> bool {
        self.unit_facts(ui).locations_valid()
    }

    /// gdb's `skip_prologue_using_linetable`: the first `prologue_end` row within the
    /// function, in the table of the file of its first line.
    fn prologue_end_pc(&self, start: u64, end: u64) -> Option<u64> {
        let sal = self.find_line(start)?;
        let lines = self.unit_lines(sal.unit).ok()?;
        let s = lines.subfiles.iter().find(|s| s.full == sal.file)?;
        let from = s.rows.partition_point(|r| r.address < start);
        s.rows
            .get(from..)?
            .iter()
            .take_while(|r| r.address <= end)
            .find(|r| r.prologue_end)
            .map(|r| r.address)
    }

    /// gdb's `skip_prologue_sal`: move a location at a function's start past its prologue.
    /// `sal` is (pc, line info at pc if any).
    fn skip_prologue_sal(&self, pc0: u64, sal: Option<LineInfo>) -> (u64, Option<LineInfo>) {
        let Some(func) = self.function_containing(pc0) else {
            return (pc0, sal);
        };
        let (Some(start), Some(fend)) = (func.entry_pc(), func.high_pc()) else {
            return (pc0, sal);
        };
        let fstart = func.low_pc().unwrap_or(start);
        let mut force_skip = !self.locations_valid(func.unit);
        let mut skip = true;
        let mut pc;
        let mut start_sal;
        loop {
            pc = start;
            start_sal = None;
            let mut done = false;
            if skip && let Some(p) = self.prologue_end_pc(start, fend) {
                pc = p;
                start_sal = self.find_line(pc);
                force_skip = true;
                done = true;
            }
            if !done {
                if skip {
                    let code = self.code_at(start, 32);
                    pc = start + (cohort_engine::arch::native().skip_prologue)(code) as u64;
                }
                start_sal = self.find_line(pc);
                if skip
                    && let Some(s) = &start_sal
                    && s.address != pc
                    && fstart <= s.end
                    && s.end < fend
                {
                    pc = s.end;
                    start_sal = self.find_line(pc);
                }
            }
            if force_skip || !skip {
                break;
            }
            skip = false;
        }
        // Already past the prologue, or at the very address gdb would move to: left alone
        // (keeping the line asked for).
        if pc0 >= pc {
            return (pc0, sal);
        }
        let mut out = start_sal;
        // Inside inlined code: gdb reports the line of the outermost inlined call.
        let facts = self.unit_facts(func.unit);
        let mut b = facts.block_for_pc(pc);
        let mut inl: Option<(u32, Option<PathBuf>)> = None;
        while let Some(bi) = b {
            let Some(blk) = facts.blocks.get(bi) else {
                break;
            };
            match &blk.kind {
                BlockKind::Inlined {
                    call_line,
                    call_file,
                    ..
                } => inl = Some((*call_line, call_file.clone())),
                BlockKind::Function => break,
                BlockKind::Lexical => {}
            }
            b = blk.parent;
        }
        if let Some((line, file)) = inl
            && line != 0
            && let Some(o) = out.as_mut()
        {
            o.line = line;
            if let Some(f) = file {
                o.name = self.display_name_for(o.unit, &f).unwrap_or(o.name.clone());
                o.file = f;
            }
        }
        (pc, out)
    }

    fn display_name_for(&self, ui: usize, full: &Path) -> Option<String> {
        let l = self.unit_lines(ui).ok()?;
        l.subfiles
            .iter()
            .find(|s| s.full == full)
            .map(|s| s.name.clone())
    }

    /// gdb's `find_function_start_sal (funfirstline)`: where `break FUNCTION` puts the
    /// breakpoint for one copy of a function (out-of-line or inlined), with the line it
    /// reports.
    pub fn breakpoint_location_for_function(&self, f: &FunctionEntry) -> Option<LineMatch> {
        let entry = f.entry_pc()?;
        let sal = self.find_line(entry);
        let (pc, sal) = match sal {
            Some(s) if self.locations_valid(f.unit) => (entry, Some(s)),
            Some(s) if s.address >= entry => self.skip_prologue_sal(entry, Some(s)),
            _ => self.skip_prologue_sal(entry, None),
        };
        Some(LineMatch {
            address: pc,
            actual_line: sal.as_ref().map_or(0, |s| s.line),
            file: sal.as_ref().map(|s| s.file.clone()).unwrap_or_default(),
            name: sal.as_ref().map(|s| s.name.clone()).unwrap_or_default(),
            function: Some(f.name.clone()),
        })
    }

    /// The address `break FUNCTION` uses for this copy of the function.
    pub fn breakpoint_address_for_function(&self, f: &FunctionEntry) -> Option<u64> {
        self.breakpoint_location_for_function(f).map(|m| m.address)
    }

    /// Every location of `break NAME`: each out-of-line copy and each inlined copy, sorted by
    /// address.
    pub fn breakpoint_locations_for_name(&self, name: &str) -> Vec<LineMatch> {
        let mut funcs = self.functions_named(name);
        if funcs.is_empty() {
            // Fortran names are case-insensitive: compilers write them in lower case
            // (gfortran, flang's procedures) or upper case (flang's main program).
            for cand in [name.to_ascii_lowercase(), name.to_ascii_uppercase()] {
                if cand != name {
                    funcs.extend(self.functions_named(&cand).into_iter().filter(|f| {
                        crate::scopes::unit_language(self, f.unit)
                            == crate::format::Language::Fortran
                    }));
                }
            }
        }
        let mut out: Vec<LineMatch> = funcs
            .iter()
            .filter_map(|f| self.breakpoint_location_for_function(f))
            .collect();
        out.sort_by_key(|m| m.address);
        out.dedup_by_key(|m| m.address);
        out
    }

    /// The innermost function (inlined copies included) at `pc`, by name.
    fn function_name_at(&self, ui: usize, pc: u64) -> Option<String> {
        let facts = self.unit_facts(ui);
        let b = facts.block_for_pc(pc)?;
        let fb = facts.containing_function(b)?;
        let blk = facts.blocks.get(fb)?;
        let unit = self.unit(ui).ok()?;
        let off = match &blk.kind {
            BlockKind::Inlined { origin, .. } => *origin,
            _ => blk.offset,
        };
        self.die_name(unit, off)
    }

    fn die_name(&self, unit: &Unit<R>, off: gimli::UnitOffset) -> Option<String> {
        let mut off = off;
        for _ in 0..4 {
            let e = unit.entry(off).ok()?;
            if let Some(n) = e.attr_value(gimli::DW_AT_name).ok().flatten() {
                return self.attr_path(unit, n);
            }
            match e
                .attr_value(gimli::DW_AT_abstract_origin)
                .ok()
                .flatten()
                .or_else(|| e.attr_value(gimli::DW_AT_specification).ok().flatten())
            {
                Some(gimli::AttributeValue::UnitRef(o)) => off = o,
                _ => return None,
            }
        }
        None
    }

    /// What `break FILE:LINE` resolves to in gdb 13: the stmt addresses of LINE (or of the
    /// next line with code), one per block, each moved past the prologue when it is a
    /// function's start. `file` matches by whole trailing path components (`where_a.c`,
    /// `dir/where_a.c`, or the full path).
    pub fn addresses_for_line(&self, file: &str, line: u32) -> Result<Vec<LineMatch>> {
        // (unit, subfile) pairs matching the file.
        // Matched by the line-program headers: only these units' rows are decoded.
        let tabs = self.files_named(file);
        if tabs.is_empty() {
            return Err(DwarfError::user(format!("No source file named {file}.")));
        }
        let mut best_line: Option<u32> = None;
        let mut found = self.pcs_for_line(&tabs, line, &mut best_line);
        if found.is_empty()
            && let Some(b) = best_line
        {
            found = self.pcs_for_line(&tabs, b, &mut best_line);
        }
        if found.is_empty() {
            return Err(DwarfError::user(format!(
                "No line {line} in file \"{file}\"."
            )));
        }
        // One location per block: a later pc in the same block as an earlier one goes (gdb
        // drops only the first such duplicate for each pc).
        let blocks: Vec<Option<(usize, usize)>> = found
            .iter()
            .map(|(ui, _, pc, _)| {
                let facts = self.unit_facts(*ui);
                Some((*ui, facts.block_for_pc(*pc).map_or(usize::MAX, |b| b)))
            })
            .collect();
        let mut keep = vec![true; found.len()];
        for i in 0..found.len() {
            if blocks[i].is_some() {
                for j in i + 1..found.len() {
                    if blocks[j] == blocks[i] {
                        keep[j] = false;
                        break;
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (i, (ui, si, pc, l)) in found.into_iter().enumerate() {
            if !keep[i] {
                continue;
            }
            let lines = self.unit_lines(ui)?;
            let Some(s) = lines.subfiles.get(si) else {
                continue;
            };
            let function = self.function_name_at(ui, pc);
            let here = LineInfo {
                file: s.full.clone(),
                name: s.name.clone(),
                line: l,
                column: 0,
                address: pc,
                end: pc,
                is_stmt: true,
                unit: ui,
            };
            let (npc, sal) = self.skip_prologue_sal(pc, Some(here.clone()));
            let sal = sal.unwrap_or(here);
            out.push(LineMatch {
                address: npc,
                actual_line: sal.line,
                file: sal.file,
                name: sal.name,
                function,
            });
        }
        Ok(out)
    }

    /// gdb's `find_pcs_for_symtab_line` over several tables: (unit, subfile, pc, line) of
    /// every stmt row of `line`; `best` gets the smallest line above it that has rows.
    fn pcs_for_line(
        &self,
        tabs: &[(usize, usize)],
        line: u32,
        best: &mut Option<u32>,
    ) -> Vec<(usize, usize, u64, u32)> {
        let mut out = Vec::new();
        for &(ui, si) in tabs {
            let Ok(lines) = self.unit_lines(ui) else {
                continue;
            };
            let Some(s) = lines.subfiles.get(si) else {
                continue;
            };
            let mut exact = false;
            let mut above: Option<u32> = None;
            for r in s.rows.iter().filter(|r| r.is_stmt) {
                if r.line == line {
                    out.push((ui, si, r.address, line));
                    exact = true;
                } else if !exact && r.line > line && above.is_none_or(|a| r.line < a) {
                    above = Some(r.line);
                }
            }
            if !exact
                && let Some(a) = above
                && best.is_none_or(|b| a < b)
            {
                *best = Some(a);
            }
        }
        out
    }
}

/// gdb's `compare_filenames_for_search`: `search` names the file if it is the whole path or
/// its trailing components.
pub fn file_matches(name: &str, full: &Path, search: &str) -> bool {
    let s = Path::new(search);
    if s.is_absolute() {
        return normalize(s) == full;
    }
    let tail = |p: &Path| -> bool {
        let pc: Vec<_> = p.components().collect();
        let sc: Vec<_> = s.components().collect();
        sc.len() <= pc.len() && pc[pc.len() - sc.len()..] == sc[..]
    };
    tail(full) || tail(Path::new(name))
}

/// End marker of gdb's `buildsym_compunit::record_line (…, 0, pc)`: drop rows of the subfile
/// at `pc`, then add a line-0 row unless the table is empty or already ended.
fn finish_line(subfiles: &mut [Subfile], si: usize, pc: u64) {
    let Some(s) = subfiles.get_mut(si) else {
        return;
    };
    let mut last_line: Option<u32> = None;
    while let Some(last) = s.rows.last() {
        last_line = Some(last.line);
        if last.address != pc {
            break;
        }
        s.rows.pop();
    }
    match last_line {
        None | Some(0) => {}
        Some(_) => s.rows.push(LineRow {
            address: pc,
            line: 0,
            column: 0,
            is_stmt: true,
            prologue_end: false,
        }),
    }
}
