"""Ingest throughput on a real documentation corpus, against parsing alone in the same run.

Phases, each over the same files in the same order (repeated `--repeat` times, median reported):

- parse (baseline): read each file and `read_document(data, name=rel)`; paragraphs/s;
- ingest: `Tabane.ingest(...)` of each file (source id = its path relative to the corpus root) into
  a fresh context of a fresh embedded store in a temporary TABANE_HOME; paragraphs/s until committed
  (paragraphs, sections and BM25 postings: lexically searchable). Embedding is off (embedder
  `none`, worker `off`): the embedder has its own benchmark, and the default in-process worker
  thread would compete with the ingest for the CPU;
- re-ingest: the unchanged corpus again into the same context (content-hash skip); files/s.

Also reported: peak RSS of this process (the PostgreSQL server is another process and not
counted), the size of the PostgreSQL data directory and of the database after the ingest. Files are
selected as /work/shared/eval/corpora.md says for `python3.11-doc` (497 files).

    .venv/bin/python bench/ingest_throughput.py --corpus /usr/share/doc/python3.11/html [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)

EXPECTED_FILES = 497  # python3.11-doc 3.11.2-6+deb12u9, see corpora.md
_EXCLUDED_NAMES = ("search.html", "py-modindex.html", "contents.html")
_LARGEST = """
SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'r'
ORDER BY 2 DESC LIMIT 4
"""


def select_files(root: Path) -> list[tuple[str, Path]]:
    """Every *.html below root except _sources/**, _static/**, genindex*, search, py-modindex,
    contents; sorted by relative path."""
    out = []
    for path in root.rglob("*.html"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("_sources/", "_static/")) or not path.is_file():
            continue
        if path.name.startswith("genindex") or path.name in _EXCLUDED_NAMES:
            continue
        out.append((rel, path))
    return sorted(out)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def phase_parse(files: list[tuple[str, Path]]) -> dict[str, float]:
    from tabane.text.documents import read_document

    paragraphs = errors = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for rel, path in files:
        try:
            paragraphs += len(read_document(path.read_bytes(), name=rel).blocks)
        except Exception as exc:  # a parser bug must not hide the numbers; it is reported
            errors += 1
            print(f"# parse error {rel}: {exc!r}", file=sys.stderr)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "files": len(files),
        "paragraphs": paragraphs,
        "seconds": seconds,
        "cpu": cpu,
        "server_cpu": 0.0,
        "errors": errors,
    }


def server_cpu(home: Path) -> float:
    """CPU seconds (user + system) used so far by the postmaster and its live children."""
    import psutil

    pid = int((home / "pg" / "postmaster.pid").read_text().splitlines()[0])
    total = 0.0
    master = psutil.Process(pid)
    for proc in (master, *master.children(recursive=True)):
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def phase_ingest(
    svc: object, user: object, files: list[tuple[str, Path]], home: Path
) -> dict[str, float]:
    from tabane.ingest.documents import DocumentInput

    paragraphs = errors = 0
    outcomes: dict[str, int] = {}
    t0, c0, s0 = time.perf_counter(), time.process_time(), server_cpu(home)
    for rel, path in files:
        try:
            result = svc.ingest(  # type: ignore[attr-defined]
                user, "bench", DocumentInput(source_id=rel, data=path.read_bytes())
            )
        except Exception as exc:
            errors += 1
            print(f"# ingest error {rel}: {exc!r}", file=sys.stderr)
            continue
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
        if result.outcome != "unchanged":
            paragraphs += result.paragraphs
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "files": len(files),
        "paragraphs": paragraphs,
        "seconds": seconds,
        "cpu": cpu,
        "server_cpu": server_cpu(home) - s0,
        "errors": errors,
        "outcomes": outcomes,  # type: ignore[dict-item]
    }


def one_run(files: list[tuple[str, Path]]) -> dict[str, object]:
    from sqlalchemy import text

    from tabane.config import Settings
    from tabane.service.facade import Tabane
    from tabane.storage import embedded

    out: dict[str, object] = {"parse": phase_parse(files), "rss_after_parse_mib": peak_rss_mib()}
    home = Path(tempfile.mkdtemp(prefix="tabane-bench-ingest-"))
    home.chmod(0o755)  # as root, the server runs as the `embedded_postgres` user
    try:
        t0 = time.perf_counter()
        settings = Settings(home=home, local_user="bench", embedder="none", worker="off")
        svc = Tabane.open(settings)
        out["open_seconds"] = time.perf_counter() - t0
        try:
            user = svc.local_user()
            svc.create_context(user, "bench")
            out["ingest"] = phase_ingest(svc, user, files, home)
            out["rss_after_ingest_mib"] = peak_rss_mib()
            out["reingest"] = phase_ingest(svc, user, files, home)
            with svc.store.owner.connect() as conn:
                out["database_bytes"] = conn.scalar(text("SELECT pg_database_size('tabane')"))
                out["relations"] = dict(conn.execute(text(_LARGEST)).all())
                conn.execute(text("CHECKPOINT"))
        finally:
            svc.close()
        embedded.stop(home)
        out["pgdata_bytes"] = dir_size(home / "pg")
    finally:
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    return out


def rate(phase: dict[str, float], unit: str) -> float:
    return phase[unit] / phase["seconds"] if phase["seconds"] else 0.0


def report(runs: list[dict[str, object]]) -> str:
    def med(key: str, field: str) -> float:
        return statistics.median(r[key][field] for r in runs)  # type: ignore[index]

    def med_rate(key: str, unit: str) -> float:
        return statistics.median(rate(r[key], unit) for r in runs)  # type: ignore[arg-type]

    def top(key: str) -> float:
        return statistics.median(r[key] for r in runs)  # type: ignore[misc]

    parse_pps, parse_fps = med_rate("parse", "paragraphs"), med_rate("parse", "files")
    rows = [
        ("(a) read + parse (baseline)", "parse", "paragraphs", parse_pps),
        ("(b) ingest, until committed", "ingest", "paragraphs", parse_pps),
        ("(c) re-ingest unchanged", "reingest", "files", parse_fps),
    ]
    lines = [
        f"runs: {len(runs)} (median); files: {runs[0]['parse']['files']}; "  # type: ignore[index]
        f"errors parse/ingest/re-ingest: {med('parse', 'errors'):.0f}/"
        f"{med('ingest', 'errors'):.0f}/{med('reingest', 'errors'):.0f}",
        "",
        "| phase | files | paragraphs | wall s | paragraphs/s | files/s | rate vs (a) "
        "| wall vs (a) | CPU s python + postgres | CPU vs (a) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    parse_s, parse_cpu = med("parse", "seconds"), med("parse", "cpu")
    for label, key, unit, base in rows:
        r = med_rate(key, unit)
        lines.append(
            f"| {label} | {med(key, 'files'):.0f} | {med(key, 'paragraphs'):.0f} "
            f"| {med(key, 'seconds'):.2f} | {med_rate(key, 'paragraphs'):.0f} "
            f"| {med_rate(key, 'files'):.1f} | {r / base:.2f}× ({unit}/s) "
            f"| {med(key, 'seconds') / parse_s:.2f}× "
            f"| {med(key, 'cpu'):.2f} + {med(key, 'server_cpu'):.2f} "
            f"| {(med(key, 'cpu') + med(key, 'server_cpu')) / parse_cpu:.2f}× |"
        )
    mib = 1024 * 1024
    lines += [
        "",
        "| resource | value |",
        "|---|---:|",
        f"| store open (fresh home: initdb + migrations), s | {top('open_seconds'):.2f} |",
        f"| peak RSS after (a), MiB | {top('rss_after_parse_mib'):.0f} |",
        f"| peak RSS after (b), MiB | {top('rss_after_ingest_mib'):.0f} |",
        f"| pg_database_size('tabane'), MiB | {top('database_bytes') / mib:.1f} |",
        f"| PostgreSQL data dir (incl. WAL), MiB | {top('pgdata_bytes') / mib:.1f} |",
    ]
    for name in runs[0]["relations"]:  # type: ignore[union-attr]
        size = statistics.median(r["relations"].get(name, 0) for r in runs)  # type: ignore[union-attr]
        lines.append(f"| table `{name}` with indexes and TOAST, MiB | {size / mib:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path("/usr/share/doc/python3.11/html"))
    parser.add_argument("--limit", type=int, help="only the first N files (sorted by path)")
    parser.add_argument("--repeat", type=int, default=2, help="runs; the median is reported")
    parser.add_argument("--json", type=Path, help="also write every run's numbers here")
    args = parser.parse_args()

    files = select_files(args.corpus)
    if len(files) != EXPECTED_FILES:
        print(
            f"WARNING: {len(files)} files selected, corpora.md expects {EXPECTED_FILES} "
            "(another python3.11-doc package version?); continuing",
            file=sys.stderr,
        )
    if args.limit:
        files = files[: args.limit]
    if not files:
        sys.exit(f"no files selected under {args.corpus}")

    from tabane.text.documents import read_document

    read_document(files[0][1].read_bytes(), name=files[0][0])  # warm-up: lazy parser imports

    info = _env.describe()
    runs = []
    for i in range(args.repeat):
        runs.append(one_run(files))
        print(f"# run {i + 1}/{args.repeat} done", file=sys.stderr)
    print(_env.header(info))
    print(f"- corpus: {args.corpus} ({len(files)} files)\n")
    print(report(runs))
    if args.json:
        data = {"env": info, "corpus": str(args.corpus), "runs": runs}
        args.json.write_text(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
