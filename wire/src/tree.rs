//! Layout of the agent tree.
//!
//! Agents are numbered `0..n`; the front end is the root. Agents `0..root_fanout` are the
//! front end's children. Every other agent `i` hangs below agent `(i - root_fanout) / fanout`,
//! so the children of agent `k` are `root_fanout + k*fanout ..` (at most `fanout` of them):
//! the tree is filled breadth first and its depth is balanced. A fanout of 0 is taken as 1.

fn clamp(root_fanout: u32, fanout: u32) -> (u64, u64) {
    (u64::from(root_fanout.max(1)), u64::from(fanout.max(1)))
}

/// The parent of agent `i` (of `n`); `None` when its parent is the front end (or when `i` is
/// not an agent, `i >= n`).
pub fn parent(i: u32, n: u32, root_fanout: u32, fanout: u32) -> Option<u32> {
    let (rf, f) = clamp(root_fanout, fanout);
    let i64_ = u64::from(i);
    if i >= n || i64_ < rf {
        return None;
    }
    u32::try_from((i64_ - rf) / f).ok()
}

/// The children of agent `i` (of `n`), in increasing order.
pub fn children(i: u32, n: u32, root_fanout: u32, fanout: u32) -> Vec<u32> {
    if i >= n {
        return Vec::new();
    }
    let (rf, f) = clamp(root_fanout, fanout);
    let lo = rf + u64::from(i) * f;
    let hi = (lo + f).min(u64::from(n));
    (lo..hi).filter_map(|c| u32::try_from(c).ok()).collect()
}

/// The agents directly below the front end.
pub fn root_children(n: u32, root_fanout: u32) -> Vec<u32> {
    (0..n.min(root_fanout.max(1))).collect()
}

/// The level of agent `i`: 1 for the front end's children, 2 below them, and so on.
pub fn level(i: u32, n: u32, root_fanout: u32, fanout: u32) -> u32 {
    let mut d = 1;
    let mut cur = i;
    while let Some(p) = parent(cur, n, root_fanout, fanout) {
        d += 1;
        cur = p;
    }
    d
}

/// The number of agent levels below the front end (0 for no agents).
pub fn depth(n: u32, root_fanout: u32, fanout: u32) -> u32 {
    let (rf, f) = clamp(root_fanout, fanout);
    let n = u64::from(n);
    let mut placed = 0u64;
    let mut width = rf;
    let mut d = 0;
    while placed < n {
        placed = placed.saturating_add(width);
        width = width.saturating_mul(f);
        d += 1;
    }
    d
}

/// The number of agents in the subtree of agent `i`, itself included.
pub fn subtree_size(i: u32, n: u32, root_fanout: u32, fanout: u32) -> u32 {
    if i >= n {
        return 0;
    }
    let (rf, f) = clamp(root_fanout, fanout);
    let n = u64::from(n);
    // The subtree's agents at each level form one contiguous run [lo, hi).
    let (mut lo, mut hi) = (u64::from(i), u64::from(i) + 1);
    let mut count = 0u64;
    while lo < n {
        count += hi.min(n) - lo;
        lo = rf.saturating_add(lo.saturating_mul(f));
        hi = rf.saturating_add(hi.saturating_mul(f));
    }
    u32::try_from(count).unwrap_or(u32::MAX)
}
