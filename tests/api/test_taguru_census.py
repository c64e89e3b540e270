"""docs/taguru.md's census of Taguru's routes is true of the app (issue 35, decision 0023): a
`taguru` row is served under `/taguru` and covered by the golden fixture, a `tabane` row only at
the root, a `none` row nowhere; and every `/taguru` route is in the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tabane.api.app import create_app
from tabane.service import Tabane

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| (GET|PUT|POST|PATCH|DELETE) \| `([^`]+)` \| (taguru|tabane|none) \|")
GOLDEN = Path(__file__).parent / "golden" / "taguru_wire.json"


def census() -> list[tuple[str, str, str]]:
    rows = []
    for line in (ROOT / "docs" / "taguru.md").read_text().splitlines():
        found = ROW.match(line)
        if found:
            method, path, here = found.groups()
            rows.append((method, path, here))
    return rows


def ours(path: str) -> str:
    """A Taguru path template in tabane's parameter names."""
    return re.sub(r"^/(contexts|groups)/\{name\}", lambda m: f"/{m[1]}/{{{m[1][:-1]}}}", path)


# served outside the OpenAPI, each tested where it lives (tests/api/test_metrics*, tests/mcp)
OUTSIDE = {
    ("GET", "/metrics"),
    ("POST", "/mcp"),
    ("GET", "/taguru/metrics"),
    ("POST", "/taguru/mcp"),
}


def routes(svc: Tabane) -> set[tuple[str, str]]:
    spec = create_app(svc).openapi()
    return {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops} | OUTSIDE


def test_the_census_is_the_apps_routes(svc: Tabane) -> None:
    rows = census()
    assert len(rows) == len({(m, p) for m, p, _ in rows}) >= 60, "one row per method and path"
    served = routes(svc)
    wrong = []
    for method, path, here in rows:
        at_root = (method, ours(path)) in served
        under = (method, "/taguru" + ours(path)) in served
        fits = {"taguru": under, "tabane": at_root and not under, "none": not (at_root or under)}
        if not fits[here]:
            wrong.append(f"{method} {path}: {here}? root={at_root} /taguru={under}")
    assert wrong == []
    listed = {(m, "/taguru" + ours(p)) for m, p, here in rows if here == "taguru"}
    extra = {r for r in served if r[1].startswith("/taguru/")} - listed
    assert extra == set(), "a /taguru route missing from docs/taguru.md"


def test_every_taguru_row_has_a_golden_step() -> None:
    steps = json.loads(GOLDEN.read_text())["steps"]
    sent = {(s["request"]["method"], s["request"]["path"].split("?")[0]) for s in steps}
    templates = {(m, re.sub(r"\{\w+\}(-\w+)?", "{name}", p)) for m, p in sent}
    untested = [(m, p) for m, p, here in census() if here == "taguru" and (m, p) not in templates]
    assert untested == []
