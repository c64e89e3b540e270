"""Read a dev set (JSON lines, shared/eval/README.md) and check what a harness must check."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabane.errors import InvalidInput, Issue


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    lang: str
    corpus: str
    relevant: dict[str, int]
    section: str | None = None  # "<file>#<anchor>" of the section that answers (README-docbook)


def load(path: Path) -> tuple[list[Question], list[str]]:
    """The questions of a set, and what is wrong with them (duplicate ids, grades other than 1
    or 2, no grade-2 page, mixed corpora). A file that cannot be read as UTF-8 text, an
    unreadable line or a grade that is not an integer in 0..MAX_GRADE raise InvalidInput."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(
            f"{path} cannot be read as a question set", issues=[Issue("set", str(exc))]
        ) from None
    questions: list[Question] = []
    problems: list[str] = []
    seen: set[str] = set()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = _question(json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(
                f"{path}: line {n} is not a question", issues=[Issue(f"line {n}", str(exc))]
            ) from None
        if q.id in seen:
            problems.append(f"{q.id}: duplicate id")
        seen.add(q.id)
        bad = {d: g for d, g in q.relevant.items() if g not in (1, 2)}
        if bad:
            problems.append(f"{q.id}: grades must be 1 or 2: {bad}")
        if 2 not in q.relevant.values():
            problems.append(f"{q.id}: no grade-2 page")
        questions.append(q)
    if not questions:
        raise InvalidInput(f"{path} holds no questions", issues=[Issue("set", "empty")])
    corpora = sorted({q.corpus for q in questions})
    if len(corpora) > 1:
        problems.append(f"the set mixes corpora: {corpora}")
    return questions, problems


def _question(raw: Any) -> Question:
    if not isinstance(raw, dict):
        raise TypeError("not an object")
    relevant = raw["relevant"]
    if not isinstance(relevant, dict) or not relevant:
        raise ValueError("relevant must be a non-empty object")
    for key in ("id", "question", "corpus"):
        if not isinstance(raw[key], str) or not raw[key]:
            raise ValueError(f"{key} must be a non-empty string")
    return Question(
        id=raw["id"],
        question=raw["question"],
        lang=str(raw.get("lang", "")),
        corpus=raw["corpus"],
        relevant={str(d): _grade(raw["id"], str(d), g) for d, g in relevant.items()},
        section=raw["section"] if isinstance(raw.get("section"), str) else None,
    )


MAX_GRADE = 10


def _grade(qid: str, doc: str, grade: Any) -> int:
    """A grade is a non-negative integer (`2.0` reads as 2); one outside 1..2 is a problem of
    the set, reported beside the scores, but anything else cannot be scored at all."""
    if isinstance(grade, float) and grade.is_integer():
        grade = int(grade)
    if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade <= MAX_GRADE:
        raise ValueError(
            f"{qid}: the grade of {doc} is {grade!r}, not an integer in 0..{MAX_GRADE}"
        )  # a huge one would make the gain 2^g - 1 a number nothing can score with
    return grade


def missing_relevant(questions: list[Question], root: Path, selected: set[str]) -> list[str]:
    """Every relevant path must exist under the root and belong to the corpus; anything else is
    a harness bug, not a retrieval miss. Checked before anything is ingested."""
    out: list[str] = []
    for q in questions:
        for doc in sorted(q.relevant):
            if not (root / doc).is_file():
                out.append(f"{q.id}: {doc} does not exist under {root}")
            elif doc not in selected:
                out.append(f"{q.id}: {doc} is not selected by the corpus rule")
    return out


def not_stored(questions: list[Question], stored: set[str]) -> list[str]:
    """The relevant paths the ingest did not store (an empty or unreadable page)."""
    return [
        f"{q.id}: {doc} was not ingested"
        for q in questions
        for doc in sorted(q.relevant)
        if doc not in stored
    ]
