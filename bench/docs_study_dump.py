"""Dump each docs dev set's stored corpus (paragraphs, their vectors) and the questions'
query vectors from an eval store, for offline fusion studies (bench/docs_study.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sqlalchemy import text

from tabane.config import Settings
from tabane.service import Tabane

SETS = {
    "pydocs": "python3.11-doc",
    "gitdocs": "git-doc",
    "manpages-ja": "manpages-ja",
    "handbook": "debian-handbook",
    "maintguide-ja": "maint-guide-ja",
}


def main(home: str, out: str, dev: str) -> None:
    svc = Tabane.open(Settings(home=Path(home), worker="off"))
    assert svc.embedder is not None
    outdir = Path(out)
    with svc.store.admin() as s:
        ctxs = dict(s.execute(text("select name, id from contexts")).all())
        print(ctxs)
        for name, corpus in SETS.items():
            cid = ctxs[corpus]
            rows = s.execute(
                text(
                    "select p.id, s.source_id, s.title, p.section_path, p.locator, p.text, p.kind,"
                    " p.idx, p.questions from paragraphs p join sources s on s.id = p.source_pk"
                    " where p.context_id = :c and s.retracted_at is null order by p.id"
                ),
                {"c": cid},
            ).all()
            ids = [r.id for r in rows]
            pos = {pid: i for i, pid in enumerate(ids)}
            vecs = np.zeros((len(ids), svc.embedder.dim), dtype=np.float32)
            have = np.zeros(len(ids), dtype=bool)
            for pid, emb in s.execute(
                text(
                    "select paragraph_id, embedding::text from paragraph_vectors"
                    " where context_id = :c and ord = 0 and model = :m"
                ),
                {"c": cid, "m": svc.embedder.name},
            ):
                i = pos.get(pid)
                if i is not None:
                    vecs[i] = np.array(json.loads(emb), dtype=np.float32)
                    have[i] = True
            lines = Path(f"{dev}/{name}.jsonl").read_text(encoding="utf-8").splitlines()
            qs = [json.loads(line) for line in lines if line.strip()]
            qv = np.stack(
                [np.asarray(svc.embedder.embed_query(q["question"]), dtype=np.float32) for q in qs]
            )
            np.savez(outdir / f"{name}.npz", vecs=vecs, have=have, qv=qv, ids=np.array(ids))
            meta = [
                {
                    "id": r.id,
                    "source": r.source_id,
                    "title": r.title,
                    "section": list(r.section_path),
                    "locator": r.locator,
                    "text": r.text,
                    "kind": r.kind,
                    "idx": r.idx,
                    "questions": list(r.questions),
                }
                for r in rows
            ]
            (outdir / f"{name}.json").write_text(json.dumps({"paragraphs": meta, "questions": qs}))
            print(name, len(ids), int(have.sum()), len(qs), flush=True)
    svc.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
