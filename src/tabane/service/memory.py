"""The service's memory operations: remembered notes and session turns (working memory)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from tabane.contexts import contexts
from tabane.errors import InvalidInput, Issue
from tabane.jobs import queue, rebuilds
from tabane.memory import memories, sessions
from tabane.memory.memories import MemoryPage
from tabane.memory.sessions import SessionInfo, Turn, Window
from tabane.principal import Principal
from tabane.service.base import ServiceBase


class MemoryService(ServiceBase):
    def remember(
        self,
        user: Principal,
        context: str,
        fields: Mapping[str, Any],
        *,
        speaker: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> int:
        """Remember a note (`text`, optionally a triple and claim fields) as `speaker` (default:
        you); returns its claim id. Default scopes: the context's own."""
        self._writable()
        memory = memories.parse_memory(fields, speaker)
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            chosen = (
                tuple(ctx.scopes)
                if scopes is None
                else tuple(contexts.writable_scopes(user, scopes))
            )
            claim_id = memories.remember(session, user, ctx, memory, chosen)
            if self.embedder is not None:  # recall's claims lane finds it once embedded
                queue.enqueue_claims(session, context_id=ctx.id, scopes=chosen)
                if memory.subject is not None:  # a triple changes its concepts' glosses
                    queue.enqueue_glosses(session, context_id=ctx.id, scopes=chosen)
            if memory.triple is not None or memory.closes:  # the graph changed: rebuild later
                rebuilds.derived_changed(
                    session, user, ctx, graph=True, leaves=bool(memory.closes), written=chosen
                )
            return claim_id

    def memories(
        self,
        user: Principal,
        context: str,
        *,
        author: str | None = None,
        include_closed: bool = False,
        limit: int = 50,
        after: int | None = None,
    ) -> MemoryPage:
        with self.store.session(user) as session:
            ctx = contexts.resolve(session, context)
            return memories.list_memories(
                session, ctx, author=author, include_closed=include_closed, limit=limit, after=after
            )

    def add_turn(
        self,
        user: Principal,
        session_name: str,
        text: str,
        *,
        speaker: str | None = None,
        role: str = "user",
        at: datetime | None = None,
        scopes: Sequence[str] | None = None,
    ) -> Turn:
        """Append a turn to one of your sessions (opened on first use); speaker defaults to you."""
        self._writable()
        name = sessions.check_session_name(session_name)
        chosen = None if scopes is None else contexts.writable_scopes(user, scopes)
        with self.store.session(user) as session:
            turn = sessions.append(
                session,
                user,
                name,
                speaker=user.name if speaker is None else speaker,
                text=text,
                role=role,
                at=at,
                scopes=chosen,
            )
            if self.embedder is not None:  # recall's turns lane ranks it once embedded
                chat = sessions.find(session, user, name)
                queue.enqueue_turns(session, session_pk=chat.id, scopes=chat.scopes)
            return turn

    def turns(
        self,
        user: Principal,
        session_name: str,
        *,
        last: int | None = None,
        hours: float | None = None,
    ) -> list[Turn]:
        """The session's working memory: its last `last` turns within `hours` hours (unset: the
        TABANE_SESSION_TURNS and TABANE_SESSION_HOURS window)."""
        name = sessions.check_session_name(session_name)
        try:
            window = Window(
                self.settings.session_turns if last is None else last,
                self.settings.session_hours if hours is None else hours,
            )
        except InvalidInput as exc:  # named as this call names the bound
            renamed = (Issue("last", i.problem) if i.path == "turns" else i for i in exc.issues)
            exc.issues = tuple(renamed)
            raise
        with self.store.session(user) as session:
            return sessions.working_memory(session, user, name, window)

    def list_sessions(self, user: Principal) -> list[SessionInfo]:
        with self.store.session(user) as session:
            return sessions.list_sessions(session, user)

    def delete_session(self, user: Principal, session_name: str) -> int:
        name = sessions.check_session_name(session_name)
        with self.store.session(user) as session:
            return sessions.remove(session, user, name)
