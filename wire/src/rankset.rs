//! Sets of MPI ranks, kept as ranges (never as lists of single ranks).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::WireError;

/// A set of ranks: sorted, disjoint, non-adjacent inclusive ranges. A set that comes off the
/// wire is checked to have that form (a malformed one fails to decode).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<(u32, u32)>", into = "Vec<(u32, u32)>")]
pub struct RankSet {
    r: Vec<(u32, u32)>,
}

impl TryFrom<Vec<(u32, u32)>> for RankSet {
    type Error = WireError;
    fn try_from(r: Vec<(u32, u32)>) -> Result<Self, WireError> {
        let mut prev_hi: Option<u32> = None;
        for &(lo, hi) in &r {
            if lo > hi {
                return Err(WireError::RankSet(format!("reversed range {lo}-{hi}")));
            }
            // `p >= lo` first: `p + 1` cannot overflow when it is false.
            if let Some(p) = prev_hi
                && (p >= lo || p + 1 == lo)
            {
                return Err(WireError::RankSet(
                    "ranges not sorted, overlapping or adjacent".into(),
                ));
            }
            prev_hi = Some(hi);
        }
        Ok(RankSet { r })
    }
}

impl From<RankSet> for Vec<(u32, u32)> {
    fn from(s: RankSet) -> Self {
        s.r
    }
}

/// Builds a set from ranges sorted by their start (overlaps and adjacency allowed).
fn coalesce(sorted: impl IntoIterator<Item = (u32, u32)>) -> RankSet {
    let mut r: Vec<(u32, u32)> = Vec::new();
    for (lo, hi) in sorted {
        if lo > hi {
            continue;
        }
        match r.last_mut() {
            Some(last) if last.1 == u32::MAX || last.1 + 1 >= lo => last.1 = last.1.max(hi),
            _ => r.push((lo, hi)),
        }
    }
    RankSet { r }
}

fn parse_rank(s: &str, size: u32) -> Result<u32, WireError> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(WireError::RankSet(format!("'{s}' is not a rank")));
    }
    let r: u32 = s
        .parse()
        .map_err(|_| WireError::RankSet(format!("rank {s} is too large")))?;
    if r >= size {
        return Err(WireError::RankSet(format!(
            "rank {r} out of range (job has {size} ranks)"
        )));
    }
    Ok(r)
}

impl RankSet {
    /// The empty set.
    pub fn new() -> Self {
        RankSet::default()
    }

    /// `{r}`.
    pub fn single(r: u32) -> Self {
        RankSet { r: vec![(r, r)] }
    }

    /// `lo..=hi_inclusive` (empty when `lo > hi_inclusive`).
    pub fn range(lo: u32, hi_inclusive: u32) -> Self {
        if lo > hi_inclusive {
            return RankSet::new();
        }
        RankSet {
            r: vec![(lo, hi_inclusive)],
        }
    }

    /// `0..size`.
    pub fn all(size: u32) -> Self {
        match size {
            0 => RankSet::new(),
            n => RankSet::range(0, n - 1),
        }
    }

    /// Parses a rank list as a user types it: `"0-3,8,10-15"`, `"all"`, spaces allowed
    /// anywhere between numbers, optionally in brackets (`"[0-3]"`). The empty string (and
    /// `"[]"`) is the empty set, so that `parse(&s.to_string(), size) == s`. Ranks must be
    /// below `size`; garbage and reversed ranges are errors.
    pub fn parse(s: &str, size: u32) -> Result<Self, WireError> {
        let mut t = s.trim();
        if let Some(inner) = t.strip_prefix('[') {
            t = inner
                .strip_suffix(']')
                .ok_or_else(|| WireError::RankSet(format!("unbalanced bracket in '{s}'")))?
                .trim();
        }
        if t.eq_ignore_ascii_case("all") {
            return Ok(RankSet::all(size));
        }
        if t.is_empty() {
            return Ok(RankSet::new());
        }
        let mut ranges = Vec::new();
        for tok in t.split(',') {
            let tok = tok.trim();
            let (lo, hi) = match tok.split_once('-') {
                Some((a, b)) => (parse_rank(a, size)?, parse_rank(b, size)?),
                None => {
                    let r = parse_rank(tok, size)?;
                    (r, r)
                }
            };
            if lo > hi {
                return Err(WireError::RankSet(format!("reversed range {lo}-{hi}")));
            }
            ranges.push((lo, hi));
        }
        ranges.sort_unstable();
        Ok(coalesce(ranges))
    }

    /// Adds one rank (in place: answers of many ranks come in any order).
    pub fn insert(&mut self, r: u32) {
        // The first range that ends at or after r - 1 (it may touch r from below).
        let idx = self.r.partition_point(|&(_, hi)| hi.saturating_add(1) < r);
        match self.r.get(idx).copied() {
            Some((lo, hi)) if lo <= r && r <= hi => {}
            Some((lo, hi)) if hi.saturating_add(1) == r => {
                // Extends this range upwards, perhaps up to the next one.
                match self.r.get(idx + 1).copied() {
                    Some((nlo, nhi)) if nlo == r.saturating_add(1) => {
                        self.r[idx] = (lo, nhi);
                        self.r.remove(idx + 1);
                    }
                    _ => self.r[idx].1 = r,
                }
            }
            Some((lo, _)) if r.saturating_add(1) == lo => self.r[idx].0 = r,
            _ => self.r.insert(idx, (r, r)),
        }
    }

    /// Adds `lo..=hi` (nothing when `lo > hi`).
    pub fn insert_range(&mut self, lo: u32, hi: u32) {
        if lo > hi {
            return;
        }
        // Fast path: appending at the end, the usual case when ranks arrive in order.
        match self.r.last_mut() {
            None => {
                self.r.push((lo, hi));
                return;
            }
            Some(last) if last.0 <= lo => {
                if last.1 != u32::MAX && last.1 + 1 < lo {
                    self.r.push((lo, hi));
                } else {
                    last.1 = last.1.max(hi);
                }
                return;
            }
            Some(_) => {}
        }
        *self = self.union(&RankSet::range(lo, hi));
    }

    /// `self ∪ o`.
    pub fn union(&self, o: &Self) -> Self {
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.r, &o.r);
        let merged = std::iter::from_fn(|| {
            let next = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 <= y.0 => {
                    i += 1;
                    *x
                }
                (Some(_), Some(y)) => {
                    j += 1;
                    *y
                }
                (Some(x), None) => {
                    i += 1;
                    *x
                }
                (None, Some(y)) => {
                    j += 1;
                    *y
                }
                (None, None) => return None,
            };
            Some(next)
        });
        coalesce(merged)
    }

    /// `self ∩ o`.
    pub fn intersection(&self, o: &Self) -> Self {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while let (Some(&(alo, ahi)), Some(&(blo, bhi))) = (self.r.get(i), o.r.get(j)) {
            let (lo, hi) = (alo.max(blo), ahi.min(bhi));
            if lo <= hi {
                out.push((lo, hi));
            }
            if ahi < bhi {
                i += 1;
            } else {
                j += 1;
            }
        }
        coalesce(out)
    }

    /// `self \ o`.
    pub fn difference(&self, o: &Self) -> Self {
        let mut out = Vec::new();
        let mut j = 0;
        for &(lo, hi) in &self.r {
            // Skip the ranges of `o` wholly before this one.
            while o.r.get(j).is_some_and(|&(_, bhi)| bhi < lo) {
                j += 1;
            }
            let mut cur = Some(lo);
            let mut k = j;
            while let (Some(c), Some(&(blo, bhi))) = (cur, o.r.get(k)) {
                if blo > hi {
                    break;
                }
                if blo > c {
                    out.push((c, blo - 1));
                }
                cur = if bhi >= hi { None } else { Some(bhi + 1) };
                k += 1;
            }
            if let Some(c) = cur {
                out.push((c, hi));
            }
        }
        coalesce(out)
    }

    /// Whether `r` is in the set.
    /// Removes one rank (in place: an agent takes each rank's answer off the set it waits for).
    pub fn remove(&mut self, r: u32) {
        let idx = self.r.partition_point(|&(_, hi)| hi < r);
        let Some(&(lo, hi)) = self.r.get(idx) else {
            return;
        };
        if r < lo {
            return;
        }
        match (lo == r, hi == r) {
            (true, true) => {
                self.r.remove(idx);
            }
            (true, false) => self.r[idx].0 = r + 1,
            (false, true) => self.r[idx].1 = r - 1,
            (false, false) => {
                self.r[idx].1 = r - 1;
                self.r.insert(idx + 1, (r + 1, hi));
            }
        }
    }

    pub fn contains(&self, r: u32) -> bool {
        let idx = self.r.partition_point(|&(_, hi)| hi < r);
        self.r.get(idx).is_some_and(|&(lo, _)| lo <= r)
    }

    /// Whether every rank of `self` is in `o`.
    pub fn is_subset(&self, o: &Self) -> bool {
        self.difference(o).is_empty()
    }

    /// The number of ranks.
    pub fn len(&self) -> u64 {
        self.r.iter().map(|&(lo, hi)| u64::from(hi - lo) + 1).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// The lowest rank.
    pub fn first(&self) -> Option<u32> {
        self.r.first().map(|&(lo, _)| lo)
    }

    /// The highest rank.
    pub fn last(&self) -> Option<u32> {
        self.r.last().map(|&(_, hi)| hi)
    }

    /// The ranks in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.r.iter().flat_map(|&(lo, hi)| lo..=hi)
    }

    /// The ranges, sorted, disjoint and non-adjacent, bounds inclusive.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.r
    }
}

impl fmt::Display for RankSet {
    /// `"0-3,5,7-9"`; the empty set is `""`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, &(lo, hi)) in self.r.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            if lo == hi {
                write!(f, "{lo}")?;
            } else {
                write!(f, "{lo}-{hi}")?;
            }
        }
        Ok(())
    }
}

impl FromIterator<u32> for RankSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut v: Vec<u32> = iter.into_iter().collect();
        v.sort_unstable();
        coalesce(v.into_iter().map(|r| (r, r)))
    }
}

impl Extend<u32> for RankSet {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, iter: I) {
        let other: RankSet = iter.into_iter().collect();
        *self = self.union(&other);
    }
}
