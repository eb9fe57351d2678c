//! Saved sessions (issue 20): when a multi-rank session ends (`quit`, the end of its input,
//! the job's end), its breakpoints, displays and groups are written, as the commands that make
//! them again, to a file of the program's under `$XDG_STATE_HOME/cohort/sessions/`
//! (`~/.local/state/cohort/sessions/`); the next session of the same program runs them before
//! its first prompt, unless `--no-restore`. `-batch` runs neither save nor restore: a script
//! does what it says, every time.
//!
//! The file is text, one item a line, the lines that complete an item indented under it
//! (`save breakpoints`'s commands, see `Debugger::session_state`); an item of some ranks only
//! has their set in front (`[0-1] break ring.c:21`):
//!
//! ```text
//! # cohort session of /home/me/ring
//! break ring.c:21
//!   condition $bpnum i == 3
//!   commands
//!     silent
//!     print i
//!   end
//! break relax
//!   disable $bpnum
//! watch mask if mask > 4
//! watch sum
//!   scope relax
//! display/x mask
//! display sum
//!   scope relax
//! group evens 0,2
//! ```
//!
//! `scope FUNCTION` (not a command) says that a watchpoint or a display names that function's
//! locals: a display comes back for the stops in it, a watchpoint (which needs the function's
//! frame) is said not to. Files of older cohorts lack those lines, nothing else: the format
//! has no version, and a line of no known kind is one `Not restored:` line.

use std::path::{Path, PathBuf};

use cohort_wire::RankSet;

use crate::parallel::Front;

const HEADER: &str = "# cohort session of ";

/// The folder of saved sessions: `$XDG_STATE_HOME/cohort/sessions` (an absolute
/// XDG_STATE_HOME only, as the XDG base directory specification says), else
/// `$HOME/.local/state/cohort/sessions`.
pub fn sessions_dir() -> Option<PathBuf> {
    Some(xdg_dir("XDG_STATE_HOME", ".local/state")?.join("cohort/sessions"))
}

/// An XDG base directory: `$VAR` when it is absolute (as the specification says), else
/// `$HOME/FALLBACK` (`.local/state`, `.local/share`, `.config`).
pub fn xdg_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(fallback))
        })
}

/// The program's canonical path (as given where it cannot be resolved).
fn canonical(program: &Path) -> PathBuf {
    std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf())
}

/// FNV-1a, 64 bits: a name that stays the same from one build of cohort to the next.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The file of `program`'s saved session: its name, and a hash of its canonical path
/// (`ring-3f2a….cmds`; the path itself is the file's first line).
pub fn session_file(dir: &Path, program: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let path = canonical(program);
    let name: String = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    dir.join(format!(
        "{name}-{:016x}.cmds",
        fnv1a(path.as_os_str().as_bytes())
    ))
}

/// An item of a saved session: its ranks (all, when none), its first line and the lines that
/// complete it.
#[derive(Debug, PartialEq, Eq)]
struct Item {
    ranks: Option<String>,
    head: String,
    rest: Vec<String>,
}

/// The items of a saved session's text (that of `program`: a file whose first line names
/// another program has none).
fn parse(text: &str, program: &Path) -> Vec<Item> {
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    if first.strip_prefix(HEADER).map(Path::new) != Some(program) {
        return Vec::new();
    }
    let mut items: Vec<Item> = Vec::new();
    for l in lines {
        if l.trim().is_empty() || l.starts_with('#') {
            continue;
        }
        if l.starts_with(' ') {
            if let Some(it) = items.last_mut() {
                it.rest.push(l.trim().to_string());
            }
            continue;
        }
        let (ranks, head) = match l.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((set, head)) => (Some(set.to_string()), head.trim()),
            None => (None, l.trim()),
        };
        items.push(Item {
            ranks,
            head: head.to_string(),
            rest: Vec::new(),
        });
    }
    items
}

/// The ranks of `set` (as written in a saved session) that this session has.
fn ranks_here(set: Option<&str>, size: u32) -> RankSet {
    let all = RankSet::all(size);
    match set {
        None => all,
        Some(s) => RankSet::parse(s, u32::MAX)
            .map(|s| s.intersection(&all))
            .unwrap_or_default(),
    }
}

/// What an item makes: a breakpoint, a watchpoint, else a display.
#[derive(PartialEq)]
enum Made {
    Breakpoint,
    Watchpoint,
    Display,
}

fn made(head: &str) -> Made {
    match head.split_whitespace().next() {
        Some("watch" | "rwatch" | "awatch") => Made::Watchpoint,
        Some(w) if w.starts_with("display") => Made::Display,
        _ => Made::Breakpoint,
    }
}

fn count(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// Runs the saved session of `program` (if any) through the ordinary command path, silently
/// but for one line that says what was restored, and one for each item that could not be
/// (a breakpoint whose place is gone from the program's source).
pub async fn restore(front: &mut Front, program: &Path) {
    let Some(dir) = sessions_dir() else {
        return;
    };
    let program = canonical(program);
    let Ok(text) = std::fs::read_to_string(session_file(&dir, &program)) else {
        return;
    };
    let (mut bps, mut watches, mut displays, mut groups) = (0, 0, 0, 0);
    for it in parse(&text, &program) {
        let ranks = ranks_here(it.ranks.as_deref(), front.size);
        if ranks.is_empty() {
            continue;
        }
        if let Some(g) = it.head.strip_prefix("group ") {
            // `group NAME SET`: the set's ranks this session has.
            let Some((name, set)) = g.trim().split_once(char::is_whitespace) else {
                continue;
            };
            let set = ranks_here(Some(set.trim()), front.size);
            if set.is_empty() {
                continue;
            }
            let (_, err) = front.groups.command(&format!("{name} {set}"), front.size);
            if err.is_empty() {
                groups += 1;
            } else {
                front.say("", &format!("Not restored: group {name}: {err}"));
            }
            continue;
        }
        // The item runs on each rank as one command (the agent's `:restore`): the lines
        // after the first complete the breakpoint it makes (`$bpnum` its number there).
        let mut lines = vec![it.head.as_str()];
        lines.extend(it.rest.iter().map(String::as_str));
        let a = front
            .ask(ranks, &format!(":restore {}", lines.join("\n")))
            .await;
        let why = a
            .merged
            .groups
            .iter()
            .map(|g| g.err.render())
            .find(|e| !e.trim().is_empty())
            .and_then(|e| e.lines().next().map(str::to_string));
        if !a.merged.failed.is_empty() {
            front.say(
                "",
                &format!("Not restored: {}: {}\n", it.head, why.unwrap_or_default()),
            );
            continue;
        }
        match why {
            // A display whose expression means nothing where the ranks start: kept, shown
            // at the stops where it can be evaluated.
            Some(why) if why.starts_with("pending: ") => front.say(
                "",
                &format!(
                    "Kept {} for the stops where it can be evaluated: {}\n",
                    it.head,
                    &why["pending: ".len()..]
                ),
            ),
            Some(why) => front.say("", &format!("Partly restored: {}: {why}\n", it.head)),
            None => {}
        }
        match made(&it.head) {
            Made::Breakpoint => bps += 1,
            Made::Watchpoint => watches += 1,
            Made::Display => displays += 1,
        }
    }
    let mut what = Vec::new();
    if bps > 0 {
        what.push(count(bps, "breakpoint"));
    }
    if watches > 0 {
        what.push(count(watches, "watchpoint"));
    }
    if displays > 0 {
        what.push(count(displays, "display"));
    }
    if groups > 0 {
        what.push(count(groups, "group"));
    }
    let what = match what.as_slice() {
        [] => return,
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    front.say(
        &format!("Restored {what} from the last session (--no-restore to start clean).\n"),
        "",
    );
}

/// The text of this session to save (None: no rank answered, keep what was saved). Only the
/// ranks that are not running are asked (a running rank's debugger is busy with its
/// `continue` until the rank stops); what they share is saved for every rank.
async fn state_text(front: &mut Front, program: &Path) -> Option<String> {
    use cohort_wire::RankState;
    let idle: RankSet = (0..front.size)
        .filter(|r| {
            matches!(
                front.tracker.states.get(*r),
                Some(
                    RankState::Stopped { .. }
                        | RankState::Exited { .. }
                        | RankState::Killed { .. }
                        | RankState::NotStarted
                )
            )
        })
        .collect();
    if idle.is_empty() {
        return None;
    }
    let a = front.ask(idle, ":session-save").await;
    let answered = a
        .merged
        .groups
        .iter()
        .fold(RankSet::new(), |s, g| s.union(&g.ranks));
    if answered.is_empty() {
        return None;
    }
    // Each rank's items (a line and the indented lines under it), the same item of several
    // ranks once with their set, in the order the ranks made them.
    let mut items: Vec<(String, RankSet)> = Vec::new();
    for g in &a.merged.groups {
        let text = g.out.render();
        let mut blocks: Vec<String> = Vec::new();
        for l in text.lines() {
            match blocks.last_mut() {
                Some(b) if l.starts_with(' ') => {
                    b.push_str(l);
                    b.push('\n');
                }
                _ => blocks.push(format!("{l}\n")),
            }
        }
        for b in blocks {
            match items.iter_mut().find(|(t, _)| *t == b) {
                Some((_, set)) => *set = set.union(&g.ranks),
                None => items.push((b, g.ranks.clone())),
            }
        }
    }
    let mut body = String::new();
    for (block, set) in items {
        if set != answered {
            body.push_str(&format!("[{set}] "));
        }
        body.push_str(&block);
    }
    for (name, set) in front.groups.iter() {
        body.push_str(&format!("group {name} {set}\n"));
    }
    if body.is_empty() {
        return Some(String::new());
    }
    Some(format!("{HEADER}{}\n{body}", program.display()))
}

/// Saves the session's breakpoints, displays and groups for the next session of `program`
/// (nothing to save: the saved session goes). A folder that cannot be written is one warning.
pub async fn save(front: &mut Front, program: &Path) {
    let program = canonical(program);
    let Some(text) = state_text(front, &program).await else {
        return;
    };
    let Some(dir) = sessions_dir() else {
        return;
    };
    let file = session_file(&dir, &program);
    if text.is_empty() {
        let _ = std::fs::remove_file(&file);
        return;
    }
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        // Written aside, then renamed: a session that ends meanwhile finds the old or the new.
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &text)?;
        std::fs::rename(&tmp, &file)
    });
    if let Err(e) = written {
        front.say(
            "",
            &format!(
                "cohort: warning: the session's breakpoints, displays and groups are not saved in {}: {e}\n",
                dir.display()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_of_a_saved_session() {
        let p = Path::new("/home/me/ring");
        let text = "# cohort session of /home/me/ring\nbreak ring.c:21\n  condition $bpnum i == 3\n[0-1] break relax\n  disable $bpnum\ndisplay/x mask\ngroup evens 0,2\n";
        let items = parse(text, p);
        assert_eq!(items.len(), 4);
        assert_eq!(items[0].rest, vec!["condition $bpnum i == 3"]);
        assert_eq!(items[1].ranks.as_deref(), Some("0-1"));
        assert_eq!(items[1].head, "break relax");
        assert_eq!(items[3].head, "group evens 0,2");
        assert!(parse(text, Path::new("/home/me/other")).is_empty());
        assert_eq!(ranks_here(Some("0,2-5"), 3).to_string(), "0,2");
    }

    #[test]
    fn what_an_item_makes() {
        assert!(made("watch x") == Made::Watchpoint);
        assert!(made("awatch -location p->x") == Made::Watchpoint);
        assert!(made("display/x mask") == Made::Display);
        assert!(made("tbreak ring.c:3") == Made::Breakpoint);
        assert!(made("dprintf f,\"%d\\n\", i") == Made::Breakpoint);
        let text = "# cohort session of /p\nbreak f\n  commands\n    silent\n    if i\n      print i\n    end\n  end\nwatch s\n  scope f\n";
        let items = parse(text, Path::new("/p"));
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0].rest,
            vec!["commands", "silent", "if i", "print i", "end", "end"]
        );
        assert_eq!(items[1].rest, vec!["scope f"]);
    }

    #[test]
    fn a_file_per_program() {
        let d = Path::new("/s");
        let a = session_file(d, Path::new("/nonexistent/a/ring"));
        let b = session_file(d, Path::new("/nonexistent/b/ring"));
        assert_ne!(a, b);
        assert!(
            a.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ring-")
        );
    }
}
