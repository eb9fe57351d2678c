//! A relay on loopback between a real `cohort-agentd` and its parent (a root node in this test
//! process) that forges, replays, reorders and cuts frames. Nothing of it is executed: the
//! commands are `set args $(id > FILE)` and `run`, and FILE never appears; the connection ends
//! and the agent's ranks are reported lost with the reason.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod common;

use cohort_agentd::node::Msg;
use cohort_wire::{Down, Payload, RankSet, Secret, Stream, Up};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// What the relay does with each frame after the handshake, per direction: the bytes to pass
/// on, and whether to close that direction after them.
type Tamper = Box<dyn FnMut(Vec<u8>) -> (Vec<u8>, bool) + Send>;

fn pass() -> Tamper {
    Box::new(|f| (f, false))
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

async fn read_frame<R: tokio::io::AsyncRead + Unpin>(s: &mut R) -> Option<Vec<u8>> {
    let mut head = [0u8; 4];
    s.read_exact(&mut head).await.ok()?;
    let mut body = vec![0u8; u32::from_be_bytes(head) as usize];
    s.read_exact(&mut body).await.ok()?;
    let mut f = head.to_vec();
    f.extend_from_slice(&body);
    Some(f)
}

/// Copies frames from `r` to `w`: the two handshake frames as they are, then each through
/// `tamper`.
async fn pump<R, W>(mut r: R, mut w: W, mut tamper: Tamper)
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let mut n = 0;
    while let Some(f) = read_frame(&mut r).await {
        n += 1;
        let (b, close) = if n <= 2 { (f, false) } else { tamper(f) };
        if w.write_all(&b).await.is_err() || close {
            let _ = w.shutdown().await;
            return;
        }
    }
    let _ = w.shutdown().await;
}

/// The relay: accepts the agent on `listen`, connects it to `parent`.
async fn relay(listen: TcpListener, parent: std::net::SocketAddr, down: Tamper, up: Tamper) {
    let Ok((agent, _)) = listen.accept().await else {
        return;
    };
    let Ok(root) = TcpStream::connect(parent).await else {
        return;
    };
    let (ar, aw) = agent.into_split();
    let (rr, rw) = root.into_split();
    tokio::join!(pump(rr, aw, down), pump(ar, rw, up));
}

struct Setup {
    tx: UnboundedSender<Msg>,
    up: UnboundedReceiver<Up>,
    agent: tokio::process::Child,
    dir: PathBuf,
}

async fn setup(name: &str, down: Tamper, up: Tamper) -> Setup {
    let prog = cohort_fixtures::program("ranks");
    let secret = Secret::generate();
    let dir = std::env::temp_dir().join(format!("cohort-relay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    let (addr, tx, up_rx) = common::root(&secret, 1).await;
    let relay_l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay_addr = relay_l.local_addr().unwrap();
    tokio::spawn(relay(relay_l, addr, down, up));

    let mut agent = tokio::process::Command::new(env!("CARGO_BIN_EXE_cohort-agentd"))
        .args(["--index", "0", "--agents", "1", "--host-base", "127.1.0.1"])
        .arg("--port")
        .arg(relay_addr.port().to_string())
        .arg("--root")
        .arg(relay_addr.to_string())
        .arg("--secret-stdin")
        .args(["--size", "2", "--ranks", "0-1", "--"])
        .arg(&prog)
        .stdin(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut w = agent.stdin.take().unwrap();
    w.write_all(format!("{}\n", secret.to_hex()).as_bytes())
        .await
        .unwrap();
    drop(w);
    let mut s = Setup {
        tx,
        up: up_rx,
        agent,
        dir,
    };
    match next(&mut s.up).await {
        Up::Register { ranks, .. } => assert_eq!(ranks, RankSet::range(0, 1)),
        other => panic!("expected the registration, got {other:?}"),
    }
    s
}

impl Setup {
    fn command(&self, id: u64, line: &str) {
        self.tx
            .send(Msg::Down(Down::Command {
                id,
                ranks: RankSet::all(2),
                line: line.into(),
                timeout_ms: 20_000,
                history: 0,
            }))
            .unwrap();
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Waits for the loss of both ranks; returns the reasons given.
    async fn lost(&mut self) -> String {
        let mut reasons = String::new();
        let mut lost = RankSet::new();
        while lost != RankSet::range(0, 1) {
            match next(&mut self.up).await {
                Up::Lost { ranks, reason } => {
                    lost = lost.union(&ranks);
                    reasons.push_str(&reason);
                    reasons.push('\n');
                }
                Up::Reply { id, merged, .. } => {
                    panic!("reply {id} to a tampered command: {:?}", merged.render())
                }
                _ => {}
            }
        }
        reasons
    }

    async fn end(mut self) {
        let _ = self.tx.send(Msg::Down(Down::Shutdown { detach: false }));
        let st = tokio::time::timeout(Duration::from_secs(20), self.agent.wait())
            .await
            .expect("the agent ends")
            .unwrap();
        // It ended on its own (the connection failed), not by a signal.
        assert!(st.code().is_some(), "{st:?}");
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn set_args(f: &Path) -> String {
    format!("set args $(id > {})", f.display())
}

fn command_frame(id: u64, line: &str) -> Vec<u8> {
    frame(
        &postcard::to_stdvec(&Down::Command {
            id,
            ranks: RankSet::all(2),
            line: line.into(),
            timeout_ms: 20_000,
            history: 0,
        })
        .unwrap(),
    )
}

async fn next(rx: &mut UnboundedReceiver<Up>) -> Up {
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("an answer in time")
        .expect("the root is running")
}

/// Without tampering, the two commands do run the shell's `id`: what the other tests forge
/// would be executed if it got through.
#[tokio::test(flavor = "current_thread")]
async fn untampered_commands_run() {
    let mut s = setup("control", pass(), pass()).await;
    let f = s.file("F");
    s.command(1, &set_args(&f));
    s.command(2, "run");
    let mut replies = 0;
    while replies < 2 {
        if let Up::Reply { .. } = next(&mut s.up).await {
            replies += 1;
        }
    }
    assert!(f.exists(), "the legitimate command ran");
    s.end().await;
}

#[tokio::test(flavor = "current_thread")]
async fn injected_commands_are_not_executed() {
    let dir = std::env::temp_dir().join(format!("cohort-relay-{}-inject", std::process::id()));
    let f = dir.join("F");
    let line = set_args(&f);
    let mut first = true;
    // Before the first real frame from the parent, the relay slips in the two commands as
    // the protocol's frames, unsealed.
    let down: Tamper = Box::new(move |real| {
        if std::mem::take(&mut first) {
            let mut b = command_frame(100, &line);
            b.extend(command_frame(101, "run"));
            b.extend(real);
            (b, false)
        } else {
            (real, false)
        }
    });
    let mut s = setup("inject", down, pass()).await;
    s.command(1, "print 1");
    let why = s.lost().await;
    assert!(why.contains("integrity"), "{why}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!f.exists(), "an injected command ran");
    s.end().await;
}

#[tokio::test(flavor = "current_thread")]
async fn reordered_commands_are_not_executed() {
    let mut held: Option<Vec<u8>> = None;
    // `set args …` is held back and sent after `run`.
    let down: Tamper = Box::new(move |real| match held.take() {
        None => {
            held = Some(real);
            (Vec::new(), false)
        }
        Some(h) => ([real, h].concat(), false),
    });
    let mut s = setup("reorder", down, pass()).await;
    let f = s.file("F");
    s.command(1, &set_args(&f));
    s.command(2, "run");
    let why = s.lost().await;
    assert!(why.contains("integrity"), "{why}");
    assert!(!f.exists(), "a reordered command ran");
    s.end().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_replayed_command_is_not_executed_twice() {
    // The command's frame is sent twice.
    let down: Tamper = Box::new(move |real| ([real.clone(), real].concat(), false));
    let mut s = setup("replay", down, pass()).await;
    s.command(1, "print 1");
    let mut answered = 0;
    let mut lost = RankSet::new();
    let mut why = String::new();
    while lost != RankSet::range(0, 1) {
        match next(&mut s.up).await {
            Up::Reply { id, merged, .. } => {
                assert_eq!(id, 1);
                assert_eq!(merged.render().0, "[0-1] $1 = 1\n");
                answered += 1;
            }
            Up::Lost { ranks, reason } => {
                lost = lost.union(&ranks);
                why.push_str(&reason);
            }
            _ => {}
        }
    }
    assert!(answered <= 1, "a replayed command was answered");
    assert!(why.contains("integrity"), "{why}");
    s.end().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_truncated_command_is_not_executed() {
    let mut n = 0;
    let down: Tamper = Box::new(move |real| {
        // `set args …` as it is, half of `run`'s frame, then the end of the connection.
        n += 1;
        if n == 1 {
            (real, false)
        } else {
            (real[..real.len() / 2].to_vec(), true)
        }
    });
    let mut s = setup("truncate", down, pass()).await;
    let f = s.file("F");
    s.command(1, &set_args(&f));
    s.command(2, "run");
    let why = s.lost().await;
    assert!(why.contains("connection closed"), "{why}");
    assert!(!f.exists(), "a cut command ran");
    s.end().await;
}

#[tokio::test(flavor = "current_thread")]
async fn forged_output_toward_the_parent_ends_the_connection() {
    let mut n = 0;
    // After the registration, the relay slips in output "from" rank 0, unsealed.
    let up: Tamper = Box::new(move |real| {
        n += 1;
        if n == 1 {
            let forged = Up::Output {
                rank: 0,
                stream: Stream::Stdout,
                data: Payload::new(b"forged\n".to_vec()),
            };
            (
                [real, frame(&postcard::to_stdvec(&forged).unwrap())].concat(),
                false,
            )
        } else {
            (real, false)
        }
    });
    let mut s = setup("forge-up", pass(), up).await;
    let why = s.lost().await;
    assert!(why.contains("integrity"), "{why}");
    s.end().await;
}
