"""The OpenAPI schema tells the truth about input (issue 32): every wire request model (a route's
body, a tool's arguments) states the bounds the service checks on its fields — names' lengths,
source ids, scope and tag lengths and counts, paragraph indexes, weights, claim texts — taken
from the constants the checks themselves use, so a bound changed in a check fails here until
the wire says it too. A field whose value only looks something up (the bound names nothing and
is not checked) is listed as such."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import tabane.wire
from tabane.checks import MAX_INT4
from tabane.graph.claims.parse import CLAIM_TEXTS, MAX_REPLY, MAX_STATEMENT, MAX_WEIGHT
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.ingest.documents import MAX_SOURCE_ID, MAX_TAGS_SENT
from tabane.wire.base import Request

NAME = {"minLength": 1, "maxLength": 64}  # checks.check_name
SPELLING = {"maxLength": MAX_SPELLING}  # vocabulary.check_spelling (after spaces are made one)
BOUNDS: dict[str, dict[str, Any]] = {
    "name": NAME,
    "new_name": NAME,
    "source_id": {"minLength": 1, "maxLength": MAX_SOURCE_ID},  # ingest.check_source_id
    "scopes": {"items": {"minLength": 1, "maxLength": 128}},  # checks.check_scope
    "tags": {"maxItems": MAX_TAGS_SENT, "items": {"maxLength": 128}},  # ingest.check_tags
    "paragraph": {"minimum": 0, "maximum": MAX_INT4},  # checks.is_paragraph_index
    "weight": {"minimum": -MAX_WEIGHT, "maximum": MAX_WEIGHT},  # claims.parse._weight
    "statement": {"maxLength": MAX_STATEMENT},
    "in_reply_to": {"maxLength": MAX_REPLY},
    "subject": SPELLING,
    "label": SPELLING,
    "object": SPELLING,
    **{name: {"maxLength": limit} for name, limit in CLAIM_TEXTS.items()},
}
# a search's tag filter (search/plan.py): at least one tag, none blank; no length or count
FILTER_TAGS = {"minItems": 1, "items": {"minLength": 1}}
SEARCHES = (
    "CrossExplainIn",
    "CrossSearchIn",
    "ExplainArgs",
    "ExplainIn",
    "SearchArgs",
    "SearchIn",
    "TaguruSearchIn",
    "TaguruCrossSearchIn",
)
# (model, field): the bound the service checks there instead of BOUNDS' (None: it checks none)
ELSEWHERE: dict[tuple[str, str], dict[str, Any] | None] = {
    **{(model, "tags"): FILTER_TAGS for model in SEARCHES},
    # a lookup: a spelling no concept has finds nothing
    **{
        (model, field): None
        for model in (
            "CrossQueryIn",
            "QueryGraphArgs",
            "QueryIn",
            "CitationsIn",
            "CiteAssociationArgs",
            "EdgeIn",
        )
        for field in ("subject", "label", "object", "source")
    },
    # a schema declares spellings (graph/schema.py checks them as vocabulary does)
    ("LabelIn", "name"): SPELLING,
    ("KindIn", "name"): SPELLING,
    # a lookup: an expected source no one stored is never served
    ("ExpectedIn", "source"): None,
    ("PassagesIn", "tags"): None,  # a map of source id → tags: each list states the bounds
    # a filter: an author who wrote nothing finds nothing
    ("MemoriesArgs", "author"): None,
    # a partition to read: one nobody wrote in is empty
    **{
        (model, "perspective"): None
        for model in (
            "ActivateArgs",
            "ActivateIn",
            "CitationsIn",
            "CiteAssociationArgs",
            "CrossQueryIn",
            "EdgeIn",
            "ExploreArgs",
            "ExploreIn",
            "FindPathsArgs",
            "PathsIn",
            "QueryGraphArgs",
            "QueryIn",
            "WalkIn",
        )
    },
}


def _requests() -> dict[str, type[Request]]:
    found: dict[str, type[Request]] = {}
    for info in pkgutil.iter_modules(tabane.wire.__path__):
        module = importlib.import_module(f"tabane.wire.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Request) and value is not Request:
                found[value.__name__] = value
    return found


def _states(schema: dict[str, Any], want: dict[str, Any], defs: dict[str, Any]) -> bool:
    """Whether `schema` (or one branch of its anyOf, or what it refers to) states every
    keyword of `want` at least as tightly (a nested `items` is compared in the same way)."""
    if "$ref" in schema:
        return _states(defs[schema["$ref"].rsplit("/", 1)[-1]], want, defs)
    if any(_states(branch, want, defs) for branch in schema.get("anyOf", ())):
        return True
    for key, value in want.items():
        if key == "items":
            if not _states(schema.get("items", {}), value, defs):
                return False
        elif key == "maxLength" and all(len(e) <= value for e in schema.get("enum", [""] * 2)):
            continue  # an enumeration of short words
        elif key.startswith("max") or key == "maximum":
            if schema.get(key, float("inf")) > value:
                return False
        elif schema.get(key, float("-inf")) < value:
            return False
    return True


def _walk(model: str, schema: dict[str, Any], defs: dict[str, Any], seen: set[str]) -> list[str]:
    gaps = []
    for field, sub in schema.get("properties", {}).items():
        want = ELSEWHERE.get((model, field), BOUNDS.get(field))
        if want and not _states(sub, want, defs):
            gaps.append(f"{model}.{field}: {want}")
    for name, inner in defs.items():
        if name not in seen:
            seen.add(name)
            gaps += _walk(name, inner, defs, seen)
    return gaps


def test_every_request_states_the_bounds_the_service_checks() -> None:
    gaps: set[str] = set()
    for name, model in _requests().items():
        schema = model.model_json_schema()
        defs = schema.get("$defs", {})
        gaps |= set(_walk(name, schema, defs, set()))
    assert sorted(gaps) == []


def test_a_bound_the_schema_understates_is_found() -> None:
    loose = {"type": "string", "maxLength": MAX_SOURCE_ID + 1}
    want = BOUNDS["source_id"]
    assert not _states(loose, want, {})
    assert _states({"anyOf": [{"type": "null"}, {**loose, **want}]}, want, {})
    assert not _states({"type": "array", "items": {"type": "string"}}, BOUNDS["scopes"], {})
