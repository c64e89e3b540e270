"""How much prompt a recall bundle takes against its token budget, on docs sets already stored
(as `tabane eval docs` leaves them): for each question, the rendered evidence (all but the
question's line) estimated the way the budget estimates it — a CJK, kana or Hangul character one
token, other text `TABANE_CHARS_PER_TOKEN` characters a token — divided by the budget, and the
items served. A ratio above 1 is a bundle that overran the budget it was given.

    .venv/bin/python bench/recall_budget.py --home /tmp/tabane-eval \\
        --docs ../shared/eval/dev/pydocs.jsonl:python3.11-doc \\
        --docs ../shared/eval/dev/manpages-ja.jsonl:manpages-ja [--questions 30] [--budget 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import _env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="store that holds the corpora")
    ap.add_argument("--docs", action="append", required=True, help="SET.jsonl:CONTEXT")
    ap.add_argument("--questions", type=int, default=30, help="first N questions of each set")
    ap.add_argument("--budget", type=int, default=None, help="default: the server's")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.recall.cite import estimate
    from tabane.recall.plan import RecallRequest
    from tabane.service import Tabane

    print(_env.header(_env.describe(), load_after=False))
    settings = Settings.from_env({"TABANE_HOME": str(args.home), "TABANE_WORKER": "off"})
    cpt = settings.chars_per_token
    print("\n| set | questions | rendered / budget p50 | max | items p50 | tokens used p50 |")
    print("|---|---|---|---|---|---|")
    with Tabane.open(settings) as svc:
        user = svc.local_user()
        for spec in args.docs:
            path, _, context = spec.rpartition(":")
            lines = Path(path).read_text(encoding="utf-8").splitlines()
            asked = [json.loads(line)["question"] for line in lines[: args.questions]]
            ratios, items, used = [], [], []
            for question in asked:
                got = svc.recall(
                    user, RecallRequest(question, (context,), budget=args.budget, force=True)
                )
                body = got.rendered.split("\n", 1)[1] if "\n" in got.rendered else ""
                ratios.append(estimate(body, cpt) / got.trace.budget_tokens)
                items.append(len(got.items))
                used.append(got.trace.used_tokens)
            print(
                f"| {context} | {len(asked)} | {statistics.median(ratios):.2f} | "
                f"{max(ratios):.2f} | {statistics.median(items):g} | {statistics.median(used):g} |"
            )
    print("\n- load at end: " + _env.load())


if __name__ == "__main__":
    main()
