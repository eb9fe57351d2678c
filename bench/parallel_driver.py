#!/usr/bin/env python3
"""Driver for bench/parallel.sh (issue 4, many ranks): times cohort and N gdb/MI processes.

Two modes, each printing one JSON object on stdout:

  parallel_driver.py cohort --n N --k K --line L --prog P [--agents A] [--fanout R,F]
      Starts `cohort launch -n N ... -- P` as an interactive session (no -batch) on pipes and
      times every command from the moment its line is written to the moment the next
      "(cohort) " prompt comes back: the start (launch to all ranks stopped at main), `break L`,
      `continue`, then K `next`s one by one (the per-step latency is their median), and reads
      the memory of the cohort side (front end and every cohort-agentd) while all ranks are
      stopped in the loop.

  parallel_driver.py gdb --n N --k K --line L --prog P
      Starts N `gdb --interpreter=mi` processes, one per rank (COHORT_RANK/COHORT_SIZE in the
      environment): the architecture of a debugger that runs one gdb per rank. Times every
      gdb reaching main (-break-insert main, -exec-run), each gdb reaching the loop line
      (-break-insert L, -exec-continue), then K rounds of "send -exec-next to all N, wait until
      all N report *stopped"; reads the memory of the gdbs at the loop line.

Every answer is checked: all N ranks must stop at a line of the loop, or the run fails
(exit status 1, "ok": false and the reason in the JSON).
"""

import argparse
import json
import os
import re
import selectors
import signal
import statistics
import subprocess
import sys
import threading
import time

PROMPT = b"(cohort) "


def kib(path, field):
    """The value in kB of FIELD in /proc/.../status or smaps_rollup, or 0."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def mem(pid):
    """(VmRSS, Pss) of a process in KiB."""
    return kib(f"/proc/{pid}/status", "VmRSS"), kib(f"/proc/{pid}/smaps_rollup", "Pss")


def children_of(ppid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue
        # comm may hold spaces: the fields after the last ')'.
        rest = s[s.rfind(")") + 2 :].split()
        if int(rest[1]) == ppid:
            out.append(int(d))
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def ms(s):
    return round(s * 1000.0, 3)


class Fail(Exception):
    pass


def avail_kib():
    return kib("/proc/meminfo", "MemAvailable")


class Watchdog:
    """Keeps the machine alive: polls MemAvailable every 0.1 s, records its low point, and
    when it falls below `floor_mib` kills the session's processes (the front end's children
    first, then the front end or the gdbs; all started by this driver)."""

    def __init__(self, floor_mib, pids):
        self.floor = floor_mib * 1024
        self.pids = pids  # callable: the pids to kill, front end last
        self.start = avail_kib()
        self.low = self.start
        self.fired = False
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop.wait(0.1):
            a = avail_kib()
            self.low = min(self.low, a)
            if a < self.floor and not self.fired:
                self.fired = True
                for pid in self.pids():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass

    def done(self, r):
        self.stop.set()
        self.t.join()
        r["mem_avail_start_mib"] = self.start // 1024
        r["mem_avail_drop_mib"] = (self.start - self.low) // 1024
        if self.fired:
            r["ok"] = False
            r["error"] = f"memory watchdog: MemAvailable fell below {self.floor // 1024} MiB; the session was killed. " + r.get("error", "")


# ---------------------------------------------------------------------------------- cohort


class Cohort:
    def __init__(self, argv, timeout):
        self.timeout = timeout
        self.p = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self.fd = self.p.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.fd, selectors.EVENT_READ)
        self.buf = b""
        self.log = []

    def read_until(self, pred):
        """Read until pred(buffer) is true; returns the buffer and clears it."""
        end = time.monotonic() + self.timeout
        while not pred(self.buf):
            left = end - time.monotonic()
            if left <= 0:
                raise Fail(f"cohort: no answer in {self.timeout} s; last output: {self.buf[-400:]!r}")
            if not self.sel.select(left):
                continue
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise Fail(f"cohort ended; last output: {self.buf[-400:]!r}")
            self.buf += chunk
        b, self.buf = self.buf, b""
        self.log.append(b.decode(errors="replace"))
        return b.decode(errors="replace")

    def prompt(self):
        return self.read_until(lambda b: b.endswith(PROMPT))[: -len(PROMPT)]

    def cmd(self, line):
        t = time.monotonic()
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()
        out = self.prompt()
        return time.monotonic() - t, out

    def close(self):
        try:
            self.p.stdin.write(b"quit\n")
            self.p.stdin.flush()
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def all_ranks(n):
    return "[0]" if n == 1 else f"[0-{n - 1}]"


def check_stop(out, n, lines, what):
    """All n ranks stopped at one line of `lines`, merged as one line '[0-N-1] L\\t...'."""
    m = re.search(r"^\[([0-9,\-]+)\] (\d+)\t", out, re.M)
    if not m or f"[{m.group(1)}]" != all_ranks(n) or int(m.group(2)) not in lines:
        raise Fail(f"{what}: not every rank stopped in the loop: {out[-600:]!r}")
    if "running" in out or "timed out" in out or "lost" in out:
        raise Fail(f"{what}: {out[-600:]!r}")
    return int(m.group(2))


def run_cohort(a):
    argv = [a.cohort, "launch", "-n", str(a.n), "-nx", "--no-restore", "--settle", str(a.settle), "--timeout", str(a.settle)]
    if a.agents:
        argv += ["--agents", str(a.agents)]
    if a.fanout:
        argv += ["--fanout", a.fanout]
    argv += ["--", a.prog]
    r = {"tool": "cohort", "bp": a.bp or str(a.line), "n": a.n, "agents": a.agents or 1, "fanout": a.fanout or "32,8", "k": a.k}
    t0 = time.monotonic()
    c = Cohort(argv, a.settle / 1000 + 60)
    wd = Watchdog(a.min_avail, lambda: children_of(c.p.pid) + [c.p.pid])
    try:
        first = c.read_until(lambda b: b"\n" in b)
        r["first_line_s"] = round(time.monotonic() - t0, 4)
        m = re.search(r"tree formed in (\d+) ms", first)
        if not m:
            raise Fail(f"no tree line: {first!r}")
        r["tree_ms"] = int(m.group(1))
        out = first + c.prompt()
        r["start_s"] = round(time.monotonic() - t0, 4)
        m = re.search(r"^\[([0-9,\-]+)\] .*main", out, re.M)
        if not m or f"[{m.group(1)}]" != all_ranks(a.n):
            lost = re.findall(r"^(\[[0-9,\-]+\] lost: .*)$", out, re.M)
            if lost:
                raise Fail(f"start: {len(lost)} agents lost, first: {lost[0]}")
            raise Fail(f"start: not every rank at main: {out[-600:]!r}")
        loop = set(range(a.line, a.line + 5)) | {a.line - 1}
        t, out = c.cmd(f"break {a.bp or a.line}")
        r["break_ms"] = ms(t)
        t, out = c.cmd("continue")
        r["continue_ms"] = ms(t)
        check_stop(out, a.n, {a.line}, "continue")
        t, out = c.cmd("delete")
        steps = []
        seen = []
        for _ in range(a.k):
            t, out = c.cmd("next")
            seen.append(check_stop(out, a.n, loop, "next"))
            steps.append(t)
        r["step_ms"] = [ms(s) for s in steps]
        r["step_median_ms"] = ms(statistics.median(steps)) if steps else None
        r["step_mean_ms"] = ms(statistics.mean(steps)) if steps else None
        r["lines"] = sorted(set(seen))
        if a.views:
            cohort_views(c, a, r)
        # Memory, all ranks stopped in the loop.
        agents = [p for p in children_of(c.p.pid) if comm(p).startswith("cohort-agent")]
        fr, fp = mem(c.p.pid)
        r["agentd_hwm_kib"] = sum(kib(f"/proc/{p}/status", "VmHWM") for p in agents)
        am = [mem(p) for p in agents]
        r["agent_count"] = len(agents)
        r["agentd_rss_kib"] = sum(x[0] for x in am)
        r["agentd_pss_kib"] = sum(x[1] for x in am)
        r["agentd_rss_max_kib"] = max((x[0] for x in am), default=0)
        r["front_rss_kib"] = fr
        r["front_pss_kib"] = fp
        r["cohort_side_rss_kib"] = fr + r["agentd_rss_kib"]
        r["cohort_side_pss_kib"] = fp + r["agentd_pss_kib"]
        tr = [q for p in agents for q in children_of(p)]
        r["tracees"] = len(tr)
        t = time.monotonic()
        c.close()
        r["quit_s"] = round(time.monotonic() - t, 3)
        r["ok"] = True
    except Fail as e:
        r["ok"] = False
        r["error"] = str(e)
        try:
            c.p.kill()
            c.p.wait(timeout=30)
        except Exception:
            pass
    wd.done(r)
    return r


# The views of issue 20, with all ranks stopped in the loop: the merged stacks, one
# expression compared across ranks, and the hang diagnosis (no MPI in the fixture: it looks at
# every rank's frames and recorder state and finds no one waiting). Each is timed `views` times
# from the command's line to its prompt; the figure is the median.
VIEW_EXPR = "rank % 4"


def cohort_views(c, a, r):
    for name, line, check in [
        ("stacks", "stacks", lambda o: "main at " in o and all_ranks(a.n) in o),
        ("compare", f"compare {VIEW_EXPR}", lambda o: all(f"] {v}" in o for v in range(min(a.n, 4)))),
        ("diagnose", "diagnose", lambda o: "No rank waits in MPI" in o),
    ]:
        ts = []
        for _ in range(a.views):
            t, out = c.cmd(line)
            if not check(out):
                raise Fail(f"{name}: unexpected answer: {out[-600:]!r}")
            ts.append(t)
        r[f"{name}_ms"] = [ms(x) for x in ts]
        r[f"{name}_median_ms"] = ms(statistics.median(ts))


def gdb_views(g, a, r):
    """The same facts from N gdbs: every gdb's frames, every gdb's value."""
    for name, line, rx in [
        ("stacks", "-stack-list-frames", rb"^\^done,stack="),
        ("compare", f'-data-evaluate-expression "{VIEW_EXPR}"', rb"^\^done,value="),
    ]:
        ts = []
        for _ in range(a.views):
            t = time.monotonic()
            g.send_all(line)
            g.wait_all(rx, name)
            ts.append(time.monotonic() - t)
        r[f"{name}_ms"] = [ms(x) for x in ts]
        r[f"{name}_median_ms"] = ms(statistics.median(ts))


# ---------------------------------------------------------------------------------- gdb/MI


class Gdbs:
    """N gdb/MI processes driven together through one selector."""

    def __init__(self, gdb, prog, n, timeout):
        self.timeout = timeout
        self.sel = selectors.DefaultSelector()
        self.procs = []
        self.bufs = []
        env = dict(os.environ)
        env.pop("DEBUGINFOD_URLS", None)
        for i in range(n):
            e = dict(env, COHORT_RANK=str(i), COHORT_SIZE=str(n))
            p = subprocess.Popen(
                [gdb, "-nx", "-q", "--interpreter=mi", "-iex", "set debuginfod enabled off", prog],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=e,
            )
            os.set_blocking(p.stdout.fileno(), False)
            self.sel.register(p.stdout.fileno(), selectors.EVENT_READ, i)
            self.procs.append(p)
            self.bufs.append(b"")

    def send_all(self, line):
        data = line.encode() + b"\n"
        for p in self.procs:
            p.stdin.write(data)
            p.stdin.flush()

    def wait_all(self, pattern, what):
        """Wait until every gdb has printed a line matching `pattern` (bytes regex, matched
        against complete lines); returns the first matching line of each."""
        rx = re.compile(pattern)
        got = [None] * len(self.procs)
        left_n = len(self.procs)
        # Lines already buffered.
        for i in range(len(self.procs)):
            got[i] = self._scan(i, rx)
            if got[i] is not None:
                left_n -= 1
        end = time.monotonic() + self.timeout
        while left_n:
            left = end - time.monotonic()
            if left <= 0:
                miss = [i for i, g in enumerate(got) if g is None]
                raise Fail(f"gdb {what}: {len(miss)} gdbs did not answer (first: {miss[:5]}, {self.bufs[miss[0]][-300:]!r})")
            for key, _ in self.sel.select(left):
                i = key.data
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise Fail(f"gdb {i} ended: {self.bufs[i][-300:]!r}")
                self.bufs[i] += chunk
                if got[i] is None:
                    got[i] = self._scan(i, rx)
                    if got[i] is not None:
                        left_n -= 1
        return got

    def _scan(self, i, rx):
        """Consume complete lines of gdb i up to the first matching one."""
        b = self.bufs[i]
        pos = 0
        while True:
            nl = b.find(b"\n", pos)
            if nl < 0:
                self.bufs[i] = b[pos:]
                return None
            line = b[pos:nl]
            pos = nl + 1
            if line.startswith(b"^error"):
                self.bufs[i] = b[pos:]
                raise Fail(f"gdb {i}: {line[:300]!r}")
            if rx.search(line):
                self.bufs[i] = b[pos:]
                return line

    def close(self):
        for p in self.procs:
            try:
                p.stdin.write(b"-gdb-exit\n")
                p.stdin.flush()
                p.stdin.close()
            except OSError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def stopped_line(line):
    m = re.search(rb'line="(\d+)"', line)
    return int(m.group(1)) if m else None


def run_gdb(a):
    r = {"tool": "gdb", "bp": a.bp or str(a.line), "n": a.n, "k": a.k}
    src = os.path.basename(a.src)
    t0 = time.monotonic()
    g = Gdbs(a.gdb, a.prog, a.n, a.settle / 1000 + 60)
    wd = Watchdog(a.min_avail, lambda: [p.pid for p in g.procs])
    try:
        g.wait_all(rb"^\(gdb\)", "start-up")
        r["loaded_s"] = round(time.monotonic() - t0, 4)
        g.send_all("-break-insert main")
        g.send_all("-exec-run")
        got = g.wait_all(rb"^\*stopped", "run to main")
        r["start_s"] = round(time.monotonic() - t0, 4)
        if any(b'func="main"' not in x for x in got):
            raise Fail(f"run: not every gdb at main: {got[0][:300]!r}")
        loop = set(range(a.line, a.line + 5)) | {a.line - 1}
        t = time.monotonic()
        g.send_all(f"-break-insert {a.bp or src + ':' + str(a.line)}")
        g.wait_all(rb"^\^done,bkpt=", "break")
        r["break_ms"] = ms(time.monotonic() - t)
        t = time.monotonic()
        g.send_all("-exec-continue")
        got = g.wait_all(rb"^\*stopped", "continue")
        r["continue_ms"] = ms(time.monotonic() - t)
        if any(stopped_line(x) != a.line for x in got):
            raise Fail(f"continue: not at line {a.line}: {got[0][:300]!r}")
        g.send_all("-break-delete")
        g.wait_all(rb"^\^done", "delete")
        steps = []
        seen = set()
        for _ in range(a.k):
            t = time.monotonic()
            g.send_all("-exec-next")
            got = g.wait_all(rb"^\*stopped", "next")
            steps.append(time.monotonic() - t)
            ls = {stopped_line(x) for x in got}
            if len(ls) != 1 or not ls <= loop:
                raise Fail(f"next: gdbs stopped at lines {ls}")
            seen |= ls
        r["step_ms"] = [ms(s) for s in steps]
        r["step_median_ms"] = ms(statistics.median(steps)) if steps else None
        r["step_mean_ms"] = ms(statistics.mean(steps)) if steps else None
        r["lines"] = sorted(seen)
        if a.views:
            gdb_views(g, a, r)
        m = [mem(p.pid) for p in g.procs]
        r["gdb_rss_kib_median"] = int(statistics.median(x[0] for x in m))
        r["gdb_rss_kib_sum"] = sum(x[0] for x in m)
        r["gdb_pss_kib_sum"] = sum(x[1] for x in m)
        r["gdb_pss_kib_median"] = int(statistics.median(x[1] for x in m))
        r["ok"] = True
    except Fail as e:
        r["ok"] = False
        r["error"] = str(e)
    finally:
        t = time.monotonic()
        g.close()
        r["quit_s"] = round(time.monotonic() - t, 3)
        wd.done(r)
    return r


def run_batch(a):
    """The subtraction method: the same `cohort launch -batch` with and without K `next`s,
    alternated `--reps` times; per step = (median with - median without) / K."""
    base = [a.cohort, "launch", "-n", str(a.n), "-nx", "-batch", "--settle", str(a.settle), "--timeout", str(a.settle)]
    if a.agents:
        base += ["--agents", str(a.agents)]
    pre = ["-ex", f"break {a.bp or a.line}", "-ex", "continue", "-ex", "delete"]
    with_k = base + pre + ["-ex", "next"] * a.k + ["--", a.prog]
    without = base + pre + ["--", a.prog]
    r = {"tool": "cohort-batch", "bp": a.bp or str(a.line), "n": a.n, "k": a.k, "reps": a.reps}
    tw, tb = [], []
    for _ in range(a.reps):
        for argv, acc in ((without, tb), (with_k, tw)):
            t = time.monotonic()
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            acc.append(time.monotonic() - t)
            out = p.stdout.decode(errors="replace")
            nstops = len(re.findall(r"^" + re.escape(all_ranks(a.n)) + r" \d+\t", out, re.M))
            # The `start` answer, the stop at the breakpoint, then one per `next`.
            want = 2 + (a.k if acc is tw else 0)
            if p.returncode != 0 or nstops != want:
                r["ok"] = False
                r["error"] = f"batch run: exit {p.returncode}, {nstops} merged stops (want {want}): {out[-400:]!r}"
                return r
    r["with_s"] = [round(x, 4) for x in tw]
    r["without_s"] = [round(x, 4) for x in tb]
    r["step_ms"] = ms((statistics.median(tw) - statistics.median(tb)) / a.k)
    r["ok"] = True
    return r


def run_tree(a):
    """Tree formation only: `cohort launch -batch` (the ranks are still started and stopped at
    main, then the session ends); the figure is the first line's `tree formed in X ms`."""
    argv = [a.cohort, "launch", "-n", str(a.n), "-nx", "-batch", "--settle", str(a.settle), "--timeout", str(a.settle)]
    argv += ["--agents", str(a.agents or 1)]
    if a.fanout:
        argv += ["--fanout", a.fanout]
    argv += ["--", a.prog]
    r = {"tool": "tree", "n": a.n, "agents": a.agents or 1, "fanout": a.fanout or "32,8"}
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wd = Watchdog(a.min_avail, lambda: children_of(p.pid) + [p.pid])
    out = p.communicate()[0].decode(errors="replace")
    m = re.search(r"^cohort: (\d+) ranks under (\d+) agents?, tree formed in (\d+) ms", out, re.M)
    r["ok"] = bool(m) and p.returncode == 0 and "never joined" not in out and "lost" not in out
    if m:
        r["tree_ms"] = int(m.group(3))
    if not r["ok"]:
        r["error"] = f"exit {p.returncode}: {out[:400]!r}"
    wd.done(r)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool", choices=["cohort", "gdb", "cohort-batch", "tree"])
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--line", type=int, required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--src", default="bench/fixtures/ploop.c")
    ap.add_argument("--agents", type=int, default=0)
    ap.add_argument("--fanout", default="")
    ap.add_argument("--settle", type=int, default=60000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--views", type=int, default=0, help="times each of stacks, compare and diagnose is run (0: none)")
    ap.add_argument("--min-avail", type=int, default=3072, help="MiB of MemAvailable below which the run is killed")
    ap.add_argument("--bp", default="", help="breakpoint spec to reach the loop (default: LINE)")
    ap.add_argument("--cohort", default="target/release/cohort")
    ap.add_argument("--gdb", default="gdb")
    a = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    r = {"cohort": run_cohort, "gdb": run_gdb, "cohort-batch": run_batch, "tree": run_tree}[a.tool](a)
    print(json.dumps(r), flush=True)
    return 0 if r.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
