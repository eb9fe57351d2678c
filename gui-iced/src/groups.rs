//! The rank groups bar: the ranks by state, by place (where they are stopped), and the user's
//! groups (named as the CLI's `group NAME SET`, through the session library's
//! [`Groups`](cohort_session::groups::Groups)); one of them, or a range dragged on the grid, is
//! the selection, which the toolbar's continue, pause, step, next and finish act on.

use cohort_session::groups::Groups;
use cohort_wire::{RankSet, States};
use iced::widget::{Row, button, container, row, text};
use iced::{Color, Element, Font};

use crate::{Message, Model, Request};

/// What the user does with groups.
#[derive(Debug, Clone)]
pub enum GroupMsg {
    /// Select a set (a bar's button; `None`: all ranks).
    Select(Option<RankSet>),
    /// A drag on the grid from one rank to another: the ranks between them selected.
    Drag(u32, u32),
    /// Make a group of the selection (named `g1`, `g2`, …).
    MakeGroup,
}

/// The selection and the user's groups.
#[derive(Debug, Default)]
pub struct Selection {
    /// The ranks the toolbar acts on (`None`: all).
    pub set: Option<RankSet>,
    /// The user's groups (also told to the session, so `[g1] print x` works in the console).
    pub groups: Groups,
    made: u32,
}

/// Ranks by where they are stopped (or waiting): `(label, ranks)`, the most ranks first.
pub fn by_place(states: &States) -> Vec<(String, RankSet)> {
    let mut v: Vec<(String, RankSet)> = Vec::new();
    for (s, ranks) in &states.groups {
        let Some(p) = s.place() else { continue };
        let label = match (&p.file, p.line) {
            (Some(f), Some(l)) => format!("{} at {f}:{l}", p.function.as_deref().unwrap_or("??")),
            _ => p.function.clone().unwrap_or_else(|| format!("{:#x}", p.pc)),
        };
        match v.iter_mut().find(|(l, _)| *l == label) {
            Some((_, r)) => *r = r.union(ranks),
            None => v.push((label, ranks.clone())),
        }
    }
    v.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    v
}

/// The ranks at each line of the file `path`: `(line, ranks)`, by line.
pub fn lines_in(states: &States, path: &str) -> Vec<(u32, RankSet)> {
    let mut v: Vec<(u32, RankSet)> = Vec::new();
    for (s, ranks) in &states.groups {
        let Some(p) = s.place() else { continue };
        let (Some(pp), Some(l)) = (&p.path, p.line) else {
            continue;
        };
        if pp != path {
            continue;
        }
        match v.iter_mut().find(|(x, _)| *x == l) {
            Some((_, r)) => *r = r.union(ranks),
            None => v.push((l, ranks.clone())),
        }
    }
    v.sort_by_key(|(l, _)| *l);
    v
}

impl Model {
    /// The ranks the toolbar acts on: the selection, else all.
    pub fn target(&self) -> RankSet {
        match &self.sel.set {
            Some(s) if !s.is_empty() => s.clone(),
            _ => RankSet::all(self.size.max(1)),
        }
    }

    pub fn group_intent(&mut self, m: GroupMsg) -> Vec<Request> {
        match m {
            GroupMsg::Select(s) => {
                self.sel.set = s;
                Vec::new()
            }
            GroupMsg::Drag(a, b) => {
                let (lo, hi) = (a.min(b), a.max(b).min(self.size.saturating_sub(1)));
                if lo <= hi {
                    self.sel.set = Some(RankSet::range(lo, hi));
                }
                Vec::new()
            }
            GroupMsg::MakeGroup => {
                let Some(set) = self.sel.set.clone().filter(|s| !s.is_empty()) else {
                    return Vec::new();
                };
                let name = loop {
                    self.sel.made += 1;
                    let n = format!("g{}", self.sel.made);
                    if !self.sel.groups.iter().any(|(g, _)| g == n) {
                        break n;
                    }
                };
                let (_, err) = self.sel.groups.command(&format!("{name} {set}"), self.size);
                if !err.is_empty() {
                    self.console.push(err.trim_end().to_string());
                    return Vec::new();
                }
                vec![Request::Command(format!("group {name} {set}"))]
            }
        }
    }

    /// Whether `set` is the selection (`None`: all ranks).
    fn selected(&self, set: Option<&RankSet>) -> bool {
        match (set, &self.sel.set) {
            (None, None) => true,
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    /// The bar: all, the ranks by state, by place, the user's groups, and "Group selection".
    pub fn groups_bar(&self) -> Element<'_, Message> {
        let item = |label: String, set: Option<RankSet>, colour: Option<Color>| {
            let chosen = self.selected(set.as_ref());
            let t = text(label).size(12).font(Font::MONOSPACE);
            // A state's group: a swatch of its colour on the grid first.
            let body: Element<'_, Message> = match colour {
                Some(c) => row![
                    container(text(""))
                        .width(10)
                        .height(10)
                        .style(move |_| container::Style {
                            background: Some(c.into()),
                            ..Default::default()
                        }),
                    t
                ]
                .spacing(4)
                .align_y(iced::Center)
                .into(),
                None => t.into(),
            };
            button(body)
                .padding([2, 6])
                .style(if chosen {
                    button::primary
                } else {
                    button::secondary
                })
                .on_press(Message::Groups(GroupMsg::Select(set)))
                .into()
        };
        let mut items: Vec<Element<'_, Message>> = vec![item("all".into(), None, None)];
        for (s, r) in &self.states.groups {
            let c = crate::grid::colour(Some(s));
            items.push(item(
                format!("{} [{r}]", s.kind()),
                Some(r.clone()),
                Some(c),
            ));
        }
        for (label, r) in by_place(&self.states) {
            items.push(item(format!("{label} [{r}]"), Some(r), None));
        }
        for (name, r) in self.sel.groups.iter() {
            items.push(item(format!("{name} [{r}]"), Some(r.clone()), None));
        }
        if let Some(s) = &self.sel.set
            && !self.sel.groups.iter().any(|(_, r)| r == s)
        {
            items.push(
                button(text(format!("Group selection [{s}]")).size(12))
                    .padding([2, 6])
                    .on_press(Message::Groups(GroupMsg::MakeGroup))
                    .into(),
            );
        }
        Row::with_children(items).spacing(4).wrap().into()
    }

    /// A line about the selection, for the toolbar.
    pub fn target_label(&self) -> String {
        format!("acting on [{}]", self.target())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Update;
    use cohort_session::events::Event;
    use cohort_wire::{Place, RankState, StopReason};

    fn at(line: u32) -> RankState {
        RankState::Stopped {
            reason: StopReason::Other,
            place: Place {
                function: Some("main".into()),
                file: Some("t.c".into()),
                path: Some("/src/t.c".into()),
                line: Some(line),
                pc: 0x1000,
            },
        }
    }

    #[test]
    fn a_dragged_range_becomes_a_group_the_toolbar_acts_on() {
        let mut m = Model::new();
        let mut s = States::default();
        s.set_ranks(&RankSet::range(0, 5), at(18));
        s.set_ranks(&RankSet::range(2, 3), at(19));
        let _ = m.apply(vec![
            Update::Started { size: 6 },
            Update::Session(Event::States(s)),
        ]);
        assert_eq!(
            by_place(&m.states),
            vec![
                (
                    "main at t.c:18".to_string(),
                    RankSet::parse("0-1,4-5", 6).unwrap()
                ),
                ("main at t.c:19".to_string(), RankSet::range(2, 3)),
            ]
        );
        assert_eq!(
            lines_in(&m.states, "/src/t.c"),
            vec![
                (18, RankSet::parse("0-1,4-5", 6).unwrap()),
                (19, RankSet::range(2, 3))
            ]
        );
        // Dragged from rank 4 back to rank 1.
        assert!(m.intent(Message::Groups(GroupMsg::Drag(4, 1))).is_empty());
        assert_eq!(m.target(), RankSet::range(1, 4));
        assert_eq!(
            m.intent(Message::Next),
            vec![Request::Command("[1-4] next".into())]
        );
        assert_eq!(
            m.intent(Message::Groups(GroupMsg::MakeGroup)),
            vec![Request::Command("group g1 1-4".into())]
        );
        assert_eq!(
            m.sel.groups.iter().collect::<Vec<_>>(),
            vec![("g1", &RankSet::range(1, 4))]
        );
        assert_eq!(
            m.intent(Message::Pause),
            vec![Request::Command("[1-4] interrupt".into())]
        );
        // Back to all.
        m.intent(Message::Groups(GroupMsg::Select(None)));
        assert_eq!(
            m.intent(Message::Step),
            vec![Request::Command("[0-5] step".into())]
        );
        // A node of the parallel stacks selects its ranks: the toolbar acts on them and
        // "Group selection" makes a group of them.
        m.intent(Message::StackNode {
            ranks: RankSet::range(2, 3),
            depth: 0,
        });
        assert_eq!(m.target(), RankSet::range(2, 3));
        assert_eq!(m.focus, 2);
        assert_eq!(
            m.intent(Message::Groups(GroupMsg::MakeGroup)),
            vec![Request::Command("group g2 2-3".into())]
        );
        // A node of every rank selects all.
        m.intent(Message::StackNode {
            ranks: RankSet::range(0, 5),
            depth: 0,
        });
        assert_eq!(
            m.intent(Message::Continue),
            vec![Request::Command("[0-5] continue".into())]
        );
    }
}
