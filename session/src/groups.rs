//! Named rank sets (issue 20): `group NAME SET` names a set, `group list` shows them, and a
//! group's name stands for its set wherever a rank set is written (`[NAME] CMD`, `focus NAME`,
//! `diagnose NAME`, `compare EXPR NAME`), alone or among ranks (`[workers,0]`).

use std::collections::BTreeMap;

use cohort_wire::RankSet;

#[derive(Debug, Default)]
pub struct Groups {
    sets: BTreeMap<String, RankSet>,
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '-')
        && !s.eq_ignore_ascii_case("all")
        && s != "list"
}

impl Groups {
    /// The groups and their sets, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RankSet)> {
        self.sets.iter().map(|(n, s)| (n.as_str(), s))
    }

    /// A rank set as typed: ranks, ranges, `all`, and group names, separated by commas
    /// (optionally in brackets).
    pub fn parse(&self, s: &str, size: u32) -> anyhow::Result<RankSet> {
        let mut t = s.trim();
        if let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            t = inner.trim();
        }
        if !t.split(',').any(|p| is_name(p.trim())) {
            return Ok(RankSet::parse(s, size)?);
        }
        let mut set = RankSet::new();
        for part in t.split(',').map(str::trim) {
            let more = if is_name(part) {
                self.sets
                    .get(part)
                    .cloned()
                    .ok_or_else(|| anyhow::anyhow!("No group named \"{part}\"."))?
            } else {
                RankSet::parse(part, size)?
            };
            set = set.union(&more);
        }
        Ok(set)
    }

    /// `group ARGS`: what to print (stdout, stderr).
    pub fn command(&mut self, args: &str, size: u32) -> (String, String) {
        let args = args.trim();
        let (name, rest) = args
            .split_once(char::is_whitespace)
            .map_or((args, ""), |(a, b)| (a, b.trim()));
        match (name, rest) {
            ("" | "list", "") => {
                if self.sets.is_empty() {
                    return ("No groups.\n".to_string(), String::new());
                }
                let out = self
                    .sets
                    .iter()
                    .map(|(n, s)| format!("{n}: [{s}]\n"))
                    .collect();
                (out, String::new())
            }
            ("delete", n) if !n.is_empty() => match self.sets.remove(n) {
                Some(_) => (String::new(), String::new()),
                None => (String::new(), format!("No group named \"{n}\".\n")),
            },
            (n, "") => match self.sets.get(n) {
                Some(s) => (format!("{n}: [{s}]\n"), String::new()),
                None => (String::new(), format!("No group named \"{n}\".\n")),
            },
            (n, _) if !is_name(n) || n == "delete" => (
                String::new(),
                format!(
                    "\"{n}\" cannot name a group: a name is a letter or _ followed by letters, digits, _ or -, and not \"all\", \"list\" or \"delete\".\n"
                ),
            ),
            (n, set) => match self.parse(set, size) {
                Ok(s) => {
                    let out = format!("{n}: [{s}]\n");
                    self.sets.insert(n.to_string(), s);
                    (out, String::new())
                }
                Err(e) => (String::new(), format!("{e}\n")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_stand_for_their_sets_among_ranks() {
        let mut g = Groups::default();
        assert_eq!(g.command("evens 0,2", 4).0, "evens: [0,2]\n");
        assert_eq!(g.command("odd [1,3]", 4).0, "odd: [1,3]\n");
        assert_eq!(g.parse("[evens,3]", 4).unwrap().to_string(), "0,2-3");
        assert_eq!(g.parse("evens,odd", 4).unwrap().to_string(), "0-3");
        assert_eq!(g.parse("1-2", 4).unwrap().to_string(), "1-2");
        assert_eq!(
            g.parse("nosuch", 4).unwrap_err().to_string(),
            "No group named \"nosuch\"."
        );
        assert_eq!(g.command("list", 4).0, "evens: [0,2]\nodd: [1,3]\n");
    }
}
