//! System call names, numbers and groups (gdb's `catch syscall` vocabulary). Each
//! architecture has its own table ([`super::ArchInfo::syscalls`]), generated from the
//! descriptions gdb ships (`scripts/gen-syscalls.py`).

/// One system call of an architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syscall {
    pub number: u32,
    pub name: &'static str,
    /// Bit set of the `G_*` groups it belongs to.
    pub groups: u8,
}

pub const G_NETWORK: u8 = 1;
pub const G_PROCESS: u8 = 2;
pub const G_SIGNAL: u8 = 4;
pub const G_IPC: u8 = 8;
pub const G_MEMORY: u8 = 16;
pub const G_FILE: u8 = 32;
pub const G_DESCRIPTOR: u8 = 64;

/// The groups gdb knows, by name.
pub const GROUPS: &[(&str, u8)] = &[
    ("network", G_NETWORK),
    ("process", G_PROCESS),
    ("signal", G_SIGNAL),
    ("ipc", G_IPC),
    ("memory", G_MEMORY),
    ("file", G_FILE),
    ("descriptor", G_DESCRIPTOR),
];

/// The system call called `name` in `table`.
pub fn by_name(table: &[Syscall], name: &str) -> Option<Syscall> {
    table.iter().copied().find(|s| s.name == name)
}

/// The system call numbered `n` in `table`.
pub fn by_number(table: &[Syscall], n: i64) -> Option<Syscall> {
    table.iter().copied().find(|s| i64::from(s.number) == n)
}

/// The system calls of group `group` in `table`, in table order; `None` when gdb knows no
/// such group.
pub fn by_group(table: &[Syscall], group: &str) -> Option<Vec<Syscall>> {
    let bit = GROUPS.iter().find(|(g, _)| *g == group)?.1;
    Some(
        table
            .iter()
            .copied()
            .filter(|s| s.groups & bit != 0)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_64_table_as_gdb() {
        let t = super::super::syscalls_x86_64::SYSCALLS;
        assert_eq!(t.len(), 362);
        assert_eq!(by_name(t, "write").map(|s| s.number), Some(1));
        assert_eq!(by_number(t, 231).map(|s| s.name), Some("exit_group"));
        assert_eq!(by_number(t, 9999), None);
        let process: Vec<&str> = by_group(t, "process")
            .unwrap()
            .iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(
            process,
            [
                "clone",
                "fork",
                "vfork",
                "execve",
                "exit",
                "wait4",
                "arch_prctl",
                "exit_group",
                "waitid",
                "unshare",
                "rt_tgsigqueueinfo"
            ]
        );
        assert!(by_group(t, "nosuch").is_none());
    }

    #[test]
    fn aarch64_table_generic_numbers() {
        let t = super::super::syscalls_aarch64::SYSCALLS;
        assert_eq!(by_name(t, "write").map(|s| s.number), Some(64));
        assert_eq!(by_name(t, "close").map(|s| s.number), Some(57));
        assert!(!by_group(t, "network").unwrap().is_empty());
    }
}
