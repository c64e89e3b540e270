"""Ingest until lexically searchable, this tree against an older commit (`--old`, checked out
beside it with `git worktree`), alternating rounds in the same run; each round is a fresh process
(PYTHONPATH set to its tree's `src/`) writing into a fresh store. No embedder, no worker.

Two workloads a round:
  text   `--paragraphs` paragraphs of the dev corpora given as text (search_latency.py's),
         1,000 a source through `Tabane.ingest`;
  files  the HTML files of `--corpus` through `Tabane.ingest_paths` (what `tabane ingest DIR`
         runs): read, parsed and stored.

With `--peers` each round also runs, in a fresh process of its own between the two trees, the
peers on the same text paragraphs until searchable by words: LanceDB (a table from an Arrow
batch, then its native FTS index) and tantivy (one document a paragraph, a commit, a reload);
both from the `bench` extra. `--files-only` / `--text-only` run one workload.

    .venv/bin/python bench/ingest_ab.py --old main --paragraphs 20000 --rounds 2 --peers
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _env

BENCH = Path(__file__).resolve().parent


def peers(texts_file: str) -> None:
    """One round of the peers: prints {"lancedb": paragraphs/s, "tantivy": paragraphs/s}."""
    import lancedb
    import pyarrow as pa
    import tantivy

    texts = json.loads(Path(texts_file).read_text())
    out: dict[str, float] = {}
    tmp = Path(tempfile.mkdtemp(prefix="tabane-ingest-peers-"))
    try:
        t0 = time.perf_counter()
        db = lancedb.connect(str(tmp / "lance"))
        batch = pa.table({"id": list(range(len(texts))), "text": texts})
        table = db.create_table("paragraphs", data=batch)
        table.create_fts_index("text")
        word = max((w for w in texts[0].split() if w.isalpha()), key=len, default="data")
        assert table.search(word, query_type="fts").limit(1).to_list()  # searchable by words
        out["lancedb"] = len(texts) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("id", stored=True)
        builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
        (tmp / "tantivy").mkdir()
        index = tantivy.Index(builder.build(), path=str(tmp / "tantivy"))
        writer = index.writer()
        for i, text in enumerate(texts):
            writer.add_document(tantivy.Document(id=i, text=text))
        writer.commit()
        index.reload()
        assert index.searcher().num_docs == len(texts)
        out["tantivy"] = len(texts) / (time.perf_counter() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out))


def child(texts_file: str, corpus: str, only: str) -> None:
    """One round: prints {"text": paragraphs/s, "files": paragraphs/s, ...}."""
    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.service import Tabane
    from tabane.storage import embedded

    texts = json.loads(Path(texts_file).read_text())
    home = Path(tempfile.mkdtemp(prefix="tabane-ingest-ab-"))
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    out: dict[str, float] = {}
    try:
        user = svc.local_user()
        svc.create_context(user, "text")
        svc.create_context(user, "files")
        t0 = time.perf_counter()
        for i in range(0, len(texts), 1000) if only != "files" else ():
            chunk = [block(t) for t in texts[i : i + 1000]]
            svc.ingest(user, "text", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        out["text"] = len(texts) / (time.perf_counter() - t0) if only != "files" else 0.0
        files = sorted(Path(corpus).rglob("*.html")) if only != "text" else []
        t0 = time.perf_counter()
        report = svc.ingest_paths(user, "files", files)
        took = time.perf_counter() - t0
        out["files"] = report.paragraphs / took if files else 0.0
        out["files_n"] = len(files)
        out["files_paragraphs"] = report.paragraphs
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="main", help="the commit to compare against")
    ap.add_argument("--paragraphs", type=int, default=20_000)
    ap.add_argument("--corpus", default="/usr/share/doc/git-doc")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of each tree, alternating")
    ap.add_argument("--peers", action="store_true", help="LanceDB and tantivy each round")
    ap.add_argument("--only", choices=("text", "files", "both"), default="both")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--peers-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peers_child:
        peers(args.peers_child)
        return
    if args.child:
        child(*args.child, args.only)
        return
    from search_latency import paragraphs

    info = _env.describe()
    tmp = Path(tempfile.mkdtemp(prefix="tabane-bench-ingest-ab-"))
    texts_file = tmp / "texts.json"
    texts_file.write_text(json.dumps(paragraphs(args.paragraphs)))
    old_tree = tmp / "old"
    subprocess.run(["git", "worktree", "add", "--detach", str(old_tree), args.old],
                   cwd=_env.REPO, check=True, capture_output=True)  # fmt: skip
    trees = {"old": old_tree / "src", "new": _env.REPO / "src"}
    runs: dict[str, list[dict[str, float]]] = {v: [] for v in (*trees, "peers")}
    loads: list[float] = []
    try:
        for r in range(args.rounds):
            order = ["old", "peers", "new"] if r % 2 == 0 else ["new", "peers", "old"]
            for variant in order if args.peers else [v for v in order if v != "peers"]:
                loads.append(os.getloadavg()[0])
                tree = trees["new" if variant == "peers" else variant]
                path = os.pathsep.join([str(tree), str(BENCH)])
                call = ["--peers-child", str(texts_file)] if variant == "peers" else [
                    "--only", args.only, "--child", str(texts_file), args.corpus]  # fmt: skip
                done = subprocess.run(
                    [sys.executable, __file__, *call],
                    env={**os.environ, "PYTHONPATH": path},
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(done.stdout.strip().splitlines()[-1])
                runs[variant].append(got)
                print(variant, got, file=sys.stderr, flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=_env.REPO,
                       capture_output=True)  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)
    print(_env.header(info))
    first = runs["new"][0]
    if args.peers:
        new_text = statistics.median(r["text"] for r in runs["new"])
        print("| peers, the same text paragraphs (median) | paragraphs/s | tabane (new) / peer |")
        print("|---|---:|---:|")
        for peer in ("lancedb", "tantivy"):
            rate = statistics.median(r[peer] for r in runs["peers"])
            print(f"| {peer} | {rate:,.0f} | {new_text / rate:.2f}× |")
        print()
    print(f"\nold = {args.old}, new = this tree; {args.rounds} rounds each, alternating; "
          f"load {min(loads):.1f}–{max(loads):.1f}\n")  # fmt: skip
    print("| paragraphs/s (median) | old | new | new / old |\n|---|---:|---:|---:|")
    for key, label in (
        ("text", f"{args.paragraphs} paragraphs as text, 1,000 a source"),
        ("files", f"{first['files_n']:.0f} HTML files, {first['files_paragraphs']:.0f} paragraphs"),
    ):
        if not first[key]:
            continue
        old = statistics.median(r[key] for r in runs["old"])
        new = statistics.median(r[key] for r in runs["new"])
        print(f"| {label} | {old:,.0f} | {new:,.0f} | {new / old:.2f}× |")


if __name__ == "__main__":
    main()
