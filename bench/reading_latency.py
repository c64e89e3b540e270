"""What the reading route costs resolve: every cue of the graph sets resolved in a store holding
the set (loaded as `tabane eval graph` loads it), with the route on and off (its lookups
patched out) in the same process, alternating rounds; p50 / p95 per cue kind.

    .venv/bin/python bench/reading_latency.py $E/graph2.json [--rounds 5]

Kinds: `kana/kanji` (a cue with Japanese), `latin` (the rest); each cue is resolved with the
default embedder off (the semantic tier is not what is measured).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from unittest import mock

import _env
from _store import fresh_store


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("set", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from tabane.evaluation.graph_set import install, load
    from tabane.graph.resolve import tiers

    print(_env.header(_env.describe()))
    data = load(args.set)
    times: dict[tuple[str, str], list[float]] = {}
    with fresh_store("reading") as svc:
        user = svc.local_user()
        for gc in data.contexts:
            install(svc, user, gc, "b-" + gc.name)
        cues = [("b-" + q.context, c) for q in data.questions for c in q.cues]
        real = tiers.read
        for _ in range(args.rounds):
            for route, patched in (("on", real), ("off", lambda *a, **k: [])):
                with mock.patch.object(tiers, "read", patched):
                    for ctx, cue in cues:
                        kind = "latin" if cue.isascii() else "kana/kanji"
                        start = time.perf_counter()
                        svc.resolve(user, ctx, cue, limit=10)
                        took = (time.perf_counter() - start) * 1000
                        times.setdefault((kind, route), []).append(took)
    print("| cues | route | resolves | p50 ms | p95 ms |")
    print("|---|---|---|---|---|")
    for (kind, route), got in sorted(times.items()):
        got.sort()
        p95 = got[int(0.95 * (len(got) - 1))]
        print(f"| {kind} | {route} | {len(got)} | {statistics.median(got):.2f} | {p95:.2f} |")
    print(_env.load())


if __name__ == "__main__":
    main()
