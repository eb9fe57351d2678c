//! Reduction of results on the way up the tree.
//!
//! Both structures are kept in a canonical order, so that merging the same results in any order
//! and any grouping gives equal values (`merge` is associative and commutative).
//!
//! # Addresses
//! Texts that differ only in addresses are one answer: under address-space randomisation
//! (every rank of an `mpirun` job) every pc and pointer differs from rank to rank, and a
//! backtrace that merged on nothing would be useless. A [`Text`] keeps the addresses it
//! holds apart from the rest of the text (see [`Text::new`] for which `0x…` numbers count as
//! addresses); texts are equal when everything but those addresses is, and a merged address
//! keeps the lowest and highest value seen. It prints as itself when all ranks agree, and as
//! the range `<0xLOW..0xHIGH>` when they do not:
//!
//! ```text
//! [0-3] #0  leaf (c=<0x55f07e4bffe0..0x561ba2b4fff0>, n=7) at addrs.c:9
//! ```

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::RankSet;

/// Addresses are at least this: Linux maps nothing below `vm.mmap_min_addr` (64 KiB by
/// default), so a smaller `0x…` (a null pointer, a small integer) is a value, never merged.
pub const MIN_ADDRESS: u64 = 0x10000;

/// The values one address took on the ranks of a group: the lowest and the highest, each with
/// the number of hex digits it was printed with (gdb pads pcs to 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Addr {
    lo: (u64, u8),
    hi: (u64, u8),
}

impl Addr {
    fn one(value: u64, digits: u8) -> Self {
        Addr {
            lo: (value, digits),
            hi: (value, digits),
        }
    }

    fn widen(&mut self, o: &Addr) {
        self.lo = self.lo.min(o.lo);
        self.hi = self.hi.max(o.hi);
    }

    fn write(&self, s: &mut String) {
        let hex = |s: &mut String, (v, d): (u64, u8)| {
            let _ = write!(s, "0x{v:0width$x}", width = usize::from(d).min(16));
        };
        if self.lo == self.hi {
            hex(s, self.lo);
        } else {
            s.push('<');
            hex(s, self.lo);
            s.push_str("..");
            hex(s, self.hi);
            s.push('>');
        }
    }
}

/// A text as a debugger printed it, its addresses apart: `parts[0] addrs[0] parts[1] …`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    parts: Vec<String>,
    addrs: Vec<Addr>,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            parts: vec![String::new()],
            addrs: Vec::new(),
        }
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the hex number in `line` between `before` and `after` is an address by where gdb
/// printed it (see [`Text::new`]).
fn is_address_place(before: &str, after: &str) -> bool {
    // A pc in a function (`#1  0x… in main () at a.c:9`, `rip = 0x… in f (a.c:3)`,
    // `info breakpoints`), an address with its symbol (`0x… <main+4>`, not an array's
    // `0x0 <repeats 16 times>`), a `char *` with its string (`0x… "text"`).
    if after.starts_with(" in ")
        || (after.starts_with(" <") && !after.starts_with(" <repeats "))
        || after.starts_with(" \"")
    {
        return true;
    }
    // `X at 0x…` (`frame at`, `Arglist at`, `rbp at`, `Breakpoint 2 at`), `at address 0x…`,
    // `Previous frame's sp is 0x…`, `saved rip = 0x…`.
    if before.ends_with(" at ") || before.ends_with(" address ") || before.ends_with(" sp is ") {
        return true;
    }
    if let Some(b) = before.strip_suffix(" = ")
        && let Some((head, reg)) = b.rsplit_once(' ')
        && head.ends_with("saved")
        && !reg.is_empty()
        && reg.bytes().all(is_word_byte)
    {
        return true;
    }
    // A frame's argument (`f (p=0x…, r=@0x…: 3)`: gdb prints scalars there, integers in
    // decimal, so a hex one is a pointer; `print` writes `name = value` with spaces).
    let b = before.strip_suffix('@').unwrap_or(before);
    if let Some(b) = b.strip_suffix('=')
        && b.bytes().last().is_some_and(is_word_byte)
    {
        return true;
    }
    // A value printed as a pointer: `(struct cell *) 0x…`, `(int &) @0x…`.
    if before.ends_with("*) ") || before.ends_with("&) @") {
        return true;
    }
    // A line that starts with an address: the pc before a source line when the frame is
    // inside the line (`0x… <tab>12<tab>…`), the address column of `x` (`0x…:<tab>…`).
    let lead = before.strip_prefix("=> ").unwrap_or(before).trim_start();
    lead.is_empty() && (after.starts_with('\t') || after.starts_with(':'))
}

/// Which hex numbers of a text are addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Hex {
    /// Those printed where gdb prints addresses (see [`Text::new`]): any answer.
    #[default]
    Places,
    /// Every one: values in gdb's natural format (`print` without `/FMT`, `info locals`,
    /// `info args`, `bt full`), where integers print in decimal and only pointers in hex.
    Pointers,
}

/// A text with its addresses found, before it becomes a [`Text`]: a rank's answer is compared
/// with the groups' texts in place, and copied only when it starts a group of its own.
struct Scan<'a> {
    s: &'a str,
    /// (start, end, value, digits) of each address.
    at: Vec<(usize, usize, u64, u8)>,
}

impl<'a> Scan<'a> {
    fn new(s: &'a str, hex: Hex) -> Scan<'a> {
        let b = s.as_bytes();
        let mut at = Vec::new();
        let mut line_start = 0;
        let mut i = 0;
        while i + 2 < b.len() {
            match b[i] {
                b'\n' => {
                    line_start = i + 1;
                    i += 1;
                    continue;
                }
                // What a string or a character holds is data, whatever it looks like:
                // `"…\"…"`, `'"'`, `'\''` (to the end of the line at most).
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if b.get(i) == Some(&b'"') {
                        i += 1;
                    }
                    continue;
                }
                b'\'' if b[i + 1] == b'\\' => {
                    i += 3;
                    while i < b.len() && b[i] != b'\'' && b[i] != b'\n' {
                        i += 1;
                    }
                    if b.get(i) == Some(&b'\'') {
                        i += 1;
                    }
                    continue;
                }
                b'\'' if b[i + 2] == b'\'' => {
                    i += 3;
                    continue;
                }
                _ => {}
            }
            let starts = b[i] == b'0'
                && b[i + 1] == b'x'
                && (i == 0 || !is_word_byte(b[i - 1]))
                && matches!(b[i + 2], b'0'..=b'9' | b'a'..=b'f');
            if !starts {
                i += 1;
                continue;
            }
            let mut end = i + 2;
            while end < b.len() && matches!(b[end], b'0'..=b'9' | b'a'..=b'f') {
                end += 1;
            }
            let digits = end - i - 2;
            let whole = end == b.len() || !is_word_byte(b[end]);
            if whole
                && digits <= 16
                && let Ok(v) = u64::from_str_radix(&s[i + 2..end], 16)
                && v >= MIN_ADDRESS
                && (hex == Hex::Pointers || is_address_place(&s[line_start..i], &s[end..]))
            {
                at.push((i, end, v, digits as u8));
            }
            i = end;
        }
        Scan { s, at }
    }

    /// The text around the addresses: one more piece than addresses.
    fn parts(&self) -> impl Iterator<Item = &'a str> + '_ {
        let s = self.s;
        let starts = std::iter::once(0).chain(self.at.iter().map(|a| a.1));
        let ends = self.at.iter().map(|a| a.0).chain(std::iter::once(s.len()));
        starts
            .zip(ends)
            .map(move |(a, b)| s.get(a..b).unwrap_or(""))
    }

    fn addrs(&self) -> impl Iterator<Item = Addr> + '_ {
        self.at.iter().map(|&(_, _, v, d)| Addr::one(v, d))
    }

    /// Whether `t` is this text but for its addresses.
    fn fits(&self, t: &Text) -> bool {
        t.parts.len() == self.at.len() + 1 && self.parts().zip(&t.parts).all(|(a, b)| a == b)
    }

    /// Takes this text's addresses into `t` (which it fits).
    fn widen(&self, t: &mut Text) {
        for (a, b) in t.addrs.iter_mut().zip(self.addrs()) {
            a.widen(&b);
        }
    }

    fn into_text(self) -> Text {
        Text {
            parts: self.parts().map(str::to_owned).collect(),
            addrs: self.addrs().collect(),
        }
    }
}

impl Text {
    /// A text with its addresses found. A hex number (`0x` and lowercase hex digits, as gdb
    /// prints them, a whole word, at least [`MIN_ADDRESS`]) is an address where gdb prints
    /// addresses:
    /// - a pc in a function, `0x… in f`; an address with its symbol, `0x… <f+4>`; a `char *`
    ///   with its string, `0x… "text"`;
    /// - after ` at ` (`frame at`, `Arglist at`, `rbp at`, `Breakpoint 2 at`), ` address `,
    ///   ` sp is `, `saved REG = ` (`info frame`, `break`, memory errors);
    /// - a frame's argument, `name=0x…` (frame lines and stop lines print scalars there,
    ///   integers in decimal) and `name=@0x…` (a reference);
    /// - a value printed as a pointer: `(T *) 0x…`, `(T &) @0x…`;
    /// - at the start of a line before a tab or a colon (the pc before a source line, the
    ///   address column of `x`).
    ///
    /// Every other number is text: integers (decimal unless `/x` asked for hex, and then
    /// never in one of those places), `0x0`, line numbers, symbols and offsets (`<f+4>`), and
    /// whatever a string or a character holds (`"…"`, `'…'`).
    pub fn new(s: &str) -> Text {
        Scan::new(s, Hex::Places).into_text()
    }

    /// A text with its addresses found by the rule `hex`.
    pub fn with(s: &str, hex: Hex) -> Text {
        Scan::new(s, hex).into_text()
    }

    /// Whether both are the same text but for their addresses.
    pub fn same_shape(&self, o: &Text) -> bool {
        self.parts == o.parts
    }

    /// Takes the other's addresses in (same shape).
    fn widen(&mut self, o: &Text) {
        for (a, b) in self.addrs.iter_mut().zip(&o.addrs) {
            a.widen(b);
        }
    }

    /// Whether nothing is printed.
    pub fn is_empty(&self) -> bool {
        self.addrs.is_empty() && self.parts.iter().all(String::is_empty)
    }

    /// Whether some address differs between the ranks.
    pub fn differs(&self) -> bool {
        self.addrs.iter().any(|a| a.lo != a.hi)
    }

    /// The text as printed: each address as itself where all ranks agree, else as
    /// `<0xLOW..0xHIGH>`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for (i, p) in self.parts.iter().enumerate() {
            s.push_str(p);
            if let Some(a) = self.addrs.get(i) {
                a.write(&mut s);
            }
        }
        s
    }

    /// A text that is literal (no address in it).
    pub fn literal(s: &str) -> Text {
        Text {
            parts: vec![s.to_owned()],
            addrs: Vec::new(),
        }
    }

    /// Appends another text.
    pub fn append(&mut self, o: &Text) {
        let mut parts = o.parts.iter();
        if let (Some(last), Some(first)) = (self.parts.last_mut(), parts.next()) {
            last.push_str(first);
        }
        self.parts.extend(parts.cloned());
        self.addrs.extend_from_slice(&o.addrs);
    }

    /// The lines, without their newlines (a final newline ends the last line; an empty text
    /// has one empty line).
    pub fn lines(&self) -> Vec<Text> {
        let mut lines = Vec::new();
        let mut cur = Text::default();
        for (i, p) in self.parts.iter().enumerate() {
            let mut pieces = p.split('\n');
            if let Some(first) = pieces.next() {
                cur.push_literal(first);
            }
            for piece in pieces {
                lines.push(std::mem::take(&mut cur));
                cur.push_literal(piece);
            }
            if let Some(a) = self.addrs.get(i) {
                cur.addrs.push(*a);
                cur.parts.push(String::new());
            }
        }
        if !cur.is_empty() || lines.is_empty() {
            lines.push(cur);
        }
        lines
    }

    fn push_literal(&mut self, s: &str) {
        match self.parts.last_mut() {
            Some(last) => last.push_str(s),
            None => self.parts.push(s.to_owned()),
        }
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

/// The ranks that produced the same text (addresses aside: see [`Text`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub ranks: RankSet,
    pub out: Text,
    pub err: Text,
}

/// Per-rank text reduced to one group per distinct `(out, err)` (addresses aside), groups
/// ordered by their lowest rank; with the highest value-history number the ranks reached
/// (`$N` are numbered across the job: the front end hands the job's count down with each
/// command).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    pub groups: Vec<Group>,
    pub history: u32,
    /// Ranks whose command failed (gdb's error: a `-batch` run's exit status is 1 when its
    /// last command failed).
    pub failed: RankSet,
}

fn group_key(g: &Group) -> (u32, &[String], &[String]) {
    (
        g.ranks.first().unwrap_or(u32::MAX),
        &g.out.parts,
        &g.err.parts,
    )
}

impl Merged {
    /// A result of one rank.
    pub fn one(rank: u32, out: &str, err: &str) -> Self {
        let mut m = Merged::default();
        m.add(rank, out, err);
        m
    }

    /// Adds the text of one rank; it joins the group with the same text (addresses aside),
    /// if any.
    pub fn add(&mut self, rank: u32, out: &str, err: &str) {
        self.add_as(rank, out, err, Hex::Places);
    }

    /// [`Merged::add`] for an answer whose standard output is found addresses in by `hex`
    /// (its errors by [`Hex::Places`]). All ranks' answers to one command must use the same.
    pub fn add_as(&mut self, rank: u32, out: &str, err: &str, hex: Hex) {
        let (out, err) = (Scan::new(out, hex), Scan::new(err, Hex::Places));
        match self
            .groups
            .iter_mut()
            .find(|g| out.fits(&g.out) && err.fits(&g.err))
        {
            Some(g) => {
                let moved = g.ranks.first().is_none_or(|f| rank < f);
                g.ranks.insert(rank);
                out.widen(&mut g.out);
                err.widen(&mut g.err);
                if moved {
                    self.sort();
                }
            }
            None => {
                self.groups.push(Group {
                    ranks: RankSet::single(rank),
                    out: out.into_text(),
                    err: err.into_text(),
                });
                self.sort();
            }
        }
    }

    /// Notes that a rank's value history has `n` entries.
    pub fn note_history(&mut self, n: u32) {
        self.history = self.history.max(n);
    }

    fn sort(&mut self) {
        self.groups.sort_by(|a, b| group_key(a).cmp(&group_key(b)));
    }

    /// Merges another result in: groups with the same text are united. Groups with no ranks
    /// are dropped.
    pub fn merge(&mut self, other: Merged) {
        let mut all: Vec<Group> = std::mem::take(&mut self.groups);
        all.extend(other.groups);
        all.sort_by(|a, b| (&a.out.parts, &a.err.parts).cmp(&(&b.out.parts, &b.err.parts)));
        let mut out: Vec<Group> = Vec::with_capacity(all.len());
        for g in all {
            match out.last_mut() {
                Some(last) if last.out.same_shape(&g.out) && last.err.same_shape(&g.err) => {
                    last.ranks = last.ranks.union(&g.ranks);
                    last.out.widen(&g.out);
                    last.err.widen(&g.err);
                }
                _ => out.push(g),
            }
        }
        out.retain(|g| !g.ranks.is_empty());
        self.groups = out;
        self.history = self.history.max(other.history);
        self.failed = self.failed.union(&other.failed);
        self.sort();
    }

    /// Whether there is no result at all.
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.ranks.is_empty())
    }

    /// Every rank that has a result.
    pub fn ranks(&self) -> RankSet {
        self.groups
            .iter()
            .fold(RankSet::new(), |acc, g| acc.union(&g.ranks))
    }

    /// The text as the front end prints it: every line of a group prefixed by `"[SET] "`,
    /// groups ordered by their lowest rank; `(stdout text, stderr text)`. Every line printed
    /// ends in a newline (a missing final newline is added); empty text prints nothing.
    /// E.g. `"[0-3,5] $1 = 42\n[4,6-7] $1 = 17\n"`.
    pub fn render(&self) -> (String, String) {
        let (mut out, mut err) = (String::new(), String::new());
        for g in &self.groups {
            prefix_lines(&mut out, &g.ranks, &g.out.render());
            prefix_lines(&mut err, &g.ranks, &g.err.render());
        }
        (out, err)
    }
}

fn prefix_lines(dst: &mut String, ranks: &RankSet, text: &str) {
    if text.is_empty() {
        return;
    }
    let text = text.strip_suffix('\n').unwrap_or(text);
    for line in text.split('\n') {
        let _ = writeln!(dst, "[{ranks}] {line}");
    }
}

/// Texts of groups of ranks, printed line by line: when every group has as many lines,
/// line N of every group is merged on its own (`[0-3] 10\t    int v = …` once, under
/// per-rank `Breakpoint 2, compute (rank=0, …)` lines; lines that differ only in addresses
/// are one line); otherwise group after group. Every line is prefixed by its rank set
/// (`[0-3] text`, `[0-3]` for an empty line); sets are ordered by their lowest rank.
pub fn render_lines(groups: &[(RankSet, &Text)]) -> String {
    let groups: Vec<(&RankSet, Vec<Text>)> = groups
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, t)| (r, t.lines()))
        .collect();
    let line = |s: &mut String, set: &RankSet, l: &Text| {
        let l = l.render();
        if l.is_empty() {
            let _ = writeln!(s, "[{set}]");
        } else {
            let _ = writeln!(s, "[{set}] {l}");
        }
    };
    let mut s = String::new();
    let same_shape = groups.windows(2).all(|w| w[0].1.len() == w[1].1.len());
    if !same_shape || groups.len() < 2 {
        let mut sorted = groups;
        sorted.sort_by_key(|(r, _)| r.first());
        for (r, lines) in sorted {
            for l in &lines {
                line(&mut s, r, l);
            }
        }
        return s;
    }
    let n = groups.first().map_or(0, |g| g.1.len());
    let empty = Text::default();
    for i in 0..n {
        let mut by_text: Vec<(RankSet, Text)> = Vec::new();
        for (r, lines) in &groups {
            let t = lines.get(i).unwrap_or(&empty);
            match by_text.iter_mut().find(|(_, x)| x.same_shape(t)) {
                Some(e) => {
                    e.0 = e.0.union(r);
                    e.1.widen(t);
                }
                None => by_text.push(((*r).clone(), t.clone())),
            }
        }
        by_text.sort_by_key(|(r, _)| r.first());
        for (r, t) in &by_text {
            line(&mut s, r, t);
        }
    }
    s
}

/// Backtraces merged into a prefix tree, outermost frame at the root, as parallel-stacks views
/// show them. The root node itself stands for "no frame" (its `frame` is empty); a rank's
/// stack ends at the node where the rank is in `ends_here`. Frames that differ only in
/// addresses are one node (see [`Text`]). Children are ordered by the lowest rank below them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackTree {
    pub frame: Text,
    pub ends_here: RankSet,
    pub children: Vec<StackTree>,
}

impl StackTree {
    /// A tree holding one rank's stack.
    pub fn one(rank: u32, frames_innermost_first: &[String]) -> Self {
        let mut t = StackTree::default();
        t.add(rank, frames_innermost_first);
        t
    }

    /// Adds one rank's backtrace, innermost frame first (as a debugger prints it).
    pub fn add(&mut self, rank: u32, frames_innermost_first: &[String]) {
        let mut outermost_first = frames_innermost_first
            .iter()
            .rev()
            .map(|f| Scan::new(f, Hex::Places));
        self.add_rec(rank, &mut outermost_first);
    }

    fn add_rec<'a>(&mut self, rank: u32, frames: &mut impl Iterator<Item = Scan<'a>>) {
        match frames.next() {
            None => self.ends_here.insert(rank),
            Some(f) => {
                let idx = match self.children.iter().position(|c| f.fits(&c.frame)) {
                    Some(i) => {
                        if let Some(c) = self.children.get_mut(i) {
                            f.widen(&mut c.frame);
                        }
                        i
                    }
                    None => {
                        self.children.push(StackTree {
                            frame: f.into_text(),
                            ..StackTree::default()
                        });
                        self.children.len() - 1
                    }
                };
                if let Some(child) = self.children.get_mut(idx) {
                    child.add_rec(rank, frames);
                }
                // Only that child's key can have changed, and only down (it is new and last, or
                // has a lower rank now): the order holds unless it now goes before the child
                // on its left.
                let key = |i: usize| self.children.get(i).map(StackTree::order_key);
                if idx > 0 && key(idx - 1) > key(idx) {
                    self.sort_children();
                }
            }
        }
    }

    /// The lowest rank in this subtree (children being in canonical order).
    fn min_rank(&self) -> Option<u32> {
        let own = self.ends_here.first();
        let below = self.children.first().and_then(StackTree::min_rank);
        match (own, below) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Children are ordered by this: their lowest rank, then their frame.
    fn order_key(&self) -> (u32, &[String]) {
        (self.min_rank().unwrap_or(u32::MAX), &self.frame.parts)
    }

    fn sort_children(&mut self) {
        self.children
            .sort_by_cached_key(|c| (c.min_rank().unwrap_or(u32::MAX), c.frame.parts.clone()));
    }

    /// Merges another tree in (its root's `frame` is ignored).
    pub fn merge(&mut self, other: StackTree) {
        self.ends_here = self.ends_here.union(&other.ends_here);
        for oc in other.children {
            match self
                .children
                .iter_mut()
                .find(|c| c.frame.same_shape(&oc.frame))
            {
                Some(c) => {
                    c.frame.widen(&oc.frame);
                    c.merge(oc);
                }
                None => {
                    let mut c = StackTree {
                        frame: oc.frame.clone(),
                        ..StackTree::default()
                    };
                    c.merge(oc);
                    self.children.push(c);
                }
            }
        }
        self.sort_children();
    }

    /// Whether no rank is in the tree.
    pub fn is_empty(&self) -> bool {
        self.ends_here.is_empty() && self.children.iter().all(StackTree::is_empty)
    }

    /// Every rank in this subtree.
    pub fn ranks(&self) -> RankSet {
        self.children
            .iter()
            .fold(self.ends_here.clone(), |acc, c| acc.union(&c.ranks()))
    }

    /// Each distinct stack once: `(ranks, frames innermost first)`, ordered by lowest rank.
    pub fn distinct(&self) -> Vec<(RankSet, Vec<String>)> {
        self.distinct_texts()
            .into_iter()
            .map(|(r, f)| (r, f.iter().map(Text::render).collect()))
            .collect()
    }

    fn distinct_texts(&self) -> Vec<(RankSet, Vec<Text>)> {
        let mut out = Vec::new();
        let mut path: Vec<&Text> = Vec::new();
        for c in &self.children {
            c.distinct_rec(&mut path, &mut out);
        }
        if !self.ends_here.is_empty() {
            out.push((self.ends_here.clone(), Vec::new()));
        }
        out.sort_by(|a, b| {
            let key = |x: &(RankSet, Vec<Text>)| x.0.first();
            key(a).cmp(&key(b)).then_with(|| {
                a.1.iter()
                    .map(|t| &t.parts)
                    .cmp(b.1.iter().map(|t| &t.parts))
            })
        });
        out
    }

    fn distinct_rec<'a>(&'a self, path: &mut Vec<&'a Text>, out: &mut Vec<(RankSet, Vec<Text>)>) {
        path.push(&self.frame);
        if !self.ends_here.is_empty() {
            out.push((
                self.ends_here.clone(),
                path.iter().rev().map(|t| (*t).clone()).collect(),
            ));
        }
        for c in &self.children {
            c.distinct_rec(path, out);
        }
        path.pop();
    }

    /// Each distinct stack once as `bt` prints it (`#0  f (…) at a.c:3`, one line a frame),
    /// ordered by lowest rank, for [`render_lines`].
    pub fn backtraces(&self) -> Vec<(RankSet, Text)> {
        self.distinct_texts()
            .into_iter()
            .map(|(ranks, frames)| {
                let mut text = Text::literal("");
                for (i, f) in frames.iter().enumerate() {
                    text.append(&Text::literal(&format!("#{i:<3}")));
                    text.append(f);
                    text.append(&Text::literal("\n"));
                }
                (ranks, text)
            })
            .collect()
    }

    /// The indented tree view ("parallel stacks"): one line per node, `"FRAME  [ranks]"`,
    /// the ranks being all ranks at or below that node, outermost frames unindented and each
    /// level below indented by two more spaces. Ranks whose stack is empty are not shown.
    pub fn render_tree(&self) -> String {
        let mut s = String::new();
        for c in &self.children {
            c.render_rec(0, &mut s);
        }
        s
    }

    fn render_rec(&self, depth: usize, s: &mut String) {
        let _ = writeln!(
            s,
            "{:indent$}{}  [{}]",
            "",
            self.frame.render(),
            self.ranks(),
            indent = depth * 2
        );
        for c in &self.children {
            c.render_rec(depth + 1, s);
        }
    }
}
