"""Moving a context: `export_context` and `import_context` against writing the same context in
the first place (ingest of the files, then the claims in batches), in the same run and store.

Phases, over the python3.11-doc corpus (files selected as ingest_throughput.py does) and
`--claims` generated world claims (subjects and objects from the corpus's frequent words, a tenth
of them corrections that supersede an earlier claim, a twentieth retracted):

- write (baseline): `Tabane.ingest` of each file, then `Tabane.add_claims` in batches of 1,000;
- export: `Tabane.export_context`, every line serialised as the CLI writes it (bytes, lines/s);
- import: `Tabane.import_context` of those lines under a new name, as a second user (the personal
  scope mapped), until committed;
- parity: the BM25 lane over `--queries` dev-set questions in both contexts (the same hits, in the
  same order, with the same scores) and the context's edges (the same net weights).

Embedding is off (embedder `none`, worker `off`) in every phase: the importing store embeds again
through its jobs, measured by embed_throughput.py. Reported: wall and CPU seconds (Python and the
PostgreSQL server), paragraphs/s, import ÷ write, the archive's size against the files', and the
peak RSS of this process after each phase.

    .venv/bin/python bench/archive_move.py --corpus /usr/share/doc/python3.11/html --claims 20000
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

import _env
from _store import fresh_store
from ingest_throughput import select_files, server_cpu
from search_latency import questions

WORD = re.compile(r"[A-Za-z][A-Za-z_]{3,}")


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Clock:
    """Wall, Python CPU and server CPU seconds of one phase."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.t, self.c, self.s = time.perf_counter(), time.process_time(), server_cpu(home)

    def stop(self) -> dict[str, float]:
        return {
            "seconds": time.perf_counter() - self.t,
            "cpu": time.process_time() - self.c,
            "server_cpu": server_cpu(self.home) - self.s,
        }


def claim_batches(words: list[str], n: int, seed: int = 11) -> list[list[dict[str, Any]]]:
    rng = random.Random(seed)
    pick = lambda: words[int(len(words) * rng.random() ** 2)]  # noqa: E731 - skewed to frequent
    rows = [
        {"subject": pick(), "label": rng.choice(("uses", "returns", "raises")), "object": pick()}
        for _ in range(n)
    ]
    return [rows[i : i + 1000] for i in range(0, n, 1000)]


def write(
    svc: Any, user: Any, files: list[tuple[str, Path]], words: list[str], claims: int
) -> dict[str, Any]:
    from tabane.graph.claims.parse import ClaimInput
    from tabane.ingest.documents import DocumentInput

    clock = Clock(svc.settings.home)
    paragraphs = 0
    for rel, path in files:
        paragraphs += svc.ingest(
            user, "docs", DocumentInput(source_id=rel, data=path.read_bytes())
        ).paragraphs
    open_ids: list[int] = []
    triples: set[tuple[str, str, str]] = set()
    rng = random.Random(3)
    for batch in claim_batches(words, claims):
        inputs = []
        for row in batch:
            closes = (
                (open_ids.pop(rng.randrange(len(open_ids))),)
                if open_ids and rng.random() < 0.1
                else ()
            )
            inputs.append(
                ClaimInput(row["subject"], row["label"], row["object"], 1.0, closes=closes)
            )
            triples.add((row["subject"], row["label"], row["object"]))
        open_ids += svc.add_claims(user, "docs", inputs).claims
    gone = sorted(triples)[::20]  # a twentieth of the edges retracted
    for i in range(0, len(gone), 1000):
        svc.retract_associations(user, "docs", [(*t, None, None) for t in gone[i : i + 1000]])
    return {**clock.stop(), "paragraphs": paragraphs, "files": len(files)}


def frequent_words(files: list[tuple[str, Path]], n: int = 5000) -> list[str]:
    counts: collections.Counter[str] = collections.Counter()
    for _, path in files[:200]:
        counts.update(w.lower() for w in WORD.findall(path.read_text(errors="replace")))
    return [w for w, _ in counts.most_common(n)]


def parity(
    svc: Any, pairs: list[tuple[Any, str]], qs: list[str], words: list[str]
) -> dict[str, float]:
    from tabane.search.plan import SearchRequest

    same = 0
    for q in qs:
        answers = [
            [
                (h.source_id, h.paragraph, round(h.score, 9))
                for h in svc.search(
                    who, SearchRequest(q, contexts=(c,), lanes=("bm25",)), count_usage=False
                ).hits
            ]
            for who, c in pairs
        ]
        same += answers[0] == answers[1]
    edges = [
        sorted(
            (e.triple, round(e.weight, 9), e.claims)
            for e in svc.query(who, contexts=[c], any=list(words), limit=1000).edges
        )
        for who, c in pairs
    ]
    return {"same_bm25_hits": same / len(qs), "same_edges": float(edges[0] == edges[1])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=Path("/usr/share/doc/python3.11/html"))
    ap.add_argument("--claims", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--json")
    args = ap.parse_args()
    env = _env.describe()
    print(json.dumps(env))
    files = select_files(args.corpus)
    words = frequent_words(files)
    result: dict[str, Any] = {"env": env}
    with fresh_store("archive", None, local_user="bench", embedder="none") as svc:
        alice, bob = svc.local_user(), svc.add_user("importer")
        svc.create_context(alice, "docs")
        result["write"] = write(svc, alice, files, words, args.claims)
        result["rss_after_write_mib"] = rss_mib()
        clock = Clock(svc.settings.home)
        lines = [
            json.dumps(x, ensure_ascii=False, separators=(",", ":"))
            for x in svc.export_context(alice, "docs")
        ]
        result["export"] = {
            **clock.stop(),
            "lines": len(lines),
            "bytes": sum(len(x.encode()) + 1 for x in lines),
        }
        result["rss_after_export_mib"] = rss_mib()
        clock = Clock(svc.settings.home)
        report = svc.import_context(bob, lines, context="moved")
        result["import"] = {
            **clock.stop(),
            "paragraphs": report.paragraphs,
            "claims": report.claims,
        }
        result["rss_after_import_mib"] = rss_mib()
        result["parity"] = parity(
            svc, [(alice, "docs"), (bob, "moved")], questions(args.queries), words[:20]
        )
    result["files_bytes"] = sum(p.stat().st_size for _, p in files)
    w, e, i = result["write"], result["export"], result["import"]
    result["import_over_write_wall"] = i["seconds"] / w["seconds"]
    result["import_over_write_cpu"] = (i["cpu"] + i["server_cpu"]) / (w["cpu"] + w["server_cpu"])
    print(json.dumps(result, indent=2))
    print(
        f"\nwrite {w['seconds']:.1f} s ({w['paragraphs'] / w['seconds']:.0f} paragraphs/s), "
        f"export {e['seconds']:.1f} s ({e['bytes'] / 2**20:.1f} MiB, "
        f"{e['lines'] / e['seconds']:.0f} lines/s), "
        f"import {i['seconds']:.1f} s ({i['paragraphs'] / i['seconds']:.0f} paragraphs/s): "
        f"import / write = {result['import_over_write_wall']:.2f}× wall, "
        f"{result['import_over_write_cpu']:.2f}× CPU",
        file=sys.stderr,
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
