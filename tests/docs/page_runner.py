"""Run a Markdown page's ```python blocks in order as one program (test_python_page.py starts it
in an empty folder). A block whose first line is `# needs: MODULE` is skipped where MODULE is
not installed. A `print(...)  # → TEXT` line is checked: some call of it must print TEXT.
argv: PAGE. Prints one JSON line: the blocks run, those skipped, the outputs checked."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

FENCE = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
CHECKED = re.compile(r"^(\s*)print\((.*)\)\s+# → (.*)$")
NEEDS = re.compile(r"^# needs: (\S+)")

printed: dict[str, list[str]] = defaultdict(list)
expected: dict[str, str] = {}


def said(site: str, *values: object) -> None:
    text = " ".join(str(v) for v in values)
    printed[site].append(text)
    print(text)


def checked(block: int, code: str) -> str:
    lines = []
    for number, line in enumerate(code.splitlines(), start=1):
        match = CHECKED.match(line)
        if match:
            indent, args, text = match.groups()
            site = f"block {block} line {number}"
            expected[site] = text.strip()
            line = f"{indent}_said({site!r}, {args})"
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(page: Path) -> None:
    namespace: dict[str, object] = {"__name__": "__page__", "_said": said}
    ran, skipped = [], []
    for block, match in enumerate(FENCE.finditer(page.read_text()), start=1):
        code = match.group(1)
        needs = NEEDS.match(code)
        if needs and importlib.util.find_spec(needs.group(1).split(".")[0]) is None:
            skipped.append(block)
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(checked(block, code), f"{page.name} block {block}", "exec"), namespace)
        ran.append(block)
    wrong = {s: (t, printed.get(s)) for s, t in expected.items() if t not in printed.get(s, [])}
    print(json.dumps({"ran": ran, "skipped": skipped, "checked": len(expected), "wrong": wrong}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
