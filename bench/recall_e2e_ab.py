"""`Tabane.recall` end to end, this tree against a baseline tree, alternating per question: two
worker processes (one per tree, each with its `src` first on sys.path) open the same built store
(recall_tail.py's `--home`; the embedded server is shared) and answer the dev questions one at a
time, in the order old/new, new/old, …, so the machine's load falls on both alike. Reports p50 /
p95 / max of the wall time and of the worker's own CPU (`time.process_time`, client side).

    git worktree add --detach /tmp/base main
    .venv/bin/python bench/recall_e2e_ab.py --home /tmp/rtail-home --baseline-tree /tmp/base
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import _env
from search_latency import pct, questions

WORKER = r"""
import json, sys, time
from pathlib import Path
from tabane.config import Settings
from tabane.models.local import UseEmbedder
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane
home, context = Path(sys.argv[1]), sys.argv[2]
svc = Tabane.open(Settings(home=home, worker="off"), embedder=UseEmbedder())
user = svc.local_user()
svc.recall(user, RecallRequest("warm up", contexts=(context,), force=True))
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    q = json.loads(line)
    cpu, wall = time.process_time(), time.perf_counter()
    got = svc.recall(user, RecallRequest(q, contexts=(context,), force=True))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    items = [it.key for it in got.items]
    print(json.dumps({"ms": wall * 1e3, "cpu": cpu * 1e3, "items": items}), flush=True)
svc.close()
"""


def start(tree: Path, home: str, context: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{_env.REPO / 'bench'}"}
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, home, context],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and json.loads(proc.stdout.readline())["ready"]
    return proc


def ask(proc: subprocess.Popen[str], q: str) -> dict[str, object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(q) + "\n")
    proc.stdin.flush()
    return dict(json.loads(proc.stdout.readline()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--baseline-tree", required=True, type=Path)
    ap.add_argument("--context", default="bench")
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    info = _env.describe()
    procs = {
        "baseline": start(args.baseline_tree, args.home, args.context),
        "now": start(_env.REPO, args.home, args.context),
    }
    wall: dict[str, list[float]] = {k: [] for k in procs}
    cpu: dict[str, list[float]] = {k: [] for k in procs}
    differ = 0
    try:
        for i, q in enumerate(questions(args.queries)):
            got = {}
            for which in ("now", "baseline") if i % 2 else ("baseline", "now"):
                got[which] = ask(procs[which], q)
                wall[which].append(float(got[which]["ms"]))  # type: ignore[arg-type]
                cpu[which].append(float(got[which]["cpu"]))  # type: ignore[arg-type]
            differ += got["now"]["items"] != got["baseline"]["items"]
    finally:
        for proc in procs.values():
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=60)
    print(_env.header(info))
    print(f"\nquestions {len(wall['now'])}, baseline tree {args.baseline_tree}\n")
    print("| Tabane.recall | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|")
    for which in procs:
        for name, xs in (("wall", wall[which]), ("client CPU", cpu[which])):
            print(f"| {which}, {name} | {pct(xs, 0.5):.1f} | {pct(xs, 0.95):.1f} | {max(xs):.1f} |")
    w, n = wall["baseline"], wall["now"]
    print(
        f"\nbaseline / now, wall: p50 {pct(w, 0.5) / pct(n, 0.5):.2f}×, "
        f"p95 {pct(w, 0.95) / pct(n, 0.95):.2f}×"
    )
    print(f"questions whose served items differ: {differ} of {len(n)}")


if __name__ == "__main__":
    main()
