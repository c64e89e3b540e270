"""Batch write throughput of claims, against a bare insert of the same rows in the same run.

Phases, each writing `--claims` claims in batches of `--batch` into its own fresh context of one
fresh embedded store (temporary TABANE_HOME, embedder `none`, worker `off`):

- bare (baseline): the claim rows alone, one `INSERT … SELECT FROM unnest(…)` per batch through
  the same RLS session — what the storage floor costs;
- write: `Tabane.add_claims(...)` — validation already done (`parse_claims` is timed apart), alias
  mapping, the claim rows, minting new spellings with their bigram index, and re-netting every
  touched association from its claims, all in one transaction per batch.

The synthetic graph: `--concepts` concept names (half English identifiers, half Japanese words),
12 labels, weights in [-1, 1]; about one edge in five repeats an existing one (so re-netting sums
more than one claim).

    .venv/bin/python bench/claims_write.py [--claims 100000] [--batch 10000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)
import _store

LABELS = [
    "kind",
    "defined_in",
    "calls",
    "field",
    "variant",
    "returns",
    "invariant",
    "purpose",
    "引き起こす",
    "原料",
    "次の工程",
    "所在地",
]
KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"


def concept(rng: random.Random, i: int) -> str:
    if i % 2:
        verb = rng.choice(["fetch", "evict", "arm", "read", "write"])
        return f"{verb}_{rng.choice(['block', 'cache', 'motor', 'frame'])}_{i}"
    return "".join(rng.choice(KANA) for _ in range(rng.randint(2, 5))) + str(i)


def rows(n: int, concepts: int, seed: int = 7) -> list[dict[str, object]]:
    rng = random.Random(seed)
    names = [concept(rng, i) for i in range(concepts)]
    out: list[dict[str, object]] = []
    for _ in range(n):
        if out and rng.random() < 0.2:
            base = dict(rng.choice(out))
        else:
            base = {
                "subject": rng.choice(names),
                "label": rng.choice(LABELS),
                "object": rng.choice(names),
            }
        base["weight"] = round(rng.uniform(-1, 1), 3) or 0.5
        out.append(base)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--concepts", type=int, default=20_000)
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.graph.claims.parse import parse_claims
    from tabane.storage.bulk import insert_columns
    from tabane.storage.schema import Claim, Context

    data = rows(args.claims, args.concepts)
    batches = [data[i : i + args.batch] for i in range(0, len(data), args.batch)]
    with _store.fresh_store("claims", None, embedder="none") as svc:
        user = svc.local_user()
        svc.create_context(user, "bare")
        svc.create_context(user, "write")
        t = time.perf_counter()
        parsed = [parse_claims(b) for b in batches]
        parse_s = time.perf_counter() - t

        from sqlalchemy import select

        t = time.perf_counter()
        for b in batches:
            with svc.store.session(user) as session:
                ctx = session.scalar(select(Context).where(Context.name == "bare"))
                assert ctx is not None
                cols = {k: [r[k] for r in b] for k in ("subject", "label", "object", "weight")}
                insert_columns(
                    session,
                    Claim.__table__,
                    cols,  # type: ignore[arg-type]
                    {"context_id": ctx.id, "scopes": list(ctx.scopes), "author": user.name},
                )
        bare_s = time.perf_counter() - t

        t = time.perf_counter()
        for p in parsed:
            svc.add_claims(user, "write", p)
        write_s = time.perf_counter() - t

    result = {
        "env": _env.describe(),
        "claims": args.claims,
        "batch": args.batch,
        "concepts": args.concepts,
        "parse_claims_per_s": args.claims / parse_s,
        "bare_insert_claims_per_s": args.claims / bare_s,
        "add_claims_per_s": args.claims / write_s,
        "ratio_write_to_bare": bare_s / write_s,
    }
    print("| phase | claims/s |\n|---|---|")
    print(f"| parse_claims (validation) | {result['parse_claims_per_s']:,.0f} |")
    print(f"| bare insert (baseline) | {result['bare_insert_claims_per_s']:,.0f} |")
    print(f"| add_claims | {result['add_claims_per_s']:,.0f} |")
    print(f"\nratio add_claims / bare insert: {result['ratio_write_to_bare']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    json.dump(result, sys.stderr, indent=2)


if __name__ == "__main__":
    main()
