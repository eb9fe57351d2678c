//! The array viewer: a C or Fortran array of the focus rank (from the locals, a watch or a
//! typed expression), a slice of it (`field[0:3][2]`, Fortran `a(1:10,3)`: ranges inclusive,
//! a single subscript fixes a dimension, `:` or a missing subscript takes all of it), the
//! slice's statistics, a colour map of a 2-D slice or a line plot of a 1-D one (iced's
//! canvas, drawn by tiny-skia), and export to CSV.

use cohort_wire::{Elements, Stats, TypedValue};
use iced::mouse;
use iced::widget::canvas::{self, Frame, Geometry, Path, Stroke};
use iced::widget::{button, canvas as canvas_widget, column, row, text, text_input};
use iced::{Color, Element, Fill, Font, Length, Point, Rectangle, Renderer, Size, Theme};

use crate::Message;
use crate::values::DataMsg;

/// The slice field's placeholder and the viewer's title.
pub const TITLE: &str = "Array viewer";

/// One subscript of a slice: a range (inclusive) or all of the dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    All,
    Range(Option<i64>, Option<i64>),
    One(i64),
}

/// `text` as an expression and a slice: `a[0:9][3]` is `a` with `[0:9][3]`, `a(1:10,3)` is
/// `a` with `(1:10,3)`. Without a `:` in its last brackets the whole text is the expression.
pub fn split_slice(text: &str) -> (String, Vec<Sub>, bool) {
    let t = text.trim();
    let parse = |s: &str| -> Option<Sub> {
        let s = s.trim();
        if s.is_empty() || s == ":" {
            return Some(Sub::All);
        }
        match s.split_once(':') {
            Some((a, b)) => {
                let n = |x: &str| -> Option<Option<i64>> {
                    let x = x.trim();
                    if x.is_empty() {
                        Some(None)
                    } else {
                        x.parse().ok().map(Some)
                    }
                };
                Some(Sub::Range(n(a)?, n(b)?))
            }
            None => s.parse().ok().map(Sub::One),
        }
    };
    // Fortran: `base(…)` whose last parentheses hold a `:`.
    if t.ends_with(')')
        && let Some(open) = t.rfind('(')
        && t[open..].contains(':')
        && open > 0
    {
        let subs: Option<Vec<Sub>> = t[open + 1..t.len() - 1].split(',').map(parse).collect();
        if let Some(subs) = subs {
            return (t[..open].trim().to_string(), subs, true);
        }
    }
    // C: trailing `[…]` groups, one of them with a `:`.
    let mut rest = t;
    let mut groups = Vec::new();
    while rest.ends_with(']') {
        let Some(open) = rest.rfind('[') else { break };
        groups.push(&rest[open + 1..rest.len() - 1]);
        rest = &rest[..open];
    }
    if groups.iter().any(|g| g.contains(':')) && !rest.trim().is_empty() {
        let subs: Option<Vec<Sub>> = groups.iter().rev().map(|g| parse(g)).collect();
        if let Some(subs) = subs {
            return (rest.trim().to_string(), subs, false);
        }
    }
    (t.to_string(), Vec::new(), false)
}

/// A slice of an array: its kept dimensions (the subscripts of each) and its numbers, the
/// last kept dimension fastest.
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    pub element: String,
    /// Per kept dimension, its subscripts (as the language numbers them).
    pub axes: Vec<Vec<i64>>,
    pub data: Vec<f64>,
    /// Elements of the slice past those the agent read (`MAX_NUMBERS`).
    pub missing: u64,
}

/// The slice `subs` of the array `v` (numbers only).
pub fn slice(v: &TypedValue, subs: &[Sub]) -> Result<Slice, String> {
    let TypedValue::Array {
        element,
        dims,
        column_major,
        elements,
        ..
    } = v
    else {
        return Err(format!("not an array (type {})", v.type_name()));
    };
    let Elements::Numbers(nums) = elements else {
        return Err(format!("an array of {element}: not numbers"));
    };
    if subs.len() > dims.len() {
        return Err(format!(
            "{} subscripts for an array of {} dimensions",
            subs.len(),
            dims.len()
        ));
    }
    let mut ranges = Vec::new();
    let mut axes = Vec::new();
    for (k, d) in dims.iter().enumerate() {
        let (lo, hi, kept) = match subs.get(k).copied().unwrap_or(Sub::All) {
            Sub::All => (d.lower, d.upper(), true),
            Sub::Range(a, b) => (a.unwrap_or(d.lower), b.unwrap_or(d.upper()), true),
            Sub::One(i) => (i, i, false),
        };
        if lo < d.lower || hi > d.upper() || lo > hi {
            return Err(format!(
                "subscript {lo}:{hi} out of bounds {}:{}",
                d.lower,
                d.upper()
            ));
        }
        ranges.push((lo, hi));
        if kept {
            axes.push((lo..=hi).collect::<Vec<i64>>());
        }
    }
    // Strides of each dimension in the elements' order.
    let mut stride = vec![0u64; dims.len()];
    let mut acc = 1u64;
    let order: Vec<usize> = if *column_major {
        (0..dims.len()).collect()
    } else {
        (0..dims.len()).rev().collect()
    };
    for k in order {
        stride[k] = acc;
        acc = acc.saturating_mul(dims[k].count);
    }
    // Every index of the slice, the last dimension fastest.
    let mut data = Vec::new();
    let mut missing = 0u64;
    let mut idx: Vec<i64> = ranges.iter().map(|r| r.0).collect();
    loop {
        let flat: u64 = idx
            .iter()
            .zip(dims)
            .zip(&stride)
            .map(|((i, d), s)| (i - d.lower) as u64 * s)
            .sum();
        match usize::try_from(flat).ok().and_then(|f| nums.get(f)) {
            Some(n) => data.push(n.0),
            None => missing += 1,
        }
        let mut k = idx.len();
        loop {
            if k == 0 {
                return Ok(Slice {
                    element: element.clone(),
                    axes,
                    data,
                    missing,
                });
            }
            k -= 1;
            if idx[k] < ranges[k].1 {
                idx[k] += 1;
                break;
            }
            idx[k] = ranges[k].0;
        }
    }
}

/// The statistics line of a slice.
pub fn stats_line(s: &Slice) -> String {
    let st = Stats::of(s.data.iter().copied());
    let num = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v}"));
    format!(
        "{} elements: {} NaN, {} +Inf, {} -Inf, {} negative, {} zero; min {}, max {}, mean {}",
        st.count,
        st.nan,
        st.pos_inf,
        st.neg_inf,
        st.negative,
        st.zero,
        num(st.min),
        num(st.max),
        num(st.mean())
    )
}

/// The slice as CSV: a 1-D slice one `index,value` line each; a 2-D one a header of the
/// second dimension's subscripts, then a line per first subscript; more dimensions one
/// line per element with all its subscripts.
pub fn csv(s: &Slice) -> String {
    let mut out = String::new();
    let v = |x: f64| format!("{x}");
    match s.axes.len() {
        0 => {
            for x in &s.data {
                out.push_str(&v(*x));
                out.push('\n');
            }
        }
        1 => {
            for (i, x) in s.axes[0].iter().zip(&s.data) {
                out.push_str(&format!("{i},{}\n", v(*x)));
            }
        }
        2 => {
            let cols = s.axes[1].len();
            out.push_str("index");
            for j in &s.axes[1] {
                out.push_str(&format!(",{j}"));
            }
            out.push('\n');
            for (r, i) in s.axes[0].iter().enumerate() {
                out.push_str(&i.to_string());
                for x in s.data.iter().skip(r * cols).take(cols) {
                    out.push(',');
                    out.push_str(&v(*x));
                }
                out.push('\n');
            }
        }
        _ => {
            let mut idx = vec![0usize; s.axes.len()];
            for x in &s.data {
                let subs: Vec<String> = idx
                    .iter()
                    .zip(&s.axes)
                    .map(|(i, a)| a[*i].to_string())
                    .collect();
                out.push_str(&format!("{},{}\n", subs.join(","), v(*x)));
                for k in (0..idx.len()).rev() {
                    idx[k] += 1;
                    if idx[k] < s.axes[k].len() {
                        break;
                    }
                    idx[k] = 0;
                }
            }
        }
    }
    out
}

/// The viewer's state.
#[derive(Debug, Default)]
pub struct ArrayView {
    pub open: bool,
    /// The expression with its slice, as typed.
    pub input: String,
    /// The expression asked for (the input without its slice) and its slice.
    pub expr: String,
    pub subs: Vec<Sub>,
    /// The focus rank's value of `expr`, or why not.
    pub value: Option<Result<TypedValue, String>>,
    pub csv_path: String,
    /// What the last export did.
    pub note: String,
}

impl ArrayView {
    /// The slice shown, or why none.
    pub fn slice(&self) -> Result<Slice, String> {
        match &self.value {
            None => Err("(asking the focus rank…)".into()),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(v)) => slice(v, &self.subs),
        }
    }

    /// Takes the input; returns the expression to ask for when it changed.
    pub fn submit(&mut self) -> Option<String> {
        let (expr, subs, _) = split_slice(&self.input);
        self.subs = subs;
        self.open = true;
        if expr.is_empty() {
            return None;
        }
        if expr != self.expr || self.value.is_none() {
            self.expr = expr.clone();
            self.value = None;
            return Some(expr);
        }
        None
    }

    /// Writes the slice to the CSV file.
    pub fn export(&mut self) {
        self.note = match self.slice() {
            Err(e) => e,
            Ok(s) if self.csv_path.trim().is_empty() => {
                format!("a file name first ({} values)", s.data.len())
            }
            Ok(s) => match std::fs::write(self.csv_path.trim(), csv(&s)) {
                Ok(()) => format!("wrote {} values to {}", s.data.len(), self.csv_path.trim()),
                Err(e) => format!("{}: {e}", self.csv_path.trim()),
            },
        };
    }

    pub fn view(&self) -> Element<'_, Message> {
        let msg = |m: DataMsg| Message::Data(m);
        let head = row![
            text(TITLE).size(16),
            text_input("a[0:9][3] or a(1:10,3)", &self.input)
                .on_input(move |s| msg(DataMsg::ArrayInput(s)))
                .on_submit(msg(DataMsg::ArraySubmit))
                .font(Font::MONOSPACE)
                .size(13),
            button(text("Show").size(13)).on_press(msg(DataMsg::ArraySubmit)),
            button(text("Close").size(13)).on_press(msg(DataMsg::ArrayClose)),
        ]
        .spacing(8)
        .align_y(iced::Center);
        let body: Element<'_, Message> = match self.slice() {
            Err(e) => text(e).size(13).into(),
            Ok(s) => {
                let shape: Vec<String> = s.axes.iter().map(|a| a.len().to_string()).collect();
                let mut info = format!(
                    "{}: {} of {}{}",
                    self.input.trim(),
                    if shape.is_empty() {
                        "1".into()
                    } else {
                        shape.join("×")
                    },
                    s.element,
                    if s.missing > 0 {
                        format!(" ({} elements past those read)", s.missing)
                    } else {
                        String::new()
                    }
                );
                if let (Some(f), Some(l)) = (s.axes.first(), s.axes.get(1)) {
                    info.push_str(&format!(
                        "; rows {}..{}, columns {}..{}",
                        f[0],
                        f[f.len() - 1],
                        l[0],
                        l[l.len() - 1]
                    ));
                }
                let plot: Element<'_, Message> = if s.axes.len() <= 2 {
                    canvas_widget(Plot { slice: s.clone() })
                        .width(Fill)
                        .height(Fill)
                        .into()
                } else {
                    text("(a colour map for 2 dimensions, a line for 1: fix the others)")
                        .size(13)
                        .into()
                };
                column![
                    text(info).size(13).font(Font::MONOSPACE),
                    text(stats_line(&s)).size(13).font(Font::MONOSPACE),
                    plot
                ]
                .spacing(4)
                .height(Fill)
                .into()
            }
        };
        let export = row![
            text_input("file.csv", &self.csv_path)
                .on_input(move |s| msg(DataMsg::CsvPath(s)))
                .font(Font::MONOSPACE)
                .size(13)
                .width(Length::FillPortion(2)),
            button(text("Export CSV").size(13)).on_press(msg(DataMsg::ExportCsv)),
            text(&self.note).size(13).width(Length::FillPortion(2)),
        ]
        .spacing(8)
        .align_y(iced::Center);
        column![head, body, export]
            .spacing(6)
            .height(Fill)
            .width(Fill)
            .into()
    }
}

/// A colour for `v` between `lo` and `hi` (dark blue, through teal and green, to yellow);
/// NaN magenta, +Inf white, -Inf black.
pub fn ramp(v: f64, lo: f64, hi: f64) -> Color {
    if v.is_nan() {
        return Color::from_rgb8(0xe0, 0x20, 0xe0);
    }
    if v == f64::INFINITY {
        return Color::WHITE;
    }
    if v == f64::NEG_INFINITY {
        return Color::BLACK;
    }
    let t = if hi > lo {
        ((v - lo) / (hi - lo)) as f32
    } else {
        0.5
    };
    let stops = [
        (0.27, 0.00, 0.33),
        (0.23, 0.32, 0.55),
        (0.13, 0.57, 0.55),
        (0.37, 0.79, 0.38),
        (0.99, 0.91, 0.14),
    ];
    let x = t.clamp(0.0, 1.0) * 4.0;
    let i = (x.floor() as usize).min(3);
    let f = x - i as f32;
    let (a, b) = (stops[i], stops[i + 1]);
    Color::from_rgb(
        a.0 + (b.0 - a.0) * f,
        a.1 + (b.1 - a.1) * f,
        a.2 + (b.2 - a.2) * f,
    )
}

/// The plot of a slice: a colour map (2-D) or a line (1-D).
struct Plot {
    slice: Slice,
}

impl canvas::Program<Message> for Plot {
    type State = ();

    fn draw(
        &self,
        _state: &(),
        renderer: &Renderer,
        _theme: &Theme,
        bounds: Rectangle,
        _cursor: mouse::Cursor,
    ) -> Vec<Geometry> {
        let mut f = Frame::new(renderer, bounds.size());
        let s = &self.slice;
        let st = Stats::of(s.data.iter().copied());
        let (lo, hi) = (st.min.unwrap_or(0.0), st.max.unwrap_or(1.0));
        let label = |f: &mut Frame, t: String, p: Point| {
            f.fill_text(canvas::Text {
                content: t,
                position: p,
                color: Color::from_rgb8(0xc8, 0xc8, 0xd0),
                size: 11.0.into(),
                font: Font::MONOSPACE,
                ..canvas::Text::default()
            });
        };
        let (w, h) = (bounds.width - 70.0, bounds.height - 4.0);
        if w <= 0.0 || h <= 0.0 || s.data.is_empty() {
            return vec![f.into_geometry()];
        }
        if s.axes.len() == 2 {
            let (rows, cols) = (s.axes[0].len(), s.axes[1].len());
            let side = (w / cols as f32).min(h / rows as f32).max(0.5);
            for (k, v) in s.data.iter().enumerate() {
                let (r, c) = (k / cols, k % cols);
                f.fill_rectangle(
                    Point::new(c as f32 * side, r as f32 * side),
                    Size::new(side, side),
                    ramp(*v, lo, hi),
                );
            }
            // The scale: its colours, the least and greatest values.
            let x = cols as f32 * side + 8.0;
            let sh = (rows as f32 * side).max(40.0);
            for i in 0..20 {
                let t = 1.0 - i as f64 / 19.0;
                f.fill_rectangle(
                    Point::new(x, i as f32 * sh / 20.0),
                    Size::new(10.0, sh / 20.0 + 0.5),
                    ramp(lo + t * (hi - lo), lo, hi),
                );
            }
            label(&mut f, format!("{hi}"), Point::new(x + 13.0, 0.0));
            label(&mut f, format!("{lo}"), Point::new(x + 13.0, sh - 12.0));
        } else {
            let n = s.data.len();
            let span = if hi > lo { hi - lo } else { 1.0 };
            let at = |i: usize, v: f64| {
                Point::new(
                    if n > 1 {
                        6.0 + i as f32 * (w - 12.0) / (n - 1) as f32
                    } else {
                        w / 2.0
                    },
                    h - ((v - lo) / span) as f32 * (h - 8.0) - 4.0,
                )
            };
            // Finite runs as lines; a NaN or an infinity is a gap with a mark at the bottom.
            let line = Path::new(|b| {
                let mut pen = false;
                for (i, v) in s.data.iter().enumerate() {
                    if v.is_finite() {
                        if pen {
                            b.line_to(at(i, *v));
                        } else {
                            b.move_to(at(i, *v));
                        }
                        pen = true;
                    } else {
                        pen = false;
                    }
                }
            });
            f.stroke(
                &line,
                Stroke::default()
                    .with_color(Color::from_rgb8(0x5a, 0xb4, 0xf0))
                    .with_width(2.0),
            );
            for (i, v) in s.data.iter().enumerate() {
                if v.is_finite() {
                    // A dot at every number (a number between two gaps has no line).
                    f.fill(
                        &Path::circle(at(i, *v), 3.0),
                        Color::from_rgb8(0x5a, 0xb4, 0xf0),
                    );
                } else {
                    let p = at(i, lo);
                    f.fill_rectangle(
                        Point::new(p.x - 2.0, h - 6.0),
                        Size::new(4.0, 6.0),
                        ramp(*v, lo, hi),
                    );
                }
            }
            label(&mut f, format!("{hi}"), Point::new(w + 6.0, 0.0));
            label(&mut f, format!("{lo}"), Point::new(w + 6.0, h - 12.0));
        }
        vec![f.into_geometry()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_wire::{Dim, Num};

    fn grid(column_major: bool, lower: i64) -> TypedValue {
        TypedValue::Array {
            ty: "double [2][3]".into(),
            element: "double".into(),
            dims: vec![Dim { lower, count: 2 }, Dim { lower, count: 3 }],
            column_major,
            elements: Elements::Numbers((0..6).map(|i| Num(i as f64)).collect()),
        }
    }

    #[test]
    fn slices_parse_in_c_and_fortran() {
        assert_eq!(
            split_slice("a[0:9][3]"),
            (
                "a".into(),
                vec![Sub::Range(Some(0), Some(9)), Sub::One(3)],
                false
            )
        );
        assert_eq!(
            split_slice("s%a(1:10, 3)"),
            (
                "s%a".into(),
                vec![Sub::Range(Some(1), Some(10)), Sub::One(3)],
                true
            )
        );
        assert_eq!(split_slice("c.v[1]"), ("c.v[1]".into(), vec![], false));
        assert_eq!(
            split_slice("f(:,2:)"),
            ("f".into(), vec![Sub::All, Sub::Range(Some(2), None)], true)
        );
    }

    #[test]
    fn slices_follow_the_layout() {
        // C: a[i][j] is element i*3+j.
        let s = slice(&grid(false, 0), &[Sub::All, Sub::One(1)]).expect("slice");
        assert_eq!(
            (s.axes.clone(), s.data.clone()),
            (vec![vec![0, 1]], vec![1.0, 4.0])
        );
        // Fortran: a(i,j) is element (i-1)+2*(j-1).
        let s = slice(&grid(true, 1), &[Sub::One(2), Sub::Range(Some(2), Some(3))]).expect("slice");
        assert_eq!(
            (s.axes.clone(), s.data.clone()),
            (vec![vec![2, 3]], vec![3.0, 5.0])
        );
        let s = slice(&grid(false, 0), &[]).expect("whole");
        assert_eq!(csv(&s), "index,0,1,2\n0,0,1,2\n1,3,4,5\n");
        assert!(slice(&grid(false, 0), &[Sub::One(2)]).is_err());
        assert_eq!(
            stats_line(&s),
            "6 elements: 0 NaN, 0 +Inf, 0 -Inf, 0 negative, 1 zero; min 0, max 5, mean 2.5"
        );
    }
}
