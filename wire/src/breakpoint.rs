//! The breakpoints of a rank as a typed value: the agent answers `:breakpoints` with a
//! [`TypedValue`] of this shape (an array of `breakpoint` structs), merged up the tree as
//! any typed value (one class per distinct list, with its ranks), so the front end has every
//! rank's breakpoints typed, no text parsed. The shape is written and read here only.

use crate::{Dim, Elements, Num, RankSet, TypedValue, Values};

/// A location of a breakpoint: its number, where it is (none while pending), enabled,
/// temporary (`tbreak`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Breakpoint {
    pub number: u32,
    /// The file as gdb names it, and its full path.
    pub file: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub enabled: bool,
    pub temporary: bool,
}

const LIST: &str = "breakpoints";
const ONE: &str = "breakpoint";

fn scalar(ty: &str, text: String, num: Option<f64>) -> TypedValue {
    TypedValue::Scalar {
        ty: ty.into(),
        text,
        num: num.map(Num),
    }
}

fn text(s: &Option<String>) -> TypedValue {
    scalar("text", s.clone().unwrap_or_default(), None)
}

fn flag(b: bool) -> TypedValue {
    scalar(
        "bool",
        if b { "y" } else { "n" }.into(),
        Some(f64::from(u8::from(b))),
    )
}

impl Breakpoint {
    /// A rank's breakpoints as the typed value of `:breakpoints`.
    pub fn list_value(list: &[Breakpoint]) -> TypedValue {
        let elements = list
            .iter()
            .map(|b| TypedValue::Struct {
                ty: ONE.into(),
                fields: vec![
                    (
                        "number".into(),
                        scalar("int", b.number.to_string(), Some(b.number.into())),
                    ),
                    ("file".into(), text(&b.file)),
                    ("path".into(), text(&b.path)),
                    (
                        "line".into(),
                        match b.line {
                            Some(l) => scalar("int", l.to_string(), Some(l.into())),
                            None => scalar("int", String::new(), None),
                        },
                    ),
                    ("enabled".into(), flag(b.enabled)),
                    ("temporary".into(), flag(b.temporary)),
                ],
            })
            .collect::<Vec<_>>();
        TypedValue::Array {
            ty: LIST.into(),
            element: ONE.into(),
            dims: vec![Dim {
                lower: 0,
                count: elements.len() as u64,
            }],
            column_major: false,
            elements: Elements::Values(elements),
        }
    }

    /// A rank's breakpoints from the typed value of `:breakpoints` (none if it is not one).
    pub fn list_of(v: &TypedValue) -> Option<Vec<Breakpoint>> {
        let TypedValue::Array {
            ty,
            elements: Elements::Values(items),
            ..
        } = v
        else {
            return match v {
                // No breakpoints: an empty list (its elements may come as numbers).
                TypedValue::Array { ty, .. } if ty == LIST && v.total() == 0 => Some(Vec::new()),
                _ => None,
            };
        };
        if ty != LIST {
            return None;
        }
        items.iter().map(Breakpoint::of).collect()
    }

    fn of(v: &TypedValue) -> Option<Breakpoint> {
        let TypedValue::Struct { ty, fields } = v else {
            return None;
        };
        if ty != ONE {
            return None;
        }
        let get = |n: &str| fields.iter().find(|(f, _)| f == n).map(|(_, v)| v);
        let num = |n: &str| get(n).and_then(TypedValue::number);
        let text = |n: &str| match get(n)? {
            TypedValue::Scalar { text, .. } if !text.is_empty() => Some(text.clone()),
            _ => None,
        };
        Some(Breakpoint {
            number: num("number")? as u32,
            file: text("file"),
            path: text("path"),
            line: num("line").map(|l| l as u32),
            enabled: num("enabled")? != 0.0,
            temporary: num("temporary")? != 0.0,
        })
    }

    /// Every rank's breakpoints from the merged answer of `:breakpoints`: each location with
    /// the ranks that have it, in number order (then by place).
    pub fn by_ranks(values: &Values) -> Vec<(Breakpoint, RankSet)> {
        let mut all: Vec<(Breakpoint, RankSet)> = Vec::new();
        for (v, ranks) in &values.classes {
            for b in Breakpoint::list_of(v).unwrap_or_default() {
                match all.iter_mut().find(|(x, _)| *x == b) {
                    Some((_, r)) => *r = r.union(ranks),
                    None => all.push((b, ranks.clone())),
                }
            }
        }
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bp(number: u32, line: Option<u32>, enabled: bool) -> Breakpoint {
        Breakpoint {
            number,
            file: line.map(|_| "t.c".into()),
            path: line.map(|_| "/src/t.c".into()),
            line,
            enabled,
            temporary: number == 3,
        }
    }

    #[test]
    fn a_list_goes_through_its_typed_value() {
        let list = vec![
            bp(1, Some(5), true),
            bp(2, None, false),
            bp(3, Some(9), true),
        ];
        let v = Breakpoint::list_value(&list);
        assert_eq!(Breakpoint::list_of(&v), Some(list));
        assert_eq!(
            Breakpoint::list_of(&Breakpoint::list_value(&[])),
            Some(vec![])
        );
        assert_eq!(
            Breakpoint::list_of(&TypedValue::Scalar {
                ty: "int".into(),
                text: "1".into(),
                num: Some(Num(1.0))
            }),
            None
        );
    }

    #[test]
    fn every_location_with_its_ranks() {
        let mut values = Values::default();
        values.add(0, Breakpoint::list_value(&[bp(1, Some(5), true)]));
        values.add(1, Breakpoint::list_value(&[bp(1, Some(5), true)]));
        let mut other = Values::default();
        other.add(
            2,
            Breakpoint::list_value(&[bp(1, Some(5), true), bp(2, Some(7), false)]),
        );
        values.merge(other);
        let all = Breakpoint::by_ranks(&values);
        assert_eq!(
            all,
            vec![
                (bp(1, Some(5), true), RankSet::all(3)),
                (bp(2, Some(7), false), RankSet::single(2)),
            ]
        );
    }
}
