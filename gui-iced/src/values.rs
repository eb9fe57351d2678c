//! Typed values in the window: the focus rank's locals and the user's watches as expandable
//! trees (structs, Fortran derived types, arrays), every number with a sparkline of its
//! value across the ranks, a click on it compares the ranks (the classes of its value and
//! the reduction: least and greatest with their ranks, NaN and infinities). The values come
//! from the agents typed (`:locals`, `:value EXPR` over every rank: `cohort_wire::Values`).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use cohort_wire::{Elements, PathStep, RankSet, Reduction, TypedValue, Values};
use iced::mouse;
use iced::widget::canvas::{self, Frame, Geometry, Path, Stroke};
use iced::widget::{
    Column, button, canvas as canvas_widget, column, row, scrollable, text, text_input,
};
use iced::{Color, Element, Fill, Font, Length, Point, Rectangle, Renderer, Theme};

use crate::array_view::ArrayView;
use crate::{Message, Request};

/// Which tree: the locals, or watch `i`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tree {
    Locals,
    Watch(String),
}

/// What the user does in the data views.
#[derive(Debug, Clone)]
pub enum DataMsg {
    /// Expand or fold a node.
    Toggle(Tree, Vec<PathStep>),
    /// Compare a number across the ranks.
    Compare(Tree, Vec<PathStep>),
    WatchInput(String),
    AddWatch,
    RemoveWatch(String),
    /// Open the array viewer on an array of a tree (its expression).
    ViewArray(String),
    ArrayInput(String),
    ArraySubmit,
    ArrayClose,
    CsvPath(String),
    ExportCsv,
}

/// A watch: its expression and the ranks' values (or the errors).
#[derive(Debug, Clone)]
pub struct Watch {
    pub expr: String,
    pub values: Option<Values>,
    pub error: String,
}

/// The comparison shown: which number, its classes (`[0-1] 1.5`), the reduction's lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub label: String,
    pub classes: Vec<String>,
    pub reduction: Vec<String>,
}

/// A number's values across the ranks (`None` where a rank has none).
pub type Series = Rc<[Option<f64>]>;

/// The data views' state.
#[derive(Debug, Default)]
pub struct Data {
    pub size: u32,
    pub focus: u32,
    /// Every rank's locals (`:locals`), or those of a frame other than the innermost
    /// (`:locals N`) of the ranks asked.
    pub locals: Option<Values>,
    /// The frame whose locals are shown when it is not the innermost: its level (`frame N`'s
    /// count) and the ranks asked (those whose stack is the focus rank's).
    pub frame: Option<(usize, RankSet)>,
    pub locals_error: String,
    pub watches: Vec<Watch>,
    pub watch_input: String,
    pub expanded: BTreeSet<(Tree, Vec<PathStep>)>,
    pub compare: Option<Comparison>,
    /// The numbers across the ranks of each path with a sparkline ([`Data::across`]).
    series: RefCell<HashMap<(Tree, Vec<PathStep>), Series>>,
    /// Where the comparison's pane is scrolled (as [`crate::Model::scrolls`]).
    pub compare_scroll: crate::lines::Scroll,
    pub array: ArrayView,
}

/// The request key of the locals, a watch, the array viewer.
const LOCALS: &str = "locals";
pub const LOCALS_PANE: &str = "locals-pane";
pub const COMPARE_PANE: &str = "compare-pane";
const WATCH: &str = "watch:";
const ARRAY: &str = "array:";

/// A path as an expression below `root` (`c.v`, Fortran `c%v`; elements as `[i]`).
pub fn path_expr(root: &str, path: &[PathStep], fortran: bool) -> String {
    let mut s = root.to_string();
    for p in path {
        match p {
            PathStep::Field(f) if fortran => s = format!("{s}%{f}"),
            PathStep::Field(f) => s = format!("{s}.{f}"),
            PathStep::Element(i) => s = format!("{s}[{i}]"),
        }
    }
    s
}

impl Data {
    fn tree(&self, t: &Tree) -> Option<&Values> {
        match t {
            Tree::Locals => self.locals.as_ref(),
            Tree::Watch(e) => self
                .watches
                .iter()
                .find(|w| &w.expr == e)
                .and_then(|w| w.values.as_ref()),
        }
    }

    /// The request of the locals: every rank's innermost frame's, or the selected frame's
    /// of the ranks it is asked of.
    pub fn locals_request(&self, all: &RankSet) -> Request {
        let (line, ranks) = match &self.frame {
            Some((n, ranks)) => (format!(":locals {n}"), ranks.clone()),
            None => (":locals".to_string(), all.clone()),
        };
        Request::Values {
            key: LOCALS.into(),
            line,
            ranks,
        }
    }

    fn array_request(&self) -> Request {
        let line = match &self.frame {
            Some((n, _)) => format!(":array@{n} {}", self.array.expr),
            None => format!(":array {}", self.array.expr),
        };
        Request::Values {
            key: format!("{ARRAY}{}", self.array.expr),
            line,
            ranks: RankSet::single(self.focus),
        }
    }

    /// The request of a watch: every rank's value in its innermost frame, or in the
    /// selected frame of the ranks it is asked of (as the locals).
    fn watch_request(&self, e: &str, all: &RankSet) -> Request {
        let (line, ranks) = match &self.frame {
            Some((n, ranks)) => (format!(":value@{n} {e}"), ranks.clone()),
            None => (format!(":value {e}"), all.clone()),
        };
        Request::Values {
            key: format!("{WATCH}{e}"),
            line,
            ranks,
        }
    }

    /// The requests of the data (after a stop, a focus change, a click on a frame or a
    /// stack's node): the locals, the watches and the focus rank's array, in the selected
    /// frame (every rank's innermost when none is).
    pub fn frame_requests(&mut self, all: &RankSet) -> Vec<Request> {
        let mut r = vec![self.locals_request(all)];
        for w in &self.watches {
            r.push(self.watch_request(&w.expr, all));
        }
        if self.array.open && !self.array.expr.is_empty() {
            self.array.value = None;
            r.push(self.array_request());
        }
        r
    }

    /// An answer of the session.
    pub fn apply(&mut self, key: &str, values: Option<Values>, error: String) {
        self.series.get_mut().clear();
        if key == LOCALS {
            self.locals = values;
            self.locals_error = error;
        } else if let Some(e) = key.strip_prefix(WATCH) {
            if let Some(w) = self.watches.iter_mut().find(|w| w.expr == e) {
                w.values = values;
                w.error = error;
            }
        } else if let Some(e) = key.strip_prefix(ARRAY)
            && e == self.array.expr
        {
            self.array.value = Some(
                match values.as_ref().and_then(|v| v.get(self.focus)).cloned() {
                    Some(v) => Ok(v),
                    None if !error.is_empty() => Err(error.trim_end().to_string()),
                    None => Err("no value".into()),
                },
            );
        }
    }

    /// The numbers of `path` of tree `t` across the ranks (`None` where a rank has none):
    /// worked out once per answer (a view draws a sparkline of each number shown, and is
    /// built again at every message: 34 locals of 10,000 ranks took 110 ms a view).
    pub fn across(&self, t: &Tree, path: &[PathStep]) -> Series {
        let key = (t.clone(), path.to_vec());
        if let Some(s) = self.series.borrow().get(&key)
            && s.len() == self.size as usize
        {
            return s.clone();
        }
        // A member of the tree's top: every member's numbers in one pass over the classes
        // (10,000 ranks' 34 locals: one look-up of each member by name in each class took
        // 100 ms).
        if let [PathStep::Field(_)] = path
            && let Some(v) = self.tree(t)
        {
            let mut by_name: HashMap<&str, Vec<Option<f64>>> = HashMap::new();
            let n = self.size as usize;
            for (val, ranks) in &v.classes {
                let TypedValue::Struct { fields, .. } = val else {
                    continue;
                };
                for (name, fv) in fields {
                    let Some(x) = fv.number() else { continue };
                    let out = by_name.entry(name).or_insert_with(|| vec![None; n]);
                    fill(out, ranks, x);
                }
            }
            let mut cache = self.series.borrow_mut();
            for (name, nums) in by_name {
                cache.insert(
                    (t.clone(), vec![PathStep::Field(name.to_string())]),
                    nums.into(),
                );
            }
            if let Some(s) = cache.get(&key) {
                return s.clone();
            }
        }
        let s: Series = self.work_out_across(t, path).into();
        self.series.borrow_mut().insert(key, s.clone());
        s
    }

    fn work_out_across(&self, t: &Tree, path: &[PathStep]) -> Vec<Option<f64>> {
        let Some(v) = self.tree(t) else {
            return Vec::new();
        };
        // One pass over the classes (a look-up of each rank's class was 10,000 × 10,000
        // steps at each drawing of 10,000 ranks' locals).
        let mut out = vec![None; self.size as usize];
        for (val, ranks) in &v.classes {
            let Some(n) = val.at(path).and_then(TypedValue::number) else {
                continue;
            };
            fill(&mut out, ranks, n);
        }
        out
    }

    /// The comparison of `path` of tree `t` across the ranks.
    pub fn comparison(&self, t: &Tree, path: &[PathStep]) -> Option<Comparison> {
        let v = self.tree(t)?;
        let mut classes: Vec<(String, RankSet)> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut red = Reduction::default();
        for (val, ranks) in &v.classes {
            let Some(leaf) = val.at(path) else { continue };
            let shown = match leaf {
                TypedValue::Scalar { text, .. } => text.clone(),
                other => other.type_name().to_string(),
            };
            if let Some(n) = leaf.number() {
                red.add(ranks, n, &shown);
            }
            match at.get(&shown) {
                Some(&i) => classes[i].1 = classes[i].1.union(ranks),
                None => {
                    at.insert(shown.clone(), classes.len());
                    classes.push((shown, ranks.clone()));
                }
            }
        }
        classes.sort_by_key(|c| c.1.first());
        let root = match t {
            Tree::Locals => String::new(),
            Tree::Watch(e) => e.clone(),
        };
        let label = match (root.is_empty(), path.split_first()) {
            (true, Some((PathStep::Field(f), rest))) => path_expr(f, rest, false),
            _ => path_expr(&root, path, false),
        };
        Some(Comparison {
            label,
            classes: classes
                .into_iter()
                .map(|(s, r)| format!("[{r}] {s}"))
                .collect(),
            reduction: red.lines(),
        })
    }

    /// The user's intent; returns the requests for the session.
    pub fn intent(&mut self, m: DataMsg, all: &RankSet) -> Vec<Request> {
        match m {
            DataMsg::Toggle(t, p) => {
                let k = (t, p);
                if !self.expanded.remove(&k) {
                    self.expanded.insert(k);
                }
                Vec::new()
            }
            DataMsg::Compare(t, p) => {
                self.compare = self.comparison(&t, &p);
                Vec::new()
            }
            DataMsg::WatchInput(s) => {
                self.watch_input = s;
                Vec::new()
            }
            DataMsg::AddWatch => {
                let e = std::mem::take(&mut self.watch_input).trim().to_string();
                if e.is_empty() || self.watches.iter().any(|w| w.expr == e) {
                    return Vec::new();
                }
                self.watches.push(Watch {
                    expr: e.clone(),
                    values: None,
                    error: String::new(),
                });
                vec![self.watch_request(&e, all)]
            }
            DataMsg::RemoveWatch(e) => {
                self.watches.retain(|w| w.expr != e);
                self.expanded.retain(|(t, _)| *t != Tree::Watch(e.clone()));
                Vec::new()
            }
            DataMsg::ViewArray(e) => {
                self.array.input = e;
                self.intent(DataMsg::ArraySubmit, all)
            }
            DataMsg::ArrayInput(s) => {
                self.array.input = s;
                Vec::new()
            }
            DataMsg::ArraySubmit => match self.array.submit() {
                Some(_) => vec![self.array_request()],
                None => Vec::new(),
            },
            DataMsg::ArrayClose => {
                self.array.open = false;
                Vec::new()
            }
            DataMsg::CsvPath(s) => {
                self.array.csv_path = s;
                Vec::new()
            }
            DataMsg::ExportCsv => {
                self.array.export();
                Vec::new()
            }
        }
    }

    /// The locals and watches pane.
    pub fn view(&self) -> Element<'_, Message> {
        let msg = Message::Data;
        let mut items: Vec<Element<'_, Message>> = Vec::new();
        match self.locals.as_ref().and_then(|v| v.get(self.focus)) {
            Some(TypedValue::Struct { fields, .. }) => {
                for (name, v) in fields {
                    self.node(
                        &mut items,
                        &Tree::Locals,
                        name,
                        vec![PathStep::Field(name.clone())],
                        v,
                        0,
                    );
                }
            }
            _ if !self.locals_error.is_empty() => {
                items.push(text(self.locals_error.trim_end()).size(13).into());
            }
            _ => {}
        }
        for w in &self.watches {
            let t = Tree::Watch(w.expr.clone());
            let head = row![
                button(text("Remove").size(11))
                    .padding([0, 4])
                    .on_press(msg(DataMsg::RemoveWatch(w.expr.clone()))),
                text(format!("watch {}", w.expr))
                    .size(13)
                    .font(Font::MONOSPACE),
            ]
            .spacing(6);
            items.push(head.into());
            match w.values.as_ref().and_then(|v| v.get(self.focus)) {
                Some(v) => self.node(&mut items, &t, &w.expr, Vec::new(), v, 1),
                None if !w.error.is_empty() => items.push(
                    text(format!("  {}", w.error.trim_end()))
                        .size(13)
                        .font(Font::MONOSPACE)
                        .into(),
                ),
                None => {}
            }
        }
        let add = row![
            text_input("an expression to watch", &self.watch_input)
                .on_input(|s| Message::Data(DataMsg::WatchInput(s)))
                .on_submit(msg(DataMsg::AddWatch))
                .font(Font::MONOSPACE)
                .size(13),
            button(text("Watch").size(13)).on_press(msg(DataMsg::AddWatch)),
        ]
        .spacing(6);
        let mut col = column![
            scrollable(Column::with_children(items).spacing(1))
                .id(LOCALS_PANE)
                .height(Fill)
        ];
        if let Some(c) = &self.compare {
            let (k, r) = (c.classes.len(), c.reduction.len());
            let line = move |i: usize| match i {
                0 => format!("{} across the ranks:", c.label),
                i if i <= k => c.classes[i - 1].clone(),
                i => c.reduction[i - 1 - k].clone(),
            };
            col = col.push(
                iced::widget::container(crate::lines::text_pane(
                    COMPARE_PANE,
                    1 + k + r,
                    &self.compare_scroll,
                    false,
                    line,
                    |v| Message::Scrolled(COMPARE_PANE, crate::lines::Scroll::of(v)),
                ))
                .height(Length::Fixed(96.0)),
            );
        }
        col.push(add).spacing(4).into()
    }

    /// One node of a tree (and its children when expanded) into `out`.
    fn node<'a>(
        &'a self,
        out: &mut Vec<Element<'a, Message>>,
        tree: &Tree,
        name: &str,
        path: Vec<PathStep>,
        v: &'a TypedValue,
        depth: usize,
    ) {
        let indent = "  ".repeat(depth);
        let key = (tree.clone(), path.clone());
        let open = self.expanded.contains(&key);
        let msg = Message::Data;
        let mono = |s: String| text(s).size(13).font(Font::MONOSPACE);
        match v {
            TypedValue::Scalar { text: t, num, .. } => {
                let label = mono(format!("{indent}  {name} = {t}"));
                let mut r = row![
                    button(label)
                        .padding(0)
                        .style(button::text)
                        .on_press(msg(DataMsg::Compare(tree.clone(), path.clone())))
                ]
                .spacing(8)
                .align_y(iced::Center);
                if num.is_some() && self.size > 1 {
                    r = r.push(
                        canvas_widget(Sparkline {
                            values: self.across(tree, &path),
                            focus: self.focus,
                        })
                        .width(Length::Fixed(80.0))
                        .height(Length::Fixed(14.0)),
                    );
                }
                out.push(r.into());
            }
            TypedValue::Struct { ty, fields } => {
                let sign = if open { "-" } else { "+" };
                out.push(
                    row![
                        button(mono(format!("{indent}{sign} {name}")))
                            .padding(0)
                            .style(button::text)
                            .on_press(msg(DataMsg::Toggle(tree.clone(), path.clone()))),
                        mono(format!("({ty})")).color(Color::from_rgb8(0x80, 0x80, 0x88)),
                    ]
                    .spacing(6)
                    .into(),
                );
                if open {
                    for (f, fv) in fields {
                        let mut p = path.clone();
                        p.push(PathStep::Field(f.clone()));
                        self.node(out, tree, f, p, fv, depth + 1);
                    }
                }
            }
            TypedValue::Array {
                ty,
                elements,
                column_major,
                ..
            } => {
                let sign = if open { "-" } else { "+" };
                let expr = match (tree, path.split_first()) {
                    (Tree::Locals, Some((PathStep::Field(f), rest))) => {
                        path_expr(f, rest, *column_major)
                    }
                    (Tree::Watch(e), _) => path_expr(e, &path, *column_major),
                    _ => name.to_string(),
                };
                let mut r = row![
                    button(mono(format!("{indent}{sign} {name}")))
                        .padding(0)
                        .style(button::text)
                        .on_press(msg(DataMsg::Toggle(tree.clone(), path.clone()))),
                    mono(format!("({ty})")).color(Color::from_rgb8(0x80, 0x80, 0x88)),
                ]
                .spacing(6)
                .align_y(iced::Center);
                if let Elements::Numbers(_) = elements {
                    r = r.push(
                        button(text(format!("View {expr}")).size(11))
                            .padding([0, 4])
                            .on_press(msg(DataMsg::ViewArray(expr.clone()))),
                    );
                }
                out.push(r.into());
                if open {
                    match elements {
                        Elements::Numbers(n) => {
                            let shown: Vec<String> =
                                n.iter().take(50).map(|x| format!("{}", x.0)).collect();
                            let more = if n.len() > 50 { ", ..." } else { "" };
                            out.push(
                                mono(format!("{indent}    {{{}{more}}}", shown.join(", "))).into(),
                            );
                        }
                        Elements::Values(vs) => {
                            for (i, ev) in vs.iter().enumerate() {
                                let mut p = path.clone();
                                p.push(PathStep::Element(i));
                                self.node(out, tree, &format!("[{i}]"), p, ev, depth + 1);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `x` in the slots of `ranks`.
fn fill(out: &mut [Option<f64>], ranks: &RankSet, x: f64) {
    for &(lo, hi) in ranks.ranges() {
        let hi = (hi as usize).min(out.len().saturating_sub(1));
        for slot in out.get_mut(lo as usize..=hi).into_iter().flatten() {
            *slot = Some(x);
        }
    }
}

/// A number across the ranks: a line through the ranks' values (rank 0 at the left), the
/// focus rank's a dot; a rank without a number (NaN, none) leaves a gap.
pub struct Sparkline {
    pub values: Series,
    pub focus: u32,
}

impl canvas::Program<Message> for Sparkline {
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
        let finite: Vec<f64> = self
            .values
            .iter()
            .flatten()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let n = self.values.len();
        if n == 0 || finite.is_empty() {
            return vec![f.into_geometry()];
        }
        let (w, h) = (bounds.width - 4.0, bounds.height - 4.0);
        let at = |i: usize, v: f64| {
            let x = if n > 1 {
                i as f32 * w / (n - 1) as f32
            } else {
                w / 2.0
            };
            let y = if hi > lo {
                ((hi - v) / (hi - lo)) as f32 * h
            } else {
                h / 2.0
            };
            Point::new(x + 2.0, y + 2.0)
        };
        // At most two points per pixel column (the least and the greatest of its ranks):
        // 10,000 ranks are not 10,000 segments at every drawing.
        let cols = (w.max(1.0) as usize).max(1);
        let per = n.div_ceil(cols).max(1);
        let line = Path::new(|pb| {
            let mut pen = false;
            for (c, chunk) in self.values.chunks(per).enumerate() {
                let i = c * per;
                let mut lo_hi: Option<(usize, f64, usize, f64)> = None;
                for (k, v) in chunk.iter().enumerate() {
                    let Some(v) = v.filter(|v| v.is_finite()) else {
                        continue;
                    };
                    lo_hi = Some(match lo_hi {
                        None => (k, v, k, v),
                        Some((a, lo, b, hi)) => {
                            let (a, lo) = if v < lo { (k, v) } else { (a, lo) };
                            let (b, hi) = if v > hi { (k, v) } else { (b, hi) };
                            (a, lo, b, hi)
                        }
                    });
                }
                let Some((a, lo, b, hi)) = lo_hi else {
                    pen = false;
                    continue;
                };
                // In the order the ranks hold them.
                let pts = if a <= b {
                    [(i + a, lo), (i + b, hi)]
                } else {
                    [(i + b, hi), (i + a, lo)]
                };
                for (j, (r, v)) in pts.into_iter().enumerate() {
                    if j == 1 && per == 1 {
                        break;
                    }
                    if pen {
                        pb.line_to(at(r, v));
                    } else {
                        pb.move_to(at(r, v));
                    }
                    pen = true;
                }
            }
        });
        f.stroke(
            &line,
            Stroke::default()
                .with_color(Color::from_rgb8(0x5a, 0xb4, 0xf0))
                .with_width(1.5),
        );
        if let Some(Some(v)) = self.values.get(self.focus as usize)
            && v.is_finite()
        {
            f.fill(
                &Path::circle(at(self.focus as usize, *v), 2.5),
                Color::from_rgb8(0xf0, 0xa0, 0x30),
            );
        }
        vec![f.into_geometry()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_wire::Num;

    fn locals(temp: f64) -> TypedValue {
        let s = |t: &str, v: f64| TypedValue::Scalar {
            ty: "double".into(),
            text: t.into(),
            num: Some(Num(v)),
        };
        TypedValue::Struct {
            ty: "locals".into(),
            fields: vec![(
                "c".into(),
                TypedValue::Struct {
                    ty: "struct cell".into(),
                    fields: vec![
                        ("temp".into(), s(&format!("{temp}"), temp)),
                        ("id".into(), s("7", 7.0)),
                    ],
                },
            )],
        }
    }

    /// The numbers across the ranks are kept between views and worked out again when an
    /// answer comes (a top member's, all members at once, and a nested one's).
    #[test]
    fn numbers_across_the_ranks_follow_each_answer() {
        let mut d = Data {
            size: 3,
            ..Default::default()
        };
        let top = |x: f64, y: f64| TypedValue::Struct {
            ty: String::new(),
            fields: vec![
                (
                    "x".into(),
                    TypedValue::Scalar {
                        ty: "int".into(),
                        text: x.to_string(),
                        num: Some(Num(x)),
                    },
                ),
                ("y".into(), locals(y)),
            ],
        };
        let answer = |d: &mut Data, k: f64| {
            let mut v = Values::default();
            for r in 0..3u32 {
                v.add(r, top(f64::from(r) + k, k));
            }
            d.apply(LOCALS, Some(v), String::new());
        };
        let x = [PathStep::Field("x".into())];
        let temp = [
            PathStep::Field("y".into()),
            PathStep::Field("c".into()),
            PathStep::Field("temp".into()),
        ];
        answer(&mut d, 0.0);
        assert_eq!(
            *d.across(&Tree::Locals, &x),
            [Some(0.0), Some(1.0), Some(2.0)]
        );
        assert_eq!(*d.across(&Tree::Locals, &temp), [Some(0.0); 3]);
        // A member that is no number: none on every rank.
        assert_eq!(
            *d.across(&Tree::Locals, &[PathStep::Field("y".into())]),
            [None; 3]
        );
        answer(&mut d, 10.0);
        assert_eq!(
            *d.across(&Tree::Locals, &x),
            [Some(10.0), Some(11.0), Some(12.0)]
        );
        assert_eq!(*d.across(&Tree::Locals, &temp), [Some(10.0); 3]);
    }

    #[test]
    fn a_number_across_the_ranks_and_its_comparison() {
        let mut d = Data {
            size: 4,
            ..Default::default()
        };
        let mut v = Values::default();
        for (r, t) in [(0, 1.5), (1, f64::NAN), (2, 1.5), (3, -2.0)] {
            v.add(r, locals(t));
        }
        d.apply(LOCALS, Some(v), String::new());
        let temp = [PathStep::Field("c".into()), PathStep::Field("temp".into())];
        let across = d.across(&Tree::Locals, &temp);
        assert_eq!(across[0], Some(1.5));
        assert!(across[1].is_some_and(f64::is_nan));
        assert_eq!(across[3], Some(-2.0));
        let c = d.comparison(&Tree::Locals, &temp).expect("a comparison");
        assert_eq!(c.label, "c.temp");
        assert_eq!(c.classes, ["[0,2] 1.5", "[1] NaN", "[3] -2"]);
        assert_eq!(
            c.reduction,
            ["min -2 on [3], max 1.5 on [0,2]", "NaN on 1 rank: [1]"]
        );
        // Equal on every rank: one class.
        let id = [PathStep::Field("c".into()), PathStep::Field("id".into())];
        let c = d.comparison(&Tree::Locals, &id).expect("a comparison");
        assert_eq!(c.classes, ["[0-3] 7"]);
    }

    #[test]
    fn paths_as_expressions_and_watches_asked_of_every_rank() {
        let p = [PathStep::Field("s".into()), PathStep::Element(2)];
        assert_eq!(path_expr("w", &p, false), "w.s[2]");
        assert_eq!(path_expr("w", &p[..1], true), "w%s");
        let mut d = Data::default();
        let all = RankSet::all(4);
        d.watch_input = " x + 1 ".into();
        assert_eq!(
            d.intent(DataMsg::AddWatch, &all),
            vec![Request::Values {
                key: "watch:x + 1".into(),
                line: ":value x + 1".into(),
                ranks: all.clone()
            }]
        );
        // The same expression twice is one watch.
        d.watch_input = "x + 1".into();
        assert!(d.intent(DataMsg::AddWatch, &all).is_empty());
        assert_eq!(d.frame_requests(&all).len(), 2);
        d.intent(DataMsg::RemoveWatch("x + 1".into()), &all);
        assert!(d.watches.is_empty());
    }

    /// With a frame other than the innermost selected, the watches and the array viewer are
    /// asked in it (of the ranks the locals are asked of; the array of the focus rank).
    #[test]
    fn watches_and_the_array_in_the_selected_frame() {
        let mut d = Data {
            focus: 1,
            ..Data::default()
        };
        let all = RankSet::all(4);
        let same: RankSet = [0u32, 1, 3].into_iter().collect();
        d.frame = Some((2, same.clone()));
        d.watch_input = "total".into();
        assert_eq!(
            d.intent(DataMsg::AddWatch, &all),
            vec![Request::Values {
                key: "watch:total".into(),
                line: ":value@2 total".into(),
                ranks: same.clone()
            }]
        );
        assert_eq!(
            d.intent(DataMsg::ViewArray("grid(1:4, 2)".into()), &all),
            vec![Request::Values {
                key: "array:grid".into(),
                line: ":array@2 grid".into(),
                ranks: RankSet::single(1)
            }]
        );
        assert_eq!(
            d.frame_requests(&all),
            vec![
                Request::Values {
                    key: "locals".into(),
                    line: ":locals 2".into(),
                    ranks: same.clone()
                },
                Request::Values {
                    key: "watch:total".into(),
                    line: ":value@2 total".into(),
                    ranks: same
                },
                Request::Values {
                    key: "array:grid".into(),
                    line: ":array@2 grid".into(),
                    ranks: RankSet::single(1)
                },
            ]
        );
    }
}
