//! What sealing costs per frame: the same messages through a connection over an in-memory
//! pipe, unsealed (`Conn::new`) and sealed (after the handshake), side by side.
//!
//!     cargo run --release -p cohort-wire --example frame_cost
use std::time::Instant;

use cohort_wire::{Conn, Payload, Secret, Stream, Up, handshake_child, handshake_parent};

async fn run(
    mut a: Conn<tokio::io::DuplexStream>,
    mut b: Conn<tokio::io::DuplexStream>,
    m: &Up,
    n: u32,
) -> f64 {
    let t = Instant::now();
    let m2 = m.clone();
    let w = tokio::spawn(async move {
        for _ in 0..n {
            a.send(&m2).await.unwrap();
        }
        a
    });
    for _ in 0..n {
        b.recv::<Up>().await.unwrap().unwrap();
    }
    w.await.unwrap();
    t.elapsed().as_nanos() as f64 / f64::from(n)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let secret = Secret::generate();
    println!("| message | bytes | unsealed ns/frame | sealed ns/frame | sealing costs |");
    println!("|---|---|---|---|---|");
    for (what, len) in [
        ("pong", 0usize),
        ("reply-sized", 200),
        ("1 KiB output", 1024),
        ("16 KiB output", 16384),
    ] {
        let m = if len == 0 {
            Up::Pong {
                seq: 7,
                busy: false,
            }
        } else {
            // Output as a rank writes it: incompressible enough to travel raw.
            let mut x = 88172645463325252u64;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            Up::Output {
                rank: 3,
                stream: Stream::Stdout,
                data: Payload::new(data),
            }
        };
        let bytes = postcard::to_stdvec(&m).unwrap().len();
        let n = if len > 4096 { 20_000 } else { 200_000 };
        let (p, q) = tokio::io::duplex(1 << 20);
        let plain = run(Conn::new(p), Conn::new(q), &m, n).await;
        let (p, q) = tokio::io::duplex(1 << 20);
        let (c, s) = tokio::join!(handshake_child(p, &secret), handshake_parent(q, &secret));
        let sealed = run(c.unwrap().0, s.unwrap().0, &m, n).await;
        println!(
            "| {what} | {bytes} | {plain:.0} | {sealed:.0} | {:+.0} ns ({:.2}x) |",
            sealed - plain,
            sealed / plain
        );
    }
}
