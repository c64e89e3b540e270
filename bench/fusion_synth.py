"""Synthetic questions for the learned fusion (issue 29 item 4): read corpora of the zoo that no
docs dev set uses, pick sections, and ask each by its heading or by its first sentence.

A heading question is the section's last heading (one that names a single section of its
corpus and is not the page's title). A sentence question is the first sentence of the section's
first running-text paragraph; that sentence is removed from the stored paragraph, so the answer
is not a verbatim lookup. The answer is the section (and its document). The output has the shape
of bench/docs_study_dump.py (`<name>.json` with paragraphs and questions, `<name>.npz` with the
paragraph and question vectors of the default embedder), so bench/fusion_learn.py reads the
synthetic corpora and the dev dumps alike. The dev sets' corpora, and maint-guide (the English of
maint-guide-ja), are never read here.

    .venv/bin/python bench/fusion_synth.py /tmp/fusion-synth [--questions 120] [--files 120]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from corpus_zoo import ZOO, Zoo, files_of

from tabane.errors import TabaneError
from tabane.models.extractive import sentences
from tabane.models.local import UseEmbedder
from tabane.text.documents import read_document

DEV_CORPORA = {"python3.11-doc", "git-doc", "manpages-ja", "debian-handbook", "maint-guide-ja"}
MAX_PARAGRAPHS = 6000
HIDDEN = "·"  # what stands for a heading asked as a question, with --hide-headings
NOT_READ = DEV_CORPORA | {"maint-guide"}  # maint-guide: the same book as maint-guide-ja


def read_corpus(zoo: Zoo, files: int, rng: random.Random) -> list[dict[str, object]]:
    paths = files_of(zoo)
    if len(paths) > files:
        paths = sorted(rng.sample(paths, files))
    paras: list[dict[str, object]] = []
    for path in paths:
        name = str(path.relative_to(zoo.root))
        try:
            doc = read_document(path.read_bytes(), name=name)
        except TabaneError:
            continue
        title = (doc.title or name).strip()
        for idx, b in enumerate(doc.blocks):
            loc = {"kind": b.locator.kind, "value": b.locator.value} if b.locator else None
            paras.append(
                {
                    "id": len(paras),
                    "source": name,
                    "title": title,
                    "section": list(b.section),
                    "locator": loc,
                    "text": b.text,
                    "kind": b.kind,
                    "idx": idx,
                    "questions": [],
                }
            )
    return cap(paras, rng)


def cap(paras: list[dict[str, object]], rng: random.Random) -> list[dict[str, object]]:
    """At most MAX_PARAGRAPHS, whole documents kept (a random subset of them)."""
    by_doc: dict[str, list[dict[str, object]]] = defaultdict(list)
    for p in paras:
        by_doc[str(p["source"])].append(p)
    docs = sorted(by_doc)
    rng.shuffle(docs)
    kept: list[dict[str, object]] = []
    for d in docs:
        if kept and len(kept) + len(by_doc[d]) > MAX_PARAGRAPHS:
            continue
        kept.extend(by_doc[d])
    for i, p in enumerate(kept):
        p["id"] = i
    return kept


def long_enough(s: str) -> bool:
    ascii_words = len(s.split())
    return ascii_words >= 5 or (not s.isascii() and len(s) >= 12)


def questions(
    paras: list[dict[str, object]], n: int, rng: random.Random, hide: bool = False
) -> list[dict[str, object]]:
    by_section: dict[tuple[str, tuple[str, ...]], list[dict[str, object]]] = defaultdict(list)
    for p in paras:
        if p["section"]:
            by_section[(p["source"], tuple(p["section"]))].append(p)  # type: ignore[arg-type]
    heads = Counter(sec[-1].strip().lower() for _, sec in by_section)
    keys = sorted(by_section)
    rng.shuffle(keys)
    out: list[dict[str, object]] = []
    kinds: Counter[str] = Counter()
    for source, sec in keys:
        if len(out) >= n:
            break
        members = by_section[(source, sec)]
        title = str(members[0]["title"])
        head = sec[-1].strip()
        heading_ok = heads[head.lower()] == 1 and head.lower() != title.lower() and len(head) > 3
        first = next((p for p in members if p["kind"] == "text"), None)
        sents = sentences(str(first["text"])) if first is not None else []
        sentence_ok = len(sents) > 1 and long_enough(sents[0])
        ask_heading = heading_ok and (kinds["heading"] <= kinds["sentence"] or not sentence_ok)
        if ask_heading:
            q = head
            if hide:  # the heading is asked, so the index no longer holds it (nor the features)
                sec = (*sec[:-1], HIDDEN * (1 + kinds["heading"]))  # one unit each
                for p in members:
                    p["section"] = list(sec)
        elif sentence_ok and first is not None:
            q = sents[0]
            first["text"] = " ".join(sents[1:])  # the question is not a verbatim lookup
        else:
            continue
        kinds["heading" if ask_heading else "sentence"] += 1
        loc = members[0]["locator"] or {}
        anchor = loc.get("value", "") if loc.get("kind") == "anchor" else ""  # type: ignore[union-attr]
        out.append(
            {
                "question": q,
                "relevant": {source: 1},
                "section": f"{source}#{anchor}",
                "path": [source, *sec],
                "kind": "heading" if ask_heading else "sentence",
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--questions", type=int, default=120)
    ap.add_argument("--files", type=int, default=120)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--hide-headings", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    embedder = UseEmbedder()
    for zoo in ZOO:
        if zoo.name in NOT_READ or (args.only and zoo.name not in args.only):
            continue
        if not Path(zoo.root).is_dir():
            print(f"{zoo.name}: not installed", flush=True)
            continue
        rng = random.Random(zoo.name)
        started = time.perf_counter()
        paras = read_corpus(zoo, args.files, rng)
        qs = questions(paras, args.questions, rng, args.hide_headings)
        vecs = embedder.embed_documents([str(p["text"]) for p in paras])
        qv = embedder.embed_documents([str(q["question"]) for q in qs])
        np.savez(
            args.out / f"{zoo.name}.npz",
            vecs=vecs,
            have=np.ones(len(paras), dtype=bool),
            qv=qv,
            ids=np.arange(len(paras)),
        )
        dump = {"paragraphs": paras, "questions": qs}
        (args.out / f"{zoo.name}.json").write_text(json.dumps(dump, ensure_ascii=False))
        took = time.perf_counter() - started
        print(f"{zoo.name}: {len(paras)} paragraphs, {len(qs)} questions, {took:.0f} s", flush=True)


if __name__ == "__main__":
    main()
