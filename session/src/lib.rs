//! The front end of a multi-rank session (`cohort launch`, `cohort attach`, the GUI): it
//! starts the agents, is the root of their tree, sends commands down addressed to rank sets
//! and hands out the merged answers.

pub mod compare;
pub mod diagnose;
pub mod events;
pub mod groups;
pub mod parallel;
mod recorder;
pub mod saved;
mod stdin;
pub mod terminal;
