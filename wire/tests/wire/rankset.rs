use std::collections::BTreeSet;

use cohort_wire::{RankSet, WireError};

use crate::prng::Rng;

fn model(s: &RankSet) -> BTreeSet<u32> {
    s.iter().collect()
}

fn check_canonical(s: &RankSet) {
    let r = s.ranges();
    for w in r.windows(2) {
        assert!(w[0].1 + 1 < w[1].0, "not canonical: {r:?}");
    }
    for &(lo, hi) in r {
        assert!(lo <= hi);
    }
}

fn random_set(rng: &mut Rng, universe: u32) -> (RankSet, BTreeSet<u32>) {
    let mut s = RankSet::new();
    let mut m = BTreeSet::new();
    for _ in 0..rng.below(8) {
        let lo = rng.below(u64::from(universe)) as u32;
        let hi = (lo + rng.below(12) as u32).min(universe - 1);
        if rng.below(3) == 0 {
            s.insert(lo);
            m.insert(lo);
        } else {
            s.insert_range(lo, hi);
            m.extend(lo..=hi);
        }
    }
    check_canonical(&s);
    assert_eq!(model(&s), m);
    (s, m)
}

#[test]
fn constructors_and_display() {
    assert_eq!(RankSet::new().to_string(), "");
    assert_eq!(RankSet::single(7).to_string(), "7");
    assert_eq!(RankSet::range(2, 5).to_string(), "2-5");
    assert_eq!(RankSet::range(5, 2), RankSet::new());
    assert_eq!(RankSet::all(0), RankSet::new());
    assert_eq!(RankSet::all(4096).to_string(), "0-4095");
    let s: RankSet = [9, 0, 1, 2, 3, 5, 7, 8, 3].into_iter().collect();
    assert_eq!(s.to_string(), "0-3,5,7-9");
    assert_eq!(s.ranges(), &[(0, 3), (5, 5), (7, 9)]);
    assert_eq!(s.len(), 8);
    assert_eq!(s.first(), Some(0));
    assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 5, 7, 8, 9]);
    assert!(s.contains(5) && !s.contains(4) && !s.contains(10));
    let mut t = RankSet::new();
    t.insert_range(10, 12);
    t.insert(13);
    t.insert(9);
    t.insert(0);
    assert_eq!(t.to_string(), "0,9-13");
    let mut u = RankSet::single(u32::MAX);
    u.insert(u32::MAX - 1);
    u.insert(0);
    assert_eq!(u.ranges(), &[(0, 0), (u32::MAX - 1, u32::MAX)]);
    assert_eq!(RankSet::range(0, u32::MAX).len(), 1 << 32);
}

#[test]
fn parse_good() {
    let p = |s: &str| RankSet::parse(s, 16).unwrap().to_string();
    assert_eq!(p("0-3,8,10-15"), "0-3,8,10-15");
    assert_eq!(p("all"), "0-15");
    assert_eq!(p(" ALL "), "0-15");
    assert_eq!(p("[0-3]"), "0-3");
    assert_eq!(p(" [ 0 - 3 , 5 ] "), "0-3,5");
    assert_eq!(p("[all]"), "0-15");
    assert_eq!(p("5,4,3"), "3-5");
    assert_eq!(p("0-3,2-6,7"), "0-7");
    assert_eq!(p("15"), "15");
    assert_eq!(p("3-3"), "3");
    assert_eq!(p(""), "");
    assert_eq!(p("[]"), "");
}

#[test]
fn parse_bad() {
    for bad in [
        "x",
        "1,",
        ",1",
        "1,,2",
        "3-1",
        "16",
        "0-16",
        "-1",
        "1-",
        "-",
        "1-2-3",
        "+1",
        "0x1",
        "1.5",
        "[0-3",
        "0-3]",
        "[[1]]",
        "99999999999",
        "1 2",
        "al",
        "all,1",
    ] {
        match RankSet::parse(bad, 16) {
            Err(WireError::RankSet(_)) => {}
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
    assert!(RankSet::parse("0", 0).is_err());
}

#[test]
fn display_parse_round_trip() {
    let mut rng = Rng::new(1);
    for _ in 0..500 {
        let (s, _) = random_set(&mut rng, 200);
        let text = s.to_string();
        assert_eq!(RankSet::parse(&text, 200).unwrap(), s, "{text}");
        assert_eq!(RankSet::parse(&format!("[{text}]"), 200).unwrap(), s);
    }
}

#[test]
fn algebra_matches_model() {
    let mut rng = Rng::new(2);
    for _ in 0..3000 {
        let universe = 1 + rng.below(100) as u32;
        let (a, ma) = random_set(&mut rng, universe);
        let (b, mb) = random_set(&mut rng, universe);
        let u = a.union(&b);
        let i = a.intersection(&b);
        let d = a.difference(&b);
        for s in [&u, &i, &d] {
            check_canonical(s);
        }
        assert_eq!(model(&u), &ma | &mb);
        assert_eq!(model(&i), &ma & &mb);
        assert_eq!(model(&d), &ma - &mb);
        assert_eq!(a.len(), ma.len() as u64);
        assert_eq!(a.is_empty(), ma.is_empty());
        assert_eq!(a.first(), ma.first().copied());
        assert_eq!(a.is_subset(&b), ma.is_subset(&mb));
        for r in 0..universe + 2 {
            assert_eq!(a.contains(r), ma.contains(&r));
        }
        let c: RankSet = ma.iter().rev().copied().collect();
        assert_eq!(c, a);
        // Inserting ranks one by one in any order agrees with the model.
        let (mut f, mut mf) = (b.clone(), mb.clone());
        for _ in 0..8 {
            let r = rng.below(u64::from(universe) + 2) as u32;
            f.insert(r);
            mf.insert(r);
            check_canonical(&f);
            assert_eq!(model(&f), mf);
        }
        // Removing ranks one by one (in and out of the set) agrees with the model.
        let (mut e, mut me) = (a.clone(), ma.clone());
        for _ in 0..8 {
            let r = rng.below(u64::from(universe) + 2) as u32;
            e.remove(r);
            me.remove(&r);
            check_canonical(&e);
            assert_eq!(model(&e), me);
        }
        // Equal sets have equal representations.
        assert_eq!(u, b.union(&a));
        assert_eq!(i, b.intersection(&a));
    }
}

#[test]
fn wire_form_is_checked() {
    let good = RankSet::range(1, 3).union(&RankSet::single(9));
    let bytes = postcard::to_stdvec(&good).unwrap();
    assert_eq!(postcard::from_bytes::<RankSet>(&bytes).unwrap(), good);
    for bad in [
        vec![(3u32, 1u32)],
        vec![(5, 6), (1, 2)],
        vec![(1, 5), (4, 8)],
        vec![(1, 2), (3, 4)],
    ] {
        let bytes = postcard::to_stdvec(&bad).unwrap();
        assert!(postcard::from_bytes::<RankSet>(&bytes).is_err(), "{bad:?}");
    }
}
