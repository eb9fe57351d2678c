//! The input/output panel: the program's output, rank by rank (`[2] …`), filtered by a rank
//! set typed above it (`2`, `0-1,3`, a group's name); and a line for the focus rank's
//! standard input (the CLI's `[RANK] input TEXT`).

use std::collections::VecDeque;

use cohort_wire::RankSet;
use iced::widget::{column, row, text, text_input};
use iced::{Element, Font};

use crate::{Message, Model, Request};

/// The most lines of output kept (the pane builds only those in sight: [`crate::lines`]).
pub const OUTPUT_LINES: usize = 500_000;

/// The panel's text inputs (tests find them by these ids).
pub const FILTER_ID: &str = "output-filter";
pub const STDIN_ID: &str = "output-stdin";
pub const OUTPUT_PANE: &str = "output-pane";

#[derive(Debug, Clone)]
pub enum OutputMsg {
    Filter(String),
    Stdin(String),
    StdinSubmit,
}

/// One line of a rank's output.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub rank: u32,
    pub err: bool,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Output {
    pub lines: VecDeque<Line>,
    /// A rank's line not ended yet (its rest comes next), by (rank, stderr).
    open: Vec<(u32, bool, String)>,
    pub filter: String,
    pub stdin: String,
}

impl Output {
    /// Takes in output of `rank`: whole lines, and the start of one whose rest comes later.
    pub fn push(&mut self, rank: u32, err: bool, text: &str) {
        let mut held = match self
            .open
            .iter()
            .position(|(r, e, _)| *r == rank && *e == err)
        {
            Some(i) => self.open.swap_remove(i).2,
            None => String::new(),
        };
        for piece in text.split_inclusive('\n') {
            held.push_str(piece);
            if held.ends_with('\n') {
                held.pop();
                self.lines.push_back(Line {
                    rank,
                    err,
                    text: crate::expand_tabs(&std::mem::take(&mut held)),
                });
            }
        }
        if !held.is_empty() {
            self.open.push((rank, err, held));
        }
        while self.lines.len() > OUTPUT_LINES {
            self.lines.pop_front();
        }
    }
}

impl Model {
    /// The ranks the output filter names (`None`: all, or a filter that names no set).
    pub fn output_ranks(&self) -> Option<RankSet> {
        let f = self.output.filter.trim();
        if f.is_empty() {
            return None;
        }
        self.sel.groups.parse(f, self.size.max(1)).ok()
    }

    /// The output lines the filter lets through.
    pub fn output_shown(&self) -> impl Iterator<Item = &Line> {
        let set = self.output_ranks();
        self.output
            .lines
            .iter()
            .filter(move |l| set.as_ref().is_none_or(|s| s.contains(l.rank)))
    }

    pub fn output_intent(&mut self, m: OutputMsg) -> Vec<Request> {
        match m {
            OutputMsg::Filter(s) => {
                self.output.filter = s;
                Vec::new()
            }
            OutputMsg::Stdin(s) => {
                self.output.stdin = s;
                Vec::new()
            }
            OutputMsg::StdinSubmit => {
                let line = std::mem::take(&mut self.output.stdin);
                vec![Request::Command(format!("[{}] input {line}", self.focus))]
            }
        }
    }

    pub fn output_view(&self) -> Element<'_, Message> {
        // Every line the filter lets through, built only where in sight.
        let line = |l: &Line| format!("[{}] {}", l.rank, l.text);
        let on_scroll = |v| Message::Scrolled(OUTPUT_PANE, crate::lines::Scroll::of(v));
        let scroll = self.scroll_of(OUTPUT_PANE);
        let pane = if self.output_ranks().is_none() {
            let all = &self.output.lines;
            crate::lines::text_pane(
                OUTPUT_PANE,
                all.len(),
                &scroll,
                true,
                |i| line(&all[i]),
                on_scroll,
            )
        } else {
            let shown: Vec<&Line> = self.output_shown().collect();
            crate::lines::text_pane(
                OUTPUT_PANE,
                shown.len(),
                &scroll,
                true,
                move |i| line(shown[i]),
                on_scroll,
            )
        };
        let filter_note = match (self.output.filter.trim(), self.output_ranks()) {
            ("", _) => String::new(),
            (_, Some(s)) => format!("ranks [{s}]"),
            (f, None) => format!("'{f}' is no rank set"),
        };
        column![
            row![
                text("Output").size(16),
                text_input("ranks (2, 0-1, g1)", &self.output.filter)
                    .id(FILTER_ID)
                    .on_input(|s| Message::Output(OutputMsg::Filter(s)))
                    .font(Font::MONOSPACE)
                    .size(13)
                    .width(180),
                text(filter_note).size(12),
            ]
            .spacing(8)
            .align_y(iced::Center),
            pane,
            text_input(
                &format!("standard input of rank {}", self.focus),
                &self.output.stdin
            )
            .id(STDIN_ID)
            .on_input(|s| Message::Output(OutputMsg::Stdin(s)))
            .on_submit(Message::Output(OutputMsg::StdinSubmit))
            .font(Font::MONOSPACE)
            .size(13),
        ]
        .spacing(4)
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_kept_by_rank_and_filtered() {
        let mut m = Model::new();
        m.size = 4;
        m.output.push(0, false, "a\nb");
        m.output.push(1, false, "x\n");
        m.output.push(0, false, "c\n");
        m.output.push(3, true, "e\tf\n");
        let all: Vec<(u32, &str)> = m
            .output_shown()
            .map(|l| (l.rank, l.text.as_str()))
            .collect();
        assert_eq!(all, [(0, "a"), (1, "x"), (0, "bc"), (3, "e       f")]);
        m.output_intent(OutputMsg::Filter("0,3".into()));
        let some: Vec<u32> = m.output_shown().map(|l| l.rank).collect();
        assert_eq!(some, [0, 0, 3]);
        // Not a set: everything shown, and said.
        m.output_intent(OutputMsg::Filter("nope".into()));
        assert_eq!(m.output_shown().count(), 4);
        m.focus = 2;
        m.output_intent(OutputMsg::Stdin("hello there".into()));
        assert_eq!(
            m.output_intent(OutputMsg::StdinSubmit),
            vec![Request::Command("[2] input hello there".into())]
        );
    }
}
