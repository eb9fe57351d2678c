#!/usr/bin/env python3
"""Tables for docs/BENCHMARKS.md from bench/parallel.sh's results (one JSON object a line).

    parallel_report.py target/bench/parallel/results.jsonl [machine.txt]
"""

import json
import statistics
import sys
from collections import defaultdict


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def f(x, fmt="{:.1f}"):
    return "–" if x is None else fmt.format(x)


def mib(k):
    return None if k is None else k / 1024


def slope(points):
    """Least-squares slope of (x, y)."""
    if len(points) < 2:
        return None
    mx = statistics.mean(p[0] for p in points)
    my = statistics.mean(p[1] for p in points)
    den = sum((p[0] - mx) ** 2 for p in points)
    return sum((p[0] - mx) * (p[1] - my) for p in points) / den if den else None


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
    if len(sys.argv) > 2:
        print("Machine:\n")
        for l in open(sys.argv[2]):
            print("    " + l.rstrip())
        print()

    steps = [r for r in rows if r["tool"] in ("cohort", "gdb") and str(r.get("bp", "")).startswith("*")]
    single = [r for r in steps if r["tool"] == "gdb" or r.get("agents", 1) == 1]
    scale = [r for r in steps if r["tool"] == "cohort" and r.get("agents", 1) > 1]
    by = defaultdict(list)
    for r in single:
        by[(r["tool"], r["n"])].append(r)
    ns = sorted({n for _, n in by})

    def ok(tool, n):
        return [r for r in by.get((tool, n), []) if r.get("ok")]

    def why(tool, n):
        bad = [r for r in by.get((tool, n), []) if not r.get("ok")]
        return bad[0].get("error", "failed")[:120] if bad else None

    print("Step-all latency (one `next` on every rank, ms; median over runs of each run's median of K steps):\n")
    floor = defaultdict(list)
    for r in rows:
        if r["tool"] == "floor" and r.get("ok"):
            floor[r["n"]].append(r["step_ms"])
    print("| N | cohort (ms) | cohort per rank (µs) | N gdbs (ms) | gdbs / cohort | target | kernel floor (ms) |")
    print("|---|---|---|---|---|---|---|")
    for n in ns:
        c = med([r["step_median_ms"] for r in ok("cohort", n)])
        g = med([r["step_median_ms"] for r in ok("gdb", n)])
        ratio = g / c if c and g else None
        tgt = ""
        if n == 64:
            tgt = "gdbs/cohort ≥ 20× " + ("✓" if ratio and ratio >= 20 else "✗")
        if n == 1024:
            tgt = "≤ 30 ms " + ("✓" if c is not None and c <= 30 else "✗")
        gtxt = f(g, "{:.2f}") if g is not None else ("not run" if by.get(("gdb", n)) else "–")
        ctxt = f(c, "{:.2f}") if c is not None else f"FAIL ({why('cohort', n)})"
        fl = med(floor.get(n, []))
        print(f"| {n} | {ctxt} | {f(c * 1000 / n if c else None, '{:.0f}')} | {gtxt} | {f(ratio, '{:.1f}×')} | {tgt} | {f(fl, '{:.2f}')} |")
    skipped = [r for r in single if r["tool"] == "gdb" and r.get("skipped")]
    for r in skipped[:1]:
        print(f"\ngdb at N={r['n']}: {r['error']}")
    for r in single:
        if r["tool"] == "gdb" and not r.get("ok") and not r.get("skipped"):
            print(f"\ngdb at N={r['n']} failed: {r.get('error', '')[:200]}")
            break

    if floor:
        print(
            "\nKernel floor: `bench/ptrace_floor.c`, the system calls the agent makes per rank and step "
            "(breakpoint write, PTRACE_CONT, waitpid, GETREGS, POKEUSER of the pc, breakpoint removal) "
            "and nothing else, N tracees on as many threads as the agent uses."
        )

    batch = [r for r in rows if r["tool"] == "cohort-batch" and r.get("ok")]
    for r in batch:
        print(
            f"\nCross-check (subtraction method, N={r['n']}): (median of {r['reps']} `cohort launch -batch` runs with "
            f"{r['k']} `next`s − median without) / {r['k']} = {r['step_ms']:.2f} ms per step."
        )

    print("\nMemory, all ranks stopped at the loop line (median over runs, MiB):\n")
    print("| N | agentd RSS | agentd PSS | agentd peak RSS | front end + agentd PSS | agentd RSS after `break LINE` | one gdb: RSS | one gdb: PSS | N gdbs: PSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    line_by = defaultdict(list)
    for r in rows:
        if r["tool"] == "cohort" and r.get("ok") and not str(r.get("bp", "")).startswith("*"):
            line_by[r["n"]].append(r)
    pts = []
    for n in ns:
        c = ok("cohort", n)
        g = ok("gdb", n)
        rss = med([mib(r["agentd_rss_kib"]) for r in c])
        if rss is not None:
            pts.append((n, rss))
        print(
            f"| {n} | {f(rss)} | {f(med([mib(r['agentd_pss_kib']) for r in c]))} | "
            f"{f(med([mib(r.get('agentd_hwm_kib')) for r in c]))} | {f(med([mib(r['cohort_side_pss_kib']) for r in c]))} | "
            f"{f(med([mib(r['agentd_rss_kib']) for r in line_by.get(n, [])]))} | "
            f"{f(med([mib(r['gdb_rss_kib_median']) for r in g]))} | {f(med([mib(r['gdb_pss_kib_median']) for r in g]))} | "
            f"{f(med([mib(r['gdb_pss_kib_sum']) for r in g]))} |"
        )
    s = slope(pts)
    print(f"\nagentd RSS per added rank (least-squares slope over N = {', '.join(str(p[0]) for p in pts)}): {f(s, '{:.2f}')} MiB (target ≤ 2 MiB)")
    for (a, x), (b, y) in zip(pts, pts[1:]):
        print(f"- from {a} to {b} ranks: {(y - x) / (b - a):.2f} MiB per rank")
    lp = [(n, med([mib(r["agentd_rss_kib"]) for r in line_by[n]])) for n in sorted(line_by)]
    s2 = slope(lp)
    if s2 is not None:
        print(f"- with `break LINE` (N = {', '.join(str(p[0]) for p in lp)}): {s2:.2f} MiB per rank")

    print("\nStart: launch to every rank stopped at `main` (s, median):\n")
    print("| N | cohort (`cohort launch`, to the `start` answer) | N gdbs (`-break-insert main`, `-exec-run`) | gdbs / cohort |")
    print("|---|---|---|---|")
    for n in ns:
        c = med([r["start_s"] for r in ok("cohort", n)])
        g = med([r["start_s"] for r in ok("gdb", n)])
        print(f"| {n} | {f(c, '{:.2f}')} | {f(g, '{:.2f}')} | {f(g / c if c and g else None, '{:.1f}×')} |")

    tree = defaultdict(list)
    for r in rows:
        if r["tool"] == "tree":
            tree[(r["agents"], r["fanout"])].append(r)
    if tree:
        print("\nTree formation (the first line's `tree formed in X ms`; one rank per agent; median, ms):\n")
        fans = sorted({k[1] for k in tree}, key=lambda s: [int(x) for x in s.split(",")])
        agents = sorted({k[0] for k in tree})
        print("| agents | " + " | ".join(f"--fanout {x}" for x in fans) + " |")
        print("|---|" + "---|" * len(fans))
        for a in agents:
            cells = []
            for x in fans:
                rs = tree.get((a, x), [])
                good = [r["tree_ms"] for r in rs if r.get("ok")]
                cells.append(f(med(good), "{:.0f}") + (f" ({len(rs) - len(good)} failed)" if len(good) < len(rs) else "") if rs else "–")
            print(f"| {a} | " + " | ".join(cells) + " |")

    if scale:
        print("\nScale (interactive session, `--fanout 32,8`, K = 5 `next`s):\n")
        print("| ranks | agents | tree (ms) | launch to all at main (s) | step-all (ms, median) | front end + agentd RSS (GiB) | machine memory used (GiB) | result |")
        print("|---|---|---|---|---|---|---|---|")
        for r in scale:
            print(
                f"| {r['n']} | {r['agents']} | {f(r.get('tree_ms'), '{:.0f}')} | {f(r.get('start_s'), '{:.1f}')} | "
                f"{f(r.get('step_median_ms'), '{:.0f}')} | {f(mib(mib(r.get('cohort_side_rss_kib'))), '{:.2f}')} | "
                f"{f((r.get('mem_avail_drop_mib') or 0) / 1024, '{:.1f}')} | {'ok' if r.get('ok') else 'FAIL: ' + r.get('error', '')[:160]} |"
            )


if __name__ == "__main__":
    main()
