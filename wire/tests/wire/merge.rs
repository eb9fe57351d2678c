use cohort_wire::{Group, Merged, RankSet, StackTree};

use crate::prng::Rng;

fn rs(s: &str) -> RankSet {
    RankSet::parse(s, 1 << 20).unwrap()
}

fn frames(f: &[&str]) -> Vec<String> {
    f.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn merged_render_exact() {
    let mut m = Merged::default();
    for r in [7, 4, 6] {
        m.add(r, "$1 = 17\n", "");
    }
    for r in [5, 3, 2, 1, 0] {
        m.add(r, "$1 = 42\n", "");
    }
    assert_eq!(m.groups.len(), 2);
    assert_eq!(
        m.groups[0],
        Group {
            ranks: rs("0-3,5"),
            out: "$1 = 42\n".into(),
            err: String::new()
        }
    );
    assert_eq!(m.ranks(), rs("0-7"));
    assert_eq!(
        m.render(),
        (
            "[0-3,5] $1 = 42\n[4,6-7] $1 = 17\n".to_owned(),
            String::new()
        )
    );

    // Multi-line text, stderr, a missing final newline, equal stdout but different stderr.
    let mut m = Merged::default();
    m.add(2, "a\nb\n", "");
    m.add(0, "a\nb\n", "warning: x");
    m.add(1, "a\nb\n", "warning: x");
    m.add(3, "", "No symbol \"y\" in current context.\n");
    let (out, err) = m.render();
    assert_eq!(out, "[0-1] a\n[0-1] b\n[2] a\n[2] b\n");
    assert_eq!(
        err,
        "[0-1] warning: x\n[3] No symbol \"y\" in current context.\n"
    );
    assert!(!m.is_empty());
    assert!(Merged::default().is_empty());
    assert_eq!(Merged::default().render(), (String::new(), String::new()));
}

/// Splits `items` into random chunks, builds a value per chunk with `build`, then merges the
/// values pairwise in random order and grouping.
fn random_reduction<T: Clone, V>(
    rng: &mut Rng,
    items: &[T],
    build: impl Fn(&[T]) -> V,
    merge: impl Fn(&mut V, V),
) -> V {
    let mut items = items.to_vec();
    rng.shuffle(&mut items);
    let mut parts = Vec::new();
    let mut rest = &items[..];
    while !rest.is_empty() {
        let n = 1 + rng.below(rest.len() as u64) as usize;
        let n = n.min(1 + rng.below(20) as usize);
        parts.push(build(&rest[..n]));
        rest = &rest[n..];
    }
    while parts.len() > 1 {
        let i = rng.below(parts.len() as u64) as usize;
        let a = parts.swap_remove(i);
        let j = rng.below(parts.len() as u64) as usize;
        merge(&mut parts[j], a);
    }
    parts.pop().unwrap()
}

#[test]
fn merged_any_order_same_result() {
    let texts = [
        ("$1 = 1\n", ""),
        ("$1 = 2\n", ""),
        ("", "error\n"),
        ("$1 = 1\n", "warn\n"),
        ("x\ny\n", ""),
    ];
    let mut rng = Rng::new(3);
    for round in 0..200 {
        let n = 1 + rng.below(300) as u32;
        let items: Vec<(u32, usize)> = (0..n)
            .map(|r| (r, rng.below(texts.len() as u64) as usize))
            .collect();
        let mut reference = Merged::default();
        for &(r, t) in &items {
            reference.add(r, texts[t].0, texts[t].1);
        }
        let build = |chunk: &[(u32, usize)]| {
            let mut m = Merged::default();
            for &(r, t) in chunk {
                m.add(r, texts[t].0, texts[t].1);
            }
            m
        };
        let got = random_reduction(&mut rng, &items, build, |a, b| a.merge(b));
        assert_eq!(got, reference, "round {round}");
        assert_eq!(got.ranks(), RankSet::all(n));
        // Through the wire and back.
        let bytes = postcard::to_stdvec(&got).unwrap();
        assert_eq!(postcard::from_bytes::<Merged>(&bytes).unwrap(), reference);
    }
}

fn example_tree() -> StackTree {
    let mut t = StackTree::default();
    t.add(3, &frames(&["MPI_Barrier", "main"]));
    t.add(2, &frames(&["compute", "main"]));
    t.add(1, &frames(&["MPI_Recv", "exchange", "main"]));
    t.add(0, &frames(&["MPI_Recv", "exchange", "main"]));
    t.add(4, &frames(&["main"]));
    t
}

#[test]
fn stacks_distinct_and_tree_exact() {
    let t = example_tree();
    assert_eq!(
        t.distinct(),
        vec![
            (rs("0-1"), frames(&["MPI_Recv", "exchange", "main"])),
            (rs("2"), frames(&["compute", "main"])),
            (rs("3"), frames(&["MPI_Barrier", "main"])),
            (rs("4"), frames(&["main"])),
        ]
    );
    assert_eq!(
        t.render_tree(),
        "main  [0-4]\n  exchange  [0-1]\n    MPI_Recv  [0-1]\n  compute  [2]\n  MPI_Barrier  [3]\n"
    );
    assert_eq!(t.ranks(), rs("0-4"));

    // Two programs' roots, and an empty stack.
    let mut t = StackTree::default();
    t.add(5, &frames(&["f", "_start"]));
    t.add(1, &frames(&["g", "main"]));
    t.add(9, &[]);
    assert_eq!(
        t.render_tree(),
        "main  [1]\n  g  [1]\n_start  [5]\n  f  [5]\n"
    );
    assert_eq!(
        t.distinct(),
        vec![
            (rs("1"), frames(&["g", "main"])),
            (rs("5"), frames(&["f", "_start"])),
            (rs("9"), vec![]),
        ]
    );
}

#[test]
fn stacks_any_order_same_result() {
    let pool: Vec<Vec<String>> = vec![
        frames(&["MPI_Recv", "exchange", "main"]),
        frames(&["poll", "MPI_Recv", "exchange", "main"]),
        frames(&["exchange", "main"]),
        frames(&["compute", "main"]),
        frames(&["MPI_Barrier", "main"]),
        frames(&["main"]),
        frames(&["compute", "thread_start"]),
        vec![],
    ];
    let mut rng = Rng::new(4);
    for round in 0..200 {
        let n = 1 + rng.below(300) as u32;
        let items: Vec<(u32, usize)> = (0..n)
            .map(|r| (r, rng.below(pool.len() as u64) as usize))
            .collect();
        let mut reference = StackTree::default();
        for &(r, s) in &items {
            reference.add(r, &pool[s]);
        }
        let build = |chunk: &[(u32, usize)]| {
            let mut t = StackTree::default();
            for &(r, s) in chunk {
                t.add(r, &pool[s]);
            }
            t
        };
        let got = random_reduction(&mut rng, &items, build, |a, b| a.merge(b));
        assert_eq!(got, reference, "round {round}");
        // distinct() gives back exactly the stacks put in.
        let mut expected: Vec<(RankSet, Vec<String>)> = Vec::new();
        for (s, stack) in pool.iter().enumerate() {
            let ranks: RankSet = items.iter().filter(|i| i.1 == s).map(|i| i.0).collect();
            if !ranks.is_empty() {
                expected.push((ranks, stack.clone()));
            }
        }
        expected.sort_by_key(|e| e.0.first());
        assert_eq!(got.distinct(), expected);
    }
}
