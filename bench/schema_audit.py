"""The schema tools' costs, each against a baseline in the same run:

- strict writes: `add_claims` batches into a context whose schema is `strict` (every label
  declared), against the same batches into a context without a schema, batch by batch, which
  goes first alternating — the cost of the check (a schema read and a kinds query per batch);
- the audits over the whole written context (`--claims` claims): `audit_schema` (with a schema
  declaring half the labels and constraining one label's ends), `audit_consolidation` and
  `audit_drift`, against `audit_vocabulary` of concepts (the audit that already existed), each
  the median of `--repeat` runs.

The synthetic graph is bench/claims_write.py's (12 labels, `kind` among them). One fresh
embedded store in a temporary home, embedder `none`, worker `off`.

    .venv/bin/python bench/schema_audit.py [--claims 50000] [--batch 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)
import _store
from claims_write import LABELS, rows


def timed(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=5_000)
    ap.add_argument("--concepts", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.graph.claims.parse import parse_claims
    from tabane.graph.schema import KindDecl, LabelDecl, Schema

    data = rows(args.claims, args.concepts)
    batches = [parse_claims(data[i : i + args.batch]) for i in range(0, len(data), args.batch)]
    every = Schema(
        "", 0, strict=True, kind_label="kind", labels=tuple(LabelDecl(x) for x in LABELS)
    )
    half = Schema(
        "",
        0,
        strict=False,
        kind_label="kind",
        labels=(
            LabelDecl("calls", subject_kinds=("function",)),
            *(LabelDecl(x) for x in LABELS[3:8]),
        ),
        kinds=(KindDecl("function"),),
    )
    with _store.fresh_store("schema", None, embedder="none") as svc:
        user = svc.local_user()
        svc.create_context(user, "plain")
        svc.create_context(user, "strict")
        svc.put_schema(user, "strict", every, expected_version=0)
        plain_s = strict_s = 0.0
        for i, b in enumerate(batches):  # alternating which goes first
            for name in ("plain", "strict") if i % 2 == 0 else ("strict", "plain"):
                t = time.perf_counter()
                svc.add_claims(user, name, b)
                if name == "plain":
                    plain_s += time.perf_counter() - t
                else:
                    strict_s += time.perf_counter() - t
        svc.put_schema(user, "plain", half, expected_version=0)
        r = args.repeat
        vocab_s = timed(lambda: svc.audit_vocabulary(user, "plain", kind="concept"), r)
        schema_s = timed(lambda: svc.audit_schema(user, "plain"), r)
        counts = svc.audit_schema(user, "plain").counts
        cons_s = timed(lambda: svc.audit_consolidation(user, "plain"), r)
        drift_s = timed(lambda: svc.audit_drift(user, "plain"), r)

    result = {
        "env": _env.describe(),
        "claims": args.claims,
        "batch": args.batch,
        "concepts": args.concepts,
        "plain_claims_per_s": args.claims / plain_s,
        "strict_claims_per_s": args.claims / strict_s,
        "ratio_strict_to_plain_time": strict_s / plain_s,
        "audit_vocabulary_s": vocab_s,
        "audit_schema_s": schema_s,
        "audit_schema_counts": counts,
        "audit_consolidation_s": cons_s,
        "audit_drift_s": drift_s,
    }
    print("| phase | figure | ratio to baseline |\n|---|---|---|")
    print(f"| add_claims, no schema (baseline) | {result['plain_claims_per_s']:,.0f} claims/s | |")
    print(
        f"| add_claims, strict schema | {result['strict_claims_per_s']:,.0f} claims/s"
        f" | {result['ratio_strict_to_plain_time']:.3f}× the time |"
    )
    print(f"| audit_vocabulary, concepts (baseline) | {vocab_s * 1000:,.0f} ms | |")
    for name, s in (("schema", schema_s), ("consolidation", cons_s), ("drift", drift_s)):
        print(f"| audit_{name} | {s * 1000:,.0f} ms | {s / vocab_s:.2f}× |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    json.dump(result, sys.stderr, indent=2)


if __name__ == "__main__":
    main()
