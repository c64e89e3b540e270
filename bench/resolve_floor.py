"""resolve's default semantic floor, chosen by measurement: `tabane eval graph` at a grid of
semantic floors against no floor (the baseline, measured in the same run), per graph set.

For each floor every cue of the set is resolved with `--semantic-floor F`; reported per floor:
needed-triple coverage (micro, all-needed), resolution@1/@5 of the descriptive cues (the ones
only the semantic tier can answer) and of every cue, and semantic noise@5 — semantic candidates
among a cue's first five names that are not its target, summed over the cues. A floor is safe
when coverage and resolution@5 equal the baseline's; the default is the highest safe floor on
the tuning set (graph.json), confirmed on the other (graph2.json).

    .venv/bin/python bench/resolve_floor.py /work/shared/eval/dev/graph.json \\
        /work/shared/eval/dev/graph2.json [--floors 0.1,0.15,0.2,0.25,0.3] [--json out.json]

Runs in a temporary TABANE_HOME (the default embedder: the floor is a property of the model).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import _env


def run(set_path: Path, floor: float, home: Path) -> dict[str, Any]:
    out = home / "report.json"
    cmd = [sys.executable, "-m", "tabane.cli.main", "eval", "graph", str(set_path)]
    cmd += ["--json", str(out)]
    cmd += ["--semantic-floor", str(floor)]
    env = {**os.environ, "TABANE_HOME": str(home)}
    env.pop("TABANE_SEMANTIC_FLOOR", None)  # the call's floor alone decides
    subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def summary(report: dict[str, Any]) -> dict[str, float]:
    overall = report["overall"]
    res = report["resolution"]
    desc = res.get("descriptive", {"cues": 0, "at1": 0, "at5": 0, "noise5": 0})
    cues = sum(r["cues"] for r in res.values()) or 1
    return {
        "micro": overall["present"] / (overall["needed"] or 1),
        "all_needed": overall["all_needed"] / (overall["questions"] or 1),
        "desc_at1": desc["at1"] / (desc["cues"] or 1),
        "desc_at5": desc["at5"] / (desc["cues"] or 1),
        "at5": sum(r["at5"] for r in res.values()) / cues,
        "noise5": sum(r["noise5"] for r in res.values()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--floors", default="0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    # the baseline: no floor (-1 is the least cosine, so nothing is floored), not the default
    floors: list[float] = [-1.0, *(float(f) for f in args.floors.split(","))]
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="tabane-floor-") as tmp:
        for set_path in args.sets:
            rows = results.setdefault(set_path.name, [])
            for floor in floors:
                rows.append({"floor": floor, **summary(run(set_path, floor, Path(tmp)))})
                print(f"{set_path.name} floor {floor}: {rows[-1]}", file=sys.stderr)
    for name, rows in results.items():
        base = rows[0]
        print(f"\n**{name}** (baseline: no floor)\n")
        print("| floor | micro | all-needed | desc@1 | desc@5 | all@5 | noise@5 | safe |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            safe = all(r[k] >= base[k] for k in ("micro", "all_needed", "at5"))
            floor = "none" if r["floor"] == -1.0 else f"{r['floor']:.2f}"
            shown = "yes" if safe else "no"
            print(
                f"| {floor} | {r['micro']:.3f} | {r['all_needed']:.3f} | {r['desc_at1']:.3f} | "
                f"{r['desc_at5']:.3f} | {r['at5']:.3f} | {r['noise5']:.0f} | {shown} |"
            )
    if args.json:
        args.json.write_text(json.dumps({"env": _env.describe(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
