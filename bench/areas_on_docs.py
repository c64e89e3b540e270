"""Give a docs eval store's sources areas, so the catalog lanes have rows to fuse (issue 34).

    python bench/areas_on_docs.py HOME CONTEXT...

HOME must be a COPY of an eval home (this rewrites its sources as the owner, bypassing row-level
security). Each live source of the named contexts gets the first component of its id as its
area ("library/asyncio-task.html" → "library"; an id with no folder: "top") and state `active`,
so every source is a project and every folder an area. Then `tabane eval docs … --plan maximal`
over that home asks every question with catalog and area rows among the candidates: before
issue 34 they kept their lane ranks (a rank-1 area fused level with the best paragraph);
compare the served paragraphs' nDCG@10 with the same set on the home without areas.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sqlalchemy import select, update

from tabane.config import Settings
from tabane.storage.opening import open_store
from tabane.storage.schema import Context, Source
from tabane.text.tokenize import title_key


def main(home: Path, contexts: list[str]) -> None:
    store = open_store(Settings(home=home, worker="off"))
    try:
        with store.owner.begin() as conn:
            ids = conn.execute(select(Context.id).where(Context.name.in_(contexts))).scalars()
            rows = conn.execute(
                select(Source.id, Source.source_id).where(
                    Source.context_id.in_(list(ids)), Source.retracted_at.is_(None)
                )
            ).all()
            for pk, sid in rows:
                area = sid.split("/", 1)[0] if "/" in sid else "top"
                conn.execute(
                    update(Source)
                    .where(Source.id == pk)
                    .values(area=area, area_key=title_key(area), state="active")
                )
            print(f"{len(rows)} sources given an area in {', '.join(contexts)}")
    finally:
        store.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
