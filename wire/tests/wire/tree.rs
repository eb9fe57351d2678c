use std::collections::VecDeque;

use cohort_wire::tree::{level, root_children, subtree_size};
use cohort_wire::{children, depth, parent};

fn check(n: u32, rf: u32, f: u32, want_depth: u32) {
    assert_eq!(depth(n, rf, f), want_depth, "depth n={n}");
    // Breadth-first walk from the front end reaches every agent exactly once.
    let mut seen = vec![false; n as usize];
    let mut queue: VecDeque<u32> = root_children(n, rf).into();
    assert!(queue.len() as u32 <= rf);
    let mut max_level = 0;
    while let Some(a) = queue.pop_front() {
        assert!(!seen[a as usize], "agent {a} reached twice");
        seen[a as usize] = true;
        let lv = level(a, n, rf, f);
        max_level = max_level.max(lv);
        let kids = children(a, n, rf, f);
        assert!(kids.len() as u32 <= f);
        for &k in &kids {
            assert_eq!(parent(k, n, rf, f), Some(a));
            assert_eq!(level(k, n, rf, f), lv + 1);
        }
        queue.extend(kids);
    }
    assert!(seen.iter().all(|&s| s), "n={n}: not all agents reached");
    assert_eq!(max_level, want_depth);
    for a in 0..n {
        assert_eq!(parent(a, n, rf, f).is_none(), a < rf);
    }
    if n > 0 {
        let total: u32 = root_children(n, rf)
            .into_iter()
            .map(|a| subtree_size(a, n, rf, f))
            .sum();
        assert_eq!(total, n);
    }
}

#[test]
fn layouts() {
    check(0, 32, 8, 0);
    check(1, 32, 8, 1);
    check(32, 32, 8, 1);
    check(33, 32, 8, 2);
    check(100, 32, 8, 2);
    check(288, 32, 8, 2);
    check(289, 32, 8, 3);
    check(1000, 32, 8, 3);
    check(10000, 32, 8, 4);
    check(10, 1, 1, 10);
    check(50, 2, 3, 4);
}

#[test]
fn exact_places() {
    assert_eq!(children(0, 100, 32, 8), (32..40).collect::<Vec<_>>());
    assert_eq!(children(31, 100, 32, 8), Vec::<u32>::new());
    assert_eq!(children(7, 100, 32, 8), (88..96).collect::<Vec<_>>());
    assert_eq!(children(8, 100, 32, 8), (96..100).collect::<Vec<_>>());
    assert_eq!(parent(99, 100, 32, 8), Some(8));
    assert_eq!(parent(5, 100, 32, 8), None);
    assert_eq!(subtree_size(0, 1000, 32, 8), 1 + 8 + 64);
    assert_eq!(subtree_size(8, 100, 32, 8), 5);
    assert_eq!(subtree_size(100, 100, 32, 8), 0);
}
