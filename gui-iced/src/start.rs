//! The start form, shown when `cohort-gui` has no arguments: a program to launch (its
//! arguments, the number of ranks and of agents, the launcher and Slurm's nodes, tasks per
//! node and time, the commands run once the ranks are at `main`: `-ex`),
//! or a job to attach to (its `mpirun`'s process id); and the recent sessions, kept in a
//! small file (see [`recent_file`]), the last [`RECENT`] of them.

use std::path::{Path, PathBuf};

use cohort_session::parallel::{self, Launcher};
use iced::widget::{Column, button, column, container, radio, row, text, text_input};
use iced::{Element, Fill, Font};

use crate::link::Start;

/// How many recent sessions are kept.
pub const RECENT: usize = 10;

/// The form's text inputs (tests find them by these ids).
pub const PROGRAM_ID: &str = "start-program";
pub const ARGS_ID: &str = "start-args";
pub const RANKS_ID: &str = "start-ranks";
pub const AGENTS_ID: &str = "start-agents";
pub const COMMAND_ID: &str = "start-command";
pub const PID_ID: &str = "start-pid";

/// What the user does in the form.
#[derive(Debug, Clone)]
pub enum StartMsg {
    Program(String),
    Args(String),
    Ranks(String),
    Agents(String),
    /// The initial command being typed; added to the list (Enter, **Add**); removed.
    Command(String),
    AddCommand,
    RemoveCommand(usize),
    Launcher(Launcher),
    Nodes(String),
    TasksPerNode(String),
    Time(String),
    Pid(String),
    Launch,
    Attach,
    /// Start a recent session again (its index in [`StartForm::recent`]).
    Recent(usize),
}

/// The form's state.
#[derive(Debug, Clone)]
pub struct StartForm {
    pub program: String,
    pub args: String,
    pub ranks: String,
    /// The number of agents (`--agents`; empty: `cohort launch`'s own choice).
    pub agents: String,
    /// The commands run once the ranks are at `main` (`-ex`), in order, and the one being
    /// typed (run last, if not added).
    pub commands: Vec<String>,
    pub command: String,
    pub launcher: Launcher,
    pub nodes: String,
    pub tasks_per_node: String,
    pub time: String,
    pub pid: String,
    /// Recent sessions, newest first: the arguments of `cohort-gui` that started them.
    pub recent: Vec<Vec<String>>,
    /// Where they are kept (none: not kept).
    pub recent_path: Option<PathBuf>,
    /// Why the last start was refused.
    pub error: Option<String>,
}

/// The file of recent sessions: `$XDG_DATA_HOME/cohort/gui-recent` (an absolute one), else
/// `~/.local/share/cohort/gui-recent`.
pub fn recent_file() -> Option<PathBuf> {
    Some(cohort_session::saved::xdg_dir("XDG_DATA_HOME", ".local/share")?.join("cohort/gui-recent"))
}

/// The recent sessions in `path`: a line each, its arguments separated by the unit separator
/// (U+001F, which no argument typed in the form holds).
pub fn read_recent(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .filter(|l| !l.is_empty())
                .map(|l| l.split('\u{1f}').map(str::to_string).collect())
                .take(RECENT)
                .collect()
        })
        .unwrap_or_default()
}

/// Puts `argv` first in the recent sessions (once) and keeps the last [`RECENT`].
pub fn remember(recent: &mut Vec<Vec<String>>, argv: &[String]) {
    recent.retain(|r| r != argv);
    recent.insert(0, argv.to_vec());
    recent.truncate(RECENT);
}

fn write_recent(path: &Path, recent: &[Vec<String>]) -> std::io::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let text: String = recent
        .iter()
        .map(|r| format!("{}\n", r.join("\u{1f}")))
        .collect();
    std::fs::write(path, text)
}

/// A session's start from the arguments of `cohort-gui` (`-n 4 -- ./prog`, `attach --mpirun
/// PID`).
pub fn start_of(argv: &[String]) -> anyhow::Result<Start> {
    if argv.first().is_some_and(|a| a == "attach") {
        let (pid, rest) = parallel::parse_attach(&argv[1..])?;
        return Ok(Start::Attach { pid, rest });
    }
    Ok(parallel::parse_launch(argv)?.into())
}

/// The label of a recent session: its arguments as typed.
pub fn label(argv: &[String]) -> String {
    argv.join(" ")
}

impl StartForm {
    /// An empty form (4 ranks, the local launcher) with the recent sessions of `recent_path`.
    pub fn new(recent_path: Option<PathBuf>) -> Self {
        StartForm {
            program: String::new(),
            args: String::new(),
            ranks: "4".into(),
            agents: String::new(),
            commands: Vec::new(),
            command: String::new(),
            launcher: Launcher::Local,
            nodes: String::new(),
            tasks_per_node: String::new(),
            time: String::new(),
            pid: String::new(),
            recent: recent_path.as_deref().map(read_recent).unwrap_or_default(),
            recent_path,
            error: None,
        }
    }

    /// The arguments of `cohort-gui` the form says (launch).
    pub fn launch_argv(&self) -> Vec<String> {
        let mut v = vec!["-n".to_string(), self.ranks.trim().to_string()];
        if !self.agents.trim().is_empty() {
            v.extend(["--agents".to_string(), self.agents.trim().to_string()]);
        }
        let l = match self.launcher {
            Launcher::Local => None,
            Launcher::OpenMpi => Some("openmpi"),
            Launcher::Mpich => Some("mpich"),
            Launcher::Slurm => Some("slurm"),
        };
        if let Some(l) = l {
            v.extend(["--launcher".to_string(), l.to_string()]);
        }
        if self.launcher == Launcher::Slurm {
            for (opt, val) in [
                ("--nodes", &self.nodes),
                ("--ntasks-per-node", &self.tasks_per_node),
                ("--time", &self.time),
            ] {
                if !val.trim().is_empty() {
                    v.extend([opt.to_string(), val.trim().to_string()]);
                }
            }
        }
        let typed = Some(self.command.trim()).filter(|c| !c.is_empty());
        for c in self.commands.iter().map(String::as_str).chain(typed) {
            v.extend(["-ex".to_string(), c.to_string()]);
        }
        v.push("--".into());
        v.push(self.program.trim().to_string());
        v.extend(self.args.split_whitespace().map(str::to_string));
        v
    }

    /// The arguments of `cohort-gui` the form says (attach).
    pub fn attach_argv(&self) -> Vec<String> {
        vec![
            "attach".to_string(),
            "--mpirun".to_string(),
            self.pid.trim().to_string(),
        ]
    }

    /// Takes the user's action; a session to start, when one is asked for and its arguments
    /// are good (kept in the recent sessions).
    pub fn update(&mut self, m: StartMsg) -> Option<Start> {
        let argv = match m {
            StartMsg::Program(s) => return self.set(|f| f.program = s),
            StartMsg::Args(s) => return self.set(|f| f.args = s),
            StartMsg::Ranks(s) => return self.set(|f| f.ranks = s),
            StartMsg::Agents(s) => return self.set(|f| f.agents = s),
            StartMsg::Command(s) => return self.set(|f| f.command = s),
            StartMsg::AddCommand => {
                let c = std::mem::take(&mut self.command);
                if !c.trim().is_empty() {
                    self.commands.push(c.trim().to_string());
                }
                return None;
            }
            StartMsg::RemoveCommand(i) => {
                if i < self.commands.len() {
                    self.commands.remove(i);
                }
                return None;
            }
            StartMsg::Launcher(l) => return self.set(|f| f.launcher = l),
            StartMsg::Nodes(s) => return self.set(|f| f.nodes = s),
            StartMsg::TasksPerNode(s) => return self.set(|f| f.tasks_per_node = s),
            StartMsg::Time(s) => return self.set(|f| f.time = s),
            StartMsg::Pid(s) => return self.set(|f| f.pid = s),
            StartMsg::Launch => {
                if self.program.trim().is_empty() {
                    self.error = Some("no program given".into());
                    return None;
                }
                self.launch_argv()
            }
            StartMsg::Attach => self.attach_argv(),
            StartMsg::Recent(i) => self.recent.get(i)?.clone(),
        };
        match start_of(&argv) {
            Ok(s) => {
                self.remember_started(&argv);
                self.error = None;
                Some(s)
            }
            Err(e) => {
                self.error = Some(format!("{e:#}"));
                None
            }
        }
    }

    /// Puts a session started with `argv` first among the recent ones, in their file too.
    pub fn remember_started(&mut self, argv: &[String]) {
        remember(&mut self.recent, argv);
        if let Some(p) = &self.recent_path
            && let Err(e) = write_recent(p, &self.recent)
        {
            eprintln!(
                "cohort-gui: keeping the recent sessions in {}: {e}",
                p.display()
            );
        }
    }

    fn set(&mut self, f: impl FnOnce(&mut Self)) -> Option<Start> {
        f(self);
        None
    }

    pub fn view(&self) -> Element<'_, StartMsg> {
        let field =
            |label: &'static str, id: &'static str, value: &str, m: fn(String) -> StartMsg| {
                row![
                    text(label).size(14).width(150),
                    text_input("", value)
                        .id(id)
                        .on_input(m)
                        .font(Font::MONOSPACE)
                        .size(14)
                ]
                .spacing(8)
                .align_y(iced::Center)
            };
        let launchers = [
            ("local", Launcher::Local),
            ("Open MPI (mpirun)", Launcher::OpenMpi),
            ("MPICH (mpiexec)", Launcher::Mpich),
            ("Slurm (srun)", Launcher::Slurm),
        ]
        .into_iter()
        .fold(row![text("Launcher").size(14).width(150)], |r, (l, v)| {
            r.push(radio(l, v, Some(self.launcher), StartMsg::Launcher).size(14))
        })
        .spacing(12);
        let mut launch = column![
            text("Launch a job").size(18),
            field("Program", PROGRAM_ID, &self.program, StartMsg::Program),
            field("Arguments", ARGS_ID, &self.args, StartMsg::Args),
            field("Ranks", RANKS_ID, &self.ranks, StartMsg::Ranks),
            field("Agents", AGENTS_ID, &self.agents, StartMsg::Agents),
            launchers,
        ]
        .spacing(8);
        // The initial commands (`-ex`), a line each, then the one being typed.
        for (i, c) in self.commands.iter().enumerate() {
            launch = launch.push(
                row![
                    text(if i == 0 { "Initial commands" } else { "" })
                        .size(14)
                        .width(150),
                    text(c).font(Font::MONOSPACE).size(14),
                    button(text("Remove").size(12))
                        .padding([0, 4])
                        .on_press(StartMsg::RemoveCommand(i)),
                ]
                .spacing(8)
                .align_y(iced::Center),
            );
        }
        launch = launch.push(
            row![
                text(if self.commands.is_empty() {
                    "Initial commands"
                } else {
                    ""
                })
                .size(14)
                .width(150),
                text_input(
                    "a command run once the ranks are at main (-ex)",
                    &self.command
                )
                .id(COMMAND_ID)
                .on_input(StartMsg::Command)
                .on_submit(StartMsg::AddCommand)
                .font(Font::MONOSPACE)
                .size(14),
                button(text("Add").size(14)).on_press(StartMsg::AddCommand),
            ]
            .spacing(8)
            .align_y(iced::Center),
        );
        if self.launcher == Launcher::Slurm {
            launch = launch
                .push(field("Nodes", "start-nodes", &self.nodes, StartMsg::Nodes))
                .push(field(
                    "Tasks per node",
                    "start-tpn",
                    &self.tasks_per_node,
                    StartMsg::TasksPerNode,
                ))
                .push(field(
                    "Time limit",
                    "start-time",
                    &self.time,
                    StartMsg::Time,
                ));
        }
        launch = launch.push(button(text("Launch").size(14)).on_press(StartMsg::Launch));
        let attach = column![
            text("Attach to a job").size(18),
            field("mpirun's pid", PID_ID, &self.pid, StartMsg::Pid),
            button(text("Attach").size(14)).on_press(StartMsg::Attach),
        ]
        .spacing(8);
        let recent = self.recent.iter().enumerate().fold(
            Column::new()
                .push(text("Recent sessions").size(18))
                .spacing(4),
            |c, (i, r)| {
                c.push(
                    button(text(label(r)).font(Font::MONOSPACE).size(13))
                        .style(button::text)
                        .on_press(StartMsg::Recent(i)),
                )
            },
        );
        let mut all = column![launch, attach, recent].spacing(24).max_width(900);
        if let Some(e) = &self.error {
            all = all.push(
                text(format!("cohort: {e}"))
                    .size(14)
                    .color(iced::Color::from_rgb8(0xd8, 0x34, 0x34)),
            );
        }
        container(all).padding(24).width(Fill).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_says_cohort_launchs_arguments() {
        let mut f = StartForm::new(None);
        f.update(StartMsg::Program("./prog".into()));
        f.update(StartMsg::Args("a  b".into()));
        f.update(StartMsg::Ranks("8".into()));
        assert_eq!(f.launch_argv(), ["-n", "8", "--", "./prog", "a", "b"]);
        f.update(StartMsg::Launcher(Launcher::Slurm));
        f.update(StartMsg::Nodes("2".into()));
        f.update(StartMsg::TasksPerNode("4".into()));
        f.update(StartMsg::Time("10:00".into()));
        let argv = f.launch_argv();
        assert_eq!(
            argv,
            [
                "-n",
                "8",
                "--launcher",
                "slurm",
                "--nodes",
                "2",
                "--ntasks-per-node",
                "4",
                "--time",
                "10:00",
                "--",
                "./prog",
                "a",
                "b"
            ]
        );
        let Ok(Start::Launch(o)) = start_of(&argv) else {
            panic!("a launch");
        };
        assert_eq!(
            o.slurm.args(),
            ["--nodes=2", "--ntasks-per-node=4", "--time=10:00"]
        );
        // Agents and initial commands (the one typed last, not added, too).
        f.update(StartMsg::Launcher(Launcher::Local));
        f.update(StartMsg::Agents(" 2 ".into()));
        f.update(StartMsg::Command("break t.c:3".into()));
        f.update(StartMsg::AddCommand);
        f.update(StartMsg::Command("  ".into()));
        f.update(StartMsg::AddCommand);
        f.update(StartMsg::Command("info ranks".into()));
        f.update(StartMsg::AddCommand);
        f.update(StartMsg::Command("continue".into()));
        assert_eq!(f.commands, ["break t.c:3", "info ranks"]);
        f.update(StartMsg::RemoveCommand(1));
        let argv = f.launch_argv();
        assert_eq!(
            argv,
            [
                "-n",
                "8",
                "--agents",
                "2",
                "-ex",
                "break t.c:3",
                "-ex",
                "continue",
                "--",
                "./prog",
                "a",
                "b"
            ]
        );
        let Ok(Start::Launch(o)) = start_of(&argv) else {
            panic!("a launch");
        };
        assert_eq!(o.agents, 2);
        f.update(StartMsg::Agents(String::new()));
        f.update(StartMsg::Command(String::new()));
        f.update(StartMsg::RemoveCommand(0));
        // A bad number of ranks: said, nothing started.
        f.update(StartMsg::Ranks("x".into()));
        assert!(f.update(StartMsg::Launch).is_none());
        assert!(
            f.error
                .as_deref()
                .is_some_and(|e| e.contains("'-n' wants a number"))
        );
        f.update(StartMsg::Pid("123".into()));
        assert_eq!(f.attach_argv(), ["attach", "--mpirun", "123"]);
        assert!(matches!(
            start_of(&f.attach_argv()),
            Ok(Start::Attach { pid: 123, .. })
        ));
    }

    #[test]
    fn recent_sessions_are_kept_newest_first() {
        let dir = std::env::temp_dir().join(format!("cohort-gui-recent-{}", std::process::id()));
        let path = dir.join("recent");
        let _ = std::fs::remove_file(&path);
        let mut f = StartForm::new(Some(path.clone()));
        for i in 0..12 {
            f.update(StartMsg::Program(format!("./p{i}")));
            assert!(f.update(StartMsg::Launch).is_some());
        }
        // Again: moves to the top, no copy.
        f.update(StartMsg::Program("./p5".into()));
        assert!(f.update(StartMsg::Launch).is_some());
        let again = StartForm::new(Some(path.clone()));
        assert_eq!(again.recent.len(), RECENT);
        assert_eq!(label(&again.recent[0]), "-n 4 -- ./p5");
        assert_eq!(label(&again.recent[1]), "-n 4 -- ./p11");
        assert!(
            again
                .recent
                .iter()
                .filter(|r| label(r).ends_with("./p5"))
                .count()
                == 1
        );
        let mut again = again;
        assert!(again.update(StartMsg::Recent(1)).is_some());
        assert_eq!(label(&again.recent[0]), "-n 4 -- ./p11");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
