"""The CLI at a terminal: wall time of `tabane` commands, this tree against an older commit.

Each variant runs as a real `python -m tabane.cli.main` process with PYTHONPATH set to its own
`src/` (the older commit is checked out with `git worktree` into a temporary folder), over a home of
its own holding the package's sample corpus, with the default embedder. Measured per variant,
alternating variant by variant so both see the same load, reported as the median of `--repeat`:

- `--help`;
- cold: `contexts list` with the home's server stopped (and no resident): start + imports + query;
- warm `search` and warm `recall`: the same command again, 4 s after one run that warmed what the
  variant keeps (the older code keeps nothing: each command starts and stops PostgreSQL and loads
  the model; this one finds the server up and, from the second search or recall, its resident).

    python bench/cli_latency.py --old 4927cd0 --repeat 5 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)

QUESTION = "how deep can groups nest?"
WARM_UP = 4.0  # seconds between the warming run and the measured one, for both variants
CASES = ("help", "cold contexts list", "warm search", "warm recall")


def _run(src: Path, home: Path, *args: str, check: bool = True) -> float:
    env = {**os.environ, "PYTHONPATH": str(src), "TABANE_HOME": str(home)}
    env.pop("TABANE_RESIDENT_SECONDS", None)
    env.pop("TABANE_PG_IDLE_SECONDS", None)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "tabane.cli.main", *args], env=env, capture_output=True, text=True
    )
    took = time.monotonic() - started
    if check and done.returncode != 0:
        raise SystemExit(f"{args} failed under {src}: {done.stderr[-2000:]}")
    return took


def _stop(src: Path, home: Path) -> None:
    """Stop the home's server and resident (whichever code made them) and wait until gone."""
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"tabane.cli.resident" in argv and os.fsencode(home) in argv:
            os.kill(int(proc.name), signal.SIGTERM)
    code = (
        "from pathlib import Path; from tabane.storage import embedded; "
        f"embedded.stop(Path({str(home)!r}))"
    )
    subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(src)})
    time.sleep(0.5)


def _prepare(src: Path, home: Path, samples: Path) -> None:
    _run(src, home, "contexts", "create", "bench")
    _run(src, home, "ingest", str(samples), "-c", "bench")


def _measure(src: Path, home: Path, case: str) -> float:
    if case == "help":
        return _run(src, home, "--help")
    if case == "cold contexts list":
        _stop(src, home)
        return _run(src, home, "contexts", "list")
    args = (
        ("search", QUESTION, "-c", "bench")
        if case == "warm search"
        else ("recall", QUESTION, "-c", "bench")
    )
    _run(src, home, *args)  # warm what the variant keeps (a resident starts in about 2 s)
    time.sleep(WARM_UP)
    return _run(src, home, *args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="4927cd0", help="the commit to compare against")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    opts = parser.parse_args()
    info = _env.describe()
    tmp = Path(tempfile.mkdtemp(prefix="tabane-cli-bench-"))
    old_tree = tmp / "old"
    subprocess.run(["git", "worktree", "add", "--detach", str(old_tree), opts.old],
                   cwd=_env.REPO, check=True, capture_output=True)  # fmt: skip
    samples = _env.REPO / "src" / "tabane" / "samples"
    variants = {"old": old_tree / "src", "new": _env.REPO / "src"}
    homes = {name: tmp / f"home-{name}" for name in variants}
    times: dict[str, dict[str, list[float]]] = {v: {c: [] for c in CASES} for v in variants}
    try:
        for name, src in variants.items():
            _prepare(src, homes[name], samples)
        for _ in range(opts.repeat):
            for case in CASES:
                for name, src in variants.items():
                    times[name][case].append(_measure(src, homes[name], case))
    finally:
        for name, src in variants.items():
            _stop(src, homes[name])
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=_env.REPO,
                       capture_output=True)  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)
    print(_env.header(info))
    print(f"old = {opts.old}, new = this tree; median wall seconds of {opts.repeat} runs\n")
    print("| command | old | new | new / old |")
    print("|---|---|---|---|")
    for case in CASES:
        old, new = (statistics.median(times[v][case]) for v in ("old", "new"))
        print(f"| {case} | {old:.2f} | {new:.2f} | {new / old:.2f}x |")
    if opts.json:
        opts.json.write_text(json.dumps({"env": info, "old": opts.old, "times": times}, indent=1))


if __name__ == "__main__":
    main()
