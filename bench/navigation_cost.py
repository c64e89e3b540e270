"""What the navigation lane costs a recall: the same navigation question through `Tabane.recall`
under the `maximal` plan and under `maximal_without_navigation` (the baseline), alternating, on a
stored corpus (an eval home), and a question that is not navigation under both (the lane's cost
when it does not run: an empty bound array in the statement).

    .venv/bin/python bench/navigation_cost.py --home HOME --context CONTEXT [--repeat 15]
        [--question "Where is the network configuration documented?"]

Prints p50 and p95 in ms per (question, plan) and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from tabane.config import Settings
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

PLANS = ("maximal_without_navigation", "maximal")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--context", required=True)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--question", default="Where is the network configuration documented?")
    ap.add_argument("--other", default="How do I configure the network interfaces?")
    args = ap.parse_args()
    import os

    os.environ["TABANE_HOME"] = args.home
    settings = replace(Settings.from_env(), worker="off")
    with Tabane.open(settings) as svc:
        user = svc.local_user()
        times: dict[tuple[str, str], list[float]] = {}
        for i in range(args.repeat + 2):  # two warm-up rounds
            for question in (args.question, args.other):
                for plan in PLANS if i % 2 == 0 else PLANS[::-1]:
                    request = RecallRequest(question, (args.context,), force=True, plan=plan)
                    started = time.perf_counter()
                    svc.recall(user, request)
                    if i >= 2:
                        ms = (time.perf_counter() - started) * 1000
                        times.setdefault((question, plan), []).append(ms)
    print("| question | plan | p50 ms | p95 ms | p50 / baseline |")
    print("|---|---|---|---|---|")
    for question in (args.question, args.other):
        base = statistics.median(times[(question, PLANS[0])])
        for plan in PLANS:
            got = sorted(times[(question, plan)])
            p50 = statistics.median(got)
            p95 = got[min(len(got) - 1, round(0.95 * (len(got) - 1)))]
            print(f"| {question} | {plan} | {p50:.1f} | {p95:.1f} | {p50 / base:.2f} |")


if __name__ == "__main__":
    main()
