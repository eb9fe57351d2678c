#!/usr/bin/env python3
"""Output flow control (issue 16), cohort beside gdb in one run.

1. slow terminal: N ranks each write MB megabytes (lines of 100 bytes) under `cohort launch`,
   whose standard output is read at RATE MiB/s for SLOW seconds. Reports the agent's and the
   front end's resident memory at the start and at their peak, against the bound (8 MiB per
   agent plus 256 KiB per rank), and how many ranks wait in write(2).
2. throughput: N ranks each write FAST MiB, read as fast as possible: seconds from `continue`
   to the last rank's exit under cohort, beside N gdbs (`gdb -batch -ex run`) running the same
   program at the same time into one pipe (gdb passes the program's output straight through).
"""
import argparse, json, os, subprocess, sys, threading, time

PROG = ""


def kib(pid, field="VmRSS:"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for l in f:
                if l.startswith(field):
                    return int(l.split()[1])
    except OSError:
        pass
    return 0


def children_named(root, name):
    """Descendant pids of `root` whose command line contains `name` (for the program: whose
    executable it is, not the agent's processes that start it)."""
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        kids = []
        try:
            # A child belongs to the thread that forked it (tracer threads start the ranks).
            for t in os.listdir(f"/proc/{p}/task"):
                kids += open(f"/proc/{p}/task/{t}/children").read().split()
        except OSError:
            pass
        for k in map(int, kids):
            todo.append(k)
            try:
                if name in open(f"/proc/{k}/cmdline").read() and (
                        name != PROG or os.readlink(f"/proc/{k}/exe") == PROG):
                    out.append(k)
            except OSError:
                pass
    return out


class Reader(threading.Thread):
    def __init__(self, f, rate):
        super().__init__(daemon=True)
        self.f, self.rate, self.n, self.buf = f, rate, 0, bytearray()
        self.keep = True

    def run(self):
        t0 = time.monotonic()
        while True:
            b = os.read(self.f.fileno(), 1 << 16)
            if not b:
                return
            self.n += len(b)
            if self.keep:
                self.buf += b
                if len(self.buf) > 1 << 20:
                    del self.buf[: len(self.buf) - (1 << 16)]
            if self.rate:
                ahead = self.n / self.rate - (time.monotonic() - t0)
                if ahead > 0:
                    time.sleep(ahead)

    def wait_for(self, text, limit=120):
        end = time.monotonic() + limit
        while text.encode() not in self.buf:
            if time.monotonic() > end:
                sys.exit(f"never came: {text!r}")
            time.sleep(0.01)


def cohort_session(a, mib, rate):
    p = subprocess.Popen(
        [a.cohort, "launch", "-n", str(a.n), "--settle", "600000", "-nx", "--no-restore", "--", a.prog, str(mib)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    r = Reader(p.stdout, 0)
    r.start()
    r.wait_for("Temporary breakpoint 1, main")
    time.sleep(0.5)
    r.rate = rate
    r.n = 0
    return p, r


def slow(a):
    mib = a.mb * 1000000 // 1048576
    p, r = cohort_session(a, mib, a.rate * 1048576)
    agent = children_named(p.pid, "cohort-agentd")[0]
    a0, f0 = kib(agent), kib(p.pid)
    r.keep = False
    r.rate = a.rate * 1048576
    p.stdin.write(b"continue\n")
    p.stdin.flush()
    amax, fmax = a0, f0
    end = time.monotonic() + a.slow
    while time.monotonic() < end:
        amax, fmax = max(amax, kib(agent)), max(fmax, kib(p.pid))
        time.sleep(0.02)
    ranks = children_named(agent, a.prog)
    blocked = sum(1 for q in ranks if open(f"/proc/{q}/wchan").read().endswith("pipe_write"))
    read = r.n
    p.kill()
    p.wait()
    return {"part": "slow", "ranks": a.n, "mb_per_rank": a.mb, "seconds": a.slow,
            "read_mib": round(read / 1048576, 1), "agent_kib": [a0, amax], "front_kib": [f0, fmax],
            "bound_kib": 8 * 1024 + a.n * 256, "ranks_in_write": blocked}


def fast(a):
    p, r = cohort_session(a, a.fast, 0)
    r.keep = True
    t0 = time.monotonic()
    p.stdin.write(b"continue\n")
    p.stdin.flush()
    time.sleep(0.2)
    # Done when no rank is left and the last exit has been shown.
    while children_named(p.pid, a.prog) or b"exited normally" not in bytes(r.buf[-4096:]):
        time.sleep(0.005)
    tc = time.monotonic() - t0
    got = r.n
    p.stdin.write(b"quit\n")
    p.stdin.flush()
    p.wait()
    # gdb: N at once, all writing into one pipe read as fast as possible.
    t0 = time.monotonic()
    gs = [subprocess.Popen([a.gdb, "-nx", "-batch", "-ex", "run", "--args", a.prog, str(a.fast)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for _ in range(a.n)]
    rs = [Reader(g.stdout, 0) for g in gs]
    for x in rs:
        x.keep = False
        x.start()
    for g in gs:
        g.wait()
    for x in rs:
        x.join()
    tg = time.monotonic() - t0
    return {"part": "fast", "ranks": a.n, "mib_per_rank": a.fast, "cohort_s": round(tc, 2),
            "cohort_mib": round(got / 1048576, 1), "gdb_s": round(tg, 2),
            "gdb_mib": round(sum(x.n for x in rs) / 1048576, 1), "ratio": round(tc / tg, 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cohort", default="target/release/cohort")
    ap.add_argument("--gdb", default="gdb")
    ap.add_argument("--prog", default="target/bench/flood")
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--mb", type=int, default=800)
    ap.add_argument("--rate", type=float, default=1.0, help="MiB/s read in the slow part")
    ap.add_argument("--slow", type=float, default=15)
    ap.add_argument("--fast", type=int, default=100, help="MiB per rank in the fast part")
    ap.add_argument("--parts", default="slow fast")
    a = ap.parse_args()
    a.prog = os.path.abspath(a.prog)
    global PROG
    PROG = a.prog
    for part in a.parts.split():
        print(json.dumps({"slow": slow, "fast": fast}[part](a)), flush=True)


if __name__ == "__main__":
    main()
