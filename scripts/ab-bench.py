#!/usr/bin/env python3
"""A/B timing of two builds of nkl on the same workloads, in alternating rounds.

  scripts/ab-bench.py [--rounds N] [--calibration FILE] BUILD_A BUILD_B ID [ID ...]

BUILD_A and BUILD_B are build directories (each with its `nkl`), ID a catalog row such as
`LayerNormQuantFwd:W8`. Each round runs `nkl bench --id ID --baselines none` once per build
and row, A then B, so both see the machine in about the same state; on a shared machine
whose bandwidth drifts by tens of percent within minutes, only ratios taken this close
together mean anything (docs/methodology.md). Per row it prints every round's B/A ratio of
the median times and their median, and the median of each build's SOL against its row
triad (the DRAM triad measured next to the row). One calibration for both builds (default
BUILD_A/calibration.json, else none: then no SOL). Exit status 1 if a run fails or a
row's check does not pass.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def bench(build, row, calibration):
    """One `nkl bench` of row with build: (median ms, SOL vs row triad or None)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [os.path.join(build, "nkl"), "bench", "--id", row, "--baselines", "none",
               "--json", out.name]
        if calibration:
            cmd += ["--calibration", calibration]
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit(f"ab-bench: {' '.join(cmd)} failed ({run.returncode}):\n{run.stderr}")
        rows = json.load(open(out.name))["rows"]
    if len(rows) != 1:
        sys.exit(f"ab-bench: {row} matched {len(rows)} rows, expected one")
    ours = rows[0]["ours"]
    if ours.get("status") != "ok" or ours.get("check", {}).get("status") != "pass":
        sys.exit(f"ab-bench: {row} with {build}: status {ours.get('status')}, "
                 f"check {ours.get('check', {}).get('status')}")
    return ours["median_ms"], rows[0].get("sol_row")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--calibration", help="default: BUILD_A/calibration.json if it exists")
    p.add_argument("build_a")
    p.add_argument("build_b")
    p.add_argument("ids", nargs="+", metavar="ID")
    a = p.parse_args()
    for b in (a.build_a, a.build_b):
        if not os.access(os.path.join(b, "nkl"), os.X_OK):
            sys.exit(f"ab-bench: no executable {b}/nkl")
    cal = a.calibration
    if cal is None and os.path.exists(os.path.join(a.build_a, "calibration.json")):
        cal = os.path.join(a.build_a, "calibration.json")
    res = {row: {"a": [], "b": []} for row in a.ids}
    for r in range(1, a.rounds + 1):
        for row in a.ids:
            for side, build in (("a", a.build_a), ("b", a.build_b)):
                res[row][side].append(bench(build, row, cal))
            (ta, sa), (tb, sb) = res[row]["a"][-1], res[row]["b"][-1]
            print(f"round {r}/{a.rounds} {row}: A {ta:.4f} ms, B {tb:.4f} ms, B/A {tb / ta:.3f}",
                  file=sys.stderr, flush=True)
    print(f"{'row':32} {'B/A median':>10}  {'A sol_row':>9} {'B sol_row':>9}  B/A per round")
    for row in a.ids:
        ra = [t for t, _ in res[row]["a"]]
        rb = [t for t, _ in res[row]["b"]]
        ratios = [y / x for x, y in zip(ra, rb)]
        sols = []
        for side in ("a", "b"):
            s = [v for _, v in res[row][side] if v is not None]
            sols.append(f"{100 * statistics.median(s):8.0f}%" if s else f"{'-':>9}")
        print(f"{row:32} {statistics.median(ratios):10.3f}  {sols[0]} {sols[1]}  "
              + " ".join(f"{x:.2f}" for x in ratios))


if __name__ == "__main__":
    main()
