"""Migrating an empty database to head: this tree's migrations against a baseline commit's.

Each run makes a new database on one embedded server and times `migrate.upgrade` on it in a fresh
Python subprocess (Alembic's import included, interpreter start-up not), the baseline's code taken
from `git archive BASE src` and put first on the child's path. Runs alternate between the two;
p50 and min per side, and the ratio of the p50s. The default baseline, 314ad07, is the last commit
with the 35-migration chain that the baseline migration (0036) replaced.

    .venv/bin/python bench/migrate_fresh.py --repeat 5 [--base 314ad07]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)
from _store import fresh_store
from sqlalchemy import text

CHILD = """
import sys, time
from sqlalchemy import create_engine
from tabane.storage import migrate
engine = create_engine(sys.argv[1])
start = time.perf_counter()
migrate.upgrade(engine, login_role=False)
print(time.perf_counter() - start, migrate.current(engine))
"""


def _checkout(commit: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "archive", commit, "src"], cwd=_env.REPO, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _once(owner: object, name: str, src: Path | None) -> tuple[float, str]:
    admin = owner.execution_options(isolation_level="AUTOCOMMIT")  # type: ignore[attr-defined]
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = owner.url.set(database=name).render_as_string(hide_password=False)  # type: ignore[attr-defined]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, url], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        return float(out[0]), out[1]
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--base", default="314ad07")
    args = parser.parse_args()
    info = _env.describe()
    times: dict[str, list[float]] = {"base": [], "this": []}
    heads: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp, fresh_store("migrate", embedder="none") as svc:
        base_src = _checkout(args.base, Path(tmp))
        for i in range(args.repeat):
            for side, src in (("base", base_src), ("this", None)):
                seconds, heads[side] = _once(svc.store.owner, f"bench_{side}_{i}", src)
                times[side].append(seconds)
    print(_env.header(info))
    print("\n| migrations to head (empty database), s | p50 | min | head |\n|---|---|---|---|")
    for side, label in (("base", f"{args.base} (35 migrations)"), ("this", "this tree")):
        t = times[side]
        print(f"| {label} | {statistics.median(t):.3f} | {min(t):.3f} | {heads[side]} |")
    ratio = statistics.median(times["this"]) / statistics.median(times["base"])
    print(f"\nratio this/base (p50): {ratio:.2f} over {args.repeat} runs each")


if __name__ == "__main__":
    main()
