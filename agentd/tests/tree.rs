//! A root node in this test process and a real `cohort-agentd` below it: bad peers on the
//! root's port (garbage, an oversized frame, a wrong secret, a silent peer) are dropped while
//! the real agent registers and answers.

use std::time::Duration;

mod common;

use cohort_agentd::node::Msg;
use cohort_wire::{Down, RankSet, Secret, Up};
use tokio::io::AsyncWriteExt;

#[tokio::test(flavor = "current_thread")]
async fn bad_peers_are_dropped_and_the_real_agent_is_served() {
    let prog = cohort_fixtures::program("ranks");
    let secret = Secret::generate();
    let dir = std::env::temp_dir().join(format!("cohort-tree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("key");
    let _ = std::fs::remove_file(&key);
    secret.write_new_file(&key).unwrap();

    let (addr, tx, mut up_rx) = common::root(&secret, 1).await;

    // Garbage, an oversized length prefix, a wrong secret, and a peer that says nothing.
    let mut g = tokio::net::TcpStream::connect(addr).await.unwrap();
    g.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
    let mut big = tokio::net::TcpStream::connect(addr).await.unwrap();
    big.write_all(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3])
        .await
        .unwrap();
    let wrong = tokio::spawn(async move {
        let s = tokio::net::TcpStream::connect(addr).await.unwrap();
        cohort_wire::handshake_child(s, &Secret::generate())
            .await
            .is_ok()
    });
    let _silent = tokio::net::TcpStream::connect(addr).await.unwrap();

    // The real agent: 2 ranks of `ranks`.
    let mut agent = tokio::process::Command::new(env!("CARGO_BIN_EXE_cohort-agentd"))
        .args(["--index", "0", "--agents", "1", "--host-base", "127.1.0.1"])
        .arg("--port")
        .arg(addr.port().to_string())
        .arg("--root")
        .arg(addr.to_string())
        .arg("--secret-file")
        .arg(&key)
        .args(["--size", "2", "--ranks", "0-1", "--"])
        .arg(&prog)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    assert!(
        !wrong.await.unwrap(),
        "a wrong secret must not pass the handshake"
    );

    match next(&mut up_rx).await {
        Up::Register { ranks, agents, .. } => {
            assert_eq!(ranks, RankSet::range(0, 1));
            assert_eq!(agents, 2);
        }
        other => panic!("expected the registration, got {other:?}"),
    }
    for (id, line) in [(1, ":start"), (2, "print iterations")] {
        tx.send(Msg::Down(Down::Command {
            id,
            ranks: RankSet::all(2),
            line: line.into(),
            timeout_ms: 30_000,
            history: 0,
        }))
        .unwrap();
    }
    let mut answers = Vec::new();
    while answers.len() < 2 {
        if let Up::Reply { id, merged, .. } = next(&mut up_rx).await {
            answers.push((id, merged));
        }
    }
    assert_eq!(answers[0].0, 1);
    assert_eq!(answers[0].1.groups.len(), 1, "both ranks start alike");
    assert_eq!(answers[1].0, 2);
    assert_eq!(answers[1].1.render().0, "[0-1] $1 = 3\n");
    assert_eq!(answers[1].1.history, 1, "the ranks' value history after it");
    tx.send(Msg::Down(Down::Shutdown { detach: false }))
        .unwrap();
    let st = tokio::time::timeout(Duration::from_secs(20), agent.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(st.success());
    let _ = std::fs::remove_dir_all(&dir);
}

async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Up>) -> Up {
    tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .expect("an answer in time")
        .expect("the root is running")
}

/// A child holding the secret may speak only for the ranks it registered: output, losses,
/// answers and events naming others are dropped and reported; its own go through.
#[tokio::test(flavor = "current_thread")]
async fn a_child_speaks_only_for_its_own_ranks() {
    use cohort_wire::{Merged, Payload, Stream};
    let secret = Secret::generate();
    let (addr, _tx, mut up_rx) = common::root(&secret, 2).await;

    let join = |agent: u32, ranks: RankSet| {
        let secret = secret.clone();
        async move {
            let s = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (mut c, _) = cohort_wire::handshake_child(s, &secret).await.unwrap();
            c.send(&Up::Register {
                agent,
                host: "h".into(),
                ranks,
                agents: 1,
            })
            .await
            .unwrap();
            c
        }
    };
    let mut a = join(0, RankSet::range(0, 1)).await;
    // Pinged: the root has taken it as a child.
    assert!(matches!(
        tokio::time::timeout(Duration::from_secs(5), a.recv::<Down>()).await,
        Ok(Ok(Some(Down::Ping { .. })))
    ));
    // A second child claiming a rank of the first is refused.
    let mut dup = join(1, RankSet::range(1, 2)).await;
    match next(&mut up_rx).await {
        Up::Notice { text } => assert_eq!(
            text,
            "agent 1 registered ranks [1-2], of which [1] belong to others: refused"
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(
            tokio::time::timeout(Duration::from_secs(5), dup.recv::<Down>()).await,
            Ok(Ok(None) | Err(_))
        ),
        "the refused child's connection is closed"
    );
    let _b = join(2, RankSet::range(2, 3)).await;
    match next(&mut up_rx).await {
        Up::Register { ranks, .. } => assert_eq!(ranks, RankSet::range(0, 3)),
        other => panic!("{other:?}"),
    }

    let out = |rank: u32, text: &str| Up::Output {
        rank,
        stream: Stream::Stdout,
        data: Payload::new(text.as_bytes().to_vec()),
    };
    a.send(&out(4294967295, "forged\n")).await.unwrap();
    a.send(&Up::Lost {
        ranks: RankSet::range(1, 2),
        reason: "forged".into(),
    })
    .await
    .unwrap();
    a.send(&Up::Event {
        merged: Merged::one(3, "[Inferior 1 (process 1) exited normally]\n", ""),
        states: Default::default(),
    })
    .await
    .unwrap();
    a.send(&out(1, "mine\n")).await.unwrap();
    let mut notices = Vec::new();
    loop {
        match next(&mut up_rx).await {
            Up::Notice { text } => notices.push(text),
            Up::Output { rank, .. } => {
                assert_eq!(rank, 1, "only the child's own output passes");
                break;
            }
            other => panic!("forged message passed: {other:?}"),
        }
    }
    assert_eq!(
        notices,
        [
            "agent 0 sent program output for ranks [4294967295] outside its own [0-1]: dropped",
            "agent 0 sent a lost report for ranks [2] outside its own [0-1]: dropped",
            "agent 0 sent an event for ranks [3] outside its own [0-1]: dropped",
        ]
    );
}
