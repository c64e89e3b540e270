"""Generate docs/cli.md from the commands' own help: `python -m tabane.cli.reference > docs/cli.md`.

A test regenerates it and compares, so the CLI reference can never drift from the code.
"""

from __future__ import annotations

from typing import Any

import typer

from tabane.cli.main import app


def walk(cmd: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """Every command below `cmd` (groups have `commands`), depth first, sorted by name."""
    out = [(path, cmd)]
    if hasattr(cmd, "commands"):
        for name in sorted(cmd.commands):
            out.extend(walk(cmd.commands[name], (*path, name)))
    return out


def render() -> str:
    root = typer.main.get_command(app)
    lines = [
        "# CLI reference",
        "",
        "Generated from the commands' help by `python -m tabane.cli.reference > docs/cli.md`;",
        "a test fails when it is out of date. Commands print for a person on stdout: tables,",
        "search hits, recall's bundle with a line of what its plan did, a write's one-line",
        "confirmation (no colour when stdout is not a terminal or NO_COLOR is set). Every command",
        "takes `--json` and then prints its result as JSON, the format for scripts (`eval`'s",
        "`--json PATH` writes its full report to a file instead). An error goes to stderr as",
        "`error [code]: message` with one line per issue and exits with status 2. `ingest` and",
        "`sync` show a progress bar on stderr (files, then the sources being embedded, with an",
        "ETA) and go on past a file that fails: their summary lists it under `errors`, and they",
        "exit with status 1; a confirmation answered no also exits with status 1.",
        "",
    ]
    for path, cmd in walk(root, ("tabane",)):
        group = hasattr(cmd, "commands")
        if group and len(path) == 1:
            continue
        lines += [f"## `{' '.join(path)}`", ""]
        help_text = (cmd.help or "").replace("\b\n", "").strip()
        lines += [help_text, ""] if help_text else []
        params = [p for p in cmd.params if p.name != "help"]
        if group:
            lines += ["Subcommands: " + ", ".join(f"`{n}`" for n in sorted(cmd.commands)), ""]
            continue
        for p in params:
            if p.param_type_name == "argument":
                name = (p.name or "").upper()
                extra = getattr(p, "help", None) or ""
                lines.append(f"- `{name}` (argument)" + (f": {extra}" if extra else ""))
            else:
                opts = ", ".join(f"`{o}`" for o in p.opts)
                extra = getattr(p, "help", None) or ""
                lines.append(f"- {opts}" + (f": {extra}" if extra else ""))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    print(render(), end="")


if __name__ == "__main__":  # pragma: no cover
    main()
