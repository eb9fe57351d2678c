//! `compare EXPR [SET]` (issue 20): the value of an expression across ranks, as equivalence
//! classes (the ranks that print it the same), and for numbers the minimum and maximum with
//! the ranks holding them and how many ranks hold a NaN or an infinity. [`summary`] is free
//! of any user interface; [`run`] is the command.

use cohort_wire::RankSet;

use crate::parallel::Front;

/// A number as gdb prints it: integers, floats, `nan(0x8000000000000)`, `-nan(…)`, `inf`,
/// `-inf`; a character's code (`65 'A'`). `None` for anything else.
fn number(text: &str) -> Option<f64> {
    let t = text.trim();
    let t = t.split_once(" '").map_or(t, |(n, _)| n);
    let bare = t.trim_start_matches('-');
    if bare.starts_with("nan") {
        return Some(f64::NAN);
    }
    if bare == "inf" {
        return Some(if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if let Some(h) = bare.strip_prefix("0x") {
        let v = u64::from_str_radix(h, 16).ok()? as f64;
        return Some(if t.starts_with('-') { -v } else { v });
    }
    t.parse::<f64>().ok()
}

/// The elements of an array of numbers as gdb prints it (`{1, 2, 0 <repeats 14 times>}`,
/// nested for more dimensions, flattened here; Fortran's `((1, 2) (3, 4))` and C++
/// containers' `std::vector of length 2, capacity 2 = {1, 2}` too), as printed and as numbers, and whether gdb
/// cut it short (`...`). `None` for anything else.
fn elements(text: &str) -> Option<(Vec<(String, f64)>, bool)> {
    let t = text.trim();
    // A C++ container as its pretty printer shows it (`std::vector of length 3, capacity 4 =
    // {1, 2, 3}`): its elements.
    let t = match t.split_once(" = {") {
        Some((head, _)) if head.starts_with("std::") && !head.contains('{') => &t[head.len() + 3..],
        _ => t,
    };
    if t.contains('=') || t.contains('"') {
        return None;
    }
    let flat: String = if t.starts_with('{') && t.ends_with('}') {
        t.chars().filter(|c| *c != '{' && *c != '}').collect()
    } else if t.starts_with('(') && t.ends_with(')') {
        // Fortran: `((1, 2) (3, 4))`, the columns side by side. gdb puts a space after each
        // comma between elements; a comma without one is a complex number's `(1,2)`.
        if t.match_indices(',')
            .any(|(i, _)| !t[i + 1..].starts_with(' '))
        {
            return None;
        }
        t.replace(") (", ", ")
            .chars()
            .filter(|c| *c != '(' && *c != ')')
            .collect()
    } else {
        return None;
    };
    let mut out = Vec::new();
    let mut cut = false;
    for tok in flat.split(',').map(str::trim) {
        if tok == "..." {
            cut = true;
            continue;
        }
        let (tok, times) = match tok.split_once(" <repeats ") {
            Some((v, r)) => (v, r.strip_suffix(" times>")?.parse::<usize>().ok()?),
            None => (tok, 1),
        };
        let v = number(tok)?;
        for _ in 0..times {
            out.push((tok.to_string(), v));
        }
    }
    Some((out, cut))
}

/// For arrays of numbers: each class's minimum, maximum and sum (of its finite elements) and
/// its NaN and infinity counts, then the first element where the ranks differ. Empty when some
/// class is not such an array.
pub fn array_summary(classes: &[(RankSet, String)]) -> Vec<String> {
    let mut arrays = Vec::new();
    for (set, text) in classes {
        match elements(text) {
            Some(a) => arrays.push((set, a)),
            None => return Vec::new(),
        }
    }
    let mut out = Vec::new();
    for (set, (els, cut)) in &arrays {
        let finite: Vec<f64> = els.iter().map(|e| e.1).filter(|v| v.is_finite()).collect();
        let mut line = format!("[{set}]");
        if let (Some(lo), Some(hi)) = (
            finite.iter().copied().min_by(f64::total_cmp),
            finite.iter().copied().max_by(f64::total_cmp),
        ) {
            let sum: f64 = finite.iter().sum();
            line.push_str(&format!(" min {lo}, max {hi}, sum {sum}"));
        }
        let nan = els.iter().filter(|e| e.1.is_nan()).count();
        let inf = els.iter().filter(|e| e.1.is_infinite()).count();
        if nan > 0 {
            line.push_str(&format!(", {nan} NaN"));
        }
        if inf > 0 {
            line.push_str(&format!(", {inf} Inf"));
        }
        if *cut {
            line.push_str(&format!(" (of the first {} elements)", els.len()));
        }
        out.push(line);
    }
    let longest = arrays.iter().map(|a| a.1.0.len()).max().unwrap_or(0);
    for i in 0..longest {
        let mut by_value: Vec<(String, RankSet)> = Vec::new();
        for (set, (els, _)) in &arrays {
            let v = els.get(i).map_or("(none)".to_string(), |e| e.0.clone());
            match by_value.iter_mut().find(|b| b.0 == v) {
                Some(b) => b.1 = b.1.union(set),
                None => by_value.push((v, (*set).clone())),
            }
        }
        if by_value.len() > 1 {
            by_value.sort_by_key(|b| b.1.first());
            let each: Vec<String> = by_value
                .iter()
                .map(|(v, set)| format!("[{set}] {v}"))
                .collect();
            out.push(format!(
                "the ranks differ first at element {i}: {}",
                each.join(", ")
            ));
            break;
        }
    }
    out
}

/// The lines after the classes: for numbers, `min 1.5 on [0-1], max 2.5 on [2]`, and the
/// NaN and infinity counts (`NaN on 1 rank: [3]`). Empty when some class is not a number.
pub fn summary(classes: &[(RankSet, String)]) -> Vec<String> {
    // The reduction the agent tree makes of typed values (`:value`), made here of the texts.
    let mut r = cohort_wire::Reduction::default();
    for (set, text) in classes {
        match number(text) {
            Some(v) => r.add(set, v, text),
            None => return Vec::new(),
        }
    }
    r.lines()
}

/// `compare EXPR [SET]` split: the last word is the set when it is one (`[…]`, a group's
/// name, `all`, or ranks after an expression that does not end in an operator).
pub fn split_args<'a>(
    args: &'a str,
    groups: &crate::groups::Groups,
    size: u32,
) -> (&'a str, Option<RankSet>) {
    let args = args.trim();
    let Some((expr, last)) = args.rsplit_once(char::is_whitespace) else {
        return (args, None);
    };
    let expr = expr.trim_end();
    let numeric = last
        .chars()
        .all(|c| c.is_ascii_digit() || c == ',' || c == '-');
    let operator = expr.ends_with(|c: char| "+-*/%&|^<>=!,(".contains(c));
    let named = last.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '[');
    if (named || (numeric && !operator))
        && let Ok(set) = groups.parse(last, size)
    {
        return (expr, Some(set));
    }
    (args, None)
}

/// `compare EXPR [SET]`: each rank prints the value (`:compare`: gdb's `output`, which keeps
/// no history, in the program's innermost frame when the rank is stopped inside a library),
/// the classes are the merged answer, and the summary follows.
pub async fn run(front: &mut Front, expr: &str, set: RankSet) {
    if expr.trim().is_empty() {
        front.say("", "Argument required (expression to compare).\n");
        return;
    }
    let a = front.ask(set, &format!(":compare {expr}")).await;
    let mut classes: Vec<(RankSet, String)> = Vec::new();
    let mut out = String::new();
    for g in &a.merged.groups {
        let text = g.out.render();
        if !text.is_empty() {
            out.push_str(&format!("[{}] {}\n", g.ranks, text.trim_end()));
            classes.push((g.ranks.clone(), text));
        }
    }
    let errs: Vec<(RankSet, &cohort_wire::Text)> = a
        .merged
        .groups
        .iter()
        .map(|g| (g.ranks.clone(), &g.err))
        .collect();
    let mut err = cohort_wire::render_lines(&errs);
    if !a.timed_out.is_empty() {
        err.push_str(&format!(
            "[{}] no answer in time (the command timed out)\n",
            a.timed_out
        ));
    }
    if !a.lost.is_empty() {
        err.push_str(&format!("[{}] lost\n", a.lost));
    }
    for l in summary(&classes).into_iter().chain(array_summary(&classes)) {
        out.push_str(&l);
        out.push('\n');
    }
    front.say(&out, &err);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_give_min_max_and_nan_counts() {
        let c = vec![
            (RankSet::range(0, 1), "1.5".to_string()),
            (RankSet::single(2), "2.5".to_string()),
            (RankSet::single(3), "nan(0x8000000000000)".to_string()),
        ];
        assert_eq!(
            summary(&c),
            ["min 1.5 on [0-1], max 2.5 on [2]", "NaN on 1 rank: [3]"]
        );
        let s = vec![(RankSet::single(0), "{a = 1}".to_string())];
        assert!(summary(&s).is_empty());
        assert!(array_summary(&s).is_empty());
    }

    #[test]
    fn arrays_give_per_rank_statistics_and_the_first_difference() {
        let c = vec![
            (RankSet::range(0, 1), "{1, 0 <repeats 3 times>}".to_string()),
            (RankSet::single(2), "{{1, 0}, {-inf, 0}}".to_string()),
        ];
        assert_eq!(
            array_summary(&c),
            [
                "[0-1] min 0, max 1, sum 1",
                "[2] min 0, max 1, sum 1, 1 Inf",
                "the ranks differ first at element 2: [0-1] 0, [2] -inf"
            ]
        );
    }

    /// Fortran arrays as gdb prints them: parenthesised, the columns of a 2-D array side by
    /// side without a comma; complex numbers `(1,2)` are not an array of numbers.
    #[test]
    fn fortran_arrays_give_per_rank_statistics() {
        let c = vec![
            (RankSet::single(0), "((0, 0, 0) (0, 0.25, 0))".to_string()),
            (
                RankSet::single(1),
                "((0, 0, 0) (0, 0.5, 0 <repeats 1 times>))".to_string(),
            ),
        ];
        assert_eq!(
            array_summary(&c),
            [
                "[0] min 0, max 0.25, sum 0.25",
                "[1] min 0, max 0.5, sum 0.5",
                "the ranks differ first at element 4: [0] 0.25, [1] 0.5"
            ]
        );
        let z = vec![(RankSet::single(0), "((1,2), (3,4))".to_string())];
        assert!(array_summary(&z).is_empty());
        let z = vec![(RankSet::single(0), "(1,2)".to_string())];
        assert!(array_summary(&z).is_empty());
    }

    /// C++ containers through their pretty printers (field check: a halo exchange's
    /// `std::vector<double>`).
    #[test]
    fn cxx_containers_give_per_rank_statistics() {
        let c = vec![
            (
                RankSet::single(0),
                "std::vector of length 3, capacity 3 = {3, 0, 1}".to_string(),
            ),
            (
                RankSet::single(1),
                "std::vector of length 3, capacity 4 = {0, 1, 2}".to_string(),
            ),
        ];
        assert_eq!(
            array_summary(&c),
            [
                "[0] min 0, max 3, sum 4",
                "[1] min 0, max 2, sum 3",
                "the ranks differ first at element 0: [0] 3, [1] 0"
            ]
        );
        let m = vec![(
            RankSet::single(0),
            "std::map with 1 element = {[\"exchanges\"] = 3}".to_string(),
        )];
        assert!(array_summary(&m).is_empty());
        let e = vec![(
            RankSet::single(0),
            "std::vector of length 0, capacity 0".to_string(),
        )];
        assert!(array_summary(&e).is_empty());
    }
}
