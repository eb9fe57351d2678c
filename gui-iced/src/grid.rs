//! The rank grid: every rank one cell, coloured by its state; a click focuses a rank.

use cohort_wire::{RankState, States, StopReason};
use iced::mouse;
use iced::widget::canvas::{self, Cache, Frame, Geometry, Path, Stroke};
use iced::{Color, Point, Rectangle, Renderer, Size, Theme};

use crate::Message;

/// The colour of a state: running green, stopped blue, at a breakpoint orange, waiting
/// yellow, exited grey, an error (killed, lost) red, not started dark grey.
pub fn colour(s: Option<&RankState>) -> Color {
    match s {
        Some(RankState::Running) => Color::from_rgb8(0x3c, 0xb3, 0x4a),
        Some(RankState::Stopped {
            reason: StopReason::Breakpoint,
            ..
        }) => Color::from_rgb8(0xf0, 0x8c, 0x1e),
        Some(RankState::Stopped { .. }) => Color::from_rgb8(0x3a, 0x7b, 0xd5),
        Some(RankState::Waiting { .. }) => Color::from_rgb8(0xe8, 0xd4, 0x2a),
        Some(RankState::Exited { .. }) => Color::from_rgb8(0x90, 0x90, 0x90),
        Some(RankState::Killed { .. } | RankState::Lost) => Color::from_rgb8(0xd8, 0x34, 0x34),
        Some(RankState::NotStarted) | None => Color::from_rgb8(0x50, 0x50, 0x58),
    }
}

/// Cell layout for `n` ranks in `bounds`: (columns, cell side).
pub fn layout(n: u32, size: Size) -> (u32, f32) {
    let n = n.max(1) as f32;
    let (w, h) = (size.width.max(1.0), size.height.max(1.0));
    // The largest square cell that fits all ranks.
    let mut side = (w * h / n).sqrt();
    loop {
        let cols = (w / side).floor().max(1.0);
        let rows = (n / cols).ceil();
        if rows * side <= h || side < 1.0 {
            return (cols as u32, side);
        }
        side *= 0.95;
    }
}

/// The rank under `p`, if any.
pub fn rank_at(n: u32, size: Size, p: Point) -> Option<u32> {
    let (cols, side) = layout(n, size);
    if p.x < 0.0 || p.y < 0.0 {
        return None;
    }
    let (c, r) = ((p.x / side) as u32, (p.y / side) as u32);
    let rank = r * cols + c;
    (c < cols && rank < n).then_some(rank)
}

/// The cells of ranks `lo..=hi` in a grid of `cols` columns as at most three rectangles of
/// cells, `(x0, y0, x1, y1)` (ends exclusive): the first row's tail, the full rows, the last
/// row's head.
pub fn run_rectangles(lo: u32, hi: u32, cols: u32) -> Vec<(u32, u32, u32, u32)> {
    let cols = cols.max(1);
    let (r0, c0) = (lo / cols, lo % cols);
    let (r1, c1) = (hi / cols, hi % cols);
    if r0 == r1 {
        return vec![(c0, r0, c1 + 1, r0 + 1)];
    }
    let mut v = vec![(c0, r0, cols, r0 + 1)];
    if r1 > r0 + 1 {
        v.push((0, r0 + 1, cols, r1));
    }
    v.push((0, r1, c1 + 1, r1 + 1));
    v
}

pub struct Grid<'a> {
    pub size: u32,
    pub states: &'a States,
    pub focus: u32,
    pub cache: &'a Cache,
    /// For the line about the rank under the pointer.
    pub model: &'a crate::Model,
}

impl canvas::Program<Message> for Grid<'_> {
    /// The rank a drag started on (the button held down).
    type State = Option<u32>;

    fn update(
        &self,
        state: &mut Option<u32>,
        event: &canvas::Event,
        bounds: Rectangle,
        cursor: mouse::Cursor,
    ) -> Option<canvas::Action<Message>> {
        if let canvas::Event::Mouse(mouse::Event::ButtonPressed(mouse::Button::Left)) = event
            && let Some(p) = cursor.position_in(bounds)
            && let Some(r) = rank_at(self.size, bounds.size(), p)
        {
            *state = Some(r);
            return Some(canvas::Action::publish(Message::Focus(r)).and_capture());
        }
        if let canvas::Event::Mouse(mouse::Event::ButtonReleased(mouse::Button::Left)) = event
            && let Some(from) = state.take()
        {
            // A drag from one rank to another selects the ranks between.
            let to = cursor
                .position_in(bounds)
                .and_then(|p| rank_at(self.size, bounds.size(), p));
            if let Some(to) = to.filter(|t| *t != from) {
                return Some(
                    canvas::Action::publish(Message::Groups(crate::groups::GroupMsg::Drag(
                        from, to,
                    )))
                    .and_capture(),
                );
            }
        }
        if let canvas::Event::Mouse(mouse::Event::CursorMoved { .. }) = event {
            // The hover line follows the pointer.
            return Some(canvas::Action::request_redraw());
        }
        None
    }

    fn draw(
        &self,
        state: &Option<u32>,
        renderer: &Renderer,
        _theme: &Theme,
        bounds: Rectangle,
        cursor: mouse::Cursor,
    ) -> Vec<Geometry> {
        let g = self
            .cache
            .draw(renderer, bounds.size(), |frame: &mut Frame| {
                let (cols, side) = layout(self.size, bounds.size());
                let gap = if side > 6.0 { 1.0 } else { 0.0 };
                // One fill per state group: ranges of ranks are runs of cells.
                for (state, ranks) in &self.states.groups {
                    let c = colour(Some(state));
                    for &(lo, hi) in ranks.ranges() {
                        let hi = hi.min(self.size.saturating_sub(1));
                        if gap > 0.0 {
                            // Cells apart (few ranks): one square each.
                            for r in lo..=hi {
                                let (x, y) = ((r % cols) as f32 * side, (r / cols) as f32 * side);
                                frame.fill_rectangle(
                                    Point::new(x, y),
                                    Size::new(side - gap, side - gap),
                                    c,
                                );
                            }
                        } else {
                            // Cells touching (many ranks): a range is at most three rectangles.
                            for (x0, y0, x1, y1) in run_rectangles(lo, hi, cols) {
                                frame.fill_rectangle(
                                    Point::new(x0 as f32 * side, y0 as f32 * side),
                                    Size::new((x1 - x0) as f32 * side, (y1 - y0) as f32 * side),
                                    c,
                                );
                            }
                        }
                    }
                }
                if self.focus < self.size {
                    let (x, y) = (
                        (self.focus % cols) as f32 * side,
                        (self.focus / cols) as f32 * side,
                    );
                    frame.stroke(
                        &Path::rectangle(
                            Point::new(x + 1.0, y + 1.0),
                            Size::new(side - 3.0, side - 3.0),
                        ),
                        Stroke::default().with_color(Color::WHITE).with_width(2.0),
                    );
                }
            });
        let mut v = vec![g];
        // The selection (or the range being dragged over): a light veil on its cells.
        let dragging = state.and_then(|from| {
            let to = rank_at(self.size, bounds.size(), cursor.position_in(bounds)?)?;
            Some(cohort_wire::RankSet::range(from.min(to), from.max(to)))
        });
        if let Some(sel) = dragging.as_ref().or(self.model.sel.set.as_ref())
            && !sel.is_empty()
        {
            let mut f = Frame::new(renderer, bounds.size());
            let (cols, side) = layout(self.size, bounds.size());
            for &(lo, hi) in sel.ranges() {
                let hi = hi.min(self.size.saturating_sub(1));
                if lo > hi {
                    continue;
                }
                for (x0, y0, x1, y1) in run_rectangles(lo, hi, cols) {
                    f.fill_rectangle(
                        Point::new(x0 as f32 * side, y0 as f32 * side),
                        Size::new((x1 - x0) as f32 * side, (y1 - y0) as f32 * side),
                        Color::from_rgba8(0xff, 0xff, 0xff, 0.3),
                    );
                }
            }
            v.push(f.into_geometry());
        }
        // Hover: the rank under the pointer and where it is.
        if let Some(p) = cursor.position_in(bounds)
            && let Some(r) = rank_at(self.size, bounds.size(), p)
        {
            let mut f = Frame::new(renderer, bounds.size());
            let line = self.model.describe(r);
            let w = (line.chars().count() as f32 * 7.6 + 8.0).min(bounds.width);
            let x = (p.x + 12.0).min(bounds.width - w).max(0.0);
            let y = if p.y > 24.0 { p.y - 22.0 } else { p.y + 14.0 };
            f.fill_rectangle(
                Point::new(x, y),
                Size::new(w, 18.0),
                Color::from_rgba8(0x10, 0x10, 0x14, 0.9),
            );
            f.fill_text(canvas::Text {
                content: line,
                position: Point::new(x + 4.0, y + 2.0),
                color: Color::WHITE,
                size: 12.0.into(),
                font: iced::Font::MONOSPACE,
                ..canvas::Text::default()
            });
            v.push(f.into_geometry());
        }
        v
    }
}
