#!/usr/bin/env python3
"""Agent CPU per rank and step (docs/BENCHMARKS.md, "Fewer system calls per step").

  python3 bench/parallel_cpu.py N K [COHORT]

Starts `COHORT launch -n N -- target/bench/ploop` (COHORT defaults to target/release/cohort;
give a copy of another build to compare two builds one after the other), stops every rank at
the loop line, then times K `next`s and reads the agent's CPU time (user + system, all its
threads, from /proc) over them. Prints the median step, and the agent's CPU per rank and step
in µs: a figure that moves less with the machine's load than wall time does. Build the fixture
first as bench/parallel.sh does (cc -g -O0 -o target/bench/ploop bench/fixtures/ploop.c).
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parallel_driver as pd  # noqa: E402


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rfind(")") + 2 :].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def main():
    n, k = int(sys.argv[1]), int(sys.argv[2])
    cohort = sys.argv[3] if len(sys.argv) > 3 else "target/release/cohort"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    prog = os.path.join(root, "target/bench/ploop")
    src = os.path.join(root, "bench/fixtures/ploop.c")
    line = next(i for i, t in enumerate(open(src), 1) if "LOOP_LINE */" in t)
    c = pd.Cohort([cohort, "launch", "-n", str(n), "-nx", "--no-restore", "--", prog], 120)
    try:
        c.read_until(lambda b: b"\n" in b)
        c.prompt()
        c.cmd(f"break {line}")
        _, out = c.cmd("continue")
        pd.check_stop(out, n, {line}, "continue")
        c.cmd("delete")
        agents = [p for p in pd.children_of(c.p.pid) if pd.comm(p).startswith("cohort-agent")]
        c0 = sum(cpu_seconds(a) for a in agents)
        steps = []
        for _ in range(k):
            t, out = c.cmd("next")
            pd.check_stop(out, n, set(range(line - 1, line + 5)), "next")
            steps.append(t)
        used = sum(cpu_seconds(a) for a in agents) - c0
        load = open("/proc/loadavg").read().split()[0]
        print(
            f"N={n} K={k} step median {statistics.median(steps) * 1000:.3f} ms, "
            f"agent CPU {used * 1e6 / (k * n):.1f} us per rank-step, load {load}"
        )
    finally:
        c.close()


if __name__ == "__main__":
    main()
