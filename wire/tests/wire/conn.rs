use std::path::PathBuf;
use std::time::Duration;

use cohort_wire::{
    Conn, Down, HandshakeOpts, MAX_FRAME, Merged, PROTOCOL_VERSION, Payload, RankSet, Secret,
    StackTree, Stream, Up, WireError, handshake_child, handshake_child_with_opts, handshake_parent,
    handshake_parent_with_opts, handshake_parent_with_timeout,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

async fn pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let (c, a) = tokio::join!(TcpStream::connect(addr), l.accept());
    (c.unwrap(), a.unwrap().0)
}

#[tokio::test]
async fn good_pair_round_trips() {
    let secret = Secret::generate();
    let (c, p) = pair().await;
    let (child, parent) = tokio::join!(handshake_child(c, &secret), handshake_parent(p, &secret));
    let (mut child, vc) = child.unwrap();
    let (mut parent, vp) = parent.unwrap();
    assert_eq!((vc, vp), (PROTOCOL_VERSION, PROTOCOL_VERSION));
    assert_eq!(child.version(), PROTOCOL_VERSION);

    let cmd = Down::Command {
        id: 42,
        ranks: RankSet::parse("0-3,8", 16).unwrap(),
        line: "bt".into(),
        timeout_ms: 5000,
        history: 3,
    };
    parent.send(&cmd).await.unwrap();
    assert_eq!(child.recv::<Down>().await.unwrap(), Some(cmd));

    let mut merged = Merged::default();
    merged.add(0, "$1 = 42\n", "");
    merged.add(1, "$1 = 42\n", "");
    let mut stacks = StackTree::default();
    stacks.add(0, &["f".to_owned(), "main".to_owned()]);
    let reply = Up::Reply {
        id: 42,
        merged,
        stacks: Some(stacks),
        timed_out: RankSet::single(3),
        lost: RankSet::single(8),
        states: {
            let mut s = cohort_wire::States::default();
            s.set(2, cohort_wire::RankState::Exited { code: 3 });
            s
        },
        values: {
            let mut v = cohort_wire::Values::default();
            v.add(
                1,
                cohort_wire::TypedValue::Scalar {
                    ty: "int".into(),
                    text: "42".into(),
                    num: Some(cohort_wire::Num(42.0)),
                },
            );
            Some(Box::new(v))
        },
    };
    let text: Vec<u8> = (0..200_000u32)
        .flat_map(|i| format!("step {i}\n").into_bytes())
        .collect();
    let output = Up::Output {
        rank: 2,
        stream: Stream::Stdout,
        data: Payload::new(text.clone()),
    };
    child.send(&reply).await.unwrap();
    child.send(&output).await.unwrap();
    assert_eq!(parent.recv::<Up>().await.unwrap(), Some(reply));
    match parent.recv::<Up>().await.unwrap() {
        Some(Up::Output { data, .. }) => {
            assert!(matches!(data, Payload::Zstd { .. }));
            assert_eq!(data.into_bytes().unwrap(), text);
        }
        other => panic!("{other:?}"),
    }

    // Too large to send: refused before anything is written; the connection goes on.
    let huge = Down::Stdin {
        rank: 0,
        data: vec![7; MAX_FRAME + 1],
    };
    assert!(matches!(
        parent.send(&huge).await,
        Err(WireError::FrameTooLarge { .. })
    ));
    // Just under the limit goes through.
    let big = Down::Stdin {
        rank: 0,
        data: vec![7; MAX_FRAME - 16],
    };
    let (sent, got) = tokio::join!(parent.send(&big), child.recv::<Down>());
    sent.unwrap();
    assert_eq!(got.unwrap(), Some(big));

    // Split: one task reads while another writes.
    let (mut rd, mut wr) = child.split();
    let reader = tokio::spawn(async move {
        let mut seqs = Vec::new();
        while let Some(Down::Ping { seq }) = rd.recv::<Down>().await.unwrap() {
            seqs.push(seq);
        }
        seqs
    });
    let writer = tokio::spawn(async move {
        for seq in 0..100 {
            wr.send(&Up::Pong { seq, busy: false }).await.unwrap();
        }
        wr.close().await.unwrap();
    });
    for seq in 0..100 {
        parent.send(&Down::Ping { seq }).await.unwrap();
        assert_eq!(
            parent.recv::<Up>().await.unwrap(),
            Some(Up::Pong { seq, busy: false })
        );
    }
    // The child's writer closed: a clean end.
    assert_eq!(parent.recv::<Up>().await.unwrap(), None);
    writer.await.unwrap();
    drop(parent);
    assert_eq!(reader.await.unwrap(), (0..100).collect::<Vec<_>>());
}

#[tokio::test]
async fn wrong_secret_rejected_on_both_sides() {
    let (c, p) = pair().await;
    let (one, other) = (Secret::generate(), Secret::generate());
    let (child, parent) = tokio::join!(handshake_child(c, &one), handshake_parent(p, &other));
    assert!(matches!(child, Err(WireError::Auth(_))), "{child:?}");
    assert!(matches!(parent, Err(WireError::Auth(_))), "{parent:?}");
}

#[tokio::test]
async fn version_mismatch_rejected() {
    let secret = Secret::generate();
    let (c, p) = pair().await;
    let future = HandshakeOpts {
        min_version: PROTOCOL_VERSION + 1,
        max_version: PROTOCOL_VERSION + 3,
        ..HandshakeOpts::default()
    };
    let (child, parent) = tokio::join!(
        handshake_child_with_opts(c, &secret, future),
        handshake_parent(p, &secret)
    );
    match child {
        Err(WireError::Version { ours, theirs }) => {
            assert_eq!((ours, theirs), (PROTOCOL_VERSION + 3, PROTOCOL_VERSION))
        }
        other => panic!("{other:?}"),
    }
    match parent {
        Err(WireError::Version { ours, theirs }) => {
            assert_eq!((ours, theirs), (PROTOCOL_VERSION, PROTOCOL_VERSION + 3))
        }
        other => panic!("{other:?}"),
    }

    // Overlapping ranges: the highest common version wins.
    let (c, p) = pair().await;
    let newer = HandshakeOpts {
        min_version: 1,
        max_version: 5,
        ..HandshakeOpts::default()
    };
    let older = HandshakeOpts {
        min_version: 1,
        max_version: 3,
        ..HandshakeOpts::default()
    };
    let (child, parent) = tokio::join!(
        handshake_child_with_opts(c, &secret, newer),
        handshake_parent_with_opts(p, &secret, older)
    );
    assert_eq!(child.unwrap().1, 3);
    assert_eq!(parent.unwrap().1, 3);
}

#[tokio::test]
async fn silent_peer_times_out() {
    let secret = Secret::generate();
    let (c, p) = pair().await;
    let r = handshake_parent_with_timeout(p, &secret, Duration::from_millis(200)).await;
    assert!(matches!(r, Err(WireError::Timeout(_))), "{r:?}");
    drop(c);

    // A peer that hangs up during the handshake.
    let (c, p) = pair().await;
    drop(c);
    let r = handshake_parent(p, &secret).await;
    assert!(
        matches!(r, Err(WireError::Closed) | Err(WireError::Io(_))),
        "{r:?}"
    );
}

/// A small parent: answers each `Up::Pong { seq }` with `Down::Ping { seq }`, and reports how
/// each connection ended.
async fn serve(listener: TcpListener, secret: Secret, done: mpsc::UnboundedSender<WireError>) {
    loop {
        let Ok((s, _)) = listener.accept().await else {
            return;
        };
        let secret = secret.clone();
        let done = done.clone();
        tokio::spawn(async move {
            let r: Result<(), WireError> = async {
                let (mut c, _) = handshake_parent(s, &secret).await?;
                while let Some(m) = c.recv::<Up>().await? {
                    if let Up::Pong { seq, .. } = m {
                        c.send(&Down::Ping { seq }).await?;
                    }
                }
                Err(WireError::Closed)
            }
            .await;
            if let Err(e) = r {
                let _ = done.send(e);
            }
        });
    }
}

async fn ping(c: &mut Conn<TcpStream>, seq: u64) {
    c.send(&Up::Pong { seq, busy: false }).await.unwrap();
    assert_eq!(c.recv::<Down>().await.unwrap(), Some(Down::Ping { seq }));
}

/// Reads until the server hangs up (a reset counts as hanging up).
async fn wait_closed(mut s: TcpStream) {
    let mut buf = [0u8; 256];
    loop {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

#[tokio::test]
async fn bad_peers_close_only_their_connection() {
    let secret = Secret::generate();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, mut ended) = mpsc::unbounded_channel();
    let server = tokio::spawn(serve(listener, secret.clone(), tx));

    let (mut good, _) = handshake_child(TcpStream::connect(addr).await.unwrap(), &secret)
        .await
        .unwrap();
    ping(&mut good, 1).await;

    // Not our protocol at all: "GET " read as a frame length is far over the limit.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    match ended.recv().await.unwrap() {
        WireError::FrameTooLarge { len } => assert_eq!(len, 0x4745_5420),
        e => panic!("{e:?}"),
    }
    wait_closed(s).await;
    ping(&mut good, 2).await;

    // Authenticated, then a frame of garbage.
    let (c, _) = handshake_child(TcpStream::connect(addr).await.unwrap(), &secret)
        .await
        .unwrap();
    let mut s = c.into_inner();
    s.write_all(&[0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0xff])
        .await
        .unwrap();
    let e = ended.recv().await.unwrap();
    assert!(matches!(e, WireError::Integrity(_)), "{e:?}");
    wait_closed(s).await;
    ping(&mut good, 3).await;

    // Authenticated, then an oversized length prefix.
    let (c, _) = handshake_child(TcpStream::connect(addr).await.unwrap(), &secret)
        .await
        .unwrap();
    let mut s = c.into_inner();
    s.write_all(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3])
        .await
        .unwrap();
    match ended.recv().await.unwrap() {
        WireError::FrameTooLarge { len } => assert_eq!(len, u32::MAX as usize),
        e => panic!("{e:?}"),
    }
    wait_closed(s).await;
    ping(&mut good, 4).await;

    // Authenticated, then a truncated frame: 100 bytes announced, 10 sent, then the end.
    let (c, _) = handshake_child(TcpStream::connect(addr).await.unwrap(), &secret)
        .await
        .unwrap();
    let mut s = c.into_inner();
    s.write_all(&[0, 0, 0, 100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        .await
        .unwrap();
    s.shutdown().await.unwrap();
    match ended.recv().await.unwrap() {
        WireError::Truncated { have, want } => assert_eq!((have, want), (14, 104)),
        e => panic!("{e:?}"),
    }
    wait_closed(s).await;
    ping(&mut good, 5).await;

    // Only the header of a frame, then the end.
    let (c, _) = handshake_child(TcpStream::connect(addr).await.unwrap(), &secret)
        .await
        .unwrap();
    let mut s = c.into_inner();
    s.write_all(&[0, 0, 0, 9]).await.unwrap();
    s.shutdown().await.unwrap();
    match ended.recv().await.unwrap() {
        WireError::Truncated { have, want } => assert_eq!((have, want), (4, 13)),
        e => panic!("{e:?}"),
    }
    wait_closed(s).await;
    ping(&mut good, 6).await;

    // The wrong secret.
    let r = handshake_child(TcpStream::connect(addr).await.unwrap(), &Secret::generate()).await;
    assert!(matches!(r, Err(WireError::Auth(_))));
    let e = ended.recv().await.unwrap();
    assert!(matches!(e, WireError::Auth(_)), "{e:?}");
    ping(&mut good, 7).await;

    // A clean hang-up.
    drop(good);
    assert!(matches!(ended.recv().await.unwrap(), WireError::Closed));
    server.abort();
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-wire-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn secret_files() {
    use std::os::unix::fs::PermissionsExt;
    let s = Secret::generate();
    assert_ne!(s, Secret::generate());
    assert_eq!(format!("{s:?}"), "Secret(..)");
    let hex = s.to_hex();
    assert_eq!(hex.len(), 64);
    assert_eq!(Secret::from_hex(&hex).unwrap(), s);
    assert_eq!(Secret::from_hex(&hex.to_uppercase()).unwrap(), s);
    for bad in ["", "abc", &hex[..62], &format!("{hex}00"), &"zz".repeat(32)] {
        assert!(
            matches!(Secret::from_hex(bad), Err(WireError::Secret(_))),
            "{bad}"
        );
    }

    let p = temp_path("secret");
    s.write_new_file(&p).unwrap();
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(Secret::from_file(&p).unwrap(), s);
    // Never overwrites.
    assert!(matches!(
        Secret::generate().write_new_file(&p),
        Err(WireError::Secret(_))
    ));
    assert_eq!(Secret::from_file(&p).unwrap(), s);
    // Group- or other-readable: refused.
    for m in [0o640, 0o604, 0o620] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(m)).unwrap();
        assert!(matches!(Secret::from_file(&p), Err(WireError::Secret(_))));
    }
    // Wrong length.
    let q = temp_path("short");
    std::fs::write(&q, "abcd\n").unwrap();
    std::fs::set_permissions(&q, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(matches!(Secret::from_file(&q), Err(WireError::Secret(_))));
    // Missing; a directory.
    assert!(Secret::from_file(&temp_path("missing")).is_err());
    let d = temp_path("dir");
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert!(matches!(Secret::from_file(&d), Err(WireError::Secret(_))));
    std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Frames after the handshake: sealed, in order, exactly once.

/// A parent and a child whose parent-to-child frames pass through `tamper` (after the
/// handshake's two frames): it gets the frames the parent sent since the last call and
/// returns the bytes to hand the child, and whether to close the connection after them.
/// Child-to-parent frames pass as they are.
async fn tampered_pair(
    secret: &Secret,
    mut tamper: impl FnMut(Vec<Vec<u8>>) -> (Vec<u8>, bool) + Send + 'static,
    batch: usize,
) -> (Conn<TcpStream>, Conn<TcpStream>) {
    let (c, mut relay_c) = pair().await;
    let (mut relay_p, p) = pair().await;
    tokio::spawn(async move {
        let (mut pr, mut pw) = relay_p.split();
        let (mut cr, mut cw) = relay_c.split();
        let up = async {
            let _ = tokio::io::copy(&mut cr, &mut pw).await;
        };
        let down = async {
            for _ in 0..2 {
                let Some(f) = read_frame_half(&mut pr).await else {
                    return;
                };
                if cw.write_all(&f).await.is_err() {
                    return;
                }
            }
            loop {
                let mut got = Vec::new();
                while got.len() < batch {
                    match read_frame_half(&mut pr).await {
                        Some(f) => got.push(f),
                        None => break,
                    }
                }
                let end = got.len() < batch;
                let (out, close) = tamper(got);
                if cw.write_all(&out).await.is_err() || end || close {
                    let _ = cw.shutdown().await;
                    return;
                }
            }
        };
        tokio::join!(up, down);
    });
    let (child, parent) = tokio::join!(handshake_child(c, secret), handshake_parent(p, secret));
    (child.unwrap().0, parent.unwrap().0)
}

async fn read_frame_half<R: tokio::io::AsyncRead + Unpin>(s: &mut R) -> Option<Vec<u8>> {
    let mut head = [0u8; 4];
    s.read_exact(&mut head).await.ok()?;
    let mut body = vec![0u8; u32::from_be_bytes(head) as usize];
    s.read_exact(&mut body).await.ok()?;
    let mut f = head.to_vec();
    f.extend_from_slice(&body);
    Some(f)
}

fn cmd(id: u64, line: &str) -> Down {
    Down::Command {
        id,
        ranks: RankSet::all(4),
        line: line.into(),
        timeout_ms: 1000,
        history: 0,
    }
}

async fn expect_integrity(child: &mut Conn<TcpStream>) {
    let r = tokio::time::timeout(Duration::from_secs(5), child.recv::<Down>())
        .await
        .expect("the child decides at once");
    assert!(matches!(r, Err(WireError::Integrity(_))), "{r:?}");
    // The connection is over: nothing after it is read.
    assert!(matches!(child.recv::<Down>().await, Err(WireError::Closed)));
}

#[tokio::test]
async fn frames_are_sealed_and_a_relay_reads_no_command() {
    let secret = Secret::generate();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = seen.clone();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        move |fs| {
            keep.lock().unwrap().extend(fs.iter().cloned());
            (fs.concat(), false)
        },
        1,
    )
    .await;
    let secret_line = "set args $(id > /tmp/cohort-never)";
    parent.send(&cmd(1, secret_line)).await.unwrap();
    assert_eq!(
        child.recv::<Down>().await.unwrap(),
        Some(cmd(1, secret_line))
    );
    let frames = seen.lock().unwrap().clone();
    assert_eq!(frames.len(), 1);
    let f = &frames[0];
    assert!(
        !f.windows(8).any(|w| w == b"set args"),
        "the command travels encrypted"
    );
    // The plaintext, a tag, and the header.
    let plain = postcard::to_stdvec(&cmd(1, secret_line)).unwrap();
    assert_eq!(f.len(), 4 + plain.len() + 16);
}

#[tokio::test]
async fn an_injected_frame_ends_the_connection() {
    let secret = Secret::generate();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        |fs| {
            // A command as the unsealed protocol carried it, in place of the real one.
            let forged = postcard::to_stdvec(&cmd(7, "run")).unwrap();
            let mut out = (forged.len() as u32).to_be_bytes().to_vec();
            out.extend_from_slice(&forged);
            out.extend(fs.concat());
            (out, false)
        },
        1,
    )
    .await;
    parent.send(&cmd(1, "print 1")).await.unwrap();
    expect_integrity(&mut child).await;
}

#[tokio::test]
async fn a_replayed_frame_ends_the_connection() {
    let secret = Secret::generate();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        |fs| ([fs.concat(), fs.concat()].concat(), false),
        1,
    )
    .await;
    parent.send(&cmd(1, "continue")).await.unwrap();
    let first = tokio::time::timeout(Duration::from_secs(5), child.recv::<Down>()).await;
    assert_eq!(first.unwrap().unwrap(), Some(cmd(1, "continue")));
    expect_integrity(&mut child).await;
}

#[tokio::test]
async fn reordered_frames_end_the_connection() {
    let secret = Secret::generate();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        |fs| (fs.into_iter().rev().collect::<Vec<_>>().concat(), false),
        2,
    )
    .await;
    parent.send(&cmd(1, "print 1")).await.unwrap();
    parent.send(&cmd(2, "print 2")).await.unwrap();
    expect_integrity(&mut child).await;
}

#[tokio::test]
async fn a_dropped_frame_ends_the_connection() {
    let secret = Secret::generate();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        |fs| (fs.into_iter().skip(1).collect::<Vec<_>>().concat(), false),
        2,
    )
    .await;
    parent.send(&cmd(1, "print 1")).await.unwrap();
    parent.send(&cmd(2, "print 2")).await.unwrap();
    expect_integrity(&mut child).await;
}

#[tokio::test]
async fn a_flipped_bit_ends_the_connection() {
    let secret = Secret::generate();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        |fs| {
            let mut f = fs.concat();
            if let Some(b) = f.last_mut() {
                *b ^= 1;
            }
            (f, false)
        },
        1,
    )
    .await;
    parent.send(&cmd(1, "print 1")).await.unwrap();
    expect_integrity(&mut child).await;
}

#[tokio::test]
async fn a_truncated_frame_ends_the_connection() {
    let secret = Secret::generate();
    let (mut child, mut parent) = tampered_pair(
        &secret,
        |fs| {
            let f = fs.concat();
            (f[..f.len() / 2].to_vec(), true)
        },
        1,
    )
    .await;
    parent.send(&cmd(1, "print 1")).await.unwrap();
    let r = tokio::time::timeout(Duration::from_secs(5), child.recv::<Down>())
        .await
        .expect("the end of the connection is seen");
    assert!(matches!(r, Err(WireError::Truncated { .. })), "{r:?}");
}

#[tokio::test]
async fn frames_of_one_connection_mean_nothing_on_another() {
    let secret = Secret::generate();
    let first = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = first.clone();
    let (mut c1, mut p1) = tampered_pair(
        &secret,
        move |fs| {
            keep.lock().unwrap().extend(fs.iter().cloned());
            (fs.concat(), false)
        },
        1,
    )
    .await;
    p1.send(&cmd(1, "run")).await.unwrap();
    assert_eq!(c1.recv::<Down>().await.unwrap(), Some(cmd(1, "run")));
    let old = first.lock().unwrap().concat();
    // A second connection with the same secret: its first frame is replaced by the first
    // connection's first frame (same sequence number, other keys).
    let (mut c2, mut p2) = tampered_pair(&secret, move |_| (old.clone(), false), 1).await;
    p2.send(&cmd(1, "print 1")).await.unwrap();
    expect_integrity(&mut c2).await;
}
