//! AArch64 architecture table (placeholder while being written).
