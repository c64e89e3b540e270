"""Validating a batch of claims from the wire: every problem is reported with its path
(`associations[17].weight: not finite`) and a batch with any problem writes nothing."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from tabane.checks import MAX_INT4, MAX_INT8, is_paragraph_index, parse_date, text_problem
from tabane.errors import InvalidInput, Issue
from tabane.graph.vocabulary import check_spelling
from tabane.storage.schema import EPISTEMIC_KINDS

MAX_BATCH = 10_000
MAX_WEIGHT = 1e6
MAX_STATEMENT = 20_000
MAX_REPLY = 2_000  # characters of what a note answers (the embedder reads the first few hundred)
CLAIM_TEXTS = {"source": 2000, "author": 200, "role": 100, "perspective": 200}  # lengths at most
FIELDS = frozenset(  # a claim as a writer states it
    {
        "subject",
        "label",
        "object",
        "weight",
        "statement",
        "in_reply_to",
        "source",
        "paragraph",
        "author",
        "role",
        "kind",
        "perspective",
        "valid_from",
        "valid_until",
        "closes",
    }
)


@dataclass(frozen=True)
class ClaimInput:
    """One claim as the caller stated it (spellings not yet mapped through aliases)."""

    subject: str | None
    label: str | None
    object: str | None
    weight: float | None
    statement: str | None = None
    # what a note answers (graph/claims/vectors.py embeds it with it)
    in_reply_to: str | None = None
    source: str | None = None
    paragraph: int | None = None
    author: str | None = None
    role: str | None = None
    kind: str = "world"
    perspective: str | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    closes: tuple[int, ...] = ()

    @property
    def triple(self) -> tuple[str, str, str] | None:
        if self.subject is None or self.label is None or self.object is None:
            return None
        return (self.subject, self.label, self.object)


def parse_claims(
    items: object, path: str = "associations", *, require_triple: bool = True
) -> list[ClaimInput]:
    """Parse a list of claim objects; raises InvalidInput listing every issue."""
    if not isinstance(items, (list, tuple)):
        raise InvalidInput(f"{path} must be a list", issues=[Issue(path, "not a list")])
    if not items:
        raise InvalidInput(f"{path} is empty", issues=[Issue(path, "empty")])
    if len(items) > MAX_BATCH:
        raise InvalidInput(
            f"{path} is too large", issues=[Issue(path, f"{len(items)} > {MAX_BATCH} claims")]
        )
    issues: list[Issue] = []
    out: list[ClaimInput] = []
    for i, item in enumerate(items):
        claim = parse_claim(item, f"{path}[{i}]", issues, require_triple=require_triple)
        if claim is not None:
            out.append(claim)
    if issues:
        raise InvalidInput(f"{len(issues)} problem(s) in {path}; nothing written", issues=issues)
    return out


def parse_claim(
    item: object, path: str, issues: list[Issue], *, require_triple: bool = True
) -> ClaimInput | None:
    if not isinstance(item, Mapping):
        issues.append(Issue(path, "not an object"))
        return None
    before = len(issues)
    for name in sorted(set(item) - FIELDS):
        issues.append(Issue(f"{path}.{name}", "unknown field"))
    said = _what_it_says(item, path, issues, require_triple)
    kind = _kind(item, path, issues)
    cited = _citation(item, path, issues)
    valid = _validity(item, path, issues)
    closes = _ids(item.get("closes", ()), f"{path}.closes", issues)
    if len(issues) > before:
        return None
    return ClaimInput(
        **said,
        **cited,
        author=text_field(item.get("author"), f"{path}.author", issues, CLAIM_TEXTS["author"]),
        role=text_field(item.get("role"), f"{path}.role", issues, CLAIM_TEXTS["role"]),
        kind=kind,
        perspective=text_field(
            item.get("perspective"), f"{path}.perspective", issues, CLAIM_TEXTS["perspective"]
        ),
        **valid,
        closes=closes,
    )


def _what_it_says(
    item: Mapping[str, object], path: str, issues: list[Issue], require_triple: bool
) -> dict[str, Any]:
    """The claim's triple and weight, its statement and what it replies to: a triple whole (or
    none, where a statement may stand alone), a weight only with a triple, a reply only with a
    statement."""
    ends = {
        name: _spelling(item.get(name), f"{path}.{name}", issues)
        for name in ("subject", "label", "object")
    }
    present = [name for name in ends if item.get(name) is not None]
    if require_triple or present:
        for name in ("subject", "label", "object"):
            if item.get(name) is None:
                issues.append(Issue(f"{path}.{name}", "missing"))
    weight = _weight(item.get("weight"), f"{path}.weight", issues, needed=bool(present))
    if weight is not None and not present and not require_triple:
        issues.append(Issue(f"{path}.weight", "only a triple has a weight (a note has none)"))
    statement = text_field(item.get("statement"), f"{path}.statement", issues, MAX_STATEMENT)
    if not present and statement is None and not require_triple:
        issues.append(Issue(path, "needs a triple (subject, label, object) or a statement"))
    in_reply_to = text_field(item.get("in_reply_to"), f"{path}.in_reply_to", issues, MAX_REPLY)
    if in_reply_to is not None and statement is None:
        issues.append(Issue(f"{path}.in_reply_to", "only a statement replies to something"))
    return {**ends, "weight": weight, "statement": statement, "in_reply_to": in_reply_to}


def _kind(item: Mapping[str, object], path: str, issues: list[Issue]) -> str:
    """The epistemic kind (default `world`); a world claim is everyone's, so it names no
    perspective."""
    kind = item.get("kind", "world")
    if kind not in EPISTEMIC_KINDS:
        issues.append(Issue(f"{path}.kind", f"unknown; use one of {', '.join(EPISTEMIC_KINDS)}"))
    elif kind == "world" and item.get("perspective") is not None:  # it would be dropped
        issues.append(Issue(f"{path}.perspective", "a world claim is everyone's: it has none"))
    return str(kind)


def _citation(item: Mapping[str, object], path: str, issues: list[Issue]) -> dict[str, Any]:
    """The source it is attributed to and, within it, a paragraph (only with a source)."""
    paragraph = item.get("paragraph")
    if paragraph is not None and not is_paragraph_index(paragraph):
        issues.append(Issue(f"{path}.paragraph", f"not an integer in 0..{MAX_INT4}"))
    source = text_field(item.get("source"), f"{path}.source", issues, CLAIM_TEXTS["source"])
    if paragraph is not None and source is None:
        issues.append(Issue(f"{path}.paragraph", "needs a source"))
    return {"source": source, "paragraph": paragraph}


def _validity(item: Mapping[str, object], path: str, issues: list[Issue]) -> dict[str, Any]:
    """When it starts and stops holding; it stops after it starts."""
    valid_from = time_field(item.get("valid_from"), f"{path}.valid_from", issues)
    valid_until = time_field(item.get("valid_until"), f"{path}.valid_until", issues)
    if valid_from and valid_until and valid_from >= valid_until:
        issues.append(Issue(f"{path}.valid_until", "must be after valid_from"))
    return {"valid_from": valid_from, "valid_until": valid_until}


def _spelling(value: object, path: str, issues: list[Issue]) -> str | None:
    return None if value is None else check_spelling(value, path, issues)


def _weight(value: object, path: str, issues: list[Issue], *, needed: bool) -> float | None:
    if value is None:
        if needed:
            issues.append(Issue(path, "missing"))
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        issues.append(Issue(path, "not a number"))
        return None
    try:
        weight = float(value)
    except OverflowError:  # an integer past any float
        weight = math.inf
    if not math.isfinite(weight):
        issues.append(Issue(path, "not finite"))
        return None
    if abs(weight) > MAX_WEIGHT:
        issues.append(Issue(path, f"|weight| > {MAX_WEIGHT:g}"))
        return None
    return weight


def text_field(
    value: object, path: str, issues: list[Issue], limit: int, *, empty: bool = False
) -> str | None:
    """A text field: None when absent; else the text, or None with its problem added (not a
    string, blank unless `empty` allows it, over `limit` characters, unstorable)."""
    if value is None:
        return None
    if not isinstance(value, str):
        issues.append(Issue(path, "not a string"))
        return None
    if not value.strip() and not empty:
        issues.append(Issue(path, "empty"))
        return None
    if len(value) > limit:
        issues.append(Issue(path, f"{len(value)} characters, at most {limit}"))
        return None
    if problem := text_problem(value):
        issues.append(Issue(path, problem))
        return None
    return value


def time_field(value: object, path: str, issues: list[Issue]) -> datetime | None:
    """An ISO 8601 field: None when absent, or None with its problem added."""
    try:
        return parse_date(value, path)
    except InvalidInput as exc:
        issues.extend(exc.issues)
        return None


def _ids(value: object, path: str, issues: list[Issue]) -> tuple[int, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        issues.append(Issue(path, "not a list of claim ids"))
        return ()
    out: list[int] = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= MAX_INT8:
            issues.append(Issue(f"{path}[{i}]", "not a claim id"))
        else:
            out.append(v)
    return tuple(out)


def spelled(claims: Sequence[ClaimInput], path: str = "associations") -> list[ClaimInput]:
    """The claims with their spellings as a write stores them (check_spelling: NFC, spaces and
    invisible characters), for a caller that built them without `parse_claims`; InvalidInput
    naming each bad one."""
    issues: list[Issue] = []
    out = []
    for i, claim in enumerate(claims):
        at = f"{path}[{i}]"
        out.append(
            replace(
                claim,
                subject=_spelling(claim.subject, f"{at}.subject", issues),
                label=_spelling(claim.label, f"{at}.label", issues),
                object=_spelling(claim.object, f"{at}.object", issues),
            )
        )
    if issues:
        raise InvalidInput(f"{len(issues)} problem(s) in {path}; nothing written", issues=issues)
    return out
