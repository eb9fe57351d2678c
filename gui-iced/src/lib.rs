//! Cohort's window (`cohort-gui`, `cohort gui`): an Iced application over the session
//! library. The model ([`Model`]) knows nothing of the UI: it takes the session's updates
//! and the user's intents and says which requests go to the session; [`App::view`] draws it.
//! The session runs on its own thread ([`link`]); its updates come through a subscription in
//! batches, so nothing in `view` waits on the debugger.

pub mod array_view;
pub mod grid;
pub mod groups;
pub mod highlight;
pub mod lines;
pub mod link;
pub mod output;
pub mod start;
pub mod values;

use std::collections::{BTreeSet, HashMap};

use cohort_session::events::Event;
use cohort_wire::{Breakpoint, Place, RankSet, RankState, StackTree, States};
use iced::widget::{Column, button, canvas, column, container, row, scrollable, text, text_input};
use iced::{Color, Element, Fill, FillPortion, Font, Length, Subscription, Task, keyboard};

pub use link::{Link, Request, Update};

/// The rank grid's container (tests find it by this id).
pub const GRID_ID: &str = "rank-grid";

/// The console's input line (tests find it by this id).
pub const CONSOLE_ID: &str = "console-input";
/// The panes that scroll, by name and the id of their scrollable (bench: scrolling at 10,000
/// ranks).
pub const SCROLLED_PANES: [(&str, &str); 6] = [
    ("parallel stacks", "stacks-pane"),
    ("source", SOURCE_PANE),
    ("locals", values::LOCALS_PANE),
    ("comparison", values::COMPARE_PANE),
    ("output", output::OUTPUT_PANE),
    ("console", CONSOLE_PANE),
];
pub const SOURCE_PANE: &str = "source-pane";
pub const CONSOLE_PANE: &str = "console-pane";

/// The most console lines kept.
const CONSOLE_LINES: usize = 2000;

/// What the user or the session does.
#[derive(Debug, Clone)]
pub enum Message {
    /// A batch of the session's updates.
    Batch(Vec<Update>),
    /// Focus one rank (grid click).
    Focus(u32),
    /// Show the locals of a frame of the focus rank's stack (its level, 0 the innermost).
    Frame(usize),
    /// A node of the parallel stacks: select its `ranks` (the toolbar then acts on them, and
    /// "Group selection" makes a group of them), focus the first and show the locals of the
    /// node's frame (`depth` below the root: 0 the outermost, `main`).
    StackNode {
        ranks: RankSet,
        depth: usize,
    },
    /// Toggle a breakpoint at a line of the shown file (margin click, F9 on the current
    /// line).
    ToggleBreakpoint(u32),
    Continue,
    Next,
    Step,
    Finish,
    /// F9: a breakpoint at the focus rank's current line.
    BreakpointHere,
    RefreshStacks,
    ConsoleInput(String),
    ConsoleSubmit,
    Key(keyboard::Event),
    /// The locals and watches as trees, the array viewer ([`values`]).
    Data(values::DataMsg),
    /// Interrupt the selection's running ranks.
    Pause,
    Groups(groups::GroupMsg),
    Output(output::OutputMsg),
    /// The start form.
    Start(start::StartMsg),
    /// A long pane (its scrollable's id) was scrolled: the lines it builds follow.
    Scrolled(&'static str, lines::Scroll),
}

/// The window's state, free of UI types.
#[derive(Debug, Default)]
pub struct Model {
    pub size: u32,
    /// Where the long panes are scrolled, by their scrollable's id ([`lines`]).
    pub scrolls: HashMap<&'static str, lines::Scroll>,
    pub states: States,
    pub focus: u32,
    /// The breakpoints' places: (file's full path, line), as the session last said (set from
    /// the margin, the console, `-ex`, restored), and a click's at once.
    pub breakpoints: BTreeSet<(String, u32)>,
    /// The places of breakpoints disabled on every rank that has them.
    pub disabled: BTreeSet<(String, u32)>,
    /// Every rank's breakpoints as the session last said, each location with its ranks.
    pub breakpoint_list: Vec<(Breakpoint, RankSet)>,
    /// The places of breakpoints that only some of the stopped ranks have, with those ranks
    /// (the margin marks them apart; a click clears them on those ranks only).
    pub partial: HashMap<(String, u32), RankSet>,
    /// Source files read, by full path (or why not).
    pub sources: HashMap<String, Result<Vec<String>, String>>,
    /// The file and line the source pane was last brought to.
    pub source_followed: Option<(String, u32)>,
    /// Of each file read, whether each line starts inside a comment.
    pub comment_starts: HashMap<String, Vec<bool>>,
    /// The file shown (the focus rank's, once it has stopped somewhere with one).
    pub shown: Option<String>,
    /// The focus rank's locals (`info locals`), and the rank they are of.
    pub locals: Option<(u32, String)>,
    pub stacks: Option<StackTree>,
    pub console: Vec<String>,
    pub input: String,
    /// A line about the session (starting, ended, failed).
    pub status: String,
    /// The session is over.
    pub ended: bool,
    /// Typed locals and watches of every rank, the array viewer.
    pub data: values::Data,
    /// The frame of the focus rank whose locals are shown (0 the innermost; back to 0 when
    /// the focus rank moves or another is focused).
    pub frame: usize,
    /// That frame's file and line when it is not the innermost (the source shows it).
    pub frame_at: Option<(String, u32)>,
    /// Ranks other than the focus rank have moved (and none runs) since the locals and the
    /// stacks were last asked for.
    moved: bool,
    /// The focus rank's place when its locals were last asked for.
    asked_at: Option<(u32, Option<Place>)>,
    /// The selection and the user's groups ([`groups`]).
    pub sel: groups::Selection,
    /// The program's output, by rank ([`output`]).
    pub output: output::Output,
}

impl Model {
    pub fn new() -> Self {
        Model {
            status: "starting the session…".into(),
            ..Default::default()
        }
    }

    /// All ranks, for commands to the whole job.
    fn all(&self) -> RankSet {
        RankSet::all(self.size.max(1))
    }

    /// The ranks the window asks for data (locals, watches): those that do not run (a
    /// running rank's answer would wait until it stops, and every request behind it).
    fn asked(&self) -> RankSet {
        self.states
            .groups
            .iter()
            .filter(|(s, _)| {
                !matches!(
                    s,
                    RankState::Running
                        | RankState::Waiting { .. }
                        | RankState::Lost
                        | RankState::NotStarted
                )
            })
            .fold(RankSet::new(), |acc, (_, r)| acc.union(r))
    }

    /// The focus rank's state.
    pub fn focus_state(&self) -> Option<&RankState> {
        self.states.get(self.focus)
    }

    /// The focus rank's place, if it is stopped (or waiting) somewhere.
    pub fn focus_place(&self) -> Option<&Place> {
        self.focus_state().and_then(RankState::place)
    }

    /// The line the focus rank is at in the shown file (in its selected frame).
    pub fn current_line(&self) -> Option<u32> {
        if let Some((path, line)) = &self.frame_at {
            return (Some(path) == self.shown.as_ref()).then_some(*line);
        }
        let p = self.focus_place()?;
        (p.path.is_some() && p.path == self.shown).then_some(p.line?)
    }

    /// A frame's place (`compute at ranks.c:10`) as a file to show and its line: the file by
    /// its full path when it is absolute, or one the window knows (a rank's place, a
    /// breakpoint, a file shown) that ends with it.
    fn frame_place(&self, frame: &str) -> Option<(String, u32)> {
        let (_, place) = frame.rsplit_once(" at ")?;
        let (file, line) = place.rsplit_once(':')?;
        let line: u32 = line.trim().parse().ok()?;
        if std::path::Path::new(file).is_absolute() {
            return Some((file.to_string(), line));
        }
        let suffix = format!("/{file}");
        let known = self
            .states
            .groups
            .iter()
            .filter_map(|(s, _)| s.place().and_then(|p| p.path.clone()))
            .chain(self.breakpoints.iter().map(|(p, _)| p.clone()))
            .chain(self.sources.keys().cloned());
        for p in known {
            if p == file || p.ends_with(&suffix) {
                return Some((p, line));
            }
        }
        None
    }

    /// A line about a rank: `rank 2: stopped in compute at ranks.c:10`.
    pub fn describe(&self, rank: u32) -> String {
        let s = self.states.get(rank);
        let what = match s {
            None => "unknown".to_string(),
            Some(RankState::Stopped { place, .. }) => format!(
                "{} in {} at {}:{}",
                s.map_or("", RankState::kind),
                place.function.as_deref().unwrap_or("??"),
                place.file.as_deref().unwrap_or("??"),
                place.line.map_or("?".into(), |l| l.to_string())
            ),
            Some(RankState::Waiting { call, .. }) => format!("waiting in {call}"),
            Some(RankState::Exited { code }) => format!("exited with code {code}"),
            Some(RankState::Killed { signal }) => format!("killed by {signal}"),
            Some(other) => other.kind().to_string(),
        };
        format!("rank {rank}: {what}")
    }

    /// Ranks by state, for the legend: `[0-2] at breakpoint`.
    pub fn groups(&self) -> Vec<String> {
        self.states
            .groups
            .iter()
            .map(|(s, r)| format!("[{r}] {}", s.kind()))
            .collect()
    }

    /// Takes in the session's updates; returns the requests they call for.
    pub fn apply(&mut self, updates: Vec<Update>) -> Vec<Request> {
        for u in updates {
            match u {
                Update::Started { size } => {
                    self.size = size;
                    self.status = format!("{size} ranks");
                }
                Update::Failed(why) => {
                    self.status = format!("cohort: {why}");
                    self.console.push(self.status.clone());
                }
                Update::Ended => {
                    self.status = "the session has ended".into();
                    self.ended = true;
                }
                Update::Session(Event::Text { out, err }) => {
                    self.console
                        .extend(out.lines().chain(err.lines()).map(expand_tabs));
                    let over = self.console.len().saturating_sub(CONSOLE_LINES);
                    self.console.drain(..over);
                }
                Update::Session(Event::Output { rank, err, text }) => {
                    self.output.push(rank, err, &text);
                    self.console
                        .extend(text.lines().map(|l| format!("[{rank}] {}", expand_tabs(l))));
                    let over = self.console.len().saturating_sub(CONSOLE_LINES);
                    self.console.drain(..over);
                }
                Update::Session(Event::States(s)) => {
                    // Every rank's locals and the stacks again once the ranks have settled
                    // somewhere new (not at each batch while some run: a command for a
                    // running rank waits for it).
                    let runs = |st: &RankState| {
                        matches!(st, RankState::Running | RankState::Waiting { .. })
                    };
                    if s != self.states && !s.groups.iter().any(|(st, _)| runs(st)) {
                        self.moved = true;
                    }
                    self.states = s;
                }
                Update::Session(Event::Stopped { .. }) => {}
                Update::Session(Event::Stacks(t)) | Update::Stacks(t) => self.stacks = Some(t),
                Update::Locals { rank, text } => self.locals = Some((rank, text)),
                Update::Values { key, values, error } => self.data.apply(&key, values, error),
                Update::Breakpoints { list, ranks } => self.set_breakpoints(list, &ranks),
            }
        }
        self.follow_focus()
    }

    /// When the focus rank is somewhere new, or other ranks have stopped somewhere new: its
    /// file shown, the locals (of every rank's innermost frame again) and the stacks asked
    /// for.
    fn follow_focus(&mut self) -> Vec<Request> {
        self.data.size = self.size;
        self.data.focus = self.focus;
        let place = self.focus_place().cloned();
        let key = Some((self.focus, place.clone()));
        let moved = std::mem::take(&mut self.moved);
        if (key == self.asked_at && !moved) || self.size == 0 {
            return Vec::new();
        }
        self.asked_at = key;
        self.frame = 0;
        self.frame_at = None;
        self.data.frame = None;
        let Some(place) = place else {
            return Vec::new();
        };
        if let Some(path) = place.path.clone() {
            self.show_file(&path);
        }
        let mut r = vec![Request::Locals(self.focus), Request::Stacks];
        r.extend(self.data.frame_requests(&self.asked()));
        r
    }

    /// The breakpoints of `answered` ranks (the others', running ones, are those they had
    /// when they last answered): the margin's marks.
    pub fn set_breakpoints(&mut self, fresh: Vec<(Breakpoint, RankSet)>, answered: &RankSet) {
        let mut list: Vec<(Breakpoint, RankSet)> = Vec::new();
        let kept = std::mem::take(&mut self.breakpoint_list)
            .into_iter()
            .map(|(b, r)| (b, r.difference(answered)))
            .filter(|(_, r)| !r.is_empty());
        for (b, r) in kept.chain(fresh) {
            match list.iter_mut().find(|(x, _)| *x == b) {
                Some((_, set)) => *set = set.union(&r),
                None => list.push((b, r)),
            }
        }
        list.sort_by_key(|(b, r)| (b.number, r.first()));
        self.breakpoints.clear();
        let mut enabled = BTreeSet::new();
        for (b, _) in &list {
            if let (Some(p), Some(l)) = (&b.path, b.line) {
                self.breakpoints.insert((p.clone(), l));
                if b.enabled {
                    enabled.insert((p.clone(), l));
                }
            }
        }
        self.disabled = self.breakpoints.difference(&enabled).cloned().collect();
        // The ranks asked are those that do not run (see Front::breakpoints).
        let stopped = self.asked();
        let mut have: HashMap<(String, u32), RankSet> = HashMap::new();
        for (b, ranks) in &list {
            if let (Some(p), Some(l)) = (&b.path, b.line) {
                let e = have.entry((p.clone(), l)).or_default();
                *e = e.union(ranks);
            }
        }
        self.partial = have
            .into_iter()
            .filter(|(_, r)| !stopped.difference(r).is_empty())
            .collect();
        self.breakpoint_list = list;
    }

    /// The focus rank's frames from the merged stacks (innermost first, as `bt` numbers
    /// them), and the ranks whose stack is the same.
    pub fn focus_stack(&self) -> Option<(Vec<String>, RankSet)> {
        let mut node = self.stacks.as_ref()?;
        let mut frames = Vec::new();
        while !node.ends_here.contains(self.focus) {
            node = node
                .children
                .iter()
                .find(|c| c.ranks().contains(self.focus))?;
            frames.push(node.frame.render());
        }
        frames.reverse();
        Some((frames, node.ends_here.clone()))
    }

    /// Shows the locals of frame `level` of the focus rank (asked of the ranks whose stack
    /// is the same, as the stacks say; every rank's innermost frame for level 0).
    fn select_frame(&mut self, level: usize) -> Vec<Request> {
        let Some((frames, same)) = self.focus_stack() else {
            return Vec::new();
        };
        if level >= frames.len() {
            return Vec::new();
        }
        self.frame = level;
        self.data.frame = (level > 0).then_some((level, same));
        // The source at the frame's line (the focus rank's own place for frame 0).
        self.frame_at = if level > 0 {
            self.frame_place(&frames[level])
        } else {
            None
        };
        match &self.frame_at {
            Some((path, _)) => {
                let path = path.clone();
                self.show_file(&path);
            }
            None => {
                if let Some(path) = self.focus_place().and_then(|p| p.path.clone()) {
                    self.show_file(&path);
                }
            }
        }
        let asked = self.asked();
        self.data.frame_requests(&asked)
    }

    /// When the current line is new and out of sight (or at an edge): where the source pane
    /// is to be scrolled (its top: a third of the pane, at most ten lines, above the line),
    /// kept as where it is.
    pub fn follow_source(&mut self) -> Option<f32> {
        let line = self.current_line()?;
        let at = (self.shown.clone()?, line);
        if self.source_followed.as_ref() == Some(&at) {
            return None;
        }
        self.source_followed = Some(at);
        let s = self.scroll_of(SOURCE_PANE);
        let y = (line - 1) as f32 * lines::LINE_H;
        // In sight with two lines' room on each side: left where it is.
        let room = 2.0 * lines::LINE_H;
        if y >= s.from_anchor + room.min(y) && y + lines::LINE_H + room <= s.from_anchor + s.height
        {
            return None;
        }
        let top = (y - (s.height / 3.0).min(10.0 * lines::LINE_H))
            .max(0.0)
            .floor();
        self.scrolls.insert(
            SOURCE_PANE,
            lines::Scroll {
                from_anchor: top,
                ..s
            },
        );
        Some(top)
    }

    /// Where the pane `id` is scrolled.
    pub fn scroll_of(&self, id: &str) -> lines::Scroll {
        self.scrolls.get(id).copied().unwrap_or_default()
    }

    /// Shows a file (read once).
    pub fn show_file(&mut self, path: &str) {
        if !self.sources.contains_key(path) {
            let text: Result<Vec<String>, String> = std::fs::read_to_string(path)
                .map(|t| t.lines().map(expand_tabs).collect())
                .map_err(|e| format!("{path}: {e}"));
            // Whether each line starts inside a comment (the pane colours only the lines in
            // sight, from the state at the first of them).
            if let Ok(lines) = &text {
                let lang = highlight::lang_of(path);
                let mut in_comment = false;
                let starts = lines
                    .iter()
                    .map(|l| {
                        let at = in_comment;
                        let _ = highlight::spans(lang, l, &mut in_comment);
                        at
                    })
                    .collect();
                self.comment_starts.insert(path.to_string(), starts);
            }
            self.sources.insert(path.to_string(), text);
        }
        self.shown = Some(path.to_string());
    }

    /// The user's intent; returns the requests for the session.
    pub fn intent(&mut self, m: Message) -> Vec<Request> {
        let all = self.all();
        let cmd = |c: &str| vec![Request::Command(format!("[{all}] {c}"))];
        // The toolbar acts on the selection (all ranks when there is none).
        let target = self.target();
        let act = |c: &str| vec![Request::Command(format!("[{target}] {c}"))];
        match m {
            Message::Batch(u) => self.apply(u),
            Message::Focus(r) => {
                if r < self.size {
                    self.focus = r;
                }
                self.follow_focus()
            }
            Message::Frame(level) => self.select_frame(level),
            Message::StackNode { ranks, depth } => {
                let Some(rank) = ranks.first() else {
                    return Vec::new();
                };
                self.sel.set = (ranks.len() < u64::from(self.size)).then_some(ranks);
                let mut r = self.intent(Message::Focus(rank));
                if let Some((frames, _)) = self.focus_stack()
                    && self.focus == rank
                    && let Some(level) = frames.len().checked_sub(depth + 1)
                {
                    r.extend(self.select_frame(level));
                }
                r
            }
            Message::ToggleBreakpoint(line) => {
                let Some(path) = self.shown.clone() else {
                    return Vec::new();
                };
                let key = (path.clone(), line);
                if let Some(ranks) = self.partial.remove(&key) {
                    self.breakpoints.remove(&key);
                    vec![Request::Command(format!("[{ranks}] clear {path}:{line}"))]
                } else if self.breakpoints.remove(&key) {
                    cmd(&format!("clear {path}:{line}"))
                } else {
                    self.breakpoints.insert(key);
                    cmd(&format!("break {path}:{line}"))
                }
            }
            Message::BreakpointHere => match self.current_line() {
                Some(l) => self.intent(Message::ToggleBreakpoint(l)),
                None => Vec::new(),
            },
            Message::Continue => act("continue"),
            Message::Next => act("next"),
            Message::Step => act("step"),
            Message::Finish => act("finish"),
            Message::Pause => act("interrupt"),
            Message::Groups(g) => self.group_intent(g),
            Message::Output(o) => self.output_intent(o),
            // The application's (see `App::update`).
            Message::Start(_) => Vec::new(),
            Message::RefreshStacks => vec![Request::Stacks],
            Message::Scrolled(id, s) => {
                if id == values::COMPARE_PANE {
                    self.data.compare_scroll = s;
                } else {
                    self.scrolls.insert(id, s);
                }
                Vec::new()
            }
            Message::ConsoleInput(s) => {
                self.input = s;
                Vec::new()
            }
            Message::ConsoleSubmit => {
                let line = std::mem::take(&mut self.input);
                if line.trim().is_empty() {
                    return Vec::new();
                }
                self.console.push(format!("(cohort) {line}"));
                vec![Request::Command(line)]
            }
            Message::Key(keyboard::Event::KeyPressed { key, modifiers, .. }) => {
                use keyboard::key::Named;
                let m = match key {
                    keyboard::Key::Named(Named::F5) => Message::Continue,
                    keyboard::Key::Named(Named::F9) => Message::BreakpointHere,
                    keyboard::Key::Named(Named::F10) => Message::Next,
                    keyboard::Key::Named(Named::F11) if modifiers.shift() => Message::Finish,
                    keyboard::Key::Named(Named::F11) => Message::Step,
                    _ => return Vec::new(),
                };
                self.intent(m)
            }
            Message::Key(_) => Vec::new(),
            Message::Data(d) => {
                let asked = self.asked();
                self.data.intent(d, &asked)
            }
        }
    }
}

/// A line with its tabs as spaces (to 8 columns, as a terminal shows them; fonts draw no
/// tab).
pub fn expand_tabs(l: &str) -> String {
    let mut s = String::with_capacity(l.len());
    for c in l.chars() {
        if c == '\t' {
            let n = 8 - s.chars().count() % 8;
            s.extend(std::iter::repeat_n(' ', n));
        } else {
            s.push(c);
        }
    }
    s
}

/// The margin of a source line: a dot where a breakpoint is, then the line number.
pub fn margin_label(line: u32, breakpoint: bool) -> String {
    format!("{}{line:>5}", if breakpoint { "●" } else { " " })
}

/// A line of the focus rank's stack: `▶ #1  main at ranks.c:24` (`▶` the frame shown).
pub fn frame_label(level: usize, frame: &str, shown: bool) -> String {
    format!("{} #{level:<2} {frame}", if shown { "▶" } else { " " })
}

/// The margin of a source line with a breakpoint that only some ranks have: a half disc.
pub fn margin_label_partial(line: u32) -> String {
    format!("◐{line:>5}")
}

/// The margin of a source line with a breakpoint that is disabled: a ring.
pub fn margin_label_disabled(line: u32) -> String {
    format!("○{line:>5}")
}

/// The application: the model and the session's link.
pub struct App {
    pub model: Model,
    link: Option<Link>,
    grid: canvas::Cache,
    /// The start form, until a session starts from it.
    pub start: Option<start::StartForm>,
    /// Sessions started (the subscription of each one's updates is its own).
    sessions: u64,
}

impl App {
    pub fn new(link: Option<Link>) -> Self {
        App {
            model: Model::new(),
            link,
            grid: canvas::Cache::new(),
            start: None,
            sessions: 0,
        }
    }

    /// The window with the start form (no session yet); the recent sessions kept in
    /// `recent` (see [`start::recent_file`]).
    pub fn with_start_form(recent: Option<std::path::PathBuf>) -> Self {
        App {
            start: Some(start::StartForm::new(recent)),
            ..App::new(None)
        }
    }

    /// Ends the session (the window closes after).
    pub fn quit(&self) {
        if let Some(l) = &self.link {
            l.send(Request::Quit);
        }
    }

    pub fn update(&mut self, m: Message) -> Task<Message> {
        if let Message::Start(sm) = m {
            if let Some(s) = self.start.as_mut().and_then(|f| f.update(sm)) {
                self.start = None;
                self.sessions += 1;
                self.link = Some(Link::start(s));
            }
            return Task::none();
        }
        let redraw = matches!(m, Message::Batch(_) | Message::Focus(_));
        for r in self.model.intent(m) {
            if let Some(l) = &self.link {
                l.send(r);
            }
        }
        if redraw {
            self.grid.clear();
        }
        if self.model.ended {
            // `quit` in the console, or a signal: the window closes with its session.
            return iced::exit();
        }
        match self.model.follow_source() {
            Some(top) => iced::widget::operation::scroll_to(
                SOURCE_PANE,
                iced::widget::operation::AbsoluteOffset {
                    x: None,
                    y: Some(top),
                },
            ),
            None => Task::none(),
        }
    }

    pub fn subscription(&self) -> Subscription<Message> {
        Subscription::batch([
            Subscription::run_with(self.sessions, |_| link::updates()).map(Message::Batch),
            keyboard::listen().map(Message::Key),
        ])
    }

    pub fn title(&self) -> String {
        "Cohort".to_string()
    }

    pub fn view(&self) -> Element<'_, Message> {
        if let Some(f) = &self.start {
            return f.view().map(Message::Start);
        }
        let m = &self.model;
        let tool = |label: &'static str, msg: Message| button(text(label).size(14)).on_press(msg);
        let toolbar = row![
            tool("Continue (F5)", Message::Continue),
            tool("Next (F10)", Message::Next),
            tool("Step (F11)", Message::Step),
            tool("Finish (Shift+F11)", Message::Finish),
            tool("Pause", Message::Pause),
            tool("Stacks", Message::RefreshStacks),
            text(m.target_label()).size(14),
            text(&m.status).size(14),
        ]
        .spacing(8)
        .align_y(iced::Center);

        let grid = canvas(grid::Grid {
            size: m.size,
            states: &m.states,
            focus: m.focus,
            cache: &self.grid,
            model: m,
        })
        .width(Fill)
        .height(Length::Fixed(140.0));
        let legend = Column::with_children(
            m.groups()
                .into_iter()
                .map(|g| text(g).size(13).font(Font::MONOSPACE).into()),
        );
        let ranks = column![
            text("Ranks").size(16),
            container(grid).id(GRID_ID),
            text(m.describe(m.focus)).size(13),
            legend
        ]
        .spacing(4);

        let stacks = column![
            text("Parallel stacks").size(16),
            scrollable(self.stacks_view())
                .id("stacks-pane")
                .height(Fill)
                .width(Fill)
        ]
        .spacing(4);

        let left = column![ranks, stacks]
            .spacing(10)
            .width(FillPortion(2))
            .height(Fill);

        let source = column![
            text(m.shown.as_deref().unwrap_or("Source")).size(16),
            self.source_view()
        ]
        .spacing(4)
        .width(FillPortion(3))
        .height(Fill);
        // The array viewer, while open, in the source's place.
        let source: Element<'_, Message> = if m.data.array.open {
            container(m.data.array.view())
                .width(FillPortion(3))
                .height(Fill)
                .into()
        } else {
            source.into()
        };

        let locals_title = match &m.locals {
            Some((r, _)) if m.frame > 0 => format!("Locals of rank {r}, frame {}", m.frame),
            Some((r, _)) => format!("Locals of rank {r}"),
            None => "Locals".to_string(),
        };
        let locals = column![
            text(locals_title.clone()).size(16),
            scrollable(
                text(m.locals.as_ref().map_or("", |(_, t)| t.as_str()))
                    .font(Font::MONOSPACE)
                    .size(13)
            )
            .height(Fill)
            .width(Fill)
        ]
        .spacing(4)
        .width(FillPortion(2));
        // The typed trees and watches ([`values`]) once the agents have answered.
        let locals = if m.data.locals.is_some() || !m.data.locals_error.is_empty() {
            column![
                text(locals_title).size(16),
                self.frames_view(),
                m.data.view()
            ]
            .spacing(4)
            .width(FillPortion(2))
        } else {
            locals
        };

        let console = column![
            text("Console").size(16),
            lines::text_pane(
                CONSOLE_PANE,
                m.console.len(),
                &m.scroll_of(CONSOLE_PANE),
                true,
                |i| m.console[i].clone(),
                |v| Message::Scrolled(CONSOLE_PANE, lines::Scroll::of(v)),
            ),
            text_input("a command for the ranks ([0-3] print x)", &m.input)
                .id(CONSOLE_ID)
                .on_input(Message::ConsoleInput)
                .on_submit(Message::ConsoleSubmit)
                .font(Font::MONOSPACE)
                .size(13),
        ]
        .spacing(4)
        .width(FillPortion(3));

        column![
            toolbar,
            m.groups_bar(),
            row![left, source].spacing(12).height(FillPortion(3)),
            row![
                locals,
                console,
                container(m.output_view()).width(FillPortion(3))
            ]
            .spacing(12)
            .height(FillPortion(2)),
        ]
        .spacing(10)
        .padding(10)
        .into()
    }

    fn source_view(&self) -> Element<'_, Message> {
        let m = &self.model;
        let Some(path) = &m.shown else {
            return text("(no source: the focus rank has not stopped in a file with lines)")
                .size(13)
                .into();
        };
        let src = match m.sources.get(path) {
            Some(Ok(l)) => l,
            Some(Err(e)) => return text(e).size(13).into(),
            None => return text("").into(),
        };
        let current = m.current_line();
        // The ranks at each line of the file (every group's current line, with its count).
        let marks = groups::lines_in(&m.states, path);
        let lang = highlight::lang_of(path);
        let total = src.len();
        // Only the lines in sight are built ([`lines`]), coloured from the comment state at
        // the first of them.
        let build = move |r: std::ops::Range<usize>| -> Element<'_, Message> {
            let mut in_comment = m
                .comment_starts
                .get(path)
                .and_then(|c| c.get(r.start))
                .copied()
                .unwrap_or(false);
            let rows = src[r.clone()].iter().zip(r.start..).map(|(l, i)| {
                let n = i as u32 + 1;
                let bp = m.breakpoints.contains(&(path.clone(), n));
                let off = bp && m.disabled.contains(&(path.clone(), n));
                let margin = button(
                    lines::mono(if off {
                        margin_label_disabled(n)
                    } else if bp && m.partial.contains_key(&(path.clone(), n)) {
                        margin_label_partial(n)
                    } else {
                        margin_label(n, bp)
                    })
                    .color(if bp {
                        Color::from_rgb8(0xd8, 0x34, 0x34)
                    } else {
                        Color::from_rgb8(0x80, 0x80, 0x88)
                    }),
                )
                .padding(0)
                .style(button::text)
                .on_press(Message::ToggleBreakpoint(n));
                let here = current == Some(n);
                let at = marks.iter().find(|(x, _)| *x == n).map(|(_, r)| r);
                let body = highlight::line_view(lang, l, &mut in_comment, here, at);
                let r = row![margin, body].spacing(6);
                let c = container(r)
                    .width(Fill)
                    .height(Length::Fixed(lines::LINE_H));
                if here || at.is_some() {
                    let alpha = if here { 0.35 } else { 0.15 };
                    c.style(move |_| container::Style {
                        background: Some(Color::from_rgba8(0x3a, 0x7b, 0xd5, alpha).into()),
                        ..Default::default()
                    })
                    .into()
                } else {
                    c.into()
                }
            });
            Column::with_children(rows).into()
        };
        lines::pane(
            SOURCE_PANE,
            total,
            &m.scroll_of(SOURCE_PANE),
            false,
            false,
            build,
            |v| Message::Scrolled(SOURCE_PANE, lines::Scroll::of(v)),
        )
    }

    /// The focus rank's stack, a frame a line (`#1  main at ranks.c:24`, the shown one
    /// marked): a click shows its locals.
    fn frames_view(&self) -> Element<'_, Message> {
        let m = &self.model;
        let Some((frames, _)) = m.focus_stack() else {
            return Column::new().into();
        };
        if frames.len() < 2 {
            return Column::new().into();
        }
        Column::with_children(frames.into_iter().enumerate().map(|(i, f)| {
            let label = frame_label(i, &f, i == m.frame);
            button(text(label).font(Font::MONOSPACE).size(12))
                .padding(0)
                .style(button::text)
                .on_press(Message::Frame(i))
                .into()
        }))
        .into()
    }

    fn stacks_view(&self) -> Element<'_, Message> {
        let Some(t) = &self.model.stacks else {
            return text("").into();
        };
        let mut items: Vec<Element<'_, Message>> = Vec::new();
        fn walk<'a>(t: &StackTree, depth: usize, out: &mut Vec<Element<'a, Message>>) {
            for c in &t.children {
                let ranks = c.ranks();
                let label = format!(
                    "{:indent$}{}  [{}] ({})",
                    "",
                    c.frame.render(),
                    ranks,
                    ranks.len(),
                    indent = depth * 2
                );
                let mut b = button(text(label).font(Font::MONOSPACE).size(12))
                    .padding(0)
                    .style(button::text);
                if !ranks.is_empty() {
                    b = b.on_press(Message::StackNode {
                        ranks: ranks.clone(),
                        depth,
                    });
                }
                out.push(b.into());
                walk(c, depth + 1, out);
            }
        }
        walk(t, 0, &mut items);
        Column::with_children(items).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_wire::StopReason;

    /// A click on the margin of a breakpoint that only some ranks have clears it on those
    /// ranks (every rank was told, and the others said they had none).
    #[test]
    fn a_partial_breakpoint_is_cleared_on_its_ranks() {
        let mut m = Model::new();
        m.size = 4;
        m.shown = Some("/src/t.c".into());
        m.breakpoints.insert(("/src/t.c".into(), 10));
        m.partial
            .insert(("/src/t.c".into(), 10), RankSet::single(1));
        assert_eq!(
            m.intent(Message::ToggleBreakpoint(10)),
            vec![Request::Command("[1] clear /src/t.c:10".into())]
        );
        assert!(m.breakpoints.is_empty() && m.partial.is_empty());
        m.breakpoints.insert(("/src/t.c".into(), 12));
        assert_eq!(
            m.intent(Message::ToggleBreakpoint(12)),
            vec![Request::Command("[0-3] clear /src/t.c:12".into())]
        );
    }

    /// The source pane is brought to the focus rank's line when it is new and out of sight.
    #[test]
    fn the_source_follows_the_current_line() {
        let mut m = Model::new();
        m.size = 2;
        m.shown = Some("/src/t.c".into());
        m.scrolls.insert(
            SOURCE_PANE,
            lines::Scroll {
                from_anchor: 0.0,
                height: 170.0,
            },
        );
        m.states
            .set_ranks(&RankSet::all(2), stopped_at("/src/t.c", 5));
        // In sight: left where it is.
        assert_eq!(m.follow_source(), None);
        m.states
            .set_ranks(&RankSet::all(2), stopped_at("/src/t.c", 1000));
        // Line 1000 at 16,983 px, a third of the pane (56 px) below the top.
        assert_eq!(m.follow_source(), Some(16_926.0));
        assert_eq!(m.scroll_of(SOURCE_PANE).from_anchor, 16_926.0);
        // Once: the user may scroll away from it.
        assert_eq!(m.follow_source(), None);
        m.states
            .set_ranks(&RankSet::all(2), stopped_at("/src/t.c", 1003));
        assert_eq!(m.follow_source(), None);
    }

    fn stopped_at(path: &str, line: u32) -> RankState {
        RankState::Stopped {
            reason: StopReason::Other,
            place: Place {
                function: Some("main".into()),
                file: Some("t.c".into()),
                path: Some(path.into()),
                line: Some(line),
                pc: 0x1000,
            },
        }
    }

    fn key(named: keyboard::key::Named, shift: bool) -> Message {
        Message::Key(keyboard::Event::KeyPressed {
            key: keyboard::Key::Named(named),
            modified_key: keyboard::Key::Named(named),
            physical_key: keyboard::key::Physical::Unidentified(
                keyboard::key::NativeCode::Unidentified,
            ),
            location: keyboard::Location::Standard,
            modifiers: if shift {
                keyboard::Modifiers::SHIFT
            } else {
                keyboard::Modifiers::empty()
            },
            text: None,
            repeat: false,
        })
    }

    /// A model of 4 ranks at line 5 of a file that does not exist (the source view says so).
    fn model() -> Model {
        let mut m = Model::new();
        let mut s = States::default();
        s.set_ranks(&RankSet::all(4), stopped_at("/nonexistent/t.c", 5));
        let asks = m.apply(vec![
            Update::Started { size: 4 },
            Update::Session(Event::States(s)),
        ]);
        assert_eq!(asks[..2], [Request::Locals(0), Request::Stacks]);
        // Then every rank's typed locals.
        assert_eq!(
            asks[2..],
            [Request::Values {
                key: "locals".into(),
                line: ":locals".into(),
                ranks: RankSet::all(4)
            }]
        );
        m
    }

    #[test]
    fn debugger_keys_are_commands_for_every_rank() {
        use keyboard::key::Named;
        let mut m = model();
        let cmd = |s: &str| vec![Request::Command(s.to_string())];
        assert_eq!(m.intent(key(Named::F5, false)), cmd("[0-3] continue"));
        assert_eq!(m.intent(key(Named::F10, false)), cmd("[0-3] next"));
        assert_eq!(m.intent(key(Named::F11, false)), cmd("[0-3] step"));
        assert_eq!(m.intent(key(Named::F11, true)), cmd("[0-3] finish"));
        // F9 toggles a breakpoint at the focus rank's line.
        assert_eq!(
            m.intent(key(Named::F9, false)),
            cmd("[0-3] break /nonexistent/t.c:5")
        );
        assert_eq!(
            m.intent(key(Named::F9, false)),
            cmd("[0-3] clear /nonexistent/t.c:5")
        );
        assert!(m.intent(key(Named::F2, false)).is_empty());
    }

    #[test]
    fn focus_asks_for_the_ranks_locals_once() {
        let mut m = model();
        assert_eq!(
            m.intent(Message::Focus(2))[..2],
            [Request::Locals(2), Request::Stacks]
        );
        assert!(m.intent(Message::Focus(2)).is_empty());
        // Out of the job: ignored.
        assert!(m.intent(Message::Focus(9)).is_empty());
        assert_eq!(m.focus, 2);
        assert_eq!(m.describe(2), "rank 2: stopped in main at t.c:5");
        assert!(matches!(m.sources.get("/nonexistent/t.c"), Some(Err(_))));
    }

    #[test]
    fn the_grid_has_a_cell_for_every_rank() {
        use iced::{Point, Size};
        let size = Size::new(400.0, 140.0);
        for n in [1, 4, 7, 1024, 10_000] {
            let (cols, side) = grid::layout(n, size);
            let rows = n.div_ceil(cols);
            assert!(rows as f32 * side <= size.height + 0.01, "{n}");
            assert!(cols as f32 * side <= size.width + 0.01, "{n}");
            let last = n - 1;
            let p = Point::new(
                (last % cols) as f32 * side + side / 2.0,
                (last / cols) as f32 * side + side / 2.0,
            );
            assert_eq!(grid::rank_at(n, size, p), Some(last), "{n}");
        }
        assert_eq!(grid::rank_at(4, size, Point::new(-1.0, 3.0)), None);
    }

    #[test]
    fn a_range_of_ranks_is_three_rectangles_at_most() {
        assert_eq!(grid::run_rectangles(2, 3, 10), vec![(2, 0, 4, 1)]);
        assert_eq!(
            grid::run_rectangles(7, 12, 10),
            vec![(7, 0, 10, 1), (0, 1, 3, 2)]
        );
        assert_eq!(
            grid::run_rectangles(7, 35, 10),
            vec![(7, 0, 10, 1), (0, 1, 10, 3), (0, 3, 6, 4)]
        );
    }

    #[test]
    fn tabs_expand_to_eight_columns() {
        assert_eq!(expand_tabs("24\tx"), "24      x");
        assert_eq!(expand_tabs("\ty"), "        y");
    }
}
