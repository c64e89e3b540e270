"""The `Summarizer` protocol, its value types, and what every summarizer shares.

A summarizer reads members (paragraphs, claims, lower summaries), each named by a ref such as
`p:123` or `c:45` and weighted, and writes one summary of at most `budget_chars` characters whose
statements cite the members they come from as `[p:123]` markers in the text. `Summary.refs` lists
the cited refs in order of first use (only refs that were given), `summarizer` names who wrote it,
and `fingerprint` identifies the member versions read (`fingerprint()`), so a derived row can tell
that its members changed. An empty member list gives an empty summary.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from tabane.errors import InvalidInput, Issue

# A ref: a kind, a colon and an id (`p:123`, `c:45`, `s:raptor:2:7`).
_REF = r"[A-Za-z][\w-]*:[\w.:/-]+"
REF = re.compile(_REF)
# A citation marker: refs in square brackets, separated by commas, semicolons or spaces.
MARKER = re.compile(rf"\[\s*({_REF}(?:\s*[,;\s]\s*{_REF})*)\s*\]")
_SPLIT = re.compile(r"[,;\s]+")
_SPACED_MARKER = re.compile(r"([ \t]*)" + MARKER.pattern)
# Where a summary may be cut: after a sentence end and the markers that follow it, or a marker.
_CLOSE = r"[\"'”’)\]」』）]*"
_CUT = re.compile(
    rf"(?:[.!?]+{_CLOSE}(?=\s|\[|$)|[。！？]+{_CLOSE})(?:[ \t]*\[[^\[\]\n]{{1,200}}\])*"
    r"|\[[^\[\]\n]{1,200}\]"
)
ELLIPSIS = "…"


@dataclass(frozen=True)
class Member:
    """One text to summarize: its ref (cited as `[ref]`), its text and a positive weight."""

    ref: str
    text: str
    weight: float = 1.0


@dataclass(frozen=True)
class Summary:
    """A summary's text (with `[ref]` markers), the refs it cites in order of first use, the
    summarizer that wrote it and the fingerprint of the member versions it read."""

    text: str
    refs: tuple[str, ...]
    summarizer: str
    fingerprint: str


class Summarizer(Protocol):
    name: str

    def summarize(
        self, members: Sequence[Member], *, budget_chars: int, language_hint: str | None = None
    ) -> Summary:
        """A summary of `members` of at most `budget_chars` characters citing their refs."""
        ...


def fingerprint(members: Sequence[Member]) -> str:
    """sha256 (hex) over the members' refs and texts, in order: it changes when any of them does.
    Weights are left out: a re-weighting alone does not make a summary stale."""
    digest = hashlib.sha256()
    for member in members:
        for part in (member.ref, member.text):
            data = part.encode()
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.hexdigest()


def checked_members(members: Sequence[Member], budget_chars: int) -> None:
    """Refuse a non-positive budget, malformed or repeated refs and weights that are not
    positive finite numbers; issues name each member as `members[i]`."""
    issues: list[Issue] = []
    if isinstance(budget_chars, bool) or not isinstance(budget_chars, int) or budget_chars < 1:
        issues.append(Issue("budget_chars", f"must be a positive integer, got {budget_chars!r}"))
    seen: set[str] = set()
    for i, member in enumerate(members):
        if not isinstance(member.ref, str) or not REF.fullmatch(member.ref):
            issues.append(Issue(f"members[{i}].ref", f"not a ref like p:123: {member.ref!r}"))
        elif member.ref in seen:
            issues.append(Issue(f"members[{i}].ref", f"repeats {member.ref!r}"))
        seen.add(member.ref)
        if not isinstance(member.text, str):
            issues.append(Issue(f"members[{i}].text", "not a string"))
        weight = member.weight
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float)
            or not math.isfinite(weight)
            or weight <= 0
        ):
            issues.append(Issue(f"members[{i}].weight", f"must be positive, got {weight!r}"))
    if issues:
        raise InvalidInput("cannot summarize these members", issues=issues[:20])


def cited(text: str, allowed: Collection[str]) -> tuple[str, ...]:
    """The refs cited by `[ref]` markers in `text` that are in `allowed`, in order of first use."""
    out: dict[str, None] = {}
    for match in MARKER.finditer(text):
        for ref in _SPLIT.split(match.group(1)):
            if ref in allowed:
                out.setdefault(ref, None)
    return tuple(out)


def keep_known(text: str, allowed: Collection[str]) -> str:
    """`text` with unknown refs dropped from its markers (a marker left empty goes entirely)."""

    def replace(match: re.Match[str]) -> str:
        refs = [r for r in _SPLIT.split(match.group(2)) if r in allowed]
        return f"{match.group(1)}[{', '.join(refs)}]" if refs else ""

    return _SPACED_MARKER.sub(replace, text).strip()


def strip_citations(text: str) -> str:
    """`text` without its `[ref]` markers (for embedding a summary)."""
    return _SPACED_MARKER.sub("", text).strip()


def fit(text: str, budget_chars: int) -> str:
    """`text` cut to at most `budget_chars` characters: at the last sentence end or citation
    marker that fits, else at a word boundary with an ellipsis."""
    text = text.strip()
    if len(text) <= budget_chars:
        return text
    ends = [m.end() for m in _CUT.finditer(text) if m.end() <= budget_chars]
    if ends:
        return text[: ends[-1]].rstrip()
    if budget_chars <= len(ELLIPSIS):
        return ""
    head = text[: budget_chars - len(ELLIPSIS)]
    space = head.rfind(" ")
    if space > len(head) // 2:
        head = head[:space]
    return head.rstrip() + ELLIPSIS
