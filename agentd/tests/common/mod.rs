//! What the agent tree's tests share: a root node in the test process.
#![allow(dead_code)]

use std::net::SocketAddr;

use cohort_agentd::node::{self, Msg, Node};
use cohort_wire::{Secret, Up};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// A root node listening on loopback for `children` children with `secret`: its address, its
/// command channel, and what it passes up (to the front end).
pub async fn root(
    secret: &Secret,
    children: u32,
) -> (SocketAddr, UnboundedSender<Msg>, UnboundedReceiver<Up>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (up_tx, up_rx) = tokio::sync::mpsc::unbounded_channel();
    let (root, rx) = Node::new(u32::MAX, "test".into(), Vec::new(), children, up_tx);
    let tx = root.sender();
    node::serve_children(listener, secret.clone(), tx.clone(), root.budget());
    tokio::spawn(root.run(rx));
    (addr, tx, up_rx)
}
