"""The memory evaluation set (shared/eval/dev/memory.json): reading it, loading one conversation
into a store, and mapping recalled items back to the turn ids the set scores on.

Each conversation gets a context and a session of its own (never mixed with another). Every turn is
written as a session turn (speaker, text, time = session date + one minute per turn). Older turns
fall out of the working-memory window, so a loading also gives recall another lane to find them:

- `turns`: session turns only (the window alone; a baseline);
- `notes`: each turn also remembered as an observation note by its speaker, valid from its
  session date, attributed to the turn id (`source` = the turn id), replying to the turn
  before it in its session (`in_reply_to`, embedded with it);
- `documents`: each session also stored as a source document whose paragraphs are the turns
  (the text alone, under a section named by the speaker: the lanes score the text only, and the
  citation carries the speaker), dated by the session, so the paragraph lanes find them;
- `both`: documents, and notes attributed to their session document and paragraph.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tabane.errors import InvalidInput, Issue
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.result import Evidence
from tabane.service import Tabane

LOADINGS = ("turns", "notes", "documents", "both")


@dataclass(frozen=True)
class MemTurn:
    id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class MemSession:
    id: str
    date: str
    turns: tuple[MemTurn, ...]


@dataclass(frozen=True)
class Conversation:
    id: str
    participants: tuple[str, ...]
    sessions: tuple[MemSession, ...]


@dataclass(frozen=True)
class MemQuestion:
    id: str
    conversation: str
    asker: str
    question: str
    evidence: tuple[str, ...]
    category: str
    distractors: tuple[str, ...] = ()
    traps: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemorySet:
    conversations: tuple[Conversation, ...]
    questions: tuple[MemQuestion, ...]

    def conversation(self, cid: str) -> Conversation:
        return next(c for c in self.conversations if c.id == cid)


def load(path: Path) -> MemorySet:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        conversations = tuple(_conversation(c) for c in raw["conversations"])
        questions = tuple(
            MemQuestion(
                id=q["id"],
                conversation=q["conversation"],
                asker=q["asker"],
                question=q["question"],
                evidence=tuple(q.get("evidence", ())),
                category=q["category"],
                distractors=tuple(q.get("distractors", ())),
                traps=tuple(q.get("traps", ())),
            )
            for q in raw["questions"]
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(
            f"{path} is not a memory evaluation set", issues=[Issue("set", str(exc))]
        ) from None
    if not questions:
        raise InvalidInput(f"{path} holds no questions", issues=[Issue("questions", "empty")])
    known = {c.id for c in conversations}
    stray = sorted({q.id for q in questions if q.conversation not in known})
    if stray:
        raise InvalidInput(
            f"{path}: questions name unknown conversations",
            issues=[Issue("questions", ", ".join(stray))],
        )
    issues = _unknown_turns(conversations, questions)
    if issues:
        raise InvalidInput(f"{path}: questions name turns their conversation lacks", issues=issues)
    return MemorySet(conversations, questions)


def _unknown_turns(
    conversations: tuple[Conversation, ...], questions: tuple[MemQuestion, ...]
) -> list[Issue]:
    """Evidence and distractors are turn ids of the question's own conversation; any other id
    could never be covered, and the question would score as a miss whatever recall served."""
    turns = {c.id: {t.id for s in c.sessions for t in s.turns} for c in conversations}
    issues: list[Issue] = []
    for i, q in enumerate(questions):
        for key, ids in (("evidence", q.evidence), ("distractors", q.distractors)):
            issues += [
                Issue(f"questions[{i}].{key}[{j}]", f"{q.id}: no turn {tid!r} in {q.conversation}")
                for j, tid in enumerate(ids)
                if tid not in turns[q.conversation]
            ]
    return issues


def _conversation(c: Mapping[str, Any]) -> Conversation:
    return Conversation(
        id=str(c["id"]),
        participants=tuple(c["participants"]),
        sessions=tuple(
            MemSession(
                id=str(s["id"]),
                date=str(s["date"]),
                turns=tuple(MemTurn(t["id"], t["speaker"], t["text"]) for t in s["turns"]),
            )
            for s in c["sessions"]
        ),
    )


def turn_time(session: MemSession, index: int) -> datetime:
    """The session date (UTC midnight) plus one minute per turn, keeping turn order."""
    day = datetime.strptime(session.date, "%Y-%m-%d").replace(tzinfo=UTC)
    return day + timedelta(minutes=index)


@dataclass(frozen=True)
class Loaded:
    """Where one conversation lives, and how to read recalled items back as turn ids."""

    conversation: str
    context: str
    session: str
    loading: str
    by_seq: Mapping[int, str]  # session turn seq -> turn id
    by_paragraph: Mapping[tuple[str, int], str]  # (session document, paragraph) -> turn id
    speakers: Mapping[str, str]  # turn id -> speaker
    turn_ids: frozenset[str]

    def covers(self, item: Evidence) -> frozenset[str]:
        """The turn ids an item covers: the turn itself, or the turn its attribution names."""
        c = item.citation
        if item.kind == "turn":
            if c.session == self.session and c.turn is not None and c.turn in self.by_seq:
                return frozenset({self.by_seq[c.turn]})
            return frozenset()
        if c.source is not None:
            if c.source in self.turn_ids:
                return frozenset({c.source})
            if c.paragraph is not None and (c.source, c.paragraph) in self.by_paragraph:
                return frozenset({self.by_paragraph[(c.source, c.paragraph)]})
        return frozenset()

    def attributed(self, item: Evidence, turn_id: str) -> bool:
        """Whether the item carries the speaker of `turn_id`: its author, or (a paragraph of a
        session document) the section it is stored under, which is its speaker."""
        speaker = self.speakers[turn_id]
        if item.author is not None:
            return item.author == speaker
        return item.kind == "paragraph" and item.citation.section == (speaker,)


def install(
    svc: Tabane,
    user: Principal,
    conv: Conversation,
    *,
    loading: str,
    prefix: str = "mem-",
    replies: bool = True,
) -> Loaded:
    """Load one conversation into a fresh context and session named PREFIX+loading-id (an
    existing pair is replaced, so a rerun never doubles memories). `replies` false writes
    notes without what they answer (the loading before `in_reply_to`, for comparison)."""
    if loading not in LOADINGS:
        raise InvalidInput("unknown loading", issues=[Issue("loading", f"one of {LOADINGS}")])
    name = f"{prefix}{loading}-{conv.id}"
    _fresh(svc, user, name, conv)
    by_seq: dict[int, str] = {}
    by_paragraph: dict[tuple[str, int], str] = {}
    speakers: dict[str, str] = {}
    documents = loading in ("documents", "both")
    for s in conv.sessions:
        if documents:
            svc.ingest(user, name, _document(conv, s))
        for i, t in enumerate(s.turns):
            before = {"in_reply_to": s.turns[i - 1].text} if i and replies else {}
            turn = svc.add_turn(user, name, t.text, speaker=t.speaker, at=turn_time(s, i))
            by_seq[turn.seq] = t.id
            by_paragraph[(s.id, i)] = t.id
            speakers[t.id] = t.speaker
            if loading in ("notes", "both"):
                where: dict[str, Any] = (
                    {"source": s.id, "paragraph": i} if documents else {"source": t.id}
                )
                svc.remember(
                    user,
                    name,
                    {"text": t.text, "valid_from": s.date, **where, **before},
                    speaker=t.speaker,
                )
    return Loaded(
        conversation=conv.id,
        context=name,
        session=name,
        loading=loading,
        by_seq=by_seq,
        by_paragraph=by_paragraph if documents else {},
        speakers=speakers,
        turn_ids=frozenset(speakers),
    )


def _fresh(svc: Tabane, user: Principal, name: str, conv: Conversation) -> None:
    """An empty context and no session named `name`: an earlier pair is deleted first."""
    if name in {c.name for c in svc.list_contexts(user)}:
        svc.delete_context(user, name)
    if name in {s.name for s in svc.list_sessions(user)}:
        svc.delete_session(user, name)
    svc.create_context(user, name, description=f"conversation {conv.id}: {conv.participants}")


def _document(conv: Conversation, s: MemSession) -> DocumentInput:
    """A session as one document: a paragraph per turn, under its speaker as the section."""
    return DocumentInput(
        source_id=s.id,
        paragraphs=[block(t.text, section=(t.speaker,)) for t in s.turns],
        title=f"{conv.id} session {s.id} ({s.date})",
        date=s.date,
    )
