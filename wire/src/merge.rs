//! Reduction of results on the way up the tree.
//!
//! Both structures are kept in a canonical order, so that merging the same results in any order
//! and any grouping gives equal values (`merge` is associative and commutative).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::RankSet;

/// The ranks that produced the same text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub ranks: RankSet,
    pub out: String,
    pub err: String,
}

/// Per-rank text reduced to one group per distinct `(out, err)`, groups ordered by their lowest
/// rank.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    pub groups: Vec<Group>,
}

fn group_key(g: &Group) -> (u32, &str, &str) {
    (g.ranks.first().unwrap_or(u32::MAX), &g.out, &g.err)
}

impl Merged {
    /// A result of one rank.
    pub fn one(rank: u32, out: &str, err: &str) -> Self {
        let mut m = Merged::default();
        m.add(rank, out, err);
        m
    }

    /// Adds the text of one rank; it joins the group with equal text, if any.
    pub fn add(&mut self, rank: u32, out: &str, err: &str) {
        match self
            .groups
            .iter_mut()
            .find(|g| g.out == out && g.err == err)
        {
            Some(g) => {
                let moved = g.ranks.first().is_none_or(|f| rank < f);
                g.ranks.insert(rank);
                if moved {
                    self.sort();
                }
            }
            None => {
                self.groups.push(Group {
                    ranks: RankSet::single(rank),
                    out: out.to_owned(),
                    err: err.to_owned(),
                });
                self.sort();
            }
        }
    }

    fn sort(&mut self) {
        self.groups.sort_by(|a, b| group_key(a).cmp(&group_key(b)));
    }

    /// Merges another result in: groups with equal text are united. Groups with no ranks are
    /// dropped.
    pub fn merge(&mut self, other: Merged) {
        let mut all: Vec<Group> = std::mem::take(&mut self.groups);
        all.extend(other.groups);
        all.sort_by(|a, b| (&a.out, &a.err).cmp(&(&b.out, &b.err)));
        let mut out: Vec<Group> = Vec::with_capacity(all.len());
        for g in all {
            match out.last_mut() {
                Some(last) if last.out == g.out && last.err == g.err => {
                    last.ranks = last.ranks.union(&g.ranks);
                }
                _ => out.push(g),
            }
        }
        out.retain(|g| !g.ranks.is_empty());
        self.groups = out;
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
            prefix_lines(&mut out, &g.ranks, &g.out);
            prefix_lines(&mut err, &g.ranks, &g.err);
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

/// Backtraces merged into a prefix tree, outermost frame at the root, as parallel-stacks views
/// show them. The root node itself stands for "no frame" (its `frame` is empty); a rank's
/// stack ends at the node where the rank is in `ends_here`. Children are ordered by the lowest
/// rank below them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackTree {
    pub frame: String,
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
        let mut outermost_first = frames_innermost_first.iter().rev();
        self.add_rec(rank, &mut outermost_first);
    }

    fn add_rec<'a>(&mut self, rank: u32, frames: &mut impl Iterator<Item = &'a String>) {
        match frames.next() {
            None => self.ends_here.insert(rank),
            Some(f) => {
                let idx = match self.children.iter().position(|c| &c.frame == f) {
                    Some(i) => i,
                    None => {
                        self.children.push(StackTree {
                            frame: f.clone(),
                            ..StackTree::default()
                        });
                        self.children.len() - 1
                    }
                };
                if let Some(child) = self.children.get_mut(idx) {
                    child.add_rec(rank, frames);
                }
                self.sort_children();
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

    fn sort_children(&mut self) {
        self.children
            .sort_by_cached_key(|c| (c.min_rank().unwrap_or(u32::MAX), c.frame.clone()));
    }

    /// Merges another tree in (its root's `frame` is ignored).
    pub fn merge(&mut self, other: StackTree) {
        self.ends_here = self.ends_here.union(&other.ends_here);
        for oc in other.children {
            match self.children.iter_mut().find(|c| c.frame == oc.frame) {
                Some(c) => c.merge(oc),
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
        let mut out = Vec::new();
        let mut path: Vec<&str> = Vec::new();
        for c in &self.children {
            c.distinct_rec(&mut path, &mut out);
        }
        if !self.ends_here.is_empty() {
            out.push((self.ends_here.clone(), Vec::new()));
        }
        out.sort_by(|a, b| (a.0.first(), &a.1).cmp(&(b.0.first(), &b.1)));
        out
    }

    fn distinct_rec<'a>(&'a self, path: &mut Vec<&'a str>, out: &mut Vec<(RankSet, Vec<String>)>) {
        path.push(&self.frame);
        if !self.ends_here.is_empty() {
            out.push((
                self.ends_here.clone(),
                path.iter().rev().map(|s| (*s).to_owned()).collect(),
            ));
        }
        for c in &self.children {
            c.distinct_rec(path, out);
        }
        path.pop();
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
            self.frame,
            self.ranks(),
            indent = depth * 2
        );
        for c in &self.children {
            c.render_rec(depth + 1, s);
        }
    }
}
