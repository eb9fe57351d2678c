//! Typed values (protocol version 6): what `:value EXPR` and `:locals` answer, as trees
//! rather than gdb's text, merged in the tree by rank set as [`crate::States`] are: one class
//! per distinct value with the ranks holding it, classes ordered by their lowest rank, and a
//! [`Reduction`] of the numbers (minimum and maximum with the ranks holding them, the ranks
//! with a NaN or an infinity). Both merges are associative and commutative.

use serde::{Deserialize, Serialize};

use crate::RankSet;

/// A number of a value, compared by its bits (a NaN equals itself, `-0.0` is not `0.0`), so
/// that values holding numbers can be grouped.
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
pub struct Num(pub f64);

impl PartialEq for Num {
    fn eq(&self, o: &Self) -> bool {
        self.0.to_bits() == o.0.to_bits()
    }
}

impl Eq for Num {}

impl std::hash::Hash for Num {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.to_bits().hash(h);
    }
}

/// One dimension of an array: its lower bound and its number of elements.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim {
    pub lower: i64,
    pub count: u64,
}

impl Dim {
    /// The upper bound (`lower + count - 1`).
    pub fn upper(&self) -> i64 {
        self.lower
            .saturating_add(i64::try_from(self.count).unwrap_or(i64::MAX))
            .saturating_sub(1)
    }
}

/// An array's elements: numbers (for arrays of integers, floating-point numbers, characters
/// and booleans) or values.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub enum Elements {
    Numbers(Vec<Num>),
    Values(Vec<TypedValue>),
}

impl Elements {
    pub fn len(&self) -> usize {
        match self {
            Elements::Numbers(n) => n.len(),
            Elements::Values(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A value as a tree.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypedValue {
    /// A number, a pointer, a string, an enumerator…: its type's name, the text gdb prints
    /// for it, and its number when it is one.
    Scalar {
        ty: String,
        text: String,
        num: Option<Num>,
    },
    /// A struct, union, class or Fortran derived type: its members by name, in order.
    Struct {
        ty: String,
        fields: Vec<(String, TypedValue)>,
    },
    /// An array: its type, its element type, its dimensions in source order (`a[2][3]`:
    /// 2 then 3; Fortran `a(0:1,3)`: 0..1 then 1..3), and its elements in the order the
    /// language lays them out (C: the last subscript varies fastest; Fortran, where
    /// `column_major`: the first). `elements` may hold fewer than the array has (the
    /// first ones only: see [`TypedValue::total`]).
    Array {
        ty: String,
        element: String,
        dims: Vec<Dim>,
        column_major: bool,
        elements: Elements,
    },
}

impl TypedValue {
    /// The type's name.
    pub fn type_name(&self) -> &str {
        match self {
            TypedValue::Scalar { ty, .. }
            | TypedValue::Struct { ty, .. }
            | TypedValue::Array { ty, .. } => ty,
        }
    }

    /// The number of a scalar that is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            TypedValue::Scalar { num: Some(n), .. } => Some(n.0),
            _ => None,
        }
    }

    /// The number of elements of an array (of all its dimensions), 0 for anything else.
    pub fn total(&self) -> u64 {
        match self {
            TypedValue::Array { dims, .. } => {
                dims.iter().fold(1u64, |a, d| a.saturating_mul(d.count))
            }
            _ => 0,
        }
    }

    /// The value as one line, gdb-like (`{id = 3, v = {1, nan, ...}}`), at most `elements`
    /// elements of each array (a C array's elements flattened, in memory order).
    pub fn render(&self, elements: usize) -> String {
        match self {
            TypedValue::Scalar { text, .. } => text.clone(),
            TypedValue::Struct { fields, .. } => {
                let f: Vec<String> = fields
                    .iter()
                    .map(|(n, v)| format!("{n} = {}", v.render(elements)))
                    .collect();
                format!("{{{}}}", f.join(", "))
            }
            TypedValue::Array { elements: e, .. } => {
                let mut f: Vec<String> = match e {
                    Elements::Numbers(n) => n
                        .iter()
                        .take(elements)
                        .map(|x| format!("{}", x.0))
                        .collect(),
                    Elements::Values(v) => v
                        .iter()
                        .take(elements)
                        .map(|x| x.render(elements))
                        .collect(),
                };
                if (e.len() as u64) < self.total() || e.len() > elements {
                    f.push("...".into());
                }
                format!("{{{}}}", f.join(", "))
            }
        }
    }

    /// The value at `path` below this one: member names and flat element indexes.
    pub fn at(&self, path: &[PathStep]) -> Option<&TypedValue> {
        let Some((first, rest)) = path.split_first() else {
            return Some(self);
        };
        let next = match (self, first) {
            (TypedValue::Struct { fields, .. }, PathStep::Field(name)) => {
                fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)?
            }
            (
                TypedValue::Array {
                    elements: Elements::Values(v),
                    ..
                },
                PathStep::Element(i),
            ) => v.get(*i)?,
            _ => return None,
        };
        next.at(rest)
    }
}

/// A step down a value's tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathStep {
    Field(String),
    /// An element by its place in [`TypedValue::Array`]'s `elements`.
    Element(usize),
}

/// A number the ranks hold at an extreme, with the text gdb printed for it and the ranks.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Extreme {
    pub num: Num,
    pub text: String,
    pub ranks: RankSet,
}

/// Over ranks, the numbers one expression took: the least and greatest finite ones with the
/// ranks holding each, and the ranks holding a NaN, +Inf or -Inf. Finite numbers are ordered
/// as `f64::total_cmp` does (`-0.0` before `0.0`), so that merging is commutative.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
pub struct Reduction {
    pub min: Option<Extreme>,
    pub max: Option<Extreme>,
    pub nan: RankSet,
    pub pos_inf: RankSet,
    pub neg_inf: RankSet,
    /// Every rank whose value is a number.
    pub numbers: RankSet,
}

impl Reduction {
    /// Counts `ranks`' number `v` printed as `text`.
    pub fn add(&mut self, ranks: &RankSet, v: f64, text: &str) {
        let mut one = Reduction {
            numbers: ranks.clone(),
            ..Default::default()
        };
        if v.is_nan() {
            one.nan = ranks.clone();
        } else if v == f64::INFINITY {
            one.pos_inf = ranks.clone();
        } else if v == f64::NEG_INFINITY {
            one.neg_inf = ranks.clone();
        } else {
            let e = Extreme {
                num: Num(v),
                text: text.trim().to_string(),
                ranks: ranks.clone(),
            };
            one.min = Some(e.clone());
            one.max = Some(e);
        }
        self.merge(one);
    }

    /// Merges another subtree's reduction.
    pub fn merge(&mut self, o: Reduction) {
        fn pick(a: &mut Option<Extreme>, b: Option<Extreme>, want: std::cmp::Ordering) {
            let Some(b) = b else { return };
            match a {
                None => *a = Some(b),
                Some(x) => match b.num.0.total_cmp(&x.num.0) {
                    std::cmp::Ordering::Equal => {
                        x.ranks = x.ranks.union(&b.ranks);
                        // (Texts of one number differ only between types: the least is
                        // kept, whatever the order of merging.)
                        if b.text < x.text {
                            x.text = b.text;
                        }
                    }
                    ord if ord == want => *a = Some(b),
                    _ => {}
                },
            }
        }
        pick(&mut self.min, o.min, std::cmp::Ordering::Less);
        pick(&mut self.max, o.max, std::cmp::Ordering::Greater);
        self.nan = self.nan.union(&o.nan);
        self.pos_inf = self.pos_inf.union(&o.pos_inf);
        self.neg_inf = self.neg_inf.union(&o.neg_inf);
        self.numbers = self.numbers.union(&o.numbers);
    }

    pub fn is_empty(&self) -> bool {
        self.numbers.is_empty()
    }

    /// The reduction as `compare` prints it: `min 1.5 on [0-1], max 2.5 on [2]`, then
    /// `NaN on 1 rank: [3]`, `+Inf on …`, `-Inf on …`.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(lo), Some(hi)) = (&self.min, &self.max) {
            out.push(format!(
                "min {} on [{}], max {} on [{}]",
                lo.text, lo.ranks, hi.text, hi.ranks
            ));
        }
        for (what, set) in [
            ("NaN", &self.nan),
            ("+Inf", &self.pos_inf),
            ("-Inf", &self.neg_inf),
        ] {
            if !set.is_empty() {
                let n = set.len();
                out.push(format!(
                    "{what} on {n} rank{}: [{set}]",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        out
    }
}

/// Over ranks, the values of one expression: one class per distinct value with its ranks,
/// ordered by lowest rank, and the reduction of the scalar numbers among them.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Values {
    pub classes: Vec<(TypedValue, RankSet)>,
    pub reduction: Reduction,
    /// Each class's hash, in the order of `classes` (not sent: rebuilt by [`Values::merge`]
    /// whenever its length is not theirs). 10,000 ranks' locals are 10,000 classes: a search
    /// of the list for each merged class made the front end's merge quadratic (4.5 s), and
    /// hashing every class again at each of a hundred merges cost 0.3 s.
    #[serde(skip)]
    hashes: Vec<u64>,
}

impl PartialEq for Values {
    fn eq(&self, o: &Self) -> bool {
        self.classes == o.classes && self.reduction == o.reduction
    }
}

impl Eq for Values {}

fn hash_of(v: &TypedValue) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(v, &mut h);
    std::hash::Hasher::finish(&h)
}

impl Values {
    /// `rank`'s value.
    pub fn add(&mut self, rank: u32, v: TypedValue) {
        let mut one = Values::default();
        let ranks = RankSet::single(rank);
        if let TypedValue::Scalar {
            num: Some(n), text, ..
        } = &v
        {
            one.reduction.add(&ranks, n.0, text);
        }
        one.classes.push((v, ranks));
        self.merge(one);
    }

    /// Merges another subtree's values.
    pub fn merge(&mut self, o: Values) {
        self.reduction.merge(o.reduction);
        if o.classes.is_empty() {
            return;
        }
        if self.hashes.len() != self.classes.len() {
            self.hashes = self.classes.iter().map(|(v, _)| hash_of(v)).collect();
        }
        let mut at: std::collections::HashMap<u64, Vec<usize>> =
            std::collections::HashMap::with_capacity(self.classes.len() + o.classes.len());
        for (i, h) in self.hashes.iter().enumerate() {
            at.entry(*h).or_default().push(i);
        }
        let theirs = if o.hashes.len() == o.classes.len() {
            o.hashes
        } else {
            o.classes.iter().map(|(v, _)| hash_of(v)).collect()
        };
        for ((v, r), h) in o.classes.into_iter().zip(theirs) {
            let same = at.entry(h).or_default();
            match same.iter().find(|&&i| self.classes[i].0 == v) {
                Some(&i) => self.classes[i].1 = self.classes[i].1.union(&r),
                None => {
                    same.push(self.classes.len());
                    self.classes.push((v, r));
                    self.hashes.push(h);
                }
            }
        }
        if !self.classes.is_sorted_by_key(|(_, r)| r.first()) {
            let mut both: Vec<((TypedValue, RankSet), u64)> = std::mem::take(&mut self.classes)
                .into_iter()
                .zip(std::mem::take(&mut self.hashes))
                .collect();
            both.sort_by_key(|((_, r), _)| r.first());
            (self.classes, self.hashes) = both.into_iter().unzip();
        }
    }

    /// Every rank with a value here.
    pub fn ranks(&self) -> RankSet {
        self.classes
            .iter()
            .fold(RankSet::new(), |acc, (_, r)| acc.union(r))
    }

    /// `rank`'s value.
    pub fn get(&self, rank: u32) -> Option<&TypedValue> {
        self.classes
            .iter()
            .find(|(_, r)| r.contains(rank))
            .map(|(v, _)| v)
    }
}

/// Statistics of a run of numbers (an array's elements): how many, how many are NaN, +Inf,
/// -Inf, negative (below zero, -Inf included) and zero, and the least, greatest and mean of
/// the finite ones.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stats {
    pub count: u64,
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
    pub negative: u64,
    pub zero: u64,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub sum: f64,
    pub finite: u64,
}

impl Stats {
    pub fn of(nums: impl IntoIterator<Item = f64>) -> Stats {
        let mut s = Stats::default();
        for v in nums {
            s.count += 1;
            if v.is_nan() {
                s.nan += 1;
                continue;
            }
            if v < 0.0 {
                s.negative += 1;
            }
            if v == 0.0 {
                s.zero += 1;
            }
            if v == f64::INFINITY {
                s.pos_inf += 1;
            } else if v == f64::NEG_INFINITY {
                s.neg_inf += 1;
            } else {
                s.finite += 1;
                s.sum += v;
                s.min = Some(s.min.map_or(v, |m| m.min(v)));
                s.max = Some(s.max.map_or(v, |m| m.max(v)));
            }
        }
        s
    }

    /// The mean of the finite numbers.
    pub fn mean(&self) -> Option<f64> {
        (self.finite > 0).then(|| self.sum / self.finite as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(text: &str, v: f64) -> TypedValue {
        TypedValue::Scalar {
            ty: "double".into(),
            text: text.into(),
            num: Some(Num(v)),
        }
    }

    /// `values` of ranks 0.. merged one by one, and the same as two subtrees merged in the
    /// other order.
    fn both_ways(vals: &[TypedValue]) -> (Values, Values) {
        let mut one = Values::default();
        for (r, v) in vals.iter().enumerate() {
            one.add(r as u32, v.clone());
        }
        let mid = vals.len() / 2;
        let mut a = Values::default();
        let mut b = Values::default();
        for (r, v) in vals.iter().enumerate().rev() {
            if r < mid {
                a.add(r as u32, v.clone());
            } else {
                b.add(r as u32, v.clone());
            }
        }
        b.merge(a);
        (one, b)
    }

    #[test]
    fn classes_and_reduction_merge_in_any_order() {
        let vals = [
            scalar("1.5", 1.5),
            scalar("nan(0x8000000000000)", f64::NAN),
            scalar("1.5", 1.5),
            scalar("-inf", f64::NEG_INFINITY),
            scalar("-2", -2.0),
            scalar("nan(0x8000000000000)", f64::NAN),
        ];
        let (one, other) = both_ways(&vals);
        assert_eq!(one, other);
        let ranks: Vec<String> = one.classes.iter().map(|(_, r)| r.to_string()).collect();
        assert_eq!(ranks, ["0,2", "1,5", "3", "4"]);
        assert_eq!(
            one.reduction.lines(),
            [
                "min -2 on [4], max 1.5 on [0,2]",
                "NaN on 2 ranks: [1,5]",
                "-Inf on 1 rank: [3]"
            ]
        );
        assert_eq!(one.reduction.numbers, RankSet::range(0, 5));
        assert_eq!(one.get(5), Some(&vals[1]));
    }

    /// Many classes (every rank its own value, and values shared by ranks far apart), merged
    /// from subtrees that went over the wire (no hashes kept) and from ones built here.
    #[test]
    fn many_classes_merge_as_one_list_does() {
        let val = |r: u32| {
            let x = if r.is_multiple_of(3) {
                f64::from(r % 7)
            } else {
                f64::from(r + 1000)
            };
            TypedValue::Struct {
                ty: "struct s".into(),
                fields: vec![("x".into(), scalar(&x.to_string(), x))],
            }
        };
        let mut whole = Values::default();
        for r in 0..600 {
            whole.add(r, val(r));
        }
        let mut merged = Values::default();
        for part in (0..6u32).rev() {
            let mut sub = Values::default();
            for r in (part * 100..part * 100 + 100).rev() {
                sub.add(r, val(r));
            }
            if part % 2 == 0 {
                let bytes = postcard::to_allocvec(&sub).expect("encode");
                sub = postcard::from_bytes(&bytes).expect("decode");
            }
            merged.merge(sub);
        }
        assert_eq!(merged, whole);
        // 7 shared values (ranks 0, 3, 6, …) and 400 ranks with their own.
        assert_eq!(whole.classes.len(), 7 + 400);
        assert_eq!(
            whole.classes[0].1.to_string(),
            "0,21,42,63,84,105,126,147,168,189,210,231,252,273,294,315,336,357,378,399,420,441,462,483,504,525,546,567,588"
        );
        assert!(whole.classes.is_sorted_by_key(|(_, r)| r.first()));
        for r in 0..600 {
            assert_eq!(merged.get(r), Some(&val(r)), "rank {r}");
        }
    }

    #[test]
    fn trees_group_by_equal_value_and_travel_intact() {
        let s = |x: f64| TypedValue::Struct {
            ty: "struct cell".into(),
            fields: vec![
                ("id".into(), scalar("3", 3.0)),
                (
                    "v".into(),
                    TypedValue::Array {
                        ty: "double [2]".into(),
                        element: "double".into(),
                        dims: vec![Dim { lower: 0, count: 2 }],
                        column_major: false,
                        elements: Elements::Numbers(vec![Num(x), Num(f64::NAN)]),
                    },
                ),
            ],
        };
        let (one, other) = both_ways(&[s(1.0), s(2.0), s(1.0), s(2.0)]);
        assert_eq!(one, other);
        assert_eq!(one.classes.len(), 2);
        assert_eq!(one.classes[1].1, RankSet::parse("1,3", 4).expect("set"));
        // Structs are no numbers: no reduction.
        assert!(one.reduction.is_empty());
        let bytes = postcard::to_allocvec(&one).expect("encode");
        let back: Values = postcard::from_bytes(&bytes).expect("decode");
        assert_eq!(back, one);
        let v = &one.classes[0].0;
        assert_eq!(v.render(1), "{id = 3, v = {1, ...}}");
        assert_eq!(v.render(4), "{id = 3, v = {1, NaN}}");
        assert_eq!(
            v.at(&[PathStep::Field("v".into())]).map(TypedValue::total),
            Some(2)
        );
        assert_eq!(
            v.at(&[PathStep::Field("id".into())])
                .and_then(TypedValue::number),
            Some(3.0)
        );
    }

    #[test]
    fn equal_extremes_keep_the_same_text_in_any_order() {
        let mut a = Reduction::default();
        a.add(&RankSet::single(0), 0.0, "0");
        a.add(&RankSet::single(1), -0.0, "-0");
        let mut b = Reduction::default();
        b.add(&RankSet::single(1), -0.0, "-0");
        b.add(&RankSet::single(0), 0.0, "0");
        assert_eq!(a, b);
        assert_eq!(a.lines(), ["min -0 on [1], max 0 on [0]"]);
    }

    #[test]
    fn statistics_of_numbers() {
        let s = Stats::of([
            1.0,
            -2.0,
            0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4.0,
        ]);
        assert_eq!(
            (s.count, s.nan, s.pos_inf, s.neg_inf, s.negative, s.zero),
            (7, 1, 1, 1, 2, 1)
        );
        assert_eq!(
            (s.min, s.max, s.mean()),
            (Some(-2.0), Some(4.0), Some(0.75))
        );
        assert_eq!(Stats::of([]).mean(), None);
    }
}
