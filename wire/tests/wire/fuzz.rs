//! Random bytes never make the decoder panic.

use cohort_wire::{Conn, Down, Merged, Payload, RankSet, StackTree, Stream, Up, WireError, decode};

use crate::prng::Rng;

fn samples() -> Vec<Vec<u8>> {
    let mut stacks = StackTree::default();
    stacks.add(0, &["f (p=0x55555555a2b0)".to_owned(), "main".to_owned()]);
    let ups = [
        Up::Register {
            agent: 3,
            host: "node17".into(),
            ranks: RankSet::range(0, 63),
            agents: 9,
        },
        Up::Reply {
            id: 7,
            merged: Merged::one(2, "$1 = 4\n", ""),
            stacks: Some(stacks),
            timed_out: RankSet::single(5),
            lost: RankSet::new(),
            states: Default::default(),
            values: None,
        },
        Up::Output {
            rank: 1,
            stream: Stream::Stderr,
            data: Payload::new(vec![b'a'; 10_000]),
        },
        Up::Lost {
            ranks: RankSet::range(4, 9),
            reason: "agent died".into(),
        },
    ];
    let downs = [
        Down::Command {
            id: 1,
            ranks: RankSet::all(8),
            line: "print x".into(),
            timeout_ms: 1000,
            history: 2,
        },
        Down::Stdin {
            rank: 0,
            data: b"input\n".to_vec(),
        },
        Down::Shutdown { detach: true },
    ];
    let mut v: Vec<Vec<u8>> = ups
        .iter()
        .map(|m| postcard::to_stdvec(m).unwrap())
        .collect();
    v.extend(downs.iter().map(|m| postcard::to_stdvec(m).unwrap()));
    v
}

fn random_input(rng: &mut Rng, samples: &[Vec<u8>]) -> Vec<u8> {
    if rng.below(2) == 0 {
        let n = rng.below(80) as usize;
        rng.bytes(n)
    } else {
        // A valid message with a few bytes changed, cut or extended.
        let mut b = samples[rng.below(samples.len() as u64) as usize].clone();
        for _ in 0..1 + rng.below(4) {
            if b.is_empty() {
                break;
            }
            let i = rng.below(b.len() as u64) as usize;
            b[i] = rng.next_u64() as u8;
        }
        match rng.below(3) {
            0 => b.truncate(rng.below(b.len() as u64 + 1) as usize),
            1 => {
                let n = rng.below(8) as usize;
                b.extend(rng.bytes(n));
            }
            _ => {}
        }
        b
    }
}

#[test]
fn decoder_never_panics() {
    let samples = samples();
    for s in &samples {
        assert!(decode::<Up>(s).is_ok() || decode::<Down>(s).is_ok());
    }
    let mut rng = Rng::new(7);
    for _ in 0..10_000 {
        let b = random_input(&mut rng, &samples);
        for r in [decode::<Up>(&b).err(), decode::<Down>(&b).err()]
            .into_iter()
            .flatten()
        {
            assert!(matches!(r, WireError::Decode(_)), "{r:?}");
        }
        if let Ok(Up::Output { data, .. }) = decode::<Up>(&b) {
            let _ = data.into_bytes();
        }
    }
}

#[tokio::test]
async fn recv_of_random_frames() {
    let samples = samples();
    let mut rng = Rng::new(8);
    let (a, b) = tokio::io::duplex(1 << 16);
    let mut tx = Conn::new(a);
    let mut rx = Conn::new(b);
    let mut ok = 0;
    for _ in 0..2000 {
        let frame = random_input(&mut rng, &samples);
        tx.send_frame(&frame).await.unwrap();
        let want = decode::<Up>(&frame);
        match (rx.recv::<Up>().await, want) {
            (Ok(Some(got)), Ok(want)) => {
                assert_eq!(got, want);
                ok += 1;
            }
            (Err(WireError::Decode(_)), Err(WireError::Decode(_))) => {
                // The connection is over after an error; start a fresh one.
                let (a, b) = tokio::io::duplex(1 << 16);
                tx = Conn::new(a);
                rx = Conn::new(b);
            }
            (got, want) => panic!("{got:?} vs {want:?}"),
        }
    }
    assert!(ok > 0);
}
