//! agentd, Cohort's node agent: it controls the ranks of one node (a few tracer threads, each
//! driving its ranks as coroutines; one parsed copy of each binary's debug information shared by all of them) and is one node
//! of the agent tree. Commands come down from the parent addressed to rank sets; each agent
//! runs them on its own ranks, forwards them to the children whose subtrees hold addressed
//! ranks, merges every answer into groups of ranks with the same text and sends one reply up.
//!
//! The front end (`cohort launch`) runs the same [`node`] code as the tree's root, with the
//! terminal in place of a parent.

pub mod flow;
pub mod mpirec;
pub mod msgq;
pub mod node;
pub mod rank;
pub mod stdio;
pub mod tracers;
