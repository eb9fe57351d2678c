//! Long panes built from the lines in sight only: the output of 10,000 ranks (100,000 lines
//! and more), a source file of thousands of lines. Every line is [`LINE_H`] high, so the
//! pane is the lines in sight (and [`MARGIN`] more each side) between two empty spaces as
//! high as the lines above and below them: the scrollable's extent is the whole text's, while
//! laying out and drawing cost the same for 100 lines as for 100,000. The scrollable says
//! where it is (`on_scroll`) and the model keeps it ([`Scroll`]).

use std::ops::Range;

use iced::widget::scrollable::Viewport;
use iced::widget::text::{LineHeight, Wrapping};
use iced::widget::{Space, column, scrollable, text};
use iced::{Element, Fill, Font, Pixels};

/// The height of one line of the panes' monospace text (size 13).
pub const LINE_H: f32 = 17.0;
/// Lines built above and below those in sight.
pub const MARGIN: usize = 30;
/// The built lines move by this many.
pub const STEP: usize = 16;

/// Where a pane is scrolled to, as its scrollable last said: the pixels from the pane's
/// anchor (the top; the bottom for panes that follow new lines) to the viewport's edge on
/// that side, and the viewport's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scroll {
    pub from_anchor: f32,
    pub height: f32,
}

impl Default for Scroll {
    /// At the anchor; a tall viewport until the pane says its height.
    fn default() -> Self {
        Scroll {
            from_anchor: 0.0,
            height: 1200.0,
        }
    }
}

impl Scroll {
    pub fn of(v: Viewport) -> Self {
        Scroll {
            from_anchor: v.absolute_offset().y,
            height: v.bounds().height,
        }
    }

    /// The lines of `total` to build: those in sight and a margin, in steps of [`STEP`]
    /// lines (a few notches of the wheel build the same lines again: their text is not
    /// shaped again).
    pub fn window(&self, total: usize, from_bottom: bool) -> Range<usize> {
        let skip = (self.from_anchor / LINE_H).floor().max(0.0) as usize / STEP * STEP;
        let in_sight = (self.height / LINE_H).ceil().max(1.0) as usize + 1 + STEP;
        let (lo, hi) = if from_bottom {
            let hi = total.saturating_sub(skip);
            (hi.saturating_sub(in_sight), hi)
        } else {
            let lo = skip.min(total);
            (lo, (lo + in_sight).min(total))
        };
        lo.saturating_sub(MARGIN)..(hi + MARGIN).min(total)
    }
}

/// Text of one line's height in the panes' font.
pub fn mono<'a>(s: impl text::IntoFragment<'a>) -> text::Text<'a> {
    text(s)
        .font(Font::MONOSPACE)
        .size(13)
        .line_height(LineHeight::Absolute(Pixels(LINE_H)))
        .wrapping(Wrapping::None)
}

/// A pane of `total` lines: `build` makes the element of lines `range` (each [`LINE_H`]
/// high), the scrollable has id `id`, follows new lines when `from_bottom`, scrolls
/// `sideways` too (for lines of their own width: content as wide as the pane, `Fill`,
/// cannot scroll sideways) and tells where it is with `on_scroll`.
pub fn pane<'a, M: 'a>(
    id: &'static str,
    total: usize,
    scroll: &Scroll,
    from_bottom: bool,
    sideways: bool,
    build: impl FnOnce(Range<usize>) -> Element<'a, M>,
    on_scroll: impl Fn(Viewport) -> M + 'a,
) -> Element<'a, M> {
    let r = scroll.window(total, from_bottom);
    let above = r.start as f32 * LINE_H;
    let below = (total - r.end) as f32 * LINE_H;
    let s = scrollable(column![
        Space::new().height(above),
        build(r),
        Space::new().height(below)
    ])
    .direction(if sideways {
        // Lines are not wrapped: a long one scrolls sideways.
        scrollable::Direction::Both {
            vertical: scrollable::Scrollbar::default(),
            horizontal: scrollable::Scrollbar::default(),
        }
    } else {
        scrollable::Direction::Vertical(scrollable::Scrollbar::default())
    })
    .id(id)
    .on_scroll(on_scroll)
    .height(Fill)
    .width(Fill);
    if from_bottom {
        s.anchor_bottom().into()
    } else {
        s.into()
    }
}

/// A pane of text lines (`line(i)`, each one line).
pub fn text_pane<'a, M: 'a>(
    id: &'static str,
    total: usize,
    scroll: &Scroll,
    from_bottom: bool,
    line: impl Fn(usize) -> String,
    on_scroll: impl Fn(Viewport) -> M + 'a,
) -> Element<'a, M> {
    pane(
        id,
        total,
        scroll,
        from_bottom,
        true,
        |r| {
            let mut s = String::new();
            for i in r {
                s.push_str(&line(i));
                s.push('\n');
            }
            s.pop();
            mono(s).into()
        },
        on_scroll,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_the_lines_in_sight_and_a_margin() {
        let s = Scroll {
            from_anchor: 0.0,
            height: 170.0,
        };
        // 10 lines in sight (and one more cut at the edge), and a step more.
        let seen = 11 + STEP;
        assert_eq!(s.window(100_000, false), 0..seen + MARGIN);
        assert_eq!(s.window(100_000, true), 100_000 - seen - MARGIN..100_000);
        assert_eq!(s.window(5, true), 0..5);
        // 100 lines from the anchor: from line 96 (a multiple of the step).
        let s = Scroll {
            from_anchor: 1700.0,
            height: 170.0,
        };
        assert_eq!(s.window(100_000, false), 96 - MARGIN..96 + seen + MARGIN);
        assert_eq!(
            s.window(100_000, true),
            100_000 - 96 - seen - MARGIN..100_000 - 96 + MARGIN
        );
        // A notch further (3 lines) builds the same lines.
        let s3 = Scroll {
            from_anchor: 1751.0,
            ..s
        };
        assert_eq!(s3.window(100_000, false), s.window(100_000, false));
        // Scrolled past the end of a text that shrank (a filter).
        assert_eq!(s.window(50, false), 50 - MARGIN..50);
        assert_eq!(s.window(50, true), 0..MARGIN);
    }

    /// The wheel scrolls a pane down: it says where it is, and the lines built follow.
    #[test]
    fn the_wheel_scrolls_a_pane() {
        use iced::mouse;
        use iced_test::simulator::Simulator;
        let lines: Vec<String> = (0..1000).map(|i| format!("line {i}")).collect();
        let pane: Element<'_, Scroll> = text_pane(
            "t",
            lines.len(),
            &Scroll::default(),
            false,
            |i| lines[i].clone(),
            Scroll::of,
        );
        let mut ui = Simulator::with_size(Default::default(), (400.0, 300.0), pane);
        ui.point_at(iced::Point::new(200.0, 150.0));
        let _ = ui.simulate([iced::Event::Mouse(mouse::Event::WheelScrolled {
            delta: mouse::ScrollDelta::Lines { x: 0.0, y: -2.0 },
        })]);
        let said: Vec<Scroll> = ui.into_messages().collect();
        assert_eq!(said.last().map(|s| s.from_anchor), Some(120.0), "{said:?}");
    }
}
