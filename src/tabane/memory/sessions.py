"""Sessions and their turns: the working memory of a conversation.

A session belongs to the user who opened it and is named by that user; appending to a name that
does not exist yet opens it. A session the caller cannot see answers exactly like one that does
not exist (`no_session`). The working-memory window is the last `turns` turns said within the
last `hours` hours (either bound may be off).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.checks import parse_date, text_problem
from tabane.errors import Forbidden, InvalidInput, Issue, NoSession
from tabane.principal import Principal
from tabane.storage.schema import ChatSession, SessionTurn

ROLES = ("user", "assistant", "system", "tool")
MAX_TURN_CHARS = 100_000
MAX_NAME = 200
CLOCK_SKEW = timedelta(minutes=5)  # how far ahead of this server's clock a turn may be dated


@dataclass(frozen=True)
class Turn:
    session: str
    seq: int
    speaker: str
    role: str
    text: str
    at: datetime


@dataclass(frozen=True)
class SessionInfo:
    name: str
    turns: int
    scopes: tuple[str, ...]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class Window:
    """How much of a session is working memory: the last `turns` turns within `hours` hours."""

    turns: int | None = 20
    hours: float | None = None

    def __post_init__(self) -> None:
        issues = []
        if self.turns is not None and (
            isinstance(self.turns, bool) or not isinstance(self.turns, int) or self.turns < 1
        ):
            issues.append(Issue("turns", "a positive integer"))
        if self.turns is not None and isinstance(self.turns, int) and self.turns > 10_000:
            issues.append(Issue("turns", "at most 10000"))
        if self.hours is not None and (
            isinstance(self.hours, bool)
            or not isinstance(self.hours, (int, float))
            or not 0 < self.hours <= 24 * 366 * 10
        ):
            issues.append(Issue("hours", "a positive number of hours (at most ten years)"))
        if issues:
            raise InvalidInput("invalid working-memory window", issues=issues)


def check_session_name(value: object, path: str = "session") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("a session needs a name", issues=[Issue(path, "empty or not text")])
    if problem := text_problem(value):
        raise InvalidInput("invalid session name", issues=[Issue(path, problem)])
    name = unicodedata.normalize("NFC", value.strip())
    if len(name) > MAX_NAME or any(unicodedata.category(ch) == "Cc" for ch in name):
        raise InvalidInput(
            "invalid session name",
            issues=[Issue(path, f"at most {MAX_NAME} characters, no control characters")],
        )
    return name


def find(session: Session, principal: Principal, name: str) -> ChatSession:
    """The caller's session `name`; NoSession when it does not exist or is not visible."""
    row = session.scalar(
        select(ChatSession).where(
            ChatSession.user_id == principal.user_id, ChatSession.name == name
        )
    )
    if row is None:
        raise NoSession(f"no session {name!r}", issues=[Issue("session", "unknown")])
    return row


def append(
    session: Session,
    principal: Principal,
    name: str,
    *,
    speaker: str,
    text: str,
    role: str = "user",
    at: datetime | None = None,
    scopes: Sequence[str] | None = None,
) -> Turn:
    """Append one turn (opening the session on first use) and return it with its `seq`."""
    at = _checked_turn(text, speaker, role, at)
    chat = _writable_session(session, principal, name, scopes)
    row = SessionTurn(
        session_pk=chat.id,
        seq=_next_seq(session, chat, name),
        speaker=speaker.strip(),
        role=role,
        text=text.strip(),
        scopes=list(chat.scopes),
        **({"at": at} if at is not None else {}),
    )
    session.add(row)
    session.flush()
    session.refresh(row)
    return Turn(name, row.seq, row.speaker, row.role, row.text, row.at)


def _checked_turn(text: str, speaker: str, role: str, at: datetime | None) -> datetime | None:
    """A turn's text, speaker, role and date checked together (every problem named); its date
    as stored."""
    issues: list[Issue] = []
    if not isinstance(text, str) or not text.strip():
        issues.append(Issue("text", "empty"))
    elif len(text) > MAX_TURN_CHARS:
        issues.append(Issue("text", f"{len(text)} characters, at most {MAX_TURN_CHARS}"))
    elif problem := text_problem(text):
        issues.append(Issue("text", problem))
    if not isinstance(speaker, str) or not speaker.strip() or len(speaker) > MAX_NAME:
        issues.append(Issue("speaker", f"1..{MAX_NAME} characters"))
    elif problem := text_problem(speaker):
        issues.append(Issue("speaker", problem))
    if role not in ROLES:
        issues.append(Issue("role", f"one of {', '.join(ROLES)}"))
    if at is not None:
        at = _said_at(at, issues)
    if issues:
        raise InvalidInput("invalid turn; nothing written", issues=issues)
    return at


def _writable_session(
    session: Session, principal: Principal, name: str, scopes: Sequence[str] | None
) -> ChatSession:
    """The caller's session `name`, opened under `scopes` (default: the caller's) if new; an
    existing one keeps its own scopes, and the caller must be able to write them."""
    new = _missing(session, principal, name)
    chosen = tuple(scopes) if scopes is not None else principal.default_scopes
    if new and not chosen and principal.write:  # a key that may not write the personal scope
        raise InvalidInput(
            "say which scopes: this key may not write your personal scope, a new session's "
            "default; nothing written",
            issues=[Issue("scopes", f"required; writable: {sorted(principal.write)}")],
        )
    if (new or scopes is not None) and (not chosen or not principal.can_write(chosen)):
        raise Forbidden("you may not write these scopes", issues=[Issue("scopes", "not writable")])
    if "/" in name and new:  # one opened before this rule stays
        raise InvalidInput(
            f"a new session's name cannot hold '/': {name!r}; nothing written",
            issues=[Issue("session", "'/' would end the name in an HTTP path")],
        )
    if chosen:  # an existing session keeps its own scopes (checked below)
        session.execute(
            insert(ChatSession)
            .values(user_id=principal.user_id, name=name, scopes=list(chosen))
            .on_conflict_do_nothing(index_elements=["user_id", "name"])
        )
    chat = find(session, principal, name)
    if scopes is not None and set(scopes) != set(chat.scopes):  # scopes choose a new session's
        raise InvalidInput(
            f"session {name!r} keeps its scopes; nothing written",
            issues=[Issue("scopes", f"the session's are {sorted(chat.scopes)}")],
        )
    if not principal.can_write(tuple(chat.scopes)):  # opened under scopes this key cannot write
        raise Forbidden(
            f"you may not write to session {name!r}",
            issues=[Issue("session", f"its scopes {sorted(chat.scopes)} are not writable")],
        )
    return chat


def _next_seq(session: Session, chat: ChatSession, name: str) -> int:
    """The session's next turn number. One row lock per session serialises appends, so `seq`
    has no gaps and no duplicates."""
    seq: int | None = session.scalar(
        update(ChatSession)
        .where(ChatSession.id == chat.id)
        .values(turns=ChatSession.turns + 1, updated_at=func.now())
        .returning(ChatSession.turns)
    )
    if seq is None:  # deleted by a concurrent `delete_session` after it was found
        raise NoSession(
            f"session {name!r} was deleted while the turn was added; nothing written",
            issues=[Issue("session", "deleted meanwhile")],
        )
    return seq


def _missing(session: Session, principal: Principal, name: str) -> bool:
    owned = ChatSession.user_id == principal.user_id, ChatSession.name == name
    return session.scalar(select(ChatSession.id).where(*owned)) is None


def _said_at(at: datetime, issues: list[Issue]) -> datetime | None:
    """When a turn was said: a valid instant, and not later than now (allowing `CLOCK_SKEW`
    between clocks). A turn dated in the future would count as recent in every window until
    that date came."""
    try:
        when = parse_date(at, "at")
    except InvalidInput as exc:
        issues.extend(exc.issues)
        return None
    assert when is not None
    if when > datetime.now(UTC) + CLOCK_SKEW:
        issues.append(Issue("at", f"{when.isoformat()} is in the future"))
    return when


def working_memory(
    session: Session, principal: Principal, name: str, window: Window, now: datetime | None = None
) -> list[Turn]:
    """The turns inside the window, oldest first."""
    chat = find(session, principal, name)
    stmt = select(SessionTurn).where(SessionTurn.session_pk == chat.id)
    if window.hours is not None:
        since = (now or datetime.now(UTC)) - timedelta(hours=window.hours)
        stmt = stmt.where(SessionTurn.at >= since)
    stmt = stmt.order_by(SessionTurn.seq.desc())
    if window.turns is not None:
        stmt = stmt.limit(window.turns)
    rows = list(session.scalars(stmt))
    return [Turn(name, r.seq, r.speaker, r.role, r.text, r.at) for r in reversed(rows)]


def list_sessions(session: Session, principal: Principal) -> list[SessionInfo]:
    rows = session.scalars(
        select(ChatSession)
        .where(ChatSession.user_id == principal.user_id)
        .order_by(ChatSession.updated_at.desc(), ChatSession.name)
    )
    return [SessionInfo(r.name, r.turns, tuple(r.scopes), r.created_at, r.updated_at) for r in rows]


def remove(session: Session, principal: Principal, name: str) -> int:
    """Delete a session with its turns; returns how many turns went with it."""
    chat = find(session, principal, name)
    if not principal.can_write(tuple(chat.scopes)):
        raise Forbidden(
            f"you may not delete session {name!r}", issues=[Issue("session", "not writable")]
        )
    count = session.scalar(
        select(func.count()).select_from(SessionTurn).where(SessionTurn.session_pk == chat.id)
    )
    session.execute(delete(ChatSession).where(ChatSession.id == chat.id))
    return int(count or 0)
