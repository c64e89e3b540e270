"""Helpers, not benchmarks: a fresh store in a temporary home, stopped and removed afterwards;
the memory sets asked in a home of one's own, every (set, loading) once, rows written as JSON."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import _env

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"
Rows = list[dict[str, Any]]


@contextmanager
def fresh_store(prefix: str, model: Any = None, **settings: Any) -> Iterator[Any]:
    """A `Tabane` on a new embedded store (worker off unless `settings` say otherwise), with
    `model` as its embedder; its server is stopped and its home deleted on the way out."""
    from tabane.config import Settings
    from tabane.service import Tabane
    from tabane.storage import embedded

    home = Path(tempfile.mkdtemp(prefix=f"tabane-bench-{prefix}-"))
    svc = Tabane.open(Settings(home=home, **{"worker": "off", **settings}), embedder=model)
    try:
        yield svc
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)


def collect_memory_sets(
    run_set: Callable[[Any, Any, Path, str], Rows], loadings: list[str], indent: int | None = None
) -> tuple[Rows, argparse.Namespace]:
    """Parse `--home --out [--set …] [--loading …]`, load each memory set (default: memory.json
    and memory2.json) in each loading (default `loadings`) into the home and collect
    `run_set(svc, user, path, loading)`'s rows; write them to `--out` and return them."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--set", action="append", type=Path)
    ap.add_argument("--loading", action="append")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.service import Tabane

    print(_env.header(_env.describe(), load_after=False))
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    rows: Rows = []
    with Tabane.open(settings) as svc:
        for loading in args.loading or loadings:
            for path in args.set or [DEV / "memory.json", DEV / "memory2.json"]:
                rows += run_set(svc, svc.local_user(), path, loading)
                print(f"{path.name} {loading}: {len(rows)} rows so far", flush=True)
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=indent))
    return rows, args
