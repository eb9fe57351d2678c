//! Signals: gdb's signal table (names, descriptions, default stop/print/pass) and the
//! user's `handle` settings.

/// A Linux signal number as the kernel reports it: the standard signals, glibc's internal
/// SIGCANCEL (32) and SIGSETXID (33) and the real-time signals SIGRTMIN..SIGRTMAX (34-64 on
/// x86-64 and aarch64), none of which nix's `Signal` can hold.
///
/// The numbers (here and in [`GDB_SIGNALS`]) are Linux's generic numbering, which both
/// architectures the engine supports share; alpha, mips, sparc and parisc number some signals
/// differently (and mips has 127), and would need their numbers in their `arch` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Signo(i32);

impl Signo {
    /// The largest number a wait status can carry (its signal field has 7 bits).
    pub const MAX: i32 = 127;
    pub const SIGTRAP: Signo = Signo(libc::SIGTRAP);
    pub const SIGKILL: Signo = Signo(libc::SIGKILL);
    pub const SIGSEGV: Signo = Signo(libc::SIGSEGV);

    /// A signal number, if it is one (1 to [`Signo::MAX`]).
    pub fn new(n: i32) -> Option<Signo> {
        (1..=Self::MAX).contains(&n).then_some(Signo(n))
    }

    /// A number the kernel reported in a wait status (7 bits, never 0 there).
    pub(crate) fn from_kernel(n: i32) -> Signo {
        Signo(n & Self::MAX)
    }

    /// The raw number.
    pub fn raw(self) -> i32 {
        self.0
    }
}

/// One row of gdb's signal table.
#[derive(Debug, Clone, Copy)]
pub struct SigInfo {
    pub name: &'static str,
    /// The Linux signal number, for signals Linux has.
    pub linux: Option<i32>,
    pub stop: bool,
    pub print: bool,
    pub pass: bool,
    pub description: &'static str,
}

/// gdb 13's table, in its order (`info signals`).
pub const GDB_SIGNALS: &[SigInfo] = &[
    SigInfo {
        name: "SIGHUP",
        linux: Some(1),
        stop: true,
        print: true,
        pass: true,
        description: "Hangup",
    },
    SigInfo {
        name: "SIGINT",
        linux: Some(2),
        stop: true,
        print: true,
        pass: false,
        description: "Interrupt",
    },
    SigInfo {
        name: "SIGQUIT",
        linux: Some(3),
        stop: true,
        print: true,
        pass: true,
        description: "Quit",
    },
    SigInfo {
        name: "SIGILL",
        linux: Some(4),
        stop: true,
        print: true,
        pass: true,
        description: "Illegal instruction",
    },
    SigInfo {
        name: "SIGTRAP",
        linux: Some(5),
        stop: true,
        print: true,
        pass: false,
        description: "Trace/breakpoint trap",
    },
    SigInfo {
        name: "SIGABRT",
        linux: Some(6),
        stop: true,
        print: true,
        pass: true,
        description: "Aborted",
    },
    SigInfo {
        name: "SIGEMT",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Emulation trap",
    },
    SigInfo {
        name: "SIGFPE",
        linux: Some(8),
        stop: true,
        print: true,
        pass: true,
        description: "Arithmetic exception",
    },
    SigInfo {
        name: "SIGKILL",
        linux: Some(9),
        stop: true,
        print: true,
        pass: true,
        description: "Killed",
    },
    SigInfo {
        name: "SIGBUS",
        linux: Some(7),
        stop: true,
        print: true,
        pass: true,
        description: "Bus error",
    },
    SigInfo {
        name: "SIGSEGV",
        linux: Some(11),
        stop: true,
        print: true,
        pass: true,
        description: "Segmentation fault",
    },
    SigInfo {
        name: "SIGSYS",
        linux: Some(31),
        stop: true,
        print: true,
        pass: true,
        description: "Bad system call",
    },
    SigInfo {
        name: "SIGPIPE",
        linux: Some(13),
        stop: true,
        print: true,
        pass: true,
        description: "Broken pipe",
    },
    SigInfo {
        name: "SIGALRM",
        linux: Some(14),
        stop: false,
        print: false,
        pass: true,
        description: "Alarm clock",
    },
    SigInfo {
        name: "SIGTERM",
        linux: Some(15),
        stop: true,
        print: true,
        pass: true,
        description: "Terminated",
    },
    SigInfo {
        name: "SIGURG",
        linux: Some(23),
        stop: false,
        print: false,
        pass: true,
        description: "Urgent I/O condition",
    },
    SigInfo {
        name: "SIGSTOP",
        linux: Some(19),
        stop: true,
        print: true,
        pass: true,
        description: "Stopped (signal)",
    },
    SigInfo {
        name: "SIGTSTP",
        linux: Some(20),
        stop: true,
        print: true,
        pass: true,
        description: "Stopped (user)",
    },
    SigInfo {
        name: "SIGCONT",
        linux: Some(18),
        stop: true,
        print: true,
        pass: true,
        description: "Continued",
    },
    SigInfo {
        name: "SIGCHLD",
        linux: Some(17),
        stop: false,
        print: false,
        pass: true,
        description: "Child status changed",
    },
    SigInfo {
        name: "SIGTTIN",
        linux: Some(21),
        stop: true,
        print: true,
        pass: true,
        description: "Stopped (tty input)",
    },
    SigInfo {
        name: "SIGTTOU",
        linux: Some(22),
        stop: true,
        print: true,
        pass: true,
        description: "Stopped (tty output)",
    },
    SigInfo {
        name: "SIGIO",
        linux: Some(29),
        stop: false,
        print: false,
        pass: true,
        description: "I/O possible",
    },
    SigInfo {
        name: "SIGXCPU",
        linux: Some(24),
        stop: true,
        print: true,
        pass: true,
        description: "CPU time limit exceeded",
    },
    SigInfo {
        name: "SIGXFSZ",
        linux: Some(25),
        stop: true,
        print: true,
        pass: true,
        description: "File size limit exceeded",
    },
    SigInfo {
        name: "SIGVTALRM",
        linux: Some(26),
        stop: false,
        print: false,
        pass: true,
        description: "Virtual timer expired",
    },
    SigInfo {
        name: "SIGPROF",
        linux: Some(27),
        stop: false,
        print: false,
        pass: true,
        description: "Profiling timer expired",
    },
    SigInfo {
        name: "SIGWINCH",
        linux: Some(28),
        stop: false,
        print: false,
        pass: true,
        description: "Window size changed",
    },
    SigInfo {
        name: "SIGLOST",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Resource lost",
    },
    SigInfo {
        name: "SIGUSR1",
        linux: Some(10),
        stop: true,
        print: true,
        pass: true,
        description: "User defined signal 1",
    },
    SigInfo {
        name: "SIGUSR2",
        linux: Some(12),
        stop: true,
        print: true,
        pass: true,
        description: "User defined signal 2",
    },
    SigInfo {
        name: "SIGPWR",
        linux: Some(30),
        stop: true,
        print: true,
        pass: true,
        description: "Power fail/restart",
    },
    SigInfo {
        name: "SIGPOLL",
        linux: None,
        stop: false,
        print: false,
        pass: true,
        description: "Pollable event occurred",
    },
    SigInfo {
        name: "SIGWIND",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "SIGWIND",
    },
    SigInfo {
        name: "SIGPHONE",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "SIGPHONE",
    },
    SigInfo {
        name: "SIGWAITING",
        linux: None,
        stop: false,
        print: false,
        pass: true,
        description: "Process's LWPs are blocked",
    },
    SigInfo {
        name: "SIGLWP",
        linux: None,
        stop: false,
        print: false,
        pass: true,
        description: "Signal LWP",
    },
    SigInfo {
        name: "SIGDANGER",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Swap space dangerously low",
    },
    SigInfo {
        name: "SIGGRANT",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Monitor mode granted",
    },
    SigInfo {
        name: "SIGRETRACT",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Need to relinquish monitor mode",
    },
    SigInfo {
        name: "SIGMSG",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Monitor mode data available",
    },
    SigInfo {
        name: "SIGSOUND",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Sound completed",
    },
    SigInfo {
        name: "SIGSAK",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Secure attention",
    },
    SigInfo {
        name: "SIGPRIO",
        linux: None,
        stop: false,
        print: false,
        pass: true,
        description: "SIGPRIO",
    },
    SigInfo {
        name: "SIG33",
        linux: Some(33),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 33",
    },
    SigInfo {
        name: "SIG34",
        linux: Some(34),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 34",
    },
    SigInfo {
        name: "SIG35",
        linux: Some(35),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 35",
    },
    SigInfo {
        name: "SIG36",
        linux: Some(36),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 36",
    },
    SigInfo {
        name: "SIG37",
        linux: Some(37),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 37",
    },
    SigInfo {
        name: "SIG38",
        linux: Some(38),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 38",
    },
    SigInfo {
        name: "SIG39",
        linux: Some(39),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 39",
    },
    SigInfo {
        name: "SIG40",
        linux: Some(40),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 40",
    },
    SigInfo {
        name: "SIG41",
        linux: Some(41),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 41",
    },
    SigInfo {
        name: "SIG42",
        linux: Some(42),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 42",
    },
    SigInfo {
        name: "SIG43",
        linux: Some(43),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 43",
    },
    SigInfo {
        name: "SIG44",
        linux: Some(44),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 44",
    },
    SigInfo {
        name: "SIG45",
        linux: Some(45),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 45",
    },
    SigInfo {
        name: "SIG46",
        linux: Some(46),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 46",
    },
    SigInfo {
        name: "SIG47",
        linux: Some(47),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 47",
    },
    SigInfo {
        name: "SIG48",
        linux: Some(48),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 48",
    },
    SigInfo {
        name: "SIG49",
        linux: Some(49),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 49",
    },
    SigInfo {
        name: "SIG50",
        linux: Some(50),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 50",
    },
    SigInfo {
        name: "SIG51",
        linux: Some(51),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 51",
    },
    SigInfo {
        name: "SIG52",
        linux: Some(52),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 52",
    },
    SigInfo {
        name: "SIG53",
        linux: Some(53),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 53",
    },
    SigInfo {
        name: "SIG54",
        linux: Some(54),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 54",
    },
    SigInfo {
        name: "SIG55",
        linux: Some(55),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 55",
    },
    SigInfo {
        name: "SIG56",
        linux: Some(56),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 56",
    },
    SigInfo {
        name: "SIG57",
        linux: Some(57),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 57",
    },
    SigInfo {
        name: "SIG58",
        linux: Some(58),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 58",
    },
    SigInfo {
        name: "SIG59",
        linux: Some(59),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 59",
    },
    SigInfo {
        name: "SIG60",
        linux: Some(60),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 60",
    },
    SigInfo {
        name: "SIG61",
        linux: Some(61),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 61",
    },
    SigInfo {
        name: "SIG62",
        linux: Some(62),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 62",
    },
    SigInfo {
        name: "SIG63",
        linux: Some(63),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 63",
    },
    SigInfo {
        name: "SIGCANCEL",
        linux: None,
        stop: false,
        print: false,
        pass: true,
        description: "LWP internal signal",
    },
    SigInfo {
        name: "SIG32",
        linux: Some(32),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 32",
    },
    SigInfo {
        name: "SIG64",
        linux: Some(64),
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 64",
    },
    SigInfo {
        name: "SIG65",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 65",
    },
    SigInfo {
        name: "SIG66",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 66",
    },
    SigInfo {
        name: "SIG67",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 67",
    },
    SigInfo {
        name: "SIG68",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 68",
    },
    SigInfo {
        name: "SIG69",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 69",
    },
    SigInfo {
        name: "SIG70",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 70",
    },
    SigInfo {
        name: "SIG71",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 71",
    },
    SigInfo {
        name: "SIG72",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 72",
    },
    SigInfo {
        name: "SIG73",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 73",
    },
    SigInfo {
        name: "SIG74",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 74",
    },
    SigInfo {
        name: "SIG75",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 75",
    },
    SigInfo {
        name: "SIG76",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 76",
    },
    SigInfo {
        name: "SIG77",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 77",
    },
    SigInfo {
        name: "SIG78",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 78",
    },
    SigInfo {
        name: "SIG79",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 79",
    },
    SigInfo {
        name: "SIG80",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 80",
    },
    SigInfo {
        name: "SIG81",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 81",
    },
    SigInfo {
        name: "SIG82",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 82",
    },
    SigInfo {
        name: "SIG83",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 83",
    },
    SigInfo {
        name: "SIG84",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 84",
    },
    SigInfo {
        name: "SIG85",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 85",
    },
    SigInfo {
        name: "SIG86",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 86",
    },
    SigInfo {
        name: "SIG87",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 87",
    },
    SigInfo {
        name: "SIG88",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 88",
    },
    SigInfo {
        name: "SIG89",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 89",
    },
    SigInfo {
        name: "SIG90",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 90",
    },
    SigInfo {
        name: "SIG91",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 91",
    },
    SigInfo {
        name: "SIG92",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 92",
    },
    SigInfo {
        name: "SIG93",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 93",
    },
    SigInfo {
        name: "SIG94",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 94",
    },
    SigInfo {
        name: "SIG95",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 95",
    },
    SigInfo {
        name: "SIG96",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 96",
    },
    SigInfo {
        name: "SIG97",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 97",
    },
    SigInfo {
        name: "SIG98",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 98",
    },
    SigInfo {
        name: "SIG99",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 99",
    },
    SigInfo {
        name: "SIG100",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 100",
    },
    SigInfo {
        name: "SIG101",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 101",
    },
    SigInfo {
        name: "SIG102",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 102",
    },
    SigInfo {
        name: "SIG103",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 103",
    },
    SigInfo {
        name: "SIG104",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 104",
    },
    SigInfo {
        name: "SIG105",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 105",
    },
    SigInfo {
        name: "SIG106",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 106",
    },
    SigInfo {
        name: "SIG107",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 107",
    },
    SigInfo {
        name: "SIG108",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 108",
    },
    SigInfo {
        name: "SIG109",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 109",
    },
    SigInfo {
        name: "SIG110",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 110",
    },
    SigInfo {
        name: "SIG111",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 111",
    },
    SigInfo {
        name: "SIG112",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 112",
    },
    SigInfo {
        name: "SIG113",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 113",
    },
    SigInfo {
        name: "SIG114",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 114",
    },
    SigInfo {
        name: "SIG115",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 115",
    },
    SigInfo {
        name: "SIG116",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 116",
    },
    SigInfo {
        name: "SIG117",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 117",
    },
    SigInfo {
        name: "SIG118",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 118",
    },
    SigInfo {
        name: "SIG119",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 119",
    },
    SigInfo {
        name: "SIG120",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 120",
    },
    SigInfo {
        name: "SIG121",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 121",
    },
    SigInfo {
        name: "SIG122",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 122",
    },
    SigInfo {
        name: "SIG123",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 123",
    },
    SigInfo {
        name: "SIG124",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 124",
    },
    SigInfo {
        name: "SIG125",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 125",
    },
    SigInfo {
        name: "SIG126",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 126",
    },
    SigInfo {
        name: "SIG127",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Real-time event 127",
    },
    SigInfo {
        name: "SIGINFO",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Information request",
    },
    SigInfo {
        name: "EXC_BAD_ACCESS",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Could not access memory",
    },
    SigInfo {
        name: "EXC_BAD_INSTRUCTION",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Illegal instruction/operand",
    },
    SigInfo {
        name: "EXC_ARITHMETIC",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Arithmetic exception",
    },
    SigInfo {
        name: "EXC_EMULATION",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Emulation instruction",
    },
    SigInfo {
        name: "EXC_SOFTWARE",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Software generated exception",
    },
    SigInfo {
        name: "EXC_BREAKPOINT",
        linux: None,
        stop: true,
        print: true,
        pass: true,
        description: "Breakpoint",
    },
    SigInfo {
        name: "SIGLIBRT",
        linux: None,
        stop: false,
        print: false,
        pass: true,
        description: "librt internal signal",
    },
];

/// What to do when a signal arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disposition {
    pub stop: bool,
    pub print: bool,
    pub pass: bool,
}

/// The user's `handle` table, initialised with gdb's defaults.
#[derive(Debug, Clone)]
pub struct SignalTable {
    rows: Vec<(SigInfo, Disposition)>,
}

impl Default for SignalTable {
    fn default() -> Self {
        SignalTable {
            rows: GDB_SIGNALS
                .iter()
                .map(|s| {
                    (
                        *s,
                        Disposition {
                            stop: s.stop,
                            print: s.print,
                            pass: s.pass,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// Name and description of a Linux signal number, as gdb prints them.
pub fn describe(signo: i32) -> (&'static str, &'static str) {
    GDB_SIGNALS
        .iter()
        .find(|s| s.linux == Some(signo))
        .map(|s| (s.name, s.description))
        .unwrap_or(("?", "Unknown signal"))
}

impl SignalTable {
    /// Disposition of a Linux signal number.
    pub fn get(&self, signo: i32) -> Disposition {
        self.rows
            .iter()
            .find(|(s, _)| s.linux == Some(signo))
            .map(|(_, d)| *d)
            .unwrap_or(Disposition {
                stop: true,
                print: true,
                pass: true,
            })
    }

    /// glibc reserves the first two real-time signals (SIGCANCEL, 32, for thread
    /// cancellation, and SIGSETXID, 33, for set*id across threads): gdb makes them
    /// `nostop noprint` (still passed) when it loads libthread_db.
    pub fn nptl_internal(&mut self) {
        for (s, d) in &mut self.rows {
            if matches!(s.linux, Some(32 | 33)) {
                d.stop = false;
                d.print = false;
            }
        }
    }

    /// Rows in gdb's order.
    pub fn rows(&self) -> impl Iterator<Item = (&SigInfo, &Disposition)> {
        self.rows.iter().map(|(s, d)| (s, d))
    }

    /// Indices of the rows a `handle`/`info signals` argument names: `SIGUSR1`, `USR1`,
    /// a number 1-15 (Linux numbering, as gdb), a range `14-15`, or `all`.
    pub fn select(&self, word: &str) -> Result<Vec<usize>, String> {
        if word == "all" {
            // gdb's `all` leaves SIGTRAP and SIGINT alone (they are used by the debugger).
            return Ok((0..self.rows.len())
                .filter(|&i| !matches!(self.rows[i].0.name, "SIGTRAP" | "SIGINT"))
                .collect());
        }
        let by_num = |n: i32| -> Result<usize, String> {
            if !(1..=15).contains(&n) {
                return Err("Only signals 1-15 are valid as numeric signals.\nUse \"info signals\" for a list of symbolic signals.".into());
            }
            self.rows
                .iter()
                .position(|(s, _)| s.linux == Some(n))
                .ok_or_else(|| format!("Unrecognized or ambiguous flag word: \"{word}\"."))
        };
        if let Some((a, b)) = word.split_once('-')
            && let (Ok(a), Ok(b)) = (a.parse::<i32>(), b.parse::<i32>())
        {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            return (lo..=hi).map(by_num).collect();
        }
        if let Ok(n) = word.parse::<i32>() {
            return by_num(n).map(|i| vec![i]);
        }
        let upper = word.to_ascii_uppercase();
        let name = if upper.starts_with("SIG") {
            upper
        } else {
            format!("SIG{upper}")
        };
        self.rows
            .iter()
            .position(|(s, _)| s.name == name)
            .map(|i| vec![i])
            .ok_or_else(|| format!("Unrecognized or ambiguous flag word: \"{word}\"."))
    }

    /// Apply one `handle` action word (`stop`, `nostop`, `print`, `noprint`, `pass`,
    /// `nopass`, `ignore`, `noignore`) to the rows `which`.
    pub fn apply(&mut self, which: &[usize], action: &str) -> Result<(), String> {
        for &i in which {
            let d = &mut self.rows[i].1;
            match action {
                "stop" => {
                    d.stop = true;
                    d.print = true;
                }
                "nostop" => d.stop = false,
                "print" => d.print = true,
                "noprint" => {
                    d.print = false;
                    d.stop = false;
                }
                "pass" | "noignore" => d.pass = true,
                "nopass" | "ignore" => d.pass = false,
                _ => {
                    return Err(format!(
                        "Unrecognized or ambiguous flag word: \"{action}\"."
                    ));
                }
            }
        }
        Ok(())
    }

    /// One line of gdb's `info signals` table for row `i`.
    pub fn format_row(&self, i: usize) -> String {
        let (s, d) = &self.rows[i];
        let yn = |b: bool| if b { "Yes" } else { "No" };
        format!(
            "{:<13} {}\t{}\t{}\t\t{}",
            s.name,
            yn(d.stop),
            yn(d.print),
            yn(d.pass),
            s.description
        )
    }

    pub const HEADER: &'static str = "Signal        Stop\tPrint\tPass to program\tDescription";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_gdb() {
        let t = SignalTable::default();
        assert_eq!(
            t.get(libc::SIGSEGV),
            Disposition {
                stop: true,
                print: true,
                pass: true
            }
        );
        assert_eq!(
            t.get(libc::SIGINT),
            Disposition {
                stop: true,
                print: true,
                pass: false
            }
        );
        assert_eq!(
            t.get(libc::SIGALRM),
            Disposition {
                stop: false,
                print: false,
                pass: true
            }
        );
        assert_eq!(
            t.get(libc::SIGCHLD),
            Disposition {
                stop: false,
                print: false,
                pass: true
            }
        );
        assert_eq!(describe(libc::SIGSEGV), ("SIGSEGV", "Segmentation fault"));
        assert_eq!(describe(libc::SIGFPE), ("SIGFPE", "Arithmetic exception"));
        assert_eq!(describe(34), ("SIG34", "Real-time event 34"));
        assert_eq!(t.format_row(0), "SIGHUP        Yes\tYes\tYes\t\tHangup");
    }

    #[test]
    fn handle_words() {
        let mut t = SignalTable::default();
        let w = t.select("usr1").unwrap();
        t.apply(&w, "nostop").unwrap();
        t.apply(&w, "noprint").unwrap();
        assert_eq!(
            t.get(libc::SIGUSR1),
            Disposition {
                stop: false,
                print: false,
                pass: true
            }
        );
        let w = t.select("14").unwrap();
        t.apply(&w, "stop").unwrap();
        assert_eq!(
            t.get(libc::SIGALRM),
            Disposition {
                stop: true,
                print: true,
                pass: true
            }
        );
        assert!(t.select("SIGFOO").is_err());
        assert!(t.select("20").is_err());
        assert_eq!(t.select("14-15").unwrap().len(), 2);
        assert!(t.select("all").unwrap().len() > 100);
    }
}
