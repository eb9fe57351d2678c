use cohort_wire::{Group, Hex, Merged, RankSet, StackTree, Text, render_lines};

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
            err: Text::default()
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
        // Added one by one in any order: the same tree.
        let mut shuffled = items.clone();
        rng.shuffle(&mut shuffled);
        let mut one_by_one = StackTree::default();
        for &(r, s) in &shuffled {
            one_by_one.add(r, &pool[s]);
        }
        assert_eq!(one_by_one, reference, "round {round}");
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

/// The two texts as one answer (two ranks), or `None` when they stay apart.
fn as_one(a: &str, b: &str) -> Option<String> {
    let mut m = Merged::default();
    m.add(0, a, "");
    m.add(1, b, "");
    (m.groups.len() == 1).then(|| m.groups[0].out.render())
}

#[test]
fn texts_that_differ_only_in_addresses_are_one_answer() {
    // A frame's pc and its pointer arguments (address randomisation under mpirun).
    assert_eq!(
        as_one(
            "#1  0x00005618fe48f212 in main (argc=1, argv=0x7ffc65aadd68) at a.c:21",
            "#1  0x0000561b8f9db212 in main (argc=1, argv=0x7fff601b2678) at a.c:21"
        )
        .as_deref(),
        Some(
            "#1  <0x00005618fe48f212..0x0000561b8f9db212> in main (argc=1, \
             argv=<0x7ffc65aadd68..0x7fff601b2678>) at a.c:21"
        )
    );
    // A stop line: the pointer differs, the string it points to and the integer do not.
    assert_eq!(
        as_one(
            "Breakpoint 2, leaf (c=0x55555555b2b0, name=0x555555556004 \"cell\", n=7) at a.c:12\n",
            "Breakpoint 2, leaf (c=0x55555555a2b0, name=0x555555556004 \"cell\", n=7) at a.c:12\n"
        )
        .as_deref(),
        Some(
            "Breakpoint 2, leaf (c=<0x55555555a2b0..0x55555555b2b0>, name=0x555555556004 \
             \"cell\", n=7) at a.c:12\n"
        )
    );
    // A reference argument, a value printed as a pointer, a function pointer with its symbol,
    // a string pointer, `info frame`, `break`, the pc before a source line, `x`'s address
    // column, a memory error.
    for (a, b, merged) in [
        (
            "f (r=@0x7ffc65aadd68: 3)",
            "f (r=@0x7ffc65aadd70: 3)",
            "f (r=@<0x7ffc65aadd68..0x7ffc65aadd70>: 3)",
        ),
        (
            "$1 = (struct cell *) 0x56190f3edfc0",
            "$1 = (struct cell *) 0x561ba2b4fff0",
            "$1 = (struct cell *) <0x56190f3edfc0..0x561ba2b4fff0>",
        ),
        (
            "$1 = (int &) @0x56190f3edfc0: 3",
            "$1 = (int &) @0x56190f3edfd0: 3",
            "$1 = (int &) @<0x56190f3edfc0..0x56190f3edfd0>: 3",
        ),
        (
            "$2 = (void (*)()) 0x5618fe48f188 <leaf+15>",
            "$2 = (void (*)()) 0x561b8f9db188 <leaf+15>",
            "$2 = (void (*)()) <0x5618fe48f188..0x561b8f9db188> <leaf+15>",
        ),
        (
            "$3 = 0x5618fe490004 \"cell\"",
            "$3 = 0x561b8f9dc004 \"cell\"",
            "$3 = <0x5618fe490004..0x561b8f9dc004> \"cell\"",
        ),
        (
            "Stack level 0, frame at 0x7ffc65aadc30:\n rip = 0x5618fe48f188 in leaf (a.c:9); \
             saved rip = 0x5618fe48f212\n Arglist at 0x7ffc65aadc20, args: c=0x56190f3edfc0, \
             n=7\n Locals at 0x7ffc65aadc20, Previous frame's sp is 0x7ffc65aadc30\n Saved \
             registers:\n  rbp at 0x7ffc65aadc20, rip at 0x7ffc65aadc28\n",
            "Stack level 0, frame at 0x7fff601b2540:\n rip = 0x5618fe48f188 in leaf (a.c:9); \
             saved rip = 0x5618fe48f212\n Arglist at 0x7fff601b2530, args: c=0x56190f3edfc0, \
             n=7\n Locals at 0x7fff601b2530, Previous frame's sp is 0x7fff601b2540\n Saved \
             registers:\n  rbp at 0x7fff601b2530, rip at 0x7fff601b2538\n",
            "Stack level 0, frame at <0x7ffc65aadc30..0x7fff601b2540>:\n rip = 0x5618fe48f188 \
             in leaf (a.c:9); saved rip = 0x5618fe48f212\n Arglist at \
             <0x7ffc65aadc20..0x7fff601b2530>, args: c=0x56190f3edfc0, n=7\n Locals at \
             <0x7ffc65aadc20..0x7fff601b2530>, Previous frame's sp is \
             <0x7ffc65aadc30..0x7fff601b2540>\n Saved registers:\n  rbp at \
             <0x7ffc65aadc20..0x7fff601b2530>, rip at <0x7ffc65aadc28..0x7fff601b2538>\n",
        ),
        (
            "Breakpoint 2 at 0x5618fe48f188: file a.c, line 9.",
            "Breakpoint 2 at 0x561b8f9db188: file a.c, line 9.",
            "Breakpoint 2 at <0x5618fe48f188..0x561b8f9db188>: file a.c, line 9.",
        ),
        (
            "0x000055555555516d\t5\t  int x = f(0x10);",
            "0x000056555555516d\t5\t  int x = f(0x10);",
            "<0x000055555555516d..0x000056555555516d>\t5\t  int x = f(0x10);",
        ),
        (
            "0x7ffc65aadc20:\t0x00000001\t0x00000002",
            "0x7fff601b2530:\t0x00000001\t0x00000002",
            "<0x7ffc65aadc20..0x7fff601b2530>:\t0x00000001\t0x00000002",
        ),
        (
            "Cannot access memory at address 0x7ffc65aadc20",
            "Cannot access memory at address 0x7fff601b2530",
            "Cannot access memory at address <0x7ffc65aadc20..0x7fff601b2530>",
        ),
    ] {
        assert_eq!(as_one(a, b).as_deref(), Some(merged), "{a}");
    }
}

#[test]
fn numbers_that_are_not_addresses_keep_answers_apart() {
    for (a, b) in [
        // Integer arguments, line numbers, source text.
        ("#0  f (n=3) at a.c:5", "#0  f (n=4) at a.c:5"),
        ("#0  f (n=3) at a.c:5", "#0  f (n=3) at a.c:6"),
        // A null pointer is not an address like the others; nor is a small number.
        (
            "#0  f (p=0x0) at a.c:5",
            "#0  f (p=0x55555555a2b0) at a.c:5",
        ),
        ("#0  f (p=0xff) at a.c:5", "#0  f (p=0xfe) at a.c:5"),
        // Integers printed in hex by `/x`: a value, not a place.
        ("$1 = 0x55555555a2b0", "$1 = 0x55555555b2b0"),
        (
            "$1 = {v = 0x1, next = 0x55555555a2b0}",
            "$1 = {v = 0x1, next = 0x55555555b2b0}",
        ),
        (
            "$1 = {0x12345 <repeats 16 times>}",
            "$1 = {0x12346 <repeats 16 times>}",
        ),
        // Another symbol, another string.
        (
            "$2 = (void (*)()) 0x5618fe48f188 <leaf+15>",
            "$2 = (void (*)()) 0x5618fe48f18d <leaf+20>",
        ),
        (
            "f (s=0x5618fe490004 \"cell\")",
            "f (s=0x5618fe490008 \"cela\")",
        ),
        // Not whole hex words: an identifier, uppercase or non-hex letters, 17 digits.
        ("f (x0x55555555a2b0=1)", "f (x0x55555555b2b0=1)"),
        ("f (p=0x55555555A2B0)", "f (p=0x55555555A2B1)"),
        ("f (p=0x55555555a2b0g)", "f (p=0x55555555b2b0g)"),
        ("f (p=0x1555555555a2b0000)", "f (p=0x1555555555b2b0000)"),
        // `x`'s data words.
        ("0x7ffc65aadc20:\t0x00000001", "0x7ffc65aadc20:\t0x00000002"),
        // Lines that differ in more than addresses.
        (
            "#0  f (p=0x55555555a2b0) at a.c:5\n#1  main ()\n",
            "#0  f (p=0x55555555b2b0) at a.c:5\n#1  mainx ()\n",
        ),
    ] {
        assert_eq!(as_one(a, b), None, "{a} / {b}");
    }
    // Equal on every rank: printed as it is.
    let t = "#1  0x00005618fe48f212 in main (argc=1, argv=0x7ffc65aadd68) at a.c:21\n";
    assert_eq!(as_one(t, t).as_deref(), Some(t));
    assert!(!Text::new(t).differs());
    assert_eq!(Text::new(t).render(), t);
    assert_eq!(Text::new("").render(), "");
    assert!(Text::new("").is_empty() && Text::default().is_empty());
}

#[test]
fn addresses_merge_in_any_order_to_their_lowest_and_highest() {
    let mut rng = Rng::new(5);
    for round in 0..200 {
        let n = 1 + rng.below(300) as u32;
        // Each rank stops in one of two places, its pointer and pc its own.
        let items: Vec<(u32, u64, bool)> = (0..n)
            .map(|r| (r, 0x5555_0000_0000 + rng.below(1 << 40), rng.below(3) == 0))
            .collect();
        let text = |&(_, p, other): &(u32, u64, bool)| {
            let line = if other { 7 } else { 5 };
            format!(
                "Breakpoint 1, f (p={p:#x}, n=3) at a.c:{line}\n#1  {:#018x} in main () at a.c:9\n",
                p ^ 0x2a0
            )
        };
        // The same as a stack: innermost frame first.
        let stack = |it: &(u32, u64, bool)| -> Vec<String> {
            text(it)[15..]
                .lines()
                .map(|l| l.trim_start_matches("#1  ").to_owned())
                .collect()
        };
        let mut reference = Merged::default();
        let mut tree = StackTree::default();
        for it in &items {
            reference.add(it.0, &text(it), "");
            tree.add(it.0, &stack(it));
        }
        assert!(tree.distinct().len() <= 2, "{tree:?}");
        let build = |chunk: &[(u32, u64, bool)]| {
            let mut m = Merged::default();
            for it in chunk {
                m.add(it.0, &text(it), "");
            }
            m
        };
        let got = random_reduction(&mut rng, &items, build, |a, b| a.merge(b));
        assert_eq!(got, reference, "round {round}");
        assert!(got.groups.len() <= 2);
        for g in &got.groups {
            let mine: Vec<&(u32, u64, bool)> =
                items.iter().filter(|i| g.ranks.contains(i.0)).collect();
            let lo = mine.iter().map(|i| i.1).min().unwrap();
            let hi = mine.iter().map(|i| i.1).max().unwrap();
            let p = if lo == hi {
                format!("{lo:#x}")
            } else {
                format!("<{lo:#x}..{hi:#x}>")
            };
            assert!(
                g.out.render().contains(&format!("(p={p}, n=3)")),
                "{:?}",
                g.out.render()
            );
            assert!(mine.iter().all(|i| i.2 == mine[0].2));
        }
        let build = |chunk: &[(u32, u64, bool)]| {
            let mut t = StackTree::default();
            for it in chunk {
                t.add(it.0, &stack(it));
            }
            t
        };
        let got = random_reduction(&mut rng, &items, build, |a, b| a.merge(b));
        assert_eq!(got, tree, "round {round}");
        let mut shuffled = items.clone();
        rng.shuffle(&mut shuffled);
        let mut one_by_one = StackTree::default();
        for it in &shuffled {
            one_by_one.add(it.0, &stack(it));
        }
        assert_eq!(one_by_one, tree, "round {round}");
        let bytes = postcard::to_stdvec(&got).unwrap();
        assert_eq!(postcard::from_bytes::<StackTree>(&bytes).unwrap(), tree);
    }
}

#[test]
fn backtraces_and_lines_merge_across_addresses() {
    let mut t = StackTree::default();
    for (r, c, pc) in [
        (0, 0x55555555a2b0u64, 0x5618fe48f212u64),
        (1, 0x55555555c2b0, 0x561b8f9db212),
    ] {
        t.add(
            r,
            &[
                format!("leaf (c={c:#x}, n=7) at a.c:12"),
                format!("{pc:#018x} in main () at a.c:31"),
            ],
        );
    }
    t.add(
        2,
        &frames(&[
            "leaf (c=0x55555555b2b0, n=8) at a.c:12",
            "0x00005618fe48f212 in main () at a.c:31",
        ]),
    );
    assert_eq!(
        t.distinct(),
        vec![
            (
                rs("0-1"),
                frames(&[
                    "leaf (c=<0x55555555a2b0..0x55555555c2b0>, n=7) at a.c:12",
                    "<0x00005618fe48f212..0x0000561b8f9db212> in main () at a.c:31"
                ])
            ),
            (
                rs("2"),
                // An outer frame that stacks share is one node: its range is over all of
                // them.
                frames(&[
                    "leaf (c=0x55555555b2b0, n=8) at a.c:12",
                    "<0x00005618fe48f212..0x0000561b8f9db212> in main () at a.c:31"
                ])
            ),
        ]
    );
    // As `bt` prints them: line by line, the `#1` lines (addresses aside) once.
    let bts = t.backtraces();
    let refs: Vec<(RankSet, &Text)> = bts.iter().map(|(r, t)| (r.clone(), t)).collect();
    assert_eq!(
        render_lines(&refs),
        "[0-1] #0  leaf (c=<0x55555555a2b0..0x55555555c2b0>, n=7) at a.c:12\n\
         [2] #0  leaf (c=0x55555555b2b0, n=8) at a.c:12\n\
         [0-2] #1  <0x00005618fe48f212..0x0000561b8f9db212> in main () at a.c:31\n"
    );
    assert_eq!(
        t.render_tree(),
        "<0x00005618fe48f212..0x0000561b8f9db212> in main () at a.c:31  [0-2]\n  \
         leaf (c=<0x55555555a2b0..0x55555555c2b0>, n=7) at a.c:12  [0-1]\n  \
         leaf (c=0x55555555b2b0, n=8) at a.c:12  [2]\n"
    );
    // Groups of unequal length print one after the other; empty lines as `[SET]`.
    let (a, b) = (Text::new("x\n\ny\n"), Text::new("z\n"));
    assert_eq!(
        render_lines(&[(rs("1"), &a), (rs("0"), &b), (rs("2"), &Text::new(""))]),
        "[0] z\n[1] x\n[1]\n[1] y\n"
    );
}

#[test]
fn history_is_the_highest_of_the_ranks() {
    let mut a = Merged::one(0, "$3 = 1\n", "");
    a.note_history(3);
    let mut b = Merged::one(1, "$3 = 1\n", "");
    b.note_history(2);
    b.note_history(1);
    assert_eq!(b.history, 2);
    let mut c = b.clone();
    c.merge(a.clone());
    a.merge(b);
    assert_eq!(a, c);
    assert_eq!(a.history, 3);
    assert_eq!(a.render().0, "[0-1] $3 = 1\n");
}

#[test]
fn values_in_natural_format_have_their_pointers_merged() {
    let one = |a: &str, b: &str| {
        let mut m = Merged::default();
        m.add_as(0, a, "", Hex::Pointers);
        m.add_as(1, b, "", Hex::Pointers);
        (m.groups.len() == 1).then(|| m.groups[0].out.render())
    };
    // `print *c`, `info locals`: a pointer member or variable (gdb prints integers in decimal).
    assert_eq!(
        one(
            "$2 = {v = 1, next = 0x55555555a2b0}\n",
            "$2 = {v = 1, next = 0x55555555b2b0}\n"
        )
        .as_deref(),
        Some("$2 = {v = 1, next = <0x55555555a2b0..0x55555555b2b0>}\n")
    );
    assert_eq!(
        one("c = 0x55555555a2b0\nn = 1\n", "c = 0x55555555b2b0\nn = 1\n").as_deref(),
        Some("c = <0x55555555a2b0..0x55555555b2b0>\nn = 1\n")
    );
    // A null pointer, another integer, what a string or a character holds: apart.
    for (a, b) in [
        ("c = 0x0\n", "c = 0x55555555b2b0\n"),
        (
            "$1 = {v = 1, next = 0x55555555a2b0}",
            "$1 = {v = 2, next = 0x55555555b2b0}",
        ),
        ("$1 = \"id 0x55555555a2b0\"", "$1 = \"id 0x55555555b2b0\""),
        (
            "$1 = \"a\\\" 0x55555555a2b0\"",
            "$1 = \"a\\\" 0x55555555b2b0\"",
        ),
    ] {
        assert_eq!(one(a, b), None, "{a} / {b}");
    }
    // After a string ends, numbers are found again.
    assert_eq!(
        one(
            "$1 = 0x5555 \"x\" 0x55555555a2b0",
            "$1 = 0x5555 \"x\" 0x55555555b2b0"
        )
        .as_deref(),
        Some("$1 = 0x5555 \"x\" <0x55555555a2b0..0x55555555b2b0>")
    );
    // A character that is a quote does not start a string.
    assert_eq!(
        one(
            "$1 = {q = 34 '\"', p = 0x55555555a2b0}",
            "$1 = {q = 34 '\"', p = 0x55555555b2b0}"
        )
        .as_deref(),
        Some("$1 = {q = 34 '\"', p = <0x55555555a2b0..0x55555555b2b0>}")
    );
    assert_eq!(
        one(
            "$1 = {q = 39 '\\'', p = 0x55555555a2b0}",
            "$1 = {q = 39 '\\'', p = 0x55555555b2b0}"
        )
        .as_deref(),
        Some("$1 = {q = 39 '\\'', p = <0x55555555a2b0..0x55555555b2b0>}")
    );
    // Where only gdb's address places count, a string's contents are text too.
    assert_eq!(
        as_one(
            "#0  f (s=0x5618fe490004 \"at 0x7fff12345\") at a.c:3",
            "#0  f (s=0x5618fe490004 \"at 0x7fff12346\") at a.c:3"
        ),
        None
    );
    // Errors are found addresses in by gdb's places only.
    let mut m = Merged::default();
    m.add_as(0, "", "warning: 0x55555555a2b0 unknown\n", Hex::Pointers);
    m.add_as(1, "", "warning: 0x55555555b2b0 unknown\n", Hex::Pointers);
    assert_eq!(m.groups.len(), 2);
}
