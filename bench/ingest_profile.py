"""Where an ingest's seconds go: 20k paragraphs as text (1,000 a source, `Tabane.ingest`) and the
git-doc HTML files (`Tabane.ingest_paths`), each in a fresh store, with cProfile on the client and
every statement's time (SQLAlchemy cursor events; COPY timed around the driver's copy) summed by
its first words. Prints a table per workload: wall, client CPU, server CPU, statements.

    .venv/bin/python bench/ingest_profile.py --paragraphs 20000 --corpus /usr/share/doc/git-doc
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import re
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import _env

_SQL_KEY = re.compile(r"\s+")


def _key(statement: str) -> str:
    words = _SQL_KEY.sub(" ", statement.strip()).split(" ")
    head = " ".join(words[:3])
    for w in ("paragraphs", "bm25_packs", "bm25_terms", "bm25_corpus", "sections", "sources",
              "jobs", "contexts", "tabane_stage"):  # fmt: skip
        if w in statement[:300]:
            return f"{head} … {w}"
    return head[:60]


def run(paragraphs: int, corpus: str, workload: str, top: int, sort: str) -> None:
    from ingest_throughput import server_cpu
    from search_latency import paragraphs as texts_of
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.service import Tabane
    from tabane.storage import embedded

    texts = texts_of(paragraphs) if workload == "text" else []
    files = sorted(Path(corpus).rglob("*.html")) if workload == "files" else []
    home = Path(tempfile.mkdtemp(prefix="tabane-ingest-prof-"))
    home.chmod(0o755)
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])

    @event.listens_for(Engine, "before_cursor_execute")
    def _before(conn, cursor, statement, params, context, executemany):  # type: ignore[no-untyped-def]
        conn.info.setdefault("t0", []).append(time.perf_counter())

    @event.listens_for(Engine, "after_cursor_execute")
    def _after(conn, cursor, statement, params, context, executemany):  # type: ignore[no-untyped-def]
        s = spent[_key(statement)]
        s[0] += time.perf_counter() - conn.info["t0"].pop()
        s[1] += 1

    import psycopg

    real_copy = psycopg.Cursor.copy

    from contextlib import contextmanager

    @contextmanager
    def timed_copy(self, statement, *a, **k):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        with real_copy(self, statement, *a, **k) as c:
            yield c
        s = spent["COPY " + statement.split()[1][:40]]
        s[0] += time.perf_counter() - t0
        s[1] += 1

    psycopg.Cursor.copy = timed_copy  # type: ignore[method-assign]
    prof = cProfile.Profile()
    try:
        user = svc.local_user()
        svc.create_context(user, "c")
        s0 = server_cpu(home)
        t0, c0 = time.perf_counter(), time.process_time()
        prof.enable()
        if workload == "text":
            for i in range(0, len(texts), 1000):
                chunk = [block(t) for t in texts[i : i + 1000]]
                svc.ingest(user, "c", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
            n = len(texts)
        else:
            n = svc.ingest_paths(user, "c", files).paragraphs
        prof.disable()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        scpu = server_cpu(home) - s0
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    print(f"\n## {workload}: {n} paragraphs, wall {wall:.2f} s ({n / wall:,.0f}/s), "
          f"client CPU {cpu:.2f} s, server CPU {scpu:.2f} s\n")  # fmt: skip
    print("| statement | s | calls | share of wall |\n|---|---:|---:|---:|")
    for k, (s, c) in sorted(spent.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"| `{k}` | {s:.2f} | {c} | {s / wall:.0%} |")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(sort).print_stats(top)
    print("\n```\n" + out.getvalue()[-12000:] + "\n```")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=20_000)
    ap.add_argument("--corpus", default="/usr/share/doc/git-doc")
    ap.add_argument("--workload", choices=("text", "files", "both"), default="both")
    ap.add_argument("--top", type=int, default=18)
    ap.add_argument("--sort", default="tottime")
    args = ap.parse_args()
    print(_env.header(_env.describe()))
    for w in ("text", "files") if args.workload == "both" else (args.workload,):
        run(args.paragraphs, args.corpus, w, args.top, args.sort)


if __name__ == "__main__":
    main()
